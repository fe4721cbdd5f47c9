//! End-to-end scenarios: the REAL Claude Code CLI (installed by `scripts/install-claude-cli`, or
//! named by `CLAUDE_AGENT_E2E_CLI`) against the testkit's stub Messages API, driven through the
//! SDK's public client API on any [`Runtime`].
//!
//! Written once, run by every adapter: an adapter's test crate includes this file and stamps one
//! `#[test]` per scenario with [`e2e_tests!`]:
//!
//! ```ignore
//! #[macro_use]
//! #[path = "../../../conformance/e2e_scenarios.rs"]
//! mod e2e_scenarios;
//!
//! e2e_tests!(|fut| my_runtime_block_on(fut), MyRuntime; hello, bash_allowed, …);
//! ```
//!
//! Every scenario is `pub async fn name<R: Runtime>(rt: R)`, panics on failure, and bounds each
//! step with a timeout (the whole scenario well under 60 s). A missing CLI fails every scenario
//! with the install hint: they never skip.

use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_agent_core::client::{
    connect_with, prewarm_with, query_with, startup_with, ClaimError, Client, Error, Fleet,
    McpServerSet, PoolStart, Runtime, SdkMcpServer, SparePool,
};
use claude_agent_core::control::{
    ClaimOptions, ClaimRefusalReason, ContextUsageDetail, UsageDetail,
};
use claude_agent_core::cost::{Budget, BudgetLevel, BudgetScope, ModelPrice, PriceTable};
use claude_agent_core::history::{ForkOptions, History, ListSessions, Page};
use claude_agent_core::hooks::{
    HookEvent, HookInput, HookMatcher, HookOutput, PreToolUseInput, StopInput,
};
use claude_agent_core::message::{
    ApiError, ContentBlock, InterruptNotApplied, Message, MessageContent, NoticeKind,
    ResultMessage, StartupFailureReason, SystemMessage, UserInput,
};
use claude_agent_core::options::{
    Delivery, McpRemoteServer, McpServerConfig, McpStdioServer, Options, Resume, SessionStart,
    CLI_ENVIRONMENT,
};
use claude_agent_core::permission::{PermissionMode, PermissionResult};
use claude_agent_core::session::{CliVersion, VersionCheck};
use claude_agent_core::store::{
    self, project_key_for_directory, InMemorySessionStore, SessionKey, SessionStore, StoreError,
    StoreFuture,
};
use claude_agent_testkit::real_cli::{real_cli_env, RealCli, TestDir};
use claude_agent_testkit::stub_api::{Reply, Rule, StubApi};
use futures_lite::{Stream, StreamExt};
use serde_json::json;

/// Stamps one `#[test]` per named scenario: `e2e_tests!(block_on, runtime; name, …)`, or per
/// scenario of this file: `e2e_tests!(block_on, runtime)`.
///
/// `block_on` is an expression (usually a closure `|fut| …`) that runs a future to completion;
/// it is expanded afresh in each test, so a closure's argument type is inferred per scenario.
/// `runtime` is an expression giving the [`Runtime`] value. The including module must be named
/// `e2e_scenarios` at the crate root.
#[macro_export]
macro_rules! e2e_tests {
    // Every scenario: what each adapter runs.
    ($block_on:expr, $runtime:expr) => {
        e2e_tests!($block_on, $runtime;
            hello, bash_allowed, bash_denied, updated_input, hooks, mcp_tool, interrupt_long_tool,
            cancel_pending_hook, control_requests, multi_turn, resume, background_task, max_turns,
            turn_costs, session_budget, isolated_config, cleared_environment, interrupt_not_applied,
            api_400, api_401_retries, invalid_option, partial_messages, structured_output,
            record_and_replay, mcp_status_right_after_connect, custom_transport,
            mcp_secrets_stay_off_argv, hook_fail_closed, session_history,
            history_of_a_folder_with_an_emoji, mcp_tool_options,
            mcp_resources, set_in_process_mcp_servers, server_info_fields,
            settings_control_requests, reload_control_requests, file_and_task_control_requests,
            permission_decision_classification, initialize_fields, tool_aliases,
            permission_prompts_nobody, managed_settings, settings_stay_off_argv, project_config_root,
            tool_config,
            mcp_config_text_and_file, agent_definition_fields, environment_options,
            run_as_another_user, session_store_resume, session_store_failing, warm_startup,
            prewarm_claim, claim_refused, pool_hands_out_and_refills, pool_drop_reaps_spares,
            pool_replaces_a_dead_spare_and_discards, spare_close_removes_folder,
            stop_hook_feedback, startup_failure_reason, mcp_call, subagent_history,
            api_429_retried, resume_from_another_folder, session_store_history,
            compaction_history, builtin_tools_typed, interrupt_cancels_mcp_tools,
            mcp_tool_timeout, api_529_overloaded, continue_needs_a_conversation,
            stalled_turn_closes, long_tool_is_not_a_stall, doctor_findings,
            skill_shell_command_hook, context_only_message, queued_message_control,
            session_lookups,
        );
    };
    ($block_on:expr, $runtime:expr; $($name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                let block_on = $block_on;
                block_on($crate::e2e_scenarios::$name($runtime));
            }
        )+
    };
}

/// The longest any single step (a connect, one turn, a control request) may take.
const STEP: Duration = Duration::from_secs(40);

/// A stub API (with the testkit's [`conventions`](claude_agent_testkit::stub_api::conventions)),
/// a temporary HOME and working directory, and options that run the real CLI there.
pub struct Env {
    /// The stub Messages API the CLI talks to.
    pub stub: StubApi,
    /// Options naming the CLI, the working directory and the environment.
    pub options: Options,
    /// The temporary HOME (the CLI stores sessions under its `.claude`), removed on drop.
    pub home: TestDir,
    /// The working directory.
    pub work: TestDir,
}

/// When set, every scenario's session is recorded in this folder (`<scenario>-<n>.jsonl`): how
/// the release corpus (`core/tests/releases/<version>/`) is made from a new CLI.
const RECORD_DIR_ENV: &str = "CLAUDE_AGENT_E2E_RECORD_DIR";

/// A fresh recording file in `dir`, named after the running scenario (libtest names each test's
/// thread after it).
fn recording_path(dir: &Path) -> std::path::PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let thread = std::thread::current();
    let scenario = thread
        .name()
        .unwrap_or("scenario")
        .rsplit("::")
        .next()
        .unwrap_or("scenario");
    dir.join(format!(
        "{scenario}-{}.jsonl",
        COUNT.fetch_add(1, Ordering::SeqCst)
    ))
}

/// Locates the real CLI (panicking with the install hint when it is missing) and sets up an
/// [`Env`].
pub fn env() -> Env {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    let stub = StubApi::start_with_conventions();
    let home = TestDir::new("home").expect("temp HOME");
    let work = TestDir::new("work").expect("temp cwd");
    let mut options = Options::new()
        .cli_path(cli.path())
        .cwd(work.path())
        .envs(real_cli_env(&stub, home.path()));
    if let Some(dir) = std::env::var_os(RECORD_DIR_ENV) {
        options = options.record_to(recording_path(Path::new(&dir)));
    }
    Env {
        stub,
        options,
        home,
        work,
    }
}

/// The version of the CLI under test, as it reports it.
fn cli_version() -> CliVersion {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    cli.version().expect("the CLI's version")
}

/// Runs `fut`, panicking if it takes longer than `limit` (timed by the runtime under test).
pub async fn within<R: Runtime, T>(
    rt: &R,
    limit: Duration,
    what: &str,
    fut: impl Future<Output = T>,
) -> T {
    let deadline = Instant::now() + limit;
    let sleep = rt.sleep_until(deadline);
    futures_lite::future::or(fut, async move {
        sleep.await;
        panic!("{what}: no outcome within {limit:?}")
    })
    .await
}

/// Sleeps on the runtime under test.
pub async fn sleep<R: Runtime>(rt: &R, duration: Duration) {
    rt.sleep_until(Instant::now() + duration).await;
}

/// Waits (polling every 20 ms) until `condition` holds, panicking after `limit`.
pub async fn wait_until<R: Runtime>(
    rt: &R,
    limit: Duration,
    what: &str,
    condition: impl Fn() -> bool,
) {
    let deadline = Instant::now() + limit;
    while !condition() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        sleep(rt, Duration::from_millis(20)).await;
    }
}

/// Collects a whole stream within [`STEP`].
pub async fn collect<R: Runtime, S>(rt: &R, what: &str, stream: S) -> Vec<Result<Message, Error>>
where
    S: Stream<Item = Result<Message, Error>>,
{
    within(rt, STEP, what, stream.collect::<Vec<_>>()).await
}

/// The messages of `items`, panicking on any error item.
pub fn all_ok(items: Vec<Result<Message, Error>>) -> Vec<Message> {
    items
        .into_iter()
        .map(|item| item.unwrap_or_else(|e| panic!("unexpected error item: {e:?}")))
        .collect()
}

/// The text blocks of the assistant messages.
pub fn texts(messages: &[Message]) -> Vec<String> {
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

/// The result messages.
pub fn results(messages: &[Message]) -> Vec<&ResultMessage> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Result(r) => Some(&**r),
            _ => None,
        })
        .collect()
}

/// The one result message, panicking when there is not exactly one.
pub fn only_result(messages: &[Message]) -> &ResultMessage {
    match results(messages).as_slice() {
        [one] => one,
        other => panic!("expected one result, got {}: {messages:#?}", other.len()),
    }
}

/// The text of the tool result the CLI sent in its last main-conversation request.
pub fn last_tool_result(stub: &StubApi) -> String {
    stub.main_requests()
        .last()
        .and_then(|r| r.last_tool_result_text())
        .unwrap_or_default()
}

/// Each MCP server's name and status, as `mcp_status` gave them.
fn server_states(status: &claude_agent_core::control::McpStatus) -> Vec<(&str, &str)> {
    status
        .mcp_servers
        .iter()
        .map(|s| (s.name.as_str(), s.status.as_str()))
        .collect()
}

/// A `can_use_tool` that allows everything and records the Bash commands it was asked about.
fn allow_and_record(options: Options, asked: Arc<Mutex<Vec<String>>>) -> Options {
    options.on_permission_request(move |request, _ctx| {
        let input: serde_json::Value =
            serde_json::from_str(request.tool_input.as_str()).unwrap_or_default();
        asked.lock().unwrap().push(format!(
            "{}:{}",
            request.tool_name,
            input["command"].as_str().unwrap_or_default()
        ));
        async { PermissionResult::allow() }
    })
}

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

/// A one-turn query: the echoed text, a success result with session id, usage and cost.
pub async fn hello<R: Runtime>(rt: R) {
    let env = env();
    let started = Instant::now();
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "hello there", env.options.clone()),
        )
        .await,
    );
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

/// `can_use_tool` allows a Bash command that asks; its output reaches the model and the result.
pub async fn bash_allowed<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone());
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "BASH:touch made-by-e2e && ls", options),
        )
        .await,
    );
    assert_eq!(*asked.lock().unwrap(), ["Bash:touch made-by-e2e && ls"]);
    assert!(env.work.path().join("made-by-e2e").exists());
    assert!(last_tool_result(&env.stub).contains("made-by-e2e"));
    let result = only_result(&messages);
    assert_eq!(result.subtype, "success");
    assert!(
        result
            .result
            .as_deref()
            .unwrap_or_default()
            .contains("made-by-e2e"),
        "{result:?}"
    );
}

/// `can_use_tool` denies a Bash command: the tool does not run and the model gets our message.
pub async fn bash_denied<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let options = env
        .options
        .clone()
        .on_permission_request(move |_request, _ctx| {
            count.fetch_add(1, Ordering::SeqCst);
            async { PermissionResult::deny("denied by the e2e test") }
        });
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "BASH:touch never-made && ls", options),
        )
        .await,
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert!(!env.work.path().join("never-made").exists());
    let tool_result = last_tool_result(&env.stub);
    assert!(
        tool_result.contains("denied by the e2e test"),
        "{tool_result}"
    );
    assert_eq!(only_result(&messages).subtype, "success");
}

/// `updatedInput` rewrites the command: the rewritten one is what runs.
pub async fn updated_input<R: Runtime>(rt: R) {
    let env = env();
    let options = env
        .options
        .clone()
        .on_permission_request(|_request, _ctx| async {
            let rewritten = json!({"command": "touch rewritten && ls", "description": "rewritten"});
            PermissionResult::allow().with_updated_input(rewritten)
        });
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "BASH:touch original && ls", options),
        )
        .await,
    );
    assert!(env.work.path().join("rewritten").exists());
    assert!(!env.work.path().join("original").exists());
    let tool_result = last_tool_result(&env.stub);
    assert!(tool_result.contains("rewritten"), "{tool_result}");
    assert_eq!(only_result(&messages).subtype, "success");
}

/// `Client::mcp_call` against the testkit's stdio MCP server, run by the real CLI: a plain call
/// (content as the model would get it, and the structured content), a tool error as a failed
/// call or (with `soft_error_result`) as a result, the server's own blocks
/// (`result_not_for_model`), a call decided by the host's permission callback
/// (`check_permissions`), and a server that does not exist. The flags are checked only where the
/// CLI's `initialize` answer lists their capability (2.1.331 on).
pub async fn mcp_call<R: Runtime>(rt: R) {
    use claude_agent_core::control::McpCall;
    use claude_agent_core::mcp::ToolContent;
    use claude_agent_testkit::fake_mcp;

    let env = env();
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let options = env
        .options
        .clone()
        .mcp_server(
            "fake",
            fake_mcp::server_config().unwrap_or_else(|e| panic!("{e}")),
        )
        .on_permission_request({
            let asked = asked.clone();
            move |request, _ctx| {
                asked.lock().unwrap().push(request.tool_name.clone());
                let allow = request.tool_input.as_str().contains("allowed");
                async move {
                    if allow {
                        PermissionResult::allow()
                    } else {
                        PermissionResult::deny("not this one")
                    }
                }
            }
        });
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    let capabilities = client
        .server_info()
        .expect("initialize answered")
        .capabilities
        .clone();
    let has = |name: &str| capabilities.iter().any(|c| c == name);
    let call = |call: McpCall| within(&rt, STEP, "mcp_call", client.mcp_call(call));

    let echoed = call(McpCall::new("fake", "echo", json!({"text": "hi"})))
        .await
        .expect("echo");
    assert!(!echoed.is_error);
    assert_eq!(
        echoed
            .structured_content
            .expect("structured")
            .parse::<serde_json::Value>()
            .unwrap(),
        json!({"echoed": "hi"})
    );
    let failed = call(McpCall::new("fake", "fail", json!({}))).await;
    assert!(
        matches!(&failed, Err(Error::ControlRefused { message, .. }) if message.contains("it failed")),
        "{failed:?}"
    );
    let missing = call(McpCall::new("nowhere", "echo", json!({}))).await;
    assert!(
        matches!(&missing, Err(Error::ControlRefused { message, .. }) if message.contains("nowhere")),
        "{missing:?}"
    );
    if has("mcp_call_soft_error_result_v1") {
        let soft = call(McpCall::new("fake", "fail", json!({})).soft_error_result(true))
            .await
            .expect("a soft error is a result");
        assert!(soft.is_error);
        assert_eq!(soft.content, [ToolContent::text("it failed")]);
    }
    if has("mcp_call_result_not_for_model_v1") {
        let raw =
            call(McpCall::new("fake", "echo", json!({"text": "raw"})).result_not_for_model(true))
                .await
                .expect("the server's blocks");
        assert_eq!(raw.content, [ToolContent::text("echo: raw")]);
    }
    if has("mcp_call_check_permissions_v1") {
        let refused =
            call(McpCall::new("fake", "echo", json!({"text": "no"})).check_permissions(true)).await;
        assert!(
            matches!(&refused, Err(Error::ControlRefused { message, .. }) if message.starts_with("The tool did not run")),
            "{refused:?}"
        );
        let allowed =
            call(McpCall::new("fake", "echo", json!({"text": "allowed"})).check_permissions(true))
                .await
                .expect("allowed by the callback");
        assert!(!allowed.is_error);
        assert_eq!(
            *asked.lock().unwrap(),
            ["mcp__fake__echo", "mcp__fake__echo"]
        );
    } else {
        assert!(asked.lock().unwrap().is_empty());
    }
    within(&rt, STEP, "close", client.close()).await;
}

/// A CLI that refuses to start says why in a typed value: `HTTPS_PROXY` that is not a URL ends
/// `connect` with `Error::Result` naming `ProxyInvalid`, and a `query` yields the CLI's error
/// result with the same reason before that error (the SDK asks the CLI for such results).
pub async fn startup_failure_reason<R: Runtime>(rt: R) {
    let env = env();
    let options = env.options.clone().env("HTTPS_PROXY", "bogus");
    let refused = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), options.clone()),
    )
    .await;
    let Err(Error::Result(error)) = refused else {
        panic!("not a refused start: {refused:?}");
    };
    assert_eq!(
        error.startup_failure,
        Some(StartupFailureReason::ProxyInvalid)
    );
    assert!(error.message.contains("HTTPS_PROXY"), "{error}");
    assert_eq!(error.exit.code, Some(1));

    let items = collect(&rt, "query", query_with(rt.clone(), "hello", options)).await;
    let reason = items.iter().find_map(|item| match item {
        Ok(Message::Result(result)) => result.startup_failure_reason.clone(),
        _ => None,
    });
    assert_eq!(
        reason,
        Some(StartupFailureReason::ProxyInvalid),
        "{items:#?}"
    );
    let last = items.last().expect("an item");
    assert!(
        matches!(last, Err(Error::Result(e)) if e.startup_failure == Some(StartupFailureReason::ProxyInvalid)),
        "{last:?}"
    );
}

