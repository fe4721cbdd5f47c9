//! The shared conformance suite (`conformance/` at the repo root) on async-std: `block_on` is
//! `async_std::task::block_on`, sessions run on async-std's executor, timers are async-std's.

use claude_agent_async_std as sdk;

/// What the suite needs from the runtime under test.
mod rt {
    use std::future::Future;
    use std::time::Duration;

    /// Run a test's future to completion.
    pub fn block_on<F: Future>(future: F) -> F::Output {
        async_std::task::block_on(future)
    }

    /// Run a test's future; its sessions run on the runtime's own threads already.
    pub fn block_on_threaded<F: Future>(future: F) -> F::Output {
        block_on(future)
    }

    /// Pause the calling task.
    pub async fn sleep(duration: Duration) {
        async_std::task::sleep(duration).await;
    }

    /// The runtime under test, for spawning a CLI directly.
    pub fn runtime() -> crate::sdk::runtime::AsyncStdRuntime {
        crate::sdk::runtime::AsyncStdRuntime
    }
}

#[path = "../../../conformance/mod.rs"]
mod conformance;
