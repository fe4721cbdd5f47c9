use crate::message::{McpServerStatus, PluginInfo};
use crate::Json;
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The success body of a control response; empty for plain acknowledgements.
///
/// ```
/// # use claude_agent_tokio::control::{ResponseBody, McpStatus};
/// let body = ResponseBody::from_json(r#"{"mcpServers":[]}"#).unwrap();
/// let status: McpStatus = body.parse().unwrap();
/// assert!(status.mcp_servers.is_empty());
/// assert_eq!(body.json().map(|json| json.as_str()), Some(r#"{"mcpServers":[]}"#));
///
/// // A plain acknowledgement has no body; it parses as `{}`.
/// let ack = ResponseBody::default();
/// assert!(ack.json().is_none());
/// let _: serde_json::Value = ack.parse().unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResponseBody(Option<Json>);

impl ResponseBody {
    /// A body from its JSON text.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        Ok(ResponseBody(Some(Json::try_from(json.to_owned())?)))
    }

    pub(crate) fn from_raw(raw: Option<Json>) -> Self {
        ResponseBody(raw)
    }

    /// The body's JSON, if the CLI sent one.
    pub fn json(&self) -> Option<&Json> {
        self.0.as_ref()
    }

    /// Parse the body into `T`; an absent body parses as `{}`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.as_ref().map_or("{}", Json::as_str))
    }
}

/// The CLI's answer to `initialize`: what this CLI offers.
///
/// The fields the official SDKs describe are typed; every other field the CLI sends is kept in
/// [`InitializeResponse::other`], so nothing of the answer is lost.
///
/// ```
/// # use claude_agent_tokio::control::{InitializeResponse, ResponseBody};
/// let body = ResponseBody::from_json(
///     r#"{"commands":[{"name":"compact","description":"Compact the conversation"}],
///         "models":[],"agents":[],"account":{"apiKeySource":"ANTHROPIC_API_KEY"},
///         "claude_code_version":"2.1.330","session_state":"idle"}"#,
/// )?;
/// let info: InitializeResponse = body.parse()?;
/// assert_eq!(info.commands[0].name, "compact");
/// assert_eq!(info.claude_code_version.as_deref(), Some("2.1.330"));
/// assert_eq!(info.other["session_state"], "idle");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
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
    /// Whether every plugin listed in `initialize` is loaded (absent when none were listed, and
    /// on CLIs that cannot read them).
    pub plugins_applied: Option<bool>,
    /// Whether the CLI read the MCP servers sent in `initialize` at launch (absent when none were
    /// sent, and on CLIs that cannot read them).
    pub mcp_servers_applied: Option<bool>,
    /// Whether the CLI took the settings sent in `initialize` at launch (absent when none were
    /// sent, and on CLIs that cannot read them).
    pub settings_applied: Option<bool>,
    /// Whether the CLI took the managed settings sent in `initialize` at launch (absent when
    /// none were sent, and on CLIs that cannot read them).
    pub managed_settings_applied: Option<bool>,
    /// Fast mode: `off`, `cooldown` or `on`.
    pub fast_mode_state: Option<String>,
    /// Why fast mode is unavailable, when it is.
    pub fast_mode_disabled_reason: Option<String>,
    /// Capability flags.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Every other field of the answer, by name, as sent (e.g. `current_permission_mode`,
    /// `session_state`).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// A slash command.
