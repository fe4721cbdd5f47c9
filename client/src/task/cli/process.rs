//! The CLI's process: the signals sent to it, and its exit status once it is reaped.

use std::task::{Context, Poll};

use crate::process::runtime::{ChildProcess, Signal};
use crate::session::{self, ExitStatusInfo};
use crate::task::trace::Trace;

/// The process handle, and how the process exited once it has.
pub(super) struct Process<C> {
    child: C,
    exit: Option<ExitStatusInfo>,
}

impl<C: ChildProcess> Process<C> {
    pub(super) fn new(child: C) -> Self {
        Process { child, exit: None }
    }

    /// Send the process the signal the session asks for.
    pub(super) fn signal(&mut self, signal: session::Signal, trace: &mut Trace) {
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

    /// Kill the CLI and everything it started (the adapter's child handle reaps it).
    pub(super) fn kill(&mut self, reason: &'static str, trace: &mut Trace) {
        let sent = self.child.signal(Signal::Kill);
        trace.signal(Signal::Kill, reason, &sent);
    }

    /// The exit status, once, when the process is reaped; `None` before and after.
    pub(super) fn poll_exit(&mut self, cx: &mut Context<'_>) -> Option<ExitStatusInfo> {
        if self.exit.is_some() {
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

    /// Whether the process has exited (and was reaped).
    pub(super) fn exited(&self) -> bool {
        self.exit.is_some()
    }
}
