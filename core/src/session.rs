//! The sans-IO protocol state machine.
//!
//! A [`Session`] performs no I/O, reads no clock, spawns nothing and holds no callbacks. The host
//! feeds it what happened — bytes from the CLI's stdout ([`Session::handle_stdout`]), the end of
//! stdout, the process exit, the current time — and drains what to do: bytes for the CLI's stdin
//! ([`Session::poll_transmit`]), events for the user ([`Session::poll_event`]) and the next
//! deadline ([`Session::poll_timeout`]). The order in which the `poll_*` methods are called never
//! matters; call them until they return `None` after every input or command.
//!
//! ```
//! use std::time::Instant;
//! use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig, Transmit};
//! use claude_agent_tokio::message::UserInput;
//!
//! let now = Instant::now();
//! let mut session = Session::new(SessionConfig::new(InputMode::SingleTurn), now);
//! session.send_user(now, UserInput::text("hello")).unwrap();
//! // The initialize request and the prompt, ready for the CLI's stdin:
//! let Some(Transmit::Write(bytes)) = session.poll_transmit() else { panic!() };
//! assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 2);
//!
//! // What the CLI printed:
//! session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}"#);
//! session.handle_stdout(now, b"\n");
//! assert!(matches!(session.poll_event(), Some(Event::RequestDone { .. })));
//! ```

mod activity;
mod claim;
mod config;
mod error;
mod event;
mod framer;
mod given_up_requests;
mod held_events;
mod inbound;
mod initialize;
mod interrupts;
mod mirror;
mod mirror_queue;
mod own_requests;
mod ready;
mod run_end;
mod spend;
mod stall;
mod stopping;
mod store_sync;
mod version;
mod wire;

#[cfg(test)]
mod decision_tests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;

pub use config::{
    HookMatcherConfig, InputMode, Limits, SessionConfig, SettingsDelivered, Timeouts,
};
pub use error::{RequestError, RespondError, SendError, StartClaimError};
pub use event::{
    CloseCause, EndReason, Event, ExitStatusInfo, RequestFailure, ResultError, Signal,
    StartFailure, Termination, Transmit,
};
pub use mirror::TranscriptMirror;
pub use mirror_queue::{Append, AppendId, AppendOutcome, MirrorFailure, MirrorLimits, MirrorQueue};
pub use own_requests::OwnRequest;
pub use stall::{OnStall, StallWatch};
pub use version::{CliVersion, VersionCheck, SKIP_VERSION_CHECK_ENV};

use crate::control::{
    ClaimOption, ClaimOptions, ControlRequest, HookCallback, InboundId, InboundKind,
    InboundRequest, InitializeResponse, Reply, RequestId, ResponseBody, ThinkingDisplayChange,
    UserDialogRequest,
};
use crate::cost::{BudgetLevel, BudgetReport};
use crate::hooks::{HookInput, HookRef};
use crate::mcp::{
    self, ElicitationRequest, ElicitationResult, McpRoute, McpServerSpec, PromptGet, ResourceRead,
    ToolCall, ToolResult,
};
use crate::message::{
    peek_tags, ApiError, LineError, Message, RequestHead, SessionState, SystemMessage, UserInput,
};
use crate::option_types::mcp_config::McpServerConfig;
use crate::permission::PermissionRequest;
use crate::Json;
use claim::{ClaimState, Claiming};
use framer::{Frame, LineFramer};
use given_up_requests::GivenUp;
use held_events::WaitsFor;
use inbound::{Awaiting, InboundTable, Withdrawn};
use run_end::RunEnd;

/// Longest prefix of a bad line quoted in a [`LineError`].
const SNIPPET_BYTES: usize = 200;

/// The protocol state machine of one CLI process. See the [module docs](self).
///
/// One whole single-turn session, driven by hand (a runtime adapter does the same with a real
/// process and a clock):
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::message::{Message, UserInput};
/// use claude_agent_tokio::session::{Event, ExitStatusInfo, InputMode, Session, SessionConfig, Termination, Transmit};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::SingleTurn), now);
/// session.send_user(now, UserInput::text("hello there")).unwrap();
///
/// // 1. Write what the session has for the CLI's stdin: `initialize`, then the prompt.
/// let Some(Transmit::Write(stdin)) = session.poll_transmit() else { panic!("nothing to write") };
/// let stdin = String::from_utf8(stdin).unwrap();
/// assert!(stdin.starts_with(r#"{"type":"control_request","request_id":"req_0","request":{"subtype":"initialize""#));
/// assert!(stdin.trim_end().ends_with(r#""content":"hello there"},"parent_tool_use_id":null,"session_id":""}"#));
///
/// // 2. Feed what the CLI prints, in whatever chunks the pipe delivers (a real session, shortened).
/// let stdout = [
///     r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{"commands":[],"pid":3913,"claude_code_version":"2.1.330"}}}"#,
///     r#"{"type":"system","subtype":"init","cwd":"/tmp/ws","session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65","tools":["Bash","Read"],"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"default","uuid":"b1f5e0c2-5b1e-4a47-9d0f-3c2a1e9f7d10"}"#,
///     r#"{"type":"assistant","message":{"id":"msg_fake_1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"echo: hello there"}],"stop_reason":null},"parent_tool_use_id":null,"session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65","uuid":"70565fc4-6cce-40b8-adc7-42a6e28ebda1"}"#,
///     r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"echo: hello there","total_cost_usd":0.000188,"session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65"}"#,
/// ]
/// .join("\n")
///     + "\n";
/// for chunk in stdout.as_bytes().chunks(100) {
///     session.handle_stdout(now, chunk);
/// }
///
/// // 3. Drain the events.
/// let mut answer = None;
/// while let Some(event) = session.poll_event() {
///     match event {
///         Event::RequestDone { id, outcome } if id == session.initialize_id() => assert!(outcome.is_ok()),
///         // `initialize` answered: what a host waits for before its first message.
///         Event::Ready => {}
///         // The version the `initialize` answer gave, which this SDK supports.
///         Event::CliVersion(check) => assert!(check.is_supported()),
///         Event::Message(Message::Result(result)) => answer = result.result,
///         Event::Message(_) => {}
///         other => panic!("unexpected {other:?}"),
///     }
/// }
/// assert_eq!(answer.as_deref(), Some("echo: hello there"));
/// assert_eq!(session.server_info().unwrap().claude_code_version.as_deref(), Some("2.1.330"));
/// assert_eq!((session.pending_requests(), session.pending_inbound()), (0, 0)); // nothing waits
///
/// // 4. The turn is over: the session closes stdin, the CLI exits, and the session finishes.
/// assert_eq!(session.poll_transmit(), Some(Transmit::CloseStdin));
/// session.handle_stdout_eof(now);
/// session.handle_exit(now, ExitStatusInfo::code(0));
/// assert!(matches!(session.poll_event(), Some(Event::Finished(Termination::Completed))));
/// assert!(session.is_finished());
/// ```
#[derive(Debug)]
pub struct Session {
    config: SessionConfig,
    /// The idle watchdog, when [`SessionConfig::stall`] asks for one.
    stall: Option<stall::StallClock>,
    /// What the session has spent, and its budget.
    spend: spend::SpendTracker,
    /// A turn runs: from a prompt (or the CLI saying it runs) to a result (or the CLI saying
    /// it is idle). A flag, not a count: a prompt sent while a turn runs joins that turn. The
    /// stall watch and the interrupt watch read it.
    turn_running: bool,
    /// The interrupts sent, and how the turns they were sent into ended.
    interrupts: interrupts::InterruptWatch,
    /// The requests the session sent for itself (a resumed CLI's cost, the readiness wait, a
    /// stall's or budget's interrupt), answered without an event.
    own: own_requests::OwnRequests,
    /// The wait for the in-process servers before [`Event::Ready`], while it lasts.
    ready: Option<ready::ReadyWait>,
    /// [`Event::Ready`] was queued.
    ready_reported: bool,
    /// Why the session closed itself, when it did ([`Event::Closing`]).
    ended: Option<EndReason>,
    /// The host lost the session's place in its fleet ([`Session::place_lost`]): whatever
    /// ended the session, nothing more of the CLI's output reaches the application.
    lost_place: bool,
    /// Events held behind a result until the host has stored the transcript lines before it
    /// ([`SessionConfig::results_after_store`]) or charged its turn's cost
    /// ([`SessionConfig::results_after_charge`]).
    held_events: held_events::HeldEvents,
    /// Transcript frames queued, handed out, and stored as the host says.
    mirror_queued: u64,
    mirror_delivered: u64,
    mirror_stored: u64,
    /// How many frames must be stored before the held result goes out.
    store_needed: u64,
    /// What the session knows of the host's store queue from its last
    /// [`Session::sync_store`].
    store: store_sync::QueueSeen,
    framer: LineFramer,
    events: VecDeque<Event>,
    /// Bytes for stdin not yet handed out by `poll_transmit`.
    outgoing: Vec<u8>,
    /// User messages that wait for answers: to `initialize`, when the session depends on
    /// something the CLI must confirm there, and to a claim's settings overlay; `None` once they
    /// may be written.
    held: Option<Hold>,
    /// Where the session stands with respect to a claim (`--await-claim`).
    claim: ClaimState,
    /// The last start-up checkpoint the CLI reported.
    startup_mark: Option<String>,
    /// stdin is closed (or closing): nothing more is written.
    stdin_closed: bool,
    /// `Transmit::CloseStdin` has not been handed out yet.
    close_pending: bool,
    next_request: u64,
    pending: BTreeMap<RequestId, PendingRequest>,
    /// Requests that timed out or failed at a close or exit: a late answer to one is dropped.
    given_up: GivenUp,
    inbound: InboundTable,
    hook_refs: Vec<HookRef>,
    run_end: RunEnd,
    initialize_id: RequestId,
    /// The `initialize` request body, sent again for [`ControlRequest::Reinitialize`].
    initialize_body: String,
    server_info: Option<InitializeResponse>,
    /// A message has come from the CLI: with an answered `initialize`, what says the session
    /// started (a CLI that exits before either could not start it).
    heard_message: bool,
    /// The CLI's version is still to be checked ([`Event::CliVersion`]).
    version_unchecked: bool,
    /// Declared in-process MCP servers whose tools the CLI has not listed yet.
    unlisted_servers: Vec<String>,
    /// The last error `result`, while nothing has happened since that would make it stale.
    last_error_result: Option<ResultError>,
    /// The `error` of the last assistant message of the turn: a failed API call, for the
    /// turn's error result.
    last_api_error: Option<ApiError>,
    stdout_ended: bool,
    exit: Option<ExitStatusInfo>,
    /// Stopping the CLI process: its signals, and its pipes after the exit.
    stopping: stopping::Stopping,
    closed_by_host: bool,
    finished: bool,
}

/// User messages held until some requests are answered.
#[derive(Debug, Default)]
struct Hold {
    bytes: Vec<u8>,
    /// The requests still to be answered; the messages go out when none is left.
    waiting: Vec<RequestId>,
    /// One of them failed: the messages are dropped, and more are refused.
    failed: bool,
}

#[derive(Debug)]
struct PendingRequest {
    /// `None` when the timeout is too long for an `Instant` (`Duration::MAX`): it never expires.
    deadline: Option<Instant>,
    timeout: Duration,
}

