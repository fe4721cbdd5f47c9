//! `result` messages: the end of a turn.

use super::lenient;
use super::raw::message_struct;
use super::usage::{ModelUsage, Usage};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

message_struct! {
    /// A `result` message: exactly one ends each turn.
    ///
    /// ```
    /// use claude_agent_core::message::{peek_tags, Message};
    ///
    /// let line = r#"{"is_error":false,"num_turns":1,"subtype":"success","result":"done","session_id":"s","type":"result"}"#;
    /// let Message::Result(r) = Message::parse_tagged(line, &peek_tags(line).unwrap()).unwrap() else { panic!() };
    /// assert_eq!((r.subtype.as_str(), r.result.as_deref(), r.is_error), ("success", Some("done"), false));
    /// ```
    pub struct ResultMessage {
        /// `success`, `error_during_execution`, `error_max_turns`, `error_max_budget_usd`,
        /// `error_max_structured_output_retries`, or a newer value.
        pub subtype: String,
        /// Whether the turn failed (also on subtype `success` when the API call failed).
        #[serde(default)]
        pub is_error: bool,
        /// The final text (subtype `success`).
        #[serde(default)]
        pub result: Option<String>,
        /// Error messages (error subtypes).
        #[serde(default)]
        pub errors: Vec<String>,
        /// Why the loop ended (`completed`, `max_turns`, `aborted_tools`, `api_error`, …).
        #[serde(default)]
        pub terminal_reason: Option<String>,
        /// The HTTP status of a failed API call, when `is_error` is set on subtype `success`.
        #[serde(default)]
        pub api_error_status: Option<u16>,
        /// Wall time of the turn, in milliseconds.
        #[serde(default, deserialize_with = "lenient::whole")]
        pub duration_ms: u64,
        /// Time spent in API calls, in milliseconds.
        #[serde(default, deserialize_with = "lenient::whole")]
        pub duration_api_ms: u64,
        /// Model turns taken.
        #[serde(default)]
        pub num_turns: u32,
        /// The final stop reason of the model.
        #[serde(default)]
        pub stop_reason: Option<String>,
        /// Cost in US dollars, cumulative over the query.
        #[serde(default)]
        pub total_cost_usd: Option<f64>,
        /// Usage of the main loop in this turn.
        #[serde(default)]
        pub usage: Option<Usage>,
        /// Cumulative usage per model (`modelUsage`).
        #[serde(default, rename = "modelUsage")]
        pub model_usage: BTreeMap<String, ModelUsage>,
        /// Tool calls that were denied.
        #[serde(default)]
        pub permission_denials: Vec<PermissionDenial>,
        /// The structured output (with an output format), as raw JSON.
        #[serde(default)]
        pub structured_output: Option<Box<RawValue>>,
        /// A tool call a PreToolUse hook deferred.
        #[serde(default)]
        pub deferred_tool_use: Option<DeferredToolUse>,
        /// User messages still queued behind this turn.
        #[serde(default)]
        pub queued_turn_count: Option<u32>,
        /// Index of this result within the query.
        #[serde(default)]
        pub result_index: Option<u32>,
        /// Time to first token, in milliseconds.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub ttft_ms: Option<u64>,
        /// `on`, `off` or `cooldown`.
        #[serde(default)]
        pub fast_mode_state: Option<String>,
        /// Why fast mode is off.
        #[serde(default)]
        pub fast_mode_disabled_reason: Option<String>,
        /// The `uuid` of the user message this turn answered.
        #[serde(default)]
        pub user_message_uuid: Option<String>,
        /// The `uuid`s of the user messages this turn answered.
        #[serde(default)]
        pub user_message_uuids: Option<Vec<String>>,
        /// Why the CLI could not start (error subtypes).
        #[serde(default)]
        pub startup_failure_reason: Option<String>,
        /// Where the turn came from, as raw JSON.
        #[serde(default)]
        pub origin: Option<Box<RawValue>>,
    }
}

/// One denied tool call of a result.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PermissionDenial {
    /// The tool name.
    #[serde(default)]
    pub tool_name: String,
    /// The tool-use id.
    #[serde(default)]
    pub tool_use_id: String,
    /// The input that was denied, as raw JSON.
    #[serde(default)]
    pub tool_input: Option<Box<RawValue>>,
}

/// A tool call deferred by a PreToolUse hook.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct DeferredToolUse {
    /// The tool-use id.
    #[serde(default)]
    pub id: String,
    /// The tool name.
    #[serde(default)]
    pub name: String,
    /// The tool input, as raw JSON.
    #[serde(default)]
    pub input: Option<Box<RawValue>>,
}
