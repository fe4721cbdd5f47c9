//! Why the CLI refused to start: [`StartupFailureReason`], and the file of a
//! [`config_file_invalid`](StartupFailureReason::ConfigFileInvalid) failure.

use serde::Deserialize;

use crate::unknown_name::wire_name_traits;
use crate::UnknownName;

/// Why the CLI refused to start, from the `startup_failure_reason` of the error result it writes
/// before it exits: the fix to offer, rather than a retry. The SDK asks the CLI for these results
/// (`CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1` in its environment), so a refused start ends with
/// `Error::Result` (the client layer's) carrying the reason, not with a bare exit
/// status.
///
/// A reason this crate does not know is kept as [`StartupFailureReason::Other`].
///
/// ```
/// use claude_agent_tokio::message::{Message, StartupFailureReason};
///
/// // What the CLI writes when `HTTPS_PROXY` is not a URL.
/// let line = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"errors":["Invalid proxy URL in HTTPS_PROXY: \"bogus\" cannot be parsed as a URL."],"startup_failure_reason":"proxy_invalid","session_id":"s"}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// let reason = result.startup_failure_reason.unwrap();
/// assert_eq!(reason, StartupFailureReason::ProxyInvalid);
/// assert!(!reason.may_pass_on_retry());
/// assert_eq!(StartupFailureReason::from_name("a_newer_reason").as_str(), "a_newer_reason");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StartupFailureReason {
    /// `org_pin_api_key_conflict`: managed settings pin a sign-in (first party or a cloud
    /// gateway), and an API key or auth token is configured instead.
    OrgPinApiKeyConflict,
    /// `provider_not_allowed`: managed settings list the API providers this machine may use,
    /// and the session is set up for another.
    ProviderNotAllowed,
    /// `org_verify_failed`: the sign-in's organization could not be verified against the pin
    /// (the network, or a revoked token).
    OrgVerifyFailed,
    /// `org_pin_mismatch`: the sign-in belongs to an organization the pin does not allow.
    OrgPinMismatch,
    /// `managed_settings_invalid`: managed settings could not be read, the pin names no
    /// organization, or managed model settings leave no model to use.
    ManagedSettingsInvalid,
    /// `remote_settings_required_unavailable`: managed settings the organization requires could
    /// not be loaded.
    RemoteSettingsRequiredUnavailable,
    /// `gateway_signin_required`: the cloud gateway ended this sign-in.
    GatewaySigninRequired,
    /// `gateway_access_denied`: the cloud gateway refused managed settings for this account.
    GatewayAccessDenied,
    /// `proxy_invalid`: a proxy setting (`HTTPS_PROXY`, …) is not a complete URL.
    ProxyInvalid,
    /// `temp_dir_unusable`: the per-user temporary folder is unsafe or could not be made.
    TempDirUnusable,
    /// `cwd_unavailable`: the working directory is gone, moved or unreadable (or a folder of
    /// its path has a name that is not UTF-8 and another entry stands at the name the CLI reads).
    CwdUnavailable,
    /// `shell_tool_missing`: on Windows, no shell tool (Git Bash missing, PowerShell missing or
    /// turned off).
    ShellToolMissing,
    /// `session_held_by_background`: the conversation to resume or continue runs as a
    /// background session.
    SessionHeldByBackground,
    /// `worktree_resume_refused`: the session's worktree failed its safety checks, or the
    /// resume was started from inside it; the result's `errors` say whether a new run goes on
    /// without the worktree.
    WorktreeResumeRefused,
    /// `worktree_unverified`: the session's worktree could not be checked just now.
    WorktreeUnverified,
    /// `cli_version_too_old`: this CLI is older than the minimum Anthropic requires.
    CliVersionTooOld,
    /// `bypass_root`: `bypassPermissions` was asked for while running as root.
    BypassRoot,
    /// `org_config_required_unavailable`: the organization's policy limits and managed settings,
    /// required before a session starts, could not be loaded (network, proxy, an API error).
    OrgConfigRequiredUnavailable,
    /// `org_config_refused`: Anthropic refused the organization's required configuration for
    /// this sign-in (an expired or revoked session, or no Claude Code for this account): sign in
    /// again, or an admin changes it.
    OrgConfigRefused,
    /// `sandbox_required_unavailable`: a working sandbox is required and cannot run here (e.g.
    /// bubblewrap is missing).
    SandboxRequiredUnavailable,
    /// `initialize_not_first`: the CLI waited for `initialize` and its first stdin line was
    /// something else (a wrapper between the host and the CLI changed it, for example).
    InitializeNotFirst,
    /// `config_file_invalid`: a configuration file read at start is not valid JSON; the result's
    /// [`invalid_config_file`](crate::message::ResultMessage::invalid_config_file) names it. The
    /// CLI refuses every start without a terminal until it is repaired.
    ConfigFileInvalid,
    /// `managed_settings_not_delivered`: the managed settings the CLI was to read from
    /// `initialize` did not come, or could not be used.
    ManagedSettingsNotDelivered,
    /// `initialize_fields_not_delivered`: as `ManagedSettingsNotDelivered`, for the settings
    /// (or disallowed tools) the CLI was to read from `initialize`.
    InitializeFieldsNotDelivered,
    /// `sideload_flags_disabled`: managed settings turn off plugins, agents and MCP servers
    /// named at launch, and the launch names some (a start without them is not refused).
    SideloadFlagsDisabled,
    /// A reason this crate does not know, as the CLI named it.
    Other(UnknownName),
}

