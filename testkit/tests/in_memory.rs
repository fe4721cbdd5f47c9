//! Sessions over the in-memory fake CLI ([`FakeTransport`]) on the [`TestRuntime`]: no async
//! runtime, no process, virtual time. What the SDK's client layer does with callbacks, hooks,
//! tools, time-outs and shutdown, seen from the CLI's side of the pipe.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_agent_client::mcp::{tool, SdkMcpServer};
use claude_agent_client::options::{
    Fork, McpRemoteServer, McpServerConfig, McpStdioServer, Options, Resume, SessionStart,
};
use claude_agent_client::{
    connect_with, prewarm_with, query_with, Error, PrewarmError, SparePool, StoreFlush,
};
use claude_agent_core::hooks::{
    HookEvent, HookInput, HookMatcher, HookOutput, PreToolUseInput, StopInput,
};
use claude_agent_core::mcp::ToolResult;
use claude_agent_core::message::{Message, NoticeKind, UserInput};
use claude_agent_core::permission::PermissionResult;
use claude_agent_testkit::fake_cli::{Answer, Script, ToolUse};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::{FakeTransport, SdkAnswer, SdkLine};
use futures_lite::StreamExt;
use serde_json::{json, Value};

fn run(fake: &FakeTransport, options: Options) -> Vec<Result<Message, Error>> {
    let runtime = TestRuntime::new();
    let options = options.transport(fake.clone());
    runtime.block_on(query_with(runtime.clone(), "go", options).collect())
}

fn kinds(items: &[Result<Message, Error>]) -> Vec<&'static str> {
    items
        .iter()
        .map(|item| match item {
            Ok(Message::System(_)) => "system",
            Ok(Message::Assistant(_)) => "assistant",
            Ok(Message::User(_)) => "user",
            Ok(Message::Result(_)) => "result",
            Ok(_) => "other",
            Err(_) => "error",
        })
        .collect()
}

/// The SDK's answer to the fake CLI's request `request_id`.
fn answer_to(fake: &FakeTransport, request_id: &str) -> Result<Value, String> {
    fake.written()
        .into_iter()
        .find_map(|line| match line {
            SdkLine::ControlResponse {
                request_id: id,
                outcome,
                ..
            } if id == request_id => Some(outcome),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{request_id} was not answered: {:?}", fake.written()))
}

fn pre_tool_use(command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s", "transcript_path": "/t",
        "cwd": "/w", "tool_name": "Bash", "tool_input": {"command": command},
        "tool_use_id": "toolu_1"})
}

/// A fake CLI that calls the first hook the SDK registered with `input`, then ends the turn.
fn one_hook_call(input: Value) -> FakeTransport {
    FakeTransport::new(
        Script::new()
            .answer_initialize()
            .expect_user()
            .hook_callback("h1", "hook_0", input)
            .emit_result("done"),
    )
}

#[test]
fn a_query_sends_initialize_then_the_prompt_and_streams_every_message() {
    let fake = FakeTransport::new(Script::single_turn("hi there"));
    let items = run(&fake, Options::new());
    assert_eq!(kinds(&items), ["system", "assistant", "result"]);
    let written = fake.written();
    assert!(
        matches!(&written[0], SdkLine::ControlRequest { subtype, .. } if subtype == "initialize")
    );
    assert_eq!(fake.user_texts(), ["go"]);
    assert_eq!(fake.connections(), 1);
}

#[test]
fn the_permission_callback_decides_and_the_script_follows_its_answer() {
    let bash = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf /"}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_tool_use(&bash)
        .can_use_tool_then(
            "p1",
            &bash,
            |allowed| {
                allowed
                    .emit_tool_result(&bash, "gone")
                    .emit_result("deleted")
            },
            |denied| denied.emit_tool_error(&bash, "denied").emit_result("kept"),
        );
    let fake = FakeTransport::new(script);
    let options = Options::new().on_permission_request(|request, _ctx| async move {
        match request.tool_name.as_str() {
            "Bash" => PermissionResult::deny("not here"),
            _ => PermissionResult::allow(),
        }
    });
    let items = run(&fake, options);
    let Some(Ok(Message::Result(result))) = items.last() else {
        panic!("{items:?}")
    };
    assert_eq!(result.result.as_deref(), Some("kept"));
    let answer = answer_to(&fake, "p1").unwrap();
    assert_eq!(answer["behavior"], "deny");
    assert_eq!(answer["message"], "not here");
}

