//! Sessions the CLI has stored on disk: list them, read their conversations, rename, tag, fork
//! and delete them.
//!
//! The CLI writes every session to a transcript file, one JSON entry a line, at
//! `<config>/projects/<folder>/<session id>.jsonl`: `<config>` is `$CLAUDE_CONFIG_DIR`, else
//! `~/.claude`, and `<folder>` is the session's working directory with every character that is
//! not an ASCII letter or digit replaced by `-` (`/home/me/app` → `-home-me-app`; a name longer
//! than 200 characters is cut and ends with a hash). The subagents of a session write theirs under
//! `<folder>/<session id>/subagents/agent-<agent id>.jsonl`.
//!
//! Everything here is plain blocking code: it needs no async runtime, and runs anywhere (in an
//! async program, off the executor, e.g. with `spawn_blocking`, if the history is large).
//! [`History`] is a configuration directory: the one of this process's environment
//! ([`History::from_env`]) or any other ([`History::at`], say the `HOME` a CLI was started with).
//!
//! - [`History::list_sessions`]: a summary of each session ([`SessionInfo`]), newest first. It
//!   reads only the first and last 64 KiB of each transcript, so listing thousands of sessions
//!   stays fast.
//! - [`History::session`]: one session ([`SessionFile`]) — its summary, its conversation as
//!   typed [`Message`]s ([`SessionMessage`]) a [`Page`] at a time, its subagents' own
//!   conversations, and the changes the CLI itself understands: rename, tag, fork, delete (a
//!   renamed session shows its title in the CLI's `/resume` list; a fork can be resumed with
//!   [`SessionStart::Resume`](crate::options::SessionStart::Resume)).
//!
//! ```no_run
//! use claude_agent_tokio::history::{History, ListSessions, Page};
//!
//! # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
//! let history = History::from_env()?;
//! for info in history.list_sessions(&ListSessions::in_dir("/home/me/app").limit(10))? {
//!     let first = history.session(&info.session_id, None)?.messages(Page::first(1))?;
//!     println!("{} {} ({} message shown)", info.session_id, info.summary, first.len());
//! }
//! # Ok(())
//! # }
//! ```

mod archive;
pub(crate) mod chain;
pub(crate) mod clock;
mod lax;
pub(crate) mod lite;
pub(crate) mod paths;
mod session_file;
pub(crate) mod write;

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::message::Message;
pub use session_file::{ForkOptions, Page, SessionFile};

/// Why an operation on the stored sessions failed.
///
/// One error for every operation: they all fail in the same few ways (an id that is not a UUID,
/// a session or message that is not there, a file that cannot be read or written), and each
/// variant names what it looked for and where.
///
/// ```
/// use claude_agent_tokio::history::{History, HistoryError};
///
/// let history = History::at("/nonexistent/.claude");
/// match history.session("not-a-uuid", None) {
///     Err(HistoryError::InvalidId { id }) => assert_eq!(id, "not-a-uuid"),
///     other => panic!("{other:?}"),
/// }
/// let missing = history.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None).unwrap_err();
/// assert!(matches!(missing, HistoryError::NotFound { .. }));
/// assert!(missing.to_string().contains("/nonexistent/.claude/projects"), "{missing}");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// Neither `CLAUDE_CONFIG_DIR` nor `HOME` (`USERPROFILE` on Windows) is set.
    #[error("cannot find the Claude configuration directory: set CLAUDE_CONFIG_DIR or HOME")]
    NoConfigDir,
    /// A session id that is not a UUID.
    #[error("{id:?} is not a session id (a UUID)")]
    InvalidId {
        /// The id given.
        id: String,
    },
    /// No transcript of this session where it was looked for.
    #[error("no session {session_id} under {}", searched.display())]
    NotFound {
        /// The session looked for.
        session_id: String,
        /// The project folder, or the projects folder, that was searched.
        searched: PathBuf,
    },
    /// The session has no subagent with this id.
    #[error("session {session_id} has no subagent {agent_id} under {}", searched.display())]
    SubagentNotFound {
        /// The parent session.
        session_id: String,
        /// The subagent looked for.
        agent_id: String,
        /// The session's `subagents` folder.
        searched: PathBuf,
    },
    /// [`SessionFile::fork`]'s `up_to` message is not in the session.
    #[error("message {uuid} is not in session {session_id} ({})", path.display())]
    MessageNotFound {
        /// The session.
        session_id: String,
        /// The message looked for.
        uuid: String,
        /// The session's transcript.
        path: PathBuf,
    },
    /// [`SessionFile::fork`] found no conversation to copy.
    #[error("session {session_id} has no messages to fork ({})", path.display())]
    NothingToFork {
        /// The session.
        session_id: String,
        /// The session's transcript.
        path: PathBuf,
    },
    /// A title or tag that is empty once trimmed.
    #[error("the {what} is empty")]
    Empty {
        /// `"title"` or `"tag"`.
        what: &'static str,
    },
    /// Reading or writing a file or folder failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> HistoryError + '_ {
    move |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A session's summary, as [`History::list_sessions`] and [`SessionFile::info`] give it, and
