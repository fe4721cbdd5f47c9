//! `user` messages the CLI prints: tool results, and replays of stdin messages.

use super::content::MessageContent;
use super::line_text::{self, LineText};
use super::raw::message_struct;
use serde::{Deserialize, Deserializer};

message_struct! {
    /// A `user` message printed by the CLI, mostly to carry `tool_result` blocks.
    ///
    /// ```
    /// use claude_agent_core::message::{peek_tags, ContentBlock, Message, MessageContent};
    ///
    /// let line = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"}]},"parent_tool_use_id":null,"session_id":"s"}"#;
    /// let Message::User(u) = Message::parse_tagged(line, &peek_tags(line).unwrap()).unwrap() else { panic!() };
    /// let MessageContent::Blocks(blocks) = &u.content else { panic!() };
    /// assert!(matches!(&blocks[0], ContentBlock::ToolResult(r) if r.tool_use_id == "t1"));
    /// ```
    pub struct UserMessage {
        /// `message.content`: a string or content blocks.
        #[serde(rename = "message", deserialize_with = "content_of_message")]
        pub content: MessageContent,
        /// The `tool_use` id of the subagent call this belongs to; `None` in the main conversation.
        #[serde(default)]
        pub parent_tool_use_id: Option<String>,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        tool_use_result: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        tool_result_meta: Option<LineText>,
        /// `true` on an echo of a message the host wrote (`--replay-user-messages`).
        #[serde(default, rename = "isReplay")]
        pub is_replay: bool,
        /// `true` when the CLI made this message up rather than a person.
        #[serde(default, rename = "isSynthetic")]
        pub is_synthetic: bool,
        /// `now`, `next` or `later`.
        #[serde(default)]
        pub priority: Option<String>,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        origin: Option<LineText>,
        /// Set when the host composed the message itself (verbatim prompts).
        #[serde(default)]
        pub client_composed: bool,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        timestamp: Option<LineText>,
        /// The subagent this message belongs to.
        #[serde(default)]
        pub agent_id: Option<String>,
    }
}

/// Reads `{"role":"user","content":…}` and keeps the content.
fn content_of_message<'de, D: Deserializer<'de>>(d: D) -> Result<MessageContent, D::Error> {
    #[derive(Deserialize)]
    struct Body {
        #[serde(default)]
        content: MessageContent,
    }
    Body::deserialize(d).map(|body| body.content)
}

impl UserMessage {
    /// The tool's structured output (an object, or for MCP tools the content array), as JSON text.
    pub fn tool_use_result(&self) -> Option<&str> {
        self.line_text(&self.tool_use_result)
    }

    /// Per-tool permission decisions (`[{id, permission_decision}]`), as JSON text.
    pub fn tool_result_meta(&self) -> Option<&str> {
        self.line_text(&self.tool_result_meta)
    }

    /// Where the message came from (`{kind, …}`), as JSON text.
    pub fn origin(&self) -> Option<&str> {
        self.line_text(&self.origin)
    }

    /// When the CLI produced it (ISO 8601).
    pub fn timestamp(&self) -> Option<&str> {
        self.line_text(&self.timestamp)
    }
}
