//! `result` messages: the end of a turn.

use super::lenient;
use super::raw::message_struct;
use super::startup_failure::{InvalidConfigFile, StartupFailureReason};
use super::usage::{ModelUsage, Usage};
use crate::Json;
use serde::Deserialize;
use std::collections::BTreeMap;

message_struct! {
    /// A `result` message: exactly one ends each turn.
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"duration_api_ms":34,"stop_reason":"end_turn","session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65","total_cost_usd":0.000188,"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":7},"modelUsage":{"claude-opus-5-5":{"inputTokens":12,"outputTokens":7,"costUSD":0.000188,"contextWindow":1000000}},"permission_denials":[],"terminal_reason":"completed","is_error":false,"num_turns":1,"subtype":"success","result":"echo: hello there","ttft_ms":148,"duration_ms":180,"uuid":"e3c5a1f0-4c8b-4f0e-9d2a-7b6c5d4e3f21","type":"result"}"#;
    /// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
    /// assert_eq!((result.subtype.as_str(), result.is_error), ("success", false));
    /// assert_eq!(result.result.as_deref(), Some("echo: hello there"));
    /// assert_eq!((result.num_turns, result.duration_ms, result.ttft_ms), (1, 180, Some(148)));
    /// assert_eq!(result.total_cost_usd, Some(0.000188));
    /// assert_eq!(result.model_usage["claude-opus-5-5"].output_tokens, 7);
    /// assert_eq!(result.session_id(), "46eb1b6d-8361-4d7c-a347-8234db4a9d65");
    /// ```
    ///
    /// A failed turn has an error subtype and its messages in `errors`:
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3,"errors":["Reached maximum number of turns (3)"],"terminal_reason":"max_turns","session_id":"s"}"#;
    /// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
    /// assert!(result.is_error && result.result.is_none());
    /// assert_eq!(result.errors, ["Reached maximum number of turns (3)"]);
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
        /// Error messages (error subtypes), trimmed. Blank entries and entries that are not
        /// strings are left out, and a single string counts as one entry. The CLI's internal
        /// diagnostics of an interrupted turn (entries starting `[ede_diagnostic]`) are left out
        /// too, as the CLI's own interfaces leave them out: they say nothing a user can act on.
        /// The line keeps all of them as sent ([`raw_json`](Self::raw_json)).
        #[serde(default, deserialize_with = "lenient::result_errors")]
        pub errors: Vec<String>,
        /// Why the loop ended (`completed`, `max_turns`, `aborted_tools`, `api_error`, …).
        #[serde(default)]
        pub terminal_reason: Option<String>,
        /// The HTTP status of a failed API call, when `is_error` is set on subtype `success`
        /// (a number, or a string of digits such as `"500"`; anything else is `None`).
        #[serde(default, deserialize_with = "lenient::http_status")]
        pub api_error_status: Option<u16>,
        /// The API's error type of a failed API call (`invalid_request_error`, …).
        #[serde(default)]
        pub api_error_type: Option<String>,
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
        /// Cost in US dollars of the whole session so far, not of this turn: the CLI adds each
        /// turn to it (a `Client` session of two turns reports the first turn's cost, then the
        /// sum of both). The cost of a turn is this figure minus the previous result's.
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
        pub structured_output: Option<Json>,
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
        // The CLI's timing of the turn's first request, for its own telemetry: milliseconds
        // from the turn's start unless a field says otherwise, each sent when measured.
        /// Time to the first token of the stream.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub ttft_stream_ms: Option<u64>,
        /// Time until the request was sent.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub time_to_request_ms: Option<u64>,
        /// Time until the request was sent, from the CLI process's start.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub time_to_request_from_spawn_ms: Option<u64>,
        /// When the request was sent (Unix milliseconds).
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub request_sent_wall_ms: Option<u64>,
        /// Time to the first frame with content.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_content_frame_ms: Option<u64>,
        /// Time to the first stream frame posted to a remote client.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_stream_post_ms: Option<u64>,
        /// Time until that post was acknowledged.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_stream_post_ack_ms: Option<u64>,
        /// How long that post waited in the queue.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_stream_post_queue_wait_ms: Option<u64>,
        /// What it waited behind: `durable_post`, `ephemeral_post`, `retry_backoff`, `hold` or
        /// `none`.
        #[serde(default)]
        pub first_stream_post_queued_behind: Option<String>,
        /// When it was posted (Unix milliseconds).
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_stream_post_wall_ms: Option<u64>,
        /// Time to the first text posted to a remote client.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_text_post_ms: Option<u64>,
        /// How long that post waited in the queue.
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_text_post_queue_wait_ms: Option<u64>,
        /// What it waited behind (as `first_stream_post_queued_behind`).
        #[serde(default)]
        pub first_text_post_queued_behind: Option<String>,
        /// When it was posted (Unix milliseconds).
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub first_text_post_wall_ms: Option<u64>,
        /// The process's time origin the other figures count from (Unix milliseconds).
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub time_origin_ms: Option<u64>,
        /// Why this turn continued one that a restart of its worker interrupted: the host's
        /// `CLAUDE_CODE_RESUME_REASON` (`host_draining`, `checkpoint_restore`, …), else
        /// `interrupted_turn`.
        #[serde(default)]
        pub resume_reason: Option<String>,
        /// The local slash command this result answers (`/cost`, `/context`, …), when the
        /// turn ran one instead of the model.
        #[serde(default)]
        pub local_command: Option<String>,
        /// When the claude.ai login this process's requests use ends for good (ISO 8601).
        #[serde(default)]
        pub credential_expires_at: Option<String>,
        /// Whether the turn ran in a CLI started ahead of time and claimed for it.
        #[serde(default)]
        pub warm_spare_claimed: Option<bool>,
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
        /// Why the CLI refused to start, on the error result it writes before exiting.
        #[serde(default)]
        pub startup_failure_reason: Option<StartupFailureReason>,
        /// The configuration file that did not parse, when the reason is
        /// [`ConfigFileInvalid`](StartupFailureReason::ConfigFileInvalid).
        #[serde(default)]
        pub invalid_config_file: Option<InvalidConfigFile>,
        /// Where the turn came from, as raw JSON.
        #[serde(default)]
        pub origin: Option<Json>,
        /// What this turn cost, worked out by the session that read the result from the CLI's
        /// running totals (and its price table); `None` for a result parsed on its own
        /// ([`Message::parse`](crate::message::Message::parse)).
        #[serde(skip)]
        pub turn_cost: Option<crate::cost::TurnCost>,
    }
}

