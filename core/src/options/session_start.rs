//! [`SessionStart`]: which conversation a session starts with, as one value.

/// Which conversation a session starts with: a new one (the default), the most recent one of the
/// working directory, or a given one, each optionally forked into a new session. One value, so
/// that contradictions (resume and continue, a resume point with no session to resume) cannot be
/// written. Set as [`AgentConfig::session_start`](super::AgentConfig::session_start).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, Fork, HostDeclarations, Resume, SessionStart};
///
/// let mut again = AgentConfig::default();
/// again.session_start = SessionStart::Continue { fork: None, or_new: false };
/// let args = again.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&"--continue".to_owned()));
///
/// // Try another ending: the conversation up to a message, in a new session of its own.
/// let resume = Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65")
///     .at_message("70565fc4-6cce-40b8-adc7-42a6e28ebda1")
///     .fork(Fork::new());
/// let mut config = AgentConfig::default();
/// config.session_start = SessionStart::Resume(resume);
/// let args = config.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&"--resume=46eb1b6d-8361-4d7c-a347-8234db4a9d65".to_owned()));
/// assert!(args.contains(&"--resume-session-at=70565fc4-6cce-40b8-adc7-42a6e28ebda1".to_owned()));
/// assert!(args.contains(&"--fork-session".to_owned()));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SessionStart {
    /// A new conversation, with an id the CLI makes.
    #[default]
    New,
    /// A new conversation with this id (`--session-id`, a UUID).
    NewWithId(String),
    /// The most recent conversation in the working directory (`--continue`). With none there
    /// (or, with a session store, none in the store), the start fails with
    /// `Error::NothingToContinue`, unless `or_new` is set.
    Continue {
        /// Go on in a new session instead of appending to that one (`--fork-session`).
        fork: Option<Fork>,
        /// With no conversation to continue, start a new one (as the CLI itself would,
        /// silently) instead of failing.
        or_new: bool,
    },
    /// The conversation with this session id (`--resume`).
    Resume(Resume),
}

impl SessionStart {
    /// The conversation with this session id, from its end, appended to:
    /// `SessionStart::Resume(Resume::new(session_id))`. For a resume point or a fork, build the
    /// [`Resume`].
    ///
    /// ```
    /// use claude_agent_tokio::options::{Resume, SessionStart};
    ///
    /// let start = SessionStart::resume("46eb1b6d-8361-4d7c-a347-8234db4a9d65");
    /// assert_eq!(start, SessionStart::Resume(Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65")));
    /// ```
    pub fn resume(session_id: impl Into<String>) -> SessionStart {
        SessionStart::Resume(Resume::new(session_id))
    }

    /// The most recent conversation of the working directory, appended to; the start fails when
    /// there is none: `SessionStart::Continue { fork: None, or_new: false }`.
    ///
    /// ```
    /// use claude_agent_tokio::options::SessionStart;
    ///
    /// assert_eq!(SessionStart::continue_last(), SessionStart::Continue { fork: None, or_new: false });
    /// ```
    pub fn continue_last() -> SessionStart {
        SessionStart::Continue {
            fork: None,
            or_new: false,
        }
    }
}

/// What the start is, for people: `a new session`, `the session 46eb…`, `a fork of the most
/// recent conversation`, ….
///
/// ```
/// use claude_agent_tokio::options::{Fork, Resume, SessionStart};
///
/// assert_eq!(SessionStart::resume("46eb1b6d").to_string(), "the session 46eb1b6d");
/// assert_eq!(SessionStart::continue_last().to_string(), "the most recent conversation");
/// let fork = SessionStart::Resume(Resume::new("46eb1b6d").fork(Fork::new()));
/// assert_eq!(fork.to_string(), "a fork of the session 46eb1b6d");
/// ```
impl std::fmt::Display for SessionStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let forked = if self.fork().is_some() {
            "a fork of "
        } else {
            ""
        };
        match self {
            SessionStart::New => f.write_str("a new session"),
            SessionStart::NewWithId(id) => write!(f, "a new session with the id {id}"),
            SessionStart::Continue { .. } => write!(f, "{forked}the most recent conversation"),
            SessionStart::Resume(resume) => write!(f, "{forked}the session {}", resume.session_id),
        }
    }
}

/// The conversation [`SessionStart::Resume`] resumes, and how.
///
/// ```
/// use claude_agent_tokio::options::Resume;
///
/// let resume = Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65");
/// assert_eq!(resume.session_id, "46eb1b6d-8361-4d7c-a347-8234db4a9d65");
/// assert!(resume.at_message.is_none() && resume.fork.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Resume {
    /// The session to resume.
    pub session_id: String,
    /// Resume at this message's uuid: the messages after it are left out
    /// (`--resume-session-at`).
    pub at_message: Option<String>,
    /// Leave out the turn that starts at this message's uuid (`--resume-drops-turn`; may be
    /// empty).
    pub drop_turn: Option<String>,
    /// Go on in a new session instead of appending to the resumed one (`--fork-session`).
    pub fork: Option<Fork>,
    /// When the session ran in another folder than the options' working directory, resume it
    /// there (the CLI finds a session only in its working directory's history). Off, such a
    /// resume fails with `Error::ResumeElsewhere`, which names the folder.
    pub in_its_folder: bool,
}

impl Resume {
    /// Resume the session `session_id` as it is, appending to it.
    pub fn new(session_id: impl Into<String>) -> Self {
        Resume {
            session_id: session_id.into(),
            at_message: None,
            drop_turn: None,
            fork: None,
            in_its_folder: false,
        }
    }

