use std::fmt;
use std::time::Duration;

use super::{MirrorFailure, TranscriptMirror, VersionCheck};
use crate::control::{ClaimInfo, ClaimRefusal, InboundId, InboundRequest, RequestId, ResponseBody};
use crate::message::{ApiError, LineError, Message, StartupFailureReason};

/// Something that happened in the session, for the host to act on. Read with
/// [`super::Session::poll_event`]; each event is handed out exactly once.
///
/// ```
/// use claude_agent_tokio::control::Reply;
/// use claude_agent_tokio::message::Message;
/// use claude_agent_tokio::session::{Event, Session, Termination};
///
/// /// What a host does with each event.
/// fn on_event(session: &mut Session, now: std::time::Instant, event: Event) {
///     match event {
///         Event::Message(Message::Assistant(reply)) => println!("{:?}", reply.message.content),
///         Event::Message(_) => {}
///         Event::Inbound(request) => {
///             // Ask the user, run the hook or the tool, … then answer:
///             let _ = session.respond(now, request.id, Reply::error("this host answers nothing"));
///         }
///         Event::Cancelled(id) => println!("the CLI withdrew {id}"),
///         Event::RequestDone { id, outcome } => println!("{id}: {:?}", outcome.map(|body| body.json().map(|json| json.to_string()))),
///         Event::LineError(error) => eprintln!("skipped a stdout line: {error}"),
///         Event::Finished(Termination::Completed) => println!("done"),
///         Event::Finished(other) => eprintln!("ended: {other:?}"),
///         _ => {}
///     }
/// }
/// # let now = std::time::Instant::now();
/// # let mut session = Session::new(claude_agent_tokio::session::SessionConfig::new(claude_agent_tokio::session::InputMode::Streaming), now);
/// # session.handle_stdout(now, b"not json\n");
/// # while let Some(event) = session.poll_event() { on_event(&mut session, now, event); }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A message for the user (assistant, user, result, system, stream event, unknown kinds…).
    Message(Message),
    /// The CLI asks the host something; answer with [`super::Session::respond`].
    ///
    /// Boxed, like the large payloads of other variants, so that an `Event` stays small (72 bytes):
    /// every message passes through the event queue, and moving a large enum costs each one of them.
    Inbound(Box<InboundRequest>),
    /// The CLI withdrew an inbound request (a `control_cancel_request`, or an MCP
    /// `notifications/cancelled` for an in-process tool call): stop its callback; no answer will
    /// be written. Only for a request the host was handed: one withdrawn while it still waited
    /// in the queue leaves it unseen.
    Cancelled(InboundId),
    /// The host did not answer an inbound request within its time limit (an in-process tool's
    /// [`ToolSpec::timeout`](crate::mcp::ToolSpec::timeout), counted from when the session read
    /// the call): the session answered the CLI in the host's place (an `isError` result saying
    /// so). Stop its callback; a later [`super::Session::respond`] is refused with
    /// [`RespondError::Expired`](super::RespondError::Expired). Only for a request the host was
    /// handed, as [`Event::Cancelled`].
    Expired(InboundId),
    /// The running turn stalled ([`SessionConfig::stall`](super::SessionConfig::stall)): the
    /// CLI has been silent past the limit while nothing explains it. Once per silence, for the
    /// host to show. As [`StallWatch::then`](super::StallWatch::then) says, the session has
    /// also interrupted the turn (`Interrupt`); with `InterruptThenClose` it closes instead, and
    /// this event does not come: [`Event::Closing`] carries the stall.
    Stalled(crate::message::Stall),
    /// The CLI accepted an interrupt (sent with [`super::Session::request`]) but did not apply
    /// it: no turn was running, or the turn ended without being interrupted.
    InterruptNotApplied(crate::message::InterruptNotApplied),
    /// The session's budget ([`SessionConfig::budget`](super::SessionConfig::budget)) is
    /// nearly spent (its warning share), once; the session goes on. Exceeded, the session
    /// interrupts the turn and closes ([`Event::Closing`] with [`EndReason::OverBudget`]).
    Budget(Box<crate::cost::BudgetReport>),
    /// The session is ready for its first message: `initialize` was answered and, when
    /// [`SessionConfig::ready_after_servers`](super::SessionConfig::ready_after_servers) asks,
    /// the in-process MCP servers are connected (or 5 s have passed). Once, at most. A spare
    /// ([`SessionConfig::await_claim`](super::SessionConfig::await_claim)) is then parked, ready
    /// for its claim.
    Ready,
    /// The session closed itself, for the reason given: it has closed stdin and failed what was
    /// pending, as [`Session::close`](super::Session::close) does, and stops the CLI as after a
    /// close (the signals it asks for come as [`Transmit::Signal`](super::Transmit::Signal) if the
    /// CLI does not exit in time). Still report the CLI's end; [`Event::Finished`] then says
    /// [`Termination::Ended`] with the same reason.
    Closing(EndReason),
    /// The session ended in a turn that had no result (closed by the host, the CLI killed or
    /// crashed): what the turn's model calls used, as the session counted them from the
    /// assistant messages (their tokens, priced when a price table is given; the CLI gave no
    /// figure). It comes just before [`Event::Finished`], only when
    /// [`SessionConfig::count_model_calls`](super::SessionConfig::count_model_calls) or a budget
    /// counts the calls, and is included in [`Session::spent`](super::Session::spent).
    UnfinishedTurn(Box<crate::cost::TurnCost>),
    /// A turn ended, and this is what it cost, for the host's ledger
    /// ([`SessionConfig::results_after_charge`](super::SessionConfig::results_after_charge)):
    /// the turn's result, and everything after it, waits until the host has charged it and
    /// says so ([`Session::turn_charged`](super::Session::turn_charged)). Once per result, and
    /// never with an [`Event::UnfinishedTurn`] for the same turn. Once the place is lost
    /// ([`Session::place_lost`](super::Session::place_lost)), a charge the host had not taken
    /// still comes, and its result does not.
    Charge(Box<crate::cost::TurnCost>),
    /// The session sent a control request for itself (an interrupt for a stall or a budget,
    /// the readiness wait's `mcp_status`, a resumed session's `get_usage`): for the host to log.
    /// Its outcome comes as [`Event::RequestDone`]; the session acts on it, and
    /// [`Session::pending_requests`](super::Session::pending_requests) does not count it.
    OwnRequestSent {
        /// The request's id.
        id: RequestId,
        /// What it is for.
        request: super::OwnRequest,
    },
    /// A control request of ours (the host's, or one the session sent for itself:
    /// [`Event::OwnRequestSent`]) was answered, failed, or timed out.
    RequestDone {
        /// The id [`super::Session::request`] returned (or the initialize request's id).
        id: RequestId,
        /// The success body, or why there is none.
        outcome: Result<ResponseBody, RequestFailure>,
    },
    /// A stdout line could not be used; the session goes on.
    LineError(LineError),
    /// The CLI's version, and whether this SDK supports it: once per session, from the
    /// `initialize` answer (just before its [`Event::RequestDone`]), or, when that has no version,
    /// from the first `system/init` (just before its message). Not at all when
    /// [`SessionConfig::check_cli_version`](super::SessionConfig::check_cli_version) is off.
    CliVersion(VersionCheck),
    /// The outcome of [`super::Session::claim`], once every request of the claim is answered:
    /// the claim's answer (with [`ClaimInfo::not_applied`], the options the session runs
    /// without), or why the CLI refused it.
    Claimed(Result<Box<ClaimInfo>, Box<ClaimRefusal>>),
    /// The CLI passed a start-up checkpoint (a `keep_alive` line with `startup_mark`, which the
    /// CLI writes before it answers `initialize` when `CLAUDE_CODE_SDK_READS_STARTUP_MARKS=1` is
    /// in its environment).
    StartupMark(String),
    /// Transcript lines to copy into a session store (a `transcript_mirror` frame: the CLI
    /// prints them only when started with `--session-mirror`). They are not messages; a host
    /// without a store drops them.
    Mirror(Box<TranscriptMirror>),
    /// Transcript lines the host's store could not take ([`Session::sync_store`] takes the
    /// report from the host's [`MirrorQueue`] and hands it out here, ahead of the result it
    /// held for the store and of the session's end). The runtime crates turn it into a
    /// `system`/`mirror_error` message.
    ///
    /// [`Session::sync_store`]: super::Session::sync_store
    /// [`MirrorQueue`]: super::MirrorQueue
    StoreFailed(Box<MirrorFailure>),
    /// The session is over: stdout ended and the CLI exited. No events follow.
    Finished(Termination),
}

