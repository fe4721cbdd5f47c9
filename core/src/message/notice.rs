//! What the SDK itself reports in the message stream: a stdout line it could not use, a
//! recording that stopped. Never a line the CLI printed, and never the end of a session.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

#[cfg(doc)]
use super::Message;
use crate::Json;

/// A report from the SDK in the message stream ([`Message::Notice`]): something went wrong
/// with one line or with the recording, and the session goes on. A loop that reads messages
/// with `?` keeps running through it; look at it, log it, or let the `_` arm skip it.
///
/// ```
/// use claude_agent_tokio::message::{LineError, Message, Notice, NoticeKind};
///
/// fn show(message: &Message) {
///     match message {
///         Message::Notice(notice) => match &notice.kind {
///             NoticeKind::UnreadableLine(error) => eprintln!("skipped a line: {error}"),
///             NoticeKind::RecordingStopped { path, error } => {
///                 eprintln!("no longer recording to {}: {error}", path.display())
///             }
///             _ => eprintln!("{}", notice.raw_json()),
///         },
///         other => println!("{}", other.raw_json()),
///     }
/// }
/// let notice = Notice::new(NoticeKind::UnreadableLine(LineError::TooLong { len: 20, limit: 10 }));
/// assert_eq!(
///     notice.raw_json(),
///     r#"{"type":"sdk_notice","kind":"unreadable_line","message":"stdout line of 20 bytes exceeds the limit of 10 bytes; skipped"}"#
/// );
/// show(&Message::Notice(Box::new(notice)));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Notice {
    /// What happened.
    pub kind: NoticeKind,
    raw: Json,
}

/// What a [`Notice`] reports.
///
/// ```
/// use claude_agent_tokio::message::{LineError, NoticeKind};
///
/// /// Worth waking someone for? A stray line is not; a recording that stopped is.
/// fn serious(kind: &NoticeKind) -> bool {
///     !matches!(kind, NoticeKind::UnreadableLine(_))
/// }
/// let stray = NoticeKind::UnreadableLine(LineError::NotJson {
///     error: "expected value".into(),
///     snippet: "Debugger attached.".into(),
/// });
/// assert!(!serious(&stray));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum NoticeKind {
    /// A stdout line could not be used. A line of a known kind whose fields did not fit comes
    /// next as [`Message::Unknown`]; a line that is not JSON, or over the line limit, is skipped.
    /// Report it if it repeats: the CLI may be a version this SDK does not know.
    UnreadableLine(LineError),
    /// Writing the recording (`Options::record_to`) failed: recording stopped, the session goes
    /// on without it.
    RecordingStopped {
        /// The recording's file.
        path: PathBuf,
        /// The operating system's error.
        error: Arc<io::Error>,
    },
    /// The running turn stalled (`Options::stall_watch`): the CLI has been silent past the
    /// limit while nothing explains it. With `OnStall::Interrupt` the turn is being
    /// interrupted too.
    Stalled(Stall),
    /// The CLI accepted an interrupt but did not apply it: no turn was running, or the turn
    /// ended without being interrupted (it finished before the interrupt reached it).
    InterruptNotApplied(InterruptNotApplied),
    /// A budget is nearly spent (`Options::budget`, or a fleet key's): the warning share of a
    /// limit was crossed. The session goes on; at the limit it ends with an over-budget error.
    Budget(crate::cost::BudgetReport),
}

/// Kinds are equal when they say the same; two operating system errors when their kind and
/// text are.
impl PartialEq for NoticeKind {
    fn eq(&self, other: &NoticeKind) -> bool {
        match (self, other) {
            (NoticeKind::UnreadableLine(a), NoticeKind::UnreadableLine(b)) => a == b,
            (
                NoticeKind::RecordingStopped { path, error },
                NoticeKind::RecordingStopped {
                    path: other_path,
                    error: other_error,
                },
            ) => {
                path == other_path
                    && error.kind() == other_error.kind()
                    && error.to_string() == other_error.to_string()
            }
            (NoticeKind::Stalled(a), NoticeKind::Stalled(b)) => a == b,
            (NoticeKind::InterruptNotApplied(a), NoticeKind::InterruptNotApplied(b)) => a == b,
            (NoticeKind::Budget(a), NoticeKind::Budget(b)) => a == b,
            _ => false,
        }
    }
}

/// Why an interrupt the CLI accepted changed nothing ([`NoticeKind::InterruptNotApplied`]).
///
/// ```
/// use claude_agent_tokio::message::InterruptNotApplied;
///
/// let why = InterruptNotApplied::TurnEndedAnyway;
/// assert_eq!(why.to_string(), "the interrupt was not applied: the turn ended without being interrupted");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InterruptNotApplied {
    /// No turn was running when it was sent, nor when the CLI answered.
    NoTurnRunning,
    /// The turn it was sent into ended with an ordinary result: it finished first.
    TurnEndedAnyway,
}

