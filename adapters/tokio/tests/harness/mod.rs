//! tokio as the conformance suite runs it: each test on a current-thread runtime of its own, like
//! `#[tokio::test]`, or on a multi-thread one where the suite asks for the runtime's threads.

use std::future::Future;

use claude_agent_tokio::runtime::TokioRuntime;

/// The runtime under test.
pub struct Tokio;

impl claude_agent_conformance::Harness for Tokio {
    type Runtime = TokioRuntime;

    fn runtime() -> TokioRuntime {
        TokioRuntime
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(future)
    }

    fn block_on_threaded<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(future)
    }
}
