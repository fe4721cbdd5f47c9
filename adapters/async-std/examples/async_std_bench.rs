//! Throughput and round-trip benchmark against a fake CLI that replays recorded output, on
//! async-std (named apart from tokio's `bench` example so that building every example at once
//! does not overwrite one binary with another).
//!
//! ```text
//! FAKE_CLAUDE_CORPUS=core/tests/corpus.jsonl FAKE_CLAUDE_REPEAT=3000 \
//!   cargo run --release -p claude-agent-async-std --example async_std_bench -- stream target/release/fake-claude
//! FAKE_CLAUDE_CORPUS=core/tests/corpus.jsonl FAKE_CLAUDE_REPEAT=0 FAKE_CLAUDE_RTT=5000 \
//!   cargo run --release -p claude-agent-async-std --example async_std_bench -- rtt target/release/fake-claude
//! ```
//!
//! The measuring code is shared by every adapter: `claude-agent-bench` (`bench/`).

fn main() {
    async_std::task::block_on(claude_agent_bench::run(
        claude_agent_async_std::runtime::AsyncStdRuntime,
    ));
}
