//! `system`/`init`: the session's setup, printed at the start of each turn.

use crate::message::line_text::{self, LineText};
use crate::message::raw::message_struct;
use crate::message::StringList;
use serde::Deserialize;
use serde_json::value::RawValue;

message_struct! {
    /// `system`/`init`: tools, model, MCP servers, commands and settings of the session.
    ///
    /// Printed at the start of **each** turn. The scalar settings (`cwd()`, `model()`,
    /// `permission_mode()`, …) are read from the stored line by methods.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"init","cwd":"/tmp/ws","session_id":"a15484fc-b16c-479a-a5cb-6d08565127b0","tools":["Task","Bash","Read","mcp__calc__add"],"mcp_servers":[{"name":"calc","status":"connected","source":"sdk"}],"model":"claude-opus-5-5","permissionMode":"default","slash_commands":["compact","context","review"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330","output_style":"default","agents":["general-purpose","Explore","Plan"],"skills":[],"plugins":[{"name":"cc-plugin-privacy","path":"builtin","source":"cc-plugin-privacy@builtin"}],"capabilities":["interrupt_receipt_v1","msg_lifecycle_v1"],"uuid":"64cd43b5-3c62-43f2-8f36-e7527d9317da","fast_mode_state":"off"}"#;
    /// let Message::System(SystemMessage::Init(init)) = Message::parse(line).unwrap() else { panic!("not init") };
    /// assert_eq!(init.session_id(), "a15484fc-b16c-479a-a5cb-6d08565127b0");
    /// assert_eq!(init.cwd(), Some("/tmp/ws"));
    /// assert_eq!(init.model(), Some("claude-opus-5-5"));
    /// assert_eq!(init.permission_mode(), Some("default"));
    /// assert_eq!(init.api_key_source(), Some("ANTHROPIC_API_KEY"));
    /// assert_eq!(init.claude_code_version(), Some("2.1.330"));
    /// assert_eq!(init.output_style(), Some("default"));
    /// assert_eq!(init.fast_mode_state(), Some("off"));
    /// assert_eq!(init.effort(), None);
    /// assert!(init.tools.contains("Bash") && init.capabilities.contains("msg_lifecycle_v1"));
    /// assert_eq!(init.mcp_servers[0].status, "connected");
    /// assert_eq!(init.plugins()[0].name, "cc-plugin-privacy");
    /// assert_eq!(init.plugin_errors(), None);
    /// ```
    pub struct Init {
        #[serde(default, deserialize_with = "line_text::optional_str")]
        cwd: Option<LineText>,
        /// The tools the model can use.
        #[serde(default)]
        pub tools: StringList,
        /// MCP servers and their connection status.
        #[serde(default)]
        pub mcp_servers: Vec<McpServerStatus>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        model: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str", rename = "permissionMode")]
        permission_mode: Option<LineText>,
        /// Slash commands.
        #[serde(default)]
        pub slash_commands: StringList,
        #[serde(default, deserialize_with = "line_text::optional_str", rename = "apiKeySource")]
        api_key_source: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        claude_code_version: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        output_style: Option<LineText>,
        /// Available agents.
        #[serde(default)]
        pub agents: StringList,
        /// Available skills.
        #[serde(default)]
        pub skills: StringList,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        plugins: Option<LineText>,
        /// API betas in use.
        #[serde(default)]
        pub betas: StringList,
        /// Protocol capabilities of this CLI (`interrupt_receipt_v1`, …).
        #[serde(default)]
        pub capabilities: StringList,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        fast_mode_state: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        effort: Option<LineText>,
        /// Slash commands that only work in a terminal.
        #[serde(default)]
        pub terminal_slash_commands: StringList,
        #[serde(default, deserialize_with = "line_text::optional_json")]
        plugin_errors: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        fast_mode_disabled_reason: Option<LineText>,
        #[serde(default, deserialize_with = "line_text::optional_str")]
        view_mode: Option<LineText>,
    }
}

/// Scalar settings of the session, read from the stored line.
impl Init {
    /// The working directory.
    pub fn cwd(&self) -> Option<&str> {
        self.line_text(&self.cwd)
    }

    /// The model.
    pub fn model(&self) -> Option<&str> {
        self.line_text(&self.model)
    }

    /// The permission mode (`permissionMode`).
    pub fn permission_mode(&self) -> Option<&str> {
        self.line_text(&self.permission_mode)
    }

    /// Where the API key comes from (`apiKeySource`).
    pub fn api_key_source(&self) -> Option<&str> {
        self.line_text(&self.api_key_source)
    }

    /// The CLI version.
    pub fn claude_code_version(&self) -> Option<&str> {
        self.line_text(&self.claude_code_version)
    }

    /// The output style.
    pub fn output_style(&self) -> Option<&str> {
        self.line_text(&self.output_style)
    }

    /// `on`, `off` or `cooldown`.
    pub fn fast_mode_state(&self) -> Option<&str> {
        self.line_text(&self.fast_mode_state)
    }

    /// The reasoning effort.
    pub fn effort(&self) -> Option<&str> {
        self.line_text(&self.effort)
    }

    /// Why fast mode is off (`sdk_opt_in_required`, `model_not_allowed`, …).
    pub fn fast_mode_disabled_reason(&self) -> Option<&str> {
        self.line_text(&self.fast_mode_disabled_reason)
    }

