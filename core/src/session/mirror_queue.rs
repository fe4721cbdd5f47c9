//! [`MirrorQueue`]: the transcript lines on their way to a session store, and every decision
//! about them — when a batch goes, how often and how long an append is tried, what is kept for
//! a store that is down, and when the CLI's output should wait for the store. The host runs
//! the appends it hands out and reports how each one went.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::human_duration;
use super::mirror::TranscriptMirror;
use crate::SessionKey;

/// How a [`MirrorQueue`] batches, tries and keeps lines. The defaults are the runtime crates'.
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::session::MirrorLimits;
///
/// // Every frame goes at once, and an append is tried once more after a second.
/// let mut limits = MirrorLimits::default();
/// limits.eager = true;
/// limits.retry_after = vec![Duration::from_secs(1)];
/// assert_eq!(limits.append_timeout, Duration::from_secs(60));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MirrorLimits {
    /// Every frame is appended as soon as it comes (still one append at a time, in order);
    /// otherwise lines wait for [`MirrorQueue::flush`] or the size limits (default: `false`).
    /// Either way, the newer lines of a file whose earlier lines are kept after a failure wait
    /// behind them, for the next flush: a transcript is stored in order.
    pub eager: bool,
    /// Pending entries past which a batch goes without waiting for a flush (500).
    pub max_pending_entries: usize,
    /// Pending bytes of entry JSON past which a batch goes (1 MiB).
    pub max_pending_bytes: usize,
    /// Multiples of the two limits above: past them, pending lines make the queue
    /// [saturated](MirrorQueue::is_saturated), and no more failed lines are kept (4).
    pub saturation: usize,
    /// The waits before each try of a failed append after the first: its length is how many
    /// times an append is tried again (200 ms, then 800 ms).
    pub retry_after: Vec<Duration>,
    /// How long one try may take; an append past it is given up, not tried again (it may
    /// still land) (60 s).
    pub append_timeout: Duration,
    /// Keep trying for this long, counted from an append's first try, while the session
    /// runs: after the waits of `retry_after`, a failed append (or one past its time limit) is
    /// tried again at the last of them, so a result held for the store reaches the application
    /// only once its turn is stored, through an outage shorter than this. The runtime crates
    /// set it to `append_timeout` (a minute) for a session of a shared fleet, whose next host
    /// resumes the session from the store. Once the session has ended
    /// ([`MirrorQueue::finish`]) the tries are `retry_after`'s alone (default: `None`).
    pub keep_trying_for: Option<Duration>,
}

impl Default for MirrorLimits {
    fn default() -> Self {
        MirrorLimits {
            eager: false,
            max_pending_entries: 500,
            max_pending_bytes: 1 << 20,
            saturation: 4,
            retry_after: vec![Duration::from_millis(200), Duration::from_millis(800)],
            append_timeout: Duration::from_secs(60),
            keep_trying_for: None,
        }
    }
}

/// Which append a [`MirrorQueue`] handed out, for [`MirrorQueue::append_done`].
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::session::{AppendOutcome, MirrorLimits, MirrorQueue, TranscriptMirror};
/// use claude_agent_tokio::store::SessionKey;
///
/// let now = Instant::now();
/// // An `Event::Mirror` frame of the session.
/// let frame: TranscriptMirror =
///     serde_json::from_str(r#"{"filePath": "/p/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
/// let mut limits = MirrorLimits::default();
/// limits.eager = true;
/// let mut queue = MirrorQueue::new(limits);
/// queue.enqueue(Ok(SessionKey::new("-p", "s1")), frame);
/// let append = queue.poll_append(now).expect("an eager queue sends at once");
/// assert!(queue.awaits(append.id));
/// queue.append_done(now, append.id, AppendOutcome::Stored);
/// assert!(!queue.awaits(append.id));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AppendId(u64);

