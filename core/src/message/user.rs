//! `user` messages the CLI prints: tool results, and replays of stdin messages.

use super::content::MessageContent;
use super::line_text::{self, LineText};
use super::raw::message_struct;
use serde::{Deserialize, Deserializer};

message_struct! {
    /// A `user` message printed by the CLI, mostly to carry `tool_result` blocks.
    ///
    /// ```
    /// use claude_agent_tokio::message::{ContentBlock, Message, MessageContent};
    ///
    /// let line = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_fake_2_1","type":"tool_result","content":"hi-from-bash","is_error":false}]},"parent_tool_use_id":null,"session_id":"47f3a484-bb4d-4a95-b2ae-5a6250e26911","uuid":"9c530b08-93bd-44ab-bc6e-5f9ea1cf74e5","timestamp":"2026-11-22T03:17:40.300Z","tool_use_result":{"stdout":"hi-from-bash","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},"tool_result_meta":[{"id":"toolu_fake_2_1","permission_decision":{"decision":"accept","source":"config"}}]}"#;
    /// let Message::User(user) = Message::parse(line).unwrap() else { panic!("not a user message") };
    /// let MessageContent::Blocks(blocks) = &user.content else { panic!("no blocks") };
    /// let ContentBlock::ToolResult(result) = &blocks[0] else { panic!("not a tool result") };
    /// assert_eq!((result.tool_use_id.as_str(), result.is_error), ("toolu_fake_2_1", Some(false)));
    /// assert!(!user.is_replay && !user.is_synthetic);
    /// assert_eq!(user.timestamp(), Some("2026-11-22T03:17:40.300Z"));
    /// assert_eq!(user.origin(), None);
    ///
    /// // The tool's structured output and the permission decisions, as JSON text.
    /// let output: serde_json::Value = serde_json::from_str(user.tool_use_result().unwrap()).unwrap();
    /// assert_eq!(output["stdout"], "hi-from-bash");
    /// let meta: serde_json::Value = serde_json::from_str(user.tool_result_meta().unwrap()).unwrap();
    /// assert_eq!(meta[0]["permission_decision"]["decision"], "accept");
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
