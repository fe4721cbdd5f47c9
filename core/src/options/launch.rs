//! The command line and environment of the CLI child: [`LaunchSpec`] and
//! [`AgentConfig::launch_spec`].
//!
//! Arguments follow the TypeScript SDK's order and forms: value flags are single `--flag=value`
//! tokens, so a value starting with `-` can never be read as a flag.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::OptionsError;
use super::settings::{settings_arg, Settings};
use super::{skills, AgentConfig, HostDeclarations};
use crate::option_types::mcp_config::McpServerConfig;
use crate::option_types::ordered_map::{to_json, OrderedMap};
use crate::option_types::redact::{Pairs, RedactedArgs, RedactedPairs};
use crate::option_types::types::{Delivery, SystemPrompt, Thinking, Tools};
use crate::permission::PermissionMode;

/// What to start: program, arguments in a fixed order, environment changes, working directory.
///
/// `Debug` never prints the value of an environment variable whose name contains `KEY`, `TOKEN`,
/// `SECRET` or `PASSWORD` (any case).
///
/// A host that starts the CLI itself (or a custom `Transport`) builds the process from it:
///
/// ```no_run
/// use std::process::{Command, Stdio};
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
///
/// let mut config = AgentConfig::default();
/// config.model = Some("sonnet".into());
/// config.cwd = Some("/srv/project".into());
/// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// let mut command = Command::new(&spec.program);
/// if let Some(names) = &spec.inherit_only {
///     command.env_clear();
///     command.envs(names.iter().filter_map(|name| Some((name, std::env::var_os(name)?))));
/// }
/// command.args(&spec.args).envs(spec.env.iter().map(|(k, v)| (k, v)));
/// for name in &spec.env_remove {
///     command.env_remove(name);
/// }
/// if let Some(dir) = &spec.cwd {
///     command.current_dir(dir);
/// }
/// let child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
/// # let _ = child;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LaunchSpec {
    /// The CLI executable.
    pub program: PathBuf,
    /// Arguments, never passed through a shell.
    pub args: Vec<String>,
    /// Variables to set in the child's environment, on top of the inherited one.
    pub env: Vec<(String, String)>,
    /// Variables to remove from the inherited environment (none of them is also in `env`).
    pub env_remove: Vec<String>,
    /// `None`: the child inherits this process's whole environment. `Some(names)`: only these
    /// variables of it (`AgentConfig::inherit_only`), then `env` on top. A runtime or transport
    /// of your own must do the same.
    pub inherit_only: Option<Vec<String>>,
    /// Working directory of the child.
    pub cwd: Option<PathBuf>,
    /// The Unix user to run the child as (a name or a numeric id), from `AgentConfig::user`: the
    /// runtime starts it with that user's id and primary group. A runtime or transport of your
    /// own must do the same, or refuse to start.
    pub user: Option<String>,
}

impl LaunchSpec {
    /// A command line that runs `program` with no arguments, in this process's working
    /// directory and environment: for a runtime's or transport's own tests (sessions get
    /// theirs from [`AgentConfig::launch_spec`]).
    ///
    /// ```
    /// use claude_agent_tokio::options::LaunchSpec;
    ///
    /// let mut spec = LaunchSpec::new("/bin/echo");
    /// spec.args.push("hello".into());
    /// assert_eq!(spec.program, std::path::Path::new("/bin/echo"));
    /// assert!(spec.env.is_empty() && spec.cwd.is_none());
    /// ```
    pub fn new(program: impl Into<PathBuf>) -> LaunchSpec {
        LaunchSpec {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            env_remove: Vec::new(),
            inherit_only: None,
            cwd: None,
            user: None,
        }
    }
}

impl fmt::Debug for LaunchSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaunchSpec")
            .field("program", &self.program)
            .field("args", &RedactedArgs(&self.args))
            .field("env", &RedactedPairs(&self.env))
            .field("env_remove", &self.env_remove)
            .field("inherit_only", &self.inherit_only)
            .field("cwd", &self.cwd)
            .field("user", &self.user)
            .finish()
    }
}

/// The value of `CLAUDE_CODE_ENTRYPOINT` unless the user sets it.
const ENTRYPOINT: &str = "sdk-rust";
/// Inherited variables the child must not see (unless the user sets them): `CLAUDECODE` makes the
/// CLI think it runs nested inside Claude Code; `NODE_OPTIONS` can break or hijack the CLI's
/// runtime; the others are switches the TypeScript SDK sets only from its options (progress
/// summaries are an `initialize` field here), so a stray inherited one does not change the CLI.
/// The derived client label is removed even when the user sets it ([`DERIVED_CLIENT_APP`]).
const REMOVED_VARS: [&str; 6] = [
    "CLAUDECODE",
    "NODE_OPTIONS",
    "CLAUDE_CODE_QUESTION_EXTENDED",
    "CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS",
    "CLAUDE_CODE_AGENT_PROGRESS_SUMMARIES",
    DERIVED_CLIENT_APP,
];
/// The label an official SDK derives for the app it runs in. Inherited from an outer session
/// (this program runs under an agent), it names that session's app, not this one: never passed
/// on, as the official Python SDK does. `Options::client_app` names this app.
const DERIVED_CLIENT_APP: &str = "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP";
const SESSION_STATE_VAR: &str = "CLAUDE_CODE_SDK_READS_SESSION_STATE";
/// Asks the CLI for an error result naming the reason when it refuses to start (otherwise it
/// writes one for only a few reasons, and exits with stderr alone for the rest).
const STARTUP_FAILURE_RESULTS_VAR: &str = "CLAUDE_CODE_STARTUP_FAILURE_RESULTS";
const TRACEPARENT: &str = "TRACEPARENT";
const TRACESTATE: &str = "TRACESTATE";

/// Builds the argument list.
struct Args(Vec<String>);

impl Args {
    /// `--flag`.
    fn flag(&mut self, flag: &str) {
        self.0.push(format!("--{flag}"));
    }

    /// `--flag` if `on`.
    fn switch(&mut self, flag: &str, on: bool) {
        if on {
            self.flag(flag);
        }
    }

    /// `--flag=value`, one token.
    fn value(&mut self, flag: &str, value: impl fmt::Display) {
        self.0.push(format!("--{flag}={value}"));
    }

