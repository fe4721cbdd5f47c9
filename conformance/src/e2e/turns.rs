//! Turns: a query, several turns, streaming, structured output, interrupts, stalls, recording and a custom transport.

use super::*;

/// A one-turn query: the echoed text, a success result with session id, usage and cost.
pub async fn hello<R: Runtime>(rt: R) {
    let env = env();
    let started = Instant::now();
    let messages = ask(&rt, "hello there", env.options.clone()).await;
    assert_eq!(texts(&messages), ["echo: hello there"]);
    let Some(Message::System(SystemMessage::Init(init))) = messages.first() else {
        panic!("first message is not system/init: {messages:#?}")
    };
    let Some(Message::Result(result)) = messages.last() else {
        panic!("last message is not a result: {messages:#?}")
    };
    assert_eq!(result.subtype, "success");
    assert!(!result.is_error);
    assert_eq!(result.result.as_deref(), Some("echo: hello there"));
    assert!(!result.session_id().is_empty());
    assert_eq!(result.session_id(), init.session_id());
    assert_eq!(result.num_turns, 1);
    let usage = result.usage.as_ref().expect("result has usage");
    assert!(usage.input_tokens > 0, "{usage:?}");
    assert!(usage.output_tokens > 0, "{usage:?}");
    let cost = result.total_cost_usd.expect("result has a cost");
    assert!(cost > 0.0, "cost {cost}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
}

/// An interrupt during a long Bash command ends the turn at once; the next turn is normal.
///
/// The command ends in a `touch` so that the CLI asks for it (`sleep 20 && echo …` runs without
/// asking): the permission request says when the tool is about to start.
pub async fn interrupt_long_tool<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone());
    let client = connected(&rt, options).await;
    within(
        &rt,
        STEP,
        "send",
        client.send("BASH:sleep 20 && touch slept"),
    )
    .await
    .unwrap();
    wait_until(&rt, STEP, "permission asked", || {
        !asked.lock().unwrap().is_empty()
    })
    .await;
    // Let the tool start.
    sleep(&rt, Duration::from_millis(500)).await;
    let interrupted_at = Instant::now();
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("interrupt answered");
    let first = all_ok(collect(&rt, "interrupted turn", client.receive_response()).await);
    let result = only_result(&first);
    assert!(
        interrupted_at.elapsed() < Duration::from_secs(10),
        "turn ended {:?} after the interrupt",
        interrupted_at.elapsed()
    );
    assert!(result.is_error, "{result:?}");
    assert_eq!(result.subtype, "error_during_execution", "{result:?}");
    assert!(result.was_interrupted(), "{result:?}");
    assert_eq!(
        result.terminal_reason.as_deref(),
        Some("aborted_tools"),
        "{result:?}"
    );

    assert!(!env.work.path().join("slept").exists());
    assert_eq!(
        interrupts_not_applied(&first),
        [],
        "the interrupt was applied"
    );

    // The CLI sends the aborted tool's result with the next user text, so the conventions'
    // "after a tool result" rule would answer; queue the reply instead.
    env.stub.push_reply(Reply::text("second reply"));
    let second = run_turn(&rt, &client, "second turn").await;
    assert_eq!(texts(&second), ["second reply"]);
    let request = env.stub.main_requests().pop().expect("a request");
    // The CLI tells the model about the interruption in the same user turn.
    assert_eq!(
        request.last_user_text().as_deref(),
        Some("[Request interrupted by user for tool use]\n\nsecond turn")
    );
    assert_eq!(only_result(&second).subtype, "success");
    within(&rt, STEP, "close", client.close()).await;
}