///
/// ```
/// use claude_agent_tokio::control::InitializeResponse;
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
/// use claude_agent_tokio::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(r#"{"agents":[
///     {"name":"Explore","description":"Fast read-only search agent for locating code.","model":"haiku"},
///     {"name":"general-purpose","description":"General-purpose agent for researching complex questions."}]}"#).unwrap();
/// let names: Vec<&str> = info.agents.iter().map(|agent| agent.name.as_str()).collect();
/// assert_eq!(names, ["Explore", "general-purpose"]);
/// assert_eq!(info.agents[0].model.as_deref(), Some("haiku"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
/// use claude_agent_tokio::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(r#"{"models":[
///     {"value":"default","resolvedModel":"claude-opus-5-5","displayName":"Default (recommended)","description":"Use the default model (currently Opus 5.5) · $4/$20 per Mtok"},
///     {"value":"opus","resolvedModel":"claude-opus-5-5","displayName":"Opus","description":"Opus 5.5 · Best for everyday, complex tasks"}]}"#).unwrap();
/// // `value` is what `Options::model` or `Client::set_model` take.
/// let menu: Vec<String> = info.models.iter().map(|m| format!("{} ({})", m.display_name, m.value)).collect();
/// assert_eq!(menu, ["Default (recommended) (default)", "Opus (opus)"]);
/// assert_eq!(info.models[1].resolved_model.as_deref(), Some("claude-opus-5-5"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// Whether it takes an effort level.
    #[serde(rename = "supportsEffort")]
    pub supports_effort: Option<bool>,
    /// The effort levels it takes (`low`, `medium`, `high`, `xhigh`, `max`).
    #[serde(rename = "supportedEffortLevels", default)]
    pub supported_effort_levels: Vec<String>,
    /// Whether it supports adaptive thinking.
    #[serde(rename = "supportsAdaptiveThinking")]
    pub supports_adaptive_thinking: Option<bool>,
    /// Whether it supports fast mode.
    #[serde(rename = "supportsFastMode")]
    pub supports_fast_mode: Option<bool>,
    /// Whether it supports auto mode.
    #[serde(rename = "supportsAutoMode")]
    pub supports_auto_mode: Option<bool>,
}

/// The account the CLI runs as.
///
/// ```
/// use claude_agent_tokio::control::InitializeResponse;
///
/// let info: InitializeResponse = serde_json::from_str(
///     r#"{"account":{"tokenSource":"none","apiKeySource":"ANTHROPIC_API_KEY","apiProvider":"firstParty"}}"#,
/// )
/// .unwrap();
/// let account = info.account.unwrap();
/// assert_eq!(account.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
/// assert_eq!(account.email, None); // an API key, not a claude.ai login
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
/// use claude_agent_tokio::control::InterruptReceipt;
///
/// // What `Client::interrupt` returns; a real CLI answered `{"still_queued":[]}`.
/// let receipt: InterruptReceipt =
///     serde_json::from_str(r#"{"still_queued":["7d6c1e2a-3b4f-4c5d-8e9f-0a1b2c3d4e5f"],"cancelled":[]}"#).unwrap();
/// for uuid in &receipt.still_queued {
///     println!("message {uuid} will run after the interrupted turn");
/// }
/// assert!(receipt.cancelled.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
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
/// use claude_agent_tokio::control::McpStatus;
///
/// // What `Client::mcp_status` returns.
/// let status: McpStatus = serde_json::from_str(r#"{"mcpServers":[
///     {"name":"calc","status":"connected","serverInfo":{"name":"calc","version":"1.0.0"}},
///     {"name":"github","status":"failed","error":"spawn npx ENOENT"}]}"#).unwrap();
/// let failed: Vec<&str> = status.mcp_servers.iter().filter(|s| s.status == "failed").map(|s| s.name.as_str()).collect();
/// assert_eq!(failed, ["github"]);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct McpStatus {
    /// One entry per server.
    #[serde(rename = "mcpServers", default)]
    pub mcp_servers: Vec<McpServerStatus>,
}

/// Answer to `mcp_set_servers`.
///
/// ```
/// use claude_agent_tokio::control::McpSetServersResult;
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
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
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
/// use claude_agent_tokio::control::RewindFilesResult;
///
/// // What `Client::preview_rewind_files(uuid)` (a dry run) returns.
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
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
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

