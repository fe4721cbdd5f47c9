//! The tokio adapter end to end against a scripted fake CLI (`tests/support/fake_claude.py`).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_agent_tokio::hooks::{HookEvent, HookOutput};
use claude_agent_tokio::mcp::ToolResult;
use claude_agent_tokio::permission::PermissionResult;
use claude_agent_tokio::{
    prompt_channel, query, typed_tool, Client, Error, Options, Prompt, SdkMcpServer, StreamExt,
    UserInput,
};
use common::{fake, json, kind, result_text, wait_gone};

const LIMIT: Duration = Duration::from_secs(10);

async fn collect(
    options: Options,
    prompt: impl Into<Prompt>,
) -> Vec<Result<claude_agent_tokio::Message, Error>> {
    let stream = query(prompt, options);
    tokio::time::timeout(LIMIT, stream.collect::<Vec<_>>())
        .await
        .expect("query finished in time")
}

fn last_result(items: &[Result<claude_agent_tokio::Message, Error>]) -> serde_json::Value {
    let text = items
        .iter()
        .rev()
        .find_map(|item| item.as_ref().ok().and_then(result_text))
        .expect("a result message");
    serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text))
}

#[tokio::test]
async fn query_with_text_yields_every_message_and_ends() {
    let items = collect(fake("text"), "hello").await;
    let messages: Vec<_> = items
        .iter()
        .map(|i| i.as_ref().expect("no errors"))
        .collect();
    let kinds: Vec<String> = messages.iter().map(|m| kind(m)).collect();
    assert_eq!(kinds, ["assistant", "result"]);
    assert_eq!(result_text(messages[1]).as_deref(), Some("echo: hello"));
    assert_eq!(json(messages[1])["total_cost_usd"], 0.25);
}

#[tokio::test]
async fn query_with_a_stream_sends_every_message_then_ends() {
    let prompt = Prompt::stream(futures_lite::stream::iter([
        UserInput::text("one"),
        UserInput::text("two"),
    ]));
    let items = collect(fake("echo"), prompt).await;
    let results: Vec<String> = items
        .iter()
        .filter_map(|i| i.as_ref().ok().and_then(result_text))
        .collect();
    assert_eq!(results, ["echo: one", "echo: two"]);
}

#[tokio::test]
async fn prompt_channel_keeps_input_open_until_the_sender_is_dropped() {
    let (tx, prompt) = prompt_channel();
    let mut stream = query(prompt, fake("echo"));
    tx.send("first").await.unwrap();
    let mut results = Vec::new();
    while let Some(item) = tokio::time::timeout(LIMIT, stream.next()).await.unwrap() {
        if let Some(text) = result_text(&item.unwrap()) {
            results.push(text);
            if results.len() == 1 {
                tx.send("second").await.unwrap();
            } else {
                drop(tx.clone());
                break;
            }
        }
    }
    drop(tx);
    let rest: Vec<_> = tokio::time::timeout(LIMIT, stream.collect::<Vec<_>>())
        .await
        .unwrap();
    assert!(rest.iter().all(|i| i.is_ok()), "{rest:?}");
    assert_eq!(results, ["echo: first", "echo: second"]);
}

#[tokio::test]
async fn client_runs_several_turns_and_knows_the_server() {
    let client = Client::connect(fake("echo")).await.unwrap();
    let info = client.server_info().expect("initialize answered");
    assert_eq!(info.commands[0].name, "help");
    for turn in ["first", "second"] {
        client.send(turn).await.unwrap();
        let turn_messages: Vec<_> = client.receive_response().collect().await;
        let texts: Vec<String> = turn_messages
            .iter()
            .map(|m| kind(m.as_ref().unwrap()))
            .collect();
        assert_eq!(texts, ["assistant", "result"]);
        assert_eq!(
            result_text(turn_messages[1].as_ref().unwrap()),
            Some(format!("echo: {turn}"))
        );
    }
    tokio::time::timeout(LIMIT, client.close()).await.unwrap();
    assert!(matches!(client.send("late").await, Err(Error::Closed)));
}

