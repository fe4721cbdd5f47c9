//! Events the session holds back from the host behind a result: until the host has stored the
//! transcript lines before it, or charged its turn's cost.

use std::collections::VecDeque;

use super::Event;

/// What a held result waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WaitsFor {
    /// The host's store to have the transcript frames before it
    /// ([`Session::store_flushed`](super::Session::store_flushed)).
    Store,
    /// The host to have charged its turn's cost
    /// ([`Session::turn_charged`](super::Session::turn_charged)).
    Charge,
}

/// A result held back and every event after it, with what they wait for; nothing while no
/// result waits.
#[derive(Debug, Default)]
pub(super) struct HeldEvents {
    waits_for: Option<WaitsFor>,
    events: VecDeque<Event>,
}

impl HeldEvents {
    /// Hold `result` (and from now on what comes after it) until what it waits for is done.
    pub(super) fn start(&mut self, waits_for: WaitsFor, result: Event) {
        debug_assert!(self.events.is_empty(), "a hold started while one lasts");
        self.waits_for = Some(waits_for);
        self.events.push_back(result);
    }

    /// Keep `event` behind the held result.
    pub(super) fn keep(&mut self, event: Event) {
        debug_assert!(self.waits_for.is_some(), "kept behind no result");
        self.events.push_back(event);
    }

    /// Whether a result is held, for `what`.
    pub(super) fn waits_for(&self, what: WaitsFor) -> bool {
        self.waits_for == Some(what)
    }

    /// Whether no result is held.
    pub(super) fn is_empty(&self) -> bool {
        self.waits_for.is_none()
    }

    /// Events held.
    pub(super) fn len(&self) -> usize {
        self.events.len()
    }

    /// Let go of everything held (what it waited for is done, or the place was lost): what it
    /// waited for, and the events, the result first.
    pub(super) fn release(&mut self) -> (Option<WaitsFor>, VecDeque<Event>) {
        (self.waits_for.take(), std::mem::take(&mut self.events))
    }

    /// Take the first held event `matches` picks out of the queue. The result itself is never
    /// picked (it is a message).
    pub(super) fn take(&mut self, matches: impl Fn(&Event) -> bool) -> Option<Event> {
        let at = self.events.iter().position(matches)?;
        self.events.remove(at)
    }
}
