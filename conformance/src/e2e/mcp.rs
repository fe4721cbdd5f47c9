//! MCP: in-process servers (tools, resources, options, timeouts, cancellation), servers the CLI runs, `mcp_call`, and secrets kept off the command line.

use super::*;

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
    let client = connected(&rt, options).await;
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

/// The model calls a tool of an in-process MCP server; its result goes back to the model.
pub async fn mcp_tool<R: Runtime>(rt: R) {
    use claude_agent_client::mcp::tool;
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
    let messages = ask(&rt, prompt, options).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(last_tool_result(&env.stub), "sum=42");
    assert_eq!(
        only_result(&messages).result.as_deref(),
        Some("done: sum=42")
    );
}

/// A tool result with every kind of MCP block and one that is not MCP content: the CLI renders
/// the MCP blocks for the model (a resource link and an embedded text resource as text, a binary
/// resource and audio saved to files it names), and it gets the result rather than refusing it
/// whole, because the SDK leaves the other block out.
pub async fn mcp_tool_result_blocks<R: Runtime>(rt: R) {
    use claude_agent_client::mcp::tool;
    use claude_agent_core::mcp::{ToolContent, ToolResult};

    let env = env();
    let raw = |v: serde_json::Value| ToolContent::Raw(v.to_string().parse().unwrap());
    let files = SdkMcpServer::new("files", "1.0.0").tool(tool(
        "fetch",
        "Fetch the files",
        json!({"type": "object", "properties": {}}),
        move |_args: serde_json::Value| {
            let content = vec![
                ToolContent::text("t"),
                ToolContent::ResourceLink {
                    uri: "file:///a".into(),
                    name: "a".into(),
                    description: Some("d".into()),
                    mime_type: None,
                },
                ToolContent::Resource {
                    uri: "file:///c".into(),
                    text: "ctext".into(),
                    mime_type: None,
                },
                raw(
                    json!({"type": "resource", "resource": {"uri": "file:///b", "blob": "AAAA",
                    "mimeType": "application/octet-stream"}}),
                ),
                raw(json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"})),
                raw(json!({"type": "chart", "series": [1, 2]})),
            ];
            async move { Ok::<_, String>(ToolResult::new(content)) }
        },
    ));
    let options = env
        .options
        .clone()
        .sdk_mcp_server(files)
        .allowed_tools(["mcp__files__fetch"]);
    ask(&rt, "TOOL:mcp__files__fetch:{}", options).await;
    let request = env.stub.main_requests().pop().expect("a request");
    let sent = request.body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"][0]["content"].clone())
        .expect("the tool result");
    let texts: Vec<&str> = sent
        .as_array()
        .expect("blocks")
        .iter()
        .map(|b| b["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(texts.len(), 5, "{sent}");
    assert_eq!(
        texts[..3],
        [
            "t",
            "[Resource link: a] file:///a (d)",
            "[Resource from files at file:///c] ctext"
        ]
    );
    assert!(
        texts[3].contains("application/octet-stream") && texts[3].contains("saved to"),
        "{}",
        texts[3]
    );
    assert!(texts[4].starts_with("[Audio from files]"), "{}", texts[4]);
}

/// Three in-process tool calls in one turn, none of which ever finishes, then an interrupt: the
/// CLI cancels each (`notifications/cancelled`) and the SDK drops every handler's future at
/// once, while the session goes on.
pub async fn interrupt_cancels_mcp_tools<R: Runtime>(rt: R) {
    use claude_agent_client::mcp::tool;
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
    let client = connected(&rt, options).await;
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
    let second = run_turn(&rt, &client, "go on").await;
    assert_eq!(texts(&second), ["second reply"]);
    within(&rt, STEP, "close", client.close()).await;
}

/// An in-process tool that overruns its time limit: the model gets an error result naming the
/// limit, the handler is dropped, and the turn goes on to its end.
pub async fn mcp_tool_timeout<R: Runtime>(rt: R) {
    use claude_agent_client::mcp::tool;
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
    let messages = ask(&rt, "TOOL:mcp__slow__wait:{}", options).await;
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

/// The options of in-process tools and their server reach the CLI and change what it does:
/// `always_load` offers a tool whole where the others are deferred behind `ToolSearch`, a
/// `search_hint` makes a search find its tool, the annotations show in `mcp_status`, the
/// server's instructions reach the model, `max_result_size_chars` sends a longer result to a
/// file, and arguments that do not fit a tool's schema are a tool error the model sees.
pub async fn mcp_tool_options<R: Runtime>(rt: R) {
    use claude_agent_client::mcp::tool;
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
    let client = connected(&rt, options).await;

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
        run_turn(&rt, &client, prompt).await;
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
    use claude_agent_client::mcp::{resource, resource_template};
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
    let client = connected(&rt, options).await;
    let mut results = Vec::new();
    for prompt in [
        r#"TOOL:ListMcpResourcesTool:{"server": "lib"}"#,
        r#"TOOL:ReadMcpResourceTool:{"server": "lib", "uri": "docs://readme"}"#,
        r#"TOOL:ReadMcpResourceTool:{"server": "lib", "uri": "logs://monday"}"#,
        r#"TOOL:ReadMcpResourceTool:{"server": "lib", "uri": "docs://missing"}"#,
    ] {
        run_turn(&rt, &client, prompt).await;
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
    use claude_agent_client::mcp::tool;
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
    let client = connected(&rt, options).await;
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
        run_turn(&rt, &client, prompt).await;
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
    run_turn(&rt, &client, "TOOL:mcp__clock__now:{}").await;
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
    let client = connected(&rt, options).await;
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
    let client = connected(&rt, on_argv).await;
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
            let client = connected(&rt, options).await;
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
