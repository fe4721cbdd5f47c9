//! Inputs of the subagent, team and task events: `SubagentStart`, `SubagentStop`, `TeammateIdle`,
//! `TaskCreated` and `TaskCompleted`.

use serde::Deserialize;

use super::HookBase;
use crate::Json;

/// `SubagentStart`: a subagent starts. Its `agent_id` and `agent_type` are in [`HookBase`].
///
/// ```
/// use claude_agent_tokio::hooks::{EventInput, HookOutput, SubagentStartInput};
///
/// /// Keep exploring subagents out of vendored code.
/// fn brief_explorers(input: &SubagentStartInput) -> HookOutput {
///     match input.base.agent_type.as_deref() {
///         Some("Explore") => HookOutput::default()
///             .with_additional_context(SubagentStartInput::EVENT, "Do not read files under vendor/."),
///         _ => HookOutput::default(),
///     }
/// }
///
/// let input: SubagentStartInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"SubagentStart","agent_id":"a7f3c2e1","agent_type":"Explore"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.base.agent_id.as_deref(), Some("a7f3c2e1"));
/// assert_eq!(
///     brief_explorers(&input),
///     HookOutput::default().with_additional_context(SubagentStartInput::EVENT, "Do not read files under vendor/.")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SubagentStartInput {
    /// The common fields, with `agent_id` and `agent_type` set.
    #[serde(flatten)]
    pub base: HookBase,
}

/// `SubagentStop`: a subagent is about to stop. Its `agent_id` and `agent_type` are in [`HookBase`].
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, SubagentStopInput};
///
/// /// Keep a subagent going until it lists its sources (once: then `stop_hook_active` is set).
/// fn sources_first(input: &SubagentStopInput) -> HookOutput {
///     let said = input.last_assistant_message.as_deref().unwrap_or_default();
///     if input.stop_hook_active || said.contains("Sources:") {
///         HookOutput::default()
///     } else {
///         HookOutput::block("List your sources before you stop.")
///     }
/// }
///
/// let input: SubagentStopInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"SubagentStop","agent_id":"a7f3c2e1","agent_type":"general-purpose","stop_hook_active":false,
///     "agent_transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca/subagents/agent-a7f3c2e1.jsonl",
///     "last_assistant_message":"The flaky test races on a shared temp dir."}"#,
/// )
/// .unwrap();
/// assert!(!input.stop_hook_active);
/// assert!(input.agent_transcript_path.ends_with("agent-a7f3c2e1.jsonl"));
/// assert_eq!(sources_first(&input), HookOutput::block("List your sources before you stop."));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SubagentStopInput {
    /// The common fields, with `agent_id` and `agent_type` set.
    #[serde(flatten)]
    pub base: HookBase,
    /// Whether a stop hook already made the subagent continue once.
    pub stop_hook_active: bool,
    /// Path of the subagent's own transcript.
    pub agent_transcript_path: String,
    /// The subagent's last text.
    #[serde(default)]
    pub last_assistant_message: Option<String>,
    /// Background tasks still known, as raw JSON.
    #[serde(default)]
    pub background_tasks: Option<Json>,
    /// Scheduled prompts, as raw JSON.
    #[serde(default)]
    pub session_crons: Option<Json>,
}

/// `TeammateIdle`: a teammate agent has nothing to do.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, TeammateIdleInput};
///
/// fn report_idle(input: &TeammateIdleInput) -> HookOutput {
///     HookOutput::default().with_system_message(format!("{} of {} is idle", input.teammate_name, input.team_name))
/// }
///
/// let input: TeammateIdleInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"TeammateIdle","teammate_name":"tester","team_name":"release"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.teammate_name.as_str(), input.team_name.as_str()), ("tester", "release"));
/// assert_eq!(report_idle(&input).system_message.as_deref(), Some("tester of release is idle"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TeammateIdleInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The teammate.
    pub teammate_name: String,
    /// Its team.
    pub team_name: String,
}

twin_inputs! {
    /// `TaskCreated`: a task was created.
    ///
    /// ```
    /// # use claude_agent_tokio::hooks::{EventInput, HookInput, TaskCreatedInput};
    /// let input: HookInput = serde_json::from_str(
    ///     r#"{"hook_event_name":"TaskCreated","session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "task_id":"1","task_subject":"Write docs"}"#,
    /// )
    /// .unwrap();
    /// let input = TaskCreatedInput::from_hook_input(input).unwrap();
    /// assert_eq!(input.task_subject, "Write docs");
    /// ```
    TaskCreatedInput,
    /// `TaskCompleted`: a task was completed.
    ///
    /// ```
    /// # use claude_agent_tokio::hooks::{EventInput, HookInput, TaskCompletedInput};
    /// let input: HookInput = serde_json::from_str(
    ///     r#"{"hook_event_name":"TaskCompleted","session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "task_id":"1","task_subject":"Write docs","team_name":"docs"}"#,
    /// )
    /// .unwrap();
    /// let input = TaskCompletedInput::from_hook_input(input).unwrap();
    /// assert_eq!(input.team_name.as_deref(), Some("docs"));
    /// ```
    TaskCompletedInput,
    {
        /// The common fields.
        #[serde(flatten)]
        pub base: HookBase,
        /// The task.
        pub task_id: String,
        /// Its subject line.
        pub task_subject: String,
        /// Its description.
        #[serde(default)]
        pub task_description: Option<String>,
        /// The teammate it belongs to.
        #[serde(default)]
        pub teammate_name: Option<String>,
        /// The team it belongs to.
        #[serde(default)]
        pub team_name: Option<String>,
    }
}
