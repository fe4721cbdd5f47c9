//! Claiming a parked CLI: what a claim sets ([`ClaimOptions`]), how the CLI answered
//! ([`ClaimInfo`]), and why it refused ([`ClaimRefusal`]).
//!
//! A CLI started with `--await-claim` (a *spare*) starts up and answers `initialize`, then waits,
//! bound to no session. A claim binds it: a `claim_session` request carries the working
//! directory and the per-session options, `set_model` and `set_max_thinking_tokens` follow it,
//! and a flag-settings overlay is split around it. [`crate::session::Session::claim`] writes all
//! of that; [`crate::session::Event::Claimed`] reports the outcome.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::InitializeResponse;
use crate::option_types::agent::AgentDefinition;
use crate::permission::PermissionMode;
use crate::UnknownName;

/// Keys of a settings overlay that govern hooks: a claim cannot apply them (they must be in force
/// before any hook runs), so they belong to the spare's own options.
const HOOK_KEYS: [&str; 5] = [
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
];

/// Keys of a settings overlay sent right behind the claim rather than ahead of it: they are in
/// force before the first message, but the folder's `SessionStart` hooks do not wait for them.
const FOLLOWING_KEYS: [&str; 6] = [
    "model",
    "agent",
    "fastMode",
    "permissions",
    "availableModels",
    "disableAutoMode",
];

/// A settings overlay: a JSON object.
pub(crate) type Overlay = Map<String, Value>;

/// An environment variable the CLI takes at claim time. Every other variable is read while the
/// spare starts, so it belongs to the spare's own options.
///
/// ```
/// use claude_agent_tokio::control::ClaimableVar;
/// assert_eq!(ClaimableVar::HostSessionId.name(), "CLAUDE_CODE_HOST_SESSION_ID");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClaimableVar {
    /// `CLAUDE_CODE_OAUTH_TOKEN`: a fresh OAuth token.
    OauthToken,
    /// `CLAUDE_CODE_SESSION_ACCESS_TOKEN`: a session access token.
    SessionAccessToken,
    /// `CLAUDE_CODE_HOST_SESSION_ID`: the host's own id for the session.
    HostSessionId,
}

impl ClaimableVar {
    /// The variable's name.
    pub fn name(self) -> &'static str {
        match self {
            ClaimableVar::OauthToken => "CLAUDE_CODE_OAUTH_TOKEN",
            ClaimableVar::SessionAccessToken => "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
            ClaimableVar::HostSessionId => "CLAUDE_CODE_HOST_SESSION_ID",
        }
    }
}

/// Why [`ClaimOptions::settings`] refused an overlay. Nothing has been sent: the spare is as it
/// was.
///
/// ```
/// use claude_agent_tokio::control::{ClaimOptions, ClaimOptionsError};
/// let refused = ClaimOptions::new("/srv/app").settings(serde_json::json!({"disableAllHooks": true}));
/// assert_eq!(refused.unwrap_err(), ClaimOptionsError::HookSettings(vec!["disableAllHooks".into()]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimOptionsError {
    /// The overlay is not a JSON object.
    #[error("a settings overlay must be a JSON object")]
    NotAnObject,
    /// The overlay sets keys that govern hooks; give them to the spare's options instead
    /// (`Options::settings_json`), where they are in force before any hook runs.
    #[error(
        "hook settings ({}) cannot be applied at claim: give them to the spare's options",
        .0.join(", ")
    )]
    HookSettings(Vec<String>),
}

/// The per-session half of a session's options: what a host knows only once the user picked a
/// folder. Everything else (the executable, tools, MCP servers, hooks, callbacks, the environment
/// the CLI reads at start-up) is fixed when the spare starts.
///
/// ```
/// use claude_agent_tokio::control::{ClaimOptions, ClaimableVar};
/// use claude_agent_tokio::permission::PermissionMode;
///
/// let claim = ClaimOptions::new("/srv/app")
///     .model("claude-sonnet-5")
///     .permission_mode(PermissionMode::AcceptEdits)
///     .add_dir("/srv/shared")
///     .append_system_prompt("Answer in French.")
///     .title("Release notes")
///     .env(ClaimableVar::HostSessionId, "host-42")
///     .settings(serde_json::json!({"effortLevel": "high"}))?;
/// assert_eq!(claim.get_cwd(), std::path::Path::new("/srv/app"));
/// # Ok::<(), claude_agent_tokio::control::ClaimOptionsError>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct ClaimOptions {
    pub(crate) cwd: PathBuf,
    pub(crate) env: Vec<(ClaimableVar, String)>,
    pub(crate) additional_directories: Vec<PathBuf>,
    pub(crate) model: Option<String>,
    pub(crate) permission_mode: Option<PermissionMode>,
    pub(crate) max_thinking_tokens: Option<Option<u64>>,
    pub(crate) settings: Option<Map<String, Value>>,
    pub(crate) append_system_prompt: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) agents: Vec<(String, AgentDefinition)>,
    pub(crate) include_initialize: bool,
}

