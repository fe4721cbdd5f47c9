//! How a session reaches the CLI: [`Transport`] and the [`Connection`] it opens.
//!
//! By default a session starts the `claude` executable with its runtime's
//! [local process](crate::Runtime::local_process), itself a [`Transport`]. With
//! [`Options::transport`](crate::options::Options::transport) it asks another [`Transport`] for
//! its [`Connection`]: any `futures-io` writer for the CLI's stdin and reader for its stdout
//! (a socket to a CLI running elsewhere, a container's `exec -i`, an SSH channel, or an in-memory
//! fake CLI in a test), plus its stderr and its process where the transport has them. The app's
//! code does not change: `query(prompt, options)` and `connect(options)` run the same
//! session over whatever the transport hands back. CLI discovery runs for the local process
//! only.

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use futures_io::{AsyncRead, AsyncWrite};

use crate::options::{LaunchSpec, Options};
use crate::process::runtime::{BoxFuture, ChildProcess, Signal};
use crate::session::ExitStatusInfo;

/// Opens the connection a session talks to the CLI over.
///
/// `connect` is called once per session, when `query` or `connect` starts it, with the
/// session's [`LaunchSpec`] (program, arguments, environment changes, working directory, user),
/// so a transport that starts the CLI somewhere else can pass the same command line on. It is async: dialling, authenticating or starting a remote process happens
/// in the returned future, which the session awaits on its runtime before anything is sent.
///
/// A closure `Fn(LaunchSpec) -> impl Future<Output = io::Result<Connection>>` is a transport.
///
/// ```no_run
/// use std::os::unix::net::UnixStream;
/// use claude_agent_tokio::Connection;
/// use claude_agent_tokio::options::{LaunchSpec, Options};
///
/// // A CLI that some supervisor runs behind a Unix socket, speaking stream-json.
/// let options = Options::new().transport(|_spec: LaunchSpec| async {
///     // With an async runtime, connect with its own socket type (`smol::net::unix`,
///     // `tokio::net::UnixStream` through `tokio-util`'s compat layer), awaited here.
///     let stream = UnixStream::connect("/run/claude.sock")?;
///     let (reader, writer) = (stream.try_clone()?, stream);
///     # let reader = futures_lite::io::empty(); let writer = futures_lite::io::sink();
///     Ok(Connection::new(writer, reader))
/// });
/// ```
pub trait Transport: Send + Sync + 'static {
    /// Open a connection for a session that would have been started as `spec`.
    ///
    /// An error fails the session's start with [`Error::Connect`](crate::Error::Connect).
    fn connect(&self, spec: LaunchSpec) -> BoxFuture<'static, io::Result<Connection>>;

    /// Whether the CLI behind this transport reads this machine's files, as a CLI the host
    /// starts itself does (a local wrapper, an in-memory fake standing for a local CLI). Then a
    /// session resumed from a [session store](crate::options::Options::session_store) is
    /// written to a temporary local folder the CLI is pointed at (`CLAUDE_CONFIG_DIR` in
    /// `spec`), as for a local process. `false` by default: a transport usually reaches a CLI
    /// elsewhere, which could not read that folder, so the store is not read here and the
    /// resume goes to the CLI as it is (the official SDKs do the same with a transport of the
    /// caller's own).
    ///
    /// ```
    /// use std::io;
    /// use claude_agent_tokio::runtime::BoxFuture;
    /// use claude_agent_tokio::{Connection, Transport};
    /// use claude_agent_tokio::options::LaunchSpec;
    ///
    /// /// Runs the CLI on this machine inside a sandbox of the host's choice.
    /// struct Sandboxed;
    ///
    /// impl Transport for Sandboxed {
    ///     fn connect(&self, _spec: LaunchSpec) -> BoxFuture<'static, io::Result<Connection>> {
    ///         Box::pin(async { Err(io::Error::other("start the sandboxed CLI here")) })
    ///     }
    ///
    ///     fn reads_local_files(&self) -> bool {
    ///         true
    ///     }
    /// }
    /// # assert!(Sandboxed.reads_local_files());
    /// ```
    fn reads_local_files(&self) -> bool {
        false
    }
}

