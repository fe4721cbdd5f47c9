//! The shared conformance suite (`conformance/` at the repo root) on tokio: each test runs on a
//! current-thread runtime of its own, like `#[tokio::test]`.

use claude_agent_tokio as sdk;

/// What the suite needs from the runtime under test.
mod rt {
    use std::future::Future;
    use std::time::Duration;

    /// Run a test's future to completion on a fresh current-thread runtime.
    pub fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(future)
    }

    /// Run a test's future on a fresh multi-thread runtime, whose sessions run on its worker
    /// threads.
    pub fn block_on_threaded<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(future)
    }

    /// Pause the calling task.
    pub async fn sleep(duration: Duration) {
        tokio::time::sleep(duration).await;
    }

    /// The runtime under test, for spawning a CLI directly.
    pub fn runtime() -> crate::sdk::runtime::TokioRuntime {
        crate::sdk::runtime::TokioRuntime
    }
}

#[path = "../../../conformance/mod.rs"]
mod conformance;