impl std::fmt::Display for InterruptNotApplied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InterruptNotApplied::NoTurnRunning => {
                "the interrupt was not applied: no turn was running"
            }
            InterruptNotApplied::TurnEndedAnyway => {
                "the interrupt was not applied: the turn ended without being interrupted"
            }
        })
    }
}

/// A stall: how long the CLI was silent, what it said last, and which of its tool calls were
/// running.
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::message::Stall;
///
/// fn describe(stall: &Stall) -> String {
///     format!("no word from the CLI for {:?} (last: {:?}, running: {:?})",
///         stall.idle_for, stall.last_event, stall.in_flight_tools)
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stall {
    /// How long the CLI had been silent.
    pub idle_for: Duration,
    /// The kind of the CLI's last line (`assistant`, `system/api_retry`, …); `None` when it
    /// said nothing since the prompt.
    pub last_event: Option<String>,
    /// The tools whose calls were running (name, by `tool_use` id order).
    pub in_flight_tools: Vec<String>,
}

impl std::fmt::Display for Stall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the CLI has been silent for {:.1} s during a turn",
            self.idle_for.as_secs_f64()
        )?;
        if let Some(last) = &self.last_event {
            write!(f, " (its last line: {last})")?;
        }
        if !self.in_flight_tools.is_empty() {
            write!(f, " while running {}", self.in_flight_tools.join(", "))?;
        }
        Ok(())
    }
}

/// The JSON form of a notice, `type` first as in the CLI's own lines.
#[derive(Serialize)]
struct NoticeJson<'a> {
    #[serde(rename = "type")]
    kind_of_message: &'static str,
    kind: &'static str,
    message: &'a str,
}

impl Notice {
    /// A notice of `kind`, with its JSON form.
    pub fn new(kind: NoticeKind) -> Notice {
        let (name, message) = match &kind {
            NoticeKind::UnreadableLine(error) => ("unreadable_line", error.to_string()),
            NoticeKind::RecordingStopped { path, error } => (
                "recording_stopped",
                format!("recording to {} stopped: {error}", path.display()),
            ),
            NoticeKind::Stalled(stall) => ("stalled", stall.to_string()),
            NoticeKind::Budget(report) => ("budget", report.to_string()),
            NoticeKind::InterruptNotApplied(why) => ("interrupt_not_applied", why.to_string()),
        };
        let json = NoticeJson {
            kind_of_message: "sdk_notice",
            kind: name,
            message: &message,
        };
        let raw = Json::from_serialize(&json).expect("strings serialize");
        Notice { kind, raw }
    }

    /// The notice as one JSON object: `{"type":"sdk_notice","kind":…,"message":…}`. The CLI
    /// never prints this type; it is what [`Message::raw_json`] gives for a notice, so that a
    /// log of `raw_json` lines stays JSON.
    pub fn raw_json(&self) -> &str {
        self.raw.as_str()
    }
}

/// A stdout line the session could not use.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::message::LineError;
/// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// // Something else wrote to the CLI's stdout, and a known message came with a field of the wrong type.
/// session.handle_stdout(now, b"Debugger attached.\n");
/// session.handle_stdout(now, br#"{"type":"result","subtype":"success","is_error":"no","session_id":"s"}
/// "#);
/// let errors: Vec<LineError> = std::iter::from_fn(|| session.poll_event())
///     .filter_map(|event| match event {
///         Event::LineError(error) => Some(error),
///         _ => None,
///     })
///     .collect();
/// assert!(matches!(&errors[0], LineError::NotJson { snippet, .. } if snippet == "Debugger attached."));
/// assert!(matches!(&errors[1], LineError::Malformed { kind, .. } if kind == "result/success"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The line is not a JSON object with a string `type`.
    #[error("stdout line is not a protocol message ({error}): {snippet}")]
    NotJson {
        /// The parser's complaint.
        error: String,
        /// The start of the line (at most 200 bytes, lossy UTF-8).
        snippet: String,
    },
    /// A line of a known kind that did not parse into its type. If the line is valid JSON (only
    /// its fields did not fit), it is not lost: it comes as [`Message::Unknown`]
    /// right after this error. A line cut off mid-JSON comes only as this error.
    #[error("malformed {kind} message ({error})")]
    Malformed {
        /// The message `type` (and subtype).
        kind: String,
        /// The parser's complaint.
        error: String,
    },
    /// The line was longer than the limit and was skipped up to its end.
    #[error("stdout line of {len} bytes exceeds the limit of {limit} bytes; skipped")]
    TooLong {
        /// Bytes in the line (as far as read when reported).
        len: usize,
        /// The configured limit.
        limit: usize,
    },
    /// A control response for a request id we never sent, or for one already answered. (A late
    /// answer to a request that timed out or failed when the session closed is dropped without
    /// a word: that request's
    /// [`Event::RequestDone`](crate::session::Event::RequestDone) has already told its
    /// outcome.)
    #[error("control response for unknown request id {0}")]
    UnmatchedResponse(String),
}