/// One append for the host to make: `entries` to the end of `key`'s transcript in the store.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::session::{AppendOutcome, MirrorLimits, MirrorQueue, TranscriptMirror};
/// use claude_agent_tokio::store::SessionKey;
///
/// let now = Instant::now();
/// // An `Event::Mirror` frame of the session.
/// let frame: TranscriptMirror =
///     serde_json::from_str(r#"{"filePath": "/p/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
/// let mut queue = MirrorQueue::new(MirrorLimits::default());
/// queue.enqueue(Ok(SessionKey::new("-p", "s1")), frame);
/// queue.flush(); // a turn's result came: its lines go before it is handed on
/// while let Some(append) = queue.poll_append(now) {
///     println!("{} entries for {:?}", append.entries.len(), append.key);
///     queue.append_done(now, append.id, AppendOutcome::Stored);
/// }
/// assert!(queue.is_idle());
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Append {
    /// Which append this is: report its outcome with it.
    pub id: AppendId,
    /// The transcript the entries belong to.
    pub key: SessionKey,
    /// The entries, one transcript line each, in order (shared with the queue, which keeps
    /// them for another try).
    pub entries: Arc<Vec<Value>>,
}

/// How an [`Append`] went.
///
/// ```
/// use claude_agent_tokio::session::AppendOutcome;
///
/// let outcome = match Err::<(), &str>("connection refused") {
///     Ok(()) => AppendOutcome::Stored,
///     Err(error) => AppendOutcome::Failed(error.to_string()),
/// };
/// assert_eq!(outcome, AppendOutcome::Failed("connection refused".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppendOutcome {
    /// The store has the entries.
    Stored,
    /// The store failed, with this error: tried again while tries are left.
    Failed(String),
    /// The store takes nothing more of the session from this host (another host holds it
    /// now), for this reason: nothing more is stored, and nothing is tried again.
    Fenced(String),
}

/// Lines that could not be stored, for the application (the runtime crates make it a
/// `system`/`mirror_error` message).
///
/// ```
/// use std::time::{Duration, Instant};
/// use claude_agent_tokio::session::{AppendOutcome, MirrorLimits, MirrorQueue, TranscriptMirror};
/// use claude_agent_tokio::store::SessionKey;
///
/// let now = Instant::now();
/// // An `Event::Mirror` frame of the session.
/// let frame: TranscriptMirror =
///     serde_json::from_str(r#"{"filePath": "/p/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
/// let mut limits = MirrorLimits::default();
/// limits.eager = true;
/// limits.retry_after = vec![]; // one try only
/// let mut queue = MirrorQueue::new(limits);
/// queue.enqueue(Ok(SessionKey::new("-p", "s1")), frame);
/// let append = queue.poll_append(now).unwrap();
/// queue.append_done(now, append.id, AppendOutcome::Failed("database unavailable".into()));
/// let failure = queue.take_failure().expect("one failure");
/// assert_eq!(failure.key, Some(SessionKey::new("-p", "s1")));
/// assert_eq!(failure.error, "database unavailable; 1 line kept, to be tried again with the next turn");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MirrorFailure {
    /// The transcript the lines belong to; `None` for lines that have no key (the CLI wrote
    /// them outside the folder the host maps to keys).
    pub key: Option<SessionKey>,
    /// What went wrong, and what became of the lines (kept for the next turn, dropped, or not
    /// stored because the session ended).
    pub error: String,
}

/// One transcript file's lines.
struct FileLines {
    file_path: String,
    /// Its key, or why it has none.
    key: Result<SessionKey, String>,
    entries: Vec<Value>,
}

/// Lines waiting, grouped by transcript file in the order each file first came.
#[derive(Default)]
struct Pending {
    files: Vec<FileLines>,
    entries: usize,
    bytes: usize,
}

impl Pending {
    fn push(
        &mut self,
        file_path: String,
        key: Result<SessionKey, String>,
        values: Vec<Value>,
        bytes: usize,
    ) {
        self.entries += values.len();
        self.bytes += bytes;
        match self.files.iter_mut().find(|f| f.file_path == file_path) {
            Some(file) => file.entries.extend(values),
            None => self.files.push(FileLines {
                file_path,
                key,
                entries: values,
            }),
        }
    }

    /// Whether lines of `file_path` wait here.
    fn has(&self, file_path: &str) -> bool {
        self.files.iter().any(|f| f.file_path == file_path)
    }

