/// Why [`super::Session::send_user`] refused a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// Input was ended (by `end_input`, a single-turn prompt, or the session closing).
    #[error("user input has already ended")]
    InputEnded,
    /// The session is over.
    #[error("the session is closed")]
    Closed,
}

/// Why [`super::Session::request`] refused a control request.
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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RespondError {
    /// No inbound request with this id is waiting (already answered, or never existed).
    #[error("no pending inbound request with this id")]
    UnknownId,
    /// The CLI withdrew the request (`control_cancel_request`); no answer is written.
    #[error("the CLI cancelled this request")]
    Cancelled,
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
