//! The history over a store: [`StoreHistory`] lists a project's sessions and finds one,
//! [`StoredSession`] reads and changes it, with the methods and types of
//! [`History`](crate::history::History) and [`SessionFile`](crate::history::SessionFile) on
//! disk.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::functions::jsonl;
use super::summary::text;
use super::{
    fold_session_summary, project_key_for_directory, SessionKey, SessionListing, SessionStore,
    SessionSummary, StoreError,
};
use crate::history::clock::{format_timestamp, is_uuid, parse_timestamp};
use crate::history::write::{clean_tag, fork_lines, ForkRefused};
use crate::history::{chain, ForkOptions, ListSessions, Page, SessionInfo, SessionMessage};
use crate::uuid::new_uuid;

/// The sessions kept in a [`SessionStore`], read and changed as
/// [`History`](crate::history::History) reads and changes those on disk, with the same methods
/// and types, async: [`list_sessions`](StoreHistory::list_sessions) gives a summary of each
/// session ([`SessionInfo`]), newest first, and [`session`](StoreHistory::session) one session
/// ([`StoredSession`]) to read, rename, tag, fork or delete.
///
/// A store keeps its sessions by project ([`project_key_for_directory`]), so a directory here
/// names one project, and `None` names the current directory's (on disk, `None` looks in every
/// project). A [`SessionInfo`] read from a store has no [`path`](SessionInfo::path), no
/// [`file_size`](SessionInfo::file_size) and no [`archived`](SessionInfo::archived) mark.
///
/// It borrows the store and is `Copy`: make one where you need it.
///
/// ```
/// use claude_agent_tokio::history::{ListSessions, Page};
/// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
/// use serde_json::json;
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let id = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";
/// store.append(&SessionKey::new("-nonexistent-app", id), &[
///     json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id,
///            "message": {"role": "user", "content": "fix the bug"}}),
/// ]).await?;
///
/// let history = StoreHistory::new(&store);
/// let dir = Path::new("/nonexistent/app");
/// for info in history.list_sessions(&ListSessions::in_dir(dir).limit(10)).await? {
///     let session = history.session(&info.session_id, Some(dir));
///     let first = session.messages(Page::first(1)).await?;
///     println!("{} {} ({} message shown)", info.session_id, info.summary, first.len());
/// }
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub struct StoreHistory<'s, S: SessionStore + ?Sized> {
    store: &'s S,
}

impl<'s, S: SessionStore + ?Sized> StoreHistory<'s, S> {
    /// The history of the sessions in `store`.
    ///
    /// ```
    /// use claude_agent_tokio::store::{FileSessionStore, StoreHistory};
    /// use std::sync::Arc;
    ///
    /// let store = FileSessionStore::new("/srv/agent-sessions");
    /// let history = StoreHistory::new(&store);
    /// # let _ = history;
    /// // A store shared with `Options::session_store` too:
    /// let shared = Arc::new(FileSessionStore::new("/srv/agent-sessions"));
    /// let history = StoreHistory::new(&*shared);
    /// # let _ = history;
    /// ```
    pub fn new(store: &'s S) -> Self {
        StoreHistory { store }
    }

