//! `assistant` messages: one per completed content block of a model reply.

use super::api_error::ApiError;
use super::content::{self, ContentBlock};
use super::context_usage::ContextUsage;
use super::line_text::{self, LineText};
use super::raw::message_struct;
use super::usage::Usage;
use crate::Json;
use serde::Deserialize;

message_struct! {
    /// An `assistant` message.
    ///
    /// The CLI prints one per completed content block; several can share `message.id`. Their `stop_reason`
    /// is usually null and `usage` not final: the result carries the final values.
    ///
    /// ```
    /// use claude_agent_tokio::message::{ContentBlock, Message};
    ///
    /// let line = r#"{"type":"assistant","message":{"id":"msg_fake_2","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_fake_2_1","name":"Bash","input":{"command":"echo hi-from-bash","description":"run"}}],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":7}},"parent_tool_use_id":null,"session_id":"47f3a484-bb4d-4a95-b2ae-5a6250e26911","uuid":"3574dbb8-35bd-4cc5-8004-9b203dfe29ea","timestamp":"2026-11-22T03:17:40.217Z"}"#;
    /// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not an assistant message") };
    /// assert_eq!(reply.message_id(), Some("msg_fake_2"));
    /// assert_eq!(reply.model(), Some("claude-opus-5-5"));
    /// assert_eq!(reply.timestamp(), Some("2026-11-22T03:17:40.217Z"));
    /// assert_eq!(reply.request_id(), None);
    /// assert_eq!(reply.uuid(), Some("3574dbb8-35bd-4cc5-8004-9b203dfe29ea"));
    /// assert_eq!(reply.session_id(), "47f3a484-bb4d-4a95-b2ae-5a6250e26911");
    /// assert_eq!(reply.parent_tool_use_id, None); // the main conversation, not a subagent
    ///
    /// let ContentBlock::ToolUse(call) = &reply.message.content[0] else { panic!("not a tool call") };
    /// assert_eq!((call.id.as_str(), call.name.as_str()), ("toolu_fake_2_1", "Bash"));
    /// ```
    pub struct AssistantMessage {
        /// The Messages API message.
        pub message: AssistantBody,
        /// The `tool_use` id of the subagent call this belongs to; `None` in the main conversation.
        #[serde(default)]
        pub parent_tool_use_id: Option<String>,
        /// How the CLI classified the failed API call this message stands in for.
        #[serde(default)]
        pub error: Option<ApiError>,
        /// Whether this is the CLI's synthetic message for a failed API call (its text is the
        /// error), not the model's reply.
        #[serde(default)]
        pub is_api_error_message: bool,
        /// The HTTP status of the failed API call.
        #[serde(default)]
        pub api_error_status: Option<u16>,
        /// The API's error type (`rate_limit_error`, `overloaded_error`, …).
        #[serde(default)]
        pub api_error_type: Option<String>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        timestamp: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        request_id: Option<LineText>,
        /// The `uuid` of the user message this answers, when the host sent one.
        #[serde(default)]
        pub user_message_uuid: Option<String>,
        /// The `uuid`s of the user messages this answers, when several were batched.
        #[serde(default)]
        pub user_message_uuids: Option<Vec<String>>,
        /// The subagent that produced this message.
        #[serde(default)]
        pub agent_id: Option<String>,
        /// The subagent's type.
        #[serde(default)]
        pub subagent_type: Option<String>,
        /// Set when the reply was aborted.
        #[serde(default)]
        pub aborted: Option<bool>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        resume_reason: Option<LineText>,
        /// Set when this turn continued the one before, cut off at its output limit, inside its
        /// last thinking block: a history replayed to the CLI must carry it back.
        #[serde(default)]
        pub resumed_from_incomplete_thinking: Option<bool>,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        supersedes: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        task_description: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        context_usage: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        usage_report: Option<LineText>,
    }
}

/// The Messages API part of an [`AssistantMessage`] (its `id` and `model` are read with
/// [`AssistantMessage::message_id`] and [`AssistantMessage::model`]).
///
/// ```
/// use claude_agent_tokio::message::{ContentBlock, Message};
///
/// let line = r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"echo: hello there"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"context_management":null},"parent_tool_use_id":null,"session_id":"s"}"#;
/// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not an assistant message") };
/// let body = &reply.message;
/// assert!(matches!(&body.content[..], [ContentBlock::Text(t)] if t.text == "echo: hello there"));
/// assert_eq!(body.stop_reason.as_deref(), Some("end_turn"));
/// assert_eq!(body.usage.as_ref().map(|u| u.output_tokens), Some(7));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct AssistantBody {
    #[serde(default, deserialize_with = "line_text::optional_str")]
    id: Option<LineText>,
    #[serde(default, deserialize_with = "line_text::optional_str")]
    model: Option<LineText>,
    /// The content blocks (usually one per frame).
    #[serde(default, deserialize_with = "content::block_list")]
    pub content: Vec<ContentBlock>,
    /// Why the model stopped; usually null on these frames.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// The stop sequence that matched.
    #[serde(default)]
    pub stop_sequence: Option<String>,
    /// Token usage (not final on intermediate frames).
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Context management details, as raw JSON.
    #[serde(default)]
    pub context_management: Option<Json>,
}

