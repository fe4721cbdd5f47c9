//! The requests the session sends for itself, whose answers it takes without an event: the
//! `get_usage` question about a resumed CLI's running cost, the `mcp_status` questions of the
//! readiness wait, and the interrupts of a stall or a budget.

use crate::control::RequestId;

/// Why the session sent one of its own requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// What a resumed CLI's running cost starts from.
    Baseline,
    /// Whether the in-process servers are connected yet.
    Readiness,
    /// The turn is to stop: it stalled, or the budget is spent.
    Interrupt,
}

/// The session's own requests in flight.
#[derive(Debug, Default)]
pub(crate) struct OwnRequests(Vec<(RequestId, Purpose)>);

impl OwnRequests {
    pub(crate) fn add(&mut self, id: RequestId, purpose: Purpose) {
        self.0.push((id, purpose));
    }

    /// The purpose of `id`, if it is one of the session's own (and forget it).
    pub(crate) fn take(&mut self, id: RequestId) -> Option<Purpose> {
        let at = self.0.iter().position(|(own, _)| *own == id)?;
        Some(self.0.swap_remove(at).1)
    }

    /// How many are in flight.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}