    /// Put `older` ahead of what is pending, file by file.
    fn prepend(&mut self, mut older: Pending) {
        for file in std::mem::take(&mut self.files) {
            match older
                .files
                .iter_mut()
                .find(|f| f.file_path == file.file_path)
            {
                Some(kept) => kept.entries.extend(file.entries),
                None => older.files.push(file),
            }
        }
        self.files = older.files;
        self.entries += older.entries;
        self.bytes += older.bytes;
    }
}

/// A batch being stored: one append per file, in order.
struct Flight {
    /// The files after the one under way.
    files: VecDeque<FileLines>,
    /// The append of the file under way.
    current: Option<Attempt>,
}

/// One file's append, over its tries.
struct Attempt {
    id: AppendId,
    file_path: String,
    key: SessionKey,
    entries: Arc<Vec<Value>>,
    /// When its first try went out.
    started: Instant,
    /// Tries handed out so far.
    tries: usize,
    state: AttemptState,
}

impl Attempt {
    fn append(&self) -> Append {
        Append {
            id: self.id,
            key: self.key.clone(),
            entries: self.entries.clone(),
        }
    }
}

enum AttemptState {
    /// Handed out; given up at this deadline.
    Running { deadline: Instant },
    /// Failed; tried again at this time.
    Waiting { until: Instant },
}

/// The transcript lines of one session on their way to a session store: a sans-IO state
/// machine, fed the session's [`Event::Mirror`](super::Event::Mirror) frames, that hands out
/// one [`Append`] at a time and is told how each went.
///
/// It decides when a batch goes (on [`MirrorQueue::flush`], past the size limits, at once when
/// eager, and everything at [`MirrorQueue::finish`]), tries a failed append again after the
/// [`MirrorLimits::retry_after`] waits, gives up on one past its
/// [`MirrorLimits::append_timeout`], keeps the lines of a batch the store refused (within the
/// saturation limits) to try again ahead of newer ones with the next flush, and says when the
/// host should stop reading the CLI until the store catches up
/// ([`MirrorQueue::is_saturated`]). Time comes in as `now`; [`MirrorQueue::poll_timeout`] says
/// when to call [`MirrorQueue::handle_timeout`].
///
/// A host of a session keeps the queue in step with it through
/// [`Session::sync_store`](super::Session::sync_store), which flushes and finishes the queue,
/// takes its failures and says when a result held for the store may go on; the host then only
/// enqueues frames, makes the appends and passes the time.
///
/// ```
/// use std::time::{Duration, Instant};
/// use claude_agent_tokio::session::{AppendOutcome, MirrorLimits, MirrorQueue, TranscriptMirror};
/// use claude_agent_tokio::store::SessionKey;
///
/// let start = Instant::now();
/// // An `Event::Mirror` frame of the session.
/// let frame: TranscriptMirror =
///     serde_json::from_str(r#"{"filePath": "/p/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
/// let mut queue = MirrorQueue::new(MirrorLimits::default());
/// queue.enqueue(Ok(SessionKey::new("-p", "s1")), frame);
/// queue.flush();
///
/// // The store is down: the first try fails, the second comes 200 ms later.
/// let first = queue.poll_append(start).unwrap();
/// queue.append_done(start, first.id, AppendOutcome::Failed("down".into()));
/// assert!(queue.poll_append(start).is_none());
/// let retry_at = queue.poll_timeout().unwrap();
/// assert_eq!(retry_at, start + Duration::from_millis(200));
/// let second = queue.poll_append(retry_at).unwrap();
/// queue.append_done(retry_at, second.id, AppendOutcome::Stored);
/// assert!(queue.is_idle());
/// assert!(queue.take_failure().is_none());
/// ```
pub struct MirrorQueue {
    limits: MirrorLimits,
    pending: Pending,
    /// Lines a batch could not store, tried again with the next flush.
    retained: Pending,
    /// A flush of everything pending was asked for.
    flush_asked: bool,
    /// The session has ended: everything pending goes, kept lines one last time.
    finishing: bool,
    flight: Option<Flight>,
    next_id: u64,
    failures: VecDeque<MirrorFailure>,
    /// The store fenced this host off the session: why. Nothing more is stored.
    fenced: Option<String>,
    /// The session's place was lost: nothing more is stored, nothing more reported.
    let_go: bool,
}