    /// How the transcript is shown: `focus` (the user sees only each turn's final message, so a
    /// client may collapse each turn to its prompt and final reply; `/focus` toggles it) or
    /// `default`.
    pub fn view_mode(&self) -> Option<&str> {
        self.line_text(&self.view_mode)
    }

    /// Loaded plugins, read from the line on each call (most hosts never ask).
    ///
    /// Entries that do not fit [`PluginInfo`] are skipped; the JSON text is in [`Init::raw_json`].
    pub fn plugins(&self) -> Vec<PluginInfo> {
        let Some(json) = self.line_text(&self.plugins) else {
            return Vec::new();
        };
        // The text was checked to be JSON when the line was parsed; an array of something
        // else gives an empty list rather than an error.
        serde_json::from_str::<Vec<Lenient<PluginInfo>>>(json)
            .map(|items| items.into_iter().filter_map(|item| item.0).collect())
            .unwrap_or_default()
    }

    /// Plugin load errors, as JSON text.
    pub fn plugin_errors(&self) -> Option<&str> {
        self.line_text(&self.plugin_errors)
    }
}

/// One MCP server and its state, as `system/init` lists it ([`Init::mcp_servers`]) and as the
/// `mcp_status` request answers ([`McpStatus`](crate::control::McpStatus)).
///
/// ```
/// use claude_agent_tokio::message::{Message, SystemMessage};
///
/// let line = r#"{"type":"system","subtype":"init","session_id":"s","mcp_servers":[{"name":"calc","status":"connected","source":"sdk"},{"name":"github","status":"needs-auth","source":"user"}]}"#;
/// let Message::System(SystemMessage::Init(init)) = Message::parse(line).unwrap() else { panic!("not init") };
/// let not_ready: Vec<_> = init.mcp_servers.iter().filter(|s| s.status != "connected").map(|s| s.name.as_str()).collect();
/// assert_eq!(not_ready, ["github"]);
/// assert_eq!(init.mcp_servers[0].source.as_deref(), Some("sdk"));
///
/// // `mcp_status` says more of each server; what has no field here is in `details`:
/// let status: claude_agent_tokio::control::McpStatus = serde_json::from_str(
///     r#"{"mcpServers":[{"name":"github","status":"failed","error":"spawn npx ENOENT"}]}"#,
/// )
/// .unwrap();
/// assert_eq!(status.mcp_servers[0].details["error"], "spawn npx ENOENT");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct McpServerStatus {
    /// The server name.
    #[serde(default)]
    pub name: String,
    /// `connected`, `failed`, `needs-auth`, `pending`, `disabled`, …
    #[serde(default)]
    pub status: String,
    /// Where it was configured (`sdk`, `user`, `project`, …).
    #[serde(default)]
    pub source: Option<String>,
    /// The rest of the entry (server info, tools, error, …), as sent: what `mcp_status`
    /// answers has more than `system/init` lists.
    #[serde(flatten)]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// One plugin, as `system/init` lists it ([`Init::plugins()`]) and as `reload_plugins` answers
/// ([`ReloadPluginsResult`](crate::control::ReloadPluginsResult)).
///
/// ```
/// use claude_agent_tokio::message::{Message, SystemMessage};
///
/// let line = r#"{"type":"system","subtype":"init","session_id":"s","plugins":[{"name":"cc-plugin-agents-md","path":"builtin","source":"cc-plugin-agents-md@builtin"},{"name":"formatter","path":"/home/user/.claude/plugins/formatter","source":"formatter@acme","version":"1.2.0"}]}"#;
/// let Message::System(SystemMessage::Init(init)) = Message::parse(line).unwrap() else { panic!("not init") };
/// for plugin in init.plugins() {
///     println!("{} {} ({})", plugin.name, plugin.version.as_deref().unwrap_or(""), plugin.path);
/// }
/// assert_eq!(init.plugins()[1].source.as_deref(), Some("formatter@acme"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PluginInfo {
    /// The plugin name.
    #[serde(default)]
    pub name: String,
    /// Its path (or `builtin`).
    #[serde(default)]
    pub path: String,
    /// Its source (`name@marketplace`).
    #[serde(default)]
    pub source: Option<String>,
    /// Its version.
    #[serde(default)]
    pub version: Option<String>,
}

/// An item that is `None` when it does not fit `T`.
struct Lenient<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&RawValue>::deserialize(d)?;
        Ok(Lenient(serde_json::from_str(raw.get()).ok()))
    }
}

#[cfg(test)]
mod tests {
    use crate::message::{peek_tags, Message, SystemMessage};

    #[test]
    fn settings_and_plugins_read_from_the_line() {
        let line = r#"{"type":"system","subtype":"init","cwd":"/w\"s","model":"m","plugins":[{"name":"a","path":"builtin"},3,{"name":"b","path":"p","version":"1"}],"session_id":"s","uuid":"u"}"#;
        let Ok(Message::System(SystemMessage::Init(init))) =
            Message::parse_tagged(line, &peek_tags(line).unwrap())
        else {
            panic!("not an init")
        };
        assert_eq!((init.cwd(), init.model()), (Some("/w\"s"), Some("m")));
        assert_eq!((init.effort(), init.uuid()), (None, Some("u")));
        let names: Vec<_> = init.plugins().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["a", "b"]);
    }
}
