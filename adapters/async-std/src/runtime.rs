//! The runtime under [`query`](crate::query) and [`Client`](crate::Client), for the few who need
//! it by name: to run sessions on an executor of their own ([`query_with`], [`connect_with`],
//! [`startup_with`], [`prewarm_with`]), or to write a [`Runtime`] or a custom
//! [`crate::Transport`].
//! Applications that call `query` and `connect` never touch this module.
//!
//! [`AsyncStdRuntime`] is async-std: async-io timers (the reactor async-std's own timers run
//! on), `async_std::task::spawn` for the session's driver, and [`LocalProcess`], which starts
//! the CLI as an async-process child in a process group of its own.
//!
//! ```
//! use claude_agent_async_std::runtime::AsyncStdRuntime;
//! use claude_agent_async_std::runtime::query_with;
//! use claude_agent_async_std::Options;
//!
//! let messages = query_with(AsyncStdRuntime, "Hello", Options::new());
//! # drop(messages);
//! ```

use std::sync::Arc;
use std::time::Instant;

pub use claude_agent_async_process::{LocalProcess, Sleep};
claude_agent_client::runtime_module_common!();

/// async-std as the client layer's runtime. Zero-sized: the session's driver is spawned with
/// `async_std::task::spawn` onto async-std's global executor.
///
/// ```
/// use claude_agent_async_std::runtime::AsyncStdRuntime;
/// use claude_agent_async_std::runtime::query_with;
/// use claude_agent_async_std::Options;
/// let messages = query_with(AsyncStdRuntime, "Hello", Options::new().cli_path("/nonexistent/claude"));
/// # drop(messages);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct AsyncStdRuntime;

impl Runtime for AsyncStdRuntime {
    type Sleep = Sleep;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        Sleep::until(deadline)
    }

    fn spawn_task(&self, task: BoxFuture<'static, ()>) {
        // Dropping async-std's `JoinHandle` detaches the task: it runs on.
        drop(async_std::task::spawn(task));
    }

    /// [`LocalProcess`].
    fn local_process(&self) -> Option<Arc<dyn Transport>> {
        Some(Arc::new(LocalProcess))
    }
}
