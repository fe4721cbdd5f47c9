use serde::Serialize;

use super::mcp_call::McpCall;
use crate::option_types::types::{PluginConfig, ThinkingDisplay};
use crate::permission::PermissionMode;
use crate::Json;

/// A control request the host sends to the CLI.
///
/// The first `initialize` is not here: the session sends it by itself, from its
/// [`crate::session::SessionConfig`]; [`ControlRequest::Reinitialize`] sends it again.
///
/// ```
/// # use claude_agent_tokio::control::ControlRequest;
/// let req = ControlRequest::SetModel { model: Some("claude-sonnet-4-5".into()) };
/// assert_eq!(req.subtype(), "set_model");
/// assert_eq!(req.body_json(), r#"{"subtype":"set_model","model":"claude-sonnet-4-5"}"#);
/// ```
///
/// A subtype this crate has no variant for goes as [`ControlRequest::Raw`]:
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::control::ControlRequest;
/// let req = ControlRequest::Raw {
///     subtype: "reload_plugins".into(),
///     body: "{}".parse::<Json>().unwrap(),
/// };
/// assert_eq!(req.subtype(), "reload_plugins");
/// assert_eq!(req.body_json(), r#"{"subtype":"reload_plugins"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ControlRequest {
    /// Stop the current turn. The CLI answers with an [`super::InterruptReceipt`] and then ends
    /// the turn with an error `result`.
    Interrupt,
    /// Stop the current turn and cancel the user messages still queued behind it (`interrupt`
    /// with `cancel_queued`): the receipt lists them as [`cancelled`](super::InterruptReceipt::cancelled).
    /// A note the CLI itself queued as context may stay. Needs the CLI's capability
    /// `interrupt_cancel_queued_v1`; an older CLI takes it as a plain interrupt.
    #[serde(skip)]
    InterruptAndCancelQueued,
    /// Change the permission mode for the rest of the session.
    SetPermissionMode {
        /// The new mode.
        mode: PermissionMode,
    },
    /// Change the model; `None` goes back to the default model.
    SetModel {
        /// Model name or alias.
        model: Option<String>,
    },
    /// Change the thinking budget; `None` clears it.
    SetMaxThinkingTokens {
        /// Token budget for extended thinking.
        max_thinking_tokens: Option<u64>,
        /// What becomes of the thinking display; left out of the request when kept.
        #[serde(skip_serializing_if = "ThinkingDisplayChange::is_keep")]
        thinking_display: ThinkingDisplayChange,
    },
    /// Undo file changes made after a user message (needs file checkpointing).
    RewindFiles {
        /// The `uuid` of the user message to rewind to.
        user_message_id: String,
        /// Only report what would change.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        dry_run: bool,
    },
    /// Ask for the state of every MCP server.
    McpStatus,
    /// Reconnect one MCP server.
    #[serde(rename = "mcp_reconnect")]
    McpReconnect {
        /// The server's name.
        #[serde(rename = "serverName")]
        server_name: String,
    },
    /// Enable or disable one MCP server.
    #[serde(rename = "mcp_toggle")]
    McpToggle {
        /// The server's name.
        #[serde(rename = "serverName")]
        server_name: String,
        /// Whether it should be enabled.
        enabled: bool,
    },
    /// Call a tool of an MCP server the CLI runs, with no model turn.
    McpCall(McpCall),
    /// Replace the set of dynamically added MCP servers: `{name: config}`.
    #[serde(rename = "mcp_set_servers")]
    McpSetServers {
        /// Server configurations by name, as the `--mcp-config` JSON would hold them.
        servers: Json,
    },
    /// Stop a background task.
    StopTask {
        /// The task's id from `system/task_started`.
        task_id: String,
    },
    /// Ask how the context window is used.
    GetContextUsage {
        /// How much detail to return.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<ContextUsageDetail>,
    },
    /// Send `initialize` again to a running CLI. The session writes the `initialize` request it
    /// started with (hooks, system prompt, agents, …), whatever this variant holds; the CLI
    /// answers as it did the first time, and redelivers the permission prompts and dialogs it is
    /// still waiting on.
    #[serde(rename = "initialize")]
    Reinitialize,
    /// Merge settings into the session's flag-settings layer (the layer `--settings` fills);
    /// top-level keys replace earlier ones, a `null` value removes a key.
    ApplyFlagSettings {
        /// A JSON object of settings.
        settings: Json,
    },
    /// Write settings into a settings file through the CLI, and apply them.
    UpdateSettings {
        /// Which file.
        source: SettingsFile,
        /// A JSON object of the keys to set.
        settings: Json,
    },
    /// Reload plugins from disk.
    ReloadPlugins(ReloadPlugins),
    /// Reload skills from disk.
    ReloadSkills,
    /// Read the output-style directories again.
    ReloadOutputStyles,
    /// Read a `ui://` resource of an MCP server the CLI connected.
    McpReadResource {
        /// The server's name.
        #[serde(rename = "serverName")]
        server_name: String,
        /// The resource's URI.
        uri: String,
    },
    /// Read a file of the session's file system, subject to the Read tool's permission rules.
    ReadFile(ReadFile),
    /// Tell the CLI that a file was read at a given modification time, so that editing it does
    /// not need another Read first.
    SeedReadState {
        /// The file.
        path: String,
        /// Its modification time, in whole milliseconds since the Unix epoch.
        mtime: u64,
    },
    /// Move running foreground tasks (Bash commands, subagents) to the background.
    BackgroundTasks {
        /// Only the task started by this tool use; all of them when `None`.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
    },
    /// Pin, or clear with `None`, the permission mode of one MCP server's tools.
    SetMcpPermissionModeOverride {
        /// The server's name.
        #[serde(rename = "serverName")]
        server_name: String,
        /// The mode; `None` clears the override.
        mode: Option<McpPermissionMode>,
    },
    /// Ask for the session's cost, token totals and plan rate limits.
    GetUsage {
        /// Leave out the scan of local transcripts behind the answer's `behaviors`.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        skip_behaviors: bool,
    },
    /// Drop a user message still waiting in the CLI's queue, by its `uuid`
    /// ([`UserInput::with_uuid`](crate::message::UserInput::with_uuid)); nothing happens if the
    /// CLI has taken it already. Answered with a [`MessageCancelled`](super::MessageCancelled).
    CancelAsyncMessage {
        /// The message's `uuid`.
        message_uuid: String,
    },
    /// Ask which models the session can use now, disabled ones included
    /// ([`ModelList`](super::ModelList)).
    ListModels,
    /// Ask for the settings in effect and each source's own ([`SettingsReport`](super::SettingsReport)).
    GetSettings,
    /// Ask for the files an `@`-mention of `query` would offer, as the CLI's own prompt offers
    /// them ([`FileSuggestions`](super::FileSuggestions)).
    FileSuggestions {
        /// The partial path typed after `@`.
        query: String,
    },
    /// Any other subtype, with its fields. `body` must be a JSON object; `subtype` is added to it.
    #[serde(skip)]
    Raw {
        /// The request subtype.
        subtype: String,
        /// The other request fields, as a JSON object.
        body: Json,
    },
}

