//! Recordings of real CLI sessions: one JSON object per line, `{"dir":"in"|"out","msg":…}`, where
//! `in` is what was written to the CLI's stdin and `out` what it printed.
//!
//! A [`Recording`] lets a test drive a [`crate::session::Session`] the way the recorded session
//! went, with no process: its [`Recording::session_config`] declares the hooks, in-process MCP
//! servers and permission callback the recording used, and [`Recording::answer_to`] gives the
//! answer the recording wrote to each request the CLI made. [`Recording::replay`] feeds it step
//! by step to a host's code; [`Recording::play`] is a whole host of its own: it answers the CLI's
//! requests by a rule, ends the session as a host does, and checks the answers against the
//! recorded ones ([`Played`]).
//!
//! ```
//! use claude_agent_core::recording::{Direction, Recording};
//!
//! let text = r#"{"dir":"in","msg":{"type":"control_request","request_id":"r1","request":{"subtype":"initialize","hooks":null}}}
//! {"dir":"out","msg":{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{}}}}"#;
//! let recording = Recording::parse(text).unwrap();
//! assert_eq!(recording.lines().len(), 2);
//! assert_eq!(recording.lines()[1].direction, Direction::FromCli);
//! ```

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::control::{ControlRequest, RequestId};
use crate::hooks::HookEvent;
use crate::mcp::{McpServerSpec, ToolSpec};
use crate::message::{InputBlock, UserInput};
use crate::session::{HookMatcherConfig, InputMode, Session, SessionConfig};
use crate::Json;

pub use crate::redact::{redact_secrets, REDACTED};
pub use pace::{Pace, Pieces};
pub use play::{DifferentAnswer, Played};

mod pace;
mod play;

/// Which way a recorded line went.
///
/// ```
/// use claude_agent_core::recording::{Direction, Recording};
///
/// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/tool_bash.jsonl"));
/// let recording = Recording::parse(text).unwrap();
/// let (mut written, mut printed) = (0, 0);
/// for line in recording.lines() {
///     match line.direction {
///         Direction::ToCli => written += 1,
///         Direction::FromCli => printed += 1,
///         _ => {}
///     }
/// }
/// assert_eq!((written, printed), (2, recording.cli_output().count()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Direction {
    /// Written to the CLI's stdin.
    ToCli,
    /// Printed by the CLI on stdout.
    FromCli,
}

/// One recorded line.
///
/// ```
/// use claude_agent_core::recording::{Direction, Recording};
///
/// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/hello.jsonl"));
/// let recording = Recording::parse(text).unwrap();
/// let written: Vec<&str> = recording
///     .lines()
///     .iter()
///     .filter(|line| line.direction == Direction::ToCli)
///     .map(|line| line.json.as_str())
///     .collect();
/// assert!(written[1].contains(r#""content":"hello there""#));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RecordedLine {
    /// Which way it went.
    pub direction: Direction,
    /// The message, as recorded.
    pub json: Json,
}

/// A parsed recording. See the [module docs](self).
///
/// A recorded session with a `PreToolUse` hook, replayed as a test: the hook callback is
/// answered with what the recording answered, and the turn ends as it did.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_core::control::{InboundKind, Reply};
/// use claude_agent_core::message::Message;
/// use claude_agent_core::recording::{Pace, Recording};
/// use claude_agent_core::session::{Event, InputMode, Session};
///
/// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/hook_deny.jsonl"));
/// let recording = Recording::parse(text).unwrap();
/// let config = recording.session_config(InputMode::Streaming);
/// assert_eq!(config.hooks[0].matcher.as_deref(), Some("Bash"));
///
/// let pace = Pace::new(Instant::now());
/// let mut session = Session::new(config, pace.start);
/// let mut result = None;
/// recording.replay(&mut session, &pace, |s, now| {
///     while let Some(event) = s.poll_event() {
///         match event {
///             Event::Inbound(request) => {
///                 assert!(matches!(request.kind, InboundKind::HookCallback(_)));
///                 let answer = recording.answer_to(&request.wire_id).expect("answered in the recording");
///                 s.respond(now, request.id, Reply::Raw(answer.to_owned())).unwrap();
///             }
///             Event::Message(Message::Result(r)) => result = r.result,
///             _ => {}
///         }
///     }
///     while s.poll_transmit().is_some() {}
/// });
/// assert_eq!(result.as_deref(), Some("done: PreToolUse:Bash hook error: hook says no"));
///
/// // The CLI's side alone, e.g. to check a parser against every line:
/// let printed = recording.cli_output().filter(|line| Message::parse(line.as_str()).is_ok()).count();
/// assert_eq!(printed, recording.cli_output().count());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Recording {
    lines: Vec<RecordedLine>,
    answers: HashMap<String, Json>,
}

