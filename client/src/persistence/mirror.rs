//! Mirroring to a session store: the `transcript_mirror` frames of a session are batched here
//! and appended to the [`SessionStore`], one append at a time, in order.
//!
//! The driver hands every frame to [`Mirror::enqueue`]. A flush starts when the pending entries
//! pass a size limit (or at once, with [`StoreFlush::Eager`]), when a `result` arrives (the driver
//! holds the result back until the flush is done, so a turn's lines are in the store when its
//! result is read), and when the session ends. An append that fails is tried again twice (after
//! 200 ms, then 800 ms); one that does not finish within 60 s is not. A batch that could not be
//! stored becomes a `mirror_error` message for the stream; the session goes on, and its lines are
//! kept (up to the saturation limits below) and tried again, ahead of newer lines, with the next
//! turn's flush and at the end of the session, so a store that comes back gets the transcript
//! without a hole.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_lite::FutureExt;
use serde_json::Value;

use crate::child_var;
use crate::message::Message;
use crate::options::LaunchSpec;
use crate::process::runtime::{BoxFuture, Runtime};
use crate::session::TranscriptMirror;
use crate::store::{SessionKey, SessionStore, StoreError};
use crate::uuid::new_uuid;

/// Pending entries past which a flush starts without waiting for the turn's result.
const MAX_PENDING_ENTRIES: usize = 500;
/// Pending bytes (of entry JSON) past which a flush starts.
const MAX_PENDING_BYTES: usize = 1 << 20;
/// Pending data, in multiples of the limits above, past which the driver stops reading the CLI
/// until the store catches up.
const SATURATION: usize = 4;
/// Tries of one append.
const ATTEMPTS: usize = 3;
/// The waits between tries.
const BACKOFF: [Duration; ATTEMPTS - 1] = [Duration::from_millis(200), Duration::from_millis(800)];
/// How long one append may take; it is not tried again after that (it may still land).
const APPEND_TIMEOUT: Duration = Duration::from_secs(60);

/// When the mirrored transcript lines are written to the session store.
///
/// ```
/// use claude_agent_tokio::StoreFlush;
/// use claude_agent_tokio::options::Options;
/// use claude_agent_tokio::store::InMemorySessionStore;
///
/// // Every batch the CLI prints goes to the store at once, not once per turn.
/// let options = Options::new()
///     .session_store(InMemorySessionStore::new())
///     .session_store_flush(StoreFlush::Eager);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreFlush {
    /// Once per turn, before its result is handed on, and whenever 500 entries or 1 MiB are
    /// waiting (the default).
    #[default]
    Batched,
    /// As soon as the CLI prints them (still one append at a time, in order).
    Eager,
}

/// Lines waiting for the store, grouped by transcript file in the order they first came.
#[derive(Default)]
struct Pending {
    files: Vec<(String, Vec<Value>)>,
    entries: usize,
    bytes: usize,
}

/// What a finished flush could not store.
struct Failure {
    /// The transcript file the lines came from.
    file_path: String,
    /// Its key; `None` when the file is outside the projects folder (never storable).
    key: Option<SessionKey>,
    error: Refusal,
    entries: Vec<Value>,
}

/// Why an append did not store its lines.
enum Refusal {
    /// The store failed (after its tries): the lines may go with a later flush.
    Failed(String),
    /// The store will take nothing more of the session from this host
    /// ([`StoreError::Fenced`](crate::store::StoreError::Fenced)).
    Fenced(String),
}

impl Pending {
    fn push(&mut self, file_path: String, values: Vec<Value>, bytes: usize) {
        self.entries += values.len();
        self.bytes += bytes;
        match self.files.iter_mut().find(|(path, _)| *path == file_path) {
            Some((_, entries)) => entries.extend(values),
            None => self.files.push((file_path, values)),
        }
    }

    /// Put `older` ahead of what is pending, file by file.
    fn prepend(&mut self, mut older: Pending) {
        for (path, entries) in std::mem::take(&mut self.files) {
            match older.files.iter_mut().find(|(p, _)| *p == path) {
                Some((_, kept)) => kept.extend(entries),
                None => older.files.push((path, entries)),
            }
        }
        self.files = older.files;
        self.entries += older.entries;
        self.bytes += older.bytes;
    }
}

/// "1 line", "2 lines".
fn lines(n: usize) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

/// The JSON size of `entries`, as the limits count it.
fn size_of(entries: &[Value]) -> usize {
    entries.iter().map(|e| e.to_string().len()).sum()
}

/// The mirror of one session: pending lines, the flush under way, and failures to report.
pub(crate) struct Mirror {
    store: Arc<dyn SessionStore>,
    /// `<config>/projects` of the CLI: transcript paths are turned into keys under it.
    projects_dir: Option<PathBuf>,
    eager: bool,
    pending: Pending,
    /// A flush of everything pending was asked for (a result, or the end of the session).
    flush_asked: bool,
    in_flight: Option<BoxFuture<'static, Vec<Failure>>>,
    /// Lines a flush could not store, tried again with the next asked-for flush.
    retained: Pending,
    /// The end of the session has brought the retained lines back for their last try.
    finishing: bool,
    failures: VecDeque<Message>,
    /// The store fenced this host off the session: why. Nothing more is stored.
    fenced: Option<String>,
}