/// over a session store [`StoreHistory::list_sessions`](crate::store::StoreHistory::list_sessions)
/// and [`StoredSession::info`](crate::store::StoredSession::info): a store has no file, so there
/// [`path`](SessionInfo::path) and [`file_size`](SessionInfo::file_size) are `None`.
///
/// ```no_run
/// use claude_agent_tokio::history::History;
///
/// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
/// let info = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?.info()?;
/// println!("{} ({:?} bytes, on {:?})", info.summary, info.file_size, info.git_branch);
/// if let Some(cwd) = &info.cwd {
///     println!("ran in {}", cwd.display());
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The session id (the transcript's file name).
    pub session_id: String,
    /// What to show for the session: its title, else the last prompt, else the CLI's summary,
    /// else the first prompt.
    pub summary: String,
    /// The title: set with [`SessionFile::rename`] (or the CLI's `/rename`), else the one the CLI
    /// generated.
    pub custom_title: Option<String>,
    /// The first prompt a person typed (slash commands and the CLI's own messages passed over),
    /// on one line, cut at 200 characters.
    pub first_prompt: Option<String>,
    /// The working directory the session ran in.
    pub cwd: Option<PathBuf>,
    /// The git branch the session was last on.
    pub git_branch: Option<String>,
    /// The tag set with [`SessionFile::tag`].
    pub tag: Option<String>,
    /// When the session started (its first entry's timestamp).
    pub created: Option<SystemTime>,
    /// When the transcript was last written (over a store: when the store last wrote the session
    /// in a listing, the time of its last entry from
    /// [`StoredSession::info`](crate::store::StoredSession::info)).
    pub modified: SystemTime,
    /// The transcript's size in bytes; `None` for a session read from a store.
    pub file_size: Option<u64>,
    /// The transcript file; `None` for a session read from a store.
    pub path: Option<PathBuf>,
    /// Whether the session is archived ([`SessionFile::archive`]): `Some(false)` if it was
    /// unarchived, or a prompt was sent in it since; `None` if it never was, and for a session
    /// read from a store (archiving is for the disk only).
    pub archived: Option<bool>,
}

/// One message of a stored conversation: the transcript entry parsed as the message the CLI
/// prints on stdout, with the entry's place in the conversation.
///
/// A transcript entry is the stream-json message with the CLI's bookkeeping around it
/// (`parentUuid`, `sessionId`, `cwd`, `gitBranch`, …), so it parses into the same types:
/// [`Message::User`] and [`Message::Assistant`], with every field at hand through
/// [`Message::raw_json`]. An entry that does not fit them is [`Message::Unknown`], kept whole.
///
/// ```no_run
/// use claude_agent_tokio::history::{History, Page};
/// use claude_agent_tokio::message::{ContentBlock, Message, MessageContent};
///
/// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
/// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
/// for entry in session.messages(Page::ALL)? {
///     match &entry.message {
///         Message::User(user) => {
///             if let MessageContent::Text(text) = &user.content {
///                 println!("you: {text}");
///             }
///         }
///         Message::Assistant(reply) => {
///             for block in &reply.message.content {
///                 if let ContentBlock::Text(text) = block {
///                     println!("Claude: {}", text.text);
///                 }
///             }
///         }
///         _ => {}
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionMessage {
    /// The message.
    pub message: Message,
    /// The entry's id (`uuid`): what [`SessionFile::fork`]'s `up_to` names.
    pub uuid: String,
    /// The entry it follows (`parentUuid`); `None` for the first.
    pub parent_uuid: Option<String>,
    /// The session it was written in (`sessionId`).
    pub session_id: String,
    /// When it was written (ISO 8601).
    pub timestamp: Option<String>,
    /// In a subagent's transcript ([`SessionFile::subagent_messages`]): the `tool_use` id of the
    /// call that started the subagent, from the CLI's `agent-<id>.meta.json` beside it. `None`
    /// in the main conversation.
    pub parent_tool_use_id: Option<String>,
    /// In a subagent's transcript: the subagent that started this one, when a subagent started
    /// it (`None` for one the main conversation started, and in the main conversation).
    pub parent_agent_id: Option<String>,
}

