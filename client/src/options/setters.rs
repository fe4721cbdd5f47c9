//! The consuming, chainable setters of [`Options`], one per option. Each says where the value goes
//! (a flag of the command line, a key of `initialize`, or a variable of the child's environment).

use std::path::PathBuf;
use std::time::Duration;

use super::{
    AgentDefinition, Delivery, Effort, McpServerConfig, Options, OutputFormat, PermissionPrompts,
    PluginConfig, SandboxSettings, SessionStart, SettingSource, Settings, Skills, SystemPrompt,
    Thinking, ThinkingDisplay, ToolConfig, Tools,
};
use crate::permission::PermissionMode;

/// Set `name` to `value` in `list`, replacing an earlier value in place.
fn upsert<V>(list: &mut Vec<(String, V)>, name: String, value: V) {
    match list.iter_mut().find(|(named, _)| *named == name) {
        Some(entry) => entry.1 = value,
        None => list.push((name, value)),
    }
}

fn strings<I, S>(items: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    items.into_iter().map(Into::into).collect()
}

impl Options {
    /// The system prompt: text, Claude Code's preset (with text appended), or a file.
    /// Unset, the session sends an empty system prompt (initialize `systemPrompt: [""]`).
    pub fn system_prompt(mut self, prompt: impl Into<SystemPrompt>) -> Self {
        self.config.system_prompt = Some(prompt.into());
        self
    }