#[test]
fn a_typed_hook_gets_its_event_input() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .hook_callback("h1", "hook_0", pre_tool_use("rm -rf /"))
        .hook_callback(
            "h2",
            "hook_1",
            json!({"hook_event_name": "Stop", "session_id": "s", "transcript_path": "/t",
                "cwd": "/w", "stop_hook_active": true}),
        )
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let options = Options::new()
        .on_hook("Bash", |input: PreToolUseInput, _ctx| async move {
            #[derive(serde::Deserialize)]
            struct Bash {
                command: String,
            }
            assert_eq!(input.tool_use_id, "toolu_1");
            let bash: Bash = input.tool_input.parse().unwrap();
            HookOutput::deny_tool(format!("not {}", bash.command))
        })
        .on_hook(None, |input: StopInput, _ctx| async move {
            assert!(input.stop_hook_active);
            HookOutput::proceed()
        });
    let items = run(&fake, options);
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    let SdkLine::ControlRequest { request, .. } = &fake.written()[0] else {
        panic!("initialize first")
    };
    assert_eq!(request["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    assert!(request["hooks"]["Stop"].is_array(), "{request}");
    let deny = answer_to(&fake, "h1").unwrap();
    let specific = &deny["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny");
    assert_eq!(specific["permissionDecisionReason"], "not rm -rf /");
    assert_eq!(answer_to(&fake, "h2").unwrap()["continue"], true);
}

#[test]
fn an_untyped_hook_gets_the_whole_input_and_the_id_beside_it() {
    let fake = one_hook_call(pre_tool_use("ls"));
    let options =
        Options::new().on_hook_event(HookEvent::PreToolUse, None, |input, ctx| async move {
            assert!(matches!(input, HookInput::PreToolUse(_)), "{input:?}");
            assert_eq!(ctx.tool_use_id(), None, "the script sends null");
            HookOutput::allow_tool()
        });
    let items = run(&fake, options);
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    let answer = answer_to(&fake, "h1").unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");
}

#[test]
fn a_typed_hook_given_another_events_input_is_an_error_reply() {
    let fake = one_hook_call(pre_tool_use("ls"));
    let called = Arc::new(Mutex::new(false));
    let options = Options::new().on_hook(None, {
        let called = called.clone();
        move |_input: StopInput, _ctx| {
            *called.lock().unwrap() = true;
            async { HookOutput::default() }
        }
    });
    let items = run(&fake, options);
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    assert!(!*called.lock().unwrap(), "the callback was not called");
    assert_eq!(
        answer_to(&fake, "h1").unwrap_err(),
        "malformed hook input: a Stop hook got a PreToolUse input"
    );
}

#[test]
fn a_fail_closed_hook_that_panics_is_answered_with_an_error_the_cli_blocks_on() {
    let fake = one_hook_call(pre_tool_use("ls"));
    let options = Options::new().on_hook(
        HookMatcher::new("Bash").fail_closed(),
        |_input: PreToolUseInput, _ctx| async move { panic!("the guard broke") },
    );
    let items = run(&fake, options);
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    let initialize = &fake.written_json()[0];
    assert_eq!(
        initialize["request"]["hooks"]["PreToolUse"][0]["onFailure"],
        "block"
    );
    assert_eq!(
        answer_to(&fake, "h1").unwrap_err(),
        "callback panicked: the guard broke"
    );
}

#[test]
fn a_cli_that_does_not_confirm_a_fail_closed_hook_gets_no_prompt() {
    let mut answer = claude_agent_testkit::fake_cli::canned::initialize_response();
    answer
        .as_object_mut()
        .unwrap()
        .remove("hook_on_failure_supported");
    let fake = FakeTransport::new(
        Script::new()
            .answer_initialize_with(answer)
            .expect_user()
            .emit_result("never"),
    );
    let options = Options::new().on_hook(
        HookMatcher::all().fail_closed(),
        |_input: PreToolUseInput, _ctx| async { HookOutput::proceed() },
    );
    let items = run(&fake, options);
    match &items[..] {
        [Err(Error::Unconfirmed(message))] => {
            assert!(message.contains("hook_on_failure_supported"), "{message}")
        }
        other => panic!("expected Error::Unconfirmed alone, got {other:?}"),
    }
    assert!(fake.user_texts().is_empty(), "{:?}", fake.written());
}

#[test]
fn external_mcp_servers_go_in_initialize_and_their_secrets_stay_off_the_command_line() {
    let fake = FakeTransport::new(Script::single_turn("hi"));
    let server = McpStdioServer::new("github-mcp-server").env("GITHUB_TOKEN", "ghp_s3cret");
    let options = Options::new().mcp_server("github", McpServerConfig::Stdio(server));
    let items = run(&fake, options);
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    let launch = fake.launch().expect("the SDK launched");
    assert!(!launch.args.iter().any(|arg| arg.contains("ghp_s3cret")));
    assert!(launch.args.iter().any(|arg| arg == "--await-initialize"));
    let initialize = &fake.written_json()[0];
    assert_eq!(
        initialize["request"]["mcpServers"]["github"]["env"]["GITHUB_TOKEN"],
        "ghp_s3cret"
    );
    assert_eq!(fake.user_texts(), ["go"]);
}

#[test]
fn registered_hooks_are_called_by_the_ids_the_sdk_declared() {
    let bash = ToolUse::new("toolu_9", "Bash", json!({"command": "ls"}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_tool_use(&bash)
        .pre_tool_use_hook("h1", &bash)
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let options = Options::new()
        .on_hook("Read", |_: PreToolUseInput, _ctx| async {
            HookOutput::deny_tool("the Read hook must not run for Bash")
        })
        .on_hook("Bash", {
            let seen = seen.clone();
            move |input: PreToolUseInput, _ctx| {
                seen.lock().unwrap().push(input.tool_use_id.clone());
                async { HookOutput::allow_tool() }
            }
        });
    let items = run(&fake, options);
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    assert_eq!(*seen.lock().unwrap(), ["toolu_9"]);
    assert_eq!(fake.answers().len(), 1, "{:?}", fake.answers());
}

#[test]
fn an_in_process_tool_is_called_with_its_arguments() {
    let add = ToolUse::mcp("toolu_2", "calc", "add", json!({"a": 2, "b": 3}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_tool_use(&add)
        .call_tool("m1", &add)
        .emit_result("5");
    let fake = FakeTransport::new(script);
    let calc = SdkMcpServer::new("calc", "1.0").tool(tool(
        "add",
        "Adds two numbers",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}),
        |args: Value| async move {
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            Ok::<_, claude_agent_client::mcp::ToolError>(ToolResult::text(sum.to_string()))
        },
    ));
    let items = run(&fake, Options::new().sdk_mcp_server(calc));
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    let answer = answer_to(&fake, "m1").unwrap();
    assert_eq!(answer["mcp_response"]["result"]["content"][0]["text"], "5");
}

#[test]
fn an_unanswered_initialize_times_out_in_virtual_time() {
    let fake = FakeTransport::new(Script::new().hang());
    let runtime = TestRuntime::new();
    let options = Options::new()
        .transport(fake.clone())
        .initialize_timeout(Duration::from_secs(30));
    let wall = Instant::now();
    let result = runtime.block_on(connect_with(runtime.clone(), options));
    assert!(
        matches!(result, Err(Error::ControlTimeout(t)) if t == Duration::from_secs(30)),
        "{result:?}"
    );
    assert!(runtime.elapsed() >= Duration::from_secs(30));
    assert!(
        wall.elapsed() < Duration::from_secs(1),
        "{:?}",
        wall.elapsed()
    );
}

#[test]
fn a_control_request_times_out_and_the_session_goes_on() {
    let script = Script::new()
        .answer_initialize()
        .expect_request("interrupt")
        .expect_user()
        .emit_result("still here");
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let options = Options::new()
        .transport(fake.clone())
        .control_timeout(Duration::from_secs(5));
    let result = runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await?;
        let interrupted = client.interrupt().await;
        client.send("next").await?;
        let mut reply = client.receive_response();
        let mut last = None;
        while let Some(item) = reply.next().await {
            last = Some(item?);
        }
        Ok::<_, Error>((interrupted, last))
    });
    let (interrupted, last) = result.unwrap();
    assert!(
        matches!(interrupted, Err(Error::ControlTimeout(_))),
        "{interrupted:?}"
    );
    assert!(matches!(last, Some(Message::Result(_))));
    assert!(runtime.elapsed() >= Duration::from_secs(5));
}

#[test]
fn send_returns_the_uuid_the_message_went_out_with_and_rewind_files_takes_it() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_result("one")
        .expect_user()
        .emit_result("two")
        .auto_answer("rewind_files", Answer::success(json!({"canRewind": true})));
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let (first, second) = runtime
        .block_on(async {
            let options = Options::new().transport(fake.clone());
            let client = connect_with(runtime.clone(), options).await?;
            let first = client.send("one").await?;
            client.receive_response().for_each(drop).await;
            let second = client
                .send(UserInput::text("two").with_uuid("my-own-id"))
                .await?;
            client.receive_response().for_each(drop).await;
            client.preview_rewind_files(&first).await?;
            client.close().await;
            Ok::<_, Error>((first, second))
        })
        .unwrap();
    assert_eq!(second, "my-own-id", "a uuid of the caller's is kept");
    assert_eq!(first.as_str().len(), 36, "{first}");
    assert_eq!(
        first.as_str().as_bytes()[14],
        b'4',
        "a version-4 uuid: {first}"
    );
    let sent: Vec<Option<String>> = fake
        .written()
        .into_iter()
        .filter_map(|line| match line {
            SdkLine::User { uuid, .. } => Some(uuid),
            _ => None,
        })
        .collect();
    assert_eq!(sent, [Some(first.clone().into()), Some(second.into())]);
    let rewind = fake.written().into_iter().find_map(|line| match line {
        SdkLine::ControlRequest {
            subtype, request, ..
        } if subtype == "rewind_files" => Some(request),
        _ => None,
    });
    assert_eq!(rewind.unwrap()["user_message_id"], first.as_str());
}