/// What [`ControlRequest::SetMaxThinkingTokens`] does to the thinking display.
///
/// ```
/// # use claude_agent_tokio::control::{ControlRequest, ThinkingDisplayChange};
/// # use claude_agent_tokio::options::ThinkingDisplay;
/// let body = |thinking_display| {
///     ControlRequest::SetMaxThinkingTokens { max_thinking_tokens: Some(1000), thinking_display }
///         .body_json()
/// };
/// assert_eq!(
///     body(ThinkingDisplayChange::Keep),
///     r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1000}"#
/// );
/// assert_eq!(
///     body(ThinkingDisplay::Summarized.into()),
///     r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1000,"thinking_display":"summarized"}"#
/// );
/// assert_eq!(
///     body(ThinkingDisplayChange::Reset),
///     r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1000,"thinking_display":null}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ThinkingDisplayChange {
    /// Keep the display the session has (`thinking_display` left out).
    #[default]
    Keep,
    /// Drop the session's display override, so the CLI's default applies (`null`).
    Reset,
    /// Use this display from now on.
    Set(ThinkingDisplay),
}

impl ThinkingDisplayChange {
    fn is_keep(&self) -> bool {
        *self == ThinkingDisplayChange::Keep
    }
}

impl From<ThinkingDisplay> for ThinkingDisplayChange {
    fn from(display: ThinkingDisplay) -> Self {
        ThinkingDisplayChange::Set(display)
    }
}