/// A recording line that could not be read.
///
/// ```
/// use claude_agent_core::recording::Recording;
///
/// let text = "{\"dir\":\"in\",\"msg\":{\"type\":\"user\"}}\n{\"dir\":\"sideways\",\"msg\":{}}\n";
/// let error = Recording::parse(text).unwrap_err();
/// assert_eq!(error.line, 2);
/// assert_eq!(error.error, r#"unknown direction "sideways""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("recording line {line}: {error}")]
#[non_exhaustive]
pub struct RecordingError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub error: String,
}

#[derive(Deserialize)]
struct Line<'a> {
    dir: &'a str,
    #[serde(borrow)]
    msg: &'a RawValue,
}

#[derive(Deserialize)]
struct Answer {
    #[serde(rename = "type")]
    ty: String,
    response: Option<AnswerBody>,
}

#[derive(Deserialize)]
struct AnswerBody {
    request_id: String,
    response: Option<Json>,
}

/// The recorded user message as a [`UserInput`] (text or content blocks, uuid, session id).
/// A replay's clock.
struct Clock {
    now: Instant,
    step: Duration,
}

impl Clock {
    /// One step: the clock moves, and the session is handed the time if a deadline fell due.
    fn tick(&mut self, session: &mut Session) -> Instant {
        self.now += self.step;
        if session.poll_timeout().is_some_and(|due| due <= self.now) {
            session.handle_timeout(self.now);
        }
        self.now
    }

    /// Feed what the CLI printed, in the pieces `cutter` cuts, a step each.
    fn feed(
        &mut self,
        session: &mut Session,
        cutter: &mut pace::Cutter,
        printed: &mut String,
        after_step: &mut impl FnMut(&mut Session, Instant),
    ) {
        let bytes = printed.as_bytes();
        let mut at = 0;
        for length in cutter.cut(bytes) {
            let now = self.tick(session);
            session.handle_stdout(now, &bytes[at..at + length]);
            at += length;
            after_step(session, now);
        }
        printed.clear();
    }
}

fn user_input(value: &Value) -> Option<UserInput> {
    let content = &value["message"]["content"];
    let mut input = match content {
        Value::String(text) => UserInput::text(text.clone()),
        Value::Array(blocks) => UserInput::blocks(
            blocks
                .iter()
                .filter_map(|b| Json::from_serialize(b).ok())
                .map(InputBlock::raw)
                .collect(),
        ),
        _ => return None,
    };
    if let Some(session_id) = value["session_id"].as_str() {
        input = input.with_session_id(session_id);
    }
    if let Some(uuid) = value["uuid"].as_str() {
        input = input.with_uuid(uuid);
    }
    if let Some(priority) = value["priority"].as_str() {
        input = input.with_priority(priority);
    }
    if value["client_composed"] == true {
        input = input.with_client_composed(true);
    }
    if value["shouldQuery"] == false {
        input = input.with_should_query(false);
    }
    Some(input)
}

/// The recorded control request, sent as is.
fn control_request(request: &Value) -> Option<ControlRequest> {
    let subtype = request["subtype"].as_str()?.to_owned();
    let mut body = request.as_object()?.clone();
    body.remove("subtype");
    Some(ControlRequest::Raw {
        subtype,
        body: Json::from_serialize(&body).ok()?,
    })
}

