//! `route`: answering the CLI's JSON-RPC messages to an in-process server.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::jsonrpc::{self, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND};
use super::{McpServerSpec, ToolResult, ToolSpec};

/// The MCP protocol version the servers answer `initialize` with. It is the version the real CLI
/// (2.1.330, which asks for `2025-11-25`) was answered with in the recordings, and every field
/// the servers send is valid in it.
pub const PROTOCOL_VERSION: &str = "2024-11-05";

/// What [`route`] decided about one JSON-RPC message from the CLI.
///
/// ```
/// use claude_agent_core::mcp::{route, McpRoute, McpServerSpec, ToolResult, ToolSpec};
/// use serde_json::value::RawValue;
///
/// let schema = RawValue::from_string(r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}"#.into()).unwrap();
/// let servers = [McpServerSpec::new("calc", "1.0.0").tool(ToolSpec::new("add", "Add two numbers", schema))];
///
/// // The `tools/call` a real CLI sent when the model called `mcp__calc__add`:
/// let message = RawValue::from_string(
///     r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"claudecode/toolUseId":"toolu_fake_6_0","progressToken":2}},"jsonrpc":"2.0","id":2}"#.into(),
/// )
/// .unwrap();
/// let answer = match route(&servers, "calc", &message) {
///     McpRoute::Reply(reply) => reply, // handshake, tools/list, errors: answered already
///     McpRoute::ToolCall(call) => {
///         #[derive(serde::Deserialize)]
///         struct Add {
///             a: f64,
///             b: f64,
///         }
///         let args: Add = serde_json::from_str(call.arguments.get()).unwrap();
///         call.response(&ToolResult::text((args.a + args.b).to_string()))
///     }
///     _ => unreachable!(),
/// };
/// assert_eq!(answer.get(), r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"42"}]}}"#);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum McpRoute {
    /// Answer at once with this JSON-RPC message (the `mcp_response` body).
    Reply(Box<RawValue>),
    /// A `tools/call` the host must run; answer with [`ToolCall::response`].
    ToolCall(ToolCall),
}

/// A `tools/call` request for a declared tool.
///
/// ```
/// use claude_agent_core::mcp::{route, McpRoute, McpServerSpec, ToolResult, ToolSpec};
/// use serde_json::value::RawValue;
///
/// let schema = RawValue::from_string(r#"{"type":"object"}"#.into()).unwrap();
/// let servers = [McpServerSpec::new("calc", "1.0.0").tool(ToolSpec::new("add", "Add two numbers", schema))];
/// let message = RawValue::from_string(
///     r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"claudecode/toolUseId":"toolu_fake_6_0","progressToken":2}},"jsonrpc":"2.0","id":2}"#.into(),
/// )
/// .unwrap();
/// let McpRoute::ToolCall(call) = route(&servers, "calc", &message) else { panic!("not a tool call") };
/// assert_eq!((call.server.as_str(), call.tool.as_str()), ("calc", "add"));
/// assert_eq!(call.arguments.get(), r#"{"a":2,"b":40}"#);
/// assert_eq!(call.tool_use_id.as_deref(), Some("toolu_fake_6_0"));
/// assert_eq!(call.jsonrpc_id.get(), "2");
///
/// // A tool failure is a result with `isError`, still inside a JSON-RPC success:
/// let answer = call.response(&ToolResult::error("b must not be 40"));
/// assert_eq!(
///     answer.get(),
///     r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"b must not be 40"}],"isError":true}}"#
/// );
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolCall {
    /// Server name.
    pub server: String,
    /// Tool name within the server.
    pub tool: String,
    /// The arguments object (`{}` when the CLI sent none).
    pub arguments: Box<RawValue>,
    /// The JSON-RPC id to answer with.
    pub jsonrpc_id: Box<RawValue>,
    /// The `tool_use` block this call runs (`_meta["claudecode/toolUseId"]`).
    pub tool_use_id: Option<String>,
    /// The MCP progress token (`_meta.progressToken`), for progress notifications.
    pub progress_token: Option<Box<RawValue>>,
}

impl ToolCall {
    /// The JSON-RPC response (the `mcp_response` body) carrying `result`.
    pub fn response(&self, result: &ToolResult) -> Box<RawValue> {
        jsonrpc::result(&self.jsonrpc_id, result)
    }
}

/// The fields of a JSON-RPC message that routing looks at.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Box<RawValue>>,
    #[serde(default, rename = "_meta")]
    meta: Option<CallMeta>,
}

#[derive(Deserialize)]
struct CallMeta {
    #[serde(default, rename = "claudecode/toolUseId")]
    tool_use_id: Option<String>,
    #[serde(default, rename = "progressToken")]
    progress_token: Option<Box<RawValue>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult<'a> {
    protocol_version: &'static str,
    capabilities: Capabilities,
    server_info: ServerInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

#[derive(Serialize)]
struct Capabilities {
    tools: Empty,
}

#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
struct ServerInfo<'a> {
    name: &'a str,
    version: &'a str,
}

#[derive(Serialize)]
struct ToolsList<'a> {
    tools: &'a [ToolSpec],
}