impl Serialize for ThinkingDisplayChange {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ThinkingDisplayChange::Set(display) => display.serialize(serializer),
            _ => serializer.serialize_none(),
        }
    }
}

/// A settings file [`ControlRequest::UpdateSettings`] writes to. The CLI accepts only some keys
/// in each: `outputStyle` in the local file, `effortLevel` in the user's.
///
/// ```
/// # use claude_agent_tokio::control::{ControlRequest, SettingsFile};
/// let request = ControlRequest::UpdateSettings {
///     source: SettingsFile::Local,
///     settings: serde_json::json!({"outputStyle": "Explanatory"}).into(),
/// };
/// assert_eq!(
///     request.body_json(),
///     r#"{"subtype":"update_settings","source":"localSettings","settings":{"outputStyle":"Explanatory"}}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum SettingsFile {
    /// The project's `.claude/settings.local.json` (`localSettings`).
    #[serde(rename = "localSettings")]
    Local,
    /// The user's `~/.claude/settings.json` (`userSettings`).
    #[serde(rename = "userSettings")]
    User,
}

/// The permission mode [`ControlRequest::SetMcpPermissionModeOverride`] pins for one MCP
/// server. It can only tighten: it applies where the session's own mode would allow the tool
/// without asking.
///
/// ```
/// # use claude_agent_tokio::control::{ControlRequest, McpPermissionMode};
/// let request = ControlRequest::SetMcpPermissionModeOverride {
///     server_name: "github".into(),
///     mode: Some(McpPermissionMode::Default),
/// };
/// assert_eq!(
///     request.body_json(),
///     r#"{"subtype":"set_mcp_permission_mode_override","serverName":"github","mode":"default"}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum McpPermissionMode {
    /// Ask for every use of the server's tools.
    Default,
    /// Let the auto-mode classifier decide each use.
    Auto,
}

/// The `reload_plugins` request: plain, or with plugins to add and conditions.
///
/// ```
/// # use claude_agent_tokio::control::{ControlRequest, ReloadPlugins};
/// # use claude_agent_tokio::options::PluginConfig;
/// assert_eq!(
///     ControlRequest::ReloadPlugins(ReloadPlugins::new()).body_json(),
///     r#"{"subtype":"reload_plugins"}"#
/// );
/// let careful = ReloadPlugins::new()
///     .hold_on_cache_impact(true)
///     .add_plugin(PluginConfig::local("/srv/plugins/review"))
///     .refuse_if_busy(true);
/// assert_eq!(
///     ControlRequest::ReloadPlugins(careful).body_json(),
///     concat!(
///         r#"{"subtype":"reload_plugins","hold_on_cache_impact":true,"#,
///         r#""add_plugins":[{"type":"local","path":"/srv/plugins/review"}],"refuse_if_busy":true}"#
///     )
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReloadPlugins {
    /// When reloading would change the tools the conversation's prompt cache depends on, apply
    /// nothing and answer `held: true` with what would change.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hold_on_cache_impact: bool,
    /// Plugins to load as well, as if they had been given at launch (absolute paths).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "serialize_plugins"
    )]
    pub add_plugins: Vec<PluginConfig>,
    /// When the session is busy (a turn running or queued, background agents at work), reload
    /// nothing and refuse with the error code `reload_plugins_busy`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub refuse_if_busy: bool,
}

