//! async-std as the conformance suite runs it: `block_on` is `async_std::task::block_on`,
//! sessions run on async-std's executor, timers are async-std's.

use std::future::Future;

use claude_agent_async_std::runtime::AsyncStdRuntime;

/// The runtime under test.
pub struct AsyncStd;

impl claude_agent_conformance::Harness for AsyncStd {
    type Runtime = AsyncStdRuntime;

    fn runtime() -> AsyncStdRuntime {
        AsyncStdRuntime
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        async_std::task::block_on(future)
    }
}