#[derive(Deserialize)]
struct InitializeRequest {
    request: InitializeBody,
}

#[derive(Deserialize)]
struct InitializeBody {
    #[serde(rename = "subtype")]
    _subtype: InitializeSubtype,
    hooks: Option<OrderedHooks>,
}

#[derive(Deserialize)]
enum InitializeSubtype {
    #[serde(rename = "initialize")]
    Initialize,
}

#[derive(Deserialize)]
struct RecordedMatcher {
    matcher: Option<String>,
    #[serde(rename = "hookCallbackIds", default)]
    ids: Vec<String>,
    timeout: Option<f64>,
}

/// The `hooks` object of an initialize request, in the order it was written.
struct OrderedHooks(Vec<(String, Vec<RecordedMatcher>)>);

impl<'de> Deserialize<'de> for OrderedHooks {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = OrderedHooks;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of hook events to matchers")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OrderedHooks, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(OrderedHooks(entries))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

impl Recording {
    /// Parse a recording. Lines that are plain JSON objects without `dir`/`msg` are taken as CLI
    /// output, so a capture of the CLI's stdout alone is a recording too. Blank lines are skipped.
    pub fn parse(text: &str) -> Result<Recording, RecordingError> {
        let mut recording = Recording::default();
        for (index, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let bad = |error: String| RecordingError {
                line: index + 1,
                error,
            };
            let (direction, json) = match serde_json::from_str::<Line<'_>>(line) {
                Ok(Line { dir: "in", msg }) => (Direction::ToCli, Json::from(msg.to_owned())),
                Ok(Line { dir: "out", msg }) => (Direction::FromCli, Json::from(msg.to_owned())),
                Ok(Line { dir, .. }) => return Err(bad(format!("unknown direction {dir:?}"))),
                Err(_) => match Json::try_from(line.to_owned()) {
                    Ok(raw) => (Direction::FromCli, raw),
                    Err(e) => return Err(bad(e.to_string())),
                },
            };
            if direction == Direction::ToCli {
                if let Ok(Answer {
                    ty,
                    response: Some(body),
                }) = serde_json::from_str(json.as_str())
                {
                    if ty == "control_response" {
                        if let Some(answer) = body.response {
                            recording.answers.insert(body.request_id, answer);
                        }
                    }
                }
            }
            recording.lines.push(RecordedLine { direction, json });
        }
        Ok(recording)
    }

    /// Every line, in order.
    pub fn lines(&self) -> &[RecordedLine] {
        &self.lines
    }

    /// The lines the CLI printed, in order.
    pub fn cli_output(&self) -> impl Iterator<Item = &Json> {
        self.lines
            .iter()
            .filter(|l| l.direction == Direction::FromCli)
            .map(|l| &l.json)
    }

    /// The success body the recording answered the CLI's request `wire_id` with.
    pub fn answer_to(&self, wire_id: &str) -> Option<&Json> {
        self.answers.get(wire_id)
    }