    /// Only these built-in tools (`--tools=a,b`; an empty list disables all of them).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().tools(["Read", "Grep", "Glob"]);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--tools=Read,Grep,Glob".to_owned()));
    ///
    /// // No built-in tools at all, for an agent that only has its MCP tools:
    /// let none = Options::new().tools(Vec::<String>::new()).config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(none.args.contains(&"--tools=".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.tools = Some(Tools::List(strings(tools)));
        self
    }

    /// Claude Code's default tool set (`--tools=default`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().default_tools();
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--tools=default".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn default_tools(mut self) -> Self {
        self.config.tools = Some(Tools::Default);
        self
    }

    /// Tools (or tool rules like `Bash(git:*)`) allowed without asking (`--allowedTools=a,b`). Adds to earlier calls.
    pub fn allowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.allowed_tools.extend(strings(tools));
        self
    }

    /// Tools (or rules) that are always refused (`--disallowedTools=a,b`). Adds to earlier calls.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().disallowed_tools(["WebFetch", "Bash(git push:*)"]);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--disallowedTools=WebFetch,Bash(git push:*)".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn disallowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.disallowed_tools.extend(strings(tools));
        self
    }

    /// Most agent turns per prompt (`--max-turns=N`); must be positive.
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.config.max_turns = Some(turns);
        self
    }

    /// Spending limit in US dollars, kept by the CLI (`--max-budget-usd=X`): past its own
    /// estimate of this run's cost, it stops with an `error_max_budget_usd` result. A limit
    /// the SDK keeps, which warns first, prices tokens with your table and can span a key's
    /// sessions, is [`Options::budget`] (`docs/guide/many-sessions.md` in the repository).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().max_budget_usd(0.50);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--max-budget-usd=0.5".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn max_budget_usd(mut self, dollars: f64) -> Self {
        self.config.max_budget_usd = Some(dollars);
        self
    }

    /// Token budget of the whole task (`--task-budget=N`), kept by the API: the model is told
    /// what it has left and paces itself; nothing is cut off (for a hard limit, see
    /// [`Options::budget`]). Must be positive.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().task_budget(200_000);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--task-budget=200000".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn task_budget(mut self, total_tokens: u64) -> Self {
        self.config.task_budget = Some(total_tokens);
        self
    }

    /// The model, an alias (`sonnet`, `opus`, `haiku`) or a full name (`--model=M`).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.config.model = Some(model.into());
        self
    }

    /// The model to use when the main one is overloaded (`--fallback-model=M`); must differ from the model.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().model("opus").fallback_model("sonnet");
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--fallback-model=sonnet".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn fallback_model(mut self, model: impl Into<String>) -> Self {
        self.config.fallback_model = Some(model.into());
        self
    }

    /// API beta headers, e.g. `context-1m-2025-08-07` (`--betas=a,b`). Adds to earlier calls.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().betas(["context-1m-2025-08-07"]);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--betas=context-1m-2025-08-07".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn betas<I, S>(mut self, betas: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.betas.extend(strings(betas));
        self
    }

    /// An MCP tool that answers permission prompts (`--permission-prompt-tool=NAME`).
    /// Not together with a `can_use_tool` callback.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().permission_prompt_tool_name("mcp__approvals__ask");
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--permission-prompt-tool=mcp__approvals__ask".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn permission_prompt_tool_name(mut self, tool: impl Into<String>) -> Self {
        self.config.permission_prompt_tool_name = Some(tool.into());
        self
    }

    /// The starting permission mode (`--permission-mode=M`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::permission::PermissionMode;
    ///
    /// let options = Options::new().permission_mode(PermissionMode::AcceptEdits);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--permission-mode=acceptEdits".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.config.permission_mode = Some(mode);
        self
    }

    /// Who answers permission prompts (`--permission-prompts=…`): this process (the default),
    /// or nobody, so that what would be asked is refused at once.
    ///
    /// ```
    /// # use claude_agent_tokio::options::{Options, PermissionPrompts};
    /// let unattended = Options::new()
    ///     .allowed_tools(["Read", "Grep"])
    ///     .permission_prompts(PermissionPrompts::Nobody);
    /// # let _ = unattended;
    /// ```
    pub fn permission_prompts(mut self, who: PermissionPrompts) -> Self {
        self.config.permission_prompts = Some(who);
        self
    }

    /// Allow switching to `bypassPermissions` later (`--allow-dangerously-skip-permissions`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().allow_dangerously_skip_permissions(true);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--allow-dangerously-skip-permissions".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn allow_dangerously_skip_permissions(mut self, allow: bool) -> Self {
        self.config.allow_dangerously_skip_permissions = allow;
        self
    }

    /// Which conversation the session starts with: a new one (the default), the most recent one
    /// of the working directory (`--continue`), or a given one (`--resume`), each optionally
    /// forked into a new session (`--fork-session`). See [`SessionStart`].
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options, Resume, SessionStart};
    ///
    /// let options = Options::new().session_start(SessionStart::resume("46eb1b6d-8361-4d7c-a347-8234db4a9d65"));
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--resume=46eb1b6d-8361-4d7c-a347-8234db4a9d65".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn session_start(mut self, start: SessionStart) -> Self {
        self.config.session_start = start;
        self
    }

    /// A settings file (`--settings <path>`; the CLI reads it). For settings written here, use
    /// [`Options::settings_json`]; with [`Options::sandbox`] the settings must be those, since
    /// files are not read here.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().settings(".claude/ci-settings.json");
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.ends_with(&["--settings".to_owned(), ".claude/ci-settings.json".to_owned()]));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn settings(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.config.settings = Some(Settings::File(path.into()));
        self
    }

    /// Settings as a JSON object, sent in `initialize` (or as `--settings <json>`: see
    /// [`Options::settings_delivery`]).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let options = Options::new().settings_json(serde_json::json!({
    ///     "permissions": {"deny": ["Read(./.env)"]}
    /// }));
    /// let config = options.config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// let fields = config.initialize_fields.unwrap();
    /// assert!(fields.as_str().contains(r#""settings":{"permissions":{"deny":["Read(./.env)"]}}"#));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn settings_json(mut self, settings: serde_json::Value) -> Self {
        self.config.settings = Some(Settings::Json(settings));
        self
    }

    /// Policy settings from the application that starts the CLI (sent in `initialize`, or as
    /// `--managed-settings <json>`: see [`Options::settings_delivery`]), for
    /// an embedding application that enforces its own lockdown. The CLI applies them as its
    /// policy tier only in ways that restrict (a permissive list that would widen a lock is
    /// dropped), and drops them altogether when the machine has an administrator's managed
    /// settings that do not opt in to merging them.
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// let locked = Options::new().managed_settings(serde_json::json!({
    ///     "permissions": {"deny": ["Bash(curl:*)", "WebFetch"]},
    /// }));
    /// # let _ = locked;
    /// ```
    pub fn managed_settings(mut self, settings: serde_json::Value) -> Self {
        self.config.managed_settings = Some(settings);
        self
    }

    /// The trusted checkout that the working directory is a worktree of
    /// (`--project-config-root=…`): project settings and hooks, `.mcp.json`, the `.claude`
    /// directories (commands, agents, skills, output styles) and `CLAUDE_PROJECT_DIR` come from
    /// there instead of the working directory, so a branch checked out in the worktree cannot
    /// change them. An absolute path.
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// let review = Options::new()
    ///     .cwd("/srv/worktrees/pr-1234")
    ///     .project_config_root("/srv/repo");
    /// # let _ = review;
    /// ```
    pub fn project_config_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.config.project_config_root = Some(root.into());
        self
    }

    /// Sandbox settings, deep-merged into the settings' `sandbox` block (sent with the settings:
    /// see [`Options::settings_delivery`]).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options, SandboxSettings};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let options = Options::new().sandbox(SandboxSettings::new().enabled(true).excluded_commands(["docker"]));
    /// let config = options.config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// let fields: serde_json::Value = config.initialize_fields.unwrap().parse().unwrap();
    /// assert_eq!(fields["settings"].to_string(), r#"{"sandbox":{"enabled":true,"excludedCommands":["docker"],"failIfUnavailable":true}}"#);
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn sandbox(mut self, sandbox: SandboxSettings) -> Self {
        self.config.sandbox = Some(sandbox);
        self
    }

    /// One more directory the agent may access (`--add-dir=D`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().cwd("/srv/app").add_dir("/srv/shared-lib");
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--add-dir=/srv/shared-lib".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.add_dirs.push(dir.into());
        self
    }

    /// More directories the agent may access (`--add-dir=D`, once per directory).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().add_dirs(["/srv/shared-lib", "/srv/assets"]);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.ends_with(&["--add-dir=/srv/shared-lib".to_owned(), "--add-dir=/srv/assets".to_owned()]));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn add_dirs<I, P>(mut self, dirs: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.config
            .add_dirs
            .extend(dirs.into_iter().map(Into::into));
        self
    }

    /// An external MCP server, which the CLI starts or connects to itself; a later one with the
    /// same name replaces it. Sent in `initialize` (`mcpServers`), or on the command line
    /// (`--mcp-config {"mcpServers":{…}}`) with [`Options::mcp_servers_delivery`].
    ///
    /// ```
    /// use claude_agent_tokio::options::{Delivery, HostDeclarations, McpServerConfig, Options};
    ///
    /// let options = Options::new()
    ///     .mcp_server("fs", McpServerConfig::stdio("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/ws"]))
    ///     .allowed_tools(["mcp__fs__read_file"]);
    /// // By default the server travels in `initialize`, so nothing of it is on the command line.
    /// let args = options.clone().config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(!args.iter().any(|a| a == "--mcp-config"));
    ///
    /// let args = options.mcp_servers_delivery(Delivery::Argv).config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// let at = args.iter().position(|a| a == "--mcp-config").unwrap();
    /// assert_eq!(
    ///     args[at + 1],
    ///     r#"{"mcpServers":{"fs":{"type":"stdio","command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp/ws"]}}}"#
    /// );
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn mcp_server(mut self, name: impl Into<String>, config: McpServerConfig) -> Self {
        upsert(&mut self.config.mcp_servers, name.into(), config);
        self
    }

    /// Several external MCP servers, as [`Options::mcp_server`] each.
    ///
    /// ```
    /// use claude_agent_tokio::options::{Delivery, HostDeclarations, McpServerConfig, Options};
    ///
    /// let options = Options::new()
    ///     .mcp_servers([
    ///         ("docs", McpServerConfig::http("https://mcp.example.com/docs")),
    ///         ("tickets", McpServerConfig::sse("https://mcp.example.com/tickets/sse")),
    ///     ])
    ///     .mcp_servers_delivery(Delivery::Argv);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// let at = args.iter().position(|a| a == "--mcp-config").unwrap();
    /// assert!(args[at + 1].starts_with(r#"{"mcpServers":{"docs":{"type":"http""#));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn mcp_servers<I, S>(self, servers: I) -> Self
    where
        I: IntoIterator<Item = (S, McpServerConfig)>,
        S: Into<String>,
    {
        servers.into_iter().fold(self, |options, (name, config)| {
            options.mcp_server(name, config)
        })
    }

    /// MCP servers from a configuration file or JSON text (`--mcp-config <value>`, passed as
    /// is), as the Python SDK takes `mcp_servers` as a path or a string; the CLI loads them
    /// with those of [`Options::mcp_server`]. Being on the command line, the text can be read
    /// by every local user: keep secrets in a file, or use [`Options::mcp_server`], whose
    /// servers travel in `initialize`.
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// let from_file = Options::new().mcp_config("/etc/claude/mcp.json");
    /// let inline = Options::new().mcp_config(r#"{"mcpServers":{"fs":{"command":"mcp-fs"}}}"#);
    /// # let _ = (from_file, inline);
    /// ```
    pub fn mcp_config(mut self, path_or_json: impl Into<String>) -> Self {
        self.config.mcp_config = Some(path_or_json.into());
        self
    }

    /// How the external MCP servers reach the CLI: in `initialize` (the default, which keeps
    /// their `env` and `headers` off the command line) or on the command line ([`Delivery`]).
    ///
    /// ```
    /// use claude_agent_tokio::options::{Delivery, HostDeclarations, McpServerConfig, Options};
    ///
    /// let options = Options::new()
    ///     .mcp_server("docs", McpServerConfig::http("https://mcp.example.com/mcp"))
    ///     .mcp_servers_delivery(Delivery::Argv);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert_eq!(args[5..], ["--mcp-config", r#"{"mcpServers":{"docs":{"type":"http","url":"https://mcp.example.com/mcp"}}}"#]);
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn mcp_servers_delivery(mut self, delivery: Delivery) -> Self {
        self.config.mcp_servers_delivery = delivery;
        self
    }

    /// How inline settings ([`Options::settings_json`], with the [`Options::sandbox`] merged in)
    /// and [`Options::managed_settings`] reach the CLI: in `initialize` (the default, which keeps
    /// them, and the credentials their `env` often holds, off the command line that every local
    /// user can read) or on the command line ([`Delivery`]). A settings file
    /// ([`Options::settings`]) is always passed by path.
    ///
    /// ```
    /// use claude_agent_tokio::options::{Delivery, HostDeclarations, Options};
    ///
    /// let options = Options::new().settings_json(serde_json::json!({"env": {"API_TOKEN": "s3cret"}}));
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(!args.iter().any(|arg| arg.contains("s3cret")));
    /// assert!(args.ends_with(&["--await-initialize".to_owned(), "--initialize-fields=settings".to_owned()]));
    ///
    /// let on_argv = options.settings_delivery(Delivery::Argv);
    /// let args = on_argv.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.ends_with(&["--settings".to_owned(), r#"{"env":{"API_TOKEN":"s3cret"}}"#.to_owned()]));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn settings_delivery(mut self, delivery: Delivery) -> Self {
        self.config.settings_delivery = delivery;
        self
    }

    /// Stream partial assistant output as `stream_event` messages (`--include-partial-messages`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().include_partial_messages(true);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--include-partial-messages".to_owned()));
    /// // Messages now include `Message::StreamEvent`s with the model's text as it streams.
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn include_partial_messages(mut self, include: bool) -> Self {
        self.config.include_partial_messages = include;
        self
    }

    /// Report hook activity as `system` messages (`--include-hook-events`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().include_hook_events(true);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--include-hook-events".to_owned()));
    /// // Messages now include `SystemMessage::HookStarted`/`HookResponse` for shell hooks from settings.
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn include_hook_events(mut self, include: bool) -> Self {
        self.config.include_hook_events = include;
        self
    }

    /// Use only the MCP servers given here, ignoring every other MCP configuration (`--strict-mcp-config`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, McpServerConfig, Options};
    ///
    /// let options = Options::new().mcp_server("docs", McpServerConfig::http("https://mcp.example.com/docs")).strict_mcp_config(true);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--strict-mcp-config".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn strict_mcp_config(mut self, strict: bool) -> Self {
        self.config.strict_mcp_config = strict;
        self
    }

    /// Which settings files the CLI reads (`--setting-sources=user,project`; an empty list reads none).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options, SettingSource};
    ///
    /// let options = Options::new().setting_sources([SettingSource::Project]);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--setting-sources=project".to_owned()));
    ///
    /// // None: the agent ignores the user's and the project's settings files.
    /// let isolated = Options::new().setting_sources([]).config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(isolated.args.contains(&"--setting-sources=".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn setting_sources(mut self, sources: impl IntoIterator<Item = SettingSource>) -> Self {
        self.config.setting_sources = Some(sources.into_iter().collect());
        self
    }

    /// Load a plugin; only local plugins are supported. Sent in `initialize` (`plugins`), or as
    /// `--plugin-dir=P` with [`Options::plugin_delivery`].
    ///
    /// ```
    /// use claude_agent_tokio::options::{Delivery, HostDeclarations, Options, PluginConfig};
    ///
    /// let options = Options::new()
    ///     .plugin(PluginConfig::local("/srv/plugins/formatter"))
    ///     .plugin_delivery(Delivery::Argv);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--plugin-dir=/srv/plugins/formatter".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn plugin(mut self, plugin: PluginConfig) -> Self {
        self.config.plugins.push(plugin);
        self
    }

    /// Load several plugins, as [`Options::plugin`] each.
    ///
    /// ```
    /// use claude_agent_tokio::options::{Delivery, HostDeclarations, Options, PluginConfig};
    ///
    /// let options = Options::new()
    ///     .plugins(["/srv/plugins/formatter", "/srv/plugins/linter"].map(PluginConfig::local))
    ///     .plugin_delivery(Delivery::Argv);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.ends_with(&["--plugin-dir=/srv/plugins/formatter".to_owned(), "--plugin-dir=/srv/plugins/linter".to_owned()]));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn plugins(mut self, plugins: impl IntoIterator<Item = PluginConfig>) -> Self {
        self.config.plugins.extend(plugins);
        self
    }

    /// How the plugins reach the CLI: in `initialize` (the default, so the command line does not
    /// grow with them) or as one `--plugin-dir` flag each ([`Delivery`]).
    ///
    /// ```
    /// use claude_agent_tokio::options::{Delivery, HostDeclarations, Options, PluginConfig};
    ///
    /// let options = Options::new()
    ///     .plugin(PluginConfig::local("/opt/plugins/review"))
    ///     .plugin_delivery(Delivery::Argv);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert_eq!(args[5..], ["--plugin-dir=/opt/plugins/review"]);
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn plugin_delivery(mut self, delivery: Delivery) -> Self {
        self.config.plugin_delivery = delivery;
        self
    }

    /// Any other CLI flag, given without leading dashes: `None` gives `--flag`, a value gives
    /// `--flag value` (or `--flag=value` when the value starts with `-`). Emitted last, in call order.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().extra_arg("replay-user-messages", None).extra_arg("name", Some("nightly".into()));
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.ends_with(&["--replay-user-messages".to_owned(), "--name".to_owned(), "nightly".to_owned()]));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn extra_arg(mut self, flag: impl Into<String>, value: Option<String>) -> Self {
        upsert(&mut self.config.extra_args, flag.into(), value);
        self
    }

    /// Extended thinking (`--thinking=…` or `--max-thinking-tokens=N`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options, Thinking};
    ///
    /// let options = Options::new().thinking(Thinking::Enabled { budget_tokens: Some(8_000) });
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--max-thinking-tokens=8000".to_owned()));
    ///
    /// let adaptive = Options::new().thinking(Thinking::Adaptive).config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(adaptive.args.contains(&"--thinking=adaptive".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.config.thinking = Some(thinking);
        self
    }

    /// How thinking is shown (`--thinking-display=D`); refused while thinking is disabled.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options, Thinking, ThinkingDisplay};
    ///
    /// let options = Options::new().thinking(Thinking::Adaptive).thinking_display(ThinkingDisplay::Summarized);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--thinking-display=summarized".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn thinking_display(mut self, display: ThinkingDisplay) -> Self {
        self.config.thinking_display = Some(display);
        self
    }

    /// The effort level (`--effort=L`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{Effort, HostDeclarations, Options};
    ///
    /// let options = Options::new().effort(Effort::High);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--effort=high".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn effort(mut self, effort: Effort) -> Self {
        self.config.effort = Some(effort);
        self
    }

    /// The shape of the final result (`--json-schema=…` and initialize `jsonSchema`).
    ///
    /// A schema's top-level `$schema` key is dropped: the CLI validates with a draft of its own
    /// and refuses a schema that names another one, such as the draft 2020-12 that `schemars`
    /// writes.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options, OutputFormat};
    ///
    /// let options = Options::new().output_format(OutputFormat::JsonSchema(serde_json::json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "properties": {"answer": {"type": "integer"}},
    ///     "required": ["answer"]
    /// })));
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// let schema = args.iter().find_map(|a| a.strip_prefix("--json-schema=")).unwrap();
    /// assert!(schema.contains(r#""required":["answer"]"#) && !schema.contains("$schema"));
    /// // The turn's `ResultMessage::structured_output` then holds e.g. `{"answer":4}`.
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn output_format(mut self, format: OutputFormat) -> Self {
        self.config.output_format = Some(format);
        self
    }

    /// The final result must match this JSON Schema; the same as
    /// `output_format(OutputFormat::JsonSchema(schema))`.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().json_schema(serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"summary": {"type": "string"}, "risk": {"enum": ["low", "medium", "high"]}},
    ///     "required": ["summary", "risk"]
    /// }));
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.iter().any(|a| a.starts_with("--json-schema=")));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn json_schema(self, schema: serde_json::Value) -> Self {
        self.output_format(OutputFormat::JsonSchema(schema))
    }

    /// The final result must be a value of `T`: its JSON Schema (derived with `schemars`) is the
    /// output format, and [`ResultMessage::structured`](crate::message::ResultMessage::structured)
    /// reads the turn's answer back as a `T`.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Verdict {
    ///     /// How risky the change is.
    ///     risk: String,
    ///     summary: String,
    /// }
    ///
    /// let options = Options::new().output_type::<Verdict>();
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// let schema = args.iter().find_map(|a| a.strip_prefix("--json-schema=")).unwrap();
    /// assert!(schema.contains(r#""required":["risk","summary"]"#), "{schema}");
    /// // Then, at the end of the turn: `let verdict: Verdict = result.structured()?;`
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    #[cfg(feature = "schemars")]
    pub fn output_type<T: schemars::JsonSchema>(self) -> Self {
        let schema = schemars::schema_for!(T);
        self.json_schema(schema.to_value())
    }

    /// A subagent (initialize `agents`); a later one with the same name replaces it.
    ///
    /// ```
    /// use claude_agent_tokio::options::{AgentDefinition, HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let options = Options::new().agent_definition(
    ///     "reviewer",
    ///     AgentDefinition::new("Reviews a diff for bugs before it is committed", "You review code. Be specific.")
    ///         .tools(["Read", "Grep", "Glob"])
    ///         .model("sonnet"),
    /// );
    /// // Subagents travel in `initialize`, not on the command line.
    /// let fields = options.config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?.initialize_fields.unwrap();
    /// assert!(fields.as_str().contains(r#""agents":{"reviewer":{"description":"Reviews a diff for bugs before it is committed""#));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn agent_definition(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        upsert(&mut self.config.agents, name.into(), agent);
        self
    }

    /// Several subagents, as [`Options::agent_definition`] each.
    ///
    /// ```
    /// use claude_agent_tokio::options::{AgentDefinition, HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let options = Options::new().agents([
    ///     ("reviewer", AgentDefinition::new("Reviews diffs", "You review code.")),
    ///     ("tester", AgentDefinition::new("Writes and runs tests", "You write tests.").tools(["Read", "Write", "Bash"])),
    /// ]);
    /// let fields = options.config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?.initialize_fields.unwrap();
    /// assert!(fields.as_str().contains(r#""tester":{"description":"Writes and runs tests""#));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn agents<I, S>(self, agents: I) -> Self
    where
        I: IntoIterator<Item = (S, AgentDefinition)>,
        S: Into<String>,
    {
        agents.into_iter().fold(self, |options, (name, agent)| {
            options.agent_definition(name, agent)
        })
    }

    /// Run the main thread as this agent (`--agent=NAME`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{AgentDefinition, HostDeclarations, Options};
    ///
    /// let options = Options::new()
    ///     .agent_definition("reviewer", AgentDefinition::new("Reviews diffs", "You review code."))
    ///     .agent("reviewer");
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--agent=reviewer".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn agent(mut self, name: impl Into<String>) -> Self {
        self.config.agent = Some(name.into());
        self
    }

    /// Which skills may be used: adds `Skill` or `Skill(name)` to the allowed tools; a list is also
    /// sent as initialize `skills`.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options, Skills};
    ///
    /// let options = Options::new().allowed_tools(["Read"]).skills(Skills::list(["pdf", "xlsx"]));
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--allowedTools=Read,Skill(pdf),Skill(xlsx)".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn skills(mut self, skills: Skills) -> Self {
        self.config.skills = Some(skills);
        self
    }

    /// Whether the session is saved to disk (default true; false gives `--no-session-persistence`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().persist_session(false);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--no-session-persistence".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn persist_session(mut self, persist: bool) -> Self {
        self.config.no_session_persistence = !persist;
        self
    }

    /// Debug logging of the CLI (`--debug`), to stderr unless [`Options::debug_file`] is set.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().debug(true);
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--debug".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn debug(mut self, debug: bool) -> Self {
        self.config.debug = debug;
        self
    }

    /// Write the CLI's debug log to this file (`--debug-file=P`; replaces `--debug`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().debug_file("/tmp/claude-debug.log");
    /// let args = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
    /// assert!(args.contains(&"--debug-file=/tmp/claude-debug.log".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn debug_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.debug_file = Some(path.into());
        self
    }

    /// Set a variable in the child's environment (on top of the inherited one); a later value for
    /// the same name replaces it, and so does a later [`Options::env_remove`] of it.
    /// `CLAUDE_AGENT_SDK_VERSION` cannot be overridden.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.config.env_removed.retain(|removed| *removed != name);
        upsert(&mut self.config.env, name, value.into());
        self
    }

    /// Give each session a configuration folder of its own (`CLAUDE_CONFIG_DIR`), so that many
    /// CLIs at once do not race on the files every CLI rewrites (`~/.claude.json`, the
    /// credentials). The folder is private (0700, files 0600) under the system's temp
    /// directory, and removed when the session ends (or, after a crash, when the SDK next makes
    /// one). Copied into it, where they parse as JSON: of the credentials, the account's login
    /// with its OAuth access token and not the refresh token (which only the user's own CLI may
    /// spend: a session outliving its token fails with `authentication_failed`, so long-running
    /// fleets sign in with an API key), nor MCP servers' logins; `.claude.json` with only this
    /// project's entry; and the user settings. With `Options::user`, they are read as that
    /// user's (no link followed, only that user's regular files). Linked to the user's: `projects`
    /// (so the session's transcript lands in the user's history and can be resumed without the
    /// option), `plugins`, `skills`, `agents`, `commands`, `output-styles`, `rules` and the user's
    /// `CLAUDE.md`. Applies to a CLI this SDK starts (not through `Options::transport`); a
    /// session resumed from a session store already runs in a folder of its own.
    ///
    /// ```
    /// use claude_agent_tokio::options::Options;
    ///
    /// let options = Options::new().isolated_config(true);
    /// assert!(options.config().isolated_config);
    /// ```
    pub fn isolated_config(mut self, isolated: bool) -> Self {
        self.config.isolated_config = isolated;
        self
    }

    /// Let the child inherit only these of this process's environment variables, instead of the
    /// whole environment; what [`Options::env`] sets and the SDK's own variables come on top.
    /// Useful with [`Options::user`], where the CLI and its tools run with less privilege than
    /// this process, and in any server whose environment holds secrets of its own (cloud
    /// credentials, database passwords): by default the CLI and every tool it runs would see
    /// them. [`CLI_ENVIRONMENT`](crate::options::CLI_ENVIRONMENT) lists what the CLI needs (it
    /// needs `PATH` to find its tools, and `HOME`, inherited or set with [`Options::env`], for its
    /// configuration); give it its credentials with [`Options::env`].
    ///
    /// ```
    /// # use claude_agent_tokio::options::{HostDeclarations, Options};
    /// let sandboxed = Options::new()
    ///     .user("agent")
    ///     .inherit_env_only(["PATH", "LANG"])
    ///     .env("HOME", "/home/agent");
    /// let spec = sandboxed.config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert_eq!(spec.inherit_only.as_deref(), Some(&["PATH".to_owned(), "LANG".to_owned()][..]));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn inherit_env_only<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.inherit_only = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Keep an inherited variable out of the child's environment; a later [`Options::env`] of
    /// the same name sets it again. The SDK itself keeps out `CLAUDECODE`, `NODE_OPTIONS` and a
    /// few of the CLI's own switches (see [`AgentConfig::launch_spec`](crate::options::AgentConfig::launch_spec)).
    ///
    /// ```
    /// # use claude_agent_tokio::options::{HostDeclarations, Options};
    /// let spec = Options::new()
    ///     .env_remove("AWS_PROFILE")
    ///     .env_remove("HTTPS_PROXY")
    ///     .config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(spec.env_remove.iter().any(|name| name == "AWS_PROFILE"));
    /// assert!(spec.env.iter().all(|(name, _)| name != "HTTPS_PROXY"));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn env_remove(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.config.env.retain(|(set, _)| *set != name);
        if !self.config.env_removed.contains(&name) {
            self.config.env_removed.push(name);
        }
        self
    }

    /// Continue the caller's W3C trace in the CLI: `traceparent` (and `tracestate`, if any)
    /// become the child's `TRACEPARENT` and `TRACESTATE`, which the CLI's OpenTelemetry export
    /// continues. An inherited `TRACESTATE` is dropped when no `tracestate` is given, so it is
    /// never paired with another trace's parent; [`Options::env`] of either name wins. Without
    /// this option the child inherits whatever `TRACEPARENT` and `TRACESTATE` the process has,
    /// or, with the `otel` feature, gets the context of the span current when the session
    /// starts (through `tracing-opentelemetry`).
    ///
    /// ```
    /// # use claude_agent_tokio::options::{HostDeclarations, Options};
    /// let spec = Options::new()
    ///     .trace_context("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Some("vendor=1"))
    ///     .config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(spec.env.contains(&(
    ///     "TRACEPARENT".into(),
    ///     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into()
    /// )));
    /// assert!(spec.env.contains(&("TRACESTATE".into(), "vendor=1".into())));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn trace_context(
        mut self,
        traceparent: impl Into<String>,
        tracestate: Option<&str>,
    ) -> Self {
        self.config.trace_context = Some((traceparent.into(), tracestate.map(str::to_owned)));
        self
    }

    /// Start the CLI as another Unix user (a name, or a numeric user id), with that user's id
    /// and primary group, or the numeric group named after a `:` (`"agent:1500"`,
    /// `"1500:1500"`); this process needs the privilege to switch (root, usually), and the CLI
    /// keeps no supplementary group. A numeric user id that the user database does not know must
    /// name its group: without one the CLI would keep this process's group. The environment is
    /// this process's unless [`Options::inherit_env_only`] narrows it: set `HOME` with
    /// [`Options::env`] so the CLI keeps its settings and sessions in that user's home.
    /// Starting fails with `Error::Spawn` when the user does not exist, its group is unknown,
    /// or the switch is not allowed, and on platforms other than Unix.
    ///
    /// This process reads nothing of that user's by a path they could bend: their history is
    /// not searched (a resume is found, or not, by their CLI, never moved to another folder),
    /// and their configuration is copied (a session store's resume, [`Options::isolated_config`])
    /// only from a `HOME` that is theirs, each file opened without following links. With a
    /// `HOME` of another's (this process's own, inherited when none is set), such a session is
    /// refused (`Error::ConfigFolder`, or `Error::Resume` for a store's resume).
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// let options = Options::new().user("agent").env("HOME", "/home/agent");
    /// # let _ = options;
    /// ```
    pub fn user(mut self, name: impl Into<String>) -> Self {
        self.config.user = Some(name.into());
        self
    }

    /// Set several variables, as [`Options::env`] each (a `Vec` of pairs, a `HashMap`, …).
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let vars = BTreeMap::from([("HTTPS_PROXY", "http://proxy.internal:3128"), ("NO_PROXY", "localhost")]);
    /// let spec = Options::new().envs(vars).config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(spec.env.contains(&("NO_PROXY".into(), "localhost".into())));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn envs<I, K, V>(self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        vars.into_iter()
            .fold(self, |options, (name, value)| options.env(name, value))
    }

    /// Settings of the CLI's built-in tools, passed in the child's environment.
    ///
    /// ```
    /// # use claude_agent_tokio::options::{Options, PreviewFormat, ToolConfig};
    /// let web_ui = Options::new()
    ///     .tool_config(ToolConfig::new().ask_user_question_preview_format(PreviewFormat::Html));
    /// # let _ = web_ui;
    /// ```
    pub fn tool_config(mut self, config: ToolConfig) -> Self {
        self.config.tool_config = Some(config);
        self
    }

    /// The child's working directory (also sets `PWD`). Starting a session fails with
    /// `Error::WorkingDirectory` when it does not exist.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.cwd = Some(dir.into());
        self
    }

    /// The CLI executable to run, instead of looking one up.
    ///
    /// ```
    /// use claude_agent_tokio::options::Options;
    ///
    /// let options = Options::new().cli_path("/opt/claude/bin/claude");
    /// assert_eq!(options.config().cli_path.as_deref(), Some(std::path::Path::new("/opt/claude/bin/claude")));
    /// ```
    pub fn cli_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.cli_path = Some(path.into());
        self
    }

    /// Longest stdout line accepted, in bytes ([`crate::session::Limits::max_line_bytes`], default 16 MiB).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let config = Options::new().max_buffer_size(64 * 1024 * 1024).config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// assert_eq!(config.limits.max_line_bytes, 64 * 1024 * 1024);
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn max_buffer_size(mut self, bytes: usize) -> Self {
        self.config.max_buffer_size = Some(bytes);
        self
    }

    /// How long a control request (other than `initialize`) may take (default 60 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let config = Options::new().control_timeout(Duration::from_secs(10)).config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// assert_eq!(config.timeouts.control_request, Duration::from_secs(10));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn control_timeout(mut self, timeout: Duration) -> Self {
        self.config.control_timeout = Some(timeout);
        self
    }

    /// Watch each turn for silence: a turn during which the CLI says nothing for
    /// [`StallWatch::after`](crate::session::StallWatch::after), while none of your callbacks
    /// is being answered and none of the CLI's tool calls runs (or, while one runs, for
    /// [`StallWatch::while_tool_runs`](crate::session::StallWatch::while_tool_runs)), has
    /// stalled: a hung MCP server, a network stall inside the CLI. What then happens is
    /// [`StallWatch::then`](crate::session::StallWatch::then): a `Message::Notice` of kind
    /// `Stalled`, an interrupt as well, or an interrupt and the session closed with
    /// `Error::Stalled`. Off by default.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::{InputMode, OnStall, StallWatch};
    ///
    /// let watch = StallWatch { then: OnStall::Interrupt, ..StallWatch::new(Duration::from_secs(120)) };
    /// let options = Options::new().stall_watch(watch.clone());
    /// let config = options.config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// assert_eq!(config.stall, Some(watch));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn stall_watch(mut self, watch: crate::session::StallWatch) -> Self {
        self.config.stall_watch = Some(watch);
        self
    }

    /// Prices to work out each turn's cost from its tokens: every result read by the session
    /// then has [`TurnCost::priced_usd`](crate::cost::TurnCost::priced_usd) beside the CLI's own
    /// figure, and a `tracing` warning (`cost_disagrees`) comes when the two differ by more than
    /// 1 %. Without a table, a turn's cost is the CLI's figure alone.
    ///
    /// ```
    /// use claude_agent_tokio::cost::{ModelPrice, PriceTable};
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let prices = PriceTable::new().with("claude-sonnet-5", ModelPrice::per_million(3.0, 15.0));
    /// let options = Options::new().price_table(prices.clone());
    /// let config = options.config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// assert_eq!(config.prices, Some(prices));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn price_table(mut self, prices: crate::cost::PriceTable) -> Self {
        self.config.prices = Some(prices);
        self
    }

    /// A spending limit for the session, kept by the SDK: past [`Budget::warn_at`] of a limit a
    /// `Message::Notice` of kind `Budget` comes; at the limit the running turn is interrupted,
    /// the session closed, and its stream ends with `Error::OverBudget`. Dollars are counted at
    /// each turn's end (and during a turn from the model calls' tokens, with a
    /// [`price_table`](Options::price_table)); tokens after every model call. Unlike the CLI's
    /// own `max_budget_usd`, it also holds across a resume: the first turn counts from what the
    /// CLI carried over.
    ///
    /// [`Budget::warn_at`]: crate::cost::Budget::warn_at
    ///
    /// ```
    /// use claude_agent_tokio::cost::Budget;
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let options = Options::new().budget(Budget { max_tokens: Some(5_000_000), ..Budget::usd(2.0) });
    /// let config = options.config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// assert_eq!(config.budget.and_then(|b| b.max_usd), Some(2.0));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn budget(mut self, budget: crate::cost::Budget) -> Self {
        self.config.budget = Some(budget);
        self
    }

    /// How long `initialize` may take (default 60 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// // A slow first start (a plugin marketplace to clone, many MCP servers):
    /// let config = Options::new().initialize_timeout(Duration::from_secs(180)).config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// assert_eq!(config.timeouts.initialize, Duration::from_secs(180));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.config.initialize_timeout = Some(timeout);
        self
    }

    /// Stamp every user message `"client_composed": true`, so the CLI takes it verbatim (CLI ≥ 2.1.248).
    ///
    /// ```
    /// use claude_agent_tokio::options::Options;
    ///
    /// let options = Options::new().verbatim_prompts(true);
    /// assert!(options.config().verbatim_prompts);
    /// ```
    pub fn verbatim_prompts(mut self, verbatim: bool) -> Self {
        self.config.verbatim_prompts = verbatim;
        self
    }

    /// Forward subagents' text output to the host (initialize `forwardSubagentText: true`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let fields = Options::new().forward_subagent_text(true).config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?.initialize_fields.unwrap();
    /// assert!(fields.as_str().contains(r#""forwardSubagentText":true"#));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn forward_subagent_text(mut self, forward: bool) -> Self {
        self.config.forward_subagent_text = forward;
        self
    }

    /// The session's title (initialize `title`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let fields = Options::new().title("Nightly triage").config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?.initialize_fields.unwrap();
    /// assert!(fields.as_str().contains(r#""title":"Nightly triage""#));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.config.title = Some(title.into());
        self
    }

    /// Whether the CLI suggests a next prompt after each result (initialize `promptSuggestions`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// // After each result a `Message::PromptSuggestion` follows.
    /// let fields = Options::new().prompt_suggestions(true).config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?.initialize_fields.unwrap();
    /// assert!(fields.as_str().contains(r#""promptSuggestions":true"#));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn prompt_suggestions(mut self, suggest: bool) -> Self {
        self.config.prompt_suggestions = Some(suggest);
        self
    }

    /// The workflow the model follows in plan mode (initialize `planModeInstructions`): it
    /// replaces the default implementation-planning steps of the plan-mode reminder, which the
    /// CLI still opens with its read-only rules and closes with how to leave plan mode.
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// # use claude_agent_tokio::permission::PermissionMode;
    /// let options = Options::new()
    ///     .permission_mode(PermissionMode::Plan)
    ///     .plan_mode_instructions("List the files to change, then the tests to add. Nothing else.");
    /// # let _ = options;
    /// ```
    pub fn plan_mode_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.config.plan_mode_instructions = Some(instructions.into());
        self
    }

    /// When the model calls the tool `alias`, run `tool` instead (initialize `toolAliases`). One
    /// hop only: an alias of an alias is not followed. A later alias of the same name replaces
    /// it. Unlike `disallowed_tools`, this only changes what a name the model uses leads to.
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// // A skill tells the model to run `Bash`; run it in the sandbox's MCP tool instead.
    /// let options = Options::new()
    ///     .tool_alias("Bash", "mcp__workspace__bash")
    ///     .disallowed_tools(["Bash"]);
    /// # let _ = options;
    /// ```
    pub fn tool_alias(mut self, alias: impl Into<String>, tool: impl Into<String>) -> Self {
        upsert(&mut self.config.tool_aliases, alias.into(), tool.into());
        self
    }

    /// Several aliases, as [`Options::tool_alias`] each.
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// let options = Options::new().tool_aliases([("Read", "mcp__vfs__read"), ("Write", "mcp__vfs__write")]);
    /// # let _ = options;
    /// ```
    pub fn tool_aliases<I, A, T>(self, aliases: I) -> Self
    where
        I: IntoIterator<Item = (A, T)>,
        A: Into<String>,
        T: Into<String>,
    {
        aliases.into_iter().fold(self, |options, (alias, tool)| {
            options.tool_alias(alias, tool)
        })
    }

    /// Short progress summaries of running subagents, about every 30 s, in the `summary` of
    /// their `task_progress` messages (initialize `agentProgressSummaries`; off by default).
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// let options = Options::new().agent_progress_summaries(true);
    /// # let _ = options;
    /// ```
    pub fn agent_progress_summaries(mut self, summaries: bool) -> Self {
        self.config.agent_progress_summaries = Some(summaries);
        self
    }

    /// Declare that the application lets the user stop each background task on its own (with
    /// `Client::stop_task`); an interrupt then stops only the current turn and spares running
    /// background agents (initialize `perTaskStopAffordance`). Without it, an interrupt stops
    /// them too.
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// let options = Options::new().per_task_stop_affordance(true);
    /// # let _ = options;
    /// ```
    pub fn per_task_stop_affordance(mut self, declared: bool) -> Self {
        self.config.per_task_stop_affordance = Some(declared);
        self
    }

    /// Any other `initialize` field, for what the CLI reads there and these options do not
    /// set. A field these options set takes this value instead, where it stands; others follow
    /// the options' fields in call order, and a later value of the same name replaces an
    /// earlier one. `subtype` and `hooks` cannot be set so
    /// ([`OptionsError::ReservedInitializeField`](super::OptionsError::ReservedInitializeField)).
    ///
    /// ```
    /// # use claude_agent_tokio::options::{HostDeclarations, Options};
    /// # use claude_agent_tokio::session::InputMode;
    /// let config = Options::new()
    ///     .initialize_field("rapidFollowupPreempt", true)
    ///     .initialize_field("webSearchIsolationExemptMcpServers", serde_json::json!(["docs"]))
    ///     .config().session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// assert_eq!(
    ///     config.initialize_fields.unwrap().as_str(),
    ///     r#"{"systemPrompt":[""],"rapidFollowupPreempt":true,"webSearchIsolationExemptMcpServers":["docs"]}"#
    /// );
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn initialize_field(
        mut self,
        name: impl Into<String>,
        value: impl Into<serde_json::Value>,
    ) -> Self {
        upsert(
            &mut self.config.extra_initialize_fields,
            name.into(),
            value.into(),
        );
        self
    }

    /// Track file changes so they can be rewound (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let spec = Options::new().enable_file_checkpointing(true).config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(spec.env.contains(&("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING".into(), "true".into())));
    /// // `Client::rewind_files` can now undo the file changes of a turn.
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn enable_file_checkpointing(mut self, enable: bool) -> Self {
        self.config.enable_file_checkpointing = enable;
        self
    }

    /// A label for the application using the SDK (`CLAUDE_AGENT_SDK_CLIENT_APP`).
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let spec = Options::new().client_app("acme-review-bot/2.3").config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(spec.env.contains(&("CLAUDE_AGENT_SDK_CLIENT_APP".into(), "acme-review-bot/2.3".into())));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn client_app(mut self, label: impl Into<String>) -> Self {
        self.config.client_app = Some(label.into());
        self
    }
}

