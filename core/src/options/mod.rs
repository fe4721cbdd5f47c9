//! Every SDK option, in one plain-data builder: [`Options`].
//!
//! Start with [`Options::new`] and chain the setters (`model`, `system_prompt`, `allowed_tools`,
//! `permission_mode`, `cwd`, `env`, …), then hand the options to `query` or `connect`.
//! With the `client` feature (on in the runtime crates) the same builder also takes the
//! callbacks: `can_use_tool`, `hook`/`on_hook`, `sdk_mcp_server`, `on_elicitation`, `stderr`.
//!
//! ```
//! use claude_agent_core::options::{Options, SystemPrompt};
//! use claude_agent_core::permission::PermissionMode;
//!
//! let options = Options::new()
//!     .model("sonnet")
//!     .system_prompt(SystemPrompt::preset_with_append("Answer briefly."))
//!     .permission_mode(PermissionMode::AcceptEdits)
//!     .max_turns(10);
//! # let _ = options;
//! ```
//!
//! [`Options`] starts nothing and reads no file. The session layer turns it into two things:
//! [`Options::launch_spec`], the CLI's command line and environment ([`LaunchSpec`]), and
//! [`Options::session_config`], what the session sends in `initialize` and which of the CLI's
//! requests the host answers ([`crate::session::SessionConfig`]). Both check the options first
//! and refuse contradictions with an [`OptionsError`] that says what to change. Which option goes
//! on the command line and which travels in `initialize` is described in `docs/PROTOCOL.md`
//! ("Launching the CLI", "The initialize request") in the repository.

mod claimed;
mod error;
mod initialize;
mod launch;
mod sandbox;
mod session_start;
mod setters;
mod settings;
mod skills;
mod validate;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::option_types::agent::{AgentDefinition, AgentEffort, AgentMcpServer};
pub use crate::option_types::mcp_config::{McpRemoteServer, McpServerConfig, McpStdioServer};
pub use crate::option_types::types::{
    Delivery, Effort, OutputFormat, PermissionPrompts, PluginConfig, PreviewFormat, SettingSource,
    Skills, SystemPrompt, Thinking, ThinkingDisplay, ToolConfig, Tools,
};
#[cfg(feature = "client")]
pub(crate) use claimed::AWAIT_CLAIM as AWAIT_CLAIM_FLAG;
pub use error::OptionsError;
pub use launch::LaunchSpec;
pub use sandbox::{SandboxNetwork, SandboxSettings};
pub use session_start::{Fork, Resume, SessionStart};

use crate::mcp::McpServerSpec;
use crate::option_types::redact::Pairs;
use crate::permission::PermissionMode;
use crate::session::HookMatcherConfig;
use settings::Settings;

