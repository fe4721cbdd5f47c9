//! Typed messages the CLI prints on stdout, and the user messages the host writes.
//!
//! - [`Message`]: one variant per message type this crate models, [`SystemMessage`] one per
//!   `system` subtype, [`ContentBlock`] one per content-block type; each also has an `Unknown`
//!   variant for the kinds it does not model.
//! - [`Tags`] and [`peek_tags`]: the `type`/`subtype` of a line, read cheaply.
//! - [`UserInput`]: a user message to write to the CLI's stdin.
//!
//! Each line is parsed once, straight into typed structs (boxed, so a [`Message`] is cheap to
//! move). Every message keeps its original line ([`Message::raw_json`]), so no field the CLI sends
//! is ever lost; fields the CLI always sends but hosts rarely read (`uuid()`, `timestamp()`, a stream
//! event's JSON, a tool's structured output, most `init` settings) are read from that line by
//! methods instead of being copied out at parse time. Unknown `type`s, `system` subtypes and
//! content-block types are kept as raw JSON.
//!
//! One line parses with [`Message::parse`] (or `line.parse::<Message>()`); a caller that has
//! already read the line's tags with [`peek_tags`] passes them to [`Message::parse_tagged`].
//!
//! ```
//! use claude_agent_tokio::message::Message;
//!
//! let line = r#"{"type":"result","subtype":"success","is_error":false,"result":"4","session_id":"s"}"#;
//! match Message::parse(line).unwrap() {
//!     Message::Result(r) => assert_eq!(r.result.as_deref(), Some("4")),
//!     other => panic!("unexpected {other:?}"),
//! }
//! ```

mod api_error;
mod assistant;
use crate::Json;
mod content;
mod context_usage;
mod lenient;
mod line_text;
mod message_id;
mod notice;
mod other;
mod raw;
mod result;
mod startup_failure;
mod stream_event;
mod string_list;
mod structured;
mod system;
mod tags;
mod usage;
mod user;
mod user_input;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod fixture_tests;

pub use api_error::ApiError;
pub use assistant::{AssistantBody, AssistantMessage};
pub use content::{
    ContainerUploadBlock, ContentBlock, DocumentBlock, FallbackBlock, ImageBlock,
    McpToolResultBlock, McpToolUseBlock, MessageContent, RedactedThinkingBlock, SearchResultBlock,
    ServerToolResultBlock, TextBlock, ThinkingBlock, ToolReferenceBlock, ToolResultBlock,
    ToolUseBlock,
};
pub use context_usage::{
    ContextAgent, ContextCategory, ContextMcpTool, ContextMemoryFile, ContextOverLimit,
    ContextUsage,
};
pub use message_id::MessageId;
pub use notice::{InterruptNotApplied, LineError, Notice, NoticeKind, Stall};
pub use other::{
    AuthStatus, CommandLifecycle, ConversationReset, PromptSuggestion, RateLimitEvent,
    RateLimitInfo, ToolProgress, ToolUseSummary,
};
pub use result::{DeferredToolUse, PermissionDenial, ResultMessage};
pub use startup_failure::{InvalidConfigFile, StartupFailureReason};
pub use stream_event::StreamEvent;
pub use string_list::StringList;
pub use structured::StructuredOutputError;
pub use system::*;
pub(crate) use tags::RequestHead;
pub use tags::{peek_tags, Tags};
pub use usage::{ModelUsage, Usage};
pub use user::UserMessage;
pub use user_input::{InputBlock, UserInput, UserInputContent};

use std::str::FromStr;

