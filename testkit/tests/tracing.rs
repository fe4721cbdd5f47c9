//! What a session reports through `tracing` (the SDK's `tracing` feature): one session over the
//! in-memory fake CLI on the [`TestRuntime`], seen by a subscriber that keeps every span and
//! event, with a permission prompt, hooks (one panics), an in-process tool call, a withdrawn
//! request, control requests of ours (one refused), stderr, a bad line, a tool the CLI refused
//! and a shutdown that needs `SIGTERM`.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

use claude_agent_core::client::{tool, Client, SdkMcpServer};
use claude_agent_core::hooks::{HookEvent, HookOutput};
use claude_agent_core::mcp::ToolResult;
use claude_agent_core::options::Options;
use claude_agent_core::permission::PermissionResult;
use claude_agent_testkit::fake_cli::{Answer, Script, ToolUse};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::FakeTransport;
use futures_lite::StreamExt;
use serde_json::{json, Value};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// Field values as text.
type Fields = BTreeMap<String, String>;

/// An event as the subscriber saw it.
#[derive(Debug, Clone)]
struct Seen {
    name: String,
    level: Level,
    target: String,
    fields: Fields,
    /// The span the event was in, and that span's fields at that moment.
    span: Option<(String, Fields)>,
}

#[derive(Default)]
struct Log {
    /// Spans by id: name and fields as recorded so far.
    spans: HashMap<u64, (String, Fields)>,
    events: Vec<Seen>,
}

/// A layer that keeps every span and event.
#[derive(Clone, Default)]
struct Keep(Arc<Mutex<Log>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Keep {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _ctx: Context<'_, S>) {
        let mut fields = Fields::new();
        attrs.record(&mut Text(&mut fields));
        let name = attrs.metadata().name().to_owned();
        self.0
            .lock()
            .unwrap()
            .spans
            .insert(id.into_u64(), (name, fields));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut log = self.0.lock().unwrap();
        if let Some((_, fields)) = log.spans.get_mut(&id.into_u64()) {
            values.record(&mut Text(fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::new();
        event.record(&mut Text(&mut fields));
        let mut log = self.0.lock().unwrap();
        let span = ctx
            .event_span(event)
            .and_then(|span| log.spans.get(&span.id().into_u64()).cloned());
        let metadata = event.metadata();
        log.events.push(Seen {
            name: metadata.name().to_owned(),
            level: *metadata.level(),
            target: metadata.target().to_owned(),
            fields,
            span,
        });
    }
}

struct Text<'a>(&'a mut Fields);

impl Visit for Text<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

fn pre_tool_use() -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "sess-1", "transcript_path": "/t",
        "cwd": "/w", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"})
}

fn stop() -> Value {
    json!({"hook_event_name": "Stop", "session_id": "sess-1", "transcript_path": "/t",
        "cwd": "/w", "stop_hook_active": false})
}

fn permission_denied(tool: &str, n: u32) -> Value {
    json!({"type": "system", "subtype": "permission_denied", "tool_name": tool,
        "tool_use_id": format!("toolu_d{n}"), "session_id": "sess-1", "uuid": format!("u-d{n}"),
        "message": format!("Claude requested permissions to use {tool}, but you haven't granted it yet.")})
}

/// Runs the session and returns what the subscriber saw.
fn traced_session() -> Log {
    let add = ToolUse::mcp("toolu_2", "calc", "add", json!({"a": 2, "b": 40}));
    let script = Script::new()
        .answer_initialize()
        .emit_json(
            &json!({"type": "system", "subtype": "init", "session_id": "sess-1",
            "model": "claude-test-model", "tools": [], "mcp_servers": [], "uuid": "u-1"}),
        )
        .expect_user()
        .stderr("warming up\n")
        .can_use_tool("p1", "Bash", json!({"command": "ls"}))
        .hook_callback("h1", "hook_0", pre_tool_use())
        .hook_callback("h2", "hook_1", stop())
        .call_tool("m1", &add)
        .send_request(
            "p2",
            json!({"subtype": "can_use_tool", "tool_name": "Slow", "input": {},
                "tool_use_id": "toolu_3"}),
        )
        .cancel("p2")
        // Refused by the CLI's own rules: an in-process tool `allowed_tools` does not list (the
        // one warning), one it lists (refused for another reason), and a built-in tool.
        .emit_json(&permission_denied("mcp__calc__add", 1))
        .emit_json(&permission_denied("mcp__calc__sub", 2))
        .emit_json(&permission_denied("Bash", 3))
        .emit_garbage()
        .expect_request_as("set_model", "model")
        .respond("model", Answer::error("no such model"))
        .emit_result("done")
        // Ignores the end of stdin: the SDK has to send SIGTERM.
        .hang();
    let fake = FakeTransport::new(script);
    let calc = SdkMcpServer::new("calc", "1.0.0").tool(tool(
        "add",
        "Add two integers",
        json!({"type": "object"}),
        |_args: Value| async { Ok::<_, String>(ToolResult::text("42")) },
    ));
    let options = Options::new()
        .transport(fake.clone())
        .sdk_mcp_server(calc)
        .allowed_tools(["Read", "mcp__calc__sub"])
        .can_use_tool(|request, _ctx| async move {
            tracing::info!(tool = request.tool_name.as_str(), "the app decides");
            if request.tool_name == "Slow" {
                futures_lite::future::pending::<()>().await;
            }
            PermissionResult::allow()
        })
        .hook(HookEvent::PreToolUse, None, |_input, _id, _ctx| async {
            HookOutput::proceed()
        })
        .hook(HookEvent::Stop, None, |_input, _id, _ctx| async {
            panic!("the stop hook broke")
        });

    let keep = Keep::default();
    let subscriber = tracing_subscriber::registry().with(keep.clone());
    let runtime = TestRuntime::new();
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async {
            let client = Client::connect_with(runtime.clone(), options)
                .await
                .expect("connected");
            client.send("go").await.expect("sent");
            let refused = client.set_model(Some("claude-nope")).await;
            assert!(refused.is_err(), "{refused:?}");
            let mut turn = client.receive_response();
            while let Some(item) = turn.next().await {
                let _ = item;
            }
            client.close().await;
        });
    });
    let log = std::mem::take(&mut *keep.0.lock().unwrap());
    log
}

