use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::control::RequestFailure;
use crate::options::OptionsError;
use crate::session::{ExitStatusInfo, LineError, ResultError, SendError};

/// How to install the CLI, shown when it cannot be found.
pub const INSTALL_HINT: &str = "npm install -g @anthropic-ai/claude-code";

/// Everything that can go wrong in [`super::query_with`] and [`super::Client`].
///
/// [`Error::Protocol`] is recoverable: it comes as one item of the message stream and the stream
/// goes on. The others end what they are reported from.
///
/// ```
/// # use claude_agent_core::client::Error;
/// let err = Error::CliNotFound { searched: vec!["/usr/local/bin/claude".into()], hint: "npm install -g @anthropic-ai/claude-code" };
/// assert!(err.to_string().contains("npm install"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No `claude` executable was found.
    #[error(
        "Claude Code CLI not found (looked in {}); install it with `{hint}` or set `cli_path`",
        display_paths(searched)
    )]
    CliNotFound {
        /// Every place that was looked at, in order.
        searched: Vec<PathBuf>,
        /// How to install it.
        hint: &'static str,
    },
    /// The working directory set with `Options::cwd` does not exist or is not a directory, so
    /// the CLI could not be started in it.
    ///
    /// ```
    /// # use claude_agent_core::client::Error;
    /// let err = Error::WorkingDirectory {
    ///     path: "/no/such/dir".into(),
    ///     source: std::io::ErrorKind::NotFound.into(),
    /// };
    /// assert!(err.to_string().starts_with("the working directory /no/such/dir cannot be used"));
    /// ```
    #[error(
        "the working directory {} cannot be used: {source}; set `cwd` to an existing directory",
        path.display()
    )]
    WorkingDirectory {
        /// The directory, as set in the options.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The CLI was found but could not be started.
    #[error("could not start the Claude Code CLI at {}: {source}", program.display())]
    Spawn {
        /// What was started.
        program: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The transport set with `Options::transport` could not open a connection.
    #[error("the transport could not connect to the Claude Code CLI: {0}")]
    Connect(#[source] io::Error),
    /// The file of `Options::record_to` could not be opened (the session did not start) or
    /// written (recording stopped; this came as one item of the stream, which goes on).
    #[error("could not record the session to {}: {source}", path.display())]
    Record {
        /// The recording file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The CLI failed (non-zero exit or a signal) with no error result to explain it.
    #[error("the Claude Code CLI failed ({exit}){}", stderr_suffix(stderr_tail))]
    Process {
        /// How it ended.
        exit: ExitStatusInfo,
        /// The last lines it wrote on stderr (at most 8 KiB).
        stderr_tail: String,
    },
    /// The CLI ended the session with an error `result` (max turns, API error, interrupted…) and
    /// exited non-zero. The result message itself was delivered before this error.
    #[error(transparent)]
    Result(Box<ResultError>),
    /// A control request got no answer in time. If the CLI answers it later, that answer is
    /// dropped: the session goes on, and no error item comes of it.
    #[error("the CLI did not answer the control request within {0:?}")]
    ControlTimeout(Duration),
    /// The CLI answered a control request with an error.
    #[error("the CLI refused the control request: {message}")]
    ControlRefused {
        /// The CLI's error text.
        message: String,
        /// The CLI's error code, if any.
        code: Option<String>,
    },
    /// A control response came, but its body did not have the expected shape.
    #[error("unexpected control response body: {0}")]
    Response(#[source] serde_json::Error),
    /// A stdout line could not be used. Recoverable: the stream goes on.
    #[error(transparent)]
    Protocol(LineError),
    /// User input has already ended (the prompt was a single turn, or input was ended).
    #[error("user input has already ended")]
    InputEnded,
    /// The session is over (closed, or the CLI is gone).
    #[error("the session is closed")]
    Closed,
    /// The options are invalid.
    #[error(transparent)]
    Options(#[from] OptionsError),
}

impl Error {
    pub(crate) fn from_failure(failure: RequestFailure) -> Error {
        match failure {
            RequestFailure::Refused { message, code } => Error::ControlRefused { message, code },
            RequestFailure::Timeout(after) => Error::ControlTimeout(after),
            // `RequestFailure` is non-exhaustive; anything else means there will be no answer.
            _ => Error::Closed,
        }
    }

    pub(crate) fn from_send(error: SendError) -> Error {
        match error {
            SendError::InputEnded => Error::InputEnded,
            _ => Error::Closed,
        }
    }
}

fn display_paths(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

fn stderr_suffix(tail: &str) -> String {
    let tail = tail.trim_end();
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {tail}")
    }
}
