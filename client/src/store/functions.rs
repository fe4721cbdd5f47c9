//! The history functions over a store: import a session from disk, list sessions, read one,
//! delete one.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::summary::text;
use super::{fold_session_summary, SessionKey, SessionStore, SessionSummary, StoreError};
use crate::history::SessionMessage;
use crate::history::{chain, collect_agents, paths, read_text, History, HistoryError, Page};

/// Entries per [`SessionStore::append`] call when importing, unless [`ImportOptions::batch_size`]
/// says otherwise.
const IMPORT_BATCH: usize = 500;
/// Bytes of transcript lines per append call when importing.
const IMPORT_BATCH_BYTES: usize = 1 << 20;

/// The project key of the sessions that run in `dir`: the folder name the CLI gives it under
/// `projects/` (symlinks resolved; every character that is not an ASCII letter or digit becomes
/// `-`; past 200 characters cut, with a hash). `None` means the current directory.
///
/// ```
/// use claude_agent_tokio::store::project_key_for_directory;
/// use std::path::Path;
///
/// assert_eq!(project_key_for_directory(Some(Path::new("/nonexistent/my_app"))), "-nonexistent-my-app");
/// ```
pub fn project_key_for_directory(dir: Option<&Path>) -> String {
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    paths::project_folder_name(&paths::canonical(&dir).to_string_lossy())
}

/// A session as [`list_sessions`] lists it: the fields of
/// [`SessionInfo`](crate::history::SessionInfo) a store can tell.
///
/// ```
/// # use claude_agent_tokio::store::StoredSessionInfo;
/// fn line(info: &StoredSessionInfo) -> String {
///     format!("{}  {}  {}", info.session_id, info.summary, info.tag.as_deref().unwrap_or("-"))
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredSessionInfo {
    /// The session id.
    pub session_id: String,
    /// What to show: the title, else the last prompt, else the CLI's summary, else the first
    /// prompt.
    pub summary: String,
    /// The title the session was given (or the one the CLI generated).
    pub custom_title: Option<String>,
    /// The first prompt a person typed, on one line, cut at 200 characters.
    pub first_prompt: Option<String>,
    /// The working directory the session ran in.
    pub cwd: Option<PathBuf>,
    /// The git branch the session was last on.
    pub git_branch: Option<String>,
    /// The session's tag.
    pub tag: Option<String>,
    /// When the session started (its first entry's timestamp).
    pub created: Option<SystemTime>,
    /// When the store last wrote the session.
    pub modified: SystemTime,
}

impl StoredSessionInfo {
    /// The listing entry of a summary; `None` for a subagent's session or one with nothing to
    /// show.
    pub(super) fn from_summary(
        summary: &SessionSummary,
        project_dir: Option<&Path>,
    ) -> Option<Self> {
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
        Some(StoredSessionInfo {
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
        })
    }
}

/// The sessions of the project `dir` (`None`: the current directory) in `store`, newest first,
/// as `page` says.
///
/// Uses the store's summaries ([`SessionStore::list_session_summaries`]) when it keeps them, and
/// loads a session only when its summary is missing or older than the store's listing says;
/// a store without summaries is listed with [`SessionStore::list_sessions`] and a
/// [`load`](SessionStore::load) of each session. Subagents' sessions and sessions with nothing
/// to show are left out.
///
/// ```
/// use claude_agent_tokio::history::Page;
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
/// use serde_json::json;
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let dir = Path::new("/nonexistent/app");
/// let key = SessionKey::new("-nonexistent-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
/// store.append(&key, &[json!({"type": "user", "message": {"content": "fix the bug"}})]).await?;
/// let sessions = store::list_sessions(&store, Some(dir), Page::ALL).await?;
/// assert_eq!(sessions[0].summary, "fix the bug");
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub async fn list_sessions(
    store: &(impl SessionStore + ?Sized),
    dir: Option<&Path>,
    page: Page,
) -> Result<Vec<StoredSessionInfo>, StoreError> {
    let project_key = project_key_for_directory(dir);
    let mut summaries = match store.list_session_summaries(&project_key).await {
        Ok(summaries) => summaries,
        Err(e) if e.is_unsupported() => Vec::new(),
        Err(e) => return Err(e),
    };
    let listing = match store.list_sessions(&project_key).await {
        Ok(listing) => Some(listing),
        // Summaries alone are enough.
        Err(e) if e.is_unsupported() && !summaries.is_empty() => None,
        Err(e) => return Err(e),
    };
    for listed in listing.into_iter().flatten() {
        let fresh = summaries
            .iter()
            .any(|s| s.session_id == listed.session_id && s.mtime >= listed.mtime);
        if fresh {
            continue;
        }
        let key = SessionKey::new(project_key.clone(), listed.session_id.clone());
        let Some(entries) = store.load(&key).await? else {
            continue;
        };
        let mut summary = fold_session_summary(None, &key, &entries);
        summary.mtime = listed.mtime;
        summaries.retain(|s| s.session_id != listed.session_id);
        summaries.push(summary);
    }
    let mut infos: Vec<StoredSessionInfo> = summaries
        .iter()
        .filter_map(|s| StoredSessionInfo::from_summary(s, dir))
        .collect();
    infos.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    Ok(infos
        .into_iter()
        .skip(page.offset)
        .take(page.limit.unwrap_or(usize::MAX))
        .collect())
}

