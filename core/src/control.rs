//! The control protocol's payloads: requests the host sends to the CLI ([`ControlRequest`]), the
//! CLI's answers ([`ResponseBody`] and the typed bodies such as [`InterruptReceipt`]), requests
//! the CLI sends to the host ([`InboundRequest`]), and the host's replies ([`Reply`]).
//!
//! Most users never build these: `Client` has a method per request (`interrupt`, `set_model`,
//! `mcp_status`, …) and the callbacks on the options answer the CLI's requests. A host driving a
//! [`crate::session::Session`] itself sends a request with [`crate::session::Session::request`]
//! and gets its outcome back as an [`crate::session::Event::RequestDone`]:
//!
//! ```
//! use std::time::Instant;
//! use claude_agent_tokio::control::{ControlRequest, InterruptReceipt};
//! use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
//!
//! let now = Instant::now();
//! let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
//! let id = session.request(now, ControlRequest::Interrupt).unwrap();
//! assert_eq!(id.to_string(), "req_1"); // `req_0` is the initialize request
//!
//! session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"still_queued":[]}}}
//! "#);
//! let receipt = std::iter::from_fn(|| session.poll_event()).find_map(|event| match event {
//!     Event::RequestDone { id: done, outcome } if done == id => Some(outcome),
//!     _ => None,
//! });
//! let receipt: InterruptReceipt = receipt.unwrap().unwrap().parse().unwrap();
//! assert!(receipt.still_queued.is_empty());
//! ```
//!
//! The envelopes themselves are built and matched by the session; they are described in
//! "Control envelopes" of `docs/PROTOCOL.md` in the repository.

mod claim;
mod ids;
mod inbound;
mod lookups;
mod mcp_call;
mod outgoing;
mod reply;
mod responses;

pub use claim::{
    ClaimInfo, ClaimOption, ClaimOptions, ClaimOptionsError, ClaimRefusal, ClaimRefusalReason,
    ClaimableVar, NotApplied,
};
pub use ids::{InboundId, RequestId};
pub use inbound::{HookCallback, InboundKind, InboundRequest, UserDialogRequest};
pub use lookups::{
    AppliedSettings, FileSuggestion, FileSuggestions, MessageCancelled, ModelList,
    SettingsParseError, SettingsReport, SettingsSourceReport,
};
pub use mcp_call::McpCall;
pub use outgoing::{
    ContextUsageDetail, ControlRequest, FileEncoding, McpPermissionMode, ReadFile, ReloadPlugins,
    SettingsFile, ThinkingDisplayChange, UsageDetail,
};
pub use reply::{Reply, UserDialogResult};
pub use responses::{
    AccountInfo, AgentInfo, BackgroundTasksResult, InitializeResponse, InterruptReceipt,
    McpPermissionOverrideResult, McpResource, McpResourceContents, McpSetServersResult, McpStatus,
    ModelInfo, ModelRateLimit, OutputStyles, RateLimitWindow, RateLimits, ReadFileResult,
    ReloadPluginsResult, ReloadSkillsResult, ResponseBody, RewindFilesResult, SessionUsage,
    SlashCommand, UsageReport,
};
