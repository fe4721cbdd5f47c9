//! The smaller top-level message types: rate limits, tool progress, summaries, login, suggestions,
//! resets and the lifecycle of queued prompts.

use super::raw::message_struct;
use serde::Deserialize;

message_struct! {
    /// A `rate_limit_event`: the account's rate-limit state changed.
    pub struct RateLimitEvent {
        /// The rate-limit state.
        #[serde(default)]
        pub rate_limit_info: RateLimitInfo,
    }
}

/// The `rate_limit_info` of a [`RateLimitEvent`].
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RateLimitInfo {
    /// `allowed`, `allowed_warning` or `rejected`.
    #[serde(default)]
    pub status: String,
    /// When the limit resets (Unix seconds).
    #[serde(default)]
    pub resets_at: Option<f64>,
    /// `five_hour`, `seven_day`, `seven_day_opus`, `seven_day_sonnet`, `overage`, …
    #[serde(default)]
    pub rate_limit_type: Option<String>,
    /// Fraction of the limit used.
    #[serde(default)]
    pub utilization: Option<f64>,
    /// The overage state.
    #[serde(default)]
    pub overage_status: Option<String>,
    /// When the overage limit resets (Unix seconds).
    #[serde(default)]
    pub overage_resets_at: Option<f64>,
    /// Why overage is disabled.
    #[serde(default)]
    pub overage_disabled_reason: Option<String>,
    /// Whether overage is in use.
    #[serde(default)]
    pub is_using_overage: Option<bool>,
}

message_struct! {
    /// A `tool_progress` heartbeat of a long-running tool.
    pub struct ToolProgress {
        /// The tool-use id.
        #[serde(default)]
        pub tool_use_id: String,
        /// The tool name.
        #[serde(default)]
        pub tool_name: String,
        /// The subagent call this belongs to.
        #[serde(default)]
        pub parent_tool_use_id: Option<String>,
        /// Seconds since the tool started.
        #[serde(default)]
        pub elapsed_time_seconds: f64,
        /// The background task, if any.
        #[serde(default)]
        pub task_id: Option<String>,
    }
}

message_struct! {
    /// A `tool_use_summary`: a short summary of earlier tool calls.
    pub struct ToolUseSummary {
        /// The summary text.
        #[serde(default)]
        pub summary: String,
        /// The tool-use ids it summarizes.
        #[serde(default)]
        pub preceding_tool_use_ids: Vec<String>,
    }
}

message_struct! {
    /// An `auth_status` update during login.
    pub struct AuthStatus {
        /// Whether authentication is in progress (`isAuthenticating`).
        #[serde(default, rename = "isAuthenticating")]
        pub is_authenticating: bool,
        /// Output lines of the login flow.
        #[serde(default)]
        pub output: Vec<String>,
        /// The error, if login failed.
        #[serde(default)]
        pub error: Option<String>,
    }
}

message_struct! {
    /// A `prompt_suggestion` sent after a result (when prompt suggestions are on).
    pub struct PromptSuggestion {
        /// The suggested next prompt.
        #[serde(default)]
        pub suggestion: String,
    }
}

message_struct! {
    /// A `conversation_reset`: the conversation was cleared or replaced.
    pub struct ConversationReset {
        /// The id of the new conversation.
        #[serde(default)]
        pub new_conversation_id: String,
        /// `clear`, `plan_mode_exit`, `fresh_session` or `onboarding`.
        #[serde(default)]
        pub trigger: Option<String>,
        /// The user message that caused it.
        #[serde(default)]
        pub user_message_uuid: Option<String>,
        /// When it happened (ISO 8601).
        #[serde(default)]
        pub timestamp: Option<String>,
    }
}

message_struct! {
    /// A `command_lifecycle` frame: what became of a user message the host sent with an id.
    ///
    /// The CLI sends these for user messages that carry a `uuid` ([`UserInput::with_uuid`]), and
    /// for prompts it queues itself (scheduled tasks) under ids of its own: `queued` when the message enters the CLI's queue, `started` when a turn takes it up, then
    /// one final state: `completed` (the turn that took it ended; for a message that started its
    /// own turn this comes after the turn's result), `cancelled` (withdrawn, swept away by an
    /// interrupt, or its turn was interrupted or failed), `discarded` (the session ended while it
    /// was still queued) or `refused` (the session would not take it; no `queued` before it).
    /// The sequence is not strict: a final state can come without `started`, and a message put
    /// back by an interrupt is reported `queued` again.
    ///
    /// ```
    /// use claude_agent_core::message::Message;
    ///
    /// let line = r#"{"type":"command_lifecycle","command_uuid":"msg-1","state":"completed","uuid":"u","session_id":"s"}"#;
    /// let Message::CommandLifecycle(lifecycle) = Message::parse(line).unwrap() else {
    ///     panic!("not a command_lifecycle")
    /// };
    /// assert_eq!((lifecycle.command_uuid.as_str(), lifecycle.state.as_str()), ("msg-1", "completed"));
    /// ```
    ///
    /// [`UserInput::with_uuid`]: super::UserInput::with_uuid
    pub struct CommandLifecycle {
        /// The `uuid` the host gave the user message (or the CLI gave a prompt it queued itself).
        #[serde(default)]
        pub command_uuid: String,
        /// `queued`, `started`, `completed`, `cancelled`, `discarded`, `refused`, or a state newer
        /// than this list.
        #[serde(default)]
        pub state: String,
        /// On `started`, when a scheduled wake-up (not the host) sent the message:
        /// `loop_wakeup` (a wake-up the model scheduled for itself) or `schedule_wakeup` (any other
        /// scheduled task).
        #[serde(default)]
        pub wakeup_source: Option<String>,
        /// Beside `loop_wakeup`: when the wake-up was set for, in Unix milliseconds.
        #[serde(default, deserialize_with = "crate::message::lenient::optional_whole")]
        pub scheduled_for: Option<u64>,
    }
}
