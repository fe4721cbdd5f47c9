//! Turning a recording of the real CLI (`{"dir":"in"|"out","msg":…}` per line) into a [`Script`]
//! that replays it.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::script::{Matcher, Script, Step};

/// Why a transcript could not be read.
///
/// ```
/// use claude_agent_testkit::fake_cli::{Script, TranscriptError};
///
/// let recording = "{\"dir\":\"in\",\"msg\":{\"type\":\"user\"}}\n{\"dir\":\"both\",\"msg\":{}}\n";
/// match Script::from_transcript(recording) {
///     Err(TranscriptError::Direction { line, dir }) => assert_eq!((line, dir.as_str()), (2, "both")),
///     other => panic!("{other:?}"),
/// }
/// assert!(matches!(Script::from_transcript("not json"), Err(TranscriptError::Json { line: 1, .. })));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    /// A line is not a `{"dir":…,"msg":…}` JSON object.
    #[error("transcript line {line}: {source}")]
    Json {
        /// 1-based line number.
        line: usize,
        /// The parse error.
        source: serde_json::Error,
    },
    /// `dir` is neither `in` nor `out`.
    #[error("transcript line {line}: dir must be \"in\" or \"out\", not {dir:?}")]
    Direction {
        /// 1-based line number.
        line: usize,
        /// The value found.
        dir: String,
    },
}

#[derive(Deserialize)]
struct RawEntry<'a> {
    dir: String,
    #[serde(borrow)]
    msg: &'a RawValue,
}

/// One recorded line: direction, parsed message, and its exact text.
struct Entry {
    from_sdk: bool,
    msg: Value,
    raw: String,
}

impl Entry {
    fn kind(&self) -> &str {
        self.msg.get("type").and_then(Value::as_str).unwrap_or("")
    }

    fn subtype(&self) -> &str {
        self.msg
            .pointer("/request/subtype")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    fn is_sdk_user(&self) -> bool {
        self.from_sdk && self.kind() == "user"
    }

    /// Lines a recorded user message may be moved past: they do not depend on it. The recording
    /// wrote the prompt right after `initialize`, but an SDK may wait for the initialize answer
    /// (and the MCP set-up before it) first.
    fn independent_of_user_message(&self) -> bool {
        match (self.from_sdk, self.kind()) {
            (false, "control_response") => true,
            (false, "control_request") => self.subtype() == "mcp_message",
            (true, "control_response") => true,
            _ => false,
        }
    }
}

impl Script {
    /// A script that replays a recording: `{"dir":"in"|"out","msg":…}` lines, as
    /// `Options::record_to` writes them.
    ///
    /// `out` lines are written in order, byte for byte. At each `in` line the fake CLI waits until
    /// the SDK has written a line of the same kind: a `user` message, a `control_request` with the
    /// same subtype, a `control_response` to the CLI request with the recorded id, or else a
    /// line with the same `type`. Recorded `control_response`s to SDK requests are rewritten to
    /// carry the SDK's actual request ids. A recorded user message is waited for only just
    /// before the first line that depends on it, so an SDK that waits for the initialize answer
    /// before sending its prompt replays the same way as one that pipelines. When the last result
    /// was an error, the fake CLI exits 1 after stdin closes, as the real one does.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Script;
    /// let text = r#"{"dir":"in","msg":{"type":"control_request","request_id":"req_0","request":{"subtype":"initialize"}}}
    /// {"dir":"in","msg":{"type":"user","message":{"role":"user","content":"hi"}}}
    /// {"dir":"out","msg":{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}}
    /// {"dir":"out","msg":{"type":"result","subtype":"success","is_error":false,"result":"hello"}}"#;
    /// let script = Script::from_transcript(text).unwrap();
    /// // Wait for initialize, answer it, wait for the prompt, print the result.
    /// assert_eq!(script.steps.len(), 4);
    /// ```
    pub fn from_transcript(jsonl: &str) -> Result<Script, TranscriptError> {
        let mut entries = Vec::new();
        for (index, text) in jsonl.lines().enumerate() {
            if text.trim().is_empty() {
                continue;
            }
            let line = index + 1;
            let raw: RawEntry<'_> = serde_json::from_str(text)
                .map_err(|source| TranscriptError::Json { line, source })?;
            let from_sdk = match raw.dir.as_str() {
                "in" => true,
                "out" => false,
                _ => return Err(TranscriptError::Direction { line, dir: raw.dir }),
            };
            let msg: Value = serde_json::from_str(raw.msg.get())
                .map_err(|source| TranscriptError::Json { line, source })?;
            entries.push(Entry {
                from_sdk,
                msg,
                raw: raw.msg.get().to_owned(),
            });
        }
        sink_user_messages(&mut entries);

        let mut script = Script::new();
        let mut last_result_failed = false;
        for entry in entries {
            let step = if entry.from_sdk {
                expect_step(&entry)
            } else {
                if entry.kind() == "result" {
                    last_result_failed = entry.msg.get("is_error") == Some(&Value::Bool(true));
                }
                Step::Emit { line: entry.raw }
            };
            script = script.step(step);
        }
        if last_result_failed {
            script = script.expect_eof().exit(1);
        }
        Ok(script)
    }
}

/// Moves each SDK user message down past the lines that do not depend on it.
fn sink_user_messages(entries: &mut [Entry]) {
    for i in 0..entries.len() {
        if !entries[i].is_sdk_user() {
            continue;
        }
        let mut j = i;
        while j + 1 < entries.len() && entries[j + 1].independent_of_user_message() {
            entries.swap(j, j + 1);
            j += 1;
        }
    }
}

/// The `Expect` step for a recorded SDK line.
fn expect_step(entry: &Entry) -> Step {
    match entry.kind() {
        "user" => Step::Expect {
            matcher: Matcher::User,
            bind: None,
        },
        "control_request" => Step::Expect {
            matcher: Matcher::ControlRequest {
                subtype: entry.subtype().to_owned(),
            },
            bind: entry
                .msg
                .get("request_id")
                .map(|id| id.as_str().map_or_else(|| id.to_string(), str::to_owned)),
        },
        "control_response" => Step::Expect {
            matcher: Matcher::ControlResponse {
                request_id: entry
                    .msg
                    .pointer("/response/request_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            },
            bind: None,
        },
        other => Step::Expect {
            matcher: Matcher::Type {
                kind: other.to_owned(),
            },
            bind: None,
        },
    }
}
