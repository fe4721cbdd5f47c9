//! A request the stub received, kept for assertions, with helpers that read the parts of a
//! Messages API request body that tests and reply rules care about.

use serde_json::Value;

/// Text blocks the CLI adds to user turns for the model, not typed by the user.
const SYSTEM_REMINDER_PREFIX: &str = "<system-reminder>";
/// What the CLI writes in a `system` message that passes a hook's blocking reason to the model.
const HOOK_FEEDBACK_MARK: &str = "hook blocking error";
/// What the CLI writes in the `<system-reminder>` of a user turn that carries a hook's feedback.
const HOOK_FEEDBACK_REMINDER_MARK: &str = "hook feedback:";

/// The texts of a message: its string content, or the `text` of its blocks.
fn texts(message: &Value) -> Vec<&str> {
    match message.get("content") {
        Some(Value::String(text)) => vec![text.as_str()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

/// One HTTP request received by [`StubApi`](super::StubApi), in arrival order.
///
/// ```
/// use claude_agent_testkit::stub_api::RecordedRequest;
/// let req = RecordedRequest::new(
///     "POST",
///     "/v1/messages?beta=true",
///     vec![],
///     br#"{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hello"}]}"#.to_vec(),
/// );
/// assert!(req.is_messages_call() && req.is_main_conversation());
/// assert_eq!(req.last_user_text().as_deref(), Some("hello"));
/// ```
///
/// The second call of a Bash turn, as the CLI sends it (shortened): the tool's result goes back
/// to the model.
///
/// ```
/// use claude_agent_testkit::stub_api::RecordedRequest;
///
/// let body = br#"{"model":"claude-opus-5-5","stream":true,"tools":[{"name":"Bash"},{"name":"Read"}],"messages":[
///     {"role":"user","content":[{"type":"text","text":"<system-reminder>Today is 2026-11-22.</system-reminder>"},{"type":"text","text":"BASH:echo hi-from-bash"}]},
///     {"role":"assistant","content":[{"type":"text","text":"running"},{"type":"tool_use","id":"toolu_stub_1_1","name":"Bash","input":{"command":"echo hi-from-bash"}}]},
///     {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_stub_1_1","content":"hi-from-bash"}]}]}"#;
/// let headers = vec![("Content-Type".into(), "application/json".into()), ("anthropic-version".into(), "2023-06-01".into())];
/// let req = RecordedRequest::new("POST", "/v1/messages?beta=true", headers, body.to_vec());
/// assert_eq!(req.route(), "/v1/messages");
/// assert_eq!(req.header("content-type"), Some("application/json"));
/// assert!(req.wants_stream());
/// assert_eq!(req.model(), Some("claude-opus-5-5"));
/// assert_eq!(req.messages().len(), 3);
/// assert_eq!(req.last_user_text(), None); // the last user turn only carries the tool result
/// assert_eq!(req.last_tool_result_text().as_deref(), Some("hi-from-bash"));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RecordedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Request target including any query string, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// Headers in the order received (names as sent).
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, or `Value::Null` when it is empty or not JSON.
    pub body: Value,
    /// The body bytes as received.
    pub raw_body: Vec<u8>,
}

impl RecordedRequest {
    /// Builds a record (the stub does this for every request; tests can build one to check rules).
    pub fn new(
        method: &str,
        path: &str,
        headers: Vec<(String, String)>,
        raw_body: Vec<u8>,
    ) -> Self {
        let body = serde_json::from_slice(&raw_body).unwrap_or(Value::Null);
        Self {
            method: method.to_owned(),
            path: path.to_owned(),
            headers,
            body,
            raw_body,
        }
    }

    /// The path without its query string.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a `POST /v1/messages` call (a model turn, main or side).
    pub fn is_messages_call(&self) -> bool {
        self.method == "POST" && self.route() == "/v1/messages"
    }

    /// Whether the body asks for a streamed (SSE) answer.
    pub fn wants_stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// The `model` field of the body.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// Whether this Messages call is a turn of the main conversation rather than a side request.
    ///
    /// The CLI's main loop always offers its tools (`Bash`, `Read`, …); its side requests (title
    /// generation, quota probes, summaries) send none.
    pub fn is_main_conversation(&self) -> bool {
        self.is_messages_call()
            && self
                .body
                .get("tools")
                .and_then(Value::as_array)
                .is_some_and(|tools| !tools.is_empty())
    }

    /// The `messages` array of the body (empty when absent).
    pub fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The content of the last message with role `user` (the CLI may append a `system` message
    /// after it).
    fn last_user_content(&self) -> Option<&Value> {
        self.messages()
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .and_then(|m| m.get("content"))
    }

    /// What the user typed in the last user turn: a string content, or its `text` blocks joined by
    /// `\n`, leaving out the `<system-reminder>` blocks the CLI adds. `None` when the last user turn
    /// has no such text (e.g. it only carries tool results).
    pub fn last_user_text(&self) -> Option<String> {
        match self.last_user_content()? {
            Value::String(s) => Some(s.clone()),
            Value::Array(blocks) => {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .filter(|t| !t.trim_start().starts_with(SYSTEM_REMINDER_PREFIX))
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => None,
        }
    }

    /// What hooks told the model on this call, joined by `\n`: the hook feedback the CLI put in
    /// the last user turn (a `<system-reminder>` with `Stop hook feedback:` and the reason) and
    /// the `system` messages after the last user or assistant message that carry a hook's
    /// blocking reason (`Stop:Callback hook blocking error from command: "callback": <reason>`,
    /// new in CLI 2.1.331). The CLI's own context (environment, date), sent as a `system`
    /// message too, is left out. `None` when hooks said nothing.
    ///
    /// ```
    /// use claude_agent_testkit::stub_api::RecordedRequest;
    ///
    /// let body = br#"{"tools":[{"name":"Bash"}],"messages":[
    ///     {"role":"user","content":"write the report"},
    ///     {"role":"assistant","content":[{"type":"text","text":"done"}]},
    ///     {"role":"system","content":[{"type":"text","text":"Stop:Callback hook blocking error from command: \"callback\": run the tests first"}]}]}"#;
    /// let req = RecordedRequest::new("POST", "/v1/messages", vec![], body.to_vec());
    /// assert!(req.hook_feedback().unwrap().ends_with("run the tests first"));
    /// ```
    pub fn hook_feedback(&self) -> Option<String> {
        let messages = self.messages();
        let last_turn = messages
            .iter()
            .rposition(|m| m.get("role").and_then(Value::as_str) != Some("system"));
        let in_user_turn = last_turn
            .map(|last| &messages[last])
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .into_iter()
            .flat_map(texts)
            .filter(|text| {
                text.trim_start().starts_with(SYSTEM_REMINDER_PREFIX)
                    && text.contains(HOOK_FEEDBACK_REMINDER_MARK)
            });
        let trailing = last_turn.map_or(messages, |last| &messages[last + 1..]);
        let in_system_messages = trailing
            .iter()
            .flat_map(texts)
            .filter(|text| text.contains(HOOK_FEEDBACK_MARK));
        let feedback: Vec<&str> = in_user_turn.chain(in_system_messages).collect();
        (!feedback.is_empty()).then(|| feedback.join("\n"))
    }

    /// The text of the `tool_result` blocks in the last user turn (string content, or the `text`
    /// parts of block content, joined by `\n`), or `None` when that turn has no tool result.
    pub fn last_tool_result_text(&self) -> Option<String> {
        let blocks = self.last_user_content()?.as_array()?;
        let results: Vec<String> = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| match b.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            })
            .collect();
        (!results.is_empty()).then(|| results.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(body: Value) -> RecordedRequest {
        RecordedRequest::new(
            "POST",
            "/v1/messages",
            vec![],
            body.to_string().into_bytes(),
        )
    }

    #[test]
    fn hook_feedback_is_read_from_the_last_user_turn_and_trailing_system_messages() {
        let r = req(json!({"messages": [
            {"role":"user","content":"hello"},
            {"role":"assistant","content":[{"type":"text","text":"hi"}]},
            {"role":"user","content":"<system-reminder>\nStop hook feedback:\nsay more\n</system-reminder>"},
            {"role":"system","content":"Stop:Callback hook blocking error from command: \"callback\": say more"}
        ]}));
        let feedback = r.hook_feedback().unwrap();
        assert!(feedback.starts_with("<system-reminder>"), "{feedback}");
        assert!(feedback.ends_with("\"callback\": say more"), "{feedback}");
    }

    #[test]
    fn hook_feedback_is_read_from_trailing_system_messages_only() {
        let r = req(json!({"messages": [
            {"role":"user","content":"hello"},
            {"role":"system","content":"Stop:Callback hook blocking error from command: \"callback\": earlier"},
            {"role":"assistant","content":[{"type":"text","text":"hi"}]},
            {"role":"system","content":[{"type":"text","text":"# Environment\nToday is 2026-11-26."}]},
            {"role":"system","content":[{"type":"text","text":"Stop:Callback hook blocking error from command: \"callback\": now"}]}
        ]}));
        assert_eq!(
            r.hook_feedback().as_deref(),
            Some("Stop:Callback hook blocking error from command: \"callback\": now")
        );
        let context_only = req(json!({"messages": [
            {"role":"user","content":"hello"},
            {"role":"system","content":"# Environment"}
        ]}));
        assert_eq!(context_only.hook_feedback(), None);
    }

    #[test]
    fn user_text_skips_reminders_and_a_trailing_system_message() {
        let r = req(json!({"messages":[
            {"role":"user","content":[
                {"type":"text","text":"<system-reminder>\nsome policy</system-reminder>"},
                {"type":"text","text":"hello"}]},
            {"role":"system","content":[{"type":"text","text":"# Environment"}]}
        ]}));
        assert_eq!(r.last_user_text().as_deref(), Some("hello"));
        assert_eq!(r.last_tool_result_text(), None);
        assert!(!r.is_main_conversation());
    }

    #[test]
    fn tool_result_text_from_string_and_block_content() {
        let r = req(json!({"tools":[{"name":"Bash"}],"messages":[
            {"role":"user","content":"BASH:echo x"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]},
            {"role":"user","content":[
                {"type":"tool_result","tool_use_id":"t","content":"x"},
                {"type":"tool_result","tool_use_id":"u","content":[{"type":"text","text":"42"}]}]}
        ]}));
        assert_eq!(r.last_tool_result_text().as_deref(), Some("x\n42"));
        assert_eq!(r.last_user_text(), None);
        assert!(r.is_main_conversation());
    }

    #[test]
    fn non_json_body_is_null() {
        let r = RecordedRequest::new("GET", "/a?b=1", vec![], b"not json".to_vec());
        assert_eq!(r.body, Value::Null);
        assert_eq!(r.route(), "/a");
        assert!(!r.is_messages_call());
    }
}
