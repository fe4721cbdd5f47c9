//! The smaller top-level message types: rate limits, tool progress, summaries, login, suggestions,
//! resets and the lifecycle of queued prompts.

use super::raw::message_struct;
use serde::Deserialize;

message_struct! {
    /// A `rate_limit_event`: the account's rate-limit state changed.
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1763780400,"rateLimitType":"five_hour","utilization":0.91,"isUsingOverage":false},"uuid":"5a0f0a9e-2b7c-4d55-8e7e-0f1c9a8b7d61","session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65"}"#;
    /// let Message::RateLimit(event) = Message::parse(line).unwrap() else { panic!("not a rate_limit_event") };
    /// let info = &event.rate_limit_info;
    /// if info.status == "allowed_warning" {
    ///     let used = info.utilization.unwrap_or(0.0) * 100.0;
    ///     println!("{used:.0}% of the {} limit used", info.rate_limit_type.as_deref().unwrap_or("?"));
    /// }
    /// assert_eq!(info.resets_at, Some(1763780400.0));
    /// ```
    pub struct RateLimitEvent {
        /// The rate-limit state.
        #[serde(default)]
        pub rate_limit_info: RateLimitInfo,
    }
}

/// The `rate_limit_info` of a [`RateLimitEvent`].
///
/// ```
/// use claude_agent_tokio::message::{Message, RateLimitInfo};
///
/// fn rejected_until(info: &RateLimitInfo) -> Option<f64> {
///     (info.status == "rejected").then_some(info.resets_at).flatten()
/// }
///
/// let line = r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1763780400,"rateLimitType":"seven_day","overageStatus":"rejected","overageDisabledReason":"out_of_credits"},"session_id":"s"}"#;
/// let Message::RateLimit(event) = Message::parse(line).unwrap() else { panic!("not a rate_limit_event") };
/// assert_eq!(rejected_until(&event.rate_limit_info), Some(1763780400.0));
/// assert_eq!(event.rate_limit_info.overage_disabled_reason.as_deref(), Some("out_of_credits"));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
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
    /// Whether overage is being drawn on now.
    #[serde(default)]
    pub overage_in_use: Option<bool>,
    /// Whether overage is enabled for the account.
    #[serde(default)]
    pub overage_enabled: Option<bool>,
    /// The warning threshold (a fraction of the limit) that was passed.
    #[serde(default)]
    pub surpassed_threshold: Option<f64>,
    /// Which spend limit blocked the request when it is not the member's own cap: `service`,
    /// `channel`, or `group_pool` (a pooled budget of the member's group is used up).
    #[serde(default)]
    pub limit_scope: Option<String>,
    /// A machine-readable reason: `credits_required`.
    #[serde(default)]
    pub error_code: Option<String>,
    /// Whether the user can buy more credits.
    #[serde(default)]
    pub can_user_purchase_credits: Option<bool>,
    /// Whether the account has a saved payment method that can be charged.
    #[serde(default)]
    pub has_chargeable_saved_payment_method: Option<bool>,
}

message_struct! {
    /// A `tool_progress` heartbeat of a long-running tool.
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"tool_progress","tool_use_id":"toolu_01","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":12.5,"uuid":"u","session_id":"s"}"#;
    /// let Message::ToolProgress(progress) = Message::parse(line).unwrap() else { panic!("not a tool_progress") };
    /// assert_eq!(format!("{} running for {}s", progress.tool_name, progress.elapsed_time_seconds), "Bash running for 12.5s");
    /// assert_eq!(progress.task_id, None);
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"tool_use_summary","summary":"Listed the repository and read Cargo.toml","preceding_tool_use_ids":["toolu_01","toolu_02"],"uuid":"u","session_id":"s"}"#;
    /// let Message::ToolUseSummary(summary) = Message::parse(line).unwrap() else { panic!("not a tool_use_summary") };
    /// assert_eq!(summary.summary, "Listed the repository and read Cargo.toml");
    /// assert_eq!(summary.preceding_tool_use_ids, ["toolu_01", "toolu_02"]);
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"auth_status","isAuthenticating":true,"output":["Opening browser to sign in…"],"uuid":"u","session_id":"s"}"#;
    /// let Message::AuthStatus(status) = Message::parse(line).unwrap() else { panic!("not an auth_status") };
    /// assert!(status.is_authenticating);
    /// assert_eq!(status.output, ["Opening browser to sign in…"]);
    /// assert_eq!(status.error, None);
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"prompt_suggestion","suggestion":"Run the tests again","uuid":"u","session_id":"s"}"#;
    /// let Message::PromptSuggestion(next) = Message::parse(line).unwrap() else { panic!("not a prompt_suggestion") };
    /// assert_eq!(next.suggestion, "Run the tests again");
    /// ```
    pub struct PromptSuggestion {
        /// The suggested next prompt.
        #[serde(default)]
        pub suggestion: String,
    }
}

message_struct! {
    /// A `conversation_reset`: the conversation was cleared or replaced.
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"conversation_reset","new_conversation_id":"c0a8f4de-0d2f-4a5e-9a43-1d1e4f7b9c20","trigger":"clear","timestamp":"2026-11-22T03:20:16.485Z","uuid":"u","session_id":"s"}"#;
    /// let Message::ConversationReset(reset) = Message::parse(line).unwrap() else { panic!("not a conversation_reset") };
    /// assert_eq!(reset.trigger.as_deref(), Some("clear"));
    /// assert_eq!(reset.new_conversation_id, "c0a8f4de-0d2f-4a5e-9a43-1d1e4f7b9c20");
    /// ```
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
    /// use claude_agent_tokio::message::Message;
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
