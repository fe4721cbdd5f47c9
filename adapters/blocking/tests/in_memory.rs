//! The blocking API over the testkit's in-memory fake CLI (`FakeTransport`): no process. Each
//! test bounds what it waits for, so that a deadlock fails it instead of hanging the suite.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use claude_agent_blocking::control::ContextUsageDetail;
use claude_agent_blocking::hooks::{HookEvent, HookInput, HookOutput, PreToolUseInput};
use claude_agent_blocking::mcp::{tool, typed_tool, SdkMcpServer};
use claude_agent_blocking::mcp::{ElicitationAction, ElicitationResult, ToolResult};
use claude_agent_blocking::permission::PermissionResult;
use claude_agent_blocking::{
    callback, prompt_channel, query, Client, Error, Message, Messages, Options, Query, TimedOut,
};
use claude_agent_testkit::fake_cli::{Answer, FakeResult, Script, ToolUse};
use claude_agent_testkit::transport::{FakeTransport, SdkLine};
use serde_json::{json, Value};

/// The longest any test waits for one outcome; everything here takes milliseconds.
const LIMIT: Duration = Duration::from_secs(20);

/// Runs `f` on a thread of its own and returns its outcome, or panics if there is none within
/// [`LIMIT`] (a deadlock).
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(LIMIT) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => resume_unwind(panic),
        Err(_) => panic!("{what}: no outcome within {LIMIT:?} (a deadlock?)"),
    }
}

/// Waits until `condition` holds, panicking after [`LIMIT`].
fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !condition() {
        assert!(Instant::now() < deadline, "{what}: not within {LIMIT:?}");
        thread::sleep(Duration::from_millis(5));
    }
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

/// Every item of a query started with `options` over `fake`, within [`LIMIT`].
fn run(
    fake: &FakeTransport,
    prompt: &'static str,
    options: Options,
) -> Vec<Result<Message, Error>> {
    let options = options.transport(fake.clone());
    within("query", move || query(prompt, options).collect())
}

/// The text of the last result of `items`.
fn last_result(items: &[Result<Message, Error>]) -> String {
    match items.last() {
        Some(Ok(Message::Result(result))) => result.result.clone().unwrap_or_default(),
        other => panic!("the last item is not a result: {other:?} of {items:?}"),
    }
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

/// The name of the thread the caller runs on.
fn thread_name() -> String {
    thread::current().name().unwrap_or_default().to_owned()
}

/// Whether the fake CLI has exited (its script ended, or the SDK killed it).
fn exited(fake: &FakeTransport) -> bool {
    fake.waiting_for().is_none()
}

/// Sets a flag when dropped: a closure holding one was dropped with the session's callbacks.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn handles_are_send_and_sync_and_clients_clone() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Client>();
    send::<Query>();
    send::<Messages>();
    let _ = <Client as Clone>::clone;
}

#[test]
fn a_query_iterates_over_every_message_to_the_result() {
    let fake = FakeTransport::new(Script::single_turn("4"));
    let items = run(&fake, "What is 2 + 2?", Options::new());
    assert_eq!(kinds(&items), ["system", "assistant", "result"]);
    assert_eq!(last_result(&items), "4");
    assert_eq!(fake.user_texts(), ["What is 2 + 2?"]);
    assert!(exited(&fake));
}

#[test]
fn a_cli_that_cannot_start_is_the_only_item_of_a_query_and_the_error_of_connect() {
    let options = Options::new().cli_path("/no/such/claude");
    let items: Vec<_> = within("query", {
        let options = options.clone();
        move || query("hi", options).collect()
    });
    assert!(
        matches!(items.as_slice(), [Err(Error::CliNotFound { .. })]),
        "{items:?}"
    );
    let connected = within("connect", move || Client::connect(options));
    assert!(
        matches!(connected, Err(Error::CliNotFound { .. })),
        "{connected:?}"
    );
}

