//! The runtime under [`query`](crate::query) and [`Client`](crate::Client), for the few who need
//! it by name: to run sessions on an executor of their own ([`query_with`], [`connect_with`],
//! [`startup_with`], [`prewarm_with`]), or to write a [`Runtime`] or a custom
//! [`crate::Transport`].
//! Applications that call `query` and `connect` never touch this module.
//!
//! [`AsyncStdRuntime`] is async-std: async-process children in their own process group,
//! async-io timers (the reactor async-std's own timers run on) and `async_std::task::spawn` for
//! the session's driver.
//!
//! ```
//! use claude_agent_async_std::runtime::AsyncStdRuntime;
//! use claude_agent_async_std::runtime::query_with;
//! use claude_agent_async_std::Options;
//!
//! let messages = query_with(AsyncStdRuntime, "Hello", Options::new());
//! # drop(messages);
//! ```

use std::io;
use std::time::Instant;

use claude_agent_async_process::{spawn_child, ChildStderr, ChildStdin, ChildStdout};
pub use claude_agent_async_process::{AsyncProcessChild, Sleep};
#[cfg(unix)]
pub use claude_agent_core::client::OrphanGuard;
pub use claude_agent_core::client::{
    connect_with, prewarm_with, query_with, startup_with, BoxFuture, ChildParts, ChildProcess,
    Runtime, Signal,
};
use claude_agent_core::options::LaunchSpec;

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
    type Child = AsyncProcessChild;
    type Stdin = ChildStdin;
    type Stdout = ChildStdout;
    type Stderr = ChildStderr;
    type Sleep = Sleep;

    fn spawn_child(&self, spec: &LaunchSpec) -> io::Result<ChildParts<Self>> {
        spawn_child(spec)
    }

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        Sleep::until(deadline)
    }

    fn spawn_task(&self, task: BoxFuture<'static, ()>) {
        // Dropping async-std's `JoinHandle` detaches the task: it runs on.
        drop(async_std::task::spawn(task));
    }
}
