//! Small value types of [`super::Options`]: system prompt, tools, thinking, effort, setting sources,
//! skills, output format, plugins, how MCP servers and plugins are delivered.

use std::path::PathBuf;

use serde::{Serialize, Serializer};

/// The system prompt.
///
/// Without one, the session sends `systemPrompt: [""]` in `initialize` (an empty system prompt,
/// as the TypeScript SDK does); use [`SystemPrompt::preset`] for Claude Code's own prompt.
///
/// ```
/// # use claude_agent_core::options::SystemPrompt;
/// let own = SystemPrompt::from("You are a terse assistant.");
/// let claude_code = SystemPrompt::preset_with_append("Always answer in French.");
/// # let _ = (own, claude_code);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SystemPrompt {
    /// This exact text replaces the default prompt (initialize `systemPrompt: [text]`).
    Text(String),
    /// Claude Code's own prompt, optionally with text appended (initialize `appendSystemPrompt`).
    Preset {
        /// Text appended to the preset prompt.
        append: Option<String>,
        /// Leave machine-specific sections (cwd, git status, …) out of the prompt
        /// (initialize `excludeDynamicSections`).
        exclude_dynamic_sections: Option<bool>,
    },
    /// Read the prompt from a file (`--system-prompt-file=<path>`).
    File(PathBuf),
}

impl SystemPrompt {
    /// Claude Code's own prompt, unchanged.
    pub fn preset() -> Self {
        SystemPrompt::Preset {
            append: None,
            exclude_dynamic_sections: None,
        }
    }

    /// Claude Code's own prompt with `append` added at the end.
    pub fn preset_with_append(append: impl Into<String>) -> Self {
        SystemPrompt::Preset {
            append: Some(append.into()),
            exclude_dynamic_sections: None,
        }
    }
}

impl From<&str> for SystemPrompt {
    fn from(text: &str) -> Self {
        SystemPrompt::Text(text.to_owned())
    }
}

impl From<String> for SystemPrompt {
    fn from(text: String) -> Self {
        SystemPrompt::Text(text)
    }
}

/// The set of built-in tools the model sees (`--tools`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tools {
    /// Only these tools (`--tools=a,b`; an empty list gives `--tools=`, no built-in tools).
    List(Vec<String>),
    /// Claude Code's default tool set (`--tools=default`).
    Default,
}

/// Extended thinking (`--thinking`, `--max-thinking-tokens`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// The model decides how much to think (`--thinking=adaptive`).
    Adaptive,
    /// No thinking (`--thinking=disabled`).
    Disabled,
    /// Thinking with a token budget (`--max-thinking-tokens=N`); without a budget it is
    /// the same as [`Thinking::Adaptive`].
    Enabled {
        /// Most tokens to spend on thinking.
        budget_tokens: Option<u32>,
    },
}

/// How thinking is shown in assistant messages (`--thinking-display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThinkingDisplay {
    /// `summarized`.
    Summarized,
    /// `omitted`: thinking blocks carry no text.
    Omitted,
    /// `highlights`.
    Highlights,
}

impl ThinkingDisplay {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingDisplay::Summarized => "summarized",
            ThinkingDisplay::Omitted => "omitted",
            ThinkingDisplay::Highlights => "highlights",
        }
    }
}

/// How much effort the model puts in (`--effort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
    /// `xhigh`.
    XHigh,
    /// `max`.
    Max,
}

impl Effort {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::XHigh => "xhigh",
            Effort::Max => "max",
        }
    }
}

impl Serialize for Effort {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A place the CLI reads settings from (`--setting-sources`), also the scope of an agent's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingSource {
    /// `user`: `~/.claude/settings.json`.
    User,
    /// `project`: `.claude/settings.json` of the project.
    Project,
    /// `local`: `.claude/settings.local.json` of the project.
    Local,
}

impl SettingSource {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SettingSource::User => "user",
            SettingSource::Project => "project",
            SettingSource::Local => "local",
        }
    }
}

impl Serialize for SettingSource {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Which skills the agent may use.
///
/// [`Skills::All`] allows the bare `Skill` tool; a list allows `Skill(<name>)` per name and is also
/// sent as initialize `skills`. A name the CLI would misread in `Skill(<name>)` (empty, with
/// surrounding whitespace, `(`, `)`, `,`, `*`, a control character, a leading `/`, …) is refused
/// with [`super::OptionsError::InvalidSkillName`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skills {
    /// Every skill.
    All,
    /// Only these skills.
    List(Vec<String>),
}

impl Skills {
    /// Only the named skills.
    pub fn list<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Skills::List(names.into_iter().map(Into::into).collect())
    }
}

/// The shape of the final result (`--json-schema` and initialize `jsonSchema`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputFormat {
    /// The result must match this JSON Schema; it arrives as `structured_output`.
    JsonSchema(serde_json::Value),
}

/// A Claude Code plugin. Only `local` plugins (a directory) can be loaded: sent in `initialize`,
/// or as `--plugin-dir=<path>` (see [`Delivery`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginConfig {
    /// The plugin type; `"local"` is the only one the CLI loads.
    pub kind: String,
    /// The plugin directory.
    pub path: PathBuf,
}

impl PluginConfig {
    /// A plugin in a local directory.
    pub fn local(path: impl Into<PathBuf>) -> Self {
        PluginConfig {
            kind: "local".into(),
            path: path.into(),
        }
    }

    /// A plugin of another type (rejected by [`super::Options::launch_spec`] until the CLI supports it).
    pub fn new(kind: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        PluginConfig {
            kind: kind.into(),
            path: path.into(),
        }
    }
}

/// How external MCP servers ([`super::Options::mcp_server`]) or plugins
/// ([`super::Options::plugin`]) reach the CLI: [`super::Options::mcp_servers_delivery`],
/// [`super::Options::plugin_delivery`].
///
/// By default they travel over stdin in the `initialize` request, and the CLI is started with
/// `--await-initialize` so that it reads them before it starts. The command line of a process
/// can be read by every local user (`/proc/<pid>/cmdline`, `ps`), so a server's `env` and
/// `headers`, which often hold tokens, are kept off it. `Argv` puts them back on the command
/// line (`--mcp-config <json>`, `--plugin-dir=<path>`), for a CLI older than 2.1.261, which has
/// no `--await-initialize`.
///
/// ```
/// use claude_agent_core::options::{Delivery, McpServerConfig, McpStdioServer, Options};
///
/// let github = McpServerConfig::Stdio(
///     McpStdioServer::new("github-mcp-server").env("GITHUB_TOKEN", "ghp_example"),
/// );
/// let options = Options::new().mcp_server("github", github.clone());
/// let args = options.launch_spec("claude".into())?.args;
/// assert!(!args.iter().any(|arg| arg.contains("ghp_example")));
/// assert!(args.iter().any(|arg| arg == "--await-initialize"));
///
/// let on_argv = options.mcp_servers_delivery(Delivery::Argv);
/// let args = on_argv.launch_spec("claude".into())?.args;
/// assert!(args.iter().any(|arg| arg.contains("ghp_example")));
/// # Ok::<(), claude_agent_core::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delivery {
    /// In the `initialize` request (`mcpServers`, `plugins`), with `--await-initialize`. For
    /// MCP servers, the first prompt is written only once the CLI has said it read them
    /// (`mcp_servers_applied: true`); otherwise `initialize` fails with
    /// [`RequestFailure::Unconfirmed`](crate::control::RequestFailure::Unconfirmed).
    #[default]
    Initialize,
    /// On the command line: `--mcp-config <json>` for MCP servers, one `--plugin-dir=<path>`
    /// per plugin.
    Argv,
}
