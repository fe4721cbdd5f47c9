//! What the stub answers to one Messages API call: a message (text and tool_use blocks), an
//! Anthropic error, or either of those after a delay.

use std::time::Duration;

use serde_json::Value;

/// A scripted answer to one `POST /v1/messages` call.
///
/// A message reply is sent as SSE when the request has `"stream": true` and as one JSON message
/// otherwise; an error reply is sent as the Anthropic error body with its HTTP status.
///
/// ```
/// use claude_agent_testkit::stub_api::Reply;
/// use serde_json::json;
/// use std::time::Duration;
///
/// let hi = Reply::text("hi");
/// let run = Reply::tool_use("Bash", json!({"command": "ls"})).with_leading_text("running");
/// let fail = Reply::error(400, "invalid_request_error", "bad");
/// let slow = Reply::delay(Duration::from_millis(50), Reply::text("late"));
/// # let _ = (hi, run, fail, slow);
/// ```
///
/// More shapes of a turn:
///
/// ```
/// use claude_agent_testkit::stub_api::{Reply, StubApi};
/// use serde_json::json;
///
/// let stub = StubApi::start();
/// // Two tool calls in one turn (the CLI runs both, then asks again):
/// stub.push_reply(
///     Reply::tool_use("Read", json!({"file_path": "/tmp/ws/Cargo.toml"}))
///         .and_tool_use("Glob", json!({"pattern": "src/**/*.rs"})),
/// );
/// // A reply cut short by the output limit:
/// stub.push_reply(Reply::text("The first half of the answer").with_stop_reason("max_tokens"));
/// // An overload the CLI retries (and reports as `system/api_retry`) before it gives up:
/// stub.push_reply(Reply::error(529, "overloaded_error", "Overloaded").retryable());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub(crate) kind: ReplyKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ReplyKind {
    Message {
        blocks: Vec<Block>,
        stop_reason: String,
    },
    Error {
        status: u16,
        error_type: String,
        message: String,
        retryable: bool,
    },
    Delay {
        delay: Duration,
        inner: Box<Reply>,
    },
}

/// One content block of a scripted assistant message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Text(String),
    ToolUse { name: String, input: Value },
}

impl Reply {
    /// An assistant message with one text block and stop reason `end_turn`.
    pub fn text(text: impl Into<String>) -> Self {
        Self::message(vec![Block::Text(text.into())], "end_turn")
    }

    /// An assistant message with one `tool_use` block (id `toolu_stub_<call>_<index>`) and stop
    /// reason `tool_use`. The CLI runs the tool and sends its result in the next request.
    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Self::message(
            vec![Block::ToolUse {
                name: name.into(),
                input,
            }],
            "tool_use",
        )
    }

    /// An Anthropic error response: HTTP `status` with body
    /// `{"type":"error","error":{"type":error_type,"message":message}}`.
    ///
    /// It carries `x-should-retry: false`, so the CLI does not back off and retry it as it does
    /// 401, 429 and 5xx for minutes (see [`Reply::retryable`]). Note: on a 400 the CLI 2.1.330
    /// still tries the same turn again without some of its betas (up to six requests in all),
    /// so to make a turn fail, answer with a [`Rule`](super::Rule) rather than one queued reply.
    pub fn error(status: u16, error_type: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind: ReplyKind::Error {
                status,
                error_type: error_type.into(),
                message: message.into(),
                retryable: false,
            },
        }
    }

    /// `inner`, sent after waiting `delay` (the connection stays open meanwhile).
    pub fn delay(delay: Duration, inner: Reply) -> Self {
        Self {
            kind: ReplyKind::Delay {
                delay,
                inner: Box::new(inner),
            },
        }
    }

    fn message(blocks: Vec<Block>, stop_reason: &str) -> Self {
        Self {
            kind: ReplyKind::Message {
                blocks,
                stop_reason: stop_reason.to_owned(),
            },
        }
    }

    /// Applies `f` to the blocks and stop reason of a message reply (through any delay).
    fn map_message(self, f: impl FnOnce(&mut Vec<Block>, &mut String)) -> Self {
        match self.kind {
            ReplyKind::Message {
                mut blocks,
                mut stop_reason,
            } => {
                f(&mut blocks, &mut stop_reason);
                Self {
                    kind: ReplyKind::Message {
                        blocks,
                        stop_reason,
                    },
                }
            }
            ReplyKind::Delay { delay, inner } => Self::delay(delay, inner.map_message(f)),
            kind @ ReplyKind::Error { .. } => Self { kind },
        }
    }

    /// Puts a text block before the message's blocks (as in "running" + a tool call).
    /// No effect on an error.
    #[must_use]
    pub fn with_leading_text(self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.map_message(|blocks, _| blocks.insert(0, Block::Text(text)))
    }

    /// Appends another `tool_use` block (several tool calls in one turn) and sets stop reason
    /// `tool_use`. No effect on an error.
    #[must_use]
    pub fn and_tool_use(self, name: impl Into<String>, input: Value) -> Self {
        let name = name.into();
        self.map_message(|blocks, stop_reason| {
            blocks.push(Block::ToolUse { name, input });
            "tool_use".clone_into(stop_reason);
        })
    }

    /// Replaces the message's stop reason (e.g. `max_tokens`). No effect on an error.
    #[must_use]
    pub fn with_stop_reason(self, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        self.map_message(|_, stop_reason| *stop_reason = reason)
    }

    /// Lets the CLI retry this error as it would a real one (drops `x-should-retry: false`).
    #[must_use]
    pub fn retryable(mut self) -> Self {
        if let ReplyKind::Error { retryable, .. } = &mut self.kind {
            *retryable = true;
        }
        self
    }
}