    /// The sessions of the project `list.dir` (`None`: the current directory) in the store,
    /// newest first, skipping `list.offset` and at most `list.limit` of them, as
    /// [`History::list_sessions`](crate::history::History::list_sessions) lists them on disk.
    /// `list.include_worktrees` and `list.include_programmatic` are for the disk only: a store
    /// lists the one project, and whatever ran in it.
    ///
    /// Uses the store's summaries ([`SessionStore::list_session_summaries`]) when it keeps them:
    /// a summary of a session the store's listing no longer has (a deleted session) is left
    /// out, and a session whose summary is missing or older than the listing says is loaded,
    /// once the page is cut, so a page of 20 loads at most 20 sessions. A store without
    /// summaries is listed with [`SessionStore::list_sessions`] and a
    /// [`load`](SessionStore::load) of each session (a store with neither fails with
    /// [`StoreError::Unsupported`]). A session whose load fails is still listed, with its id and
    /// time alone and an empty `summary`, as the official SDKs list it: one session never fails
    /// the listing. Subagents' sessions and sessions with nothing to show are left out (a
    /// session found so only once it is loaded leaves its page one row short).
    /// [`SessionInfo::modified`] is when the store last wrote the session.
    ///
    /// ```
    /// use claude_agent_tokio::history::ListSessions;
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use serde_json::json;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let key = SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
    /// store.append(&key, &[json!({"type": "user", "message": {"content": "fix the bug"}})]).await?;
    /// let list = ListSessions::in_dir("/nonexistent/app").limit(20);
    /// let sessions = StoreHistory::new(&store).list_sessions(&list).await?;
    /// assert_eq!(sessions[0].summary, "fix the bug");
    /// assert_eq!(sessions[0].path, None); // no file: it is in the store
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn list_sessions(&self, list: &ListSessions) -> Result<Vec<SessionInfo>, StoreError> {
        let store = self.store;
        let dir = list.dir.as_deref();
        let project_key = project_key_for_directory(dir);
        let summaries = match store.list_session_summaries(&project_key).await {
            Ok(summaries) => Some(summaries),
            Err(e) if e.is_unsupported() => None,
            Err(e) => return Err(e),
        };
        let listing = match store.list_sessions(&project_key).await {
            Ok(listing) => Some(listing),
            Err(e) if e.is_unsupported() && summaries.is_some() => None,
            Err(e) => return Err(e),
        };
        let page = |slots: Vec<Slot>| -> Vec<Slot> {
            slots
                .into_iter()
                .skip(list.offset)
                .take(list.limit.unwrap_or(usize::MAX))
                .collect()
        };
        let mut slots = Vec::new();
        let Some(summaries) = summaries else {
            // No summaries: every session is loaded, and the sessions with nothing to show are
            // left out before the page is cut.
            for listed in listing.into_iter().flatten() {
                if let Some(info) = self.load_info(&project_key, &listed, dir).await {
                    slots.push(Slot::Known(Box::new(info)));
                }
            }
            return Ok(infos(page(sorted(slots))));
        };
        // A summary counts when the listing still has its session and it is not older than
        // what the store last wrote; the other listed sessions are loaded, but only those on
        // the page.
        let mut summarised = Vec::new();
        for summary in &summaries {
            let current = listing.as_ref().map(|listing| {
                listing
                    .iter()
                    .find(|l| l.session_id == summary.session_id)
                    .map(|l| l.mtime)
            });
            match current {
                Some(None) => continue,
                Some(Some(mtime)) if summary.mtime < mtime => continue,
                _ => {}
            }
            summarised.push(summary.session_id.as_str());
            slots.extend(info_from_summary(summary, dir).map(|info| Slot::Known(Box::new(info))));
        }
        for listed in listing.iter().flatten() {
            if !summarised.contains(&listed.session_id.as_str()) {
                slots.push(Slot::ToLoad(listed.clone()));
            }
        }
        let mut shown = Vec::new();
        for slot in page(sorted(slots)) {
            match slot {
                Slot::Known(info) => shown.push(*info),
                Slot::ToLoad(listed) => {
                    shown.extend(self.load_info(&project_key, &listed, dir).await);
                }
            }
        }
        Ok(shown)
    }

    /// A listed session's row, from its entries: `None` when it has nothing to show (or is a
    /// subagent's). A store that fails to load it gives a row with the session id and the time
    /// alone, as the official SDKs give it, so that one session does not fail the listing.
    async fn load_info(
        &self,
        project_key: &str,
        listed: &SessionListing,
        dir: Option<&Path>,
    ) -> Option<SessionInfo> {
        let key = SessionKey::new(project_key, listed.session_id.clone());
        let modified = UNIX_EPOCH + Duration::from_millis(listed.mtime);
        match self.store.load(&key).await {
            Ok(Some(entries)) => {
                let mut summary = fold_session_summary(None, &key, &entries);
                summary.mtime = listed.mtime;
                info_from_summary(&summary, dir)
            }
            Ok(None) => None,
            Err(_) => Some(SessionInfo {
                session_id: listed.session_id.clone(),
                summary: String::new(),
                custom_title: None,
                first_prompt: None,
                cwd: None,
                git_branch: None,
                tag: None,
                created: None,
                modified,
                file_size: None,
                path: None,
                archived: None,
            }),
        }
    }

