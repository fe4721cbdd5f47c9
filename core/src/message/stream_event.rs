//! `stream_event` messages: raw Messages API stream events, with `--include-partial-messages`.

use super::lenient;
use super::line_text::{self, LineText};
use super::raw::message_struct;
use super::tags::peek_tags;

message_struct! {
    /// A `stream_event`: one Messages API streaming event (`message_start`, `content_block_delta`, …).
    ///
    /// A host printing text as it streams reads the `text_delta`s of `content_block_delta` events:
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"echo: "}},"session_id":"f89550ef-8444-4a3f-9393-f1d96094a371","parent_tool_use_id":null,"uuid":"42e42cc2-32e4-4363-b30b-f687ce9cc52a","api_message_id":"msg_fake_39"}"#;
    /// let Message::StreamEvent(event) = Message::parse(line).unwrap() else { panic!("not a stream_event") };
    /// assert_eq!(event.event_type(), Some("content_block_delta"));
    /// assert_eq!(event.api_message_id(), Some("msg_fake_39"));
    /// assert_eq!(event.uuid(), Some("42e42cc2-32e4-4363-b30b-f687ce9cc52a"));
    /// assert_eq!(event.session_id(), "f89550ef-8444-4a3f-9393-f1d96094a371");
    ///
    /// let delta: serde_json::Value = serde_json::from_str(event.event_json()).unwrap();
    /// if delta["delta"]["type"] == "text_delta" {
    ///     print!("{}", delta["delta"]["text"].as_str().unwrap_or(""));
    /// }
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