/// A `Stop` hook that blocks once: the model gets the hook's reason and answers it, the turn
/// then ends with that answer. The CLI passes the reason to the model in a `<system-reminder>`
/// of a user turn and, since 2.1.331, in a trailing `system` message too: the stub's
/// `hook_feedback` reads both.
pub async fn stop_hook_feedback<R: Runtime>(rt: R) {
    let env = env();
    env.stub
        .add_rule(Rule::when_hook_feedback_contains("say BANANA").reply(Reply::text("BANANA")));
    env.stub.push_reply(Reply::text("the report is written"));
    let stops = Arc::new(AtomicUsize::new(0));
    let options = env.options.clone().on_hook(None, {
        let stops = stops.clone();
        move |input: StopInput, _ctx| {
            stops.fetch_add(1, Ordering::SeqCst);
            async move {
                if input.stop_hook_active {
                    HookOutput::proceed()
                } else {
                    HookOutput::block("Before you stop, say BANANA.")
                }
            }
        }
    });
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "write the report", options),
        )
        .await,
    );
    assert_eq!(stops.load(Ordering::SeqCst), 2, "{messages:#?}");
    assert_eq!(texts(&messages), ["the report is written", "BANANA"]);
    let result = only_result(&messages);
    assert_eq!(result.subtype, "success");
    assert_eq!(result.result.as_deref(), Some("BANANA"));
}

/// Hooks: UserPromptSubmit, PreToolUse (letting one call through and denying the next through
/// `permissionDecision`), PostToolUse and Stop, each with its typed input.
pub async fn hooks<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "echo first-tool"}),
    ));
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "echo second-tool"}),
    ));
    env.stub.push_reply(Reply::text("all done"));
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = |seen: &Arc<Mutex<Vec<String>>>| {
        let seen = seen.clone();
        move |input: HookInput, _ctx| {
            let (entry, output) = match &input {
                HookInput::UserPromptSubmit(i) => {
                    (format!("prompt:{}", i.prompt), HookOutput::proceed())
                }
                HookInput::PreToolUse(i) if i.tool_input.as_str().contains("second-tool") => (
                    format!("pre:{}:deny", i.tool_name),
                    HookOutput::deny_tool("blocked by the e2e hook"),
                ),
                HookInput::PreToolUse(i) => {
                    (format!("pre:{}:allow", i.tool_name), HookOutput::proceed())
                }
                HookInput::PostToolUse(i) => (
                    format!(
                        "post:{}:{}",
                        i.tool_name,
                        i.tool_response.as_str().contains("first-tool")
                    ),
                    HookOutput::proceed(),
                ),
                HookInput::Stop(i) => (
                    format!("stop:{}", i.base.session_id.is_empty()),
                    HookOutput::proceed(),
                ),
                other => (format!("other:{:?}", other.event()), HookOutput::proceed()),
            };
            seen.lock().unwrap().push(entry);
            async move { output }
        }
    };
    let options = env
        .options
        .clone()
        .on_hook_event(HookEvent::UserPromptSubmit, None, record(&seen))
        .on_hook_event(HookEvent::PreToolUse, "Bash", record(&seen))
        .on_hook_event(HookEvent::PostToolUse, "Bash", record(&seen))
        .on_hook_event(HookEvent::Stop, None, record(&seen));
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "use the hooks", options),
        )
        .await,
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "prompt:use the hooks",
            "pre:Bash:allow",
            "post:Bash:true",
            "pre:Bash:deny",
            "stop:false",
        ]
    );
    let tool_result = last_tool_result(&env.stub);
    assert!(
        tool_result.contains("blocked by the e2e hook"),
        "{tool_result}"
    );
    assert_eq!(only_result(&messages).result.as_deref(), Some("all done"));
}

/// The model calls a tool of an in-process MCP server; its result goes back to the model.
pub async fn mcp_tool<R: Runtime>(rt: R) {
    use claude_agent_core::client::tool;
    use claude_agent_core::mcp::ToolResult;

    let env = env();
    let calls = Arc::new(AtomicUsize::new(0));
    let count = calls.clone();
    let calc = SdkMcpServer::new("calc", "1.0.0").tool(tool(
        "add",
        "Add two integers",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
               "required": ["a", "b"]}),
        move |args: serde_json::Value| {
            count.fetch_add(1, Ordering::SeqCst);
            async move {
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                Ok::<_, String>(ToolResult::text(format!("sum={sum}")))
            }
        },
    ));
    let options = env
        .options
        .clone()
        .sdk_mcp_server(calc)
        .allowed_tools(["mcp__calc__add"]);
    let prompt = r#"TOOL:mcp__calc__add:{"a": 2, "b": 40}"#;
    let messages = all_ok(collect(&rt, "query", query_with(rt.clone(), prompt, options)).await);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(last_tool_result(&env.stub), "sum=42");
    assert_eq!(
        only_result(&messages).result.as_deref(),
        Some("done: sum=42")
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
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
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
    within(&rt, STEP, "send", client.send("second turn"))
        .await
        .unwrap();
    let second = all_ok(collect(&rt, "second turn", client.receive_response()).await);
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

/// Sets a flag when dropped: proves a callback's future was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// `SessionStart::Continue` in a folder with no conversation fails with
/// `Error::NothingToContinue` (the CLI would start a new one without a word); with `or_new` a
/// new session starts; once there is one, a continue goes on in it (same id, the model sees the
/// earlier turn).
pub async fn continue_needs_a_conversation<R: Runtime>(rt: R) {
    let env = env();
    let must = env.options.clone().session_start(SessionStart::Continue {
        fork: None,
        or_new: false,
    });
    let refused = within(&rt, STEP, "connect", connect_with(rt.clone(), must.clone())).await;
    match refused {
        Err(Error::NothingToContinue { cwd }) => {
            assert_eq!(cwd, std::fs::canonicalize(env.work.path()).unwrap())
        }
        other => panic!("not NothingToContinue: {other:?}"),
    }
    let or_new = env.options.clone().session_start(SessionStart::Continue {
        fork: None,
        or_new: true,
    });
    let first = all_ok(
        collect(
            &rt,
            "a new session",
            query_with(rt.clone(), "remember MANGO", or_new),
        )
        .await,
    );
    let session_id = only_result(&first).session_id().to_owned();
    let second = all_ok(
        collect(
            &rt,
            "continued",
            query_with(rt.clone(), "which fruit?", must),
        )
        .await,
    );
    assert_eq!(only_result(&second).session_id(), session_id);
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember MANGO"), "{body}");
}

/// The stub API never answers the model request: with a stall watch of 2 s that interrupts and
/// closes, the query ends with `Error::Stalled` (the CLI was alive), naming the CLI's last line,
/// within seconds instead of never.
pub async fn stalled_turn_closes<R: Runtime>(rt: R) {
    use claude_agent_core::session::{OnStall, StallWatch};

    let env = env();
    env.stub.push_reply(Reply::delay(
        Duration::from_secs(600),
        Reply::text("far too late"),
    ));
    let watch = StallWatch {
        then: OnStall::InterruptThenClose,
        ..StallWatch::new(Duration::from_secs(2))
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
            assert!(stall.idle_for >= Duration::from_secs(2), "{stall:?}");
            assert!(stall.last_event.is_some(), "{stall:?}");
            assert!(stall.in_flight_tools.is_empty(), "{stall:?}");
        }
        other => panic!("not Error::Stalled: {other:?}"),
    }
}

/// A Bash command that runs longer than the stall limit is silence the CLI accounts for: no
/// stall is reported, and the turn ends normally.
pub async fn long_tool_is_not_a_stall<R: Runtime>(rt: R) {
    use claude_agent_core::message::NoticeKind;
    use claude_agent_core::session::StallWatch;

    let env = env();
    let options = env
        .options
        .clone()
        .allowed_tools(["Bash"])
        .stall_watch(StallWatch::new(Duration::from_millis(1500)));
    let items = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "BASH:sleep 4 && echo woke", options),
        )
        .await,
    );
    let stalls: Vec<&Message> = items
        .iter()
        .filter(|m| matches!(m, Message::Notice(n) if matches!(n.kind, NoticeKind::Stalled(_))))
        .collect();
    assert!(stalls.is_empty(), "{stalls:?}");
    assert!(last_tool_result(&env.stub).contains("woke"));
    assert_eq!(only_result(&items).subtype, "success");
}

/// `doctor` against the real CLI: the test environment has nothing in its way (the version the
/// CLI reports); each cause it checks is found when set up, and a CLI older than supported is
/// found through a stand-in that reports 2.0.14.
pub async fn doctor_findings<R: Runtime>(rt: R) {
    use claude_agent_core::client::{doctor, Finding};
    use claude_agent_core::permission::PermissionMode;

    let env = env();
    let clean = doctor(&env.options);
    assert!(clean.is_ok(), "{:?}", clean.findings);
    assert_eq!(
        clean.version,
        Some(
            RealCli::locate()
                .unwrap()
                .version()
                .expect("the CLI's version")
        )
    );

    let missing = env.work.path().join("gone");
    let found = |options: &Options| doctor(options).findings;
    assert_eq!(
        found(&env.options.clone().cwd(&missing)),
        [Finding::WorkingDirectoryMissing {
            path: missing.clone()
        }]
    );
    let refused = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone().cwd(&missing)),
    )
    .await;
    assert_eq!(
        refused.err().and_then(|e| e.finding()),
        Some(Finding::WorkingDirectoryMissing { path: missing })
    );
    assert_eq!(
        found(&env.options.clone().env("CLAUDECODE", "1")),
        [Finding::NestedSession]
    );
    assert_eq!(
        found(&env.options.clone().env("NODE_OPTIONS", "--inspect")),
        [Finding::NodeOptions {
            value: "--inspect".into()
        }]
    );
    assert_eq!(
        found(&env.options.clone().env_remove("ANTHROPIC_API_KEY")),
        [Finding::NoCredentials]
    );
    let bypass = env
        .options
        .clone()
        .permission_mode(PermissionMode::BypassPermissions);
    let as_root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
    });
    if as_root {
        assert_eq!(found(&bypass), [Finding::RootWithBypassPermissions]);
        assert!(found(&bypass.clone().env("IS_SANDBOX", "1")).is_empty());
        // The same cause, recognised after the CLI refused to start.
        let refused = within(&rt, STEP, "connect", connect_with(rt.clone(), bypass)).await;
        let Err(error) = refused else {
            panic!("the CLI started with bypassPermissions as root")
        };
        assert_eq!(
            error.finding(),
            Some(Finding::RootWithBypassPermissions),
            "{error}"
        );
    } else {
        assert!(found(&bypass).is_empty());
    }

    // A CLI that cannot be started: `doctor` and the failed start name the same cause, with
    // the same fix.
    let not_there = env.work.path().join("no-such-claude");
    let not_executable = env.work.path().join("claude-not-executable");
    std::fs::write(&not_executable, "#!/bin/sh\necho '2.1.0 (Claude Code)'\n").unwrap();
    let no_interpreter = env.work.path().join("claude-without-node");
    std::fs::write(&no_interpreter, "#!/nonexistent/node\n").unwrap();
    std::fs::set_permissions(
        &no_interpreter,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let unstartable = [
        (&not_there, Finding::CliNotFound),
        (
            &not_executable,
            Finding::CliNotExecutable {
                program: not_executable.clone(),
            },
        ),
        (
            &no_interpreter,
            Finding::CliInterpreterMissing {
                program: no_interpreter.clone(),
                interpreter: "/nonexistent/node".into(),
            },
        ),
    ];
    for (cli, expected) in unstartable {
        let options = env.options.clone().cli_path(cli);
        let diagnosis = doctor(&options);
        assert_eq!(
            diagnosis.findings,
            std::slice::from_ref(&expected),
            "{cli:?}"
        );
        let failed = within(&rt, STEP, "connect", connect_with(rt.clone(), options)).await;
        let finding = failed.err().and_then(|e| e.finding());
        assert_eq!(finding.as_ref(), Some(&expected), "{cli:?}");
        assert_eq!(finding.map(|f| f.fix()), Some(expected.fix()));
        if expected == Finding::CliNotFound {
            assert_eq!(
                diagnosis.cli, None,
                "a path that is not there is no CLI found"
            );
        }
    }

    let old = env.work.path().join("old-claude");
    std::fs::write(&old, "#!/bin/sh\necho '2.0.14 (Claude Code)'\n").unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut std::fs::metadata(&old).unwrap().permissions(),
        0o755,
    );
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let too_old = doctor(&env.options.clone().cli_path(&old));
    assert!(
        matches!(&too_old.findings[..], [Finding::CliTooOld { version }] if version.to_string() == "2.0.14"),
        "{:?}",
        too_old.findings
    );
}

/// Three in-process tool calls in one turn, none of which ever finishes, then an interrupt: the
/// CLI cancels each (`notifications/cancelled`) and the SDK drops every handler's future at
/// once, while the session goes on.
pub async fn interrupt_cancels_mcp_tools<R: Runtime>(rt: R) {
    use claude_agent_core::client::tool;
    use claude_agent_core::mcp::ToolResult;

    let env = env();
    let started = Arc::new(AtomicUsize::new(0));
    let dropped: Vec<Arc<AtomicBool>> = (0..3).map(|_| Arc::new(AtomicBool::new(false))).collect();
    let (count, flags) = (started.clone(), dropped.clone());
    let slow = SdkMcpServer::new("slow", "1.0.0").tool(
        tool(
            "wait",
            "Wait for ever",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
            move |args: serde_json::Value| {
                count.fetch_add(1, Ordering::SeqCst);
                let n = args["n"].as_u64().unwrap_or(0) as usize;
                let guard = DropFlag(flags[n].clone());
                async move {
                    let _guard = guard;
                    std::future::pending::<Result<ToolResult, String>>().await
                }
            },
        )
        // The CLI runs read-only tools of one turn side by side.
        .read_only_hint(true),
    );
    env.stub.push_reply(
        Reply::tool_use("mcp__slow__wait", json!({"n": 0}))
            .and_tool_use("mcp__slow__wait", json!({"n": 1}))
            .and_tool_use("mcp__slow__wait", json!({"n": 2})),
    );
    let options = env
        .options
        .clone()
        .sdk_mcp_server(slow)
        .allowed_tools(["mcp__slow__wait"]);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    within(&rt, STEP, "send", client.send("wait three times"))
        .await
        .unwrap();
    wait_until(&rt, STEP, "three calls running", || {
        started.load(Ordering::SeqCst) == 3
    })
    .await;
    assert!(dropped.iter().all(|d| !d.load(Ordering::SeqCst)));
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("interrupt answered");
    all_ok(collect(&rt, "interrupted turn", client.receive_response()).await);
    wait_until(&rt, STEP, "every handler dropped", || {
        dropped.iter().all(|d| d.load(Ordering::SeqCst))
    })
    .await;
    env.stub.push_reply(Reply::text("second reply"));
    within(&rt, STEP, "send", client.send("go on"))
        .await
        .unwrap();
    let second = all_ok(collect(&rt, "second turn", client.receive_response()).await);
    assert_eq!(texts(&second), ["second reply"]);
    within(&rt, STEP, "close", client.close()).await;
}

/// An in-process tool that overruns its time limit: the model gets an error result naming the
/// limit, the handler is dropped, and the turn goes on to its end.
pub async fn mcp_tool_timeout<R: Runtime>(rt: R) {
    use claude_agent_core::client::tool;
    use claude_agent_core::mcp::ToolResult;

    let env = env();
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = dropped.clone();
    let slow = SdkMcpServer::new("slow", "1.0.0").tool(
        tool(
            "wait",
            "Wait for ever",
            json!({"type": "object"}),
            move |_args: serde_json::Value| {
                let guard = DropFlag(flag.clone());
                async move {
                    let _guard = guard;
                    std::future::pending::<Result<ToolResult, String>>().await
                }
            },
        )
        .timeout(Duration::from_millis(500)),
    );
    let options = env
        .options
        .clone()
        .sdk_mcp_server(slow)
        .allowed_tools(["mcp__slow__wait"]);
    let started = Instant::now();
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "TOOL:mcp__slow__wait:{}", options),
        )
        .await,
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let result = last_tool_result(&env.stub);
    // The CLI adds a hint about the tool's schema after an error.
    assert!(
        result.starts_with(
            "The tool wait of server slow did not finish within 0.5 s and was stopped."
        ),
        "{result}"
    );
    assert!(dropped.load(Ordering::SeqCst), "the handler was dropped");
    let done = only_result(&messages);
    assert_eq!(done.subtype, "success", "{done:?}");
}

/// A hook that never answers, then an interrupt: the CLI cancels the callback
/// (`control_cancel_request`) and the SDK drops its future while the session goes on.
pub async fn cancel_pending_hook<R: Runtime>(rt: R) {
    let env = env();
    let started = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicBool::new(false));
    let (s, d) = (started.clone(), dropped.clone());
    let options = env.options.clone().on_hook_event(
        HookEvent::PreToolUse,
        Some("Bash"),
        move |_input, _ctx| {
            s.store(true, Ordering::SeqCst);
            let guard = DropFlag(d.clone());
            async move {
                let _guard = guard;
                std::future::pending::<HookOutput>().await
            }
        },
    );
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    within(&rt, STEP, "send", client.send("BASH:echo never-runs"))
        .await
        .unwrap();
    wait_until(&rt, STEP, "hook called", || started.load(Ordering::SeqCst)).await;
    assert!(!dropped.load(Ordering::SeqCst));
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("interrupt answered");
    let turn = all_ok(collect(&rt, "interrupted turn", client.receive_response()).await);
    assert!(only_result(&turn).is_error, "{turn:#?}");
    wait_until(&rt, Duration::from_secs(10), "hook future dropped", || {
        dropped.load(Ordering::SeqCst)
    })
    .await;
    // The session is still running, so the drop came from the CLI's cancel, not a shutdown.
    env.stub.push_reply(Reply::text("still alive"));
    within(&rt, STEP, "send", client.send("still there?"))
        .await
        .unwrap();
    let next = all_ok(collect(&rt, "next turn", client.receive_response()).await);
    assert_eq!(texts(&next), ["still alive"]);
    within(&rt, STEP, "close", client.close()).await;
}

