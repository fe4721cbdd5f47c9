//! `HookBase`: the fields every hook input carries.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::permission::PermissionMode;

/// The fields common to every hook input.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct HookBase {
    /// The session's id.
    pub session_id: String,
    /// Path of the session's transcript file.
    pub transcript_path: String,
    /// The working directory.
    pub cwd: String,
    /// The permission mode in force.
    #[serde(default)]
    pub permission_mode: Option<PermissionMode>,
    /// The id of the user prompt this belongs to.
    #[serde(default)]
    pub prompt_id: Option<String>,
    /// The subagent this fired in (always set for `SubagentStart`/`SubagentStop`).
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The subagent's type (always set for `SubagentStart`/`SubagentStop`).
    #[serde(default)]
    pub agent_type: Option<String>,
    /// The reasoning effort in force.
    #[serde(default)]
    pub effort: Option<HookEffort>,
    /// The whole input object as the CLI sent it; set by [`super::HookInput::parse`].
    #[serde(skip)]
    pub(super) raw: Option<Box<RawValue>>,
}

impl HookBase {
    /// The whole input object as the CLI sent it, when it was read with [`super::HookInput::parse`].
    pub fn raw_json(&self) -> Option<&str> {
        self.raw.as_deref().map(RawValue::get)
    }
}

/// `effort` of a hook input.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct HookEffort {
    /// `low`, `medium`, `high`, …
    pub level: String,
}