    /// The session `session_id` of the project `dir` (`None`: the current directory), to read
    /// and change as [`History::session`](crate::history::History::session) gives one on disk.
    /// Nothing is read yet: a session the store does not have shows up as
    /// [`StoreError::NotFound`] from the methods that need it.
    ///
    /// ```
    /// use claude_agent_tokio::history::Page;
    /// use claude_agent_tokio::store::{InMemorySessionStore, StoreError, StoreHistory};
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let session = StoreHistory::new(&store)
    ///     .session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", Some(Path::new("/nonexistent/app")));
    /// assert_eq!(session.id(), "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
    /// assert!(matches!(session.messages(Page::ALL).await, Err(StoreError::NotFound { .. })));
    /// # });
    /// ```
    pub fn session(&self, session_id: &str, dir: Option<&Path>) -> StoredSession<'s, S> {
        StoredSession {
            store: self.store,
            session_id: session_id.to_owned(),
            dir: dir.map(Path::to_path_buf),
        }
    }
}

impl<S: SessionStore + ?Sized> Clone for StoreHistory<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: SessionStore + ?Sized> Copy for StoreHistory<'_, S> {}

impl<S: SessionStore + ?Sized> fmt::Debug for StoreHistory<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreHistory").finish_non_exhaustive()
    }
}

/// One session of a store, given by [`StoreHistory::session`]: its summary, its conversation
/// and its subagents' to read, and the changes the CLI understands (a title, a tag, a fork,
/// deletion), with the methods and types of [`SessionFile`](crate::history::SessionFile) on
/// disk, async. Changes are entries appended to the session in the store, so the CLI sees them
/// when it resumes the session from the store. Archiving is for the disk only: its mark is a
/// file beside the transcript, not a transcript entry.
///
/// ```
/// use claude_agent_tokio::history::{ForkOptions, Page};
/// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
/// use serde_json::json;
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// store.append(&SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952"), &[
///     json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "13dbd64f-f8d4-4686-ab4c-e5b537e0a952",
///            "message": {"role": "user", "content": "fix the bug"}}),
/// ]).await?;
///
/// let session = StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", Some(Path::new("/nonexistent/app")));
/// session.rename("Bug hunt").await?;
/// assert_eq!(session.info().await?.summary, "Bug hunt");
/// assert_eq!(session.messages(Page::ALL).await?.len(), 1);
/// let fork = session.fork(ForkOptions::new().title("Plan B")).await?;
/// println!("resume {fork} from the store to try again");
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub struct StoredSession<'s, S: SessionStore + ?Sized> {
    store: &'s S,
    session_id: String,
    /// The project directory; `None` is the current directory.
    dir: Option<PathBuf>,
}

impl<S: SessionStore + ?Sized> Clone for StoredSession<'_, S> {
    fn clone(&self) -> Self {
        StoredSession {
            store: self.store,
            session_id: self.session_id.clone(),
            dir: self.dir.clone(),
        }
    }
}

