//! Checking that an SDK wrote what a recording says was written.

use claude_agent_core::recording::redact_secrets;
use serde_json::Value;

use super::written::{id_text, SdkLine};

/// Where the lines an SDK wrote part from the recorded ones ([`super::FakeTransport::verify`]).
///
/// Lines are compared kind by kind, in order: user messages, the SDK's control requests, and
/// its answers to the CLI's requests, each as a sequence of its own (an SDK may interleave them
/// differently from the recorded one without being wrong). The SDK's own request ids and user
/// message uuids are compared by position, not by value; everything else must be equal.
///
/// ```
/// use claude_agent_testkit::transport::ReplayMismatch;
/// use serde_json::json;
///
/// let mismatch = ReplayMismatch::Differs {
///     kind: "user message", index: 0, recorded: json!("hi"), written: json!("hello"),
/// };
/// assert!(mismatch.to_string().contains("recorded: \"hi\""));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayMismatch {
    /// The `index`-th line of a kind differs.
    #[error(
        "{kind} #{index} differs from the recording\n  recorded: {recorded}\n  written:  {written}"
    )]
    Differs {
        /// `user message`, `control request` or `control response`.
        kind: &'static str,
        /// Its position among the lines of its kind (from 0).
        index: usize,
        /// The recorded line, with ids normalised.
        recorded: Value,
        /// The line the SDK wrote, with ids normalised.
        written: Value,
    },
    /// The recording has a line of this kind the SDK never wrote.
    #[error("{kind} #{index} of the recording was never written: {recorded}")]
    Missing {
        /// The kind of line.
        kind: &'static str,
        /// Its position among the lines of its kind (from 0).
        index: usize,
        /// The recorded line.
        recorded: Value,
    },
    /// The SDK wrote a line of this kind the recording does not have.
    #[error("{kind} #{index} was written but is not in the recording: {written}")]
    Extra {
        /// The kind of line.
        kind: &'static str,
        /// Its position among the lines of its kind (from 0).
        index: usize,
        /// The line the SDK wrote.
        written: Value,
    },
    /// No session has connected to the transport yet.
    #[error("no session has connected to this transport")]
    NotConnected,
}

/// The lines of each kind, normalised for comparison.
#[derive(Default)]
struct Sorted {
    users: Vec<Value>,
    requests: Vec<Value>,
    responses: Vec<Value>,
}

fn sort(lines: &[Value]) -> Sorted {
    let mut sorted = Sorted::default();
    for line in lines {
        match SdkLine::from_json(line.clone()) {
            SdkLine::User { mut json, .. } => {
                if let Some(uuid) = json.get_mut("uuid") {
                    *uuid = Value::String(format!("<uuid {}>", sorted.users.len()));
                }
                sorted.users.push(json);
            }
            SdkLine::ControlRequest { .. } => {
                let mut json = line.clone();
                let id = id_text(json.get("request_id"));
                if !id.is_empty() {
                    json["request_id"] =
                        Value::String(format!("<request {}>", sorted.requests.len()));
                }
                sorted.requests.push(json);
            }
            SdkLine::ControlResponse { json, .. } => sorted.responses.push(json),
            SdkLine::Other(_) => {}
        }
    }
    sorted
}

/// Compares what an SDK wrote with the `in` lines of a recording.
pub(crate) fn compare(recorded: &[Value], written: &[Value]) -> Result<(), ReplayMismatch> {
    // A recording holds MCP servers' secrets blanked: compare what was written the same way.
    let written: Vec<Value> = written
        .iter()
        .cloned()
        .map(|mut line| {
            redact_secrets(&mut line);
            line
        })
        .collect();
    let (recorded, written) = (sort(recorded), sort(&written));
    for (kind, recorded, written) in [
        ("user message", &recorded.users, &written.users),
        ("control request", &recorded.requests, &written.requests),
        ("control response", &recorded.responses, &written.responses),
    ] {
        for index in 0..recorded.len().max(written.len()) {
            match (recorded.get(index), written.get(index)) {
                (Some(r), Some(w)) if r == w => {}
                (Some(r), Some(w)) => {
                    return Err(ReplayMismatch::Differs {
                        kind,
                        index,
                        recorded: r.clone(),
                        written: w.clone(),
                    })
                }
                (Some(r), None) => {
                    return Err(ReplayMismatch::Missing {
                        kind,
                        index,
                        recorded: r.clone(),
                    })
                }
                (None, Some(w)) => {
                    return Err(ReplayMismatch::Extra {
                        kind,
                        index,
                        written: w.clone(),
                    })
                }
                (None, None) => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn init(id: &str) -> Value {
        json!({"type": "control_request", "request_id": id, "request": {"subtype": "initialize"}})
    }

    #[test]
    fn request_ids_and_uuids_count_by_position_and_kinds_may_interleave() {
        let recorded = [
            init("req_1_abc"),
            json!({"type": "user", "uuid": "u-1", "message": {"content": "hi"}}),
        ];
        let written = [
            json!({"type": "user", "uuid": "u-9", "message": {"content": "hi"}}),
            init("req_0"),
        ];
        assert_eq!(compare(&recorded, &written), Ok(()));
    }

    #[test]
    fn a_different_answer_is_reported_with_both_lines() {
        let answer = |behavior: &str| {
            json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": "p1", "response": {"behavior": behavior}}})
        };
        let error = compare(&[answer("deny")], &[answer("allow")]).unwrap_err();
        assert!(matches!(
            error,
            ReplayMismatch::Differs {
                kind: "control response",
                index: 0,
                ..
            }
        ));
        let text = error.to_string();
        assert!(
            text.contains("\"deny\"") && text.contains("\"allow\""),
            "{text}"
        );
    }

    #[test]
    fn missing_and_extra_lines_are_reported() {
        assert!(matches!(
            compare(&[init("a")], &[]),
            Err(ReplayMismatch::Missing { index: 0, .. })
        ));
        assert!(matches!(
            compare(&[], &[init("a")]),
            Err(ReplayMismatch::Extra { index: 0, .. })
        ));
    }
}
