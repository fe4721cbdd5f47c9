//! Import a session from disk into a store, and the project key of a directory.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{SessionKey, SessionStore, StoreError};
use crate::history::{collect_agents, paths, read_text, History, HistoryError};

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
