/// Why [`super::Session::send_user`] refused a message.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::message::UserInput;
/// use claude_agent_tokio::session::{InputMode, SendError, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::SingleTurn), now);
/// session.send_user(now, UserInput::text("What is 2 + 2?")).unwrap();
/// // A single-turn session takes one prompt.
/// assert_eq!(session.send_user(now, UserInput::text("And 3 + 3?")), Err(SendError::InputEnded));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// Input was ended (by `end_input`, a single-turn prompt, or the session closing).
    #[error("user input has already ended")]
    InputEnded,
    /// The session is over.
    #[error("the session is closed")]
    Closed,
    /// The CLI is a spare waiting for its claim: [`super::Session::claim`] it first.
    #[error("the CLI waits for a claim; claim it before sending a message")]
    NotClaimed,
}

/// Why [`super::Session::claim`] wrote nothing.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::control::ClaimOptions;
/// use claude_agent_tokio::session::{InputMode, Session, SessionConfig, StartClaimError};
///
/// let now = Instant::now();
/// // A CLI started without `--await-claim` is no spare.
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// let refused = session.claim(now, &ClaimOptions::new("/srv/app"));
/// assert_eq!(refused, Err(StartClaimError::NotASpare));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StartClaimError {
    /// The session's configuration has no [`super::SessionConfig::await_claim`].
    #[error("the CLI was not started with --await-claim")]
    NotASpare,
    /// The spare was claimed already (claims are single use).
    #[error("the spare was claimed already")]
    AlreadyClaimed,
    /// The session cannot write any more (closed, or the CLI exited).
    #[error("the session is closed")]
    Closed,
}

/// Why [`super::Session::request`] refused a control request.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::control::ControlRequest;
/// use claude_agent_tokio::session::{InputMode, RequestError, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.limits.max_pending_requests = 1; // `initialize` is pending already
/// let mut session = Session::new(config, now);
/// assert_eq!(session.request(now, ControlRequest::McpStatus), Err(RequestError::TooManyPending(1)));
/// session.close(now);
/// assert_eq!(session.request(now, ControlRequest::McpStatus), Err(RequestError::Closed));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// Too many requests are already waiting for an answer.
    #[error("{0} control requests are already pending")]
    TooManyPending(usize),
    /// stdin is closed, so the request cannot be written.
    #[error("the CLI's stdin is closed")]
    InputClosed,
    /// The session is over.
    #[error("the session is closed")]
    Closed,
}

/// Why [`super::Session::respond`] did not write a reply.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::control::Reply;
/// use claude_agent_tokio::hooks::HookOutput;
/// use claude_agent_tokio::session::{Event, InputMode, RespondError, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.can_use_tool = true;
/// let mut session = Session::new(config, now);
/// session.handle_stdout(now, br#"{"type":"control_request","request_id":"0f340601-0e16-4764-92e4-fc1465c611a6","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls -la /"},"tool_use_id":"toolu_fake_1_1"}}
/// "#);
/// let Some(Event::Inbound(request)) = session.poll_event() else { panic!("no request") };
/// // A permission prompt needs a permission answer, not a hook output.
/// let wrong = session.respond(now, request.id, Reply::Hook(HookOutput::default()));
/// assert!(matches!(wrong, Err(RespondError::WrongKind { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RespondError {
    /// No inbound request with this id is waiting (already answered, or never existed).
    #[error("no pending inbound request with this id")]
    UnknownId,
    /// The CLI withdrew the request (`control_cancel_request`); no answer is written.
    #[error("the CLI cancelled this request")]
    Cancelled,
    /// The request's time limit passed and the session answered it in the host's place
    /// ([`Event::Expired`](super::Event::Expired)).
    #[error("this request's time limit passed and the session answered it")]
    Expired,
    /// The reply does not fit the request (e.g. a hook output for a permission prompt).
    #[error("a {reply} reply cannot answer a {request} request")]
    WrongKind {
        /// Kind of the reply given.
        reply: &'static str,
        /// Kind of the request.
        request: &'static str,
    },
    /// stdin is already closed.
    #[error("the CLI's stdin is closed")]
    InputClosed,
}