impl ReloadPlugins {
    /// Reload everything, with no condition.
    ///
    /// ```
    /// # use claude_agent_tokio::control::ReloadPlugins;
    /// assert_eq!(ReloadPlugins::new(), ReloadPlugins::default());
    /// ```
    pub fn new() -> Self {
        ReloadPlugins::default()
    }

    /// See [`ReloadPlugins::hold_on_cache_impact`](struct@ReloadPlugins#structfield.hold_on_cache_impact).
    ///
    /// ```
    /// # use claude_agent_tokio::control::ReloadPlugins;
    /// let careful = ReloadPlugins::new().hold_on_cache_impact(true);
    /// assert!(careful.hold_on_cache_impact);
    /// ```
    pub fn hold_on_cache_impact(mut self, hold: bool) -> Self {
        self.hold_on_cache_impact = hold;
        self
    }

    /// Load this plugin too.
    ///
    /// ```
    /// # use claude_agent_tokio::control::ReloadPlugins;
    /// # use claude_agent_tokio::options::PluginConfig;
    /// let more = ReloadPlugins::new().add_plugin(PluginConfig::local("/srv/plugins/lint"));
    /// assert_eq!(more.add_plugins.len(), 1);
    /// ```
    pub fn add_plugin(mut self, plugin: PluginConfig) -> Self {
        self.add_plugins.push(plugin);
        self
    }

    /// See [`ReloadPlugins::refuse_if_busy`](struct@ReloadPlugins#structfield.refuse_if_busy).
    ///
    /// ```
    /// # use claude_agent_tokio::control::ReloadPlugins;
    /// let polite = ReloadPlugins::new().refuse_if_busy(true);
    /// assert!(polite.refuse_if_busy);
    /// ```
    pub fn refuse_if_busy(mut self, refuse: bool) -> Self {
        self.refuse_if_busy = refuse;
        self
    }
}

/// `{"type":…,"path":…}` per plugin; a path that is not UTF-8 is sent with U+FFFD in place of
/// what cannot be read.
fn serialize_plugins<S: serde::Serializer>(
    plugins: &[PluginConfig],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;

    #[derive(Serialize)]
    struct Plugin<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        path: std::borrow::Cow<'a, str>,
    }
    let mut seq = serializer.serialize_seq(Some(plugins.len()))?;
    for plugin in plugins {
        seq.serialize_element(&Plugin {
            kind: &plugin.kind,
            path: plugin.path.to_string_lossy(),
        })?;
    }
    seq.end()
}

/// The `read_file` request: a path relative to the session's working directory or absolute,
/// with an optional size cap and encoding.
///
/// ```
/// # use claude_agent_tokio::control::{ControlRequest, ReadFile};
/// assert_eq!(
///     ControlRequest::ReadFile(ReadFile::new("notes.md")).body_json(),
///     r#"{"subtype":"read_file","path":"notes.md"}"#
/// );
/// assert_eq!(
///     ControlRequest::ReadFile(ReadFile::new("logo.png").max_bytes(65_536).base64()).body_json(),
///     r#"{"subtype":"read_file","path":"logo.png","max_bytes":65536,"encoding":"base64"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReadFile {
    /// The file.
    pub path: String,
    /// Read at most this many bytes (the CLI's default is 1 MiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// How the contents come back (the CLI's default is UTF-8 text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<FileEncoding>,
}

impl ReadFile {
    /// Read `path` whole (up to the CLI's cap), as text.
    ///
    /// ```
    /// # use claude_agent_tokio::control::ReadFile;
    /// let notes = ReadFile::new("NOTES.md");
    /// assert_eq!((notes.max_bytes, notes.encoding), (None, None));
    /// ```
    pub fn new(path: impl Into<String>) -> Self {
        ReadFile {
            path: path.into(),
            max_bytes: None,
            encoding: None,
        }
    }

