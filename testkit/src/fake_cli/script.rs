//! What the fake CLI does: a list of [`Step`]s plus rules for answering the SDK's control requests
//! automatically. Built in Rust with the builder methods, or loaded from its JSON form.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::canned;
use super::hooks;
use super::result::FakeResult;
use super::tool_use::ToolUse;

/// A fake CLI's behaviour: steps run in order, and automatic answers to the SDK's control
/// requests that no remaining step waits for.
///
/// After the last step the fake CLI behaves like the real one: it waits for stdin to close,
/// then exits 0 (still answering control requests automatically meanwhile).
///
/// ```
/// use claude_agent_testkit::fake_cli::{Answer, Script};
/// use serde_json::json;
///
/// let script = Script::new()
///     .answer_initialize()
///     .expect_user()
///     .emit_system_init()
///     .can_use_tool("perm-1", "Bash", json!({"command": "ls"}))
///     .emit_assistant_text("done")
///     .emit_result("done")
///     .auto_answer("interrupt", Answer::success(json!({"still_queued": []})));
/// let json_form = serde_json::to_string(&script).unwrap();
/// assert_eq!(serde_json::from_str::<Script>(&json_form).unwrap(), script);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Script {
    /// The steps, run in order.
    pub steps: Vec<Step>,
    /// Automatic answers to SDK control requests, by `request.subtype`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub auto_answers: BTreeMap<String, Answer>,
    /// The automatic answer to any other subtype; `None` leaves such requests unanswered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_answer: Option<Answer>,
    /// How many steps come before this script's first one when it is an arm of a
    /// [`Step::Branch`] being built, so canned messages are numbered uniquely in the whole script.
    #[serde(skip)]
    numbered_from: u64,
}

/// One thing the fake CLI does.
///
/// The builder methods of [`Script`] add steps; a script file for the `fake-claude` binary
/// lists them in their JSON form:
///
/// ```
/// use claude_agent_testkit::fake_cli::{Script, Step};
///
/// let script: Script = serde_json::from_str(r#"{"steps": [
///     {"step": "answer_initialize"},
///     {"step": "expect", "matcher": {"kind": "user"}},
///     {"step": "stderr", "text": "[DEBUG] thinking\n"},
///     {"step": "sleep", "ms": 100},
///     {"step": "emit", "line": "{\"type\":\"keep_alive\"}"},
///     {"step": "exit", "code": 0}
/// ]}"#).unwrap();
/// assert!(matches!(script.steps[3], Step::Sleep { ms: 100 }));
/// assert_eq!(script, Script::new()
///     .answer_initialize()
///     .expect_user()
///     .stderr("[DEBUG] thinking\n")
///     .sleep(std::time::Duration::from_millis(100))
///     .emit(r#"{"type":"keep_alive"}"#)
///     .exit(0));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Step {
    /// Waits for the SDK's `initialize` request and answers it with success and `response`
    /// (when `None`, the canned [`canned::initialize_response`], plus `mcp_servers_applied` and
    /// `plugins_applied` when the request carried MCP servers or plugins, as the real CLI says).
    AnswerInitialize {
        /// The response body; `None` for the canned one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response: Option<Value>,
    },
    /// Writes `line` and a `\n` to stdout, as is (it need not be JSON). A `control_response`
    /// whose `request_id` names a bound request (see [`Step::Expect::bind`]) gets the actual id.
    Emit {
        /// The line, without its `\n`.
        line: String,
    },
    /// Waits until the SDK has written a line that matches (earlier unconsumed lines count).
    Expect {
        /// Which line.
        matcher: Matcher,
        /// For a matched `control_request`: a name under which its actual `request_id` is kept,
        /// for [`Step::Respond`] and for rewriting emitted `control_response`s.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bind: Option<String>,
    },
    /// Writes a `control_request` of the CLI with this id and body (`request` holds `subtype`).
    SendRequest {
        /// The `request_id`.
        request_id: String,
        /// The `request` object.
        request: Value,
    },
    /// Writes `control_cancel_request` for a request the fake CLI sent.
    Cancel {
        /// The `request_id` to withdraw.
        request_id: String,
    },
    /// Answers an SDK control request bound earlier with [`Step::Expect::bind`] (or, if no such
    /// name is bound, the request with this literal id).
    Respond {
        /// The bound name or request id.
        to: String,
        /// The answer.
        answer: Answer,
    },
    /// Writes `line` `count` times (a flood).
    Flood {
        /// The line, without its `\n`.
        line: String,
        /// How many copies.
        count: usize,
    },
    /// Writes one valid JSON line of exactly `bytes` bytes before its `\n`
    /// (`{"type":"fake_padding","pad":"xxx…"}`; just `x`s if `bytes` is too small for that).
    LongLine {
        /// The line length.
        bytes: usize,
    },
    /// Writes a `transcript_mirror` frame, as the real CLI does for a session store: `entries`
    /// appended to the transcript of session `session_id`, a file in the fake CLI's transcript
    /// folder ([`FakeCli::with_transcript_folder`](super::FakeCli::with_transcript_folder)).
    Mirror {
        /// The session whose transcript the entries extend.
        session_id: String,
        /// The transcript lines, each a JSON object.
        entries: Vec<Value>,
    },
    /// Writes `text` to stderr as is.
    Stderr {
        /// The text.
        text: String,
    },
    /// Pauses before the next step (the driver sleeps; input is still read meanwhile).
    Sleep {
        /// Milliseconds.
        ms: u64,
    },
    /// Waits until stdin is closed.
    ExpectEof,
    /// Exits with this code (after writing what is queued).
    Exit {
        /// The exit code.
        code: i32,
    },
    /// Stops doing anything, for ever: no output, no automatic answers, no exit at end of input.
    Hang,
    /// From here on the fake lives through `SIGTERM`, as a CLI busy in a tool call may: only
    /// `SIGKILL` ends it ([`FakeCli::survives_sigterm`](super::FakeCli::survives_sigterm)).
    IgnoreSigterm,
    /// Closes stdout once what it printed before is read, and runs on: whatever it prints
    /// after is lost ([`FakeCli::stdout_closed`](super::FakeCli::stdout_closed)).
    CloseStdout,
    /// Waits for the SDK's answer to the fake CLI's request `request_id`, then runs the steps of
    /// `then` if the answer satisfies `when`, else those of `otherwise`; the steps after the
    /// branch follow. An answer an earlier step already waited for (e.g. in
    /// [`Script::can_use_tool`]) counts. A branch on a request the fake CLI has not sent is a
    /// mistake in the script: the fake CLI says so on stderr and exits 1.
    ///
    /// Built with [`Script::branch`] or [`Script::can_use_tool_then`]. Its JSON form, e.g. for
    /// a script file of the `fake-claude` binary:
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Condition, Script, Step};
    ///
    /// let script: Script = serde_json::from_str(r#"{"steps": [
    ///     {"step": "send_request", "request_id": "p1",
    ///      "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"},
    ///                  "tool_use_id": "toolu_1"}},
    ///     {"step": "branch", "request_id": "p1", "when": {"kind": "allowed"},
    ///      "then": [{"step": "emit", "line": "{\"type\":\"keep_alive\"}"}],
    ///      "otherwise": [{"step": "exit", "code": 1}]}
    /// ]}"#).unwrap();
    /// assert!(matches!(&script.steps[1], Step::Branch { when: Condition::Allowed, .. }));
    /// ```
    Branch {
        /// The id of a request the fake CLI sent.
        request_id: String,
        /// What the answer is tested for.
        when: Condition,
        /// The steps run when the answer satisfies `when`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        then: Vec<Step>,
        /// The steps run when it does not.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        otherwise: Vec<Step>,
    },
    /// Calls the hooks the SDK registered for `event` in its `initialize` request: waits until
    /// that request has arrived, sends a `hook_callback` request with `input` to every callback id
    /// registered for `event` whose matcher accepts `match_query` (all of the event's callbacks
    /// when `match_query` is `None`), then waits for all their answers. The requests have the ids
    /// `request_id`, `<request_id>-2`, `<request_id>-3`, … in registration order. With no such
    /// callback it sends nothing and goes on, as the real CLI calls nothing.
    ///
    /// Built with [`Script::hook`] and its short forms, which also explain the matchers. Its JSON
    /// form:
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Script, Step};
    ///
    /// let script: Script = serde_json::from_str(r#"{"steps": [
    ///     {"step": "answer_initialize"},
    ///     {"step": "call_hooks", "request_id": "h1", "event": "SessionStart",
    ///      "match_query": "startup",
    ///      "input": {"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup"}}
    /// ]}"#).unwrap();
    /// assert!(matches!(&script.steps[1], Step::CallHooks { tool_use_id: None, .. }));
    /// ```
    CallHooks {
        /// The id of the first `hook_callback` request.
        request_id: String,
        /// The hook event, e.g. `PreToolUse`.
        event: String,
        /// What the registered matchers are tested against: the tool name for tool events, or
        /// e.g. `SessionStart`'s `source`; `None` calls every callback of the event.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        match_query: Option<String>,
        /// The hook input sent to every callback.
        input: Value,
        /// The request's `tool_use_id` (`null` when `None`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
    },
}

