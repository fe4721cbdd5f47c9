//! [`InMemorySessionStore`]: a store in this process's memory.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;

use super::{
    epoch_ms, fold_session_summary, SessionKey, SessionListing, SessionStore, SessionSummary,
    StoreFuture,
};

/// A [`SessionStore`] in memory, with every optional method: for tests, and for moving a session
/// between two CLI runs of one process. Everything is lost when it is dropped.
///
/// Cheap to share: put it in an `Arc`, give one clone to
/// [`Options::session_store`](crate::Options::session_store) and keep another to look
/// inside.
///
/// ```
/// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore};
/// use serde_json::json;
///
/// # futures_lite::future::block_on(async {
/// let store = InMemorySessionStore::new();
/// let key = SessionKey::new("proj", "sess");
/// store.append(&key, &[json!({"type": "user", "message": {"content": "hello"}})]).await?;
/// assert_eq!(store.session_count(), 1);
/// assert_eq!(store.list_sessions("proj").await?[0].session_id, "sess");
/// assert_eq!(store.list_session_summaries("proj").await?[0].data["first_prompt"], "hello");
/// # Ok::<(), claude_agent_tokio::store::StoreError>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Default)]
pub struct InMemorySessionStore {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    transcripts: BTreeMap<SessionKey, Transcript>,
    summaries: HashMap<(String, String), SessionSummary>,
    last_mtime: u64,
}

#[derive(Debug)]
struct Transcript {
    entries: Vec<Value>,
    mtime: u64,
}

impl Inner {
    /// The time of a write: the system clock in milliseconds, made strictly increasing so that
    /// two writes in one millisecond still have an order.
    fn next_mtime(&mut self) -> u64 {
        let now = epoch_ms(std::time::SystemTime::now()).max(self.last_mtime + 1);
        self.last_mtime = now;
        now
    }
}

impl InMemorySessionStore {
    /// An empty store.
    ///
    /// ```
    /// use claude_agent_tokio::store::InMemorySessionStore;
    ///
    /// assert_eq!(InMemorySessionStore::new().session_count(), 0);
    /// ```
    pub fn new() -> InMemorySessionStore {
        InMemorySessionStore::default()
    }

    /// The entries stored under `key` (empty if none), without going through the async API.
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey};
    ///
    /// assert!(InMemorySessionStore::new().entries(&SessionKey::new("p", "s")).is_empty());
    /// ```
    pub fn entries(&self, key: &SessionKey) -> Vec<Value> {
        self.lock()
            .transcripts
            .get(key)
            .map(|t| t.entries.clone())
            .unwrap_or_default()
    }

    /// Every key stored, in order (main transcripts and subkeys).
    ///
    /// ```
    /// use claude_agent_tokio::store::InMemorySessionStore;
    ///
    /// assert!(InMemorySessionStore::new().keys().is_empty());
    /// ```
    pub fn keys(&self) -> Vec<SessionKey> {
        self.lock().transcripts.keys().cloned().collect()
    }

    /// How many main transcripts (sessions) are stored.
    ///
    /// ```
    /// use claude_agent_tokio::store::InMemorySessionStore;
    ///
    /// assert_eq!(InMemorySessionStore::new().session_count(), 0);
    /// ```
    pub fn session_count(&self) -> usize {
        self.lock()
            .transcripts
            .keys()
            .filter(|k| k.is_main())
            .count()
    }

    /// Forgets everything stored: transcripts, summaries and write times. For a test that
    /// reuses one store between cases.
    ///
    /// ```
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore};
    ///
    /// # futures_lite::future::block_on(async {
    /// let store = InMemorySessionStore::new();
    /// store.append(&SessionKey::new("proj", "sess"), &[serde_json::json!({"type": "user"})]).await?;
    /// store.clear();
    /// assert_eq!(store.session_count(), 0);
    /// assert!(store.list_session_summaries("proj").await?.is_empty());
    /// # Ok::<(), claude_agent_tokio::store::StoreError>(())
    /// # }).unwrap();
    /// ```
    pub fn clear(&self) {
        *self.lock() = Inner::default();
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock leaves whole values behind: keep going.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SessionStore for InMemorySessionStore {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if entries.is_empty() {
                return Ok(());
            }
            let mut inner = self.lock();
            let mtime = inner.next_mtime();
            let transcript = inner
                .transcripts
                .entry(key.clone())
                .or_insert_with(|| Transcript {
                    entries: Vec::new(),
                    mtime,
                });
            transcript.entries.extend_from_slice(entries);
            transcript.mtime = mtime;
            if key.is_main() {
                let id = (key.project_key.clone(), key.session_id.clone());
                let mut summary = fold_session_summary(inner.summaries.get(&id), key, entries);
                summary.mtime = mtime;
                inner.summaries.insert(id, summary);
            }
            Ok(())
        })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async move { Ok(self.lock().transcripts.get(key).map(|t| t.entries.clone())) })
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<SessionListing>> {
        Box::pin(async move {
            Ok(self
                .lock()
                .transcripts
                .iter()
                .filter(|(k, _)| k.is_main() && k.project_key == project_key)
                .map(|(k, t)| SessionListing::new(k.session_id.clone(), t.mtime))
                .collect())
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        Box::pin(async move {
            Ok(self
                .lock()
                .summaries
                .iter()
                .filter(|((project, _), _)| project == project_key)
                .map(|(_, summary)| summary.clone())
                .collect())
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut inner = self.lock();
            if key.is_main() {
                inner.transcripts.retain(|k, _| {
                    k.project_key != key.project_key || k.session_id != key.session_id
                });
                inner
                    .summaries
                    .remove(&(key.project_key.clone(), key.session_id.clone()));
            } else {
                inner.transcripts.remove(key);
            }
            Ok(())
        })
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            Ok(self
                .lock()
                .transcripts
                .keys()
                .filter(|k| k.project_key == project_key && k.session_id == session_id)
                .filter_map(|k| k.subpath.clone())
                .collect())
        })
    }
}
