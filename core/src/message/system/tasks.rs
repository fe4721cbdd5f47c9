//! `system` messages about background tasks (subagents, background shells, workflows).

use crate::message::lenient;
use crate::message::raw::message_struct;
use crate::Json;
use serde::Deserialize;

message_struct! {
    /// `system`/`task_started`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"task_started","task_id":"a7f3c2e1","task_type":"local_agent","description":"Find the flaky test","tool_use_id":"toolu_01","subagent_type":"general-purpose","is_backgrounded":false,"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::TaskStarted(task)) = Message::parse(line).unwrap() else { panic!("not task_started") };
    /// assert_eq!((task.task_id.as_str(), task.task_type.as_deref()), ("a7f3c2e1", Some("local_agent")));
    /// assert_eq!(task.subagent_type.as_deref(), Some("general-purpose"));
    /// ```
    pub struct TaskStarted {
        /// The task id.
        #[serde(default)]
        pub task_id: String,
        /// `local_agent`, `local_bash`, `local_workflow`, `mcp_task`, …
        #[serde(default)]
        pub task_type: Option<String>,
        /// The task's description.
        #[serde(default)]
        pub description: String,
        /// The `tool_use` that started it.
        #[serde(default)]
        pub tool_use_id: Option<String>,
        /// The subagent type.
        #[serde(default)]
        pub subagent_type: Option<String>,
        /// Whether it runs in the background.
        #[serde(default)]
        pub is_backgrounded: Option<bool>,
        /// The parent task, for nested tasks.
        #[serde(default)]
        pub parent_task_id: Option<String>,
        /// The run id.
        #[serde(default)]
        pub run_id: Option<String>,
    }
}

message_struct! {
    /// `system`/`task_progress`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"task_progress","task_id":"a7f3c2e1","description":"Find the flaky test","tool_use_id":"toolu_01","usage":{"total_tokens":18250,"tool_uses":6,"duration_ms":41000},"last_tool_name":"Grep","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::TaskProgress(progress)) = Message::parse(line).unwrap() else { panic!("not task_progress") };
    /// assert_eq!(progress.last_tool_name.as_deref(), Some("Grep"));
    /// let usage: serde_json::Value = serde_json::from_str(progress.usage.as_ref().unwrap().as_str()).unwrap();
    /// assert_eq!(usage["tool_uses"], 6);
    /// ```
    pub struct TaskProgress {
        /// The task id.
        #[serde(default)]
        pub task_id: String,
        /// The task's description.
        #[serde(default)]
        pub description: String,
        /// The `tool_use` that started it.
        #[serde(default)]
        pub tool_use_id: Option<String>,
        /// Usage so far (`{total_tokens, tool_uses, duration_ms}`), as raw JSON.
        #[serde(default)]
        pub usage: Option<Json>,
        /// The last tool the task used.
        #[serde(default)]
        pub last_tool_name: Option<String>,
        /// A progress summary.
        #[serde(default)]
        pub summary: Option<String>,
    }
}

message_struct! {
    /// `system`/`task_updated`: a change to a task's state.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"task_updated","task_id":"b41d","patch":{"status":"running","is_backgrounded":true},"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::TaskUpdated(update)) = Message::parse(line).unwrap() else { panic!("not task_updated") };
    /// assert_eq!(update.task_id, "b41d");
    /// assert_eq!(update.patch.is_backgrounded, Some(true));
    /// ```
    pub struct TaskUpdated {
        /// The task id.
        #[serde(default)]
        pub task_id: String,
        /// The fields that changed (all `None` when the CLI sent something other than an
        /// object; the line keeps it).
        #[serde(default, deserialize_with = "lenient::object_or_default")]
        pub patch: TaskPatch,
    }
}

