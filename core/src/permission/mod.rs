//! Permission prompts: the CLI's `can_use_tool` request and the host's allow/deny answer.
//!
//! CONTRACT (used by `session` and `client`; flesh out, keep the names):
//! - `PermissionRequest`: the request fields of PROTOCOL-REFERENCE §3.5, `Deserialize`.
//! - `PermissionResult`: `Allow {..}` / `Deny {..}`, `Serialize` to the exact wire body.
//! - `PermissionMode`: the permission modes, `Serialize`/`Deserialize` as their wire strings.

use serde::{Deserialize, Serialize};

/// How the CLI decides about tool use. Sent with `--permission-mode` or `set_permission_mode`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum PermissionMode {
    /// `default`: ask for anything not allowed by a rule.
    #[serde(rename = "default")]
    Default,
    /// `acceptEdits`: file edits are allowed without asking.
    #[serde(rename = "acceptEdits")]
    AcceptEdits,
}

/// A `can_use_tool` request: the CLI asks whether a tool may run.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// Name of the tool, e.g. `Bash` or `mcp__calc__add`.
    pub tool_name: String,
    /// The tool's input as the model wrote it.
    pub input: Box<serde_json::value::RawValue>,
    /// The `tool_use` block this request is about.
    pub tool_use_id: String,
}

/// The host's answer to a [`PermissionRequest`].
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionResult {
    /// Let the tool run.
    Allow {
        /// The input to run the tool with.
        #[serde(rename = "updatedInput")]
        updated_input: Box<serde_json::value::RawValue>,
    },
    /// Refuse the tool.
    Deny {
        /// Why; the model sees this text as the tool's error.
        message: String,
    },
}

impl PermissionResult {
    /// The success body on the wire; `original_input` is sent back when allowing without changes.
    pub fn to_wire_json(&self, original_input: &serde_json::value::RawValue) -> String {
        let _ = original_input;
        serde_json::to_string(self).expect("permission results always serialize")
    }
}

// ---- TEMPORARY SHIM (client branch): constructors the client layer uses; replaced on merge. ----
impl PermissionResult {
    /// Shim.
    pub fn allow() -> Self {
        PermissionResult::Allow {
            updated_input: serde_json::value::RawValue::from_string("{}".into()).expect("valid"),
        }
    }
    /// Shim.
    pub fn deny(message: impl Into<String>) -> Self {
        PermissionResult::Deny {
            message: message.into(),
        }
    }
}