    /// Drive `session` (made from [`Recording::session_config`], at `pace.start`) through the
    /// recording, in order: what the host wrote is sent again (user messages with `send_user`,
    /// control requests other than `initialize` with `request`), and what the CLI printed is
    /// fed to `handle_stdout` in the pieces `pace` cuts, with the ids of answers to our requests
    /// rewritten to the ids the session gave out. The clock moves by `pace.step` at every step,
    /// and the session is handed the time when a deadline of its falls due. `after_step` runs
    /// after every write and every piece fed, with the time: drain `poll_event` (answering
    /// inbound requests, e.g. from [`Recording::answer_to`]) and `poll_transmit` there.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use claude_agent_core::recording::{Pace, Pieces, Recording};
    /// use claude_agent_core::session::{Event, InputMode, Session};
    ///
    /// let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts/hello.jsonl"));
    /// let recording = Recording::parse(text).unwrap();
    ///
    /// // Everything the session does, for a pace: the same recording cut any way gives the same.
    /// let run = |pace: Pace| {
    ///     let mut session = Session::new(recording.session_config(InputMode::Streaming), pace.start);
    ///     let mut events = Vec::new();
    ///     recording.replay(&mut session, &pace, |s, _now| {
    ///         events.extend(std::iter::from_fn(|| s.poll_event()));
    ///         while s.poll_transmit().is_some() {}
    ///     });
    ///     events
    /// };
    /// let start = Instant::now();
    /// let whole = run(Pace::new(start));
    /// assert_eq!(whole.iter().filter(|e| matches!(e, Event::Message(_))).count(), 3); // init, assistant, result
    /// let ragged = Pace {
    ///     step: Duration::from_millis(1),
    ///     pieces: Pieces::Random { seed: 42, longest: 9 },
    ///     ..Pace::new(start)
    /// };
    /// assert_eq!(run(ragged), whole);
    /// ```
    pub fn replay(
        &self,
        session: &mut Session,
        pace: &Pace,
        mut after_step: impl FnMut(&mut Session, Instant),
    ) {
        let mut clock = Clock {
            now: pace.start,
            step: pace.step,
        };
        let mut cutter = pace::Cutter::new(pace.pieces);
        // (recorded request id, our id) for every request the host sent.
        let mut ours: Vec<(String, RequestId)> = Vec::new();
        // What the CLI printed since the host last wrote: fed before the host writes again.
        let mut printed = String::new();
        for recorded in &self.lines {
            let Ok(value) = serde_json::from_str::<Value>(recorded.json.as_str()) else {
                continue;
            };
            match recorded.direction {
                Direction::ToCli => {
                    clock.feed(session, &mut cutter, &mut printed, &mut after_step);
                    let now = clock.tick(session);
                    let sent = match value["type"].as_str() {
                        Some("user") => {
                            user_input(&value).map(|msg| session.send_user(now, msg).is_ok())
                        }
                        Some("control_request") => {
                            let recorded_id =
                                value["request_id"].as_str().unwrap_or_default().to_owned();
                            let id = if value["request"]["subtype"] == "initialize" {
                                Some(session.initialize_id())
                            } else {
                                control_request(&value["request"])
                                    .and_then(|req| session.request(now, req).ok())
                            };
                            id.map(|id| {
                                ours.push((recorded_id, id));
                                true
                            })
                        }
                        _ => None, // Answers to the CLI are made by the caller, on Inbound events.
                    };
                    if sent == Some(true) {
                        after_step(session, now);
                    }
                }
                Direction::FromCli => {
                    let answered = value["response"]["request_id"].as_str();
                    match ours
                        .iter()
                        .find(|(recorded_id, _)| Some(recorded_id.as_str()) == answered)
                    {
                        Some((_, id)) if value["type"] == "control_response" => {
                            let mut rewritten = value.clone();
                            rewritten["response"]["request_id"] = Value::String(id.to_string());
                            printed.push_str(&rewritten.to_string());
                        }
                        _ => printed.push_str(recorded.json.as_str()),
                    }
                    printed.push('\n');
                }
            }
        }
        clock.feed(session, &mut cutter, &mut printed, &mut after_step);
    }

