//! The run-end rule: when the CLI's stdin may be closed.
//!
//! Closing stdin ends the session: the CLI exits once its input is over and its work has
//! settled, and any control request it sends afterwards fails. Its work can outlive a `result`:
//! a background task that finishes later makes the CLI start a turn of its own, which may ask
//! for permissions or run hooks. So stdin is closed only when the host has no more input AND the
//! current run has really ended: at the result when the CLI cannot call the host back; else when
//! the CLI reports itself idle with no background task in flight, or when the ceiling passes.
//! The whole rule is written out in `docs/PROTOCOL.md` ("Run end").

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// What a message says about the run, as far as the run-end rule cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Activity {
    /// A `result` frame.
    Result,
    /// `session_state_changed`.
    State(CliState),
    /// Main-thread output (`assistant` or `stream_event` with no parent tool use): a turn is running.
    MainThreadOutput,
    /// A background task started.
    TaskStarted(String),
    /// A background task reached a terminal state.
    TaskFinished(String),
    /// `background_tasks_changed`: the full list of tasks in flight.
    TasksReplaced(Vec<String>),
    /// Nothing that matters here.
    Other,
}

/// The CLI's own view of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CliState {
    Idle,
    Running,
    RequiresAction,
}

#[derive(Debug)]
pub(crate) struct RunEnd {
    /// The CLI may call back (hooks, tools, permission prompts…).
    bidirectional: bool,
    ceiling: Option<Duration>,
    /// The host has no more user messages.
    input_ended: bool,
    /// User messages written so far.
    sent: u64,
    /// A `result` came and the run has not been reopened since.
    result_seen: bool,
    /// The run is over (result + idle, or no needs, or the ceiling).
    ended: bool,
    state: Option<CliState>,
    ceiling_at: Option<Instant>,
    tasks: BTreeSet<String>,
}

impl RunEnd {
    pub(crate) fn new(bidirectional: bool, ceiling: Option<Duration>) -> Self {
        RunEnd {
            bidirectional,
            ceiling,
            input_ended: false,
            sent: 0,
            result_seen: false,
            ended: false,
            state: None,
            ceiling_at: None,
            tasks: BTreeSet::new(),
        }
    }

    /// The CLI may call back from now on (an in-process MCP server was added).
    pub(crate) fn expect_callbacks(&mut self) {
        self.bidirectional = true;
    }

    pub(crate) fn user_sent(&mut self) {
        self.sent += 1;
        self.ended = false;
        self.result_seen = false;
        self.ceiling_at = None;
    }

    pub(crate) fn end_input(&mut self) {
        self.input_ended = true;
    }

    pub(crate) fn input_ended(&self) -> bool {
        self.input_ended
    }

    pub(crate) fn observe(&mut self, now: Instant, activity: Activity) {
        match activity {
            Activity::Result => {
                self.result_seen = true;
                self.settle(now);
            }
            Activity::State(state) => {
                self.state = Some(state);
                if self.result_seen && !self.ended {
                    match state {
                        CliState::Idle => self.settle(now),
                        CliState::Running => self.arm_ceiling(now),
                        CliState::RequiresAction => self.ceiling_at = None,
                    }
                }
            }
            Activity::MainThreadOutput => {
                if self.result_seen || self.ended {
                    self.result_seen = false;
                    self.ended = false;
                    self.ceiling_at = None;
                }
            }
            Activity::TaskStarted(id) => {
                self.tasks.insert(id);
            }
            Activity::TaskFinished(id) => {
                self.tasks.remove(&id);
            }
            Activity::TasksReplaced(ids) => {
                self.tasks = ids.into_iter().collect();
            }
            Activity::Other => {}
        }
    }