/// Everything that configures one CLI session. Build it with [`Options::new`] and the consuming
/// setters, then turn it into a [`LaunchSpec`] and a [`crate::session::SessionConfig`].
///
/// `Debug` never prints the value of an environment variable whose name contains `KEY`, `TOKEN`,
/// `SECRET` or `PASSWORD` (any case).
///
/// Getters are named `get_*`, as on [`std::process::Command`], because the plain names are setters.
///
/// ```
/// use claude_agent_core::options::{Options, SystemPrompt};
///
/// let options = Options::new()
///     .model("sonnet")
///     .system_prompt(SystemPrompt::preset_with_append("Answer briefly."))
///     .allowed_tools(["Read", "Grep"])
///     .max_turns(5)
///     .cwd("/srv/project")
///     .env("ANTHROPIC_API_KEY", "sk-ant-example");
///
/// let spec = options.launch_spec("claude".into())?;
/// assert_eq!(
///     spec.args,
///     [
///         "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
///         "--max-turns=5", "--model=sonnet", "--allowedTools=Read,Grep",
///     ]
/// );
/// assert!(spec.env.contains(&("PWD".into(), "/srv/project".into())));
/// assert!(!format!("{options:?}").contains("sk-ant-example"));
///
/// // What was set reads back through the getters:
/// assert_eq!(options.get_cwd(), Some(std::path::Path::new("/srv/project")));
/// assert_eq!(options.get_env(), [("ANTHROPIC_API_KEY".to_owned(), "sk-ant-example".to_owned())]);
/// assert_eq!(options.get_cli_path(), None); // found on `PATH` when the session starts
/// assert!(!options.get_verbatim_prompts());
/// assert!(options.get_declared_hooks().is_empty() && options.get_sdk_mcp_servers().is_empty());
/// # Ok::<(), claude_agent_core::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Default)]
#[must_use = "the setters return the updated options"]
pub struct Options {
    system_prompt: Option<SystemPrompt>,
    tools: Option<Tools>,
    allowed_tools: Vec<String>,
    disallowed_tools: Vec<String>,
    max_turns: Option<u32>,
    max_budget_usd: Option<f64>,
    task_budget: Option<u64>,
    model: Option<String>,
    fallback_model: Option<String>,
    betas: Vec<String>,
    permission_prompt_tool_name: Option<String>,
    permission_mode: Option<PermissionMode>,
    permission_prompts: Option<PermissionPrompts>,
    allow_dangerously_skip_permissions: bool,
    session_start: SessionStart,
    settings: Option<Settings>,
    managed_settings: Option<crate::option_types::redact::SecretJson>,
    sandbox: Option<SandboxSettings>,
    project_config_root: Option<PathBuf>,
    add_dirs: Vec<PathBuf>,
    mcp_servers: Vec<(String, McpServerConfig)>,
    /// MCP configuration as a file path or JSON text, passed on as is.
    mcp_config: Option<String>,
    mcp_servers_delivery: Delivery,
    include_partial_messages: bool,
    include_hook_events: bool,
    strict_mcp_config: bool,
    setting_sources: Option<Vec<SettingSource>>,
    plugins: Vec<PluginConfig>,
    plugin_delivery: Delivery,
    extra_args: Vec<(String, Option<String>)>,
    thinking: Option<Thinking>,
    thinking_display: Option<ThinkingDisplay>,
    effort: Option<Effort>,
    output_format: Option<OutputFormat>,
    agents: Vec<(String, AgentDefinition)>,
    agent: Option<String>,
    skills: Option<Skills>,
    no_session_persistence: bool,
    debug: bool,
    debug_file: Option<PathBuf>,
    env: Pairs,
    /// Inherited variables the child must not see.
    env_removed: Vec<String>,
    /// `(traceparent, tracestate)` of the caller's trace.
    trace_context: Option<(String, Option<String>)>,
    tool_config: Option<ToolConfig>,
    user: Option<String>,
    cwd: Option<PathBuf>,
    cli_path: Option<PathBuf>,
    max_buffer_size: Option<usize>,
    control_timeout: Option<Duration>,
    initialize_timeout: Option<Duration>,
    verbatim_prompts: bool,
    forward_subagent_text: bool,
    title: Option<String>,
    prompt_suggestions: Option<bool>,
    plan_mode_instructions: Option<String>,
    tool_aliases: Vec<(String, String)>,
    agent_progress_summaries: Option<bool>,
    per_task_stop_affordance: Option<bool>,
    /// Dialog kinds the host renders; `Some` once a dialog callback is declared.
    user_dialog_kinds: Option<Vec<String>>,
    extra_initialize_fields: Vec<(String, serde_json::Value)>,
    enable_file_checkpointing: bool,
    client_app: Option<String>,
    can_use_tool: bool,
    elicitation: bool,
    /// `--session-mirror`: the CLI prints `transcript_mirror` frames for a session store.
    session_mirror: bool,
    hooks: Vec<HookMatcherConfig>,
    sdk_mcp_servers: Vec<McpServerSpec>,
    /// The user's callbacks; filled by the client layer, carried along here.
    #[cfg(feature = "client")]
    pub(crate) handlers: crate::client::Handlers,
    /// `record_to`: the file every line of the session is appended to.
    #[cfg(feature = "client")]
    pub(crate) record_to: Option<PathBuf>,
    /// Where the session's connection comes from, in place of spawning the CLI.
    #[cfg(feature = "client")]
    pub(crate) transport: Option<crate::client::transport::TransportRef>,
}

impl Options {
    /// Options with nothing set: the CLI's defaults, an empty system prompt, no callbacks.
    pub fn new() -> Self {
        Options::default()
    }

    /// The same as [`Options::new`].
    ///
    /// ```
    /// use claude_agent_core::options::Options;
    ///
    /// let options = Options::builder().model("haiku").max_turns(3);
    /// # let _ = options;
    /// ```
    pub fn builder() -> Self {
        Options::default()
    }

