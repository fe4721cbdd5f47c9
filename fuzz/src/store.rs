//! The host's session store, as the runtime crates keep one: a [`MirrorQueue`] fed the
//! session's transcript frames, one append in flight at a time, and each append's outcome given
//! by the fuzzed ops (stored, failed, or fenced because another host holds the session).
//!
//! Every entry handed to the queue is stamped with its number, so that what the store receives
//! can be checked: each entry at most once, and in the order the CLI printed them.

use std::time::Instant;

use claude_agent_core::session::{
    Append, AppendOutcome, MirrorLimits, MirrorQueue, Session, TranscriptMirror,
};
use claude_agent_core::{Json, SessionKey};

/// The key every frame is stored under (the harness's CLI writes one transcript).
fn key() -> SessionKey {
    SessionKey::new("-tmp", "s")
}

/// The store's side of a fuzzed host.
pub struct StoreHost {
    queue: MirrorQueue,
    /// The append the store is working on.
    in_flight: Option<Append>,
    /// Entries handed to the queue so far (the next entry's stamp).
    enqueued: u64,
    /// Entries handed to the queue before its last sync that found it idle.
    settled: u64,
    /// Stamps of the entries the store has, in the order it got them.
    stored: Vec<u64>,
    /// Failures the queue reported (lines kept for another try, or dropped).
    failures: usize,
    /// The store refused the session: another host holds it.
    fenced: bool,
}

impl StoreHost {
    /// A store behind a queue with the runtime crates' limits.
    pub fn new() -> StoreHost {
        StoreHost {
            queue: MirrorQueue::new(MirrorLimits::default()),
            in_flight: None,
            enqueued: 0,
            settled: 0,
            stored: Vec::new(),
            failures: 0,
            fenced: false,
        }
    }

    /// A transcript frame the session handed out: its entries, stamped, go into the queue.
    pub fn enqueue(&mut self, mut frame: TranscriptMirror) {
        for entry in &mut frame.entries {
            let mut value: serde_json::Value =
                serde_json::from_str(entry.as_str()).expect("a frame's entries are JSON");
            if let Some(fields) = value.as_object_mut() {
                fields.insert("stamp".into(), self.enqueued.into());
            }
            *entry = Json::from_serialize(&value).expect("a JSON value serializes");
            self.enqueued += 1;
        }
        self.queue.enqueue(Ok(key()), frame);
    }

    /// After each step, as the runtime crates do: the queue and the session kept in step (the
    /// session decides: [`Session::sync_store`], which also takes the queue's failures), and
    /// the next append handed to the store. Whether the session changed.
    pub fn sync(&mut self, session: &mut Session, now: Instant) -> bool {
        if self.queue.is_idle() {
            self.settled = self.enqueued;
        }
        let changed = session.sync_store(now, &mut self.queue);
        if self.in_flight.is_none() {
            self.in_flight = self.queue.poll_append(now);
            assert!(
                !(self.fenced && self.in_flight.is_some()),
                "an append handed out after the store fenced the session"
            );
        }
        changed
    }

    /// The session reported a batch the store could not take ([`Event::StoreFailed`]).
    ///
    /// [`Event::StoreFailed`]: claude_agent_core::session::Event::StoreFailed
    pub fn failure_reported(&mut self) {
        self.failures += 1;
    }

    /// Whether nothing is pending or being stored.
    pub fn is_idle(&self) -> bool {
        self.queue.is_idle()
    }

    /// Whether every entry enqueued so far was in the queue at a sync that found it idle: each
    /// is stored, or its tries are over (kept lines may be tried again later, at a flush or at
    /// the end). A result may be handed out only then.
    pub fn settled(&self) -> bool {
        self.settled == self.enqueued
    }

    /// The store answers the append in flight, if there is one and the queue still waits for
    /// it (one past its time limit was given up): `outcome % 3` picks stored, failed or
    /// fenced.
    pub fn answer(&mut self, now: Instant, outcome: u8) {
        let Some(append) = self.in_flight.take() else {
            return;
        };
        if !self.queue.awaits(append.id) {
            return;
        }
        let outcome = match outcome % 3 {
            0 => AppendOutcome::Stored,
            1 => AppendOutcome::Failed("the store is down".into()),
            _ => AppendOutcome::Fenced("another host holds the session".into()),
        };
        match &outcome {
            AppendOutcome::Stored => self.store(&append),
            AppendOutcome::Fenced(_) => self.fenced = true,
            _ => {}
        }
        self.queue.append_done(now, append.id, outcome);
        if self.fenced {
            assert!(self.queue.fenced().is_some(), "a fence the queue forgot");
        }
    }

    /// Whether the store fenced the session: another host holds it.
    pub fn fenced(&self) -> bool {
        self.fenced
    }

    /// The store takes `append`'s entries: each must come after every entry it has.
    fn store(&mut self, append: &Append) {
        assert_eq!(append.key, key(), "an append for another transcript");
        for entry in append.entries.iter() {
            let stamp = entry["stamp"].as_u64().expect("every entry was stamped");
            if let Some(last) = self.stored.last() {
                assert!(
                    stamp > *last,
                    "entry {stamp} stored after entry {last}: twice, or out of order"
                );
            }
            self.stored.push(stamp);
        }
    }

    /// Whether an append is in flight.
    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Time passes: appends past their time limit are given up, failed ones tried again.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.queue.handle_timeout(now);
    }

    /// When the queue wants the time next, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.queue.poll_timeout()
    }

    /// Once the session is over and the store answered everything: nothing is left in the
    /// queue, and unless a failure or a fence was reported, or the session's place was lost
    /// (`place_lost`: the queue let go of its lines), every entry was stored.
    pub fn check_done(&self, place_lost: bool) {
        assert!(self.queue.is_idle(), "lines left in the queue at the end");
        assert!(
            self.in_flight.is_none(),
            "an append left in flight at the end"
        );
        if self.failures == 0 && !self.fenced && !place_lost {
            assert_eq!(
                self.stored.len() as u64,
                self.enqueued,
                "entries lost with no failure reported"
            );
        }
    }
}

impl Default for StoreHost {
    fn default() -> Self {
        StoreHost::new()
    }
}