/// Answer to `reload_plugins`: the session's commands, agents, plugins and MCP servers after
/// the reload.
///
/// ```
/// # use claude_agent_tokio::control::{ReloadPluginsResult, ResponseBody};
/// let body = ResponseBody::from_json(
///     r#"{"commands":[],"agents":[],"plugins":[{"name":"review","path":"/srv/review","source":"review@local"}],
///         "mcpServers":[],"error_count":0,"held":false}"#,
/// )?;
/// let reloaded: ReloadPluginsResult = body.parse()?;
/// assert_eq!(reloaded.plugins[0].name, "review");
/// assert_eq!(reloaded.held, Some(false));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct ReloadPluginsResult {
    /// Slash commands.
    #[serde(default)]
    pub commands: Vec<SlashCommand>,
    /// Sub-agents.
    #[serde(default)]
    pub agents: Vec<AgentInfo>,
    /// Loaded plugins.
    #[serde(default)]
    pub plugins: Vec<PluginInfo>,
    /// MCP servers.
    #[serde(rename = "mcpServers", default)]
    pub mcp_servers: Vec<McpServerStatus>,
    /// How many plugins failed to load.
    #[serde(default)]
    pub error_count: u64,
    /// `Some(true)` when nothing was applied because of `hold_on_cache_impact`.
    pub held: Option<bool>,
    /// What applying would have changed, when held: as sent (`mcp_servers_added`,
    /// `mcp_servers_removed`, `lsp_tool_change`).
    pub cache_impact: Option<serde_json::Value>,
}

/// Answer to `reload_skills`.
///
/// ```
/// # use claude_agent_tokio::control::{ReloadSkillsResult, ResponseBody};
/// let body = ResponseBody::from_json(r#"{"skills":[{"name":"pdf","description":"Read PDFs","argumentHint":""}]}"#)?;
/// let reloaded: ReloadSkillsResult = body.parse()?;
/// assert_eq!(reloaded.skills[0].name, "pdf");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct ReloadSkillsResult {
    /// The skills, as slash commands.
    #[serde(default)]
    pub skills: Vec<SlashCommand>,
}

/// Answer to `reload_output_styles`.
///
/// ```
/// # use claude_agent_tokio::control::{OutputStyles, ResponseBody};
/// let body = ResponseBody::from_json(r#"{"available_output_styles":["default","Explanatory"]}"#)?;
/// let styles: OutputStyles = body.parse()?;
/// assert_eq!(styles.available_output_styles, ["default", "Explanatory"]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct OutputStyles {
    /// Every output style, built-in and the user's own.
    #[serde(default)]
    pub available_output_styles: Vec<String>,
}

/// Answer to `mcp_read_resource`: the resource's contents, as the MCP server sent them.
///
/// ```
/// # use claude_agent_tokio::control::{McpResource, ResponseBody};
/// let body = ResponseBody::from_json(
///     r#"{"contents":[{"uri":"ui://chart","mimeType":"text/html","text":"<div></div>"}]}"#,
/// )?;
/// let resource: McpResource = body.parse()?;
/// assert_eq!(resource.contents[0].text.as_deref(), Some("<div></div>"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct McpResource {
    /// One entry per part.
    #[serde(default)]
    pub contents: Vec<McpResourceContents>,
}

/// One part of an [`McpResource`]: text or a base64 blob. It comes from a third party: show
/// HTML sandboxed.
///
/// ```
/// # use claude_agent_tokio::control::McpResourceContents;
/// let part: McpResourceContents =
///     serde_json::from_str(r#"{"uri":"ui://charts/bar","mimeType":"image/png","blob":"iVBORw0KGgo="}"#)?;
/// assert!(part.text.is_none() && part.blob.is_some());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct McpResourceContents {
    /// The part's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(rename = "mimeType")]
    pub mime_type: Option<String>,
    /// Text contents.
    pub text: Option<String>,
    /// Binary contents, base64-encoded.
    pub blob: Option<String>,
    /// The server's metadata, as sent.
    #[serde(rename = "_meta")]
    pub meta: Option<serde_json::Value>,
}

