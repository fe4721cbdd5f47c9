//! The runtime under [`query`](crate::query) and [`Client`](crate::Client), for the few who need
//! it by name: to run sessions on an executor of their own ([`query_with`], [`connect_with`],
//! [`startup_with`], [`prewarm_with`]), or to write a [`Runtime`] or a custom
//! [`crate::Transport`].
//! Applications that call `query` and `connect` never touch this module.
//!
//! [`TokioRuntime`] is tokio itself: `tokio::process` children in their own process group,
//! `tokio::time` timers and `tokio::spawn` for the session's driver.
//!
//! ```no_run
//! use claude_agent_tokio::runtime::TokioRuntime;
//! use claude_agent_tokio::runtime::query_with;
//! use claude_agent_tokio::Options;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let messages = query_with(TokioRuntime, "Hello", Options::new());
//! # drop(messages); }
//! ```

use std::future::Future;
use std::io;
use std::pin::pin;
use std::process::Stdio;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use claude_agent_core::options::LaunchSpec;
use claude_agent_core::session::ExitStatusInfo;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

pub use crate::pipe::Pipe;
pub use claude_agent_core::client::{
    connect_with, prewarm_with, query_with, startup_with, BoxFuture, ChildParts, ChildProcess,
    LocalCommand, Runtime, Signal,
};
#[cfg(unix)]
pub use claude_agent_core::client::{OrphanGuard, TreeKiller};

/// The tokio runtime the current task runs on. Zero-sized: it finds the runtime with
/// `tokio::runtime::Handle::current()` when it spawns.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioRuntime;

impl Runtime for TokioRuntime {
    type Child = TokioChild;
    type Stdin = Pipe<ChildStdin>;
    type Stdout = Pipe<ChildStdout>;
    type Stderr = Pipe<ChildStderr>;
    type Sleep = tokio::time::Sleep;

    fn spawn_child(&self, spec: &LaunchSpec) -> io::Result<ChildParts<Self>> {
        tokio::runtime::Handle::try_current().map_err(io::Error::other)?;
        let local = LocalCommand::new(spec)?;
        #[cfg(unix)]
        let mut guard = local.guard;
        let mut command = Command::from(local.command);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Behind `TokioChild`'s own drop, which kills the whole tree: SIGKILL the child.
        command.kill_on_drop(true);
        let child = command.spawn()?;
        let mut child = TokioChild {
            inner: child,
            #[cfg(unix)]
            tree: TreeKiller::default(),
        };
        #[cfg(unix)]
        if let Some(pid) = child.inner.id() {
            // On an error `child` is dropped, which kills it.
            guard.arm(pid)?;
            child.tree = TreeKiller::new(guard);
        }
        let missing = || io::Error::other("a piped stdio handle was not created");
        let stdin = child.inner.stdin.take().ok_or_else(missing)?;
        let stdout = child.inner.stdout.take().ok_or_else(missing)?;
        let stderr = child.inner.stderr.take().ok_or_else(missing)?;
        Ok(ChildParts::new(
            child,
            Pipe(stdin),
            Pipe(stdout),
            Pipe(stderr),
        ))
    }

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        tokio::time::sleep_until(deadline.into())
    }

    /// tokio's clock: paused time (`#[tokio::test(start_paused = true)]`,
    /// `tokio::time::pause`) applies to every deadline of the session.
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn spawn_task(&self, task: BoxFuture<'static, ()>) {
        tokio::spawn(task);
    }
}

/// A CLI process started by [`TokioRuntime`].
///
/// Dropping it before the process was reaped kills the process and everything it started (its
/// process group, and on Unix the tools it put in groups or sessions of their own), so that
/// nothing outlives a runtime that is shut down under a running session.
#[derive(Debug)]
pub struct TokioChild {
    inner: Child,
    /// Kills the tree on demand, or when this process dies.
    #[cfg(unix)]
    tree: TreeKiller,
}

impl ChildProcess for TokioChild {
    fn id(&self) -> Option<u32> {
        self.inner.id()
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
        // A tree kill in progress ends before the leader is reaped.
        #[cfg(unix)]
        if let Some(pid) = self.inner.id() {
            ready!(self.tree.poll_settled(cx, pid));
        }
        // `Child::wait` keeps its state in the child, so a fresh future per poll is cancel-safe.
        let wait = pin!(self.inner.wait());
        let status = ready!(wait.poll(cx))?;
        // Reaped: the watcher must stand down before the pid can be reused.
        #[cfg(unix)]
        self.tree.reaped();
        Poll::Ready(Ok(status.into()))
    }

    fn signal(&mut self, signal: Signal) -> io::Result<()> {
        // `id()` is `None` once the child was reaped, so a recycled pid is never signalled.
        let Some(pid) = self.inner.id() else {
            return Ok(());
        };
        // The whole tree, on a thread of its own: the executor is not held up.
        #[cfg(unix)]
        if signal == Signal::Kill {
            return self.tree.kill(pid);
        }
        #[cfg(unix)]
        return signal.send_to_group(pid);
        // No process groups or SIGTERM here: terminate the process itself.
        #[cfg(not(unix))]
        self.inner.start_kill()
    }
}

impl Drop for TokioChild {
    fn drop(&mut self) {
        // Still running or not yet reaped: kill it and all it started (a no-op once reaped).
        let _ = self.signal(Signal::Kill);
    }
}
