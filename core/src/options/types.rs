//! Small value types of [`super::Options`]: system prompt, tools, thinking, effort, setting sources,
//! skills, output format, plugins.

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
/// // Blocks before the boundary can be cached across sessions; the ones after it cannot.
/// let cached = SystemPrompt::blocks(["You review pull requests.", SystemPrompt::DYNAMIC_BOUNDARY, "Repository: acme/api"]);
/// // Render the prompt afresh on every request instead of recording it for the conversation.
/// let fresh = SystemPrompt::preset_with_append("Be brief.").with_snapshot(false);
/// # let _ = (own, claude_code, cached, fresh);
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
    /// # use claude_agent_core::options::SystemPrompt;
    /// assert_eq!(SystemPrompt::DYNAMIC_BOUNDARY, "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__");
    /// ```
    pub const DYNAMIC_BOUNDARY: &'static str = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

    /// This text as the whole system prompt.
    ///
    /// ```
    /// # use claude_agent_core::options::SystemPrompt;
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
    /// # use claude_agent_core::options::{Options, SystemPrompt};
    /// let session_facts = format!("Today's on-call engineer: {}", "Ada");
    /// let options = Options::new().system_prompt(SystemPrompt::blocks([
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
    /// # use claude_agent_core::options::SystemPrompt;
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

/// A Claude Code plugin. Only `local` plugins (a directory) can be loaded (`--plugin-dir=<path>`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginConfig {
    /// The plugin type; `"local"` is the only one the CLI loads from the command line.
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

/// Who answers permission prompts (`--permission-prompts`).
///
/// ```
/// use claude_agent_core::options::{Options, PermissionPrompts};
///
/// // An unattended job: what the rules do not allow is refused at once, with no one asked.
/// let spec = Options::new()
///     .permission_prompts(PermissionPrompts::Nobody)
///     .launch_spec("claude".into())?;
/// assert_eq!(spec.args.last().map(String::as_str), Some("--permission-prompts=none"));
/// # Ok::<(), claude_agent_core::options::OptionsError>(())
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
    /// # use claude_agent_core::options::PermissionPrompts;
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
/// use claude_agent_core::options::{Options, PreviewFormat, ToolConfig};
///
/// let spec = Options::new()
///     .tool_config(ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Html))
///     .launch_spec("claude".into())?;
/// assert!(spec.env.contains(&("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(), "html".into())));
/// # Ok::<(), claude_agent_core::options::OptionsError>(())
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
    /// # use claude_agent_core::options::ToolConfig;
    /// assert_eq!(ToolConfig::new().ask_user_question_preview_format, None);
    /// ```
    pub fn new() -> Self {
        ToolConfig::default()
    }

    /// See [`ToolConfig::ask_user_question_preview_format`](struct@ToolConfig#structfield.ask_user_question_preview_format).
    ///
    /// ```
    /// # use claude_agent_core::options::{PreviewFormat, ToolConfig};
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
/// # use claude_agent_core::options::{Options, PreviewFormat, ToolConfig};
/// let terminal = Options::new()
///     .tool_config(ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Markdown));
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
    /// # use claude_agent_core::options::PreviewFormat;
    /// assert_eq!(PreviewFormat::Html.as_str(), "html");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            PreviewFormat::Markdown => "markdown",
            PreviewFormat::Html => "html",
        }
    }
}
