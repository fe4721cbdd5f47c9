//! Every user-facing capability against the testkit's scripted `fake-claude`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::{canned, Answer, Script};
use serde_json::{json, Value};

use crate::fake::{idle, Fake};
use crate::{json, kind, kinds, process_gone, result_text, wait_gone, within};
use claude_agent_client::mcp::{typed_tool, McpServerSet, SdkMcpServer};
use claude_agent_client::mcp::{ElicitationResult, ToolResult};
use claude_agent_client::Options;
use claude_agent_client::{connect_with, prompt_channel, query_with, Client, Error, Prompt};
use claude_agent_core::control::{ContextUsageDetail, ThinkingDisplayChange, UserDialogResult};
use claude_agent_core::hooks::{HookEvent, HookOutput};
use claude_agent_core::message::{LineError, NoticeKind};
use claude_agent_core::message::{Message, UserInput};
use claude_agent_core::options::McpServerConfig;
use claude_agent_core::permission::{PermissionMode, PermissionResult};

use crate::Harness;
use futures_lite::StreamExt;

const LIMIT: Duration = Duration::from_secs(10);

async fn collect<H: Harness>(
    options: Options,
    prompt: impl Into<Prompt>,
) -> Vec<Result<Message, Error>> {
    within(
        LIMIT,
        query_with(H::runtime(), prompt, options).collect::<Vec<_>>(),
    )
    .await
}

/// Answer initialize, wait for the user message, then `steps`, then a result and idle.
fn one_turn(steps: impl FnOnce(Script) -> Script) -> Script {
    steps(Script::new().answer_initialize().expect_user())
        .emit_result("done")
        .emit_json(&idle())
}

pub fn query_with_text_yields_every_message_and_ends<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(Script::single_turn("4"));
        let items = collect::<H>(fake.options(), "What is 2 + 2?").await;
        assert_eq!(kinds(&items), ["system/init", "assistant", "result"]);
        let result = items[2].as_ref().unwrap();
        assert_eq!(result_text(result).as_deref(), Some("4"));
        assert_eq!(fake.user_texts(), ["What is 2 + 2?"]);
        assert_eq!(fake.requests("initialize").len(), 1);
    });
}

fn two_turns() -> Script {
    Script::new()
        .answer_initialize()
        .expect_user()
        .emit_assistant_text("one")
        .emit_result("first")
        .expect_user()
        .emit_assistant_text("two")
        .emit_result("second")
}

fn results(items: &[Result<Message, Error>]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| i.as_ref().ok().and_then(result_text))
        .collect()
}

pub fn query_with_a_stream_sends_every_message_then_ends<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(two_turns());
        let prompt = Prompt::stream(futures_lite::stream::iter([
            UserInput::text("one"),
            UserInput::text("two"),
        ]));
        let items = collect::<H>(fake.options(), prompt).await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        assert_eq!(results(&items), ["first", "second"]);
        assert_eq!(fake.user_texts(), ["one", "two"]);
    });
}

pub fn prompt_channel_keeps_input_open_until_the_sender_is_dropped<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(two_turns());
        let (tx, prompt) = prompt_channel();
        let mut stream = query_with(H::runtime(), prompt, fake.options());
        tx.send("first").await.unwrap();
        let mut seen = Vec::new();
        while let Some(item) = within(LIMIT, stream.next()).await {
            if let Some(text) = result_text(&item.unwrap()) {
                seen.push(text);
                if seen.len() == 1 {
                    // The first result did not end the session: input is still open.
                    tx.send("second").await.unwrap();
                } else {
                    break;
                }
            }
        }
        drop(tx);
        let rest: Vec<_> = within(LIMIT, stream.collect::<Vec<_>>()).await;
        assert!(rest.iter().all(Result::is_ok), "{rest:?}");
        assert_eq!(seen, ["first", "second"]);
        assert_eq!(fake.user_texts(), ["first", "second"]);
    });
}

