//! `result` messages with chosen figures.

use serde_json::{json, Value};

use super::canned;
use super::tool_use::ToolUse;

/// Timing fields only a success result carries.
const SUCCESS_ONLY: [&str; 6] = [
    "result",
    "api_error_status",
    "ttft_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    "first_content_frame_ms",
];

/// The per-model usage maps of a result, which repeat its cost and tokens.
const MODEL_USAGE: [&str; 2] = ["modelUsage", "model_usage_since_last_result"];

/// A `result` message (the end of a turn) with chosen figures, for
/// [`Script::emit_result_with`](super::Script::emit_result_with).
///
/// It has every field of the real CLI's result. Figures left unset keep the canned ones (those
/// of [`Script::emit_result`](super::Script::emit_result)): 0.000188 USD, 12 input and 7 output
/// tokens, 1 turn, 163 ms, the session id [`canned::SESSION_ID`]. Error subtypes carry `errors`
/// and no `result` text, as the CLI prints them; after an error result the real CLI exits 1 once
/// stdin closes, so end such a script with `.expect_eof().exit(1)`.
///
/// ```
/// use claude_agent_testkit::fake_cli::{FakeCli, FakeResult, Script};
///
/// let script = Script::new()
///     .emit_result_with(FakeResult::success("done").cost_usd(0.25).usage(120, 40).num_turns(3))
///     .emit_result_with(FakeResult::error_max_turns(3).session_id("s-1"))
///     .expect_eof()
///     .exit(1);
/// let mut cli = FakeCli::new(script);
/// let out = cli.poll_stdout().unwrap();
/// let result: serde_json::Value = serde_json::from_slice(&out).unwrap();
/// assert_eq!(result["total_cost_usd"], 0.25);
/// assert_eq!(result["usage"]["output_tokens"], 40);
/// let out = cli.poll_stdout().unwrap();
/// let error: serde_json::Value = serde_json::from_slice(&out).unwrap();
/// assert_eq!(error["subtype"], "error_max_turns");
/// assert_eq!(error["errors"][0], "Reached maximum number of turns (3)");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FakeResult {
    subtype: String,
    is_error: bool,
    result: Option<String>,
    errors: Vec<String>,
    terminal_reason: Option<String>,
    api_error_status: Option<u16>,
    cost_usd: Option<f64>,
    usage: Option<(u64, u64)>,
    num_turns: Option<u32>,
    duration_ms: Option<u64>,
    session_id: Option<String>,
    permission_denials: Vec<Value>,
}

impl FakeResult {
    fn new(subtype: &str, is_error: bool, terminal_reason: Option<&str>) -> Self {
        Self {
            subtype: subtype.to_owned(),
            is_error,
            result: None,
            errors: Vec::new(),
            terminal_reason: terminal_reason.map(str::to_owned),
            api_error_status: None,
            cost_usd: None,
            usage: None,
            num_turns: None,
            duration_ms: None,
            session_id: None,
            permission_denials: Vec::new(),
        }
    }

    /// A successful turn with this final text (`subtype: success`, `terminal_reason: completed`).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, Script};
    /// let script = Script::new().emit_result_with(FakeResult::success("all done").num_turns(2));
    /// # let _ = script;
    /// ```
    pub fn success(text: &str) -> Self {
        Self {
            result: Some(text.to_owned()),
            ..Self::new("success", false, Some("completed"))
        }
    }

    /// A failed turn with this error subtype (`error_max_turns`, `error_during_execution`,
    /// `error_max_budget_usd`, `error_max_structured_output_retries`, or any other):
    /// `is_error: true`, no `errors` until [`errors`](Self::errors) adds them, and the CLI's
    /// `terminal_reason` for the four known subtypes (none for others; see
    /// [`terminal_reason`](Self::terminal_reason)).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, Script};
    /// let over_budget = FakeResult::error("error_max_budget_usd")
    ///     .errors(["Reached maximum budget ($0.01)"])
    ///     .cost_usd(0.011);
    /// let script = Script::new().emit_result_with(over_budget).expect_eof().exit(1);
    /// # let _ = script;
    /// ```
    pub fn error(subtype: &str) -> Self {
        let terminal_reason = match subtype {
            "error_max_turns" => Some("max_turns"),
            "error_during_execution" => Some("aborted_tools"),
            "error_max_budget_usd" => Some("budget_exhausted"),
            "error_max_structured_output_retries" => Some("structured_output_retry_exhausted"),
            _ => None,
        };
        Self::new(subtype, true, terminal_reason)
    }

    /// The result of a query stopped by its turn limit, as the CLI prints it for `--max-turns
    /// <max_turns>`: subtype `error_max_turns`, `errors: ["Reached maximum number of turns
    /// (<max_turns>)"]`, `terminal_reason: max_turns`, `num_turns: <max_turns>`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, Script};
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .emit_result_with(FakeResult::error_max_turns(1))
    ///     .expect_eof()
    ///     .exit(1);
    /// # let _ = script;
    /// ```
    pub fn error_max_turns(max_turns: u32) -> Self {
        Self::error("error_max_turns")
            .errors([format!("Reached maximum number of turns ({max_turns})")])
            .num_turns(max_turns)
    }

    /// The result of a turn that failed while running, e.g. interrupted during a tool call
    /// (subtype `error_during_execution`, `terminal_reason: aborted_tools`, no `errors`).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, Script};
    /// let interrupted = FakeResult::error_during_execution().errors(["Request interrupted"]);
    /// let script = Script::new().emit_result_with(interrupted);
    /// # let _ = script;
    /// ```
    pub fn error_during_execution() -> Self {
        Self::error("error_during_execution")
    }