#[tokio::test]
async fn client_control_requests_return_typed_answers() {
    let client = Client::connect(fake("echo")).await.unwrap();
    let receipt = client.interrupt().await.unwrap();
    assert!(receipt.still_queued.is_empty());
    let status = client.mcp_status().await.unwrap();
    assert_eq!(status.mcp_servers[0].name, "calc");
    let usage = client.context_usage().await.unwrap();
    assert_eq!(usage.total_tokens, 1200);
    client.set_model(Some("sonnet")).await.unwrap();
    client.set_max_thinking_tokens(Some(2048)).await.unwrap();
    client.reconnect_mcp_server("calc").await.unwrap();
    client.toggle_mcp_server("calc", false).await.unwrap();
    client.stop_task("task-1").await.unwrap();
    let rewind = client.rewind_files("u-1", true).await.unwrap();
    assert!(!rewind.can_rewind);
    let servers = serde_json::json!({"docs": {"type": "http", "url": "http://127.0.0.1:1/mcp"}});
    let applied = client.set_mcp_servers(&servers).await.unwrap();
    assert!(applied.added.is_empty());
    match client.set_model(Some("bogus")).await {
        Err(Error::ControlRefused { message, .. }) => {
            assert!(message.contains("unknown model"), "{message}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    client.close().await;
}

#[tokio::test]
async fn can_use_tool_answers_allow_and_deny() {
    let options = fake("permission").can_use_tool(|request, _ctx| async move {
        assert_eq!(request.tool_name, "Bash");
        PermissionResult::deny("no shell")
    });
    let reply = last_result(&collect(options, "go").await);
    assert_eq!(reply["subtype"], "success");
    assert_eq!(reply["response"]["behavior"], "deny");
    assert_eq!(reply["response"]["message"], "no shell");

    let options =
        fake("permission").can_use_tool(|_request, _ctx| async { PermissionResult::allow() });
    let reply = last_result(&collect(options, "go").await);
    assert_eq!(reply["response"]["behavior"], "allow");
}

#[tokio::test]
async fn hook_callback_gets_its_input_and_answers() {
    let seen = Arc::new(Mutex::new(None));
    let seen_in_hook = seen.clone();
    let options = fake("hook").hook(
        HookEvent::PreToolUse,
        Some("Bash"),
        move |input, tool_use_id, _ctx| {
            *seen_in_hook.lock().unwrap() = Some((input.event().as_str().to_owned(), tool_use_id));
            async { HookOutput::default() }
        },
    );
    let reply = last_result(&collect(options, "go").await);
    assert_eq!(reply["subtype"], "success", "{reply}");
    assert_eq!(reply["request_id"], "hook-1");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        Some(("PreToolUse".to_owned(), Some("toolu_9".to_owned())))
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

#[tokio::test]
async fn in_process_mcp_tool_is_called_with_typed_arguments() {
    let calc = SdkMcpServer::new("calc", "1.0.0").tool(typed_tool(
        "add",
        "Add two numbers",
        |args: Add| async move { Ok::<_, String>(ToolResult::text((args.a + args.b).to_string())) },
    ));
    let options = fake("mcp").sdk_mcp_server(calc);
    let reply = last_result(&collect(options, "go").await);
    let good = &reply[0]["response"]["mcp_response"]["result"];
    assert_eq!(good["content"][0]["text"], "5", "{reply}");
    assert_ne!(good["isError"], true);
    let bad = &reply[1]["response"]["mcp_response"]["result"];
    assert_eq!(bad["isError"], true, "{reply}");
    assert!(bad["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("invalid arguments"));
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn cancel_request_drops_the_running_callback_and_the_session_goes_on() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = dropped.clone();
    let options = fake("cancel")
        .hook(HookEvent::PreToolUse, None, move |_input, _id, _ctx| {
            let guard = SetOnDrop(flag.clone());
            async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                HookOutput::default()
            }
        })
        .can_use_tool(|_request, _ctx| async { PermissionResult::allow() });
    let reply = last_result(&collect(options, "go").await);
    assert_eq!(reply["request_id"], "perm-after", "{reply}");
    assert_eq!(reply["response"]["behavior"], "allow");
    assert!(
        dropped.load(Ordering::SeqCst),
        "the cancelled hook's future was not dropped"
    );
}

#[tokio::test]
async fn panicking_callback_gives_an_error_reply_and_the_session_goes_on() {
    let options = fake("panic").can_use_tool(|request, _ctx| async move {
        if request.tool_name == "Explode" {
            panic!("kaboom");
        }
        PermissionResult::allow()
    });
    let reply = last_result(&collect(options, "go").await);
    assert_eq!(reply[0]["subtype"], "error", "{reply}");
    assert!(
        reply[0]["error"].as_str().unwrap().contains("kaboom"),
        "{reply}"
    );
    assert_eq!(reply[1]["subtype"], "success");
    assert_eq!(reply[1]["response"]["behavior"], "allow");
}

#[tokio::test]
async fn a_hook_can_interrupt_through_its_context() {
    let options =
        fake("interrupt_hook").hook(HookEvent::PreToolUse, None, |_input, _id, ctx| async move {
            let client = ctx.client().expect("session alive");
            client.interrupt().await.expect("interrupt answered");
            HookOutput::default()
        });
    let reply = last_result(&collect(options, "go").await);
    assert_eq!(reply["seen"], serde_json::json!(["interrupt"]), "{reply}");
    assert_eq!(reply["response"]["subtype"], "success");
}

#[tokio::test]
async fn dropping_the_client_shuts_the_cli_down() {
    let client = Client::connect(fake("hang")).await.unwrap();
    let pid = client
        .server_info()
        .unwrap()
        .pid
        .expect("fake reports its pid");
    assert!(!common::process_gone(pid));
    drop(client);
    // stdin closed → the fake keeps running → SIGTERM after 2 s → reaped.
    assert!(
        wait_gone(pid, Duration::from_secs(5)).await,
        "pid {pid} still there"
    );
}

#[tokio::test]
async fn close_escalates_to_sigkill_when_sigterm_is_ignored() {
    let client = Client::connect(fake("ignore_term")).await.unwrap();
    let pid = client.server_info().unwrap().pid.unwrap();
    let started = Instant::now();
    tokio::time::timeout(Duration::from_secs(12), client.close())
        .await
        .expect("close finished");
    let took = started.elapsed();
    assert!(common::process_gone(pid), "pid {pid} still there");
    assert!(
        took >= Duration::from_secs(7),
        "SIGKILL came after {took:?}, before 2 s + 5 s"
    );
}

#[tokio::test]
async fn dropping_a_query_midway_shuts_the_cli_down() {
    let (tx, prompt) = prompt_channel();
    let stream = query(prompt, fake("hang"));
    let client = stream.client().unwrap();
    tx.send("hi").await.unwrap();
    let info = loop {
        if let Some(info) = client.server_info() {
            break info;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let pid = info.pid.unwrap();
    drop(client);
    drop(stream);
    assert!(
        wait_gone(pid, Duration::from_secs(5)).await,
        "pid {pid} still there"
    );
}

#[tokio::test]
async fn cli_dying_at_start_is_reported_with_its_stderr_at_once() {
    let started = Instant::now();
    let error = Client::connect(fake("die_early")).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    match error {
        Error::Process { exit, stderr_tail } => {
            assert_eq!(exit.code, Some(1));
            assert!(
                stderr_tail.contains("argument 'bogus' is invalid"),
                "{stderr_tail}"
            );
        }
        other => panic!("expected Error::Process, got {other:?}"),
    }

    let items = collect(fake("die_early"), "hi").await;
    assert!(
        matches!(items.last(), Some(Err(Error::Process { .. }))),
        "{items:?}"
    );
}

#[tokio::test]
async fn error_result_then_non_zero_exit_is_a_result_error() {
    let items = collect(fake("error_result"), "hi").await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(kind(items[0].as_ref().unwrap()), "result");
    match &items[1] {
        Err(Error::Result(error)) => assert_eq!(error.subtype, "error_max_turns"),
        other => panic!("expected Error::Result, got {other:?}"),
    }
}

#[tokio::test]
async fn missing_cli_is_cli_not_found() {
    let options = Options::new().cli_path("/nonexistent/bin/claude");
    let items = collect(options.clone(), "hi").await;
    match &items[..] {
        [Err(Error::CliNotFound { searched, .. })] => {
            assert_eq!(searched[0].to_str(), Some("/nonexistent/bin/claude"))
        }
        other => panic!("expected CliNotFound, got {other:?}"),
    }
    assert!(matches!(
        Client::connect(options).await,
        Err(Error::CliNotFound { .. })
    ));
}

#[tokio::test]
async fn stderr_lines_reach_the_callback() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let options = fake("text").stderr(move |line| sink.lock().unwrap().push(line.to_owned()));
    collect(options, "hi").await;
    assert_eq!(*lines.lock().unwrap(), ["fake claude started"]);
}

/// The state letter of `pid` from `/proc/<pid>/stat` (`None` once it has been reaped).
fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next())
}

#[test]
fn dropping_the_runtime_kills_the_cli() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (client, pid) = runtime.block_on(async {
        let client = Client::connect(fake("hang")).await.unwrap();
        let pid = client.server_info().unwrap().pid.unwrap();
        (client, pid)
    });
    assert!(matches!(process_state(pid), Some(s) if s != 'Z'));
    // The driver task is dropped with the runtime, without any shutdown sequence.
    drop(runtime);
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline && !matches!(process_state(pid), None | Some('Z')) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let state = process_state(pid);
    assert!(
        matches!(state, None | Some('Z')),
        "pid {pid} still running: {state:?}"
    );
}

#[tokio::test]
async fn a_line_that_is_not_json_is_a_recoverable_error_item() {
    let items = collect(fake("garbage"), "hi").await;
    assert!(matches!(items[0], Err(Error::Protocol(_))), "{items:?}");
    let rest: Vec<String> = items[1..]
        .iter()
        .map(|i| kind(i.as_ref().unwrap()))
        .collect();
    assert_eq!(rest, ["assistant", "result"]);
}

#[tokio::test]
async fn elicitation_is_answered_by_the_callback_or_declined() {
    use claude_agent_tokio::control::ElicitationResult;
    let options = fake("elicitation").on_elicitation(|request, _ctx| async move {
        assert_eq!(request.message, "Which repository?");
        let content =
            serde_json::value::to_raw_value(&serde_json::json!({"repo": "octo/demo"})).unwrap();
        ElicitationResult::accept(content)
    });
    let reply = last_result(&collect(options, "go").await);
    assert_eq!(reply["response"]["action"], "accept", "{reply}");
    assert_eq!(reply["response"]["content"]["repo"], "octo/demo");

    let reply = last_result(&collect(fake("elicitation"), "go").await);
    assert_eq!(reply["response"]["action"], "decline", "{reply}");
}

#[tokio::test]
async fn a_reader_that_does_not_read_holds_the_cli_back() {
    let progress = std::env::temp_dir().join(format!("claude-flood-{}", std::process::id()));
    let options = fake("flood")
        .env("FAKE_FLOOD", "20000")
        .env("FAKE_PROGRESS", progress.display().to_string());
    let mut stream = query("go", options);
    // Not reading: the driver may buffer a bounded amount, then the CLI blocks on its stdout.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let written: usize = std::fs::read_to_string(&progress)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // It did get going (the driver read a first batch), and then it was held back.
    assert!(
        (100..10_000).contains(&written),
        "the fake wrote {written} of 20000 lines while nobody read"
    );
    let mut count = 0;
    while let Some(item) = tokio::time::timeout(LIMIT, stream.next()).await.unwrap() {
        item.unwrap();
        count += 1;
    }
    assert_eq!(count, 20_001);
    let _ = std::fs::remove_file(progress);
}
