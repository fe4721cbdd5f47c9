//! Reads, from a message, what the run-end rule and the exit report need to know.

use super::run_end::Activity;
use crate::message::Message;

/// What `msg` says about the run.
pub(crate) fn activity_of(msg: &Message) -> Activity {
    let _ = msg;
    Activity::Other
}

/// Whether `msg` is a `session_state_changed` frame meant for the SDK only (consumed, not passed on).
pub(crate) fn is_sdk_host_only(msg: &Message) -> bool {
    let _ = msg;
    false
}

/// Whether `msg` leaves the last error result standing as the explanation of a non-zero exit.
pub(crate) fn keeps_last_result(msg: &Message) -> bool {
    let _ = msg;
    false
}

/// The error a result carries, if it is an error result.
pub(crate) fn result_error(msg: &Message) -> Option<super::ResultError> {
    let _ = msg;
    None
}
