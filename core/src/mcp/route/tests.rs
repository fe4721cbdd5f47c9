use super::*;
use crate::mcp::{
    PromptArgument, PromptResult, PromptSpec, ResourceResult, ResourceSpec, ResourceTemplateSpec,
    ToolAnnotations,
};
use crate::test_fixtures::recorded_exchanges;
use serde_json::Value;

#[derive(Deserialize)]
struct McpMessage {
    server_name: String,
    message: Json,
}

#[derive(Deserialize)]
struct McpReply {
    mcp_response: Json,
}

fn raw(json: &str) -> Json {
    Json::try_from(json.to_owned()).unwrap()
}

fn value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn calc() -> Vec<McpServerSpec> {
    let schema = raw(
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#,
    );
    vec![McpServerSpec::new("calc", "1.0.0").tool(ToolSpec::new("add", "add two numbers", schema))]
}

fn reply(route: McpRoute) -> Value {
    match route {
        McpRoute::Reply(body) => value(body.as_str()),
        other => panic!("expected a reply, got {other:?}"),
    }
}

fn route_json(servers: &[McpServerSpec], message: &str) -> McpRoute {
    route(servers, "calc", message)
}

#[test]
fn replays_the_recorded_sdk_mcp_session() {
    let servers = calc();
    let exchanges = recorded_exchanges("sdk_mcp", "mcp_message");
    assert_eq!(exchanges.len(), 4);
    let mut tool_calls = 0;
    for (request, recorded) in exchanges {
        let request: McpMessage = serde_json::from_str(request.as_str()).unwrap();
        let recorded: McpReply = serde_json::from_str(recorded.as_str()).unwrap();
        let ours = match route(&servers, &request.server_name, request.message.as_str()) {
            McpRoute::Reply(body) => body,
            McpRoute::ToolCall(call) => {
                tool_calls += 1;
                assert_eq!((call.server.as_str(), call.tool.as_str()), ("calc", "add"));
                assert_eq!(call.arguments.as_str(), r#"{"a":2,"b":40}"#);
                assert_eq!(call.jsonrpc_id.as_str(), "2");
                assert_eq!(call.tool_use_id.as_deref(), Some("toolu_fake_6_0"));
                assert_eq!(call.progress_token.as_ref().map(|t| t.as_str()), Some("2"));
                call.response(&ToolResult::text("42"))
            }
            other => panic!("the recording has only tool calls: {other:?}"),
        };
        assert_eq!(
            value(ours.as_str()),
            value(recorded.mcp_response.as_str()),
            "{}",
            request.message
        );
    }
    assert_eq!(tool_calls, 1);
}

#[test]
fn initialize_carries_instructions_when_set() {
    let servers = vec![McpServerSpec::new("calc", "2.0").with_instructions("use add")];
    let body = reply(route_json(
        &servers,
        r#"{"jsonrpc":"2.0","id":"x","method":"initialize","params":{}}"#,
    ));
    assert_eq!(
        body,
        value(
            r#"{"jsonrpc":"2.0","id":"x","result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},
                "serverInfo":{"name":"calc","version":"2.0"},"instructions":"use add"}}"#
        )
    );
}

#[test]
fn tools_list_includes_annotations_and_meta() {
    let tool = ToolSpec::new("add", "d", raw(r#"{"type":"object"}"#))
        .with_annotations(ToolAnnotations {
            title: Some("Add".into()),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(false),
            ..Default::default()
        })
        .search_hint("sum")
        .max_result_size_chars(5000);
    let servers = vec![McpServerSpec::new("calc", "1").tool(tool)];
    let body = reply(route_json(
        &servers,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
    ));
    assert_eq!(
        body["result"]["tools"][0],
        value(
            r#"{"name":"add","description":"d","inputSchema":{"type":"object"},
                "annotations":{"title":"Add","destructiveHint":false,"idempotentHint":true,"openWorldHint":false},
                "_meta":{"anthropic/searchHint":"sum","anthropic/maxResultSizeChars":5000}}"#
        )
    );
}

/// JSON-RPC ids MCP takes are strings and integers. The official Python SDK reads a message
/// with any other id as a notification and never runs the tool; it is refused here, with an
/// error the CLI can read, and the tool does not run either.
#[test]
fn an_id_that_is_neither_a_string_nor_an_integer_is_refused() {
    for id in [
        "2.5",
        "2.0",
        "1e3",
        "true",
        "[1]",
        r#"{"n":1}"#,
        "-0.5",
        "01",
    ] {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
        );
        let body = reply(route_json(&calc(), &message));
        assert_eq!(body["error"]["code"], -32600, "{id}: {body}");
        assert_eq!(body["id"], Value::Null, "{id}");
    }
    for id in ["7", "-3", "0", r#""call-7""#] {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
        );
        assert!(
            matches!(route_json(&calc(), &message), McpRoute::ToolCall(_)),
            "{id}"
        );
    }
}

