//! `system`/`init`: the session's setup, printed at the start of each turn.

use super::system_message;
use crate::message::StringList;
use serde::Deserialize;
use serde_json::value::RawValue;

system_message! {
    /// `system`/`init`: tools, model, MCP servers, commands and settings of the session.
    ///
    /// Printed at the start of **each** turn.
    pub struct Init {
        /// The working directory.
        #[serde(default)]
        pub cwd: String,
        /// The tools the model can use.
        #[serde(default)]
        pub tools: StringList,
        /// MCP servers and their connection status.
        #[serde(default)]
        pub mcp_servers: Vec<McpServerStatus>,
        /// The model.
        #[serde(default)]
        pub model: String,
        /// The permission mode (`permissionMode`).
        #[serde(default, rename = "permissionMode")]
        pub permission_mode: String,
        /// Slash commands.
        #[serde(default)]
        pub slash_commands: StringList,
        /// Where the API key comes from (`apiKeySource`).
        #[serde(default, rename = "apiKeySource")]
        pub api_key_source: Option<String>,
        /// The CLI version.
        #[serde(default)]
        pub claude_code_version: Option<String>,
        /// The output style.
        #[serde(default)]
        pub output_style: Option<String>,
        /// Available agents.
        #[serde(default)]
        pub agents: StringList,
        /// Available skills.
        #[serde(default)]
        pub skills: StringList,
        /// Loaded plugins.
        #[serde(default)]
        pub plugins: Vec<PluginInfo>,
        /// API betas in use.
        #[serde(default)]
        pub betas: StringList,
        /// Protocol capabilities of this CLI (`interrupt_receipt_v1`, …).
        #[serde(default)]
        pub capabilities: StringList,
        /// `on`, `off` or `cooldown`.
        #[serde(default)]
        pub fast_mode_state: Option<String>,
        /// The reasoning effort.
        #[serde(default)]
        pub effort: Option<String>,
        /// Slash commands that only work in a terminal.
        #[serde(default)]
        pub terminal_slash_commands: StringList,
        /// Plugin load errors, as raw JSON.
        #[serde(default)]
        pub plugin_errors: Option<Box<RawValue>>,
    }
}

/// One MCP server of [`Init::mcp_servers`].
#[derive(Debug, Clone, Deserialize)]
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
}

/// One plugin of [`Init::plugins`].
#[derive(Debug, Clone, Deserialize)]
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