use raw::parse_line;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// One message from the CLI.
///
/// Serializing a `Message` writes its original line unchanged. Its `Debug` output shows every
/// typed field with its text, including the ones read from the line on demand.
///
/// A host matches the variants it cares about and passes over the rest (the enum is
/// `#[non_exhaustive]`, so a catch-all arm is needed anyway):
///
/// ```
/// use claude_agent_tokio::message::{ContentBlock, Message, SystemMessage};
///
/// let lines = [
///     r#"{"type":"system","subtype":"init","cwd":"/tmp/ws","session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65","tools":["Bash","Read"],"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"default","uuid":"b1f5e0c2-5b1e-4a47-9d0f-3c2a1e9f7d10"}"#,
///     r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"echo: hello there"}],"stop_reason":null},"parent_tool_use_id":null,"session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65","uuid":"70565fc4-6cce-40b8-adc7-42a6e28ebda1"}"#,
///     r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"echo: hello there","total_cost_usd":0.000188,"session_id":"46eb1b6d-8361-4d7c-a347-8234db4a9d65"}"#,
/// ];
/// let mut transcript = Vec::new();
/// for line in lines {
///     match Message::parse(line).unwrap() {
///         Message::System(SystemMessage::Init(init)) => {
///             transcript.push(format!("model {}", init.model().unwrap_or("?")));
///         }
///         Message::Assistant(reply) => {
///             for block in &reply.message.content {
///                 if let ContentBlock::Text(text) = block {
///                     transcript.push(format!("Claude: {}", text.text));
///                 }
///             }
///         }
///         Message::Result(result) => {
///             transcript.push(format!("cost ${:.6}", result.total_cost_usd.unwrap_or(0.0)));
///         }
///         _ => {}
///     }
/// }
/// assert_eq!(transcript, ["model claude-opus-5-5", "Claude: echo: hello there", "cost $0.000188"]);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// `assistant`: one completed content block of a model reply.
    Assistant(Box<AssistantMessage>),
    /// `user`: tool results, or a replay of a message the host wrote.
    User(Box<UserMessage>),
    /// `result`: the end of a turn.
    Result(Box<ResultMessage>),
    /// `system`, by subtype.
    System(SystemMessage),
    /// `stream_event`: a partial-message stream event.
    StreamEvent(Box<StreamEvent>),
    /// `rate_limit_event`.
    RateLimit(Box<RateLimitEvent>),
    /// `tool_progress`.
    ToolProgress(Box<ToolProgress>),
    /// `tool_use_summary`.
    ToolUseSummary(Box<ToolUseSummary>),
    /// `auth_status`.
    AuthStatus(Box<AuthStatus>),
    /// `prompt_suggestion`.
    PromptSuggestion(Box<PromptSuggestion>),
    /// `conversation_reset`.
    ConversationReset(Box<ConversationReset>),
    /// `command_lifecycle`: what became of a user message sent with a `uuid`.
    CommandLifecycle(Box<CommandLifecycle>),
    /// A message type this crate does not model: the whole line, unchanged.
    Unknown(Json),
    /// Not from the CLI: the SDK's report of a line it could not use or of a recording that
    /// stopped. The session goes on.
    Notice(Box<Notice>),
}