/// What [`History::list_sessions`] lists: one project's sessions or every project's, a page of them.
///
/// ```no_run
/// use claude_agent_tokio::history::{History, ListSessions};
///
/// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
/// let history = History::from_env()?;
/// let everything = history.list_sessions(&ListSessions::all())?;
/// let second_page = history.list_sessions(&ListSessions::in_dir("/home/me/app").offset(20).limit(20))?;
/// let this_checkout_only =
///     history.list_sessions(&ListSessions::in_dir("/home/me/app").include_worktrees(false))?;
/// # let _ = (everything, second_page, this_checkout_only);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListSessions {
    /// The project directory (the working directory sessions ran in), or `None` for every project.
    pub dir: Option<PathBuf>,
    /// At most this many sessions.
    pub limit: Option<usize>,
    /// Skip this many of the newest first.
    pub offset: usize,
    /// With `dir` in a git repository, the sessions of every worktree of the repository too (the
    /// default).
    pub include_worktrees: bool,
    /// The sessions programs ran too (the default): those of an SDK (`CLAUDE_CODE_ENTRYPOINT`
    /// `sdk-cli`, `sdk-ts`, `sdk-py`, or this SDK's `sdk-rust`) and of the CLI's daemon. A
    /// picker for people, like the terminal's `/resume`, leaves them out.
    pub include_programmatic: bool,
}

impl ListSessions {
    /// Every project's sessions.
    ///
    /// ```
    /// use claude_agent_tokio::history::ListSessions;
    ///
    /// assert_eq!(ListSessions::all().dir, None);
    /// ```
    pub fn all() -> ListSessions {
        ListSessions {
            dir: None,
            limit: None,
            offset: 0,
            include_worktrees: true,
            include_programmatic: true,
        }
    }

    /// The sessions that ran in `dir`, and in the other worktrees of its git repository.
    ///
    /// ```
    /// use claude_agent_tokio::history::ListSessions;
    ///
    /// let list = ListSessions::in_dir("/home/me/app");
    /// assert!(list.include_worktrees);
    /// ```
    pub fn in_dir(dir: impl Into<PathBuf>) -> ListSessions {
        ListSessions {
            dir: Some(dir.into()),
            ..ListSessions::all()
        }
    }

    /// At most `limit` sessions.
    ///
    /// ```
    /// use claude_agent_tokio::history::ListSessions;
    ///
    /// assert_eq!(ListSessions::all().limit(10).limit, Some(10));
    /// ```
    pub fn limit(mut self, limit: usize) -> ListSessions {
        self.limit = Some(limit);
        self
    }

    /// Skip the `offset` newest sessions.
    ///
    /// ```
    /// use claude_agent_tokio::history::ListSessions;
    ///
    /// assert_eq!(ListSessions::all().offset(20).offset, 20);
    /// ```
    pub fn offset(mut self, offset: usize) -> ListSessions {
        self.offset = offset;
        self
    }

    /// Whether to list the other worktrees' sessions too.
    ///
    /// ```
    /// use claude_agent_tokio::history::ListSessions;
    ///
    /// assert!(!ListSessions::in_dir("/repo").include_worktrees(false).include_worktrees);
    /// ```
    pub fn include_worktrees(mut self, include: bool) -> ListSessions {
        self.include_worktrees = include;
        self
    }

