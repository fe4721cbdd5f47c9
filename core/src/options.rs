//! The session's configuration as plain data, [`AgentConfig`], and what it turns into.
//!
//! An [`AgentConfig`] starts nothing and reads no file. With the [`HostDeclarations`] of the
//! program driving the session (which of the CLI's requests it answers, which MCP servers it
//! serves in-process; the client layer derives them from its callbacks), it turns into two
//! things: [`AgentConfig::launch_spec`], the CLI's command line and environment
//! ([`LaunchSpec`]), and [`AgentConfig::session_config`], what the session sends in
//! `initialize` and which requests it hands to the host ([`crate::session::SessionConfig`]).
//! Both check the configuration first and refuse contradictions with an [`OptionsError`] that
//! says what to change. Which field goes on the command line and which travels in `initialize`
//! is described in `docs/PROTOCOL.md` ("Launching the CLI", "The initialize request") in the
//! repository.
//!
//! ```
//! use claude_agent_tokio::options::{AgentConfig, HostDeclarations, SystemPrompt};
//! use claude_agent_tokio::permission::PermissionMode;
//! use claude_agent_tokio::session::InputMode;
//!
//! let mut config = AgentConfig::default();
//! config.model = Some("sonnet".into());
//! config.system_prompt = Some(SystemPrompt::preset_with_append("Answer briefly."));
//! config.permission_mode = Some(PermissionMode::AcceptEdits);
//!
//! let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
//! assert!(spec.args.contains(&"--permission-mode=acceptEdits".to_owned()));
//! let session = config.session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
//! # let _ = session;
//! # Ok::<(), claude_agent_tokio::options::OptionsError>(())
//! ```

mod claimed;
mod declarations;
pub(crate) mod discovery;
mod error;
mod initialize;
mod launch;
mod sandbox;
mod session_start;
mod settings;
mod skills;
mod validate;

use std::path::PathBuf;
use std::time::Duration;

pub use crate::option_types::agent::{AgentDefinition, AgentEffort, AgentMcpServer};
pub use crate::option_types::mcp_config::{McpRemoteServer, McpServerConfig, McpStdioServer};
pub use crate::option_types::types::{
    Delivery, Effort, OutputFormat, PermissionPrompts, PluginConfig, PreviewFormat, SettingSource,
    Skills, SystemPrompt, Thinking, ThinkingDisplay, ToolConfig, Tools,
};
pub use claimed::AWAIT_CLAIM;
pub use declarations::HostDeclarations;
pub use discovery::{CliLocation, CliSearch, CLI_PATH_ENV};
pub use error::OptionsError;
pub use launch::LaunchSpec;
pub use sandbox::{SandboxNetwork, SandboxSettings};
pub use session_start::{Fork, Resume, SessionStart};

/// The variables of this process's environment a CLI needs to run its tools, for
/// [`AgentConfig::inherit_only`]: the search path, home and user, the shell, the temp
/// directory, locale and terminal, the time zone, proxies and extra CA certificates. Nothing
/// secret: give the CLI its credentials (`ANTHROPIC_API_KEY`, `CLAUDE_CODE_OAUTH_TOKEN`, a
/// cloud provider's) in [`AgentConfig::env`], so that its tools see no other.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, CLI_ENVIRONMENT};
///
/// let mut config = AgentConfig::default();
/// config.inherit_only = Some(CLI_ENVIRONMENT.iter().map(|name| name.to_string()).collect());
/// config.env = vec![("ANTHROPIC_API_KEY".into(), "sk-ant-…".into())];
/// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(spec.inherit_only.unwrap().contains(&"PATH".to_owned()));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
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

use std::fmt;

use crate::option_types::redact::{RedactedPairs, SecretJson};
use crate::permission::PermissionMode;
pub use settings::Settings;

