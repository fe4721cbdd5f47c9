//! One stored session, read and changed through a store as the history functions do on disk:
//! its summary, its subagents, a title, a tag and a fork.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::functions::{jsonl, StoredSessionInfo};
use super::{
    fold_session_summary, project_key_for_directory, SessionKey, SessionStore, StoreError,
};
use crate::history::clock::{format_timestamp, parse_timestamp};
use crate::history::write::{clean_tag, fork_lines, ForkRefused};
use crate::history::{chain, ForkOptions, Page, SessionMessage};
use crate::uuid::new_uuid;

/// Why [`rename_session`], [`tag_session`] or [`fork_session`] changed nothing.
///
/// ```
/// use claude_agent_tokio::store::EditError;
///
/// let error = EditError::Empty { what: "title" };
/// assert_eq!(error.to_string(), "the title is empty");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The title or tag is empty once trimmed.
    #[error("the {what} is empty")]
    Empty {
        /// `"title"` or `"tag"`.
        what: &'static str,
    },
    /// The store has no such session under the project key.
    #[error("the session store has no session {session_id} in project {project_key}")]
    NotFound {
        /// The session looked for.
        session_id: String,
        /// The project key it was looked for under.
        project_key: String,
    },
    /// [`ForkOptions::up_to`] names no message of the session.
    #[error("session {session_id} has no message {uuid}")]
    MessageNotFound {
        /// The session.
        session_id: String,
        /// The message id looked for.
        uuid: String,
    },
    /// The session has no message to copy.
    #[error("session {session_id} has no message to fork")]
    NothingToFork {
        /// The session.
        session_id: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The summary of `session_id` in the project `dir` (`None`: the current directory), as
/// [`list_sessions`](super::list_sessions) lists it, from one [`load`](SessionStore::load);
/// `modified` is the time of its last entry. `None` when the store does not have the session,
/// or it is a subagent's, or it has nothing to show (no prompt, no title).
///
/// ```
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
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
/// let info = store::session_info(&store, id, Some(dir)).await?.expect("stored");
/// assert_eq!(info.summary, "fix the bug");
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub async fn session_info(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    dir: Option<&Path>,
) -> Result<Option<StoredSessionInfo>, StoreError> {
    let key = SessionKey::new(project_key_for_directory(dir), session_id);
    let Some(entries) = store.load(&key).await?.filter(|e| !e.is_empty()) else {
        return Ok(None);
    };
    let mut summary = fold_session_summary(None, &key, &entries);
    let modified = entries
        .iter()
        .rev()
        .find_map(|e| e["timestamp"].as_str().and_then(parse_timestamp))
        .unwrap_or(UNIX_EPOCH);
    summary.mtime = super::epoch_ms(modified);
    Ok(StoredSessionInfo::from_summary(&summary, dir))
}

/// The ids of the subagents of `session_id` in the project `dir` (`None`: the current
/// directory) that the store holds a transcript of, in name order. Needs
/// [`SessionStore::list_subkeys`].
///
/// ```
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let main = SessionKey::new("-nonexistent-app", "s1");
/// let agent = main.clone().with_subpath("subagents/agent-a1b2");
/// store.append(&agent, &[serde_json::json!({"type": "user"})]).await?;
/// let agents = store::list_subagents(&store, "s1", Some(Path::new("/nonexistent/app"))).await?;
/// assert_eq!(agents, ["a1b2"]);
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub async fn list_subagents(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    dir: Option<&Path>,
) -> Result<Vec<String>, StoreError> {
    let project_key = project_key_for_directory(dir);
    let subpaths = store.list_subkeys(&project_key, session_id).await?;
    let mut agents: Vec<String> = subpaths
        .iter()
        .filter_map(|subpath| agent_of_subpath(subpath))
        .map(str::to_owned)
        .collect();
    agents.sort();
    agents.dedup();
    Ok(agents)
}

/// The agent id of a subpath `subagents/…/agent-<id>`.
fn agent_of_subpath(subpath: &str) -> Option<&str> {
    if !subpath.starts_with("subagents/") {
        return None;
    }
    subpath.rsplit('/').next()?.strip_prefix("agent-")
}

/// The conversation of the subagent `agent_id` of `session_id` in the project `dir` (`None`:
/// the current directory), oldest first, as `page` says, as
/// [`SessionFile::subagent_messages`](crate::history::SessionFile::subagent_messages) reads it
/// from disk. Each message's `parent_tool_use_id` and `parent_agent_id` come from the
/// subagent's `agent_metadata` entry, which [`import_session`](super::import_session) stores.
/// A subagent the store does not have gives no messages.
///
/// ```
/// use claude_agent_tokio::history::Page;
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
/// use serde_json::json;
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let agent = SessionKey::new("-nonexistent-app", "s1").with_subpath("subagents/agent-a1b2");
/// store.append(&agent, &[
///     json!({"type": "user", "uuid": "u1", "parentUuid": null, "isSidechain": true,
///            "message": {"role": "user", "content": "look around"}}),
///     json!({"type": "agent_metadata", "toolUseId": "toolu_01"}),
/// ]).await?;
/// let dir = Path::new("/nonexistent/app");
/// let messages = store::subagent_messages(&store, "s1", "a1b2", Some(dir), Page::ALL).await?;
/// assert_eq!(messages[0].parent_tool_use_id.as_deref(), Some("toolu_01"));
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub async fn subagent_messages(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    agent_id: &str,
    dir: Option<&Path>,
    page: Page,
) -> Result<Vec<SessionMessage>, StoreError> {
    let project_key = project_key_for_directory(dir);
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

/// Gives `session_id` in the project `dir` (`None`: the current directory) a title, as
/// [`SessionFile::rename`](crate::history::SessionFile::rename) does on disk: appends a
/// `custom-title` entry (the last one wins). The title is trimmed and must not be empty; the
/// session must be in the store.
///
/// ```
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
/// use serde_json::json;
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let dir = Path::new("/nonexistent/app");
/// store.append(&SessionKey::new("-nonexistent-app", "s1"), &[
///     json!({"type": "user", "message": {"content": "fix the bug"}}),
/// ]).await?;
/// store::rename_session(&store, "s1", "Bug hunt", Some(dir)).await?;
/// let info = store::session_info(&store, "s1", Some(dir)).await?.unwrap();
/// assert_eq!(info.custom_title.as_deref(), Some("Bug hunt"));
/// # Ok::<(), claude_agent_tokio::store::EditError>(())
/// # }).unwrap();
/// ```
pub async fn rename_session(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    title: &str,
    dir: Option<&Path>,
) -> Result<(), EditError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(EditError::Empty { what: "title" });
    }
    let key = existing(store, session_id, dir).await?;
    let entry = metadata_entry("custom-title", "customTitle", title, session_id);
    Ok(store.append(&key, &[entry]).await?)
}

