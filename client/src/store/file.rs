//! [`FileSessionStore`]: a store in a directory.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use crate::private_files;
use crate::store::check_path_safe;

use super::{
    epoch_ms, fold_session_summary, SessionKey, SessionListing, SessionStore, SessionSummary,
    StoreError, StoreFuture,
};

/// A [`SessionStore`] in a directory, with every optional method: a shared or mounted disk, or
/// a local copy that outlives the CLI's own clean-up of old transcripts.
///
/// The layout is the CLI's own: `<root>/<project key>/<session id>.jsonl` for a session,
/// `<root>/<project key>/<session id>/<subpath>.jsonl` for its subagents, and a
/// `<session id>.summary.json` beside each session for [`list_session_summaries`]. Times are the
/// files' modification times.
///
/// Its futures do blocking `std::fs` calls when polled and are ready at once: fine for a local
/// disk; on a slow network disk, give it a thread of its own (a store of your own can wrap this
/// one and run it with your runtime's `spawn_blocking`). Appends from this process are
/// serialized; several processes may share the directory if each session is written by one of
/// them at a time (which is how mirroring writes).
///
/// What it writes is its owner's only: the folders it creates are mode 0700 and its files 0600,
/// and it writes through no symbolic link (a link planted where a transcript goes is an error).
///
/// [`list_session_summaries`]: SessionStore::list_session_summaries
///
/// ```
/// use claude_agent_tokio::store::{FileSessionStore, SessionKey, SessionStore};
/// use serde_json::json;
///
/// # let root = std::env::temp_dir().join(format!("file-store-doc-{}", std::process::id()));
/// # futures_lite::future::block_on(async {
/// let store = FileSessionStore::new(&root);
/// let key = SessionKey::new("-home-me-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
/// store.append(&key, &[json!({"type": "user", "uuid": "u1"})]).await?;
/// assert!(root.join("-home-me-app/13dbd64f-f8d4-4686-ab4c-e5b537e0a952.jsonl").is_file());
/// assert_eq!(store.load(&key).await?.unwrap()[0]["uuid"], "u1");
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// # std::fs::remove_dir_all(&root).unwrap();
/// ```
#[derive(Debug)]
pub struct FileSessionStore {
    root: PathBuf,
    /// Held for each read-fold-write of a summary, so that appends of this process do not lose
    /// each other's updates.
    writing: Mutex<()>,
}

impl FileSessionStore {
    /// A store in `root` (created on the first append).
    ///
    /// ```
    /// use claude_agent_tokio::store::FileSessionStore;
    ///
    /// let store = FileSessionStore::new("/srv/agent-sessions");
    /// assert_eq!(store.root(), std::path::Path::new("/srv/agent-sessions"));
    /// ```
    pub fn new(root: impl Into<PathBuf>) -> FileSessionStore {
        FileSessionStore {
            root: root.into(),
            writing: Mutex::new(()),
        }
    }

    /// The directory the store is in.
    ///
    /// ```
    /// use claude_agent_tokio::store::FileSessionStore;
    ///
    /// assert!(FileSessionStore::new("sessions").root().ends_with("sessions"));
    /// ```
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn session_file(&self, project_key: &str, session_id: &str) -> PathBuf {
        self.root
            .join(project_key)
            .join(format!("{session_id}.jsonl"))
    }

    fn file_of(&self, key: &SessionKey) -> Result<PathBuf, StoreError> {
        check_path_safe(key)?;
        Ok(match &key.subpath {
            None => self.session_file(&key.project_key, &key.session_id),
            Some(subpath) => {
                let mut path = self.root.join(&key.project_key).join(&key.session_id);
                path.extend(subpath.split('/'));
                let name = format!(
                    "{}.jsonl",
                    path.file_name().unwrap_or_default().to_string_lossy()
                );
                path.set_file_name(name);
                path
            }
        })
    }

    fn summary_file(&self, project_key: &str, session_id: &str) -> PathBuf {
        self.root
            .join(project_key)
            .join(format!("{session_id}.summary.json"))
    }

