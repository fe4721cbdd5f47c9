//! [`SessionFile`]: one stored session, found once and then read or changed; [`Page`]: which
//! part of a conversation to read.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{
    chain, collect_agents, io_error, lite, read_text, write, HistoryError, SessionInfo,
    SessionMessage,
};

/// Which messages of a conversation to read: the CLI's system entries too or not
/// (`system_messages`), then `offset` skipped, then at most `limit` (all the rest with `None`).
///
/// ```
/// use claude_agent_tokio::history::Page;
///
/// let first_ten = Page { limit: Some(10), ..Page::ALL };
/// assert_eq!(first_ten, Page::first(10));
/// let the_ten_after = Page { offset: 10, ..first_ten };
/// assert_eq!(Page::ALL, Page { limit: None, offset: 0, system_messages: false });
/// let with_notices = Page::ALL.with_system_messages();
/// # let _ = (the_ten_after, with_notices);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Page {
    /// At most this many messages; `None` for all of them.
    pub limit: Option<usize>,
    /// Skip this many messages first.
    pub offset: usize,
    /// Read the CLI's system entries on the conversation as well (compaction boundaries,
    /// notices such as a command's output or a turn's duration), as
    /// [`Message::System`](crate::message::Message::System) messages in their place; they
    /// count towards `offset` and `limit`.
    pub system_messages: bool,
}

impl Page {
    /// Every message of the conversation, without system entries.
    pub const ALL: Page = Page {
        limit: None,
        offset: 0,
        system_messages: false,
    };

    /// The first `limit` messages.
    ///
    /// ```
    /// # use claude_agent_tokio::history::Page;
    /// assert_eq!(Page::first(5).limit, Some(5));
    /// ```
    pub fn first(limit: usize) -> Page {
        Page {
            limit: Some(limit),
            ..Page::ALL
        }
    }

    /// The same page, with the CLI's system entries read as well
    /// ([`Page::system_messages`](struct@Page#structfield.system_messages)).
    ///
    /// ```
    /// # use claude_agent_tokio::history::Page;
    /// assert!(Page::first(20).with_system_messages().system_messages);
    /// ```
    pub fn with_system_messages(self) -> Page {
        Page {
            system_messages: true,
            ..self
        }
    }

    pub(crate) fn apply(self, entries: Vec<chain::Entry>) -> Vec<SessionMessage> {
        entries
            .into_iter()
            .skip(self.offset)
            .take(self.limit.unwrap_or(usize::MAX))
            .map(chain::Entry::into_session_message)
            .collect()
    }
}

/// One session the CLI stored, found by [`History::session`](super::History::session): its
/// summary, its conversation and its subagents' to read, and the changes the CLI itself
/// understands (a title, a tag, a fork, deletion).
///
/// ```no_run
/// use claude_agent_tokio::history::{History, Page};
/// use claude_agent_tokio::message::Message;
///
/// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
/// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
/// let last_ten = session.messages(Page::first(10))?;
/// let replies = last_ten.iter().filter(|m| matches!(m.message, Message::Assistant(_))).count();
/// println!("{}: {replies} replies", session.info()?.summary);
/// session.rename("Refactor the parser")?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SessionFile {
    session_id: String,
    path: PathBuf,
    /// The project directory it was found for, when a directory was given.
    project_cwd: Option<PathBuf>,
}

impl SessionFile {
    pub(super) fn new(session_id: &str, path: PathBuf, project_cwd: Option<PathBuf>) -> Self {
        SessionFile {
            session_id: session_id.to_owned(),
            path,
            project_cwd,
        }
    }

    /// The session's id.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let id = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";
    /// assert_eq!(History::from_env()?.session(id, None)?.id(), id);
    /// # Ok(())
    /// # }
    /// ```
    pub fn id(&self) -> &str {
        &self.session_id
    }

    /// The transcript file (`<config>/projects/<folder>/<session id>.jsonl`).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// println!("{}", session.path().display());
    /// # Ok(())
    /// # }
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session's summary, as [`History::list_sessions`](super::History::list_sessions)
    /// gives it. Fails when the transcript has nothing to show (no prompt, no title).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let info = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?.info()?;
    /// println!("{}: {:?}", info.summary, info.first_prompt);
    /// # Ok(())
    /// # }
    /// ```
    pub fn info(&self) -> Result<SessionInfo, HistoryError> {
        lite::read_lite(&self.path)
            .and_then(|l| {
                lite::session_info(
                    &self.session_id,
                    self.path.clone(),
                    &l,
                    self.project_cwd.as_deref(),
                    super::archive::archived(&self.path, &l),
                )
            })
            .ok_or_else(|| HistoryError::NotFound {
                session_id: self.session_id.clone(),
                searched: self.path.clone(),
            })
    }

