//! End to end: the real Claude Code CLI (named by `CLAUDE_AGENT_E2E_CLI`; `scripts/test` installs
//! the pinned one) against the testkit's stub Messages API, through the blocking API.
//!
//! Like the other adapters' end-to-end tests, they fail with a message saying how to get the CLI
//! when it is missing: they never skip.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use claude_agent_blocking::hooks::{HookOutput, PreToolUseInput};
use claude_agent_blocking::mcp::ToolResult;
use claude_agent_blocking::mcp::{typed_tool, SdkMcpServer};
use claude_agent_blocking::message::ContentBlock;
use claude_agent_blocking::options::SessionStart;
use claude_agent_blocking::permission::PermissionResult;
use claude_agent_blocking::{callback, query, Client, Error, Message, Options, TimedOut};
use claude_agent_testkit::real_cli::{real_cli_env, RealCli, TestDir};
use claude_agent_testkit::stub_api::{Reply, StubApi};

/// The longest one step (a connect, a message, a control request) may take.
const STEP: Duration = Duration::from_secs(40);

/// The longest a whole test may take.
const TEST: Duration = Duration::from_secs(120);

/// A stub API, a temporary HOME and working directory, and options that run the real CLI there.
struct Env {
    stub: StubApi,
    options: Options,
    home: TestDir,
    work: TestDir,
}

/// Locates the real CLI (panicking with how to get one when it is missing) and sets up an [`Env`].
fn env() -> Env {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    let stub = StubApi::start_with_conventions();
    let home = TestDir::new("home").expect("temp HOME");
    let work = TestDir::new("work").expect("temp cwd");
    let options = Options::new()
        .cli_path(cli.path())
        .cwd(work.path())
        .envs(real_cli_env(&stub, home.path()));
    Env {
        stub,
        options,
        home,
        work,
    }
}

/// Runs `test` on a thread of its own, panicking if it has no outcome within [`TEST`].
fn within(test: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(test)));
    });
    match rx.recv_timeout(TEST) {
        Ok(Ok(())) => {}
        Ok(Err(panic)) => resume_unwind(panic),
        Err(_) => panic!("no outcome within {TEST:?}"),
    }
}

/// Every message `next_timeout` gives until the end, each within [`STEP`]; panics on an error
/// item.
fn collect(
    mut next_timeout: impl FnMut(Duration) -> Result<Option<Result<Message, Error>>, TimedOut>,
) -> Vec<Message> {
    let mut messages = Vec::new();
    loop {
        match next_timeout(STEP) {
            Ok(Some(Ok(message))) => messages.push(message),
            Ok(Some(Err(error))) => panic!("error item {error:?} after {messages:#?}"),
            Ok(None) => return messages,
            Err(TimedOut) => panic!("no message within {STEP:?} after {messages:#?}"),
        }
    }
}

/// The text blocks of the assistant messages.
fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => Some(&a.message.content),
            _ => None,
        })
        .flatten()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// The one result message.
fn only_result(messages: &[Message]) -> &claude_agent_blocking::message::ResultMessage {
    let results: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Result(r) => Some(&**r),
            _ => None,
        })
        .collect();
    match results.as_slice() {
        [one] => one,
        other => panic!("expected one result, got {}: {messages:#?}", other.len()),
    }
}

/// The text of the tool result the CLI sent in its last main-conversation request.
fn last_tool_result(stub: &StubApi) -> String {
    stub.main_requests()
        .last()
        .and_then(|r| r.last_tool_result_text())
        .unwrap_or_default()
}

#[test]
fn a_query_iterates_over_one_turn_to_its_result() {
    within(|| {
        let env = env();
        let mut messages = query("hello there", env.options.clone());
        let messages = collect(|timeout| messages.next_timeout(timeout));
        assert_eq!(texts(&messages), ["echo: hello there"]);
        let result = only_result(&messages);
        assert_eq!(result.subtype, "success");
        assert_eq!(result.result.as_deref(), Some("echo: hello there"));
        assert!(result.total_cost_usd.is_some_and(|cost| cost > 0.0));
    });
}