    /// The host answers `can_use_tool` permission prompts: adds `--permission-prompt-tool=stdio`
    /// and [`crate::session::SessionConfig::can_use_tool`]. The client layer calls this when a
    /// callback is registered.
    ///
    /// ```
    /// use claude_agent_core::options::Options;
    /// use claude_agent_core::session::InputMode;
    ///
    /// // A host driving a `Session` itself, answering permission prompts from its own UI:
    /// let options = Options::new().declare_can_use_tool();
    /// let spec = options.launch_spec("claude".into())?;
    /// assert!(spec.args.contains(&"--permission-prompt-tool=stdio".to_owned()));
    /// assert!(options.session_config(InputMode::Streaming)?.can_use_tool);
    /// # Ok::<(), claude_agent_core::options::OptionsError>(())
    /// ```
    pub fn declare_can_use_tool(mut self) -> Self {
        self.can_use_tool = true;
        self
    }

    /// The CLI prints each batch of transcript lines it writes as a `transcript_mirror` frame
    /// (`--session-mirror`), which the session hands out as
    /// [`Event::Mirror`](crate::session::Event::Mirror). The client layer calls this when a
    /// session store is set ([`Options::session_store`]).
    ///
    /// ```
    /// use claude_agent_core::options::Options;
    ///
    /// let spec = Options::new().declare_session_mirror().launch_spec("claude".into())?;
    /// assert!(spec.args.contains(&"--session-mirror".to_owned()));
    /// # Ok::<(), claude_agent_core::options::OptionsError>(())
    /// ```
    pub fn declare_session_mirror(mut self) -> Self {
        self.session_mirror = true;
        self
    }

    /// The host answers `elicitation` requests ([`crate::session::SessionConfig::elicitation`]).
    ///
    /// ```
    /// use claude_agent_core::options::Options;
    /// use claude_agent_core::session::InputMode;
    ///
    /// let config = Options::new().declare_elicitation().session_config(InputMode::Streaming)?;
    /// assert!(config.elicitation); // `elicitation` requests now come as `Event::Inbound`
    /// # Ok::<(), claude_agent_core::options::OptionsError>(())
    /// ```
    pub fn declare_elicitation(mut self) -> Self {
        self.elicitation = true;
        self
    }

    /// The host renders these `request_user_dialog` kinds and answers the dialogs
    /// ([`crate::session::SessionConfig::user_dialog`]; initialize `supportedDialogKinds`). The
    /// CLI sends only the kinds declared here; without any, it sends none and takes each
    /// dialog's fallback. The client layer calls this from `Options::on_user_dialog`.
    ///
    /// ```
    /// # use claude_agent_core::{options::Options, session::InputMode};
    /// let config = Options::new()
    ///     .declare_user_dialog(["refusal_fallback_prompt"])
    ///     .session_config(InputMode::Streaming)?;
    /// assert!(config.user_dialog);
    /// assert_eq!(
    ///     config.initialize_fields.unwrap().get(),
    ///     r#"{"systemPrompt":[""],"supportedDialogKinds":["refusal_fallback_prompt"]}"#
    /// );
    /// # Ok::<(), claude_agent_core::options::OptionsError>(())
    /// ```
    pub fn declare_user_dialog<I, S>(mut self, kinds: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.user_dialog_kinds = Some(kinds.into_iter().map(Into::into).collect());
        self
    }

    /// The host answers a hook matcher's callbacks.
    ///
    /// Callback ids `hook_0, hook_1, …` are given out event → matcher → callback, as both official
    /// SDKs do: events in the order each was first declared, then that event's matchers in
    /// declaration order, then each matcher's callbacks. So declaring `PreToolUse` (2 callbacks),
    /// `Stop` (1), `PreToolUse` (1) gives `hook_0, hook_1` and `hook_2` to the two `PreToolUse`
    /// matchers and `hook_3` to `Stop`. [`crate::session::SessionConfig::hooks`] is in that order;
    /// [`Options::hook_matcher_order`] maps it back to declaration order.
    ///
    /// ```
    /// use claude_agent_core::hooks::HookEvent;
    /// use claude_agent_core::options::Options;
    /// use claude_agent_core::session::{HookMatcherConfig, InputMode};
    ///
    /// let options = Options::new().declare_hook(HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 1));
    /// let config = options.session_config(InputMode::Streaming)?;
    /// assert_eq!(config.hooks[0].matcher.as_deref(), Some("Bash"));
    /// // The CLI then sends `hook_callback` requests for `hook_0`.
    /// # Ok::<(), claude_agent_core::options::OptionsError>(())
    /// ```
    pub fn declare_hook(mut self, matcher: HookMatcherConfig) -> Self {
        self.hooks.push(matcher);
        self
    }