impl Mirror {
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        projects_dir: Option<PathBuf>,
        flush: StoreFlush,
    ) -> Mirror {
        Mirror {
            store,
            projects_dir,
            eager: flush == StoreFlush::Eager,
            pending: Pending::default(),
            flush_asked: false,
            in_flight: None,
            retained: Pending::default(),
            finishing: false,
            failures: VecDeque::new(),
            fenced: None,
        }
    }

    /// Why the store fenced this host off the session, once it did: the session's place is
    /// another host's now, and nothing more of it is stored from here.
    pub(crate) fn fenced(&self) -> Option<&str> {
        self.fenced.as_deref()
    }

    /// Take a frame's entries.
    pub(crate) fn enqueue(&mut self, mirror: TranscriptMirror) {
        if self.fenced.is_some() {
            return;
        }
        let mut values = Vec::with_capacity(mirror.entries.len());
        let mut bytes = 0;
        for raw in &mirror.entries {
            bytes += raw.as_str().len();
            // A `RawValue` is valid JSON, so this cannot fail; a failure would only drop the entry.
            if let Ok(value) = serde_json::from_str(raw.as_str()) {
                values.push(value);
            }
        }
        self.pending.push(mirror.file_path, values, bytes);
    }

    /// Ask for everything pending to be stored, lines an earlier flush could not store first
    /// (and wait with [`Mirror::is_idle`]). Once per turn: each call tries the retained lines
    /// once more.
    pub(crate) fn flush(&mut self) {
        self.flush_asked = true;
        let retained = std::mem::take(&mut self.retained);
        self.pending.prepend(retained);
    }

    /// The session is over: flush everything, the retained lines one last time. Called on every
    /// poll from then on; only the first call brings the retained lines back.
    pub(crate) fn finish(&mut self) {
        if self.finishing {
            self.flush_asked = true;
        } else {
            self.finishing = true;
            self.flush();
        }
    }

    /// Nothing pending, nothing being stored (retained lines wait for the next flush).
    pub(crate) fn is_idle(&self) -> bool {
        self.in_flight.is_none() && self.pending.entries == 0
    }

    /// So much is waiting that the CLI's output should wait too.
    pub(crate) fn is_saturated(&self) -> bool {
        self.in_flight.is_some()
            && (self.pending.entries > SATURATION * MAX_PENDING_ENTRIES
                || self.pending.bytes > SATURATION * MAX_PENDING_BYTES)
    }

    /// Whether `mirror_error` messages wait to be delivered.
    pub(crate) fn has_failures(&self) -> bool {
        !self.failures.is_empty()
    }

    /// The next `mirror_error` message to deliver.
    pub(crate) fn take_failure(&mut self) -> Option<Message> {
        self.failures.pop_front()
    }

    /// Drive the flush under way, and start the next one when it is due. Returns whether
    /// anything happened.
    pub(crate) fn poll<R: Runtime>(&mut self, cx: &mut Context<'_>, runtime: &R) -> bool {
        let mut progress = false;
        loop {
            if let Some(flight) = self.in_flight.as_mut() {
                match flight.as_mut().poll(cx) {
                    Poll::Pending => return progress,
                    Poll::Ready(failures) => {
                        self.in_flight = None;
                        progress = true;
                        for failure in failures {
                            self.retain(failure);
                        }
                    }
                }
            }
            let due = self.flush_asked
                || self.eager
                || self.pending.entries > MAX_PENDING_ENTRIES
                || self.pending.bytes > MAX_PENDING_BYTES;
            if self.pending.entries == 0 || !due {
                if self.pending.entries == 0 {
                    self.flush_asked = false;
                }
                return progress;
            }
            let batch = std::mem::take(&mut self.pending);
            self.in_flight = Some(self.store_batch(runtime, batch));
            progress = true;
        }
    }

    /// Keep a failed batch's lines for the next flush (unless they can never be stored, or too
    /// much is kept already), and report the failure.
    fn retain(&mut self, failure: Failure) {
        let Failure {
            file_path,
            key,
            error,
            entries,
        } = failure;
        let error = match error {
            Refusal::Failed(error) => error,
            Refusal::Fenced(reason) => {
                self.pending = Pending::default();
                self.retained = Pending::default();
                self.fenced = Some(reason);
                return;
            }
        };
        if self.fenced.is_some() {
            return;
        }
        let count = entries.len();
        let bytes = size_of(&entries);
        let fits = self.retained.entries + count <= SATURATION * MAX_PENDING_ENTRIES
            && self.retained.bytes + bytes <= SATURATION * MAX_PENDING_BYTES;
        let outcome = if key.is_none() {
            String::new()
        } else if self.finishing {
            format!("; {} not stored (the session has ended)", lines(count))
        } else if fits {
            self.retained.push(file_path, entries, bytes);
            format!(
                "; {} kept, to be tried again with the next turn",
                lines(count)
            )
        } else {
            format!(
                "; {} dropped (at most {} or {} MiB are kept for a store that is down)",
                lines(count),
                lines(SATURATION * MAX_PENDING_ENTRIES),
                (SATURATION * MAX_PENDING_BYTES) >> 20
            )
        };
        self.failures
            .push_back(mirror_error(key.as_ref(), &format!("{error}{outcome}")));
    }

    /// One append per transcript file, in order.
    fn store_batch<R: Runtime>(
        &self,
        runtime: &R,
        batch: Pending,
    ) -> BoxFuture<'static, Vec<Failure>> {
        let store = self.store.clone();
        let runtime = runtime.clone();
        let keyed: Vec<(String, Result<SessionKey, String>, Vec<Value>)> = batch
            .files
            .into_iter()
            .filter(|(_, entries)| !entries.is_empty())
            .map(|(path, entries)| {
                let key = self.key_of(&path);
                (path, key, entries)
            })
            .collect();
        Box::pin(async move {
            let mut failures = Vec::new();
            for (file_path, key, entries) in keyed {
                let (key, error) = match key {
                    Ok(key) => match append(&runtime, &*store, &key, &entries).await {
                        Ok(()) => continue,
                        Err(error) => (Some(key), error),
                    },
                    Err(error) => (None, Refusal::Failed(error)),
                };
                let fenced = matches!(error, Refusal::Fenced(_));
                failures.push(Failure {
                    file_path,
                    key,
                    error,
                    entries,
                });
                if fenced {
                    // The rest would be refused too.
                    break;
                }
            }
            failures
        })
    }

    fn key_of(&self, path: &str) -> Result<SessionKey, String> {
        let path = std::path::Path::new(path);
        let projects = self.projects_dir.as_deref();
        projects
            .and_then(|dir| {
                SessionKey::from_transcript_path(path, dir).or_else(|| {
                    let canonical = std::fs::canonicalize(dir).ok()?;
                    SessionKey::from_transcript_path(path, &canonical)
                })
            })
            .ok_or_else(|| {
                let expected = projects.map_or_else(
                    || "the CLI's configuration directory (HOME is not set)".to_owned(),
                    |dir| dir.display().to_string(),
                );
                format!(
                    "the CLI wrote the transcript {} outside {expected}; its lines were not \
                     stored (is CLAUDE_CONFIG_DIR set differently for the CLI?)",
                    path.display()
                )
            })
    }
}

