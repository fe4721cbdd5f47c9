//! Session stores: a copy of every session transcript in storage of your own (a database, an
//! object store, a shared disk), so that a session can be resumed on another machine.
//!
//! The CLI keeps writing its transcript to its own disk; with
//! [`Options::session_store`](crate::Options::session_store) it also prints each batch of
//! lines it wrote (the `--session-mirror` flag), and the client layer appends them to the store:
//! once per turn, before the turn's result is handed to you, and before the session ends. A
//! store that fails does not end the session: the failure comes as a
//! [`SystemMessage::MirrorError`](crate::message::SystemMessage::MirrorError) in the message
//! stream. Resuming with a store loads the session from it, so the machine that resumes needs
//! nothing on its disk.
//!
//! - [`SessionStore`]: the trait a store implements. [`append`](SessionStore::append) and
//!   [`load`](SessionStore::load) are required; listing, summaries, deletion and subagent keys
//!   are optional (their default is [`StoreError::Unsupported`]).
//! - [`InMemorySessionStore`] (tests, one process) and [`FileSessionStore`] (a directory).
//! - [`StoreHistory`] and [`StoredSession`]: the history over a store, with the methods and
//!   types of [`History`](crate::history::History) and
//!   [`SessionFile`](crate::history::SessionFile) on disk (async here): list the sessions, read
//!   one, rename, tag, fork or delete it. [`import_session`] copies a session from disk.
//! - [`fold_session_summary`]: the running summary a store keeps so that listing needs no
//!   transcript reads.
//!
//! Every method returns a boxed future, so a store works on any async runtime, and `Options`
//! holds it as an `Arc<dyn SessionStore>`. The conformance kit in `claude-agent-testkit`
//! (`store_conformance`) checks a store of your own against the contract.
//!
//! ```
//! use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore};
//! use serde_json::json;
//!
//! # futures_lite::future::block_on(async {
//! let store = InMemorySessionStore::new();
//! let key = SessionKey::new("-home-me-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
//! store.append(&key, &[json!({"type": "user", "uuid": "u1"})]).await?;
//! assert_eq!(store.load(&key).await?, Some(vec![json!({"type": "user", "uuid": "u1"})]));
//! # Ok::<(), claude_agent_tokio::store::StoreError>(())
//! # }).unwrap();
//! ```

mod file;
pub(crate) mod flush;
mod functions;
mod key;
pub(crate) use key::check_path_safe;
mod memory;
mod one_session;
mod summary;

#[cfg(test)]
mod tests;

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

pub use claude_agent_core::SessionKey;
pub use file::FileSessionStore;
pub use functions::{import_session, project_key_for_directory, ImportError, ImportOptions};
pub use memory::InMemorySessionStore;
pub use one_session::{StoreHistory, StoredSession};
pub use summary::{fold_session_summary, SessionSummary};