    /// The host serves this in-process MCP server (initialize `sdkMcpServers`, never on argv).
    ///
    /// ```
    /// use claude_agent_core::mcp::{McpServerSpec, ToolSpec};
    /// use claude_agent_core::options::Options;
    /// use claude_agent_core::session::InputMode;
    /// use serde_json::value::RawValue;
    ///
    /// let schema = RawValue::from_string(r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}"#.into()).unwrap();
    /// let calc = McpServerSpec::new("calc", "1.0.0").tool(ToolSpec::new("add", "Add two numbers", schema));
    /// let options = Options::new().declare_sdk_mcp_server(calc).allowed_tools(["mcp__calc__add"]);
    /// let config = options.session_config(InputMode::Streaming)?;
    /// assert!(config.initialize_fields.unwrap().get().contains(r#""sdkMcpServers":["calc"]"#));
    /// assert_eq!(config.mcp_servers[0].name, "calc");
    /// # Ok::<(), claude_agent_core::options::OptionsError>(())
    /// ```
    pub fn declare_sdk_mcp_server(mut self, server: McpServerSpec) -> Self {
        self.sdk_mcp_servers.push(server);
        self
    }

    /// For each entry of [`crate::session::SessionConfig::hooks`], the index of the
    /// [`Options::declare_hook`] call it came from.
    ///
    /// ```
    /// # use claude_agent_core::{options::Options, hooks::HookEvent, session::HookMatcherConfig};
    /// let options = Options::new()
    ///     .declare_hook(HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 2))
    ///     .declare_hook(HookMatcherConfig::new(HookEvent::Stop, None, 1))
    ///     .declare_hook(HookMatcherConfig::new(HookEvent::PreToolUse, Some("Write".into()), 1));
    /// assert_eq!(options.hook_matcher_order(), [0, 2, 1]);
    /// ```
    pub fn hook_matcher_order(&self) -> Vec<usize> {
        initialize::hook_matcher_order(&self.hooks)
    }

    /// The hook matchers, in declaration order.
    pub fn get_declared_hooks(&self) -> &[HookMatcherConfig] {
        &self.hooks
    }

    /// The in-process MCP servers, in declaration order.
    pub fn get_sdk_mcp_servers(&self) -> &[McpServerSpec] {
        &self.sdk_mcp_servers
    }

    /// The rules given to [`Options::allowed_tools`], in order.
    #[cfg(feature = "tracing")]
    pub(crate) fn allowed_tool_rules(&self) -> &[String] {
        &self.allowed_tools
    }

    /// `Some("session_start")` when the options describe a session (one to resume, continue or
    /// fork, or the new session's id): a spare has no session until it is claimed.
    #[cfg(feature = "client")]
    pub(crate) fn session_option(&self) -> Option<&'static str> {
        (self.session_start != SessionStart::New).then_some("session_start")
    }

    /// The CLI executable set with [`Options::cli_path`], if any.
    pub fn get_cli_path(&self) -> Option<&Path> {
        self.cli_path.as_deref()
    }

    /// How the session starts, as set with [`Options::session_start`].
    ///
    /// ```
    /// use claude_agent_core::options::{Options, Resume, SessionStart};
    ///
    /// assert_eq!(Options::new().get_session_start(), &SessionStart::New);
    /// let resume = SessionStart::Resume(Resume::new("46eb1b6d-8361-4d7c-a347-8234db4a9d65"));
    /// assert_eq!(Options::new().session_start(resume.clone()).get_session_start(), &resume);
    /// ```
    pub fn get_session_start(&self) -> &SessionStart {
        &self.session_start
    }

    /// The working directory set with [`Options::cwd`], if any.
    pub fn get_cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// The environment overrides set with [`Options::env`], in order.
    pub fn get_env(&self) -> &[(String, String)] {
        &self.env.0
    }

    /// Whether every user message is stamped `"client_composed": true` (see [`Options::verbatim_prompts`]).
    pub fn get_verbatim_prompts(&self) -> bool {
        self.verbatim_prompts
    }
}