/// The CLI refuses a whole tool result that holds a block which is not MCP content ("failed
/// schema validation", CLI 2.1.332): such blocks are left out; the MCP ones, resource links,
/// embedded and binary resources and audio among them, go as written (the CLI renders them
/// for the model itself).
#[test]
fn a_tool_result_goes_to_the_cli_without_blocks_it_refuses() {
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
    let McpRoute::ToolCall(call) = route_json(&calc(), call) else {
        panic!("a tool call")
    };
    let link = r#"{"type":"resource_link","uri":"file:///a","name":"a","description":"d"}"#;
    let blob = r#"{"type":"resource","resource":{"uri":"file:///b","blob":"AAAA","mimeType":"application/octet-stream"}}"#;
    let audio = r#"{"type":"audio","data":"AAAA","mimeType":"audio/wav"}"#;
    let content = [
        link,
        blob,
        audio,
        r#"{"type":"weird","x":1}"#,
        r#"{"no":"type"}"#,
    ]
    .into_iter()
    .map(|block| ToolContent::Raw(raw(block)))
    .chain([ToolContent::text("t")])
    .collect();
    let body = value(call.response(&ToolResult::new(content)).as_str());
    assert_eq!(
        body["result"]["content"],
        Value::Array(
            [link, blob, audio, r#"{"type":"text","text":"t"}"#]
                .map(value)
                .to_vec()
        )
    );
}

#[test]
fn notifications_are_acked_whatever_their_method() {
    for message in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
        r#"{"jsonrpc":"2.0","method":"tools/call","id":null,"params":{"name":"add"}}"#,
        r#"{"jsonrpc":"2.0","method":"whatever/else"}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    ] {
        assert_eq!(
            reply(route_json(&calc(), message)),
            value(r#"{"jsonrpc":"2.0","result":{},"id":0}"#),
            "{message}"
        );
    }
}

#[test]
fn unknown_tool_is_an_error_result_not_a_jsonrpc_error() {
    let body = reply(route_json(
        &calc(),
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mul","arguments":{}}}"#,
    ));
    assert_eq!(
        body,
        value(
            r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"Tool 'mul' not found"}],"isError":true}}"#
        )
    );
}

#[test]
fn tool_call_without_arguments_or_meta_gets_an_empty_object() {
    let McpRoute::ToolCall(call) = route_json(
        &calc(),
        r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"add","arguments":null}}"#,
    ) else {
        panic!("not a tool call")
    };
    assert_eq!(call.arguments.as_str(), "{}");
    assert_eq!(call.jsonrpc_id.as_str(), r#""c1""#);
    assert_eq!(call.tool_use_id, None);
    assert_eq!(
        value(call.response(&ToolResult::error("x")).as_str()),
        value(
            r#"{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"x"}],"isError":true}}"#
        )
    );
}

