use super::*;
use crate::mcp::ToolAnnotations;
use crate::test_fixtures::recorded_exchanges;
use serde_json::Value;

#[derive(Deserialize)]
struct McpMessage {
    server_name: String,
    message: Box<RawValue>,
}

#[derive(Deserialize)]
struct McpReply {
    mcp_response: Box<RawValue>,
}

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).unwrap()
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
        McpRoute::Reply(body) => value(body.get()),
        McpRoute::ToolCall(call) => panic!("expected a reply, got {call:?}"),
    }
}

fn route_json(servers: &[McpServerSpec], message: &str) -> McpRoute {
    route(servers, "calc", &raw(message))
}

#[test]
fn replays_the_recorded_sdk_mcp_session() {
    let servers = calc();
    let exchanges = recorded_exchanges("sdk_mcp", "mcp_message");
    assert_eq!(exchanges.len(), 4);
    let mut tool_calls = 0;
    for (request, recorded) in exchanges {
        let request: McpMessage = serde_json::from_str(request.get()).unwrap();
        let recorded: McpReply = serde_json::from_str(recorded.get()).unwrap();
        let ours = match route(&servers, &request.server_name, &request.message) {
            McpRoute::Reply(body) => body,
            McpRoute::ToolCall(call) => {
                tool_calls += 1;
                assert_eq!((call.server.as_str(), call.tool.as_str()), ("calc", "add"));
                assert_eq!(call.arguments.get(), r#"{"a":2,"b":40}"#);
                assert_eq!(call.jsonrpc_id.get(), "2");
                assert_eq!(call.tool_use_id.as_deref(), Some("toolu_fake_6_0"));
                assert_eq!(call.progress_token.as_ref().map(|t| t.get()), Some("2"));
                call.response(&ToolResult::text("42"))
            }
        };
        assert_eq!(
            value(ours.get()),
            value(recorded.mcp_response.get()),
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
    assert_eq!(call.arguments.get(), "{}");
    assert_eq!(call.jsonrpc_id.get(), r#""c1""#);
    assert_eq!(call.tool_use_id, None);
    assert_eq!(
        value(call.response(&ToolResult::error("x")).get()),
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
                &raw(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#),
            ),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Server 'nope' not found"}}"#,
        ),
        (
            route(
                &servers,
                "nope",
                &raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
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
