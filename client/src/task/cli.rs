//! The CLI's side of the driver: its pipes (with the recording of what went through them), and
//! its process, signalled as the session asks and reaped.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncWrite};

use crate::callbacks::handlers::StderrFn;
use crate::persistence::recorder::{Recorder, Recording};
use crate::process::runtime::ChildProcess;
use crate::session::{ExitStatusInfo, Session, Transmit};
use crate::task::stderr::Stderr;
use crate::task::trace::Trace;

use process::Process;
use stdin::Stdin;

mod process;
mod stdin;

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
    process: Process<C>,
    stdin: Stdin<I>,
    stdout: Option<O>,
    /// Where stdout (and stderr) are read into: each read is handed on before the next.
    read_buf: Box<[u8]>,
    stderr: Stderr<E>,
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
        on_stderr: Option<StderrFn>,
        recorder: Option<Recorder>,
    ) -> Self {
        Cli {
            process: Process::new(endpoints.child),
            stdin: Stdin::new(endpoints.stdin),
            stdout: Some(endpoints.stdout),
            read_buf: vec![0; READ_CHUNK].into_boxed_slice(),
            stderr: Stderr::new(endpoints.stderr, on_stderr),
            recording: Recording::new(recorder),
        }
    }

    /// Whether stdin holds more than a read's worth not yet written.
    pub(super) fn stdin_backed_up(&self) -> bool {
        self.stdin.backed_up()
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
            while self.stdin.has_room() {
                match session.poll_transmit() {
                    Some(Transmit::Write(bytes)) => self.stdin.push(bytes),
                    Some(Transmit::CloseStdin) => self.stdin.close_when_written(),
                    Some(Transmit::Signal(signal)) => {
                        self.process.signal(signal, trace);
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
            match self
                .stdin
                .poll_write(cx, &mut self.recording, &mut progress)
            {
                // All written: take what the session has next.
                Poll::Ready(true) => {}
                // Nothing was queued (stdin closed, if asked), or the pipe is full.
                Poll::Ready(false) | Poll::Pending => return progress,
            }
        }
    }

    /// The CLI exited a while ago and something it started holds its pipes: stop reading them
    /// (the session has taken stdout as ended).
    fn release_pipes(&mut self) {
        self.stdout = None;
        self.stderr.close();
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

    /// Read stderr to its end.
    pub(super) fn poll_stderr(&mut self, cx: &mut Context<'_>) -> bool {
        // stdout's buffer: what was read into it has been handed to the session already.
        self.stderr.poll_read(cx, &mut self.read_buf)
    }

    /// Whether stderr is still being read.
    pub(super) fn stderr_open(&self) -> bool {
        self.stderr.is_open()
    }

    /// The last lines the CLI wrote to stderr.
    pub(super) fn stderr_tail(&self) -> String {
        self.stderr.tail()
    }

    /// The exit status, once the CLI has exited (asked only once a pipe closed, or while the
    /// session stops it: a process that exits closes its pipes).
    pub(super) fn poll_exit(
        &mut self,
        cx: &mut Context<'_>,
        session: &Session,
    ) -> Option<ExitStatusInfo> {
        if self.stdout.is_some() && self.stderr.is_open() && !session.stopping() {
            return None;
        }
        self.process.poll_exit(cx)
    }
}

impl<C: ChildProcess, I, O, E> Cli<C, I, O, E> {
    /// Kill the CLI and everything it started (the adapter's child handle reaps it).
    pub(super) fn kill(&mut self, reason: &'static str, trace: &mut Trace) {
        self.process.kill(reason, trace);
    }

    /// Whether the CLI has exited (and was reaped).
    pub(super) fn exited(&self) -> bool {
        self.process.exited()
    }

    /// The recording of what went through the pipes.
    pub(super) fn recording(&mut self) -> &mut Recording {
        &mut self.recording
    }
}
