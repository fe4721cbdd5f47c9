//! The end-to-end scenarios of `conformance/e2e_scenarios.rs` (the real Claude Code CLI against
//! the testkit's stub Messages API) on tokio, each on its own multi-thread runtime.
//!
//! They fail, with a message saying how to install the CLI (`scripts/install-claude-cli`), when
//! it is missing: they never skip.

#[macro_use]
#[path = "../../../conformance/e2e_scenarios.rs"]
mod e2e_scenarios;

use claude_agent_tokio::TokioRuntime;

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

e2e_tests!(|fut| tokio_rt().block_on(fut), TokioRuntime);