impl Session {
    /// A session for a freshly spawned CLI. The `initialize` request is queued at once.
    pub fn new(config: SessionConfig, now: Instant) -> Session {
        let (init_body, hook_refs) = initialize::initialize_body(&config);
        let run_end = RunEnd::new(
            config.has_bidirectional_needs(),
            config.timeouts.run_end_ceiling,
        );
        let mut session = Session {
            framer: LineFramer::new(config.limits.max_line_bytes),
            events: VecDeque::new(),
            outgoing: Vec::with_capacity(4096),
            held: None,
            claim: if config.await_claim {
                ClaimState::Parked
            } else {
                ClaimState::NotSpare
            },
            startup_mark: None,
            stdin_closed: false,
            close_pending: false,
            next_request: 0,
            pending: BTreeMap::new(),
            given_up: GivenUp::default(),
            inbound: InboundTable::default(),
            hook_refs,
            run_end,
            initialize_id: RequestId::from_raw(0),
            initialize_body: String::new(),
            server_info: None,
            heard_message: false,
            version_unchecked: config.check_cli_version,
            unlisted_servers: config.mcp_servers.iter().map(|s| s.name.clone()).collect(),
            last_error_result: None,
            last_api_error: None,
            stdout_ended: false,
            exit: None,
            stopping: stopping::Stopping::new(),
            closed_by_host: false,
            finished: false,
            stall: config.stall.clone().map(stall::StallClock::new),
            spend: spend::SpendTracker::new(
                config.prices.clone(),
                config.budget,
                config.cost_carried_over,
                config.count_model_calls,
            ),
            own: own_requests::OwnRequests::default(),
            ready: None,
            ready_reported: false,
            ended: None,
            lost_place: false,
            held_events: held_events::HeldEvents::default(),
            mirror_queued: 0,
            mirror_delivered: 0,
            mirror_stored: 0,
            store: store_sync::QueueSeen::default(),
            store_needed: 0,
            turn_running: false,
            interrupts: interrupts::InterruptWatch::default(),
            config,
        };
        let timeout = session.config.timeouts.initialize;
        session.initialize_id = session.send_request(now, &init_body, timeout);
        session.initialize_body = init_body;
        if initialize::needs_confirmation(&session.config) {
            session.held = Some(Hold {
                waiting: vec![session.initialize_id],
                ..Hold::default()
            });
        }
        session
    }

    /// What the session has spent: the sum of its turns' costs ([`TurnCost`]) and tokens.
    ///
    /// [`TurnCost`]: crate::cost::TurnCost
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// session.handle_stdout(now, br#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s","total_cost_usd":0.25,"usage":{"input_tokens":900,"output_tokens":100}}"#);
    /// session.handle_stdout(now, b"\n");
    /// let spent = session.spent();
    /// assert_eq!((spent.usd, spent.tokens.total(), spent.turns), (0.25, 1000, 1));
    /// ```
    pub fn spent(&self) -> crate::cost::Spent {
        self.spend.spent()
    }

    /// The configuration the session was made with.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let session = Session::new(SessionConfig::new(InputMode::Streaming), Instant::now());
    /// assert_eq!(session.config().input, InputMode::Streaming);
    /// assert_eq!(session.config().limits.max_queued_events, 1024);
    /// ```
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    // ---- inputs -------------------------------------------------------------------------------

    /// Feed bytes read from the CLI's stdout, in any chunking. Never panics; bad lines become
    /// [`Event::LineError`]s and the session goes on.
    pub fn handle_stdout(&mut self, now: Instant, bytes: &[u8]) {
        if self.stdout_ended {
            return;
        }
        let mut framer = std::mem::replace(&mut self.framer, LineFramer::new(0));
        framer.feed(bytes, |frame| self.handle_frame(now, frame));
        self.framer = framer;
        self.maybe_close_stdin(now);
    }

    /// The CLI's stdout reached end of file: a last unterminated line is handled, and every pending
    /// request fails with [`CloseCause::StdoutClosed`].
    pub fn handle_stdout_eof(&mut self, now: Instant) {
        if self.stdout_ended {
            return;
        }
        let mut framer = std::mem::replace(&mut self.framer, LineFramer::new(0));
        framer.finish(|frame| self.handle_frame(now, frame));
        self.framer = framer;
        self.stdout_ended = true;
        self.stopping.stdout_ended(now);
        let cause = match self.exit {
            Some(status) => CloseCause::Exited(status),
            None => CloseCause::StdoutClosed,
        };
        self.fail_everything(now, cause);
        self.maybe_finish();
    }

    /// Reading the CLI's stdout failed (an I/O error, not its end of file): nothing more can be
    /// read, so the session ends itself. Stdin is closed, pending requests fail, and
    /// [`Event::Closing`] reports [`EndReason::StdoutFailed`] with `error`'s text, so that the
    /// host stops the CLI as after a close; the session then finishes with that reason, however
    /// the CLI exits. A last partial line is dropped.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{EndReason, Event, ExitStatusInfo, InputMode, Session, SessionConfig, Termination};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// session.handle_stdout_error(now, "Input/output error (os error 5)");
    /// session.handle_exit(now, ExitStatusInfo::code(0));
    /// let end = std::iter::from_fn(|| session.poll_event()).find_map(|event| match event {
    ///     Event::Finished(end) => Some(end),
    ///     _ => None,
    /// });
    /// assert!(matches!(end, Some(Termination::Ended(EndReason::StdoutFailed(_)))));
    /// ```
    pub fn handle_stdout_error(&mut self, now: Instant, error: impl Into<String>) {
        if self.stdout_ended {
            return;
        }
        self.stdout_ended = true;
        self.stopping.stdout_ended(now);
        self.framer = LineFramer::new(0);
        self.end(now, EndReason::StdoutFailed(error.into()));
        // Closed by the host already: what was pending failed then.
        self.fail_everything(now, CloseCause::StdoutClosed);
        self.maybe_finish();
    }

    /// The CLI process exited. Pending requests fail with [`CloseCause::Exited`]; once stdout has
    /// ended too, [`Event::Finished`] is queued.
    pub fn handle_exit(&mut self, now: Instant, status: ExitStatusInfo) {
        if self.exit.is_some() {
            return;
        }
        self.exit = Some(status);
        self.stopping.exited(now);
        self.stdin_closed = true;
        self.outgoing.clear();
        self.fail_everything(now, CloseCause::Exited(status));
        self.maybe_finish();
    }

