//! libFuzzer entry point of the `framer` target; the logic is `claude_agent_fuzz::targets::framer`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| claude_agent_fuzz::targets::framer(data));