/// The future every [`SessionStore`] method returns: boxed, `Send`, and borrowing the store and
/// the arguments for `'a`.
///
/// ```
/// use claude_agent_tokio::store::{StoreError, StoreFuture};
///
/// fn ready<'a>(n: u32) -> StoreFuture<'a, u32> {
///     Box::pin(async move { Ok::<_, StoreError>(n) })
/// }
/// assert_eq!(futures_lite::future::block_on(ready(3)).unwrap(), 3);
/// ```
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a [`SessionStore`] call, or an operation of the history over a store
/// ([`StoreHistory`], [`StoredSession`]), failed.
///
/// A [`SessionStore`] backend returns [`Backend`](StoreError::Backend) (with
/// [`StoreError::backend`]), [`Io`](StoreError::Io), [`InvalidKey`](StoreError::InvalidKey) and
/// [`Unsupported`](StoreError::Unsupported). The SDK's history operations return those of the
/// store they run over, and their own: [`NotFound`](StoreError::NotFound),
/// [`MessageNotFound`](StoreError::MessageNotFound),
/// [`NothingToFork`](StoreError::NothingToFork) and [`Empty`](StoreError::Empty), as
/// [`HistoryError`](crate::history::HistoryError) has them on disk.
///
/// ```
/// use claude_agent_tokio::store::{InMemorySessionStore, StoreError, StoreHistory};
///
/// let error = StoreError::backend("connection refused");
/// assert_eq!(error.to_string(), "session store failed: connection refused");
/// assert!(StoreError::Unsupported { operation: "delete" }.is_unsupported());
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let session = StoreHistory::new(&store).session("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", None);
/// match session.rename(" ").await {
///     Err(StoreError::Empty { what }) => assert_eq!(what, "title"),
///     other => panic!("{other:?}"),
/// }
/// assert!(matches!(session.info().await, Err(StoreError::NotFound { .. })));
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store does not implement this optional method.
    #[error("the session store does not support `{operation}`")]
    Unsupported {
        /// The method's name.
        operation: &'static str,
    },
    /// A key the store cannot use: a project key or session id that is empty or not a single
    /// path component, or a subpath that climbs out of its session.
    #[error("the session store cannot use the key {key}: {reason}")]
    InvalidKey {
        /// The key, written `project/session[/subpath]`.
        key: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A file of a [`FileSessionStore`] could not be read or written.
    #[error("session store file {}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Anything else the storage reported.
    #[error("session store failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The store has no such session under the project key (or, for
    /// [`StoredSession::info`], nothing of it to show: a subagent's session, or one with no
    /// prompt and no title). From the history operations, not from a store.
    #[error("the session store has no session {session_id} in project {project_key}")]
    NotFound {
        /// The session looked for.
        session_id: String,
        /// The project key it was looked for under.
        project_key: String,
    },
    /// [`ForkOptions::up_to`](crate::history::ForkOptions::up_to) names no message of the
    /// session. From [`StoredSession::fork`].
    #[error("session {session_id} has no message {uuid}")]
    MessageNotFound {
        /// The session.
        session_id: String,
        /// The message id looked for.
        uuid: String,
    },
    /// The session has no message to copy. From [`StoredSession::fork`].
    #[error("session {session_id} has no message to fork")]
    NothingToFork {
        /// The session.
        session_id: String,
    },
    /// A session id that is not a UUID, given to a change of a session
    /// ([`StoredSession::rename`], [`StoredSession::tag`], [`StoredSession::fork`],
    /// [`StoredSession::delete`]), or a fork's [`up_to`](crate::history::ForkOptions::up_to)
    /// message id that is not one: the store is not touched.
    #[error("invalid {what}: {id:?} is not a UUID")]
    InvalidId {
        /// `"session id"` or `"message id"`.
        what: &'static str,
        /// The id given.
        id: String,
    },
    /// The store refused the write because this host no longer holds the session: a store
    /// fenced by a fleet's lease (`claude-agent-store-postgres`'s `fenced_by`, with `claude-agent-fleet-postgres`'s lease) whose host lost
    /// the session's place. Nothing more of the session may be stored from here; a session
    /// whose mirror meets it is closed with `FleetError::PlaceLost`.
    #[error("the session store refused the write: {reason}")]
    Fenced {
        /// Why, in the store's words.
        reason: String,
    },
    /// A title or tag that is empty once trimmed. From [`StoredSession::rename`],
    /// [`StoredSession::tag`] and [`StoredSession::fork`].
    #[error("the {what} is empty")]
    Empty {
        /// `"title"` or `"tag"`.
        what: &'static str,
    },
}

impl StoreError {
    /// A failure of the storage behind a store of your own.
    ///
    /// ```
    /// use claude_agent_tokio::store::StoreError;
    ///
    /// let io = std::io::Error::new(std::io::ErrorKind::TimedOut, "no answer from the database");
    /// assert!(StoreError::backend(io).to_string().ends_with("no answer from the database"));
    /// ```
    pub fn backend(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StoreError {
        StoreError::Backend(error.into())
    }

    /// Whether this is [`StoreError::Unsupported`]: the method is optional and not implemented.
    ///
    /// ```
    /// use claude_agent_tokio::store::StoreError;
    ///
    /// assert!(!StoreError::backend("down").is_unsupported());
    /// ```
    pub fn is_unsupported(&self) -> bool {
        matches!(self, StoreError::Unsupported { .. })
    }
}

/// A session in a store's listing: its id and when it was last written.
///
/// ```
/// use claude_agent_tokio::store::SessionListing;
///
/// let listing = SessionListing::new("13dbd64f-f8d4-4686-ab4c-e5b537e0a952", 1_767_225_600_000);
/// assert_eq!(listing.mtime, 1_767_225_600_000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionListing {
    /// The session id.
    pub session_id: String,
    /// When the store last wrote the session, in milliseconds since the Unix epoch (the storage's
    /// own clock: a file's modification time, a database's `now()`).
    pub mtime: u64,
}

impl SessionListing {
    /// A listing entry.
    ///
    /// ```
    /// use claude_agent_tokio::store::SessionListing;
    ///
    /// assert_eq!(SessionListing::new("s", 1).session_id, "s");
    /// ```
    pub fn new(session_id: impl Into<String>, mtime: u64) -> SessionListing {
        SessionListing {
            session_id: session_id.into(),
            mtime,
        }
    }
}

