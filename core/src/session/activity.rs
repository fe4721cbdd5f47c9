//! Reads, from a message, what the run-end rule and the exit report need to know.

use super::run_end::{Activity, CliState};
use super::{ExitStatusInfo, ResultError};
use crate::message::{Message, SessionState, SystemMessage};

/// Task statuses after which a task no longer keeps the run open.
const TERMINAL_TASK_STATUSES: [&str; 4] = ["completed", "failed", "stopped", "killed"];

/// Task types whose end wakes the CLI for a follow-up turn, and which reliably reach a terminal
/// status: delegated agent work. Background shells (`local_bash`), monitors, teammates and
/// remote agents can run for as long as the session lives, so waiting on them would hold stdin
/// open until the ceiling; the CLI settles them itself once its input ends.
const DEFERRING_TASK_TYPES: [&str; 2] = ["local_agent", "local_workflow"];

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
                // A state this crate does not know is work under way, as the official SDKs
                // read it: anything but `idle`.
                _ => Activity::State(CliState::Running),
            },
            SystemMessage::TaskStarted(t)
                if t.task_type
                    .as_deref()
                    .is_some_and(|ty| DEFERRING_TASK_TYPES.contains(&ty)) =>
            {
                Activity::AgentStarted(t.task_id.clone())
            }
            // A task's notification is sent once it ended, whatever status it names.
            SystemMessage::TaskNotification(t) => Activity::TaskFinished(t.task_id.clone()),
            SystemMessage::TaskUpdated(t) if t.patch.status.as_deref().is_some_and(is_terminal) => {
                Activity::TaskFinished(t.task_id.clone())
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

/// The most telling text of an error result, as the official SDKs pick it: its `errors`, else
/// its `result` text (an API failure comes as subtype `success` with the "API Error: …" prose
/// there), else a subtype other than `success`, else the HTTP status.
fn error_text(r: &crate::message::ResultMessage) -> String {
    if !r.errors.is_empty() {
        return r.errors.join("; ");
    }
    if let Some(text) = r.result.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        return text.to_owned();
    }
    if !r.subtype.is_empty() && r.subtype != "success" {
        return r.subtype.clone();
    }
    match r.api_error_status {
        Some(status) => format!("API error (HTTP {status})"),
        None => "unknown error".to_owned(),
    }
}

/// The error a result carries, if it is an error result.
pub(crate) fn result_error(msg: &Message) -> Option<ResultError> {
    let Message::Result(r) = msg else { return None };
    if !r.is_error {
        return None;
    }
    Some(ResultError {
        subtype: r.subtype.clone(),
        message: error_text(r),
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