#[test]
fn a_cli_that_exits_non_zero_fails_the_stream_with_its_stderr() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .stderr("boom: out of cheese\n")
        .exit(3);
    let fake = FakeTransport::new(script);
    let items = run(&fake, Options::new());
    let Some(Err(Error::Process { exit, stderr_tail })) = items.last() else {
        panic!("{items:?}")
    };
    assert_eq!(exit.code, Some(3));
    assert!(stderr_tail.contains("out of cheese"), "{stderr_tail}");
}

#[test]
fn closing_a_client_ends_a_cli_that_never_exits_by_signal_in_virtual_time() {
    let fake = FakeTransport::new(Script::new().answer_initialize().hang());
    let runtime = TestRuntime::new();
    let options = Options::new().transport(fake.clone());
    runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        client.close().await;
    });
    // stdin closed, 2 s, SIGTERM: the fake dies of it.
    assert!(runtime.elapsed() >= Duration::from_secs(2), "{runtime:?}");
}

#[test]
fn each_session_gets_the_next_script() {
    let fake = FakeTransport::new(Script::single_turn("one")).then(Script::single_turn("two"));
    let texts: Vec<String> = (0..3)
        .map(|_| match run(&fake, Options::new()).pop() {
            Some(Ok(Message::Result(result))) => result.result.unwrap_or_default(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, ["one", "two", "two"]);
    assert_eq!(fake.connections(), 3);
}

#[test]
fn a_runtime_without_a_transport_says_what_is_missing() {
    let runtime = TestRuntime::new();
    let options = Options::new().cli_path("/bin/sh");
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", options).collect());
    let Some(Err(error)) = items.first() else {
        panic!("{items:?}")
    };
    assert!(error.to_string().contains("transport"), "{error}");
}

#[test]
fn a_recorded_session_replays_and_checks_out() {
    let dir = claude_agent_testkit::real_cli::TestDir::new("record").unwrap();
    let path = dir.path().join("session.jsonl");
    let fake = FakeTransport::new(Script::single_turn("recorded"));
    let live = run(&fake, Options::new().record_to(&path));
    let recording = std::fs::read_to_string(&path).unwrap();
    let directions: Vec<&str> = recording
        .lines()
        .map(|line| {
            if line.contains(r#""dir":"in""#) {
                "in"
            } else {
                "out"
            }
        })
        .collect();
    assert_eq!(directions, ["in", "in", "out", "out", "out", "out"]);
    let replay = FakeTransport::replay(&recording).unwrap();
    let replayed = run(&replay, Options::new());
    let json = |items: &[Result<Message, Error>]| -> Vec<String> {
        items
            .iter()
            .map(|item| item.as_ref().unwrap().raw_json().to_owned())
            .collect()
    };
    assert_eq!(json(&replayed), json(&live));
    replay.verify().unwrap();
}

#[test]
fn a_recording_keeps_mcp_secrets_out_and_still_checks_out() {
    let dir = claude_agent_testkit::real_cli::TestDir::new("record-secrets").unwrap();
    let path = dir.path().join("session.jsonl");
    let options = || {
        let server = McpStdioServer::new("github-mcp-server").env("GITHUB_TOKEN", "ghp_s3cret");
        let remote =
            McpRemoteServer::new("https://mcp.example.com").header("Authorization", "Bearer sk-x");
        Options::new()
            .mcp_server("github", McpServerConfig::Stdio(server))
            .mcp_server("tickets", McpServerConfig::Http(remote))
    };
    let fake = FakeTransport::new(Script::single_turn("recorded"));
    run(&fake, options().record_to(&path));
    let recording = std::fs::read_to_string(&path).unwrap();
    assert!(
        !recording.contains("ghp_s3cret") && !recording.contains("sk-x"),
        "{recording}"
    );
    assert!(
        recording.contains(r#""GITHUB_TOKEN":"[redacted]""#),
        "{recording}"
    );
    assert!(
        recording.contains(r#""Authorization":"[redacted]""#),
        "{recording}"
    );

    let replay = FakeTransport::replay(&recording).unwrap();
    run(&replay, options());
    replay.verify().unwrap();
}

#[test]
fn a_recording_that_cannot_be_written_is_one_notice_and_nothing_is_lost() {
    let fake = FakeTransport::new(Script::single_turn("kept"));
    let items = run(&fake, Options::new().record_to("/dev/full"));
    let notices: Vec<&NoticeKind> = items
        .iter()
        .filter_map(|item| match item {
            Ok(Message::Notice(notice)) => Some(&notice.kind),
            _ => None,
        })
        .collect();
    assert!(
        matches!(notices.as_slice(), [NoticeKind::RecordingStopped { path, .. }] if path.as_path() == Path::new("/dev/full")),
        "{items:?}"
    );
    assert_eq!(
        kinds(&items)
            .into_iter()
            .filter(|kind| *kind != "other")
            .collect::<Vec<_>>(),
        ["system", "assistant", "result"]
    );
}

/// The idiom every example uses: `message?` in the loop. Bad stdout lines and a recording that
/// stops are notices, so the loop reads the whole session.
#[test]
fn a_question_mark_loop_reads_through_bad_lines_and_a_failed_recording() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_garbage()
        .emit(r#"{"type":"result","subtype":"success","is_error":"not a bool"}"#)
        .emit_long_line(128 * 1024)
        .emit_assistant_text("still here")
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let options = Options::new()
        .transport(fake.clone())
        .max_buffer_size(64 * 1024)
        .record_to("/dev/full");
    let read = async {
        let mut messages = query_with(runtime.clone(), "go", options);
        let mut seen = Vec::new();
        while let Some(message) = messages.next().await {
            seen.push(match message? {
                Message::Notice(notice) => match notice.kind {
                    NoticeKind::UnreadableLine(_) => "unreadable line",
                    NoticeKind::RecordingStopped { .. } => "recording stopped",
                    _ => "other notice",
                },
                Message::Unknown(_) => "unknown",
                Message::Assistant(_) => "assistant",
                Message::Result(_) => "result",
                _ => "other",
            });
        }
        Ok::<_, Error>(seen)
    };
    let seen = runtime.block_on(read).expect("no item ended the loop");
    let lines: Vec<&str> = seen
        .iter()
        .copied()
        .filter(|kind| *kind != "recording stopped")
        .collect();
    assert_eq!(
        lines,
        [
            "unreadable line",
            "unreadable line",
            "unknown",
            "unreadable line",
            "assistant",
            "result"
        ]
    );
    assert_eq!(
        seen.iter()
            .filter(|kind| **kind == "recording stopped")
            .count(),
        1,
        "{seen:?}"
    );
}

#[test]
fn a_recording_that_cannot_be_opened_stops_the_start() {
    let fake = FakeTransport::new(Script::single_turn("never"));
    let items = run(
        &fake,
        Options::new().record_to("/no/such/dir/session.jsonl"),
    );
    let [Err(Error::Record { path, .. })] = items.as_slice() else {
        panic!("{items:?}")
    };
    assert_eq!(path, std::path::Path::new("/no/such/dir/session.jsonl"));
    assert_eq!(fake.connections(), 0);
}

/// A recording is its owner's only (0600), and a symbolic link planted at its path (another
/// user's, in a shared folder) is refused before the session starts: nothing reaches its target.
#[cfg(unix)]
#[test]
fn a_recording_is_private_and_never_written_through_a_link() {
    use std::os::unix::fs::{symlink, PermissionsExt};

    let dir = claude_agent_testkit::real_cli::TestDir::new("recording-modes").unwrap();
    let path = dir.path().join("session.jsonl");
    let fake = FakeTransport::new(Script::single_turn("hello"));
    run(&fake, Options::new().record_to(&path));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let target = dir.path().join("elsewhere.jsonl");
    std::fs::write(&target, "").unwrap();
    let planted = dir.path().join("planted.jsonl");
    symlink(&target, &planted).unwrap();
    let fake = FakeTransport::new(Script::single_turn("never"));
    let items = run(&fake, Options::new().record_to(&planted));
    let [Err(Error::Record { path, .. })] = items.as_slice() else {
        panic!("{items:?}")
    };
    assert_eq!(path, &planted);
    assert_eq!(fake.connections(), 0);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
}

/// The `tools/list` JSON-RPC request with which the CLI finishes connecting a server.
fn tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
}

#[test]
fn connect_returns_once_the_cli_reports_the_in_process_servers_connected() {
    // The CLI answers initialize first, and connects the server just after.
    let script = Script::new()
        .answer_initialize()
        .mcp_message("m1", "calc", tools_list())
        .expect_user()
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let options = Options::new()
        .transport(fake.clone())
        .sdk_mcp_server(SdkMcpServer::new("calc", "1.0"));
    let (listed_at_connect, status) = runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        let listed = fake.answers().iter().any(|(id, _)| id == "m1");
        let status = client.mcp_status().await.unwrap();
        client.close().await;
        (listed, status)
    });
    assert!(listed_at_connect, "connect returned before tools/list");
    assert_eq!(status.mcp_servers[0].name, "calc");
    let asked = fake
        .written()
        .iter()
        .filter(|line| {
            matches!(line, SdkLine::ControlRequest { subtype, .. } if subtype == "mcp_status")
        })
        .count();
    assert!(
        asked >= 2,
        "connect asked the CLI itself, then the test did: {asked}"
    );
}

/// How long `connect` took in virtual time with a CLI made by `script` and one in-process server.
fn connect_time(script: Script) -> Duration {
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let options = Options::new()
        .transport(fake.clone())
        .sdk_mcp_server(SdkMcpServer::new("calc", "1.0"));
    runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        let waited = runtime.elapsed();
        drop(client);
        waited
    })
}

