//! What an async runtime must provide: timers and tasks, and the way it starts a local CLI.
//!
//! An adapter crate (`claude-agent-tokio`, …) implements [`Runtime`], and a
//! [`Transport`] that starts the CLI as a local process; the rest of the client layer is
//! written once against these traits.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use crate::session::ExitStatusInfo;
use crate::Transport;

/// A boxed, sendable future: what callbacks return and what [`Runtime::spawn_task`] runs.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An async runtime the client layer can run on: its timers, its tasks, and how it starts the
/// CLI on this machine.
///
/// Implementations are cheap handles (usually zero-sized) onto the current runtime. The
/// contract the driver relies on:
///
/// * `spawn_task` runs the driver to completion even when every user handle is gone (that is
///   when it shuts the CLI down);
/// * `sleep_until` and `now` tell the same time;
/// * [`local_process`](Runtime::local_process), when the runtime has one, is a [`Transport`]
///   that starts the [`LaunchSpec`](crate::options::LaunchSpec) on this machine with all three
///   pipes, in a process group of its own, killed with everything it started when its process
///   is dropped before it was reaped (the last resort when a runtime shuts down under a running
///   session). On Unix an [`OrphanGuard`](crate::OrphanGuard) does that, also when the
///   host process itself dies; [`LocalCommand`](crate::LocalCommand) sets all of it up.
///
/// Every session reaches the CLI through a [`Transport`]: the options' own
/// ([`Options::transport`](crate::options::Options::transport)), or else the runtime's
/// `local_process`. `claude-agent-tokio`'s `TokioRuntime` is the reference implementation;
/// `claude-agent-testkit`'s `TestRuntime` runs sessions with no async runtime at all, in virtual
/// time, and has no local process.
///
/// Code written against the trait runs on every adapter's runtime:
///
/// ```
/// use claude_agent_client::{query_with, Error, Runtime};
/// use claude_agent_core::message::Message;
/// use claude_agent_client::options::Options;
/// use futures_lite::StreamExt;
///
/// async fn cost_of<R: Runtime>(runtime: R, prompt: &str) -> Result<f64, Error> {
///     let mut messages = query_with(runtime, prompt.to_owned(), Options::new());
///     let mut cost = 0.0;
///     while let Some(message) = messages.next().await {
///         if let Message::Result(result) = message? {
///             cost = result.total_cost_usd.unwrap_or(0.0);
///         }
///     }
///     Ok(cost)
/// }
/// // With tokio: `cost_of(claude_agent_tokio::runtime::TokioRuntime, "…").await`.
/// ```
///
/// The smallest implementation: plain threads. Its sessions reach the CLI through
/// `Options::transport`, or through another runtime's local process (`claude-agent-smol`'s runs
/// on any executor): `Some(Arc::new(claude_agent_smol::runtime::LocalProcess))`.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use std::time::{Duration, Instant};
/// use claude_agent_client::{BoxFuture, Runtime};
///
/// #[derive(Clone, Default)]
/// struct Threads;
///
/// impl Runtime for Threads {
///     type Sleep = Pin<Box<dyn Future<Output = ()> + Send>>;
///
///     fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
///         let (done, fired) = async_channel::bounded::<()>(1);
///         std::thread::spawn(move || {
///             std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
///             let _ = done.send_blocking(());
///         });
///         Box::pin(async move {
///             let _ = fired.recv().await;
///         })
///     }
///
///     fn spawn_task(&self, task: BoxFuture<'static, ()>) {
///         std::thread::spawn(move || futures_lite::future::block_on(task));
///     }
/// }
///
/// let runtime = Threads;
/// let start = runtime.now();
/// futures_lite::future::block_on(runtime.sleep_until(start + Duration::from_millis(20)));
/// assert!(start.elapsed() >= Duration::from_millis(20));
/// assert!(runtime.local_process().is_none());
/// ```
pub trait Runtime: Clone + Send + Sync + 'static {
    /// A timer future made by [`Runtime::sleep_until`].
    type Sleep: Future<Output = ()> + Send + 'static;

    /// A future that completes at `deadline`, as [`Runtime::now`] tells time.
    fn sleep_until(&self, deadline: Instant) -> Self::Sleep;

    /// The current time: every deadline of the session (control timeouts, the run-end ceiling,
    /// the shutdown steps) is measured with it. The system clock unless the runtime keeps a
    /// clock of its own, such as a paused test clock that jumps to the next timer when every
    /// task is idle.
    fn now(&self) -> Instant {
        Instant::now()
    }

    /// Run `task` to completion in the background (the session's driver runs this way).
    fn spawn_task(&self, task: BoxFuture<'static, ()>);

    /// How sessions whose options have no [`transport`](crate::options::Options::transport)
    /// reach the CLI: a transport that starts the [`LaunchSpec`](crate::options::LaunchSpec) as
    /// a process on this machine, with its process in the
    /// [`Connection`](crate::Connection) (see the trait's contract).
    ///
    /// Such a session finds the CLI first (`cli_path`, `CLAUDE_AGENT_CLI_PATH`, the usual
    /// install places), and an error of this transport is a failed start of that program
    /// ([`Error::CliNotFound`](crate::Error::CliNotFound),
    /// [`Error::WorkingDirectory`](crate::Error::WorkingDirectory),
    /// [`Error::Spawn`](crate::Error::Spawn)). `None`, the default: the runtime starts
    /// no processes, and such a session fails with `Error::Spawn`, saying to give the options a
    /// transport.
    fn local_process(&self) -> Option<Arc<dyn Transport>> {
        None
    }
}