    /// `--flag=value` if set.
    fn opt(&mut self, flag: &str, value: Option<impl fmt::Display>) {
        if let Some(value) = value {
            self.value(flag, value);
        }
    }

    /// `--flag=a,b` if the list is not empty.
    fn list(&mut self, flag: &str, items: &[String]) {
        if !items.is_empty() {
            self.value(flag, items.join(","));
        }
    }

    /// `--flag value` as two tokens, or `--flag=value` when the value is longer than one
    /// character and starts with `-` (the TypeScript SDK's rule for `--mcp-config` and extra args).
    fn pair(&mut self, flag: &str, value: &str) {
        if value.len() > 1 && value.starts_with('-') {
            self.value(flag, value);
        } else {
            self.flag(flag);
            self.0.push(value.to_owned());
        }
    }
}

fn utf8<'a>(option: &'static str, path: &'a Path) -> Result<&'a str, OptionsError> {
    path.to_str().ok_or_else(|| OptionsError::NonUtf8Path {
        option,
        path: path.display().to_string(),
    })
}

fn permission_mode_wire(mode: &PermissionMode) -> String {
    // `PermissionMode` serializes as its wire string.
    match serde_json::to_value(mode) {
        Ok(serde_json::Value::String(name)) => name,
        _ => to_json(mode),
    }
}