impl MirrorQueue {
    /// An empty queue.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// let queue = MirrorQueue::new(MirrorLimits::default());
    /// assert!(queue.is_idle());
    /// ```
    pub fn new(limits: MirrorLimits) -> MirrorQueue {
        MirrorQueue {
            limits,
            pending: Pending::default(),
            retained: Pending::default(),
            flush_asked: false,
            finishing: false,
            flight: None,
            next_id: 0,
            failures: VecDeque::new(),
            fenced: None,
            let_go: false,
        }
    }

    /// Take a frame's entries, under `key`: the store key of `frame.file_path`, or why it has
    /// none (its lines are then reported as a [`MirrorFailure`] when their batch goes, and
    /// dropped). Ignored once the store has fenced this host off.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue, TranscriptMirror};
    ///
    /// let now = Instant::now();
    /// // An `Event::Mirror` frame of the session.
    /// let frame: TranscriptMirror =
    ///     serde_json::from_str(r#"{"filePath": "/elsewhere/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
    /// let mut queue = MirrorQueue::new(MirrorLimits::default());
    /// let reason = format!("{} is outside the projects folder", frame.file_path);
    /// queue.enqueue(Err(reason), frame);
    /// queue.flush();
    /// assert!(queue.poll_append(now).is_none());
    /// assert!(queue.take_failure().unwrap().key.is_none());
    /// ```
    pub fn enqueue(&mut self, key: Result<SessionKey, String>, frame: TranscriptMirror) {
        if self.fenced.is_some() || self.let_go {
            return;
        }
        let mut values = Vec::with_capacity(frame.entries.len());
        let mut bytes = 0;
        for raw in &frame.entries {
            bytes += raw.as_str().len();
            // Each entry is valid JSON, so this cannot fail; a failure would only drop it.
            if let Ok(value) = serde_json::from_str(raw.as_str()) {
                values.push(value);
            }
        }
        self.pending.push(frame.file_path, key, values, bytes);
    }

    /// Ask for everything pending to go, the lines an earlier batch could not store first
    /// (wait for it with [`MirrorQueue::is_idle`]). Once per turn: each call tries the kept
    /// lines once more.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// let mut queue = MirrorQueue::new(MirrorLimits::default());
    /// queue.flush(); // nothing pending: nothing to do
    /// assert!(queue.poll_append(std::time::Instant::now()).is_none());
    /// ```
    pub fn flush(&mut self) {
        self.flush_asked = true;
        let retained = std::mem::take(&mut self.retained);
        self.pending.prepend(retained);
    }

    /// The session has ended: everything pending goes, the kept lines one last time, and so
    /// does whatever comes after. Calling it again does nothing more.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// let mut queue = MirrorQueue::new(MirrorLimits::default());
    /// queue.finish();
    /// queue.finish();
    /// assert!(queue.is_idle());
    /// ```
    pub fn finish(&mut self) {
        if !self.finishing {
            self.finishing = true;
            self.flush();
        }
    }

