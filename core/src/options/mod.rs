//! Every SDK option, in one plain-data builder: [`Options`].
//!
//! Start with [`Options::new`] and chain the setters (`model`, `system_prompt`, `allowed_tools`,
//! `permission_mode`, `cwd`, `env`, …), then hand the options to `query` or `connect`.
//! With the `client` feature (on in the runtime crates) the same builder also takes the
//! callbacks and what the client runs the session with: `on_permission_request`,
//! `on_hook`/`on_hook_event`, `sdk_mcp_server`, `on_elicitation`, `on_user_dialog`, `on_stderr`,
//! `session_store`, `transport`, `record_to`.
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
//! [`Options`] starts nothing and reads no file. With the [`HostDeclarations`] of the program
//! driving the session (which of the CLI's requests it answers, which MCP servers it serves
//! in-process; the client layer derives them from the callbacks), it turns into two things:
//! [`Options::launch_spec`], the CLI's command line and environment ([`LaunchSpec`]), and
//! [`Options::session_config`], what the session sends in `initialize` and which requests it
//! hands to the host ([`crate::session::SessionConfig`]). Both check the options first and
//! refuse contradictions with an [`OptionsError`] that says what to change. Which option goes
//! on the command line and which travels in `initialize` is described in `docs/PROTOCOL.md`
//! ("Launching the CLI", "The initialize request") in the repository.

#[cfg(feature = "client")]
mod carried;
mod claimed;
mod declarations;
pub(crate) mod discovery;
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
pub use declarations::HostDeclarations;
pub use discovery::{CliLocation, CliSearch, CLI_PATH_ENV};
pub use error::OptionsError;
pub use launch::LaunchSpec;
pub use sandbox::{SandboxNetwork, SandboxSettings};
pub use session_start::{Fork, Resume, SessionStart};

/// The variables of this process's environment a CLI needs to run its tools, for
/// [`Options::inherit_env_only`]: the search path, home and user, the shell, the temp
/// directory, locale and terminal, the time zone, proxies and extra CA certificates. Nothing
/// secret: give the CLI its credentials (`ANTHROPIC_API_KEY`, `CLAUDE_CODE_OAUTH_TOKEN`, a
/// cloud provider's) with [`Options::env`], so that its tools see no other.
///
/// ```
/// use claude_agent_core::options::{HostDeclarations, Options, CLI_ENVIRONMENT};
///
/// let options = Options::new()
///     .inherit_env_only(CLI_ENVIRONMENT.iter().copied())
///     .env("ANTHROPIC_API_KEY", "sk-ant-…");
/// let spec = options.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(spec.inherit_only.unwrap().contains(&"PATH".to_owned()));
/// # Ok::<(), claude_agent_core::options::OptionsError>(())
/// ```
pub const CLI_ENVIRONMENT: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TZ",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

use crate::option_types::redact::Pairs;
use crate::permission::PermissionMode;
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
/// use claude_agent_core::options::{HostDeclarations, Options, SystemPrompt};
///
/// let options = Options::new()
///     .model("sonnet")
///     .system_prompt(SystemPrompt::preset_with_append("Answer briefly."))
///     .allowed_tools(["Read", "Grep"])
///     .max_turns(5)
///     .cwd("/srv/project")
///     .env("ANTHROPIC_API_KEY", "sk-ant-example");
///
/// let spec = options.launch_spec("claude".into(), &HostDeclarations::NONE)?;
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
/// assert_eq!(options.get_cli_path(), None); // looked for when the session starts (`Options::cli_location`)
/// assert!(!options.get_verbatim_prompts());
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
    settings_delivery: Delivery,
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
    inherit_only: Option<Vec<String>>,
    /// `(traceparent, tracestate)` of the caller's trace.
    trace_context: Option<(String, Option<String>)>,
    tool_config: Option<ToolConfig>,
    user: Option<String>,
    isolated_config: bool,
    cwd: Option<PathBuf>,
    cli_path: Option<PathBuf>,
    max_buffer_size: Option<usize>,
    control_timeout: Option<Duration>,
    initialize_timeout: Option<Duration>,
    stall_watch: Option<crate::session::StallWatch>,
    prices: Option<crate::cost::PriceTable>,
    budget: Option<crate::cost::Budget>,
    verbatim_prompts: bool,
    forward_subagent_text: bool,
    title: Option<String>,
    prompt_suggestions: Option<bool>,
    plan_mode_instructions: Option<String>,
    tool_aliases: Vec<(String, String)>,
    agent_progress_summaries: Option<bool>,
    per_task_stop_affordance: Option<bool>,
    extra_initialize_fields: Vec<(String, serde_json::Value)>,
    enable_file_checkpointing: bool,
    client_app: Option<String>,
    /// The client layer's part: callbacks, session store, transport, recording.
    #[cfg(feature = "client")]
    pub(crate) client: carried::Carried,
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

    /// The rules given to [`Options::allowed_tools`], in order.
    ///
    /// ```
    /// # use claude_agent_core::options::Options;
    /// assert_eq!(Options::new().allowed_tools(["Read", "Bash(git:*)"]).get_allowed_tools(), ["Read", "Bash(git:*)"]);
    /// ```
    pub fn get_allowed_tools(&self) -> &[String] {
        &self.allowed_tools
    }

    /// The permission mode set with [`Options::permission_mode`], if any.
    ///
    /// ```
    /// # use claude_agent_core::options::Options;
    /// use claude_agent_core::permission::PermissionMode;
    /// let plan = Options::new().permission_mode(PermissionMode::Plan);
    /// assert_eq!(plan.get_permission_mode(), Some(&PermissionMode::Plan));
    /// ```
    pub fn get_permission_mode(&self) -> Option<&PermissionMode> {
        self.permission_mode.as_ref()
    }

    /// The W3C trace context set with [`Options::trace_context`]: `traceparent` and
    /// `tracestate`.
    ///
    /// ```
    /// # use claude_agent_core::options::Options;
    /// let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    /// let options = Options::new().trace_context(parent, None);
    /// assert_eq!(options.get_trace_context(), Some((parent, None)));
    /// ```
    pub fn get_trace_context(&self) -> Option<(&str, Option<&str>)> {
        self.trace_context
            .as_ref()
            .map(|(parent, state)| (parent.as_str(), state.as_deref()))
    }

    /// The working directory set with [`Options::cwd`], if any.
    pub fn get_cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// The user the CLI runs as, set with [`Options::user`], if any.
    ///
    /// ```
    /// # use claude_agent_core::options::Options;
    /// assert_eq!(Options::new().user("agent").get_user(), Some("agent"));
    /// ```
    pub fn get_user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// Whether each session gets a configuration folder of its own
    /// ([`Options::isolated_config`]).
    ///
    /// ```
    /// # use claude_agent_core::options::Options;
    /// assert!(Options::new().isolated_config(true).get_isolated_config());
    /// ```
    pub fn get_isolated_config(&self) -> bool {
        self.isolated_config
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