/// Control requests: server_info, set_model (the next API call uses it), set_permission_mode
/// (the next `system/status` carries it), mcp_status and context_usage.
pub async fn control_requests<R: Runtime>(rt: R) {
    let env = env();
    let calc = SdkMcpServer::new("calc", "1.0.0");
    let options = env.options.clone().sdk_mcp_server(calc);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    let info = client.server_info().expect("initialize answered");
    assert!(
        info.commands.iter().any(|c| c.name == "compact"),
        "{info:?}"
    );
    assert!(
        info.claude_code_version
            .as_deref()
            .is_some_and(|v| !v.is_empty()),
        "{info:?}"
    );
    // The CLI under test is a supported one, and says so in its initialize answer.
    assert_eq!(
        client.version_check(),
        Some(VersionCheck::Supported(cli_version()))
    );

    within(
        &rt,
        STEP,
        "set_model",
        client.set_model(Some("claude-e2e-model")),
    )
    .await
    .unwrap();
    within(&rt, STEP, "send", client.send("which model"))
        .await
        .unwrap();
    let turn = all_ok(collect(&rt, "turn", client.receive_response()).await);
    assert_eq!(texts(&turn), ["echo: which model"]);
    assert_eq!(
        env.stub
            .main_requests()
            .last()
            .and_then(|r| r.model().map(str::to_owned))
            .as_deref(),
        Some("claude-e2e-model")
    );

    within(
        &rt,
        STEP,
        "set_permission_mode",
        client.set_permission_mode(PermissionMode::AcceptEdits),
    )
    .await
    .unwrap();
    let mut messages = client.receive_messages();
    let mode = within(&rt, STEP, "system/status", async {
        while let Some(item) = messages.next().await {
            if let Ok(Message::System(SystemMessage::Status(status))) = item {
                return status.permission_mode.clone();
            }
        }
        None
    })
    .await;
    assert_eq!(mode.as_deref(), Some("acceptEdits"));

    let status = within(&rt, STEP, "mcp_status", client.mcp_status())
        .await
        .unwrap();
    let names = server_states(&status);
    assert_eq!(names, [("calc", "connected")]);

    let usage = within(
        &rt,
        STEP,
        "context_usage",
        client.context_usage(ContextUsageDetail::Full),
    )
    .await
    .unwrap();
    assert!(usage.total_tokens > 0, "{usage:?}");
    assert!(usage.max_tokens >= usage.total_tokens, "{usage:?}");
    within(&rt, STEP, "close", client.close()).await;
}

/// A client over three turns: each reply is its own, and the model sees the whole conversation.
pub async fn multi_turn<R: Runtime>(rt: R) {
    let env = env();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    let mut session = None;
    for turn in ["first question", "second question", "third question"] {
        within(&rt, STEP, "send", client.send(turn)).await.unwrap();
        let messages = all_ok(collect(&rt, "turn", client.receive_response()).await);
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

/// A session resumed by id in a new process: the model sees the first conversation.
pub async fn resume<R: Runtime>(rt: R) {
    let env = env();
    let first = all_ok(
        collect(
            &rt,
            "first",
            query_with(rt.clone(), "remember PINEAPPLE", env.options.clone()),
        )
        .await,
    );
    let session_id = only_result(&first).session_id().to_owned();
    let options = env
        .options
        .clone()
        .session_start(SessionStart::Resume(Resume::new(session_id.clone())));
    let second = all_ok(
        collect(
            &rt,
            "resumed",
            query_with(rt.clone(), "what word?", options),
        )
        .await,
    );
    assert_eq!(texts(&second), ["echo: what word?"]);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(body.contains("remember PINEAPPLE"), "{body}");
    assert!(body.contains("echo: remember PINEAPPLE"), "{body}");
    assert_eq!(only_result(&second).session_id(), session_id);
}

/// A resume started in another folder than the session ran in: the CLI would not find the
/// session ("No conversation found"), so the start fails with `Error::ResumeElsewhere` naming
/// the folder; with `in_its_folder()` the session is resumed there, with its conversation.
pub async fn resume_from_another_folder<R: Runtime>(rt: R) {
    let env = env();
    let first = all_ok(
        collect(
            &rt,
            "first",
            query_with(rt.clone(), "remember MANGO", env.options.clone()),
        )
        .await,
    );
    let session_id = only_result(&first).session_id().to_owned();
    let elsewhere = TestDir::new("elsewhere").expect("another folder");
    let resume = Resume::new(session_id.clone());
    let from_elsewhere = env
        .options
        .clone()
        .cwd(elsewhere.path())
        .session_start(SessionStart::Resume(resume.clone()));
    let refused = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), from_elsewhere.clone()),
    )
    .await;
    match refused {
        Err(Error::ResumeElsewhere {
            session_id: id,
            ran_in,
            ..
        }) => {
            assert_eq!(id, session_id);
            assert_eq!(ran_in, std::fs::canonicalize(env.work.path()).unwrap());
        }
        other => panic!("not ResumeElsewhere: {other:?}"),
    }
    let there = from_elsewhere.session_start(SessionStart::Resume(resume.in_its_folder()));
    let second = all_ok(
        collect(
            &rt,
            "resumed there",
            query_with(rt.clone(), "which fruit?", there),
        )
        .await,
    );
    assert_eq!(texts(&second), ["echo: which fruit?"]);
    assert_eq!(only_result(&second).session_id(), session_id);
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember MANGO"), "{body}");
}

/// A background Bash task with a string prompt: the CLI starts a second turn when it finishes;
/// both results arrive and the second turn's permission request is answered (stdin stays open).
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
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "run it in the background", options),
        )
        .await,
    );
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
    // `sleep … && echo …` is read-only: the CLI runs it without asking. The second turn's
    // `touch` asks, and is answered.
    assert_eq!(*asked.lock().unwrap(), ["Bash:touch after-bg && ls"]);
    assert!(env.work.path().join("after-bg").exists());
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

/// An API 400: an error result with `api_error_status` 400, then [`Error::Result`] (the CLI
/// exits 1).
///
/// The real CLI reports it as subtype `success` with `is_error: true` and `terminal_reason`
/// `api_error`, after trying the turn again without its betas (six requests in all); the rule
/// answers every one of them (a plain prompt matches none of the conventions).
pub async fn api_400<R: Runtime>(rt: R) {
    let env = env();
    env.stub.add_rule(Rule::any().reply(Reply::error(
        400,
        "invalid_request_error",
        "stub says no",
    )));
    let mut items = collect(
        &rt,
        "query",
        query_with(rt.clone(), "fail please", env.options.clone()),
    )
    .await;
    let last = items.pop().expect("some items");
    let messages = all_ok(items);
    assert_eq!(
        results(&messages).len(),
        1,
        "one result before the end: {messages:#?}, then {last:?}"
    );
    let result = only_result(&messages);
    assert!(result.is_error, "{result:?}");
    assert_eq!(result.api_error_status, Some(400), "{result:?}");
    assert_eq!(result.terminal_reason.as_deref(), Some("api_error"));
    assert_eq!(
        result.result.as_deref(),
        Some("API Error: 400 stub says no")
    );
    assert_eq!(
        result.api_error_type.as_deref(),
        Some("invalid_request_error")
    );
    // The CLI's stand-in for the model's reply says how the call failed.
    let failed = messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant(reply) if reply.is_api_error_message => Some(reply),
            _ => None,
        })
        .expect("the synthetic assistant message of the failed call");
    assert_eq!(failed.api_error_status, Some(400));
    assert_eq!(
        failed.api_error_type.as_deref(),
        Some("invalid_request_error")
    );
    let kind = failed.error.clone().expect("a classified error");
    match &last {
        Err(Error::Result(error)) => {
            assert_eq!(error.api_error_status, Some(400));
            assert_eq!(
                error.api_error_type.as_deref(),
                Some("invalid_request_error")
            );
            assert_eq!(error.api_error.as_ref(), Some(&kind));
            assert!(!kind.may_pass_on_retry(), "{kind}");
            assert_eq!(error.exit.code, Some(1));
        }
        other => panic!("expected Error::Result last, got {other:?}"),
    }
    assert!(!env.stub.main_requests().is_empty());
}

/// An API 429 is retried and the turn then succeeds: the `system/api_retry` message in between
/// says the status, the CLI's class of the failure and the wait, as an app would show it.
pub async fn api_429_retried<R: Runtime>(rt: R) {
    retried_then_answered(
        rt,
        429,
        "rate_limit_error",
        ApiError::RateLimit,
        "rate_limit",
    )
    .await;
}

/// An API 529 (overloaded) is retried: the `system/api_retry` notice says so in types (status
/// 529, `ApiError::Overloaded`, worth retrying), then the turn succeeds.
pub async fn api_529_overloaded<R: Runtime>(rt: R) {
    retried_then_answered(
        rt,
        529,
        "overloaded_error",
        ApiError::Overloaded,
        "overloaded",
    )
    .await;
}

/// The stub answers the first request with a retryable `status` error of `error_type`, then
/// with text: the `system/api_retry` notice carries the status and the class (`named` in its
/// line), which is worth retrying, and the turn succeeds.
async fn retried_then_answered<R: Runtime>(
    rt: R,
    status: u16,
    error_type: &str,
    class: ApiError,
    named: &str,
) {
    let env = env();
    env.stub
        .push_reply(Reply::error(status, error_type, "try again later").retryable());
    env.stub.push_reply(Reply::text("made it"));
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "hello", env.options.clone()),
        )
        .await,
    );
    let retry = messages
        .iter()
        .find_map(|m| match m {
            Message::System(SystemMessage::ApiRetry(retry)) => Some(retry),
            _ => None,
        })
        .expect("a system/api_retry");
    assert_eq!(retry.error_status, Some(status), "{retry:?}");
    assert_eq!(retry.error.as_ref(), Some(&class), "{retry:?}");
    assert!(class.may_pass_on_retry());
    assert_eq!(retry.attempt, 1);
    let shown = retry.to_string();
    let expected = format!("API call failed (HTTP {status}, {named}): retry 1 of ");
    assert!(shown.starts_with(&expected), "{shown}");
    assert_eq!(texts(&messages), ["made it"]);
    assert_eq!(only_result(&messages).subtype, "success");
}

/// An API 401 is retried (`system/api_retry` messages); an interrupt then gives up at once.
pub async fn api_401_retries<R: Runtime>(rt: R) {
    let env = env();
    env.stub.add_rule(
        Rule::any().reply(Reply::error(401, "authentication_error", "bad key").retryable()),
    );
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    within(&rt, STEP, "send", client.send("hello"))
        .await
        .unwrap();
    let mut messages = client.receive_messages();
    let retry = within(&rt, STEP, "system/api_retry", async {
        while let Some(item) = messages.next().await {
            if let Ok(Message::System(SystemMessage::ApiRetry(retry))) = item {
                return retry;
            }
        }
        panic!("stream ended without api_retry")
    })
    .await;
    assert_eq!(retry.error_status, Some(401), "{retry:?}");
    assert_eq!(
        retry.error,
        Some(ApiError::AuthenticationFailed),
        "{retry:?}"
    );
    assert!(retry.attempt >= 1);
    let gave_up = Instant::now();
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("interrupt answered");
    let turn = all_ok(collect(&rt, "interrupted turn", client.receive_response()).await);
    let result = only_result(&turn);
    assert!(result.is_error, "{turn:#?}");
    assert_eq!(result.terminal_reason.as_deref(), Some("aborted_streaming"));
    within(&rt, STEP, "close", client.close()).await;
    assert!(
        gave_up.elapsed() < Duration::from_secs(15),
        "{:?}",
        gave_up.elapsed()
    );
}

/// An invalid permission mode: the CLI exits at once and the error carries its stderr.
pub async fn invalid_option<R: Runtime>(rt: R) {
    let env = env();
    let options = env
        .options
        .clone()
        .permission_mode(PermissionMode::from_name("bogus"));
    let started = Instant::now();
    match within(&rt, STEP, "connect", connect_with(rt.clone(), options)).await {
        Err(Error::Process { exit, stderr_tail }) => {
            assert_eq!(exit.code, Some(1));
            assert!(stderr_tail.contains("bogus"), "{stderr_tail}");
        }
        other => panic!("expected Error::Process, got {other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );

    // The same through `extra_arg` and `query`: the error is the stream's last item.
    let options = env
        .options
        .clone()
        .extra_arg("permission-mode", Some("bogus2".to_owned()));
    let started = Instant::now();
    let items = collect(&rt, "query", query_with(rt.clone(), "hi", options)).await;
    match items.last() {
        Some(Err(Error::Process { stderr_tail, .. })) => {
            assert!(stderr_tail.contains("bogus2"), "{stderr_tail}")
        }
        other => panic!("expected Error::Process last, got {other:?} in {items:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

/// `include_partial_messages`: stream events arrive before the assistant message.
pub async fn partial_messages<R: Runtime>(rt: R) {
    let env = env();
    let options = env.options.clone().include_partial_messages(true);
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "stream this reply", options),
        )
        .await,
    );
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
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "answer in JSON", options),
        )
        .await,
    );
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
    let live = all_ok(
        collect(
            &rt,
            "recorded query",
            query_with(
                rt.clone(),
                prompt,
                recorded_app(env.options.clone()).record_to(&path),
            ),
        )
        .await,
    );
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
    let replayed = all_ok(
        collect(
            &rt,
            "replayed query",
            query_with(
                rt.clone(),
                prompt,
                recorded_app(Options::new()).transport(fake.clone()),
            ),
        )
        .await,
    );
    let lines = |messages: &[Message]| -> Vec<String> {
        messages.iter().map(|m| m.raw_json().to_owned()).collect()
    };
    assert_eq!(lines(&replayed), lines(&live));
    fake.verify().unwrap_or_else(|e| panic!("{e}"));
}

/// `mcp_status` at once after `connect` lists the in-process server as connected: `connect`
/// waits for the CLI to connect it (it does so just after answering `initialize`).
pub async fn mcp_status_right_after_connect<R: Runtime>(rt: R) {
    let env = env();
    let calc = SdkMcpServer::new("calc", "1.0.0");
    let options = env.options.clone().sdk_mcp_server(calc);
    let started = Instant::now();
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .unwrap();
    let connected_after = started.elapsed();
    let status = within(&rt, STEP, "mcp_status", client.mcp_status())
        .await
        .unwrap();
    let names = server_states(&status);
    assert_eq!(
        names,
        [("calc", "connected")],
        "connect took {connected_after:?}"
    );
    within(&rt, STEP, "close", client.close()).await;
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
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "over a transport", options),
        )
        .await,
    );
    assert_eq!(texts(&messages), ["echo: over a transport"]);
    assert_eq!(only_result(&messages).subtype, "success");

    let failing = env
        .options
        .clone()
        .permission_mode(PermissionMode::from_name("bogus"))
        .transport(transport);
    match within(&rt, STEP, "connect", connect_with(rt.clone(), failing)).await {
        Err(Error::Process { exit, stderr_tail }) => {
            assert_eq!(exit.code, Some(1));
            assert!(stderr_tail.contains("bogus"), "{stderr_tail}");
        }
        other => panic!("expected Error::Process, got {other:?}"),
    }
    assert_eq!(started.load(Ordering::SeqCst), 2);
}