/// A request made as soon as a failed start's stream ends is answered, 200 times: the session's
/// thread ends the start while the caller's thread sends (before, a request in that window
/// waited for ever).
#[test]
fn a_request_right_after_a_failed_start_is_answered() {
    within("200 failed starts", || {
        for round in 0..200 {
            let mut messages = query("hi", Options::new().cli_path("/no/such/claude"));
            let client = messages.client();
            assert!(matches!(
                messages.next(),
                Some(Err(Error::CliNotFound { .. }))
            ));
            assert!(messages.next().is_none());
            let status = client.mcp_status();
            assert!(
                matches!(status, Err(Error::Closed)),
                "round {round}: {status:?}"
            );
        }
    });
}

#[test]
fn a_permission_closure_runs_off_the_sessions_thread_and_its_answer_reaches_the_cli() {
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
    let ran_on = Arc::new(Mutex::new(Vec::new()));
    let options = Options::new().on_permission_request(callback::permission({
        let ran_on = ran_on.clone();
        move |request, _ctx| {
            ran_on.lock().unwrap().push(thread_name());
            match request.tool_name.as_str() {
                "Bash" => PermissionResult::deny("not here"),
                _ => PermissionResult::allow(),
            }
        }
    }));
    let items = run(&fake, "clean up", options);
    assert_eq!(last_result(&items), "kept");
    let answer = answer_to(&fake, "p1").unwrap();
    assert_eq!(answer["behavior"], "deny");
    assert_eq!(answer["message"], "not here");
    let ran_on = ran_on.lock().unwrap();
    assert_eq!(ran_on.len(), 1);
    assert!(ran_on[0].starts_with("blocking-"), "{ran_on:?}");
}

#[test]
fn hook_closures_typed_and_untyped_answer_the_cli() {
    let bash = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf /"}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_tool_use(&bash)
        .pre_tool_use_hook("h1", &bash)
        .stop_hook("h2", "done")
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let options = Options::new()
        .on_hook(
            Some("Bash"),
            callback::hook(|input: PreToolUseInput, _ctx| {
                #[derive(serde::Deserialize)]
                struct Bash {
                    command: String,
                }
                let bash: Bash = input.tool_input.parse().unwrap();
                HookOutput::deny_tool(format!("not {}", bash.command))
            }),
        )
        .on_hook_event(
            HookEvent::Stop,
            None,
            callback::hook(|input, _ctx| {
                assert!(matches!(input, HookInput::Stop(_)), "{input:?}");
                HookOutput::block("run the tests first")
            }),
        );
    let items = run(&fake, "go", options);
    assert_eq!(last_result(&items), "done");
    let deny = answer_to(&fake, "h1").unwrap();
    assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        deny["hookSpecificOutput"]["permissionDecisionReason"],
        "not rm -rf /"
    );
    let block = answer_to(&fake, "h2").unwrap();
    assert_eq!(block["decision"], "block");
    assert_eq!(block["reason"], "run the tests first");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[test]
