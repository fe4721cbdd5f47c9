//! `HookBase`: the fields every hook input carries.

use serde::Deserialize;

use crate::permission::PermissionMode;
use crate::Json;

/// The fields common to every hook input.
///
/// ```
/// use claude_agent_tokio::hooks::{HookInput, StopInput};
/// use claude_agent_tokio::permission::PermissionMode;
///
/// // Every typed input has its `base`; `HookInput::base` reads it from the untyped one.
/// fn where_it_stopped(input: &StopInput) -> String {
///     format!("session {} in {}", input.base.session_id, input.base.cwd)
/// }
///
/// let stop: StopInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"Stop","stop_hook_active":false}"#,
/// )
/// .unwrap();
/// assert_eq!(where_it_stopped(&stop), "session s in /w");
///
/// let input: HookInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "prompt_id":"b636f91c-8b3d-4cbf-b9d5-c57dd97cf781","effort":{"level":"medium"},
///     "hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la /","description":"run"},
///     "tool_use_id":"toolu_fake_3_1","future_field":1}"#,
/// )
/// .unwrap();
/// let base = input.base().unwrap();
/// assert_eq!(base.session_id, "739ce4ca-b59b-45ac-8b21-272330895f34");
/// assert_eq!(base.permission_mode, Some(PermissionMode::Default));
/// assert_eq!(base.effort.as_ref().map(|e| e.level.as_str()), Some("medium"));
/// assert_eq!(base.agent_id, None); // the main agent, not a subagent
///
/// // Fields this crate does not type are in the whole input:
/// let all: serde_json::Value = serde_json::from_str(base.raw_json().unwrap()).unwrap();
/// assert_eq!(all["future_field"], 1);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    pub(super) raw: Option<Json>,
}

impl HookBase {
    /// The whole input object as the CLI sent it, when it was read with [`super::HookInput::parse`].
    pub fn raw_json(&self) -> Option<&str> {
        self.raw.as_ref().map(Json::as_str)
    }
}

/// `effort` of a hook input.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
///
/// /// Lets only high-effort turns run the slow integration tests.
/// fn slow_tests_at_high_effort(input: &PreToolUseInput) -> HookOutput {
///     let high = input.base.effort.as_ref().is_some_and(|effort| effort.level == "high");
///     if !high && input.tool_input.as_str().contains("--ignored") {
///         HookOutput::deny_tool("Run the integration tests only at high effort.")
///     } else {
///         HookOutput::default()
///     }
/// }
///
/// let input: PreToolUseInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","effort":{"level":"medium"},
///     "hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test -- --ignored"},
///     "tool_use_id":"toolu_1"}"#,
/// )
/// .unwrap();
/// assert_eq!(
///     slow_tests_at_high_effort(&input),
///     HookOutput::deny_tool("Run the integration tests only at high effort.")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct HookEffort {
    /// `low`, `medium`, `high`, …
    pub level: String,
}