impl<F, Fut> Transport for F
where
    F: Fn(LaunchSpec) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = io::Result<Connection>> + Send + 'static,
{
    fn connect(&self, spec: LaunchSpec) -> BoxFuture<'static, io::Result<Connection>> {
        Box::pin(self(spec))
    }
}

pub(crate) type BoxedWrite = Box<dyn AsyncWrite + Send + Unpin>;
pub(crate) type BoxedRead = Box<dyn AsyncRead + Send + Unpin>;

/// One session's way to the CLI: its stdin and stdout, and its stderr and process where the
/// transport has them.
///
/// Without a process ([`Connection::with_process`]), the end of stdout is the end of the
/// session: it counts as a clean exit (status 0), and shutting the session down closes stdin
/// and then stops reading. With a process, its exit status and stderr tail are reported as for
/// a spawned CLI, and shutdown signals reach it.
///
/// ```
/// use claude_agent_tokio::Connection;
///
/// let (stdin, stdout) = (futures_lite::io::sink(), futures_lite::io::empty());
/// let connection = Connection::new(stdin, stdout).with_stderr(futures_lite::io::empty());
/// assert!(format!("{connection:?}").contains("stderr: true"));
/// ```
pub struct Connection {
    stdin: BoxedWrite,
    stdout: BoxedRead,
    stderr: Option<BoxedRead>,
    process: Option<Box<dyn ChildProcess>>,
}

impl Connection {
    /// A connection from the CLI's stdin (what the SDK writes) and stdout (what it reads).
    pub fn new(
        stdin: impl AsyncWrite + Send + Unpin + 'static,
        stdout: impl AsyncRead + Send + Unpin + 'static,
    ) -> Self {
        Connection {
            stdin: Box::new(stdin),
            stdout: Box::new(stdout),
            stderr: None,
            process: None,
        }
    }

    /// Also read the CLI's stderr: passed to the `on_stderr` callback, and its tail kept for
    /// [`Error::Process`](crate::Error::Process).
    #[must_use]
    pub fn with_stderr(mut self, stderr: impl AsyncRead + Send + Unpin + 'static) -> Self {
        self.stderr = Some(Box::new(stderr));
        self
    }

    /// The process behind the connection, for its exit status and for shutdown signals.
    ///
    /// ```
    /// use std::io;
    /// use claude_agent_client::{Runtime, Transport};
    /// use claude_agent_client::options::{LaunchSpec, Options};
    ///
    /// /// Start the CLI at a lower CPU priority: the same command line, behind `nice`, started
    /// /// by the runtime's own local process (which hands over the process with the pipes).
    /// fn niced(runtime: impl Runtime, options: Options) -> io::Result<Options> {
    ///     let local = runtime.local_process().ok_or(io::ErrorKind::Unsupported)?;
    ///     Ok(options.transport(move |spec: LaunchSpec| {
    ///         let mut niced = spec.clone();
    ///         niced.args.insert(0, spec.program.display().to_string());
    ///         niced.program = "nice".into();
    ///         local.connect(niced)
    ///     }))
    /// }
    /// ```
    #[must_use]
    pub fn with_process(mut self, process: impl ChildProcess) -> Self {
        self.process = Some(Box::new(process));
        self
    }

    /// The process behind the connection, if the transport gave one: its id, and signals.
    ///
    /// ```
    /// use claude_agent_tokio::Connection;
    ///
    /// let mut connection = Connection::new(futures_lite::io::sink(), futures_lite::io::empty());
    /// assert!(connection.process().is_none());
    /// ```
    pub fn process(&mut self) -> Option<&mut dyn ChildProcess> {
        match &mut self.process {
            Some(process) => Some(process.as_mut()),
            None => None,
        }
    }