/// Tags `session_id` in the project `dir` (`None`: the current directory), or with `None`
/// clears its tag, as [`SessionFile::tag`](crate::history::SessionFile::tag) does on disk:
/// appends a `tag` entry (the last one wins). The tag is trimmed, invisible formatting
/// characters removed, and must not be empty; the session must be in the store.
///
/// ```
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
/// use serde_json::json;
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let dir = Path::new("/nonexistent/app");
/// store.append(&SessionKey::new("-nonexistent-app", "s1"), &[
///     json!({"type": "user", "message": {"content": "fix the bug"}}),
/// ]).await?;
/// store::tag_session(&store, "s1", Some("experiment"), Some(dir)).await?;
/// let info = store::session_info(&store, "s1", Some(dir)).await?.unwrap();
/// assert_eq!(info.tag.as_deref(), Some("experiment"));
/// store::tag_session(&store, "s1", None, Some(dir)).await?;
/// # Ok::<(), claude_agent_tokio::store::EditError>(())
/// # }).unwrap();
/// ```
pub async fn tag_session(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    tag: Option<&str>,
    dir: Option<&Path>,
) -> Result<(), EditError> {
    let tag = match tag {
        Some(tag) => {
            let clean = clean_tag(tag);
            if clean.is_empty() {
                return Err(EditError::Empty { what: "tag" });
            }
            clean
        }
        None => String::new(),
    };
    let key = existing(store, session_id, dir).await?;
    let entry = metadata_entry("tag", "tag", &tag, session_id);
    Ok(store.append(&key, &[entry]).await?)
}

/// Copies `session_id` of the project `dir` (`None`: the current directory) into a new session
/// of the same project in the store and returns its id, as
/// [`SessionFile::fork`](crate::history::SessionFile::fork) does on disk: the whole
/// conversation or up to [`ForkOptions::up_to`], with new ids, titled [`ForkOptions::title`]
/// or after the original with " (fork)". Resume it from the store
/// ([`Options::session_store`](crate::Options::session_store)) in the same working
/// directory. Subagents' transcripts are not copied.
///
/// ```
/// use claude_agent_tokio::history::{ForkOptions, Page};
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
/// use serde_json::json;
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let dir = Path::new("/nonexistent/app");
/// store.append(&SessionKey::new("-nonexistent-app", "s1"), &[
///     json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s1",
///            "message": {"role": "user", "content": "fix the bug"}}),
/// ]).await?;
/// let fork = store::fork_session(&store, "s1", Some(dir), ForkOptions::new().title("Plan B")).await?;
/// let info = store::session_info(&store, &fork, Some(dir)).await?.unwrap();
/// assert_eq!(info.summary, "Plan B");
/// assert_eq!(store::session_messages(&store, &fork, Some(dir), Page::ALL).await?.len(), 1);
/// # Ok::<(), claude_agent_tokio::store::EditError>(())
/// # }).unwrap();
/// ```
pub async fn fork_session(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    dir: Option<&Path>,
    fork: ForkOptions,
) -> Result<String, EditError> {
    let title = match fork.title.as_deref().map(str::trim) {
        Some("") => return Err(EditError::Empty { what: "title" }),
        title => title,
    };
    let key = SessionKey::new(project_key_for_directory(dir), session_id);
    let entries = load_existing(store, &key).await?;
    let copy = fork_lines(session_id, &jsonl(&entries), fork.up_to.as_deref(), title).map_err(
        |refused| match refused {
            ForkRefused::MessageNotFound => EditError::MessageNotFound {
                session_id: session_id.to_owned(),
                uuid: fork.up_to.clone().unwrap_or_default(),
            },
            ForkRefused::NothingToFork => EditError::NothingToFork {
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
    store.append(&target, &copied).await?;
    Ok(copy.session_id)
}

/// The key of `session_id` in the project `dir`, once the store shows it has the session.
async fn existing(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    dir: Option<&Path>,
) -> Result<SessionKey, EditError> {
    let key = SessionKey::new(project_key_for_directory(dir), session_id);
    load_existing(store, &key).await?;
    Ok(key)
}

/// The entries under `key`; [`EditError::NotFound`] when there are none.
async fn load_existing(
    store: &(impl SessionStore + ?Sized),
    key: &SessionKey,
) -> Result<Vec<Value>, EditError> {
    match store.load(key).await? {
        Some(entries) if !entries.is_empty() => Ok(entries),
        _ => Err(EditError::NotFound {
            session_id: key.session_id.clone(),
            project_key: key.project_key.clone(),
        }),
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