pub fn client_runs_several_turns_and_knows_the_server<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(two_turns());
        let client = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .unwrap();
        let info = client.server_info().expect("initialize answered");
        assert_eq!(info.commands[0].name, "debug");
        let mut uuids = Vec::new();
        for (turn, expected) in [("hello", "first"), ("again", "second")] {
            uuids.push(client.send(turn).await.unwrap());
            let messages: Vec<_> = within(LIMIT, client.receive_response().collect()).await;
            assert_eq!(kinds(&messages), ["assistant", "result"]);
            let text = result_text(messages[1].as_ref().unwrap());
            assert_eq!(text.as_deref(), Some(expected));
        }
        within(LIMIT, client.close()).await;
        assert!(matches!(client.send("late").await, Err(Error::Closed)));
        assert_eq!(fake.user_texts(), ["hello", "again"]);
        let sent: Vec<Value> = fake
            .sdk_lines()
            .into_iter()
            .filter(|line| line["type"] == "user")
            .map(|line| line["uuid"].clone())
            .collect();
        assert_eq!(sent, [json!(uuids[0]), json!(uuids[1])]);
        assert_ne!(uuids[0], uuids[1]);
    });
}

pub fn every_control_call_sends_its_request_and_returns_a_typed_answer<H: Harness>() {
    H::block_on(async {
        let ask = |script: Script, subtype: &str, answer: Answer| {
            script
                .expect_request_as(subtype, subtype)
                .respond(subtype, answer)
        };
        let mut script = Script::new().answer_initialize();
        for (subtype, answer) in [
            ("interrupt", Answer::success(json!({"still_queued": []}))),
            (
                "set_model",
                Answer::success(json!({"model": "claude-sonnet"})),
            ),
            (
                "set_permission_mode",
                Answer::success(json!({"mode": "acceptEdits"})),
            ),
            ("set_max_thinking_tokens", Answer::ack()),
            ("rewind_files", Answer::success(json!({"canRewind": false}))),
            (
                "mcp_status",
                Answer::success(json!({"mcpServers": [{"name": "calc", "status": "connected"}]})),
            ),
            ("mcp_reconnect", Answer::ack()),
            ("mcp_toggle", Answer::ack()),
            (
                "mcp_set_servers",
                Answer::success(json!({"added": [], "removed": [], "errors": {}})),
            ),
            ("stop_task", Answer::ack()),
            (
                "get_context_usage",
                Answer::success(json!({"totalTokens": 1200, "maxTokens": 200000,
                    "percentage": 0.6, "model": "claude-test", "categories": []})),
            ),
        ] {
            script = ask(script, subtype, answer);
        }
        let script = ask(script, "set_model", Answer::error("unknown model bogus"));
        let fake = Fake::new(script);
        let client = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .unwrap();

        let receipt = client.interrupt().await.unwrap();
        assert!(receipt.still_queued.is_empty());
        client.set_model(Some("sonnet")).await.unwrap();
        client
            .set_permission_mode(PermissionMode::AcceptEdits)
            .await
            .unwrap();
        client
            .set_max_thinking_tokens(Some(2048), ThinkingDisplayChange::Keep)
            .await
            .unwrap();
        let rewind = client.preview_rewind_files("u-1").await.unwrap();
        assert!(!rewind.can_rewind);
        let status = client.mcp_status().await.unwrap();
        assert_eq!(status.mcp_servers[0].name, "calc");
        client.reconnect_mcp_server("calc").await.unwrap();
        client.disable_mcp_server("calc").await.unwrap();
        let docs = McpServerConfig::http("http://127.0.0.1:1/mcp");
        let servers = McpServerSet::new().external("docs", docs);
        let applied = client.set_mcp_servers(servers).await.unwrap();
        assert!(applied.added.is_empty());
        client.stop_task("task-1").await.unwrap();
        let usage = client
            .context_usage(ContextUsageDetail::Full)
            .await
            .unwrap();
        assert_eq!(usage.total_tokens, 1200);
        match client.set_model(Some("bogus")).await {
            Err(Error::ControlRefused { message, .. }) => {
                assert!(message.contains("unknown model"), "{message}")
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        within(LIMIT, client.close()).await;

        let first = |subtype: &str| {
            fake.requests(subtype)
                .into_iter()
                .next()
                .unwrap_or(Value::Null)
        };
        assert_eq!(first("set_model")["model"], "sonnet");
        assert_eq!(first("set_permission_mode")["mode"], "acceptEdits");
        assert_eq!(
            first("set_max_thinking_tokens")["max_thinking_tokens"],
            2048
        );
        assert_eq!(first("rewind_files")["user_message_id"], "u-1");
        assert_eq!(first("rewind_files")["dry_run"], true);
        assert_eq!(first("mcp_reconnect")["serverName"], "calc");
        assert_eq!(first("mcp_toggle")["enabled"], false);
        assert_eq!(
            first("mcp_set_servers")["servers"],
            json!({"docs": {"type": "http", "url": "http://127.0.0.1:1/mcp"}})
        );
        assert_eq!(first("stop_task")["task_id"], "task-1");
        assert_eq!(fake.requests("set_model").len(), 2);
    });
}

fn permission_script() -> Script {
    one_turn(|s| s.can_use_tool("perm-1", "Bash", json!({"command": "ls"})))
}

pub fn can_use_tool_answers_allow_and_deny<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(permission_script());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        let options = fake.options().on_permission_request(move |request, _ctx| {
            seen.lock()
                .unwrap()
                .push(request.tool_input.as_str().to_owned());
            async { PermissionResult::deny("no shell") }
        });
        let items = collect::<H>(options, "go").await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        let reply = fake.response_to("perm-1").expect("answered");
        assert_eq!(reply["subtype"], "success", "{reply}");
        assert_eq!(reply["response"]["behavior"], "deny");
        assert_eq!(reply["response"]["message"], "no shell");
        assert_eq!(*asked.lock().unwrap(), [r#"{"command":"ls"}"#]);

        let fake = Fake::new(permission_script());
        let options = fake
            .options()
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
        collect::<H>(options, "go").await;
        let reply = fake.response_to("perm-1").expect("answered");
        assert_eq!(reply["response"]["behavior"], "allow", "{reply}");
    });
}

fn pre_tool_use(tool_use_id: &str) -> Value {
    json!({"subtype": "hook_callback", "callback_id": "hook_0", "tool_use_id": tool_use_id,
           "input": {"hook_event_name": "PreToolUse", "session_id": "s", "transcript_path": "/tmp/t",
                     "cwd": "/tmp", "tool_name": "Bash", "tool_input": {"command": "ls"},
                     "tool_use_id": tool_use_id}})
}

pub fn hook_callback_gets_its_input_and_its_answer_reaches_the_cli<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(one_turn(|s| {
            s.request_and_wait("hook-1", pre_tool_use("toolu_9"))
        }));
        let seen = Arc::new(Mutex::new(None));
        let seen_in_hook = seen.clone();
        let options =
            fake.options()
                .on_hook_event(HookEvent::PreToolUse, "Bash", move |input, ctx| {
                    *seen_in_hook.lock().unwrap() = Some((
                        input.event().as_str().to_owned(),
                        ctx.tool_use_id().map(str::to_owned),
                    ));
                    async { HookOutput::deny_tool("blocked") }
                });
        let items = collect::<H>(options, "go").await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            Some(("PreToolUse".to_owned(), Some("toolu_9".to_owned())))
        );
        let reply = fake.response_to("hook-1").expect("answered");
        assert_eq!(reply["subtype"], "success", "{reply}");
        let decision = &reply["response"]["hookSpecificOutput"];
        assert_eq!(decision["permissionDecision"], "deny", "{reply}");
        // The hook was declared to the CLI in initialize.
        let init = fake.requests("initialize");
        assert_eq!(
            init[0]["hooks"]["PreToolUse"][0]["matcher"], "Bash",
            "{}",
            init[0]
        );
    });
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