    /// The parts the driver runs: a connection without a process ends with its stdout.
    pub(crate) fn into_parts(
        self,
    ) -> (ConnectionProcess, BoxedWrite, BoxedRead, Option<BoxedRead>) {
        match self.process {
            Some(process) => (
                ConnectionProcess::Process(process),
                self.stdin,
                self.stdout,
                self.stderr,
            ),
            None => {
                let state = Arc::new(Mutex::new(Detached::default()));
                let stdout = WatchedStdout {
                    inner: self.stdout,
                    state: state.clone(),
                };
                (
                    ConnectionProcess::Detached(state),
                    self.stdin,
                    Box::new(stdout),
                    self.stderr,
                )
            }
        }
    }
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("stderr", &self.stderr.is_some())
            .field("process", &self.process.is_some())
            .finish_non_exhaustive()
    }
}

/// What stands for the CLI process of a [`Connection`].
pub(crate) enum ConnectionProcess {
    /// The transport's own process handle.
    Process(Box<dyn ChildProcess>),
    /// No process: the session ends when stdout ends, or when the driver hangs up.
    Detached(Arc<Mutex<Detached>>),
}

/// The end of a connection without a process: its stdout ended, or the driver gave up on it.
#[derive(Default)]
pub(crate) struct Detached {
    ended: bool,
    waker: Option<Waker>,
}

impl Detached {
    fn end(state: &Mutex<Detached>) {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        state.ended = true;
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }
}

/// A stdout reader that marks a detached connection ended when it reaches its end or fails.
struct WatchedStdout {
    inner: BoxedRead,
    state: Arc<Mutex<Detached>>,
}

impl AsyncRead for WatchedStdout {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(&result, Poll::Ready(Ok(0)) | Poll::Ready(Err(_))) && !buf.is_empty() {
            Detached::end(&self.state);
        }
        result
    }
}

impl ChildProcess for ConnectionProcess {
    fn id(&self) -> Option<u32> {
        match self {
            ConnectionProcess::Process(process) => process.id(),
            ConnectionProcess::Detached(_) => None,
        }
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
        match self {
            ConnectionProcess::Process(process) => process.poll_wait(cx),
            ConnectionProcess::Detached(state) => {
                let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                if state.ended {
                    Poll::Ready(Ok(ExitStatusInfo::code(0)))
                } else {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }

    fn signal(&mut self, signal: Signal) -> io::Result<()> {
        match self {
            ConnectionProcess::Process(process) => process.signal(signal),
            // Nothing to signal: stop waiting for the other side.
            ConnectionProcess::Detached(state) => {
                Detached::end(state);
                Ok(())
            }
        }
    }
}

/// The transport an [`Options`] carries; `Debug` says only that there is one.
#[derive(Clone)]
pub(crate) struct TransportRef(pub(crate) Arc<dyn Transport>);

impl fmt::Debug for TransportRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Transport")
    }
}

impl Options {
    /// Talk to the CLI over connections from `transport` instead of the runtime's
    /// [local process](crate::Runtime::local_process).
    ///
    /// Everything else about the session is unchanged: the same arguments are computed (and
    /// handed to the transport as a [`LaunchSpec`]), the same `initialize` is sent, callbacks
    /// run the same way. CLI discovery does not run, so `cli_path` and `CLAUDE_AGENT_CLI_PATH`
    /// only name the program in the spec. See [`Transport`] for a socket example;
    /// `claude-agent-testkit` has an in-memory fake CLI that plugs in here.
    ///
    /// ```
    /// use claude_agent_tokio::Connection;
    /// use claude_agent_tokio::options::Options;
    ///
    /// let options = Options::new().transport(|spec: claude_agent_tokio::options::LaunchSpec| async move {
    ///     assert!(spec.args.contains(&"stream-json".to_owned()));
    ///     Ok(Connection::new(futures_lite::io::sink(), futures_lite::io::empty()))
    /// });
    /// assert!(format!("{options:?}").contains("transport: true"));
    /// ```
    pub fn transport(mut self, transport: impl Transport) -> Self {
        self.handlers_mut().transport = Some(TransportRef(Arc::new(transport)));
        self
    }
}
