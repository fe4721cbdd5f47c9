//! The session and the host's store queue kept in step: what the session's state means for the
//! queue (a flush while a result waits, the last tries once the CLI stops, nothing more once
//! the place is lost), and what the queue's state means for the session (a fence is a lost
//! place, an idle queue lets a held result go on, a saturated one holds the events back).

use std::time::Instant;

use super::{Event, MirrorFailure, MirrorQueue, Session};

/// What the session knows of the host's store queue, from its last [`Session::sync_store`].
#[derive(Debug, Default)]
pub(super) struct QueueSeen {
    /// The queue was saturated: no events go out until it catches up.
    saturated: bool,
    /// The frames handed out when the queue was last flushed for the held result; `None` until
    /// it has been, for this result.
    flush_through: Option<u64>,
    /// The queue had lines pending or being stored: the end ([`Event::Finished`]) waits for
    /// them.
    unsettled: bool,
    /// The transcript frames handed out at the last sync; `None` for a host that never synced.
    /// The end waits for a sync after the last frame too.
    synced_frames: Option<u64>,
    /// The queue was told to give its lines their last tries.
    finish_told: bool,
}

impl QueueSeen {
    /// Whether the queue was saturated at the last sync.
    pub(super) fn saturated(&self) -> bool {
        self.saturated
    }

    /// A result is held for the store: the next sync flushes the queue for it.
    pub(super) fn hold_started(&mut self) {
        self.flush_through = None;
    }
}

impl Session {
    /// Keep the host's store queue and the session in step. Call it once before taking the
    /// first event, and then after every step of either: a frame enqueued ([`Event::Mirror`]),
    /// an append's outcome, a timeout, an input, a command. It returns whether the session
    /// changed (events may be ready, or the CLI is to stop), so that a host loops until neither
    /// side moves. The decisions are the session's:
    ///
    /// - a store that fenced this host off ([`MirrorQueue::fenced`]) means another host holds
    ///   the session: its place is lost ([`Session::place_lost`]);
    /// - once the place is lost, the queue lets go of everything it holds and reports no more
    ///   failures: the transcript goes on on the other host;
    /// - once the CLI is being stopped, or the session has finished, the queue gives its lines
    ///   their last tries ([`MirrorQueue::finish`]): a store that is down does not hold the end;
    /// - while a result waits for the store ([`SessionConfig::results_after_store`]), everything
    ///   pending goes at once ([`MirrorQueue::flush`]), and once the queue is idle the result
    ///   goes on ([`Session::store_flushed`]);
    /// - a batch the store could not take is reported as [`Event::StoreFailed`], ahead of the
    ///   result held for it;
    /// - while the queue is saturated ([`MirrorQueue::is_saturated`]), [`Session::poll_event`]
    ///   hands out nothing, so the event queue fills and [`Session::wants_read`] stops the
    ///   reading of the CLI until the store catches up;
    /// - [`Event::Finished`] waits until the queue is idle: the session's end comes after the
    ///   store's last tries and their failures.
    ///
    /// ```
    /// use std::time::Instant;
    /// use claude_agent_tokio::message::Message;
    /// use claude_agent_tokio::session::{
    ///     AppendOutcome, Event, InputMode, MirrorLimits, MirrorQueue, Session, SessionConfig,
    /// };
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// let now = Instant::now();
    /// let mut config = SessionConfig::new(InputMode::Streaming);
    /// config.results_after_store = true;
    /// let mut session = Session::new(config, now);
    /// let mut queue = MirrorQueue::new(MirrorLimits::default());
    /// session.handle_stdout(now, br#"{"type":"transcript_mirror","filePath":"/h/.claude/projects/-w/s.jsonl","entries":[{"type":"user","uuid":"u1"}]}
    /// {"type":"result","subtype":"success","is_error":false,"session_id":"s"}
    /// "#);
    /// let Some(Event::Mirror(frame)) = session.poll_event() else { panic!() };
    /// queue.enqueue(Ok(SessionKey::new("-w", "s")), *frame);
    /// assert!(session.poll_event().is_none(), "the result waits for the store");
    ///
    /// session.sync_store(now, &mut queue); // the turn's lines go at once
    /// let append = queue.poll_append(now).unwrap();
    /// // … the store takes `append.entries` under `append.key` …
    /// queue.append_done(now, append.id, AppendOutcome::Stored);
    /// assert!(session.sync_store(now, &mut queue));
    /// assert!(matches!(session.poll_event(), Some(Event::Message(Message::Result(_)))));
    /// ```
    ///
    /// [`SessionConfig::results_after_store`]: super::SessionConfig::results_after_store
    pub fn sync_store(&mut self, now: Instant, queue: &mut MirrorQueue) -> bool {
        let end_waited = self.end_waits_for_store();
        let mut changed = false;
        if queue.fenced().is_some() && !self.lost_place {
            self.place_lost(now);
            changed = true;
        }
        self.steer_store(queue);
        // Ahead of the result they held (and the end), so taken before it is let go.
        while let Some(failure) = queue.take_failure() {
            self.store_failed(failure);
            changed = true;
        }
        if queue.is_idle() && self.result_held() {
            self.store_flushed();
            changed = true;
            // What it held may include the end: the store's last tries come first.
            self.steer_store(queue);
        }
        let saturated = queue.is_saturated();
        changed |= self.store.saturated && !saturated;
        self.store.saturated = saturated;
        self.store.unsettled = !queue.is_idle();
        self.store.synced_frames = Some(self.mirror_delivered);
        changed | (end_waited && !self.end_waits_for_store())
    }

    /// What the session's state asks of the queue: nothing more once the place is lost, the
    /// last tries once the CLI is being stopped or the session has finished, and a flush for a
    /// held result.
    fn steer_store(&mut self, queue: &mut MirrorQueue) {
        if self.lost_place {
            queue.let_go();
        } else if (self.finished && !self.result_held()) || self.stopping() {
            queue.finish();
            self.store.finish_told = true;
        } else if self.result_held() && self.store.flush_through != Some(self.mirror_delivered) {
            // Once for the held result, and again for each frame handed out since: a flush
            // tries the lines a failed batch kept once more, so not at every call.
            queue.flush();
            self.store.flush_through = Some(self.mirror_delivered);
        }
    }

    /// Whether a result (and what came after it) waits for the store.
    fn result_held(&self) -> bool {
        self.held_events
            .waits_for(super::held_events::WaitsFor::Store)
    }

    /// Whether the session's end must wait for the host's store: the queue has not been told
    /// to give its lines their last tries yet, lines were pending at the last sync, or frames
    /// were handed out since (a host that never synced a queue has no store to wait for). Once
    /// the place is lost, nothing is stored from here: nothing waits.
    pub(super) fn end_waits_for_store(&self) -> bool {
        if self.lost_place {
            return false;
        }
        let seen = &self.store;
        seen.synced_frames.is_some_and(|synced| {
            !seen.finish_told || seen.unsettled || synced != self.mirror_delivered
        })
    }

    /// A batch the store could not take: reported ahead of everything the session holds for the
    /// store, and ahead of its end, which waits for the store's last tries.
    fn store_failed(&mut self, failure: MirrorFailure) {
        let at = match self.events.back() {
            Some(Event::Finished(_)) => self.events.len() - 1,
            _ => self.events.len(),
        };
        self.events
            .insert(at, Event::StoreFailed(Box::new(failure)));
    }
}
