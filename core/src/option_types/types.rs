//! Small value types of [`crate::options::AgentConfig`]: system prompt, tools, thinking, effort, setting sources,
//! skills, output format, plugins, how MCP servers and plugins are delivered.

use std::path::PathBuf;

use serde::{Serialize, Serializer};

/// The system prompt.
///
/// Without one, the session sends `systemPrompt: [""]` in `initialize` (an empty system prompt,
/// as the TypeScript SDK does); use [`SystemPrompt::preset`] for Claude Code's own prompt.
///
/// ```
/// # use claude_agent_tokio::options::SystemPrompt;
/// let own = SystemPrompt::from("You are a terse assistant.");
/// let claude_code = SystemPrompt::preset_with_append("Always answer in French.");
/// // Blocks before the boundary can be cached across sessions; the ones after it cannot.
/// let cached = SystemPrompt::blocks(["You review pull requests.", SystemPrompt::DYNAMIC_BOUNDARY, "Repository: acme/api"]);
/// // Render the prompt afresh on every request instead of recording it for the conversation.
/// let fresh = SystemPrompt::preset_with_append("Be brief.").with_snapshot(false);
/// # let _ = (own, claude_code, cached, fresh);
/// ```
///
/// Where each goes: text and the preset travel in `initialize`, a file on the command line.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, SystemPrompt};
/// use claude_agent_tokio::session::InputMode;
///
/// let mut options = AgentConfig::default();
/// options.system_prompt = Some(SystemPrompt::preset());
/// let fields = options.session_config(InputMode::Streaming, &HostDeclarations::NONE)?.initialize_fields;
/// assert!(fields.is_none()); // Claude Code's own prompt: nothing to send
///
/// options.system_prompt = Some(SystemPrompt::File("prompts/reviewer.md".into()));
/// let args = options.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&"--system-prompt-file=prompts/reviewer.md".to_owned()));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SystemPrompt {
    /// Your own prompt, replacing Claude Code's (initialize `systemPrompt: [blocks…]`); a plain
    /// text is one block.
    Custom {
        /// The prompt's blocks, in order; [`SystemPrompt::DYNAMIC_BOUNDARY`] as a block of its
        /// own marks where the cacheable part ends.
        blocks: Vec<String>,
        /// Whether the CLI records the rendered prompt once and reuses it for the whole
        /// conversation (initialize `systemPromptSnapshot`; the CLI's default is to record).
        snapshot: Option<bool>,
    },
    /// Claude Code's own prompt, optionally with text appended (initialize `appendSystemPrompt`).
    Preset {
        /// Text appended to the preset prompt.
        append: Option<String>,
        /// Leave machine-specific sections (cwd, git status, …) out of the prompt
        /// (initialize `excludeDynamicSections`).
        exclude_dynamic_sections: Option<bool>,
        /// Whether the CLI records the rendered prompt once and reuses it for the whole
        /// conversation (initialize `systemPromptSnapshot`; the CLI's default is to record).
        snapshot: Option<bool>,
    },
    /// Read the prompt from a file (`--system-prompt-file=<path>`).
    File(PathBuf),
}

impl SystemPrompt {
    /// The block that splits a [`SystemPrompt::blocks`] prompt into the part that is the same
    /// in every session (before it, cacheable across sessions) and the part that is not.
    ///
    /// ```
    /// # use claude_agent_tokio::options::SystemPrompt;
    /// assert_eq!(SystemPrompt::DYNAMIC_BOUNDARY, "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__");
    /// ```
    pub const DYNAMIC_BOUNDARY: &'static str = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