/// The values of the variables (tokens among them) and of the settings' `env` print as
/// `"[redacted]"`, and subagents by name: a claim can be logged.
impl fmt::Debug for ClaimOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let env: Vec<(ClaimableVar, &str)> = self
            .env
            .iter()
            .map(|(var, _)| (*var, crate::redact::REDACTED))
            .collect();
        let settings = self.settings.clone().map(|settings| {
            let mut settings = Value::Object(settings);
            crate::redact::redact_secrets(&mut settings);
            settings
        });
        let agents: Vec<&str> = self.agents.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("ClaimOptions")
            .field("cwd", &self.cwd)
            .field("env", &env)
            .field("additional_directories", &self.additional_directories)
            .field("model", &self.model)
            .field("permission_mode", &self.permission_mode)
            .field("max_thinking_tokens", &self.max_thinking_tokens)
            .field("settings", &settings)
            .field("append_system_prompt", &self.append_system_prompt)
            .field("title", &self.title)
            .field("agents", &agents)
            .field("include_initialize", &self.include_initialize)
            .finish()
    }
}

impl ClaimOptions {
    /// A claim of the session's working directory `cwd` (relative paths resolve against the
    /// CLI's parking directory: give an absolute one).
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        ClaimOptions {
            cwd: cwd.into(),
            env: Vec::new(),
            additional_directories: Vec::new(),
            model: None,
            permission_mode: None,
            max_thinking_tokens: None,
            settings: None,
            append_system_prompt: None,
            title: None,
            agents: Vec::new(),
            include_initialize: true,
        }
    }

    /// The session's working directory.
    pub fn get_cwd(&self) -> &Path {
        &self.cwd
    }

    /// One of the variables the CLI takes at claim time.
    pub fn env(mut self, var: ClaimableVar, value: impl Into<String>) -> Self {
        self.env.retain(|(v, _)| *v != var);
        self.env.push((var, value.into()));
        self
    }

    /// Another directory the session may access (as `--add-dir`; relative to `cwd`).
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.additional_directories.push(dir.into());
        self
    }

    /// The model, set right behind the claim. If the CLI does not take it, the session runs
    /// without it and the claim reports it in [`ClaimInfo::not_applied`].
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The permission mode, sent inside the claim: a mode the CLI cannot take refuses the
    /// claim ([`ClaimRefusalReason::PermissionModeNotClaimable`]), so a session never runs under
    /// another mode than the one asked for.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// The extended-thinking budget (`None` clears it), set right behind the claim, like
    /// [`ClaimOptions::model`].
    ///
    /// ```
    /// use claude_agent_tokio::control::ClaimOptions;
    ///
    /// let deep = ClaimOptions::new("/srv/app").max_thinking_tokens(Some(16_000));
    /// # let _ = deep;
    /// ```
    pub fn max_thinking_tokens(mut self, tokens: Option<u64>) -> Self {
        self.max_thinking_tokens = Some(tokens);
        self
    }

    /// A flag-tier settings overlay (`{"effortLevel": "high"}`, permission rules, which of the
    /// folder's MCP servers may start, …). The prompt waits until the CLI accepted it (one round
    /// trip more); if the CLI refuses it, the claim is refused with
    /// [`ClaimRefusalReason::SettingsNotApplied`] and the prompt never runs. Keys that govern
    /// hooks are refused here, before anything is sent.
    pub fn settings(mut self, overlay: Value) -> Result<Self, ClaimOptionsError> {
        let Value::Object(overlay) = overlay else {
            return Err(ClaimOptionsError::NotAnObject);
        };
        let hooks: Vec<String> = HOOK_KEYS
            .iter()
            .filter(|key| overlay.contains_key(**key))
            .map(|key| (*key).to_owned())
            .collect();
        if !hooks.is_empty() {
            return Err(ClaimOptionsError::HookSettings(hooks));
        }
        self.settings = Some(overlay);
        Ok(self)
    }

    /// Text appended to the system prompt.
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.append_system_prompt = Some(text.into());
        self
    }

    /// The session's title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// A subagent for this session (one of the same name given before is replaced).
    ///
    /// ```
    /// use claude_agent_tokio::control::ClaimOptions;
    /// use claude_agent_tokio::options::AgentDefinition;
    ///
    /// let reviewer = AgentDefinition::new("Reviews a diff", "You review diffs for bugs.").tools(["Read", "Grep"]);
    /// let claim = ClaimOptions::new("/srv/app").agent_definition("reviewer", reviewer);
    /// # let _ = claim;
    /// ```
    pub fn agent_definition(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        let name = name.into();
        self.agents.retain(|(n, _)| *n != name);
        self.agents.push((name, agent));
        self
    }

    /// Whether the claim's answer carries the claimed session's `initialize` payload (commands,
    /// agents, models, account) in [`ClaimInfo::initialize`]. On by default; off saves the CLI
    /// that work on the way to the first message.
    ///
    /// ```
    /// use claude_agent_tokio::control::ClaimOptions;
    ///
    /// // The app never reads the session's commands or models: skip building them.
    /// let claim = ClaimOptions::new("/srv/app").include_initialize(false);
    /// # let _ = claim;
    /// ```
    pub fn include_initialize(mut self, include: bool) -> Self {
        self.include_initialize = include;
        self
    }

    /// The overlay's keys sent ahead of the claim, and those sent behind it.
    pub(crate) fn split_settings(&self) -> (Option<Overlay>, Option<Overlay>) {
        let Some(overlay) = &self.settings else {
            return (None, None);
        };
        let (mut before, mut after) = (Map::new(), Map::new());
        for (key, value) in overlay {
            let side = if FOLLOWING_KEYS.contains(&key.as_str()) {
                &mut after
            } else {
                &mut before
            };
            side.insert(key.clone(), value.clone());
        }
        let some = |map: Map<String, Value>| (!map.is_empty()).then_some(map);
        (some(before), some(after))
    }

    /// The `claim_session` request body, with the in-process MCP servers the session serves.
    pub(crate) fn claim_body(&self, sdk_mcp_servers: &[String]) -> String {
        #[derive(Serialize)]
        struct Body<'a> {
            subtype: &'static str,
            cwd: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            permission_mode: Option<&'a PermissionMode>,
            #[serde(skip_serializing_if = "Option::is_none")]
            env: Option<Map<String, Value>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            additional_directories: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            append_system_prompt: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            title: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            agents: Option<Map<String, Value>>,
            sdk_mcp_servers: &'a [String],
            include_initialize: bool,
        }
        let path = |p: &Path| p.to_string_lossy().into_owned();
        let env = (!self.env.is_empty()).then(|| {
            self.env
                .iter()
                .map(|(var, value)| (var.name().to_owned(), Value::String(value.clone())))
                .collect()
        });
        let agents = (!self.agents.is_empty()).then(|| {
            self.agents
                .iter()
                .map(|(name, agent)| {
                    let value = serde_json::to_value(agent).expect("agents always serialize");
                    (name.clone(), value)
                })
                .collect()
        });
        let body = Body {
            subtype: "claim_session",
            cwd: path(&self.cwd),
            permission_mode: self.permission_mode.as_ref(),
            env,
            additional_directories: (!self.additional_directories.is_empty()).then(|| {
                self.additional_directories
                    .iter()
                    .map(|d| path(d))
                    .collect()
            }),
            append_system_prompt: self.append_system_prompt.as_deref(),
            title: self.title.as_deref(),
            agents,
            sdk_mcp_servers,
            include_initialize: self.include_initialize,
        };
        serde_json::to_string(&body).expect("a claim always serializes")
    }
}

