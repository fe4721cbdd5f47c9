//! `system` messages, one struct per subtype.

mod hooks;
mod init;
mod notices;
mod session;
mod tasks;

pub use hooks::{HookProgress, HookResponse, HookStarted};
pub use init::{Init, McpServerStatus, PluginInfo};
pub use notices::{
    ElicitationComplete, Informational, LocalCommandOutput, MemoryRecall, MirrorError,
    ModelConsentFallback, ModelFallback, ModelRefusalFallback, ModelRefusalNoFallback,
    Notification, PermissionDenied,
};
pub use session::{
    ApiRetry, CommandsChanged, CompactBoundary, ControlRequestProgress, FilesPersisted,
    PluginInstall, SessionState, SessionStateChanged, SessionWritesLost, Status, ThinkingTokens,
    WorkerShuttingDown,
};
pub use tasks::{
    BackgroundTask, BackgroundTasksChanged, TaskNotification, TaskPatch, TaskProgress, TaskStarted,
    TaskUpdated,
};

use super::raw::parse_line;
use crate::Json;

/// A `system` message.
///
/// ```
/// use claude_agent_tokio::message::{peek_tags, Message, SessionState, SystemMessage};
///
/// let line = r#"{"type":"system","subtype":"session_state_changed","state":"idle","session_id":"s"}"#;
/// let Message::System(SystemMessage::SessionStateChanged(s)) =
///     Message::parse_tagged(line, &peek_tags(line).unwrap()).unwrap()
/// else {
///     panic!()
/// };
/// assert_eq!(s.state, SessionState::Idle);
/// ```
///
/// A subtype this crate does not model is kept whole:
///
/// ```
/// use claude_agent_tokio::message::{Message, SystemMessage};
///
/// let line = r#"{"type":"system","subtype":"post_turn_summary","summary":{"files_changed":2},"session_id":"s"}"#;
/// let Message::System(system) = Message::parse(line).unwrap() else { panic!("not a system message") };
/// assert!(matches!(system, SystemMessage::Unknown(_)));
/// assert_eq!(system.raw_json(), line);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SystemMessage {
    /// `init`: session setup, at the start of each turn.
    Init(Box<Init>),
    /// `status`: `compacting`, `requesting` or null.
    Status(Box<Status>),
    /// `api_retry`: an API call failed and will be retried.
    ApiRetry(Box<ApiRetry>),
    /// `compact_boundary`: the conversation was compacted.
    CompactBoundary(Box<CompactBoundary>),
    /// `hook_started`.
    HookStarted(Box<HookStarted>),
    /// `hook_progress`.
    HookProgress(Box<HookProgress>),
    /// `hook_response`.
    HookResponse(Box<HookResponse>),
    /// `task_started`: a background task (subagent, shell, workflow) started.
    TaskStarted(Box<TaskStarted>),
    /// `task_progress`.
    TaskProgress(Box<TaskProgress>),
    /// `task_updated`: a patch of a task's state.
    TaskUpdated(Box<TaskUpdated>),
    /// `task_notification`: a task ended.
    TaskNotification(Box<TaskNotification>),
    /// `background_tasks_changed`: the full list of background tasks.
    BackgroundTasksChanged(Box<BackgroundTasksChanged>),
    /// `session_state_changed`: `idle`, `running` or `requires_action`.
    SessionStateChanged(Box<SessionStateChanged>),
    /// `files_persisted`.
    FilesPersisted(Box<FilesPersisted>),
    /// `thinking_tokens`.
    ThinkingTokens(Box<ThinkingTokens>),
    /// `commands_changed`.
    CommandsChanged(Box<CommandsChanged>),
    /// `notification`.
    Notification(Box<Notification>),
    /// `informational`.
    Informational(Box<Informational>),
    /// `local_command_output`.
    LocalCommandOutput(Box<LocalCommandOutput>),
    /// `memory_recall`.
    MemoryRecall(Box<MemoryRecall>),
    /// `elicitation_complete`.
    ElicitationComplete(Box<ElicitationComplete>),
    /// `permission_denied`.
    PermissionDenied(Box<PermissionDenied>),
    /// `model_refusal_fallback`.
    ModelRefusalFallback(Box<ModelRefusalFallback>),
    /// `model_refusal_no_fallback`.
    ModelRefusalNoFallback(Box<ModelRefusalNoFallback>),
    /// `model_fallback`: the primary model failed and this turn moved to the fallback model.
    ModelFallback(Box<ModelFallback>),
    /// `model_consent_fallback`: the session left a model that needs consent it did not get.
    ModelConsentFallback(Box<ModelConsentFallback>),
    /// `plugin_install`.
    PluginInstall(Box<PluginInstall>),
    /// `control_request_progress`.
    ControlRequestProgress(Box<ControlRequestProgress>),
    /// `worker_shutting_down`.
    WorkerShuttingDown(Box<WorkerShuttingDown>),
    /// `session_writes_lost`.
    SessionWritesLost(Box<SessionWritesLost>),
    /// `mirror_error`: the session store failed to take a batch of transcript lines (made by
    /// the SDK, not the CLI; the session goes on).
    MirrorError(Box<MirrorError>),
    /// Any other subtype (or none): the whole line, unchanged.
    Unknown(Json),
}