pub fn in_process_mcp_tool_is_listed_and_called_with_typed_arguments<H: Harness>() {
    H::block_on(async {
        let call = |id: u64, arguments: Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "add", "arguments": arguments}})
        };
        let fake = Fake::new(one_turn(|s| {
            s.mcp_message(
                "mcp-0",
                "calc",
                json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
            )
            .mcp_message("mcp-1", "calc", call(7, json!({"a": 2, "b": 3})))
            .mcp_message("mcp-2", "calc", call(8, json!({"a": "x"})))
        }));
        let calc =
            SdkMcpServer::new("calc", "1.0.0").tool(typed_tool(
                "add",
                "Add two numbers",
                |args: Add| async move {
                    Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
                },
            ));
        let items = collect::<H>(fake.options().sdk_mcp_server(calc), "go").await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");

        let listed = fake.response_to("mcp-0").expect("answered");
        let tool = &listed["response"]["mcp_response"]["result"]["tools"][0];
        assert_eq!(tool["name"], "add", "{listed}");
        assert!(
            tool["inputSchema"]["properties"]["a"].is_object(),
            "{listed}"
        );
        let good = fake.response_to("mcp-1").expect("answered");
        let good = &good["response"]["mcp_response"];
        assert_eq!(good["id"], 7);
        assert_eq!(good["result"]["content"][0]["text"], "5", "{good}");
        assert_ne!(good["result"]["isError"], true);
        // A failing tool (bad arguments) is a tool error the model sees, not a broken session.
        let bad = fake.response_to("mcp-2").expect("answered");
        let bad = &bad["response"]["mcp_response"]["result"];
        assert_eq!(bad["isError"], true, "{bad}");
        // The arguments are checked against the derived schema, which names every problem.
        assert_eq!(
            bad["content"][0]["text"],
            r#"Invalid arguments for tool add: "b" is a required property; /a: "x" is not of type "number""#
        );
    });
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