/// Everything that configures one CLI session, as plain data: what the CLI is told on its
/// command line, in its environment and in `initialize`. Nothing here runs in this process; the
/// callbacks, session store, transport and fleet that do are the client layer's (its `Options`
/// holds an `AgentConfig` and those).
///
/// Set the fields you need on [`AgentConfig::default`] (every field unset is the CLI's
/// default), then turn it into the CLI's command line with [`AgentConfig::launch_spec`] and into
/// what the session sends in `initialize` with [`AgentConfig::session_config`]. Both check the
/// configuration first ([`AgentConfig::validate`]) and refuse contradictions with an
/// [`OptionsError`] that says what to change.
///
/// `Debug` never prints the value of an environment variable whose name contains `KEY`, `TOKEN`,
/// `SECRET` or `PASSWORD` (any case), nor the `env` and `headers` values of inline settings.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
///
/// let mut config = AgentConfig::default();
/// config.model = Some("sonnet".into());
/// config.allowed_tools = vec!["Read".into(), "Grep".into()];
/// config.max_turns = Some(5);
/// config.cwd = Some("/srv/project".into());
/// config.env = vec![("ANTHROPIC_API_KEY".into(), "sk-ant-example".into())];
///
/// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert_eq!(
///     spec.args,
///     [
///         "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
///         "--max-turns=5", "--model=sonnet", "--allowedTools=Read,Grep",
///     ]
/// );
/// assert!(spec.env.contains(&("PWD".into(), "/srv/project".into())));
/// assert!(!format!("{config:?}").contains("sk-ant-example"));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AgentConfig {
    /// The system prompt: text, Claude Code's preset (with text appended), or a file. Unset, the
    /// session sends an empty system prompt (initialize `systemPrompt: [""]`).
    pub system_prompt: Option<SystemPrompt>,
    /// The built-in tools: a list (`--tools=a,b`; empty disables all of them) or Claude Code's
    /// default set (`--tools=default`). Unset, the CLI's default.
    pub tools: Option<Tools>,
    /// Tools (or tool rules like `Bash(git:*)`) allowed without asking (`--allowedTools=a,b`).
    pub allowed_tools: Vec<String>,
    /// Tools (or rules) that are always refused (`--disallowedTools=a,b`).
    pub disallowed_tools: Vec<String>,
    /// Most agent turns per prompt (`--max-turns=N`); must be positive.
    pub max_turns: Option<u32>,
    /// Spending limit in US dollars, kept by the CLI (`--max-budget-usd=X`).
    pub max_budget_usd: Option<f64>,
    /// Token budget of the whole task, kept by the CLI (`--task-budget=N`); must be positive.
    pub task_budget: Option<u64>,
    /// The model, an alias (`sonnet`, `opus`, `haiku`) or a full name (`--model=M`).
    pub model: Option<String>,
    /// The model to use when the main one is overloaded (`--fallback-model=M`); must differ
    /// from the model.
    pub fallback_model: Option<String>,
    /// API beta headers, e.g. `context-1m-2025-08-07` (`--betas=a,b`).
    pub betas: Vec<String>,
    /// An MCP tool that answers permission prompts (`--permission-prompt-tool=NAME`).
    pub permission_prompt_tool_name: Option<String>,
    /// The starting permission mode (`--permission-mode=M`).
    pub permission_mode: Option<PermissionMode>,
    /// Who answers permission prompts (`--permission-prompts=…`).
    pub permission_prompts: Option<PermissionPrompts>,
    /// Allow switching to `bypassPermissions` later (`--allow-dangerously-skip-permissions`).
    pub allow_dangerously_skip_permissions: bool,
    /// Which conversation the session starts with: a new one (the default), one to resume,
    /// the most recent one, or a fork.
    pub session_start: SessionStart,
    /// The user's settings: a file the CLI reads, or JSON sent in `initialize` (see
    /// [`AgentConfig::settings_delivery`]).
    pub settings: Option<Settings>,
    /// Policy settings from the application that starts the CLI (initialize
    /// `managedSettings`, or `--managed-settings`).
    pub managed_settings: Option<serde_json::Value>,
    /// Sandbox settings, deep-merged into the settings' `sandbox` block.
    pub sandbox: Option<SandboxSettings>,
    /// The trusted checkout that the working directory is a worktree of
    /// (`CLAUDE_CODE_PROJECT_CONFIG_ROOT`).
    pub project_config_root: Option<PathBuf>,
    /// More directories the agent may access (`--add-dir=D`, once per directory).
    pub add_dirs: Vec<PathBuf>,
    /// External MCP servers by name, which the CLI starts or connects to itself.
    pub mcp_servers: Vec<(String, McpServerConfig)>,
    /// MCP servers from a configuration file or JSON text (`--mcp-config <value>`), passed on
    /// as is.
    pub mcp_config: Option<String>,
    /// How the external MCP servers reach the CLI: in `initialize` (the default) or on the
    /// command line.
    pub mcp_servers_delivery: Delivery,
    /// Stream partial assistant output as `stream_event` messages (`--include-partial-messages`).
    pub include_partial_messages: bool,
    /// Report hook activity as `system` messages (`--include-hook-events`).
    pub include_hook_events: bool,
    /// Use only the MCP servers given here (`--strict-mcp-config`).
    pub strict_mcp_config: bool,
    /// Which settings files the CLI reads (`--setting-sources=user,project`; empty reads none).
    pub setting_sources: Option<Vec<SettingSource>>,
    /// Plugins to load (only local plugins are supported).
    pub plugins: Vec<PluginConfig>,
    /// How the plugins reach the CLI: in `initialize` (the default) or on the command line.
    pub plugin_delivery: Delivery,
    /// How inline settings (with the sandbox merged in) reach the CLI: in `initialize` (the
    /// default) or as `--settings <json>`.
    pub settings_delivery: Delivery,
    /// Any other CLI flags, without leading dashes: `None` gives `--flag`, a value `--flag=value`.
    pub extra_args: Vec<(String, Option<String>)>,
    /// Extended thinking (`--thinking=…` or `--max-thinking-tokens=N`).
    pub thinking: Option<Thinking>,
    /// How thinking is shown (`--thinking-display=D`); refused while thinking is disabled.
    pub thinking_display: Option<ThinkingDisplay>,
    /// The effort level (`--effort=L`).
    pub effort: Option<Effort>,
    /// The shape of the final result (`--json-schema=…` and initialize `jsonSchema`).
    pub output_format: Option<OutputFormat>,
    /// Subagents by name (initialize `agents`).
    pub agents: Vec<(String, AgentDefinition)>,
    /// Run the main thread as this agent (`--agent=NAME`).
    pub agent: Option<String>,
    /// Which skills may be used (adds `Skill` or `Skill(name)` to the allowed tools).
    pub skills: Option<Skills>,
    /// Do not save the session to disk (`--no-session-persistence`).
    pub no_session_persistence: bool,
    /// Debug logging of the CLI (`--debug`), to stderr unless `debug_file` is set.
    pub debug: bool,
    /// Write the CLI's debug log to this file (`--debug-file=P`; replaces `--debug`).
    pub debug_file: Option<PathBuf>,
    /// Variables set in the child's environment, on top of the inherited ones, unique by name.
    pub env: Vec<(String, String)>,
    /// Inherited variables the child must not see.
    pub env_removed: Vec<String>,
    /// Let the child inherit only these of this process's environment variables (see
    /// [`CLI_ENVIRONMENT`]); `env` is set on top.
    pub inherit_only: Option<Vec<String>>,
    /// The caller's W3C trace, continued in the CLI: `(traceparent, tracestate)`.
    pub trace_context: Option<(String, Option<String>)>,
    /// Settings of the CLI's built-in tools, passed in the child's environment.
    pub tool_config: Option<ToolConfig>,
    /// Start the CLI as another Unix user (a name, or a numeric user id).
    pub user: Option<String>,
    /// Give each session a configuration folder of its own (`CLAUDE_CONFIG_DIR`).
    pub isolated_config: bool,
    /// The child's working directory (also sets `PWD`).
    pub cwd: Option<PathBuf>,
    /// The CLI executable to run, instead of looking one up ([`AgentConfig::cli_location`]).
    pub cli_path: Option<PathBuf>,
    /// Longest stdout line accepted, in bytes ([`crate::session::Limits::max_line_bytes`],
    /// default 16 MiB).
    pub max_buffer_size: Option<usize>,
    /// How long a control request (other than `initialize`) may take (default 60 s).
    pub control_timeout: Option<Duration>,
    /// How long `initialize` may take (default 60 s).
    pub initialize_timeout: Option<Duration>,
    /// Watch each turn for silence ([`crate::session::StallWatch`]).
    pub stall_watch: Option<crate::session::StallWatch>,
    /// Prices to work out each turn's cost from its tokens.
    pub prices: Option<crate::cost::PriceTable>,
    /// A spending limit for the session, kept by the SDK.
    pub budget: Option<crate::cost::Budget>,
    /// Stamp every user message `"client_composed": true`, so the CLI takes it verbatim.
    pub verbatim_prompts: bool,
    /// Forward subagents' text output to the host (initialize `forwardSubagentText: true`).
    pub forward_subagent_text: bool,
    /// The session's title (initialize `title`).
    pub title: Option<String>,
    /// Whether the CLI suggests a next prompt after each result (initialize `promptSuggestions`).
    pub prompt_suggestions: Option<bool>,
    /// The workflow the model follows in plan mode (initialize `planModeInstructions`).
    pub plan_mode_instructions: Option<String>,
    /// `(alias, tool)`: when the model calls the tool `alias`, run `tool` instead (initialize
    /// `toolAliases`).
    pub tool_aliases: Vec<(String, String)>,
    /// Short progress summaries of running subagents (initialize `agentProgressSummaries`).
    pub agent_progress_summaries: Option<bool>,
    /// Declare that the application lets the user stop each background task on its own
    /// (initialize `perTaskStopAffordance`).
    pub per_task_stop_affordance: Option<bool>,
    /// Any other `initialize` fields, for what the CLI reads there and this type does not name.
    pub extra_initialize_fields: Vec<(String, serde_json::Value)>,
    /// Track file changes so they can be rewound
    /// (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`).
    pub enable_file_checkpointing: bool,
    /// A label for the application using the SDK (`CLAUDE_AGENT_SDK_CLIENT_APP`).
    pub client_app: Option<String>,
}

