//! Why [`super::AgentConfig::launch_spec`] or [`super::AgentConfig::session_config`] refused the options.

use std::path::PathBuf;

/// Options that contradict each other or cannot be passed to the CLI. Each message says what to change.
///
/// ```
/// # use claude_agent_tokio::options::{AgentConfig, HostDeclarations, OptionsError};
/// let mut config = AgentConfig::default();
/// config.model = Some("opus".into());
/// config.fallback_model = Some("opus".into());
/// let err = config.launch_spec("claude".into(), &HostDeclarations::NONE);
/// assert!(matches!(err, Err(OptionsError::FallbackModelSameAsModel { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// A `can_use_tool` callback and a `permission_prompt_tool_name` both answer permission prompts.
    #[error(
        "can_use_tool and permission_prompt_tool_name ({tool:?}) are mutually exclusive: \
         the callback already answers permission prompts (as `--permission-prompt-tool=stdio`); \
         remove one of them"
    )]
    CanUseToolWithPromptTool {
        /// The permission prompt tool name that was set.
        tool: String,
    },
    /// The fallback model is the main model, so falling back would change nothing.
    #[error("fallback_model is the same as model ({model:?}); choose a different fallback model or remove it")]
    FallbackModelSameAsModel {
        /// The model named twice.
        model: String,
    },
    /// `sandbox` must be merged into the settings, but the settings are a file path (files are not read here).
    #[error(
        "settings is a file path ({path:?}) and sandbox is set; pass the settings as inline JSON \
         (settings_json) so the sandbox can be merged into them, or move the sandbox into that file"
    )]
    SettingsFileWithSandbox {
        /// The settings file.
        path: PathBuf,
    },
    /// A claim's settings overlay cannot be merged into settings given as a file path, for a
    /// cold start of the claimed session ([`super::AgentConfig::claimed`]).
    #[error(
        "settings is a file path ({path:?}) and the claim has a settings overlay; pass the \
         settings as inline JSON (settings_json) so the overlay can be merged into them"
    )]
    SettingsFileWithOverlay {
        /// The settings file.
        path: PathBuf,
    },
    /// Inline settings that must be merged with `sandbox` are not a JSON object.
    #[error("settings must be a JSON object to merge the sandbox into them: {reason}; fix the settings JSON")]
    InvalidSettingsJson {
        /// What is wrong with the settings.
        reason: String,
    },
    /// A skill name the CLI would misread in its `Skill(<name>)` tool rule.
    #[error("invalid skill name {name:?}: {reason}; rename the skill or drop it from skills")]
    InvalidSkillName {
        /// The offending name.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// Two MCP servers (in-process or external) share a name.
    #[error("two MCP servers are named {name:?}; give each server (in-process and external) a unique name")]
    DuplicateMcpServerName {
        /// The shared name.
        name: String,
    },
    /// A plugin that is not a local directory; only `local` plugins can be passed (`--plugin-dir`).
    #[error("plugin {path:?} has type {kind:?}, but only \"local\" plugins are supported; use PluginConfig::local")]
    UnsupportedPluginType {
        /// The plugin's type.
        kind: String,
        /// The plugin's path.
        path: String,
    },
    /// A count or size that must be positive was zero.
    #[error("{option} must be greater than zero; remove it to use the default")]
    MustBePositive {
        /// The option's name.
        option: &'static str,
    },
    /// [`AgentConfig::budget`](super::AgentConfig::budget) limits nothing, or warns at a share outside 0 to 1.
    #[error(
        "budget needs a positive, finite max_usd or a positive max_tokens, and a warn_at above 0 \
         and at most 1"
    )]
    UnusableBudget,
    /// `max_budget_usd` is negative, NaN or infinite.
    #[error("max_budget_usd must be a finite, non-negative number of dollars, not {value}")]
    InvalidBudget {
        /// The value given.
        value: f64,
    },
    /// An `extra_args` flag that would not become one `--flag` token.
    #[error(
        "extra_args flag {flag:?} is invalid: give the flag name without leading dashes, \
         with no '=' or whitespace, e.g. \"replay-user-messages\""
    )]
    InvalidExtraArgFlag {
        /// The flag as given.
        flag: String,
    },
    /// An environment variable name that no OS accepts.
    #[error("environment variable name {key:?} is invalid: it must be non-empty and contain no '=' or NUL")]
    InvalidEnvName {
        /// The name as given.
        key: String,
    },
    /// A hook matcher declared with no callbacks.
    #[error("the {event} hook matcher {matcher:?} has no callbacks; declare at least one callback or remove the matcher")]
    HookWithoutCallbacks {
        /// The hook event's wire name.
        event: String,
        /// The matcher pattern.
        matcher: Option<String>,
    },
    /// `thinking_display` was set while thinking is disabled.
    #[error("thinking_display is set but thinking is disabled; enable thinking or remove thinking_display")]
    ThinkingDisplayWhileDisabled,
    /// A path that is not valid UTF-8 cannot be put on the command line or in JSON.
    #[error("the {option} path {path:?} is not valid UTF-8; use a UTF-8 path")]
    NonUtf8Path {
        /// The option holding the path.
        option: &'static str,
        /// The path, lossily converted for display.
        path: String,
    },
    /// An agent's compaction window is below what the CLI takes
    /// ([`super::AgentDefinition::MIN_AUTO_COMPACT_WINDOW`]); the CLI would drop every agent.
    #[error(
        "agent {agent:?} has auto_compact_window {tokens}, but the CLI takes no less than 100000 \
         tokens (and drops every agent of the session otherwise); raise it or remove it"
    )]
    AgentAutoCompactWindow {
        /// The agent's name.
        agent: String,
        /// The window given.
        tokens: u64,
    },
    /// [`AgentConfig::extra_initialize_fields`](super::AgentConfig::extra_initialize_fields)
    /// named a field the session writes itself.
    #[error(
        "the initialize field {name:?} is written by the session itself and cannot be set with \
         initialize_field; remove it (hooks are set with Options::on_hook_event)"
    )]
    ReservedInitializeField {
        /// The field's name.
        name: String,
    },
    /// A session store and file checkpointing: checkpoints are kept on the local disk only, so
    /// a session resumed from the store could not rewind its files.
    #[error(
        "a session store cannot be combined with enable_file_checkpointing: checkpoints stay on \
         the local disk and are not mirrored to the store, so rewind_files would fail after a \
         resume from it; remove one of them"
    )]
    SessionStoreWithFileCheckpointing,
    /// A session store with session persistence off: the CLI writes no transcript, so there is
    /// nothing to mirror to the store.
    #[error(
        "a session store needs the CLI to keep its transcript, but persist_session(false) turns \
         that off; remove one of them"
    )]
    SessionStoreWithoutPersistence,
    /// A NUL byte in an argument or environment value; no process can receive it.
    #[error("{what} contains a NUL byte; remove it")]
    NulByte {
        /// The argument (up to its `=`) or environment variable name.
        what: String,
    },
}