/// Answer to `read_file`.
///
/// ```
/// # use claude_agent_tokio::control::{ReadFileResult, ResponseBody};
/// let body = ResponseBody::from_json(
///     r#"{"contents":"aGVs","absPath":"/w/hello.txt","truncated":true,"encoding":"base64","requested_path":"hello.txt"}"#,
/// )?;
/// let file: ReadFileResult = body.parse()?;
/// assert_eq!(file.abs_path, "/w/hello.txt");
/// assert!(file.truncated && file.is_base64());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct ReadFileResult {
    /// The contents: text, or base64 when [`ReadFileResult::is_base64`].
    #[serde(default)]
    pub contents: String,
    /// The file's absolute path.
    #[serde(rename = "absPath", default)]
    pub abs_path: String,
    /// The path as asked for.
    pub requested_path: Option<String>,
    /// Whether the file was cut at the size cap.
    #[serde(default)]
    pub truncated: bool,
    /// `base64` for base64 contents.
    pub encoding: Option<String>,
    /// Whether bytes that are not UTF-8 were replaced in text contents.
    #[serde(default)]
    pub lossy: bool,
}

impl ReadFileResult {
    /// Whether [`ReadFileResult::contents`] is base64.
    ///
    /// ```
    /// # use claude_agent_tokio::control::ReadFileResult;
    /// let text: ReadFileResult = serde_json::from_str(r#"{"contents":"hi","absPath":"/w/a.txt"}"#)?;
    /// assert!(!text.is_base64());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn is_base64(&self) -> bool {
        self.encoding.as_deref() == Some("base64")
    }
}

/// Answer to `background_tasks`.
///
/// ```
/// # use claude_agent_tokio::control::{BackgroundTasksResult, ResponseBody};
/// let all: BackgroundTasksResult = ResponseBody::from_json("{}")?.parse()?;
/// assert!(all.backgrounded);
/// let none: BackgroundTasksResult = ResponseBody::from_json(r#"{"backgrounded":false}"#)?.parse()?;
/// assert!(!none.backgrounded);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct BackgroundTasksResult {
    /// `false` only when a tool use id was given and no foreground task matched it (an answer
    /// without the field counts as `true`).
    #[serde(default = "yes")]
    pub backgrounded: bool,
}

fn yes() -> bool {
    true
}

/// Answer to `set_mcp_permission_mode_override`.
///
/// ```
/// # use claude_agent_tokio::control::{McpPermissionOverrideResult, ResponseBody};
/// let body = ResponseBody::from_json(r#"{"warning":"MCP server 'gh' is not yet known"}"#)?;
/// let outcome: McpPermissionOverrideResult = body.parse()?;
/// assert!(outcome.warning.is_some());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct McpPermissionOverrideResult {
    /// Set when no MCP server of that name is known (yet); the override is stored all the same.
    pub warning: Option<String>,
}

/// Answer to `get_usage`: the data behind the `/usage` command.
///
/// ```
/// # use claude_agent_tokio::control::{ResponseBody, UsageReport};
/// let body = ResponseBody::from_json(
///     r#"{"session":{"total_cost_usd":0.25,"total_api_duration_ms":900,"total_duration_ms":4000,
///                    "total_lines_added":3,"total_lines_removed":1,"model_usage":{}},
///         "subscription_type":null,"rate_limits_available":false,"rate_limits":null,"behaviors":null}"#,
/// )?;
/// let usage: UsageReport = body.parse()?;
/// assert_eq!(usage.session.total_cost_usd, 0.25);
/// assert!(usage.rate_limits.is_none());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct UsageReport {
    /// This session's cost and totals.
    #[serde(default)]
    pub session: SessionUsage,
    /// The claude.ai plan, when logged in with one.
    pub subscription_type: Option<String>,
    /// Whether plan rate limits apply (not for API keys, Bedrock, Vertex, …).
    #[serde(default)]
    pub rate_limits_available: bool,
    /// The plan's rate-limit windows, when they apply.
    pub rate_limits: Option<RateLimits>,
    /// What the local transcripts of the last day and week were spent on, as sent; `None` when
    /// skipped.
    pub behaviors: Option<serde_json::Value>,
}