/// In its message, the body prints its id and model as their text.
impl line_text::PrintInLine for line_text::InLine<'_, AssistantBody> {
    fn printed(&self) -> &dyn std::fmt::Debug {
        self
    }
}

impl std::fmt::Debug for line_text::InLine<'_, AssistantBody> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (body, line) = (self.0, self.1);
        f.debug_struct("AssistantBody")
            .field("id", &line_text::InLine(&body.id, line))
            .field("model", &line_text::InLine(&body.model, line))
            .field("content", &body.content)
            .field("stop_reason", &body.stop_reason)
            .field("stop_sequence", &body.stop_sequence)
            .field("usage", &body.usage)
            .field("context_management", &body.context_management)
            .finish()
    }
}

impl AssistantMessage {
    /// The API message id (`message.id`, shared by the frames of one reply).
    pub fn message_id(&self) -> Option<&str> {
        self.line_text(&self.message.id)
    }

    /// The model that replied (`message.model`).
    pub fn model(&self) -> Option<&str> {
        self.line_text(&self.message.model)
    }

    /// When the CLI produced it (ISO 8601).
    pub fn timestamp(&self) -> Option<&str> {
        self.line_text(&self.timestamp)
    }

    /// The API request id.
    pub fn request_id(&self) -> Option<&str> {
        self.line_text(&self.request_id)
    }

    /// Why this message's turn continues one that a restart of its worker interrupted (as
    /// [`ResultMessage::resume_reason`](crate::message::ResultMessage::resume_reason)).
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"assistant","message":{"content":[]},"resume_reason":"host_draining","session_id":"s"}"#;
    /// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not an assistant message") };
    /// assert_eq!(reply.resume_reason(), Some("host_draining"));
    /// ```
    pub fn resume_reason(&self) -> Option<&str> {
        self.line_text(&self.resume_reason)
    }

    /// The `uuid`s of earlier messages this one replaces (after a refusal fallback, or a reply
    /// whose tool call did not parse): remove them when this one arrives. Read from the line on
    /// each call (it is rare).
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"assistant","message":{"content":[]},"supersedes":["u-4"],"session_id":"s"}"#;
    /// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not an assistant message") };
    /// let mut shown = vec!["u-3".to_owned(), "u-4".to_owned()];
    /// shown.retain(|uuid| !reply.supersedes().contains(uuid));
    /// assert_eq!(shown, ["u-3"]);
    /// ```
    pub fn supersedes(&self) -> Vec<String> {
        self.line_text(&self.supersedes)
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default()
    }

    /// The description of the subagent task that produced this message.
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"assistant","message":{"content":[]},"parent_tool_use_id":"toolu_1","task_description":"Review the diff","session_id":"s"}"#;
    /// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not an assistant message") };
    /// assert_eq!(reply.task_description(), Some("Review the diff"));
    /// ```
    pub fn task_description(&self) -> Option<&str> {
        self.line_text(&self.task_description)
    }

    /// The `/context` report as data, on the message that carries its table: what the
    /// `get_context_usage` control request answers with. Read from the line on each call;
    /// `None` when the message has none, or it does not read as one.
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"assistant","message":{"content":[]},"session_id":"s","context_usage":{"model":"m","total_tokens":2100,"raw_max_tokens":200000,"percentage":1.05,"categories":[]}}"#;
    /// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not an assistant message") };
    /// assert_eq!(reply.context_usage().map(|usage| usage.total_tokens), Some(2100));
    /// ```
    pub fn context_usage(&self) -> Option<ContextUsage> {
        serde_json::from_str(self.line_text(&self.context_usage)?).ok()
    }

    /// The `/usage` report as data, as JSON text (claude.ai subscribers): the CLI marks its
    /// shape experimental.
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"assistant","message":{"content":[]},"session_id":"s","usage_report":{"session":{"total_cost_usd":0.5}}}"#;
    /// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not an assistant message") };
    /// assert!(reply.usage_report().is_some_and(|json| json.contains("total_cost_usd")));
    /// ```
    pub fn usage_report(&self) -> Option<&str> {
        self.line_text(&self.usage_report)
    }
}
