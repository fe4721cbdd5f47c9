//! Reply rules: "when a main-conversation request looks like this, answer that", plus the
//! ready-made convention rule set the project's recordings of the real CLI were made with.

use std::fmt;
use std::sync::Arc;

use serde_json::json;

use super::{RecordedRequest, Reply};

/// How many characters of a tool result the `done: …` convention reply repeats (as recorded).
const DONE_PREVIEW_CHARS: usize = 60;

type Matcher = Arc<dyn Fn(&RecordedRequest) -> bool + Send + Sync>;
type Responder = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

/// A reply rule for main-conversation Messages calls (see
/// [`RecordedRequest::is_main_conversation`]); side requests never match rules.
///
/// ```
/// use claude_agent_testkit::stub_api::{Reply, Rule};
/// let rule = Rule::when_last_user_contains("hello").reply(Reply::text("hi"));
/// let once = Rule::after_tool_result().reply(Reply::text("thanks")).once();
/// # let _ = (rule, once);
/// ```
///
/// Rules are checked in the order they were added; the first that matches answers:
///
/// ```
/// use claude_agent_testkit::stub_api::{Reply, Rule, StubApi};
/// use serde_json::json;
///
/// let stub = StubApi::start();
/// // Turns that mention a file read it first…
/// stub.add_rule(Rule::when(|req| req.last_user_text().is_some_and(|t| t.contains(".rs")))
///     .reply(Reply::tool_use("Read", json!({"file_path": "/tmp/ws/src/lib.rs"}))));
/// // …then report how long the file was:
/// stub.add_rule(Rule::after_tool_result().reply_with(|req| {
///     let lines = req.last_tool_result_text().unwrap_or_default().lines().count();
///     Reply::text(format!("src/lib.rs has {lines} lines"))
/// }));
/// // Everything else gets a fixed answer (instead of the default echo).
/// stub.add_rule(Rule::any().reply(Reply::text("Nothing to do.")));
/// ```
#[derive(Clone)]
pub struct Rule {
    matcher: Matcher,
    responder: Responder,
    once: bool,
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule")
            .field("once", &self.once)
            .finish_non_exhaustive()
    }
}

/// The condition half of a [`Rule`]; finish it with [`RuleBuilder::reply`] or
/// [`RuleBuilder::reply_with`].
///
/// ```
/// use claude_agent_testkit::stub_api::{Reply, Rule};
///
/// let fixed = Rule::when_last_user_contains("weather").reply(Reply::text("Sunny, 21 °C."));
/// let computed = Rule::when_last_user_contains("shout").reply_with(|req| {
///     Reply::text(req.last_user_text().unwrap_or_default().to_uppercase())
/// });
/// # let _ = (fixed, computed);
/// ```
#[must_use = "a rule needs a reply: call .reply() or .reply_with()"]
pub struct RuleBuilder {
    matcher: Matcher,
}

impl fmt::Debug for RuleBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuleBuilder").finish_non_exhaustive()
    }
}

impl Rule {
    /// Matches when the last user turn's text (see [`RecordedRequest::last_user_text`]) contains
    /// `needle`.
    pub fn when_last_user_contains(needle: impl Into<String>) -> RuleBuilder {
        let needle = needle.into();
        Self::when(move |req| {
            req.last_user_text()
                .is_some_and(|text| text.contains(&needle))
        })
    }

    /// Matches when what hooks told the model on this call (see
    /// [`RecordedRequest::hook_feedback`]) contains `needle`.
    ///
    /// ```
    /// use claude_agent_testkit::stub_api::{Reply, Rule, StubApi};
    ///
    /// let stub = StubApi::start();
    /// // A Stop hook that blocks with "say BANANA" gets its answer.
    /// stub.add_rule(Rule::when_hook_feedback_contains("say BANANA").reply(Reply::text("BANANA")));
    /// ```
    pub fn when_hook_feedback_contains(needle: impl Into<String>) -> RuleBuilder {
        let needle = needle.into();
        Self::when(move |req| {
            req.hook_feedback()
                .is_some_and(|text| text.contains(&needle))
        })
    }

    /// Matches when the last user turn carries a `tool_result` (the CLI ran a tool and asks for
    /// the next step).
    pub fn after_tool_result() -> RuleBuilder {
        Self::when(|req| req.last_tool_result_text().is_some())
    }

    /// Matches every main-conversation call.
    pub fn any() -> RuleBuilder {
        Self::when(|_| true)
    }

    /// Matches when `predicate` returns true for the request.
    pub fn when(
        predicate: impl Fn(&RecordedRequest) -> bool + Send + Sync + 'static,
    ) -> RuleBuilder {
        RuleBuilder {
            matcher: Arc::new(predicate),
        }
    }

    /// Makes the rule apply to one request only; it is removed after its first match.
    #[must_use]
    pub fn once(mut self) -> Self {
        self.once = true;
        self
    }

    pub(crate) fn matches(&self, req: &RecordedRequest) -> bool {
        (self.matcher)(req)
    }

    pub(crate) fn is_once(&self) -> bool {
        self.once
    }

    pub(crate) fn respond(&self, req: &RecordedRequest) -> Reply {
        (self.responder)(req)
    }
}

impl RuleBuilder {
    /// Answers matching requests with this reply.
    pub fn reply(self, reply: Reply) -> Rule {
        self.reply_with(move |_| reply.clone())
    }

