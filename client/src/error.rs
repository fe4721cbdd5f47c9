use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::control::ClaimRefusal;
use crate::options::OptionsError;
use crate::session::RequestFailure;
use crate::session::{
    EndReason, ExitStatusInfo, RequestError, ResultError, SendError, StartFailure, Termination,
};

/// How to install the CLI, shown when it cannot be found.
pub const INSTALL_HINT: &str = "npm install -g @anthropic-ai/claude-code";

/// Everything that can go wrong in [`super::query_with`] and [`super::Client`].
///
/// An `Err` in a message stream means the session is over: reading messages with `?` never ends
/// a healthy session. A stdout line the SDK could not use and a recording that stopped are not
/// errors of the stream but [`Message::Notice`](crate::message::Message::Notice) items, and the
/// session goes on. [`Error::ControlTimeout`], [`Error::ControlRefused`], [`Error::Response`] and
/// [`Error::TooManyPendingRequests`] fail only the control call that returns them.
///
/// | Error | What happened | What to do |
/// |---|---|---|
/// | [`CliNotFound`](Error::CliNotFound) | no `claude` executable in `cli_path`, `CLAUDE_AGENT_CLI_PATH`, beside the program, on `PATH` or in the usual install places | install it (`npm install -g @anthropic-ai/claude-code`) or set `cli_path` |
/// | [`WorkingDirectory`](Error::WorkingDirectory) | `Options::cwd` does not exist or is not a directory | create it, or fix the path |
/// | [`Spawn`](Error::Spawn) | the executable was found but the OS would not start it | check its permissions, that it is the real CLI, and the `PATH` its `#!` line needs (`node`) |
/// | [`ResumeElsewhere`](Error::ResumeElsewhere) | `SessionStart::Resume` of a session that ran in another folder (`ran_in`) than the working directory, where the CLI would not find it | set `cwd` to `ran_in`, or resume with `Resume::new(id).in_its_folder()` |
/// | [`NothingToContinue`](Error::NothingToContinue) | `SessionStart::Continue` with no earlier conversation in the working directory (or in the session store), where the CLI would start a new one without a word | set `or_new: true` to accept a new session, or start one with `SessionStart::New` |
/// | [`Stalled`](Error::Stalled) | `Options::stall_watch` with `OnStall::InterruptThenClose`: a turn went silent past the limit (a hung MCP server, a network stall inside the CLI), so it was interrupted and the session closed | resume the session (`SessionStart::Resume`) to try again; look at `last_event` and `in_flight_tools` for what hung |
/// | [`OverBudget`](Error::OverBudget) | `Options::budget`, or the budget of the session's fleet key (`FleetLimits::budget_per_key`), was reached: the turn was interrupted and the session closed | raise the budget, or start another session once the key has room; the report says what was spent |
/// | [`Fleet`](Error::Fleet) | a fleet many hosts share (`Fleet::shared`): its ledger could not be reached when the session asked for a place (nothing started), or this host lost the session's place (its lease ran out while it was cut off or frozen, or another host took the session over) and closed it | check the ledger's database; a lost session goes on on the host that took it over, or resume it from the session store |
/// | [`Resume`](Error::Resume) | `Options::session_store` with a `SessionStart::Resume` or `Continue` start: the store failed or timed out while the session was loaded from it, or the temporary configuration directory could not be written | the source is the store's error; check the store, or raise `Options::session_store_load_timeout` |
/// | [`ConfigFolder`](Error::ConfigFolder) | `Options::isolated_config`: the session's own configuration folder could not be made under the temp directory | check `TMPDIR` and its free space, and that the user's configuration can be read |
/// | [`Connect`](Error::Connect) | your `Options::transport` returned an error | the source is your transport's error |
/// | [`Record`](Error::Record) | the `record_to` file cannot be opened, so the session did not start (a write that fails later stops the recording and comes as a `Message::Notice`) | fix the path or its permissions; give the file's own path, not a symbolic link |
/// | [`StartFailed`](Error::StartFailed) | the session never started: the CLI refused it (`failure.reason` says why: a proxy that is not a URL, a sign-in the gateway ended, `bypassPermissions` as root…) or exited before answering `initialize` (an option or a settings file it rejects) | read `failure.reason` and `failure.message`, else `stderr_tail`; [`Error::finding`] names the causes the launch doctor knows |
/// | [`StdoutFailed`](Error::StdoutFailed) | reading the CLI's output failed (an I/O error, not its end), so nothing more of the session could be read: it was closed and the CLI stopped | the message is the operating system's; with your own `Options::transport`, look at its output side |
/// | [`Process`](Error::Process) | the CLI exited non-zero or was killed after the session had started, with no error result | read `stderr_tail`: a crash, a kill, a lost login |
/// | [`Result`](Error::Result) | a started session ended with an error result (max turns, budget, API error) and the CLI exited non-zero; the result message came before it | read its `subtype`, `errors` and `api_error` (with `may_pass_on_retry()`); raise `max_turns`/`max_budget_usd`, check the API key |
/// | [`ControlTimeout`](Error::ControlTimeout) | a control call got no answer in time | retry, or raise `Options::control_timeout`; the session goes on |
/// | [`ControlRefused`](Error::ControlRefused) | the CLI answered a control call with an error (an unknown model, no such MCP server, a call the CLI does not support) | read its message; the session goes on |
/// | [`Unconfirmed`](Error::Unconfirmed) | the CLI did not confirm a fail-closed hook or the MCP servers sent in `initialize`, so no prompt was sent | update the CLI (`claude --version`), or follow the message: drop `fail_closed`, or deliver MCP servers on the command line |
/// | [`Response`](Error::Response) | a control answer did not have the shape this SDK expects | the CLI's version is not one this SDK supports (`claude --version`) |
/// | [`InputEnded`](Error::InputEnded) | `send` after input ended (a one-turn prompt, or `end_input`) | use a `Client` or `Prompt::stream` for more turns |
/// | [`Closed`](Error::Closed) | the session is over (closed, or the CLI exited) | start a new session, with `SessionStart::Resume` to continue the conversation |
/// | [`Panicked`](Error::Panicked) | code run in the session's task panicked (your prompt stream, your transport, or a bug of this SDK): the CLI was killed | the message says where; a panic of this SDK is a bug to report |
/// | [`TooManyPendingRequests`](Error::TooManyPendingRequests) | 256 control calls were already waiting | wait for some to finish |
/// | [`Options`](Error::Options) | options that contradict each other or cannot be passed to the CLI | its message names the option to change ([`OptionsError`]) |
///
/// ```
/// # use claude_agent_tokio::Error;
/// let err = Error::CliNotFound { searched: vec!["/usr/local/bin/claude".into()], hint: "npm install -g @anthropic-ai/claude-code" };
/// assert!(err.to_string().contains("npm install"));
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No `claude` executable was found.
    #[error(
        "Claude Code CLI not found: install it with `{hint}`, or give its path in \
         `Options::cli_path` or CLAUDE_AGENT_CLI_PATH (looked in {})",
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
    /// # use claude_agent_tokio::Error;
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
    /// The session to resume ran in another folder than the options' working directory, and the
    /// CLI looks for it only in its working directory's history (it would say "No conversation
    /// found").
    #[error(
        "session {session_id} ran in {}, not in {}: set `cwd` to that folder, or resume it with \
         `Resume::new(id).in_its_folder()`",
        ran_in.display(),
        cwd.display()
    )]
    ResumeElsewhere {
        /// The session to resume.
        session_id: String,
        /// The folder it ran in.
        ran_in: PathBuf,
        /// The working directory the session would have started in.
        cwd: PathBuf,
    },
    /// `SessionStart::Continue` found no conversation to continue: none in the working
    /// directory's history (or, with a session store, none in the store for it). The CLI would
    /// silently start a new one.
    #[error(
        "there is no conversation to continue in {}: start a new session, or continue with \
         `or_new: true` to start one when there is none",
        cwd.display()
    )]
    NothingToContinue {
        /// The working directory looked in.
        cwd: PathBuf,
    },
    /// A turn stalled (`Options::stall_watch` with `OnStall::InterruptThenClose`): the CLI was
    /// silent past the limit while nothing explained it, so the turn was interrupted and the
    /// session closed. Not a process failure: the CLI was alive.
    #[error("{0}; the turn was interrupted and the session closed")]
    Stalled(crate::message::Stall),
    /// A budget was exceeded (`Options::budget`, or the session's fleet key's): the running
    /// turn was interrupted and the session closed. The report says whose budget, and what had
    /// been spent.
    #[error("{0}; the turn was interrupted and the session closed")]
    OverBudget(Box<crate::cost::BudgetReport>),
    /// The session's fleet, shared by many hosts ([`Fleet::shared`](crate::Fleet::shared)):
    /// its ledger could not be reached, so nothing started, or this host lost the session's
    /// place, so the session was closed ([`FleetError`]).
    #[error(transparent)]
    Fleet(FleetError),
    /// `Options::isolated_config`: the session's configuration folder could not be made.
    #[error(
        "could not make the session's own configuration folder ({}): {source}; check the temp \
         directory (TMPDIR) and that the user's configuration can be read",
        path.display()
    )]
    ConfigFolder {
        /// The file or folder that could not be written.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The CLI was found but could not be started.
    #[error(
        "could not start the Claude Code CLI at {}: {source}; check that it is an executable \
         `claude` (or point `cli_path` / `CLAUDE_AGENT_CLI_PATH` at one)",
        program.display()
    )]
    Spawn {
        /// What was started.
        program: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The session could not be loaded from the session store to be resumed
    /// ([`Options::session_store`](crate::options::Options::session_store)).
    #[error(transparent)]
    Resume(#[from] super::ResumeError),
    /// The transport set with `Options::transport` could not open a connection.
    #[error("the transport given to `Options::transport` could not connect: {0}")]
    Connect(#[source] io::Error),
    /// The file of `Options::record_to` could not be opened: the session did not start. (A
    /// write that fails later stops the recording; that comes as a
    /// [`Message::Notice`](crate::message::Message::Notice), and the session goes on.)
    #[error(
        "could not record the session to {}: {source}; check that its directory exists and is \
         writable and that the path is not a symbolic link (a recording is never written through \
         one), or drop `record_to`",
        path.display()
    )]
    Record {
        /// The recording file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The session never started: the CLI said it could not start it (`failure.reason`), or it
    /// exited non-zero before answering `initialize` (an option or a settings file it rejects:
    /// `stderr_tail` says which). Every start that fails on the CLI's side ends so, whatever
    /// the cause.
    ///
    /// ```
    /// use claude_agent_tokio::{Error, message::StartupFailureReason};
    ///
    /// fn explain(error: &Error) -> String {
    ///     match error {
    ///         Error::StartFailed { failure, .. } if failure.reason == Some(StartupFailureReason::ProxyInvalid) => {
    ///             "fix HTTPS_PROXY".into()
    ///         }
    ///         Error::StartFailed { failure, stderr_tail } => format!("{failure}: {stderr_tail}"),
    ///         other => other.to_string(),
    ///     }
    /// }
    /// # let _ = explain;
    /// ```
    #[error("{failure}{}", stderr_suffix_unsaid(failure, stderr_tail))]
    StartFailed {
        /// What the CLI said and how it exited.
        failure: Box<StartFailure>,
        /// The last lines it wrote on stderr (at most 8 KiB).
        stderr_tail: String,
    },
    /// The CLI failed (non-zero exit or a signal) after the session had started, with no error
    /// result to explain it.
    #[error("the Claude Code CLI failed ({exit}){}", stderr_suffix(stderr_tail))]
    Process {
        /// How it ended.
        exit: ExitStatusInfo,
        /// The last lines it wrote on stderr (at most 8 KiB).
        stderr_tail: String,
    },
    /// A started session ended with an error `result` (max turns, API error, interrupted…) and
    /// the CLI exited non-zero. The result message itself was delivered before this error.
    #[error(transparent)]
    Result(Box<ResultError>),
    /// A control request got no answer in time. If the CLI answers it later, that answer is
    /// dropped: the session goes on, and no error item comes of it.
    #[error(
        "the CLI did not answer the control request within {0:?}; the session goes on: retry, or \
         allow more time with `Options::control_timeout`"
    )]
    ControlTimeout(Duration),
    /// The CLI answered a control request with an error.
    #[error("the CLI refused the control request: {message}")]
    ControlRefused {
        /// The CLI's error text.
        message: String,
        /// The CLI's error code, if any.
        code: Option<String>,
    },
    /// The CLI answered `initialize` without confirming something the session must not run
    /// without: that it honours fail-closed hooks (`HookMatcher::fail_closed`), or that it read
    /// the MCP servers sent in `initialize` (`Delivery::Initialize`). No prompt was sent, and the
    /// session is over. The text says what to change.
    ///
    /// ```
    /// # use claude_agent_tokio::Error;
    /// let err = Error::Unconfirmed("the Claude Code CLI did not register the hooks".into());
    /// assert_eq!(err.to_string(), "the Claude Code CLI did not register the hooks");
    /// ```
    #[error("{0}")]
    Unconfirmed(String),
    /// A control response came, but its body did not have the expected shape.
    #[error(
        "the CLI's answer to a control request has an unexpected shape ({0}); the CLI may be of \
         a version this SDK does not support (see `claude --version`)"
    )]
    Response(#[source] serde_json::Error),
    /// User input has already ended (the prompt was a single turn, or input was ended).
    #[error(
        "user input has already ended (the prompt was a single turn, or `end_input` was called); \
         to send more turns, use a `Client` or a streamed prompt (`Prompt::stream`)"
    )]
    InputEnded,
    /// Reading the CLI's output failed with this error (an I/O error, not its end): nothing
    /// more of the session could be read, so it was closed and the CLI stopped. Every control
    /// call waiting for an answer failed with [`Error::Closed`].
    #[error(
        "reading the CLI's output failed ({0}), so the session was closed; start a new session, \
         with `SessionStart::Resume` to continue its conversation"
    )]
    StdoutFailed(String),
    /// The session is over (closed, or the CLI is gone).
    #[error(
        "the session is closed (closed by the application, or the CLI has exited); start a new \
         session, with `SessionStart::Resume` to continue its conversation"
    )]
    Closed,
    /// Code run in the session's task panicked (a prompt stream's `poll_next`, or a bug of this
    /// SDK): the session's CLI was killed and the session is over. A panic in a callback is no
    /// such end: it answers the CLI's request with an error, and the session goes on.
    #[error("the session's task panicked, so its CLI was killed: {0}")]
    Panicked(String),
    /// Too many control requests are waiting for the CLI's answer at once; this one was not
    /// sent. The limit is the session's (256 by default).
    #[error(
        "{pending} control requests are already waiting for the CLI's answer, so this one was not \
         sent; wait for some of them to finish"
    )]
    TooManyPendingRequests {
        /// How many were waiting.
        pending: usize,
    },
    /// The options are invalid.
    #[error(transparent)]
    Options(#[from] OptionsError),
}

