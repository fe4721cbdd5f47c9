//! `stream_event` messages: raw Messages API stream events, with `--include-partial-messages`.

use super::lenient;
use super::line_text::{self, LineText};
use super::raw::message_struct;
use super::tags::peek_tags;

message_struct! {
    /// A `stream_event`: one Messages API streaming event (`message_start`, `content_block_delta`, …).
    ///
    /// ```
    /// use claude_agent_core::message::{peek_tags, Message};
    ///
    /// let line = r#"{"type":"stream_event","event":{"type":"message_stop"},"session_id":"s","parent_tool_use_id":null,"uuid":"u"}"#;
    /// let Message::StreamEvent(e) = Message::parse_tagged(line, &peek_tags(line).unwrap()).unwrap() else { panic!() };
    /// assert_eq!(e.event_type(), Some("message_stop"));
    /// assert_eq!(e.event_json(), r#"{"type":"message_stop"}"#);
    /// assert_eq!(e.uuid(), Some("u"));
    /// assert_eq!(e.session_id(), "s");
    /// ```
    pub struct StreamEvent {
        #[serde(deserialize_with = "line_text::json")]
        event: LineText,
        /// The `tool_use` id of the subagent call this belongs to; `None` in the main conversation.
        #[serde(default)]
        pub parent_tool_use_id: Option<String>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        api_message_id: Option<LineText>,
        /// Time to first token, in milliseconds (on `message_start`).
        #[serde(default, deserialize_with = "lenient::optional_whole")]
        pub ttft_ms: Option<u64>,
        /// The `uuid` of the user message being answered, when the host sent one.
        #[serde(default)]
        pub user_message_uuid: Option<String>,
    }
}

impl StreamEvent {
    /// The API stream event (`{"type":"content_block_delta",…}`), as the JSON text the CLI printed.
    pub fn event_json(&self) -> &str {
        self.event.get(self.raw_json())
    }

    /// The event's `type` (`message_start`, `content_block_delta`, …), read without parsing the event.
    pub fn event_type(&self) -> Option<&str> {
        peek_tags(self.event_json()).ok().map(|tags| tags.ty)
    }

    /// The API message id the event belongs to.
    pub fn api_message_id(&self) -> Option<&str> {
        self.line_text(&self.api_message_id)
    }
}
