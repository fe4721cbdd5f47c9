//! `PromptResult`: what getting an in-process server's prompt gives, as an MCP
//! `GetPromptResult`.

use serde::Serialize;

use super::ToolContent;

/// The messages a prompt stands for (`prompts/get`). Serializes as an MCP `GetPromptResult`:
/// `{"description"?,"messages":[{"role","content"}]}`.
///
/// ```
/// # use claude_agent_tokio::mcp::PromptResult;
/// let review = PromptResult::user("Review src/main.rs for error handling.")
///     .with_description("A code review");
/// let few_shot = PromptResult::new(Vec::new())
///     .with_user("2 + 2?")
///     .with_assistant("4")
///     .with_user("3 + 3?");
/// assert_eq!(few_shot.messages.len(), 3);
/// assert_eq!(
///     serde_json::to_string(&review).unwrap(),
///     r#"{"description":"A code review","messages":[{"role":"user","content":{"type":"text","text":"Review src/main.rs for error handling."}}]}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PromptResult {
    /// What the prompt is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl PromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        PromptResult {
            description: None,
            messages,
        }
    }

    /// A result with one user message of text.
    pub fn user(text: impl Into<String>) -> Self {
        PromptResult::new(vec![PromptMessage::user(text)])
    }

    /// Adds a user message of text.
    pub fn with_user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(PromptMessage::user(text));
        self
    }

    /// Adds an assistant message of text.
    pub fn with_assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push(PromptMessage::assistant(text));
        self
    }

    /// Sets what the prompt is.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// One message of a [`PromptResult`]: a role and one content block.
///
/// ```
/// # use claude_agent_tokio::mcp::{PromptMessage, PromptResult, PromptRole, ToolContent};
/// let example = PromptResult::new(vec![
///     PromptMessage::user("Translate: bonjour"),
///     PromptMessage::assistant("hello"),
///     PromptMessage::new(PromptRole::User, ToolContent::text("Translate: merci")),
/// ]);
/// assert_eq!(example.messages[1].role, PromptRole::Assistant);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who says it.
    pub role: PromptRole,
    /// What is said: text, an image, a resource.
    pub content: ToolContent,
}

impl PromptMessage {
    /// A message with a role and a content block.
    pub fn new(role: PromptRole, content: ToolContent) -> Self {
        PromptMessage { role, content }
    }

    /// A user message of text.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage::new(PromptRole::User, ToolContent::text(text))
    }

    /// An assistant message of text.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage::new(PromptRole::Assistant, ToolContent::text(text))
    }
}

/// Who says a [`PromptMessage`].
///
/// ```
/// # use claude_agent_tokio::mcp::{PromptMessage, PromptRole, ToolContent};
/// let reply = PromptMessage::new(PromptRole::Assistant, ToolContent::text("Done."));
/// assert_eq!(serde_json::to_string(&reply.role).unwrap(), r#""assistant""#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PromptRole {
    /// The user.
    User,
    /// The model.
    Assistant,
}
