//! Throughput and round-trip benchmark against a fake CLI that replays recorded output, on smol
//! (named apart from tokio's `bench` example so that building every example at once does not
//! overwrite one binary with another).
//!
//! ```text
//! FAKE_CLAUDE_CORPUS=core/tests/corpus.jsonl FAKE_CLAUDE_REPEAT=3000 \
//!   cargo run --release -p claude-agent-smol --example smol_bench -- stream target/release/fake-claude
//! FAKE_CLAUDE_CORPUS=core/tests/corpus.jsonl FAKE_CLAUDE_REPEAT=0 FAKE_CLAUDE_RTT=5000 \
//!   cargo run --release -p claude-agent-smol --example smol_bench -- rtt target/release/fake-claude
//! ```
//!
//! The measuring code is shared by every adapter: `claude-agent-bench` (`bench/`).

fn main() {
    // The app runs on smol's global executor, where the session's driver runs too: messages pass
    // between tasks on one thread, as with tokio's current-thread runtime. (`smol::block_on(run())`
    // alone keeps the app on the main thread, and every message crosses threads: about half the
    // stream throughput.)
    smol::block_on(smol::spawn(claude_agent_bench::run(
        claude_agent_smol::runtime::SmolRuntime::default(),
    )));
}
