use std::fmt;

/// Identifies a control request the host sent; its outcome comes back with the same id.
///
/// Ids come from a per-session counter, so a replayed session produces the same ids.
///
/// ```
/// # use claude_agent_tokio::control::RequestId;
/// let id = RequestId::from_raw(3);
/// assert_eq!(id.to_string(), "req_3");
/// assert_eq!(id.as_raw(), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(u64);

impl RequestId {
    /// The id with counter value `n`.
    pub const fn from_raw(n: u64) -> Self {
        RequestId(n)
    }

    /// The counter value.
    pub const fn as_raw(self) -> u64 {
        self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "req_{}", self.0)
    }
}

/// Identifies a request the CLI sent to the host (a permission prompt, a hook callback, a tool call).
///
/// Opaque: answer it with [`crate::session::Session::respond`].
///
/// ```
/// # use claude_agent_tokio::control::InboundId;
/// let id = InboundId::from_raw(1);
/// assert_eq!(id.as_raw(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InboundId(u64);

impl InboundId {
    /// The id with counter value `n`.
    pub const fn from_raw(n: u64) -> Self {
        InboundId(n)
    }

    /// The counter value.
    pub const fn as_raw(self) -> u64 {
        self.0
    }
}

impl fmt::Display for InboundId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "inbound_{}", self.0)
    }
}