/// What a [`Step::Branch`] tests the SDK's answer (its `control_response`) for.
///
/// ```
/// use claude_agent_testkit::fake_cli::Condition;
/// use serde_json::json;
///
/// let answer = json!({"type": "control_response", "response": {"subtype": "success",
///     "request_id": "p1", "response": {"behavior": "deny", "message": "no"}}});
/// assert!(Condition::Denied.holds(&answer));
/// assert!(!Condition::Allowed.holds(&answer));
/// assert!(Condition::equals("/message", json!("no")).holds(&answer));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Condition {
    /// A `success` answer.
    Success,
    /// An `error` answer.
    Error,
    /// A `success` answer with `behavior: allow` (a permission granted).
    Allowed,
    /// A `success` answer with `behavior: deny` (a permission refused).
    Denied,
    /// A `success` answer whose body holds `value` at `pointer`.
    Equals {
        /// A JSON pointer into the answer's body (`response.response`), e.g. `/behavior`,
        /// `/hookSpecificOutput/permissionDecision` or `/mcp_response/result/isError`; `""` is
        /// the whole body.
        pointer: String,
        /// The value expected there.
        value: Value,
    },
}

impl Condition {
    /// [`Condition::Equals`]: the answer's body holds `value` at `pointer`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Condition;
    /// use serde_json::json;
    /// let hook_denied = Condition::equals("/hookSpecificOutput/permissionDecision", json!("deny"));
    /// # let _ = hook_denied;
    /// ```
    pub fn equals(pointer: &str, value: Value) -> Self {
        Condition::Equals {
            pointer: pointer.to_owned(),
            value,
        }
    }

    /// Whether `answer` (a `control_response` line) satisfies the condition.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Condition;
    /// use serde_json::json;
    /// let failed = json!({"type": "control_response",
    ///     "response": {"subtype": "error", "request_id": "m1", "error": "no such server"}});
    /// assert!(Condition::Error.holds(&failed));
    /// assert!(!Condition::equals("", json!(null)).holds(&failed));
    /// ```
    pub fn holds(&self, answer: &Value) -> bool {
        let subtype = answer.pointer("/response/subtype").and_then(Value::as_str);
        let body = answer
            .pointer("/response/response")
            .filter(|_| subtype == Some("success"));
        let behavior = body.and_then(|b| b.get("behavior")).and_then(Value::as_str);
        match self {
            Condition::Success => subtype == Some("success"),
            Condition::Error => subtype == Some("error"),
            Condition::Allowed => behavior == Some("allow"),
            Condition::Denied => behavior == Some("deny"),
            Condition::Equals { pointer, value } => {
                body.and_then(|b| b.pointer(pointer)) == Some(value)
            }
        }
    }
}

/// Which SDK line a [`Step::Expect`] waits for.
///
/// ```
/// use claude_agent_testkit::fake_cli::{Matcher, Script, Step};
///
/// let wait_for_interrupt = Step::Expect { matcher: Matcher::ControlRequest { subtype: "interrupt".into() }, bind: None };
/// assert_eq!(Script::new().step(wait_for_interrupt), Script::new().expect_request("interrupt"));
///
/// // In a script file:
/// let matcher: Matcher = serde_json::from_str(r#"{"kind": "control_response", "request_id": "p1"}"#).unwrap();
/// assert_eq!(matcher, Matcher::ControlResponse { request_id: "p1".into() });
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Matcher {
    /// A `user` message.
    User,
    /// A `control_request` with this `request.subtype`.
    ControlRequest {
        /// The subtype, e.g. `interrupt`.
        subtype: String,
    },
    /// A `control_response` to the fake CLI's request with this `request_id`.
    ControlResponse {
        /// The request id the fake CLI used.
        request_id: String,
    },
    /// Any line with this `type`.
    Type {
        /// The `type` value.
        #[serde(rename = "type")]
        kind: String,
    },
    /// Any JSON line.
    Any,
}

impl Matcher {
    /// Whether `line` (an SDK line parsed as JSON) matches.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Matcher;
    /// use serde_json::json;
    ///
    /// let line = json!({"type": "control_request", "request_id": "req_1", "request": {"subtype": "interrupt"}});
    /// assert!(Matcher::ControlRequest { subtype: "interrupt".into() }.matches(&line));
    /// assert!(Matcher::Type { kind: "control_request".into() }.matches(&line));
    /// assert!(!Matcher::User.matches(&line));
    /// ```
    pub fn matches(&self, line: &Value) -> bool {
        let kind = line.get("type").and_then(Value::as_str);
        match self {
            Matcher::User => kind == Some("user"),
            Matcher::ControlRequest { subtype } => {
                kind == Some("control_request")
                    && line.pointer("/request/subtype").and_then(Value::as_str)
                        == Some(subtype.as_str())
            }
            Matcher::ControlResponse { request_id } => {
                kind == Some("control_response")
                    && line.pointer("/response/request_id").and_then(Value::as_str)
                        == Some(request_id.as_str())
            }
            Matcher::Type { kind: wanted } => kind == Some(wanted.as_str()),
            Matcher::Any => true,
        }
    }
}