    /// The next append to make, when one is due at `now`; `None` while one is under way or
    /// waits for its next try, or nothing is due. Report its outcome with
    /// [`MirrorQueue::append_done`].
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// let mut queue = MirrorQueue::new(MirrorLimits::default());
    /// assert!(queue.poll_append(Instant::now()).is_none());
    /// ```
    pub fn poll_append(&mut self, now: Instant) -> Option<Append> {
        let deadline = now + self.limits.append_timeout;
        loop {
            if let Some(flight) = &mut self.flight {
                if let Some(attempt) = &mut flight.current {
                    return match attempt.state {
                        AttemptState::Waiting { until } if now >= until => {
                            attempt.tries += 1;
                            attempt.state = AttemptState::Running { deadline };
                            Some(attempt.append())
                        }
                        AttemptState::Waiting { .. } | AttemptState::Running { .. } => None,
                    };
                }
                let Some(file) = flight.files.pop_front() else {
                    self.flight = None;
                    continue;
                };
                let key = match file.key {
                    Ok(key) => key,
                    Err(ref reason) => {
                        let reason = reason.clone();
                        self.failed(file, reason);
                        continue;
                    }
                };
                let attempt = Attempt {
                    id: AppendId(self.next_id),
                    file_path: file.file_path,
                    key,
                    entries: Arc::new(file.entries),
                    started: now,
                    tries: 1,
                    state: AttemptState::Running { deadline },
                };
                self.next_id += 1;
                return Some(flight.current.insert(attempt).append());
            }
            if self.pending.entries == 0 {
                self.flush_asked = false;
                return None;
            }
            let limits = &self.limits;
            let due = self.flush_asked
                || self.finishing
                || limits.eager
                || self.pending.entries > limits.max_pending_entries
                || self.pending.bytes > limits.max_pending_bytes;
            if !due {
                return None;
            }
            let batch = std::mem::take(&mut self.pending);
            let mut files = VecDeque::new();
            for file in batch.files.into_iter().filter(|f| !f.entries.is_empty()) {
                if self.retained.has(&file.file_path) {
                    // Its kept lines go first, with the next flush: these wait behind them.
                    let bytes = size_of(&file.entries);
                    self.retained
                        .push(file.file_path, file.key, file.entries, bytes);
                } else {
                    files.push_back(file);
                }
            }
            self.flight = Some(Flight {
                files,
                current: None,
            });
        }
    }

    /// How the append `id` went. An outcome for an append the queue no longer waits for (given
    /// up past its time limit) is ignored.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::session::{AppendOutcome, MirrorLimits, MirrorQueue, TranscriptMirror};
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// let now = Instant::now();
    /// // An `Event::Mirror` frame of the session.
    /// let frame: TranscriptMirror =
    ///     serde_json::from_str(r#"{"filePath": "/p/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
    /// let mut limits = MirrorLimits::default();
    /// limits.eager = true;
    /// let mut queue = MirrorQueue::new(limits);
    /// queue.enqueue(Ok(SessionKey::new("-p", "s1")), frame);
    /// let append = queue.poll_append(now).unwrap();
    /// queue.append_done(now, append.id, AppendOutcome::Fenced("another host holds it".into()));
    /// assert_eq!(queue.fenced(), Some("another host holds it"));
    /// ```
    pub fn append_done(&mut self, now: Instant, id: AppendId, outcome: AppendOutcome) {
        let Some(flight) = &mut self.flight else {
            return;
        };
        let Some(attempt) = flight.current.as_mut().filter(|a| a.id == id) else {
            return;
        };
        if !matches!(attempt.state, AttemptState::Running { .. }) {
            return;
        }
        let wait = self
            .limits
            .retry_after
            .get(attempt.tries - 1)
            .copied()
            .or_else(|| {
                let keep_trying = !self.finishing
                    && (self.limits.keep_trying_for).is_some_and(|d| now < attempt.started + d);
                keep_trying.then(|| self.limits.retry_after.last().copied().unwrap_or_default())
            });
        match outcome {
            AppendOutcome::Stored => {
                flight.current = None;
                self.drop_finished_flight();
            }
            AppendOutcome::Failed(error) => match wait {
                Some(wait) => attempt.state = AttemptState::Waiting { until: now + wait },
                // The last try's error is the one reported.
                None => self.give_up(error),
            },
            AppendOutcome::Fenced(reason) => {
                self.pending = Pending::default();
                self.retained = Pending::default();
                self.flight = None;
                self.fenced = Some(reason);
            }
        }
    }