impl AgentConfig {
    /// The command line and environment changes that start the CLI for this configuration, with
    /// what `host` declares (`--permission-prompt-tool=stdio`, `--session-mirror`). The program is
    /// [`AgentConfig::cli_path`] when set, else `program` (where the host found the CLI, e.g. the
    /// first executable of [`AgentConfig::cli_location`]'s candidates).
    ///
    /// Arguments start with `--output-format stream-json --verbose --input-format stream-json`,
    /// then follow the TypeScript SDK's order; `--settings` (with the sandbox merged in) and the
    /// extra args come last. In-process MCP servers and everything that travels in `initialize`
    /// (system prompt, agents, external MCP servers and plugins unless their [`Delivery`] is
    /// `Argv`, …) are not on the command line; `--await-initialize` tells the CLI to read
    /// `initialize` before it starts when MCP servers or plugins are in it.
    ///
    /// The environment sets `CLAUDE_CODE_ENTRYPOINT=sdk-rust` (overridable), then the user's
    /// variables, then `CLAUDE_AGENT_SDK_VERSION` (not overridable),
    /// `CLAUDE_CODE_SDK_READS_SESSION_STATE=1` and `CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1` (unless
    /// the user set them, in any case),
    /// `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`, `CLAUDE_AGENT_SDK_CLIENT_APP`,
    /// `CLAUDE_CODE_QUESTION_PREVIEW_FORMAT` (from [`AgentConfig::tool_config`]), `TRACEPARENT` and
    /// `TRACESTATE` (from [`AgentConfig::trace_context`], unless the user set them) and `PWD` when
    /// those fields are set. It removes the inherited `CLAUDECODE`, `NODE_OPTIONS`,
    /// `CLAUDE_CODE_QUESTION_EXTENDED`, `CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS` and
    /// `CLAUDE_CODE_AGENT_PROGRESS_SUMMARIES`, the variables of [`AgentConfig::env_removed`], and
    /// `TRACESTATE` when a trace context without one is set; a variable the user sets is never
    /// removed, but `CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP`, which names the app of an outer agent
    /// session, is removed always (name this app with [`AgentConfig::client_app`]).
    ///
    /// ```
    /// # use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
    /// let mut config = AgentConfig::default();
    /// config.model = Some("-x".into());
    /// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert_eq!(spec.args.last().map(String::as_str), Some("--model=-x"));
    /// // The configuration's own path wins over the one found.
    /// config.cli_path = Some("/opt/claude".into());
    /// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert_eq!(spec.program, std::path::Path::new("/opt/claude"));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn launch_spec(
        &self,
        program: PathBuf,
        host: &HostDeclarations,
    ) -> Result<LaunchSpec, OptionsError> {
        self.validate(host)?;
        let args = self.args(host)?;
        let env = self.child_env()?;
        if let Some(what) = args.iter().find(|arg| arg.contains('\0')) {
            let what = what.split('=').next().unwrap_or(what).to_owned();
            return Err(OptionsError::NulByte { what });
        }
        if let Some((name, _)) = env.iter().find(|(_, value)| value.contains('\0')) {
            return Err(OptionsError::NulByte {
                what: format!("environment variable {name}"),
            });
        }
        let program = self.cli_path.clone().unwrap_or(program);
        let stale_tracestate = matches!(&self.trace_context, Some((_, None)));
        let mut env_remove: Vec<String> = Vec::new();
        for var in REMOVED_VARS
            .iter()
            .copied()
            .chain(stale_tracestate.then_some(TRACESTATE))
            .chain(self.env_removed.iter().map(String::as_str))
        {
            if !env.iter().any(|(name, _)| name == var) && !env_remove.iter().any(|v| v == var) {
                env_remove.push(var.to_owned());
            }
        }
        Ok(LaunchSpec {
            program,
            args,
            env,
            env_remove,
            inherit_only: self.inherit_only.clone(),
            cwd: self.cwd.clone(),
            user: self.user.clone(),
        })
    }

    fn args(&self, host: &HostDeclarations) -> Result<Vec<String>, OptionsError> {
        let mut a = Args(Vec::new());
        for token in [
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
        ] {
            a.0.push(token.to_owned());
        }
        if let Some(SystemPrompt::File(path)) = &self.system_prompt {
            a.value("system-prompt-file", utf8("system_prompt file", path)?);
        }
        let thinking = self.thinking;
        match thinking {
            None => {}
            Some(
                Thinking::Adaptive
                | Thinking::Enabled {
                    budget_tokens: None,
                },
            ) => a.value("thinking", "adaptive"),
            Some(Thinking::Disabled) => a.value("thinking", "disabled"),
            Some(Thinking::Enabled {
                budget_tokens: Some(tokens),
            }) => a.value("max-thinking-tokens", tokens),
        }
        a.opt(
            "thinking-display",
            self.thinking_display.map(|d| d.as_str()),
        );
        a.opt("effort", self.effort.map(|e| e.as_str()));
        a.opt("max-turns", self.max_turns);
        a.opt("max-budget-usd", self.max_budget_usd);
        a.opt("task-budget", self.task_budget);
        a.opt("model", self.model.as_ref());
        a.opt("agent", self.agent.as_ref());
        a.list("betas", &self.betas);
        if let Some(format) = &self.output_format {
            a.value("json-schema", to_json(&format.schema_sent()));
        }
        match (&self.debug_file, self.debug) {
            (Some(path), _) => a.value("debug-file", utf8("debug_file", path)?),
            (None, debug) => a.switch("debug", debug),
        }
        if host.can_use_tool {
            a.value("permission-prompt-tool", "stdio");
        } else {
            a.opt(
                "permission-prompt-tool",
                self.permission_prompt_tool_name.as_ref(),
            );
        }
        a.opt(
            "permission-prompts",
            self.permission_prompts.map(|who| who.as_str()),
        );
        a.switch("continue", self.session_start.continues());
        a.opt("resume", self.session_start.resume_id());
        a.list(
            "allowedTools",
            &skills::allowed_tools_with_skills(&self.allowed_tools, self.skills.as_ref()),
        );
        a.list("disallowedTools", &self.disallowed_tools);
        match &self.tools {
            None => {}
            Some(Tools::List(tools)) => a.value("tools", tools.join(",")),
            Some(Tools::Default) => a.value("tools", "default"),
        }
        if !self.mcp_servers.is_empty() && self.mcp_servers_delivery == Delivery::Argv {
            a.pair("mcp-config", &self.mcp_config_json());
        }
        if let Some(config) = &self.mcp_config {
            a.pair("mcp-config", config);
        }
        if let Some(sources) = &self.setting_sources {
            let names: Vec<&str> = sources.iter().map(|s| s.as_str()).collect();
            a.value("setting-sources", names.join(","));
        }
        a.switch("strict-mcp-config", self.strict_mcp_config);
        a.opt(
            "permission-mode",
            self.permission_mode.as_ref().map(permission_mode_wire),
        );
        a.switch(
            "allow-dangerously-skip-permissions",
            self.allow_dangerously_skip_permissions,
        );
        a.opt("fallback-model", self.fallback_model.as_ref());
        a.switch("include-hook-events", self.include_hook_events);
        a.switch("include-partial-messages", self.include_partial_messages);
        if let Some(root) = &self.project_config_root {
            a.value("project-config-root", utf8("project_config_root", root)?);
        }
        for dir in &self.add_dirs {
            a.value("add-dir", utf8("add_dirs", dir)?);
        }
        a.switch("await-initialize", self.reads_initialize_at_launch());
        if self.plugin_delivery == Delivery::Argv {
            for plugin in &self.plugins {
                a.value("plugin-dir", utf8("plugins", &plugin.path)?);
            }
        }
        let (resume_at, resume_drops) = self.session_start.resume_points();
        a.switch("fork-session", self.session_start.fork().is_some());
        a.opt("resume-session-at", resume_at);
        a.opt("resume-drops-turn", resume_drops);
        a.opt("session-id", self.session_start.new_session_id());
        a.switch("no-session-persistence", self.no_session_persistence);
        a.switch("session-mirror", host.session_mirror);
        if self.managed_settings_in_initialize() {
            a.flag("managed-settings-in-initialize");
        } else if let Some(managed) = &self.managed_settings {
            a.pair("managed-settings", &to_json(managed));
        }
        if self.settings_in_initialize() {
            a.value("initialize-fields", "settings");
        } else if let Some(settings) = settings_arg(self.settings.as_ref(), self.sandbox.as_ref())?
        {
            a.pair("settings", &settings);
        }
        for (flag, value) in &self.extra_args {
            match value {
                None => a.flag(flag),
                Some(value) => a.pair(flag, value),
            }
        }
        Ok(a.0)
    }

    /// Whether external MCP servers, plugins or settings travel in `initialize`, which the CLI
    /// then reads before it starts (`--await-initialize`).
    pub(crate) fn reads_initialize_at_launch(&self) -> bool {
        self.mcp_servers_in_initialize()
            || self.plugins_in_initialize()
            || self.settings_in_initialize()
            || self.managed_settings_in_initialize()
    }

    /// Whether inline settings (or a sandbox alone) travel in `initialize` (`settings`).
    /// `validate` checks that they make an object.
    pub(crate) fn settings_in_initialize(&self) -> bool {
        self.settings_delivery == Delivery::Initialize
            && match &self.settings {
                Some(Settings::Json(_)) => true,
                Some(Settings::File(_)) => false,
                None => self.sandbox.is_some(),
            }
    }

    pub(crate) fn managed_settings_in_initialize(&self) -> bool {
        self.managed_settings.is_some() && self.settings_delivery == Delivery::Initialize
    }

    pub(crate) fn mcp_servers_in_initialize(&self) -> bool {
        !self.mcp_servers.is_empty() && self.mcp_servers_delivery == Delivery::Initialize
    }

    pub(crate) fn plugins_in_initialize(&self) -> bool {
        !self.plugins.is_empty() && self.plugin_delivery == Delivery::Initialize
    }

    /// `{"mcpServers":{name: config, …}}` of the external servers, in the order they were added.
    fn mcp_config_json(&self) -> String {
        #[derive(Serialize)]
        struct McpConfig<'a> {
            #[serde(rename = "mcpServers")]
            mcp_servers: OrderedMap<'a, McpServerConfig>,
        }
        to_json(&McpConfig {
            mcp_servers: OrderedMap(&self.mcp_servers),
        })
    }

    fn child_env(&self) -> Result<Vec<(String, String)>, OptionsError> {
        let mut env = Pairs::default();
        if !self
            .env
            .iter()
            .any(|(name, _)| name == "CLAUDE_CODE_ENTRYPOINT")
        {
            env.set("CLAUDE_CODE_ENTRYPOINT".into(), ENTRYPOINT.into());
        }
        for (name, value) in self
            .env
            .iter()
            .filter(|(name, _)| name != DERIVED_CLIENT_APP)
        {
            env.set(name.clone(), value.clone());
        }
        env.set(
            "CLAUDE_AGENT_SDK_VERSION".into(),
            env!("CARGO_PKG_VERSION").into(),
        );
        if !self
            .env
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(SESSION_STATE_VAR))
        {
            env.set(SESSION_STATE_VAR.into(), "1".into());
        }
        if !self
            .env
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(STARTUP_FAILURE_RESULTS_VAR))
        {
            env.set(STARTUP_FAILURE_RESULTS_VAR.into(), "1".into());
        }
        if self.enable_file_checkpointing {
            env.set(
                "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING".into(),
                "true".into(),
            );
        }
        if let Some(label) = &self.client_app {
            env.set("CLAUDE_AGENT_SDK_CLIENT_APP".into(), label.clone());
        }
        if let Some(format) = self
            .tool_config
            .as_ref()
            .and_then(|config| config.ask_user_question_preview_format)
        {
            env.set(
                "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(),
                format.as_str().into(),
            );
        }
        if let Some((traceparent, tracestate)) = &self.trace_context {
            let user_set = |var: &str| self.env.iter().any(|(name, _)| name == var);
            if !user_set(TRACEPARENT) {
                env.set(TRACEPARENT.into(), traceparent.clone());
            }
            if let (Some(state), false) = (tracestate, user_set(TRACESTATE)) {
                env.set(TRACESTATE.into(), state.clone());
            }
        }
        if let Some(cwd) = &self.cwd {
            env.set("PWD".into(), utf8("cwd", cwd)?.to_owned());
        }
        Ok(env.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{
        AgentDefinition, Delivery, Effort, Fork, McpRemoteServer, McpServerConfig, McpStdioServer,
        OutputFormat, PermissionPrompts, PluginConfig, PreviewFormat, Resume, SandboxSettings,
        SessionStart, SettingSource, Skills, SystemPrompt, Thinking, ThinkingDisplay, ToolConfig,
    };
    use super::*;
    use crate::mcp::McpServerSpec;

    const FIXED: [&str; 5] = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
    ];
    const VERSION: &str = env!("CARGO_PKG_VERSION");

    fn spec(options: &AgentConfig) -> LaunchSpec {
        spec_with(options, &HostDeclarations::default())
    }

    fn spec_with(options: &AgentConfig, host: &HostDeclarations) -> LaunchSpec {
        options
            .launch_spec("claude".into(), host)
            .expect("test options are valid")
    }

    /// The arguments after the fixed five.
    fn tail(options: AgentConfig) -> Vec<String> {
        tail_with(options, &HostDeclarations::default())
    }

    fn tail_with(options: AgentConfig, host: &HostDeclarations) -> Vec<String> {
        let args = spec_with(&options, host).args;
        assert_eq!(args[..5], FIXED);
        args[5..].to_vec()
    }

    fn sdk_server(name: &str) -> McpServerSpec {
        McpServerSpec::new(name, "1.0.0")
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn defaults() {
        let spec = spec(&AgentConfig::default());
        assert_eq!(spec.program, PathBuf::from("claude"));
        assert_eq!(spec.args, FIXED);
        assert_eq!(
            spec.env,
            pairs(&[
                ("CLAUDE_CODE_ENTRYPOINT", "sdk-rust"),
                ("CLAUDE_AGENT_SDK_VERSION", VERSION),
                ("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1"),
                ("CLAUDE_CODE_STARTUP_FAILURE_RESULTS", "1"),
            ])
        );
        assert_eq!(
            spec.env_remove,
            [
                "CLAUDECODE",
                "NODE_OPTIONS",
                "CLAUDE_CODE_QUESTION_EXTENDED",
                "CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS",
                "CLAUDE_CODE_AGENT_PROGRESS_SUMMARIES",
                "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP",
            ]
        );
        assert_eq!(spec.cwd, None);
        assert_eq!(spec.user, None);
    }

    #[test]
    fn every_argv_option_in_typescript_order() {
        let options = AgentConfig {
            system_prompt: Some(SystemPrompt::File("/p/prompt.md".into())),
            settings: Some(Settings::Json(json!({"model": "x"}))),
            settings_delivery: Delivery::Argv,
            extra_args: vec![
                ("replay-user-messages".into(), None),
                ("foo".into(), Some("bar".into())),
            ],
            managed_settings: Some(json!({"permissions": {"deny": ["WebFetch"]}})),
            no_session_persistence: true,
            session_start: SessionStart::Resume(
                Resume::new("sess-1")
                    .drop_turn("u-2")
                    .at_message("u-1")
                    .fork(Fork::new().session_id("sid")),
            ),
            plugins: vec![PluginConfig::local("/plug")],
            add_dirs: vec!["/a".into(), "/b".into()],
            project_config_root: Some("/repo".into()),
            include_partial_messages: true,
            include_hook_events: true,
            fallback_model: Some("sonnet".into()),
            allow_dangerously_skip_permissions: true,
            permission_mode: Some(PermissionMode::AcceptEdits),
            strict_mcp_config: true,
            setting_sources: Some(vec![
                SettingSource::User,
                SettingSource::Project,
                SettingSource::Local,
            ]),
            mcp_config: Some("/etc/mcp.json".into()),
            mcp_servers: vec![("fs".into(), McpServerConfig::stdio("npx", ["srv"]))],
            mcp_servers_delivery: Delivery::Argv,
            plugin_delivery: Delivery::Argv,
            tools: Some(Tools::List(strings(&["Read", "Bash"]))),
            disallowed_tools: strings(&["Write"]),
            skills: Some(Skills::list(["pdf"])),
            allowed_tools: strings(&["Read", "Bash(git:*)"]),
            permission_prompts: Some(PermissionPrompts::Nobody),
            permission_prompt_tool_name: Some("mcp__perm__ask".into()),
            debug_file: Some("/tmp/d.log".into()),
            output_format: Some(OutputFormat::JsonSchema(json!({"type": "object"}))),
            betas: strings(&["context-1m-2025-08-07", "b2"]),
            agent: Some("reviewer".into()),
            model: Some("opus".into()),
            task_budget: Some(50_000),
            max_budget_usd: Some(2.5),
            max_turns: Some(7),
            effort: Some(Effort::High),
            thinking_display: Some(ThinkingDisplay::Summarized),
            thinking: Some(Thinking::Enabled {
                budget_tokens: Some(4096),
            }),
            ..AgentConfig::default()
        };
        assert_eq!(
            tail(options),
            [
                "--system-prompt-file=/p/prompt.md",
                "--max-thinking-tokens=4096",
                "--thinking-display=summarized",
                "--effort=high",
                "--max-turns=7",
                "--max-budget-usd=2.5",
                "--task-budget=50000",
                "--model=opus",
                "--agent=reviewer",
                "--betas=context-1m-2025-08-07,b2",
                r#"--json-schema={"type":"object"}"#,
                "--debug-file=/tmp/d.log",
                "--permission-prompt-tool=mcp__perm__ask",
                "--permission-prompts=none",
                "--resume=sess-1",
                "--allowedTools=Read,Bash(git:*),Skill(pdf)",
                "--disallowedTools=Write",
                "--tools=Read,Bash",
                "--mcp-config",
                r#"{"mcpServers":{"fs":{"type":"stdio","command":"npx","args":["srv"]}}}"#,
                "--mcp-config",
                "/etc/mcp.json",
                "--setting-sources=user,project,local",
                "--strict-mcp-config",
                "--permission-mode=acceptEdits",
                "--allow-dangerously-skip-permissions",
                "--fallback-model=sonnet",
                "--include-hook-events",
                "--include-partial-messages",
                "--project-config-root=/repo",
                "--add-dir=/a",
                "--add-dir=/b",
                "--plugin-dir=/plug",
                "--fork-session",
                "--resume-session-at=u-1",
                "--resume-drops-turn=u-2",
                "--session-id=sid",
                "--no-session-persistence",
                "--managed-settings",
                r#"{"permissions":{"deny":["WebFetch"]}}"#,
                "--settings",
                r#"{"model":"x"}"#,
                "--replay-user-messages",
                "--foo",
                "bar",
            ]
        );
    }

    /// The command line the TypeScript SDK 0.3.330 builds for the same options (captured from
    /// its `spawnClaudeCodeProcess`; its MCP servers go on the command line by default),
    /// tool configuration in the environment.
    #[test]
    fn newer_flags_as_the_typescript_sdk_places_them() {
        let options = AgentConfig {
            permission_prompt_tool_name: Some("mcp__perm__ask".into()),
            permission_prompts: Some(PermissionPrompts::Nobody),
            session_start: SessionStart::continue_last(),
            mcp_servers: vec![(
                "fs".into(),
                McpServerConfig::stdio("npx", Vec::<String>::new()),
            )],
            mcp_servers_delivery: Delivery::Argv,
            include_partial_messages: true,
            project_config_root: Some("/repo".into()),
            add_dirs: vec!["/a".into()],
            no_session_persistence: true,
            managed_settings: Some(json!({"permissions": {"deny": ["WebFetch"]}})),
            settings: Some(Settings::Json(json!({"model": "x"}))),
            settings_delivery: Delivery::Argv,
            tool_config: Some(
                ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Html),
            ),
            ..AgentConfig::default()
        };
        let typescript = [
            "--permission-prompt-tool=mcp__perm__ask",
            "--permission-prompts=none",
            "--continue",
            "--mcp-config",
            r#"{"mcpServers":{"fs":{"type":"stdio","command":"npx"}}}"#,
            "--include-partial-messages",
            "--project-config-root=/repo",
            "--add-dir=/a",
            "--no-session-persistence",
            "--managed-settings",
            r#"{"permissions":{"deny":["WebFetch"]}}"#,
            "--settings",
            r#"{"model":"x"}"#,
        ];
        assert_eq!(tail(options.clone()), typescript);
        assert!(spec(&options)
            .env
            .contains(&("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(), "html".into())));
    }

    #[test]
    fn options_that_stay_off_argv() {
        let options = AgentConfig {
            system_prompt: Some("text prompt".into()),
            agents: vec![("a".into(), AgentDefinition::new("d", "p"))],
            title: Some("t".into()),
            prompt_suggestions: Some(true),
            forward_subagent_text: true,
            verbatim_prompts: true,
            max_buffer_size: Some(1024),
            control_timeout: Some(std::time::Duration::from_secs(5)),
            initialize_timeout: Some(std::time::Duration::from_secs(5)),
            no_session_persistence: false,
            debug: false,
            ..AgentConfig::default()
        };
        let host = HostDeclarations::default().with(|host| {
            host.elicitation = true;
            host.sdk_mcp_servers.push(sdk_server("calc"));
        });
        assert_eq!(tail_with(options, &host), Vec::<String>::new());
    }

    #[test]
    fn single_forms() {
        let debug = AgentConfig {
            debug: true,
            ..AgentConfig::default()
        };
        assert_eq!(tail(debug.clone()), ["--debug"]);
        assert_eq!(
            tail(AgentConfig {
                debug_file: Some("/d".into()),
                ..debug
            }),
            ["--debug-file=/d"]
        );
        assert_eq!(
            tail(AgentConfig {
                tools: Some(Tools::Default),
                ..AgentConfig::default()
            }),
            ["--tools=default"]
        );
        assert_eq!(
            tail(AgentConfig {
                tools: Some(Tools::List(Vec::new())),
                ..AgentConfig::default()
            }),
            ["--tools="]
        );
        assert_eq!(
            tail(AgentConfig {
                setting_sources: Some(Vec::new()),
                ..AgentConfig::default()
            }),
            ["--setting-sources="]
        );
        assert_eq!(
            tail(AgentConfig {
                skills: Some(Skills::All),
                ..AgentConfig::default()
            }),
            ["--allowedTools=Skill"]
        );
        assert_eq!(
            tail(AgentConfig {
                add_dirs: vec!["/x".into()],
                ..AgentConfig::default()
            }),
            ["--add-dir=/x"]
        );
        assert_eq!(
            tail(AgentConfig {
                max_budget_usd: Some(3.0),
                ..AgentConfig::default()
            }),
            ["--max-budget-usd=3"]
        );
        assert_eq!(
            tail(AgentConfig {
                session_start: SessionStart::Resume(Resume::new("s").drop_turn("")),
                ..AgentConfig::default()
            }),
            ["--resume=s", "--resume-drops-turn="]
        );
        assert_eq!(
            tail_with(
                AgentConfig::default(),
                &HostDeclarations::default().with(|host| host.can_use_tool = true)
            ),
            ["--permission-prompt-tool=stdio"]
        );
        assert_eq!(
            tail(AgentConfig {
                permission_mode: Some(PermissionMode::Default),
                ..AgentConfig::default()
            }),
            ["--permission-mode=default"]
        );
        let efforts = [
            Effort::Low,
            Effort::Medium,
            Effort::High,
            Effort::XHigh,
            Effort::Max,
        ];
        let names: Vec<String> = efforts
            .into_iter()
            .flat_map(|e| {
                tail(AgentConfig {
                    effort: Some(e),
                    ..AgentConfig::default()
                })
            })
            .collect();
        assert_eq!(
            names,
            [
                "--effort=low",
                "--effort=medium",
                "--effort=high",
                "--effort=xhigh",
                "--effort=max"
            ]
        );
    }

    #[test]
    fn dash_leading_values_stay_one_token() {
        let options = AgentConfig {
            model: Some("-x".into()),
            session_start: SessionStart::Resume(
                Resume::new("--evil").fork(Fork::new().session_id("-s")),
            ),
            fallback_model: Some("--print".into()),
            allowed_tools: strings(&["-a", "b"]),
            ..AgentConfig::default()
        };
        assert_eq!(
            tail(options),
            [
                "--model=-x",
                "--resume=--evil",
                "--allowedTools=-a,b",
                "--fallback-model=--print",
                "--fork-session",
                "--session-id=-s"
            ]
        );
    }

    #[test]
    fn extra_args_and_settings_use_pairs_unless_dash_leading() {
        let options = AgentConfig {
            settings: Some(Settings::File("-settings.json".into())),
            extra_args: vec![
                ("a".into(), Some("--w".into())),
                ("b".into(), Some("-".into())),
                ("c".into(), None),
            ],
            ..AgentConfig::default()
        };
        assert_eq!(
            tail(options),
            ["--settings=-settings.json", "--a=--w", "--b", "-", "--c"]
        );
    }

    #[test]
    fn list_joining() {
        let options = AgentConfig {
            allowed_tools: strings(&["Read", "Grep", "Glob"]),
            disallowed_tools: strings(&["Bash", "Write"]),
            betas: strings(&["x", "y"]),
            ..AgentConfig::default()
        };
        assert_eq!(
            tail(options),
            [
                "--betas=x,y",
                "--allowedTools=Read,Grep,Glob",
                "--disallowedTools=Bash,Write"
            ]
        );
    }

    #[test]
    fn mcp_config_holds_external_servers_only_in_order() {
        let options = AgentConfig {
            mcp_servers_delivery: Delivery::Argv,
            mcp_servers: vec![
                ("zeta".into(), McpServerConfig::sse("https://z/sse")),
                (
                    "alpha".into(),
                    McpServerConfig::Http(McpRemoteServer::new("https://a/mcp").header("X", "1")),
                ),
                (
                    "raw".into(),
                    McpServerConfig::Raw(json!({"type": "stdio", "command": "r"})),
                ),
            ],
            ..AgentConfig::default()
        };
        let calc =
            HostDeclarations::default().with(|host| host.sdk_mcp_servers.push(sdk_server("calc")));
        assert_eq!(
            tail_with(options, &calc),
            [
                "--mcp-config",
                concat!(
                    r#"{"mcpServers":{"zeta":{"type":"sse","url":"https://z/sse"},"#,
                    r#""alpha":{"type":"http","url":"https://a/mcp","headers":{"X":"1"}},"#,
                    r#""raw":{"command":"r","type":"stdio"}}}"#
                ),
            ]
        );
        assert_eq!(
            tail_with(AgentConfig::default(), &calc),
            Vec::<String>::new()
        );
    }

    /// What the TypeScript SDK 0.3.330 puts on the command line with
    /// `mcpServersDelivery: 'initialize'` and `pluginDelivery: 'initialize'`: no server config and
    /// no plugin directory, and `--await-initialize` where `--plugin-dir` would be.
    #[test]
    fn servers_and_plugins_in_initialize_leave_only_await_initialize_on_argv() {
        let secret_env = McpServerConfig::Stdio(
            McpStdioServer::new("/bin/mcp")
                .args(["-v"])
                .env("TOKEN", "s3cret-env"),
        );
        let secret_header = McpServerConfig::Http(
            McpRemoteServer::new("https://x/mcp").header("Authorization", "Bearer s3cret-header"),
        );
        let options = AgentConfig {
            mcp_servers: vec![("ext".into(), secret_env), ("web".into(), secret_header)],
            strict_mcp_config: true,
            plugins: vec![PluginConfig::local("/opt/p")],
            add_dirs: vec!["/a".into()],
            session_start: SessionStart::Continue {
                fork: Some(Fork::new()),
                or_new: false,
            },
            ..AgentConfig::default()
        };
        let args = tail(options.clone());
        assert_eq!(
            args,
            [
                "--continue",
                "--strict-mcp-config",
                "--add-dir=/a",
                "--await-initialize",
                "--fork-session"
            ]
        );
        assert!(!spec(&options)
            .env
            .iter()
            .any(|(_, value)| value.contains("s3cret")));
        let plugin_only = AgentConfig {
            plugins: vec![PluginConfig::local("/opt/p")],
            ..AgentConfig::default()
        };
        assert_eq!(tail(plugin_only.clone()), ["--await-initialize"]);
        let server = vec![("fs".into(), McpServerConfig::stdio("srv", ["x"]))];
        assert_eq!(
            tail(AgentConfig {
                mcp_servers: server.clone(),
                plugin_delivery: Delivery::Argv,
                ..plugin_only
            }),
            ["--await-initialize", "--plugin-dir=/opt/p"]
        );
        assert_eq!(
            tail(AgentConfig {
                mcp_servers: server,
                mcp_servers_delivery: Delivery::Argv,
                ..AgentConfig::default()
            }),
            [
                "--mcp-config",
                r#"{"mcpServers":{"fs":{"type":"stdio","command":"srv","args":["x"]}}}"#
            ]
        );
    }

    #[test]
    fn settings_and_sandbox_merge_into_one_flag() {
        let options = AgentConfig {
            settings: Some(Settings::Json(json!(
                {"permissions":{"allow":["Read"]},"sandbox":{"excludedCommands":["git"]}}
            ))),
            sandbox: Some(
                SandboxSettings::new()
                    .enabled(true)
                    .excluded_commands(["docker"]),
            ),
            extra_args: vec![("x".into(), None)],
            ..AgentConfig::default()
        };
        let merged = concat!(
            r#"{"permissions":{"allow":["Read"]},"#,
            r#""sandbox":{"enabled":true,"excludedCommands":["git","docker"],"failIfUnavailable":true}}"#
        );
        // By default the merged settings travel in `initialize`.
        assert_eq!(
            tail(options.clone()),
            ["--await-initialize", "--initialize-fields=settings", "--x"]
        );
        let fields = options
            .session_config(
                crate::session::InputMode::Streaming,
                &HostDeclarations::NONE,
            )
            .unwrap()
            .initialize_fields
            .unwrap();
        let fields: serde_json::Value = fields.parse().unwrap();
        assert_eq!(fields["settings"].to_string(), merged);
        let options = AgentConfig {
            settings_delivery: Delivery::Argv,
            ..options
        };
        assert_eq!(tail(options), ["--settings", merged, "--x"]);
        let sandbox_only = AgentConfig {
            sandbox: Some(SandboxSettings::new().auto_allow_bash_if_sandboxed(true)),
            settings_delivery: Delivery::Argv,
            ..AgentConfig::default()
        };
        assert_eq!(
            tail(sandbox_only),
            [
                "--settings",
                r#"{"sandbox":{"autoAllowBashIfSandboxed":true}}"#
            ]
        );
        assert_eq!(
            tail(AgentConfig {
                settings: Some(Settings::File("/etc/s.json".into())),
                ..AgentConfig::default()
            }),
            ["--settings", "/etc/s.json"]
        );
    }

    #[test]
    fn thinking_variants() {
        let with = |thinking: Option<Thinking>, display: Option<ThinkingDisplay>| AgentConfig {
            thinking,
            thinking_display: display,
            ..AgentConfig::default()
        };
        let cases: [(AgentConfig, &[&str]); 6] = [
            (
                with(Some(Thinking::Adaptive), None),
                &["--thinking=adaptive"],
            ),
            (
                with(Some(Thinking::Disabled), None),
                &["--thinking=disabled"],
            ),
            (
                with(
                    Some(Thinking::Enabled {
                        budget_tokens: None,
                    }),
                    None,
                ),
                &["--thinking=adaptive"],
            ),
            (
                with(
                    Some(Thinking::Enabled {
                        budget_tokens: Some(1000),
                    }),
                    None,
                ),
                &["--max-thinking-tokens=1000"],
            ),
            (
                with(Some(Thinking::Adaptive), Some(ThinkingDisplay::Omitted)),
                &["--thinking=adaptive", "--thinking-display=omitted"],
            ),
            (
                with(None, Some(ThinkingDisplay::Highlights)),
                &["--thinking-display=highlights"],
            ),
        ];
        for (options, expected) in cases {
            assert_eq!(tail(options), expected);
        }
    }

    #[test]
    fn env_overrides_and_fixed_variables() {
        let options = AgentConfig {
            env: pairs(&[
                ("FOO", "1"),
                ("CLAUDE_CODE_ENTRYPOINT", "my-app"),
                ("CLAUDE_AGENT_SDK_VERSION", "9.9.9"),
                ("claude_code_sdk_reads_session_state", "0"),
                ("NODE_OPTIONS", "--max-old-space-size=64"),
                ("CLAUDE_CODE_STARTUP_FAILURE_RESULTS", "0"),
            ]),
            enable_file_checkpointing: true,
            client_app: Some("app/1.0".into()),
            cwd: Some("/w".into()),
            ..AgentConfig::default()
        };
        let spec = spec(&options);
        assert_eq!(
            spec.env,
            pairs(&[
                ("FOO", "1"),
                ("CLAUDE_CODE_ENTRYPOINT", "my-app"),
                ("CLAUDE_AGENT_SDK_VERSION", VERSION),
                ("claude_code_sdk_reads_session_state", "0"),
                ("NODE_OPTIONS", "--max-old-space-size=64"),
                ("CLAUDE_CODE_STARTUP_FAILURE_RESULTS", "0"),
                ("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "true"),
                ("CLAUDE_AGENT_SDK_CLIENT_APP", "app/1.0"),
                ("PWD", "/w"),
            ])
        );
        assert_eq!(
            spec.env_remove,
            [
                "CLAUDECODE",
                "CLAUDE_CODE_QUESTION_EXTENDED",
                "CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS",
                "CLAUDE_CODE_AGENT_PROGRESS_SUMMARIES",
                "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP",
            ]
        );
        assert_eq!(spec.cwd, Some(PathBuf::from("/w")));
        assert_eq!(spec.args, FIXED);
    }

    /// A derived client label inherited from an outer agent session names that session's app:
    /// the official Python SDK removes it, even when the options set it.
    #[test]
    fn a_derived_client_label_is_never_passed_on() {
        let options = AgentConfig {
            env: pairs(&[("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP", "outer-app/1.0")]),
            ..AgentConfig::default()
        };
        let spec = spec(&options);
        assert!(spec
            .env
            .iter()
            .all(|(name, _)| name != "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"));
        assert!(spec
            .env_remove
            .iter()
            .any(|name| name == "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"));
    }

    /// `env_removed` as plain data may name a variable `env` sets, or one twice: the set one
    /// stays, and each is removed once, after the SDK's own.
    #[test]
    fn removed_variables_come_once_and_set_ones_are_never_removed() {
        let options = AgentConfig {
            env: pairs(&[("BACK", "3"), ("NODE_OPTIONS", "--x")]),
            env_removed: strings(&["KEEP", "GONE", "BACK", "GONE", "NODE_OPTIONS"]),
            ..AgentConfig::default()
        };
        let spec = spec(&options);
        assert!(spec.env.iter().all(|(name, _)| name != "KEEP"));
        assert!(spec.env.contains(&("BACK".into(), "3".into())));
        assert!(spec.env.contains(&("NODE_OPTIONS".into(), "--x".into())));
        assert_eq!(
            spec.env_remove,
            [
                "CLAUDECODE",
                "CLAUDE_CODE_QUESTION_EXTENDED",
                "CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS",
                "CLAUDE_CODE_AGENT_PROGRESS_SUMMARIES",
                "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP",
                "KEEP",
                "GONE",
            ]
        );
    }

    /// The TypeScript SDK 0.3.330 sets `TRACEPARENT` and `TRACESTATE` from the active trace,
    /// drops inherited ones first, and lets its `env` option win.
    #[test]
    fn trace_context_sets_traceparent_and_drops_a_stale_tracestate() {
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let traced = |state: Option<&str>| AgentConfig {
            trace_context: Some((parent.into(), state.map(Into::into))),
            ..AgentConfig::default()
        };
        let with_state = spec(&traced(Some("a=1")));
        assert!(with_state
            .env
            .contains(&("TRACEPARENT".into(), parent.into())));
        assert!(with_state
            .env
            .contains(&("TRACESTATE".into(), "a=1".into())));
        assert!(!with_state.env_remove.iter().any(|v| v == "TRACESTATE"));
        let without = spec(&traced(None));
        assert!(without.env.contains(&("TRACEPARENT".into(), parent.into())));
        assert!(without.env_remove.iter().any(|v| v == "TRACESTATE"));
        let user_wins = spec(&AgentConfig {
            env: pairs(&[("TRACEPARENT", "00-mine-01"), ("TRACESTATE", "mine=1")]),
            ..traced(None)
        });
        assert!(user_wins
            .env
            .contains(&("TRACEPARENT".into(), "00-mine-01".into())));
        assert!(user_wins
            .env
            .contains(&("TRACESTATE".into(), "mine=1".into())));
        assert!(!user_wins.env.iter().any(|(_, v)| v == parent));
        assert!(!user_wins.env_remove.iter().any(|v| v == "TRACESTATE"));
        let untouched = spec(&AgentConfig::default());
        assert!(!untouched.env.iter().any(|(n, _)| n.starts_with("TRACE")));
        assert!(!untouched.env_remove.iter().any(|n| n.starts_with("TRACE")));
    }

    #[test]
    fn tool_config_and_user() {
        let options = AgentConfig {
            tool_config: Some(
                ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Html),
            ),
            user: Some("agent".into()),
            ..AgentConfig::default()
        };
        let spec = spec(&options);
        assert!(spec
            .env
            .contains(&("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(), "html".into())));
        assert_eq!(spec.user.as_deref(), Some("agent"));
        assert!(format!("{spec:?}").contains(r#"user: Some("agent")"#));
        let markdown = spec_of_markdown();
        assert!(markdown.env.contains(&(
            "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT".into(),
            "markdown".into()
        )));
        assert_eq!(
            tail(AgentConfig {
                permission_prompts: Some(PermissionPrompts::Host),
                ..AgentConfig::default()
            }),
            ["--permission-prompts=host"]
        );
    }

    fn spec_of_markdown() -> LaunchSpec {
        spec(&AgentConfig {
            tool_config: Some(
                ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Markdown),
            ),
            ..AgentConfig::default()
        })
    }

    #[test]
    fn debug_redacts_api_key() {
        let secret = "sk-ant-api03-SECRET-VALUE";
        let options = AgentConfig {
            env: pairs(&[
                ("ANTHROPIC_API_KEY", secret),
                ("anthropic_auth_token", secret),
            ]),
            model: Some("opus".into()),
            ..AgentConfig::default()
        };
        let spec = spec(&options);
        assert!(spec
            .env
            .contains(&("ANTHROPIC_API_KEY".to_string(), secret.to_string())));
        for text in [
            format!("{options:?}"),
            format!("{spec:?}"),
            format!("{options:#?}"),
            format!("{spec:#?}"),
        ] {
            assert!(!text.contains(secret), "{text}");
            assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
        }
        assert!(format!("{spec:?}").contains(r#""CLAUDE_CODE_ENTRYPOINT": "sdk-rust""#));
    }

    #[test]
    fn nul_bytes_and_non_utf8_paths_are_refused() {
        let err = AgentConfig {
            model: Some("a\0b".into()),
            ..AgentConfig::default()
        }
        .launch_spec("claude".into(), &HostDeclarations::default());
        assert_eq!(
            err,
            Err(OptionsError::NulByte {
                what: "--model".into()
            })
        );
        let err = AgentConfig {
            env: pairs(&[("X", "a\0b")]),
            ..AgentConfig::default()
        }
        .launch_spec("claude".into(), &HostDeclarations::default());
        assert_eq!(
            err,
            Err(OptionsError::NulByte {
                what: "environment variable X".into()
            })
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bad = std::ffi::OsStr::from_bytes(b"/tmp/\xff");
            let err = AgentConfig {
                add_dirs: vec![bad.into()],
                ..AgentConfig::default()
            }
            .launch_spec("claude".into(), &HostDeclarations::default());
            assert_eq!(
                err,
                Err(OptionsError::NonUtf8Path {
                    option: "add_dirs",
                    path: "/tmp/\u{fffd}".into()
                })
            );
        }
    }

    #[test]
    fn the_result_schema_goes_without_its_meta_schema_tag() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"city": {"type": "string"}}
        });
        let options = AgentConfig {
            output_format: Some(OutputFormat::JsonSchema(schema)),
            ..AgentConfig::default()
        };
        assert_eq!(
            tail(options.clone()),
            [r#"--json-schema={"properties":{"city":{"type":"string"}},"type":"object"}"#]
        );
        let session = options
            .session_config(
                crate::session::InputMode::Streaming,
                &HostDeclarations::NONE,
            )
            .unwrap();
        let fields = session.initialize_fields.unwrap();
        assert!(
            fields.as_str().contains(r#""jsonSchema":{"properties""#),
            "{fields:?}"
        );
    }
}