fn in_process_tool_closures_are_called_and_their_results_reach_the_cli() {
    let add = ToolUse::mcp("toolu_1", "calc", "add", json!({"a": 2, "b": 40}));
    let echo = ToolUse::mcp("toolu_2", "calc", "echo", json!({"text": "hi"}));
    let broken = ToolUse::mcp("toolu_3", "calc", "fail", json!({}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .call_tool("m1", &add)
        .call_tool("m2", &echo)
        .call_tool("m3", &broken)
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let calc = SdkMcpServer::new("calc", "1.0")
        .tool(typed_tool("add", "Adds two integers", |args: Add| {
            Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
        }))
        .tool(tool(
            "echo",
            "Repeats its text",
            json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            |args| Ok::<_, String>(ToolResult::text(format!("echo: {}", args["text"]))),
        ))
        .tool(tool("fail", "Fails", json!({"type": "object"}), |_args| {
            Err::<ToolResult, _>(std::io::Error::other("disk on fire"))
        }));
    let items = run(&fake, "go", Options::new().sdk_mcp_server(calc));
    assert_eq!(last_result(&items), "done");
    let content = |id| answer_to(&fake, id).unwrap()["mcp_response"]["result"].clone();
    assert_eq!(content("m1")["content"][0]["text"], "42");
    assert_eq!(content("m2")["content"][0]["text"], r#"echo: "hi""#);
    assert_eq!(content("m3")["isError"], true);
    assert_eq!(content("m3")["content"][0]["text"], "disk on fire");
}

#[test]
fn an_elicitation_closure_answers_the_cli() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .elicitation("e1", "tickets", "Which project?")
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let options = Options::new().on_elicitation(callback::elicitation(|request, _ctx| {
        assert_eq!(request.message, "Which project?");
        ElicitationResult::accept(json!({"project": "core"}))
    }));
    let items = run(&fake, "go", options);
    assert_eq!(last_result(&items), "done");
    let answer = answer_to(&fake, "e1").unwrap();
    assert_eq!(answer["action"], "accept");
    assert_eq!(answer["content"]["project"], "core");
    // The action the closure chose, as the type names it.
    assert_eq!(
        ElicitationResult::decline().action,
        ElicitationAction::Decline
    );
}

#[test]
fn a_panicking_closure_is_an_error_answer_and_the_session_goes_on() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .can_use_tool("p1", "Bash", json!({"command": "ls"}))
        .emit_result("still here");
    let fake = FakeTransport::new(script);
    let options = Options::new().on_permission_request(callback::permission(
        |_request, _ctx| -> PermissionResult { panic!("boom") },
    ));
    let items = run(&fake, "go", options);
    assert_eq!(last_result(&items), "still here");
    let error = answer_to(&fake, "p1").unwrap_err();
    assert!(error.contains("boom"), "{error}");
}

/// A turn the fake CLI ends only when it is interrupted.
fn interruptible_turn() -> Script {
    Script::new()
        .answer_initialize()
        .expect_user()
        .emit_assistant_text("working")
        .expect_request_as("interrupt", "interrupt")
        .respond(
            "interrupt",
            Answer::success(json!({"still_queued": [], "cancelled": ["u1"]})),
        )
        .emit_result_with(FakeResult::error_during_execution())
}

#[test]
fn another_thread_interrupts_a_turn_that_one_thread_reads() {
    let fake = FakeTransport::new(interruptible_turn());
    let options = Options::new().transport(fake.clone());
    let client = within("connect", move || Client::connect(options)).unwrap();
    within("send", {
        let client = client.clone();
        move || client.send("count to a million")
    })
    .unwrap();
    let (seen, saw) = mpsc::channel();
    let reader = {
        let client = client.clone();
        thread::spawn(move || {
            let mut items = Vec::new();
            for item in client.receive_response() {
                if matches!(item, Ok(Message::Assistant(_))) {
                    seen.send(()).unwrap();
                }
                items.push(item);
            }
            items
        })
    };
    saw.recv_timeout(LIMIT)
        .expect("the reader saw the turn start");
    let receipt = within("interrupt", {
        let client = client.clone();
        move || client.interrupt()
    })
    .unwrap();
    assert_eq!(receipt.cancelled, ["u1"]);
    let items = within("the reader", move || reader.join().unwrap());
    assert_eq!(kinds(&items), ["assistant", "result"]);
    let Some(Ok(Message::Result(result))) = items.last() else {
        unreachable!()
    };
    assert_eq!(result.subtype, "error_during_execution");
    within("close", move || client.close());
    assert!(exited(&fake));
}

#[test]
fn next_timeout_times_out_without_losing_the_message_that_comes_later() {
    let fake = FakeTransport::new(interruptible_turn());
    let options = Options::new().transport(fake.clone());
    within("the turn", move || {
        let client = Client::connect(options).unwrap();
        client.send("go").unwrap();
        let mut reply = client.receive_response();
        let first = reply.next_timeout(LIMIT).unwrap();
        assert!(
            matches!(first, Some(Ok(Message::Assistant(_)))),
            "{first:?}"
        );
        let started = Instant::now();
        assert_eq!(
            reply.next_timeout(Duration::from_millis(50)).map(|_| ()),
            Err(TimedOut)
        );
        assert!(started.elapsed() >= Duration::from_millis(50));
        client.interrupt().unwrap();
        let last = reply.next_timeout(LIMIT).unwrap();
        assert!(matches!(last, Some(Ok(Message::Result(_)))), "{last:?}");
        assert!(matches!(reply.next_timeout(LIMIT), Ok(None)));
    });
}

#[test]
fn client_methods_called_from_inside_a_callback_do_not_deadlock() {
    let bash = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_tool_use(&bash)
        .can_use_tool_then(
            "p1",
            &bash,
            |allowed| {
                allowed
                    .emit_tool_result(&bash, "src")
                    .emit_result("allowed")
            },
            |denied| denied.emit_result("denied"),
        )
        .auto_answer("set_model", Answer::ack());
    let fake = FakeTransport::new(script);
    let options = Options::new().on_permission_request(callback::permission(|_request, ctx| {
        let client = ctx.client();
        client.set_model(Some("claude-from-callback")).unwrap();
        let status = client.mcp_status().unwrap();
        assert!(status.mcp_servers.is_empty(), "{status:?}");
        PermissionResult::allow()
    }));
    let items = run(&fake, "list", options);
    assert_eq!(last_result(&items), "allowed");
    let written = fake.written();
    let set_model = written.iter().position(|line| {
        matches!(line, SdkLine::ControlRequest { subtype, request, .. }
            if subtype == "set_model" && request["model"] == "claude-from-callback")
    });
    let answer = written.iter().position(
        |line| matches!(line, SdkLine::ControlResponse { request_id, .. } if request_id == "p1"),
    );
    assert!(
        set_model.is_some() && set_model < answer,
        "set_model before the answer: {written:?}"
    );
}

#[test]
fn a_slow_callback_holds_up_no_other_session() {
    let slow = FakeTransport::new(
        Script::new()
            .answer_initialize()
            .expect_user()
            .can_use_tool("p1", "Bash", json!({"command": "ls"}))
            .emit_result("slow done"),
    );
    let (started, has_started) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let options = Options::new()
        .transport(slow.clone())
        .on_permission_request(callback::permission(move |_request, _ctx| {
            started.send(()).unwrap();
            released.lock().unwrap().recv_timeout(LIMIT).unwrap();
            PermissionResult::allow()
        }));
    let slow_session = thread::spawn(move || query("slow", options).collect::<Vec<_>>());
    has_started
        .recv_timeout(LIMIT)
        .expect("the slow callback started");

    // While the first session's callback blocks, a second session runs from start to end.
    let quick = FakeTransport::new(Script::single_turn("quick done"));
    let items = run(&quick, "quick", Options::new());
    assert_eq!(last_result(&items), "quick done");

    release.send(()).unwrap();
    let items = within("the slow session", move || slow_session.join().unwrap());
    assert_eq!(last_result(&items), "slow done");
}

#[test]
fn dropping_a_query_ends_its_session() {
    // A turn that never ends: the fake CLI exits when its stdin closes.
    let fake = FakeTransport::new(
        Script::new()
            .answer_initialize()
            .expect_user()
            .emit_assistant_text("partial"),
    );
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = DropFlag(dropped.clone());
    let options = Options::new()
        .transport(fake.clone())
        .on_permission_request(callback::permission(move |_request, _ctx| {
            let _held = &flag;
            PermissionResult::allow()
        }));
    let first = within("the first message", {
        let fake = fake.clone();
        move || {
            let mut messages = query("go", options);
            let first = messages.next();
            assert!(!exited(&fake), "the session runs while the query lives");
            first
        }
    });
    assert!(
        matches!(first, Some(Ok(Message::Assistant(_)))),
        "{first:?}"
    );
    wait_until("the CLI exited", || exited(&fake));
    wait_until("the session's callbacks dropped", || {
        dropped.load(Ordering::SeqCst)
    });
}

#[test]
fn a_session_ends_when_its_last_client_is_dropped() {
    let fake = FakeTransport::new(Script::single_turn("one"));
    let options = Options::new().transport(fake.clone());
    let client = within("connect", move || Client::connect(options)).unwrap();
    let clone = client.clone();
    let items: Vec<_> = within("the turn", move || {
        clone.send("first").unwrap();
        clone.receive_response().collect()
    });
    assert_eq!(last_result(&items), "one");
    // The clone is gone; `client` still holds the session.
    thread::sleep(Duration::from_millis(50));
    assert!(!exited(&fake), "{:?}", fake.waiting_for());
    drop(client);
    wait_until("the CLI exited", || exited(&fake));
}

#[test]
fn a_client_runs_many_turns_and_control_calls_and_close_waits_for_the_end() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_result("one")
        .expect_user()
        .emit_result("two")
        .auto_answer_like_cli();
    let fake = FakeTransport::new(script);
    let options = Options::new().transport(fake.clone());
    within("the session", move || {
        let client = Client::connect(options).unwrap();
        assert!(client.server_info().is_some());
        let mut results = Vec::new();
        for turn in ["first", "second"] {
            client.send(turn).unwrap();
            let items: Vec<_> = client.receive_response().collect();
            results.push(last_result(&items));
        }
        assert_eq!(results, ["one", "two"]);
        client.set_model(Some("claude-next")).unwrap();
        client.stop_task("task-1").unwrap();
        let refused = client.context_usage(ContextUsageDetail::Full);
        assert!(
            matches!(refused, Err(Error::ControlRefused { .. })),
            "{refused:?}"
        );
        client.close();
        assert!(matches!(client.send("third"), Err(Error::Closed)));
    });
    assert!(exited(&fake));
    assert_eq!(fake.user_texts(), ["first", "second"]);
    let subtypes: Vec<String> = fake
        .written()
        .into_iter()
        .filter_map(|line| match line {
            SdkLine::ControlRequest { subtype, .. } => Some(subtype),
            _ => None,
        })
        .collect();
    assert_eq!(
        subtypes,
        ["initialize", "set_model", "stop_task", "get_context_usage"]
    );
}