impl<S: SessionStore + ?Sized> fmt::Debug for StoredSession<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredSession")
            .field("session_id", &self.session_id)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl<S: SessionStore + ?Sized> StoredSession<'_, S> {
    /// The session's id.
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, StoreHistory};
    ///
    /// let store = InMemorySessionStore::new();
    /// let session = StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None);
    /// assert_eq!(session.id(), "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
    /// ```
    pub fn id(&self) -> &str {
        &self.session_id
    }

    /// The session's summary, as [`StoreHistory::list_sessions`] lists it, from one
    /// [`load`](SessionStore::load); [`SessionInfo::modified`] is the time of its last entry.
    /// [`StoreError::NotFound`] when the store does not have the session, or it is a subagent's,
    /// or it has nothing to show (no prompt, no title), as
    /// [`SessionFile::info`](crate::history::SessionFile::info) fails on disk.
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use serde_json::json;
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let dir = Path::new("/nonexistent/app");
    /// let id = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";
    /// store.append(&SessionKey::new("-nonexistent-app", id), &[
    ///     json!({"type": "user", "timestamp": "2026-11-26T09:00:00.000Z", "message": {"content": "fix the bug"}}),
    /// ]).await?;
    /// let info = StoreHistory::new(&store).session(id, Some(dir)).info().await?;
    /// assert_eq!(info.summary, "fix the bug");
    /// assert_eq!(info.cwd.as_deref(), Some(dir));
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn info(&self) -> Result<SessionInfo, StoreError> {
        let key = self.key();
        let entries = load_existing(self.store, &key).await?;
        let mut summary = fold_session_summary(None, &key, &entries);
        let modified = entries
            .iter()
            .rev()
            .find_map(|e| e["timestamp"].as_str().and_then(parse_timestamp))
            .unwrap_or(UNIX_EPOCH);
        summary.mtime = super::epoch_ms(modified);
        info_from_summary(&summary, self.dir.as_deref()).ok_or_else(|| not_found(&key))
    }

    /// The conversation, oldest first, as `page` says, as
    /// [`SessionFile::messages`](crate::history::SessionFile::messages) reads it from disk: the
    /// same typed messages. [`StoreError::NotFound`] when the store does not have the session.
    ///
    /// ```
    /// use claude_agent_tokio::history::Page;
    /// use claude_agent_tokio::message::Message;
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use serde_json::json;
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let id = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";
    /// store.append(&SessionKey::new("-nonexistent-app", id), &[
    ///     json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id,
    ///            "message": {"role": "user", "content": "hi"}}),
    /// ]).await?;
    /// let session = StoreHistory::new(&store).session(id, Some(Path::new("/nonexistent/app")));
    /// let messages = session.messages(Page::ALL).await?;
    /// assert!(matches!(messages[0].message, Message::User(_)));
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn messages(&self, page: Page) -> Result<Vec<SessionMessage>, StoreError> {
        let entries = load_existing(self.store, &self.key()).await?;
        let text = jsonl(&entries);
        let conversation = chain::conversation(chain::parse_entries(&text), page.system_messages);
        Ok(page.apply(conversation))
    }

    /// The ids of the subagents of the session that the store holds a transcript of, in name
    /// order, as [`SessionFile::subagents`](crate::history::SessionFile::subagents) lists them
    /// on disk. Needs [`SessionStore::list_subkeys`].
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let main = SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
    /// let agent = main.clone().with_subpath("subagents/agent-a1b2");
    /// store.append(&agent, &[serde_json::json!({"type": "user"})]).await?;
    /// let session = StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", Some(Path::new("/nonexistent/app")));
    /// assert_eq!(session.subagents().await?, ["a1b2"]);
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn subagents(&self) -> Result<Vec<String>, StoreError> {
        let project_key = project_key_for_directory(self.dir.as_deref());
        let subpaths = self
            .store
            .list_subkeys(&project_key, &self.session_id)
            .await?;
        let mut agents: Vec<String> = subpaths
            .iter()
            .filter_map(|subpath| agent_of_subpath(subpath))
            .map(str::to_owned)
            .collect();
        agents.sort();
        agents.dedup();
        Ok(agents)
    }

    /// The conversation of the subagent `agent_id` of the session (see
    /// [`StoredSession::subagents`]), oldest first, as `page` says, as
    /// [`SessionFile::subagent_messages`](crate::history::SessionFile::subagent_messages) reads
    /// it from disk. Each message's `parent_tool_use_id` and `parent_agent_id` come from the
    /// subagent's `agent_metadata` entry, which [`import_session`](super::import_session)
    /// stores. A subagent the store does not have gives no messages.
    ///
    /// ```
    /// use claude_agent_tokio::history::Page;
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use serde_json::json;
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let agent = SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952").with_subpath("subagents/agent-a1b2");
    /// store.append(&agent, &[
    ///     json!({"type": "user", "uuid": "u1", "parentUuid": null, "isSidechain": true,
    ///            "message": {"role": "user", "content": "look around"}}),
    ///     json!({"type": "agent_metadata", "toolUseId": "toolu_01"}),
    /// ]).await?;
    /// let session = StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", Some(Path::new("/nonexistent/app")));
    /// let messages = session.subagent_messages("a1b2", Page::ALL).await?;
    /// assert_eq!(messages[0].parent_tool_use_id.as_deref(), Some("toolu_01"));
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn subagent_messages(
        &self,
        agent_id: &str,
        page: Page,
    ) -> Result<Vec<SessionMessage>, StoreError> {
        let store = self.store;
        let session_id = self.session_id.as_str();
        let project_key = project_key_for_directory(self.dir.as_deref());
        let mut subpath = format!("subagents/agent-{agent_id}");
        match store.list_subkeys(&project_key, session_id).await {
            Ok(subpaths) => match subpaths
                .into_iter()
                .find(|s| agent_of_subpath(s) == Some(agent_id))
            {
                Some(found) => subpath = found,
                None => return Ok(Vec::new()),
            },
            Err(e) if e.is_unsupported() => {}
            Err(e) => return Err(e),
        }
        let key = SessionKey::new(project_key, session_id).with_subpath(subpath);
        let Some(entries) = store.load(&key).await? else {
            return Ok(Vec::new());
        };
        let (metadata, transcript): (Vec<Value>, Vec<Value>) = entries
            .into_iter()
            .partition(|e| e["type"] == "agent_metadata");
        let parent = |field: &str| {
            metadata
                .last()
                .and_then(|m| m[field].as_str())
                .filter(|id| !id.is_empty())
                .map(str::to_owned)
        };
        let (tool_use_id, parent_agent_id) = (parent("toolUseId"), parent("parentAgentId"));
        let conversation = chain::subagent_conversation(chain::parse_entries(&jsonl(&transcript)));
        let mut messages = page.apply(conversation);
        for message in &mut messages {
            message.parent_tool_use_id.clone_from(&tool_use_id);
            message.parent_agent_id.clone_from(&parent_agent_id);
        }
        Ok(messages)
    }

    /// Gives the session a title, as [`SessionFile::rename`](crate::history::SessionFile::rename)
    /// does on disk: appends a `custom-title` entry (the last one wins). The title is trimmed and
    /// must not be empty ([`StoreError::Empty`]); the session must be in the store
    /// ([`StoreError::NotFound`]).
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use serde_json::json;
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// store.append(&SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952"), &[
    ///     json!({"type": "user", "message": {"content": "fix the bug"}}),
    /// ]).await?;
    /// let session = StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", Some(Path::new("/nonexistent/app")));
    /// session.rename("Bug hunt").await?;
    /// assert_eq!(session.info().await?.custom_title.as_deref(), Some("Bug hunt"));
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn rename(&self, title: &str) -> Result<(), StoreError> {
        self.check_id()?;
        let title = title.trim();
        if title.is_empty() {
            return Err(StoreError::Empty { what: "title" });
        }
        let key = self.existing().await?;
        let entry = metadata_entry("custom-title", "customTitle", title, &self.session_id);
        self.store.append(&key, &[entry]).await
    }

    /// Tags the session, or with `None` clears its tag, as
    /// [`SessionFile::tag`](crate::history::SessionFile::tag) does on disk: appends a `tag` entry
    /// (the last one wins). The tag is trimmed, invisible formatting characters removed, and must
    /// not be empty ([`StoreError::Empty`]); the session must be in the store
    /// ([`StoreError::NotFound`]).
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use serde_json::json;
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// store.append(&SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952"), &[
    ///     json!({"type": "user", "message": {"content": "fix the bug"}}),
    /// ]).await?;
    /// let session = StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", Some(Path::new("/nonexistent/app")));
    /// session.tag(Some("experiment")).await?;
    /// assert_eq!(session.info().await?.tag.as_deref(), Some("experiment"));
    /// session.tag(None).await?;
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn tag(&self, tag: Option<&str>) -> Result<(), StoreError> {
        self.check_id()?;
        let tag = match tag {
            Some(tag) => {
                let clean = clean_tag(tag);
                if clean.is_empty() {
                    return Err(StoreError::Empty { what: "tag" });
                }
                clean
            }
            None => String::new(),
        };
        let key = self.existing().await?;
        let entry = metadata_entry("tag", "tag", &tag, &self.session_id);
        self.store.append(&key, &[entry]).await
    }

    /// Copies the session into a new session of the same project in the store and returns its
    /// id, as [`SessionFile::fork`](crate::history::SessionFile::fork) does on disk: the whole
    /// conversation or up to [`ForkOptions::up_to`], with new ids, titled
    /// [`ForkOptions::title`] or after the original with " (fork)". Resume it from the store
    /// ([`Options::session_store`](crate::Options::session_store)) in the same working
    /// directory. Subagents' transcripts are not copied. Fails with [`StoreError::NotFound`],
    /// [`StoreError::MessageNotFound`] (no `up_to` message), [`StoreError::NothingToFork`] or
    /// [`StoreError::Empty`] (an empty title).
    ///
    /// ```
    /// use claude_agent_tokio::history::{ForkOptions, Page};
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use serde_json::json;
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let dir = Some(Path::new("/nonexistent/app"));
    /// store.append(&SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952"), &[
    ///     json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "13dbd64f-f8d4-4686-ab4c-e5b537e0a952",
    ///            "message": {"role": "user", "content": "fix the bug"}}),
    /// ]).await?;
    /// let history = StoreHistory::new(&store);
    /// let fork = history.session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", dir).fork(ForkOptions::new().title("Plan B")).await?;
    /// let copy = history.session(&fork, dir);
    /// assert_eq!(copy.info().await?.summary, "Plan B");
    /// assert_eq!(copy.messages(Page::ALL).await?.len(), 1);
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn fork(&self, fork: ForkOptions) -> Result<String, StoreError> {
        self.check_id()?;
        if let Some(up_to) = fork.up_to.as_deref().filter(|id| !is_uuid(id)) {
            return Err(StoreError::InvalidId {
                what: "message id",
                id: up_to.to_owned(),
            });
        }
        let session_id = self.session_id.as_str();
        let title = match fork.title.as_deref().map(str::trim) {
            Some("") => return Err(StoreError::Empty { what: "title" }),
            title => title,
        };
        let key = self.key();
        let entries = load_existing(self.store, &key).await?;
        let copy = fork_lines(session_id, &jsonl(&entries), fork.up_to.as_deref(), title).map_err(
            |refused| match refused {
                ForkRefused::MessageNotFound => StoreError::MessageNotFound {
                    session_id: session_id.to_owned(),
                    uuid: fork.up_to.clone().unwrap_or_default(),
                },
                ForkRefused::NothingToFork => StoreError::NothingToFork {
                    session_id: session_id.to_owned(),
                },
            },
        )?;
        let copied: Vec<Value> = copy
            .lines
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let target = SessionKey::new(key.project_key, copy.session_id.clone());
        self.store.append(&target, &copied).await?;
        Ok(copy.session_id)
    }

    /// Deletes the session from the store, with its subagents' transcripts, as
    /// [`SessionFile::delete`](crate::history::SessionFile::delete) does on disk. Needs
    /// [`SessionStore::delete`]; deleting a session the store does not have is not an error.
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore, StoreHistory};
    /// use std::path::Path;
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// let key = SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
    /// store.append(&key, &[serde_json::json!({"type": "user"})]).await?;
    /// StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", Some(Path::new("/nonexistent/app"))).delete().await?;
    /// assert_eq!(store.load(&key).await?, None);
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub async fn delete(self) -> Result<(), StoreError> {
        self.check_id()?;
        self.store.delete(&self.key()).await
    }

    /// A change to the session needs its id to be a UUID, as the official SDKs check it before
    /// they touch the store.
    fn check_id(&self) -> Result<(), StoreError> {
        if is_uuid(&self.session_id) {
            Ok(())
        } else {
            Err(StoreError::InvalidId {
                what: "session id",
                id: self.session_id.clone(),
            })
        }
    }

    /// The key of the main transcript.
    fn key(&self) -> SessionKey {
        SessionKey::new(
            project_key_for_directory(self.dir.as_deref()),
            self.session_id.as_str(),
        )
    }

    /// The key of the session, once the store shows it has the session.
    async fn existing(&self) -> Result<SessionKey, StoreError> {
        let key = self.key();
        load_existing(self.store, &key).await?;
        Ok(key)
    }
}

