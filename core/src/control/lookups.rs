//! Answers of the CLI's lookups on a running session: `list_models`, `get_settings`,
//! `file_suggestions`, and of `cancel_async_message`.

use serde::Deserialize;

use super::ModelInfo;
use crate::Json;

/// Answer to `cancel_async_message`
/// ([`ControlRequest::CancelAsyncMessage`](super::ControlRequest::CancelAsyncMessage)).
///
/// ```
/// use claude_agent_tokio::control::MessageCancelled;
///
/// let answer: MessageCancelled = serde_json::from_str(r#"{"cancelled":true,"message_uuid":"u-7"}"#)?;
/// assert!(answer.cancelled);
/// let too_late: MessageCancelled = serde_json::from_str(r#"{"cancelled":false}"#)?;
/// assert_eq!(too_late.message_uuid, None);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct MessageCancelled {
    /// Whether the message was dropped: `false` when it was no longer queued (the CLI took it,
    /// or never had it), or when the CLI declined (the re-run of an interrupted turn that also
    /// answers other messages).
    #[serde(default)]
    pub cancelled: bool,
    /// The message dropped, when no turn can have read it (older CLIs leave it out).
    #[serde(default)]
    pub message_uuid: Option<String>,
}

/// Answer to `list_models` ([`ControlRequest::ListModels`](super::ControlRequest::ListModels)):
/// the models the session can run now, as decided by the CLI's provider, settings and policy.
///
/// ```
/// use claude_agent_tokio::control::ModelList;
///
/// let list: ModelList = serde_json::from_str(r#"{"models":[{"value":"default","displayName":"Default","description":"Sonnet"}]}"#)?;
/// assert_eq!(list.models[0].value, "default");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ModelList {
    /// The models, disabled ones included (shown, not selectable).
    #[serde(default)]
    pub models: Vec<ModelInfo>,
}

/// Answer to `get_settings` ([`ControlRequest::GetSettings`](super::ControlRequest::GetSettings)):
/// the settings in effect, each source's own, and what the next message will use.
///
/// ```
/// use claude_agent_tokio::control::SettingsReport;
///
/// let report: SettingsReport = serde_json::from_str(r#"{"effective":{"model":"opus"},
///     "sources":[{"source":"userSettings","settings":{"model":"opus"}}],
///     "applied":{"model":"claude-opus-5","effort":"high"},
///     "errors":[{"file":"/w/.claude/settings.json","path":"permissions","message":"Expected object"}]}"#)?;
/// assert_eq!(report.sources[0].source, "userSettings");
/// assert_eq!(report.applied.as_ref().and_then(|a| a.effort.as_deref()), Some("high"));
/// assert_eq!(report.errors[0].path, "permissions");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SettingsReport {
    /// The settings after merging every source, as raw JSON.
    pub effective: Json,
    /// Each source's settings, from the lowest precedence to the highest.
    #[serde(default)]
    pub sources: Vec<SettingsSourceReport>,
    /// What the CLI resolved at run time: what the next message will use.
    #[serde(default)]
    pub applied: Option<AppliedSettings>,
    /// Settings files that did not parse: they were left out of the merge.
    #[serde(default)]
    pub errors: Vec<SettingsParseError>,
    /// Set when the CLI cut the answer short (on connections that store answers).
    #[serde(default)]
    pub withheld: bool,
}

/// One source of a [`SettingsReport`].
///
/// ```
/// use claude_agent_tokio::control::SettingsReport;
///
/// let report: SettingsReport = serde_json::from_str(r#"{"effective":{},"sources":[{"source":"projectSettings","settings":{"model":"haiku"}}]}"#)?;
/// let project = &report.sources[0];
/// assert_eq!((project.source.as_str(), project.settings.as_str()), ("projectSettings", r#"{"model":"haiku"}"#));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SettingsSourceReport {
    /// `userSettings`, `projectSettings`, `localSettings`, `flagSettings` or `policySettings`.
    pub source: String,
    /// Its settings, as raw JSON.
    pub settings: Json,
}

/// The run-time values of a [`SettingsReport`].
///
/// ```
/// use claude_agent_tokio::control::SettingsReport;
///
/// let report: SettingsReport = serde_json::from_str(r#"{"effective":{},"applied":{"model":"claude-opus-5","effort":null}}"#)?;
/// let applied = report.applied.unwrap();
/// assert_eq!((applied.model.as_str(), applied.effort), ("claude-opus-5", None));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AppliedSettings {
    /// The model the next message uses.
    #[serde(default)]
    pub model: String,
    /// Its effort (`low`, `medium`, `high`, `xhigh`, `max`), if it takes one.
    #[serde(default)]
    pub effort: Option<String>,
    /// The advisor model, if any.
    #[serde(default)]
    pub advisor: Option<String>,
}

/// A settings file of a [`SettingsReport`] that did not parse.
///
/// ```
/// use claude_agent_tokio::control::SettingsReport;
///
/// let report: SettingsReport = serde_json::from_str(r#"{"effective":{},"errors":[{"path":"hooks","message":"Expected array"}]}"#)?;
/// for error in &report.errors {
///     eprintln!("{}: {} ({:?})", error.path, error.message, error.file);
/// }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SettingsParseError {
    /// The file.
    #[serde(default)]
    pub file: Option<String>,
    /// The setting at fault.
    #[serde(default)]
    pub path: String,
    /// What is wrong.
    #[serde(default)]
    pub message: String,
}

/// Answer to `file_suggestions`
/// ([`ControlRequest::FileSuggestions`](super::ControlRequest::FileSuggestions)).
///
/// ```
/// use claude_agent_tokio::control::FileSuggestions;
///
/// let found: FileSuggestions = serde_json::from_str(r#"{"suggestions":[{"path":"src/"},{"path":"src/main.rs"}],"cwd":"/w"}"#)?;
/// let paths: Vec<&str> = found.suggestions.iter().map(|s| s.path.as_str()).collect();
/// assert_eq!(paths, ["src/", "src/main.rs"]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct FileSuggestions {
    /// The matches, best first.
    #[serde(default)]
    pub suggestions: Vec<FileSuggestion>,
    /// The folder relative paths are relative to (older CLIs leave it out).
    #[serde(default)]
    pub cwd: Option<String>,
}

/// One match of [`FileSuggestions`].
///
/// ```
/// use claude_agent_tokio::control::FileSuggestion;
///
/// let folder: FileSuggestion = serde_json::from_str(r#"{"path":"src/","score":0.9}"#)?;
/// assert!(folder.path.ends_with('/'));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct FileSuggestion {
    /// Relative to [`FileSuggestions::cwd`], or absolute; a folder ends with a separator.
    pub path: String,
    /// How well it matched, when the CLI says.
    #[serde(default)]
    pub score: Option<f64>,
}