impl ResultMessage {
    /// Whether an interrupt ended the turn (`Client::interrupt`, or a stall watch's): the CLI
    /// reports it as an error result (`error_during_execution`), and this tells it from a turn
    /// that failed. `terminal_reason` is `aborted_streaming` (interrupted while the model
    /// wrote) or `aborted_tools` (while tools ran).
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_tools","session_id":"s"}"#;
    /// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
    /// assert!(result.is_error && result.was_interrupted());
    /// ```
    pub fn was_interrupted(&self) -> bool {
        matches!(
            self.terminal_reason.as_deref(),
            Some("aborted_streaming" | "aborted_tools")
        )
    }
}

/// One denied tool call of a result.
///
/// ```
/// use claude_agent_tokio::message::Message;
///
/// let line = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"I could not run that command.","permission_denials":[{"tool_name":"Bash","tool_use_id":"toolu_fake_4_1","tool_input":{"command":"rm -rf build","description":"clean"}}],"session_id":"s"}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// for denial in &result.permission_denials {
///     println!("denied {} ({})", denial.tool_name, denial.tool_use_id);
/// }
/// assert_eq!(result.permission_denials[0].tool_name, "Bash");
/// assert!(result.permission_denials[0].tool_input.as_ref().unwrap().as_str().contains("rm -rf build"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    pub tool_input: Option<Json>,
}

/// A tool call deferred by a PreToolUse hook.
///
/// ```
/// use claude_agent_tokio::message::Message;
///
/// let line = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"deferred_tool_use":{"id":"toolu_01","name":"Write","input":{"file_path":"/tmp/ws/notes.md","content":"…"}},"session_id":"s"}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// let deferred = result.deferred_tool_use.as_ref().unwrap();
/// assert_eq!((deferred.id.as_str(), deferred.name.as_str()), ("toolu_01", "Write"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    pub input: Option<Json>,
}