    /// Time passed: expire overdue requests and the run-end ceiling. Call when
    /// `now >= poll_timeout()` (calling it early is harmless).
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use claude_agent_tokio::control::ControlRequest;
    /// use claude_agent_tokio::session::RequestFailure;
    /// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
    ///
    /// let start = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), start);
    /// let id = session.request(start, ControlRequest::McpStatus).unwrap();
    ///
    /// // The host sleeps until the next deadline (here: nothing ever answers), then reports the time.
    /// let deadline = session.poll_timeout().unwrap();
    /// assert_eq!(deadline, start + Duration::from_secs(60));
    /// session.handle_timeout(deadline);
    /// let timed_out = std::iter::from_fn(|| session.poll_event()).any(|event| {
    ///     matches!(event, Event::RequestDone { id: done, outcome: Err(RequestFailure::Timeout(_)) } if done == id)
    /// });
    /// assert!(timed_out);
    /// ```
    pub fn handle_timeout(&mut self, now: Instant) {
        // All taken out before any is reported: one timing out (`initialize`) can close the
        // session, and the others still report their own timeout.
        let overdue: Vec<(RequestId, Duration)> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline.is_some_and(|deadline| deadline <= now))
            .map(|(id, p)| (*id, p.timeout))
            .collect();
        for (id, _) in &overdue {
            self.pending.remove(id);
            self.given_up.insert(*id);
        }
        for (id, timeout) in overdue {
            self.request_done(now, id, Err(RequestFailure::Timeout(timeout)));
        }
        self.expire_inbound(now);
        if let Some(ceiling) = self.run_end.handle_timeout(now) {
            self.end(now, EndReason::BackgroundWaitPassed(ceiling));
        }
        let host_busy = !self.inbound.is_empty();
        let running = self.turn_running;
        if let Some(stall) = self
            .stall
            .as_mut()
            .and_then(|s| s.check(now, running, host_busy))
        {
            self.stalled(now, stall);
        }
        self.poll_ready(now);
        self.maybe_close_stdin(now);
        let due = self.stopping.handle_timeout(now, &self.config.timeouts);
        if due.stop {
            // Its stdout ended long ago and it runs on: nothing it writes can be read.
            if !self.stdin_closed {
                self.stdin_closed = true;
                self.close_pending = true;
            }
            self.stopping.begin(now, &self.config.timeouts);
        }
        if due.stdout_end {
            self.handle_stdout_eof(now);
        }
    }

    // ---- commands -----------------------------------------------------------------------------

    /// Queue a user message for the CLI. In [`InputMode::SingleTurn`] the first message also ends
    /// the input.
    ///
    /// When the session depends on something the CLI must confirm in its answer to `initialize`
    /// (a fail-closed hook, MCP servers sent in `initialize`), messages wait for that answer and
    /// are written only if it confirms; once `initialize` has failed, sending is refused with
    /// [`SendError::Closed`].
    pub fn send_user(&mut self, now: Instant, msg: UserInput) -> Result<(), SendError> {
        if self.finished || self.closed_by_host || self.ended.is_some() || self.exit.is_some() {
            return Err(SendError::Closed);
        }
        // Nothing the CLI would answer could be read any more.
        if self.stdout_ended {
            return Err(SendError::Closed);
        }
        if self.stdin_closed || self.run_end.input_ended() {
            return Err(SendError::InputEnded);
        }
        if matches!(self.claim, ClaimState::Parked) {
            return Err(SendError::NotClaimed);
        }
        let msg = if self.config.verbatim_prompts {
            msg.with_client_composed(true)
        } else {
            msg
        };
        match &mut self.held {
            // What the messages waited for failed.
            Some(held) if held.failed => return Err(SendError::Closed),
            Some(held) => held.bytes.extend_from_slice(&msg.to_json_line()),
            None => self.outgoing.extend_from_slice(&msg.to_json_line()),
        }
        // A message that starts no turn (`shouldQuery: false`) is answered with a result too
        // (of no turn), so it counts as any other.
        self.run_end.user_sent();
        self.turn_running = true;
        if let Some(stall) = &mut self.stall {
            stall.prompt_sent(now);
        }
        if self.config.input == InputMode::SingleTurn {
            self.run_end.end_input();
        }
        Ok(())
    }

    /// Queue `msg` as the last user message: it is sent as [`Session::send_user`] sends it, and
    /// the input ends with it, as [`Session::end_input`] ends it (whether the message could be
    /// sent or not). A session of one prompt whose mode could not say so when it was made (a
    /// spare claimed for a single question) takes its prompt this way;
    /// [`InputMode::SingleTurn`] does the same with the first message.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::message::UserInput;
    /// use claude_agent_tokio::session::{InputMode, SendError, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// session.send_last(now, UserInput::text("Summarise README.md")).unwrap();
    /// assert_eq!(session.send_user(now, UserInput::text("one more")), Err(SendError::InputEnded));
    /// ```
    pub fn send_last(&mut self, now: Instant, msg: UserInput) -> Result<(), SendError> {
        let sent = self.send_user(now, msg);
        self.end_input(now);
        sent
    }

    /// Claim a parked CLI ([`SessionConfig::await_claim`]) for a session: writes the settings
    /// overlay's keys that decide what the claim starts (if any), the `claim_session` request,
    /// then `set_model`, `set_max_thinking_tokens` and the overlay's other keys, in the order the
    /// CLI applies them before it reads the first message. User messages may be sent right after
    /// (they are refused before): they go out at once, or, when the claim has a settings overlay,
    /// once the CLI has accepted the overlay and the claim.
    ///
    /// The outcome comes back as one [`Event::Claimed`] once every request of the claim is
    /// answered (no [`Event::RequestDone`] for them): the claim's answer, with the options behind
    /// it that the CLI did not take, or its refusal. After a refusal the input ends: a message
    /// already written is answered with an error result, and the CLI then exits.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::control::ClaimOptions;
    /// use claude_agent_tokio::message::UserInput;
    /// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig, Transmit};
    ///
    /// let now = Instant::now();
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.await_claim = true;
    /// let mut session = Session::new(config, now);
    /// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}
    /// "#);
    /// // `initialize` answered, and the spare is parked, ready for its claim.
    /// assert_eq!(std::iter::from_fn(|| session.poll_event()).count(), 2); // `RequestDone`, `Ready`
    ///
    /// session.claim(now, &ClaimOptions::new("/srv/app").model("claude-haiku-9")).unwrap();
    /// session.send_user(now, UserInput::text("hello")).unwrap();
    /// let Some(Transmit::Write(bytes)) = session.poll_transmit() else { panic!() };
    /// let written = String::from_utf8(bytes).unwrap();
    /// assert!(written.contains(r#""subtype":"claim_session","cwd":"/srv/app""#));
    /// assert!(written.contains(r#""subtype":"set_model""#));
    ///
    /// // The CLI's answers (a real CLI's, shortened):
    /// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"status":"ok","cwd":"/srv/app","session_id":"18b620a1-95ad-4207-99b4-ce6500c5e5c2","parked_ms":841,"sdk_mcp_settled":true}}}
    /// {"type":"control_response","response":{"subtype":"success","request_id":"req_2","response":{"model":"claude-haiku-9"}}}
    /// "#);
    /// let Some(Event::Claimed(Ok(info))) = session.poll_event() else { panic!() };
    /// assert_eq!((info.cwd.as_deref(), info.parked_ms), (Some("/srv/app"), Some(841)));
    /// assert!(info.not_applied.is_empty());
    /// ```
    pub fn claim(
        &mut self,
        now: Instant,
        options: &ClaimOptions,
    ) -> Result<RequestId, StartClaimError> {
        match self.claim {
            ClaimState::NotSpare => return Err(StartClaimError::NotASpare),
            ClaimState::Claiming(_) | ClaimState::Done => {
                return Err(StartClaimError::AlreadyClaimed)
            }
            ClaimState::Parked => {}
        }
        if self.finished || self.closed_by_host || self.exit.is_some() || self.stdin_closed {
            return Err(StartClaimError::Closed);
        }
        let timeout = self.config.timeouts.control_request;
        let overlay = |settings: serde_json::Map<String, serde_json::Value>| {
            let settings = Json::from_serialize(&settings).expect("a JSON map always serializes");
            ControlRequest::ApplyFlagSettings { settings }.body_json()
        };
        let (before, after) = options.split_settings();
        let settings_before = before.map(|s| self.send_request(now, &overlay(s), timeout));
        let servers: Vec<String> = self
            .config
            .mcp_servers
            .iter()
            .map(|s| s.name.clone())
            .collect();
        let claim = self.send_request(now, &options.claim_body(&servers), timeout);
        let mut following = Vec::new();
        if let Some(model) = &options.model {
            let request = ControlRequest::SetModel {
                model: Some(model.clone()),
            };
            let id = self.send_request(now, &request.body_json(), timeout);
            following.push((ClaimOption::Model, id));
        }
        if let Some(tokens) = options.max_thinking_tokens {
            let request = ControlRequest::SetMaxThinkingTokens {
                max_thinking_tokens: tokens,
                thinking_display: ThinkingDisplayChange::Keep,
            };
            let id = self.send_request(now, &request.body_json(), timeout);
            following.push((ClaimOption::MaxThinkingTokens, id));
        }
        let settings_after = after.map(|s| self.send_request(now, &overlay(s), timeout));
        if options.settings.is_some() {
            let hold = self.held.get_or_insert_with(Hold::default);
            hold.waiting.push(claim);
            hold.waiting.extend(settings_before);
            hold.waiting.extend(settings_after);
        }
        self.claim = ClaimState::Claiming(Box::new(Claiming::new(
            claim,
            settings_before,
            settings_after,
            following,
        )));
        Ok(claim)
    }

    /// Send a control request. Its outcome comes back as [`Event::RequestDone`] with the returned
    /// id: the CLI's answer, its refusal, a timeout after [`Timeouts::control_request`]
    /// ([`Timeouts::initialize`] for [`ControlRequest::Reinitialize`], which sends the session's
    /// `initialize` request again), or the end of the session. Exactly one `RequestDone` comes for each id: an answer the CLI sends after
    /// a timeout or the end is dropped.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::control::ControlRequest;
    /// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// let id = session.request(now, ControlRequest::SetModel { model: Some("claude-haiku-9".into()) }).unwrap();
    /// assert_eq!(session.pending_requests(), 2); // `initialize` and this one
    ///
    /// // A real CLI's answer:
    /// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"model":"claude-haiku-9"}}}
    /// "#);
    /// let Some(Event::RequestDone { id: done, outcome }) = session.poll_event() else { panic!("no answer") };
    /// assert_eq!(done, id);
    /// let body: serde_json::Value = outcome.unwrap().parse().unwrap();
    /// assert_eq!(body["model"], "claude-haiku-9");
    /// ```
    pub fn request(
        &mut self,
        now: Instant,
        req: ControlRequest,
    ) -> Result<RequestId, RequestError> {
        if self.finished || self.closed_by_host || self.exit.is_some() {
            return Err(RequestError::Closed);
        }
        if self.stdin_closed {
            return Err(RequestError::InputClosed);
        }
        if self.pending.len() >= self.config.limits.max_pending_requests {
            return Err(RequestError::TooManyPending(self.pending.len()));
        }
        if let ControlRequest::Reinitialize = req {
            let body = std::mem::take(&mut self.initialize_body);
            let id = self.send_request(now, &body, self.config.timeouts.initialize);
            self.initialize_body = body;
            return Ok(id);
        }
        let timeout = self.config.timeouts.control_request;
        let id = self.send_request(now, &req.body_json(), timeout);
        if matches!(
            req,
            ControlRequest::Interrupt | ControlRequest::InterruptAndCancelQueued
        ) {
            self.interrupts.sent(id, self.turn_running);
        }
        Ok(id)
    }

    /// Replace the MCP servers added after the CLI started, in-process ones included: sends
    /// `mcp_set_servers`, whose outcome comes back as [`Event::RequestDone`] with the returned id
    /// (an answer that parses as [`crate::control::McpSetServersResult`]).
    ///
    /// `sdk` are the in-process servers the session answers for from now on, those of the
    /// [`SessionConfig`] included: one it serves already under the same name stays as it is (the
    /// CLI keeps its connection to it), a new one is served at once (the CLI connects it right
    /// away, over `mcp_message`), and one left out is no longer served (the CLI drops it).
    /// `external` are servers the CLI starts or connects to itself. [`Session::config`] then
    /// lists the served in-process servers in `mcp_servers`.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::mcp::McpServerSpec;
    /// use claude_agent_tokio::options::McpServerConfig;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig, Transmit};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// let _initialize = session.poll_transmit();
    /// let docs = ("docs".to_owned(), McpServerConfig::http("https://mcp.example.com/mcp"));
    /// session.set_mcp_servers(now, vec![McpServerSpec::new("calc", "1.0.0")], &[docs]).unwrap();
    /// let Some(Transmit::Write(line)) = session.poll_transmit() else { unreachable!() };
    /// assert!(String::from_utf8(line).unwrap().contains(
    ///     r#""servers":{"docs":{"type":"http","url":"https://mcp.example.com/mcp"},"calc":{"type":"sdk","name":"calc"}}"#
    /// ));
    /// assert_eq!(session.config().mcp_servers[0].name, "calc");
    /// ```
    pub fn set_mcp_servers(
        &mut self,
        now: Instant,
        sdk: Vec<McpServerSpec>,
        external: &[(String, McpServerConfig)],
    ) -> Result<RequestId, RequestError> {
        let mut served: Vec<McpServerSpec> = Vec::with_capacity(sdk.len());
        for server in sdk {
            if served.iter().any(|s| s.name == server.name) {
                continue;
            }
            let kept = self
                .config
                .mcp_servers
                .iter()
                .find(|s| s.name == server.name);
            served.push(kept.cloned().unwrap_or(server));
        }
        let servers = wire::SetServers {
            external,
            sdk: &served,
        };
        let servers =
            Json::from_serialize(&servers).expect("server configurations always serialize");
        let id = self.request(now, ControlRequest::McpSetServers { servers })?;
        if !served.is_empty() {
            self.run_end.expect_callbacks();
        }
        self.config.mcp_servers = served;
        Ok(id)
    }

    /// Answer an inbound request ([`Event::Inbound`]). The reply must fit the request: a
    /// [`Reply::Permission`] for `CanUseTool`, [`Reply::Hook`] for `HookCallback`,
    /// [`Reply::ToolResult`] for `McpToolCall`, [`Reply::Resource`] for `McpResourceRead`,
    /// [`Reply::Prompt`] for `McpPromptGet`, [`Reply::Elicitation`] for `Elicitation`,
    /// [`Reply::UserDialog`] for `UserDialog`; [`Reply::Error`] and [`Reply::Raw`] fit any.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::control::{InboundKind, Reply};
    /// use claude_agent_tokio::permission::PermissionResult;
    /// use claude_agent_tokio::session::{Event, InputMode, RespondError, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.can_use_tool = true;
    /// let mut session = Session::new(config, now);
    /// session.handle_stdout(now, br#"{"type":"control_request","request_id":"adc7bdd8-dc59-4636-8436-ff54812be869","request":{"subtype":"can_use_tool","tool_name":"mcp__calc__add","display_name":"Add","input":{"a":2,"b":40},"tool_use_id":"toolu_fake_6_0"}}
    /// "#);
    /// let Some(Event::Inbound(request)) = session.poll_event() else { panic!("no request") };
    /// assert!(matches!(request.kind, InboundKind::CanUseTool(_)));
    /// assert_eq!(session.pending_inbound(), 1);
    ///
    /// session.respond(now, request.id, Reply::Permission(PermissionResult::allow())).unwrap();
    /// assert_eq!(session.pending_inbound(), 0);
    /// // Each request is answered once.
    /// let again = session.respond(now, request.id, Reply::Permission(PermissionResult::allow()));
    /// assert_eq!(again, Err(RespondError::UnknownId));
    /// ```
    pub fn respond(
        &mut self,
        now: Instant,
        id: InboundId,
        reply: Reply,
    ) -> Result<(), RespondError> {
        let Some(awaiting) = self.inbound.get(id) else {
            return Err(match self.inbound.withdrawn(id) {
                Some(Withdrawn::Cancelled) => RespondError::Cancelled,
                Some(Withdrawn::Expired) => RespondError::Expired,
                None => RespondError::UnknownId,
            });
        };
        if !reply_fits(awaiting, &reply) {
            return Err(RespondError::WrongKind {
                reply: reply_name(&reply),
                request: awaiting.name(),
            });
        }
        let Some(entry) = self.inbound.take(id) else {
            return Err(RespondError::UnknownId);
        };
        if self.stdin_closed {
            return Err(RespondError::InputClosed);
        }
        self.write_answer(&entry, reply);
        self.maybe_close_stdin(now);
        Ok(())
    }

    /// Write the answer to an inbound request; `reply` fits it ([`reply_fits`]).
    fn write_answer(&mut self, entry: &inbound::Entry, reply: Reply) {
        let wire_id = entry.wire_id.as_str();
        match (&entry.awaiting, reply) {
            (_, Reply::Raw(body)) => {
                wire::write_success(&mut self.outgoing, wire_id, body.as_str())
            }
            (
                Awaiting::McpTool(ToolCall { jsonrpc_id, .. })
                | Awaiting::McpResource(_, jsonrpc_id)
                | Awaiting::McpPrompt(_, jsonrpc_id),
                Reply::Error { message, .. },
            ) => {
                // A failing in-process server answers with a JSON-RPC error inside a successful
                // control response (as the Python SDK does), not with a control error.
                let error = serde_json::json!({"jsonrpc": "2.0", "id": jsonrpc_id,
                    "error": {"code": -32603, "message": message}});
                let error = Json::from_serialize(&error).expect("a JSON value always serializes");
                write_mcp_response(&mut self.outgoing, wire_id, error.as_raw());
            }
            (_, Reply::Error { message, code }) => {
                wire::write_error(&mut self.outgoing, wire_id, &message, code.as_deref());
            }
            (Awaiting::Permission { original_input }, Reply::Permission(result)) => {
                wire::write_success(
                    &mut self.outgoing,
                    wire_id,
                    &result.to_wire_json(original_input),
                );
            }
            (Awaiting::Hook, Reply::Hook(output)) => {
                wire::write_success(&mut self.outgoing, wire_id, &output.to_wire_json());
            }
            (Awaiting::McpTool(call), Reply::ToolResult(result)) => {
                write_mcp_response(&mut self.outgoing, wire_id, call.response(&result).as_raw());
            }
            (Awaiting::McpResource(_, id), Reply::Resource(result)) => {
                write_mcp_response(
                    &mut self.outgoing,
                    wire_id,
                    mcp::result(id.as_raw(), &result).as_raw(),
                );
            }
            (Awaiting::McpPrompt(_, id), Reply::Prompt(result)) => {
                write_mcp_response(
                    &mut self.outgoing,
                    wire_id,
                    mcp::result(id.as_raw(), &result).as_raw(),
                );
            }
            (Awaiting::Elicitation, Reply::Elicitation(result)) => {
                let body =
                    serde_json::to_string(&result).expect("elicitation results always serialize");
                wire::write_success(&mut self.outgoing, wire_id, &body);
            }
            (Awaiting::UserDialog, Reply::UserDialog(result)) => {
                let body = serde_json::to_string(&result).expect("dialog results always serialize");
                wire::write_success(&mut self.outgoing, wire_id, &body);
            }
            _ => unreachable!("reply_fits checked the pairing"),
        }
    }

    /// No more user messages: stdin is closed as soon as the current run has ended and no
    /// request of the CLI waits for an answer, or at once if nothing was ever sent. The run ends at
    /// a `result` when the CLI cannot call the host back; otherwise once the CLI is idle with no
    /// background task in flight, or when [`Timeouts::run_end_ceiling`] passes.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::message::UserInput;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig, Transmit};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}
    /// "#);
    /// session.send_user(now, UserInput::text("Summarise README.md")).unwrap();
    /// session.end_input(now); // no more prompts after this one
    /// assert!(matches!(session.poll_transmit(), Some(Transmit::Write(_))));
    /// assert_eq!(session.poll_transmit(), None); // stdin stays open while the turn runs
    ///
    /// session.handle_stdout(now, br#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"A Rust SDK for Claude Code.","session_id":"s"}
    /// "#);
    /// assert_eq!(session.poll_transmit(), Some(Transmit::CloseStdin));
    /// ```
    pub fn end_input(&mut self, now: Instant) {
        let _ = now;
        self.run_end.end_input();
        self.maybe_close_stdin(now);
    }

    /// Stop now: close stdin at once, fail every pending request with
    /// [`CloseCause::ClosedByHost`] and withdraw every inbound request. The CLI then gets
    /// [`Timeouts::exit_after_stdin_closed`] to exit before the session asks for `SIGTERM`, and
    /// [`Timeouts::exit_after_terminate`] more before `SIGKILL` ([`Transmit::Signal`], at its
    /// deadlines: [`Session::poll_timeout`]); the host still reports the exit.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::control::ControlRequest;
    /// use claude_agent_tokio::session::RequestFailure;
    /// use claude_agent_tokio::session::{CloseCause, Event, ExitStatusInfo, InputMode, Session, SessionConfig, Termination, Transmit};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// let _ = session.poll_transmit(); // `initialize`, written
    /// session.close(now);
    /// assert_eq!(session.poll_transmit(), Some(Transmit::CloseStdin));
    /// let failed = session.poll_event();
    /// assert!(matches!(failed, Some(Event::RequestDone { outcome: Err(RequestFailure::Closed(CloseCause::ClosedByHost)), .. })));
    /// assert!(session.request(now, ControlRequest::Interrupt).is_err());
    ///
    /// // The host still reports how the process ended.
    /// session.handle_stdout_eof(now);
    /// session.handle_exit(now, ExitStatusInfo::signal(15));
    /// assert!(matches!(session.poll_event(), Some(Event::Finished(Termination::ClosedByHost))));
    /// ```
    pub fn close(&mut self, now: Instant) {
        if self.closed_by_host || self.ended.is_some() {
            return;
        }
        self.closed_by_host = true;
        self.shut(now, CloseCause::ClosedByHost);
    }

    /// The host's report on a budget it keeps (a fleet key's, say): nearly spent
    /// ([`BudgetLevel::Warning`]), it comes back as an [`Event::Budget`] in its place among the
    /// events, for the host to show; exceeded, the session interrupts the running turn and
    /// closes, as when its own budget is ([`Event::Closing`] with [`EndReason::OverBudget`]).
    /// Ignored once the session is closing or finished.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, Spent};
    /// use claude_agent_tokio::session::{EndReason, Event, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// let _ = session.poll_transmit(); // `initialize`
    /// let mut report = BudgetReport {
    ///     scope: BudgetScope::Key("tenant-42".into()),
    ///     level: BudgetLevel::Warning,
    ///     budget: Budget::usd(5.0),
    ///     spent: Spent::default(),
    /// };
    /// session.budget_report(now, report.clone());
    /// assert!(matches!(session.poll_event(), Some(Event::Budget(r)) if r.level == BudgetLevel::Warning));
    ///
    /// report.level = BudgetLevel::Exceeded;
    /// session.budget_report(now, report);
    /// assert!(std::iter::from_fn(|| session.poll_event()).any(|e| matches!(e, Event::Closing(EndReason::OverBudget(_)))));
    /// ```
    pub fn budget_report(&mut self, now: Instant, report: BudgetReport) {
        if self.closed_by_host || self.ended.is_some() || self.finished {
            return;
        }
        self.budget_crossed(now, report);
    }

    /// The host's report that a budget it keeps is exceeded, whatever its level says: the
    /// session interrupts the running turn and closes. [`Session::budget_report`] reads the
    /// level, and takes a warning too.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, Spent};
    /// use claude_agent_tokio::session::{EndReason, Event, InputMode, Session, SessionConfig, Transmit};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// let _ = session.poll_transmit(); // `initialize`
    /// let report = BudgetReport {
    ///     scope: BudgetScope::Key("tenant-42".into()),
    ///     level: BudgetLevel::Exceeded,
    ///     budget: Budget::usd(5.0),
    ///     spent: Spent::default(),
    /// };
    /// # #[allow(deprecated)]
    /// session.over_budget(now, report);
    /// assert!(std::iter::from_fn(|| session.poll_event()).any(|e| matches!(e, Event::Closing(EndReason::OverBudget(_)))));
    /// ```
    #[deprecated(
        since = "0.1.1",
        note = "use `Session::budget_report`, which decides by the report's level"
    )]
    pub fn over_budget(&mut self, now: Instant, report: BudgetReport) {
        self.interrupt_and_end(now, EndReason::OverBudget(Box::new(report)));
    }

    /// The host's report that it lost the session's place in a fleet many hosts share (its
    /// lease ran out while it was cut off or frozen, or another host took the session over):
    /// the session interrupts the running turn and closes ([`Event::Closing`] with
    /// [`EndReason::PlaceLost`]), so that it runs on one host only. A session already closing
    /// (closed by the host, or ending for another reason such as a budget) keeps its reason.
    ///
    /// Either way, from then on nothing more of the CLI's output reaches the host's application,
    /// not even a message already queued that the host has not taken: a lost place outranks
    /// every other end. Another
    /// host may hold the session, and its transcript goes on there, without what this host
    /// did not store. Messages held for the store ([`SessionConfig::results_after_store`]) are
    /// dropped, as are the messages the CLI prints while it stops; the cost of a turn whose
    /// result is dropped so still comes, as [`Event::UnfinishedTurn`], for its key.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{EndReason, Event, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// let _ = session.poll_transmit(); // `initialize`
    /// session.place_lost(now);
    /// assert!(std::iter::from_fn(|| session.poll_event()).any(|e| e == Event::Closing(EndReason::PlaceLost)));
    /// ```
    pub fn place_lost(&mut self, now: Instant) {
        if self.lost_place {
            return;
        }
        self.lost_place = true;
        // What the host has not taken yet is withheld as what comes after: events held for the
        // store or a charge, and those queued, which may wait behind a request while the host
        // has as many as it may take. A result held for its charge is dropped first: its cost
        // is the host's already ([`Event::Charge`]), not an unfinished turn's.
        let (waited_for, mut held) = self.held_events.release();
        let charged_result = waited_for == Some(WaitsFor::Charge) && held.pop_front().is_some();
        let queued = std::mem::take(&mut self.events);
        let withheld = charged_result
            || held
                .iter()
                .chain(&queued)
                .any(|event| matches!(event, Event::Message(_)));
        for event in queued.into_iter().chain(held) {
            self.pass_after_loss(event, withheld);
        }
        // After them, so that a request the end withdraws is found among them, unseen.
        self.interrupt_and_end(now, EndReason::PlaceLost);
    }

    /// The host lets the session go before its CLI exited (its task is cancelled, its runtime
    /// shuts down): it kills the CLI, and reads and writes nothing more. The session ends at once
    /// as a CLI killed with `SIGKILL` would end it, and nothing it holds reaches anyone: results
    /// held for the store or a charge are dropped, as after a lost place
    /// ([`Session::place_lost`]). What is left to take is for the host's books: each turn the
    /// session counted and has not handed the host yet comes as [`Event::Charge`] (answer it
    /// with [`Session::turn_charged`], as ever) or as [`Event::UnfinishedTurn`].
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::message::UserInput;
    /// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// session.send_user(now, UserInput::text("hello"))?;
    /// // The host kills the CLI and drops everything else it had for the session.
    /// session.abandon(now);
    /// assert!(session.is_finished());
    /// while let Some(event) = session.poll_event() {
    ///     match event {
    ///         Event::Charge(_cost) => session.turn_charged(),
    ///         Event::UnfinishedTurn(_cost) => {} // count it against the key's budget
    ///         _ => {}
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn abandon(&mut self, now: Instant) {
        self.handle_stdout_eof(now);
        self.handle_exit(now, ExitStatusInfo::signal(9));
        self.place_lost(now);
    }

    /// An event the host had not taken when the place was lost: a message is withheld
    /// ([`Session::deliver`]), a transcript frame and a store failure dropped (the store is
    /// another host's now).
    fn pass_after_loss(&mut self, event: Event, withheld: bool) {
        match event {
            Event::Message(message) => self.deliver(message),
            Event::Mirror(_) | Event::StoreFailed(_) => {}
            // The CLI had finished, as if everything would go out: what is withheld makes the
            // end the loss.
            Event::Finished(Termination::Completed) if withheld => {
                self.push_event(Event::Finished(Termination::Ended(EndReason::PlaceLost)))
            }
            other => self.push_event(other),
        }
    }

    /// The reason the session is closing itself, once it decided to ([`Event::Closing`]): a
    /// host whose application is behind on the events can still stop the CLI at once.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{EndReason, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// assert_eq!(session.ending(), None);
    /// session.place_lost(now);
    /// assert_eq!(session.ending(), Some(&EndReason::PlaceLost));
    /// ```
    pub fn ending(&self) -> Option<&EndReason> {
        self.ended.as_ref()
    }

    /// Close stdin, and fail or withdraw everything pending with `cause`.
    fn shut(&mut self, now: Instant, cause: CloseCause) {
        self.run_end.end_input();
        self.ready = None;
        if !self.stdin_closed {
            self.stdin_closed = true;
            self.close_pending = true;
        }
        self.stopping.begin(now, &self.config.timeouts);
        self.fail_everything(now, cause);
    }

    /// The session closes itself for `reason` ([`Event::Closing`]).
    fn end(&mut self, now: Instant, reason: EndReason) {
        if self.closed_by_host || self.ended.is_some() || self.finished {
            return;
        }
        self.ended = Some(reason.clone());
        self.shut(now, CloseCause::Ended);
        self.push_event(Event::Closing(reason));
    }

    /// [`Session::end`], after interrupting the running turn: the interrupt goes out before
    /// stdin closes, so the CLI stops the turn's work.
    fn interrupt_and_end(&mut self, now: Instant, reason: EndReason) {
        if self.closed_by_host || self.ended.is_some() || self.finished {
            return;
        }
        self.own_request(now, ControlRequest::Interrupt, OwnRequest::Interrupt);
        self.end(now, reason);
    }

    /// A stall: reported, and as the watch says, the turn interrupted, or the session closed.
    fn stalled(&mut self, now: Instant, stall: crate::message::Stall) {
        let then = self
            .config
            .stall
            .as_ref()
            .map_or(OnStall::Report, |w| w.then);
        match then {
            OnStall::InterruptThenClose => self.interrupt_and_end(now, EndReason::Stalled(stall)),
            OnStall::Interrupt => {
                self.own_request(now, ControlRequest::Interrupt, OwnRequest::Interrupt);
                self.push_event(Event::Stalled(stall));
            }
            _ => self.push_event(Event::Stalled(stall)),
        }
    }

    /// A budget crossed: a warning is an event; exceeded, the turn is interrupted and the
    /// session closed.
    fn budget_crossed(&mut self, now: Instant, report: BudgetReport) {
        if report.level >= BudgetLevel::Exceeded {
            self.interrupt_and_end(now, EndReason::OverBudget(Box::new(report)));
        } else {
            self.push_event(Event::Budget(Box::new(report)));
        }
    }

    /// Send `request` for the session itself, as `own`; its answer is taken by
    /// [`Session::own_done`].
    fn own_request(
        &mut self,
        now: Instant,
        request: ControlRequest,
        own: OwnRequest,
    ) -> Option<RequestId> {
        let id = self.request(now, request).ok()?;
        self.own.add(id, own);
        self.push_event(Event::OwnRequestSent { id, request: own });
        Some(id)
    }

    /// The answer to one of the session's own requests.
    fn own_done(
        &mut self,
        now: Instant,
        id: RequestId,
        request: OwnRequest,
        outcome: Result<ResponseBody, RequestFailure>,
    ) {
        match request {
            // Failed, the first turn's CLI figure stays unknown.
            OwnRequest::CarriedOverCost => {
                if let Ok(body) = &outcome {
                    self.spend.baseline(body);
                }
            }
            OwnRequest::ServersReady => {
                let Some(wait) = self.ready.as_mut() else {
                    return;
                };
                if wait.is_question(id) && wait.answered(now, outcome) {
                    self.report_ready();
                }
            }
            // The interrupt's answer needs nobody: the turn's result says how it ended.
            OwnRequest::Interrupt => {}
        }
    }

    /// `initialize` was answered: ready now, or once the in-process servers are connected.
    fn start_ready_wait(&mut self, now: Instant) {
        if !self.config.ready_after_servers || self.config.mcp_servers.is_empty() {
            return self.report_ready();
        }
        let servers = self
            .config
            .mcp_servers
            .iter()
            .map(|s| s.name.clone())
            .collect();
        let bound = ready::BOUND.min(self.config.timeouts.initialize);
        self.ready = Some(ready::ReadyWait::new(servers, now, bound));
        self.poll_ready(now);
    }

    /// Move the readiness wait on: ask `mcp_status` when it is time, or give up at its bound.
    fn poll_ready(&mut self, now: Instant) {
        let listed = self.unlisted_servers.is_empty();
        let Some(wait) = self.ready.as_mut() else {
            return;
        };
        match wait.poll(now, listed) {
            ready::ReadyStep::Wait => {}
            ready::ReadyStep::Ready => self.report_ready(),
            ready::ReadyStep::Ask => {
                match self.own_request(now, ControlRequest::McpStatus, OwnRequest::ServersReady) {
                    Some(id) => {
                        if let Some(wait) = self.ready.as_mut() {
                            wait.asked(id);
                        }
                    }
                    None => self.report_ready(),
                }
            }
        }
    }

    fn report_ready(&mut self) {
        self.ready = None;
        let over = self.closed_by_host || self.ended.is_some() || self.exit.is_some();
        if !self.ready_reported && !over && !self.stdout_ended {
            self.ready_reported = true;
            self.push_event(Event::Ready);
        }
    }

    // ---- outputs ------------------------------------------------------------------------------

    /// Next thing to do with the CLI process: bytes to write to its stdin (whole `\n`-terminated
    /// JSON lines, coalesced), once `CloseStdin`, and while the session stops the CLI, the
    /// signals to send it and the moment to let its pipes go. Call after every input, command and
    /// timeout until `None`.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        if !self.outgoing.is_empty() {
            let bytes = std::mem::replace(&mut self.outgoing, Vec::with_capacity(4096));
            return Some(Transmit::Write(bytes));
        }
        if self.close_pending {
            self.close_pending = false;
            return Some(Transmit::CloseStdin);
        }
        self.stopping.poll_transmit()
    }

    /// Next event, each handed out exactly once. Call after every input or command until `None`.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        if (self.store.saturated() && !self.lost_place)
            || (self.finished
                && matches!(self.events.front(), Some(Event::Finished(_)))
                && self.end_waits_for_store())
        {
            return None;
        }
        if let Some(Event::Inbound(request)) = self.events.front() {
            // Past the limit, the next request (and all after it) waits for an answer, or for
            // the withdrawal of one the host has: that goes ahead of the waiting ones, and of a
            // result held behind them (for its charge, which the host cannot take before them).
            if self.inbound.waits_to_be_handed_out(request.id)
                && self.inbound.handed_out() >= self.config.limits.max_inbound_in_flight.max(1)
            {
                let inbound = &self.inbound;
                let untold = |event: &Event| matches!(event, Event::Cancelled(id) | Event::Expired(id) if inbound.withdrawal_untold(*id));
                let event = match self.events.iter().position(untold) {
                    Some(at) => self.events.remove(at),
                    None => self.held_events.take(untold),
                }?;
                if let Event::Cancelled(id) | Event::Expired(id) = &event {
                    self.inbound.withdrawal_told(*id);
                }
                return Some(event);
            }
        }
        let event = self.events.pop_front()?;
        match &event {
            Event::Mirror(_) => self.mirror_delivered += 1,
            Event::Inbound(request) => self.inbound.hand_out(request.id),
            Event::Cancelled(id) | Event::Expired(id) => self.inbound.withdrawal_told(*id),
            _ => {}
        }
        Some(event)
    }

    /// When [`Session::handle_timeout`] must be called next, if ever.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// // The `initialize` request is pending: its deadline is the next one.
    /// let next = session.poll_timeout();
    /// assert_eq!(next, Some(now + session.config().timeouts.initialize));
    ///
    /// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}
    /// "#);
    /// assert_eq!(session.poll_timeout(), None); // nothing to wait for: sleep until there is input
    /// ```
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        let request = self.pending.values().filter_map(|p| p.deadline).min();
        let stall = self
            .stall
            .as_ref()
            .and_then(|s| s.deadline(self.turn_running, !self.inbound.is_empty()));
        let ready = self.ready.as_ref().map(ready::ReadyWait::next_deadline);
        let stopping = self.stopping.deadline(&self.config.timeouts);
        let inbound = self.inbound.next_deadline();
        [
            request,
            self.run_end.deadline(),
            stall,
            ready,
            stopping,
            inbound,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Whether the host should read more stdout. False while the event queue is full
    /// ([`Limits::max_queued_events`]) — drain events first; events held behind a result
    /// that waits for the store count too ([`Session::store_flushed`]) — and after stdout ended.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.limits.max_queued_events = 2;
    /// let mut session = Session::new(config, now);
    /// let status = br#"{"type":"system","subtype":"status","status":"requesting","session_id":"s"}
    /// "#;
    /// session.handle_stdout(now, status);
    /// session.handle_stdout(now, status);
    /// assert!(!session.wants_read()); // two events wait: stop reading the pipe for now
    /// while session.poll_event().is_some() {}
    /// assert!(session.wants_read());
    /// ```
    #[must_use]
    pub fn wants_read(&self) -> bool {
        !self.stdout_ended
            && self.events.len() + self.held_events.len() < self.config.limits.max_queued_events
    }

    /// The id of the `initialize` request sent at construction.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"error","request_id":"req_0","error":"Invalid hook configuration"}}
    /// "#);
    /// let Some(Event::RequestDone { id, outcome }) = session.poll_event() else { panic!("no answer") };
    /// if id == session.initialize_id() {
    ///     // The CLI refused `initialize`: the session cannot go on.
    ///     assert!(outcome.is_err());
    /// }
    /// ```
    pub fn initialize_id(&self) -> RequestId {
        self.initialize_id
    }

    /// The CLI's answer to `initialize`, once it came.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// assert!(session.server_info().is_none());
    /// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{"models":[{"value":"default","resolvedModel":"claude-opus-5-5","displayName":"Default (recommended)"}],"pid":3913,"claude_code_version":"2.1.330"}}}
    /// "#);
    /// let info = session.server_info().unwrap();
    /// assert_eq!((info.pid, info.models[0].value.as_str()), (Some(3913), "default"));
    /// ```
    pub fn server_info(&self) -> Option<&InitializeResponse> {
        self.server_info.as_ref()
    }

    /// Whether the CLI has connected every declared in-process MCP server, as far as the SDK can
    /// see: it asked each one for its tools (`tools/list`), the last step of its handshake. The
    /// CLI 2.1.330 does that shortly after it answers `initialize`; until then `mcp_status`
    /// does not list them. `true` when no in-process server is declared.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::mcp::McpServerSpec;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.mcp_servers.push(McpServerSpec::new("calc", "1.0.0"));
    /// let now = Instant::now();
    /// let mut session = Session::new(config, now);
    /// assert!(!session.sdk_servers_listed());
    /// session.handle_stdout(now, br#"{"type":"control_request","request_id":"m1","request":{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}}
    /// "#);
    /// assert!(session.sdk_servers_listed());
    /// ```
    pub fn sdk_servers_listed(&self) -> bool {
        self.unlisted_servers.is_empty()
    }

    /// The last start-up checkpoint the CLI reported ([`Event::StartupMark`]), if any: where a
    /// CLI that is slow to answer `initialize` is.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// session.handle_stdout(now, br#"{"type":"keep_alive","startup_mark":"before_connectMcp"}
    /// "#);
    /// assert_eq!(session.startup_mark(), Some("before_connectMcp"));
    /// ```
    pub fn startup_mark(&self) -> Option<&str> {
        self.startup_mark.as_deref()
    }

    /// Whether the CLI is a spare that waits for its claim ([`Session::claim`]).
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.await_claim = true;
    /// assert!(Session::new(config, Instant::now()).is_parked());
    /// ```
    pub fn is_parked(&self) -> bool {
        matches!(self.claim, ClaimState::Parked)
    }

    /// A turn runs: from a prompt sent (or the CLI saying it runs) to its result (or the CLI
    /// saying it is idle). A host that keeps sessions where others can take them over records
    /// it, so that a turn cut off with its host is reported, not lost without a word.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::UserInput;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// assert!(!session.turn_running());
    /// session.send_user(now, UserInput::text("hello")).unwrap();
    /// assert!(session.turn_running());
    /// ```
    pub fn turn_running(&self) -> bool {
        self.turn_running
    }

    /// Whether the session is stopping the CLI: it closed the CLI's stdin to end it (a close by
    /// the host, an end of its own, or a CLI whose stdout ended and which ran on), and asks for
    /// `SIGTERM` and then `SIGKILL` ([`Transmit::Signal`]) if the CLI does not exit in time. A
    /// host can wait for the CLI's exit from then on even while its pipes are open.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig, Signal, Transmit};
    ///
    /// let start = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), start);
    /// let _ = session.poll_transmit(); // `initialize`
    /// session.close(start);
    /// assert!(session.stopping());
    /// assert_eq!(session.poll_transmit(), Some(Transmit::CloseStdin));
    ///
    /// // The CLI does not exit: five seconds later the session asks for SIGTERM.
    /// let deadline = session.poll_timeout().unwrap();
    /// assert_eq!(deadline, start + Duration::from_secs(5));
    /// session.handle_timeout(deadline);
    /// assert_eq!(session.poll_transmit(), Some(Transmit::Signal(Signal::Terminate)));
    /// ```
    #[must_use]
    pub fn stopping(&self) -> bool {
        self.stopping.is_stopping()
    }

    /// Whether the session is over ([`Event::Finished`] was queued, not held behind a result
    /// that waits for the store, nor for the store's last tries: [`Session::sync_store`]).
    pub fn is_finished(&self) -> bool {
        self.finished && self.held_events.is_empty() && !self.end_waits_for_store()
    }

    /// Number of control requests of ours waiting for an answer (the host's: the requests the
    /// session sends for itself are not counted).
    pub fn pending_requests(&self) -> usize {
        self.pending.len() - self.own.len()
    }

    /// Number of inbound requests waiting for the host's answer.
    pub fn pending_inbound(&self) -> usize {
        self.inbound.len()
    }

    /// Bytes held for an unfinished stdout line.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    /// let _ = session.poll_transmit(); // `initialize`, written
    /// session.handle_stdout(now, br#"{"type":"system","subtype":"status","#); // half a line so far
    /// assert_eq!(session.buffered_bytes(), 36);
    /// session.handle_stdout(now, br#""status":null,"session_id":"s"}
    /// "#);
    /// assert_eq!(session.buffered_bytes(), 0);
    /// ```
    pub fn buffered_bytes(&self) -> usize {
        self.framer.buffered() + self.outgoing.len()
    }

    // ---- internals ----------------------------------------------------------------------------

    fn send_request(&mut self, now: Instant, body: &str, timeout: Duration) -> RequestId {
        let id = RequestId::from_raw(self.next_request);
        self.next_request += 1;
        wire::write_request(&mut self.outgoing, &id.to_string(), body);
        let deadline = now.checked_add(timeout);
        self.pending
            .insert(id, PendingRequest { deadline, timeout });
        id
    }

    fn push_event(&mut self, event: Event) {
        if !self.held_events.is_empty() {
            self.held_events.keep(event);
        } else if self.config.results_after_store || self.config.results_after_charge {
            self.hold_or_push(event);
        } else {
            // The hot path: one move.
            self.events.push_back(event);
        }
    }

    /// [`Session::push_event`] for a session whose results wait for the store or a charge,
    /// while nothing is held.
    #[inline(never)]
    fn hold_or_push(&mut self, event: Event) {
        if self.config.results_after_store {
            match &event {
                Event::Mirror(_) => self.mirror_queued += 1,
                Event::Message(Message::Result(_)) if self.mirror_stored < self.mirror_queued => {
                    // Its turn's lines go to the store before the result goes to the host.
                    self.store_needed = self.mirror_queued;
                    self.store.hold_started();
                    self.held_events.start(WaitsFor::Store, event);
                    return;
                }
                _ => {}
            }
        }
        self.charge_then_push(event);
    }

    /// Queue `event` for the host; a result with a ledger to charge comes after its turn's
    /// cost, once the host has charged it ([`SessionConfig::results_after_charge`]).
    fn charge_then_push(&mut self, event: Event) {
        if let (true, Event::Message(Message::Result(result))) =
            (self.config.results_after_charge, &event)
        {
            if let Some(cost) = &result.turn_cost {
                self.events.push_back(Event::Charge(Box::new(cost.clone())));
                self.held_events.start(WaitsFor::Charge, event);
                return;
            }
        }
        self.events.push_back(event);
    }

    /// Hand on what was held behind a result, the result first: what it waited for is done
    /// (after the store, its charge may still be to come).
    fn release_held(&mut self) {
        let (waited_for, held) = self.held_events.release();
        let mut held = held.into_iter();
        match (waited_for, held.next()) {
            (Some(WaitsFor::Store), Some(result)) => self.charge_then_push(result),
            (_, Some(result)) => self.events.push_back(result),
            (_, None) => {}
        }
        for event in held {
            self.push_event(event);
        }
    }

    /// The host has stored every transcript frame ([`Event::Mirror`]) it was handed so far (or
    /// given up on them): a result held for them goes out
    /// ([`SessionConfig::results_after_store`]). A host that keeps a [`MirrorQueue`] has
    /// [`Session::sync_store`] call it when the queue is idle.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::message::Message;
    /// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.results_after_store = true;
    /// let mut session = Session::new(config, now);
    /// session.handle_stdout(now, br#"{"type":"transcript_mirror","filePath":"/h/.claude/projects/-w/s.jsonl","entries":[{"type":"user","uuid":"u1"}]}
    /// {"type":"result","subtype":"success","is_error":false,"session_id":"s"}
    /// "#);
    /// assert!(matches!(session.poll_event(), Some(Event::Mirror(_))));
    /// assert!(session.poll_event().is_none(), "the result waits for the store");
    /// assert!(session.waits_for_store());
    /// session.store_flushed(); // … once the store has the frame
    /// assert!(matches!(session.poll_event(), Some(Event::Message(Message::Result(_)))));
    /// ```
    pub fn store_flushed(&mut self) {
        self.mirror_stored = self.mirror_delivered;
        if self.held_events.waits_for(WaitsFor::Store) && self.mirror_stored >= self.store_needed {
            self.release_held();
        }
    }

    /// The host has charged the turn's cost it was handed ([`Event::Charge`]) to its ledger:
    /// the result held for it goes out, and what came after it
    /// ([`SessionConfig::results_after_charge`]). Nothing happens when no result waits for a
    /// charge.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::message::Message;
    /// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
    ///
    /// let now = Instant::now();
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.results_after_charge = true;
    /// let mut session = Session::new(config, now);
    /// session.handle_stdout(now, br#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","total_cost_usd":0.25}
    /// "#);
    /// let Some(Event::Charge(cost)) = session.poll_event() else { panic!() };
    /// assert_eq!(cost.cli_usd, Some(0.25));
    /// assert!(session.poll_event().is_none(), "the result waits for its charge");
    /// // … the ledger takes `cost` …
    /// session.turn_charged();
    /// assert!(matches!(session.poll_event(), Some(Event::Message(Message::Result(_)))));
    /// ```
    pub fn turn_charged(&mut self) {
        if self.held_events.waits_for(WaitsFor::Charge) {
            self.release_held();
        }
    }

    /// Whether the session holds events for the host's store: a result waits for the
    /// transcript frames before it ([`Session::store_flushed`]), or, for a host that keeps its
    /// store queue in step ([`Session::sync_store`]), the end waits for the store's last tries
    /// or the store is too far behind for the session to hand out more. A host that batches
    /// its writes should write them now.
    pub fn waits_for_store(&self) -> bool {
        self.held_events.waits_for(WaitsFor::Store)
            || (self.store.saturated() && !self.lost_place)
            || (self.finished && self.end_waits_for_store())
    }

    fn handle_frame(&mut self, now: Instant, frame: Frame<'_>) {
        match frame {
            Frame::Line(line) => self.handle_line(now, line),
            Frame::TooLong { len } => self.push_event(Event::LineError(LineError::TooLong {
                len,
                limit: self.config.limits.max_line_bytes,
            })),
        }
    }

    fn handle_line(&mut self, now: Instant, line: &[u8]) {
        let text = match simdutf8::basic::from_utf8(line) {
            Ok(text) => text,
            Err(_) => {
                // The fast check only says "not UTF-8"; std's says where.
                let error = std::str::from_utf8(line).err().map(|e| e.to_string());
                return self.not_json(line, error.as_deref().unwrap_or("invalid UTF-8"));
            }
        };
        let tags = match peek_tags(text) {
            Ok(tags) => tags,
            Err(e) => return self.not_json(line, &e.to_string()),
        };
        if let Some(stall) = &mut self.stall {
            stall.line(now, tags.ty, tags.subtype);
        }
        match tags.ty {
            "control_response" => self.handle_control_response(now, text),
            "control_request" => self.handle_inbound_request(now, text),
            "control_cancel_request" => self.handle_cancel(now, text),
            "keep_alive" => self.handle_keep_alive(text),
            "transcript_mirror" => self.handle_mirror(text),
            _ => {
                let message = match Message::parse_tagged(text, &tags) {
                    Ok(message) => message,
                    Err(e) => {
                        let kind = match tags.subtype {
                            Some(sub) => format!("{}/{}", tags.ty, sub),
                            None => tags.ty.to_owned(),
                        };
                        self.push_event(Event::LineError(LineError::Malformed {
                            kind,
                            error: e.to_string(),
                        }));
                        match Json::try_from(text.to_owned()) {
                            Ok(raw) => Message::Unknown(raw),
                            Err(_) => return,
                        }
                    }
                };
                self.handle_message(now, message);
            }
        }
    }

    fn handle_message(&mut self, now: Instant, message: Message) {
        self.heard_message = true;
        if self.version_unchecked {
            if let Message::System(SystemMessage::Init(init)) = &message {
                self.version_unchecked = false;
                let check = init
                    .claude_code_version()
                    .and_then(CliVersion::parse)
                    .map_or(VersionCheck::Unreported, VersionCheck::of);
                self.push_event(Event::CliVersion(check));
            }
        }
        self.run_end.observe(now, activity::activity_of(&message));
        if let Some(stall) = &mut self.stall {
            stall.message(&message);
        }
        if let Message::Assistant(reply) = &message {
            self.last_api_error = reply.error.clone();
        }
        if let Some(mut error) = activity::result_error(&message) {
            error.api_error = self.last_api_error.take();
            self.last_error_result = Some(error);
        } else if !activity::keeps_last_result(&message) {
            self.last_error_result = None;
        }
        if matches!(message, Message::Result(_)) {
            self.last_api_error = None;
        }
        // Model calls (when a budget counts them), turn ends and the CLI's state: what they
        // cost, and the interrupts they settle. Most messages are none of these.
        let accounted = match &message {
            Message::Assistant(_) => self.spend.checks_calls(),
            Message::Result(_) => true,
            Message::System(SystemMessage::SessionStateChanged(_)) => true,
            _ => false,
        };
        if accounted {
            return self.account_and_push(now, message);
        }
        self.deliver(message);
    }

    /// A message for the host, unless it is the SDK's own or the place was lost
    /// ([`Session::place_lost`]): then only a dropped result's cost goes on.
    fn deliver(&mut self, message: Message) {
        if activity::is_sdk_host_only(&message) {
            return;
        }
        if self.lost_place {
            if let Message::Result(result) = message {
                if let Some(cost) = result.turn_cost {
                    self.push_event(Event::UnfinishedTurn(Box::new(cost)));
                }
            }
            return;
        }
        self.push_event(Event::Message(message));
    }

    /// [`Session::handle_message`]'s end for a message that costs or ends a turn: its cost and
    /// the interrupts it settles, then the message and what they gave.
    #[inline(never)]
    fn account_and_push(&mut self, now: Instant, mut message: Message) {
        let (budget, missed) = match &mut message {
            Message::Assistant(reply) => (self.spend.assistant(reply), None),
            Message::Result(result) => {
                self.turn_running = false;
                (
                    self.spend.result(result),
                    self.interrupts.turn_ended(result.was_interrupted()),
                )
            }
            Message::System(SystemMessage::SessionStateChanged(change)) => {
                match change.state {
                    SessionState::Running => self.turn_running = true,
                    SessionState::Idle => self.turn_running = false,
                    _ => {}
                }
                (None, None)
            }
            _ => (None, None),
        };
        self.deliver(message);
        if let Some(missed) = missed {
            self.push_event(Event::InterruptNotApplied(missed));
        }
        if let Some(report) = budget {
            self.budget_crossed(now, report);
        }
    }

    /// A `transcript_mirror` frame: for the host's session store, never a message.
    fn handle_mirror(&mut self, text: &str) {
        if self.lost_place {
            // The transcript goes on on the host that holds the place now.
            return;
        }
        match serde_json::from_str::<TranscriptMirror>(text) {
            Ok(mirror) => self.push_event(Event::Mirror(Box::new(mirror))),
            Err(e) => self.push_event(Event::LineError(LineError::Malformed {
                kind: "transcript_mirror".into(),
                error: e.to_string(),
            })),
        }
    }

    fn not_json(&mut self, line: &[u8], error: &str) {
        let end = line.len().min(SNIPPET_BYTES);
        let snippet = String::from_utf8_lossy(&line[..end]).into_owned();
        self.push_event(Event::LineError(LineError::NotJson {
            error: error.to_owned(),
            snippet,
        }));
    }

    fn handle_control_response(&mut self, now: Instant, text: &str) {
        let envelope: wire::ResponseEnvelope<'_> = match serde_json::from_str(text) {
            Ok(envelope) => envelope,
            Err(e) => {
                let error = e.to_string();
                return self.push_event(Event::LineError(LineError::Malformed {
                    kind: "control_response".into(),
                    error,
                }));
            }
        };
        let payload = envelope.response;
        let id = payload
            .request_id
            .strip_prefix("req_")
            .and_then(|n| n.parse().ok())
            .map(RequestId::from_raw);
        let id = match id {
            Some(id) if self.pending.remove(&id).is_some() => id,
            // The CLI was slow, not wrong: the request's outcome (a timeout, or the close) has been
            // reported, and the answer is dropped, as the official SDKs do. Only an `initialize`
            // answer carries requests of the CLI, and a session whose `initialize` failed is over.
            Some(id) if self.given_up.take(id) => return,
            _ => {
                let unknown = payload.request_id.into_owned();
                return self.push_event(Event::LineError(LineError::UnmatchedResponse(unknown)));
            }
        };
        let outcome = if payload.subtype == "success" {
            Ok(ResponseBody::from_raw(payload.response))
        } else {
            Err(RequestFailure::Refused {
                message: payload
                    .error
                    .unwrap_or_else(|| format!("control request failed ({})", payload.subtype)),
                code: payload.error_code,
            })
        };
        let outcome = if id == self.initialize_id {
            self.initialized(outcome)
        } else {
            outcome
        };
        let initialized = id == self.initialize_id && outcome.is_ok();
        self.request_done(now, id, outcome);
        if initialized {
            if self.spend.needs_baseline() {
                let usage = ControlRequest::GetUsage {
                    skip_behaviors: true,
                };
                self.own_request(now, usage, OwnRequest::CarriedOverCost);
            }
            self.start_ready_wait(now);
        }
        for pending in payload
            .pending_permission_requests
            .into_iter()
            .chain(payload.pending_user_dialog_requests)
            .chain(payload.pending_elicitation_requests)
        {
            self.handle_inbound_request(now, pending.get());
        }
    }

    /// The answer to `initialize` came: keep what the CLI said, check what it must confirm, and
    /// let the held user messages through, or drop them.
    fn initialized(
        &mut self,
        outcome: Result<ResponseBody, RequestFailure>,
    ) -> Result<ResponseBody, RequestFailure> {
        outcome.and_then(|body| {
            // A body we cannot read is still a success; the raw body is in the event.
            let info: InitializeResponse = body.parse().unwrap_or_default();
            // Without a version here, the first `system/init` is asked.
            let version = info
                .claude_code_version
                .as_deref()
                .and_then(CliVersion::parse);
            if let Some(version) = version.filter(|_| self.version_unchecked) {
                self.version_unchecked = false;
                self.push_event(Event::CliVersion(VersionCheck::of(version)));
            }
            let unconfirmed = initialize::unconfirmed(&self.config, &info);
            self.server_info = Some(info);
            match unconfirmed {
                Some(message) => Err(RequestFailure::Unconfirmed(message)),
                None => Ok(body),
            }
        })
    }

    /// A request of ours is done: let held messages through (or drop them), route the answer to
    /// the claim it belongs to, or report it.
    fn request_done(
        &mut self,
        now: Instant,
        id: RequestId,
        outcome: Result<ResponseBody, RequestFailure>,
    ) {
        let missed = self
            .interrupts
            .answered(id, outcome.is_ok(), self.turn_running);
        if let Some(own) = self.own.take(id) {
            self.push_event(Event::RequestDone {
                id,
                outcome: outcome.clone(),
            });
            if let Some(missed) = missed {
                self.push_event(Event::InterruptNotApplied(missed));
            }
            return self.own_done(now, id, own, outcome);
        }
        // A failed `initialize` ends the session; the process being gone says why by itself.
        let ends = match &outcome {
            Err(failure)
                if id == self.initialize_id && !matches!(failure, RequestFailure::Closed(_)) =>
            {
                Some(EndReason::InitializeFailed(failure.clone()))
            }
            _ => None,
        };
        if let Some(hold) = &mut self.held {
            if let Some(at) = hold.waiting.iter().position(|w| *w == id) {
                if outcome.is_ok() {
                    hold.waiting.remove(at);
                    if hold.waiting.is_empty() && !hold.failed {
                        let bytes = std::mem::take(&mut hold.bytes);
                        self.held = None;
                        if !self.stdin_closed {
                            self.outgoing.extend_from_slice(&bytes);
                        }
                    }
                } else {
                    hold.failed = true;
                    hold.bytes.clear();
                }
            }
        }
        if let ClaimState::Claiming(claiming) = &mut self.claim {
            if claiming.owns(id) {
                if let Some(result) = claiming.answered(id, outcome) {
                    self.claim = ClaimState::Done;
                    if result.is_err() {
                        // The spare is let go: nothing more is sent, and the CLI exits once it
                        // has answered what it was sent; a prompt held back was never sent, so
                        // there is nothing to wait for.
                        self.run_end.end_input();
                        if self.held.as_ref().is_some_and(|hold| hold.failed) && !self.stdin_closed
                        {
                            self.stdin_closed = true;
                            self.close_pending = true;
                        }
                    }
                    self.push_event(Event::Claimed(result.map(Box::new).map_err(Box::new)));
                }
                return;
            }
        }
        self.push_event(Event::RequestDone { id, outcome });
        if let Some(missed) = missed {
            self.push_event(Event::InterruptNotApplied(missed));
        }
        if let Some(reason) = ends {
            self.end(now, reason);
        }
    }

    fn handle_keep_alive(&mut self, text: &str) {
        if let Ok(wire::KeepAlive {
            startup_mark: Some(mark),
        }) = serde_json::from_str(text)
        {
            self.startup_mark = Some(mark.to_string());
            self.push_event(Event::StartupMark(mark.into_owned()));
        }
    }

    fn handle_cancel(&mut self, now: Instant, text: &str) {
        match serde_json::from_str::<wire::CancelEnvelope>(text) {
            Ok(cancel) => {
                if let Some(id) = self.inbound.cancel(&cancel.request_id) {
                    self.tell_withdrawn(id, Event::Cancelled);
                }
                self.maybe_close_stdin(now);
            }
            Err(e) => self.push_event(Event::LineError(LineError::Malformed {
                kind: "control_cancel_request".into(),
                error: e.to_string(),
            })),
        }
    }

    fn handle_inbound_request(&mut self, now: Instant, text: &str) {
        if RequestHead::peek(text).is_some_and(|head| self.open_well_formed(now, &head)) {
            return;
        }
        let envelope: wire::RequestEnvelope<'_> = match serde_json::from_str(text) {
            Ok(envelope) => envelope,
            Err(e) => {
                return self.push_event(Event::LineError(LineError::Malformed {
                    kind: "control_request".into(),
                    error: e.to_string(),
                }))
            }
        };
        let wire_id = envelope.request_id;
        if self.inbound.is_open(&wire_id) {
            return; // The CLI repeated a request we are still working on.
        }
        let body = envelope.request.get();
        let subtype = match serde_json::from_str::<wire::Subtype<'_>>(body) {
            Ok(s) => s.subtype.into_owned(),
            Err(e) => {
                return self.refuse(&wire_id, &format!("malformed control request: {e}"), None)
            }
        };
        match subtype.as_str() {
            "can_use_tool" => self.inbound_permission(wire_id, body),
            "hook_callback" => self.inbound_hook(wire_id, body),
            "mcp_message" => self.inbound_mcp(now, wire_id, body),
            "elicitation" => self.inbound_elicitation(wire_id, body),
            "request_user_dialog" => self.inbound_user_dialog(wire_id, body),
            other => {
                let message = format!("Unsupported control request subtype: {other}");
                self.refuse(&wire_id, &message, Some("unsupported_request"));
            }
        }
    }

    /// Open the request the CLI sends most (a permission, a hook, an MCP message), written the
    /// way it writes them, reading the line once: its head textually, its body by its own type.
    /// `false` leaves the line to the full reading, which also says what is wrong with it.
    fn open_well_formed(&mut self, now: Instant, head: &RequestHead<'_>) -> bool {
        if self.inbound.is_open(head.request_id) {
            return false;
        }
        let wire_id = || head.request_id.to_owned();
        match head.subtype {
            "can_use_tool" if self.config.can_use_tool => serde_json::from_str(head.body)
                .map(|request| self.open_permission(wire_id(), request))
                .is_ok(),
            "hook_callback" => serde_json::from_str(head.body)
                .map(|request| self.open_hook(wire_id(), request))
                .is_ok(),
            "mcp_message" => serde_json::from_str(head.body)
                .map(|request| self.open_mcp(now, wire_id(), request))
                .is_ok(),
            _ => false,
        }
    }

    fn inbound_permission(&mut self, wire_id: String, body: &str) {
        if !self.config.can_use_tool {
            return self.refuse(&wire_id, "canUseTool callback is not provided", None);
        }
        match serde_json::from_str::<PermissionRequest>(body) {
            Ok(request) => self.open_permission(wire_id, request),
            Err(e) => self.refuse(
                &wire_id,
                &format!("malformed can_use_tool request: {e}"),
                None,
            ),
        }
    }

    fn open_permission(&mut self, wire_id: String, request: PermissionRequest) {
        let original_input = request.tool_input.clone();
        let awaiting = Awaiting::Permission { original_input };
        self.open_inbound(wire_id, awaiting, InboundKind::CanUseTool(request));
    }

    fn inbound_hook(&mut self, wire_id: String, body: &str) {
        match serde_json::from_str::<wire::HookCallbackBody<'_>>(body) {
            Ok(request) => self.open_hook(wire_id, request),
            Err(e) => self.refuse(
                &wire_id,
                &format!("malformed hook_callback request: {e}"),
                None,
            ),
        }
    }

    fn open_hook(&mut self, wire_id: String, request: wire::HookCallbackBody<'_>) {
        let hook = request
            .callback_id
            .strip_prefix("hook_")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| self.hook_refs.get(n))
            .cloned();
        let Some(hook) = hook else {
            let message = format!("No hook callback found for ID: {}", request.callback_id);
            return self.refuse(&wire_id, &message, None);
        };
        match HookInput::from_raw(request.input) {
            Ok(input) => {
                let callback = HookCallback {
                    callback_id: request.callback_id,
                    hook,
                    input,
                    tool_use_id: request.tool_use_id,
                };
                self.open_inbound(wire_id, Awaiting::Hook, InboundKind::HookCallback(callback));
            }
            Err(e) => self.refuse(&wire_id, &format!("malformed hook input: {e}"), None),
        }
    }

    fn inbound_mcp(&mut self, now: Instant, wire_id: String, body: &str) {
        match serde_json::from_str::<wire::McpMessageBody<'_>>(body) {
            Ok(request) => self.open_mcp(now, wire_id, request),
            Err(e) => self.refuse(
                &wire_id,
                &format!("malformed mcp_message request: {e}"),
                None,
            ),
        }
    }

    fn open_mcp(&mut self, now: Instant, wire_id: String, request: wire::McpMessageBody<'_>) {
        let mut withdrawn = None;
        if let Some(jsonrpc_id) = mcp::cancelled_request(request.message) {
            // The CLI gave up on a tool call (an interrupt): withdraw it, so the host drops the
            // handler, as it does for a cancelled callback. The notification is still acked.
            let open = self
                .inbound
                .open_tool_call(&request.server_name, &jsonrpc_id);
            withdrawn = open.and_then(|wire_id| self.inbound.cancel(&wire_id));
        }
        if !self.unlisted_servers.is_empty() && mcp::is_tools_list(request.message) {
            self.unlisted_servers
                .retain(|name| *name != request.server_name);
        }
        let routed = mcp::route(
            &self.config.mcp_servers,
            &request.server_name,
            request.message.get(),
        );
        // A request whose JSON-RPC id is still in flight on its server is refused, as the
        // official SDKs' bridge refuses it: the handler runs once per id.
        let in_flight = match &routed {
            McpRoute::ToolCall(ToolCall { jsonrpc_id, .. })
            | McpRoute::ResourceRead(ResourceRead { jsonrpc_id, .. })
            | McpRoute::PromptGet(PromptGet { jsonrpc_id, .. }) => Some(jsonrpc_id)
                .filter(|id| self.inbound.mcp_request_open(&request.server_name, id))
                .cloned(),
            McpRoute::Reply(_) => None,
        };
        match routed {
            // Once stdin is closed (or the CLI exited) nothing more may be written.
            McpRoute::Reply(_) if self.stdin_closed => {}
            _ if in_flight.is_some() => {
                if self.stdin_closed {
                    return;
                }
                let id = in_flight.expect("checked above");
                let message = format!("Request id {} is already in flight", id.as_str());
                let error = serde_json::json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": message}});
                let error = Json::from_serialize(&error).expect("a JSON value always serializes");
                write_mcp_response(&mut self.outgoing, &wire_id, error.as_raw());
            }
            McpRoute::Reply(response) => {
                write_mcp_response(&mut self.outgoing, &wire_id, response.as_raw())
            }
            McpRoute::ToolCall(call) => {
                let limit = self
                    .config
                    .mcp_servers
                    .iter()
                    .find(|server| server.name == call.server)
                    .and_then(|server| server.tools.iter().find(|tool| tool.name == call.tool))
                    .and_then(|tool| tool.timeout);
                // A time limit too long for an `Instant` (`Duration::MAX`) is none.
                let deadline = limit.and_then(|limit| {
                    let text = format!(
                        "The tool {} of server {} did not finish within {} and was stopped.",
                        call.tool,
                        call.server,
                        human_duration(limit)
                    );
                    Some((
                        now.checked_add(limit)?,
                        Reply::ToolResult(ToolResult::error(text)),
                    ))
                });
                let kind = InboundKind::McpToolCall(call.clone());
                self.open_inbound_within(wire_id, Awaiting::McpTool(call), kind, deadline);
            }
            McpRoute::ResourceRead(read) => {
                let awaiting = Awaiting::McpResource(read.server.clone(), read.jsonrpc_id.clone());
                self.open_inbound(wire_id, awaiting, InboundKind::McpResourceRead(read));
            }
            McpRoute::PromptGet(get) => {
                let awaiting = Awaiting::McpPrompt(get.server.clone(), get.jsonrpc_id.clone());
                self.open_inbound(wire_id, awaiting, InboundKind::McpPromptGet(get));
            }
        }
        if let Some(id) = withdrawn {
            self.tell_withdrawn(id, Event::Cancelled);
            self.maybe_close_stdin(now);
        }
    }

    fn inbound_elicitation(&mut self, wire_id: String, body: &str) {
        if !self.config.elicitation {
            if self.stdin_closed {
                return;
            }
            let decline =
                serde_json::to_string(&ElicitationResult::decline()).expect("always serializes");
            return wire::write_success(&mut self.outgoing, &wire_id, &decline);
        }
        match serde_json::from_str::<ElicitationRequest>(body) {
            Ok(request) => self.open_inbound(
                wire_id,
                Awaiting::Elicitation,
                InboundKind::Elicitation(request),
            ),
            Err(e) => self.refuse(
                &wire_id,
                &format!("malformed elicitation request: {e}"),
                None,
            ),
        }
    }

    fn inbound_user_dialog(&mut self, wire_id: String, body: &str) {
        if !self.config.user_dialog {
            // The CLI sends dialogs only of kinds a host declared; one that comes all the same is
            // refused (the CLI drops an error answer and keeps the dialog up until its deadline).
            return self.refuse(&wire_id, "no user dialog callback is registered", None);
        }
        match serde_json::from_str::<UserDialogRequest>(body) {
            Ok(request) => self.open_inbound(
                wire_id,
                Awaiting::UserDialog,
                InboundKind::UserDialog(request),
            ),
            Err(e) => self.refuse(
                &wire_id,
                &format!("malformed request_user_dialog request: {e}"),
                None,
            ),
        }
    }

    /// Answer every request past its time limit in the host's place, and tell the host to
    /// stop working on it.
    fn expire_inbound(&mut self, now: Instant) {
        let expired = self.inbound.expire(now);
        if expired.is_empty() {
            return;
        }
        for (id, entry, reply) in expired {
            if !self.stdin_closed {
                self.write_answer(&entry, reply);
            }
            self.tell_withdrawn(id, Event::Expired);
        }
        self.maybe_close_stdin(now);
    }

    fn open_inbound(&mut self, wire_id: String, awaiting: Awaiting, kind: InboundKind) {
        self.open_inbound_within(wire_id, awaiting, kind, None);
    }

    /// Open an inbound request the session answers in the host's place at `deadline`, with the
    /// reply given.
    fn open_inbound_within(
        &mut self,
        wire_id: String,
        awaiting: Awaiting,
        kind: InboundKind,
        deadline: Option<(Instant, Reply)>,
    ) {
        let id = self.inbound.insert(wire_id.clone(), awaiting, deadline);
        self.push_event(Event::Inbound(Box::new(InboundRequest {
            id,
            wire_id,
            kind,
        })));
    }

    /// Tell the host that the request `id` was withdrawn (`told`: [`Event::Cancelled`] or
    /// [`Event::Expired`]), unless the host was never handed it: then the request leaves the
    /// events not yet taken, unseen, and there is nothing to tell. So a request withdrawn while
    /// it waited behind the host's limit ([`Limits::max_inbound_in_flight`]) never counts
    /// against it.
    fn tell_withdrawn(&mut self, id: InboundId, told: fn(InboundId) -> Event) {
        let unseen = |event: &Event| matches!(event, Event::Inbound(request) if request.id == id);
        if let Some(at) = self.events.iter().position(unseen) {
            self.events.remove(at);
        } else if self.held_events.take(unseen).is_none() {
            self.push_event(told(id));
        }
    }

    fn refuse(&mut self, wire_id: &str, message: &str, code: Option<&str>) {
        if !self.stdin_closed {
            wire::write_error(&mut self.outgoing, wire_id, message, code);
        }
    }

    fn fail_everything(&mut self, now: Instant, cause: CloseCause) {
        // Nothing is ready any more, and no silence is a stall.
        self.ready = None;
        self.stall = None;
        let pending = std::mem::take(&mut self.pending);
        for id in pending.into_keys() {
            self.given_up.insert(id);
            self.request_done(now, id, Err(RequestFailure::Closed(cause.clone())));
        }
        for id in self.inbound.cancel_all() {
            self.tell_withdrawn(id, Event::Cancelled);
        }
    }

    fn maybe_close_stdin(&mut self, now: Instant) {
        if !self.stdin_closed && self.run_end.may_close(!self.inbound.is_empty()) {
            self.stdin_closed = true;
            self.close_pending = true;
            self.run_end.input_closed(now);
        }
    }

    fn maybe_finish(&mut self) {
        let (true, Some(exit)) = (self.stdout_ended, self.exit) else {
            return;
        };
        if self.finished {
            return;
        }
        self.finished = true;
        if let Some(cost) = self.spend.unfinished_turn() {
            self.push_event(Event::UnfinishedTurn(Box::new(cost)));
        }
        let termination = if self.closed_by_host {
            Termination::ClosedByHost
        } else if let Some(reason) = self.ended.clone() {
            Termination::Ended(reason)
        } else if exit.success() {
            Termination::Completed
        } else if let Some(failure) = self.start_failure(exit) {
            Termination::StartFailed(Box::new(failure))
        } else if let Some(mut error) = self.last_error_result.take() {
            error.exit = exit;
            Termination::ErrorResult(Box::new(error))
        } else {
            Termination::ProcessFailed(exit)
        };
        self.push_event(Event::Finished(termination));
    }

    /// Why the session never started, when it did not: the CLI's error result names a start-up
    /// failure, or the CLI exited before it answered `initialize` or wrote any message.
    fn start_failure(&self, exit: ExitStatusInfo) -> Option<StartFailure> {
        match &self.last_error_result {
            Some(error) if error.startup_failure.is_some() => Some(StartFailure {
                reason: error.startup_failure.clone(),
                message: Some(error.message.clone()),
                exit,
            }),
            None if self.server_info.is_none() && !self.heard_message => Some(StartFailure {
                reason: None,
                message: None,
                exit,
            }),
            _ => None,
        }
    }
}