/// Append with the tries and the time limit above; the error text of the last try, or the
/// fence's refusal at once (no try changes it).
async fn append<R: Runtime>(
    runtime: &R,
    store: &dyn SessionStore,
    key: &SessionKey,
    entries: &[Value],
) -> Result<(), Refusal> {
    let mut last = String::new();
    for attempt in 0..ATTEMPTS {
        if let Some(wait) = attempt.checked_sub(1).map(|i| BACKOFF[i]) {
            runtime.sleep_until(runtime.now() + wait).await;
        }
        let deadline = runtime.now() + APPEND_TIMEOUT;
        let call = async {
            match AssertUnwindSafe(store.append(key, entries))
                .catch_unwind()
                .await
            {
                Ok(Err(StoreError::Fenced { reason })) => Some(Err(Refusal::Fenced(reason))),
                Ok(outcome) => Some(outcome.map_err(|e| Refusal::Failed(e.to_string()))),
                Err(_) => Some(Err(Refusal::Failed(
                    "the session store's append panicked".to_owned(),
                ))),
            }
        };
        let timeout = async {
            runtime.sleep_until(deadline).await;
            None
        };
        match call.or(timeout).await {
            Some(Ok(())) => return Ok(()),
            Some(Err(Refusal::Failed(error))) => last = error,
            Some(Err(fenced)) => return Err(fenced),
            None => {
                return Err(Refusal::Failed(format!(
                    "the session store's append did not finish within {}s",
                    APPEND_TIMEOUT.as_secs()
                )))
            }
        }
    }
    Err(Refusal::Failed(last))
}

/// The `system`/`mirror_error` message for a batch under `key` that could not be stored.
pub(crate) fn mirror_error(key: Option<&SessionKey>, error: &str) -> Message {
    let line = serde_json::json!({
        "type": "system",
        "subtype": "mirror_error",
        "error": error,
        "key": key,
        "uuid": new_uuid(),
        "session_id": key.map_or("", |k| k.session_id.as_str()),
    })
    .to_string();
    Message::parse(&line).expect("a mirror_error line parses")
}

/// The CLI's `<config>/projects` for `spec`: its `CLAUDE_CONFIG_DIR`, else `$HOME/.claude`, from
/// the variables the spec sets or else this process's (unless the spec removes them).
pub(crate) fn projects_dir(spec: &LaunchSpec) -> Option<PathBuf> {
    let var = |name: &str| child_var(spec, name);
    let config = match var("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(var("HOME").or_else(|| var("USERPROFILE"))?).join(".claude"),
    };
    Some(config.join("projects"))
}

#[cfg(test)]
mod tests;