/// The conversation of `session_id` in the project `dir` (`None`: the current directory), as
/// [`SessionFile::messages`](crate::history::SessionFile::messages) reads it from disk: the
/// same typed messages, oldest first, as `page` says. A session the store does not have gives no
/// messages.
///
/// ```
/// use claude_agent_tokio::message::Message;
/// use claude_agent_tokio::history::Page;
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
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
/// let messages = store::session_messages(&store, id, Some(Path::new("/nonexistent/app")), Page::ALL).await?;
/// assert!(matches!(messages[0].message, Message::User(_)));
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub async fn session_messages(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    dir: Option<&Path>,
    page: Page,
) -> Result<Vec<SessionMessage>, StoreError> {
    let key = SessionKey::new(project_key_for_directory(dir), session_id);
    let Some(entries) = store.load(&key).await? else {
        return Ok(Vec::new());
    };
    let text = jsonl(&entries);
    let conversation = chain::conversation(chain::parse_entries(&text), page.system_messages);
    Ok(page.apply(conversation))
}

/// Delete `session_id` of the project `dir` (`None`: the current directory) from `store`, with
/// its subagents' transcripts. Needs [`SessionStore::delete`].
///
/// ```
/// use claude_agent_tokio::store::{self, InMemorySessionStore, SessionKey, SessionStore};
/// use std::path::Path;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let key = SessionKey::new("-nonexistent-app", "s1");
/// store.append(&key, &[serde_json::json!({"type": "user"})]).await?;
/// store::delete_session(&store, "s1", Some(Path::new("/nonexistent/app"))).await?;
/// assert_eq!(store.load(&key).await?, None);
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
pub async fn delete_session(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    dir: Option<&Path>,
) -> Result<(), StoreError> {
    let key = SessionKey::new(project_key_for_directory(dir), session_id);
    store.delete(&key).await
}

/// Where [`import_session`] finds a session, and how it writes it.
///
/// ```
/// use claude_agent_tokio::history::History;
/// use claude_agent_tokio::store::ImportOptions;
///
/// let import = ImportOptions::new()
///     .dir("/home/me/app")
///     .history(History::at("/home/me/.claude"))
///     .include_subagents(false)
///     .batch_size(100);
/// # let _ = import;
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ImportOptions {
    /// The project directory to look in; `None` looks in every project.
    pub dir: Option<PathBuf>,
    /// The configuration directory; `None` is this process's ([`History::from_env`]).
    pub history: Option<History>,
    /// Import the subagents' transcripts too (the default).
    pub include_subagents: bool,
    /// Entries per [`SessionStore::append`] call (default 500; 0 means the default).
    pub batch_size: usize,
}

impl ImportOptions {
    /// Every project of this process's configuration directory, with subagents, 500 entries a
    /// batch.
    ///
    /// ```
    /// use claude_agent_tokio::store::ImportOptions;
    ///
    /// assert!(ImportOptions::new().include_subagents);
    /// ```
    pub fn new() -> ImportOptions {
        ImportOptions {
            dir: None,
            history: None,
            include_subagents: true,
            batch_size: IMPORT_BATCH,
        }
    }

    /// Look for the session in the project `dir` only.
    ///
    /// ```
    /// use claude_agent_tokio::store::ImportOptions;
    ///
    /// assert!(ImportOptions::new().dir("/home/me/app").dir.is_some());
    /// ```
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> ImportOptions {
        self.dir = Some(dir.into());
        self
    }

    /// Read from this configuration directory.
    ///
    /// ```
    /// use claude_agent_tokio::history::History;
    /// use claude_agent_tokio::store::ImportOptions;
    ///
    /// let import = ImportOptions::new().history(History::at("/srv/agent/.claude"));
    /// # let _ = import;
    /// ```
    pub fn history(mut self, history: History) -> ImportOptions {
        self.history = Some(history);
        self
    }

    /// Whether to import the subagents' transcripts.
    ///
    /// ```
    /// use claude_agent_tokio::store::ImportOptions;
    ///
    /// assert!(!ImportOptions::new().include_subagents(false).include_subagents);
    /// ```
    pub fn include_subagents(mut self, include: bool) -> ImportOptions {
        self.include_subagents = include;
        self
    }