/// Every known reason and its wire name, in one place for both directions.
const NAMES: [(StartupFailureReason, &str); 25] = [
    (
        StartupFailureReason::OrgPinApiKeyConflict,
        "org_pin_api_key_conflict",
    ),
    (
        StartupFailureReason::ProviderNotAllowed,
        "provider_not_allowed",
    ),
    (StartupFailureReason::OrgVerifyFailed, "org_verify_failed"),
    (StartupFailureReason::OrgPinMismatch, "org_pin_mismatch"),
    (
        StartupFailureReason::ManagedSettingsInvalid,
        "managed_settings_invalid",
    ),
    (
        StartupFailureReason::RemoteSettingsRequiredUnavailable,
        "remote_settings_required_unavailable",
    ),
    (
        StartupFailureReason::GatewaySigninRequired,
        "gateway_signin_required",
    ),
    (
        StartupFailureReason::GatewayAccessDenied,
        "gateway_access_denied",
    ),
    (StartupFailureReason::ProxyInvalid, "proxy_invalid"),
    (StartupFailureReason::TempDirUnusable, "temp_dir_unusable"),
    (StartupFailureReason::CwdUnavailable, "cwd_unavailable"),
    (StartupFailureReason::ShellToolMissing, "shell_tool_missing"),
    (
        StartupFailureReason::SessionHeldByBackground,
        "session_held_by_background",
    ),
    (
        StartupFailureReason::WorktreeResumeRefused,
        "worktree_resume_refused",
    ),
    (
        StartupFailureReason::WorktreeUnverified,
        "worktree_unverified",
    ),
    (
        StartupFailureReason::CliVersionTooOld,
        "cli_version_too_old",
    ),
    (StartupFailureReason::BypassRoot, "bypass_root"),
    (
        StartupFailureReason::OrgConfigRequiredUnavailable,
        "org_config_required_unavailable",
    ),
    (StartupFailureReason::OrgConfigRefused, "org_config_refused"),
    (
        StartupFailureReason::SandboxRequiredUnavailable,
        "sandbox_required_unavailable",
    ),
    (
        StartupFailureReason::InitializeNotFirst,
        "initialize_not_first",
    ),
    (
        StartupFailureReason::ConfigFileInvalid,
        "config_file_invalid",
    ),
    (
        StartupFailureReason::ManagedSettingsNotDelivered,
        "managed_settings_not_delivered",
    ),
    (
        StartupFailureReason::InitializeFieldsNotDelivered,
        "initialize_fields_not_delivered",
    ),
    (
        StartupFailureReason::SideloadFlagsDisabled,
        "sideload_flags_disabled",
    ),
];