/// The listing entry of a summary; `None` for a subagent's session or one with nothing to show.
/// A row of a store listing: known from a summary (or loaded), or a session to load once it is
/// known to be on the page.
enum Slot {
    Known(Box<SessionInfo>),
    ToLoad(SessionListing),
}

impl Slot {
    fn modified(&self) -> SystemTime {
        match self {
            Slot::Known(info) => info.modified,
            Slot::ToLoad(listed) => UNIX_EPOCH + Duration::from_millis(listed.mtime),
        }
    }

    fn session_id(&self) -> &str {
        match self {
            Slot::Known(info) => &info.session_id,
            Slot::ToLoad(listed) => &listed.session_id,
        }
    }
}

/// Newest first, then by session id.
fn sorted(mut slots: Vec<Slot>) -> Vec<Slot> {
    slots.sort_by(|a, b| {
        b.modified()
            .cmp(&a.modified())
            .then_with(|| a.session_id().cmp(b.session_id()))
    });
    slots
}

/// The rows of slots that are all known.
fn infos(slots: Vec<Slot>) -> Vec<SessionInfo> {
    slots
        .into_iter()
        .filter_map(|slot| match slot {
            Slot::Known(info) => Some(*info),
            Slot::ToLoad(_) => None,
        })
        .collect()
}