    /// Entries per append call.
    ///
    /// ```
    /// use claude_agent_tokio::store::ImportOptions;
    ///
    /// assert_eq!(ImportOptions::new().batch_size(50).batch_size, 50);
    /// ```
    pub fn batch_size(mut self, entries: usize) -> ImportOptions {
        self.batch_size = entries;
        self
    }
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions::new()
    }
}

/// Why [`import_session`] failed.
///
/// ```
/// use claude_agent_tokio::history::HistoryError;
/// use claude_agent_tokio::store::ImportError;
///
/// let error = ImportError::from(HistoryError::InvalidId { id: "x".into() });
/// assert!(error.to_string().contains("x"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The session could not be found or read on disk.
    #[error(transparent)]
    Read(#[from] HistoryError),
    /// A transcript line is not JSON.
    #[error("line {line} of {} is not JSON: {error}", path.display())]
    NotJson {
        /// The transcript file.
        path: PathBuf,
        /// The line's number, from 1.
        line: usize,
        /// The parser's complaint.
        error: String,
    },
    /// The store refused an append.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Copy the session `session_id` from disk into `store`, with its subagents' transcripts: what
/// mirroring would have stored had the session run with the store. Its project key is the name
/// of the project folder the transcript is in, so the session can then be resumed from the
/// store with `Options::session_start(SessionStart::resume(id))` in the same working directory. Also the way to fill a gap a
/// `mirror_error` reported (a store that skips entries whose `uuid` it has takes a second import
/// without duplicates).
///
/// Reads the files with blocking `std::fs` calls.
///
/// ```no_run
/// use claude_agent_tokio::store::{self, FileSessionStore, ImportOptions};
///
/// # futures_lite::future::block_on(async {
/// let store = FileSessionStore::new("/srv/agent-sessions");
/// let import = ImportOptions::new().dir("/home/me/app");
/// store::import_session(&store, "13dbd64f-f8d4-4686-ab4c-e5b537e0a952", &import).await?;
/// # Ok::<(), claude_agent_tokio::store::ImportError>(())
/// # }).unwrap();
/// ```
pub async fn import_session(
    store: &(impl SessionStore + ?Sized),
    session_id: &str,
    options: &ImportOptions,
) -> Result<(), ImportError> {
    let history = match &options.history {
        Some(history) => history.clone(),
        None => History::from_env()?,
    };
    let (path, _) = history.find_session(session_id, options.dir.as_deref())?;
    let project_key = path
        .parent()
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let batch = if options.batch_size == 0 {
        IMPORT_BATCH
    } else {
        options.batch_size
    };
    let main = SessionKey::new(project_key, session_id);
    append_file(store, &main, &path, batch).await?;
    if !options.include_subagents {
        return Ok(());
    }
    let session_dir = path.with_extension("");
    let mut agents = Vec::new();
    collect_agents(&session_dir.join("subagents"), &mut agents);
    for (_, file) in agents {
        let Ok(relative) = file.strip_prefix(&session_dir) else {
            continue;
        };
        let subpath = relative
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let key = main.clone().with_subpath(subpath);
        append_file(store, &key, &file, batch).await?;
        let meta = file.with_extension("meta.json");
        let metadata = std::fs::read(&meta).ok().and_then(|bytes| {
            serde_json::from_slice::<serde_json::Map<String, Value>>(&bytes).ok()
        });
        if let Some(mut metadata) = metadata {
            metadata.insert("type".into(), "agent_metadata".into());
            store.append(&key, &[Value::Object(metadata)]).await?;
        }
    }
    Ok(())
}

/// Append the lines of the transcript `path` under `key`, `batch` entries (or 1 MiB) at a time.
async fn append_file(
    store: &(impl SessionStore + ?Sized),
    key: &SessionKey,
    path: &Path,
    batch: usize,
) -> Result<(), ImportError> {
    let text = read_text(path)?;
    let mut entries = Vec::new();
    let mut bytes = 0;
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry = serde_json::from_str(line).map_err(|e| ImportError::NotJson {
            path: path.to_path_buf(),
            line: number + 1,
            error: e.to_string(),
        })?;
        entries.push(entry);
        bytes += line.len();
        if entries.len() >= batch || bytes >= IMPORT_BATCH_BYTES {
            store.append(key, &entries).await?;
            entries.clear();
            bytes = 0;
        }
    }
    if !entries.is_empty() {
        store.append(key, &entries).await?;
    }
    Ok(())
}

/// Entries as transcript text, one JSON line each.
pub(crate) fn jsonl(entries: &[Value]) -> String {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    text
}