#[test]
fn error_paths() {
    let servers = calc();
    let cases = [
        (
            route(
                &servers,
                "nope",
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
            ),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Server 'nope' not found"}}"#,
        ),
        (
            route(
                &servers,
                "nope",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            ),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Server 'nope' not found"}}"#,
        ),
        (
            route_json(
                &servers,
                r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#,
            ),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: resources/list"}}"#,
        ),
        (
            route_json(&servers, r#"[1,2,3]"#),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
        ),
        (
            route_json(&servers, r#"{"jsonrpc":"2.0","id":4,"method":17}"#),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
        ),
        (
            route_json(&servers, r#"{"jsonrpc":"2.0","id":4}"#),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request: no method"}}"#,
        ),
        (
            route_json(
                &servers,
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#,
            ),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: tools/call needs params"}}"#,
        ),
    ];
    for (route, expected) in cases {
        assert_eq!(reply(route), value(expected));
    }
    let body = reply(route_json(
        &servers,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#,
    ));
    assert_eq!(body["error"]["code"], -32602);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("Invalid params: missing field `name`"));
}

#[test]
fn garbage_never_panics_and_always_gets_a_jsonrpc_reply() {
    let servers = calc();
    let garbage = [
        "null",
        "0",
        r#"[0,"ping"]"#,
        "\"x\"",
        "{}",
        "[]",
        r#"{"id":{}}"#,
        r#"{"id":[1],"method":"ping"}"#,
        r#"{"method":"tools/call","id":1,"params":[]}"#,
        r#"{"method":"tools/call","id":1,"params":"x"}"#,
        r#"{"method":"tools/call","id":1,"params":{"name":5}}"#,
        r#"{"method":"tools/call","id":1,"params":{"name":"add","_meta":{"claudecode/toolUseId":5}}}"#,
        r#"{"method":"\u0000","id":1}"#,
        r#"{"method":"ping","method":"ping","id":1}"#,
    ];
    for message in garbage {
        let body = reply(route_json(&servers, message));
        if message.starts_with('[') {
            assert_eq!(body["error"]["code"], -32600);
        }
        assert_eq!(body["jsonrpc"], "2.0", "{message}");
        assert!(
            body.get("result").is_some() || body.get("error").is_some(),
            "{message}"
        );
    }
}

fn library() -> Vec<McpServerSpec> {
    vec![McpServerSpec::new("lib", "1.0.0")
        .resource(
            ResourceSpec::new("docs://readme", "README")
                .with_title("Read me")
                .with_mime_type("text/markdown"),
        )
        .resource_template(
            ResourceTemplateSpec::new("logs://{day}", "Log of a day").with_description("one day"),
        )
        .prompt(
            PromptSpec::new("greet")
                .with_description("Greet someone")
                .argument(PromptArgument::required("name").with_description("who"))
                .argument(PromptArgument::optional("tone")),
        )]
}

fn lib(message: &str) -> McpRoute {
    route(&library(), "lib", raw(message).as_str())
}

#[test]
fn a_server_with_resources_and_prompts_declares_them_and_lists_them() {
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"lib","version":"1.0.0"}}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"docs://readme","name":"README","title":"Read me","mimeType":"text/markdown"}]}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"logs://{day}","name":"Log of a day","description":"one day"}]}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"prompts":[{"name":"greet","description":"Greet someone","arguments":[{"name":"name","description":"who","required":true},{"name":"tone"}]}]}}"#,
        ),
    ];
    for (message, expected) in cases {
        let McpRoute::Reply(body) = lib(message) else {
            panic!("{message}")
        };
        // Byte for byte: these are the answers the CLI gets.
        assert_eq!(body.as_str(), expected);
    }
}

#[test]
fn reads_and_gets_of_declared_things_go_to_the_host() {
    let McpRoute::ResourceRead(read) = lib(
        r#"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"docs://readme"}}"#,
    ) else {
        panic!("not a read")
    };
    assert_eq!(
        (read.server.as_str(), read.uri.as_str()),
        ("lib", "docs://readme")
    );
    assert_eq!((read.template.as_deref(), read.variables.len()), (None, 0));
    assert_eq!(
        read.response(&ResourceResult::text("docs://readme", "hi"))
            .as_str(),
        r#"{"jsonrpc":"2.0","id":"r","result":{"contents":[{"uri":"docs://readme","text":"hi"}]}}"#
    );

    let McpRoute::ResourceRead(read) = lib(
        r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"logs://monday"}}"#,
    ) else {
        panic!("not a read")
    };
    assert_eq!(read.template.as_deref(), Some("logs://{day}"));
    assert_eq!(read.variables["day"], "monday");

    let McpRoute::PromptGet(get) = lib(
        r#"{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}"#,
    ) else {
        panic!("not a get")
    };
    assert_eq!(
        (get.name.as_str(), get.arguments["name"].as_str()),
        ("greet", "Ada")
    );
    assert_eq!(
        get.response(&PromptResult::user("Say hello to Ada."))
            .as_str(),
        r#"{"jsonrpc":"2.0","id":6,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Say hello to Ada."}}]}}"#
    );
}

#[test]
fn unknown_resources_and_prompts_and_missing_arguments_are_jsonrpc_errors() {
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docs://nope"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found: docs://nope"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"logs://a/b"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"Resource not found: logs://a/b"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read"}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: resources/read needs params"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"nope"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: prompt 'nope' not found"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet","arguments":{"tone":"warm"}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: prompt 'greet' needs the argument name"}}"#,
        ),
    ];
    for (message, expected) in cases {
        let McpRoute::Reply(body) = lib(message) else {
            panic!("{message}")
        };
        assert_eq!(body.as_str(), expected);
    }
    // A server that declares none has no such methods.
    for method in [
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
    ] {
        let message = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"{method}","params":{{}}}}"#);
        let body = reply(route(&calc(), "calc", raw(&message).as_str()));
        assert_eq!(body["error"]["code"], -32601, "{method}");
    }
}