/// The stub API never answers the model request: with a stall watch of 4 s that interrupts and
/// closes, the query ends with `Error::Stalled` (the CLI was alive), naming the CLI's last line,
/// within seconds instead of never. (With 2 s, a CLI on a loaded 2-core machine once printed
/// nothing before the stall, so there was no last line to name.)
pub async fn stalled_turn_closes<R: Runtime>(rt: R) {
    use claude_agent_core::session::{OnStall, StallWatch};

    let env = env();
    env.stub.push_reply(Reply::delay(
        Duration::from_secs(600),
        Reply::text("far too late"),
    ));
    let watch = StallWatch {
        then: OnStall::InterruptThenClose,
        ..StallWatch::new(Duration::from_secs(4))
    };
    let options = env.options.clone().stall_watch(watch);
    let started = Instant::now();
    let items = collect(&rt, "query", query_with(rt.clone(), "hello", options)).await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    match items.last() {
        Some(Err(Error::Stalled(stall))) => {
            assert!(stall.idle_for >= Duration::from_secs(4), "{stall:?}");
            assert!(stall.last_event.is_some(), "{stall:?}");
            assert!(stall.in_flight_tools.is_empty(), "{stall:?}");
        }
        other => panic!("not Error::Stalled: {other:?}"),
    }
}

/// A Bash command that runs longer than the stall limit is silence the CLI accounts for: no
/// stall is reported, and the turn ends normally. The limit leaves the CLI room to answer the
/// prompt's first event on a loaded machine (1.5 s, then 2.5 s, were once not enough with the
/// whole suite and the fuzzers running); the command outlasts it by twice.
pub async fn long_tool_is_not_a_stall<R: Runtime>(rt: R) {
    use claude_agent_core::message::NoticeKind;
    use claude_agent_core::session::StallWatch;

    let env = env();
    let options = env
        .options
        .clone()
        .allowed_tools(["Bash"])
        .stall_watch(StallWatch::new(Duration::from_secs(4)));
    let items = ask(&rt, "BASH:sleep 8 && echo woke", options).await;
    let stalls: Vec<&Message> = items
        .iter()
        .filter(|m| matches!(m, Message::Notice(n) if matches!(n.kind, NoticeKind::Stalled(_))))
        .collect();
    assert!(stalls.is_empty(), "{stalls:?}");
    assert!(last_tool_result(&env.stub).contains("woke"));
    assert_eq!(only_result(&items).subtype, "success");
}

/// A client over three turns: each reply is its own, and the model sees the whole conversation.
pub async fn multi_turn<R: Runtime>(rt: R) {
    let env = env();
    let client = connected(&rt, env.options.clone()).await;
    let mut session = None;
    for turn in ["first question", "second question", "third question"] {
        let messages = run_turn(&rt, &client, turn).await;
        assert_eq!(texts(&messages), [format!("echo: {turn}")]);
        let result = only_result(&messages);
        assert_eq!(result.subtype, "success");
        assert_eq!(
            *session.get_or_insert(result.session_id().to_owned()),
            result.session_id()
        );
    }
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(
        body.contains("first question") && body.contains("echo: second question"),
        "{body}"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// A short background shell with a string prompt: the run ends at the CLI's `idle` after the
/// first result (a shell does not hold stdin open), and the CLI, its input over, still waits
/// for the shell: its end (`task_updated`, `task_notification`) and the turn it wakes for
/// arrive. That turn can no longer ask the host: the CLI refuses its permission prompt itself
/// ("Stream closed"), and the model goes on with that answer.
pub async fn background_task<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "sleep 2 && echo bg-finished", "description": "wait", "run_in_background": true}),
    ));
    env.stub.push_reply(Reply::text("started it"));
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "touch after-bg && ls", "description": "follow up"}),
    ));
    env.stub.push_reply(Reply::text("followed up"));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone());
    let messages = ask(&rt, "run it in the background", options).await;
    let found: Vec<_> = results(&messages)
        .iter()
        .map(|r| (r.subtype.as_str(), r.result.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        found,
        [
            ("success", "started it".to_owned()),
            ("success", "followed up".to_owned())
        ],
        "{messages:#?}"
    );
    let ended = messages.iter().any(|m| {
        matches!(m, Message::System(SystemMessage::TaskNotification(t)) if t.status == "completed")
    });
    assert!(ended, "the shell's end is delivered: {messages:#?}");
    assert!(
        asked.lock().unwrap().is_empty(),
        "the woken turn cannot ask"
    );
    assert!(
        last_tool_result(&env.stub).contains("Stream closed"),
        "{}",
        last_tool_result(&env.stub)
    );
    assert!(!env.work.path().join("after-bg").exists());
}