    /// Resume at the message `message_uuid`, leaving out the messages after it.
    ///
    /// ```
    /// use claude_agent_tokio::options::Resume;
    ///
    /// let resume = Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65").at_message("70565fc4-6cce-40b8-adc7-42a6e28ebda1");
    /// assert_eq!(resume.at_message.as_deref(), Some("70565fc4-6cce-40b8-adc7-42a6e28ebda1"));
    /// ```
    pub fn at_message(mut self, message_uuid: impl Into<String>) -> Self {
        self.at_message = Some(message_uuid.into());
        self
    }

    /// Leave out the turn that starts at the message `message_uuid`.
    ///
    /// ```
    /// use claude_agent_tokio::options::Resume;
    ///
    /// let resume = Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65").drop_turn("70565fc4-6cce-40b8-adc7-42a6e28ebda1");
    /// assert_eq!(resume.drop_turn.as_deref(), Some("70565fc4-6cce-40b8-adc7-42a6e28ebda1"));
    /// ```
    pub fn drop_turn(mut self, message_uuid: impl Into<String>) -> Self {
        self.drop_turn = Some(message_uuid.into());
        self
    }

    /// Go on in a new session, `fork`, instead of appending to the resumed one.
    ///
    /// ```
    /// use claude_agent_tokio::options::{Fork, Resume};
    ///
    /// let resume = Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65").fork(Fork::new());
    /// assert_eq!(resume.fork, Some(Fork::new()));
    /// ```
    pub fn fork(mut self, fork: Fork) -> Self {
        self.fork = Some(fork);
        self
    }

    /// Resume the session in the folder it ran in, whatever the options' working directory
    /// (see [`Resume::in_its_folder`](struct@Resume#structfield.in_its_folder)).
    ///
    /// ```
    /// use claude_agent_tokio::options::Resume;
    ///
    /// let resume = Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65").in_its_folder();
    /// assert!(resume.in_its_folder);
    /// ```
    pub fn in_its_folder(mut self) -> Self {
        self.in_its_folder = true;
        self
    }
}

/// A new session that goes on from a resumed or continued conversation (`--fork-session`),
/// leaving that one as it was.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, Fork, HostDeclarations, SessionStart};
///
/// let fork = Fork::new().session_id("9b2f1c3e-8d4a-4e6b-a1f0-5c7d9e2b4a68");
/// let mut options = AgentConfig::default();
/// options.session_start = SessionStart::Continue { fork: Some(fork), or_new: false };
/// let args = options.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&"--fork-session".to_owned()));
/// assert!(args.contains(&"--session-id=9b2f1c3e-8d4a-4e6b-a1f0-5c7d9e2b4a68".to_owned()));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Fork {
    /// The new session's id (`--session-id`, a UUID); the CLI makes one without it.
    pub session_id: Option<String>,
}

impl Fork {
    /// A fork whose id the CLI makes.
    pub fn new() -> Self {
        Fork::default()
    }

    /// A fork with the id `session_id`.
    ///
    /// ```
    /// use claude_agent_tokio::options::Fork;
    ///
    /// let fork = Fork::new().session_id("9b2f1c3e-8d4a-4e6b-a1f0-5c7d9e2b4a68");
    /// assert_eq!(fork.session_id.as_deref(), Some("9b2f1c3e-8d4a-4e6b-a1f0-5c7d9e2b4a68"));
    /// ```
    pub fn session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }
}

impl SessionStart {
    /// Whether the start continues the most recent conversation (`--continue`).
    ///
    /// ```
    /// use claude_agent_tokio::options::SessionStart;
    ///
    /// assert!(SessionStart::Continue { fork: None, or_new: false }.continues());
    /// assert!(!SessionStart::New.continues());
    /// ```
    pub fn continues(&self) -> bool {
        matches!(self, SessionStart::Continue { .. })
    }

    /// The id of the session the start resumes (`--resume=<id>`), if it resumes one.
    ///
    /// ```
    /// use claude_agent_tokio::options::{Resume, SessionStart};
    ///
    /// let start = SessionStart::Resume(Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65"));
    /// assert_eq!(start.resume_id(), Some("46eb1b6d-8361-4d7c-a347-8234db4a9d65"));
    /// assert_eq!(SessionStart::New.resume_id(), None);
    /// ```
    pub fn resume_id(&self) -> Option<&str> {
        match self {
            SessionStart::Resume(resume) => Some(&resume.session_id),
            _ => None,
        }
    }

    /// The fork, if the start makes one (`--fork-session`).
    pub(crate) fn fork(&self) -> Option<&Fork> {
        match self {
            SessionStart::Continue { fork, .. } => fork.as_ref(),
            SessionStart::Resume(resume) => resume.fork.as_ref(),
            _ => None,
        }
    }

    /// `--session-id=<id>`: the new session's, or the fork's.
    pub(crate) fn new_session_id(&self) -> Option<&str> {
        match self {
            SessionStart::NewWithId(id) => Some(id),
            _ => self.fork().and_then(|fork| fork.session_id.as_deref()),
        }
    }

    /// The resume's `--resume-session-at` and `--resume-drops-turn`.
    pub(crate) fn resume_points(&self) -> (Option<&str>, Option<&str>) {
        match self {
            SessionStart::Resume(resume) => {
                (resume.at_message.as_deref(), resume.drop_turn.as_deref())
            }
            _ => (None, None),
        }
    }
}