/// An option of a claim that is set by a request of its own, right behind the claim.
///
/// ```
/// use claude_agent_tokio::control::ClaimOption;
/// assert_eq!(ClaimOption::Model.to_string(), "model");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimOption {
    /// [`ClaimOptions::model`].
    Model,
    /// [`ClaimOptions::max_thinking_tokens`].
    MaxThinkingTokens,
}

impl fmt::Display for ClaimOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClaimOption::Model => "model",
            ClaimOption::MaxThinkingTokens => "max_thinking_tokens",
        })
    }
}

/// An option of the claim the CLI did not take (`option_not_applied`): the session runs, and its
/// prompt was sent, without it. Do not start the session again.
///
/// ```
/// use claude_agent_tokio::control::{ClaimOption, NotApplied};
/// fn warn(not_applied: &[NotApplied]) {
///     for skipped in not_applied {
///         eprintln!("the session runs without its {}: {}", skipped.option, skipped.message);
///     }
/// }
/// warn(&[]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotApplied {
    /// Which option.
    pub option: ClaimOption,
    /// The CLI's refusal.
    pub message: String,
}

/// The CLI's answer to a claim it took: the session now runs in `cwd`.
///
/// ```
/// use claude_agent_tokio::control::ClaimInfo;
/// fn report(info: &ClaimInfo) {
///     println!("session {} in {:?}, parked {:?} ms", info.session_id, info.cwd, info.parked_ms);
///     if !info.not_applied.is_empty() {
///         eprintln!("running without: {:?}", info.not_applied);
///     }
/// }
/// # let _ = report;
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct ClaimInfo {
    /// The canonical working directory the session runs in (absent when it has characters the
    /// CLI never echoes).
    #[serde(default)]
    pub cwd: Option<String>,
    /// The session id.
    #[serde(default)]
    pub session_id: String,
    /// How long the spare was parked, in milliseconds.
    #[serde(default)]
    pub parked_ms: Option<u64>,
    /// Whether the in-process MCP servers had finished their handshakes when the claim came
    /// (`false`: the first turn still waits for them).
    #[serde(default)]
    pub sdk_mcp_settled: bool,
    /// The `initialize` payload of the claimed session, with
    /// [`ClaimOptions::include_initialize`] (taken before `model` and the overlay's following keys
    /// applied).
    #[serde(default)]
    pub initialize: Option<InitializeResponse>,
    /// Options set behind the claim that the CLI did not take (`option_not_applied`).
    #[serde(skip)]
    pub not_applied: Vec<NotApplied>,
}

