//! Throughput and round-trip benchmark against a fake CLI that replays recorded output, on
//! async-std (named apart from tokio's `bench` example so that building every example at once
//! does not overwrite one binary with another).
//!
//! ```text
//! FAKECLI_CORPUS=core/tests/corpus.jsonl FAKECLI_REPEAT=3000 \
//!   cargo run --release -p claude-agent-async-std --example async_std_bench -- stream path/to/fakecli
//! FAKECLI_CORPUS=core/tests/corpus.jsonl FAKECLI_REPEAT=0 FAKECLI_RTT=5000 \
//!   cargo run --release -p claude-agent-async-std --example async_std_bench -- rtt path/to/fakecli
//! ```
//!
//! The measuring code is shared by every adapter: `bench/sdk_bench.rs`.

#[path = "../../../bench/sdk_bench.rs"]
mod sdk_bench;

fn main() {
    async_std::task::block_on(sdk_bench::run(
        claude_agent_async_std::runtime::AsyncStdRuntime,
    ));
}
