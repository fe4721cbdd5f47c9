//! libFuzzer entry point of the `ops` target; the logic is `claude_agent_fuzz::targets::ops`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| claude_agent_fuzz::targets::ops(data));