impl Error {
    pub(crate) fn from_failure(failure: RequestFailure) -> Error {
        match failure {
            RequestFailure::Refused { message, code } => Error::ControlRefused { message, code },
            RequestFailure::Timeout(after) => Error::ControlTimeout(after),
            RequestFailure::Unconfirmed(message) => Error::Unconfirmed(message),
            // `RequestFailure` is non-exhaustive; anything else means there will be no answer.
            _ => Error::Closed,
        }
    }

    /// What a session that ended this way reports as its last item: `None` for an end that is
    /// no failure. `stderr_tail` gives the CLI's last stderr lines, for a failed process.
    pub(crate) fn of_termination(
        termination: &Termination,
        stderr_tail: impl FnOnce() -> String,
    ) -> Option<Error> {
        match termination {
            Termination::Ended(EndReason::Stalled(stall)) => Some(Error::Stalled(stall.clone())),
            Termination::Ended(EndReason::OverBudget(report)) => {
                Some(Error::OverBudget(report.clone()))
            }
            Termination::Ended(EndReason::PlaceLost) => Some(Error::Fleet(FleetError::PlaceLost)),
            Termination::Ended(EndReason::InitializeFailed(failure)) => {
                Some(Error::from_failure(failure.clone()))
            }
            Termination::Ended(EndReason::StdoutFailed(error)) => {
                Some(Error::StdoutFailed(error.clone()))
            }
            Termination::StartFailed(failure) => Some(Error::StartFailed {
                failure: failure.clone(),
                stderr_tail: stderr_tail(),
            }),
            Termination::ErrorResult(result) => Some(Error::Result(result.clone())),
            Termination::ProcessFailed(exit) => Some(Error::Process {
                exit: *exit,
                stderr_tail: stderr_tail(),
            }),
            _ => None,
        }
    }