/// Every field, with secret values hidden: variables whose name looks secret, and the `env` and
/// `headers` values of managed settings (inline settings hide theirs in [`Settings`]' `Debug`).
impl fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let AgentConfig {
            system_prompt,
            tools,
            allowed_tools,
            disallowed_tools,
            max_turns,
            max_budget_usd,
            task_budget,
            model,
            fallback_model,
            betas,
            permission_prompt_tool_name,
            permission_mode,
            permission_prompts,
            allow_dangerously_skip_permissions,
            session_start,
            settings,
            managed_settings,
            sandbox,
            project_config_root,
            add_dirs,
            mcp_servers,
            mcp_config,
            mcp_servers_delivery,
            include_partial_messages,
            include_hook_events,
            strict_mcp_config,
            setting_sources,
            plugins,
            plugin_delivery,
            settings_delivery,
            extra_args,
            thinking,
            thinking_display,
            effort,
            output_format,
            agents,
            agent,
            skills,
            no_session_persistence,
            debug,
            debug_file,
            env,
            env_removed,
            inherit_only,
            trace_context,
            tool_config,
            user,
            isolated_config,
            cwd,
            cli_path,
            max_buffer_size,
            control_timeout,
            initialize_timeout,
            stall_watch,
            prices,
            budget,
            verbatim_prompts,
            forward_subagent_text,
            title,
            prompt_suggestions,
            plan_mode_instructions,
            tool_aliases,
            agent_progress_summaries,
            per_task_stop_affordance,
            extra_initialize_fields,
            enable_file_checkpointing,
            client_app,
        } = self;
        f.debug_struct("AgentConfig")
            .field("system_prompt", system_prompt)
            .field("tools", tools)
            .field("allowed_tools", allowed_tools)
            .field("disallowed_tools", disallowed_tools)
            .field("max_turns", max_turns)
            .field("max_budget_usd", max_budget_usd)
            .field("task_budget", task_budget)
            .field("model", model)
            .field("fallback_model", fallback_model)
            .field("betas", betas)
            .field("permission_prompt_tool_name", permission_prompt_tool_name)
            .field("permission_mode", permission_mode)
            .field("permission_prompts", permission_prompts)
            .field(
                "allow_dangerously_skip_permissions",
                allow_dangerously_skip_permissions,
            )
            .field("session_start", session_start)
            .field("settings", settings)
            .field(
                "managed_settings",
                &managed_settings
                    .as_ref()
                    .map(|json| SecretJson(json.clone())),
            )
            .field("sandbox", sandbox)
            .field("project_config_root", project_config_root)
            .field("add_dirs", add_dirs)
            .field("mcp_servers", mcp_servers)
            .field("mcp_config", mcp_config)
            .field("mcp_servers_delivery", mcp_servers_delivery)
            .field("include_partial_messages", include_partial_messages)
            .field("include_hook_events", include_hook_events)
            .field("strict_mcp_config", strict_mcp_config)
            .field("setting_sources", setting_sources)
            .field("plugins", plugins)
            .field("plugin_delivery", plugin_delivery)
            .field("settings_delivery", settings_delivery)
            .field("extra_args", extra_args)
            .field("thinking", thinking)
            .field("thinking_display", thinking_display)
            .field("effort", effort)
            .field("output_format", output_format)
            .field("agents", agents)
            .field("agent", agent)
            .field("skills", skills)
            .field("no_session_persistence", no_session_persistence)
            .field("debug", debug)
            .field("debug_file", debug_file)
            .field("env", &RedactedPairs(env))
            .field("env_removed", env_removed)
            .field("inherit_only", inherit_only)
            .field("trace_context", trace_context)
            .field("tool_config", tool_config)
            .field("user", user)
            .field("isolated_config", isolated_config)
            .field("cwd", cwd)
            .field("cli_path", cli_path)
            .field("max_buffer_size", max_buffer_size)
            .field("control_timeout", control_timeout)
            .field("initialize_timeout", initialize_timeout)
            .field("stall_watch", stall_watch)
            .field("prices", prices)
            .field("budget", budget)
            .field("verbatim_prompts", verbatim_prompts)
            .field("forward_subagent_text", forward_subagent_text)
            .field("title", title)
            .field("prompt_suggestions", prompt_suggestions)
            .field("plan_mode_instructions", plan_mode_instructions)
            .field("tool_aliases", tool_aliases)
            .field("agent_progress_summaries", agent_progress_summaries)
            .field("per_task_stop_affordance", per_task_stop_affordance)
            .field("extra_initialize_fields", extra_initialize_fields)
            .field("enable_file_checkpointing", enable_file_checkpointing)
            .field("client_app", client_app)
            .finish()
    }
}
