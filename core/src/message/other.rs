//! The smaller top-level message types of PROTOCOL-REFERENCE §2.5.

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
