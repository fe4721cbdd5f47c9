use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::session::CloseCause;

/// The success body of a control response; empty for plain acknowledgements.
///
/// ```
/// # use claude_agent_core::control::{ResponseBody, McpStatus};
/// let body = ResponseBody::from_json(r#"{"mcpServers":[]}"#).unwrap();
/// let status: McpStatus = body.parse().unwrap();
/// assert!(status.mcp_servers.is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ResponseBody(Option<Box<RawValue>>);

impl ResponseBody {
    /// A body from its JSON text.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        Ok(ResponseBody(Some(RawValue::from_string(json.to_owned())?)))
    }

    pub(crate) fn from_raw(raw: Option<Box<RawValue>>) -> Self {
        ResponseBody(raw)
    }

    /// The raw JSON, if the CLI sent a body.
    pub fn raw(&self) -> Option<&RawValue> {
        self.0.as_deref()
    }

    /// Parse the body into `T`; an absent body parses as `{}`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.as_deref().map_or("{}", RawValue::get))
    }
}

/// Why a control request did not succeed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestFailure {
    /// The CLI answered with an error.
    #[error("the CLI refused the request: {message}")]
    Refused {
        /// The CLI's error text.
        message: String,
        /// The CLI's `error_code`, e.g. `unsupported_request`.
        code: Option<String>,
    },
    /// No answer came before the deadline.
    #[error("no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// The session ended before an answer came.
    #[error("the session ended before the CLI answered: {0}")]
    Closed(CloseCause),
    /// The CLI answered `initialize` without confirming something the session must not run
    /// without: that it honours fail-closed hooks (`hook_on_failure_supported`, `hooks_applied`),
    /// or that it read the MCP servers sent in `initialize` (`mcp_servers_applied`). The text
    /// says which, and what to change. No user message was written.
    ///
    /// ```
    /// # use claude_agent_core::control::RequestFailure;
    /// let failure = RequestFailure::Unconfirmed("the CLI did not register the hooks".into());
    /// assert_eq!(failure.to_string(), "the CLI did not register the hooks");
    /// ```
    #[error("{0}")]
    Unconfirmed(String),
}

/// The CLI's answer to `initialize`: what this CLI offers.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct InitializeResponse {
    /// Slash commands.
    #[serde(default)]
    pub commands: Vec<SlashCommand>,
    /// Sub-agents.
    #[serde(default)]
    pub agents: Vec<AgentInfo>,
    /// Models the account can use.
    #[serde(default)]
    pub models: Vec<ModelInfo>,
    /// The account.
    pub account: Option<AccountInfo>,
    /// Current output style.
    pub output_style: Option<String>,
    /// Output styles to choose from.
    #[serde(default)]
    pub available_output_styles: Vec<String>,
    /// The CLI's version.
    pub claude_code_version: Option<String>,
    /// The CLI's process id.
    pub pid: Option<u32>,
    /// Whether hooks were applied (absent on old CLIs).
    pub hooks_applied: Option<bool>,
    /// Whether `onFailure` on hook matchers is supported.
    pub hook_on_failure_supported: Option<bool>,
    /// Whether the CLI read the MCP servers sent in `initialize` at launch (absent when none were
    /// sent, and on CLIs that cannot read them).
    pub mcp_servers_applied: Option<bool>,
    /// Whether every plugin listed in `initialize` is loaded (absent when none were listed, and
    /// on CLIs that cannot read them).
    pub plugins_applied: Option<bool>,
    /// Capability flags.
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// A slash command.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct SlashCommand {
    /// Name without the slash.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Hint for its argument.
    #[serde(rename = "argumentHint", default)]
    pub argument_hint: String,
    /// Other names.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Whether it ships with the CLI.
    #[serde(default)]
    pub builtin: bool,
}

/// A sub-agent.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct AgentInfo {
    /// Agent name.
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: String,
    /// Its model, if fixed.
    pub model: Option<String>,
}

/// A model the CLI offers.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct ModelInfo {
    /// Value to pass as `model`.
    pub value: String,
    /// Full model id it resolves to.
    #[serde(rename = "resolvedModel")]
    pub resolved_model: Option<String>,
    /// Name to show.
    #[serde(rename = "displayName", default)]
    pub display_name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
}

/// The account the CLI runs as.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct AccountInfo {
    /// Email address.
    pub email: Option<String>,
    /// Organization.
    pub organization: Option<String>,
    /// Subscription type.
    #[serde(rename = "subscriptionType")]
    pub subscription_type: Option<String>,
    /// Where the token comes from.
    #[serde(rename = "tokenSource")]
    pub token_source: Option<String>,
    /// Where the API key comes from.
    #[serde(rename = "apiKeySource")]
    pub api_key_source: Option<String>,
    /// API provider.
    #[serde(rename = "apiProvider")]
    pub api_provider: Option<String>,
}

/// Answer to `interrupt`.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct InterruptReceipt {
    /// User messages still queued.
    #[serde(default)]
    pub still_queued: Vec<String>,
    /// User messages that were cancelled.
    #[serde(default)]
    pub cancelled: Vec<String>,
}

/// Answer to `mcp_status`.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct McpStatus {
    /// One entry per server.
    #[serde(rename = "mcpServers", default)]
    pub mcp_servers: Vec<McpServerStatus>,
}

/// State of one MCP server.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct McpServerStatus {
    /// Server name.
    pub name: String,
    /// `connected`, `failed`, `pending`, `disabled`, …
    pub status: String,
    /// The rest of the entry (server info, tools, error…), as sent.
    #[serde(flatten)]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// Answer to `mcp_set_servers`.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct McpSetServersResult {
    /// Servers added.
    #[serde(default)]
    pub added: Vec<String>,
    /// Servers removed.
    #[serde(default)]
    pub removed: Vec<String>,
    /// Errors by server name.
    #[serde(default)]
    pub errors: std::collections::BTreeMap<String, String>,
}

/// Answer to `rewind_files`.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct RewindFilesResult {
    /// Whether the rewind can be (or was) done.
    #[serde(rename = "canRewind", default)]
    pub can_rewind: bool,
    /// Why not.
    pub error: Option<String>,
    /// Files that change.
    #[serde(rename = "filesChanged", default)]
    pub files_changed: Vec<String>,
    /// Lines added back.
    pub insertions: Option<u64>,
    /// Lines removed.
    pub deletions: Option<u64>,
}

/// Answer to `get_context_usage`.
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct ContextUsage {
    /// Tokens used.
    #[serde(rename = "totalTokens", default)]
    pub total_tokens: u64,
    /// Context window size.
    #[serde(rename = "maxTokens", default)]
    pub max_tokens: u64,
    /// Percentage used.
    #[serde(default)]
    pub percentage: f64,
    /// The model.
    #[serde(default)]
    pub model: String,
    /// Usage by category (system prompt, tools, messages, …), as sent.
    #[serde(default)]
    pub categories: Vec<serde_json::Value>,
}