/// What the host must do with the CLI process: write to its stdin, close it, signal the
/// process, or let its pipes go.
///
/// ```
/// use std::io::Write;
/// use std::time::Instant;
/// use claude_agent_tokio::session::{InputMode, Session, SessionConfig, Signal, Transmit};
///
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), Instant::now());
/// let mut stdin: Option<Vec<u8>> = Some(Vec::new()); // stands for the child's stdin pipe
/// while let Some(transmit) = session.poll_transmit() {
///     match transmit {
///         Transmit::Write(bytes) => stdin.as_mut().unwrap().write_all(&bytes).unwrap(),
///         Transmit::CloseStdin => drop(stdin.take()), // the CLI sees end of input
///         Transmit::Signal(Signal::Terminate) => { /* kill(pid, SIGTERM) */ }
///         Transmit::Signal(Signal::Kill) => { /* kill(pid, SIGKILL), or Child::kill */ }
///         Transmit::ReleasePipes => { /* stop reading stdout and stderr, and drop them */ }
///         _ => {}
///     }
/// }
/// assert!(stdin.unwrap().ends_with(b"}\n"));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transmit {
    /// Write these bytes (one or more whole `\n`-terminated JSON lines).
    Write(Vec<u8>),
    /// Close stdin; nothing more will be written.
    CloseStdin,
    /// Send the CLI process this signal: the session is stopping it and it did not exit in
    /// time after its stdin closed ([`Timeouts::exit_after_stdin_closed`]) or after `SIGTERM`
    /// ([`Timeouts::exit_after_terminate`]). The host still reports the exit.
    ///
    /// [`Timeouts::exit_after_stdin_closed`]: super::Timeouts::exit_after_stdin_closed
    /// [`Timeouts::exit_after_terminate`]: super::Timeouts::exit_after_terminate
    Signal(Signal),
    /// Stop reading the CLI's stdout and stderr and drop them: the CLI exited a while ago
    /// ([`Timeouts::pipes_after_exit`]) and a process it started still holds them open. The
    /// session has taken stdout as ended.
    ///
    /// [`Timeouts::pipes_after_exit`]: super::Timeouts::pipes_after_exit
    ReleasePipes,
}

