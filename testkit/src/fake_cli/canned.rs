//! Canned CLI output shaped like the real CLI 2.1.330's (taken from a recording of a one-turn session,
//! trimmed): the initialize response, `system/init`, an assistant text message and a success result.
//!
//! The [`Script`](super::Script) builders print these (`emit_system_init`, `emit_assistant_text`,
//! `emit_result`); a test can also print one it changed, or feed one to a parser:
//!
//! ```
//! use claude_agent_tokio::message::Message;
//! use claude_agent_testkit::fake_cli::{canned, Script};
//!
//! let mut reply = canned::assistant_text("Looking into it.", 3);
//! reply["parent_tool_use_id"] = "toolu_01".into(); // as a subagent's message
//! let script = Script::new().answer_initialize().expect_user().emit_json(&reply).emit_result("done");
//! # let _ = script;
//!
//! let Message::Assistant(message) = Message::parse(&reply.to_string()).unwrap() else { panic!("not an assistant message") };
//! assert_eq!(message.parent_tool_use_id.as_deref(), Some("toolu_01"));
//! assert_eq!(message.session_id(), canned::SESSION_ID);
//! ```

use serde_json::{json, Value};

/// The session id every canned message carries.
pub const SESSION_ID: &str = "00000000-0000-4000-8000-0000000000aa";

/// The model name the canned messages use.
pub const MODEL: &str = "claude-opus-5-5";

/// The `timestamp` of canned messages that carry one.
const TIMESTAMP: &str = "2026-11-22T03:17:36.933Z";

fn template(text: &str) -> Value {
    // The templates are files of this crate, checked by the tests below.
    serde_json::from_str(text).expect("canned template is valid JSON")
}

/// A deterministic UUID-shaped id for message number `n`.
pub(crate) fn uuid(n: u64) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

/// The body of the CLI's `initialize` success response (commands, agents, models, account, …).
///
/// ```
/// use claude_agent_tokio::control::InitializeResponse;
/// use claude_agent_testkit::fake_cli::{canned, Script};
///
/// // The canned answer with one change: a CLI that reports no models.
/// let mut response = canned::initialize_response();
/// response["models"] = serde_json::json!([]);
/// let script = Script::new().answer_initialize_with(response.clone());
/// # let _ = script;
/// let info: InitializeResponse = serde_json::from_value(response).unwrap();
/// assert_eq!(info.claude_code_version.as_deref(), Some("2.1.330"));
/// assert!(info.models.is_empty());
/// ```
pub fn initialize_response() -> Value {
    template(include_str!("canned/initialize_response.json"))
}

/// A `system/init` message (the CLI prints one at the start of each turn).
///
/// ```
/// use claude_agent_tokio::message::{Message, SystemMessage};
/// use claude_agent_testkit::fake_cli::canned;
///
/// let init = canned::system_init(1);
/// let Message::System(SystemMessage::Init(init)) = Message::parse(&init.to_string()).unwrap() else { panic!("not init") };
/// assert_eq!(init.model(), Some(canned::MODEL));
/// assert!(init.tools.contains("Bash"));
/// ```
pub fn system_init(uuid_n: u64) -> Value {
    let mut msg = template(include_str!("canned/system_init.json"));
    msg["session_id"] = json!(SESSION_ID);
    msg["uuid"] = json!(uuid(uuid_n));
    msg
}

/// An `assistant` message with one text block.
///
/// ```
/// use claude_agent_testkit::fake_cli::canned;
///
/// let reply = canned::assistant_text("echo: hello there", 2);
/// assert_eq!(reply["message"]["content"][0]["text"], "echo: hello there");
/// assert_eq!(reply["uuid"], "00000000-0000-4000-8000-000000000002");
/// ```
pub fn assistant_text(text: &str, uuid_n: u64) -> Value {
    let mut msg = template(include_str!("canned/assistant.json"));
    msg["message"]["id"] = json!(format!("msg_fake_{uuid_n}"));
    msg["message"]["content"] = json!([{"type": "text", "text": text}]);
    msg["session_id"] = json!(SESSION_ID);
    msg["uuid"] = json!(uuid(uuid_n));
    msg
}

/// An `assistant` message with one `tool_use` block.
pub(crate) fn assistant_tool_use(id: &str, name: &str, input: &Value, uuid_n: u64) -> Value {
    let mut msg = assistant_text("", uuid_n);
    msg["message"]["content"] =
        json!([{"type": "tool_use", "id": id, "name": name, "input": input}]);
    msg
}

/// A `user` message with one `tool_result` block for `tool_use_id`, as the CLI prints a tool's
/// output (`is_error: false`) or a refusal or failure (`is_error: true`, and `tool_use_result`
/// reads `Error: <text>`).
pub(crate) fn tool_result(tool_use_id: &str, text: &str, is_error: bool, uuid_n: u64) -> Value {
    let tool_use_result = if is_error {
        format!("Error: {text}")
    } else {
        text.to_owned()
    };
    json!({
        "type": "user",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use_id, "content": text, "is_error": is_error},
        ]},
        "parent_tool_use_id": null,
        "session_id": SESSION_ID,
        "uuid": uuid(uuid_n),
        "timestamp": TIMESTAMP,
        "tool_use_result": tool_use_result,
    })
}

/// A `result` message of subtype `success` with this final text.
///
/// ```
/// use claude_agent_tokio::message::Message;
/// use claude_agent_testkit::fake_cli::canned;
///
/// let line = canned::result_success("4", 4).to_string();
/// let Message::Result(result) = Message::parse(&line).unwrap() else { panic!("not a result") };
/// assert_eq!((result.result.as_deref(), result.is_error), (Some("4"), false));
/// ```
pub fn result_success(text: &str, uuid_n: u64) -> Value {
    let mut msg = template(include_str!("canned/result.json"));
    msg["result"] = json!(text);
    msg["session_id"] = json!(SESSION_ID);
    msg["uuid"] = json!(uuid(uuid_n));
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_have_the_recorded_shape() {
        let init = initialize_response();
        assert!(init["commands"].as_array().is_some_and(|c| !c.is_empty()));
        assert_eq!(init["claude_code_version"], "2.1.330");
        let sys = system_init(1);
        assert_eq!(
            (sys["type"].as_str(), sys["subtype"].as_str()),
            (Some("system"), Some("init"))
        );
        assert_eq!(sys["session_id"], SESSION_ID);
        let a = assistant_text("hi", 2);
        assert_eq!(a["message"]["content"][0]["text"], "hi");
        assert_eq!(a["message"]["model"], MODEL);
        assert_eq!(a["uuid"], "00000000-0000-4000-8000-000000000002");
        let r = result_success("hi", 3);
        assert_eq!(
            (r["type"].as_str(), r["subtype"].as_str()),
            (Some("result"), Some("success"))
        );
        assert_eq!(r["result"], "hi");
        assert_eq!(r["is_error"], false);
    }
}
