//! Throughput and round-trip benchmark against a fake CLI that replays recorded output, on tokio.
//!
//! ```text
//! FAKE_CLAUDE_CORPUS=core/tests/corpus.jsonl FAKE_CLAUDE_REPEAT=3000 \
//!   cargo run --release -p claude-agent-tokio --example bench -- stream target/release/fake-claude
//! FAKE_CLAUDE_CORPUS=core/tests/corpus.jsonl FAKE_CLAUDE_REPEAT=0 FAKE_CLAUDE_RTT=5000 \
//!   cargo run --release -p claude-agent-tokio --example bench -- rtt target/release/fake-claude
//! ```
//!
//! The measuring code is shared by every adapter: `claude-agent-bench` (`bench/`).

#[tokio::main(flavor = "current_thread")]
async fn main() {
    claude_agent_bench::run(claude_agent_tokio::runtime::TokioRuntime).await;
}
