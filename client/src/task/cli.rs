//! The CLI's side of the driver: its pipes (with the recording of what went through them), its
//! exit, and the signals the session asks for when it stops it.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncWrite};

use crate::persistence::recorder::{Recorder, Recording};
use crate::process::runtime::{ChildProcess, Signal};
use crate::session::{self, ExitStatusInfo, Session, Transmit};
use crate::task::stderr::StderrSink;
use crate::task::trace::Trace;

/// Bytes read from stdout at a time, and written to stdin before the session is asked again.
pub(super) const READ_CHUNK: usize = 64 * 1024;

/// The CLI as the driver sees it: a process handle and its pipes, from a spawned child or from a
/// transport's connection.
pub(crate) struct Endpoints<C, I, O, E> {
    pub(crate) child: C,
    pub(crate) stdin: I,
    pub(crate) stdout: O,
    pub(crate) stderr: Option<E>,
}

/// What a read of stdout gave.
pub(super) enum Read<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// Nothing yet.
    Pending,
    /// stdout ended.
    Closed,
    /// Reading stdout failed: nothing more can be read.
    Failed(io::Error),
}

/// The CLI process, its pipes and its recording.
pub(super) struct Cli<C, I, O, E> {
    child: C,
    exit: Option<ExitStatusInfo>,
    stdin: Option<I>,
    out_buf: Vec<u8>,
    out_pos: usize,
    /// `CloseStdin` came: close stdin once `out_buf` is written.
    close_stdin: bool,
    stdout: Option<O>,
    /// Where stdout (and stderr) are read into: each read is handed on before the next.
    read_buf: Box<[u8]>,
    stderr: Option<E>,
    stderr_sink: StderrSink,
    /// `Options::record_to`: where both pipes' lines go.
    recording: Recording,
}