    /// Read at most `bytes` bytes.
    ///
    /// ```
    /// # use claude_agent_tokio::control::ReadFile;
    /// let head = ReadFile::new("server.log").max_bytes(4_096);
    /// assert_eq!(head.max_bytes, Some(4_096));
    /// ```
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = Some(bytes);
        self
    }

    /// Get the contents base64-encoded, for binary files.
    ///
    /// ```
    /// # use claude_agent_tokio::control::{FileEncoding, ReadFile};
    /// let image = ReadFile::new("logo.png").base64();
    /// assert_eq!(image.encoding, Some(FileEncoding::Base64));
    /// ```
    pub fn base64(mut self) -> Self {
        self.encoding = Some(FileEncoding::Base64);
        self
    }
}

/// How [`ReadFile`] contents are encoded.
///
/// ```
/// # use claude_agent_tokio::control::{ControlRequest, FileEncoding, ReadFile};
/// let mut text = ReadFile::new("notes.md");
/// text.encoding = Some(FileEncoding::Utf8);
/// assert_eq!(
///     ControlRequest::ReadFile(text).body_json(),
///     r#"{"subtype":"read_file","path":"notes.md","encoding":"utf-8"}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum FileEncoding {
    /// Text (`utf-8`).
    #[serde(rename = "utf-8")]
    Utf8,
    /// Base64 (`base64`).
    #[serde(rename = "base64")]
    Base64,
}

/// How much of `/usage` to compute: `Client::usage` takes it.
///
/// ```
/// use claude_agent_tokio::control::UsageDetail;
///
/// // The scan of local transcripts behind `behaviors` takes a while; skip it for a quick look.
/// let quick = UsageDetail::WithoutBehaviors;
/// assert_ne!(quick, UsageDetail::Full);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UsageDetail {
    /// Everything, with the behaviors read from local transcripts.
    Full,
    /// Everything but the behaviors (`skip_behaviors`).
    WithoutBehaviors,
}

/// Detail level of a context-usage answer.
///
/// ```
/// use claude_agent_tokio::control::{ContextUsageDetail, ControlRequest};
///
/// let request = ControlRequest::GetContextUsage { detail: Some(ContextUsageDetail::Summary) };
/// assert_eq!(request.body_json(), r#"{"subtype":"get_context_usage","detail":"summary"}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ContextUsageDetail {
    /// Category totals.
    Summary,
    /// Everything the CLI reports.
    Full,
}

impl ControlRequest {
    /// The wire `subtype` of this request.
    pub fn subtype(&self) -> &str {
        match self {
            ControlRequest::Interrupt | ControlRequest::InterruptAndCancelQueued => "interrupt",
            ControlRequest::SetPermissionMode { .. } => "set_permission_mode",
            ControlRequest::SetModel { .. } => "set_model",
            ControlRequest::SetMaxThinkingTokens { .. } => "set_max_thinking_tokens",
            ControlRequest::RewindFiles { .. } => "rewind_files",
            ControlRequest::McpStatus => "mcp_status",
            ControlRequest::McpReconnect { .. } => "mcp_reconnect",
            ControlRequest::McpToggle { .. } => "mcp_toggle",
            ControlRequest::McpCall(_) => "mcp_call",
            ControlRequest::McpSetServers { .. } => "mcp_set_servers",
            ControlRequest::StopTask { .. } => "stop_task",
            ControlRequest::GetContextUsage { .. } => "get_context_usage",
            ControlRequest::Reinitialize => "initialize",
            ControlRequest::ApplyFlagSettings { .. } => "apply_flag_settings",
            ControlRequest::UpdateSettings { .. } => "update_settings",
            ControlRequest::ReloadPlugins(_) => "reload_plugins",
            ControlRequest::ReloadSkills => "reload_skills",
            ControlRequest::ReloadOutputStyles => "reload_output_styles",
            ControlRequest::McpReadResource { .. } => "mcp_read_resource",
            ControlRequest::ReadFile(_) => "read_file",
            ControlRequest::SeedReadState { .. } => "seed_read_state",
            ControlRequest::BackgroundTasks { .. } => "background_tasks",
            ControlRequest::SetMcpPermissionModeOverride { .. } => {
                "set_mcp_permission_mode_override"
            }
            ControlRequest::GetUsage { .. } => "get_usage",
            ControlRequest::CancelAsyncMessage { .. } => "cancel_async_message",
            ControlRequest::ListModels => "list_models",
            ControlRequest::GetSettings => "get_settings",
            ControlRequest::FileSuggestions { .. } => "file_suggestions",
            ControlRequest::Raw { subtype, .. } => subtype,
        }
    }