/// The options of in-process tools and their server reach the CLI and change what it does:
/// `always_load` offers a tool whole where the others are deferred behind `ToolSearch`, a
/// `search_hint` makes a search find its tool, the annotations show in `mcp_status`, the
/// server's instructions reach the model, `max_result_size_chars` sends a longer result to a
/// file, and arguments that do not fit a tool's schema are a tool error the model sees.
pub async fn mcp_tool_options<R: Runtime>(rt: R) {
    use claude_agent_core::client::tool;
    use claude_agent_core::mcp::ToolResult;

    let env = env();
    let calls = Arc::new(AtomicUsize::new(0));
    let count = calls.clone();
    let sku =
        json!({"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]});
    let done =
        |text: &'static str| move |_args| async move { Ok::<_, String>(ToolResult::text(text)) };
    let shop = SdkMcpServer::new("shop", "1.0.0")
        .instructions("Shop rules: prices are in cents.")
        .tool(
            tool("lookup", "Look an item up", sku.clone(), move |args| {
                count.fetch_add(1, Ordering::SeqCst);
                async move { Ok::<_, String>(ToolResult::text(format!("item {}", args["sku"]))) }
            })
            .always_load()
            .read_only_hint(true),
        )
        .tool(
            tool("archive", "Put an item away", sku.clone(), done("archived"))
                .search_hint("zebra")
                .destructive_hint(true)
                .open_world_hint(true),
        )
        .tool(tool(
            "restock",
            "Order more of an item",
            sku,
            done("ordered"),
        ))
        .tool(
            tool(
                "catalogue",
                "The whole catalogue",
                json!({"type": "object"}),
                |_args| async { Ok::<_, String>(ToolResult::text("x".repeat(3000))) },
            )
            .always_load()
            .max_result_size_chars(1000),
        );
    let options = env
        .options
        .clone()
        .sdk_mcp_server(shop)
        .allowed_tools(["mcp__shop"]);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");

    // The annotations, as the CLI reports them (it names a hint only when it is true).
    let status = within(&rt, STEP, "mcp_status", client.mcp_status())
        .await
        .unwrap();
    assert_eq!(
        status.mcp_servers[0].details["tools"],
        json!([
            {"name": "lookup", "annotations": {"readOnly": true}},
            {"name": "archive", "annotations": {"destructive": true, "openWorld": true}},
            {"name": "restock", "annotations": {}},
            {"name": "catalogue", "annotations": {}}
        ])
    );

    let mut tool_results = Vec::new();
    for prompt in [
        r#"TOOL:mcp__shop__lookup:{"sku": "A1"}"#,
        r#"TOOL:mcp__shop__lookup:{"sku": 7}"#,
        r#"TOOL:ToolSearch:{"query": "+zebra", "max_results": 5}"#,
        r#"TOOL:mcp__shop__catalogue:{}"#,
    ] {
        within(&rt, STEP, "send", client.send(prompt))
            .await
            .unwrap();
        all_ok(collect(&rt, "turn", client.receive_response()).await);
        let last = env.stub.main_requests().pop().expect("a request");
        tool_results.push(last.messages().last().expect("a message")["content"][0].clone());
    }
    within(&rt, STEP, "close", client.close()).await;

    // The first request offers the always-loaded tools whole, and the others not at all.
    let first = &env.stub.main_requests()[0];
    let offered: Vec<&str> = first.body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .filter(|name| name.starts_with("mcp__shop__"))
        .collect();
    assert_eq!(offered, ["mcp__shop__catalogue", "mcp__shop__lookup"]);
    // The server's instructions reach the model under its name.
    let body = first.body.to_string();
    assert!(
        body.contains(r#"## shop\nShop rules: prices are in cents."#),
        "{body}"
    );

    assert_eq!(tool_results[0]["content"][0]["text"], r#"item "A1""#);
    // Arguments that do not fit the schema: the model gets the error, the handler never ran.
    assert_eq!(tool_results[1]["is_error"], true);
    assert_eq!(
        tool_results[1]["content"],
        r#"Invalid arguments for tool lookup: /sku: 7 is not of type "string""#
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // The search finds the tool by its hint, and only that one.
    assert_eq!(
        tool_results[2]["content"],
        json!([{"type": "tool_reference", "tool_name": "mcp__shop__archive"}])
    );
    // 3,000 characters are over the tool's limit of 1,000: the model gets a preview.
    let catalogue = tool_results[3]["content"].as_str().unwrap_or_default();
    assert!(
        catalogue.starts_with("<persisted-output>\nOutput too large"),
        "{catalogue}"
    );
}

/// An in-process server's resources, used by the CLI: the model lists and reads them with the
/// CLI's own tools, and a template's variables reach its handler. (CLI 2.1.330 never asks an
/// in-process server for its prompts, so they show no effect here; the session's answers to
/// `prompts/list` and `prompts/get` are checked byte for byte in `claude-agent-core`.)
pub async fn mcp_resources<R: Runtime>(rt: R) {
    use claude_agent_core::client::{resource, resource_template};
    use claude_agent_core::mcp::ResourceResult;

    let env = env();
    let library = SdkMcpServer::new("lib", "1.0.0")
        .resource(
            resource("docs://readme", "README", |read| async move {
                Ok::<_, String>(ResourceResult::text(read.uri, "The secret word is zebra."))
            })
            .description("How to use the library")
            .mime_type("text/plain"),
        )
        .resource(resource_template(
            "logs://{day}",
            "Log of a day",
            |read| async move {
                let text = format!("nothing happened on {}", read.variables["day"]);
                Ok::<_, String>(ResourceResult::text(read.uri, text))
            },
        ));
    let options = env.options.clone().sdk_mcp_server(library);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    let mut results = Vec::new();
    for prompt in [
        r#"TOOL:ListMcpResourcesTool:{"server": "lib"}"#,
        r#"TOOL:ReadMcpResourceTool:{"server": "lib", "uri": "docs://readme"}"#,
        r#"TOOL:ReadMcpResourceTool:{"server": "lib", "uri": "logs://monday"}"#,
        r#"TOOL:ReadMcpResourceTool:{"server": "lib", "uri": "docs://missing"}"#,
    ] {
        within(&rt, STEP, "send", client.send(prompt))
            .await
            .unwrap();
        all_ok(collect(&rt, "turn", client.receive_response()).await);
        results.push(last_tool_result(&env.stub));
    }
    within(&rt, STEP, "close", client.close()).await;

    let listed: serde_json::Value = serde_json::from_str(&results[0]).expect("a JSON list");
    assert_eq!(
        listed,
        json!([{"name": "README", "uri": "docs://readme", "description": "How to use the library",
                "mimeType": "text/plain", "server": "lib"}])
    );
    let read: serde_json::Value = serde_json::from_str(&results[1]).expect("JSON contents");
    assert_eq!(
        read,
        json!({"contents": [{"uri": "docs://readme", "text": "The secret word is zebra."}]})
    );
    assert!(
        results[2].contains("nothing happened on monday"),
        "{}",
        results[2]
    );
    assert!(
        results[3].contains("Resource not found: docs://missing"),
        "{}",
        results[3]
    );
}

/// `set_mcp_servers` with in-process servers, against the real CLI: a new server is connected
/// and its tool runs in this process; the server of the options, passed again, stays; left out,
/// it is removed, and the CLI no longer lists it.
pub async fn set_in_process_mcp_servers<R: Runtime>(rt: R) {
    use claude_agent_core::client::tool;
    use claude_agent_core::mcp::ToolResult;

    let env = env();
    let server = |name: &str, tool_name: &str, answer: &'static str| {
        SdkMcpServer::new(name, "1.0.0").tool(tool(
            tool_name,
            "Answers",
            json!({"type": "object"}),
            move |_args| async move { Ok::<_, String>(ToolResult::text(answer)) },
        ))
    };
    let options = env
        .options
        .clone()
        .sdk_mcp_server(server("calc", "add", "sum=42"))
        .allowed_tools(["mcp__calc", "mcp__clock"]);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    // Keep `calc` (a new definition under the same name is not taken), add `clock`.
    let set = McpServerSet::new()
        .sdk(server("calc", "mul", "not served"))
        .sdk(server("clock", "now", "12:00"));
    let outcome = within(&rt, STEP, "set_mcp_servers", client.set_mcp_servers(set))
        .await
        .unwrap();
    assert_eq!(
        (outcome.added.as_slice(), outcome.removed.len()),
        (["clock".to_owned()].as_slice(), 0)
    );
    let connected = |status: &claude_agent_core::control::McpStatus| {
        server_states(status)
            .into_iter()
            .map(|(name, state)| format!("{name}:{state}"))
            .collect::<Vec<_>>()
    };
    let deadline = Instant::now() + STEP;
    let mut states;
    loop {
        let status = within(&rt, STEP, "mcp_status", client.mcp_status())
            .await
            .unwrap();
        states = connected(&status);
        if states.iter().all(|s| s.ends_with(":connected")) || Instant::now() > deadline {
            break;
        }
        sleep(&rt, Duration::from_millis(50)).await;
    }
    assert_eq!(states, ["calc:connected", "clock:connected"]);

    for (prompt, expected) in [
        ("TOOL:mcp__clock__now:{}", "12:00"),
        ("TOOL:mcp__calc__add:{}", "sum=42"),
    ] {
        within(&rt, STEP, "send", client.send(prompt))
            .await
            .unwrap();
        all_ok(collect(&rt, "turn", client.receive_response()).await);
        assert_eq!(last_tool_result(&env.stub), expected, "{prompt}");
    }

    // Without `calc`: the CLI drops it, and its tool is gone.
    let set = McpServerSet::new().sdk(server("clock", "now", "13:00"));
    let outcome = within(&rt, STEP, "set_mcp_servers", client.set_mcp_servers(set))
        .await
        .unwrap();
    assert_eq!(
        (outcome.added.len(), outcome.removed.as_slice()),
        (0, ["calc".to_owned()].as_slice())
    );
    let status = within(&rt, STEP, "mcp_status", client.mcp_status())
        .await
        .unwrap();
    assert_eq!(connected(&status), ["clock:connected"]);
    within(&rt, STEP, "send", client.send("TOOL:mcp__clock__now:{}"))
        .await
        .unwrap();
    all_ok(collect(&rt, "turn", client.receive_response()).await);
    assert_eq!(
        last_tool_result(&env.stub),
        "12:00",
        "the served clock stays"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// A stdio MCP server written in `sh`: it answers `initialize`, `tools/list` (no tools) and
/// `ping`, refuses every other request, and exits at once unless its environment has
/// `E2E_MCP_SECRET=<secret>`, so that the CLI reports it `connected` only when the server's `env`
/// reached it.
fn secret_checking_mcp_server(secret: &str) -> String {
    format!(
        r#"[ "$E2E_MCP_SECRET" = "{secret}" ] || exit 3
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\("[^"]*"\|[0-9][0-9]*\).*/\1/p')
  [ -n "$id" ] || continue
  case "$line" in
    *'"method":"initialize"'*) result='{{"protocolVersion":"2024-11-05","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}' ;;
    *'"method":"tools/list"'*) result='{{"tools":[]}}' ;;
    *'"method":"ping"'*) result='{{}}' ;;
    *) printf '{{"jsonrpc":"2.0","id":%s,"error":{{"code":-32601,"message":"Method not found"}}}}\n' "$id"; continue ;;
  esac
  printf '{{"jsonrpc":"2.0","id":%s,"result":%s}}\n' "$id" "$result"
done
"#
    )
}

/// The command line of process `pid`, its arguments joined by spaces (Linux: `/proc`).
fn command_line(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/cmdline: {e}"));
    String::from_utf8_lossy(&raw).replace('\0', " ")
}

/// Asks `mcp_status` until no server is `pending`; returns each server's name and status.
async fn settled_mcp_servers<R: Runtime>(rt: &R, client: &Client) -> Vec<(String, String)> {
    let deadline = Instant::now() + STEP;
    loop {
        let status = within(rt, STEP, "mcp_status", client.mcp_status())
            .await
            .unwrap();
        let states: Vec<(String, String)> = server_states(&status)
            .into_iter()
            .map(|(name, state)| (name.to_owned(), state.to_owned()))
            .collect();
        if states.iter().all(|(_, state)| state != "pending") {
            return states;
        }
        assert!(Instant::now() < deadline, "still pending: {states:?}");
        sleep(rt, Duration::from_millis(100)).await;
    }
}

/// External MCP servers with secrets (a stdio server's `env`, an HTTP server's `headers`) travel
/// in `initialize`: the CLI's command line, as any local user reads it in `/proc/<pid>/cmdline`,
/// holds neither secret, and the CLI still runs both servers with them (the stdio server
/// connects only with its secret; the HTTP server, pointed at the stub, gets its header). With
/// `Delivery::Argv` the same secret is on the command line, which is what the first part guards
/// against.
pub async fn mcp_secrets_stay_off_argv<R: Runtime>(rt: R) {
    const ENV_SECRET: &str = "env-s3cret-4711";
    const HEADER_SECRET: &str = "header-s3cret-0815";
    let env = env();
    let script = env.work.path().join("mcp-server.sh");
    std::fs::write(&script, secret_checking_mcp_server(ENV_SECRET)).expect("write the server");
    let script = script.display().to_string();
    let stdio = |secret: &str| {
        McpServerConfig::Stdio(
            McpStdioServer::new("/bin/sh")
                .args([script.as_str()])
                .env("E2E_MCP_SECRET", secret),
        )
    };
    let http = McpServerConfig::Http(
        McpRemoteServer::new(format!("{}/mcp", env.stub.base_url()))
            .header("Authorization", format!("Bearer {HEADER_SECRET}")),
    );
    let options = env
        .options
        .clone()
        .mcp_server("local", stdio(ENV_SECRET))
        .mcp_server("remote", http);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    let pid = client
        .server_info()
        .and_then(|info| info.pid)
        .expect("the CLI says its pid");
    let argv = command_line(pid);
    assert!(argv.contains("--await-initialize"), "{argv}");
    assert!(!argv.contains(ENV_SECRET), "{argv}");
    assert!(!argv.contains(HEADER_SECRET), "{argv}");
    assert!(!argv.contains("mcp-server.sh"), "{argv}");
    let states = settled_mcp_servers(&rt, &client).await;
    let names: Vec<&str> = states.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["local", "remote"], "{states:?}");
    assert_eq!(states[0].1, "connected", "{states:?}");
    wait_until(&rt, STEP, "the HTTP server is called", || {
        env.stub.requests().iter().any(|r| r.path == "/mcp")
    })
    .await;
    let bearer = format!("Bearer {HEADER_SECRET}");
    assert!(
        env.stub
            .requests()
            .iter()
            .filter(|r| r.path == "/mcp")
            .all(|r| r.header("authorization") == Some(bearer.as_str())),
        "every call of the HTTP server carries its header"
    );
    within(&rt, STEP, "close", client.close()).await;

    let on_argv = env
        .options
        .clone()
        .mcp_server("local", stdio(ENV_SECRET))
        .mcp_servers_delivery(Delivery::Argv);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), on_argv))
        .await
        .expect("connected");
    let pid = client.server_info().and_then(|info| info.pid).expect("pid");
    let argv = command_line(pid);
    assert!(argv.contains(ENV_SECRET), "{argv}");
    assert!(!argv.contains("--await-initialize"), "{argv}");
    let states = settled_mcp_servers(&rt, &client).await;
    assert_eq!(
        states,
        [("local".to_owned(), "connected".to_owned())],
        "{states:?}"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// A `PreToolUse` hook on Bash whose callback panics (the SDK answers the CLI with an error). By
/// default the hook fails open: the CLI runs the command anyway. Made
/// [`HookMatcher::fail_closed`], the failure blocks the call: the command does not run, and the
/// model gets the CLI's `PreToolUse:Bash hook error: … blocking because onFailure is "block"`.
pub async fn hook_fail_closed<R: Runtime>(rt: R) {
    let env = env();
    let run = |matcher: HookMatcher, prompt: &'static str| {
        let calls = Arc::new(AtomicUsize::new(0));
        let count = calls.clone();
        let options = env
            .options
            .clone()
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() })
            .on_hook(matcher, move |_input: PreToolUseInput, _ctx| {
                count.fetch_add(1, Ordering::SeqCst);
                async move { panic!("the e2e guard broke") }
            });
        let rt = rt.clone();
        async move {
            let messages =
                all_ok(collect(&rt, "query", query_with(rt.clone(), prompt, options)).await);
            assert_eq!(calls.load(Ordering::SeqCst), 1, "{prompt}");
            messages
        }
    };

    let open = run(HookMatcher::new("Bash"), "BASH:touch ran-fail-open && ls").await;
    assert!(env.work.path().join("ran-fail-open").exists());
    assert!(last_tool_result(&env.stub).contains("ran-fail-open"));
    assert_eq!(only_result(&open).subtype, "success");

    let closed = run(
        HookMatcher::new("Bash").fail_closed(),
        "BASH:touch ran-fail-closed && ls",
    )
    .await;
    assert!(!env.work.path().join("ran-fail-closed").exists());
    let tool_result = last_tool_result(&env.stub);
    assert!(
        tool_result.starts_with("PreToolUse:Bash hook error")
            && tool_result.contains(r#"blocking because onFailure is "block""#),
        "{tool_result}"
    );
    assert_eq!(only_result(&closed).subtype, "success");
}

/// A session run in a folder whose name has characters outside the Basic Multilingual Plane
/// (an emoji: two UTF-16 units, so two `-` in the CLI's folder name) and others: the history
/// finds it where the CLI wrote it.
pub async fn history_of_a_folder_with_an_emoji<R: Runtime>(rt: R) {
    let env = env();
    let dir = env.work.path().join("café-😀-项目-e\u{301}");
    std::fs::create_dir(&dir).expect("the folder");
    let options = env.options.clone().cwd(&dir);
    let messages =
        all_ok(collect(&rt, "query", query_with(rt.clone(), "hello there", options)).await);
    let id = only_result(&messages).session_id().to_owned();
    let history = History::at(env.home.path().join(".claude"));
    let dir = std::fs::canonicalize(&dir).unwrap();
    let listed = history
        .list_sessions(&ListSessions::in_dir(&dir))
        .expect("listed");
    let ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [id.as_str()]);
    let session = history.session(&id, Some(&dir)).expect("found");
    assert!(!session.messages(Page::ALL).expect("read").is_empty());
}

/// A subagent's transcript read back: the model starts an agent, and the history lists it and
/// reads its messages with the `tool_use` id that started it (from the CLI's `.meta.json`), and
/// no parent agent, as the main conversation started it.
pub async fn subagent_history<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Agent",
        json!({"description": "greet", "prompt": "say hi", "subagent_type": "general-purpose"}),
    ));
    env.stub.push_reply(Reply::text("hi from the agent"));
    env.stub.push_reply(Reply::text("all done"));
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(
                rt.clone(),
                "use an agent",
                env.options.clone().allowed_tools(["Agent"]),
            ),
        )
        .await,
    );
    let started = messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant(reply) => reply.message.content.iter().find_map(|b| match b {
                ContentBlock::ToolUse(call) if call.name == "Agent" => Some(call.id.clone()),
                _ => None,
            }),
            _ => None,
        })
        .expect("the Agent call");
    let session_id = messages
        .iter()
        .find_map(|m| match m {
            Message::Result(result) => Some(result.session_id().to_owned()),
            _ => None,
        })
        .expect("a result");
    let history = History::at(env.home.path().join(".claude"));
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let session = history
        .session(&session_id, Some(&work))
        .expect("the session");
    let agents = session.subagents().expect("listed");
    assert_eq!(agents.len(), 1, "{agents:?}");
    let transcript = session
        .subagent_messages(&agents[0], Page::ALL)
        .expect("the agent's messages");
    assert!(!transcript.is_empty());
    for message in &transcript {
        assert_eq!(
            message.parent_tool_use_id.as_deref(),
            Some(started.as_str())
        );
        assert_eq!(message.parent_agent_id, None);
    }
}