/// The events of the SDK named `name`.
fn named<'a>(log: &'a Log, name: &str) -> Vec<&'a Seen> {
    log.events
        .iter()
        .filter(|e| e.name == name && e.target.starts_with("claude_agent_core"))
        .collect()
}

/// The one event named `name` whose fields include `with`.
fn one<'a>(log: &'a Log, name: &str, with: &[(&str, &str)]) -> &'a Seen {
    let found: Vec<_> = named(log, name)
        .into_iter()
        .filter(|e| {
            with.iter()
                .all(|(k, v)| e.fields.get(*k).map(String::as_str) == Some(*v))
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{name} with {with:?}: {found:#?}\nall: {:#?}",
        log.events
    );
    found[0]
}

#[test]
fn a_session_reports_its_span_and_events() {
    let log = traced_session();

    // One session span, named by the CLI's system/init; the fake has no process id.
    let sessions: Vec<_> = log
        .spans
        .values()
        .filter(|(name, _)| name == "session")
        .collect();
    assert_eq!(sessions.len(), 1, "{:?}", log.spans);
    let fields = &sessions[0].1;
    assert_eq!(fields.get("session_id").map(String::as_str), Some("sess-1"));
    assert_eq!(
        fields.get("model").map(String::as_str),
        Some("claude-test-model")
    );
    assert_eq!(fields.get("pid"), None);
    // Every event, the app's own in its callback included, happens inside it.
    for event in &log.events {
        let (span, _) = event
            .span
            .as_ref()
            .unwrap_or_else(|| panic!("outside the span: {event:?}"));
        assert_eq!(span, "session", "{event:?}");
    }

    let connect = one(&log, "connect", &[("program", "claude")]);
    assert_eq!(connect.level, Level::INFO);

    // Our control requests and their outcomes, timed on the runtime's (virtual) clock.
    for subtype in ["initialize", "mcp_status", "set_model"] {
        let sent = one(&log, "control_request", &[("subtype", subtype)]);
        assert_eq!(sent.level, Level::DEBUG);
        let id = &sent.fields["request_id"];
        assert!(id.starts_with("req_"), "{sent:?}");
        let done = one(&log, "control_response", &[("request_id", id)]);
        assert_eq!(done.fields["subtype"], subtype);
        assert!(done.fields.contains_key("duration_us"), "{done:?}");
    }
    let initialized = one(&log, "control_response", &[("subtype", "initialize")]);
    assert_eq!(
        (initialized.level, initialized.fields["ok"].as_str()),
        (Level::DEBUG, "true")
    );
    let refused = one(&log, "control_response", &[("subtype", "set_model")]);
    assert_eq!(
        (refused.level, refused.fields["ok"].as_str()),
        (Level::WARN, "false")
    );
    assert!(
        refused.fields["error"].contains("no such model"),
        "{refused:?}"
    );

    // The CLI's requests and their answers.
    let asked = one(&log, "cli_request", &[("request_id", "p1")]);
    assert_eq!(asked.fields["subtype"], "can_use_tool");
    assert_eq!(asked.fields["tool"], "Bash");
    let answer = one(&log, "cli_answer", &[("request_id", "p1")]);
    assert_eq!(
        (answer.level, answer.fields["reply"].as_str()),
        (Level::DEBUG, "allow")
    );

    let hook = one(&log, "cli_request", &[("request_id", "h1")]);
    assert_eq!(hook.fields["subtype"], "hook_callback");
    assert_eq!(hook.fields["callback_id"], "hook_0");
    assert_eq!(hook.fields["hook_event"], "PreToolUse");
    assert_eq!(
        one(&log, "cli_answer", &[("request_id", "h1")]).fields["reply"],
        "hook_output"
    );

    let failed = one(&log, "callback_error", &[("request_id", "h2")]);
    assert_eq!(failed.level, Level::WARN);
    assert_eq!(failed.fields["panicked"], "true");
    assert!(
        failed.fields["error"].contains("the stop hook broke"),
        "{failed:?}"
    );
    assert_eq!(
        one(&log, "cli_answer", &[("request_id", "h2")]).fields["reply"],
        "error"
    );

    let call = one(&log, "cli_request", &[("request_id", "m1")]);
    assert_eq!(call.fields["subtype"], "mcp_message");
    assert_eq!(call.fields["server"], "calc");
    assert_eq!(call.fields["method"], "tools/call");
    assert_eq!(call.fields["tool"], "add");
    assert_eq!(
        one(&log, "cli_answer", &[("request_id", "m1")]).fields["reply"],
        "tool_result"
    );

    let withdrawn = one(&log, "callback_cancelled", &[("request_id", "p2")]);
    assert_eq!(withdrawn.fields["running"], "true");
    assert!(named(&log, "cli_answer")
        .iter()
        .all(|e| e.fields["request_id"] != "p2"));

    // What the CLI printed that the SDK could not use, and its stderr.
    assert_eq!(named(&log, "line_error").len(), 1, "{:#?}", log.events);
    assert_eq!(named(&log, "line_error")[0].level, Level::WARN);
    let stderr = one(&log, "stderr", &[("message", "warming up")]);
    assert_eq!(
        (stderr.level, stderr.target.as_str()),
        (Level::DEBUG, "claude_agent_core::stderr")
    );

    // Only the in-process tool that `allowed_tools` leaves out is worth a warning.
    let tool_refused = named(&log, "tool_refused");
    assert_eq!(tool_refused.len(), 1, "{tool_refused:#?}");
    assert_eq!(tool_refused[0].level, Level::WARN);
    assert_eq!(tool_refused[0].fields["tool"], "mcp__calc__add");
    assert_eq!(tool_refused[0].fields["server"], "calc");

    // The shutdown: stdin closed, no exit, SIGTERM; the exit it caused.
    let signal = one(&log, "signal", &[("signal", "SIGTERM")]);
    assert_eq!(signal.level, Level::INFO);
    let exit = one(&log, "exit", &[]);
    assert_eq!(
        (exit.level, exit.fields["signal"].as_str()),
        (Level::INFO, "15")
    );

    // The app's event in its callback carries the session span, named by then.
    let app = log
        .events
        .iter()
        .find(|e| e.fields.get("message").map(String::as_str) == Some("the app decides"))
        .expect("the app's event");
    let (_, span_fields) = app.span.as_ref().unwrap();
    assert_eq!(
        span_fields.get("session_id").map(String::as_str),
        Some("sess-1")
    );
}