/// Why the CLI refused a claim, from the reason token its refusal starts with.
///
/// ```
/// use claude_agent_tokio::control::ClaimRefusalReason;
/// assert_eq!(ClaimRefusalReason::of("cwd_not_found: the claim cwd does not exist"), ClaimRefusalReason::CwdNotFound);
/// assert_eq!(ClaimRefusalReason::of("env_key_not_claimable: HOME is read during start-up"), ClaimRefusalReason::EnvKeyNotClaimable);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimRefusalReason {
    /// The process was not started with `--await-claim`, or was claimed already.
    NotASpare,
    /// The spare was claimed already.
    AlreadyClaimed,
    /// The spare was busy with another request.
    Busy,
    /// A turn had started.
    TurnStarted,
    /// An environment variable the CLI reads at start-up.
    EnvKeyNotClaimable,
    /// The working directory does not exist or cannot be read.
    CwdNotFound,
    /// The working directory is not a directory.
    CwdNotADirectory,
    /// The working directory is on a path the CLI will not run in (a network path, …).
    UnsafePath,
    /// The folder's project or local settings set something only a fresh start applies (`env`,
    /// `model`, a main agent, …). The next claim of that folder would be refused too.
    ProjectSettingsNotClaimable,
    /// The permission mode cannot be taken.
    PermissionModeNotClaimable,
    /// The project names a proxy credential helper, which a spare does not run.
    ProxyAuthHelperNotClaimable,
    /// The project names an API key helper, which a spare does not run.
    ApiKeyHelperNotClaimable,
    /// The provider's credentials cannot be taken at claim time.
    ProviderCredentialsNotClaimable,
    /// A file the CLI read at start-up changed since.
    StartFileChanged,
    /// The claim request did not validate.
    InvalidRequest,
    /// The settings overlay was refused; the prompt was not sent.
    SettingsNotApplied,
    /// The claim broke after it began.
    ClaimFailed,
    /// The spare did not take the claim for another reason (`not_claimed`).
    NotClaimed,
    /// A reason this crate does not know, as the CLI named it.
    Other(UnknownName),
}