    /// The conversation, oldest first, as `page` says: the user and assistant messages on the
    /// chain of entries (`parentUuid`) that ends at the last message, as typed messages.
    ///
    /// A turn that ran several tools at once comes back whole, every call and every result (the
    /// chain alone keeps one branch of them). Left out: the subagents' messages (see
    /// [`SessionFile::subagent_messages`]), the CLI's meta messages and bookkeeping entries
    /// (its system entries too, unless [`Page::with_system_messages`]), and the branches a
    /// rewind or an edit abandoned. After a compaction the conversation is what the CLI
    /// continues from: the summary, then the messages the compaction kept (the last ones before
    /// it, written before the boundary on disk), then what came after.
    ///
    /// ```no_run
    /// use claude_agent_tokio::history::{History, Page};
    ///
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// for message in session.messages(Page::ALL)? {
    ///     println!("{}", message.uuid);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn messages(&self, page: Page) -> Result<Vec<SessionMessage>, HistoryError> {
        let text = read_text(&self.path)?;
        Ok(page.apply(chain::conversation(
            chain::parse_entries(&text),
            page.system_messages,
        )))
    }

    /// The ids of the subagents the session ran (those that wrote a transcript), in name order.
    ///
    /// ```no_run
    /// use claude_agent_tokio::history::{History, Page};
    ///
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// for agent in session.subagents()? {
    ///     let messages = session.subagent_messages(&agent, Page::ALL)?;
    ///     println!("{agent}: {} messages", messages.len());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn subagents(&self) -> Result<Vec<String>, HistoryError> {
        let mut agents = Vec::new();
        collect_agents(&self.subagents_folder(), &mut agents);
        let mut seen = HashSet::new();
        Ok(agents
            .into_iter()
            .map(|(id, _)| id)
            .filter(|id| seen.insert(id.clone()))
            .collect())
    }

    /// The conversation of one subagent of the session (see [`SessionFile::subagents`]),
    /// oldest first, as `page` says.
    ///
    /// ```no_run
    /// use claude_agent_tokio::history::{History, Page};
    ///
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// let first_five = session.subagent_messages("a1b2c3d4e5f6", Page::first(5))?;
    /// # let _ = first_five;
    /// # Ok(())
    /// # }
    /// ```
    pub fn subagent_messages(
        &self,
        agent_id: &str,
        page: Page,
    ) -> Result<Vec<SessionMessage>, HistoryError> {
        let folder = self.subagents_folder();
        let mut agents = Vec::new();
        collect_agents(&folder, &mut agents);
        let Some((_, file)) = agents.into_iter().find(|(id, _)| id == agent_id) else {
            return Err(HistoryError::SubagentNotFound {
                session_id: self.session_id.clone(),
                agent_id: agent_id.to_owned(),
                searched: folder,
            });
        };
        let text = read_text(&file)?;
        let mut messages = page.apply(chain::subagent_conversation(chain::parse_entries(&text)));
        let (tool_use_id, parent_agent_id) = subagent_parents(&file.with_extension("meta.json"));
        for message in &mut messages {
            message.parent_tool_use_id.clone_from(&tool_use_id);
            message.parent_agent_id.clone_from(&parent_agent_id);
        }
        Ok(messages)
    }

    /// Gives the session a title, as the CLI's `/rename` does: appends a `custom-title` entry to
    /// its transcript (the last one wins). The title is trimmed and must not be empty.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// session.rename("Refactor the parser")?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn rename(&self, title: &str) -> Result<(), HistoryError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(HistoryError::Empty { what: "title" });
        }
        let line = write::metadata_line("custom-title", "customTitle", title, &self.session_id);
        write::append(&self.path, &line)
    }

    /// Tags the session, or with `None` clears its tag: appends a `tag` entry to its transcript
    /// (the last one wins). The tag is trimmed, invisible formatting characters removed, and
    /// must not be empty.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// session.tag(Some("experiment"))?;
    /// session.tag(None)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn tag(&self, tag: Option<&str>) -> Result<(), HistoryError> {
        let tag = match tag {
            Some(tag) => {
                let clean = write::clean_tag(tag);
                if clean.is_empty() {
                    return Err(HistoryError::Empty { what: "tag" });
                }
                clean
            }
            None => String::new(),
        };
        let line = write::metadata_line("tag", "tag", &tag, &self.session_id);
        write::append(&self.path, &line)
    }

    /// Copies the session into a new one and returns its id: the whole conversation, or with
    /// [`ForkOptions::up_to`] the entries up to and including that message
    /// ([`SessionMessage::uuid`]). The copy lives next to the original, so the CLI resumes it
    /// from the same working directory
    /// ([`SessionStart::Resume`](crate::options::SessionStart::Resume)); its entries get new
    /// ids and remember where they were copied from (`forkedFrom`). It is titled
    /// [`ForkOptions::title`], or else after the original, with " (fork)". Subagents'
    /// transcripts and the undo history of file edits are not copied.
    ///
    /// ```no_run
    /// use claude_agent_tokio::history::{ForkOptions, History, Page};
    ///
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// let messages = session.messages(Page::ALL)?;
    /// let fork = session.fork(ForkOptions::new().up_to(&messages[1].uuid).title("Plan B"))?;
    /// println!("resume {fork} to try another answer to the first question");
    /// # Ok(())
    /// # }
    /// ```
    pub fn fork(&self, fork: ForkOptions) -> Result<String, HistoryError> {
        let title = match fork.title.as_deref().map(str::trim) {
            Some("") => return Err(HistoryError::Empty { what: "title" }),
            title => title,
        };
        write::fork(&self.session_id, &self.path, fork.up_to.as_deref(), title)
    }

    /// Archives the session: it stays on disk and in [`History::list_sessions`](super::History::list_sessions),
    /// with [`SessionInfo::archived`] `Some(true)`, until it is unarchived or a prompt is sent in
    /// it. The mark is a file beside the transcript (`<session id>/archived.json`, owner-only),
    /// as the CLI and the official SDKs keep it; the transcript is not changed, and a CLI that
    /// runs the session goes on.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// let session = History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?;
    /// session.archive()?;
    /// assert_eq!(session.info()?.archived, Some(true));
    /// session.unarchive()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn archive(&self) -> Result<(), HistoryError> {
        super::archive::set(&self.path, true)
    }

    /// Unarchives the session: [`SessionInfo::archived`] becomes `Some(false)`.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?.unarchive()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn unarchive(&self) -> Result<(), HistoryError> {
        super::archive::set(&self.path, false)
    }

    /// Deletes the session for good: its transcript, and the folder of its subagents'
    /// transcripts.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::history::History;
    /// # fn main() -> Result<(), claude_agent_tokio::history::HistoryError> {
    /// History::from_env()?.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None)?.delete()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn delete(self) -> Result<(), HistoryError> {
        std::fs::remove_file(&self.path).map_err(io_error(&self.path))?;
        let subfolder = self.path.with_extension("");
        match std::fs::remove_dir_all(&subfolder) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&subfolder)(e)),
            _ => Ok(()),
        }
    }

    fn subagents_folder(&self) -> PathBuf {
        self.path.with_extension("").join("subagents")
    }
}

