//! A recording played to its end as a whole host plays a session: answering the CLI's requests
//! by a rule, ending the input, reporting the end of stdout and the exit, and comparing the
//! host's answers with the recorded host's.

use std::time::Instant;

use serde_json::Value;

use super::{Pace, Recording};
use crate::control::{InboundRequest, Reply};
use crate::session::{Event, ExitStatusInfo, Session, Termination, Transmit};
use crate::Json;

/// How many deadlines [`Recording::play`] hands the session after the end at most: a session
/// that keeps asking for the time after its CLI is gone is a bug the play stops at.
const DEADLINES_AFTER_THE_END: usize = 64;

/// What [`Recording::play`] saw: everything the session handed the host, in order, and where
/// the host's answers differ from the recorded host's.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_core::permission::PermissionResult;
/// use claude_agent_core::control::{InboundKind, Reply};
/// use claude_agent_core::recording::{Pace, Recording};
/// use claude_agent_core::session::{ExitStatusInfo, InputMode, Session, Termination};
///
/// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/permission_deny.jsonl"));
/// let recording = Recording::parse(text).unwrap();
/// let pace = Pace::new(Instant::now());
/// let mut session = Session::new(recording.session_config(InputMode::SingleTurn), pace.start);
/// // The host's rule: every tool is refused, with the recorded host's words.
/// let played = recording.play(&mut session, &pace, ExitStatusInfo::code(0), |request| match &request.kind {
///     InboundKind::CanUseTool(_) => Some(Reply::Permission(PermissionResult::deny("not allowed by policy"))),
///     _ => None,
/// });
/// assert!(played.answers_differing.is_empty(), "{:?}", played.answers_differing);
/// assert!(played.unanswered.is_empty());
/// assert_eq!(played.answers_checked, 1);
/// assert_eq!(played.termination(), Some(&Termination::Completed));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Played {
    /// Every event the session handed out, in order, its [`Event::Finished`] last.
    pub events: Vec<Event>,
    /// Everything the session asked of the CLI process, in order: its writes, the close of
    /// stdin, and any signal or release of the pipes.
    pub transmits: Vec<Transmit>,
    /// Each answer the host wrote that is not the recorded host's answer to the same request
    /// (or answers a request the recorded host did not answer), in order. Empty when the host
    /// answered as the recording did.
    pub answers_differing: Vec<DifferentAnswer>,
    /// The CLI's requests (by their `wire_id`) that the recorded host answered and this one did
    /// not, in the order they came.
    pub unanswered: Vec<String>,
    /// How many answers were written and compared, the session's own (to the in-process MCP
    /// servers' `initialize` and `tools/list`, say) included.
    pub answers_checked: usize,
}

impl Played {
    /// How the session ended, if it did ([`Event::Finished`]).
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_core::recording::{Pace, Recording};
    /// use claude_agent_core::session::{ExitStatusInfo, InputMode, Session, Termination};
    ///
    /// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/hello.jsonl"));
    /// let recording = Recording::parse(text).unwrap();
    /// let pace = Pace::new(Instant::now());
    /// let mut session = Session::new(recording.session_config(InputMode::SingleTurn), pace.start);
    /// let played = recording.play(&mut session, &pace, ExitStatusInfo::signal(9), |_| None);
    /// assert!(matches!(played.termination(), Some(Termination::ProcessFailed(_))));
    /// ```
    pub fn termination(&self) -> Option<&Termination> {
        self.events.iter().rev().find_map(|event| match event {
            Event::Finished(termination) => Some(termination),
            _ => None,
        })
    }
}

/// An answer of the host that is not the recorded one ([`Played::answers_differing`]).
///
/// ```
/// use std::time::Instant;
/// use claude_agent_core::permission::PermissionResult;
/// use claude_agent_core::control::Reply;
/// use claude_agent_core::recording::{Pace, Recording};
/// use claude_agent_core::session::{ExitStatusInfo, InputMode, Session};
///
/// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/permission_deny.jsonl"));
/// let recording = Recording::parse(text).unwrap();
/// let pace = Pace::new(Instant::now());
/// let mut session = Session::new(recording.session_config(InputMode::SingleTurn), pace.start);
/// // A host that allows what the recorded host refused.
/// let played = recording.play(&mut session, &pace, ExitStatusInfo::code(0), |_| {
///     Some(Reply::Permission(PermissionResult::allow()))
/// });
/// let differing = &played.answers_differing[0];
/// assert_eq!(differing.recorded.as_ref().unwrap().as_str(), r#"{"behavior":"deny","message":"not allowed by policy"}"#);
/// assert!(differing.ours.as_str().contains(r#""behavior":"allow""#));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DifferentAnswer {
    /// The CLI's id of the request answered.
    pub wire_id: String,
    /// The recorded host's answer (the `response` of its `control_response`), if it answered.
    pub recorded: Option<Json>,
    /// The host's answer: the `response` of the `control_response` the session wrote, or the
    /// whole `response` object for an error.
    pub ours: Json,
}

