//! Resuming from a session store: before the CLI starts, the session is loaded from the store
//! and written to a temporary configuration directory laid out like `~/.claude`, with the files
//! the CLI needs to sign in copied from the user's own; the CLI runs with `CLAUDE_CONFIG_DIR`
//! pointing there, and the directory is removed when the session ends.

use std::io;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_lite::FutureExt;
use serde_json::Value;

use crate::give_to;
use crate::history::clock::is_uuid;
use crate::options::{LaunchSpec, Options, Resume, SessionStart};
use crate::persistence::config_dir::{
    copy_user_config, write_private, ConfigDir, Plugins, WriteFailed,
};
use crate::process::runtime::Runtime;
use crate::store::{project_key_for_directory, SessionKey, SessionStore, StoreError};

/// How long each store call of a resume may take, unless `Options::session_store_load_timeout`
/// says otherwise.
pub(crate) const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a session could not be resumed from its session store.
///
/// ```
/// use claude_agent_tokio::ResumeError;
/// use claude_agent_tokio::store::StoreError;
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

/// A session loaded into a temporary configuration directory.
pub(crate) struct Resumed {
    pub(crate) dir: ConfigDir,
    session_id: String,
}

impl Resumed {
    /// `options` pointed at the loaded session.
    pub(crate) fn apply(&self, options: Options) -> Options {
        let start = resuming(
            options.config().session_start.clone(),
            self.session_id.clone(),
        );
        options
            .env("CLAUDE_CONFIG_DIR", self.dir.path().display().to_string())
            .session_start(start)
    }
}

/// `start` pointed at the session `session_id`, found in a store: a continue becomes a resume
/// of it, with its fork; a resume keeps its resume points and fork.
fn resuming(start: SessionStart, session_id: String) -> SessionStart {
    match start {
        SessionStart::Continue { fork, .. } => {
            let mut resume = Resume::new(session_id);
            resume.fork = fork;
            SessionStart::Resume(resume)
        }
        SessionStart::Resume(mut resume) => {
            resume.session_id = session_id;
            SessionStart::Resume(resume)
        }
        other => other,
    }
}

/// Whether `options` resume a session through a store, for a CLI that reads this machine's
/// files ([`Transport::reads_local_files`](crate::Transport::reads_local_files)).
pub(crate) fn wanted(options: &Options) -> bool {
    options.handlers().session_store.is_some()
        && (options.config().session_start.resume_id().is_some()
            || options.config().session_start.continues())
        && options
            .handlers()
            .transport
            .as_ref()
            .is_none_or(|transport| transport.0.reads_local_files())
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
    let project_key = project_key_for_directory(options.config().cwd.as_deref());
    let found = match options.config().session_start.resume_id() {
        Some(id) if is_uuid(id) => call.load_main(&project_key, id).await?,
        Some(_) => None,
        None => call.newest(&project_key).await?,
    };
    let Some((session_id, entries)) = found else {
        return Ok(None);
    };
    let dir = ConfigDir::create("resume")?;
    let project_dir = dir.path().join("projects").join(&project_key);
    write_jsonl(&project_dir.join(format!("{session_id}.jsonl")), &entries)?;
    copy_user_config(dir.path(), spec, Plugins::Stripped)?;
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
                if crate::store::check_path_safe(&key).is_err() {
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
        give_to(dir.path(), user).map_err(|source| ResumeError::Write {
            path: dir.path().to_path_buf(),
            source,
        })?;
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

fn write_jsonl(path: &Path, entries: &[Value]) -> Result<(), ResumeError> {
    let mut text = Vec::new();
    for entry in entries {
        serde_json::to_writer(&mut text, entry).map_err(|e| ResumeError::Write {
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        text.push(b'\n');
    }
    Ok(write_private(path, &text)?)
}

impl From<WriteFailed> for ResumeError {
    fn from(failed: WriteFailed) -> Self {
        ResumeError::Write {
            path: failed.path,
            source: failed.source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subagent_metadata_goes_beside_its_transcript() {
        let dir = ConfigDir::create("resume").unwrap();
        let entries = vec![
            serde_json::json!({"type": "user", "uuid": "u"}),
            serde_json::json!({"type": "agent_metadata", "agentType": "explore"}),
        ];
        write_subagent(dir.path(), "subagents/agent-1", entries).unwrap();
        let transcript =
            std::fs::read_to_string(dir.path().join("subagents/agent-1.jsonl")).unwrap();
        assert_eq!(transcript, "{\"type\":\"user\",\"uuid\":\"u\"}\n");
        let meta = std::fs::read_to_string(dir.path().join("subagents/agent-1.meta.json")).unwrap();
        assert_eq!(meta, r#"{"agentType":"explore"}"#);
        let path = dir.path().to_path_buf();
        drop(dir);
        assert!(!path.exists(), "removed with the session");
    }
}
