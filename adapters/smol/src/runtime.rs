//! The runtime under [`query`](crate::query) and [`Client`](crate::Client), for the few who need
//! it by name: to run sessions on an executor of their own ([`query_with`], [`connect_with`],
//! [`startup_with`], [`prewarm_with`]), or to write a [`Runtime`] or a custom
//! [`crate::Transport`].
//! Applications that call `query` and `connect` never touch this module.
//!
//! [`SmolRuntime`] is smol: async-io timers, smol's global executor (or one of yours) for the
//! session's driver, and [`LocalProcess`], which starts the CLI as an async-process child in a
//! process group of its own (on any executor).
//!
//! ```
//! use std::sync::Arc;
//! use claude_agent_smol::runtime::SmolRuntime;
//! use claude_agent_smol::runtime::query_with;
//! use claude_agent_smol::Options;
//!
//! let executor = Arc::new(smol::Executor::new());
//! let messages = query_with(SmolRuntime::with_executor(executor.clone()), "Hello", Options::new());
//! // The application runs `executor`, e.g. `smol::block_on(executor.run(app))`.
//! # drop(messages);
//! ```

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

pub use claude_agent_async_process::{LocalProcess, Sleep};
claude_agent_client::runtime_module_common!();
use smol::Executor;

/// smol as the client layer's runtime: where a session's driver task runs.
///
/// The default runs it on smol's global executor (`smol::spawn`), which has threads of its own,
/// so sessions make progress whichever executor the caller uses.
///
/// ```
/// use std::sync::Arc;
/// use claude_agent_smol::runtime::SmolRuntime;
///
/// let executor = Arc::new(smol::Executor::new());
/// let runtime = SmolRuntime::with_executor(executor.clone());
/// // `claude_agent_smol::runtime::query_with(runtime, …)` now runs its driver on `executor`, which the
/// // application must run, e.g. with `smol::block_on(executor.run(main_future))`.
/// # drop(runtime);
/// ```
#[derive(Clone, Default)]
pub struct SmolRuntime {
    executor: Option<Arc<Executor<'static>>>,
}

impl SmolRuntime {
    /// Run session drivers on `executor` instead of smol's global one. The application must keep
    /// `executor` running (`executor.run(…)`) for as long as sessions live.
    pub fn with_executor(executor: Arc<Executor<'static>>) -> Self {
        SmolRuntime {
            executor: Some(executor),
        }
    }
}

impl fmt::Debug for SmolRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let executor = if self.executor.is_some() {
            "own"
        } else {
            "global"
        };
        f.debug_struct("SmolRuntime")
            .field("executor", &executor)
            .finish()
    }
}

impl Runtime for SmolRuntime {
    type Sleep = Sleep;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        Sleep::until(deadline)
    }

    fn spawn_task(&self, task: BoxFuture<'static, ()>) {
        match &self.executor {
            Some(executor) => executor.spawn(task).detach(),
            None => smol::spawn(task).detach(),
        }
    }

    /// [`LocalProcess`].
    fn local_process(&self) -> Option<Arc<dyn Transport>> {
        Some(Arc::new(LocalProcess))
    }
}