#[test]
fn connect_waits_five_seconds_at_most_for_a_server_the_cli_never_connects() {
    let lists_none = Answer::success(json!({"mcpServers": []}));
    let never_connects = Script::new()
        .answer_initialize()
        .auto_answer("mcp_status", lists_none);
    assert_eq!(connect_time(never_connects), Duration::from_secs(5));
    let silent_after_initialize = Script::new().answer_initialize().hang();
    assert_eq!(
        connect_time(silent_after_initialize),
        Duration::from_secs(5)
    );
    let connected = Script::new().answer_initialize();
    assert_eq!(connect_time(connected), Duration::ZERO);
}

#[test]
fn any_executor_can_drive_the_test_runtime_in_virtual_time() {
    let fake = FakeTransport::new(Script::new().hang());
    let runtime = TestRuntime::new();
    let options = Options::new()
        .transport(fake)
        .initialize_timeout(Duration::from_secs(30));
    let wall = Instant::now();
    let connect = connect_with(runtime.clone(), options);
    let result = futures_lite::future::block_on(runtime.run(connect));
    assert!(
        matches!(result, Err(Error::ControlTimeout(_))),
        "{result:?}"
    );
    assert!(runtime.elapsed() >= Duration::from_secs(30));
    assert!(wall.elapsed() < Duration::from_secs(1));
}

