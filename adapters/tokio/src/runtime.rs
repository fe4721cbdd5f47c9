//! The runtime under [`query`](crate::query) and [`Client`](crate::Client), for the few who need
//! it by name: to run sessions on an executor of their own ([`query_with`], [`connect_with`],
//! [`startup_with`], [`prewarm_with`]), or to write a [`Runtime`] or a custom
//! [`crate::Transport`].
//! Applications that call `query` and `connect` never touch this module.
//!
//! [`TokioRuntime`] is tokio itself: `tokio::time` timers and `tokio::spawn` for the session's
//! driver, and [`LocalProcess`], which starts the CLI as a `tokio::process` child in a process
//! group of its own.
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
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use claude_agent_core::options::LaunchSpec;
use claude_agent_core::session::ExitStatusInfo;
use tokio::process::{Child, Command};

pub use crate::pipe::Pipe;
claude_agent_client::runtime_module_common!();

/// The tokio runtime the current task runs on. Zero-sized: it finds the runtime with
/// `tokio::runtime::Handle::current()` when it spawns.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioRuntime;

impl Runtime for TokioRuntime {
    type Sleep = tokio::time::Sleep;

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

    /// [`LocalProcess`].
    fn local_process(&self) -> Option<Arc<dyn Transport>> {
        Some(Arc::new(LocalProcess))
    }
}

/// The CLI as a local `tokio::process` child: how [`TokioRuntime`]'s sessions reach it unless
/// their options name another [`Transport`].
///
/// The child runs in a process group of its own with all three pipes, and its process goes
/// with the [`Connection`]: dropping that before the process was reaped kills it and everything
/// it started (its process group, and on Unix the tools it put in groups or sessions of their
/// own), so that nothing outlives a runtime shut down under a running session. A transport of
/// your own can hand a changed command line on to it:
///
/// ```no_run
/// use claude_agent_tokio::runtime::{LocalProcess, Transport};
/// use claude_agent_tokio::options::{LaunchSpec, Options};
///
/// // Every session's CLI under `nice`, started and watched as any local CLI.
/// let options = Options::new().transport(|spec: LaunchSpec| {
///     let mut niced = spec.clone();
///     niced.args.insert(0, spec.program.display().to_string());
///     niced.program = "nice".into();
///     LocalProcess.connect(niced)
/// });
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalProcess;

impl Transport for LocalProcess {
    /// Start `spec` here; fails outside a tokio runtime.
    fn connect(&self, spec: LaunchSpec) -> BoxFuture<'static, io::Result<Connection>> {
        Box::pin(std::future::ready(spawn(&spec)))
    }
}

fn spawn(spec: &LaunchSpec) -> io::Result<Connection> {
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
    Ok(Connection::new(Pipe(stdin), Pipe(stdout))
        .with_stderr(Pipe(stderr))
        .with_process(child))
}

/// A CLI process started by [`LocalProcess`]. Dropping it before the process was reaped kills
/// the process and everything it started.
#[derive(Debug)]
struct TokioChild {
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
