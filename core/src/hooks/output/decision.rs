//! The small decision enums of hook outputs.

use serde::{Deserialize, Deserializer, Serialize};

use crate::json::{read_kind, split_tag};
use crate::permission::PermissionUpdate;
use crate::Json;

/// Top-level `decision` of a hook output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookDecision, HookOutput};
///
/// let output = HookOutput::block("Fix the lint errors first.");
/// assert_eq!(output.decision, Some(HookDecision::Block));
/// assert_eq!(output.reason.as_deref(), Some("Fix the lint errors first."));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum HookDecision {
    /// `approve`.
    Approve,
    /// `block`: block the action (with [`super::HookOutput::reason`] as the explanation).
    Block,
}

/// `permissionDecision` of a `PreToolUse` (or `PreModelSwitch`) output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseOutput};
///
/// // `HookOutput::allow_tool`, `deny_tool` and `ask_tool` cover the usual cases; `Defer` is written out.
/// let defer = HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreToolUse(PreToolUseOutput {
///     permission_decision: Some(PermissionDecision::Defer),
///     ..Default::default()
/// }));
/// assert_eq!(
///     defer.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// `decision` of a `PermissionRequest` hook output. Compares by value, `updated_input` by its
/// exact JSON text.
///
/// ```
/// # use claude_agent_tokio::hooks::PermissionRequestDecision;
/// let deny = PermissionRequestDecision::Deny { message: Some("no".into()), interrupt: None };
/// assert_eq!(deny, deny.clone());
/// assert_ne!(deny, PermissionRequestDecision::Allow { updated_input: None, updated_permissions: None });
/// ```
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "behavior", rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionRequestDecision {
    /// Allow the tool.
    Allow {
        /// Run it with this input instead.
        #[serde(rename = "updatedInput", skip_serializing_if = "Option::is_none")]
        updated_input: Option<Json>,
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

impl<'de> Deserialize<'de> for PermissionRequestDecision {
    /// Reads the variant `behavior` names (`allow` or `deny`).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Allow {
            updated_input: Option<Json>,
            updated_permissions: Option<Vec<PermissionUpdate>>,
        }
        #[derive(Deserialize)]
        struct Deny {
            message: Option<String>,
            interrupt: Option<bool>,
        }
        let (behavior, json) = split_tag(deserializer, "behavior")?;
        match behavior.as_deref() {
            Some("allow") => {
                let Allow {
                    updated_input,
                    updated_permissions,
                } = read_kind(&json)?;
                Ok(PermissionRequestDecision::Allow {
                    updated_input,
                    updated_permissions,
                })
            }
            Some("deny") => {
                let Deny { message, interrupt } = read_kind(&json)?;
                Ok(PermissionRequestDecision::Deny { message, interrupt })
            }
            _ => Err(serde::de::Error::custom(
                "a permission decision's `behavior` is `allow` or `deny`",
            )),
        }
    }
}
