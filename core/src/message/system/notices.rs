//! `system` messages that inform the user: notifications, command output, refusals, denials.

use crate::message::raw::message_struct;
use serde_json::value::RawValue;

message_struct! {
    /// `system`/`notification`.
    pub struct Notification {
        /// A key identifying the notification.
        #[serde(default)]
        pub key: String,
        /// The text.
        #[serde(default)]
        pub text: String,
        /// `low`, `medium`, `high` or `immediate`.
        #[serde(default)]
        pub priority: Option<String>,
        /// How long to show it, in milliseconds.
        #[serde(default, deserialize_with = "crate::message::lenient::optional_whole")]
        pub timeout_ms: Option<u64>,
    }
}

message_struct! {
    /// `system`/`informational`.
    pub struct Informational {
        /// The text.
        #[serde(default)]
        pub content: String,
        /// `info`, `notice`, `suggestion` or `warning`.
        #[serde(default)]
        pub level: Option<String>,
        /// The related tool call.
        #[serde(default)]
        pub tool_use_id: Option<String>,
        /// Whether the turn stops after this.
        #[serde(default)]
        pub prevent_continuation: Option<bool>,
    }
}

message_struct! {
    /// `system`/`local_command_output`: output of a local slash command.
    pub struct LocalCommandOutput {
        /// The output.
        #[serde(default)]
        pub content: String,
    }
}

message_struct! {
    /// `system`/`memory_recall`.
    pub struct MemoryRecall {
        /// `select` or `synthesize`.
        #[serde(default)]
        pub mode: String,
        /// `[{path, scope, content?}]`, as raw JSON.
        #[serde(default)]
        pub memories: Option<Box<RawValue>>,
    }
}

message_struct! {
    /// `system`/`elicitation_complete`: an MCP elicitation finished.
    pub struct ElicitationComplete {
        /// The MCP server.
        #[serde(default)]
        pub mcp_server_name: String,
        /// The elicitation id.
        #[serde(default)]
        pub elicitation_id: String,
    }
}

message_struct! {
    /// `system`/`permission_denied`: a tool call was denied.
    pub struct PermissionDenied {
        /// The tool.
        #[serde(default)]
        pub tool_name: String,
        /// The tool-use id.
        #[serde(default)]
        pub tool_use_id: String,
        /// The explanation.
        #[serde(default)]
        pub message: String,
        /// The kind of decision that denied it.
        #[serde(default)]
        pub decision_reason_type: Option<String>,
        /// Why it was denied.
        #[serde(default)]
        pub decision_reason: Option<String>,
        /// The subagent that made the call.
        #[serde(default)]
        pub agent_id: Option<String>,
    }
}

message_struct! {
    /// `system`/`model_refusal_fallback`: the model refused and another model was used.
    pub struct ModelRefusalFallback {
        /// `retry`, `revert` or `sticky`.
        #[serde(default)]
        pub direction: Option<String>,
        /// The model that refused.
        #[serde(default)]
        pub original_model: String,
        /// The model used instead.
        #[serde(default)]
        pub fallback_model: String,
        /// The API request id.
        #[serde(default)]
        pub request_id: Option<String>,
        /// The refusal category.
        #[serde(default)]
        pub api_refusal_category: Option<String>,
        /// The text shown to the user.
        #[serde(default)]
        pub content: String,
    }
}

message_struct! {
    /// `system`/`model_refusal_no_fallback`: the model refused and no fallback was available.
    pub struct ModelRefusalNoFallback {
        /// The model that refused.
        #[serde(default)]
        pub original_model: String,
        /// The API request id.
        #[serde(default)]
        pub request_id: Option<String>,
        /// The refusal category.
        #[serde(default)]
        pub api_refusal_category: Option<String>,
        /// The text shown to the user.
        #[serde(default)]
        pub content: String,
    }
}