impl ClaimRefusalReason {
    /// The reason a refusal's text starts with (`reason: explanation`).
    pub fn of(message: &str) -> Self {
        let token = message
            .split(|c: char| c == ':' || c.is_whitespace())
            .next()
            .unwrap_or_default();
        match token {
            "not_a_spare" => ClaimRefusalReason::NotASpare,
            "already_claimed" => ClaimRefusalReason::AlreadyClaimed,
            "busy" => ClaimRefusalReason::Busy,
            "turn_started" => ClaimRefusalReason::TurnStarted,
            "env_key_not_claimable" => ClaimRefusalReason::EnvKeyNotClaimable,
            "cwd_not_found" => ClaimRefusalReason::CwdNotFound,
            "cwd_not_a_directory" => ClaimRefusalReason::CwdNotADirectory,
            "unsafe_path" => ClaimRefusalReason::UnsafePath,
            "project_settings_not_claimable" => ClaimRefusalReason::ProjectSettingsNotClaimable,
            "permission_mode_not_claimable" => ClaimRefusalReason::PermissionModeNotClaimable,
            "proxy_auth_helper_not_claimable" => ClaimRefusalReason::ProxyAuthHelperNotClaimable,
            "api_key_helper_not_claimable" => ClaimRefusalReason::ApiKeyHelperNotClaimable,
            "provider_credentials_not_claimable" => {
                ClaimRefusalReason::ProviderCredentialsNotClaimable
            }
            "start_file_changed" => ClaimRefusalReason::StartFileChanged,
            "invalid_request" => ClaimRefusalReason::InvalidRequest,
            "settings_not_applied" => ClaimRefusalReason::SettingsNotApplied,
            "claim_failed" => ClaimRefusalReason::ClaimFailed,
            "not_claimed" => ClaimRefusalReason::NotClaimed,
            other => ClaimRefusalReason::Other(UnknownName::new(other)),
        }
    }
}

/// The CLI refused a claim: the prompt did not run (a prompt already written is answered with an
/// error result), and the spare is let go. Start the session cold instead.
///
/// ```
/// use claude_agent_tokio::control::{ClaimRefusal, ClaimRefusalReason};
/// fn fall_back(refusal: &ClaimRefusal) -> bool {
///     // Worth a cold start in any case; worth parking spares for this folder again only if it
///     // was not the folder's own configuration that refused it.
///     eprintln!("claim refused ({:?}): {}", refusal.reason, refusal.message);
///     !refusal.recurs()
/// }
/// # let _ = fall_back;
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the spare refused the claim: {message}")]
#[non_exhaustive]
pub struct ClaimRefusal {
    /// The reason, from the refusal's first word.
    pub reason: ClaimRefusalReason,
    /// The CLI's text.
    pub message: String,
    /// The CLI's `error_code`: set when project or managed configuration caused the refusal.
    pub code: Option<String>,
}

impl ClaimRefusal {
    pub(crate) fn new(message: String, code: Option<String>) -> Self {
        ClaimRefusal {
            reason: ClaimRefusalReason::of(&message),
            message,
            code,
        }
    }

    /// Whether configuration (the folder's settings, managed settings, …) caused the refusal, so
    /// that the next claim of the same folder would likely be refused too.
    pub fn recurs(&self) -> bool {
        self.code.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A claim's tokens and its settings' `env` stay out of `Debug` (logs).
    #[test]
    fn debug_leaves_the_secrets_out() {
        let claim = ClaimOptions::new("/srv/app")
            .env(ClaimableVar::OauthToken, "sk-ant-oat-secret")
            .settings(serde_json::json!({"env": {"API_KEY": "sk-live"}, "model": "opus"}))
            .unwrap();
        let printed = format!("{claim:?}");
        assert!(
            !printed.contains("sk-ant-oat-secret") && !printed.contains("sk-live"),
            "{printed}"
        );
        assert!(
            printed.contains("OauthToken") && printed.contains("opus"),
            "{printed}"
        );
    }

    #[test]
    fn the_claim_body_has_the_typescript_sdks_fields() {
        let claim = ClaimOptions::new("/w")
            .permission_mode(PermissionMode::AcceptEdits)
            .env(ClaimableVar::HostSessionId, "h")
            .add_dir("/x")
            .title("t");
        assert_eq!(
            claim.claim_body(&["calc".to_owned()]),
            concat!(
                r#"{"subtype":"claim_session","cwd":"/w","permission_mode":"acceptEdits","#,
                r#""env":{"CLAUDE_CODE_HOST_SESSION_ID":"h"},"additional_directories":["/x"],"#,
                r#""title":"t","sdk_mcp_servers":["calc"],"include_initialize":true}"#
            )
        );
    }

    #[test]
    fn an_overlay_is_split_around_the_claim() {
        let claim = ClaimOptions::new("/w")
            .settings(serde_json::json!({"effortLevel": "high", "model": "m", "permissions": {}}))
            .unwrap();
        let (before, after) = claim.split_settings();
        assert_eq!(
            Value::Object(before.unwrap()),
            serde_json::json!({"effortLevel": "high"})
        );
        assert_eq!(
            Value::Object(after.unwrap()),
            serde_json::json!({"model": "m", "permissions": {}})
        );
        assert_eq!(
            ClaimOptions::new("/w").settings(serde_json::json!([1])),
            Err(ClaimOptionsError::NotAnObject)
        );
    }
}