    /// A control request the session would not send.
    pub(crate) fn from_request(error: RequestError) -> Error {
        match error {
            RequestError::TooManyPending(pending) => Error::TooManyPendingRequests { pending },
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

/// The first places searched, and how many more (all of them are in the error's `searched`).
fn display_paths(paths: &[PathBuf]) -> String {
    const SHOWN: usize = 3;
    let mut shown: Vec<String> = paths
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect();
    if paths.len() > SHOWN {
        shown.push(format!("and {} more", paths.len() - SHOWN));
    }
    shown.join(", ")
}

/// The stderr suffix, with the lines the CLI's message already says left out (the CLI often
/// writes its explanation to both); none when stderr said nothing more.
fn stderr_suffix_unsaid(failure: &StartFailure, tail: &str) -> String {
    let said = failure.message.as_deref().unwrap_or_default().trim();
    if said.is_empty() {
        return stderr_suffix(tail);
    }
    let unsaid: Vec<&str> = tail
        .lines()
        .filter(|line| !line.trim().is_empty() && !said.contains(line.trim()))
        .collect();
    if unsaid.is_empty() && !tail.trim().is_empty() {
        return String::new();
    }
    stderr_suffix(&unsaid.join("\n"))
}

fn stderr_suffix(tail: &str) -> String {
    let tail = tail.trim_end();
    if tail.is_empty() {
        "; it wrote nothing on stderr".to_string()
    } else {
        format!("; stderr: {tail}")
    }
}

/// The message, then each cause it did not already say, as `anyhow` prints an error: so an
/// `Error` returned from `main` reads as what to do, not as a dump of its fields (each field is
/// public, for code that needs them).
///
/// ```
/// # use claude_agent_tokio::Error;
/// let err = Error::CliNotFound { searched: vec!["/usr/local/bin/claude".into()], hint: "npm install -g @anthropic-ai/claude-code" };
/// assert_eq!(format!("{err:?}"), err.to_string());
/// ```
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let said = self.to_string();
        f.write_str(&said)?;
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            let text = error.to_string();
            if !said.contains(&text) {
                write!(f, "\n  caused by: {text}")?;
            }
            cause = error.source();
        }
        Ok(())
    }
}