    /// Whether to list the sessions programs ran too (see
    /// [`ListSessions::include_programmatic`](struct@ListSessions#structfield.include_programmatic)).
    ///
    /// ```
    /// use claude_agent_tokio::history::ListSessions;
    ///
    /// // What a person would pick from: their own sessions at the terminal.
    /// let typed = ListSessions::in_dir("/home/me/app").include_programmatic(false);
    /// assert!(!typed.include_programmatic);
    /// ```
    pub fn include_programmatic(mut self, include: bool) -> ListSessions {
        self.include_programmatic = include;
        self
    }
}

impl Default for ListSessions {
    fn default() -> ListSessions {
        ListSessions::all()
    }
}

/// The sessions of one Claude configuration directory.
///
/// [`History::from_env`] is the directory of this process's environment; [`History::at`] reads
/// another, such as the one of a CLI started with its own `HOME` or `CLAUDE_CONFIG_DIR`.
///
/// ```
/// use claude_agent_tokio::history::{History, ListSessions, Page};
///
/// let config = std::env::temp_dir().join(format!("history-doc-{}", std::process::id()));
/// let folder = config.join("projects").join("-home-me-app");
/// std::fs::create_dir_all(&folder).unwrap();
/// let id = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";
/// std::fs::write(
///     folder.join(format!("{id}.jsonl")),
///     concat!(
///         r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"first question"},"uuid":"b9bd7f99-6d18-47a5-a25e-5ada83f6b5e2","timestamp":"2026-11-23T06:03:37.276Z","cwd":"/home/me/app","sessionId":"13dbd64f-f8d4-4686-ab4c-e5b537e0a952","gitBranch":"main"}"#, "\n",
///         r#"{"parentUuid":"b9bd7f99-6d18-47a5-a25e-5ada83f6b5e2","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"echo: first question"}]},"uuid":"75e74a84-6c56-4ba7-a73d-35b37d06a7a4","timestamp":"2026-11-23T06:03:37.900Z","cwd":"/home/me/app","sessionId":"13dbd64f-f8d4-4686-ab4c-e5b537e0a952"}"#, "\n",
///     ),
/// )
/// .unwrap();
///
/// let history = History::at(&config);
/// let sessions = history.list_sessions(&ListSessions::in_dir("/home/me/app")).unwrap();
/// assert_eq!(sessions[0].first_prompt.as_deref(), Some("first question"));
/// assert_eq!(sessions[0].git_branch.as_deref(), Some("main"));
///
/// let session = history.session(id, None).unwrap();
/// session.rename("Questions").unwrap();
/// assert_eq!(session.info().unwrap().summary, "Questions");
/// assert_eq!(session.messages(Page::ALL).unwrap().len(), 2);
/// std::fs::remove_dir_all(&config).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct History {
    config_dir: PathBuf,
}

