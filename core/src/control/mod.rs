//! The control protocol: requests the host sends to the CLI, requests the CLI sends to the host,
//! and the replies to both (PROTOCOL-REFERENCE §3).
//!
//! The [`crate::session::Session`] builds and matches the envelopes; this module holds the payloads.

mod ids;
mod inbound;
mod outgoing;
mod reply;
mod responses;

pub use ids::{InboundId, RequestId};
pub use inbound::{ElicitationRequest, HookCallback, InboundKind, InboundRequest};
pub use outgoing::{ContextUsageDetail, ControlRequest, ThinkingDisplay};
pub use reply::{ElicitationAction, ElicitationResult, Reply};
pub use responses::{
    AccountInfo, AgentInfo, ContextUsage, InitializeResponse, InterruptReceipt, McpServerStatus,
    McpSetServersResult, McpStatus, ModelInfo, RequestFailure, ResponseBody, RewindFilesResult,
    SlashCommand,
};