pub fn cancel_request_drops_the_pending_callback_and_the_session_goes_on<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(one_turn(|s| {
            s.send_request("hook-slow", pre_tool_use("toolu_5"))
                .sleep(Duration::from_millis(300))
                .cancel("hook-slow")
                .can_use_tool("perm-after", "Read", json!({}))
        }));
        let dropped = Arc::new(AtomicBool::new(false));
        let flag = dropped.clone();
        let options = fake
            .options()
            .on_hook_event(HookEvent::PreToolUse, None, move |_input, _ctx| {
                let guard = SetOnDrop(flag.clone());
                async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                    HookOutput::default()
                }
            })
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
        let items = collect::<H>(options, "go").await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        assert!(
            dropped.load(Ordering::SeqCst),
            "the cancelled hook's future was not dropped"
        );
        let reply = fake.response_to("perm-after").expect("answered");
        assert_eq!(reply["response"]["behavior"], "allow", "{reply}");
        assert_eq!(fake.response_to("hook-slow"), None);
    });
}

pub fn panicking_callback_gives_an_error_reply_and_the_session_goes_on<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(one_turn(|s| {
            s.can_use_tool("perm-1", "Explode", json!({}))
                .can_use_tool("perm-2", "Read", json!({}))
        }));
        let options = fake
            .options()
            .on_permission_request(|request, _ctx| async move {
                if request.tool_name == "Explode" {
                    panic!("kaboom");
                }
                PermissionResult::allow()
            });
        let items = collect::<H>(options, "go").await;
        assert_eq!(kinds(&items), ["result"]);
        let first = fake.response_to("perm-1").expect("answered");
        assert_eq!(first["subtype"], "error", "{first}");
        assert!(
            first["error"].as_str().unwrap().contains("kaboom"),
            "{first}"
        );
        let second = fake.response_to("perm-2").expect("answered");
        assert_eq!(second["subtype"], "success");
        assert_eq!(second["response"]["behavior"], "allow");
    });
}

pub fn a_hook_can_interrupt_through_its_context<H: Harness>() {
    H::block_on(async {
        let fake = Fake::new(one_turn(|s| {
            s.send_request("hook-1", pre_tool_use("toolu_6"))
                .expect_request_as("interrupt", "int")
                .respond("int", Answer::success(json!({"still_queued": []})))
                .expect_response("hook-1")
        }));
        let options =
            fake.options()
                .on_hook_event(HookEvent::PreToolUse, None, |_input, ctx| async move {
                    ctx.client().interrupt().await.expect("interrupt answered");
                    HookOutput::default()
                });
        let items = collect::<H>(options, "go").await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");
        assert_eq!(fake.requests("interrupt").len(), 1);
        let reply = fake.response_to("hook-1").expect("answered");
        assert_eq!(reply["subtype"], "success", "{reply}");
    });
}

