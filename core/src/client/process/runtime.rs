//! What an async runtime must provide: spawn the CLI with piped stdio, sleep, run a task.
//!
//! An adapter crate (`claude-agent-tokio`, …) implements [`Runtime`] and [`ChildProcess`]; the
//! rest of the client layer is written once against these traits.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use futures_io::{AsyncRead, AsyncWrite};

use crate::options::LaunchSpec;
use crate::session::ExitStatusInfo;

/// A boxed, sendable future: what callbacks return and what [`Runtime::spawn_task`] runs.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An async runtime the client layer can run on.
///
/// Implementations are cheap handles (usually zero-sized) onto the current runtime. The
/// contract the driver relies on:
///
/// * `spawn_child` starts the process with all three pipes, in its own process group; dropping
///   the [`ChildProcess`] before it was reaped kills it and everything it started (the last
///   resort when a runtime shuts down under a running session). On Unix an
///   [`OrphanGuard`](crate::client::OrphanGuard) does that, and also when the host process itself dies: the CLI puts its tools in process
///   groups of their own, out of reach of a signal to its group;
/// * the pipes are non-blocking `futures-io` readers/writers that wake the task when ready;
/// * `spawn_task` runs the driver to completion even when every user handle is gone (that is
///   when it shuts the CLI down).
///
/// `claude-agent-tokio`'s `TokioRuntime` is the reference implementation;
/// `claude-agent-testkit`'s `TestRuntime` runs sessions with no async runtime at all, in virtual
/// time. How the CLI is reached is a separate choice: `Options::transport` replaces
/// [`Runtime::spawn_child`] with any connection.
///
/// Code written against the trait runs on every adapter's runtime:
///
/// ```
/// use claude_agent_core::client::{query_with, Error, Runtime};
/// use claude_agent_core::message::Message;
/// use claude_agent_core::options::Options;
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
/// The smallest implementation: plain threads, for sessions that reach the CLI through
/// `Options::transport` and so never spawn it.
///
/// ```
/// use std::future::Future;
/// use std::io;
/// use std::pin::Pin;
/// use std::task::{Context, Poll};
/// use std::time::{Duration, Instant};
/// use claude_agent_core::client::{BoxFuture, ChildParts, ChildProcess, Runtime, Signal};
/// use claude_agent_core::options::LaunchSpec;
/// use claude_agent_core::session::ExitStatusInfo;
///
/// #[derive(Clone, Default)]
/// struct Threads;
///
/// /// The child type of a runtime that never has one.
/// struct NoChild;
///
/// impl ChildProcess for NoChild {
///     fn id(&self) -> Option<u32> {
///         None
///     }
///     fn poll_wait(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
///         Poll::Ready(Ok(ExitStatusInfo::code(0)))
///     }
///     fn signal(&mut self, _signal: Signal) -> io::Result<()> {
///         Ok(())
///     }
/// }
///
/// impl Runtime for Threads {
///     type Child = NoChild;
///     type Stdin = futures_lite::io::Sink;
///     type Stdout = futures_lite::io::Empty;
///     type Stderr = futures_lite::io::Empty;
///     type Sleep = Pin<Box<dyn Future<Output = ()> + Send>>;
///
///     fn spawn_child(&self, _spec: &LaunchSpec) -> io::Result<ChildParts<Self>> {
///         Err(io::Error::new(io::ErrorKind::Unsupported, "this runtime needs Options::transport"))
///     }
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
/// ```
pub trait Runtime: Clone + Send + Sync + 'static {
    /// The running CLI process.
    type Child: ChildProcess;
    /// The child's stdin.
    type Stdin: AsyncWrite + Unpin + Send + 'static;
    /// The child's stdout.
    type Stdout: AsyncRead + Unpin + Send + 'static;
    /// The child's stderr.
    type Stderr: AsyncRead + Unpin + Send + 'static;
    /// A timer future made by [`Runtime::sleep_until`].
    type Sleep: Future<Output = ()> + Send + 'static;

    /// Start `spec` with stdin, stdout and stderr piped, in a process group of its own
    /// (so the whole group can be signalled), and killed with everything it started if its
    /// handle is dropped before it was reaped.
    fn spawn_child(&self, spec: &LaunchSpec) -> io::Result<ChildParts<Self>>;

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
}

/// A freshly spawned CLI: the process handle and its three pipes.
///
/// What [`Runtime::spawn_child`] returns. A transport that starts the CLI itself can hand the
/// parts on as a [`Connection`](crate::client::Connection):
///
/// ```
/// use std::io;
/// use claude_agent_core::client::{ChildParts, Connection, Runtime};
/// use claude_agent_core::options::LaunchSpec;
///
/// fn spawn_as_connection<R: Runtime>(runtime: &R, spec: &LaunchSpec) -> io::Result<Connection> {
///     let parts: ChildParts<R> = runtime.spawn_child(spec)?;
///     Ok(Connection::new(parts.stdin, parts.stdout).with_stderr(parts.stderr).with_process(parts.child))
/// }
/// ```
#[non_exhaustive]
pub struct ChildParts<R: Runtime> {
    /// The process.
    pub child: R::Child,
    /// Its stdin.
    pub stdin: R::Stdin,
    /// Its stdout.
    pub stdout: R::Stdout,
    /// Its stderr.
    pub stderr: R::Stderr,
}

impl<R: Runtime> ChildParts<R> {
    /// Bundle the parts of a spawned child.
    ///
    /// ```
    /// use std::io;
    /// use claude_agent_core::client::{ChildParts, Runtime};
    ///
    /// /// The end of a `Runtime::spawn_child`, once the runtime's own spawn gave its handles.
    /// fn parts<R: Runtime>(child: R::Child, pipes: (R::Stdin, R::Stdout, R::Stderr)) -> io::Result<ChildParts<R>> {
    ///     let (stdin, stdout, stderr) = pipes;
    ///     Ok(ChildParts::new(child, stdin, stdout, stderr))
    /// }
    /// ```
    pub fn new(child: R::Child, stdin: R::Stdin, stdout: R::Stdout, stderr: R::Stderr) -> Self {
        ChildParts {
            child,
            stdin,
            stdout,
            stderr,
        }
    }
}

impl<R: Runtime> std::fmt::Debug for ChildParts<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildParts")
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

/// A signal the driver sends to the CLI's process group when shutting it down.
///
/// ```
/// use claude_agent_core::client::Signal;
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
/// use claude_agent_core::client::{ChildProcess, Signal};
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
    /// too ([`OrphanGuard::kill_tree`](crate::client::OrphanGuard::kill_tree)). Does nothing once the process has been reaped.
    fn signal(&mut self, signal: Signal) -> io::Result<()>;
}