    /// After a result (or idle): end the run when nothing keeps it open, else arm the ceiling.
    fn settle(&mut self, now: Instant) {
        let quiet = !self.bidirectional
            || (self.tasks.is_empty() && matches!(self.state, None | Some(CliState::Idle)));
        if quiet {
            self.ended = true;
            self.ceiling_at = None;
        } else if self.state != Some(CliState::RequiresAction) {
            self.arm_ceiling(now);
        }
    }

    fn arm_ceiling(&mut self, now: Instant) {
        self.ceiling_at = self.ceiling.and_then(|c| now.checked_add(c));
    }

    pub(crate) fn deadline(&self) -> Option<Instant> {
        if self.ended {
            None
        } else {
            self.ceiling_at
        }
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        if self.ceiling_at.is_some_and(|at| now >= at) {
            self.ceiling_at = None;
            self.ended = true;
        }
    }

    /// Whether stdin may be closed now, given whether inbound requests are still unanswered.
    pub(crate) fn may_close(&self, inbound_pending: bool) -> bool {
        self.input_ended && (self.sent == 0 || self.ended) && !inbound_pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> Instant {
        Instant::now()
    }

    #[test]
    fn no_needs_run_ends_at_result() {
        let now = t0();
        let mut r = RunEnd::new(false, Some(Duration::from_secs(600)));
        r.user_sent();
        r.end_input();
        assert!(!r.may_close(false));
        r.observe(now, Activity::Result);
        assert!(r.may_close(false));
        assert!(
            !r.may_close(true),
            "an unanswered inbound request keeps stdin open"
        );
    }

    #[test]
    fn no_message_sent_closes_at_once() {
        let mut r = RunEnd::new(true, None);
        r.end_input();
        assert!(r.may_close(false));
    }

    #[test]
    fn with_needs_waits_for_idle_and_reopens_on_main_thread_output() {
        let now = t0();
        let mut r = RunEnd::new(true, Some(Duration::from_secs(10)));
        r.user_sent();
        r.end_input();
        r.observe(now, Activity::State(CliState::Running));
        r.observe(now, Activity::Result);
        assert!(!r.may_close(false));
        assert_eq!(r.deadline(), Some(now + Duration::from_secs(10)));
        r.observe(now, Activity::State(CliState::RequiresAction));
        assert_eq!(r.deadline(), None, "requires_action clears the ceiling");
        r.observe(now, Activity::State(CliState::Running));
        r.observe(now, Activity::MainThreadOutput);
        assert_eq!(r.deadline(), None, "a new turn clears the ceiling");
        r.observe(now, Activity::Result);
        r.observe(now, Activity::State(CliState::Idle));
        assert!(r.may_close(false));
    }

    #[test]
    fn unknown_state_ends_at_result_unless_tasks_in_flight() {
        let now = t0();
        let mut r = RunEnd::new(true, Some(Duration::from_secs(5)));
        r.user_sent();
        r.end_input();
        r.observe(now, Activity::TaskStarted("t1".into()));
        r.observe(now, Activity::Result);
        assert!(!r.may_close(false));
        r.observe(now, Activity::TaskFinished("t1".into()));
        r.observe(now, Activity::MainThreadOutput);
        r.observe(now, Activity::Result);
        assert!(r.may_close(false));
    }

    #[test]
    fn ceiling_ends_the_run() {
        let now = t0();
        let mut r = RunEnd::new(true, Some(Duration::from_secs(5)));
        r.user_sent();
        r.end_input();
        r.observe(now, Activity::State(CliState::Running));
        r.observe(now, Activity::Result);
        r.handle_timeout(now + Duration::from_secs(4));
        assert!(!r.may_close(false));
        r.handle_timeout(now + Duration::from_secs(5));
        assert!(r.may_close(false));
    }

    #[test]
    fn streaming_input_never_closes_before_end_input() {
        let now = t0();
        let mut r = RunEnd::new(false, None);
        r.user_sent();
        r.observe(now, Activity::Result);
        assert!(!r.may_close(false));
        r.end_input();
        assert!(r.may_close(false));
    }
}