/// An answer to a control request.
///
/// ```
/// use claude_agent_testkit::fake_cli::{Answer, Script};
/// use serde_json::json;
///
/// let script = Script::single_turn("ok")
///     .auto_answer("mcp_status", Answer::success(json!({"mcpServers": [{"name": "github", "status": "failed"}]})))
///     .auto_answer("stop_task", Answer::ack())
///     .auto_answer("rewind_files", Answer::error("File checkpointing is not enabled"))
///     .auto_answer_others(Answer::Unsupported);
/// # let _ = script;
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Answer {
    /// `subtype: success`, with `response` when given (no `response` key otherwise).
    Success {
        /// The response body.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response: Option<Value>,
    },
    /// The CLI's answer to a subtype it does not know: `subtype: error`,
    /// `error: "Unsupported control request subtype: <subtype>"`, `error_code: unsupported_request`.
    Unsupported,
    /// `subtype: error` with this message and optional `error_code`.
    Error {
        /// The `error` text.
        message: String,
        /// The `error_code`, e.g. `unsupported_request`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
}

impl Answer {
    /// Success with this body.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Answer;
    /// use serde_json::json;
    ///
    /// let answer = Answer::success(json!({"still_queued": []}));
    /// assert_eq!(
    ///     answer.to_line("req_3", "interrupt"),
    ///     json!({"type": "control_response", "response": {"subtype": "success", "request_id": "req_3", "response": {"still_queued": []}}})
    /// );
    /// ```
    pub fn success(response: Value) -> Self {
        Answer::Success {
            response: Some(response),
        }
    }

    /// Success with no `response` key (a plain ack).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Answer;
    /// use serde_json::json;
    ///
    /// assert_eq!(
    ///     Answer::ack().to_line("req_2", "set_model"),
    ///     json!({"type": "control_response", "response": {"subtype": "success", "request_id": "req_2"}})
    /// );
    /// ```
    pub fn ack() -> Self {
        Answer::Success { response: None }
    }

    /// An error with this message.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Answer;
    ///
    /// let line = Answer::error("Model claude-opus-9 is not available").to_line("req_2", "set_model");
    /// assert_eq!(line["response"]["subtype"], "error");
    /// assert_eq!(line["response"]["error"], "Model claude-opus-9 is not available");
    /// ```
    pub fn error(message: impl Into<String>) -> Self {
        Answer::Error {
            message: message.into(),
            code: None,
        }
    }

    /// The `control_response` line answering `request_id`, a request of this `subtype`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Answer;
    ///
    /// // What the real CLI 2.1.330 printed for a subtype it does not know:
    /// let line = Answer::Unsupported.to_line("r_bogus_subtype", "bogus_subtype");
    /// assert_eq!(
    ///     line.to_string(),
    ///     r#"{"response":{"error":"Unsupported control request subtype: bogus_subtype","error_code":"unsupported_request","request_id":"r_bogus_subtype","subtype":"error"},"type":"control_response"}"#
    /// );
    /// ```
    pub fn to_line(&self, request_id: &str, subtype: &str) -> Value {
        match self {
            Answer::Unsupported => json!({"type": "control_response", "response": {
                "subtype": "error", "request_id": request_id,
                "error": format!("Unsupported control request subtype: {subtype}"),
                "error_code": "unsupported_request"}}),
            Answer::Success {
                response: Some(body),
            } => json!({"type": "control_response",
                "response": {"subtype": "success", "request_id": request_id, "response": body}}),
            Answer::Success { response: None } => json!({"type": "control_response",
                "response": {"subtype": "success", "request_id": request_id}}),
            Answer::Error { message, code } => {
                let mut response =
                    json!({"subtype": "error", "request_id": request_id, "error": message});
                if let Some(code) = code {
                    response["error_code"] = json!(code);
                }
                json!({"type": "control_response", "response": response})
            }
        }
    }
}

impl Script {
    /// An empty script: no initialize answer, no automatic answers; it waits for stdin to close
    /// and exits 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// A one-turn session like a recorded "hello": answer initialize, wait for a user message, print
    /// `system/init`, an assistant text and a success result with `reply`.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::message::Message;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    ///
    /// let fake = FakeTransport::new(Script::single_turn("4"));
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "What is 2 + 2?", options).collect());
    /// let Some(Ok(Message::Result(result))) = items.last() else { panic!("no result: {items:?}") };
    /// assert_eq!(result.result.as_deref(), Some("4"));
    /// ```
    pub fn single_turn(reply: &str) -> Self {
        Self::new()
            .answer_initialize()
            .expect_user()
            .emit_system_init()
            .emit_assistant_text(reply)
            .emit_result(reply)
    }

    /// Adds a step.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Script, Step};
    ///
    /// // Every builder method adds one of these; `step` adds any, e.g. one read from a file.
    /// let step: Step = serde_json::from_str(r#"{"step": "stderr", "text": "warning: low disk space\n"}"#).unwrap();
    /// let script = Script::new().answer_initialize().step(step);
    /// assert_eq!(script, Script::new().answer_initialize().stderr("warning: low disk space\n"));
    /// ```
    #[must_use]
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// A number for the next canned message: its step's position, counting the steps of
    /// branches, so ids and uuids are unique within the script.
    fn next_n(&self) -> u64 {
        self.numbered_from + count_steps(&self.steps) + 1
    }

    /// Answers the SDK's `initialize` with the canned response.
    #[must_use]
    pub fn answer_initialize(self) -> Self {
        self.step(Step::AnswerInitialize { response: None })
    }

    /// Answers the SDK's `initialize` with this response body.
    ///
    /// ```
    /// use claude_agent_tokio::{runtime::connect_with, Client};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use serde_json::json;
    ///
    /// // A CLI that offers one model, for an app that builds its model menu from `server_info`.
    /// let script = Script::new().answer_initialize_with(json!({
    ///     "models": [{"value": "haiku", "resolvedModel": "claude-haiku-4-5", "displayName": "Haiku"}],
    ///     "claude_code_version": "2.1.330"
    /// }));
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(FakeTransport::new(script));
    /// let client = runtime.block_on(connect_with(runtime.clone(), options)).unwrap();
    /// assert_eq!(client.server_info().unwrap().models[0].display_name, "Haiku");
    /// runtime.block_on(client.close());
    /// ```
    #[must_use]
    pub fn answer_initialize_with(self, response: Value) -> Self {
        self.step(Step::AnswerInitialize {
            response: Some(response),
        })
    }

    /// Writes a raw line (a `\n` is added).
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::message::Message;
    ///
    /// // A message type newer than the SDK: the app gets it as `Message::Unknown`.
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit(r#"{"type":"hologram_update","beam":[1,2],"session_id":"s"}"#)
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// assert!(matches!(items[0], Ok(Message::Unknown(_))));
    /// ```
    #[must_use]
    pub fn emit(self, line: impl Into<String>) -> Self {
        self.step(Step::Emit { line: line.into() })
    }

    /// Writes a JSON value as one line.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    /// use serde_json::json;
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_json(&json!({"type": "system", "subtype": "notification", "key": "update",
    ///         "text": "Claude Code 2.1.331 is available", "priority": "low", "session_id": "s"}))
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let Ok(Message::System(SystemMessage::Notification(note))) = &items[0] else { panic!("{items:?}") };
    /// assert_eq!(note.text, "Claude Code 2.1.331 is available");
    /// ```
    #[must_use]
    pub fn emit_json(self, value: &Value) -> Self {
        self.emit(value.to_string())
    }

    /// Writes a canned `system/init` message.
    #[must_use]
    pub fn emit_system_init(self) -> Self {
        let n = self.next_n();
        self.emit_json(&canned::system_init(n))
    }

    /// Writes a canned `assistant` message with one text block.
    #[must_use]
    pub fn emit_assistant_text(self, text: &str) -> Self {
        let n = self.next_n();
        self.emit_json(&canned::assistant_text(text, n))
    }

    /// Writes a canned success `result` with this text.
    #[must_use]
    pub fn emit_result(self, text: &str) -> Self {
        self.emit_result_with(FakeResult::success(text))
    }

    /// Writes a `result` with chosen figures and outcome.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, Script};
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_assistant_text("done")
    ///     .emit_result_with(
    ///         FakeResult::success("done").cost_usd(0.25).num_turns(3).usage(120, 40).session_id("s-1"),
    ///     );
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn emit_result_with(self, result: FakeResult) -> Self {
        let n = self.next_n();
        self.emit_json(&result.to_json(n))
    }

    /// Writes an `assistant` message with one `tool_use` block (the model calling a tool).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script, ToolUse};
    /// use serde_json::json;
    ///
    /// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    /// let mut cli = FakeCli::new(Script::new().emit_tool_use(&ls));
    /// let line: serde_json::Value = serde_json::from_slice(&cli.poll_stdout().unwrap()).unwrap();
    /// assert_eq!(line["message"]["content"][0],
    ///     json!({"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}));
    /// ```
    #[must_use]
    pub fn emit_tool_use(self, tool_use: &ToolUse) -> Self {
        let n = self.next_n();
        self.emit_json(&canned::assistant_tool_use(
            &tool_use.id,
            &tool_use.name,
            &tool_use.input,
            n,
        ))
    }

    /// Writes a `user` message with one `tool_result` block for `tool_use`: the tool's output,
    /// `is_error: false`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script, ToolUse};
    /// use serde_json::json;
    ///
    /// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    /// let mut cli = FakeCli::new(Script::new().emit_tool_result(&ls, "src"));
    /// let line: serde_json::Value = serde_json::from_slice(&cli.poll_stdout().unwrap()).unwrap();
    /// assert_eq!(line["message"]["content"][0]["tool_use_id"], "toolu_1");
    /// assert_eq!(line["message"]["content"][0]["is_error"], false);
    /// ```
    #[must_use]
    pub fn emit_tool_result(self, tool_use: &ToolUse, output: &str) -> Self {
        let n = self.next_n();
        self.emit_json(&canned::tool_result(&tool_use.id, output, false, n))
    }

    /// Writes a `user` message with one `tool_result` block for `tool_use` that reports an error,
    /// `is_error: true`: the tool failed, or was refused (the CLI then puts the refusal's message
    /// here).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Script, ToolUse};
    /// use serde_json::json;
    ///
    /// let rm = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf /"}));
    /// let script = Script::new().emit_tool_use(&rm).emit_tool_error(&rm, "not allowed by policy");
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn emit_tool_error(self, tool_use: &ToolUse, message: &str) -> Self {
        let n = self.next_n();
        self.emit_json(&canned::tool_result(&tool_use.id, message, true, n))
    }

    /// Writes a line that is not JSON.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::message::{LineError, Message, NoticeKind};
    ///
    /// // A stray line on stdout is reported as a notice, and the session goes on.
    /// let script = Script::new().answer_initialize().expect_user().emit_garbage().emit_result("still here");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let Ok(Message::Notice(notice)) = &items[0] else { panic!("{items:?}") };
    /// assert!(matches!(notice.kind, NoticeKind::UnreadableLine(LineError::NotJson { .. })));
    /// assert!(matches!(items[1], Ok(Message::Result(_))));
    /// ```
    #[must_use]
    pub fn emit_garbage(self) -> Self {
        self.emit("this is not json {")
    }

    /// Writes `line` prefixed with terminal escape codes (as a CLI run under a TTY-ish wrapper may).
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::message::{LineError, Message, NoticeKind};
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_ansi_prefixed(r#"{"type":"keep_alive"}"#)
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let Ok(Message::Notice(notice)) = &items[0] else { panic!("{items:?}") };
    /// assert!(matches!(notice.kind, NoticeKind::UnreadableLine(LineError::NotJson { .. })));
    /// ```
    #[must_use]
    pub fn emit_ansi_prefixed(self, line: &str) -> Self {
        self.emit(format!("\u{1b}[2K\u{1b}[1G{line}"))
    }

    /// Writes one valid JSON line of exactly `bytes` bytes.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::message::{LineError, Message, NoticeKind};
    ///
    /// // One line over the app's limit is skipped and reported; the rest of the session is intact.
    /// let script = Script::new().answer_initialize().expect_user().emit_long_line(2 * 1024 * 1024).emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone()).max_buffer_size(1024 * 1024);
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let Ok(Message::Notice(notice)) = &items[0] else { panic!("{items:?}") };
    /// assert!(matches!(notice.kind, NoticeKind::UnreadableLine(LineError::TooLong { .. })));
    /// assert!(items[1].is_ok());
    /// ```
    #[must_use]
    pub fn emit_long_line(self, bytes: usize) -> Self {
        self.step(Step::LongLine { bytes })
    }

    /// Writes a `transcript_mirror` frame: `entries` appended to session `session_id`'s
    /// transcript, as the real CLI reports each batch it writes when the app has a session store.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::store::{InMemorySessionStore, SessionKey, SessionStore};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use serde_json::json;
    ///
    /// let session = "8f0c4bd2-5d2e-4c1a-9a57-3f1e2d4c5b6a";
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .mirror(session, vec![json!({"type": "user", "uuid": "5b1d2f0e-0c44-4d0b-8b7e-2a6f4c3d9e10"})])
    ///     .emit_result("ok");
    /// let store = Arc::new(InMemorySessionStore::new());
    /// let home = std::env::temp_dir();
    /// let options = Options::new()
    ///     .transport(FakeTransport::new(script))
    ///     .env("HOME", home.display().to_string())
    ///     .cwd("/srv/app")
    ///     .session_store(store.clone());
    /// let runtime = TestRuntime::new();
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// assert!(items.iter().all(Result::is_ok));
    /// // The session store holds the mirrored entry, under the session's key.
    /// let key = SessionKey::new("-srv-app", session);
    /// let stored = runtime.block_on(store.load(&key)).unwrap().unwrap();
    /// assert_eq!(stored[0]["uuid"], "5b1d2f0e-0c44-4d0b-8b7e-2a6f4c3d9e10");
    /// ```
    #[must_use]
    pub fn mirror(self, session_id: impl Into<String>, entries: Vec<Value>) -> Self {
        self.step(Step::Mirror {
            session_id: session_id.into(),
            entries,
        })
    }

    /// Writes `line` `count` times.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// // Many messages at once: the app sees every one of them.
    /// let status = r#"{"type":"system","subtype":"status","status":"requesting","session_id":"s"}"#;
    /// let script = Script::new().answer_initialize().expect_user().flood(status, 5_000).emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let statuses = items.iter().filter(|item| matches!(item, Ok(Message::System(SystemMessage::Status(_))))).count();
    /// assert_eq!(statuses, 5_000);
    /// ```
    #[must_use]
    pub fn flood(self, line: impl Into<String>, count: usize) -> Self {
        self.step(Step::Flood {
            line: line.into(),
            count,
        })
    }

    /// Writes text to stderr.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use std::sync::{Arc, Mutex};
    ///
    /// let script = Script::new().answer_initialize().expect_user().stderr("[DEBUG] loading settings\n").emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let lines = Arc::new(Mutex::new(Vec::new()));
    /// let sink = lines.clone();
    /// let options = Options::new().transport(fake.clone()).on_stderr(move |line| sink.lock().unwrap().push(line.to_owned()));
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// assert_eq!(*lines.lock().unwrap(), ["[DEBUG] loading settings"]);
    /// ```
    #[must_use]
    pub fn stderr(self, text: impl Into<String>) -> Self {
        self.step(Step::Stderr { text: text.into() })
    }

    /// Waits for a user message.
    #[must_use]
    pub fn expect_user(self) -> Self {
        self.step(Step::Expect {
            matcher: Matcher::User,
            bind: None,
        })
    }

    /// Waits for a control request of this subtype, without answering it: an app awaiting the
    /// answer waits until its control timeout. To answer it, use [`Script::expect_request_as`]
    /// and then [`Script::respond`].
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    ///
    /// // The fake goes on only once the app has sent `interrupt` (it does not answer it).
    /// let mut cli = FakeCli::new(Script::new().expect_request("interrupt").emit_result("stopped"));
    /// assert!(cli.poll_stdout().is_none());
    /// cli.handle_stdin(b"{\"type\":\"control_request\",\"request_id\":\"req_1\",\"request\":{\"subtype\":\"interrupt\"}}\n");
    /// let printed = String::from_utf8(cli.poll_stdout().unwrap()).unwrap();
    /// assert!(printed.contains(r#""type":"result""#));
    /// assert_eq!(cli.received()[0]["request"]["subtype"], "interrupt");
    /// ```
    #[must_use]
    pub fn expect_request(self, subtype: &str) -> Self {
        self.step(Step::Expect {
            matcher: Matcher::ControlRequest {
                subtype: subtype.to_owned(),
            },
            bind: None,
        })
    }

    /// Waits for a control request of this subtype and keeps its id under `name` for
    /// [`Script::respond`].
    ///
    /// ```
    /// use claude_agent_tokio::{runtime::connect_with, Client, Error};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::{Answer, Script};
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    ///
    /// // Refuse the app's `set_model`, as a CLI would for a model the account cannot use.
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_request_as("set_model", "switch")
    ///     .respond("switch", Answer::error("Model claude-opus-9 is not available"));
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(FakeTransport::new(script));
    /// let refused = runtime.block_on(async {
    ///     let client = connect_with(runtime.clone(), options).await.unwrap();
    ///     client.set_model(Some("claude-opus-9")).await
    /// });
    /// assert!(matches!(refused, Err(Error::ControlRefused { message, .. }) if message.contains("not available")));
    /// ```
    #[must_use]
    pub fn expect_request_as(self, subtype: &str, name: &str) -> Self {
        self.step(Step::Expect {
            matcher: Matcher::ControlRequest {
                subtype: subtype.to_owned(),
            },
            bind: Some(name.to_owned()),
        })
    }

    /// Waits for the SDK's answer to the fake CLI's request `request_id`.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::permission::PermissionResult;
    /// use serde_json::json;
    ///
    /// // The CLI asks permission itself and waits for the app's answer before it goes on.
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .send_request("p1", json!({"subtype": "can_use_tool", "tool_name": "Bash",
    ///         "input": {"command": "rm -rf build"}, "tool_use_id": "toolu_1"}))
    ///     .expect_response("p1")
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let options = Options::new()
    ///     .transport(fake.clone())
    ///     .on_permission_request(|_request, _ctx| async { PermissionResult::deny("no deleting") });
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "clean up", options).collect());
    /// let (id, answer) = &fake.answers()[0];
    /// assert_eq!((id.as_str(), answer), ("p1", &SdkAnswer::Permission(PermissionResult::deny("no deleting"))));
    /// ```
    #[must_use]
    pub fn expect_response(self, request_id: &str) -> Self {
        self.step(Step::Expect {
            matcher: Matcher::ControlResponse {
                request_id: request_id.to_owned(),
            },
            bind: None,
        })
    }

    /// Waits for any line of this `type`.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::Prompt;
    /// use claude_agent_tokio::message::UserInput;
    ///
    /// // Wait for whatever `user` line comes, whatever its content (here a prompt of blocks).
    /// let script = Script::new().answer_initialize().expect_type("user").emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let prompt = futures_lite::stream::once(UserInput::text("look at this"));
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), Prompt::stream(prompt), options).collect());
    /// assert!(items.iter().all(Result::is_ok));
    /// ```
    #[must_use]
    pub fn expect_type(self, kind: &str) -> Self {
        self.step(Step::Expect {
            matcher: Matcher::Type {
                kind: kind.to_owned(),
            },
            bind: None,
        })
    }

    /// Waits for stdin to close.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// // The app must close stdin when its one-turn query is done: the fake exits only then.
    /// let script = Script::new().answer_initialize().expect_user().emit_result("ok").expect_eof().exit(0);
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// assert!(items.iter().all(Result::is_ok));
    /// assert_eq!(fake.waiting_for(), None);
    /// ```
    #[must_use]
    pub fn expect_eof(self) -> Self {
        self.step(Step::ExpectEof)
    }

    /// Answers the SDK request bound as `name` (see [`Script::expect_request_as`]).
    ///
    /// ```
    /// use claude_agent_tokio::runtime::connect_with;
    /// use claude_agent_tokio::control::ContextUsageDetail;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::{Answer, Script};
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use serde_json::json;
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_request_as("get_context_usage", "usage")
    ///     .respond("usage", Answer::success(json!({"totalTokens": 182_000, "maxTokens": 200_000, "percentage": 91, "model": "claude-opus-5-5"})));
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(FakeTransport::new(script));
    /// let usage = runtime.block_on(async {
    ///     let client = connect_with(runtime.clone(), options).await.unwrap();
    ///     client.context_usage(ContextUsageDetail::Full).await
    /// });
    /// assert_eq!(usage.unwrap().percentage, 91.0);
    /// ```
    #[must_use]
    pub fn respond(self, name: &str, answer: Answer) -> Self {
        self.step(Step::Respond {
            to: name.to_owned(),
            answer,
        })
    }

    /// Sends a CLI control request without waiting for its answer.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    /// use serde_json::json;
    ///
    /// // A request the app is not expected to answer in time: the fake goes on without waiting.
    /// let script = Script::new()
    ///     .send_request("e1", json!({"subtype": "elicitation", "mcp_server_name": "github", "message": "Sign in?", "mode": "url",
    ///         "url": "https://github.com/login/device"}))
    ///     .emit_result("ok");
    /// let mut cli = FakeCli::new(script);
    /// let first = cli.poll_stdout().unwrap();
    /// assert!(String::from_utf8(first).unwrap().contains(r#""request_id":"e1""#));
    /// ```
    #[must_use]
    pub fn send_request(self, request_id: &str, request: Value) -> Self {
        self.step(Step::SendRequest {
            request_id: request_id.to_owned(),
            request,
        })
    }

    /// Sends a CLI control request and waits for the SDK's answer.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::mcp::ElicitationResult;
    /// use serde_json::json;
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .request_and_wait("e1", json!({"subtype": "elicitation", "mcp_server_name": "deploy",
    ///         "message": "Which environment?", "mode": "form",
    ///         "requested_schema": {"type": "object", "properties": {"env": {"type": "string"}}}}))
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let options = Options::new()
    ///     .transport(fake.clone())
    ///     .on_elicitation(|_request, _ctx| async { ElicitationResult::decline() });
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "deploy", options).collect());
    /// assert_eq!(fake.answers()[0].1, SdkAnswer::Elicitation(ElicitationResult::decline()));
    /// ```
    #[must_use]
    pub fn request_and_wait(self, request_id: &str, request: Value) -> Self {
        self.send_request(request_id, request)
            .expect_response(request_id)
    }

    /// Sends `control_cancel_request` for the fake CLI's request `request_id`.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::permission::PermissionResult;
    /// use serde_json::json;
    ///
    /// // The CLI withdraws a permission prompt (the user answered it in the terminal, say):
    /// // the app's callback is dropped and no answer is written.
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .send_request("p1", json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}, "tool_use_id": "t1"}))
    ///     .cancel("p1")
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let options = Options::new()
    ///     .transport(fake.clone())
    ///     .on_permission_request(|_request, _ctx| std::future::pending::<PermissionResult>()); // waits for a person
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// assert!(fake.answers().is_empty());
    /// ```
    #[must_use]
    pub fn cancel(self, request_id: &str) -> Self {
        self.step(Step::Cancel {
            request_id: request_id.to_owned(),
        })
    }

    /// Asks permission for a tool (`can_use_tool`) and waits for the answer.
    #[must_use]
    pub fn can_use_tool(self, request_id: &str, tool_name: &str, input: Value) -> Self {
        let tool_use_id = format!("toolu_fake_{request_id}");
        self.request_and_wait(
            request_id,
            can_use_tool_request(tool_name, &input, &tool_use_id),
        )
    }

    /// Asks permission for `tool_use` (`can_use_tool`), waits for the answer, then goes on with
    /// the steps `on_allow` adds if the SDK allowed it (`behavior: allow`), or else (a denial, or
    /// an error answer) with those `on_deny` adds. Each closure gets an empty script to build on;
    /// only its steps are used. The steps after this one follow either way.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, Script, ToolUse};
    /// use serde_json::json;
    ///
    /// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_tool_use(&ls)
    ///     .can_use_tool_then(
    ///         "p1",
    ///         &ls,
    ///         |allowed| allowed.emit_tool_result(&ls, "src").emit_result("listed"),
    ///         |denied| {
    ///             denied
    ///                 .emit_tool_error(&ls, "not allowed")
    ///                 .emit_result_with(FakeResult::success("could not list").permission_denial(&ls))
    ///         },
    ///     );
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn can_use_tool_then(
        self,
        request_id: &str,
        tool_use: &ToolUse,
        on_allow: impl FnOnce(Script) -> Script,
        on_deny: impl FnOnce(Script) -> Script,
    ) -> Self {
        self.send_request(
            request_id,
            can_use_tool_request(&tool_use.name, &tool_use.input, &tool_use.id),
        )
        .branch(request_id, Condition::Allowed, on_allow, on_deny)
    }

    /// Waits for the SDK's answer to the fake CLI's request `request_id` (sent by an earlier
    /// step), then goes on with the steps `then` adds if the answer satisfies `when`, or else
    /// with those `otherwise` adds (see [`Step::Branch`]). Each closure gets an empty script to
    /// build on; only its steps are used, so set automatic answers on the outer script.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Condition, Script};
    /// use serde_json::json;
    ///
    /// // An MCP server asks the user for input through the app; the app may accept or decline.
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .elicitation("e1", "tickets", "Which project?")
    ///     .branch(
    ///         "e1",
    ///         Condition::equals("/action", json!("accept")),
    ///         |accepted| accepted.emit_assistant_text("Filed the ticket."),
    ///         |declined| declined.emit_assistant_text("No ticket filed."),
    ///     )
    ///     .emit_result("finished");
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn branch(
        self,
        request_id: &str,
        when: Condition,
        then: impl FnOnce(Script) -> Script,
        otherwise: impl FnOnce(Script) -> Script,
    ) -> Self {
        let branch_n = self.next_n();
        let then = then(Script::arm(branch_n)).steps;
        let otherwise = otherwise(Script::arm(branch_n + count_steps(&then))).steps;
        self.step(Step::Branch {
            request_id: request_id.to_owned(),
            when,
            then,
            otherwise,
        })
    }

    /// An empty script whose canned messages are numbered after `numbered_from` steps.
    fn arm(numbered_from: u64) -> Self {
        Self {
            numbered_from,
            ..Self::default()
        }
    }

    /// Calls a registered hook (`hook_callback`) and waits for the answer.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::hooks::{HookOutput, StopInput};
    /// use serde_json::json;
    ///
    /// // Call the app's first hook (`hook_0`) by its id, with an input of your own.
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .hook_callback("h1", "hook_0", json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp/ws",
    ///         "hook_event_name": "Stop", "stop_hook_active": false}))
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let options = Options::new()
    ///     .transport(fake.clone())
    ///     .on_hook(None, |_input: StopInput, _ctx| async { HookOutput::block("run the tests first") });
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// assert_eq!(fake.answers()[0].1, SdkAnswer::Hook(HookOutput::block("run the tests first")));
    /// ```
    #[must_use]
    pub fn hook_callback(self, request_id: &str, callback_id: &str, input: Value) -> Self {
        self.request_and_wait(
            request_id,
            json!({"subtype": "hook_callback", "callback_id": callback_id, "input": input,
                   "tool_use_id": null}),
        )
    }

    /// Sends a JSON-RPC message to an in-process MCP server (`mcp_message`) and waits for the
    /// answer.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::{mcp::tool, mcp::SdkMcpServer};
    /// use claude_agent_tokio::mcp::ToolResult;
    /// use serde_json::json;
    ///
    /// // Ask the app's in-process server for its tools, as the CLI does while connecting it.
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .mcp_message("m1", "calc", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let calc = SdkMcpServer::new("calc", "1.0.0").tool(tool("add", "Add two numbers", json!({"type": "object"}), |_args| async {
    ///     Ok::<_, String>(ToolResult::text("42"))
    /// }));
    /// let options = Options::new().transport(fake.clone()).sdk_mcp_server(calc);
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let SdkAnswer::Mcp(listed) = &fake.answers()[0].1 else { panic!("not an MCP answer") };
    /// assert_eq!(listed.to_value()["result"]["tools"][0]["name"], "add");
    /// ```
    #[must_use]
    pub fn mcp_message(self, request_id: &str, server_name: &str, message: Value) -> Self {
        self.request_and_wait(
            request_id,
            json!({"subtype": "mcp_message", "server_name": server_name, "message": message}),
        )
    }

    /// Calls a tool of one of the SDK's in-process MCP servers, as the CLI does when the model
    /// uses it: an `mcp_message` request to the server holding the JSON-RPC `tools/call` of the
    /// tool with `tool_use`'s input (and its id in `_meta`), then waits for the answer. Its
    /// answer can be tested with [`Script::branch`], e.g. for `/mcp_response/result/isError`.
    ///
    /// # Panics
    ///
    /// If `tool_use`'s name is not an MCP tool's, `mcp__<server>__<tool>` (see [`ToolUse::mcp`]).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Condition, Script, ToolUse};
    /// use serde_json::json;
    ///
    /// let add = ToolUse::mcp("toolu_1", "calc", "add", json!({"a": 2, "b": 40}));
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_tool_use(&add)
    ///     .call_tool("m1", &add)
    ///     .branch(
    ///         "m1",
    ///         Condition::equals("/mcp_response/result/content/0/text", json!("42")),
    ///         |right| right.emit_tool_result(&add, "42").emit_result("2 + 40 = 42"),
    ///         |wrong| wrong.emit_result("the tool is broken"),
    ///     );
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn call_tool(self, request_id: &str, tool_use: &ToolUse) -> Self {
        let (server, tool) = tool_use
            .name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
            .unwrap_or_else(|| {
                panic!(
                    "call_tool needs an MCP tool named mcp__<server>__<tool>, not {:?}",
                    tool_use.name
                )
            });
        let id = self.next_n();
        let message = json!({
            "method": "tools/call",
            "params": {"name": tool, "arguments": tool_use.input,
                       "_meta": {"claudecode/toolUseId": tool_use.id, "progressToken": id}},
            "jsonrpc": "2.0",
            "id": id,
        });
        let server = server.to_owned();
        self.mcp_message(request_id, &server, message)
    }

    /// Calls the hooks the SDK registered for `event` (see [`Step::CallHooks`]): at run time,
    /// once the SDK's `initialize` request has arrived, a `hook_callback` request goes to each
    /// callback id registered there for `event` whose matcher accepts `tool_name`, and the fake
    /// CLI waits for every answer. The requests' ids are `request_id`, then `<request_id>-2`, …
    /// If the SDK registered no matching hook, nothing is sent (as the real CLI calls nothing)
    /// and the script goes on; a [`Script::branch`] on `request_id` would then be a mistake.
    ///
    /// The input has the fields of the real CLI's: `session_id`, `transcript_path`, `cwd`,
    /// `prompt_id`, `permission_mode`, `effort` (not for `UserPromptSubmit`),
    /// `hook_event_name`, `tool_name` when given, then `fields` (which can replace any of them).
    /// Give tool events their `tool_input` and `tool_use_id` in `fields`; the request's own
    /// `tool_use_id` is the input's, or else a made-up UUID, as the CLI sends for other events.
    ///
    /// Matchers, as the CLI reads them: none, `""` and `"*"` match every tool; a matcher of only
    /// letters, digits, `_` and `|` is a `|`-separated list of exact tool names (`"Write|Edit"`
    /// does not match `NotebookEdit`); anything else is a regular expression searched for in the
    /// tool name (`"mcp__calc__.*"`, `"^Bash$"`). The fake CLI evaluates the part of regular
    /// expressions that tool-name matchers use: `|`, `^`, `$`, `.`, `*`, `+`, `?` and `\`
    /// escapes of punctuation. It does not call the callbacks of a matcher beyond that (groups,
    /// `[…]` classes, `{n}`, `\d`…) and says so on stderr. With `tool_name` `None`, every
    /// callback registered for the event is called, as the CLI does for events that take no
    /// matcher (`Stop`, `UserPromptSubmit`, …). For an event whose matchers the CLI tests
    /// against something else (`SessionStart`'s `source`, for one), add a [`Step::CallHooks`]
    /// with that as its `match_query`.
    ///
    /// # Panics
    ///
    /// If `fields` is neither a JSON object nor `null`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Script;
    /// use serde_json::json;
    ///
    /// let script = Script::new().answer_initialize().hook(
    ///     "h1",
    ///     "PostToolUseFailure",
    ///     Some("Bash"),
    ///     json!({"tool_input": {"command": "make"}, "tool_use_id": "toolu_1", "error": "exit 2"}),
    /// );
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn hook(
        self,
        request_id: &str,
        event: &str,
        tool_name: Option<&str>,
        fields: Value,
    ) -> Self {
        let input = hooks::input(event, tool_name, fields);
        let tool_use_id = input
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map_or_else(|| canned::uuid(self.next_n()), str::to_owned);
        self.step(Step::CallHooks {
            request_id: request_id.to_owned(),
            event: event.to_owned(),
            match_query: tool_name.map(str::to_owned),
            input,
            tool_use_id: Some(tool_use_id),
        })
    }

    /// Calls the SDK's `PreToolUse` hooks for `tool_use`, before it runs (see [`Script::hook`]).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Condition, Script, ToolUse};
    /// use serde_json::json;
    ///
    /// // A PreToolUse hook of the app may block the command.
    /// let rm = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf build"}));
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_tool_use(&rm)
    ///     .pre_tool_use_hook("h1", &rm)
    ///     .branch(
    ///         "h1",
    ///         Condition::equals("/hookSpecificOutput/permissionDecision", json!("deny")),
    ///         |blocked| blocked.emit_tool_error(&rm, "PreToolUse:Bash hook error: blocked"),
    ///         |ran| ran.emit_tool_result(&rm, ""),
    ///     )
    ///     .emit_result("finished");
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn pre_tool_use_hook(self, request_id: &str, tool_use: &ToolUse) -> Self {
        self.hook(
            request_id,
            "PreToolUse",
            Some(&tool_use.name),
            hooks::pre_tool_use_fields(tool_use),
        )
    }

    /// Calls the SDK's `PostToolUse` hooks for `tool_use`, which returned `tool_response` (see
    /// [`Script::hook`]).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{Script, ToolUse};
    /// use serde_json::json;
    ///
    /// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_tool_use(&ls)
    ///     .post_tool_use_hook("h2", &ls, json!({"stdout": "src", "stderr": "", "interrupted": false}))
    ///     .emit_tool_result(&ls, "src");
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn post_tool_use_hook(
        self,
        request_id: &str,
        tool_use: &ToolUse,
        tool_response: Value,
    ) -> Self {
        self.hook(
            request_id,
            "PostToolUse",
            Some(&tool_use.name),
            hooks::post_tool_use_fields(tool_use, tool_response),
        )
    }

    /// Calls the SDK's `UserPromptSubmit` hooks for `prompt`, before the turn starts (see
    /// [`Script::hook`]).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Script;
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .user_prompt_submit_hook("h1", "hello")
    ///     .emit_system_init()
    ///     .emit_assistant_text("hi")
    ///     .emit_result("hi");
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn user_prompt_submit_hook(self, request_id: &str, prompt: &str) -> Self {
        self.hook(
            request_id,
            "UserPromptSubmit",
            None,
            json!({"prompt": prompt}),
        )
    }

    /// Calls the SDK's `Stop` hooks at the end of a turn whose last assistant text was
    /// `last_assistant_message` (see [`Script::hook`]).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::Script;
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_assistant_text("done")
    ///     .stop_hook("h1", "done")
    ///     .emit_result("done");
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn stop_hook(self, request_id: &str, last_assistant_message: &str) -> Self {
        self.hook(
            request_id,
            "Stop",
            None,
            hooks::stop_fields(last_assistant_message),
        )
    }

    /// Sends an MCP `elicitation` request and waits for the answer.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::mcp::ElicitationResult;
    ///
    /// let script = Script::new().answer_initialize().expect_user().elicitation("e1", "deploy", "Which environment?").emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let options = Options::new().transport(fake.clone()).on_elicitation(|request, _ctx| async move {
    ///     assert_eq!(request.message, "Which environment?");
    ///     ElicitationResult::accept(serde_json::json!({"env": "staging"}))
    /// });
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "deploy", options).collect());
    /// let answer = ElicitationResult::accept(serde_json::json!({"env": "staging"}));
    /// assert_eq!(fake.answers()[0].1, SdkAnswer::Elicitation(answer));
    /// ```
    #[must_use]
    pub fn elicitation(self, request_id: &str, server_name: &str, message: &str) -> Self {
        self.request_and_wait(
            request_id,
            json!({"subtype": "elicitation", "mcp_server_name": server_name, "message": message,
                   "mode": "form", "requested_schema": {"type": "object", "properties": {}}}),
        )
    }

    /// Pauses before the next step.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    ///
    /// // Run directly, the fake hands out the pause; a driver sleeps, then wakes it.
    /// let mut cli = FakeCli::new(Script::new().sleep(Duration::from_millis(250)).emit_result("late"));
    /// assert_eq!(cli.poll_sleep(), Some(Duration::from_millis(250)));
    /// assert!(cli.poll_stdout().is_none());
    /// cli.handle_wake();
    /// assert!(cli.poll_stdout().is_some());
    /// ```
    #[must_use]
    pub fn sleep(self, duration: Duration) -> Self {
        let ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        self.step(Step::Sleep { ms })
    }

    /// Exits with `code`.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    /// use futures_lite::StreamExt;
    /// use claude_agent_tokio::Error;
    ///
    /// // The CLI crashes after printing to stderr: the app's last item says how.
    /// let script = Script::new().answer_initialize().expect_user().stderr("Error: ENOSPC: no space left on device\n").exit(1);
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let Some(Err(Error::Process { exit, stderr_tail })) = items.last() else { panic!("{items:?}") };
    /// assert_eq!(exit.code, Some(1));
    /// assert!(stderr_tail.contains("ENOSPC"));
    /// ```
    #[must_use]
    pub fn exit(self, code: i32) -> Self {
        self.step(Step::Exit { code })
    }

    /// Stops responding for ever.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::{runtime::connect_with, Client, Error};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    ///
    /// // A CLI that stops answering: the app's control request times out (in virtual time).
    /// let script = Script::new().answer_initialize().hang();
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(FakeTransport::new(script)).control_timeout(Duration::from_secs(10));
    /// let status = runtime.block_on(async {
    ///     let client = connect_with(runtime.clone(), options).await.unwrap();
    ///     client.mcp_status().await
    /// });
    /// assert!(matches!(status, Err(Error::ControlTimeout(_))));
    /// ```
    #[must_use]
    pub fn hang(self) -> Self {
        self.step(Step::Hang)
    }

    /// From here on the fake lives through `SIGTERM`: a session that stops it must go on to
    /// `SIGKILL`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::runtime::{connect_with, Runtime, Signal};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    ///
    /// let fake = FakeTransport::new(Script::new().answer_initialize().ignore_sigterm().hang());
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone());
    /// let started = runtime.block_on(async {
    ///     let client = connect_with(runtime.clone(), options).await.unwrap();
    ///     let started = runtime.now();
    ///     client.close().await;
    ///     started
    /// });
    /// assert_eq!(fake.signals(), [Signal::Terminate, Signal::Kill]);
    /// // 5 s for stdin's end, 5 s for SIGTERM, in virtual time.
    /// assert_eq!(runtime.now() - started, Duration::from_secs(10));
    /// ```
    #[must_use]
    pub fn ignore_sigterm(self) -> Self {
        self.step(Step::IgnoreSigterm)
    }

    /// Closes stdout (once what it printed before is read) and runs on, as a CLI whose output
    /// pipe broke: a session must stop it without its answers.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::runtime::{connect_with, Runtime, Signal};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    ///
    /// // Gone silent before it answered `initialize`: `connect` fails, and the CLI is stopped.
    /// let fake = FakeTransport::new(Script::new().close_stdout().hang());
    /// let runtime = TestRuntime::new();
    /// let started = runtime.now();
    /// let connected = runtime.block_on(connect_with(runtime.clone(), Options::new().transport(fake.clone())));
    /// assert!(connected.is_err());
    /// runtime.block_on(async { while fake.signals().is_empty() { runtime.sleep_until(runtime.now() + Duration::from_secs(1)).await } });
    /// assert_eq!(fake.signals(), [Signal::Terminate]);
    /// // 5 s to exit once stdout ended, then stdin closed and 5 s more.
    /// assert_eq!(runtime.now() - started, Duration::from_secs(10));
    /// ```
    #[must_use]
    pub fn close_stdout(self) -> Self {
        self.step(Step::CloseStdout)
    }

    /// Answers SDK control requests of `subtype` automatically (unless a remaining step waits
    /// for one: see [`FakeCli`](super::FakeCli)).
    #[must_use]
    pub fn auto_answer(mut self, subtype: &str, answer: Answer) -> Self {
        self.auto_answers.insert(subtype.to_owned(), answer);
        self
    }

    /// Answers SDK control requests of subtypes without their own automatic answer.
    ///
    /// ```
    /// use claude_agent_tokio::{runtime::connect_with, Client, Error};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::fake_cli::{Answer, Script};
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    ///
    /// // An old CLI that supports none of the requests the app may send.
    /// let script = Script::new().answer_initialize().auto_answer_others(Answer::Unsupported);
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(FakeTransport::new(script));
    /// let result = runtime.block_on(async {
    ///     let client = connect_with(runtime.clone(), options).await.unwrap();
    ///     client.stop_task("b41d").await
    /// });
    /// assert!(matches!(result, Err(Error::ControlRefused { code: Some(code), .. }) if code == "unsupported_request"));
    /// ```
    #[must_use]
    pub fn auto_answer_others(mut self, answer: Answer) -> Self {
        self.default_answer = Some(answer);
        self
    }

    /// Automatic answers like the real CLI's (as recorded from 2.1.330) for the SDK requests a
    /// test rarely scripts: `interrupt`, `set_model`, `set_permission_mode`,
    /// `set_max_thinking_tokens`, `stop_task`, and the unsupported-subtype error for anything
    /// else. (`mcp_status` is always answered, with the SDK's in-process servers connected.)
    ///
    /// ```
    /// use claude_agent_tokio::{runtime::connect_with, Client};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_tokio::permission::PermissionMode;
    /// use claude_agent_testkit::fake_cli::Script;
    /// use claude_agent_testkit::runtime::TestRuntime;
    /// use claude_agent_testkit::transport::FakeTransport;
    ///
    /// let script = Script::single_turn("done").auto_answer_like_cli();
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(FakeTransport::new(script));
    /// runtime.block_on(async {
    ///     let client = connect_with(runtime.clone(), options).await.unwrap();
    ///     client.set_permission_mode(PermissionMode::AcceptEdits).await.unwrap();
    ///     client.set_model(Some("haiku")).await.unwrap();
    ///     assert!(client.interrupt().await.unwrap().still_queued.is_empty());
    ///     client.close().await;
    /// });
    /// ```
    #[must_use]
    pub fn auto_answer_like_cli(self) -> Self {
        self.auto_answer("interrupt", Answer::success(json!({"still_queued": []})))
            .auto_answer(
                "set_model",
                Answer::success(json!({"model": "claude-opus-5-5"})),
            )
            .auto_answer(
                "set_permission_mode",
                Answer::success(json!({"mode": "default"})),
            )
            .auto_answer("set_max_thinking_tokens", Answer::ack())
            .auto_answer("stop_task", Answer::ack())
            .auto_answer_others(Answer::Unsupported)
    }
}

/// The `can_use_tool` request body.
pub(crate) fn can_use_tool_request(tool_name: &str, input: &Value, tool_use_id: &str) -> Value {
    json!({"subtype": "can_use_tool", "tool_name": tool_name, "input": input,
           "tool_use_id": tool_use_id})
}

/// How many steps `steps` holds, counting those in branches.
fn count_steps(steps: &[Step]) -> u64 {
    steps
        .iter()
        .map(|step| match step {
            Step::Branch {
                then, otherwise, ..
            } => 1 + count_steps(then) + count_steps(otherwise),
            _ => 1,
        })
        .sum()
}
