//! End to end: the real Claude Code CLI (installed by `scripts/install-claude-cli`, or named by
//! `CLAUDE_AGENT_E2E_CLI`) against the testkit's stub Messages API, driven through
//! the adapter under test.
//!
//! They fail, with a message saying how to install the CLI, when it is missing: they never skip.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::within;
use crate::rt::block_on;
use crate::sdk::message::ContentBlock;
use crate::sdk::permission::{PermissionMode, PermissionResult};
use crate::sdk::{query, Client, Error, Message, Options, StreamExt};
use claude_agent_testkit::real_cli::{real_cli_env, RealCli, TestDir};
use claude_agent_testkit::stub_api::{Reply, StubApi};

const LIMIT: Duration = Duration::from_secs(60);

/// A stub API, a temporary HOME and working directory, and options that run the real CLI there.
struct Env {
    stub: StubApi,
    options: Options,
    _home: TestDir,
    _work: TestDir,
}

fn env() -> Env {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    let stub = StubApi::start();
    let home = TestDir::new("home").expect("temp HOME");
    let work = TestDir::new("work").expect("temp cwd");
    let options = Options::new()
        .cli_path(cli.path())
        .cwd(work.path())
        .envs(real_cli_env(&stub, home.path()));
    Env {
        stub,
        options,
        _home: home,
        _work: work,
    }
}

fn texts(message: &Message) -> Vec<String> {
    match message {
        Message::Assistant(a) => a
            .message
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn query_gets_the_reply_and_ends_when_the_cli_exits() {
    block_on(async {
        let env = env();
        let started = Instant::now();
        let items: Vec<_> =
            within(LIMIT, query("hello there", env.options.clone()).collect()).await;
        let messages: Vec<Message> = items.into_iter().map(|i| i.expect("no errors")).collect();
        let said: Vec<String> = messages.iter().flat_map(texts).collect();
        assert_eq!(said, ["echo: hello there"]);
        let Some(Message::Result(result)) = messages.last() else {
            panic!("last is not a result: {messages:?}")
        };
        assert!(!result.is_error);
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "took {:?}",
            started.elapsed()
        );
    });
}

#[test]
fn can_use_tool_callback_decides_a_real_tool_call() {
    block_on(async {
        let env = env();
        env.stub.push_reply(Reply::tool_use(
            "Bash",
            serde_json::json!({"command": "ls -la /"}),
        ));
        env.stub.push_reply(Reply::text("done"));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        let options = env.options.clone().can_use_tool(move |request, _ctx| {
            seen.lock().unwrap().push(request.tool_name.clone());
            async { PermissionResult::deny("not in this test") }
        });
        let items: Vec<_> = within(LIMIT, query("list the root", options).collect()).await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        assert_eq!(*asked.lock().unwrap(), ["Bash"]);
        let tool_result = env
            .stub
            .main_requests()
            .last()
            .and_then(|r| r.last_tool_result_text());
        assert!(tool_result.unwrap_or_default().contains("not in this test"));
    });
}

#[test]
fn client_holds_a_conversation_and_answers_control_requests() {
    block_on(async {
        let env = env();
        let client = within(LIMIT, Client::connect(env.options.clone()))
            .await
            .unwrap();
        assert!(client.server_info().is_some_and(|i| !i.commands.is_empty()));
        for turn in ["first question", "second question"] {
            client.send(turn).await.unwrap();
            let messages: Vec<_> = within(LIMIT, client.receive_response().collect()).await;
            let said: Vec<String> = messages
                .iter()
                .filter_map(|m| m.as_ref().ok())
                .flat_map(texts)
                .collect();
            assert_eq!(said, [format!("echo: {turn}")]);
        }
        client
            .set_permission_mode(PermissionMode::AcceptEdits)
            .await
            .unwrap();
        let status = client.mcp_status().await.unwrap();
        assert!(status.mcp_servers.is_empty());
        within(LIMIT, client.close()).await;
    });
}

#[test]
fn an_invalid_flag_is_reported_with_the_cli_stderr_at_once() {
    block_on(async {
        let env = env();
        let options = env
            .options
            .clone()
            .permission_mode(PermissionMode::from_name("bogus"));
        let started = Instant::now();
        match Client::connect(options).await {
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
    });
}

#[test]
fn the_model_calls_an_in_process_mcp_tool() {
    block_on(async {
        use crate::sdk::mcp::ToolResult;
        use crate::sdk::{typed_tool, SdkMcpServer};

        #[derive(serde::Deserialize, schemars::JsonSchema)]
        struct Add {
            a: i64,
            b: i64,
        }

        let env = env();
        env.stub.push_reply(Reply::tool_use(
            "mcp__calc__add",
            serde_json::json!({"a": 2, "b": 3}),
        ));
        env.stub.push_reply(Reply::text("the sum is in"));
        let calc = SdkMcpServer::new("calc", "1.0.0").tool(typed_tool(
            "add",
            "Add two integers",
            |args: Add| async move {
                Ok::<_, String>(ToolResult::text(format!("sum={}", args.a + args.b)))
            },
        ));
        let options = env
            .options
            .clone()
            .sdk_mcp_server(calc)
            .allowed_tools(["mcp__calc__add"]);
        let items: Vec<_> = within(LIMIT, query("add 2 and 3", options).collect()).await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        let tool_result = env
            .stub
            .main_requests()
            .last()
            .and_then(|r| r.last_tool_result_text());
        assert_eq!(tool_result.as_deref(), Some("sum=5"));
    });
}

#[test]
fn a_pre_tool_use_hook_blocks_a_real_tool_call() {
    block_on(async {
        use crate::sdk::hooks::{HookEvent, HookInput, HookOutput};

        let env = env();
        env.stub.push_reply(Reply::tool_use(
            "Bash",
            serde_json::json!({"command": "echo from-the-tool"}),
        ));
        env.stub.push_reply(Reply::text("ok"));
        let commands = Arc::new(Mutex::new(Vec::new()));
        let seen = commands.clone();
        let options = env.options.clone().hook(
            HookEvent::PreToolUse,
            Some("Bash"),
            move |input, _id, _ctx| {
                if let HookInput::PreToolUse(pre) = &input {
                    seen.lock().unwrap().push(pre.tool_input.get().to_owned());
                }
                async { HookOutput::deny_tool("blocked by the test hook") }
            },
        );
        let items: Vec<_> = within(LIMIT, query("run it", options).collect()).await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        assert_eq!(commands.lock().unwrap().len(), 1);
        assert!(commands.lock().unwrap()[0].contains("from-the-tool"));
        let tool_result = env
            .stub
            .main_requests()
            .last()
            .and_then(|r| r.last_tool_result_text())
            .unwrap_or_default();
        assert!(
            tool_result.contains("blocked by the test hook"),
            "{tool_result}"
        );
    });
}
