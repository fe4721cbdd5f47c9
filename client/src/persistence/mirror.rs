//! Mirroring to a session store: the host of the core's [`MirrorQueue`] for one session. The
//! queue decides what goes to the store and when (batches, tries, time limits, what is kept for
//! a store that is down, when the CLI should wait for the store); this side maps each transcript
//! file to its store key (which reads the file system), makes the appends the queue hands out,
//! one at a time, and turns the failures the session reports into `mirror_error` messages.
//!
//! The driver hands every frame to [`Mirror::enqueue`], keeps the queue in step with the
//! session after every pass ([`Mirror::sync`]: the session says when to flush and when to
//! finish, and learns of a fence or an idle queue), and wakes at [`Mirror::poll_timeout`] for
//! the queue's retries and time limits.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures_lite::FutureExt;

use crate::child_var;
use crate::message::Message;
use crate::options::LaunchSpec;
use crate::process::runtime::BoxFuture;
use crate::session::{
    Append, AppendId, AppendOutcome, MirrorLimits, MirrorQueue, Session, TranscriptMirror,
};
use crate::store::flush::StoreFlush;
use crate::store::{SessionKey, SessionStore, StoreError};
use crate::uuid::new_uuid;

/// The mirror of one session: its queue, and the append under way.
pub(crate) struct Mirror {
    store: Arc<dyn SessionStore>,
    /// `<config>/projects` of the CLI: transcript paths are turned into keys under it.
    projects_dir: Option<PathBuf>,
    queue: MirrorQueue,
    /// The append the queue handed out last, while it waits for it.
    in_flight: Option<(AppendId, BoxFuture<'static, AppendOutcome>)>,
}

impl Mirror {
    /// `shared_fleet`: the session is in a shared fleet, whose next host resumes it from the
    /// store: a failed append is tried for as long as one try may take, a minute
    /// ([`MirrorLimits::keep_trying_for`]).
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        projects_dir: Option<PathBuf>,
        flush: StoreFlush,
        shared_fleet: bool,
    ) -> Mirror {
        let mut limits = MirrorLimits::default();
        limits.eager = flush == StoreFlush::Eager;
        limits.keep_trying_for = shared_fleet.then_some(limits.append_timeout);
        Mirror {
            store,
            projects_dir,
            queue: MirrorQueue::new(limits),
            in_flight: None,
        }
    }

    /// Why the store fenced this host off the session, once it did: the session's place is
    /// another host's now, and nothing more of it is stored from here.
    pub(crate) fn fenced(&self) -> Option<&str> {
        self.queue.fenced()
    }

    /// Take a frame's entries, under its transcript's key.
    pub(crate) fn enqueue(&mut self, frame: TranscriptMirror) {
        let key = self.key_of(&frame.file_path);
        self.queue.enqueue(key, frame);
    }

    /// Keep the queue and the session in step: the session decides when the queue flushes or
    /// finishes, and what its state means for the session ([`Session::sync_store`]). Whether
    /// the session changed.
    pub(crate) fn sync(&mut self, session: &mut Session, now: Instant) -> bool {
        session.sync_store(now, &mut self.queue)
    }

    /// When the queue next wants [`Mirror::handle_timeout`]: a retry, or an append's time
    /// limit.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.queue.poll_timeout()
    }

    /// Act on the queue's deadline; [`Mirror::poll`] then drops an append it gave up on.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        self.queue.handle_timeout(now);
    }

    /// Drive the append under way, and start the next one the queue hands out. Returns whether
    /// anything happened.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let mut progress = false;
        loop {
            if let Some((id, call)) = &mut self.in_flight {
                let id = *id;
                if self.queue.awaits(id) {
                    let Poll::Ready(outcome) = call.as_mut().poll(cx) else {
                        return progress;
                    };
                    self.queue.append_done(now, id, outcome);
                }
                // Done, or given up past its time limit (it may still land).
                self.in_flight = None;
                progress = true;
            }
            let Some(append) = self.queue.poll_append(now) else {
                return progress;
            };
            self.in_flight = Some((append.id, append_call(self.store.clone(), append)));
            progress = true;
        }
    }

    /// The store key of a transcript file, or why it has none.
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

/// The store's append of `append`, as the queue's outcome: a store's panic, in its call or in
/// its future, is a failure.
fn append_call(store: Arc<dyn SessionStore>, append: Append) -> BoxFuture<'static, AppendOutcome> {
    Box::pin(async move {
        let panicked = || AppendOutcome::Failed("the session store's append panicked".to_owned());
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| {
            store.append(&append.key, &append.entries)
        }));
        let Ok(call) = call else {
            return panicked();
        };
        match AssertUnwindSafe(call).catch_unwind().await {
            Ok(Ok(())) => AppendOutcome::Stored,
            Ok(Err(StoreError::Fenced { reason })) => AppendOutcome::Fenced(reason),
            Ok(Err(error)) => AppendOutcome::Failed(error.to_string()),
            Err(_) => panicked(),
        }
    })
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
