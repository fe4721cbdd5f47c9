//! The run-end rule: when the CLI's stdin may be closed.
//!
//! Closing stdin ends the session: the CLI exits once its input is over and its work has
//! settled, and any control request it sends afterwards fails. Its work can outlive a `result`:
//! a background agent that finishes later makes the CLI start a turn of its own, which may ask
//! for permissions or run hooks. So stdin is closed only when the host has no more input AND the
//! current run has really ended: at the result when the CLI cannot call the host back; else when
//! the CLI reports itself idle with no background agent in flight, or when the ceiling passes.
//! A state frame that says the CLI took up work again (`running`, `requires_action`) opens the
//! run again, as long as stdin is still open. The whole rule is written out in
//! `docs/PROTOCOL.md` ("Run end").

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
    /// Delegated agent work started in the background (a `task_started` whose type wakes the
    /// CLI for a follow-up turn when it ends).
    AgentStarted(String),
    /// A task reached a terminal state.
    TaskFinished(String),
    /// Nothing that matters here.
    Other,
}

/// The CLI's own view of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CliState {
    Idle,
    /// `running`, or a state this crate does not know: work is under way.
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
    /// A `result` came since the last user message.
    result_seen: bool,
    /// A main-thread turn is under way (output seen, its result not yet).
    turn_running: bool,
    /// The run is over (result + idle, or no needs, or the ceiling); work the CLI takes up
    /// afterwards opens it again.
    ended: bool,
    state: Option<CliState>,
    ceiling_at: Option<Instant>,
    /// Background agents in flight, by task id.
    agents: BTreeSet<String>,
    /// Stdin was closed by this rule: the CLI's input is over.
    input_closed: bool,
    /// When the CLI, idle past the end of its input, has waited long enough for its background
    /// work (the ceiling from its last turn).
    linger_until: Option<Instant>,
}

impl RunEnd {
    pub(crate) fn new(bidirectional: bool, ceiling: Option<Duration>) -> Self {
        RunEnd {
            bidirectional,
            ceiling,
            input_ended: false,
            sent: 0,
            result_seen: false,
            turn_running: false,
            ended: false,
            state: None,
            ceiling_at: None,
            agents: BTreeSet::new(),
            input_closed: false,
            linger_until: None,
        }
    }

    /// The CLI may call back from now on (an in-process MCP server was added).
    pub(crate) fn expect_callbacks(&mut self) {
        self.bidirectional = true;
    }