/// Why a claim did not give a running session. The prompt did not run: start the session cold
/// ([`Options::claimed`](crate::options::Options::claimed) gives its options).
///
/// ```
/// use claude_agent_tokio::ClaimError;
/// use claude_agent_tokio::control::ClaimRefusalReason;
///
/// fn explain(error: &ClaimError) -> String {
///     match error {
///         ClaimError::Refused(refusal) if refusal.reason == ClaimRefusalReason::CwdNotFound => {
///             "no such folder".into()
///         }
///         ClaimError::Refused(refusal) => format!("refused: {}", refusal.message),
///         ClaimError::SpareExited => "the spare died; start cold".into(),
///         _ => error.to_string(),
///     }
/// }
/// assert_eq!(explain(&ClaimError::SpareExited), "the spare died; start cold");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimError {
    /// The CLI refused the claim; it exits once it has answered.
    #[error(transparent)]
    Refused(Box<ClaimRefusal>),
    /// The spare's process ended before the claim was answered.
    #[error("the spare's process ended before it was claimed")]
    SpareExited,
}

/// A session's failure that comes from its fleet ([`Error::Fleet`]).
///
/// ```
/// use claude_agent_tokio::{Error, FleetError};
///
/// fn retry_elsewhere(error: &Error) -> bool {
///     matches!(error, Error::Fleet(FleetError::PlaceLost))
/// }
/// assert!(retry_elsewhere(&Error::Fleet(FleetError::PlaceLost)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FleetError {
    /// The fleet's shared ledger could not be reached when the session asked for its place:
    /// nothing was started.
    #[error("the fleet's shared ledger could not be reached: {0}")]
    Unreachable(String),
    /// This host lost the session's place (its lease ran out, or another host took the
    /// session over): the session was closed, so that it runs on one host only. The session
    /// store has what it had stored; the host holding the place now goes on from there.
    #[error(
        "this host lost the session's place in its fleet (its lease ran out, or another host \
         took the session over); the session was closed"
    )]
    PlaceLost,
}