    /// Whether the queue still waits for the outcome of `id`: a host drops an append the queue
    /// gave up on (past its time limit).
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue, TranscriptMirror};
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// let now = Instant::now();
    /// // An `Event::Mirror` frame of the session.
    /// let frame: TranscriptMirror =
    ///     serde_json::from_str(r#"{"filePath": "/p/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
    /// let mut limits = MirrorLimits::default();
    /// limits.eager = true;
    /// let mut queue = MirrorQueue::new(limits);
    /// queue.enqueue(Ok(SessionKey::new("-p", "s1")), frame);
    /// let append = queue.poll_append(now).unwrap();
    /// // The host runs the append, and looks in on the queue whenever it wakes.
    /// queue.handle_timeout(now + Duration::from_secs(61));
    /// if !queue.awaits(append.id) {
    ///     // Given up: drop the store's call.
    /// }
    /// # assert!(!queue.awaits(append.id));
    /// ```
    pub fn awaits(&self, id: AppendId) -> bool {
        self.flight
            .as_ref()
            .and_then(|flight| flight.current.as_ref())
            .is_some_and(|a| a.id == id && matches!(a.state, AttemptState::Running { .. }))
    }

    /// When [`MirrorQueue::handle_timeout`] is next due: the time limit of the append under
    /// way, or the time of a failed one's next try.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// let queue = MirrorQueue::new(MirrorLimits::default());
    /// assert_eq!(queue.poll_timeout(), None);
    /// ```
    pub fn poll_timeout(&self) -> Option<Instant> {
        let attempt = self.flight.as_ref()?.current.as_ref()?;
        Some(match attempt.state {
            AttemptState::Running { deadline } => deadline,
            AttemptState::Waiting { until } => until,
        })
    }

    /// Act on the time: an append past its time limit is given up (and reported; it is not
    /// tried again, unless the queue [keeps trying](MirrorLimits::keep_trying_for)). A failed
    /// append's next try is then due from [`MirrorQueue::poll_append`].
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue, TranscriptMirror};
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// let now = Instant::now();
    /// // An `Event::Mirror` frame of the session.
    /// let frame: TranscriptMirror =
    ///     serde_json::from_str(r#"{"filePath": "/p/s1.jsonl", "entries": [{"uuid": "u1"}]}"#).unwrap();
    /// let mut limits = MirrorLimits::default();
    /// limits.eager = true;
    /// let mut queue = MirrorQueue::new(limits);
    /// queue.enqueue(Ok(SessionKey::new("-p", "s1")), frame);
    /// let append = queue.poll_append(now).unwrap();
    /// let later = now + Duration::from_secs(60);
    /// queue.handle_timeout(later);
    /// assert!(!queue.awaits(append.id));
    /// assert!(queue.take_failure().unwrap().error.starts_with("the session store's append did not finish within 1 min"));
    /// ```
    pub fn handle_timeout(&mut self, now: Instant) {
        let Some(attempt) = self.flight.as_mut().and_then(|f| f.current.as_mut()) else {
            return;
        };
        let keep_trying = !self.finishing
            && (self.limits.keep_trying_for).is_some_and(|d| now < attempt.started + d);
        if let AttemptState::Running { deadline } = attempt.state {
            if now >= deadline && keep_trying {
                // A new try: the outcome of this one, should it come, is not waited for.
                attempt.id = AppendId(self.next_id);
                self.next_id += 1;
                attempt.state = AttemptState::Waiting { until: now };
            } else if now >= deadline {
                let limit = human_duration(self.limits.append_timeout);
                self.give_up(format!(
                    "the session store's append did not finish within {limit}"
                ));
            }
        }
    }

    /// The next report of lines that could not be stored.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// let mut queue = MirrorQueue::new(MirrorLimits::default());
    /// assert!(queue.take_failure().is_none());
    /// ```
    pub fn take_failure(&mut self) -> Option<MirrorFailure> {
        self.failures.pop_front()
    }

    /// Whether reports of lines that could not be stored wait to be taken.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// assert!(!MirrorQueue::new(MirrorLimits::default()).has_failures());
    /// ```
    pub fn has_failures(&self) -> bool {
        !self.failures.is_empty()
    }

    /// Nothing pending and nothing being stored (kept lines wait for the next flush): a turn's
    /// result held for the store can go on.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// assert!(MirrorQueue::new(MirrorLimits::default()).is_idle());
    /// ```
    pub fn is_idle(&self) -> bool {
        self.flight.is_none() && self.pending.entries == 0
    }

    /// So much waits behind the batch under way that the host should stop reading the CLI
    /// until the store catches up.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// assert!(!MirrorQueue::new(MirrorLimits::default()).is_saturated());
    /// ```
    pub fn is_saturated(&self) -> bool {
        let limits = &self.limits;
        self.flight.is_some()
            && (self.pending.entries > limits.saturation * limits.max_pending_entries
                || self.pending.bytes > limits.saturation * limits.max_pending_bytes)
    }

    /// Why the store fenced this host off the session, once it did: the session's place is
    /// another host's, and nothing more of it is stored from here.
    ///
    /// ```
    /// use claude_agent_tokio::session::{MirrorLimits, MirrorQueue};
    ///
    /// assert_eq!(MirrorQueue::new(MirrorLimits::default()).fenced(), None);
    /// ```
    pub fn fenced(&self) -> Option<&str> {
        self.fenced.as_deref()
    }

    /// The session's place is lost ([`Session::sync_store`](super::Session::sync_store)):
    /// another host goes on with the transcript, so nothing more is stored from here, and
    /// nothing more is reported (what the host has not taken of the session is withheld too).
    pub(crate) fn let_go(&mut self) {
        self.let_go = true;
        self.pending = Pending::default();
        self.retained = Pending::default();
        self.flight = None;
        self.failures.clear();
    }

    /// The append under way failed for good with `error`: report it, keep its lines if there
    /// is room, and go on with the next file.
    fn give_up(&mut self, error: String) {
        let Some(attempt) = self.flight.as_mut().and_then(|f| f.current.take()) else {
            return;
        };
        let file = FileLines {
            file_path: attempt.file_path,
            key: Ok(attempt.key),
            entries: Arc::unwrap_or_clone(attempt.entries),
        };
        self.failed(file, error);
        self.drop_finished_flight();
    }

    /// A batch whose last append is done is over.
    fn drop_finished_flight(&mut self) {
        if self
            .flight
            .as_ref()
            .is_some_and(|f| f.current.is_none() && f.files.is_empty())
        {
            self.flight = None;
        }
    }

    /// Keep a failed file's lines for the next flush (unless they can never be stored, the
    /// session has ended, or too much is kept already), and report the failure.
    fn failed(&mut self, file: FileLines, error: String) {
        let FileLines {
            file_path,
            key,
            entries,
        } = file;
        let limits = &self.limits;
        let count = entries.len();
        let bytes = size_of(&entries);
        let fits = self.retained.entries + count <= limits.saturation * limits.max_pending_entries
            && self.retained.bytes + bytes <= limits.saturation * limits.max_pending_bytes;
        let kept_entries = limits.saturation * limits.max_pending_entries;
        let kept_mib = (limits.saturation * limits.max_pending_bytes) >> 20;
        let (key, outcome) = match key {
            Err(_) => (None, String::new()),
            Ok(key) if self.finishing => (
                Some(key),
                format!("; {} not stored (the session has ended)", lines(count)),
            ),
            Ok(key) if fits => {
                let outcome = format!(
                    "; {} kept, to be tried again with the next turn",
                    lines(count)
                );
                self.retained
                    .push(file_path, Ok(key.clone()), entries, bytes);
                (Some(key), outcome)
            }
            Ok(key) => (
                Some(key),
                format!(
                    "; {} dropped (at most {} or {kept_mib} MiB are kept for a store that is down)",
                    lines(count),
                    lines(kept_entries),
                ),
            ),
        };
        self.failures.push_back(MirrorFailure {
            key,
            error: format!("{error}{outcome}"),
        });
    }
}

/// Counts and state only: the lines are transcripts.
impl fmt::Debug for MirrorQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MirrorQueue")
            .field("limits", &self.limits)
            .field("pending_entries", &self.pending.entries)
            .field("retained_entries", &self.retained.entries)
            .field("storing", &self.flight.is_some())
            .field("finishing", &self.finishing)
            .field("failures", &self.failures.len())
            .field("fenced", &self.fenced)
            .field("let_go", &self.let_go)
            .finish()
    }
}

/// The JSON size of `entries`, as the limits count it.
fn size_of(entries: &[Value]) -> usize {
    entries.iter().map(|e| e.to_string().len()).sum()
}

/// "1 line", "2 lines".
fn lines(n: usize) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

#[cfg(test)]
mod tests;