    /// This text as the whole system prompt.
    ///
    /// ```
    /// # use claude_agent_tokio::options::SystemPrompt;
    /// assert_eq!(SystemPrompt::text("Be terse."), SystemPrompt::from("Be terse."));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        SystemPrompt::Custom {
            blocks: vec![text.into()],
            snapshot: None,
        }
    }

    /// A prompt of several blocks, sent in order.
    ///
    /// ```
    /// # use claude_agent_tokio::options::{AgentConfig, SystemPrompt};
    /// let session_facts = format!("Today's on-call engineer: {}", "Ada");
    /// let mut options = AgentConfig::default();
    /// options.system_prompt = Some(SystemPrompt::blocks([
    ///     "You triage incidents for the platform team.".to_owned(),
    ///     SystemPrompt::DYNAMIC_BOUNDARY.to_owned(),
    ///     session_facts,
    /// ]));
    /// # let _ = options;
    /// ```
    pub fn blocks<I, S>(blocks: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        SystemPrompt::Custom {
            blocks: blocks.into_iter().map(Into::into).collect(),
            snapshot: None,
        }
    }

    /// Claude Code's own prompt, unchanged.
    pub fn preset() -> Self {
        SystemPrompt::Preset {
            append: None,
            exclude_dynamic_sections: None,
            snapshot: None,
        }
    }

    /// Claude Code's own prompt with `append` added at the end.
    pub fn preset_with_append(append: impl Into<String>) -> Self {
        SystemPrompt::Preset {
            append: Some(append.into()),
            exclude_dynamic_sections: None,
            snapshot: None,
        }
    }

    /// Whether the CLI records the prompt it renders on the conversation's first request and
    /// sends that record on every later request and resume (`true`, the CLI's default), or
    /// renders it afresh each time (`false`). Has no effect on a [`SystemPrompt::File`].
    ///
    /// ```
    /// # use claude_agent_tokio::options::SystemPrompt;
    /// // While iterating on the prompt's text within one conversation:
    /// let draft = SystemPrompt::text("You are a release bot. Draft notes only.").with_snapshot(false);
    /// # let _ = draft;
    /// ```
    pub fn with_snapshot(mut self, record: bool) -> Self {
        match &mut self {
            SystemPrompt::Custom { snapshot, .. } | SystemPrompt::Preset { snapshot, .. } => {
                *snapshot = Some(record);
            }
            SystemPrompt::File(_) => {}
        }
        self
    }
}

impl From<&str> for SystemPrompt {
    fn from(text: &str) -> Self {
        SystemPrompt::text(text)
    }
}

impl From<String> for SystemPrompt {
    fn from(text: String) -> Self {
        SystemPrompt::text(text)
    }
}

/// The set of built-in tools the model sees (`--tools`).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, Tools};
///
/// // It is the value of `AgentConfig::tools`; it reads back in a match:
/// let chosen = Tools::List(vec!["Read".into(), "Grep".into()]);
/// let flag = match &chosen {
///     Tools::List(names) => format!("--tools={}", names.join(",")),
///     Tools::Default => "--tools=default".to_owned(),
///     _ => unreachable!(),
/// };
/// let mut config = AgentConfig::default();
/// config.tools = Some(Tools::List(vec!["Read".into(), "Grep".into()]));
/// let args = config.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&flag));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tools {
    /// Only these tools (`--tools=a,b`; an empty list gives `--tools=`, no built-in tools).
    List(Vec<String>),
    /// Claude Code's default tool set (`--tools=default`).
    Default,
}

/// Extended thinking (`--thinking`, `--max-thinking-tokens`).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, Thinking};
///
/// for (thinking, flag) in [
///     (Thinking::Adaptive, "--thinking=adaptive"),
///     (Thinking::Disabled, "--thinking=disabled"),
///     (Thinking::Enabled { budget_tokens: Some(16_000) }, "--max-thinking-tokens=16000"),
/// ] {
///     let mut config = AgentConfig::default();
///     config.thinking = Some(thinking);
///     let args = config.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
///     assert!(args.contains(&flag.to_owned()));
/// }
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
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
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, ThinkingDisplay};
///
/// let display = ThinkingDisplay::Omitted;
/// let mut config = AgentConfig::default();
/// config.thinking_display = Some(display);
/// let args = config.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&format!("--thinking-display={}", display.as_str())));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
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
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, Effort, HostDeclarations};
///
/// let mut config = AgentConfig::default();
/// config.effort = Some(Effort::XHigh);
/// let args = config.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&format!("--effort={}", Effort::XHigh.as_str())));
/// assert_eq!(Effort::XHigh.as_str(), "xhigh");
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
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
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, AgentDefinition, HostDeclarations, SettingSource};
///
/// let mut options = AgentConfig::default();
/// options.setting_sources = Some(vec![SettingSource::User, SettingSource::Project]);
/// options.agents = vec![(
///     "planner".into(),
///     AgentDefinition::new("Plans work", "You plan.").memory(SettingSource::Project),
/// )];
/// let args = options.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&"--setting-sources=user,project".to_owned()));
/// assert_eq!(SettingSource::Local.as_str(), "local");
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
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
/// with [`crate::options::OptionsError::InvalidSkillName`].
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, OptionsError, Skills};
///
/// let mut config = AgentConfig::default();
/// config.skills = Some(Skills::All);
/// let all = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(all.args.contains(&"--allowedTools=Skill".to_owned()));
///
/// config.skills = Some(Skills::list(["pdf", "code-review"]));
/// let some = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(some.args.contains(&"--allowedTools=Skill(pdf),Skill(code-review)".to_owned()));
///
/// config.skills = Some(Skills::list(["/pdf"]));
/// let bad = config.launch_spec("claude".into(), &HostDeclarations::NONE);
/// assert!(matches!(bad, Err(OptionsError::InvalidSkillName { .. })));
/// # Ok::<(), OptionsError>(())
/// ```
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
///
/// ```
/// use claude_agent_tokio::message::Message;
/// use claude_agent_tokio::options::{AgentConfig, OutputFormat};
///
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"answer": {"type": "integer"}},
///     "required": ["answer"]
/// });
/// let mut config = AgentConfig::default();
/// config.output_format = Some(OutputFormat::JsonSchema(schema));
///
/// // The turn's result then carries the answer as `structured_output`:
/// let line = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"","structured_output":{"answer":4},"session_id":"s"}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// #[derive(serde::Deserialize)]
/// struct Answer {
///     answer: i64,
/// }
/// let answer: Answer = serde_json::from_str(result.structured_output.unwrap().as_str()).unwrap();
/// assert_eq!(answer.answer, 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputFormat {
    /// The result must match this JSON Schema; it arrives as `structured_output`.
    JsonSchema(serde_json::Value),
}