    /// A session configuration matching the recording: the hooks and in-process MCP servers of
    /// its `initialize` request (tools as its `tools/list` answer listed them), and the permission
    /// callback if the CLI asked `can_use_tool`.
    pub fn session_config(&self, input: InputMode) -> SessionConfig {
        let mut config = SessionConfig::new(input);
        let values: Vec<(Direction, Value)> = self
            .lines
            .iter()
            .filter_map(|l| {
                serde_json::from_str(l.json.as_str())
                    .ok()
                    .map(|v| (l.direction, v))
            })
            .collect();
        let init = values
            .iter()
            .find(|(d, v)| *d == Direction::ToCli && v["request"]["subtype"] == "initialize")
            .map(|(_, v)| &v["request"]);
        // Hook ids are handed out in order, so the events must keep the recording's order.
        let init_raw = self
            .lines
            .iter()
            .filter(|l| l.direction == Direction::ToCli)
            .find_map(|l| serde_json::from_str::<InitializeRequest>(l.json.as_str()).ok());
        for (event, matchers) in init_raw
            .and_then(|i| i.request.hooks)
            .map(|h| h.0)
            .unwrap_or_default()
        {
            for m in matchers {
                let mut matcher =
                    HookMatcherConfig::new(HookEvent::from_name(&event), m.matcher, m.ids.len());
                matcher.timeout_secs = m.timeout;
                config.hooks.push(matcher);
            }
        }
        // Every other field of the recorded `initialize` (system prompt, MCP servers, agents…)
        // goes out again as it was.
        if let Some(recorded) = init.and_then(Value::as_object) {
            let fields: serde_json::Map<String, Value> = recorded
                .iter()
                .filter(|(name, _)| *name != "subtype" && *name != "hooks")
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            if !fields.is_empty() {
                config.initialize_fields = Json::from_serialize(&fields).ok();
            }
        }
        if let Some(servers) = init.and_then(|i| i["sdkMcpServers"].as_array()) {
            let tools = values
                .iter()
                .filter(|(d, _)| *d == Direction::ToCli)
                .find_map(|(_, v)| {
                    v["response"]["response"]["mcp_response"]["result"]["tools"].as_array()
                });
            for name in servers.iter().filter_map(Value::as_str) {
                let mut server = McpServerSpec::new(name, "1.0.0");
                for tool in tools.into_iter().flatten() {
                    let (Some(tool_name), Ok(schema)) = (
                        tool["name"].as_str(),
                        Json::from_serialize(&tool["inputSchema"]),
                    ) else {
                        continue;
                    };
                    let description = tool["description"].as_str().unwrap_or_default();
                    server = server.tool(ToolSpec::new(tool_name, description, schema));
                }
                config.mcp_servers.push(server);
            }
        }
        config.can_use_tool = values
            .iter()
            .any(|(d, v)| *d == Direction::FromCli && v["request"]["subtype"] == "can_use_tool");
        config.elicitation = values
            .iter()
            .any(|(d, v)| *d == Direction::FromCli && v["request"]["subtype"] == "elicitation");
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Recording {
        let path = format!("{}/tests/transcripts/{name}", env!("CARGO_MANIFEST_DIR"));
        Recording::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn config_of_the_hooks_recording_declares_its_four_hooks() {
        let config = fixture("hooks.jsonl").session_config(InputMode::Streaming);
        let events: Vec<&str> = config.hooks.iter().map(|h| h.event.as_str()).collect();
        assert_eq!(
            events,
            ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"]
        );
        assert_eq!(config.hooks[0].matcher.as_deref(), Some("Bash"));
        assert!(!config.can_use_tool);
    }

    #[test]
    fn config_of_the_mcp_recording_declares_calc_with_its_tool() {
        let recording = fixture("sdk_mcp.jsonl");
        let config = recording.session_config(InputMode::SingleTurn);
        assert_eq!(config.mcp_servers.len(), 1);
        assert_eq!(config.mcp_servers[0].name, "calc");
        assert_eq!(config.mcp_servers[0].tools[0].name, "add");
        assert!(config.can_use_tool);
        assert_eq!(
            config.initialize_fields.unwrap().as_str(),
            r#"{"sdkMcpServers":["calc"]}"#
        );
        let answer = recording
            .answer_to("adc7bdd8-dc59-4636-8436-ff54812be869")
            .unwrap();
        assert_eq!(
            answer.as_str(),
            r#"{"behavior":"allow","updatedInput":{"a":2,"b":40}}"#
        );
    }

    #[test]
    fn plain_stdout_lines_are_cli_output_and_bad_lines_are_errors() {
        let recording =
            Recording::parse("{\"type\":\"x\"}\n\n{\"dir\":\"out\",\"msg\":{}}\n").unwrap();
        assert_eq!(recording.cli_output().count(), 2);
        let err = Recording::parse("{\"type\":\"x\"}\nnot json\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(Recording::parse(r#"{"dir":"sideways","msg":{}}"#).is_err());
    }
}