/// Two sessions, then the history the CLI stored: both listed with their first prompt and
/// working directory, the conversation read back typed; a rename and a tag show in the listing,
/// a fork is resumed by the CLI with the forked conversation, a deleted session is gone.
pub async fn session_history<R: Runtime>(rt: R) {
    let env = env();
    let mut ids = Vec::new();
    for prompt in ["first question", "second question"] {
        let messages = all_ok(
            collect(
                &rt,
                prompt,
                query_with(rt.clone(), prompt, env.options.clone()),
            )
            .await,
        );
        ids.push(only_result(&messages).session_id().to_owned());
    }
    let (first, second) = (ids[0].as_str(), ids[1].as_str());
    let history = History::at(env.home.path().join(".claude"));
    let work = std::fs::canonicalize(env.work.path()).unwrap();

    // This SDK ran them (`"entrypoint":"sdk-rust"`): a picker for people lists neither.
    let typed = history
        .list_sessions(&ListSessions::in_dir(&work).include_programmatic(false))
        .expect("listed");
    assert!(typed.is_empty(), "{typed:?}");
    let listed = history
        .list_sessions(&ListSessions::in_dir(&work))
        .expect("listed");
    let summary: Vec<(&str, Option<&str>, Option<&std::path::Path>)> = listed
        .iter()
        .map(|s| {
            (
                s.session_id.as_str(),
                s.first_prompt.as_deref(),
                s.cwd.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (second, Some("second question"), Some(work.as_path())),
            (first, Some("first question"), Some(work.as_path())),
        ]
    );

    let conversation = history
        .session(first, Some(&work))
        .and_then(|s| s.messages(Page::ALL))
        .expect("messages");
    let said: Vec<String> = conversation
        .iter()
        .map(|m| match &m.message {
            Message::User(user) => match &user.content {
                MessageContent::Text(text) => format!("user: {text}"),
                other => format!("user: {other:?}"),
            },
            Message::Assistant(_) => {
                format!(
                    "claude: {}",
                    texts(std::slice::from_ref(&m.message)).join(" ")
                )
            }
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        said,
        ["user: first question", "claude: echo: first question"]
    );

    history
        .session(first, None)
        .and_then(|s| s.rename("Renamed session"))
        .unwrap();
    history
        .session(first, None)
        .and_then(|s| s.tag(Some("kept")))
        .unwrap();
    let info = history
        .session(first, Some(&work))
        .and_then(|s| s.info())
        .unwrap();
    assert_eq!(info.summary, "Renamed session");
    assert_eq!(info.tag.as_deref(), Some("kept"));

    let fork = history
        .session(first, Some(&work))
        .and_then(|s| s.fork(ForkOptions::new()))
        .unwrap();
    let summary_of = |id: &str| {
        history
            .session(id, Some(&work))
            .and_then(|s| s.info())
            .unwrap()
            .summary
    };
    assert_eq!(summary_of(&fork), "Renamed session (fork)");
    let titled = history
        .session(first, Some(&work))
        .and_then(|s| s.fork(ForkOptions::new().title("Plan B")))
        .unwrap();
    assert_eq!(summary_of(&titled), "Plan B");
    let resumed = all_ok(
        collect(
            &rt,
            "resume the fork",
            query_with(
                rt.clone(),
                "what came before?",
                env.options
                    .clone()
                    .session_start(SessionStart::Resume(Resume::new(fork.clone()))),
            ),
        )
        .await,
    );
    assert_eq!(texts(&resumed), ["echo: what came before?"]);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(body.contains("echo: first question"), "{body}");
    assert!(!body.contains("second question"), "{body}");

    // Archived, unarchived, archived again; then a prompt sent in the session unarchives it (the
    // CLI rewrites the mark, `"by":"cli"`).
    let archived = |id: &str| {
        history
            .session(id, Some(&work))
            .and_then(|s| s.info())
            .unwrap()
            .archived
    };
    assert_eq!(archived(first), None);
    let session = history.session(first, Some(&work)).unwrap();
    session.archive().unwrap();
    assert_eq!(archived(first), Some(true));
    let listed = history.list_sessions(&ListSessions::in_dir(&work)).unwrap();
    assert!(
        listed
            .iter()
            .any(|s| s.session_id == first && s.archived == Some(true)),
        "{listed:?}"
    );
    session.unarchive().unwrap();
    assert_eq!(archived(first), Some(false));
    session.archive().unwrap();
    let resumed = all_ok(
        collect(
            &rt,
            "resume the archived session",
            query_with(
                rt.clone(),
                "back again",
                env.options
                    .clone()
                    .session_start(SessionStart::Resume(Resume::new(first.to_owned()))),
            ),
        )
        .await,
    );
    assert_eq!(texts(&resumed), ["echo: back again"]);
    assert_eq!(archived(first), Some(false));

    history
        .session(second, None)
        .and_then(|s| s.delete())
        .unwrap();
    let left: Vec<String> = history
        .list_sessions(&ListSessions::all())
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert!(
        left.contains(&fork) && left.iter().any(|id| id == first),
        "{left:?}"
    );
    assert!(!left.iter().any(|id| id == second), "{left:?}");
}

/// `server_info` keeps the whole `initialize` answer: the typed fields, the accessors, and the
/// fields this crate does not type, by name; `reinitialize` gets a fresh answer of the same CLI.
pub async fn server_info_fields<R: Runtime>(rt: R) {
    let env = env();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    let info = client.server_info().expect("initialize answered");
    assert_eq!(
        info.claude_code_version.as_deref(),
        Some(cli_version().to_string().as_str())
    );
    assert!(info.pid.is_some_and(|pid| pid > 0), "{info:?}");
    assert_eq!(info.hook_on_failure_supported, Some(true));
    assert!(!info.models.is_empty(), "{info:?}");
    assert_eq!(info.other["current_permission_mode"], "default");
    assert_eq!(info.other["session_state"], "idle");
    let commands: Vec<String> = client
        .supported_commands()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert!(commands.iter().any(|c| c == "compact"), "{commands:?}");
    let models = client.supported_models();
    assert_eq!(models.len(), info.models.len());
    assert!(models.iter().all(|m| !m.value.is_empty()), "{models:?}");
    assert!(
        models.iter().any(|m| m.supports_effort.is_some()),
        "{models:?}"
    );
    assert_eq!(client.supported_agents().len(), info.agents.len());
    let account = client.account_info().expect("an account");
    assert_eq!(account.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));

    let fresh = within(&rt, STEP, "reinitialize", client.reinitialize())
        .await
        .unwrap();
    assert_eq!(fresh.claude_code_version, info.claude_code_version);
    assert_eq!(fresh.pid, info.pid);
    assert_eq!(fresh.commands.len(), info.commands.len());
    // The session still works after the second initialize.
    within(&rt, STEP, "send", client.send("after reinitialize"))
        .await
        .unwrap();
    let turn = all_ok(collect(&rt, "turn", client.receive_response()).await);
    assert_eq!(texts(&turn), ["echo: after reinitialize"]);
    within(&rt, STEP, "close", client.close()).await;
}

/// `apply_flag_settings` changes the model of the next API call; `update_settings` writes the
/// local and the user settings files; `set_max_thinking_tokens` with a display and
/// `context_usage` with a detail level are accepted; `usage` reports the session's cost.
pub async fn settings_control_requests<R: Runtime>(rt: R) {
    use claude_agent_core::control::{ContextUsageDetail, SettingsFile, ThinkingDisplay};

    let env = env();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    within(
        &rt,
        STEP,
        "apply_flag_settings",
        client.apply_flag_settings(&json!({"model": "claude-flag-model"})),
    )
    .await
    .unwrap();
    within(
        &rt,
        STEP,
        "set_max_thinking_tokens",
        client.set_max_thinking_tokens(Some(2_000), ThinkingDisplay::Summarized),
    )
    .await
    .unwrap();
    within(&rt, STEP, "send", client.send("which model now"))
        .await
        .unwrap();
    let turn = all_ok(collect(&rt, "turn", client.receive_response()).await);
    assert_eq!(texts(&turn), ["echo: which model now"]);
    let model = env
        .stub
        .main_requests()
        .last()
        .and_then(|r| r.model().map(str::to_owned));
    assert_eq!(model.as_deref(), Some("claude-flag-model"));

    within(
        &rt,
        STEP,
        "update_settings local",
        client.update_settings(SettingsFile::Local, &json!({"outputStyle": "Explanatory"})),
    )
    .await
    .unwrap();
    let local = std::fs::read_to_string(env.work.path().join(".claude/settings.local.json"))
        .expect("the local settings file was written");
    let local: serde_json::Value = serde_json::from_str(&local).expect("JSON");
    assert_eq!(local["outputStyle"], "Explanatory");
    within(
        &rt,
        STEP,
        "update_settings user",
        client.update_settings(SettingsFile::User, &json!({"effortLevel": "high"})),
    )
    .await
    .unwrap();
    let user = std::fs::read_to_string(env.home.path().join(".claude/settings.json"))
        .expect("the user settings file was written");
    assert!(user.contains("high"), "{user}");
    // A key the CLI does not write is refused.
    match within(
        &rt,
        STEP,
        "update_settings refused",
        client.update_settings(SettingsFile::Local, &json!({"model": "opus"})),
    )
    .await
    {
        Err(Error::ControlRefused { message, .. }) => assert!(!message.is_empty()),
        other => panic!("expected a refusal, got {other:?}"),
    }

    let usage = within(
        &rt,
        STEP,
        "context_usage",
        client.context_usage(ContextUsageDetail::Summary),
    )
    .await
    .unwrap();
    assert!(usage.total_tokens > 0, "{usage:?}");
    assert!(
        usage
            .categories
            .iter()
            .any(|c| c.id.as_deref() == Some("system_tools") && c.tokens > 0),
        "{usage:?}"
    );
    assert!(
        usage
            .api_usage
            .as_ref()
            .is_some_and(|u| u.output_tokens > 0),
        "{usage:?}"
    );
    let report = within(
        &rt,
        STEP,
        "usage",
        client.usage(UsageDetail::WithoutBehaviors),
    )
    .await
    .unwrap();
    assert!(report.session.total_cost_usd > 0.0, "{report:?}");
    assert!(!report.rate_limits_available);
    assert!(
        report.session.model_usage.contains_key("claude-flag-model"),
        "{report:?}"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// `reload_plugins`, `reload_skills` and `reload_output_styles` answer with the refreshed lists.
pub async fn reload_control_requests<R: Runtime>(rt: R) {
    use claude_agent_core::control::ReloadPlugins;

    let env = env();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    let plugins = within(
        &rt,
        STEP,
        "reload_plugins",
        client.reload_plugins(ReloadPlugins::new().hold_on_cache_impact(true)),
    )
    .await
    .unwrap();
    assert_eq!(plugins.error_count, 0, "{plugins:?}");
    assert_eq!(plugins.held, Some(false), "{plugins:?}");
    assert!(
        plugins.commands.iter().any(|c| c.name == "compact"),
        "{plugins:?}"
    );
    let skills = within(&rt, STEP, "reload_skills", client.reload_skills())
        .await
        .unwrap();
    assert!(!skills.skills.is_empty(), "{skills:?}");
    let styles = within(
        &rt,
        STEP,
        "reload_output_styles",
        client.reload_output_styles(),
    )
    .await
    .unwrap();
    assert!(
        styles
            .available_output_styles
            .iter()
            .any(|s| s == "Explanatory"),
        "{styles:?}"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// `read_file` reads a file of the working directory (whole, or cut and base64) and refuses
/// one that is missing; `seed_read_state`, `background_tasks` and
/// `set_mcp_permission_mode_override` are answered; `read_mcp_resource` of an unknown server
/// is refused with the CLI's text.
pub async fn file_and_task_control_requests<R: Runtime>(rt: R) {
    use claude_agent_core::control::{McpPermissionMode, ReadFile};

    let env = env();
    let path = env.work.path().join("hello.txt");
    std::fs::write(&path, "hello world\n").expect("write a file");
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    let whole = within(
        &rt,
        STEP,
        "read_file",
        client.read_file(ReadFile::new("hello.txt")),
    )
    .await
    .unwrap();
    assert_eq!(whole.contents, "hello world\n");
    assert!(whole.abs_path.ends_with("/hello.txt"), "{whole:?}");
    assert!(!whole.truncated && !whole.is_base64());
    let cut = within(
        &rt,
        STEP,
        "read_file base64",
        client.read_file(ReadFile::new("hello.txt").max_bytes(3).base64()),
    )
    .await
    .unwrap();
    assert_eq!(cut.contents, "aGVs");
    assert!(cut.truncated && cut.is_base64(), "{cut:?}");
    match within(
        &rt,
        STEP,
        "read_file missing",
        client.read_file(ReadFile::new("missing.txt")),
    )
    .await
    {
        Err(Error::ControlRefused { message, .. }) => {
            assert_eq!(message, "read denied: missing.txt")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }

    let mtime = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime");
    within(
        &rt,
        STEP,
        "seed_read_state",
        client.seed_read_state("hello.txt", mtime),
    )
    .await
    .unwrap();
    within(&rt, STEP, "background_tasks", client.background_tasks())
        .await
        .unwrap();
    let one = within(
        &rt,
        STEP,
        "background_tasks one",
        client.background_task("toolu_none"),
    )
    .await
    .unwrap();
    assert!(!one);
    let outcome = within(
        &rt,
        STEP,
        "set_mcp_permission_mode_override",
        client.set_mcp_permission_mode_override("later", Some(McpPermissionMode::Default)),
    )
    .await
    .unwrap();
    assert!(
        outcome
            .warning
            .as_deref()
            .unwrap_or_default()
            .contains("'later'"),
        "{outcome:?}"
    );
    let cleared = within(
        &rt,
        STEP,
        "clear the override",
        client.set_mcp_permission_mode_override("later", None),
    )
    .await
    .unwrap();
    assert!(
        cleared
            .warning
            .as_deref()
            .unwrap_or_default()
            .contains("cleared"),
        "{cleared:?}"
    );
    match within(
        &rt,
        STEP,
        "read_mcp_resource",
        client.read_mcp_resource("nope", "ui://nope/widget"),
    )
    .await
    {
        Err(Error::ControlRefused { message, .. }) => {
            assert_eq!(message, "Server not found: nope")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    within(&rt, STEP, "close", client.close()).await;
}

/// A permission answer's `decisionClassification` reaches the CLI: it records it with the tool's
/// result (`tool_result_meta[].permission_decision.source`); an answer without one is taken as
/// allowed once.
pub async fn permission_decision_classification<R: Runtime>(rt: R) {
    use claude_agent_core::permission::DecisionClassification;

    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "touch always && ls", "description": "first"}),
    ));
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "touch once && ls", "description": "second"}),
    ));
    env.stub.push_reply(Reply::text("both ran"));
    let options = env
        .options
        .clone()
        .on_permission_request(|request, _ctx| async move {
            let input: serde_json::Value =
                serde_json::from_str(request.tool_input.as_str()).unwrap_or_default();
            let answer = PermissionResult::allow().with_tool_use_id(request.tool_use_id);
            if input["command"]
                .as_str()
                .unwrap_or_default()
                .contains("always")
            {
                answer.with_decision_classification(DecisionClassification::UserPermanent)
            } else {
                answer
            }
        });
    let messages = all_ok(collect(&rt, "query", query_with(rt.clone(), "run both", options)).await);
    assert_eq!(only_result(&messages).result.as_deref(), Some("both ran"));
    let sources: Vec<String> = messages
        .iter()
        .filter_map(|m| match m {
            Message::User(user) => user.tool_result_meta(),
            _ => None,
        })
        .map(|meta| {
            let meta: serde_json::Value = serde_json::from_str(meta).expect("JSON");
            meta[0]["permission_decision"]["source"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(sources, ["user_permanent", "user_temporary"]);
    assert!(env.work.path().join("always").exists());
    assert!(env.work.path().join("once").exists());
}

/// The newer `initialize` fields reach the CLI: a system prompt of blocks split by the dynamic
/// boundary becomes the API request's system prompt (the marker itself is not sent), plan-mode
/// instructions replace the plan workflow the model is told in plan mode, and a session that
/// declares dialog kinds, a per-task stop control, progress summaries, no prompt snapshot and an
/// extra field through the escape hatch runs normally.
pub async fn initialize_fields<R: Runtime>(rt: R) {
    use claude_agent_core::control::UserDialogResult;
    use claude_agent_core::options::SystemPrompt;

    let env = env();
    let options = env
        .options
        .clone()
        .system_prompt(
            SystemPrompt::blocks([
                "STATIC-BLOCK",
                SystemPrompt::DYNAMIC_BOUNDARY,
                "DYNAMIC-BLOCK",
            ])
            .with_snapshot(false),
        )
        .permission_mode(PermissionMode::Plan)
        .plan_mode_instructions("PLAN-WORKFLOW: list the files, then stop.")
        .agent_progress_summaries(true)
        .per_task_stop_affordance(true)
        .initialize_field("rapidFollowupPreempt", false)
        .on_user_dialog(["refusal_fallback_prompt"], |_request, _ctx| async {
            UserDialogResult::cancelled()
        });
    let messages =
        all_ok(collect(&rt, "query", query_with(rt.clone(), "make a plan", options)).await);
    assert_eq!(texts(&messages), ["echo: make a plan"]);
    let request = env.stub.main_requests().pop().expect("a request");
    let system = request.body["system"].to_string();
    assert!(
        system.contains("STATIC-BLOCK") && system.contains("DYNAMIC-BLOCK"),
        "{system}"
    );
    assert!(!system.contains(SystemPrompt::DYNAMIC_BOUNDARY), "{system}");
    let conversation = request.body["messages"].to_string();
    assert!(
        conversation.contains("## Plan Workflow\\n\\nPLAN-WORKFLOW: list the files, then stop."),
        "{conversation}"
    );
}

/// `tool_alias`: the model calls `Shell`, and the CLI runs (and asks about) `Bash`.
pub async fn tool_aliases<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Shell",
        json!({"command": "touch aliased && ls", "description": "aliased"}),
    ));
    env.stub.push_reply(Reply::text("ran it"));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone()).tool_alias("Shell", "Bash");
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "use the alias", options),
        )
        .await,
    );
    assert_eq!(only_result(&messages).result.as_deref(), Some("ran it"));
    assert_eq!(*asked.lock().unwrap(), ["Bash:touch aliased && ls"]);
    assert!(env.work.path().join("aliased").exists());
}

/// `permission_prompts(Nobody)`: what would be asked is refused at once, and the model is told
/// no one can approve it.
pub async fn permission_prompts_nobody<R: Runtime>(rt: R) {
    use claude_agent_core::options::PermissionPrompts;

    let env = env();
    let options = env
        .options
        .clone()
        .permission_prompts(PermissionPrompts::Nobody);
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "BASH:touch unapproved && ls", options),
        )
        .await,
    );
    assert_eq!(only_result(&messages).subtype, "success");
    assert!(!env.work.path().join("unapproved").exists());
    let refusal = last_tool_result(&env.stub);
    assert!(refusal.contains("no approval surface"), "{refusal}");
}

/// `managed_settings`: a deny rule of the host's policy refuses the tool before anyone is asked.
pub async fn managed_settings<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone())
        .managed_settings(json!({"permissions": {"deny": ["Bash(touch:*)"]}}));
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "BASH:touch forbidden && ls", options),
        )
        .await,
    );
    assert_eq!(only_result(&messages).subtype, "success");
    assert!(asked.lock().unwrap().is_empty());
    assert!(!env.work.path().join("forbidden").exists());
    assert_eq!(
        last_tool_result(&env.stub),
        "Permission to use Bash with command touch forbidden && ls has been denied."
    );
}

