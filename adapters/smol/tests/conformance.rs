//! The shared conformance suite (`conformance/` at the repo root) on smol: `block_on` is
//! `smol::block_on`, sessions run on smol's global executor, timers are smol's.

use claude_agent_smol as sdk;

/// What the suite needs from the runtime under test.
mod rt {
    use std::future::Future;
    use std::time::Duration;

    /// Run a test's future to completion.
    pub fn block_on<F: Future>(future: F) -> F::Output {
        smol::block_on(future)
    }

    /// Run a test's future; its sessions run on the runtime's own threads already.
    pub fn block_on_threaded<F: Future>(future: F) -> F::Output {
        block_on(future)
    }

    /// Pause the calling task.
    pub async fn sleep(duration: Duration) {
        smol::Timer::after(duration).await;
    }

    /// The runtime under test, for spawning a CLI directly.
    pub fn runtime() -> crate::sdk::runtime::SmolRuntime {
        crate::sdk::runtime::SmolRuntime::default()
    }
}

#[path = "../../../conformance/mod.rs"]
mod conformance;