impl OutputFormat {
    /// The schema as the CLI gets it: without a top-level `$schema` tag (which `schemars` adds
    /// and the CLI refuses), the rest as given.
    pub(crate) fn schema_sent(&self) -> std::borrow::Cow<'_, serde_json::Value> {
        match self {
            OutputFormat::JsonSchema(schema) => match schema.as_object() {
                Some(object) if object.contains_key("$schema") => {
                    let mut object = object.clone();
                    object.remove("$schema");
                    std::borrow::Cow::Owned(serde_json::Value::Object(object))
                }
                _ => std::borrow::Cow::Borrowed(schema),
            },
        }
    }
}

/// A Claude Code plugin. Only `local` plugins (a directory) can be loaded: sent in `initialize`,
/// or as `--plugin-dir=<path>` (see [`Delivery`]).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, Delivery, HostDeclarations, OptionsError, PluginConfig};
///
/// let mut options = AgentConfig::default();
/// options.plugins.push(PluginConfig::local("/srv/plugins/formatter"));
/// options.plugin_delivery = Delivery::Argv;
/// let args = options.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.contains(&"--plugin-dir=/srv/plugins/formatter".to_owned()));
///
/// // Other types cannot be loaded yet:
/// let mut marketplace = AgentConfig::default();
/// marketplace.plugins.push(PluginConfig::new("marketplace", "formatter@acme"));
/// assert!(matches!(marketplace.launch_spec("claude".into(), &HostDeclarations::NONE), Err(OptionsError::UnsupportedPluginType { .. })));
/// # Ok::<(), OptionsError>(())
/// ```
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

    /// A plugin of another type (rejected by [`crate::options::AgentConfig::launch_spec`] until the CLI supports it).
    pub fn new(kind: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        PluginConfig {
            kind: kind.into(),
            path: path.into(),
        }
    }
}

/// Who answers permission prompts (`--permission-prompts`).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, PermissionPrompts};
///
/// // An unattended job: what the rules do not allow is refused at once, with no one asked.
/// let mut config = AgentConfig::default();
/// config.permission_prompts = Some(PermissionPrompts::Nobody);
/// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert_eq!(spec.args.last().map(String::as_str), Some("--permission-prompts=none"));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionPrompts {
    /// This process answers them, through `can_use_tool` or a permission prompt tool (`host`,
    /// the CLI's default).
    Host,
    /// Nobody: the permission mode, rules and hooks still decide, and whatever would be asked is
    /// refused at once, the model being told the session has no one to approve it; `can_use_tool`
    /// is never called (`none`).
    Nobody,
}

impl PermissionPrompts {
    /// The wire name.
    ///
    /// ```
    /// # use claude_agent_tokio::options::PermissionPrompts;
    /// assert_eq!(PermissionPrompts::Nobody.as_str(), "none");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionPrompts::Host => "host",
            PermissionPrompts::Nobody => "none",
        }
    }
}

/// Settings of the CLI's built-in tools (the TypeScript SDK's `toolConfig`), passed to the CLI
/// in its environment.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, PreviewFormat, ToolConfig};
///
/// let mut config = AgentConfig::default();
/// config.tool_config = Some(ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Html));
/// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(spec.env.contains(&("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(), "html".into())));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolConfig {
    /// What the `preview` of an `AskUserQuestion` option holds, and so what the model is told
    /// to write there (`CLAUDE_CODE_QUESTION_PREVIEW_FORMAT`; the CLI's default is Markdown).
    pub ask_user_question_preview_format: Option<PreviewFormat>,
}