#[test]
fn the_client_tells_the_cli_version_from_initialize_or_else_the_first_init() {
    use claude_agent_core::session::{CliVersion, VersionCheck};

    // An old CLI that says its version in its initialize answer: known when `connect` returns.
    let old = FakeTransport::new(
        Script::new()
            .answer_initialize_with(json!({"claude_code_version": "2.0.14"}))
            .expect_user()
            .emit_result("done"),
    );
    // One that says it only in its init frame: known once the turn has begun.
    let init = json!({"type": "system", "subtype": "init", "session_id": "s",
        "model": "m", "tools": [], "mcp_servers": [], "claude_code_version": "2.1.400"});
    let later = FakeTransport::new(
        Script::new()
            .answer_initialize_with(json!({}))
            .expect_user()
            .emit_json(&init)
            .emit_result("done"),
    );
    let runtime = TestRuntime::new();
    let checks = runtime.block_on(async {
        let mut checks = Vec::new();
        for fake in [old, later] {
            let options = Options::new().transport(fake);
            let client = connect_with(runtime.clone(), options).await.unwrap();
            checks.push(client.version_check());
            client.send("go").await.unwrap();
            let turn: Vec<_> = client.receive_response().collect().await;
            assert_eq!(kinds(&turn).last(), Some(&"result"));
            checks.push(client.version_check());
            client.close().await;
        }
        checks
    });
    let too_old = Some(VersionCheck::TooOld(CliVersion::new(2, 0, 14)));
    let supported = Some(VersionCheck::Supported(CliVersion::new(2, 1, 400)));
    assert_eq!(checks, [too_old, too_old, None, supported]);
}

