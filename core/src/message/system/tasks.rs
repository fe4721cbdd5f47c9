//! `system` messages about background tasks (subagents, background shells, workflows).

use crate::message::raw::message_struct;
use serde::Deserialize;
use serde_json::value::RawValue;

message_struct! {
    /// `system`/`task_started`.
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
        pub usage: Option<Box<RawValue>>,
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
    pub struct TaskUpdated {
        /// The task id.
        #[serde(default)]
        pub task_id: String,
        /// The fields that changed.
        #[serde(default)]
        pub patch: TaskPatch,
    }
}

/// The changed fields of a [`TaskUpdated`].
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct TaskPatch {
    /// `pending`, `running`, `completed`, `failed`, `killed` or `paused`.
    #[serde(default)]
    pub status: Option<String>,
    /// A new description.
    #[serde(default)]
    pub description: Option<String>,
    /// The error, when the task failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Whether it now runs in the background.
    #[serde(default)]
    pub is_backgrounded: Option<bool>,
}

message_struct! {
    /// `system`/`task_notification`: a task ended.
    pub struct TaskNotification {
        /// The task id.
        #[serde(default)]
        pub task_id: String,
        /// `completed`, `failed` or `stopped`.
        #[serde(default)]
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
        pub usage: Option<Box<RawValue>>,
    }
}

message_struct! {
    /// `system`/`background_tasks_changed`: the complete current list (replaces the previous one).
    pub struct BackgroundTasksChanged {
        /// The background tasks.
        #[serde(default)]
        pub tasks: Vec<BackgroundTask>,
    }
}

/// One task of [`BackgroundTasksChanged::tasks`].
#[derive(Debug, Clone, Deserialize)]
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