/// Inline settings and managed settings travel in `initialize` (the default): the CLI's command
/// line holds neither, and the CLI applies both (the settings' `env` reaches a Bash tool, the
/// managed deny rule refuses a tool). With `Delivery::Argv` they are on the command line again.
pub async fn settings_stay_off_argv<R: Runtime>(rt: R) {
    const SECRET: &str = "settings-s3cret-2024";
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone())
        .settings_json(json!({"env": {"E2E_SETTINGS_SECRET": SECRET}}))
        .managed_settings(json!({"permissions": {"deny": ["Bash(touch:*)"]}}));
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), options.clone()),
    )
    .await
    .expect("connected");
    let pid = client
        .server_info()
        .and_then(|info| info.pid)
        .expect("the CLI says its pid");
    let argv = command_line(pid);
    assert!(
        argv.contains("--initialize-fields=settings")
            && argv.contains("--managed-settings-in-initialize"),
        "{argv}"
    );
    assert!(
        !argv.contains(SECRET) && !argv.contains("touch:*"),
        "{argv}"
    );
    within(
        &rt,
        STEP,
        "send",
        client.send("BASH:echo $E2E_SETTINGS_SECRET"),
    )
    .await
    .expect("sent");
    let messages = all_ok(collect(&rt, "turn 1", client.receive_response()).await);
    assert_eq!(only_result(&messages).subtype, "success");
    assert!(
        last_tool_result(&env.stub).contains(SECRET),
        "the settings' env reaches a tool"
    );
    within(&rt, STEP, "send", client.send("BASH:touch forbidden && ls"))
        .await
        .expect("sent");
    all_ok(collect(&rt, "turn 2", client.receive_response()).await);
    assert!(!env.work.path().join("forbidden").exists());
    assert_eq!(
        last_tool_result(&env.stub),
        "Permission to use Bash with command touch forbidden && ls has been denied."
    );
    within(&rt, STEP, "close", client.close()).await;

    let on_argv = options.settings_delivery(Delivery::Argv);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), on_argv))
        .await
        .expect("connected");
    let pid = client.server_info().and_then(|info| info.pid).expect("pid");
    let argv = command_line(pid);
    assert!(argv.contains(SECRET) && argv.contains("touch:*"), "{argv}");
    within(&rt, STEP, "close", client.close()).await;
}

/// `project_config_root`: the `.claude` commands of the root are the session's, not those of
/// the working directory.
pub async fn project_config_root<R: Runtime>(rt: R) {
    let env = env();
    let root = TestDir::new("root").expect("temp root");
    let commands = |dir: &std::path::Path, name: &str| {
        let dir = dir.join(".claude/commands");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join(format!("{name}.md")),
            "---\ndescription: a test command\n---\nSay hi\n",
        )
        .expect("write a command");
    };
    commands(root.path(), "from-the-root");
    commands(env.work.path(), "from-the-worktree");
    let options = env.options.clone().project_config_root(root.path());
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    let names: Vec<String> = client
        .supported_commands()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert!(names.iter().any(|n| n == "from-the-root"), "{names:?}");
    assert!(!names.iter().any(|n| n == "from-the-worktree"), "{names:?}");
    within(&rt, STEP, "close", client.close()).await;
}

/// `tool_config`: HTML previews change what the model is told about `AskUserQuestion`.
pub async fn tool_config<R: Runtime>(rt: R) {
    use claude_agent_core::options::{PreviewFormat, ToolConfig};

    let env = env();
    let description = |format: PreviewFormat| {
        let options = env
            .options
            .clone()
            .tool_config(ToolConfig::new().ask_user_question_preview_format(format))
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
        let stub = &env.stub;
        let rt = rt.clone();
        async move {
            all_ok(collect(&rt, "query", query_with(rt.clone(), "hello", options)).await);
            let request = stub.main_requests().pop().expect("a request");
            request.body["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|tool| tool["name"] == "AskUserQuestion")
                .map(|tool| tool.to_string())
                .expect("AskUserQuestion is offered")
        }
    };
    let html = description(PreviewFormat::Html).await;
    assert!(html.contains("self-contained HTML fragment"), "{html}");
    let markdown = description(PreviewFormat::Markdown).await;
    assert!(!markdown.contains("HTML fragment"), "{markdown}");
}

/// `mcp_config` with JSON text or a file path, next to a server of `mcp_server`: the CLI loads
/// all of them.
pub async fn mcp_config_text_and_file<R: Runtime>(rt: R) {
    use claude_agent_core::options::McpServerConfig;

    let env = env();
    let file = env.work.path().join("mcp.json");
    std::fs::write(
        &file,
        r#"{"mcpServers":{"from-file":{"type":"stdio","command":"/nonexistent/mcp-server"}}}"#,
    )
    .expect("write the MCP config");
    let status_of = |options: Options| {
        let rt = rt.clone();
        async move {
            let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
                .await
                .expect("connected");
            let status = within(&rt, STEP, "mcp_status", client.mcp_status())
                .await
                .unwrap();
            within(&rt, STEP, "close", client.close()).await;
            let mut names: Vec<String> = status.mcp_servers.into_iter().map(|s| s.name).collect();
            names.sort();
            names
        }
    };
    let text = env
        .options
        .clone()
        .mcp_server(
            "typed",
            McpServerConfig::stdio("/nonexistent/typed-server", Vec::<String>::new()),
        )
        .mcp_config(
            r#"{"mcpServers":{"from-text":{"type":"stdio","command":"/nonexistent/other"}}}"#,
        );
    assert_eq!(status_of(text).await, ["from-text", "typed"]);
    let path = env.options.clone().mcp_config(file.display().to_string());
    assert_eq!(status_of(path).await, ["from-file"]);
}

/// An agent with the newer fields (observer, omitted CLAUDE.md, compaction window, numeric
/// effort) is taken by the CLI and listed in its `initialize` answer. (CLI 2.1.330 drops every
/// agent when a window is under 100,000 tokens, which `Options` refuses.)
pub async fn agent_definition_fields<R: Runtime>(rt: R) {
    use claude_agent_core::options::{AgentDefinition, AgentEffort};

    let env = env();
    let agent = AgentDefinition::new("Reviews diffs", "You review diffs.")
        .model("haiku")
        .auto_compact_window(120_000)
        .omit_claude_md(true)
        .observer("auditor")
        .observer_message("Watch the shell.")
        .effort(AgentEffort::Value(2))
        .critical_system_reminder("Never push.");
    let auditor = AgentDefinition::new("Audits activity", "Report anything risky.");
    let options = env
        .options
        .clone()
        .agent_definition("reviewer", agent)
        .agent_definition("auditor", auditor);
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    let agents = client.supported_agents();
    let reviewer = agents
        .iter()
        .find(|a| a.name == "reviewer")
        .unwrap_or_else(|| panic!("{agents:?}"));
    assert_eq!(reviewer.description, "Reviews diffs");
    assert_eq!(reviewer.model.as_deref(), Some("haiku"));
    within(&rt, STEP, "close", client.close()).await;
}

/// What the CLI's Bash tool printed for `command`, run in a one-prompt session with `options`
/// (every tool allowed).
async fn printed_by_bash<R: Runtime>(
    rt: &R,
    env: &Env,
    command: String,
    options: Options,
) -> String {
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": command, "description": "show the environment"}),
    ));
    env.stub.push_reply(Reply::text("shown"));
    let options =
        options.on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    let messages = all_ok(
        collect(
            rt,
            "query",
            query_with(rt.clone(), "show the environment", options),
        )
        .await,
    );
    assert_eq!(only_result(&messages).result.as_deref(), Some("shown"));
    env.stub
        .main_requests()
        .pop()
        .and_then(|r| r.last_tool_result_text())
        .unwrap_or_default()
}

/// `env_remove` keeps an inherited variable from the CLI (and so from its Bash tool), and
/// `trace_context` hands the CLI the caller's `TRACEPARENT` and `TRACESTATE`.
pub async fn environment_options<R: Runtime>(rt: R) {
    let env = env();
    let inherited = "CARGO_MANIFEST_DIR";
    assert!(
        std::env::var_os(inherited).is_some(),
        "cargo sets {inherited} for its tests"
    );
    let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let options = env
        .options
        .clone()
        .env_remove(inherited)
        .trace_context(parent, Some("vendor=1"));
    let command = format!("echo \"[${inherited}] [$TRACEPARENT] [$TRACESTATE]\"");
    let shown = printed_by_bash(&rt, &env, command, options).await;
    assert_eq!(shown, format!("[] [{parent}] [vendor=1]"));
}

/// `user`: as root, the CLI runs as `nobody` (its Bash tool says so); as anyone else, starting
/// fails with the system's refusal.
pub async fn run_as_another_user<R: Runtime>(rt: R) {
    use std::os::unix::fs::{chown, MetadataExt};

    let env = env();
    let nobody = 65534;
    let is_root = std::fs::metadata(env.work.path()).is_ok_and(|m| m.uid() == 0);
    let home = TestDir::new("nobody-home").expect("temp HOME");
    let options = env
        .options
        .clone()
        .user("nobody")
        .env("HOME", home.path().display().to_string())
        .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    if !is_root {
        match within(
            &rt,
            STEP,
            "connect",
            connect_with(rt.clone(), options.clone()),
        )
        .await
        {
            Err(Error::Spawn { source, .. }) => {
                assert_eq!(source.kind(), std::io::ErrorKind::PermissionDenied)
            }
            other => panic!("expected Error::Spawn, got {other:?}"),
        }
        return;
    }
    for dir in [home.path(), env.work.path()] {
        chown(dir, Some(nobody), Some(nobody)).expect("chown");
    }
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "id -u && touch mine", "description": "who am I"}),
    ));
    env.stub.push_reply(Reply::text("found out"));
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "who are you", options.clone()),
        )
        .await,
    );
    assert_eq!(only_result(&messages).result.as_deref(), Some("found out"));
    let shown = env
        .stub
        .main_requests()
        .pop()
        .and_then(|r| r.last_tool_result_text())
        .unwrap_or_default();
    assert_eq!(shown.trim(), nobody.to_string());
    let made = std::fs::metadata(env.work.path().join("mine")).expect("the tool made a file");
    assert_eq!(made.uid(), nobody);

    // What the CLI and its tools inherit of this process's environment: everything by default,
    // only the variables named with `inherit_env_only` (cargo sets CARGO_MANIFEST_DIR here).
    for (options, seen) in [
        (options.clone(), true),
        (options.clone().inherit_env_only(["PATH"]), false),
    ] {
        let messages = all_ok(
            collect(
                &rt,
                "query",
                query_with(rt.clone(), "BASH:echo \"[$CARGO_MANIFEST_DIR]\"", options),
            )
            .await,
        );
        assert_eq!(only_result(&messages).subtype, "success");
        let shown = last_tool_result(&env.stub);
        assert_eq!(shown.trim() != "[]", seen, "{shown}");
    }

    // Root's files behind links in the user's configuration folder (a link to a root-only
    // file, a FIFO): a session with a folder of its own starts, and its tool, as the user, finds
    // none of root's secret there.
    let roots = TestDir::new("roots-secret").expect("temp dir");
    let secret = roots.path().join("settings.json");
    std::fs::write(&secret, r#"{"env":{"ROOT_ONLY":"hunter2"}}"#).unwrap();
    let config = home.path().join(".claude");
    std::fs::create_dir_all(&config).unwrap();
    std::os::unix::fs::symlink(&secret, config.join("settings.json")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(config.join(".credentials.json"))
        .status()
        .unwrap();
    assert!(fifo.success());
    for path in [
        config.clone(),
        config.join("settings.json"),
        config.join(".credentials.json"),
    ] {
        std::os::unix::fs::lchown(&path, Some(nobody), Some(nobody)).expect("lchown");
    }
    let isolated = options.clone().isolated_config(true);
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(
                rt.clone(),
                "BASH:cat \"$CLAUDE_CONFIG_DIR\"/settings.json; ls -a \"$CLAUDE_CONFIG_DIR\"",
                isolated,
            ),
        )
        .await,
    );
    assert_eq!(only_result(&messages).subtype, "success");
    let shown = last_tool_result(&env.stub);
    assert!(
        !shown.contains("hunter2"),
        "root's secret reached the user: {shown}"
    );
    assert!(!shown.contains(".credentials.json"), "{shown}");
    // The CLI itself would block on that FIFO when it reads its own folder.
    std::fs::remove_dir_all(&config).unwrap();

    // A spare parked as that user: its parking folder is theirs (the CLI enters it after the
    // switch), and it is claimed for their folder.
    let spare_options = host_options(&env)
        .user("nobody")
        .env("HOME", home.path().display().to_string());
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), spare_options),
    )
    .await
    .expect("parked as nobody");
    let parking = parked_in(spare.pid().expect("the spare's pid"));
    let owner = std::fs::metadata(&parking).expect("the parking folder");
    assert_eq!((owner.uid(), owner.mode() & 0o777), (nobody, 0o700));
    let claimed = within(
        &rt,
        STEP,
        "claim",
        spare.claim("hello there", ClaimOptions::new(env.work.path())),
    )
    .await
    .expect("claimed");
    let messages = all_ok(collect(&rt, "claimed query", claimed.messages).await);
    assert_eq!(texts(&messages), ["echo: hello there"]);

    // A session resumed from a store as that user: the configuration folder it is loaded into
    // is theirs.
    let store = Arc::new(InMemorySessionStore::new());
    let first = all_ok(
        collect(
            &rt,
            "stored session",
            query_with(
                rt.clone(),
                "remember PINEAPPLE",
                options.clone().session_store(store.clone()),
            ),
        )
        .await,
    );
    let session_id = only_result(&first).session_id().to_owned();
    let resumed = options
        .session_store(store)
        .session_start(SessionStart::Resume(Resume::new(session_id.clone())));
    let second = all_ok(
        collect(
            &rt,
            "resumed as nobody",
            query_with(rt.clone(), "what word?", resumed),
        )
        .await,
    );
    assert_eq!(only_result(&second).session_id(), session_id);
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember PINEAPPLE"), "{body}");
}

/// Whether the process `pid` is gone (reaped: no `/proc` entry at all).
fn process_gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Where the process `pid` runs: a parked spare's own folder.
fn parked_in(pid: u32) -> std::path::PathBuf {
    let dir = std::fs::read_link(format!("/proc/{pid}/cwd")).expect("the spare's folder");
    let temp = std::fs::canonicalize(std::env::temp_dir()).unwrap();
    assert!(dir.starts_with(&temp), "{dir:?} is not under {temp:?}");
    assert!(dir.is_dir());
    dir
}

/// Host-level options for spares: the CLI and its environment, but no working directory (a
/// spare is parked away from any session's folder).
fn host_options(env: &Env) -> Options {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    Options::new()
        .cli_path(cli.path())
        .envs(real_cli_env(&env.stub, env.home.path()))
}

/// The `system/init` of a list of messages.
fn init_of(messages: &[Message]) -> &claude_agent_core::message::Init {
    messages
        .iter()
        .find_map(|m| match m {
            Message::System(SystemMessage::Init(init)) => Some(&**init),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no system/init in {messages:#?}"))
}

/// `startup` spawns and initializes the CLI before the prompt; `query` on the warm handle then
/// runs the prompt as a cold query would.
pub async fn warm_startup<R: Runtime>(rt: R) {
    let env = env();
    let warm = within(
        &rt,
        STEP,
        "startup",
        startup_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("started");
    assert!(warm.server_info().is_some_and(|info| info.pid.is_some()));
    let messages = all_ok(collect(&rt, "warm query", warm.query("hello there")).await);
    assert_eq!(texts(&messages), ["echo: hello there"]);
    assert_eq!(only_result(&messages).subtype, "success");
}

/// `prewarm` parks a CLI; the claim moves it to the session's folder with the model and
/// permission mode of the claim, as `system/init` shows, and runs the prompt there.
pub async fn prewarm_claim<R: Runtime>(rt: R) {
    let env = env();
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), host_options(&env)),
    )
    .await
    .expect("parked");
    assert!(spare.is_alive());
    let parking = parked_in(spare.pid().expect("the spare's pid"));
    let claim = ClaimOptions::new(env.work.path())
        .model("claude-haiku-9")
        .permission_mode(PermissionMode::AcceptEdits)
        .max_thinking_tokens(Some(2048));
    let claimed = within(&rt, STEP, "claim", spare.claim("hello there", claim))
        .await
        .expect("claimed");
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    assert_eq!(claimed.info.cwd.as_deref(), work.to_str());
    assert!(!claimed.info.session_id.is_empty());
    assert!(
        claimed.info.not_applied.is_empty(),
        "{:?}",
        claimed.info.not_applied
    );
    assert!(claimed.info.initialize.is_some());
    let messages = all_ok(collect(&rt, "claimed query", claimed.messages).await);
    let init = init_of(&messages);
    assert_eq!(init.cwd(), work.to_str());
    assert_eq!(init.model(), Some("claude-haiku-9"));
    assert_eq!(init.permission_mode(), Some("acceptEdits"));
    assert_eq!(init.session_id(), claimed.info.session_id);
    assert_eq!(texts(&messages), ["echo: hello there"]);
    let asked = env.stub.main_requests();
    assert_eq!(asked.last().and_then(|r| r.model()), Some("claude-haiku-9"));
    wait_until(&rt, STEP, "the parking folder removed", || {
        !parking.exists()
    })
    .await;
}

/// A claim the CLI cannot honour (a folder that does not exist) is a typed refusal, and the
/// spare goes away.
pub async fn claim_refused<R: Runtime>(rt: R) {
    let env = env();
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), host_options(&env)),
    )
    .await
    .expect("parked");
    let pid = spare.pid().expect("the spare's pid");
    let parking = parked_in(pid);
    let missing = env.work.path().join("no-such-folder");
    let refused = within(
        &rt,
        STEP,
        "claim",
        spare.claim("hello there", ClaimOptions::new(missing)),
    )
    .await
    .expect_err("refused");
    let ClaimError::Refused(refusal) = refused else {
        panic!("not a refusal: {refused:?}")
    };
    assert_eq!(refusal.reason, ClaimRefusalReason::CwdNotFound);
    assert!(
        refusal.message.starts_with("cwd_not_found"),
        "{}",
        refusal.message
    );
    wait_until(&rt, STEP, "the refused spare exits", || process_gone(pid)).await;
    wait_until(&rt, STEP, "the parking folder removed", || {
        !parking.exists()
    })
    .await;
    assert!(
        env.stub.main_requests().is_empty(),
        "the prompt did not run"
    );
}