impl StartupFailureReason {
    /// The reason named `name`; unknown names become [`StartupFailureReason::Other`].
    ///
    /// ```
    /// use claude_agent_tokio::message::StartupFailureReason;
    ///
    /// assert_eq!(StartupFailureReason::from_name("bypass_root"), StartupFailureReason::BypassRoot);
    /// ```
    pub fn from_name(name: &str) -> Self {
        NAMES.iter().find(|(_, known)| *known == name).map_or_else(
            || StartupFailureReason::Other(UnknownName::new(name)),
            |(reason, _)| reason.clone(),
        )
    }

    /// The reason's wire name.
    ///
    /// ```
    /// use claude_agent_tokio::message::StartupFailureReason;
    ///
    /// assert_eq!(StartupFailureReason::CwdUnavailable.as_str(), "cwd_unavailable");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            StartupFailureReason::Other(name) => name.as_str(),
            known => NAMES
                .iter()
                .find(|(reason, _)| reason == known)
                .map_or("", |(_, name)| name),
        }
    }

    /// Whether the same start may pass if tried again later, with nothing changed: the two
    /// failures the CLI itself says a retry may get past (a worktree it could not check just
    /// now, the organization's configuration that could not be loaded). The others need a
    /// change first (settings, sign-in, environment, the host's code), or say nothing either way
    /// (`org_verify_failed`: the network, or a revoked token).
    ///
    /// ```
    /// use claude_agent_tokio::message::StartupFailureReason;
    ///
    /// assert!(StartupFailureReason::OrgConfigRequiredUnavailable.may_pass_on_retry());
    /// assert!(!StartupFailureReason::BypassRoot.may_pass_on_retry());
    /// assert!(!StartupFailureReason::OrgVerifyFailed.may_pass_on_retry()); // maybe a revoked token
    /// ```
    pub fn may_pass_on_retry(&self) -> bool {
        matches!(
            self,
            StartupFailureReason::WorktreeUnverified
                | StartupFailureReason::OrgConfigRequiredUnavailable
        )
    }
}

wire_name_traits!(StartupFailureReason);

/// The configuration file that did not parse, on a
/// [`ConfigFileInvalid`](StartupFailureReason::ConfigFileInvalid) failure. Paths are as the
/// machine running the CLI sees them; read them from here, not from the error text.
///
/// ```
/// use claude_agent_tokio::message::Message;
///
/// let line = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"errors":["…"],"startup_failure_reason":"config_file_invalid","invalid_config_file":{"path":"/home/me/.claude.json","is_global":true,"backup_searched":true,"backup_path":"/home/me/.claude/backups/.claude.json.backup"},"session_id":"s"}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// let file = result.invalid_config_file.unwrap();
/// assert_eq!(file.path, "/home/me/.claude.json");
/// assert!(file.is_global && file.backup_path.is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct InvalidConfigFile {
    /// The file that is not valid JSON.
    pub path: String,
    /// Whether it is the CLI's global configuration file (the only one with backups).
    #[serde(default)]
    pub is_global: bool,
    /// Whether the CLI knows the outcome of its search for a backup: with no `backup_path`, it
    /// found none.
    #[serde(default)]
    pub backup_searched: bool,
    /// The backup the error text names. It may not parse either: show it to a person, or check
    /// it before copying it over `path`.
    #[serde(default)]
    pub backup_path: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_reason_round_trips_through_its_wire_name() {
        for (reason, name) in &NAMES {
            assert_eq!(reason.as_str(), *name);
            assert_eq!(&StartupFailureReason::from_name(name), reason);
            let json = serde_json::to_string(reason).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            let back: StartupFailureReason = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, reason);
        }
    }
}