impl<C, I, O, E> Cli<C, I, O, E>
where
    C: ChildProcess,
    I: AsyncWrite + Unpin,
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    pub(super) fn new(
        endpoints: Endpoints<C, I, O, E>,
        stderr: StderrSink,
        recorder: Option<Recorder>,
    ) -> Self {
        Cli {
            child: endpoints.child,
            exit: None,
            stdin: Some(endpoints.stdin),
            out_buf: Vec::new(),
            out_pos: 0,
            close_stdin: false,
            stdout: Some(endpoints.stdout),
            read_buf: vec![0; READ_CHUNK].into_boxed_slice(),
            stderr: endpoints.stderr,
            stderr_sink: stderr,
            recording: Recording::new(recorder),
        }
    }

    /// Whether stdin holds more than a read's worth not yet written.
    pub(super) fn stdin_backed_up(&self) -> bool {
        self.out_buf.len() - self.out_pos > READ_CHUNK
    }

    /// Do what the session asks of the process: write its stdin and close it, send it signals,
    /// let its pipes go.
    pub(super) fn poll_stdin(
        &mut self,
        cx: &mut Context<'_>,
        session: &mut Session,
        trace: &mut Trace,
    ) -> bool {
        let mut progress = false;
        loop {
            if self.out_pos == self.out_buf.len() {
                self.out_buf.clear();
                self.out_pos = 0;
                while self.out_buf.len() <= READ_CHUNK {
                    match session.poll_transmit() {
                        Some(Transmit::Write(bytes)) if self.out_buf.is_empty() => {
                            self.out_buf = bytes
                        }
                        Some(Transmit::Write(bytes)) => self.out_buf.extend_from_slice(&bytes),
                        Some(Transmit::CloseStdin) => self.close_stdin = true,
                        Some(Transmit::Signal(signal)) => {
                            self.signal(signal, trace);
                            progress = true;
                        }
                        Some(Transmit::ReleasePipes) => {
                            self.release_pipes();
                            progress = true;
                        }
                        // A kind of transmit newer than this layer: nothing it could do.
                        Some(_) => {}
                        None => break,
                    }
                }
                if self.out_buf.is_empty() {
                    if self.close_stdin && self.stdin.is_some() {
                        return self.poll_close_stdin(cx) || progress;
                    }
                    return progress;
                }
            }
            let Some(stdin) = self.stdin.as_mut() else {
                // stdin is gone (closed or broken): what the session still writes goes nowhere.
                self.out_pos = self.out_buf.len();
                progress = true;
                continue;
            };
            match Pin::new(stdin).poll_write(cx, &self.out_buf[self.out_pos..]) {
                Poll::Ready(Ok(n)) if n > 0 => {
                    let written = self.out_pos..self.out_pos + n;
                    self.recording.stdin(&self.out_buf[written]);
                    self.out_pos += n;
                    progress = true;
                }
                // A zero write or an error (EPIPE: the CLI is gone); its exit will tell why.
                Poll::Ready(_) => {
                    self.stdin = None;
                    progress = true;
                }
                Poll::Pending => return progress,
            }
        }
    }

    /// Send the process the signal the session asks for.
    fn signal(&mut self, signal: session::Signal, trace: &mut Trace) {
        let (signal, reason) = match signal {
            session::Signal::Terminate => (
                Signal::Terminate,
                "the CLI did not exit after its stdin closed",
            ),
            _ => (Signal::Kill, "the CLI did not exit after SIGTERM"),
        };
        let sent = self.child.signal(signal);
        trace.signal(signal, reason, &sent);
    }

    /// The CLI exited a while ago and something it started holds its pipes: stop reading them
    /// (the session has taken stdout as ended).
    fn release_pipes(&mut self) {
        self.stdout = None;
        if self.stderr.is_some() {
            self.stderr_closed();
        }
    }

    fn poll_close_stdin(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        match Pin::new(stdin).poll_close(cx) {
            Poll::Pending => false,
            Poll::Ready(_) => {
                self.stdin = None;
                true
            }
        }
    }

    /// Read stdout once (recorded). On its end, the caller tells the session.
    pub(super) fn read_stdout(&mut self, cx: &mut Context<'_>) -> Read<'_> {
        loop {
            let Some(stdout) = self.stdout.as_mut() else {
                return Read::Pending;
            };
            match Pin::new(stdout).poll_read(cx, &mut self.read_buf) {
                Poll::Pending => return Read::Pending,
                Poll::Ready(Ok(n)) if n > 0 => {
                    self.recording.stdout(&self.read_buf[..n]);
                    return Read::Bytes(&self.read_buf[..n]);
                }
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(Ok(_)) => {
                    self.stdout = None;
                    return Read::Closed;
                }
                Poll::Ready(Err(e)) => {
                    self.stdout = None;
                    return Read::Failed(e);
                }
            }
        }
    }

    /// Read stderr to the sink, to its end.
    pub(super) fn poll_stderr(&mut self, cx: &mut Context<'_>) -> bool {
        let mut progress = false;
        loop {
            let Some(stderr) = self.stderr.as_mut() else {
                return progress;
            };
            // stdout's buffer: what was read into it has been handed to the session already.
            match Pin::new(stderr).poll_read(cx, &mut self.read_buf) {
                Poll::Pending => return progress,
                Poll::Ready(Ok(n)) if n > 0 => {
                    self.stderr_sink.push(&self.read_buf[..n]);
                    progress = true;
                }
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(_) => {
                    self.stderr_closed();
                    return true;
                }
            }
        }
    }

    fn stderr_closed(&mut self) {
        self.stderr = None;
        self.stderr_sink.finish();
    }

    /// Whether stderr is still being read.
    pub(super) fn stderr_open(&self) -> bool {
        self.stderr.is_some()
    }

    /// The last lines the CLI wrote to stderr.
    pub(super) fn stderr_tail(&self) -> String {
        self.stderr_sink.tail()
    }

    /// The exit status, once the CLI has exited (asked only once a pipe closed, or while the
    /// session stops it: a process that exits closes its pipes).
    pub(super) fn poll_exit(
        &mut self,
        cx: &mut Context<'_>,
        session: &Session,
    ) -> Option<ExitStatusInfo> {
        if self.exit.is_some() {
            return None;
        }
        if self.stdout.is_some() && self.stderr.is_some() && !session.stopping() {
            return None;
        }
        let status = match self.child.poll_wait(cx) {
            Poll::Pending => return None,
            Poll::Ready(Ok(status)) => status,
            Poll::Ready(Err(_)) => ExitStatusInfo::unknown(),
        };
        self.exit = Some(status);
        Some(status)
    }
}

impl<C: ChildProcess, I, O, E> Cli<C, I, O, E> {
    /// Kill the CLI and everything it started (the adapter's child handle reaps it).
    pub(super) fn kill(&mut self, reason: &'static str, trace: &mut Trace) {
        let sent = self.child.signal(Signal::Kill);
        trace.signal(Signal::Kill, reason, &sent);
    }

    /// Whether the CLI has exited (and was reaped).
    pub(super) fn exited(&self) -> bool {
        self.exit.is_some()
    }

    /// The recording of what went through the pipes.
    pub(super) fn recording(&mut self) -> &mut Recording {
        &mut self.recording
    }
}