/// Where session transcripts are mirrored to and resumed from.
///
/// Entries are the CLI's transcript lines as JSON values, opaque to the store: keep them as they
/// are and give them back in the order they were appended. A key names a project (by default the
/// working directory's folder name, [`project_key_for_directory`]), a session, and for a
/// subagent's transcript a subpath (`subagents/agent-<id>`).
///
/// The two required methods are enough to mirror and to resume by id. The optional ones enable
/// more: [`list_sessions`](SessionStore::list_sessions) for `continue_conversation` and
/// [`StoreHistory::list_sessions`]; [`list_session_summaries`](SessionStore::list_session_summaries)
/// for listing without loading every transcript; [`delete`](SessionStore::delete) for
/// [`StoredSession::delete`]; [`list_subkeys`](SessionStore::list_subkeys) to resume with the
/// subagents' transcripts, and for [`StoredSession::subagents`].
///
/// A store that talks to a database with an async client of its own runtime can be used from any
/// adapter, as long as that runtime is running (a tokio client needs a tokio runtime somewhere in
/// the process).
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Mutex;
/// use claude_agent_tokio::store::{SessionKey, SessionStore, StoreFuture};
/// use serde_json::Value;
///
/// /// The smallest store: appends and loads, nothing optional.
/// #[derive(Default)]
/// struct MapStore(Mutex<HashMap<SessionKey, Vec<Value>>>);
///
/// impl SessionStore for MapStore {
///     fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
///         Box::pin(async move {
///             if !entries.is_empty() {
///                 self.0.lock().unwrap().entry(key.clone()).or_default().extend_from_slice(entries);
///             }
///             Ok(())
///         })
///     }
///
///     fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
///         Box::pin(async move { Ok(self.0.lock().unwrap().get(key).cloned()) })
///     }
/// }
///
/// # futures_lite::future::block_on(async {
/// let store = MapStore::default();
/// let key = SessionKey::new("proj", "sess");
/// store.append(&key, &[serde_json::json!({"type": "x"})]).await.unwrap();
/// assert_eq!(store.load(&key).await.unwrap().unwrap().len(), 1);
/// assert!(store.list_sessions("proj").await.unwrap_err().is_unsupported());
/// # });
/// ```
pub trait SessionStore: Send + Sync {
    /// Add `entries` after the ones already stored under `key`.
    ///
    /// Called after the CLI wrote them to its own disk, once per turn or more often. Keep the
    /// order of the calls. Most entries have a `uuid`: a store may skip an entry whose `uuid` it
    /// already has (an append is tried again, up to 3 times, when it fails). An empty `entries`
    /// must store nothing. A store that keeps summaries folds the entries of a main transcript
    /// (no subpath) into its [`SessionSummary`] here, with [`fold_session_summary`].
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()>;

    /// Every entry stored under `key`, in order; `None` if nothing was ever appended there.
    /// Entries must equal what was appended as JSON values (key order inside an object may
    /// change).
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>>;

    /// The main sessions (no subpath) of `project_key`, in any order. Optional.
    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<SessionListing>> {
        let _ = project_key;
        unsupported("list_sessions")
    }

    /// The summary of each main session of `project_key`, as [`fold_session_summary`] made them,
    /// with the storage's write time as `mtime` (the same clock as
    /// [`list_sessions`](SessionStore::list_sessions)). Optional.
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        let _ = project_key;
        unsupported("list_session_summaries")
    }

    /// Remove `key`. Without a subpath, remove the session with all of its subkeys and its
    /// summary; with one, only that subkey. Removing what is not there is not an error. Optional.
    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        let _ = key;
        unsupported("delete")
    }

    /// The subpaths stored under a session (not the main transcript), in any order. Optional.
    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> StoreFuture<'a, Vec<String>> {
        let _ = (project_key, session_id);
        unsupported("list_subkeys")
    }
}

fn unsupported<'a, T: Send + 'a>(operation: &'static str) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Err(StoreError::Unsupported {
        operation,
    })))
}

impl<S: SessionStore + ?Sized> SessionStore for std::sync::Arc<S> {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        (**self).append(key, entries)
    }
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        (**self).load(key)
    }
    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<SessionListing>> {
        (**self).list_sessions(project_key)
    }
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        (**self).list_session_summaries(project_key)
    }
    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        (**self).delete(key)
    }
    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> StoreFuture<'a, Vec<String>> {
        (**self).list_subkeys(project_key, session_id)
    }
}

/// Milliseconds since the Unix epoch of `time` (0 before the epoch).
pub(crate) fn epoch_ms(time: std::time::SystemTime) -> u64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