#[test]
fn resource_reads_and_prompt_gets_reach_their_handlers() {
    use claude_agent_client::mcp::{prompt_template, resource_template};
    use claude_agent_core::mcp::{PromptResult, ResourceResult};

    // Each request with an id of its own, as an MCP client numbers them.
    let mcp = |id: u32, method: &str, params: Value| {
        json!({"subtype": "mcp_message", "server_name": "lib",
            "message": {"jsonrpc": "2.0", "id": id, "method": method, "params": params}})
    };
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .send_request(
            "r1",
            mcp(1, "resources/read", json!({"uri": "logs://monday"})),
        )
        .send_request(
            "r2",
            mcp(2, "resources/read", json!({"uri": "logs://fail"})),
        )
        .send_request(
            "p1",
            mcp(
                3,
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            ),
        )
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let library = SdkMcpServer::new("lib", "1.0")
        .resource(resource_template(
            "logs://{day}",
            "Log of a day",
            |read| async move {
                match read.variables["day"].as_str() {
                    "fail" => Err("the log store is down".to_owned()),
                    day => Ok(ResourceResult::text(&read.uri, format!("quiet {day}"))),
                }
            },
        ))
        .prompt(
            prompt_template("greet", "Greet someone", |get| async move {
                let text = format!("Say hello to {}.", get.arguments["name"]);
                Ok::<_, String>(PromptResult::user(text))
            })
            .argument("name", "Who"),
        );
    let items = run(&fake, Options::new().sdk_mcp_server(library));
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    assert_eq!(
        answer_to(&fake, "r1").unwrap()["mcp_response"],
        json!({"jsonrpc": "2.0", "id": 1,
            "result": {"contents": [{"uri": "logs://monday", "text": "quiet monday"}]}})
    );
    assert_eq!(
        answer_to(&fake, "r2").unwrap()["mcp_response"],
        json!({"jsonrpc": "2.0", "id": 2,
            "error": {"code": -32603, "message": "the log store is down"}})
    );
    assert_eq!(
        answer_to(&fake, "p1").unwrap()["mcp_response"]["result"]["messages"][0]["content"]["text"],
        "Say hello to Ada."
    );
}

#[test]
fn prewarm_refuses_options_that_describe_a_session() {
    let runtime = TestRuntime::new();
    let starts = [
        SessionStart::resume("46eb1b6d"),
        SessionStart::Resume(Resume::new("46eb1b6d").at_message("70565fc4")),
        SessionStart::continue_last(),
        SessionStart::Continue {
            fork: Some(Fork::new()),
            or_new: false,
        },
        SessionStart::NewWithId("9b2f1c3e".into()),
    ];
    for start in starts {
        let options = Options::new().session_start(start.clone());
        let fake = FakeTransport::new(Script::new().answer_initialize());
        let options = options.transport(fake.clone());
        let result = runtime.block_on(prewarm_with(runtime.clone(), options.clone()));
        assert!(
            matches!(&result, Err(PrewarmError::SessionStart { start: refused }) if *refused == start),
            "{result:?}"
        );
        let pool = SparePool::new(runtime.clone());
        assert!(matches!(
            pool.prewarm(&options),
            Err(PrewarmError::SessionStart { start: refused }) if refused == start
        ));
        assert!(fake.launch().is_none(), "nothing was started for {start}");
    }
}

