//! MCP elicitation: a server asks the user for input through the CLI, and the host answers.

use serde::{Deserialize, Serialize};

use crate::Json;

/// An `elicitation` request: an MCP server wants input from the user.
///
/// The runtime crates hand it to the callback registered with `Options::on_elicitation`, which
/// answers with an [`ElicitationResult`]:
///
/// ```
/// use claude_agent_tokio::mcp::{ElicitationRequest, ElicitationResult};
///
/// fn choose_environment(request: &ElicitationRequest) -> ElicitationResult {
///     println!("{} asks: {}", request.display_name.as_deref().unwrap_or(&request.mcp_server_name), request.message);
///     match request.mode.as_deref() {
///         Some("url") => ElicitationResult::decline(), // this host opens no browser
///         _ => ElicitationResult::accept(serde_json::json!({"environment": "staging"})),
///     }
/// }
///
/// // What the CLI sends:
/// let request: ElicitationRequest = serde_json::from_str(
///     r#"{"subtype":"elicitation","mcp_server_name":"deploy","message":"Which environment?","mode":"form",
///         "requested_schema":{"type":"object","properties":{"environment":{"type":"string","enum":["staging","production"]}},"required":["environment"]}}"#,
/// )
/// .unwrap();
/// assert_eq!(request.mcp_server_name, "deploy");
/// assert!(request.requested_schema.as_ref().unwrap().as_str().contains("staging"));
/// assert_eq!(
///     choose_environment(&request),
///     ElicitationResult::accept(serde_json::json!({"environment": "staging"}))
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// The MCP server asking.
    pub mcp_server_name: String,
    /// What to ask the user.
    pub message: String,
    /// `form` or `url`.
    pub mode: Option<String>,
    /// For `url` mode, the page to open.
    pub url: Option<String>,
    /// The elicitation's id.
    pub elicitation_id: Option<String>,
    /// JSON Schema of the wanted answer (`form` mode).
    pub requested_schema: Option<Json>,
    /// Title to show.
    pub title: Option<String>,
    /// Display name of the server.
    pub display_name: Option<String>,
    /// Longer description.
    pub description: Option<String>,
}

/// The answer to an elicitation (an MCP `ElicitResult`). Answers compare by value, `content` by
/// its exact JSON text.
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::ElicitationResult;
/// let name = || r#"{"name":"Ada"}"#.parse::<Json>().unwrap();
/// assert_eq!(ElicitationResult::accept(name()), ElicitationResult::accept(name()));
/// assert_ne!(ElicitationResult::accept(name()), ElicitationResult::decline());
/// ```
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[non_exhaustive]
pub struct ElicitationResult {
    /// What the user did.
    pub action: ElicitationAction,
    /// The form data, for `accept`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Json>,
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
    /// use claude_agent_tokio::mcp::{ElicitationAction, ElicitationResult};
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
    pub fn accept(content: impl Into<Json>) -> Self {
        ElicitationResult {
            action: ElicitationAction::Accept,
            content: Some(content.into()),
        }
    }
}

/// What the user did with an elicitation.
///
/// ```
/// use claude_agent_tokio::mcp::{ElicitationAction, ElicitationResult};
///
/// assert_eq!(ElicitationResult::decline().action, ElicitationAction::Decline);
///
/// // "Dismissed" rather than "said no":
/// let mut dismissed = ElicitationResult::decline();
/// dismissed.action = ElicitationAction::Cancel;
/// assert_eq!(serde_json::to_string(&dismissed).unwrap(), r#"{"action":"cancel"}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