    /// A turn whose API call failed, as the CLI reports it: subtype `success` with
    /// `is_error: true`, `api_error_status: <status>`, `terminal_reason: api_error` and the text
    /// `API Error: <status> <message>`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, Script};
    /// let script = Script::new()
    ///     .emit_result_with(FakeResult::api_error(400, "prompt is too long"))
    ///     .expect_eof()
    ///     .exit(1);
    /// # let _ = script;
    /// ```
    pub fn api_error(status: u16, message: &str) -> Self {
        Self {
            result: Some(format!("API Error: {status} {message}")),
            api_error_status: Some(status),
            ..Self::new("success", true, Some("api_error"))
        }
    }

    /// `total_cost_usd` (and the model's `costUSD`): as the real CLI reports it, the cost of the
    /// whole session so far, so a later turn's result gives the sum of every turn's.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// let result = FakeResult::success("ok").cost_usd(1.5);
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn cost_usd(mut self, usd: f64) -> Self {
        self.cost_usd = Some(usd);
        self
    }

    /// `usage.input_tokens` and `usage.output_tokens` (and the model's `inputTokens` and
    /// `outputTokens`).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// let result = FakeResult::success("ok").usage(1_000, 250);
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Some((input_tokens, output_tokens));
        self
    }

    /// `num_turns`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// let result = FakeResult::success("ok").num_turns(4);
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn num_turns(mut self, turns: u32) -> Self {
        self.num_turns = Some(turns);
        self
    }

    /// `duration_ms` (`duration_api_ms` is lowered to it if the canned one is larger).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// let result = FakeResult::success("ok").duration_ms(2_500);
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn duration_ms(mut self, ms: u64) -> Self {
        self.duration_ms = Some(ms);
        self
    }

    /// `session_id`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// let result = FakeResult::success("ok").session_id("my-session");
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn session_id(mut self, session_id: &str) -> Self {
        self.session_id = Some(session_id.to_owned());
        self
    }

    /// `is_error`, whatever the subtype says.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// // A success subtype that still reports failure.
    /// let result = FakeResult::success("partly done").is_error(true);
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn is_error(mut self, is_error: bool) -> Self {
        self.is_error = is_error;
        self
    }

    /// Adds messages to `errors` (printed only for error subtypes).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// let result = FakeResult::error_during_execution().errors(["tool crashed", "gave up"]);
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn errors<S: Into<String>>(mut self, errors: impl IntoIterator<Item = S>) -> Self {
        self.errors.extend(errors.into_iter().map(Into::into));
        self
    }

    /// `terminal_reason` (why the loop ended: `completed`, `max_turns`, `aborted_streaming`, …).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::FakeResult;
    /// let result = FakeResult::error_during_execution().terminal_reason("aborted_streaming");
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn terminal_reason(mut self, reason: &str) -> Self {
        self.terminal_reason = Some(reason.to_owned());
        self
    }

    /// Adds a denied tool call to `permission_denials` (the CLI lists each tool call the turn was
    /// refused).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeResult, ToolUse};
    /// use serde_json::json;
    /// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls -la /"}));
    /// let result = FakeResult::success("I was not allowed to list /").permission_denial(&ls);
    /// # let _ = result;
    /// ```
    #[must_use]
    pub fn permission_denial(mut self, tool_use: &ToolUse) -> Self {
        self.permission_denials.push(json!({
            "tool_name": tool_use.name, "tool_use_id": tool_use.id, "tool_input": tool_use.input,
        }));
        self
    }

    /// The message, numbered `uuid_n` like the other canned ones.
    pub(crate) fn to_json(&self, uuid_n: u64) -> Value {
        let mut msg = canned::result_success(self.result.as_deref().unwrap_or_default(), uuid_n);
        let fields = msg.as_object_mut().expect("the template is an object");
        fields.insert("subtype".into(), json!(self.subtype));
        fields.insert("is_error".into(), json!(self.is_error));
        if self.subtype != "success" {
            for key in SUCCESS_ONLY {
                fields.remove(key);
            }
            fields.insert("errors".into(), json!(self.errors));
            fields.insert("stop_reason".into(), Value::Null);
        }
        if let Some(text) = &self.result {
            fields.insert("result".into(), json!(text));
        }
        if let Some(status) = self.api_error_status {
            fields.insert("api_error_status".into(), json!(status));
        }
        match &self.terminal_reason {
            Some(reason) => fields.insert("terminal_reason".into(), json!(reason)),
            None => fields.remove("terminal_reason"),
        };
        if let Some(turns) = self.num_turns {
            fields.insert("num_turns".into(), json!(turns));
        }
        if let Some(ms) = self.duration_ms {
            fields.insert("duration_ms".into(), json!(ms));
            let api_ms = fields["duration_api_ms"].as_u64().unwrap_or(ms).min(ms);
            fields.insert("duration_api_ms".into(), json!(api_ms));
        }
        if let Some(id) = &self.session_id {
            fields.insert("session_id".into(), json!(id));
        }
        if !self.permission_denials.is_empty() {
            fields.insert("permission_denials".into(), json!(self.permission_denials));
        }
        if let Some(usd) = self.cost_usd {
            msg["total_cost_usd"] = json!(usd);
            for key in MODEL_USAGE {
                msg[key][canned::MODEL]["costUSD"] = json!(usd);
            }
        }
        if let Some((input, output)) = self.usage {
            msg["usage"]["input_tokens"] = json!(input);
            msg["usage"]["output_tokens"] = json!(output);
            for key in MODEL_USAGE {
                msg[key][canned::MODEL]["inputTokens"] = json!(input);
                msg[key][canned::MODEL]["outputTokens"] = json!(output);
            }
        }
        msg
    }
}
