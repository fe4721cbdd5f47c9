//! The small decision enums of hook outputs.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::permission::PermissionUpdate;

/// Top-level `decision` of a hook output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum HookDecision {
    /// `approve`.
    Approve,
    /// `block`: block the action (with [`super::HookOutput::reason`] as the explanation).
    Block,
}

/// `permissionDecision` of a `PreToolUse` (or `PreModelSwitch`) output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionDecision {
    /// Run the tool without asking.
    Allow,
    /// Refuse the tool.
    Deny,
    /// Ask as usual.
    Ask,
    /// Leave the decision to the next step (`PreToolUse` only).
    Defer,
}

/// `decision` of a `PermissionRequest` hook output.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionRequestDecision {
    /// Allow the tool.
    Allow {
        /// Run it with this input instead.
        #[serde(rename = "updatedInput", skip_serializing_if = "Option::is_none")]
        updated_input: Option<Box<RawValue>>,
        /// Permission changes to apply.
        #[serde(rename = "updatedPermissions", skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Vec<PermissionUpdate>>,
    },
    /// Refuse the tool.
    Deny {
        /// Why.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// Also stop the turn.
        #[serde(skip_serializing_if = "Option::is_none")]
        interrupt: Option<bool>,
    },
}
