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
/// assert_eq!(body.raw().map(|raw| raw.get()), Some(r#"{"mcpServers":[]}"#));
///
/// // A plain acknowledgement has no body; it parses as `{}`.
/// let ack = ResponseBody::default();
/// assert!(ack.raw().is_none());
/// let _: serde_json::Value = ack.parse().unwrap();
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
///
/// A request the CLI does not know is refused (the answer below is a real CLI's):
///
/// ```
/// use std::time::Instant;
/// use claude_agent_core::control::{ControlRequest, RequestFailure};
/// use claude_agent_core::session::{Event, InputMode, Session, SessionConfig};
/// use serde_json::value::RawValue;
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// let body = RawValue::from_string("{}".into()).unwrap();
/// let id = session.request(now, ControlRequest::Raw { subtype: "bogus_subtype".into(), body }).unwrap();
/// session.handle_stdout(now, br#"{"type":"control_response","response":{"subtype":"error","request_id":"req_1","error":"Unsupported control request subtype: bogus_subtype","error_code":"unsupported_request"}}
/// "#);
/// let Some(Event::RequestDone { id: done, outcome }) = session.poll_event() else { panic!("no answer") };
/// assert_eq!(done, id);
/// match outcome {
///     Err(RequestFailure::Refused { code: Some(code), .. }) if code == "unsupported_request" => {
///         // An older CLI: go on without this feature.
///     }
///     Err(failure) => panic!("{failure}"),
///     Ok(_) => panic!("unexpected success"),
/// }
/// ```
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
///
/// The session keeps it ([`Session::server_info`](crate::session::Session::server_info), `Client::server_info`). Shortened from a real CLI's answer:
///
/// ```
/// use claude_agent_core::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(r#"{
///     "commands":[{"name":"compact","description":"Clear conversation history but keep a summary in context","argumentHint":"<optional custom summarization instructions>"}],
///     "agents":[{"name":"Explore","description":"Fast read-only search agent for locating code."}],
///     "output_style":"default","available_output_styles":["default","Explanatory","Learning"],
///     "models":[{"value":"default","resolvedModel":"claude-opus-5-5","displayName":"Default (recommended)","description":"Use the default model (currently Opus 5.5)"}],
///     "account":{"tokenSource":"none","apiKeySource":"ANTHROPIC_API_KEY","apiProvider":"firstParty"},
///     "pid":3913,"claude_code_version":"2.1.330","hook_on_failure_supported":true,
///     "capabilities":["ui_surface_v1","mcp_call_check_permissions_v1"]}"#).unwrap();
/// assert_eq!(info.claude_code_version.as_deref(), Some("2.1.330"));
/// assert_eq!(info.pid, Some(3913));
/// assert!(info.capabilities.iter().any(|c| c == "mcp_call_check_permissions_v1"));
/// assert_eq!(info.hooks_applied, None); // absent on this CLI
/// ```
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
///
/// ```
/// use claude_agent_core::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(r#"{"commands":[
///     {"name":"compact","description":"Clear conversation history but keep a summary in context","argumentHint":"<optional custom summarization instructions>","builtin":true},
///     {"name":"review","description":"Review a pull request","argumentHint":"<pr>","aliases":["pr-review"]}]}"#).unwrap();
/// for command in &info.commands {
///     println!("/{} {} — {}", command.name, command.argument_hint, command.description);
/// }
/// assert!(info.commands[0].builtin);
/// assert_eq!(info.commands[1].aliases, ["pr-review"]);
/// ```
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
///
/// ```
/// use claude_agent_core::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(r#"{"agents":[
///     {"name":"Explore","description":"Fast read-only search agent for locating code.","model":"haiku"},
///     {"name":"general-purpose","description":"General-purpose agent for researching complex questions."}]}"#).unwrap();
/// let names: Vec<&str> = info.agents.iter().map(|agent| agent.name.as_str()).collect();
/// assert_eq!(names, ["Explore", "general-purpose"]);
/// assert_eq!(info.agents[0].model.as_deref(), Some("haiku"));
/// ```
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
///
/// ```
/// use claude_agent_core::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(r#"{"models":[
///     {"value":"default","resolvedModel":"claude-opus-5-5","displayName":"Default (recommended)","description":"Use the default model (currently Opus 5.5) · $4/$20 per Mtok"},
///     {"value":"opus","resolvedModel":"claude-opus-5-5","displayName":"Opus","description":"Opus 5.5 · Best for everyday, complex tasks"}]}"#).unwrap();
/// // `value` is what `Options::model` or `Client::set_model` take.
/// let menu: Vec<String> = info.models.iter().map(|m| format!("{} ({})", m.display_name, m.value)).collect();
/// assert_eq!(menu, ["Default (recommended) (default)", "Opus (opus)"]);
/// assert_eq!(info.models[1].resolved_model.as_deref(), Some("claude-opus-5-5"));
/// ```
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
///
/// ```
/// use claude_agent_core::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(
///     r#"{"account":{"tokenSource":"none","apiKeySource":"ANTHROPIC_API_KEY","apiProvider":"firstParty"}}"#,
/// )
/// .unwrap();
/// let account = info.account.unwrap();
/// assert_eq!(account.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
/// assert_eq!(account.email, None); // an API key, not a claude.ai login
/// ```
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
///
/// ```
/// use claude_agent_core::control::InterruptReceipt;
///
/// // What `Client::interrupt` returns; a real CLI answered `{"still_queued":[]}`.
/// let receipt: InterruptReceipt =
///     serde_json::from_str(r#"{"still_queued":["7d6c1e2a-3b4f-4c5d-8e9f-0a1b2c3d4e5f"],"cancelled":[]}"#).unwrap();
/// for uuid in &receipt.still_queued {
///     println!("message {uuid} will run after the interrupted turn");
/// }
/// assert!(receipt.cancelled.is_empty());
/// ```
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
///
/// ```
/// use claude_agent_core::control::McpStatus;
///
/// // What `Client::mcp_status` returns.
/// let status: McpStatus = serde_json::from_str(r#"{"mcpServers":[
///     {"name":"calc","status":"connected","serverInfo":{"name":"calc","version":"1.0.0"}},
///     {"name":"github","status":"failed","error":"spawn npx ENOENT"}]}"#).unwrap();
/// let failed: Vec<&str> = status.mcp_servers.iter().filter(|s| s.status == "failed").map(|s| s.name.as_str()).collect();
/// assert_eq!(failed, ["github"]);
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct McpStatus {
    /// One entry per server.
    #[serde(rename = "mcpServers", default)]
    pub mcp_servers: Vec<McpServerStatus>,
}