impl History {
    /// The configuration directory of this process's environment: `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    ///
    /// ```no_run
    /// use claude_agent_tokio::history::History;
    ///
    /// let history = History::from_env().expect("HOME is set");
    /// println!("sessions are under {}", history.projects_dir().display());
    /// ```
    pub fn from_env() -> Result<History, HistoryError> {
        if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
            return Ok(History::at(dir));
        }
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .ok_or(HistoryError::NoConfigDir)?;
        Ok(History::at(Path::new(&home).join(".claude")))
    }

    /// The configuration directory `config_dir` (what `CLAUDE_CONFIG_DIR` would name; `~/.claude`
    /// by default).
    ///
    /// ```
    /// use claude_agent_tokio::history::History;
    ///
    /// let history = History::at("/home/me/.claude");
    /// assert_eq!(history.projects_dir(), std::path::Path::new("/home/me/.claude/projects"));
    /// ```
    pub fn at(config_dir: impl Into<PathBuf>) -> History {
        History {
            config_dir: config_dir.into(),
        }
    }

    /// The folder that holds one folder per project.
    ///
    /// ```
    /// use claude_agent_tokio::history::History;
    ///
    /// assert!(History::at("/c").projects_dir().ends_with("projects"));
    /// ```
    pub fn projects_dir(&self) -> PathBuf {
        self.config_dir.join("projects")
    }

    /// The folder the CLI stores the sessions that run in `cwd` in (whether or not it exists).
    ///
    /// ```
    /// use claude_agent_tokio::history::History;
    /// use std::path::Path;
    ///
    /// let history = History::at("/home/me/.claude");
    /// assert_eq!(
    ///     history.project_dir("/home/me/my_app"),
    ///     Path::new("/home/me/.claude/projects/-home-me-my-app"),
    /// );
    /// ```
    pub fn project_dir(&self, cwd: impl AsRef<Path>) -> PathBuf {
        self.projects_dir()
            .join(paths::project_folder_name(&cwd.as_ref().to_string_lossy()))
    }

    /// The sessions stored for a project (`list.dir`) or for every project, newest first: each
    /// session once, with its title, first prompt, working directory, branch, tag, times and
    /// size.
    ///
    /// Reads only the first and last 64 KiB of each transcript, and with a `limit`, only the
    /// transcripts the page needs (newest first, by their files' times). Subagents' transcripts
    /// and sessions with nothing to show (no prompt, no title) are left out; a project folder
    /// that does not exist gives no sessions.
    ///
    /// ```no_run
    /// use claude_agent_tokio::history::{History, ListSessions};
    ///
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// for session in History::from_env()?.list_sessions(&ListSessions::in_dir("/home/me/app").limit(10))? {
    ///     let tag = session.tag.as_deref().unwrap_or("-");
    ///     println!("{}  {:<40}  [{tag}]", session.session_id, session.summary);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// ```
    /// # use claude_agent_tokio::history::{History, ListSessions};
    /// let sessions = History::at("/nonexistent").list_sessions(&ListSessions::all()).unwrap();
    /// assert!(sessions.is_empty());
    /// ```
    pub fn list_sessions(&self, list: &ListSessions) -> Result<Vec<SessionInfo>, HistoryError> {
        let projects = self.projects_dir();
        let mut candidates = Vec::new();
        match &list.dir {
            None => {
                for folder in subfolders(&projects)? {
                    transcripts(&folder, None, &mut candidates)?;
                }
            }
            Some(dir) => {
                let dir = paths::canonical(dir);
                let own = paths::find_project_dir(&projects, &dir);
                if let Some(folder) = &own {
                    transcripts(folder, Some(&dir), &mut candidates)?;
                }
                let trees = if list.include_worktrees {
                    paths::worktrees(&dir)
                } else {
                    Vec::new()
                };
                if trees.len() > 1 {
                    let mut wanted: Vec<(String, &PathBuf)> = trees
                        .iter()
                        .map(|t| (paths::project_folder_name(&t.to_string_lossy()), t))
                        .collect();
                    // The longest (most specific) name first.
                    wanted.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
                    for folder in subfolders(&projects)? {
                        if Some(&folder) == own.as_ref() {
                            continue;
                        }
                        let name = folder.file_name().unwrap_or_default().to_string_lossy();
                        if let Some((_, tree)) =
                            wanted.iter().find(|(w, _)| paths::folder_matches(&name, w))
                        {
                            transcripts(&folder, Some(tree), &mut candidates)?;
                        }
                    }
                }
            }
        }
        // Newest first by the file's time, then read only as far as the page goes. A session in
        // two folders (a worktree moved, a copy) is listed once, its newest copy.
        candidates.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.id.cmp(&b.id)));
        let mut seen = HashSet::new();
        let wanted = list.limit.unwrap_or(usize::MAX);
        let mut skipped = 0;
        let mut sessions = Vec::new();
        for candidate in candidates {
            if sessions.len() >= wanted {
                break;
            }
            if seen.contains(&candidate.id) {
                continue;
            }
            let Some(info) = lite::read_lite(&candidate.path).and_then(|l| {
                if !list.include_programmatic && lite::programmatic(&l) {
                    return None;
                }
                lite::session_info(
                    &candidate.id,
                    candidate.path.clone(),
                    &l,
                    candidate.cwd.as_deref(),
                    archive::archived(&candidate.path, &l),
                )
            }) else {
                continue;
            };
            seen.insert(candidate.id);
            if skipped < list.offset {
                skipped += 1;
            } else {
                sessions.push(info);
            }
        }
        Ok(sessions)
    }

    /// The session `session_id`, looked up in `dir`'s project folder (then its worktrees'), or
    /// in every project with `dir` `None`: its summary, conversation and subagents to read, and
    /// the changes the CLI understands ([`SessionFile`]). Fails when the id is not a session id
    /// or no such transcript exists.
    ///
    /// ```
    /// use claude_agent_tokio::history::{History, HistoryError};
    ///
    /// let missing = History::at("/nonexistent").session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None);
    /// assert!(matches!(missing, Err(HistoryError::NotFound { .. })));
    /// let bad = History::at("/nonexistent").session("../../etc/passwd", None);
    /// assert!(matches!(bad, Err(HistoryError::InvalidId { .. })));
    /// ```
    pub fn session(
        &self,
        session_id: &str,
        dir: Option<&Path>,
    ) -> Result<SessionFile, HistoryError> {
        let (path, project_cwd) = self.find_session(session_id, dir)?;
        Ok(SessionFile::new(session_id, path, project_cwd))
    }

    /// The transcript of `session_id` (a non-empty file), and the project directory it was found
    /// for: in `dir`'s folder, then its worktrees' folders; or without `dir`, in every folder.
    pub(crate) fn find_session(
        &self,
        session_id: &str,
        dir: Option<&Path>,
    ) -> Result<(PathBuf, Option<PathBuf>), HistoryError> {
        check_id(session_id)?;
        let file = format!("{session_id}.jsonl");
        let projects = self.projects_dir();
        let present = |folder: &Path| {
            let path = folder.join(&file);
            std::fs::metadata(&path)
                .is_ok_and(|m| m.is_file() && m.len() > 0)
                .then_some(path)
        };
        let not_found = |searched: PathBuf| HistoryError::NotFound {
            session_id: session_id.to_owned(),
            searched,
        };
        match dir {
            Some(dir) => {
                let dir = paths::canonical(dir);
                let candidates = std::iter::once(dir.clone())
                    .chain(paths::worktrees(&dir).into_iter().filter(|t| *t != dir));
                for cwd in candidates {
                    if let Some(path) =
                        paths::find_project_dir(&projects, &cwd).and_then(|f| present(&f))
                    {
                        return Ok((path, Some(cwd)));
                    }
                }
                Err(not_found(self.project_dir(&dir)))
            }
            None => subfolders(&projects)
                .unwrap_or_default()
                .iter()
                .find_map(|folder| present(folder))
                .map(|path| (path, None))
                .ok_or_else(|| not_found(projects)),
        }
    }
}

