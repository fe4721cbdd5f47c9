//! `assistant` messages: one per completed content block of a model reply.

use super::content::{self, ContentBlock};
use super::line_text::{self, LineText};
use super::raw::message_struct;
use super::usage::Usage;
use serde::Deserialize;
use serde_json::value::RawValue;

message_struct! {
    /// An `assistant` message.
    ///
    /// The CLI prints one per completed content block; several can share `message.id`. Their `stop_reason`
    /// is usually null and `usage` not final: the result carries the final values.
    ///
    /// ```
    /// use claude_agent_core::message::{peek_tags, ContentBlock, Message};
    ///
    /// let line = r#"{"type":"assistant","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"s"}"#;
    /// let Message::Assistant(a) = Message::parse_tagged(line, &peek_tags(line).unwrap()).unwrap() else { panic!() };
    /// assert!(matches!(&a.message.content[0], ContentBlock::Text(t) if t.text == "hi"));
    /// assert_eq!((a.message_id(), a.model()), (Some("msg_1"), Some("m")));
    /// ```
    pub struct AssistantMessage {
        /// The Messages API message.
        pub message: AssistantBody,
        /// The `tool_use` id of the subagent call this belongs to; `None` in the main conversation.
        #[serde(default)]
        pub parent_tool_use_id: Option<String>,
        /// An error kind (`rate_limit`, `authentication_failed`, `max_output_tokens`, …) when the call failed.
        #[serde(default)]
        pub error: Option<String>,
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
    }
}

/// The Messages API part of an [`AssistantMessage`] (its `id` and `model` are read with
/// [`AssistantMessage::message_id`] and [`AssistantMessage::model`]).
#[derive(Debug, Clone, Deserialize)]
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
    pub context_management: Option<Box<RawValue>>,
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
}