/// A signal the driver sends to the CLI's process group when shutting it down.
///
/// ```
/// use claude_agent_client::Signal;
///
/// /// The Unix signal number a runtime sends for each.
/// fn number(signal: Signal) -> i32 {
///     match signal {
///         Signal::Terminate => 15, // SIGTERM
///         Signal::Kill => 9,       // SIGKILL
///         _ => 9,
///     }
/// }
/// assert_eq!(number(Signal::Terminate), 15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Signal {
    /// Ask it to stop (`SIGTERM`).
    Terminate,
    /// Stop it now (`SIGKILL`), and everything it started.
    Kill,
}

/// A running child process, as the driver needs it.
///
/// How the driver uses it to shut the CLI down, written as a function over any implementation:
///
/// ```
/// use std::io;
/// use std::task::{Context, Poll};
/// use claude_agent_client::{ChildProcess, Signal};
/// use claude_agent_core::session::ExitStatusInfo;
///
/// async fn stop(child: &mut impl ChildProcess) -> io::Result<ExitStatusInfo> {
///     if let Some(pid) = child.id() {
///         eprintln!("stopping the CLI (pid {pid})");
///     }
///     child.signal(Signal::Terminate)?;
///     futures_lite::future::poll_fn(|cx| child.poll_wait(cx)).await
/// }
///
/// /// A process that has already exited and been reaped.
/// struct Reaped(ExitStatusInfo);
///
/// impl ChildProcess for Reaped {
///     fn id(&self) -> Option<u32> {
///         None
///     }
///     fn poll_wait(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
///         Poll::Ready(Ok(self.0))
///     }
///     fn signal(&mut self, _signal: Signal) -> io::Result<()> {
///         Ok(()) // nothing left to signal
///     }
/// }
///
/// let status = futures_lite::future::block_on(stop(&mut Reaped(ExitStatusInfo::signal(15)))).unwrap();
/// assert_eq!(status.to_string(), "signal 15");
/// ```
pub trait ChildProcess: Send + 'static {
    /// The process id, while the process has not been reaped.
    fn id(&self) -> Option<u32>;

    /// Wait for the process to exit and reap it. Must be cancel-safe: the driver may call it
    /// again with a new context at any time, and after it returned `Ready` it keeps returning
    /// the same status.
    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>>;

    /// Send `signal` to the child's process group (to the child alone where groups do not
    /// exist); [`Signal::Kill`] should reach the processes the child moved out of its group
    /// too ([`OrphanGuard::kill_tree`](crate::OrphanGuard::kill_tree)). Does nothing once the process has been reaped.
    fn signal(&mut self, signal: Signal) -> io::Result<()>;
}