/// A signal the session asks the host to send the CLI process ([`Transmit::Signal`]). Where
/// there are no signals (Windows), both end the process.
///
/// ```
/// use claude_agent_tokio::session::Signal;
///
/// // What a Unix host sends for each.
/// fn number(signal: Signal) -> i32 {
///     match signal {
///         Signal::Terminate => 15, // SIGTERM
///         Signal::Kill => 9,       // SIGKILL
///         _ => 9,
///     }
/// }
/// assert_eq!(number(Signal::Terminate), 15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Signal {
    /// `SIGTERM`: exit, cleaning up.
    Terminate,
    /// `SIGKILL`: end at once.
    Kill,
}

/// The bytes as the text they are (JSON lines), not as numbers.
///
/// ```
/// use claude_agent_tokio::session::Transmit;
///
/// let write = Transmit::Write(b"{\"type\":\"user\"}\n".to_vec());
/// assert_eq!(format!("{write:?}"), r#"Write("{\"type\":\"user\"}\n")"#);
/// ```
impl fmt::Debug for Transmit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transmit::Write(bytes) => f
                .debug_tuple("Write")
                .field(&String::from_utf8_lossy(bytes))
                .finish(),
            Transmit::CloseStdin => f.write_str("CloseStdin"),
            Transmit::Signal(signal) => f.debug_tuple("Signal").field(signal).finish(),
            Transmit::ReleasePipes => f.write_str("ReleasePipes"),
        }
    }
}