    /// A user message was written: it owes a run of its own, result included.
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
        if self.input_closed {
            self.watch_linger(now, &activity);
        }
        match activity {
            Activity::Result => {
                self.result_seen = true;
                self.turn_running = false;
                if matches!(self.state, None | Some(CliState::Idle)) || !self.bidirectional {
                    self.end_unless_agents();
                } else if self.state != Some(CliState::RequiresAction) {
                    self.arm_ceiling(now);
                }
            }
            Activity::State(state) => {
                self.state = Some(state);
                match state {
                    CliState::Idle => {
                        if self.result_seen {
                            self.end_unless_agents();
                        }
                    }
                    CliState::RequiresAction => {
                        // The host is answering a request: stdin must outlast it.
                        self.ended = false;
                        self.ceiling_at = None;
                    }
                    CliState::Running => {
                        self.ended = false;
                        self.rearm_between_turns(now);
                    }
                }
            }
            Activity::MainThreadOutput => {
                self.turn_running = true;
                self.ended = false;
                self.ceiling_at = None;
            }
            Activity::AgentStarted(id) => {
                self.agents.insert(id);
            }
            Activity::TaskFinished(id) => {
                if self.agents.remove(&id) && self.agents.is_empty() {
                    // The ceiling left the last agent alone; the wait between turns starts over.
                    self.rearm_between_turns(now);
                }
            }
            Activity::Other => {}
        }
    }

    /// A turn's end, or the CLI's idle: the run ends unless a background agent is in flight
    /// (its completion wakes the CLI for a turn that may call back).
    fn end_unless_agents(&mut self) {
        if self.agents.is_empty() || !self.bidirectional {
            self.ended = true;
            self.ceiling_at = None;
        }
    }

    /// Restarts the ceiling when the run is between turns: past a result, with the CLI still
    /// reporting work.
    fn rearm_between_turns(&mut self, now: Instant) {
        if self.result_seen && self.state == Some(CliState::Running) {
            self.arm_ceiling(now);
        }
    }

    /// The ceiling counts only the wait between turns: never while a turn is under way, and
    /// only when the CLI may call back (else the run ended at the result).
    fn arm_ceiling(&mut self, now: Instant) {
        self.ceiling_at = None;
        if self.ended || self.turn_running || !self.bidirectional {
            return;
        }
        self.ceiling_at = self.ceiling.and_then(|c| now.checked_add(c));
    }

    /// Stdin was closed because the run ended: from now on the CLI only winds down. It waits for
    /// its background work before it exits, background shells included, however long they run
    /// (CLI 2.1.332 holds for a shell past its own ceiling), so the ceiling bounds that wait
    /// too, counted from the CLI's last turn.
    pub(crate) fn input_closed(&mut self, now: Instant) {
        self.input_closed = true;
        if !self.turn_running
            && !matches!(
                self.state,
                Some(CliState::Running | CliState::RequiresAction)
            )
        {
            self.linger_until = self.ceiling.and_then(|c| now.checked_add(c));
        }
    }

    /// Past the end of its input, a turn the CLI takes up stops the clock, and its end (or the
    /// CLI's `idle`) starts it again.
    fn watch_linger(&mut self, now: Instant, activity: &Activity) {
        match activity {
            Activity::MainThreadOutput
            | Activity::State(CliState::Running | CliState::RequiresAction) => {
                self.linger_until = None;
            }
            Activity::Result | Activity::State(CliState::Idle) if self.linger_until.is_none() => {
                self.linger_until = self.ceiling.and_then(|c| now.checked_add(c));
            }
            _ => {}
        }
    }

    pub(crate) fn deadline(&self) -> Option<Instant> {
        // Once stdin is closed, nothing is left to decide about it.
        let ceiling = if self.ended || self.input_closed {
            None
        } else {
            self.ceiling_at
        };
        ceiling.into_iter().chain(self.linger_until).min()
    }

    /// The ceiling passed: the run ends, unless a background agent is still in flight, which
    /// may still need stdin (the ceiling starts over once it settles). Returns the ceiling when
    /// the CLI, its input over, has waited that long for its background work since its last
    /// turn: the session then ends it.
    pub(crate) fn handle_timeout(&mut self, now: Instant) -> Option<Duration> {
        if self.ceiling_at.is_some_and(|at| now >= at) {
            self.ceiling_at = None;
            if self.agents.is_empty() {
                self.ended = true;
            }
        }
        if self.linger_until.is_some_and(|at| now >= at) {
            self.linger_until = None;
            return self.ceiling;
        }
        None
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
        r.observe(now, Activity::AgentStarted("t1".into()));
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

    /// The official SDKs reopen an ended run when the CLI reports work again, so stdin outlasts
    /// the turn a finished background task wakes: here input ends right after the wake.
    #[test]
    fn work_the_cli_takes_up_after_idle_opens_the_run_again() {
        let now = t0();
        let mut r = RunEnd::new(true, Some(Duration::from_secs(600)));
        r.user_sent();
        r.observe(now, Activity::State(CliState::Running));
        r.observe(now, Activity::Result);
        r.observe(now, Activity::State(CliState::Idle));
        assert!(r.ended);
        r.observe(now, Activity::State(CliState::Running));
        r.end_input();
        assert!(!r.may_close(false), "the woken turn may still ask");
        assert_eq!(r.deadline(), Some(now + Duration::from_secs(600)));
        r.observe(now, Activity::State(CliState::RequiresAction));
        assert!(!r.may_close(false));
        assert_eq!(r.deadline(), None, "the host is answering");
        r.observe(now, Activity::State(CliState::Running));
        r.observe(now, Activity::MainThreadOutput);
        assert_eq!(r.deadline(), None, "no ceiling while a turn runs");
        r.observe(now, Activity::Result);
        assert!(!r.may_close(false), "still running after the result");
        r.observe(now, Activity::State(CliState::Idle));
        assert!(r.may_close(false));
    }

    #[test]
    fn requires_action_after_idle_opens_the_run_again() {
        let now = t0();
        let mut r = RunEnd::new(true, Some(Duration::from_secs(600)));
        r.user_sent();
        r.observe(now, Activity::Result);
        assert!(r.ended, "no state reported: the result ends the run");
        r.observe(now, Activity::State(CliState::RequiresAction));
        r.end_input();
        assert!(!r.may_close(false));
    }

    /// A background agent still in flight when the ceiling passes may still need stdin: the run
    /// stays open, and the wait between turns starts over once the agent settles.
    #[test]
    fn the_ceiling_spares_an_agent_in_flight_and_starts_over_when_it_settles() {
        let now = t0();
        let ceiling = Duration::from_secs(5);
        let mut r = RunEnd::new(true, Some(ceiling));
        r.user_sent();
        r.end_input();
        r.observe(now, Activity::AgentStarted("a1".into()));
        r.observe(now, Activity::State(CliState::Running));
        r.observe(now, Activity::Result);
        r.handle_timeout(now + ceiling);
        assert!(!r.may_close(false), "the agent is still in flight");
        assert_eq!(r.deadline(), None);
        let later = now + Duration::from_secs(60);
        r.observe(later, Activity::TaskFinished("a1".into()));
        assert_eq!(r.deadline(), Some(later + ceiling));
        r.handle_timeout(later + ceiling);
        assert!(r.may_close(false));
    }

    #[test]
    fn an_unknown_task_finishing_changes_nothing() {
        let now = t0();
        let mut r = RunEnd::new(true, Some(Duration::from_secs(5)));
        r.user_sent();
        r.observe(now, Activity::State(CliState::Running));
        r.observe(now, Activity::Result);
        let armed = r.deadline();
        r.observe(
            now + Duration::from_secs(1),
            Activity::TaskFinished("b1".into()),
        );
        assert_eq!(r.deadline(), armed);
    }

    #[test]
    fn without_callbacks_an_agent_in_flight_does_not_hold_the_result() {
        let now = t0();
        let mut r = RunEnd::new(false, Some(Duration::from_secs(5)));
        r.user_sent();
        r.end_input();
        r.observe(now, Activity::AgentStarted("a1".into()));
        r.observe(now, Activity::Result);
        assert!(
            r.may_close(false),
            "the CLI cannot call back, and waits for its agent itself"
        );
    }
}