#[test]
fn the_history_lists_a_finished_session_and_reads_it_back_then_a_fork_resumes() {
    use claude_agent_blocking::history::{ForkOptions, History, ListSessions, Page};
    within(|| {
        let env = env();
        let mut messages = query("remember MANGO", env.options.clone());
        let messages = collect(|timeout| messages.next_timeout(timeout));
        let id = only_result(&messages).session_id().to_owned();
        let history = History::at(env.home.path().join(".claude"));
        let work = std::fs::canonicalize(env.work.path()).unwrap();
        let listed = history.list_sessions(&ListSessions::in_dir(&work)).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].session_id, id);
        assert_eq!(listed[0].first_prompt.as_deref(), Some("remember MANGO"));
        let read = history
            .session(&id, None)
            .and_then(|s| s.messages(Page::ALL))
            .unwrap();
        let read: Vec<Message> = read.into_iter().map(|m| m.message).collect();
        assert_eq!(texts(&read), ["echo: remember MANGO"]);

        let fork = history
            .session(&id, Some(&work))
            .and_then(|s| s.fork(ForkOptions::new()))
            .unwrap();
        let mut messages = query(
            "which fruit?",
            env.options
                .clone()
                .session_start(SessionStart::resume(fork)),
        );
        let messages = collect(|timeout| messages.next_timeout(timeout));
        assert_eq!(texts(&messages), ["echo: which fruit?"]);
        let body = env
            .stub
            .main_requests()
            .pop()
            .expect("a request")
            .body
            .to_string();
        assert!(body.contains("echo: remember MANGO"), "{body}");
    });
}

#[test]
fn a_client_holds_one_conversation_over_many_turns_with_control_calls_between() {
    within(|| {
        let env = env();
        let client = Client::connect(env.options.clone()).expect("connected");
        let info = client.server_info().expect("initialize answered");
        assert!(
            info.commands.iter().any(|c| c.name == "compact"),
            "{info:?}"
        );
        client.set_model(Some("claude-e2e-model")).unwrap();
        let mut session = None;
        for turn in ["first question", "second question", "third question"] {
            client.send(turn).unwrap();
            let mut reply = client.receive_response();
            let messages = collect(|timeout| reply.next_timeout(timeout));
            assert_eq!(texts(&messages), [format!("echo: {turn}")]);
            let result = only_result(&messages);
            assert_eq!(result.subtype, "success");
            assert_eq!(
                *session.get_or_insert(result.session_id().to_owned()),
                result.session_id()
            );
        }
        let last = env.stub.main_requests().pop().expect("a request");
        assert_eq!(last.model(), Some("claude-e2e-model"));
        let body = last.body.to_string();
        assert!(
            body.contains("first question") && body.contains("echo: second question"),
            "{body}"
        );
        let usage = client
            .context_usage(claude_agent_blocking::control::ContextUsageDetail::Full)
            .unwrap();
        assert!(usage.total_tokens > 0, "{usage:?}");
        let closing = Instant::now();
        client.close();
        assert!(closing.elapsed() < Duration::from_secs(10));
        assert!(matches!(client.send("still there?"), Err(Error::Closed)));
    });
}

#[test]
fn the_blocking_client_makes_every_control_call_of_the_typescript_sdk() {
    use claude_agent_blocking::control::{
        ContextUsageDetail, McpPermissionMode, ReadFile, ReloadPlugins, SettingsFile, UsageDetail,
    };
    use claude_agent_blocking::options::ThinkingDisplay;

    within(|| {
        let env = env();
        std::fs::write(env.work.path().join("notes.txt"), "blocking notes").unwrap();
        let client = Client::connect(env.options.clone()).expect("connected");
        assert!(client
            .supported_commands()
            .iter()
            .any(|c| c.name == "compact"));
        assert_eq!(
            client.supported_models().len(),
            client.server_info().unwrap().models.len()
        );
        assert!(client.supported_agents().iter().all(|a| !a.name.is_empty()));
        assert!(client.account_info().is_some());
        let fresh = client.reinitialize().unwrap();
        let version = RealCli::locate().unwrap().version().unwrap().to_string();
        assert_eq!(fresh.claude_code_version.as_deref(), Some(version.as_str()));
        client
            .apply_flag_settings(&serde_json::json!({"model": "claude-blocking-flag"}))
            .unwrap();
        client
            .set_max_thinking_tokens(Some(1_000), ThinkingDisplay::Omitted)
            .unwrap();
        client.send("flagged").unwrap();
        let mut reply = client.receive_response();
        let messages = collect(|timeout| reply.next_timeout(timeout));
        assert_eq!(texts(&messages), ["echo: flagged"]);
        let last = env.stub.main_requests().pop().expect("a request");
        assert_eq!(last.model(), Some("claude-blocking-flag"));
        client
            .update_settings(
                SettingsFile::Local,
                &serde_json::json!({"outputStyle": "Concise"}),
            )
            .unwrap();
        assert!(env.work.path().join(".claude/settings.local.json").exists());
        assert_eq!(
            client
                .read_file(ReadFile::new("notes.txt"))
                .unwrap()
                .contents,
            "blocking notes"
        );
        client
            .seed_read_state("notes.txt", std::time::SystemTime::now())
            .unwrap();
        client.background_tasks().unwrap();
        assert!(client
            .set_mcp_permission_mode_override("later", Some(McpPermissionMode::Auto))
            .unwrap()
            .warning
            .is_some());
        assert!(matches!(
            client.read_mcp_resource("nope", "ui://nope/x"),
            Err(Error::ControlRefused { .. })
        ));
        assert_eq!(
            client
                .reload_plugins(ReloadPlugins::new())
                .unwrap()
                .error_count,
            0
        );
        assert!(!client.reload_skills().unwrap().skills.is_empty());
        assert!(!client
            .reload_output_styles()
            .unwrap()
            .available_output_styles
            .is_empty());
        assert!(
            client
                .usage(UsageDetail::WithoutBehaviors)
                .unwrap()
                .session
                .total_cost_usd
                > 0.0
        );
        assert!(
            client
                .context_usage(ContextUsageDetail::Summary)
                .unwrap()
                .total_tokens
                > 0
        );
        client.close();
    });
}