/// A pool hands out its parked spare for a session (the claim's folder in `system/init`), and
/// parks another in its place.
pub async fn pool_hands_out_and_refills<R: Runtime>(rt: R) {
    let env = env();
    let host = host_options(&env);
    let pool = SparePool::new(rt.clone());
    pool.prewarm(&host).expect("options");
    wait_until(&rt, STEP, "a spare parked", || pool.ready(&host) == 1).await;
    let first = pool.pids();
    let session = within(
        &rt,
        STEP,
        "pool query",
        pool.query(&host, "hello there", ClaimOptions::new(env.work.path())),
    )
    .await
    .expect("started");
    assert!(
        matches!(session.start, PoolStart::Claimed(_)),
        "{:?}",
        session.start
    );
    let messages = all_ok(collect(&rt, "pooled query", session.messages).await);
    assert_eq!(texts(&messages), ["echo: hello there"]);
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    assert_eq!(init_of(&messages).cwd(), work.to_str());
    wait_until(&rt, STEP, "a new spare parked", || pool.ready(&host) == 1).await;
    assert_ne!(pool.pids(), first);
    // A claim the spare refuses starts the session cold, transparently.
    let missing = env.work.path().join("gone");
    std::fs::create_dir(&missing).unwrap();
    let claim = ClaimOptions::new(&missing);
    std::fs::remove_dir(&missing).unwrap();
    let session = within(&rt, STEP, "refused", pool.query(&host, "hi", claim)).await;
    let session = session.expect("a cold start is attempted");
    assert!(
        matches!(&session.start, PoolStart::Cold { refused: Some(r) } if r.reason == ClaimRefusalReason::CwdNotFound),
        "{:?}",
        session.start
    );
    let items = collect(&rt, "cold query", session.messages).await;
    assert!(
        items.iter().any(Result::is_err),
        "the cold start fails in a missing folder"
    );
}

/// Dropping a pool shuts its parked spares down: no CLI outlives it.
pub async fn pool_drop_reaps_spares<R: Runtime>(rt: R) {
    let env = env();
    let host = host_options(&env);
    let pool = SparePool::new(rt.clone()).per_options(2);
    pool.prewarm(&host).expect("options");
    wait_until(&rt, STEP, "two spares parked", || pool.ready(&host) == 2).await;
    let pids = pool.pids();
    assert_eq!(pids.len(), 2);
    let folders: Vec<_> = pids.iter().map(|&pid| parked_in(pid)).collect();
    assert_ne!(folders[0], folders[1], "each spare has a folder of its own");
    drop(pool);
    for pid in pids {
        wait_until(&rt, STEP, "the pool's spares exit", || process_gone(pid)).await;
    }
    for folder in folders {
        wait_until(&rt, STEP, "the parking folders removed", || {
            !folder.exists()
        })
        .await;
    }
}

/// A spare whose CLI died is no longer counted as ready, costs the next query nothing (it starts
/// cold, with no refusal), and a new spare takes its place. `discard` lets go of a set of options' spares at once.
pub async fn pool_replaces_a_dead_spare_and_discards<R: Runtime>(rt: R) {
    let env = env();
    let host = host_options(&env);
    let pool = SparePool::new(rt.clone());
    pool.prewarm(&host).expect("options");
    wait_until(&rt, STEP, "a spare parked", || pool.ready(&host) == 1).await;
    let dead = pool.pids()[0];
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &dead.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    wait_until(&rt, STEP, "the killed CLI reaped", || process_gone(dead)).await;
    wait_until(&rt, STEP, "the dead spare no longer ready", || {
        pool.ready(&host) == 0
    })
    .await;
    let session = within(
        &rt,
        STEP,
        "pool query",
        pool.query(&host, "still there?", ClaimOptions::new(env.work.path())),
    )
    .await
    .expect("started");
    assert!(
        matches!(session.start, PoolStart::Cold { refused: None }),
        "{:?}",
        session.start
    );
    let messages = all_ok(collect(&rt, "cold query", session.messages).await);
    assert_eq!(texts(&messages), ["echo: still there?"]);
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    assert_eq!(init_of(&messages).cwd(), work.to_str());
    wait_until(&rt, STEP, "a new spare parked", || pool.ready(&host) == 1).await;
    let fresh = pool.pids();
    assert_eq!(fresh.len(), 1);
    assert_ne!(fresh[0], dead);
    pool.discard(&host);
    assert_eq!(pool.ready(&host), 0);
    assert!(pool.pids().is_empty());
    wait_until(&rt, STEP, "the discarded spare exits", || {
        process_gone(fresh[0])
    })
    .await;
}

/// A spare closed unused shuts its CLI down and removes its parking folder.
pub async fn spare_close_removes_folder<R: Runtime>(rt: R) {
    let env = env();
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), host_options(&env)),
    )
    .await
    .expect("parked");
    let pid = spare.pid().expect("the spare's pid");
    let parking = parked_in(pid);
    within(&rt, STEP, "close", spare.close()).await;
    wait_until(&rt, STEP, "the parking folder removed", || {
        !parking.exists()
    })
    .await;
}
/// The text of every `user` and `assistant` entry of a stored transcript, in order.
fn stored_texts(entries: &[serde_json::Value]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e["type"] == "user" || e["type"] == "assistant")
        .map(|e| {
            let content = &e["message"]["content"];
            let text = match content.as_str() {
                Some(text) => text.to_owned(),
                None => content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            format!("{}: {text}", e["type"].as_str().unwrap_or(""))
        })
        .collect()
}

/// A session mirrored to a store from one machine (a HOME of its own), then resumed on another
/// whose HOME is empty, from the store alone: the model's next request carries the first turn,
/// the new turn is mirrored back, and the temporary configuration directory is gone afterwards.
pub async fn session_store_resume<R: Runtime>(rt: R) {
    let env = env();
    let store = Arc::new(InMemorySessionStore::new());
    let machine_a = env.options.clone().session_store(store.clone());
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), machine_a))
        .await
        .expect("connected");
    within(&rt, STEP, "send", client.send("remember PINEAPPLE"))
        .await
        .unwrap();
    let first = all_ok(collect(&rt, "first turn", client.receive_response()).await);
    let session_id = only_result(&first).session_id().to_owned();
    let key = SessionKey::new(
        project_key_for_directory(Some(env.work.path())),
        &session_id,
    );
    // The turn is in the store as soon as its result is read, before the session ends.
    assert_eq!(
        stored_texts(&store.entries(&key)),
        [
            "user: remember PINEAPPLE",
            "assistant: echo: remember PINEAPPLE"
        ]
    );
    within(&rt, STEP, "close", client.close()).await;

    let machine_b_home = TestDir::new("home-b").expect("temp HOME");
    let machine_b = env
        .options
        .clone()
        .env("HOME", machine_b_home.path().display().to_string())
        .session_store(store.clone())
        .session_start(SessionStart::Resume(Resume::new(session_id.clone())));
    let second = all_ok(
        collect(
            &rt,
            "resumed from the store",
            query_with(rt.clone(), "what word?", machine_b),
        )
        .await,
    );
    assert_eq!(texts(&second), ["echo: what word?"]);
    assert_eq!(only_result(&second).session_id(), session_id);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(
        body.contains("remember PINEAPPLE") && body.contains("echo: remember PINEAPPLE"),
        "{body}"
    );
    assert_eq!(
        stored_texts(&store.entries(&key)),
        [
            "user: remember PINEAPPLE",
            "assistant: echo: remember PINEAPPLE",
            "user: what word?",
            "assistant: echo: what word?",
        ]
    );
    // Machine B kept nothing: not in its HOME, and the temporary config dir is removed.
    let transcript = format!("{session_id}.jsonl");
    let leftovers: Vec<std::path::PathBuf> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("claude-agent-resume-"))
        })
        .filter(|p| {
            p.join("projects")
                .join(&key.project_key)
                .join(&transcript)
                .exists()
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(!machine_b_home
        .path()
        .join(".claude/projects")
        .join(&key.project_key)
        .join(&transcript)
        .exists());
}

/// A session that ran a subagent, mirrored to a store, then read and changed through the store
/// functions alone: its summary as the history on disk gives it, its subagent and that agent's
/// conversation, a rename and a tag, and a fork that the CLI resumes from the store (on a machine
/// whose HOME is empty) with the forked conversation.
pub async fn session_store_history<R: Runtime>(rt: R) {
    let env = env();
    let store = Arc::new(InMemorySessionStore::new());
    env.stub.push_reply(Reply::tool_use(
        "Agent",
        json!({"description": "greet", "prompt": "say hi", "subagent_type": "general-purpose"}),
    ));
    env.stub.push_reply(Reply::text("hi from the agent"));
    env.stub.push_reply(Reply::text("all done"));
    let options = env
        .options
        .clone()
        .allowed_tools(["Agent"])
        .session_store(store.clone());
    let messages = all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "use an agent", options),
        )
        .await,
    );
    let session_id = messages
        .iter()
        .find_map(|m| match m {
            Message::Result(result) => Some(result.session_id().to_owned()),
            _ => None,
        })
        .expect("a result");
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let dir = Some(work.as_path());

    let on_disk = History::at(env.home.path().join(".claude"))
        .session(&session_id, dir)
        .and_then(|s| s.info())
        .expect("the session on disk");
    let info = store::session_info(&*store, &session_id, dir)
        .await
        .expect("read")
        .expect("in the store");
    assert_eq!(info.summary, on_disk.summary);
    assert_eq!(info.first_prompt.as_deref(), Some("use an agent"));
    assert_eq!(info.cwd.as_deref(), dir);
    assert_eq!(info.created, on_disk.created);

    let agents = store::list_subagents(&*store, &session_id, dir)
        .await
        .expect("listed");
    let disk_agents = History::at(env.home.path().join(".claude"))
        .session(&session_id, dir)
        .and_then(|s| s.subagents())
        .unwrap();
    assert_eq!(agents, disk_agents);
    assert_eq!(agents.len(), 1, "{agents:?}");
    let transcript = store::subagent_messages(&*store, &session_id, &agents[0], dir, Page::ALL)
        .await
        .expect("the agent's messages");
    let on_disk = History::at(env.home.path().join(".claude"))
        .session(&session_id, dir)
        .and_then(|s| s.subagent_messages(&agents[0], Page::ALL))
        .unwrap();
    assert!(!transcript.is_empty());
    let ids = |m: &[claude_agent_core::history::SessionMessage]| -> Vec<(String, Option<String>)> {
        m.iter()
            .map(|m| (m.uuid.clone(), m.parent_tool_use_id.clone()))
            .collect()
    };
    assert_eq!(ids(&transcript), ids(&on_disk));

    store::rename_session(&*store, &session_id, "Agent run", dir)
        .await
        .unwrap();
    store::tag_session(&*store, &session_id, Some("kept"), dir)
        .await
        .unwrap();
    let listed = store::list_sessions(&*store, dir, Page::ALL).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        (listed[0].summary.as_str(), listed[0].tag.as_deref()),
        ("Agent run", Some("kept"))
    );

    let conversation = store::session_messages(&*store, &session_id, dir, Page::ALL)
        .await
        .unwrap();
    let first_reply = &conversation[1].uuid;
    let fork = store::fork_session(
        &*store,
        &session_id,
        dir,
        ForkOptions::new().up_to(first_reply).title("Plan B"),
    )
    .await
    .expect("forked");
    let info = store::session_info(&*store, &fork, dir)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.summary, "Plan B");

    let machine_b_home = TestDir::new("home-b").expect("temp HOME");
    let resumed = env
        .options
        .clone()
        .env("HOME", machine_b_home.path().display().to_string())
        .session_store(store.clone())
        .session_start(SessionStart::Resume(Resume::new(fork.clone())));
    let answer = all_ok(
        collect(
            &rt,
            "the fork resumed from the store",
            query_with(rt.clone(), "and now?", resumed),
        )
        .await,
    );
    assert_eq!(only_result(&answer).session_id(), fork);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(
        body.contains("use an agent") && body.contains("and now?"),
        "{body}"
    );
    assert!(
        !body.contains("all done"),
        "the fork ends before the last reply: {body}"
    );
}

/// The body of the last model request the stub API received, as JSON text.
fn last_request_body(stub: &StubApi) -> String {
    stub.main_requests()
        .pop()
        .expect("a request")
        .body
        .to_string()
}

/// The texts of a model request's messages, in order (each cut to 60 characters).
fn request_texts(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| match &m["content"] {
            serde_json::Value::String(text) => vec![text.clone()],
            blocks => blocks
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect(),
        })
        .map(|t| t.chars().take(60).collect())
        .collect()
}

