//! Resuming from a session store: before the CLI starts, the session is loaded from the store
//! and written to a temporary configuration directory laid out like `~/.claude`, with the files
//! the CLI needs to sign in copied from the user's own; the CLI runs with `CLAUDE_CONFIG_DIR`
//! pointing there, and the directory is removed when the session ends.

use std::fs;
use std::io::{self, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_lite::FutureExt;
use serde_json::Value;

use crate::client::runtime::Runtime;
use crate::client::{child_var, give_to, temp_folder};
use crate::history::clock::is_uuid;
use crate::options::{LaunchSpec, Options};
use crate::store::{project_key_for_directory, SessionKey, SessionStore, StoreError};

/// How long each store call of a resume may take, unless `Options::session_store_load_timeout`
/// says otherwise.
pub(crate) const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// Settings that only misbehave in a redirected configuration directory: plugins would be
/// installed again into its empty plugin cache on every resume.
const STRIPPED_SETTINGS: [&str; 2] = ["enabledPlugins", "extraKnownMarketplaces"];

/// Why a session could not be resumed from its session store.
///
/// ```
/// use claude_agent_core::client::ResumeError;
/// use claude_agent_core::store::StoreError;
///
/// let error = ResumeError::Store { operation: "load", source: StoreError::backend("timeout") };
/// assert_eq!(error.to_string(), "resuming from the session store: `load` failed: session store failed: timeout");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// A store call failed.
    #[error("resuming from the session store: `{operation}` failed: {source}")]
    Store {
        /// The [`SessionStore`] method.
        operation: &'static str,
        /// What it returned.
        #[source]
        source: StoreError,
    },
    /// A store call did not finish in time.
    #[error(
        "resuming from the session store: `{operation}` did not finish within {after:?}; allow \
         more with `Options::session_store_load_timeout`"
    )]
    Timeout {
        /// The [`SessionStore`] method.
        operation: &'static str,
        /// The limit.
        after: Duration,
    },
    /// The temporary configuration directory could not be written.
    #[error("resuming from the session store: could not write {}: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
}

/// The temporary configuration directory of a resumed session, removed on drop.
#[derive(Debug)]
pub(crate) struct ResumeDir {
    path: PathBuf,
}