/// What the setters add on top of the plain data (which calls add to, and which replace,
/// earlier ones), seen in the command line and environment they produce.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{AgentConfig, HostDeclarations, LaunchSpec};

    fn spec(config: &AgentConfig) -> LaunchSpec {
        config
            .launch_spec("claude".into(), &HostDeclarations::NONE)
            .unwrap()
    }

    /// The arguments after the fixed ones (output and input format, `--verbose`).
    fn tail(config: AgentConfig) -> Vec<String> {
        spec(&config).args[5..].to_vec()
    }

    #[test]
    fn removed_variables_last_call_wins_and_set_ones_are_never_removed() {
        let options = Options::new()
            .env("KEEP", "1")
            .env_remove("KEEP")
            .env_remove("GONE")
            .env("BACK", "2")
            .env_remove("BACK")
            .env("BACK", "3")
            .env_remove("GONE")
            .env("NODE_OPTIONS", "--x");
        let spec = spec(options.config());
        assert!(spec.env.iter().all(|(name, _)| name != "KEEP"));
        assert!(spec.env.contains(&("BACK".into(), "3".into())));
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

    #[test]
    fn a_later_extra_arg_replaces_one_of_the_same_flag() {
        let options = Options::new()
            .settings("-settings.json")
            .extra_arg("a", Some("-v".into()))
            .extra_arg("b", Some("-".into()))
            .extra_arg("c", None)
            .extra_arg("a", Some("--w".into()));
        assert_eq!(
            tail(options.config().clone()),
            ["--settings=-settings.json", "--a=--w", "--b", "-", "--c"]
        );
    }

    #[test]
    fn list_setters_add_to_earlier_calls() {
        let options = Options::new()
            .allowed_tools(["Read"])
            .allowed_tools(["Grep", "Glob"])
            .disallowed_tools(["Bash", "Write"])
            .betas(["x", "y"]);
        assert_eq!(
            tail(options.config().clone()),
            [
                "--betas=x,y",
                "--allowedTools=Read,Grep,Glob",
                "--disallowedTools=Bash,Write"
            ]
        );
    }

    #[test]
    fn env_from_a_map() {
        let map = std::collections::HashMap::from([("ONLY", "one")]);
        let env = spec(Options::new().envs(map).config()).env;
        assert_eq!(env[1], ("ONLY".to_string(), "one".to_string()));
    }
}
