//! Permission prompts: the CLI asks whether a tool may run ([`PermissionRequest`]), and the host
//! answers allow or deny ([`PermissionResult`]).
//!
//! Register the deciding callback with `Options::on_permission_request` (with the `client` feature, on in
//! the runtime crates). It launches the CLI with `--permission-prompt-tool=stdio`, and the CLI
//! then asks about every tool use its own rules and [`PermissionMode`] do not settle.
//!
//! ```
//! use claude_agent_core::client::Options;
//! use claude_agent_core::permission::PermissionResult;
//!
//! let options = Options::new().on_permission_request(|request, _ctx| async move {
//!     match request.tool_name.as_str() {
//!         "Read" | "Glob" | "Grep" => PermissionResult::allow(),
//!         // The model sees this text as the tool's error, and the turn goes on.
//!         _ => PermissionResult::deny("This agent may only read files."),
//!     }
//! });
//! # let _ = options;
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
