//! libFuzzer entry point of the `stdout` target; the logic is `claude_agent_fuzz::targets::stdout`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| claude_agent_fuzz::targets::stdout(data));
