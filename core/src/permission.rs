//! Permission prompts: the CLI asks whether a tool may run ([`PermissionRequest`]), and the host
//! answers allow or deny ([`PermissionResult`]).
//!
//! The deciding callback is registered with `Options::on_permission_request` (in the runtime
//! crates). It launches the CLI with `--permission-prompt-tool=stdio`, and the CLI then asks
//! about every tool use its own rules and [`PermissionMode`] do not settle. The decision itself
//! is a plain function of the request:
//!
//! ```
//! use claude_agent_tokio::permission::{PermissionRequest, PermissionResult};
//!
//! fn read_only(request: &PermissionRequest) -> PermissionResult {
//!     match request.tool_name.as_str() {
//!         "Read" | "Glob" | "Grep" => PermissionResult::allow(),
//!         // The model sees this text as the tool's error, and the turn goes on.
//!         _ => PermissionResult::deny("This agent may only read files."),
//!     }
//! }
//!
//! // What the CLI sends:
//! let request: PermissionRequest = serde_json::from_str(
//!     r#"{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"rm -rf target"},"tool_use_id":"toolu_1"}"#,
//! )
//! .unwrap();
//! assert_eq!(read_only(&request), PermissionResult::deny("This agent may only read files."));
//! ```
//!
//! An allow can change the tool's input ([`PermissionResult::with_updated_input`]) and apply
//! permission rules ([`PermissionUpdate`], e.g. the request's own suggestions for "always
//! allow"); [`PermissionResult::deny_and_interrupt`] also stops the turn. A host that asks a
//! person can say how they decided ([`DecisionClassification`]). The wire shapes are in
//! "Permission prompts" of `docs/PROTOCOL.md` in the repository.

mod mode;
mod request;
mod result;
mod update;

pub use mode::PermissionMode;
pub use request::{MatchedAskRule, McpServerOrigin, PermissionRequest};
pub use result::{DecisionClassification, PermissionResult};
pub use update::{
    DirectoryUpdate, ModeUpdate, PermissionRule, PermissionUpdate, RuleBehavior, RuleUpdate,
    UpdateDestination,
};
