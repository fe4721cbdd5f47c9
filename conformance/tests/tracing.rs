//! What a session reports through `tracing` (the SDK's `tracing` feature): one session over the
//! in-memory fake CLI on the [`TestRuntime`], seen by a subscriber that keeps every span and
//! event, with a permission prompt, hooks (one panics), an in-process tool call, a withdrawn
//! request, control requests of ours (one refused), stderr, a bad line, a tool the CLI refused
//! and a shutdown that needs `SIGTERM`; and a spare's start-up marks and claims.

use std::time::Duration;

use claude_agent_client::mcp::{tool, SdkMcpServer};
use claude_agent_client::Options;
use claude_agent_client::{connect_with, prewarm_with};
use claude_agent_conformance::trace_log;
use claude_agent_core::control::ClaimOptions;
use claude_agent_core::hooks::{HookEvent, HookOutput};
use claude_agent_core::mcp::ToolResult;
use claude_agent_core::permission::PermissionResult;
use claude_agent_testkit::fake_cli::{Answer, Script, ToolUse};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::FakeTransport;
use futures_lite::StreamExt;
use serde_json::{json, Value};
use tracing::Level;

use trace_log::{capture, named, one, session_span, Log};

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
    let wait = ToolUse::mcp("toolu_4", "calc", "wait", json!({}));
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
        // Past its 1 s limit: the session answers it.
        .call_tool("m2", &wait)
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
    let calc = SdkMcpServer::new("calc", "1.0.0")
        .tool(tool(
            "add",
            "Add two integers",
            json!({"type": "object"}),
            |_args: Value| async { Ok::<_, String>(ToolResult::text("42")) },
        ))
        .tool(
            tool(
                "wait",
                "Wait for ever",
                json!({"type": "object"}),
                |_args: Value| futures_lite::future::pending::<Result<ToolResult, String>>(),
            )
            .timeout(Duration::from_secs(1)),
        );
    let options = Options::new()
        .transport(fake.clone())
        .sdk_mcp_server(calc)
        .allowed_tools(["Read", "mcp__calc__sub"])
        .on_permission_request(|request, _ctx| async move {
            tracing::info!(tool = request.tool_name.as_str(), "the app decides");
            if request.tool_name == "Slow" {
                futures_lite::future::pending::<()>().await;
            }
            PermissionResult::allow()
        })
        .on_hook_event(HookEvent::PreToolUse, None, |_input, _ctx| async {
            HookOutput::proceed()
        })
        .on_hook_event(HookEvent::Stop, None, |_input, _ctx| async {
            panic!("the stop hook broke")
        });

    let runtime = TestRuntime::new();
    let ((), log) = capture(|| {
        runtime.block_on(async {
            let client = connect_with(runtime.clone(), options)
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
        })
    });
    log
}

