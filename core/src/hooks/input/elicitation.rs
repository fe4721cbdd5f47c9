//! Inputs of the elicitation events: `Elicitation` and `ElicitationResult`.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::HookBase;

/// `Elicitation`: an MCP server asks the user for input.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct ElicitationInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The MCP server asking.
    pub mcp_server_name: String,
    /// What it asks.
    pub message: String,
    /// `form` or `url`.
    #[serde(default)]
    pub mode: Option<String>,
    /// For `url` mode, the page to open.
    #[serde(default)]
    pub url: Option<String>,
    /// The elicitation's id.
    #[serde(default)]
    pub elicitation_id: Option<String>,
    /// JSON Schema of the wanted answer.
    #[serde(default)]
    pub requested_schema: Option<Box<RawValue>>,
}

/// `ElicitationResult`: the user answered an elicitation.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct ElicitationResultInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The MCP server that asked.
    pub mcp_server_name: String,
    /// The elicitation's id.
    #[serde(default)]
    pub elicitation_id: Option<String>,
    /// `form` or `url`.
    #[serde(default)]
    pub mode: Option<String>,
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The answer, for `accept`.
    #[serde(default)]
    pub content: Option<Box<RawValue>>,
}