impl SystemMessage {
    /// Parse a `system` line whose `subtype` is already known.
    pub(crate) fn parse(
        line: &str,
        subtype: Option<&str>,
    ) -> Result<SystemMessage, serde_json::Error> {
        use SystemMessage as S;
        let Some(subtype) = subtype else {
            return Ok(S::Unknown(Json::try_from(line.to_owned())?));
        };
        Ok(match subtype {
            "init" => S::Init(parse_line(line)?),
            "status" => S::Status(parse_line(line)?),
            "api_retry" => S::ApiRetry(parse_line(line)?),
            "compact_boundary" => S::CompactBoundary(parse_line(line)?),
            "hook_started" => S::HookStarted(parse_line(line)?),
            "hook_progress" => S::HookProgress(parse_line(line)?),
            "hook_response" => S::HookResponse(parse_line(line)?),
            "task_started" => S::TaskStarted(parse_line(line)?),
            "task_progress" => S::TaskProgress(parse_line(line)?),
            "task_updated" => S::TaskUpdated(parse_line(line)?),
            "task_notification" => S::TaskNotification(parse_line(line)?),
            "background_tasks_changed" => S::BackgroundTasksChanged(parse_line(line)?),
            "session_state_changed" => S::SessionStateChanged(parse_line(line)?),
            "files_persisted" => S::FilesPersisted(parse_line(line)?),
            "thinking_tokens" => S::ThinkingTokens(parse_line(line)?),
            "commands_changed" => S::CommandsChanged(parse_line(line)?),
            "notification" => S::Notification(parse_line(line)?),
            "informational" => S::Informational(parse_line(line)?),
            "local_command_output" => S::LocalCommandOutput(parse_line(line)?),
            "memory_recall" => S::MemoryRecall(parse_line(line)?),
            "elicitation_complete" => S::ElicitationComplete(parse_line(line)?),
            "permission_denied" => S::PermissionDenied(parse_line(line)?),
            "model_refusal_fallback" => S::ModelRefusalFallback(parse_line(line)?),
            "model_refusal_no_fallback" => S::ModelRefusalNoFallback(parse_line(line)?),
            "model_fallback" => S::ModelFallback(parse_line(line)?),
            "model_consent_fallback" => S::ModelConsentFallback(parse_line(line)?),
            "plugin_install" => S::PluginInstall(parse_line(line)?),
            "control_request_progress" => S::ControlRequestProgress(parse_line(line)?),
            "worker_shutting_down" => S::WorkerShuttingDown(parse_line(line)?),
            "session_writes_lost" => S::SessionWritesLost(parse_line(line)?),
            "mirror_error" => S::MirrorError(parse_line(line)?),
            _ => S::Unknown(Json::try_from(line.to_owned())?),
        })
    }

    /// The exact line the CLI printed.
    pub fn raw_json(&self) -> &str {
        use SystemMessage as S;
        match self {
            S::Init(m) => m.raw_json(),
            S::Status(m) => m.raw_json(),
            S::ApiRetry(m) => m.raw_json(),
            S::CompactBoundary(m) => m.raw_json(),
            S::HookStarted(m) => m.raw_json(),
            S::HookProgress(m) => m.raw_json(),
            S::HookResponse(m) => m.raw_json(),
            S::TaskStarted(m) => m.raw_json(),
            S::TaskProgress(m) => m.raw_json(),
            S::TaskUpdated(m) => m.raw_json(),
            S::TaskNotification(m) => m.raw_json(),
            S::BackgroundTasksChanged(m) => m.raw_json(),
            S::SessionStateChanged(m) => m.raw_json(),
            S::FilesPersisted(m) => m.raw_json(),
            S::ThinkingTokens(m) => m.raw_json(),
            S::CommandsChanged(m) => m.raw_json(),
            S::Notification(m) => m.raw_json(),
            S::Informational(m) => m.raw_json(),
            S::LocalCommandOutput(m) => m.raw_json(),
            S::MemoryRecall(m) => m.raw_json(),
            S::ElicitationComplete(m) => m.raw_json(),
            S::PermissionDenied(m) => m.raw_json(),
            S::ModelRefusalFallback(m) => m.raw_json(),
            S::ModelRefusalNoFallback(m) => m.raw_json(),
            S::ModelFallback(m) => m.raw_json(),
            S::ModelConsentFallback(m) => m.raw_json(),
            S::PluginInstall(m) => m.raw_json(),
            S::ControlRequestProgress(m) => m.raw_json(),
            S::WorkerShuttingDown(m) => m.raw_json(),
            S::SessionWritesLost(m) => m.raw_json(),
            S::MirrorError(m) => m.raw_json(),
            S::Unknown(raw) => raw.as_str(),
        }
    }
}