#[test]
fn a_session_reports_its_span_and_events() {
    let log = traced_session();

    // One session span, named by the CLI's system/init; the fake has no process id.
    let fields = session_span(&log);
    assert_eq!(fields.get("session_id").map(String::as_str), Some("sess-1"));
    assert_eq!(
        fields.get("model").map(String::as_str),
        Some("claude-test-model")
    );
    assert_eq!(fields.get("pid"), None);
    // Every event, the app's own in its callback included, happens inside it, or inside the
    // turn's span in it (the CLI's requests and their answers).
    for event in &log.events {
        let (span, _) = event
            .span
            .as_ref()
            .unwrap_or_else(|| panic!("outside the span: {event:?}"));
        assert!(
            ["session", "invoke_agent", "execute_tool"].contains(&span.as_str()),
            "{event:?}"
        );
    }

    let connect = one(&log, "connect", &[("program", "claude")]);
    assert_eq!(connect.level, Level::INFO);

    // `allowed_tools` approves two tools whole: the permission callback never sees them.
    let unasked = one(
        &log,
        "permission_callback_unasked",
        &[("tools", "Read, mcp__calc__sub")],
    );
    assert_eq!(unasked.level, Level::WARN);

    // The fake CLI says it is 2.1.330 in its initialize answer: supported, no warning.
    let version = one(&log, "cli_version", &[("version", "2.1.330")]);
    assert_eq!(version.level, Level::DEBUG);
    assert_eq!(version.fields["minimum"], "2.1.330");

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

    let expired = one(&log, "callback_expired", &[("request_id", "m2")]);
    assert_eq!(expired.level, Level::WARN);
    assert_eq!(expired.fields["running"], "true");
    assert_eq!(expired.fields["duration_us"], "1000000");
    assert!(named(&log, "cli_answer")
        .iter()
        .all(|e| e.fields["request_id"] != "m2"));

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
        (Level::DEBUG, "claude_agent_client::stderr")
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

#[test]
fn a_cli_older_than_the_minimum_is_warned_about() {
    let script = Script::new()
        .answer_initialize_with(json!({"claude_code_version": "2.0.14"}))
        .expect_user()
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let ((), log) = capture(|| {
        runtime.block_on(async {
            let items: Vec<_> = claude_agent_client::query_with(
                runtime.clone(),
                "go",
                Options::new().transport(fake),
            )
            .collect()
            .await;
            assert!(items.iter().all(Result::is_ok), "{items:?}");
        })
    });
    let warning = one(&log, "cli_version", &[("version", "2.0.14")]);
    assert_eq!(warning.level, Level::WARN);
    assert_eq!(warning.fields["minimum"], "2.1.330");
    assert!(
        warning.fields["message"].contains("CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK"),
        "{warning:?}"
    );
}

#[test]
fn a_spare_reports_its_start_up_marks_and_its_claim() {
    let script = || {
        Script::new()
            .emit_json(&json!({"type": "keep_alive", "startup_mark": "action_handler_start"}))
            .answer_initialize()
            .expect_request_as("claim_session", "claim")
    };
    let taken = script().respond(
        "claim",
        Answer::success(
            json!({"status": "ok", "cwd": "/srv/app", "session_id": "sess-9",
            "parked_ms": 1003, "sdk_mcp_settled": true}),
        ),
    );
    let refused = script().respond(
        "claim",
        Answer::error("cwd_not_found: the claim cwd does not exist or is not accessible"),
    );
    let runtime = TestRuntime::new();
    let claim = |script: Script| {
        let options = Options::new().transport(FakeTransport::new(script));
        let runtime = runtime.clone();
        capture(move || {
            runtime.block_on(async {
                let spare = prewarm_with(runtime.clone(), options)
                    .await
                    .expect("parked");
                let claim = ClaimOptions::new("/srv/app");
                let claimed = spare.claim("go", claim).await;
                claimed.map(|claimed| claimed.info.session_id.clone())
            })
        })
    };

    let (outcome, log) = claim(taken);
    assert_eq!(outcome.ok().as_deref(), Some("sess-9"));
    let mark = one(&log, "startup_mark", &[("mark", "action_handler_start")]);
    assert_eq!(mark.level, Level::DEBUG);
    one(&log, "claim", &[]);
    let answered = one(&log, "claim_answered", &[("session_id", "sess-9")]);
    assert_eq!(answered.fields["cwd"], "/srv/app");
    assert_eq!(answered.fields["parked_ms"], "1003");
    assert_eq!(answered.fields["not_applied"], "0");

    let (outcome, log) = claim(refused);
    assert!(outcome.is_err());
    let refusal = one(&log, "claim_refused", &[("reason", "CwdNotFound")]);
    assert_eq!(refusal.level, Level::WARN);
    assert!(
        refusal.fields["error"].starts_with("cwd_not_found"),
        "{refusal:?}"
    );
}

/// A turn is an `invoke_agent` span and each of the main agent's tool calls an `execute_tool`
/// span in it, with OpenTelemetry's GenAI attributes (operation, provider, conversation id,
/// model, token usage, tool name and call id); the permission prompt about a tool call is
/// reported inside that call's span.
#[test]
fn turns_and_tool_calls_are_genai_spans() {
    use claude_agent_client::query_with;
    use claude_agent_testkit::fake_cli::FakeResult;

    let bash = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_json(
            &json!({"type": "system", "subtype": "init", "session_id": "sess-1",
            "model": "claude-test-model", "tools": [], "mcp_servers": [], "uuid": "u-1"}),
        )
        .emit_tool_use(&bash)
        .request_and_wait(
            "p1",
            json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"},
                "tool_use_id": "toolu_1"}),
        )
        .emit_tool_result(&bash, "README.md")
        .emit_result_with(FakeResult::success("done").usage(12, 7));
    let fake = FakeTransport::new(script);
    let options = Options::new()
        .transport(fake.clone())
        .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    let runtime = TestRuntime::new();
    let (items, log) = capture(|| {
        runtime.block_on(query_with(runtime.clone(), "list the files", options).collect::<Vec<_>>())
    });
    assert!(items.iter().all(Result::is_ok), "{items:?}");

    let spans = |name: &str| -> Vec<&trace_log::Fields> {
        log.spans
            .values()
            .filter(|(n, _)| n == name)
            .map(|(_, fields)| fields)
            .collect()
    };
    let turn = spans("invoke_agent");
    assert_eq!(turn.len(), 1, "{:?}", log.spans);
    let field = |fields: &trace_log::Fields, key: &str| fields.get(key).cloned();
    assert_eq!(
        field(turn[0], "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(
        field(turn[0], "gen_ai.provider.name").as_deref(),
        Some("anthropic")
    );
    assert_eq!(
        field(turn[0], "gen_ai.conversation.id").as_deref(),
        Some("sess-1")
    );
    assert_eq!(
        field(turn[0], "gen_ai.request.model").as_deref(),
        Some("claude-test-model")
    );
    assert_eq!(
        field(turn[0], "gen_ai.usage.input_tokens").as_deref(),
        Some("12")
    );
    assert_eq!(
        field(turn[0], "gen_ai.usage.output_tokens").as_deref(),
        Some("7")
    );
    assert_eq!(field(turn[0], "error.type"), None);

    let tool = spans("execute_tool");
    assert_eq!(tool.len(), 1, "{:?}", log.spans);
    assert_eq!(
        field(tool[0], "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(field(tool[0], "gen_ai.tool.name").as_deref(), Some("Bash"));
    assert_eq!(
        field(tool[0], "gen_ai.tool.call.id").as_deref(),
        Some("toolu_1")
    );

    let asked = one(&log, "cli_request", &[("subtype", "can_use_tool")]);
    assert_eq!(
        asked.span.as_ref().map(|(name, _)| name.as_str()),
        Some("execute_tool")
    );
    let answered = one(&log, "cli_answer", &[("subtype", "can_use_tool")]);
    assert_eq!(
        answered.span.as_ref().map(|(name, _)| name.as_str()),
        Some("execute_tool")
    );
}