#[test]
fn a_spare_is_parked_in_a_folder_of_its_own_removed_when_it_closes() {
    let runtime = TestRuntime::new();
    let mut folders = Vec::new();
    for _ in 0..2 {
        let fake = FakeTransport::new(Script::new().answer_initialize());
        let options = Options::new().transport(fake.clone());
        let spare = runtime
            .block_on(prewarm_with(runtime.clone(), options))
            .expect("parked");
        let folder = fake.launch().and_then(|spec| spec.cwd).expect("a cwd");
        assert!(folder.starts_with(std::env::temp_dir()), "{folder:?}");
        assert!(folder.is_dir());
        assert!(!folders.contains(&folder), "a folder per spare");
        runtime.block_on(spare.close());
        assert!(!folder.exists(), "{folder:?} is left behind");
        folders.push(folder);
    }
    // A folder the options name is the caller's: it stays.
    let mine = std::env::temp_dir().join(format!("claude-agent-own-{}", std::process::id()));
    std::fs::create_dir_all(&mine).unwrap();
    let fake = FakeTransport::new(Script::new().answer_initialize());
    let options = Options::new().transport(fake.clone()).cwd(&mine);
    let spare = runtime
        .block_on(prewarm_with(runtime.clone(), options))
        .expect("parked");
    runtime.block_on(spare.close());
    assert!(mine.is_dir());
    std::fs::remove_dir(&mine).unwrap();
}

#[test]
fn a_pool_lets_go_of_the_least_recently_used_options_and_of_an_updated_clis_spares() {
    use claude_agent_client::Runtime;

    let runtime = TestRuntime::new();
    let settle = || runtime.block_on(runtime.sleep_until(runtime.now() + Duration::from_secs(1)));
    let cli = std::env::temp_dir().join(format!("claude-agent-pool-cli-{}", std::process::id()));
    std::fs::write(&cli, "").unwrap();
    // Each spare tells its pid in its answer to `initialize`: 1, 2, 3, then 4 for every later one.
    let parked = |pid: u32| Script::new().answer_initialize_with(json!({ "pid": pid }));
    let fake = FakeTransport::new(parked(1))
        .then(parked(2))
        .then(parked(3))
        .then(parked(4));
    let first = Options::new().transport(fake.clone()).cli_path(&cli);
    let second = first.clone().env("POOL_SET", "second");
    let third = first.clone().env("POOL_SET", "third");
    let sorted = |mut pids: Vec<u32>| {
        pids.sort_unstable();
        pids
    };
    let ready = |pool: &SparePool| [&first, &second, &third].map(|options| pool.ready(options));

    let pool = SparePool::new(runtime.clone());
    pool.prewarm(&first).unwrap();
    pool.prewarm(&second).unwrap();
    settle();
    assert_eq!(ready(&pool), [1, 1, 0]);
    assert_eq!(sorted(pool.pids()), [1, 2]);

    // Two sets by default: a third lets go of the one asked for least recently.
    pool.prewarm(&third).unwrap();
    settle();
    assert_eq!(ready(&pool), [0, 1, 1]);
    assert_eq!(sorted(pool.pids()), [2, 3]);

    // The CLI was updated: no spare of the old build is ready, and the first set asked for
    // again lets go of every old spare, not only of its own.
    let file = std::fs::File::options().write(true).open(&cli).unwrap();
    file.set_modified(std::time::SystemTime::now() + Duration::from_secs(60))
        .unwrap();
    assert_eq!(ready(&pool), [0, 0, 0]);
    pool.prewarm(&second).unwrap();
    settle();
    assert_eq!(ready(&pool), [0, 1, 0]);
    assert_eq!(pool.pids(), [4]);
    std::fs::remove_file(&cli).unwrap();
}

#[test]
fn a_pool_never_claims_a_spare_under_another_options_sets_callbacks() {
    use claude_agent_client::{PoolStart, Runtime};
    use claude_agent_core::control::ClaimOptions;

    let runtime = TestRuntime::new();
    let settle = || runtime.block_on(runtime.sleep_until(runtime.now() + Duration::from_secs(1)));
    let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    // A spare for tenant A, then the cold session tenant B gets, then B's own spare.
    let cold = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_tool_use(&ls)
        .can_use_tool("perm-1", "Bash", json!({"command": "ls"}))
        .emit_result("done");
    let fake = FakeTransport::new(Script::new().answer_initialize())
        .then(cold)
        .then(Script::new().answer_initialize());
    // Two tenants whose options differ only in their permission callback.
    let host = Options::new().transport(fake.clone());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let tenant = |name: &'static str| {
        let asked = asked.clone();
        host.clone().on_permission_request(move |_request, _ctx| {
            asked.lock().unwrap().push(name);
            async move { PermissionResult::deny(name) }
        })
    };
    let (a, b) = (tenant("tenant a decides"), tenant("tenant b decides"));

    let pool = SparePool::new(runtime.clone());
    pool.prewarm(&a).unwrap();
    settle();
    assert_eq!(pool.ready(&a), 1);
    assert_eq!(
        pool.ready(&a.clone()),
        1,
        "a clone of A's options is A's set"
    );
    assert_eq!(pool.ready(&b), 0, "A's spare is not B's");
    let eager = a.clone().session_store_flush(StoreFlush::Eager);
    assert_eq!(
        pool.ready(&eager),
        0,
        "nor a spare for another flush policy"
    );

    let session = runtime
        .block_on(pool.query(&b, "go", ClaimOptions::new(std::env::temp_dir())))
        .expect("a cold start");
    assert!(
        matches!(session.start, PoolStart::Cold { refused: None }),
        "{:?}",
        session.start
    );
    let items = runtime.block_on(session.messages.collect::<Vec<_>>());
    assert_eq!(kinds(&items).last(), Some(&"result"), "{items:?}");
    assert_eq!(*asked.lock().unwrap(), ["tenant b decides"]);
    assert_eq!(pool.ready(&a), 1, "A's spare is still parked for A");
}