impl Recording {
    /// Play the recording through `session` (made from [`Recording::session_config`], at
    /// `pace.start`) to its end, as a host of the core alone plays a session: everything the
    /// recorded host wrote is written again and everything the CLI printed is fed, as
    /// [`Recording::replay`] does; each request of the CLI is answered with what `answer` gives
    /// (`None`: not answered); then the input is ended, stdout's end and the exit (`exit`)
    /// reported, and the session handed the time until it asks for nothing more. Each answer the
    /// session wrote is compared with the recorded host's answer to the same request
    /// ([`Played::answers_differing`]); answer with `Reply::Raw` of [`Recording::answer_to`] to
    /// play the recorded host exactly. A session whose results wait for the store or for a
    /// charge ([`SessionConfig::results_after_store`], [`SessionConfig::results_after_charge`])
    /// is played as a host whose store and ledger take everything at once: the transcript
    /// frames are stored as they come, and each charge ([`Event::Charge`]) is made.
    ///
    /// [`SessionConfig::results_after_store`]: crate::session::SessionConfig::results_after_store
    /// [`SessionConfig::results_after_charge`]: crate::session::SessionConfig::results_after_charge
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_core::control::Reply;
    /// use claude_agent_core::recording::{Pace, Recording};
    /// use claude_agent_core::session::{ExitStatusInfo, InputMode, Session, Termination, Transmit};
    ///
    /// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/hook_deny.jsonl"));
    /// let recording = Recording::parse(text).unwrap();
    /// let pace = Pace::new(Instant::now());
    /// let mut session = Session::new(recording.session_config(InputMode::SingleTurn), pace.start);
    /// let played = recording.play(&mut session, &pace, ExitStatusInfo::code(0), |request| {
    ///     recording.answer_to(&request.wire_id).map(|answer| Reply::Raw(answer.clone()))
    /// });
    /// assert!(played.answers_differing.is_empty());
    /// assert!(played.transmits.contains(&Transmit::CloseStdin));
    /// assert_eq!(played.termination(), Some(&Termination::Completed));
    /// ```
    pub fn play(
        &self,
        session: &mut Session,
        pace: &Pace,
        exit: ExitStatusInfo,
        mut answer: impl FnMut(&InboundRequest) -> Option<Reply>,
    ) -> Played {
        let mut played = Played {
            events: Vec::new(),
            transmits: Vec::new(),
            answers_differing: Vec::new(),
            unanswered: Vec::new(),
            answers_checked: 0,
        };
        let mut now = pace.start;
        // The wire ids of every answer written.
        let mut answered: Vec<String> = Vec::new();
        self.replay(session, pace, |session, at| {
            now = at;
            self.drain(session, at, &mut answer, &mut played, &mut answered);
        });
        session.end_input(now);
        self.drain(session, now, &mut answer, &mut played, &mut answered);
        session.handle_stdout_eof(now);
        self.drain(session, now, &mut answer, &mut played, &mut answered);
        session.handle_exit(now, exit);
        self.drain(session, now, &mut answer, &mut played, &mut answered);
        for _ in 0..DEADLINES_AFTER_THE_END {
            let Some(due) = session.poll_timeout() else {
                break;
            };
            now = now.max(due);
            session.handle_timeout(now);
            self.drain(session, now, &mut answer, &mut played, &mut answered);
        }
        let mut unanswered = Vec::new();
        for event in &played.events {
            if let Event::Inbound(request) = event {
                if self.answer_to(&request.wire_id).is_some()
                    && !answered.contains(&request.wire_id)
                {
                    unanswered.push(request.wire_id.clone());
                }
            }
        }
        played.unanswered = unanswered;
        played
    }

    /// Take every event (answering the CLI's requests) and every transmit (checking the
    /// answers written), until the session has none.
    fn drain(
        &self,
        session: &mut Session,
        now: Instant,
        answer: &mut impl FnMut(&InboundRequest) -> Option<Reply>,
        played: &mut Played,
        answered: &mut Vec<String>,
    ) {
        loop {
            let mut any = false;
            while let Some(event) = session.poll_event() {
                any = true;
                match &event {
                    Event::Inbound(request) => {
                        if let Some(reply) = answer(request) {
                            // Refused only for a request withdrawn meanwhile: nothing is owed.
                            let _ = session.respond(now, request.id, reply);
                        }
                    }
                    // The ledger takes the charge at once.
                    Event::Charge(_) => session.turn_charged(),
                    _ => {}
                }
                played.events.push(event);
            }
            // The store has every frame it was handed.
            if session.waits_for_store() {
                session.store_flushed();
                any |= !session.waits_for_store();
            }
            while let Some(transmit) = session.poll_transmit() {
                any = true;
                if let Transmit::Write(bytes) = &transmit {
                    self.check_answers(bytes, played, answered);
                }
                played.transmits.push(transmit);
            }
            if !any {
                return;
            }
        }
    }

    /// Compare each `control_response` in `bytes` with the recorded answer to its request.
    fn check_answers(&self, bytes: &[u8], played: &mut Played, answered: &mut Vec<String>) {
        for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let Ok(value) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            if value["type"] != "control_response" {
                continue;
            }
            let response = &value["response"];
            let Some(wire_id) = response["request_id"].as_str() else {
                continue;
            };
            let ours = match response.get("response") {
                Some(body) => body,
                None => response,
            };
            played.answers_checked += 1;
            answered.push(wire_id.to_owned());
            let recorded = self.answer_to(wire_id);
            let same = recorded
                .and_then(|recorded| serde_json::from_str::<Value>(recorded.as_str()).ok())
                .is_some_and(|recorded| recorded == *ours);
            if !same {
                played.answers_differing.push(DifferentAnswer {
                    wire_id: wire_id.to_owned(),
                    recorded: recorded.cloned(),
                    ours: Json::from_serialize(ours).expect("a JSON value serialises"),
                });
            }
        }
    }
}