fn check_id(id: &str) -> Result<(), HistoryError> {
    if clock::is_uuid(id) {
        Ok(())
    } else {
        Err(HistoryError::InvalidId { id: id.to_owned() })
    }
}

pub(crate) fn read_text(path: &Path) -> Result<String, HistoryError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// The folders in `projects` (none if it does not exist).
fn subfolders(projects: &Path) -> Result<Vec<PathBuf>, HistoryError> {
    let entries = match std::fs::read_dir(projects) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(projects)(e)),
    };
    Ok(entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect())
}

/// A transcript found by a listing, not read yet.
struct Candidate {
    id: String,
    path: PathBuf,
    modified: SystemTime,
    cwd: Option<PathBuf>,
}

/// The session transcripts (`<uuid>.jsonl`) in one project folder, with their modification
/// times (files that vanish on the way are passed over).
fn transcripts(
    folder: &Path,
    cwd: Option<&Path>,
    out: &mut Vec<Candidate>,
) -> Result<(), HistoryError> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error(folder)(e)),
    };
    out.extend(entries.flatten().filter_map(|entry| {
        let name = entry.file_name();
        let id = name.to_str()?.strip_suffix(".jsonl")?;
        if !clock::is_uuid(id) {
            return None;
        }
        let meta = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file() && m.len() > 0)?;
        Some(Candidate {
            id: id.to_owned(),
            path: entry.path(),
            modified: meta.modified().ok()?,
            cwd: cwd.map(Path::to_path_buf),
        })
    }));
    Ok(())
}

/// The `agent-<id>.jsonl` files under `folder`, at any depth, in name order. Symbolic links to
/// folders are not followed: two links to `.` would otherwise make the walk endless.
pub(crate) fn collect_agents(folder: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        match name
            .strip_prefix("agent-")
            .and_then(|n| n.strip_suffix(".jsonl"))
        {
            Some(id) if path.is_file() => out.push((id.to_owned(), path)),
            _ if entry.file_type().is_ok_and(|kind| kind.is_dir()) => collect_agents(&path, out),
            _ => {}
        }
    }
}