/// A background shell that runs on (a dev server), with a permission callback: the session
/// closes stdin at the CLI's `idle` after the result, as for any shell, and the CLI, which
/// would wait for the shell however long it runs, is ended once the run-end ceiling passes
/// since its last turn. The stream ends without an error, and the shell goes with the CLI.
pub async fn background_server_ends_with_the_run<R: Runtime>(rt: R) {
    let env = env();
    let marker = format!("bg-server-{}", std::process::id());
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": format!("sleep 300 && echo {marker}"), "description": "serve", "run_in_background": true}),
    ));
    env.stub.push_reply(Reply::text("serving"));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked)
        .env("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", "2000");
    let started = Instant::now();
    let mut messages = query_with(rt.clone(), "start the server", options);
    let mut result_at = None;
    while let Some(item) = within(&rt, STEP, "the stream", messages.next()).await {
        let message = item.unwrap_or_else(|e| panic!("no error item: {e:?}"));
        if matches!(message, Message::Result(_)) {
            result_at = Some(Instant::now());
        }
    }
    let result_at = result_at.expect("the turn's result");
    let after = result_at.elapsed();
    // The ceiling (2 s), then the close's 2 s grace before SIGTERM, and slack for a busy machine.
    assert!(
        after < Duration::from_secs(12),
        "the stream ended {after:?} after the result ({:?} in all)",
        started.elapsed()
    );
    let shells = shells_running(&marker);
    assert!(
        shells.is_empty(),
        "the shell outlived the session: {shells:?}"
    );
}

/// Work the CLI takes up after `idle` (a background shell finished and woke it) opens the run
/// again: the host ends its input as that turn starts, and stdin stays open for the turn's
/// permission prompt, which the host answers; stdin closes at the turn's end.
pub async fn a_turn_taken_up_after_idle_keeps_its_prompts<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "sleep 2 && echo bg-finished", "description": "wait", "run_in_background": true}),
    ));
    env.stub.push_reply(Reply::text("started it"));
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "touch after-wake && ls", "description": "follow up"}),
    ));
    env.stub.push_reply(Reply::text("followed up"));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = connected(&rt, allow_and_record(env.options.clone(), asked.clone())).await;
    within(&rt, STEP, "send", client.send("run it in the background"))
        .await
        .expect("sent");
    let mut messages = client.receive_messages();
    let mut seen = Vec::new();
    let mut input_ended = false;
    while let Some(item) = within(&rt, STEP, "the stream", messages.next()).await {
        let message = item.unwrap_or_else(|e| panic!("no error item: {e:?}"));
        let first_done = results(&seen).len() == 1;
        // The woken turn's `init` comes after the CLI said it runs again.
        if first_done && !input_ended && matches!(message, Message::System(SystemMessage::Init(_)))
        {
            within(&rt, STEP, "end_input", client.end_input())
                .await
                .expect("input ended");
            input_ended = true;
        }
        seen.push(message);
    }
    assert!(input_ended, "the CLI woke: {seen:#?}");
    assert_eq!(*asked.lock().unwrap(), ["Bash:touch after-wake && ls"]);
    assert!(env.work.path().join("after-wake").exists());
    let found: Vec<_> = results(&seen)
        .iter()
        .map(|r| r.result.clone().unwrap_or_default())
        .collect();
    assert_eq!(found, ["started it", "followed up"]);
}