impl ToolConfig {
    /// The CLI's defaults.
    ///
    /// ```
    /// # use claude_agent_tokio::options::ToolConfig;
    /// assert_eq!(ToolConfig::new().ask_user_question_preview_format, None);
    /// ```
    pub fn new() -> Self {
        ToolConfig::default()
    }

    /// See [`ToolConfig::ask_user_question_preview_format`](struct@ToolConfig#structfield.ask_user_question_preview_format).
    ///
    /// ```
    /// # use claude_agent_tokio::options::{PreviewFormat, ToolConfig};
    /// let html = ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Html);
    /// assert_eq!(html.ask_user_question_preview_format, Some(PreviewFormat::Html));
    /// ```
    pub fn ask_user_question_preview_format(mut self, format: PreviewFormat) -> Self {
        self.ask_user_question_preview_format = Some(format);
        self
    }
}

/// The format of `AskUserQuestion` option previews ([`ToolConfig`]).
///
/// ```
/// # use claude_agent_tokio::options::{AgentConfig, PreviewFormat, ToolConfig};
/// let mut terminal = AgentConfig::default();
/// terminal.tool_config = Some(ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Markdown));
/// # let _ = terminal;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PreviewFormat {
    /// Markdown or plain text, shown in a monospace box (`markdown`).
    Markdown,
    /// Self-contained HTML fragments, for hosts that render a web page (`html`).
    Html,
}

impl PreviewFormat {
    /// The wire name.
    ///
    /// ```
    /// # use claude_agent_tokio::options::PreviewFormat;
    /// assert_eq!(PreviewFormat::Html.as_str(), "html");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            PreviewFormat::Markdown => "markdown",
            PreviewFormat::Html => "html",
        }
    }
}

/// How external MCP servers ([`AgentConfig::mcp_servers`](crate::options::AgentConfig::mcp_servers)),
/// plugins ([`AgentConfig::plugins`](crate::options::AgentConfig::plugins)) and inline or managed
/// settings ([`AgentConfig::settings`](crate::options::AgentConfig::settings),
/// [`AgentConfig::managed_settings`](crate::options::AgentConfig::managed_settings)) reach the
/// CLI: [`AgentConfig::mcp_servers_delivery`](crate::options::AgentConfig::mcp_servers_delivery),
/// [`AgentConfig::plugin_delivery`](crate::options::AgentConfig::plugin_delivery),
/// [`AgentConfig::settings_delivery`](crate::options::AgentConfig::settings_delivery).
///
/// By default they travel over stdin in the `initialize` request, and the CLI is started with
/// `--await-initialize` so that it reads them before it starts. The command line of a process
/// can be read by every local user (`/proc/<pid>/cmdline`, `ps`), so a server's `env` and
/// `headers`, and the settings' `env`, which often hold tokens, are kept off it. `Argv` puts
/// them back on the command line (`--mcp-config <json>`, `--plugin-dir=<path>`,
/// `--settings <json>`, `--managed-settings <json>`), for a CLI that cannot read them from
/// `initialize` (MCP servers and plugins before 2.1.261; for settings, a CLI whose answer to
/// `initialize` has no `settings_applied`).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, Delivery, HostDeclarations, McpServerConfig, McpStdioServer};
///
/// let github = McpServerConfig::Stdio(
///     McpStdioServer::new("github-mcp-server").env("GITHUB_TOKEN", "ghp_example"),
/// );
/// let mut options = AgentConfig::default();
/// options.mcp_servers = vec![("github".into(), github.clone())];
/// let args = options.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(!args.iter().any(|arg| arg.contains("ghp_example")));
/// assert!(args.iter().any(|arg| arg == "--await-initialize"));
///
/// let mut on_argv = options.clone();
/// on_argv.mcp_servers_delivery = Delivery::Argv;
/// let args = on_argv.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert!(args.iter().any(|arg| arg.contains("ghp_example")));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delivery {
    /// In the `initialize` request (`mcpServers`, `plugins`, `settings`, `managedSettings`),
    /// with `--await-initialize`. For MCP servers and settings, the first prompt is written only
    /// once the CLI has said it took them (`mcp_servers_applied`, `settings_applied`,
    /// `managed_settings_applied`: `true`); otherwise `initialize` fails with
    /// [`RequestFailure::Unconfirmed`](crate::session::RequestFailure::Unconfirmed).
    #[default]
    Initialize,
    /// On the command line: `--mcp-config <json>` for MCP servers, one `--plugin-dir=<path>`
    /// per plugin, `--settings <json>` and `--managed-settings <json>` for settings.
    Argv,
}
