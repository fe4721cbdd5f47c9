use serde::Serialize;
use serde_json::value::RawValue;

use crate::hooks::HookOutput;
use crate::mcp::{PromptResult, ResourceResult, ToolResult};
use crate::permission::PermissionResult;
use crate::raw_text::same_text;

/// The host's answer to an [`super::InboundRequest`].
///
/// ```
/// # use claude_agent_core::control::Reply;
/// let reply = Reply::error("no such thing");
/// assert!(matches!(reply, Reply::Error { .. }));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Reply {
    /// Answer to a permission prompt.
    Permission(PermissionResult),
    /// Output of a hook callback.
    Hook(HookOutput),
    /// Result of an in-process MCP tool call (tool failures go in here too, with `is_error`).
    ToolResult(ToolResult),
    /// Contents of an in-process MCP server's resource.
    Resource(ResourceResult),
    /// Messages of an in-process MCP server's prompt.
    Prompt(PromptResult),
    /// Answer to an elicitation.
    Elicitation(ElicitationResult),
    /// Refuse the request: the CLI receives a control error with this text.
    Error {
        /// Error text.
        message: String,
        /// Optional `snake_case` error code.
        code: Option<String>,
    },
    /// A success body written as is (must be a JSON object).
    Raw(Box<RawValue>),
}

impl Reply {
    /// An error reply with no code.
    pub fn error(message: impl Into<String>) -> Self {
        Reply::Error {
            message: message.into(),
            code: None,
        }
    }
}

/// The answer to an elicitation (an MCP `ElicitResult`). Answers compare by value, `content` by
/// its exact JSON text.
///
/// ```
/// # use claude_agent_core::control::ElicitationResult;
/// # use serde_json::value::RawValue;
/// let name = || RawValue::from_string(r#"{"name":"Ada"}"#.into()).unwrap();
/// assert_eq!(ElicitationResult::accept(name()), ElicitationResult::accept(name()));
/// assert_ne!(ElicitationResult::accept(name()), ElicitationResult::decline());
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ElicitationResult {
    /// What the user did.
    pub action: ElicitationAction,
    /// The form data, for `accept`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Box<RawValue>>,
}

/// Compares by value; `content` by its exact JSON text.
impl PartialEq for ElicitationResult {
    fn eq(&self, other: &Self) -> bool {
        let ElicitationResult { action, content } = self;
        *action == other.action && same_text(content, &other.content)
    }
}

impl ElicitationResult {
    /// The user declined.
    pub fn decline() -> Self {
        ElicitationResult {
            action: ElicitationAction::Decline,
            content: None,
        }
    }

    /// The user dismissed the question without answering it.
    ///
    /// ```
    /// use claude_agent_core::control::{ElicitationAction, ElicitationResult};
    ///
    /// let dismissed = ElicitationResult::cancel();
    /// assert_eq!(dismissed.action, ElicitationAction::Cancel);
    /// assert_eq!(serde_json::to_string(&dismissed).unwrap(), r#"{"action":"cancel"}"#);
    /// ```
    pub fn cancel() -> Self {
        ElicitationResult {
            action: ElicitationAction::Cancel,
            content: None,
        }
    }

    /// The user accepted with `content` (a JSON object matching the requested schema).
    pub fn accept(content: Box<RawValue>) -> Self {
        ElicitationResult {
            action: ElicitationAction::Accept,
            content: Some(content),
        }
    }
}

/// What the user did with an elicitation.
///
/// ```
/// use claude_agent_core::control::{ElicitationAction, ElicitationResult};
///
/// assert_eq!(ElicitationResult::decline().action, ElicitationAction::Decline);
///
/// // "Dismissed" rather than "said no":
/// let mut dismissed = ElicitationResult::decline();
/// dismissed.action = ElicitationAction::Cancel;
/// assert_eq!(serde_json::to_string(&dismissed).unwrap(), r#"{"action":"cancel"}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitationAction {
    /// Gave the requested input.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed the question.
    Cancel,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    #[test]
    fn elicitation_results_compare_by_action_and_content_text() {
        let accept = |json: &str| ElicitationResult::accept(raw(json));
        assert_eq!(accept(r#"{"a":1}"#), accept(r#"{"a":1}"#));
        assert_ne!(accept(r#"{"a":1}"#), accept(r#"{"a": 1}"#));
        assert_ne!(accept(r#"{"a":1}"#), ElicitationResult::decline());
        assert_eq!(ElicitationResult::decline(), ElicitationResult::decline());
        let cancel = ElicitationResult {
            action: ElicitationAction::Cancel,
            content: None,
        };
        assert_ne!(cancel, ElicitationResult::decline());
    }
}