fn write_mcp_response(out: &mut Vec<u8>, wire_id: &str, response: &RawValue) {
    let mut body = String::with_capacity(response.get().len() + 20);
    body.push_str(r#"{"mcp_response":"#);
    body.push_str(response.get());
    body.push('}');
    wire::write_success(out, wire_id, &body);
}

/// `90 s`, `2.5 s`, `10 min`: a time limit as a person reads it.
fn human_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs >= 60.0 && d.as_secs() % 60 == 0 && d.subsec_nanos() == 0 {
        format!("{} min", d.as_secs() / 60)
    } else {
        format!("{secs} s")
    }
}

fn reply_fits(awaiting: &Awaiting, reply: &Reply) -> bool {
    matches!(
        (awaiting, reply),
        (_, Reply::Error { .. } | Reply::Raw(_))
            | (Awaiting::Permission { .. }, Reply::Permission(_))
            | (Awaiting::Hook, Reply::Hook(_))
            | (Awaiting::McpTool(_), Reply::ToolResult(_))
            | (Awaiting::McpResource(..), Reply::Resource(_))
            | (Awaiting::McpPrompt(..), Reply::Prompt(_))
            | (Awaiting::Elicitation, Reply::Elicitation(_))
            | (Awaiting::UserDialog, Reply::UserDialog(_))
    )
}

fn reply_name(reply: &Reply) -> &'static str {
    match reply {
        Reply::Permission(_) => "permission",
        Reply::Hook(_) => "hook output",
        Reply::ToolResult(_) => "tool result",
        Reply::Resource(_) => "resource",
        Reply::Prompt(_) => "prompt",
        Reply::Elicitation(_) => "elicitation",
        Reply::UserDialog(_) => "user dialog",
        Reply::Error { .. } => "error",
        Reply::Raw(_) => "raw",
    }
}