/// How the CLI process ended, as the host observed it.
///
/// ```
/// use claude_agent_tokio::session::ExitStatusInfo;
///
/// // From `std::process::ExitStatus` (on Unix, `ExitStatusExt::signal` gives the signal):
/// let status = std::process::Command::new("true").status().unwrap();
/// let info = match status.code() {
///     Some(code) => ExitStatusInfo::code(code),
///     None => ExitStatusInfo::signal(9),
/// };
/// assert!(info.success());
///
/// let killed = ExitStatusInfo::signal(9);
/// assert_eq!((killed.code, killed.signal), (None, Some(9)));
/// assert!(!killed.success());
/// assert_eq!(killed.to_string(), "signal 9");
/// assert_eq!(ExitStatusInfo::code(1).to_string(), "exit code 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExitStatusInfo {
    /// Exit code, if it exited normally.
    pub code: Option<i32>,
    /// Signal number, if it was killed by one.
    pub signal: Option<i32>,
}

impl ExitStatusInfo {
    /// A normal exit with `code`.
    pub const fn code(code: i32) -> Self {
        ExitStatusInfo {
            code: Some(code),
            signal: None,
        }
    }

    /// Death by signal `signal`.
    pub const fn signal(signal: i32) -> Self {
        ExitStatusInfo {
            code: None,
            signal: Some(signal),
        }
    }

    /// Neither a code nor a signal: the status could not be read.
    ///
    /// ```
    /// use claude_agent_tokio::session::ExitStatusInfo;
    ///
    /// assert_eq!(ExitStatusInfo::unknown().to_string(), "unknown exit status");
    /// ```
    pub const fn unknown() -> Self {
        ExitStatusInfo {
            code: None,
            signal: None,
        }
    }

    /// Whether this is exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// How a process ended, from the status the operating system reported (a runtime's `wait`).
///
/// ```
/// use claude_agent_tokio::session::ExitStatusInfo;
///
/// # #[cfg(unix)] {
/// use std::os::unix::process::ExitStatusExt;
/// let status = std::process::ExitStatus::from_raw(9); // killed by SIGKILL
/// assert_eq!(ExitStatusInfo::from(status), ExitStatusInfo::signal(9));
/// # }
/// ```
impl From<std::process::ExitStatus> for ExitStatusInfo {
    fn from(status: std::process::ExitStatus) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return ExitStatusInfo::signal(signal);
            }
        }
        ExitStatusInfo::code(status.code().unwrap_or(-1))
    }
}

impl fmt::Display for ExitStatusInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exit code {c}"),
            (None, Some(s)) => write!(f, "signal {s}"),
            (None, None) => write!(f, "unknown exit status"),
        }
    }
}

/// Why pending requests could not be answered.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::session::RequestFailure;
/// use claude_agent_tokio::session::{CloseCause, Event, ExitStatusInfo, InputMode, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// // The CLI crashes before it answers `initialize`.
/// session.handle_exit(now, ExitStatusInfo::code(1));
/// let Some(Event::RequestDone { outcome: Err(RequestFailure::Closed(cause)), .. }) = session.poll_event() else {
///     panic!("initialize did not fail")
/// };
/// assert_eq!(cause, CloseCause::Exited(ExitStatusInfo::code(1)));
/// assert_eq!(cause.to_string(), "the CLI exited (exit code 1)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseCause {
    /// The CLI's stdout ended.
    StdoutClosed,
    /// The CLI exited.
    Exited(ExitStatusInfo),
    /// The host closed the session.
    ClosedByHost,
    /// The session closed itself ([`Event::Closing`]).
    Ended,
}