fn info_from_summary(summary: &SessionSummary, project_dir: Option<&Path>) -> Option<SessionInfo> {
    let data = &summary.data;
    if data.get("is_sidechain") == Some(&Value::Bool(true)) {
        return None;
    }
    let first_prompt = if data.get("first_prompt_locked") == Some(&Value::Bool(true)) {
        text(data, "first_prompt")
    } else {
        text(data, "command_fallback")
    };
    let custom_title = text(data, "custom_title").or_else(|| text(data, "ai_title"));
    let shown = custom_title
        .or_else(|| text(data, "last_prompt"))
        .or_else(|| text(data, "summary_hint"))
        .or(first_prompt)?;
    Some(SessionInfo {
        session_id: summary.session_id.clone(),
        summary: shown.to_owned(),
        custom_title: custom_title.map(str::to_owned),
        first_prompt: first_prompt.map(str::to_owned),
        cwd: text(data, "cwd")
            .map(PathBuf::from)
            .or_else(|| project_dir.map(Path::to_path_buf)),
        git_branch: text(data, "git_branch").map(str::to_owned),
        tag: text(data, "tag").map(str::to_owned),
        created: data
            .get("created_at")
            .and_then(Value::as_u64)
            .map(|ms| UNIX_EPOCH + Duration::from_millis(ms)),
        modified: UNIX_EPOCH + Duration::from_millis(summary.mtime),
        file_size: None,
        path: None,
        archived: None,
    })
}

/// The agent id of a subpath `subagents/…/agent-<id>`.
fn agent_of_subpath(subpath: &str) -> Option<&str> {
    if !subpath.starts_with("subagents/") {
        return None;
    }
    subpath.rsplit('/').next()?.strip_prefix("agent-")
}

fn not_found(key: &SessionKey) -> StoreError {
    StoreError::NotFound {
        session_id: key.session_id.clone(),
        project_key: key.project_key.clone(),
    }
}

/// The entries under `key`; [`StoreError::NotFound`] when there are none.
async fn load_existing(
    store: &(impl SessionStore + ?Sized),
    key: &SessionKey,
) -> Result<Vec<Value>, StoreError> {
    match store.load(key).await? {
        Some(entries) if !entries.is_empty() => Ok(entries),
        _ => Err(not_found(key)),
    }
}

/// A metadata entry as a store keeps it: the CLI's line, with an id and a time of its own so
/// that stores which skip entries they already have keep each change.
fn metadata_entry(ty: &str, field: &str, value: &str, session_id: &str) -> Value {
    json!({
        "type": ty,
        field: value,
        "sessionId": session_id,
        "uuid": new_uuid(),
        "timestamp": format_timestamp(SystemTime::now()),
    })
}
