//! Throughput and round-trip benchmark against a fake CLI that replays recorded output, on tokio.
//!
//! ```text
//! FAKECLI_CORPUS=core/tests/corpus.jsonl FAKECLI_REPEAT=3000 \
//!   cargo run --release -p claude-agent-tokio --example bench -- stream path/to/fakecli
//! FAKECLI_CORPUS=core/tests/corpus.jsonl FAKECLI_REPEAT=0 FAKECLI_RTT=5000 \
//!   cargo run --release -p claude-agent-tokio --example bench -- rtt path/to/fakecli
//! ```
//!
//! The measuring code is shared by every adapter: `bench/sdk_bench.rs`.

#[path = "../../../bench/sdk_bench.rs"]
mod sdk_bench;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    sdk_bench::run(claude_agent_tokio::runtime::TokioRuntime).await;
}