impl fmt::Display for CloseCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloseCause::StdoutClosed => write!(f, "the CLI closed its stdout"),
            CloseCause::Exited(status) => write!(f, "the CLI exited ({status})"),
            CloseCause::ClosedByHost => write!(f, "the session was closed"),
            CloseCause::Ended => write!(f, "the session closed itself"),
        }
    }
}

/// Why a control request did not succeed.
///
/// A request the CLI does not know is refused (the answer below is a real CLI's):
///
/// ```
/// # use claude_agent_tokio::Json;
/// use std::time::Instant;
/// use claude_agent_tokio::control::ControlRequest;
/// use claude_agent_tokio::session::RequestFailure;
/// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// let body = "{}".parse::<Json>().unwrap();
/// let id = session.request(now, ControlRequest::Raw { subtype: "bogus_subtype".into(), body }).unwrap();
/// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"error","request_id":"req_1","error":"Unsupported control request subtype: bogus_subtype","error_code":"unsupported_request"}}
/// "#);
/// let Some(Event::RequestDone { id: done, outcome }) = session.poll_event() else { panic!("no answer") };
/// assert_eq!(done, id);
/// match outcome {
///     Err(RequestFailure::Refused { code: Some(code), .. }) if code == "unsupported_request" => {
///         // An older CLI: go on without this feature.
///     }
///     Err(failure) => panic!("{failure}"),
///     Ok(_) => panic!("unexpected success"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestFailure {
    /// The CLI answered with an error.
    #[error("the CLI refused the request: {message}")]
    Refused {
        /// The CLI's error text.
        message: String,
        /// The CLI's `error_code`, e.g. `unsupported_request`.
        code: Option<String>,
    },
    /// No answer came before the deadline.
    #[error("no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// The session ended before an answer came.
    #[error("the session ended before the CLI answered: {0}")]
    Closed(CloseCause),
    /// The CLI answered `initialize` without confirming something the session must not run
    /// without: that it honours fail-closed hooks (`hook_on_failure_supported`, `hooks_applied`),
    /// or that it read the MCP servers sent in `initialize` (`mcp_servers_applied`). The text
    /// says which, and what to change. No user message was written.
    ///
    /// ```
    /// # use claude_agent_tokio::session::RequestFailure;
    /// let failure = RequestFailure::Unconfirmed("the CLI did not register the hooks".into());
    /// assert_eq!(failure.to_string(), "the CLI did not register the hooks");
    /// ```
    #[error("{0}")]
    Unconfirmed(String),
}

/// How the session ended.
///
/// ```
/// use claude_agent_tokio::session::Termination;
///
/// fn report(end: &Termination) -> String {
///     match end {
///         Termination::Completed => "done".into(),
///         Termination::ErrorResult(error) => format!("Claude failed: {}", error.message),
///         Termination::ProcessFailed(status) => format!("the CLI failed ({status})"),
///         Termination::ClosedByHost => "stopped".into(),
///         _ => "ended".into(),
///     }
/// }
/// assert_eq!(report(&Termination::Completed), "done");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Termination {
    /// The CLI exited with status 0.
    Completed,
    /// The CLI exited non-zero right after an error `result`: that result is the error, not the
    /// exit status (after an error result the CLI exits 1 once its stdin closes).
    ErrorResult(Box<ResultError>),
    /// The CLI failed (non-zero exit or signal) after the session had started, with no error
    /// result to explain it.
    ProcessFailed(ExitStatusInfo),
    /// The session never started: the CLI said it could not start it (an error result with a
    /// [`StartupFailureReason`]), or it exited non-zero before answering `initialize` (an option
    /// it rejects, a settings file it cannot read; its stderr says which).
    StartFailed(Box<StartFailure>),
    /// The host closed the session itself.
    ClosedByHost,
    /// The session closed itself ([`Event::Closing`]).
    Ended(EndReason),
}

