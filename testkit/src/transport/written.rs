//! What the SDK wrote to the fake CLI, one typed line at a time.

use serde_json::Value;

/// One line the SDK wrote to the CLI's stdin, sorted by what it is.
///
/// ```
/// use claude_agent_testkit::transport::SdkLine;
/// use serde_json::json;
///
/// let line = SdkLine::from_json(json!({"type": "user", "session_id": "",
///     "message": {"role": "user", "content": "What is 2 + 2?"}}));
/// assert_eq!(line.user_text().as_deref(), Some("What is 2 + 2?"));
///
/// let answer = SdkLine::from_json(json!({"type": "control_response", "response": {
///     "subtype": "success", "request_id": "p1", "response": {"behavior": "deny", "message": "no"}}}));
/// let SdkLine::ControlResponse { request_id, outcome, .. } = &answer else { unreachable!() };
/// assert_eq!(request_id, "p1");
/// assert_eq!(outcome.as_ref().unwrap()["behavior"], "deny");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SdkLine {
    /// A user message (`"type":"user"`).
    User {
        /// `message.content`: a string or a list of content blocks.
        content: Value,
        /// The message's `uuid`, if the SDK gave one.
        uuid: Option<String>,
        /// The whole line.
        json: Value,
    },
    /// A control request of the SDK (`initialize`, `interrupt`, `set_model`, …).
    ControlRequest {
        /// Its `request_id`.
        request_id: String,
        /// `request.subtype`.
        subtype: String,
        /// The `request` object.
        request: Value,
    },
    /// The SDK's answer to a control request of the CLI (a permission prompt, a hook callback,
    /// an MCP message, …).
    ControlResponse {
        /// The CLI request it answers.
        request_id: String,
        /// The `response` body of a success, or the `error` text of an error.
        outcome: Result<Value, String>,
        /// The whole line.
        json: Value,
    },
    /// Any other line.
    Other(Value),
}

impl SdkLine {
    /// Sorts one JSON line.
    pub fn from_json(json: Value) -> SdkLine {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_owned();
        match json.get("type").and_then(Value::as_str) {
            Some("user") => SdkLine::User {
                content: json
                    .pointer("/message/content")
                    .cloned()
                    .unwrap_or_default(),
                uuid: json.get("uuid").and_then(Value::as_str).map(str::to_owned),
                json,
            },
            Some("control_request") => SdkLine::ControlRequest {
                request_id: id_text(json.get("request_id")),
                subtype: text(json.pointer("/request/subtype")),
                request: json.get("request").cloned().unwrap_or_default(),
            },
            Some("control_response") => {
                let response = json.get("response").cloned().unwrap_or_default();
                let outcome = match response.get("subtype").and_then(Value::as_str) {
                    Some("success") => Ok(response.get("response").cloned().unwrap_or_default()),
                    _ => Err(text(response.get("error"))),
                };
                SdkLine::ControlResponse {
                    request_id: id_text(response.get("request_id")),
                    outcome,
                    json,
                }
            }
            _ => SdkLine::Other(json),
        }
    }

    /// The text of a user message: its string content, or its text blocks joined with `\n`.
    /// `None` for other lines.
    pub fn user_text(&self) -> Option<String> {
        let SdkLine::User { content, .. } = self else {
            return None;
        };
        match content {
            Value::String(text) => Some(text.clone()),
            Value::Array(blocks) => Some(
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    }
}

/// A request id as text (the CLI's are strings; a number is written as such).
pub(crate) fn id_text(id: Option<&Value>) -> String {
    match id {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}