/// Three turns, `/compact`, then a fourth: the compaction keeps the last reply, and reading the
/// session gives it after the summary, where the CLI's next model request has it; with system
/// messages the boundary comes first. A fork of the compacted session, resumed, sends the model
/// the same.
pub async fn compaction_history<R: Runtime>(rt: R) {
    let env = env();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    let mut session_id = String::new();
    for turn in [
        "first question",
        "second question",
        "third question",
        "/compact",
        "after compaction",
    ] {
        within(&rt, STEP, "send", client.send(turn)).await.unwrap();
        let messages = all_ok(collect(&rt, "turn", client.receive_response()).await);
        session_id = only_result(&messages).session_id().to_owned();
    }
    within(&rt, STEP, "close", client.close()).await;
    let sent = request_texts(&env.stub.main_requests().pop().expect("a request").body);
    let summary = sent
        .iter()
        .position(|t| t.starts_with("This session is being continued"))
        .unwrap_or_else(|| panic!("no summary in {sent:?}"));
    assert_eq!(sent[summary + 1], "echo: third question", "{sent:?}");
    assert!(!sent.iter().any(|t| t == "first question"), "{sent:?}");

    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let history = History::at(env.home.path().join(".claude"));
    let session = history
        .session(&session_id, Some(&work))
        .expect("the session");
    let read = session.messages(Page::ALL).expect("messages");
    let said = texts(&read.iter().map(|m| m.message.clone()).collect::<Vec<_>>());
    let user_said: Vec<String> = read
        .iter()
        .filter_map(|m| match &m.message {
            Message::User(user) => match &user.content {
                MessageContent::Text(text) => Some(text.chars().take(60).collect()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        user_said[0], sent[summary],
        "the conversation starts at the summary"
    );
    assert_eq!(said[0], "echo: third question", "{said:?}");
    assert_eq!(
        user_said.last().map(String::as_str),
        Some("after compaction")
    );
    let with_system = session
        .messages(Page::ALL.with_system_messages())
        .expect("messages");
    assert!(
        matches!(
            with_system[0].message,
            Message::System(SystemMessage::CompactBoundary(_))
        ),
        "{:?}",
        with_system[0].message
    );

    let fork = session.fork(ForkOptions::new()).expect("forked");
    let resumed = env
        .options
        .clone()
        .session_start(SessionStart::Resume(Resume::new(fork)));
    all_ok(
        collect(
            &rt,
            "the fork",
            query_with(rt.clone(), "in the fork", resumed),
        )
        .await,
    );
    let sent = request_texts(&env.stub.main_requests().pop().expect("a request").body);
    let summary = sent
        .iter()
        .position(|t| t.starts_with("This session is being continued"))
        .unwrap_or_else(|| panic!("no summary in {sent:?}"));
    assert_eq!(sent[summary + 1], "echo: third question", "{sent:?}");
}

/// The model calls each built-in tool the SDK types (and one it does not): every hook input
/// and permission request gives the call typed (`builtin()`), and every result of a tool with a
/// typed result comes typed (`builtin_output()`); the app answers `AskUserQuestion` from the
/// typed question. An unknown tool stays as sent.
pub async fn builtin_tools_typed<R: Runtime>(rt: R) {
    use claude_agent_core::tools::{BuiltinOutput, BuiltinTool};

    let env = env();
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let path = |f: &str| work.join(f).display().to_string();
    let notebook = r#"{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print(1)"],"outputs":[],"execution_count":null}],"metadata":{"language_info":{"name":"python"}},"nbformat":4,"nbformat_minor":5}"#;
    let port = env.stub.addr().port();
    let question = json!({"question": "Which one?", "header": "Pick", "multiSelect": false,
        "options": [{"label": "A", "description": "first"}, {"label": "B", "description": "second"}]});
    for (name, input) in [
        (
            "Write",
            json!({"file_path": path("a.txt"), "content": "hello\nworld\n"}),
        ),
        ("Read", json!({"file_path": path("a.txt")})),
        (
            "Edit",
            json!({"file_path": path("a.txt"), "old_string": "world", "new_string": "there"}),
        ),
        (
            "Bash",
            json!({"command": "echo hi", "description": "Say hi"}),
        ),
        (
            "Write",
            json!({"file_path": path("n.ipynb"), "content": notebook}),
        ),
        ("Read", json!({"file_path": path("n.ipynb")})),
        (
            "NotebookEdit",
            json!({"notebook_path": path("n.ipynb"), "cell_id": "c1", "new_source": "print(2)", "edit_mode": "replace"}),
        ),
        ("AskUserQuestion", json!({"questions": [question]})),
        ("ToolSearch", json!({"query": "select:Read"})),
        (
            "WebFetch",
            json!({"url": format!("http://127.0.0.1:{port}/page"), "prompt": "summarize"}),
        ),
        ("WebSearch", json!({"query": "rust async"})),
    ] {
        env.stub.push_reply(Reply::tool_use(name, input));
    }
    env.stub.push_reply(Reply::text("no results")); // the search's own model request
    env.stub.push_reply(Reply::tool_use(
        "Agent",
        json!({"description": "greet", "prompt": "say hi", "subagent_type": "general-purpose"}),
    ));
    env.stub.push_reply(Reply::text("agent says hi"));
    env.stub.push_reply(Reply::text("all done"));

    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = |seen: &Arc<Mutex<Vec<String>>>| {
        let seen = seen.clone();
        move |input: HookInput, _ctx| {
            let line = match &input {
                HookInput::PreToolUse(i) => match i.builtin() {
                    BuiltinTool::Other { name, .. } => format!("pre {name}: raw"),
                    typed => format!("pre {}: typed", typed.name()),
                },
                HookInput::PostToolUse(i) => match i.builtin_output() {
                    BuiltinOutput::Other { name, .. } => format!("post {name}: raw"),
                    _ => format!("post {}: typed", i.tool_name),
                },
                HookInput::PostToolUseFailure(i) => format!("failed {}", i.builtin().name()),
                other => format!("{:?}", other.event()),
            };
            seen.lock().unwrap().push(line);
            async move { HookOutput::proceed() }
        }
    };
    let asked = seen.clone();
    let options = env
        .options
        .clone()
        .on_hook_event(HookEvent::PreToolUse, None, record(&seen))
        .on_hook_event(HookEvent::PostToolUse, None, record(&seen))
        .on_hook_event(HookEvent::PostToolUseFailure, None, record(&seen))
        .on_permission_request(move |request, _ctx| {
            let answer = match request.builtin() {
                BuiltinTool::AskUserQuestion(ask) => {
                    let first = &ask.questions[0];
                    asked
                        .lock()
                        .unwrap()
                        .push(format!("asked {}", first.question));
                    let mut input = request.tool_input.to_value();
                    input["answers"] =
                        json!({ first.question.clone(): first.options[0].label.clone() });
                    PermissionResult::allow().with_updated_input(input)
                }
                BuiltinTool::Write(write) if !write.file_path.starts_with('/') => {
                    PermissionResult::deny("absolute paths only")
                }
                _ => PermissionResult::allow(),
            };
            async move { answer }
        });
    all_ok(
        collect(
            &rt,
            "query",
            query_with(rt.clone(), "use the tools", options),
        )
        .await,
    );
    let seen = seen.lock().unwrap().clone();
    let expected = [
        "pre Write: typed",
        "post Write: typed",
        "pre Read: typed",
        "post Read: typed",
        "pre Edit: typed",
        "post Edit: typed",
        "pre Bash: typed",
        "post Bash: typed",
        "pre Write: typed",
        "post Write: typed",
        "pre Read: typed",
        "post Read: typed",
        "pre NotebookEdit: typed",
        "post NotebookEdit: typed",
        "pre AskUserQuestion: typed",
        "asked Which one?",
        "post AskUserQuestion: typed",
        "pre ToolSearch: raw",
        "post ToolSearch: raw",
        "pre WebFetch: typed",
        "failed WebFetch",
        "pre WebSearch: typed",
        "post WebSearch: typed",
        "pre Agent: typed",
        "post Agent: raw",
    ];
    assert_eq!(seen, expected);
}

/// A store whose appends fail.
struct FailingStore;

impl SessionStore for FailingStore {
    fn append<'a>(
        &'a self,
        _key: &'a SessionKey,
        _entries: &'a [serde_json::Value],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError::backend("the store is down")) })
    }

    fn load<'a>(&'a self, _key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<serde_json::Value>>> {
        Box::pin(async { Ok(None) })
    }
}

/// A store that fails every append: the session goes on, each failed batch comes as a
/// `mirror_error` naming the session, before the result, and every message still arrives.
pub async fn session_store_failing<R: Runtime>(rt: R) {
    let env = env();
    let plain = all_ok(
        collect(
            &rt,
            "without a store",
            query_with(rt.clone(), "hello", env.options.clone()),
        )
        .await,
    );
    let items = collect(
        &rt,
        "with a failing store",
        query_with(
            rt.clone(),
            "hello",
            env.options.clone().session_store(FailingStore),
        ),
    )
    .await;
    let messages = all_ok(items);
    let session_id = only_result(&messages).session_id().to_owned();
    let errors: Vec<(usize, &claude_agent_core::message::MirrorError)> = messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Message::System(SystemMessage::MirrorError(e)) => Some((i, &**e)),
            _ => None,
        })
        .collect();
    assert!(!errors.is_empty(), "no mirror_error in {messages:#?}");
    for (_, error) in &errors {
        assert!(
            error
                .error
                .starts_with("session store failed: the store is down; "),
            "{}",
            error.error
        );
        let key = error.key.as_ref().expect("the key of the failed batch");
        assert_eq!(key.session_id, session_id);
        assert_eq!(error.session_id(), session_id);
    }
    let result_at = messages
        .iter()
        .position(|m| matches!(m, Message::Result(_)))
        .unwrap();
    assert!(
        errors[0].0 < result_at,
        "the turn's failure comes before its result"
    );
    // Everything else is what the same session without a store delivers.
    assert_eq!(texts(&messages), texts(&plain));
    let kinds = |ms: &[Message]| -> Vec<String> {
        ms.iter()
            .filter(|m| !matches!(m, Message::System(SystemMessage::MirrorError(_))))
            .map(|m| {
                let v: serde_json::Value = serde_json::from_str(m.raw_json()).unwrap();
                format!("{}/{}", v["type"], v["subtype"])
            })
            .collect()
    };
    assert_eq!(kinds(&messages), kinds(&plain));
    assert_eq!(only_result(&messages).subtype, "success");
}

/// The stub's model at the price the real CLI charges for it (13 input and 6 output tokens cost
/// it $0.000172).
fn stub_prices() -> PriceTable {
    PriceTable::new().with("claude-opus-5", ModelPrice::per_million(4.0, 20.0))
}

/// Each turn's cost against the real CLI: the CLI's figure (its running total's growth)
/// matches the turn's tokens priced, also for the first turn after a resume, whose running
/// total the CLI carries over from the earlier process; the fleet's key counts every turn.
pub async fn turn_costs<R: Runtime>(rt: R) {
    let env = env();
    let fleet = Fleet::default();
    let options = env
        .options
        .clone()
        .price_table(stub_prices())
        .fleet(fleet.member("tenant"));
    let mut costs = Vec::new();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), options.clone()),
    )
    .await
    .expect("connected");
    let mut session_id = String::new();
    for turn in ["first question", "second question"] {
        within(&rt, STEP, "send", client.send(turn)).await.unwrap();
        let messages = all_ok(collect(&rt, "turn", client.receive_response()).await);
        let result = only_result(&messages);
        session_id = result.session_id().to_owned();
        costs.push(result.turn_cost.clone().expect("a turn cost"));
    }
    within(&rt, STEP, "close", client.close()).await;
    let resumed = options.session_start(SessionStart::Resume(Resume::new(session_id)));
    let again = all_ok(collect(&rt, "resumed", query_with(rt.clone(), "third", resumed)).await);
    let result = only_result(&again);
    let carried = result.total_cost_usd.expect("a running total");
    costs.push(result.turn_cost.clone().expect("a turn cost"));
    for cost in &costs {
        let cli = cost.cli_usd.expect("the CLI's figure");
        let priced = cost.priced_usd.expect("priced");
        assert!(cli > 0.0 && (cli - priced).abs() < 1e-9, "{costs:?}");
        assert!(!cost.disagrees(), "{cost:?}");
    }
    // The resumed CLI's running total covers all three turns; the third turn cost its own.
    let sum: f64 = costs.iter().filter_map(|cost| cost.cli_usd).sum();
    assert!((carried - sum).abs() < 1e-9, "{carried} vs {costs:?}");
    let spent = fleet.spent("tenant");
    assert_eq!((spent.turns, spent.uncosted_turns), (3, 0));
    assert!((spent.usd - sum).abs() < 1e-9, "{spent:?}");
}

/// A session's budget against the real CLI: a notice when it is nearly spent, then the turn
/// that spends it ends the session with `Error::OverBudget`, and no later prompt runs.
pub async fn session_budget<R: Runtime>(rt: R) {
    let env = env();
    // Three turns of $0.000172 each: the second passes 80 % of $0.0004, the third all of it.
    let options = env.options.clone().budget(Budget::usd(0.0004));
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
    let mut items = Vec::new();
    for turn in ["first question", "second question", "third question"] {
        within(&rt, STEP, "send", client.send(turn)).await.unwrap();
        items.extend(collect(&rt, "turn", client.receive_response()).await);
    }
    items.extend(collect(&rt, "the rest", client.receive_messages()).await);
    let warnings: Vec<BudgetLevel> = items
        .iter()
        .filter_map(|item| match item {
            Ok(Message::Notice(notice)) => match &notice.kind {
                NoticeKind::Budget(report) => Some(report.level),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(warnings, [BudgetLevel::Warning], "{items:?}");
    // The interrupt sent as the session closed is failed by the close: it brings no notice.
    let messages: Vec<Message> = items
        .iter()
        .filter_map(|i| i.as_ref().ok().cloned())
        .collect();
    assert_eq!(interrupts_not_applied(&messages), [], "{items:?}");
    let Some(Err(Error::OverBudget(report))) = items.last() else {
        panic!("{items:?}")
    };
    assert_eq!(
        (report.scope.clone(), report.spent.turns),
        (BudgetScope::Session, 3)
    );
    assert!(
        client.send("fourth").await.is_err(),
        "the session is closed"
    );
    assert_eq!(env.stub.main_requests().len(), 3, "no fourth model call");
}

/// `CLAUDE_CONFIG_DIR` in the environment of the running process `pid`.
fn config_dir_of(pid: u32) -> Option<std::path::PathBuf> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ
        .split(|byte| *byte == 0)
        .find_map(|var| var.strip_prefix(b"CLAUDE_CONFIG_DIR="))
        .map(|value| std::path::PathBuf::from(String::from_utf8_lossy(value).into_owned()))
}

/// `Options::isolated_config` against the real CLI: two sessions at once each run in a private
/// folder of their own, which is gone afterwards; neither writes the user's `.claude.json`
/// (which a plain session creates on this fresh HOME), and their transcripts are in the user's
/// history, where a plain resume finds them.
pub async fn isolated_config<R: Runtime>(rt: R) {
    let env = env();
    let user_json = env.home.path().join(".claude.json");
    let isolated = env.options.clone().isolated_config(true);
    let (one, two) = futures_lite::future::zip(
        connect_with(rt.clone(), isolated.clone()),
        connect_with(rt.clone(), isolated.clone()),
    )
    .await;
    let (one, two) = (one.expect("connected"), two.expect("connected"));
    let folders: Vec<std::path::PathBuf> = [&one, &two]
        .iter()
        .map(|client| {
            let pid = client
                .server_info()
                .and_then(|info| info.pid)
                .expect("the CLI's pid");
            config_dir_of(pid).expect("CLAUDE_CONFIG_DIR")
        })
        .collect();
    assert_ne!(folders[0], folders[1], "a folder each");
    for folder in &folders {
        assert!(folder.starts_with(std::env::temp_dir()), "{folder:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(folder).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{folder:?}");
        }
    }
    let mut ids = Vec::new();
    for (client, prompt) in [(&one, "remember MANGO"), (&two, "remember KIWI")] {
        within(&rt, STEP, "send", client.send(prompt))
            .await
            .unwrap();
        let turn = all_ok(collect(&rt, "turn", client.receive_response()).await);
        ids.push(only_result(&turn).session_id().to_owned());
    }
    within(&rt, STEP, "close", one.close()).await;
    within(&rt, STEP, "close", two.close()).await;
    for folder in &folders {
        assert!(!folder.exists(), "{folder:?} is left behind");
    }
    assert!(
        !user_json.exists(),
        "an isolated session wrote ~/.claude.json"
    );
    // The transcripts are in the user's history: a plain resume continues the conversation.
    let history = History::at(env.home.path().join(".claude"));
    for id in &ids {
        history
            .session(id, Some(env.work.path()))
            .expect("in the user's history");
    }
    let resumed = env
        .options
        .clone()
        .session_start(SessionStart::Resume(Resume::new(ids[0].clone())));
    all_ok(
        collect(
            &rt,
            "resumed",
            query_with(rt.clone(), "what fruit?", resumed),
        )
        .await,
    );
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember MANGO"), "{body}");
    assert!(user_json.exists(), "a plain session writes ~/.claude.json");
}

/// `inherit_env_only(CLI_ENVIRONMENT)` against the real CLI: the session runs, and its Bash tool
/// sees the search path and what the options set, not the host's other variables.
pub async fn cleared_environment<R: Runtime>(rt: R) {
    let env = env();
    let host_only = "CARGO_MANIFEST_DIR";
    assert!(
        std::env::var_os(host_only).is_some(),
        "cargo sets {host_only} for its tests"
    );
    let options = env
        .options
        .clone()
        .inherit_env_only(CLI_ENVIRONMENT.iter().copied());
    let command = format!("echo \"[${host_only}] [${{PATH:+path}}] [$HOME]\"");
    let shown = printed_by_bash(&rt, &env, command, options).await;
    assert_eq!(shown, format!("[] [path] [{}]", env.home.path().display()));
}

/// The `InterruptNotApplied` notices among `messages`.
fn interrupts_not_applied(messages: &[Message]) -> Vec<InterruptNotApplied> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::Notice(notice) => match notice.kind {
                NoticeKind::InterruptNotApplied(why) => Some(why),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// An interrupt the real CLI accepts while no turn runs changes nothing: the session says so
/// with a notice (an applied one, in `interrupt_long_tool`, brings none).
pub async fn interrupt_not_applied<R: Runtime>(rt: R) {
    let env = env();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("the CLI accepts it");
    within(&rt, STEP, "send", client.send("hello"))
        .await
        .unwrap();
    let turn = all_ok(collect(&rt, "turn", client.receive_response()).await);
    assert_eq!(
        interrupts_not_applied(&turn),
        [InterruptNotApplied::NoTurnRunning],
        "{turn:?}"
    );
    assert_eq!(only_result(&turn).subtype, "success");
    within(&rt, STEP, "close", client.close()).await;
}

/// `PreSkillShellCommand` (CLI 2.1.332): a project command whose text runs a shell line; the
/// SDK's hook gets the command, the command's name and who invoked it, and its denial keeps the
/// line from running (the model sees the reason, not the output).
pub async fn skill_shell_command_hook<R: Runtime>(rt: R) {
    use claude_agent_core::hooks::{
        HookOutput, HookSpecificOutput, PermissionDecision, PreSkillShellCommandInput,
        PreSkillShellCommandOutput,
    };

    let env = env();
    let commands = env.work.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("stamp.md"),
        "---\nallowed-tools: Bash(echo:*)\ndescription: Stamp the answer\n---\nThe stamp is !`echo skill-shell-output`\n",
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let options =
        env.options
            .clone()
            .on_hook("Bash", move |input: PreSkillShellCommandInput, _ctx| {
                record.lock().unwrap().push(input);
                async {
                    HookOutput::default().with_hook_specific_output(
                        HookSpecificOutput::PreSkillShellCommand(PreSkillShellCommandOutput {
                            permission_decision: Some(PermissionDecision::Deny),
                            permission_decision_reason: Some("no shell in commands here".into()),
                            ..Default::default()
                        }),
                    )
                }
            });
    let messages = all_ok(collect(&rt, "query", query_with(rt.clone(), "/stamp", options)).await);
    assert_eq!(only_result(&messages).subtype, "success");
    let seen = seen.lock().unwrap().clone();
    if cli_version() < CliVersion::new(2, 1, 332) {
        // The event is new in 2.1.332: an older CLI runs the line without asking.
        assert!(seen.is_empty(), "{seen:?}");
        return;
    }
    let [input] = &seen[..] else {
        panic!("the hook ran {} times", seen.len())
    };
    assert_eq!(input.tool_input.command, "echo skill-shell-output");
    assert_eq!(input.tool_name, "Bash");
    assert_eq!(input.command_name, "stamp");
    assert_eq!(input.invoked_by, "user");
    let asked = env.stub.main_requests().pop().expect("a model call");
    let prompt = asked.last_user_text().unwrap_or_default();
    assert!(
        !prompt.contains("skill-shell-output\n"),
        "the line ran: {prompt}"
    );
    assert!(prompt.contains("no shell in commands here"), "{prompt}");
}

/// `shouldQuery: false` (`UserInput::with_should_query(false)`): the CLI keeps the message and
/// answers at once with a result of no turn (`num_turns` 0), calling no model; the next message
/// that starts a turn carries it to the model.
pub async fn context_only_message<R: Runtime>(rt: R) {
    let env = env();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
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
    within(&rt, STEP, "send", client.send("which account?"))
        .await
        .unwrap();
    let turn = all_ok(collect(&rt, "turn", client.receive_response()).await);
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
    let client = within(&rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected");
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

/// The session's lookups: the permission mode a change put in effect, the models it can run,
/// its settings by source, and the files an `@`-mention offers.
pub async fn session_lookups<R: Runtime>(rt: R) {
    let env = env();
    std::fs::write(env.work.path().join("README.md"), "# read me\n").unwrap();
    let client = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("connected");
    let mode = within(
        &rt,
        STEP,
        "set_permission_mode",
        client.set_permission_mode(PermissionMode::Plan),
    )
    .await
    .unwrap();
    assert_eq!(mode, Some(PermissionMode::Plan));
    let models = within(&rt, STEP, "list_models", client.list_models())
        .await
        .unwrap();
    assert!(!models.is_empty());
    let settings = within(&rt, STEP, "settings", client.settings())
        .await
        .unwrap();
    assert!(settings.effective.as_str().starts_with('{'), "{settings:?}");
    // The CLI builds its file index in the background: ask until it has the file.
    let mut found = None;
    for _ in 0..50 {
        let answer = within(
            &rt,
            STEP,
            "file_suggestions",
            client.file_suggestions("readme"),
        )
        .await
        .unwrap();
        if answer
            .suggestions
            .iter()
            .any(|s| s.path.ends_with("README.md"))
        {
            found = Some(answer);
            break;
        }
        sleep(&rt, Duration::from_millis(200)).await;
    }
    let found = found.expect("README.md suggested");
    assert!(found.cwd.is_some(), "{found:?}");
    within(&rt, STEP, "close", client.close()).await;
}