/// Why the session closed itself ([`Event::Closing`], [`Termination::Ended`]).
///
/// ```
/// use std::time::{Duration, Instant};
/// use claude_agent_tokio::session::{EndReason, Event, InputMode, RequestFailure, Session, SessionConfig};
///
/// // A CLI that never answers `initialize`: the session gives up, and closes.
/// let start = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), start);
/// let deadline = session.poll_timeout().unwrap();
/// session.handle_timeout(deadline);
/// let closing = std::iter::from_fn(|| session.poll_event()).find_map(|event| match event {
///     Event::Closing(reason) => Some(reason),
///     _ => None,
/// });
/// assert_eq!(closing, Some(EndReason::InitializeFailed(RequestFailure::Timeout(Duration::from_secs(60)))));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EndReason {
    /// The turn stalled, and the stall watch says to close
    /// ([`OnStall::InterruptThenClose`](super::OnStall::InterruptThenClose)).
    Stalled(crate::message::Stall),
    /// A budget was exceeded: the session's own, or one the host reported
    /// ([`Session::budget_report`](super::Session::budget_report)).
    OverBudget(Box<crate::cost::BudgetReport>),
    /// `initialize` failed (refused, unconfirmed, timed out): the session cannot go on.
    InitializeFailed(RequestFailure),
    /// The host lost the session's place in a fleet shared by many hosts (its lease ran out, or
    /// another host took the session over): the session stops, so that it runs on one host
    /// only ([`Session::place_lost`](super::Session::place_lost)).
    PlaceLost,
    /// The CLI's input had ended, and it was still waiting for its background work (a
    /// background shell, such as a dev server) this long after its last turn: the session
    /// ends it, and with it that work, as the CLI's own ceiling says it would
    /// ([`Timeouts::run_end_ceiling`](super::Timeouts::run_end_ceiling)). No turn was cut
    /// short, so the client reports no error for it.
    BackgroundWaitPassed(Duration),
    /// Reading the CLI's stdout failed with this error
    /// ([`Session::handle_stdout_error`](super::Session::handle_stdout_error)): nothing more
    /// of the session can be read.
    StdoutFailed(String),
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::Stalled(stall) => write!(f, "{stall}"),
            EndReason::OverBudget(report) => write!(f, "{report}"),
            EndReason::InitializeFailed(failure) => write!(f, "initialize failed: {failure}"),
            EndReason::BackgroundWaitPassed(after) => write!(
                f,
                "the CLI was still waiting for its background work {after:?} after its last \
                 turn, with its input ended: it was stopped"
            ),
            EndReason::StdoutFailed(error) => write!(f, "reading the CLI's output failed: {error}"),
            EndReason::PlaceLost => f.write_str(
                "the host lost the session's place in its fleet (its lease ran out, or another \
                 host took the session over)",
            ),
        }
    }
}

