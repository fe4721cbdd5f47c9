//! Stopping the CLI process: the steps from a closed stdin to `SIGTERM` and `SIGKILL`, a CLI that
//! ended its stdout but goes on running, and pipes that a process the CLI started keeps open
//! after the CLI exited. Each step is a deadline of the session and a [`Transmit`] for the host.

use std::time::Instant;

use super::config::Timeouts;
use super::event::{Signal, Transmit};

/// Where the stopping of the CLI is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Not being stopped.
    Running,
    /// stdin is closed; `SIGTERM` at the deadline.
    StdinClosed(Instant),
    /// `SIGTERM` asked for; `SIGKILL` at the deadline.
    Terminated(Instant),
    /// `SIGKILL` asked for: only the exit is left to come.
    Killed,
}

/// What [`Stopping::handle_timeout`] found due.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Due {
    /// The CLI's stdout ended long ago and it is still running: stop it.
    pub(super) stop: bool,
    /// The CLI exited long ago and its stdout is still open: take it as ended.
    pub(super) stdout_end: bool,
}

/// The CLI process's side of the session's end.
#[derive(Debug)]
pub(super) struct Stopping {
    step: Step,
    stdout_end: Option<Instant>,
    exit: Option<Instant>,
    /// The host was told to let the pipes go, or they both ended.
    pipes_released: bool,
    /// A transmit not yet handed to the host.
    queued: Option<Transmit>,
}

impl Stopping {
    pub(super) fn new() -> Self {
        Stopping {
            step: Step::Running,
            stdout_end: None,
            exit: None,
            pipes_released: false,
            queued: None,
        }
    }

    /// The session closed the CLI's stdin to stop it: the first step.
    pub(super) fn begin(&mut self, now: Instant, timeouts: &Timeouts) {
        if self.step == Step::Running && self.exit.is_none() {
            self.step = Step::StdinClosed(now + timeouts.exit_after_stdin_closed);
        }
    }

    /// Whether the CLI is being stopped.
    pub(super) fn is_stopping(&self) -> bool {
        self.step != Step::Running
    }

    pub(super) fn stdout_ended(&mut self, now: Instant) {
        self.stdout_end.get_or_insert(now);
    }

    pub(super) fn exited(&mut self, now: Instant) {
        self.exit.get_or_insert(now);
    }

    /// The earliest deadline, if any.
    pub(super) fn deadline(&self, timeouts: &Timeouts) -> Option<Instant> {
        if let Some(exit) = self.exit {
            return (!self.pipes_released).then(|| exit + timeouts.pipes_after_exit);
        }
        match self.step {
            Step::StdinClosed(at) | Step::Terminated(at) => Some(at),
            Step::Killed => None,
            Step::Running => self
                .stdout_end
                .map(|end| end + timeouts.exit_after_stdout_end),
        }
    }

    /// Time passed: the signal due, if any, is queued for the host; what the session must do
    /// itself is returned.
    pub(super) fn handle_timeout(&mut self, now: Instant, timeouts: &Timeouts) -> Due {
        let mut due = Due::default();
        if let Some(exit) = self.exit {
            if !self.pipes_released && now >= exit + timeouts.pipes_after_exit {
                self.pipes_released = true;
                self.queued = Some(Transmit::ReleasePipes);
                due.stdout_end = self.stdout_end.is_none();
            }
            return due;
        }
        match self.step {
            Step::Running => {
                due.stop = self
                    .stdout_end
                    .is_some_and(|end| now >= end + timeouts.exit_after_stdout_end);
            }
            Step::StdinClosed(at) if now >= at => {
                self.step = Step::Terminated(now + timeouts.exit_after_terminate);
                self.queued = Some(Transmit::Signal(Signal::Terminate));
            }
            Step::Terminated(at) if now >= at => {
                self.step = Step::Killed;
                self.queued = Some(Transmit::Signal(Signal::Kill));
            }
            _ => {}
        }
        due
    }

    /// The next transmit for the host, once.
    pub(super) fn poll_transmit(&mut self) -> Option<Transmit> {
        // A signal for a CLI that has exited since it was queued is not sent.
        match self.queued.take() {
            Some(Transmit::Signal(_)) if self.exit.is_some() => None,
            queued => queued,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn a_cli_that_ignores_its_closed_stdin_gets_sigterm_then_sigkill() {
        let t = Timeouts::default();
        let start = Instant::now();
        let mut stopping = Stopping::new();
        stopping.begin(start, &t);
        assert_eq!(stopping.deadline(&t), Some(start + secs(5.0)));
        assert_eq!(
            stopping.handle_timeout(start + secs(4.9), &t),
            Due::default()
        );
        assert_eq!(stopping.poll_transmit(), None);
        stopping.handle_timeout(start + secs(5.0), &t);
        assert_eq!(
            stopping.poll_transmit(),
            Some(Transmit::Signal(Signal::Terminate))
        );
        assert_eq!(stopping.deadline(&t), Some(start + secs(10.0)));
        stopping.handle_timeout(start + secs(10.0), &t);
        assert_eq!(
            stopping.poll_transmit(),
            Some(Transmit::Signal(Signal::Kill))
        );
        assert_eq!(stopping.deadline(&t), None);
        stopping.exited(start + secs(10.1));
        assert_eq!(stopping.deadline(&t), Some(start + secs(10.6)));
    }

    #[test]
    fn a_cli_that_exits_in_time_gets_no_signal() {
        let t = Timeouts::default();
        let start = Instant::now();
        let mut stopping = Stopping::new();
        stopping.begin(start, &t);
        stopping.stdout_ended(start + secs(0.5));
        stopping.exited(start + secs(0.5));
        assert_eq!(
            stopping.handle_timeout(start + secs(10.0), &t),
            Due::default()
        );
        assert_eq!(stopping.poll_transmit(), Some(Transmit::ReleasePipes));
        assert_eq!(stopping.deadline(&t), None);
    }

    #[test]
    fn a_signal_queued_before_the_exit_is_not_sent() {
        let t = Timeouts::default();
        let start = Instant::now();
        let mut stopping = Stopping::new();
        stopping.begin(start, &t);
        stopping.handle_timeout(start + secs(5.0), &t);
        stopping.exited(start + secs(5.0));
        assert_eq!(stopping.poll_transmit(), None);
    }

    #[test]
    fn a_cli_running_on_after_its_stdout_ended_is_stopped() {
        let t = Timeouts::default();
        let start = Instant::now();
        let mut stopping = Stopping::new();
        stopping.stdout_ended(start);
        assert_eq!(stopping.deadline(&t), Some(start + secs(5.0)));
        assert!(!stopping.handle_timeout(start + secs(4.9), &t).stop);
        assert!(stopping.handle_timeout(start + secs(5.0), &t).stop);
    }

    #[test]
    fn pipes_held_open_after_the_exit_are_let_go() {
        let t = Timeouts::default();
        let start = Instant::now();
        let mut stopping = Stopping::new();
        stopping.exited(start);
        assert_eq!(stopping.deadline(&t), Some(start + secs(0.5)));
        let due = stopping.handle_timeout(start + secs(0.5), &t);
        assert!(due.stdout_end);
        assert_eq!(stopping.poll_transmit(), Some(Transmit::ReleasePipes));
        assert_eq!(
            stopping.handle_timeout(start + secs(9.0), &t),
            Due::default()
        );
        assert_eq!(stopping.poll_transmit(), None);
    }
}
