//! One in-memory connection to a [`FakeCli`]: the CLI's stdin, stdout and stderr as `futures-io`
//! pipes and its process as a [`ChildProcess`], all over one shared state. The fake runs inside
//! the pipe calls: what the SDK writes is fed to it at once, and a read takes what it printed.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use claude_agent_client::{ChildProcess, Connection, Signal};
use claude_agent_core::options::LaunchSpec;
use claude_agent_core::session::ExitStatusInfo;
use futures_io::{AsyncRead, AsyncWrite};

use crate::fake_cli::FakeCli;

/// A fake CLI and the SDK side's view of it.
pub(crate) struct Wire {
    pub(crate) cli: FakeCli,
    /// What the SDK would have started.
    pub(crate) launch: LaunchSpec,
    /// stdout bytes taken from the fake but not read yet.
    stdout: Vec<u8>,
    /// stderr bytes taken from the fake but not read yet.
    stderr: Vec<u8>,
    /// The signal that ended it, if the SDK sent one.
    signalled: Option<i32>,
    /// Every signal the SDK sent, in order.
    pub(crate) signals: Vec<Signal>,
    wakers: Vec<Waker>,
}

/// The state of one connection, shared by its pipes and by the [`super::FakeTransport`] that
/// inspects it.
pub(crate) type SharedWire = Arc<Mutex<Wire>>;

pub(crate) fn lock(wire: &Mutex<Wire>) -> MutexGuard<'_, Wire> {
    // A test that panicked while holding it already failed; the state is still readable.
    wire.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Wire {
    pub(crate) fn connect(cli: FakeCli, launch: LaunchSpec) -> (SharedWire, Connection) {
        let wire = Arc::new(Mutex::new(Wire {
            cli,
            launch,
            stdout: Vec::new(),
            stderr: Vec::new(),
            signalled: None,
            signals: Vec::new(),
            wakers: Vec::new(),
        }));
        let pipe = |stream| Pipe {
            wire: wire.clone(),
            stream,
        };
        let connection = Connection::new(pipe(Stream::Stdin), pipe(Stream::Stdout))
            .with_stderr(pipe(Stream::Stderr))
            .with_process(FakeProcess(wire.clone()));
        (wire, connection)
    }

    fn wake_all(&mut self) {
        self.wakers.drain(..).for_each(Waker::wake);
    }

    fn park(&mut self, cx: &Context<'_>) {
        if !self.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            self.wakers.push(cx.waker().clone());
        }
    }

    /// How the fake ended: killed by the SDK, or exited as its script said.
    pub(crate) fn exit(&self) -> Option<ExitStatusInfo> {
        match self.signalled {
            Some(signal) => Some(ExitStatusInfo::signal(signal)),
            None => self.cli.poll_exit().map(ExitStatusInfo::code),
        }
    }

    /// A script's sleeps end at once: the fake keeps no clock.
    fn skip_sleeps(&mut self) {
        while self.cli.poll_sleep().is_some() {
            self.cli.handle_wake();
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
}

/// One of the fake's three pipes.
struct Pipe {
    wire: SharedWire,
    stream: Stream,
}

impl AsyncRead for Pipe {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut guard = lock(&self.wire);
        let wire = &mut *guard;
        wire.skip_sleeps();
        let (pending, next) = match self.stream {
            Stream::Stdout => (&mut wire.stdout, wire.cli.poll_stdout()),
            Stream::Stderr => (&mut wire.stderr, wire.cli.poll_stderr()),
            Stream::Stdin => return Poll::Ready(Err(io::ErrorKind::Unsupported.into())),
        };
        if let Some(chunk) = next {
            pending.extend_from_slice(&chunk);
        }
        if !pending.is_empty() {
            let n = pending.len().min(buf.len());
            buf[..n].copy_from_slice(&pending[..n]);
            pending.drain(..n);
            return Poll::Ready(Ok(n));
        }
        let closed = matches!(self.stream, Stream::Stdout) && wire.cli.stdout_closed();
        if closed || wire.exit().is_some() {
            return Poll::Ready(Ok(0));
        }
        wire.park(cx);
        Poll::Pending
    }
}

impl AsyncWrite for Pipe {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut wire = lock(&self.wire);
        if wire.exit().is_some() {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        wire.cli.handle_stdin(buf);
        wire.wake_all();
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut wire = lock(&self.wire);
        wire.cli.handle_stdin_eof();
        wire.wake_all();
        Poll::Ready(Ok(()))
    }
}

/// The fake's "process": it exits when its script says so, or when the SDK signals it.
struct FakeProcess(SharedWire);

impl ChildProcess for FakeProcess {
    fn id(&self) -> Option<u32> {
        None
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
        let mut wire = lock(&self.0);
        wire.skip_sleeps();
        match wire.exit() {
            Some(status) => Poll::Ready(Ok(status)),
            None => {
                wire.park(cx);
                Poll::Pending
            }
        }
    }

    fn signal(&mut self, signal: Signal) -> io::Result<()> {
        let mut wire = lock(&self.0);
        wire.signals.push(signal);
        let ignored = signal == Signal::Terminate && wire.cli.survives_sigterm();
        if wire.exit().is_none() && !ignored {
            // Like the real CLI, which does not catch either signal.
            wire.signalled = Some(match signal {
                Signal::Terminate => 15,
                _ => 9,
            });
            wire.wake_all();
        }
        Ok(())
    }
}