    /// The `request` object of the envelope, as JSON text.
    ///
    /// A [`ControlRequest::Raw`] whose body is not a JSON object is sent as `{"subtype":…}` alone.
    /// [`ControlRequest::Reinitialize`] gives `{"subtype":"initialize"}`: the session sends its
    /// own `initialize` body in its place.
    pub fn body_json(&self) -> String {
        match self {
            ControlRequest::Raw { subtype, body } => {
                let mut fields: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(body.as_str()).unwrap_or_default();
                fields.insert("subtype".into(), serde_json::Value::String(subtype.clone()));
                serde_json::to_string(&fields).expect("a JSON map always serializes")
            }
            ControlRequest::InterruptAndCancelQueued => {
                r#"{"subtype":"interrupt","cancel_queued":true}"#.to_owned()
            }
            other => serde_json::to_string(other).expect("control requests always serialize"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Json {
        Json::try_from(json.to_owned()).unwrap()
    }

    /// Each request next to the line the TypeScript SDK 0.3.330 writes for the same call
    /// (`Query` methods of `sdk.mjs`, captured from its stdin).
    #[test]
    fn requests_are_written_as_the_typescript_sdk_writes_them() {
        let cases: Vec<(ControlRequest, &str)> = vec![
            (
                ControlRequest::ApplyFlagSettings {
                    settings: raw(r#"{"model":"claude-flag-model","permissions":null}"#),
                },
                r#"{"subtype":"apply_flag_settings","settings":{"model":"claude-flag-model","permissions":null}}"#,
            ),
            (
                ControlRequest::UpdateSettings {
                    source: SettingsFile::Local,
                    settings: raw(r#"{"outputStyle":"Explanatory"}"#),
                },
                r#"{"subtype":"update_settings","source":"localSettings","settings":{"outputStyle":"Explanatory"}}"#,
            ),
            (
                ControlRequest::UpdateSettings {
                    source: SettingsFile::User,
                    settings: raw(r#"{"effortLevel":"high"}"#),
                },
                r#"{"subtype":"update_settings","source":"userSettings","settings":{"effortLevel":"high"}}"#,
            ),
            (
                ControlRequest::ReloadPlugins(ReloadPlugins::new()),
                r#"{"subtype":"reload_plugins"}"#,
            ),
            (
                ControlRequest::ReloadPlugins(
                    ReloadPlugins::new()
                        .hold_on_cache_impact(true)
                        .add_plugin(PluginConfig::local("/abs/plug"))
                        .refuse_if_busy(true),
                ),
                r#"{"subtype":"reload_plugins","hold_on_cache_impact":true,"add_plugins":[{"type":"local","path":"/abs/plug"}],"refuse_if_busy":true}"#,
            ),
            (
                ControlRequest::ReloadPlugins(
                    ReloadPlugins::new()
                        .hold_on_cache_impact(false)
                        .refuse_if_busy(false),
                ),
                r#"{"subtype":"reload_plugins"}"#,
            ),
            (
                ControlRequest::ReloadSkills,
                r#"{"subtype":"reload_skills"}"#,
            ),
            (
                ControlRequest::ReloadOutputStyles,
                r#"{"subtype":"reload_output_styles"}"#,
            ),
            (
                ControlRequest::McpReadResource {
                    server_name: "srv".into(),
                    uri: "ui://widget".into(),
                },
                r#"{"subtype":"mcp_read_resource","serverName":"srv","uri":"ui://widget"}"#,
            ),
            (
                ControlRequest::ReadFile(ReadFile::new("hello.txt")),
                r#"{"subtype":"read_file","path":"hello.txt"}"#,
            ),
            (
                ControlRequest::ReadFile(ReadFile::new("hello.txt").max_bytes(3).base64()),
                r#"{"subtype":"read_file","path":"hello.txt","max_bytes":3,"encoding":"base64"}"#,
            ),
            (
                ControlRequest::SeedReadState {
                    path: "hello.txt".into(),
                    mtime: 1_700_000_000_123,
                },
                r#"{"subtype":"seed_read_state","path":"hello.txt","mtime":1700000000123}"#,
            ),
            (
                ControlRequest::BackgroundTasks { tool_use_id: None },
                r#"{"subtype":"background_tasks"}"#,
            ),
            (
                ControlRequest::BackgroundTasks {
                    tool_use_id: Some("toolu_1".into()),
                },
                r#"{"subtype":"background_tasks","tool_use_id":"toolu_1"}"#,
            ),
            (
                ControlRequest::SetMcpPermissionModeOverride {
                    server_name: "srv".into(),
                    mode: Some(McpPermissionMode::Default),
                },
                r#"{"subtype":"set_mcp_permission_mode_override","serverName":"srv","mode":"default"}"#,
            ),
            (
                ControlRequest::SetMcpPermissionModeOverride {
                    server_name: "srv".into(),
                    mode: Some(McpPermissionMode::Auto),
                },
                r#"{"subtype":"set_mcp_permission_mode_override","serverName":"srv","mode":"auto"}"#,
            ),
            (
                ControlRequest::SetMcpPermissionModeOverride {
                    server_name: "srv".into(),
                    mode: None,
                },
                r#"{"subtype":"set_mcp_permission_mode_override","serverName":"srv","mode":null}"#,
            ),
            (
                ControlRequest::GetUsage {
                    skip_behaviors: false,
                },
                r#"{"subtype":"get_usage"}"#,
            ),
            (
                ControlRequest::GetUsage {
                    skip_behaviors: true,
                },
                r#"{"subtype":"get_usage","skip_behaviors":true}"#,
            ),
            (
                ControlRequest::SetMaxThinkingTokens {
                    max_thinking_tokens: Some(1000),
                    thinking_display: ThinkingDisplayChange::Keep,
                },
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1000}"#,
            ),
            (
                ControlRequest::SetMaxThinkingTokens {
                    max_thinking_tokens: None,
                    thinking_display: ThinkingDisplayChange::Keep,
                },
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":null}"#,
            ),
            (
                ControlRequest::SetMaxThinkingTokens {
                    max_thinking_tokens: Some(1000),
                    thinking_display: ThinkingDisplay::Summarized.into(),
                },
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1000,"thinking_display":"summarized"}"#,
            ),
            (
                ControlRequest::SetMaxThinkingTokens {
                    max_thinking_tokens: Some(1000),
                    thinking_display: ThinkingDisplayChange::Reset,
                },
                r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1000,"thinking_display":null}"#,
            ),
            (
                ControlRequest::GetContextUsage { detail: None },
                r#"{"subtype":"get_context_usage"}"#,
            ),
            (
                ControlRequest::GetContextUsage {
                    detail: Some(ContextUsageDetail::Summary),
                },
                r#"{"subtype":"get_context_usage","detail":"summary"}"#,
            ),
        ];
        for (request, typescript) in cases {
            assert_eq!(request.body_json(), typescript);
            let subtype: serde_json::Value = serde_json::from_str(typescript).unwrap();
            assert_eq!(request.subtype(), subtype["subtype"]);
        }
    }

    #[test]
    fn reinitialize_is_an_initialize_request() {
        assert_eq!(ControlRequest::Reinitialize.subtype(), "initialize");
        assert_eq!(
            ControlRequest::Reinitialize.body_json(),
            r#"{"subtype":"initialize"}"#
        );
    }
}