    /// Answers matching requests with a reply computed from the request.
    pub fn reply_with(self, f: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static) -> Rule {
        Rule {
            matcher: self.matcher,
            responder: Arc::new(f),
            once: false,
        }
    }
}

/// The answer when no queued reply and no rule applies: `echo: <last user text>`.
pub(crate) fn echo(req: &RecordedRequest) -> Reply {
    Reply::text(format!(
        "echo: {}",
        req.last_user_text().unwrap_or_default()
    ))
}

/// The answer to a side request (title generation, quota probe, summary…), which never takes
/// queued replies or rules: a short plain text.
pub(crate) fn side_reply(_req: &RecordedRequest) -> Reply {
    Reply::text("ok")
}

/// The user text of the last turn, trimmed, if it starts with `prefix`; the rest after it.
fn command_after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.trim().strip_prefix(prefix)
}

/// The convention rule set (in order):
///
/// 1. after a tool result → text `done: <first 60 chars of the result text>`;
/// 2. `BASH:<cmd>` → text `running` + a `Bash` tool_use `{"command": cmd, "description": "run"}`;
/// 3. `TOOL:<name>:<json>` → a tool_use of `name` with that JSON input (a text naming the
///    problem if the JSON does not parse);
///
/// and anything else falls through to the default `echo: <last user text>`.
///
/// ```
/// use claude_agent_testkit::stub_api::{conventions, Reply, Rule, StubApi};
///
/// // The conventions, plus one rule of the test's own after them.
/// let stub = StubApi::start();
/// for rule in conventions() {
///     stub.add_rule(rule);
/// }
/// stub.add_rule(Rule::when_last_user_contains("status?").reply(Reply::text("all green")));
/// ```
pub fn conventions() -> Vec<Rule> {
    vec![
        Rule::after_tool_result().reply_with(|req| {
            let result = req.last_tool_result_text().unwrap_or_default();
            let preview: String = result.chars().take(DONE_PREVIEW_CHARS).collect();
            Reply::text(format!("done: {preview}"))
        }),
        Rule::when(|req| {
            req.last_user_text()
                .is_some_and(|t| command_after(&t, "BASH:").is_some())
        })
        .reply_with(|req| {
            let text = req.last_user_text().unwrap_or_default();
            let command = command_after(&text, "BASH:").unwrap_or_default();
            Reply::tool_use("Bash", json!({"command": command, "description": "run"}))
                .with_leading_text("running")
        }),
        Rule::when(|req| {
            req.last_user_text()
                .is_some_and(|t| command_after(&t, "TOOL:").is_some())
        })
        .reply_with(|req| {
            let text = req.last_user_text().unwrap_or_default();
            let spec = command_after(&text, "TOOL:").unwrap_or_default();
            let Some((name, input)) = spec.split_once(':') else {
                return Reply::text(format!("bad TOOL spec (want TOOL:<name>:<json>): {spec}"));
            };
            match serde_json::from_str(input) {
                Ok(input) => Reply::tool_use(name, input),
                Err(e) => Reply::text(format!("bad TOOL json for {name}: {e}")),
            }
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stub_api::reply::{Block, ReplyKind};
    use serde_json::{json, Value};

    fn main_req(messages: Value) -> RecordedRequest {
        let body = json!({"tools":[{"name":"Bash"}],"messages":messages});
        RecordedRequest::new(
            "POST",
            "/v1/messages",
            vec![],
            body.to_string().into_bytes(),
        )
    }

    fn first_match(rules: &[Rule], req: &RecordedRequest) -> Reply {
        rules
            .iter()
            .find(|r| r.matches(req))
            .map_or_else(|| echo(req), |r| r.respond(req))
    }

    #[test]
    fn conventions_cover_bash_tool_done_and_echo() {
        let rules = conventions();
        let bash = first_match(
            &rules,
            &main_req(json!([{"role":"user","content":"BASH:echo hi"}])),
        );
        assert_eq!(
            bash,
            Reply::tool_use("Bash", json!({"command":"echo hi","description":"run"}))
                .with_leading_text("running")
        );
        let tool = first_match(
            &rules,
            &main_req(
                json!([{"role":"user","content":"TOOL:mcp__calc__add:{\"a\": 2, \"b\": 40}"}]),
            ),
        );
        assert_eq!(
            tool,
            Reply::tool_use("mcp__calc__add", json!({"a":2,"b":40}))
        );
        let long = "x".repeat(100);
        let done = first_match(
            &rules,
            &main_req(json!([{"role":"user","content":[
                {"type":"tool_result","tool_use_id":"t","content":long}]}])),
        );
        assert_eq!(done, Reply::text(format!("done: {}", "x".repeat(60))));
        let echo = first_match(
            &rules,
            &main_req(json!([{"role":"user","content":"hello"}])),
        );
        assert_eq!(echo, Reply::text("echo: hello"));
        let bad = first_match(
            &rules,
            &main_req(json!([{"role":"user","content":"TOOL:x:{"}])),
        );
        assert!(matches!(&bad.kind, ReplyKind::Message { blocks, .. }
            if matches!(&blocks[0], Block::Text(t) if t.starts_with("bad TOOL json"))));
    }

    #[test]
    fn contains_rule_matches_only_its_text() {
        let rule = Rule::when_last_user_contains("hello").reply(Reply::text("hi"));
        assert!(rule.matches(&main_req(json!([{"role":"user","content":"say hello"}]))));
        assert!(!rule.matches(&main_req(json!([{"role":"user","content":"bye"}]))));
        assert!(!rule.is_once() && rule.clone().once().is_once());
    }
}