/// Whether a JSON-RPC message of the CLI asks for a server's tools: the last step of the CLI
/// connecting an in-process server.
pub(crate) fn is_tools_list(message: &RawValue) -> bool {
    serde_json::from_str::<Incoming<'_>>(message.get())
        .is_ok_and(|incoming| incoming.method.as_deref() == Some("tools/list"))
}

/// Routes one JSON-RPC message the CLI sent (an `mcp_message` control request) to the in-process
/// server `server_name`. The CLI is the MCP client; each answer goes back as the `mcp_response`
/// of a successful control response, even an error.
///
/// Answers by itself: `initialize`, notifications (any message without an `id`), `ping`,
/// `tools/list`, a `tools/call` of an unknown tool (an `isError` tool result), unknown methods
/// (`-32601 Method not found: X`), an unknown server (`-32601 Server 'n' not found`) and messages
/// that are not JSON-RPC (`-32600`). Only a `tools/call` of a declared tool is left to the host,
/// as [`McpRoute::ToolCall`]. Never panics.
///
/// ```
/// # use claude_agent_core::mcp::{route, McpRoute, McpServerSpec};
/// # use serde_json::value::RawValue;
/// let servers = [McpServerSpec::new("calc", "1.0.0")];
/// let ping = RawValue::from_string(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#.into()).unwrap();
/// let McpRoute::Reply(reply) = route(&servers, "calc", &ping) else { unreachable!() };
/// assert_eq!(reply.get(), r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
/// ```
pub fn route(servers: &[McpServerSpec], server_name: &str, message: &RawValue) -> McpRoute {
    // Only an object is a JSON-RPC message (serde would also read a struct from an array).
    let parsed = if message.get().trim_start().starts_with('{') {
        serde_json::from_str::<Incoming<'_>>(message.get()).ok()
    } else {
        None
    };
    let Some(incoming) = parsed else {
        return McpRoute::Reply(jsonrpc::error(None, INVALID_REQUEST, "Invalid Request"));
    };
    let Some(server) = servers.iter().find(|s| s.name == server_name) else {
        let text = format!("Server '{server_name}' not found");
        return McpRoute::Reply(jsonrpc::error(incoming.id, METHOD_NOT_FOUND, &text));
    };
    let Some(method) = incoming.method else {
        // A response to a request of ours (we send none) is acknowledged; anything else is invalid.
        return McpRoute::Reply(if incoming.result.is_some() || incoming.error.is_some() {
            jsonrpc::notification_ack()
        } else {
            jsonrpc::error(incoming.id, INVALID_REQUEST, "Invalid Request: no method")
        });
    };
    let Some(id) = incoming.id else {
        return McpRoute::Reply(jsonrpc::notification_ack());
    };
    McpRoute::Reply(match &*method {
        "initialize" => jsonrpc::result(
            id,
            &InitializeResult {
                protocol_version: PROTOCOL_VERSION,
                capabilities: Capabilities { tools: Empty {} },
                server_info: ServerInfo {
                    name: &server.name,
                    version: &server.version,
                },
                instructions: server.instructions.as_deref(),
            },
        ),
        "ping" => jsonrpc::empty_result(id),
        "tools/list" => jsonrpc::result(
            id,
            &ToolsList {
                tools: &server.tools,
            },
        ),
        "tools/call" => return tool_call(server, id, incoming.params),
        other => jsonrpc::error(
            Some(id),
            METHOD_NOT_FOUND,
            &format!("Method not found: {other}"),
        ),
    })
}

/// A `tools/call`: a [`ToolCall`] for a declared tool, a reply otherwise.
fn tool_call(server: &McpServerSpec, id: &RawValue, params: Option<&RawValue>) -> McpRoute {
    let parsed = match params.map(|p| serde_json::from_str::<CallParams<'_>>(p.get())) {
        Some(Ok(parsed)) => parsed,
        Some(Err(e)) => {
            let text = format!("Invalid params: {e}");
            return McpRoute::Reply(jsonrpc::error(Some(id), INVALID_PARAMS, &text));
        }
        None => {
            let text = "Invalid params: tools/call needs params";
            return McpRoute::Reply(jsonrpc::error(Some(id), INVALID_PARAMS, text));
        }
    };
    if server.find_tool(&parsed.name).is_none() {
        let result = ToolResult::error(format!("Tool '{}' not found", parsed.name));
        return McpRoute::Reply(jsonrpc::result(id, &result));
    }
    let arguments = match parsed.arguments {
        Some(arguments) if arguments.get() != "null" => arguments,
        _ => jsonrpc::to_raw(&Empty {}),
    };
    let meta = parsed.meta.unwrap_or(CallMeta {
        tool_use_id: None,
        progress_token: None,
    });
    McpRoute::ToolCall(ToolCall {
        server: server.name.clone(),
        tool: parsed.name.into_owned(),
        arguments,
        jsonrpc_id: id.to_owned(),
        tool_use_id: meta.tool_use_id,
        progress_token: meta.progress_token,
    })
}

#[cfg(test)]
mod tests;
