//! The requests the session sends for itself: the `get_usage` question about a resumed CLI's
//! running cost, the `mcp_status` questions of the readiness wait, and the interrupts of a stall
//! or a budget.

use crate::control::RequestId;

/// A control request the session sent for itself ([`Event::OwnRequestSent`]); its outcome
/// comes as [`Event::RequestDone`], and the session acts on it.
///
/// [`Event::OwnRequestSent`]: super::Event::OwnRequestSent
/// [`Event::RequestDone`]: super::Event::RequestDone
///
/// ```
/// use claude_agent_tokio::session::OwnRequest;
///
/// // What a log line names it by: the request's subtype on the wire.
/// assert_eq!(OwnRequest::ServersReady.subtype(), "mcp_status");
/// assert_eq!(OwnRequest::Interrupt.subtype(), "interrupt");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OwnRequest {
    /// What a resumed CLI's running cost starts from (`get_usage`,
    /// [`SessionConfig::cost_carried_over`](super::SessionConfig::cost_carried_over)).
    CarriedOverCost,
    /// Whether the in-process servers are connected yet (`mcp_status`,
    /// [`SessionConfig::ready_after_servers`](super::SessionConfig::ready_after_servers)).
    ServersReady,
    /// The turn is to stop (`interrupt`): it stalled, or the budget is spent.
    Interrupt,
}

impl OwnRequest {
    /// The request's subtype on the wire.
    pub fn subtype(self) -> &'static str {
        match self {
            OwnRequest::CarriedOverCost => "get_usage",
            OwnRequest::ServersReady => "mcp_status",
            OwnRequest::Interrupt => "interrupt",
        }
    }
}

/// The session's own requests in flight.
#[derive(Debug, Default)]
pub(crate) struct OwnRequests(Vec<(RequestId, OwnRequest)>);

impl OwnRequests {
    pub(crate) fn add(&mut self, id: RequestId, request: OwnRequest) {
        self.0.push((id, request));
    }

    /// What `id` was sent for, if it is one of the session's own (and forget it).
    pub(crate) fn take(&mut self, id: RequestId) -> Option<OwnRequest> {
        let at = self.0.iter().position(|(own, _)| *own == id)?;
        Some(self.0.swap_remove(at).1)
    }

    /// How many are in flight.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}