/// One handle type: the client a callback's context hands out and the one `connect` returned
/// go in the same field, and either steers the session.
pub fn a_callbacks_client_and_a_connected_client_share_one_type<H: Harness>() {
    struct App {
        clients: Vec<Client>,
    }
    H::block_on(async {
        let fake = Fake::new(
            Script::new()
                .answer_initialize()
                .expect_user()
                .send_request("hook-1", pre_tool_use("toolu_8"))
                .expect_response("hook-1")
                .expect_request_as("interrupt", "int")
                .respond("int", Answer::success(json!({"still_queued": []})))
                .emit_result("ok")
                .expect_eof(),
        );
        let from_callback = Arc::new(Mutex::new(None::<Client>));
        let kept = from_callback.clone();
        let options =
            fake.options()
                .on_hook_event(HookEvent::PreToolUse, None, move |_input, ctx| {
                    *kept.lock().unwrap() = Some(ctx.client());
                    async { HookOutput::default() }
                });
        let mut app = App {
            clients: vec![within(LIMIT, connect_with(H::runtime(), options))
                .await
                .expect("connected")],
        };
        app.clients[0].send("go").await.expect("sent");
        within(LIMIT, async {
            while from_callback.lock().unwrap().is_none() {
                H::sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        let callback_client = from_callback.lock().unwrap().take().expect("a client");
        app.clients.push(callback_client);
        within(LIMIT, app.clients[1].interrupt())
            .await
            .expect("the callback's client steers the session");
        let reply: Vec<_> = within(LIMIT, app.clients[0].receive_response().collect()).await;
        assert!(reply.iter().all(Result::is_ok), "{reply:?}");
        app.clients[0].close().await;
        // The fake's log of what it read is complete once it has exited.
        assert_eq!(fake.requests("interrupt").len(), 1);
    });
}

pub fn elicitation_is_answered_by_the_callback_or_declined<H: Harness>() {
    H::block_on(async {
        let script = || one_turn(|s| s.elicitation("elicit-1", "github", "Which repository?"));
        let fake = Fake::new(script());
        let options = fake.options().on_elicitation(|request, _ctx| async move {
            assert_eq!(request.message, "Which repository?");
            ElicitationResult::accept(json!({"repo": "octo/demo"}))
        });
        collect::<H>(options, "go").await;
        let reply = fake.response_to("elicit-1").expect("answered");
        assert_eq!(reply["response"]["action"], "accept", "{reply}");
        assert_eq!(reply["response"]["content"]["repo"], "octo/demo");

        let fake = Fake::new(script());
        collect::<H>(fake.options(), "go").await;
        let reply = fake.response_to("elicit-1").expect("answered");
        assert_eq!(reply["response"]["action"], "decline", "{reply}");
    });
}

pub fn user_dialogs_are_answered_by_the_callback_or_refused_without_one<H: Harness>() {
    H::block_on(async {
        let script = || {
            one_turn(|s| {
                s.request_and_wait(
                    "dialog-1",
                    json!({"subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt",
                           "payload": {"fallbackModel": "claude-sonnet-4-5"}, "tool_use_id": "toolu_7"}),
                )
            })
        };
        let fake = Fake::new(script());
        let options =
            fake.options()
                .on_user_dialog(["refusal_fallback_prompt"], |request, ctx| async move {
                    assert_eq!(request.dialog_kind, "refusal_fallback_prompt");
                    assert_eq!(request.tool_use_id.as_deref(), Some("toolu_7"));
                    assert!(ctx.client().server_info().is_some(), "a running session");
                    let payload: Value = serde_json::from_str(request.payload.as_str()).unwrap();
                    let choice = json!({"choice": "retry", "model": payload["fallbackModel"]});
                    UserDialogResult::completed(choice)
                });
        collect::<H>(options, "go").await;
        let init = &fake.requests("initialize")[0];
        assert_eq!(
            init["supportedDialogKinds"],
            json!(["refusal_fallback_prompt"])
        );
        let reply = fake.response_to("dialog-1").expect("answered");
        assert_eq!(
            reply["response"],
            json!({"behavior": "completed", "result": {"choice": "retry", "model": "claude-sonnet-4-5"}}),
            "{reply}"
        );

        let fake = Fake::new(script());
        collect::<H>(fake.options(), "go").await;
        let reply = fake.response_to("dialog-1").expect("answered");
        assert_eq!(reply["subtype"], "error", "{reply}");
        assert!(fake.requests("initialize")[0]
            .get("supportedDialogKinds")
            .is_none());
    });
}

pub fn dropping_the_client_shuts_the_cli_down<H: Harness>() {
    H::block_on(async {
        let fake = Fake::builder(Script::new().answer_initialize().hang()).build();
        let client = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .unwrap();
        let pid = fake.pid();
        assert!(!process_gone(pid));
        drop(client);
        // stdin closed → the fake keeps hanging → SIGTERM after 5 s → reaped.
        assert!(
            wait_gone::<H>(pid, Duration::from_secs(10)).await,
            "pid {pid} still there"
        );
    });
}

pub fn close_escalates_to_sigkill_when_sigterm_is_ignored<H: Harness>() {
    H::block_on(async {
        // Its tools ignore SIGTERM too, and one of them is in a session of its own.
        let fake = Fake::builder(Script::new().answer_initialize().hang())
            .ignore_sigterm()
            .with_tools()
            .build();
        let client = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .unwrap();
        assert!(fake.wait_for_tools(LIMIT), "the tools did not start");
        let pid = fake.pid();
        let started = Instant::now();
        within(Duration::from_secs(15), client.close()).await;
        let took = started.elapsed();
        assert!(process_gone(pid), "pid {pid} still there");
        assert!(
            took >= Duration::from_secs(10),
            "SIGKILL came after {took:?}, before 5 s + 5 s"
        );
        // The SIGKILL took the whole tree, not only the CLI's group.
        let left = fake.wait_tree_gone(Duration::from_secs(2));
        assert!(left.is_empty(), "still running: {}", Fake::describe(&left));
    });
}

pub fn dropping_a_query_midway_shuts_the_cli_down<H: Harness>() {
    H::block_on(async {
        let fake = Fake::builder(Script::new().answer_initialize().expect_user().hang()).build();
        let (tx, prompt) = prompt_channel();
        let stream = query_with(H::runtime(), prompt, fake.options());
        let client = stream.client();
        tx.send("hi").await.unwrap();
        within(LIMIT, async {
            while client.server_info().is_none() {
                H::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        let pid = fake.pid();
        drop(client);
        drop(stream);
        assert!(
            wait_gone::<H>(pid, Duration::from_secs(10)).await,
            "pid {pid} still there"
        );
    });
}

fn die_early() -> Script {
    Script::new()
        .stderr(
            "error: option '--permission-mode <mode>' argument 'bogus' is invalid. \
             Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan.\n",
        )
        .exit(1)
}

pub fn cli_exiting_early_is_reported_with_its_stderr_within_a_second<H: Harness>() {
    H::block_on(async {
        let fake = Fake::builder(die_early()).build();
        let started = Instant::now();
        let error = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .unwrap_err();
        let took = started.elapsed();
        assert!(took < Duration::from_secs(1), "took {took:?}");
        match error {
            Error::StartFailed {
                failure,
                stderr_tail,
            } => {
                assert_eq!(failure.exit.code, Some(1));
                assert_eq!(failure.reason, None);
                assert!(
                    stderr_tail.contains("argument 'bogus' is invalid"),
                    "{stderr_tail}"
                );
            }
            other => panic!("expected Error::StartFailed, got {other:?}"),
        }

        let started = Instant::now();
        let items = collect::<H>(fake.options(), "hi").await;
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "took {:?}",
            started.elapsed()
        );
        match items.last() {
            Some(Err(Error::StartFailed { stderr_tail, .. })) => {
                assert!(stderr_tail.contains("'bogus'"), "{stderr_tail}")
            }
            other => panic!("expected Error::StartFailed last, got {other:?}"),
        }
    });
}

pub fn error_result_then_non_zero_exit_is_a_result_error<H: Harness>() {
    H::block_on(async {
        let mut result = canned::result_success("boom", 3);
        result["subtype"] = json!("error_max_turns");
        result["is_error"] = json!(true);
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_json(&result)
            .exit(1);
        let fake = Fake::builder(script).build();
        let items = collect::<H>(fake.options(), "hi").await;
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(kind(items[0].as_ref().unwrap()), "result");
        match &items[1] {
            Err(Error::Result(error)) => assert_eq!(error.subtype, "error_max_turns"),
            other => panic!("expected Error::Result, got {other:?}"),
        }
    });
}

pub fn missing_cli_is_cli_not_found<H: Harness>() {
    H::block_on(async {
        let options = Options::new().cli_path("/nonexistent/bin/claude");
        let items = collect::<H>(options.clone(), "hi").await;
        match &items[..] {
            [Err(Error::CliNotFound { searched, .. })] => {
                assert_eq!(searched[0].to_str(), Some("/nonexistent/bin/claude"))
            }
            other => panic!("expected CliNotFound, got {other:?}"),
        }
        let connected = within(LIMIT, connect_with(H::runtime(), options)).await;
        assert!(matches!(connected, Err(Error::CliNotFound { .. })));
    });
}

pub fn a_missing_working_directory_is_named_not_taken_for_a_missing_cli<H: Harness>() {
    H::block_on(async {
        // The CLI is there; the directory it is to run in is not.
        let fake = Fake::new(Script::single_turn("ok"));
        let options = fake.options().cwd("/no/such/dir");
        let error = within(LIMIT, connect_with(H::runtime(), options.clone()))
            .await
            .unwrap_err();
        match &error {
            Error::WorkingDirectory { path, .. } => assert_eq!(path.to_str(), Some("/no/such/dir")),
            other => panic!("expected WorkingDirectory, got {other:?}"),
        }
        let text = error.to_string();
        assert!(text.contains("/no/such/dir"), "{text}");
        let items = collect::<H>(options, "hi").await;
        assert!(
            matches!(&items[..], [Err(Error::WorkingDirectory { .. })]),
            "{items:?}"
        );

        // A file is no working directory either.
        let file = std::env::current_exe().unwrap();
        let error = within(LIMIT, connect_with(H::runtime(), fake.options().cwd(&file)))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, Error::WorkingDirectory { path, .. } if *path == file),
            "{error:?}"
        );
    });
}

pub fn stderr_lines_reach_the_callback<H: Harness>() {
    H::block_on(async {
        let script = Script::new()
            .stderr("fake claude started\n")
            .answer_initialize()
            .expect_user()
            .emit_result("ok");
        let fake = Fake::builder(script).build();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let options = fake
            .options()
            .on_stderr(move |line| sink.lock().unwrap().push(line.to_owned()));
        collect::<H>(options, "hi").await;
        assert_eq!(*lines.lock().unwrap(), ["fake claude started"]);
    });
}

pub fn a_line_that_is_not_json_is_a_notice_and_the_stream_goes_on<H: Harness>() {
    H::block_on(async {
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_garbage()
            .emit_assistant_text("still here")
            .emit_result("ok");
        let fake = Fake::builder(script).build();
        let items = collect::<H>(fake.options(), "hi").await;
        assert!(
            matches!(&items[0], Ok(Message::Notice(notice)) if matches!(notice.kind, NoticeKind::UnreadableLine(LineError::NotJson { .. }))),
            "{items:?}"
        );
        assert_eq!(kinds(&items[1..]), ["assistant", "result"]);
    });
}

pub fn an_over_long_line_is_skipped_with_a_notice<H: Harness>() {
    H::block_on(async {
        let limit = 64 * 1024;
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_long_line(4 * limit)
            .emit_assistant_text("still here")
            .emit_long_line(limit + 1)
            .emit_result("ok");
        let fake = Fake::builder(script).build();
        let items = collect::<H>(fake.options().max_buffer_size(limit), "hi").await;
        assert_eq!(items.len(), 4, "{items:?}");
        for index in [0, 2] {
            match &items[index] {
                Ok(Message::Notice(notice)) => {
                    assert!(
                        notice.raw_json().contains("exceeds the limit"),
                        "{notice:?}"
                    )
                }
                other => panic!("expected a too-long line error, got {other:?}"),
            }
        }
        assert_eq!(kind(items[1].as_ref().unwrap()), "assistant");
        let last = items[3].as_ref().unwrap();
        assert_eq!(result_text(last).as_deref(), Some("ok"));
        assert_eq!(json(last)["type"], "result");
    });
}

pub fn a_reader_that_does_not_read_holds_the_cli_back<H: Harness>() {
    H::block_on(async {
        let total = 20_000;
        let line = canned::assistant_text("flood", 1).to_string();
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .flood(line, total)
            .emit_result("flooded");
        let fake = Fake::builder(script).log_stdout().build();
        let mut stream = query_with(H::runtime(), "go", fake.options());
        // Nobody reads: the driver may buffer a bounded amount, then the CLI blocks on its stdout.
        H::sleep(Duration::from_millis(1500)).await;
        let written = fake.lines_written();
        // It got going (the driver read a first batch), and then it was held back.
        assert!(
            (100..total / 2).contains(&written),
            "the fake wrote {written} of {total} lines while nobody read"
        );
        let mut count = 0;
        while let Some(item) = within(LIMIT, stream.next()).await {
            item.unwrap();
            count += 1;
        }
        assert_eq!(count, total + 1);
    });
}