/// The processes whose command line holds `marker` (Linux: `/proc`).
fn shells_running(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|raw| String::from_utf8_lossy(&raw).contains(marker))
        })
        .collect()
}

/// `max_turns(1)` with a tool call: the `error_max_turns` result reaches the user as a message,
/// followed by an [`Error::Result`] saying the same (the CLI exits 1), and nothing else.
pub async fn max_turns<R: Runtime>(rt: R) {
    let env = env();
    let options = env.options.clone().max_turns(1);
    let mut items = collect(
        &rt,
        "query",
        query_with(rt.clone(), "BASH:echo one-turn", options),
    )
    .await;
    let last = items.pop().expect("some items");
    let messages = all_ok(items);
    let result = only_result(&messages);
    assert_eq!(result.subtype, "error_max_turns", "{result:?}");
    assert!(result.is_error);
    assert!(
        matches!(messages.last(), Some(Message::Result(_))),
        "{messages:#?}"
    );
    match &last {
        Err(Error::Result(error)) => {
            assert_eq!(error.subtype, "error_max_turns");
            assert_eq!(error.exit.code, Some(1));
        }
        other => panic!("expected Error::Result last, got {other:?}"),
    }
}

/// `include_partial_messages`: stream events arrive before the assistant message.
pub async fn partial_messages<R: Runtime>(rt: R) {
    let env = env();
    let options = env.options.clone().include_partial_messages(true);
    let messages = ask(&rt, "stream this reply", options).await;
    let assistant_at = messages
        .iter()
        .position(|m| matches!(m, Message::Assistant(_)))
        .expect("an assistant message");
    let events: Vec<&str> = messages[..assistant_at]
        .iter()
        .filter_map(|m| match m {
            Message::StreamEvent(e) => Some(e.event_json()),
            _ => None,
        })
        .collect();
    assert!(
        events.iter().any(|e| e.contains("\"message_start\"")),
        "{events:?}"
    );
    let deltas: String = events
        .iter()
        .filter_map(|e| serde_json::from_str::<serde_json::Value>(e).ok())
        .filter(|e| e["type"] == "content_block_delta")
        .filter_map(|e| e["delta"]["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(deltas, "echo: stream this reply");
    assert_eq!(texts(&messages), ["echo: stream this reply"]);
}

/// Structured output from a Rust type: `output_type::<Answer>()` gives the CLI the type's schema,
/// the model calls `StructuredOutput` with a matching object, and `result.structured()` reads it
/// back as an `Answer`.
pub async fn structured_output<R: Runtime>(rt: R) {
    #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
    struct Answer {
        answer: i64,
    }

    let env = env();
    env.stub
        .push_reply(Reply::tool_use("StructuredOutput", json!({"answer": 42})));
    let options = env.options.clone().output_type::<Answer>();
    let messages = ask(&rt, "answer in JSON", options).await;
    let result = only_result(&messages);
    assert_eq!(result.subtype, "success", "{result:?}");
    assert_eq!(
        result.structured::<Answer>().unwrap(),
        Answer { answer: 42 }
    );
    // The schema the CLI was given is the type's.
    let asked = env.stub.main_requests();
    let tools = asked.first().expect("a request").body["tools"].to_string();
    assert!(
        tools.contains("StructuredOutput") && tools.contains(r#""answer""#),
        "{tools}"
    );
}

/// The small app [`record_and_replay`] records: a permission policy that refuses Bash, and a
/// PreToolUse hook that lets every tool through to it. The testkit's `tests/replay.rs` replays
/// the recording kept in `testkit/tests/recordings/` with the same app.
fn recorded_app(options: Options) -> Options {
    options
        .on_hook(
            Some("Bash"),
            |_input: claude_agent_core::hooks::PreToolUseInput, _ctx| async {
                HookOutput::proceed()
            },
        )
        .on_permission_request(|request, _ctx| async move {
            match request.tool_name.as_str() {
                "Bash" => PermissionResult::deny("this app does not run commands"),
                _ => PermissionResult::allow(),
            }
        })
}

/// `Options::record_to` against the real CLI, then that recording replayed through the
/// testkit's `FakeTransport` with the same app: the same messages come out, and the SDK writes
/// what it wrote to the real CLI. `E2E_KEEP_RECORDING=<path>` keeps a copy of the recording.
pub async fn record_and_replay<R: Runtime>(rt: R) {
    use claude_agent_testkit::transport::FakeTransport;

    let env = env();
    let path = env.work.path().join("session.jsonl");
    let prompt = "BASH:touch never-made && ls";
    let live = ask(
        &rt,
        prompt,
        recorded_app(env.options.clone()).record_to(&path),
    )
    .await;
    assert!(!env.work.path().join("never-made").exists());
    let recording = std::fs::read_to_string(&path).expect("the recording was written");
    if let Some(keep) = std::env::var_os("E2E_KEEP_RECORDING") {
        std::fs::write(keep, &recording).expect("keep the recording");
    }
    let recorded = claude_agent_core::recording::Recording::parse(&recording)
        .unwrap_or_else(|e| panic!("{e}"));
    let subtypes: Vec<String> = recorded
        .lines()
        .iter()
        .filter_map(|line| {
            let json: serde_json::Value = serde_json::from_str(line.json.as_str()).ok()?;
            Some(json.pointer("/request/subtype")?.as_str()?.to_owned())
        })
        .collect();
    for expected in ["initialize", "hook_callback", "can_use_tool"] {
        assert!(subtypes.iter().any(|s| s == expected), "{subtypes:?}");
    }

    let fake = FakeTransport::replay(&recording).unwrap_or_else(|e| panic!("{e}"));
    let replayed = ask(
        &rt,
        prompt,
        recorded_app(Options::new()).transport(fake.clone()),
    )
    .await;
    let lines = |messages: &[Message]| -> Vec<String> {
        messages.iter().map(|m| m.raw_json().to_owned()).collect()
    };
    assert_eq!(lines(&replayed), lines(&live));
    fake.verify().unwrap_or_else(|e| panic!("{e}"));
}

/// `Options::transport` with a transport of the user's own that hands the real CLI's command
/// line on to the runtime's local process, which gives it its pipes, stderr and process: the
/// session runs as over a spawned CLI, and a CLI that fails is reported with its exit status
/// and stderr.
pub async fn custom_transport<R: Runtime>(rt: R) {
    use claude_agent_core::options::LaunchSpec;

    let env = env();
    let started = Arc::new(AtomicUsize::new(0));
    let transport = {
        let local = rt.local_process().expect("a runtime with a local process");
        let started = started.clone();
        move |spec: LaunchSpec| {
            started.fetch_add(1, Ordering::SeqCst);
            local.connect(spec)
        }
    };
    let options = env.options.clone().transport(transport.clone());
    let messages = ask(&rt, "over a transport", options).await;
    assert_eq!(texts(&messages), ["echo: over a transport"]);
    assert_eq!(only_result(&messages).subtype, "success");

    let failing = env
        .options
        .clone()
        .permission_mode(PermissionMode::from_name("bogus"))
        .transport(transport);
    match within(&rt, STEP, "connect", connect_with(rt.clone(), failing)).await {
        Err(Error::StartFailed {
            failure,
            stderr_tail,
        }) => {
            assert_eq!(failure.exit.code, Some(1));
            assert!(stderr_tail.contains("bogus"), "{stderr_tail}");
        }
        other => panic!("expected Error::StartFailed, got {other:?}"),
    }
    assert_eq!(started.load(Ordering::SeqCst), 2);
}

/// An interrupt the real CLI accepts while no turn runs changes nothing: the session says so
/// with a notice (an applied one, in `interrupt_long_tool`, brings none).
pub async fn interrupt_not_applied<R: Runtime>(rt: R) {
    let env = env();
    let client = connected(&rt, env.options.clone()).await;
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("the CLI accepts it");
    let turn = run_turn(&rt, &client, "hello").await;
    assert_eq!(
        interrupts_not_applied(&turn),
        [InterruptNotApplied::NoTurnRunning],
        "{turn:?}"
    );
    assert_eq!(only_result(&turn).subtype, "success");
    within(&rt, STEP, "close", client.close()).await;
}

/// `shouldQuery: false` (`UserInput::with_should_query(false)`): the CLI keeps the message and
/// answers at once with a result of no turn (`num_turns` 0), calling no model; the next message
/// that starts a turn carries it to the model.
pub async fn context_only_message<R: Runtime>(rt: R) {
    let env = env();
    let client = connected(&rt, env.options.clone()).await;
    let note =
        UserInput::text("Note: the user is on the staging account.").with_should_query(false);
    within(&rt, STEP, "send note", client.send(note))
        .await
        .unwrap();
    let noted = all_ok(collect(&rt, "note", client.receive_response()).await);
    let result = only_result(&noted);
    assert_eq!(
        (result.subtype.as_str(), result.num_turns),
        ("success", 0),
        "{result:?}"
    );
    assert!(
        env.stub.main_requests().is_empty(),
        "no model call for the note"
    );
    let turn = run_turn(&rt, &client, "which account?").await;
    assert_eq!(only_result(&turn).num_turns, 1);
    let asked = env.stub.main_requests();
    assert_eq!(asked.len(), 1);
    let body = serde_json::to_string(&asked[0].body).unwrap();
    assert!(
        body.contains("staging account"),
        "the note reached the model: {body}"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// A message queued behind a running turn is dropped by `cancel_message`; another, queued
/// behind the next, by `interrupt_and_cancel_queued`, which lists it as cancelled; neither ever
/// reaches the model.
pub async fn queued_message_control<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone());
    let client = connected(&rt, options).await;
    within(
        &rt,
        STEP,
        "send",
        client.send("BASH:sleep 3 && touch first"),
    )
    .await
    .unwrap();
    wait_until(&rt, STEP, "permission asked", || {
        !asked.lock().unwrap().is_empty()
    })
    .await;
    let queued = within(&rt, STEP, "queue", client.send("never mind this one"))
        .await
        .unwrap();
    let dropped = within(&rt, STEP, "cancel_message", client.cancel_message(&queued))
        .await
        .unwrap();
    assert!(dropped.cancelled, "{dropped:?}");
    let first = all_ok(collect(&rt, "first turn", client.receive_response()).await);
    assert_eq!(only_result(&first).subtype, "success");

    asked.lock().unwrap().clear();
    within(
        &rt,
        STEP,
        "send",
        client.send("BASH:sleep 20 && touch second"),
    )
    .await
    .unwrap();
    wait_until(&rt, STEP, "permission asked", || {
        !asked.lock().unwrap().is_empty()
    })
    .await;
    let second = within(&rt, STEP, "queue", client.send("and this one neither"))
        .await
        .unwrap();
    sleep(&rt, Duration::from_millis(300)).await;
    let receipt = within(&rt, STEP, "interrupt", client.interrupt_and_cancel_queued())
        .await
        .unwrap();
    assert!(
        receipt.cancelled.iter().any(|u| second == u.as_str()),
        "{receipt:?}"
    );
    let interrupted = all_ok(collect(&rt, "second turn", client.receive_response()).await);
    assert!(only_result(&interrupted).was_interrupted());
    let every_request = serde_json::to_string(
        &env.stub
            .main_requests()
            .iter()
            .map(|r| &r.body)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert!(
        !every_request.contains("never mind this one"),
        "a cancelled message reached the model"
    );
    assert!(!every_request.contains("and this one neither"));
    within(&rt, STEP, "close", client.close()).await;
}