/// The `toolUseId` and `parentAgentId` of a subagent's `agent-<id>.meta.json`; `None` for a
/// field (or a file) that is missing or not a string, as the CLI's older transcripts have none.
fn subagent_parents(meta: &Path) -> (Option<String>, Option<String>) {
    // A few hundred bytes as the CLI writes it; a larger file is not one of its.
    let mut text = String::new();
    let read = std::fs::File::open(meta).and_then(|file| {
        std::io::Read::read_to_string(&mut std::io::Read::take(file, 64 * 1024), &mut text)
    });
    if read.is_err() {
        return (None, None);
    }
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(&text) else {
        return (None, None);
    };
    let field = |name: &str| {
        fields
            .get(name)
            .and_then(serde_json::Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
    };
    (field("toolUseId"), field("parentAgentId"))
}

/// How [`SessionFile::fork`] copies a session: up to which message, and under which title.
///
/// ```
/// use claude_agent_tokio::history::ForkOptions;
///
/// let fork = ForkOptions::new().up_to("3574dbb8-35bd-4cc5-8004-9b203dfe29ea").title("Plan B");
/// assert_eq!(fork.up_to.as_deref(), Some("3574dbb8-35bd-4cc5-8004-9b203dfe29ea"));
/// assert_eq!(ForkOptions::new(), ForkOptions::default()); // the whole conversation, "<title> (fork)"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ForkOptions {
    /// The last message copied ([`SessionMessage::uuid`]); `None` copies the whole conversation.
    pub up_to: Option<String>,
    /// The fork's title (trimmed, not empty); `None` titles it after the original, with
    /// " (fork)".
    pub title: Option<String>,
}

impl ForkOptions {
    /// The whole conversation, titled after the original.
    pub fn new() -> Self {
        ForkOptions::default()
    }

    /// See [`ForkOptions::up_to`](struct@ForkOptions#structfield.up_to).
    ///
    /// ```
    /// # use claude_agent_tokio::history::ForkOptions;
    /// assert_eq!(ForkOptions::new().up_to("u1").up_to.as_deref(), Some("u1"));
    /// ```
    pub fn up_to(mut self, uuid: impl Into<String>) -> Self {
        self.up_to = Some(uuid.into());
        self
    }

    /// See [`ForkOptions::title`](struct@ForkOptions#structfield.title).
    ///
    /// ```
    /// # use claude_agent_tokio::history::ForkOptions;
    /// assert_eq!(ForkOptions::new().title("Plan B").title.as_deref(), Some("Plan B"));
    /// ```
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}