/// Why a session never started ([`Termination::StartFailed`]): what the CLI said, if it said
/// anything, and how it exited.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::message::StartupFailureReason;
/// use claude_agent_tokio::session::{Event, ExitStatusInfo, InputMode, Session, SessionConfig, Termination};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// // How the real CLI refuses a start (here: `HTTPS_PROXY` is not a URL): an error result
/// // with its reason instead of the answer to `initialize`, then exit status 1.
/// session.handle_stdout(now, br#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"errors":["HTTPS_PROXY is not a valid URL"],"startup_failure_reason":"proxy_invalid","session_id":"s"}
/// "#);
/// session.handle_stdout_eof(now);
/// session.handle_exit(now, ExitStatusInfo::code(1));
/// let end = std::iter::from_fn(|| session.poll_event()).find_map(|event| match event {
///     Event::Finished(end) => Some(end),
///     _ => None,
/// });
/// let Some(Termination::StartFailed(failure)) = end else { panic!("not a refused start") };
/// assert_eq!(failure.reason, Some(StartupFailureReason::ProxyInvalid));
/// assert_eq!(failure.message.as_deref(), Some("HTTPS_PROXY is not a valid URL"));
/// assert_eq!(failure.exit, ExitStatusInfo::code(1));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the Claude Code CLI could not start the session{}{} ({exit})", reason.as_ref().map(|r| format!(" ({})", r.as_str())).unwrap_or_default(), message.as_ref().map(|m| format!(": {m}")).unwrap_or_default())]
#[non_exhaustive]
pub struct StartFailure {
    /// Why, when the CLI said so: the `startup_failure_reason` of its error result.
    pub reason: Option<StartupFailureReason>,
    /// The CLI's explanation, when it wrote an error result (as [`ResultError::message`]).
    pub message: Option<String>,
    /// How the CLI exited.
    pub exit: ExitStatusInfo,
}

/// What to do about a failed API call the user can fix, said after the CLI's own message (which
/// names neither the variable nor the command).
fn what_to_do(api_error: Option<&ApiError>) -> &'static str {
    match api_error {
        Some(ApiError::AuthenticationFailed) => {
            " (the API refused the credentials: set ANTHROPIC_API_KEY, or log in once by running \
             `claude`)"
        }
        _ => "",
    }
}

/// The last error `result` of a session, carried by [`Termination::ErrorResult`].
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::session::{Event, ExitStatusInfo, InputMode, Session, SessionConfig, Termination};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// // How a real CLI ends a run that hit `--max-turns 1`: an error result, then exit status 1.
/// session.handle_stdout(now, br#"{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":2,"terminal_reason":"max_turns","errors":["Reached maximum number of turns (1)"],"session_id":"s"}
/// "#);
/// session.handle_stdout_eof(now);
/// session.handle_exit(now, ExitStatusInfo::code(1));
/// let end = std::iter::from_fn(|| session.poll_event()).find_map(|event| match event {
///     Event::Finished(end) => Some(end),
///     _ => None,
/// });
/// let Some(Termination::ErrorResult(error)) = end else { panic!("not an error result") };
/// assert_eq!(error.subtype, "error_max_turns");
/// assert_eq!(error.message, "Reached maximum number of turns (1)");
/// assert_eq!((error.terminal_reason.as_deref(), error.exit), (Some("max_turns"), ExitStatusInfo::code(1)));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("Claude Code returned an error result: {message}{}", what_to_do(api_error.as_ref()))]
#[non_exhaustive]
pub struct ResultError {
    /// The result subtype (`error_max_turns`, `error_during_execution`, `success` with `is_error`, …).
    pub subtype: String,
    /// A readable explanation, as the official SDKs pick it: the `errors` joined with "; ",
    /// else the `result` text, else a subtype other than `success`, else
    /// `API error (HTTP <status>)`, else `unknown error`.
    pub message: String,
    /// `errors` of the result.
    pub errors: Vec<String>,
    /// `terminal_reason` of the result.
    pub terminal_reason: Option<String>,
    /// HTTP status of a failed API call.
    pub api_error_status: Option<u16>,
    /// The API's error type of a failed API call (`invalid_request_error`, …).
    pub api_error_type: Option<String>,
    /// How the CLI classified the failed API call the turn ended on (the `error` of its last
    /// assistant message): whether waiting helps ([`ApiError::may_pass_on_retry`]) or something
    /// must change.
    pub api_error: Option<ApiError>,
    /// Why the CLI refused to start, when that is what the result reports (a session ends with
    /// [`Termination::StartFailed`] then, not with this error).
    pub startup_failure: Option<StartupFailureReason>,
    /// The session id.
    pub session_id: String,
    /// The exit status that followed.
    pub exit: ExitStatusInfo,
}