/// State of one MCP server.
///
/// ```
/// use claude_agent_core::control::McpStatus;
///
/// let status: McpStatus = serde_json::from_str(
///     r#"{"mcpServers":[{"name":"github","status":"failed","error":"spawn npx ENOENT"}]}"#,
/// )
/// .unwrap();
/// let server = &status.mcp_servers[0];
/// assert_eq!((server.name.as_str(), server.status.as_str()), ("github", "failed"));
/// assert_eq!(server.details["error"], "spawn npx ENOENT");
/// ```
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
///
/// ```
/// use claude_agent_core::control::McpSetServersResult;
///
/// // What `Client::set_mcp_servers` returns.
/// let result: McpSetServersResult = serde_json::from_str(
///     r#"{"added":["github"],"removed":["docs"],"errors":{"broken":"Invalid MCP server config: missing command"}}"#,
/// )
/// .unwrap();
/// assert_eq!((result.added.as_slice(), result.removed.as_slice()), (&["github".to_owned()][..], &["docs".to_owned()][..]));
/// for (server, error) in &result.errors {
///     eprintln!("{server}: {error}");
/// }
/// ```
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
///
/// ```
/// use claude_agent_core::control::RewindFilesResult;
///
/// // What `Client::rewind_files(uuid, true)` (a dry run) returns.
/// let preview: RewindFilesResult = serde_json::from_str(
///     r#"{"canRewind":true,"filesChanged":["/tmp/ws/CHANGELOG.md","/tmp/ws/Cargo.toml"],"insertions":1,"deletions":12}"#,
/// )
/// .unwrap();
/// if preview.can_rewind {
///     println!("{} files, +{} -{}", preview.files_changed.len(), preview.insertions.unwrap_or(0), preview.deletions.unwrap_or(0));
/// }
/// let refused: RewindFilesResult = serde_json::from_str(r#"{"canRewind":false,"error":"File checkpointing is not enabled"}"#).unwrap();
/// assert_eq!(refused.error.as_deref(), Some("File checkpointing is not enabled"));
/// ```
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
///
/// ```
/// use claude_agent_core::control::ContextUsage;
///
/// // What `Client::context_usage` returns (shortened from a real CLI's answer).
/// let usage: ContextUsage = serde_json::from_str(r#"{"categories":[
///     {"id":"system_prompt","name":"System prompt","tokens":90,"kind":"used"},
///     {"id":"skills","name":"Skills","tokens":2067,"kind":"used"},
///     {"id":"free_space","name":"Free space","tokens":964833,"kind":"free"}],
///     "totalTokens":2167,"maxTokens":1000000,"percentage":0,"model":"claude-opus-5-5"}"#).unwrap();
/// println!("{} of {} tokens ({}%)", usage.total_tokens, usage.max_tokens, usage.percentage);
/// assert_eq!(usage.categories[1]["name"], "Skills");
/// ```
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
