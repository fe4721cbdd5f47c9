//! Reads, from a message, what the run-end rule and the exit report need to know.

use super::run_end::{Activity, CliState};
use super::{ExitStatusInfo, ResultError};
use crate::message::{Message, SessionState, SystemMessage};

/// Task statuses after which a task no longer keeps the run open.
const TERMINAL_TASK_STATUSES: [&str; 4] = ["completed", "failed", "stopped", "killed"];

/// What `msg` says about the run.
pub(crate) fn activity_of(msg: &Message) -> Activity {
    match msg {
        Message::Result(_) => Activity::Result,
        Message::Assistant(a) if a.parent_tool_use_id.is_none() => Activity::MainThreadOutput,
        Message::StreamEvent(e) if e.parent_tool_use_id.is_none() => Activity::MainThreadOutput,
        Message::System(system) => match system {
            SystemMessage::SessionStateChanged(s) => match s.state {
                SessionState::Idle => Activity::State(CliState::Idle),
                SessionState::Running => Activity::State(CliState::Running),
                SessionState::RequiresAction => Activity::State(CliState::RequiresAction),
                _ => Activity::Other,
            },
            SystemMessage::TaskStarted(t) => Activity::TaskStarted(t.task_id.clone()),
            SystemMessage::TaskNotification(t) if is_terminal(&t.status) => {
                Activity::TaskFinished(t.task_id.clone())
            }
            SystemMessage::TaskUpdated(t) if t.patch.status.as_deref().is_some_and(is_terminal) => {
                Activity::TaskFinished(t.task_id.clone())
            }
            SystemMessage::BackgroundTasksChanged(b) => {
                Activity::TasksReplaced(b.tasks.iter().map(|t| t.task_id.clone()).collect())
            }
            _ => Activity::Other,
        },
        _ => Activity::Other,
    }
}

fn is_terminal(status: &str) -> bool {
    TERMINAL_TASK_STATUSES.contains(&status)
}

/// Whether `msg` is a `session_state_changed` frame meant for the SDK only (consumed, not passed on).
pub(crate) fn is_sdk_host_only(msg: &Message) -> bool {
    matches!(msg, Message::System(SystemMessage::SessionStateChanged(s)) if s.sdk_host_only)
}

/// Whether `msg` leaves the last error result standing as the explanation of a non-zero exit:
/// frames the CLI prints after a result while it winds down, including the `completed`
/// lifecycle frame of the user message that turn answered.
pub(crate) fn keeps_last_result(msg: &Message) -> bool {
    matches!(
        msg,
        Message::System(
            SystemMessage::SessionStateChanged(_)
                | SystemMessage::SessionWritesLost(_)
                | SystemMessage::PluginInstall(_)
        ) | Message::CommandLifecycle(_)
    )
}

/// The error a result carries, if it is an error result.
pub(crate) fn result_error(msg: &Message) -> Option<ResultError> {
    let Message::Result(r) = msg else { return None };
    if !r.is_error {
        return None;
    }
    let message = if !r.errors.is_empty() {
        r.errors.join("; ")
    } else if let Some(text) = r.result.as_deref().filter(|t| !t.is_empty()) {
        text.to_owned()
    } else if let Some(status) = r.api_error_status {
        format!("API error (HTTP {status})")
    } else {
        r.subtype.clone()
    };
    Some(ResultError {
        subtype: r.subtype.clone(),
        message,
        errors: r.errors.clone(),
        terminal_reason: r.terminal_reason.clone(),
        api_error_status: r.api_error_status,
        api_error_type: r.api_error_type.clone(),
        api_error: None,
        startup_failure: r.startup_failure_reason.clone(),
        session_id: r.session_id().to_owned(),
        exit: ExitStatusInfo {
            code: None,
            signal: None,
        },
    })
}