#[test]
fn a_prompt_channel_feeds_a_query_from_another_thread() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_result("one")
        .expect_user()
        .emit_result("two");
    let fake = FakeTransport::new(script);
    let options = Options::new().transport(fake.clone());
    let (sender, prompt) = prompt_channel();
    let messages = query(prompt, options);
    let feeder = thread::spawn(move || {
        sender.send("first").unwrap();
        sender.send("second").unwrap();
    });
    let items: Vec<_> = within("the query", move || messages.collect());
    feeder.join().unwrap();
    let results: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            Ok(Message::Result(result)) => result.result.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["one", "two"]);
    assert_eq!(fake.user_texts(), ["first", "second"]);
}

#[test]
fn a_client_call_from_the_stderr_callback_panics_instead_of_waiting_for_ever() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .stderr("a warning\n")
        .emit_result("done");
    let fake = FakeTransport::new(script);
    // The callback reaches the session through this slot, emptied at the end so that the
    // session can end.
    let slot: Arc<Mutex<Option<Client>>> = Arc::default();
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let options = Options::new().transport(fake.clone()).on_stderr({
        let slot = slot.clone();
        let outcomes = outcomes.clone();
        move |_line| {
            let client = slot.lock().unwrap().clone();
            if let Some(client) = client {
                let called = catch_unwind(AssertUnwindSafe(|| client.mcp_status()));
                outcomes.lock().unwrap().push(called.is_err());
            }
        }
    });
    let items: Vec<_> = within("the session", {
        let slot = slot.clone();
        move || {
            let client = Client::connect(options).unwrap();
            *slot.lock().unwrap() = Some(client.clone());
            client.send("go").unwrap();
            client.receive_response().collect()
        }
    });
    assert_eq!(last_result(&items), "done");
    assert_eq!(*outcomes.lock().unwrap(), [true], "the call panicked");
    slot.lock().unwrap().take();
    wait_until("the CLI exited", || exited(&fake));
}

#[test]
fn closing_the_session_from_inside_a_callback_returns_and_ends_the_query() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .can_use_tool("p1", "Bash", json!({"command": "ls"}))
        .emit_result("never");
    let fake = FakeTransport::new(script);
    let closed = Arc::new(AtomicBool::new(false));
    let options = Options::new().on_permission_request(callback::permission({
        let closed = closed.clone();
        move |_request, ctx| {
            ctx.client().close();
            closed.store(true, Ordering::SeqCst);
            PermissionResult::allow()
        }
    }));
    let items = run(&fake, "go", options);
    assert!(
        !items
            .iter()
            .any(|item| matches!(item, Ok(Message::Result(_)))),
        "{items:?}"
    );
    wait_until("close returned in the callback", || {
        closed.load(Ordering::SeqCst)
    });
    assert!(exited(&fake));
}