#[test]
fn a_permission_closure_is_asked_on_a_pool_thread_and_its_allow_runs_the_tool() {
    within(|| {
        let env = env();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let options = env
            .options
            .clone()
            .on_permission_request(callback::permission({
                let asked = asked.clone();
                move |request, _ctx| {
                    let input: serde_json::Value = request.tool_input.parse().unwrap_or_default();
                    let thread = thread::current().name().unwrap_or_default().to_owned();
                    asked.lock().unwrap().push((
                        format!(
                            "{}:{}",
                            request.tool_name,
                            input["command"].as_str().unwrap_or("")
                        ),
                        thread,
                    ));
                    PermissionResult::allow()
                }
            }));
        let mut messages = query("BASH:touch made-by-e2e && ls", options);
        let messages = collect(|timeout| messages.next_timeout(timeout));
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert_eq!(asked[0].0, "Bash:touch made-by-e2e && ls");
        assert!(asked[0].1.starts_with("blocking-"), "{asked:?}");
        assert!(env.work.path().join("made-by-e2e").exists());
        assert!(last_tool_result(&env.stub).contains("made-by-e2e"));
        assert_eq!(only_result(&messages).subtype, "success");
    });
}

#[test]
fn another_thread_interrupts_a_long_tool_while_one_thread_reads_the_turn() {
    within(|| {
        let env = env();
        // The command ends in a `touch` so that the CLI asks for it: the permission prompt says
        // when the tool is about to start.
        let (asked, was_asked) = mpsc::channel();
        let asked = Mutex::new(asked);
        let options = env
            .options
            .clone()
            .on_permission_request(callback::permission(move |_request, _ctx| {
                let _ = asked.lock().unwrap().send(());
                PermissionResult::allow()
            }));
        let client = Client::connect(options).expect("connected");
        client.send("BASH:sleep 20 && touch slept").unwrap();
        let reader = {
            let client = client.clone();
            thread::spawn(move || {
                let mut reply = client.receive_response();
                collect(|timeout| reply.next_timeout(timeout))
            })
        };
        was_asked.recv_timeout(STEP).expect("permission asked");
        // Let the tool start.
        thread::sleep(Duration::from_millis(500));
        let interrupted_at = Instant::now();
        client.interrupt().expect("interrupt answered");
        let turn = reader.join().unwrap();
        assert!(
            interrupted_at.elapsed() < Duration::from_secs(10),
            "turn ended {:?} after the interrupt",
            interrupted_at.elapsed()
        );
        let result = only_result(&turn);
        assert!(result.is_error, "{result:?}");
        assert_eq!(result.subtype, "error_during_execution", "{result:?}");
        assert!(!env.work.path().join("slept").exists());

        // The session goes on. The CLI sends the aborted tool's result with the next user text,
        // so the stub's "after a tool result" rule would answer; queue the reply instead.
        env.stub.push_reply(Reply::text("second reply"));
        client.send("second turn").unwrap();
        let mut reply = client.receive_response();
        let next = collect(|timeout| reply.next_timeout(timeout));
        assert_eq!(texts(&next), ["second reply"]);
        client.close();
    });
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[test]
fn a_hook_closure_and_an_in_process_tool_closure_run_for_the_models_tool_call() {
    within(|| {
        let env = env();
        let hooked = Arc::new(Mutex::new(Vec::new()));
        let calc = SdkMcpServer::new("calc", "1.0.0").tool(typed_tool(
            "add",
            "Add two integers",
            |args: Add| Ok::<_, String>(ToolResult::text(format!("sum={}", args.a + args.b))),
        ));
        let options = env
            .options
            .clone()
            .sdk_mcp_server(calc)
            .allowed_tools(["mcp__calc__add"])
            .on_hook(
                Some("mcp__calc__add"),
                callback::hook({
                    let hooked = hooked.clone();
                    move |input: PreToolUseInput, ctx| {
                        // A control call from inside the callback.
                        let status = ctx.client().mcp_status().unwrap();
                        let calc = status.mcp_servers.iter().find(|s| s.name == "calc");
                        hooked
                            .lock()
                            .unwrap()
                            .push((input.tool_name.clone(), calc.map(|s| s.status.clone())));
                        HookOutput::proceed()
                    }
                }),
            );
        let prompt = r#"TOOL:mcp__calc__add:{"a": 2, "b": 40}"#;
        let mut messages = query(prompt, options);
        let messages = collect(|timeout| messages.next_timeout(timeout));
        assert_eq!(
            *hooked.lock().unwrap(),
            [("mcp__calc__add".to_owned(), Some("connected".to_owned()))]
        );
        assert_eq!(last_tool_result(&env.stub), "sum=42");
        assert_eq!(
            only_result(&messages).result.as_deref(),
            Some("done: sum=42")
        );
    });
}

/// Host-level options for spares: the CLI and its environment, no working directory.
fn host_options(env: &Env) -> Options {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    Options::new()
        .cli_path(cli.path())
        .envs(real_cli_env(&env.stub, env.home.path()))
}

/// Waits until `done` holds, at most [`STEP`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < STEP, "{what}: not within {STEP:?}");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn warm_start_startup_prewarm_claim_and_a_pool() {
    use claude_agent_blocking::control::ClaimOptions;
    use claude_agent_blocking::{prewarm, startup, PoolStart, PrewarmError, SparePool};
    within(|| {
        let env = env();
        // startup, then the prompt.
        let warm = startup(env.options.clone()).expect("started");
        assert!(warm.server_info().is_some());
        let mut messages = warm.query("hello there");
        let messages = collect(|timeout| messages.next_timeout(timeout));
        assert_eq!(texts(&messages), ["echo: hello there"]);

        // prewarm, then a claim into the session's folder.
        let host = host_options(&env);
        let spare = prewarm(host.clone()).expect("parked");
        assert!(spare.is_alive());
        let pid = spare.pid().expect("a pid");
        let parking = std::fs::read_link(format!("/proc/{pid}/cwd")).expect("its folder");
        let claimed = spare
            .claim("hello again", ClaimOptions::new(env.work.path()))
            .expect("claimed");
        let work = std::fs::canonicalize(env.work.path()).unwrap();
        assert_eq!(claimed.info.cwd.as_deref(), work.to_str());
        let mut messages = claimed.messages;
        let messages = collect(|timeout| messages.next_timeout(timeout));
        assert_eq!(texts(&messages), ["echo: hello again"]);
        wait_until("the parking folder removed", || !parking.exists());

        // A session option is refused before anything starts.
        let refused = prewarm(host.clone().session_start(SessionStart::resume("46eb1b6d")));
        assert!(
            matches!(&refused, Err(PrewarmError::SessionStart { start }) if start.resume_id() == Some("46eb1b6d")),
            "{refused:?}"
        );

        // A pool hands out a parked spare, parks another, and reaps its spares when dropped.
        let pool = SparePool::new();
        pool.prewarm(&host).expect("options");
        wait_until("a spare parked", || pool.ready(&host) == 1);
        let session = pool
            .query(&host, "pooled", ClaimOptions::new(env.work.path()))
            .expect("started");
        assert!(
            matches!(session.start, PoolStart::Claimed(_)),
            "{:?}",
            session.start
        );
        let mut messages = session.messages;
        let messages = collect(|timeout| messages.next_timeout(timeout));
        assert_eq!(texts(&messages), ["echo: pooled"]);
        wait_until("a new spare parked", || pool.ready(&host) == 1);
        let pids = pool.pids();
        drop(pool);
        for pid in pids {
            let proc = format!("/proc/{pid}");
            wait_until("the pool's spare exits", || {
                !std::path::Path::new(&proc).exists()
            });
        }
    });
}