impl Message {
    /// Parse one line the CLI printed: [`peek_tags`] then [`Message::parse_tagged`].
    ///
    /// A line that is not a JSON object with a string `type`, or a known type whose fields do not
    /// fit, gives an error; an unknown `type` or `system` subtype gives [`Message::Unknown`] /
    /// [`SystemMessage::Unknown`]. Control frames (`control_request`, …) are not messages: the
    /// session answers them, and here they come back as [`Message::Unknown`]. The same parse is
    /// [`str::parse`], through [`FromStr`].
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"result","subtype":"success","is_error":false,"result":"4","session_id":"s"}"#;
    /// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
    /// assert_eq!(result.result.as_deref(), Some("4"));
    ///
    /// let message: Message = r#"{"type":"brand_new","x":1}"#.parse().unwrap();
    /// assert!(matches!(message, Message::Unknown(_)));
    /// assert!(Message::parse("not json").is_err());
    /// assert!(Message::parse(r#"{"type":"result","subtype":"success","is_error":"no"}"#).is_err());
    /// ```
    pub fn parse(line: &str) -> Result<Message, serde_json::Error> {
        Message::parse_tagged(line, &peek_tags(line)?)
    }

    /// Parse a line whose tags were read with [`peek_tags`].
    ///
    /// For lines that are not control frames (`control_request`, `control_response`,
    /// `control_cancel_request`, `keep_alive`: the session handles those). An unknown `type` or
    /// `system` subtype gives [`Message::Unknown`] / [`SystemMessage::Unknown`]; a known type whose
    /// fields do not fit, or a line that is not JSON, gives an error.
    ///
    /// Reading the tags first lets a reader pass over lines it does not want (here the
    /// `stream_event`s of `--include-partial-messages`) without parsing them:
    ///
    /// ```
    /// use claude_agent_tokio::message::{peek_tags, Message};
    ///
    /// let stdout = [
    ///     r#"{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u1"}"#,
    ///     r#"{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u2"}"#,
    /// ];
    /// let mut kept = Vec::new();
    /// for line in stdout {
    ///     let tags = peek_tags(line).unwrap();
    ///     if tags.ty == "stream_event" {
    ///         continue;
    ///     }
    ///     kept.push(Message::parse_tagged(line, &tags).unwrap());
    /// }
    /// assert!(matches!(kept.as_slice(), [Message::Assistant(_)]));
    /// ```
    pub fn parse_tagged(line: &str, tags: &Tags<'_>) -> Result<Message, serde_json::Error> {
        Ok(match tags.ty {
            "assistant" => Message::Assistant(parse_line(line)?),
            "user" => Message::User(parse_line(line)?),
            "stream_event" => Message::StreamEvent(parse_line(line)?),
            "system" => Message::System(SystemMessage::parse(line, tags.subtype)?),
            "result" => Message::Result(parse_line(line)?),
            "rate_limit_event" => Message::RateLimit(parse_line(line)?),
            "tool_progress" => Message::ToolProgress(parse_line(line)?),
            "tool_use_summary" => Message::ToolUseSummary(parse_line(line)?),
            "auth_status" => Message::AuthStatus(parse_line(line)?),
            "prompt_suggestion" => Message::PromptSuggestion(parse_line(line)?),
            "conversation_reset" => Message::ConversationReset(parse_line(line)?),
            "command_lifecycle" => Message::CommandLifecycle(parse_line(line)?),
            _ => Message::Unknown(Json::try_from(line.to_owned())?),
        })
    }

    /// The exact line the CLI printed, for every variant but [`Message::Notice`], which gives the
    /// notice as JSON ([`Notice::raw_json`]).
    ///
    /// Fields this crate does not model are still there, for the host to read itself:
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// let line = r#"{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s","safety_stops":0,"subagent_stats":{"spawned":2,"completed":2}}"#;
    /// let message = Message::parse(line).unwrap();
    /// assert_eq!(message.raw_json(), line);
    ///
    /// let fields: serde_json::Value = serde_json::from_str(message.raw_json()).unwrap();
    /// assert_eq!(fields["subagent_stats"]["spawned"], 2);
    /// ```
    pub fn raw_json(&self) -> &str {
        match self {
            Message::Assistant(m) => m.raw_json(),
            Message::User(m) => m.raw_json(),
            Message::Result(m) => m.raw_json(),
            Message::System(m) => m.raw_json(),
            Message::StreamEvent(m) => m.raw_json(),
            Message::RateLimit(m) => m.raw_json(),
            Message::ToolProgress(m) => m.raw_json(),
            Message::ToolUseSummary(m) => m.raw_json(),
            Message::AuthStatus(m) => m.raw_json(),
            Message::PromptSuggestion(m) => m.raw_json(),
            Message::ConversationReset(m) => m.raw_json(),
            Message::CommandLifecycle(m) => m.raw_json(),
            Message::Unknown(raw) => raw.as_str(),
            Message::Notice(notice) => notice.raw_json(),
        }
    }
}

/// [`Message::parse`], so that a line parses with `line.parse::<Message>()`.
impl FromStr for Message {
    type Err = serde_json::Error;

    fn from_str(line: &str) -> Result<Message, serde_json::Error> {
        Message::parse(line)
    }
}

impl Serialize for Message {
    /// Writes the original line unchanged.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue =
            serde_json::from_str(self.raw_json()).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}