/// The session part of a [`UsageReport`].
///
/// ```
/// # use claude_agent_tokio::control::SessionUsage;
/// let session: SessionUsage = serde_json::from_str(
///     r#"{"total_cost_usd":0.5,"total_api_duration_ms":1200,"total_duration_ms":9000,
///         "total_lines_added":12,"total_lines_removed":4,"model_usage":{}}"#,
/// )?;
/// assert_eq!(session.total_lines_added, 12);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct SessionUsage {
    /// Cost so far, in US dollars.
    #[serde(default)]
    pub total_cost_usd: f64,
    /// Time spent in API calls, in milliseconds.
    #[serde(default)]
    pub total_api_duration_ms: u64,
    /// Time since the session started, in milliseconds.
    #[serde(default)]
    pub total_duration_ms: u64,
    /// Lines added to files.
    #[serde(default)]
    pub total_lines_added: u64,
    /// Lines removed from files.
    #[serde(default)]
    pub total_lines_removed: u64,
    /// Usage by model.
    #[serde(default)]
    pub model_usage: std::collections::BTreeMap<String, crate::message::ModelUsage>,
}

/// The plan's rate-limit windows of a [`UsageReport`].
///
/// ```
/// # use claude_agent_tokio::control::RateLimits;
/// let limits: RateLimits = serde_json::from_str(
///     r#"{"five_hour":{"utilization":42.0,"resets_at":"2026-01-01T12:00:00Z"},"seven_day":null,
///         "model_scoped":[{"display_name":"Opus","utilization":10.0,"resets_at":null}]}"#,
/// )?;
/// assert_eq!(limits.five_hour.and_then(|w| w.utilization), Some(42.0));
/// assert_eq!(limits.model_scoped[0].display_name, "Opus");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct RateLimits {
    /// The 5-hour window.
    pub five_hour: Option<RateLimitWindow>,
    /// The 7-day window.
    pub seven_day: Option<RateLimitWindow>,
    /// The 7-day window of OAuth apps.
    pub seven_day_oauth_apps: Option<RateLimitWindow>,
    /// The 7-day window of Opus models.
    pub seven_day_opus: Option<RateLimitWindow>,
    /// The 7-day window of Sonnet models.
    pub seven_day_sonnet: Option<RateLimitWindow>,
    /// Windows of single models.
    #[serde(default)]
    pub model_scoped: Vec<ModelRateLimit>,
    /// Extra usage beyond the plan, as sent (`is_enabled`, `monthly_limit`, `used_credits`, …).
    pub extra_usage: Option<serde_json::Value>,
}

/// One rate-limit window.
///
/// ```
/// # use claude_agent_tokio::control::RateLimitWindow;
/// let window: RateLimitWindow = serde_json::from_str(r#"{"utilization":null,"resets_at":null}"#)?;
/// assert!(window.utilization.is_none());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct RateLimitWindow {
    /// How much of it is used (0–100), when known.
    pub utilization: Option<f64>,
    /// When it resets (ISO 8601), when known.
    pub resets_at: Option<String>,
}

/// The rate-limit window of one model.
///
/// ```
/// # use claude_agent_tokio::control::ModelRateLimit;
/// let opus: ModelRateLimit =
///     serde_json::from_str(r#"{"display_name":"Opus","utilization":87.5,"resets_at":"2026-01-02T00:00:00Z"}"#)?;
/// assert_eq!(opus.utilization, Some(87.5));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ModelRateLimit {
    /// The model's name.
    pub display_name: String,
    /// How much of it is used (0–100), when known.
    pub utilization: Option<f64>,
    /// When it resets (ISO 8601), when known.
    pub resets_at: Option<String>,
}
