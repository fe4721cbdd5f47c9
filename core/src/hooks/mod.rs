//! Hooks: the events the CLI reports to the host, their typed inputs, and the host's outputs.
//!
//! CONTRACT (used by `session`, `options` and `client`; flesh out, keep the names):
//! - `HookEvent`: every event of PROTOCOL-REFERENCE §5.2, plus `Other(String)`; `as_str()` gives the wire name.
//! - `HookInput`: `Deserialize` from the `input` of a `hook_callback` request.
//! - `HookOutput`: `Serialize` to the exact wire body of §5.3.

use serde::{Deserialize, Serialize};

/// A hook event name, such as `PreToolUse`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before a tool runs.
    PreToolUse,
    /// Any event this crate does not know by name.
    Other(String),
}

impl HookEvent {
    /// The event's name on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::Other(s) => s,
        }
    }
}

/// The input of a hook callback.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct HookInput {
    /// The event that fired.
    pub hook_event_name: String,
}

/// What a hook callback answers.
#[derive(Debug, Clone, Default, Serialize)]
#[non_exhaustive]
pub struct HookOutput {
    /// `continue`: whether the agent goes on.
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
}

impl HookInput {
    /// Parse the `input` of a `hook_callback` request.
    pub fn parse(input: &serde_json::value::RawValue) -> Result<HookInput, serde_json::Error> {
        serde_json::from_str(input.get())
    }
}

impl HookOutput {
    /// The success body on the wire.
    pub fn to_wire_json(&self) -> String {
        serde_json::to_string(self).expect("hook outputs always serialize")
    }
}
