//! Inputs of the subagent, team and task events: `SubagentStart`, `SubagentStop`, `TeammateIdle`,
//! `TaskCreated` and `TaskCompleted`.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::HookBase;

/// `SubagentStart`: a subagent starts. Its `agent_id` and `agent_type` are in [`HookBase`].
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct SubagentStartInput {
    /// The common fields, with `agent_id` and `agent_type` set.
    #[serde(flatten)]
    pub base: HookBase,
}

/// `SubagentStop`: a subagent is about to stop. Its `agent_id` and `agent_type` are in [`HookBase`].
#[derive(Debug, Clone, Deserialize)]
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
    pub background_tasks: Option<Box<RawValue>>,
    /// Scheduled prompts, as raw JSON.
    #[serde(default)]
    pub session_crons: Option<Box<RawValue>>,
}

/// `TeammateIdle`: a teammate agent has nothing to do.
#[derive(Debug, Clone, Deserialize)]
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
    /// # use claude_agent_core::hooks::{EventInput, HookInput, TaskCreatedInput};
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
    /// # use claude_agent_core::hooks::{EventInput, HookInput, TaskCompletedInput};
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