/// The changed fields of a [`TaskUpdated`]. A field whose value does not fit (a status that is
/// not a string) is `None`, and the others are still read.
///
/// ```
/// use claude_agent_tokio::message::{Message, SystemMessage, TaskPatch};
///
/// /// Apply a patch to the status a host keeps per task: absent fields did not change.
/// fn apply(status: &mut String, patch: &TaskPatch) {
///     if let Some(new) = &patch.status {
///         *status = new.clone();
///     }
/// }
///
/// let line = r#"{"type":"system","subtype":"task_updated","task_id":"b41d","patch":{"status":"failed","error":"exit status 101"},"uuid":"u","session_id":"s"}"#;
/// let Message::System(SystemMessage::TaskUpdated(update)) = Message::parse(line).unwrap() else { panic!("not task_updated") };
/// let mut status = String::from("running");
/// apply(&mut status, &update.patch);
/// assert_eq!((status.as_str(), update.patch.error.as_deref()), ("failed", Some("exit status 101")));
/// assert_eq!(update.patch.description, None);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct TaskPatch {
    /// `pending`, `running`, `completed`, `failed`, `killed` or `paused`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub status: Option<String>,
    /// A new description.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub description: Option<String>,
    /// The error, when the task failed.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub error: Option<String>,
    /// Whether it now runs in the background.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub is_backgrounded: Option<bool>,
}

message_struct! {
    /// `system`/`task_notification`: a task ended.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"task_notification","task_id":"a7f3c2e1","status":"completed","tool_use_id":"toolu_01","output_file":"/tmp/claude/tasks/a7f3c2e1.output","summary":"The test races on a shared temp dir.","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::TaskNotification(done)) = Message::parse(line).unwrap() else { panic!("not task_notification") };
    /// assert_eq!((done.status.as_str(), done.summary.as_str()), ("completed", "The test races on a shared temp dir."));
    /// assert_eq!(done.output_file, "/tmp/claude/tasks/a7f3c2e1.output");
    /// ```
    pub struct TaskNotification {
        /// The task id.
        #[serde(default)]
        pub task_id: String,
        /// `completed`, `failed` or `stopped` (empty when the CLI sent something other than a
        /// string).
        #[serde(default, deserialize_with = "lenient::or_default")]
        pub status: String,
        /// The `tool_use` that started it.
        #[serde(default)]
        pub tool_use_id: Option<String>,
        /// Why it ended.
        #[serde(default)]
        pub reason: Option<String>,
        /// The file holding its output.
        #[serde(default)]
        pub output_file: String,
        /// A summary of the result.
        #[serde(default)]
        pub summary: String,
        /// Usage, as raw JSON.
        #[serde(default)]
        pub usage: Option<Json>,
    }
}

message_struct! {
    /// `system`/`background_tasks_changed`: the complete current list (replaces the previous one).
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"b41d","task_type":"local_bash","description":"npm run dev"},{"task_id":"a7f3c2e1","task_type":"local_agent","description":"Find the flaky test","subagent_type":"general-purpose"}],"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::BackgroundTasksChanged(changed)) = Message::parse(line).unwrap() else { panic!("not background_tasks_changed") };
    /// let running: Vec<_> = changed.tasks.iter().map(|t| t.description.as_str()).collect();
    /// assert_eq!(running, ["npm run dev", "Find the flaky test"]);
    /// ```
    pub struct BackgroundTasksChanged {
        /// The background tasks.
        #[serde(default)]
        pub tasks: Vec<BackgroundTask>,
    }
}

/// One task of [`BackgroundTasksChanged::tasks`].
///
/// ```
/// use claude_agent_tokio::message::{BackgroundTask, Message, SystemMessage};
///
/// fn is_subagent(task: &BackgroundTask) -> bool {
///     task.task_type == "local_agent"
/// }
///
/// let line = r#"{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"b41d","task_type":"local_bash","description":"npm run dev"},{"task_id":"c9e2","task_type":"local_agent","description":"Review the diff","subagent_type":"code-reviewer","parent_task_id":"a7f3c2e1"}],"session_id":"s"}"#;
/// let Message::System(SystemMessage::BackgroundTasksChanged(changed)) = Message::parse(line).unwrap() else { panic!("not background_tasks_changed") };
/// let agents: Vec<_> = changed.tasks.iter().filter(|t| is_subagent(t)).collect();
/// assert_eq!(agents[0].subagent_type.as_deref(), Some("code-reviewer"));
/// assert_eq!(agents[0].parent_task_id.as_deref(), Some("a7f3c2e1"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct BackgroundTask {
    /// The task id.
    #[serde(default)]
    pub task_id: String,
    /// The task type.
    #[serde(default)]
    pub task_type: String,
    /// The task's description.
    #[serde(default)]
    pub description: String,
    /// The subagent type.
    #[serde(default)]
    pub subagent_type: Option<String>,
    /// The parent task, for nested tasks.
    #[serde(default)]
    pub parent_task_id: Option<String>,
}