/// `answers()` reads each answer as what its callback returned: a rewritten input stays, an
/// echoed one reads as a plain allow, a failing callback is an error, MCP lists are JSON-RPC.
#[test]
fn answers_read_as_the_values_the_callbacks_returned() {
    let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .can_use_tool("p1", "Bash", json!({"command": "ls"}))
        .can_use_tool("p2", "Bash", json!({"command": "rm -rf /"}))
        .pre_tool_use_hook("h1", &ls)
        .mcp_message(
            "m1",
            "calc",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .emit_result("ok");
    let fake = FakeTransport::new(script);
    let options = Options::new()
        .sdk_mcp_server(SdkMcpServer::new("calc", "1.0.0"))
        .on_permission_request(|request, _ctx| async move {
            match request.tool_input.to_value()["command"].as_str() {
                Some("ls") => PermissionResult::allow(),
                _ => PermissionResult::allow().with_updated_input(json!({"command": "echo no"})),
            }
        })
        .on_hook("Bash", |_input: PreToolUseInput, _ctx| async {
            panic!("the hook broke")
        });
    run(&fake, options);
    let answers = fake.answers();
    let by_id = |id: &str| {
        answers
            .iter()
            .find(|(r, _)| r == id)
            .map(|(_, a)| a.clone())
    };
    assert_eq!(
        by_id("p1"),
        Some(SdkAnswer::Permission(PermissionResult::allow()))
    );
    let rewritten = PermissionResult::allow().with_updated_input(json!({"command": "echo no"}));
    assert_eq!(by_id("p2"), Some(SdkAnswer::Permission(rewritten)));
    assert!(
        matches!(by_id("h1"), Some(SdkAnswer::Error(text)) if text.contains("the hook broke")),
        "{answers:?}"
    );
    let Some(SdkAnswer::Mcp(listed)) = by_id("m1") else {
        panic!("{answers:?}")
    };
    assert_eq!(listed.to_value()["result"]["tools"], json!([]));
}

/// The fake CLI goes silent mid-turn (virtual time: no real waiting). With `OnStall::Interrupt`
/// the stream gets a `Stalled` notice after the limit and the turn is interrupted; the session
/// ends normally with the turn's result.
#[test]
fn a_silent_turn_is_reported_and_interrupted() {
    use claude_agent_core::session::{OnStall, StallWatch};
    use claude_agent_testkit::fake_cli::FakeResult;

    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_system_init()
        .emit_assistant_text("thinking")
        .expect_request("interrupt")
        .emit_result_with(FakeResult::error_during_execution());
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let watch = StallWatch {
        then: OnStall::Interrupt,
        ..StallWatch::new(Duration::from_secs(90))
    };
    let options = Options::new().transport(fake.clone()).stall_watch(watch);
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    let stall = items
        .iter()
        .find_map(|item| match item {
            Ok(Message::Notice(notice)) => match &notice.kind {
                NoticeKind::Stalled(stall) => Some(stall.clone()),
                _ => None,
            },
            _ => None,
        })
        .expect("a Stalled notice");
    assert_eq!(stall.idle_for, Duration::from_secs(90));
    assert_eq!(stall.last_event.as_deref(), Some("assistant"));
    assert!(runtime.elapsed() >= Duration::from_secs(90));
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(r))) if r.subtype == "error_during_execution"),
        "{:?}",
        items.last()
    );
}

/// With `OnStall::InterruptThenClose` the silent turn is interrupted, the session closed, and
/// the stream ends with `Error::Stalled`, not a process failure.
#[test]
fn a_silent_turn_can_close_the_session_with_a_typed_error() {
    use claude_agent_core::session::{OnStall, StallWatch};

    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_system_init()
        .expect_request("interrupt")
        .expect_eof();
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let watch = StallWatch {
        then: OnStall::InterruptThenClose,
        ..StallWatch::new(Duration::from_secs(30))
    };
    let options = Options::new().transport(fake.clone()).stall_watch(watch);
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    match items.last() {
        Some(Err(Error::Stalled(stall))) => {
            assert_eq!(stall.idle_for, Duration::from_secs(30));
            assert_eq!(stall.last_event.as_deref(), Some("system/init"));
        }
        other => panic!("not Error::Stalled: {other:?}"),
    }
}