    fn append_now(&self, key: &SessionKey, entries: &[Value]) -> Result<(), StoreError> {
        let path = self.file_of(key)?;
        if entries.is_empty() {
            return Ok(());
        }
        let mut lines = Vec::new();
        for entry in entries {
            serde_json::to_writer(&mut lines, entry).map_err(StoreError::backend)?;
            lines.push(b'\n');
        }
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(parent) = path.parent() {
            private_files::create_dir_all(parent).map_err(io_error(parent))?;
        }
        let mut file = private_files::open_append(&path).map_err(io_error(&path))?;
        file.write_all(&lines).map_err(io_error(&path))?;
        let mtime = file
            .metadata()
            .and_then(|m| m.modified())
            .map_err(io_error(&path))?;
        if key.is_main() {
            let summary_path = self.summary_file(&key.project_key, &key.session_id);
            let prev = read_summary(&summary_path)?;
            let mut summary = fold_session_summary(prev.as_ref(), key, entries);
            summary.mtime = epoch_ms(mtime);
            let text = serde_json::to_vec(&summary).map_err(StoreError::backend)?;
            let partial = summary_path.with_extension("json.partial");
            private_files::write(&partial, &text).map_err(io_error(&partial))?;
            fs::rename(&partial, &summary_path).map_err(io_error(&summary_path))?;
        }
        Ok(())
    }

    fn load_now(&self, key: &SessionKey) -> Result<Option<Vec<Value>>, StoreError> {
        let path = self.file_of(key)?;
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&path)(e)),
        };
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).map_err(StoreError::backend))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    fn list_now(&self, project_key: &str) -> Result<Vec<SessionListing>, StoreError> {
        check_path_safe(&SessionKey::new(project_key, "x"))?;
        let folder = self.root.join(project_key);
        let mut listed = Vec::new();
        for entry in read_dir(&folder)? {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            let meta = entry.metadata().map_err(io_error(&entry.path()))?;
            if meta.is_file() {
                let mtime = meta.modified().map_err(io_error(&entry.path()))?;
                listed.push(SessionListing::new(id, epoch_ms(mtime)));
            }
        }
        Ok(listed)
    }

    fn summaries_now(&self, project_key: &str) -> Result<Vec<SessionSummary>, StoreError> {
        check_path_safe(&SessionKey::new(project_key, "x"))?;
        let folder = self.root.join(project_key);
        let mut summaries = Vec::new();
        for entry in read_dir(&folder)? {
            let is_summary = entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.ends_with(".summary.json"));
            if is_summary {
                summaries.extend(read_summary(&entry.path())?);
            }
        }
        Ok(summaries)
    }

    fn delete_now(&self, key: &SessionKey) -> Result<(), StoreError> {
        let path = self.file_of(key)?;
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        remove(&path, |p| fs::remove_file(p))?;
        if key.is_main() {
            remove(&self.summary_file(&key.project_key, &key.session_id), |p| {
                fs::remove_file(p)
            })?;
            remove(
                &self.root.join(&key.project_key).join(&key.session_id),
                |p| fs::remove_dir_all(p),
            )?;
        }
        Ok(())
    }

    fn subkeys_now(&self, project_key: &str, session_id: &str) -> Result<Vec<String>, StoreError> {
        check_path_safe(&SessionKey::new(project_key, session_id))?;
        let dir = self.root.join(project_key).join(session_id);
        let mut found = Vec::new();
        collect_jsonl(&dir, &dir, &mut found)?;
        Ok(found)
    }
}

impl SessionStore for FileSessionStore {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.append_now(key, entries) })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async move { self.load_now(key) })
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<SessionListing>> {
        Box::pin(async move { self.list_now(project_key) })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        Box::pin(async move { self.summaries_now(project_key) })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.delete_now(key) })
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move { self.subkeys_now(project_key, session_id) })
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn read_summary(path: &Path) -> Result<Option<SessionSummary>, StoreError> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(StoreError::backend),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// The entries of `folder`; none if it does not exist.
fn read_dir(folder: &Path) -> Result<Vec<fs::DirEntry>, StoreError> {
    match fs::read_dir(folder) {
        Ok(entries) => entries
            .collect::<io::Result<Vec<_>>>()
            .map_err(io_error(folder)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_error(folder)(e)),
    }
}

/// Remove `path` with `how`; what is not there is already removed.
fn remove(path: &Path, how: impl FnOnce(&Path) -> io::Result<()>) -> Result<(), StoreError> {
    match how(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}

/// The `.jsonl` files under `dir`, as `/`-joined paths relative to `base` without the extension.
fn collect_jsonl(base: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), StoreError> {
    for entry in read_dir(dir)? {
        let path = entry.path();
        let kind = entry.file_type().map_err(io_error(&path))?;
        if kind.is_dir() {
            collect_jsonl(base, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            let relative = path.strip_prefix(base).unwrap_or(&path).with_extension("");
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
    Ok(())
}