impl ResumeDir {
    fn create() -> Result<ResumeDir, ResumeError> {
        let path = temp_folder("resume");
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&path).map_err(write_error(&path))?;
        Ok(ResumeDir { path })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ResumeDir {
    fn drop(&mut self) {
        // Best effort: a file the CLI still holds open (Windows) may keep it a little longer.
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// A session loaded into a temporary configuration directory.
pub(crate) struct Resumed {
    pub(crate) dir: ResumeDir,
    session_id: String,
}

impl Resumed {
    /// `options` pointed at the loaded session.
    pub(crate) fn apply(&self, options: Options) -> Options {
        let start = options
            .get_session_start()
            .clone()
            .resuming(self.session_id.clone());
        options
            .env("CLAUDE_CONFIG_DIR", self.dir.path().display().to_string())
            .session_start(start)
    }
}

/// Whether `options` resume a session through a store.
pub(crate) fn wanted(options: &Options) -> bool {
    options.handlers().session_store.is_some()
        && (options.get_session_start().resume_id().is_some()
            || options.get_session_start().continues())
}

/// Load the session `options` resume (or, for a continue, the newest one of the
/// working directory) from the store into a temporary configuration directory. `None` when the
/// store has nothing to resume: an explicit resume then goes to the CLI unchanged (it may be on
/// this machine's disk), and a continue starts a fresh session.
pub(crate) async fn materialize<R: Runtime>(
    runtime: &R,
    options: &Options,
    spec: &LaunchSpec,
) -> Result<Option<Resumed>, ResumeError> {
    let Some(store) = options.handlers().session_store.as_deref() else {
        return Ok(None);
    };
    let limit = options
        .handlers()
        .store_load_timeout
        .unwrap_or(LOAD_TIMEOUT);
    let call = Calls {
        runtime,
        store,
        limit,
    };
    let project_key = project_key_for_directory(options.get_cwd());
    let found = match options.get_session_start().resume_id() {
        Some(id) if is_uuid(id) => call.load_main(&project_key, id).await?,
        Some(_) => None,
        None => call.newest(&project_key).await?,
    };
    let Some((session_id, entries)) = found else {
        return Ok(None);
    };
    let dir = ResumeDir::create()?;
    let project_dir = dir.path().join("projects").join(&project_key);
    write_jsonl(&project_dir.join(format!("{session_id}.jsonl")), &entries)?;
    copy_user_config(dir.path(), spec)?;
    match call
        .call(
            "list_subkeys",
            store.list_subkeys(&project_key, &session_id),
        )
        .await?
    {
        Ok(subpaths) => {
            let session_dir = project_dir.join(&session_id);
            for subpath in subpaths {
                let key = SessionKey::new(project_key.clone(), session_id.clone())
                    .with_subpath(subpath.clone());
                if key.check_path_safe().is_err() {
                    continue;
                }
                let Some(entries) = call.run("load", store.load(&key)).await? else {
                    continue;
                };
                write_subagent(&session_dir, &subpath, entries)?;
            }
        }
        Err(e) if e.is_unsupported() => {}
        Err(source) => {
            return Err(ResumeError::Store {
                operation: "list_subkeys",
                source,
            })
        }
    }
    if let Some(user) = &spec.user {
        // The CLI runs as `user`: the folder it is pointed at, and what is in it, are theirs.
        give_to(dir.path(), user).map_err(write_error(dir.path()))?;
    }
    Ok(Some(Resumed { dir, session_id }))
}

/// Store calls with the time limit.
struct Calls<'a, R> {
    runtime: &'a R,
    store: &'a dyn SessionStore,
    limit: Duration,
}

impl<R: Runtime> Calls<'_, R> {
    /// The store's answer to `call`, a store that panics answering with an error; the time
    /// limit is the error of its own.
    async fn call<T>(
        &self,
        operation: &'static str,
        call: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<Result<T, StoreError>, ResumeError> {
        // A limit too long for an `Instant` (`Duration::MAX`) is no limit.
        let deadline = self.runtime.now().checked_add(self.limit);
        let timeout = async {
            match deadline {
                Some(deadline) => self.runtime.sleep_until(deadline).await,
                None => std::future::pending().await,
            }
            Err(ResumeError::Timeout {
                operation,
                after: self.limit,
            })
        };
        let answer = async {
            Ok(match AssertUnwindSafe(call).catch_unwind().await {
                Ok(answer) => answer,
                Err(_) => Err(StoreError::backend(format!(
                    "the session store's `{operation}` panicked"
                ))),
            })
        };
        answer.or(timeout).await
    }

    /// `call`'s value, its error being the resume's.
    async fn run<T>(
        &self,
        operation: &'static str,
        call: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, ResumeError> {
        self.call(operation, call)
            .await?
            .map_err(|source| ResumeError::Store { operation, source })
    }

    /// The main transcript of `session_id`, if the store has one with entries.
    async fn load_main(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> Result<Option<(String, Vec<Value>)>, ResumeError> {
        let key = SessionKey::new(project_key, session_id);
        let entries = self.run("load", self.store.load(&key)).await?;
        Ok(entries
            .filter(|e| !e.is_empty())
            .map(|e| (session_id.to_owned(), e)))
    }

    /// The newest session of the project that is not a subagent's.
    async fn newest(&self, project_key: &str) -> Result<Option<(String, Vec<Value>)>, ResumeError> {
        let mut listed = self
            .run("list_sessions", self.store.list_sessions(project_key))
            .await?;
        listed.sort_by_key(|l| std::cmp::Reverse(l.mtime));
        for candidate in listed {
            if !is_uuid(&candidate.session_id) {
                continue;
            }
            if let Some(found) = self.load_main(project_key, &candidate.session_id).await? {
                if found.1[0]["isSidechain"] != true {
                    return Ok(Some(found));
                }
            }
        }
        Ok(None)
    }
}

/// A subagent's entries: its transcript, and the last `agent_metadata` entry as the
/// `.meta.json` beside it.
fn write_subagent(
    session_dir: &Path,
    subpath: &str,
    entries: Vec<Value>,
) -> Result<(), ResumeError> {
    let mut file = session_dir.to_path_buf();
    file.extend(subpath.split('/'));
    let name = file
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let (metadata, transcript): (Vec<Value>, Vec<Value>) = entries
        .into_iter()
        .partition(|e| e["type"] == "agent_metadata");
    if !transcript.is_empty() {
        write_jsonl(&file.with_file_name(format!("{name}.jsonl")), &transcript)?;
    }
    if let Some(Value::Object(mut meta)) = metadata.into_iter().last() {
        meta.remove("type");
        let path = file.with_file_name(format!("{name}.meta.json"));
        write_private(&path, Value::Object(meta).to_string().as_bytes())?;
    }
    Ok(())
}

/// Copy what the CLI needs from the user's configuration into `dir`: the credentials (without
/// the OAuth refresh token, which the resumed CLI must not use up), `.claude.json`, and the user
/// settings (which may name an `apiKeyHelper`) without their plugin declarations.
fn copy_user_config(dir: &Path, spec: &LaunchSpec) -> Result<(), ResumeError> {
    let var = |name: &str| child_var(spec, name);
    let custom = var("CLAUDE_CONFIG_DIR").map(PathBuf::from);
    let home = var("HOME")
        .or_else(|| var("USERPROFILE"))
        .map(PathBuf::from);
    let Some(source) = custom
        .clone()
        .or_else(|| home.as_ref().map(|h| h.join(".claude")))
    else {
        return Ok(());
    };
    if let Some(credentials) = read_regular(&source.join(".credentials.json")) {
        write_private(
            &dir.join(".credentials.json"),
            &without_refresh_token(credentials),
        )?;
    }
    let claude_json = match (&custom, &home) {
        (Some(custom), _) => Some(custom.join(".claude.json")),
        (None, Some(home)) => Some(home.join(".claude.json")),
        (None, None) => None,
    };
    if let Some(bytes) = claude_json.as_deref().and_then(read_regular) {
        write_private(
            &dir.join(".claude.json"),
            // Without a `cwd` the CLI runs in this process's folder.
            &only_this_project(
                bytes,
                spec.cwd
                    .clone()
                    .or_else(|| std::env::current_dir().ok())
                    .as_deref(),
            ),
        )?;
    }
    for name in ["settings.json", "cowork_settings.json"] {
        if let Some(bytes) = read_regular(&source.join(name)) {
            write_private(&dir.join(name), &stripped_settings(bytes))?;
        }
    }
    Ok(())
}

/// The file's bytes if it is a regular file that can be read (anything else is left out: these
/// copies are a convenience, and a FIFO must not hang the resume).
fn read_regular(path: &Path) -> Option<Vec<u8>> {
    fs::metadata(path)
        .ok()
        .filter(fs::Metadata::is_file)
        .and_then(|_| fs::read(path).ok())
}

fn without_refresh_token(bytes: Vec<u8>) -> Vec<u8> {
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return bytes;
    };
    let removed = value
        .get_mut("claudeAiOauth")
        .and_then(Value::as_object_mut)
        .and_then(|oauth| oauth.remove("refreshToken"))
        .is_some();
    if removed {
        value.to_string().into_bytes()
    } else {
        bytes
    }
}

/// The user's `.claude.json` with, of its per-project entries (`projects`: each folder's
/// permissions, MCP servers and their `env`), only the session's folder's: the others are not
/// the resumed session's business, and the copy outlives a host that crashes. What is not a
/// JSON object is copied as it is.
fn only_this_project(bytes: Vec<u8>, cwd: Option<&Path>) -> Vec<u8> {
    let Ok(Value::Object(mut config)) = serde_json::from_slice::<Value>(&bytes) else {
        return bytes;
    };
    let Some(Value::Object(projects)) = config.get_mut("projects") else {
        return bytes;
    };
    let cwd = cwd.map(|cwd| {
        let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        (cwd.to_path_buf(), real)
    });
    projects.retain(|folder, _| {
        cwd.as_ref().is_some_and(|(given, real)| {
            Path::new(folder) == given.as_path() || Path::new(folder) == real.as_path()
        })
    });
    Value::Object(config).to_string().into_bytes()
}

fn stripped_settings(bytes: Vec<u8>) -> Vec<u8> {
    let text = String::from_utf8_lossy(&bytes);
    let Ok(Value::Object(mut settings)) =
        serde_json::from_str::<Value>(text.trim_start_matches('\u{feff}'))
    else {
        return bytes;
    };
    let mut changed = false;
    for key in STRIPPED_SETTINGS {
        changed |= settings.remove(key).is_some();
    }
    if let Some(env) = settings.get_mut("env").and_then(Value::as_object_mut) {
        changed |= env.remove("CLAUDE_CONFIG_DIR").is_some();
    }
    if changed {
        Value::Object(settings).to_string().into_bytes()
    } else {
        bytes
    }
}

fn write_jsonl(path: &Path, entries: &[Value]) -> Result<(), ResumeError> {
    let mut text = Vec::new();
    for entry in entries {
        serde_json::to_writer(&mut text, entry).map_err(|e| ResumeError::Write {
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        text.push(b'\n');
    }
    write_private(path, &text)
}

/// Write `bytes` to `path` (creating its folders), readable by this user only.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), ResumeError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(write_error(parent))?;
    }
    let mut open = fs::OpenOptions::new();
    open.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    open.open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(write_error(path))
}

fn write_error(path: &Path) -> impl FnOnce(io::Error) -> ResumeError + '_ {
    move |source| ResumeError::Write {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_the_projects_only_the_sessions_folder_is_copied() {
        let config = serde_json::json!({
            "userID": "u",
            "mcpServers": {"user-scope": {"command": "srv"}},
            "projects": {
                "/srv/app": {"allowedTools": ["Bash"]},
                "/srv/other": {"mcpServers": {"db": {"env": {"TOKEN": "other-secret"}}}}
            }
        });
        let bytes = serde_json::to_vec(&config).unwrap();
        let copied: Value = serde_json::from_slice(&only_this_project(
            bytes.clone(),
            Some(Path::new("/srv/app")),
        ))
        .unwrap();
        assert_eq!(copied["userID"], "u");
        assert_eq!(copied["mcpServers"], config["mcpServers"]);
        assert_eq!(
            copied["projects"],
            serde_json::json!({"/srv/app": {"allowedTools": ["Bash"]}})
        );
        let none: Value = serde_json::from_slice(&only_this_project(bytes, None)).unwrap();
        assert_eq!(none["projects"], serde_json::json!({}));
        assert_eq!(only_this_project(b"not json".to_vec(), None), b"not json");
    }

    #[test]
    fn the_refresh_token_stays_behind() {
        let credentials = br#"{"claudeAiOauth":{"accessToken":"a","refreshToken":"r"}}"#.to_vec();
        let copied: Value = serde_json::from_slice(&without_refresh_token(credentials)).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"claudeAiOauth": {"accessToken": "a"}})
        );
        assert_eq!(without_refresh_token(b"not json".to_vec()), b"not json");
    }

