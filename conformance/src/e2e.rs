//! The end-to-end scenarios: the real Claude Code CLI (installed by `scripts/install-claude-cli`,
//! or named by `CLAUDE_AGENT_E2E_CLI`) against the testkit's stub Messages API, driven through the
//! SDK's public client API on any [`Runtime`], grouped by concern.
//!
//! Every scenario is `pub async fn name<R: Runtime>(rt: R)`, panics on failure, and bounds each
//! step with a timeout (the whole scenario well under 60 s); [`e2e_tests!`](crate::e2e_tests)
//! stamps one `#[test]` per scenario. A missing CLI fails every scenario with the install hint:
//! they never skip. The ritual most scenarios share (start, send, collect a turn, close) is
//! [`ask`], [`connected`] and [`run_turn`].

pub mod control;
pub mod cost;
pub mod failures;
pub mod hooks;
pub mod launch;
pub mod mcp;
pub mod permissions;
pub mod sessions;
pub mod turns;
pub mod warm;

use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_agent_client::history::{ForkOptions, History, ListSessions, Page};
use claude_agent_client::mcp::{McpServerSet, SdkMcpServer};
use claude_agent_client::options::{
    Delivery, McpRemoteServer, McpServerConfig, McpStdioServer, Options, Resume, SessionStart,
    Skills, CLI_ENVIRONMENT,
};
use claude_agent_client::store::{
    project_key_for_directory, InMemorySessionStore, SessionKey, SessionStore, StoreError,
    StoreFuture, StoreHistory,
};
use claude_agent_client::{
    connect_with, prewarm_with, query_with, startup_with, ClaimError, Client, Error, Fleet,
    PoolStart, Prompt, Runtime, SparePool,
};
use claude_agent_core::control::{
    ClaimOptions, ClaimRefusalReason, ContextUsageDetail, UsageDetail,
};
use claude_agent_core::cost::{Budget, BudgetLevel, BudgetScope, ModelPrice, PriceTable};
use claude_agent_core::hooks::{
    HookEvent, HookInput, HookMatcher, HookOutput, PreToolUseInput, StopInput,
};
use claude_agent_core::message::{
    ApiError, ContentBlock, InterruptNotApplied, Message, MessageContent, NoticeKind,
    ResultMessage, StartupFailureReason, SystemMessage, UserInput,
};
use claude_agent_core::permission::{PermissionMode, PermissionResult};
use claude_agent_core::session::{CliVersion, VersionCheck};
use claude_agent_testkit::real_cli::{real_cli_env, RealCli, TestDir};
use claude_agent_testkit::stub_api::{Reply, Rule, StubApi};
use futures_lite::{Stream, StreamExt};
use serde_json::json;

/// The longest any single step (a connect, one turn, a control request) may take.
pub const STEP: Duration = Duration::from_secs(40);

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

/// A whole one-prompt query (`query_with`), every item a message: the ritual of most
/// scenarios.
pub async fn ask<R: Runtime>(rt: &R, prompt: impl Into<Prompt>, options: Options) -> Vec<Message> {
    all_ok(collect(rt, "query", query_with(rt.clone(), prompt, options)).await)
}

/// A connected [`Client`], within [`STEP`].
pub async fn connected<R: Runtime>(rt: &R, options: Options) -> Client {
    within(rt, STEP, "connect", connect_with(rt.clone(), options))
        .await
        .expect("connected")
}

/// One turn of a connected client: `prompt` sent, and its messages up to the result.
pub async fn run_turn<R: Runtime>(rt: &R, client: &Client, prompt: &str) -> Vec<Message> {
    within(rt, STEP, "send", client.send(prompt))
        .await
        .unwrap_or_else(|e| panic!("send {prompt:?}: {e:?}"));
    all_ok(collect(rt, prompt, client.receive_response()).await)
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

/// Sets a flag when dropped: proves a callback's future was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The command line of process `pid`, its arguments joined by spaces (Linux: `/proc`).
fn command_line(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/cmdline: {e}"));
    String::from_utf8_lossy(&raw).replace('\0', " ")
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

/// The body of the last model request the stub API received, as JSON text.
fn last_request_body(stub: &StubApi) -> String {
    stub.main_requests()
        .pop()
        .expect("a request")
        .body
        .to_string()
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
