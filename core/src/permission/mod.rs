//! Permission prompts: the CLI's `can_use_tool` request and the host's allow/deny answer
//! (PROTOCOL-REFERENCE §3.5).
//!
//! CONTRACT (used by `session` and `client`; flesh out, keep the names):
//! - `PermissionRequest`: the request fields of PROTOCOL-REFERENCE §3.5, `Deserialize`.
//! - `PermissionResult`: `Allow {..}` / `Deny {..}`; `to_wire_json(original_input)` gives the exact
//!   wire body (it needs the request's input, so it is not a plain `Serialize`).
//! - `PermissionMode`: the permission modes, `Serialize`/`Deserialize` as their wire strings.
//! - `PermissionUpdate`: rule/mode/directory changes, sent and received in camelCase.

mod mode;
mod request;
mod result;
mod update;

pub use mode::PermissionMode;
pub use request::{MatchedAskRule, McpServerOrigin, PermissionRequest};
pub use result::PermissionResult;
pub use update::{
    DirectoryUpdate, ModeUpdate, PermissionRule, PermissionUpdate, RuleBehavior, RuleUpdate,
    UpdateDestination,
};