    #[test]
    fn plugin_declarations_and_the_config_dir_are_stripped_from_settings() {
        let settings = br#"{"apiKeyHelper":"/bin/key","enabledPlugins":{"x":true},"env":{"CLAUDE_CONFIG_DIR":"/c","A":"1"}}"#.to_vec();
        let copied: Value = serde_json::from_slice(&stripped_settings(settings)).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"apiKeyHelper": "/bin/key", "env": {"A": "1"}})
        );
        let untouched = br#"{"model":"opus"}"#.to_vec();
        assert_eq!(stripped_settings(untouched.clone()), untouched);
    }

    #[test]
    fn subagent_metadata_goes_beside_its_transcript() {
        let dir = ResumeDir::create().unwrap();
        let entries = vec![
            serde_json::json!({"type": "user", "uuid": "u"}),
            serde_json::json!({"type": "agent_metadata", "agentType": "explore"}),
        ];
        write_subagent(dir.path(), "subagents/agent-1", entries).unwrap();
        let transcript = fs::read_to_string(dir.path().join("subagents/agent-1.jsonl")).unwrap();
        assert_eq!(transcript, "{\"type\":\"user\",\"uuid\":\"u\"}\n");
        let meta = fs::read_to_string(dir.path().join("subagents/agent-1.meta.json")).unwrap();
        assert_eq!(meta, r#"{"agentType":"explore"}"#);
        let path = dir.path().to_path_buf();
        drop(dir);
        assert!(!path.exists(), "removed with the session");
    }
}
