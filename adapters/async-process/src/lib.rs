//! The Claude Code CLI as an [`async_process`] child ([`LocalProcess`]) and an `async-io`
//! [`Sleep`]: the parts of a [`Runtime`](claude_agent_client::Runtime) that the smol and async-std adapters
//! (`claude-agent-smol`, `claude-agent-async-std`) share.
//!
//! Neither needs a particular executor: async-process's pipes and child reaper and async-io's
//! timers run on the `async-io` reactor, which drives itself (smol and async-std both use it).
//! An adapter adds its way of spawning the session's driver:
//!
//! ```
//! use std::sync::Arc;
//! use claude_agent_async_process::{LocalProcess, Sleep};
//! use claude_agent_client::{BoxFuture, Runtime, Transport};
//!
//! #[derive(Clone, Default)]
//! struct MyRuntime;
//!
//! impl Runtime for MyRuntime {
//!     type Sleep = Sleep;
//!
//!     fn sleep_until(&self, deadline: std::time::Instant) -> Self::Sleep {
//!         Sleep::until(deadline)
//!     }
//!     fn spawn_task(&self, task: BoxFuture<'static, ()>) {
//!         std::thread::spawn(move || futures_lite::future::block_on(task));
//!     }
//!     fn local_process(&self) -> Option<Arc<dyn Transport>> {
//!         Some(Arc::new(LocalProcess))
//!     }
//! }
//! ```
//!
//! [`LocalProcess`] starts the CLI in a process group of its own and, on Unix, with an
//! [`OrphanGuard`](claude_agent_client::OrphanGuard): one `/bin/sh` per session (about
//! 1 MB, a few milliseconds to start) that kills the CLI and every process it started, also the
//! Bash tools it runs in groups of their own, when this process dies first. Dropping the
//! connection's process before the CLI was reaped (an executor dropped with the session's driver
//! in it) and [`Signal::Kill`] kill that whole tree too.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::ExitStatus;
use std::task::{Context, Poll};
use std::time::Instant;

#[cfg(unix)]
use claude_agent_client::TreeKiller;
use claude_agent_client::{BoxFuture, ChildProcess, Connection, LocalCommand, Signal, Transport};
use claude_agent_core::options::LaunchSpec;
use claude_agent_core::session::ExitStatusInfo;

/// The CLI as a local `async-process` child: how the smol and async-std runtimes' sessions reach
/// it unless their options name another [`Transport`]. It runs on any executor.
///
/// The child runs with piped stdio, in a process group of its own (Unix), and its process goes
/// with the [`Connection`]: dropping that before the process was reaped kills it and everything
/// it started, as does this process's death (an
/// [`OrphanGuard`](claude_agent_client::OrphanGuard) on Unix).
///
/// ```no_run
/// use claude_agent_async_process::LocalProcess;
/// use claude_agent_client::Transport;
/// use claude_agent_client::options::{LaunchSpec, Options};
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
    fn connect(&self, spec: LaunchSpec) -> BoxFuture<'static, io::Result<Connection>> {
        Box::pin(std::future::ready(spawn(&spec)))
    }
}

fn spawn(spec: &LaunchSpec) -> io::Result<Connection> {
    let local = LocalCommand::new(spec)?;
    #[cfg(unix)]
    let mut guard = local.guard;
    let mut command = async_process::Command::from(local.command);
    command
        .stdin(async_process::Stdio::piped())
        .stdout(async_process::Stdio::piped())
        .stderr(async_process::Stdio::piped())
        // Behind `AsyncProcessChild`'s own drop, which kills the whole tree: SIGKILL the child.
        .kill_on_drop(true);
    let inner = command.spawn()?;
    let pid = inner.id();
    let mut child = AsyncProcessChild {
        inner,
        pid,
        wait: None,
        exited: None,
        #[cfg(unix)]
        tree: TreeKiller::default(),
    };
    #[cfg(unix)]
    {
        // On an error `child` is dropped, which kills it.
        guard.arm(pid)?;
        child.tree = TreeKiller::new(guard);
    }
    let missing = || io::Error::other("a piped stdio handle was not created");
    let stdin = child.inner.stdin.take().ok_or_else(missing)?;
    let stdout = child.inner.stdout.take().ok_or_else(missing)?;
    let stderr = child.inner.stderr.take().ok_or_else(missing)?;
    Ok(Connection::new(stdin, stdout)
        .with_stderr(stderr)
        .with_process(child))
}

/// A timer that completes at a deadline (an [`async_io::Timer`] with `()` as its output, as
/// [`Runtime::Sleep`](claude_agent_client::Runtime::Sleep) wants).
#[derive(Debug)]
pub struct Sleep(async_io::Timer);

impl Sleep {
    /// A timer that fires at `deadline`.
    pub fn until(deadline: Instant) -> Self {
        Sleep(async_io::Timer::at(deadline))
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx).map(drop)
    }
}

type WaitFuture = Pin<Box<dyn Future<Output = io::Result<ExitStatus>> + Send>>;

/// A CLI process started by [`LocalProcess`]. Dropping it before the process was reaped kills
/// the process and everything it started (its process group, and on Unix the tools it put in
/// groups or sessions of their own), so that nothing outlives an executor that is dropped with
/// the session's driver in it.
struct AsyncProcessChild {
    inner: async_process::Child,
    pid: u32,
    /// The one wait in progress: async-process wakes it through an event listener that lives in
    /// the future, so it is kept across polls rather than made anew (which would lose the wake-up).
    wait: Option<WaitFuture>,
    /// How it ended, once reaped.
    exited: Option<ExitStatusInfo>,
    /// Kills the tree on demand, or when this process dies.
    #[cfg(unix)]
    tree: TreeKiller,
}

impl fmt::Debug for AsyncProcessChild {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncProcessChild")
            .field("pid", &self.pid)
            .field("exited", &self.exited)
            .finish_non_exhaustive()
    }
}

impl ChildProcess for AsyncProcessChild {
    fn id(&self) -> Option<u32> {
        self.exited.is_none().then_some(self.pid)
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
        if let Some(exited) = self.exited {
            return Poll::Ready(Ok(exited));
        }
        // A tree kill in progress ends before the leader is reaped.
        #[cfg(unix)]
        if self.tree.poll_settled(cx, self.pid).is_pending() {
            return Poll::Pending;
        }
        let inner = &mut self.inner;
        let wait = self.wait.get_or_insert_with(|| Box::pin(inner.status()));
        let status = match wait.as_mut().poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(status) => status,
        };
        self.wait = None;
        let exited = ExitStatusInfo::from(status?);
        self.exited = Some(exited);
        // Reaped: the watcher must stand down before the pid can be reused.
        #[cfg(unix)]
        self.tree.reaped();
        Poll::Ready(Ok(exited))
    }

    fn signal(&mut self, signal: Signal) -> io::Result<()> {
        // The pid is only used before the child was reaped, so a recycled pid is never signalled.
        if self.exited.is_some() {
            return Ok(());
        }
        // The whole tree, on a thread of its own: the executor is not held up.
        #[cfg(unix)]
        if signal == Signal::Kill {
            return self.tree.kill(self.pid);
        }
        #[cfg(unix)]
        return signal.send_to_group(self.pid);
        // No process groups or SIGTERM here: terminate the process itself.
        #[cfg(not(unix))]
        self.inner.kill()
    }
}

impl Drop for AsyncProcessChild {
    fn drop(&mut self) {
        // Still running or not yet reaped: kill it and all it started (a no-op once reaped).
        let _ = self.signal(Signal::Kill);
    }
}
