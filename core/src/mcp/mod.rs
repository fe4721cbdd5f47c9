//! In-process ("SDK") MCP servers: declarations, JSON-RPC routing, and tool results.
//!
//! CONTRACT (used by `session`, `options` and `client`; flesh out, keep the names and signatures):
//! - `McpServerSpec` / `ToolSpec`: what the host declares; pure data.
//! - `route(servers, server_name, message) -> McpRoute`: answers initialize, notifications, ping,
//!   tools/list and errors itself (`McpRoute::Reply`), surfaces `tools/call` as `McpRoute::ToolCall`.
//! - `ToolResult` + `ToolCall::response(&ToolResult)`: the JSON-RPC response for a finished call.

use serde::Serialize;
use serde_json::value::RawValue;

/// An in-process MCP server the host serves through the control protocol.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct McpServerSpec {
    /// Server name; the CLI names its tools `mcp__<name>__<tool>`.
    pub name: String,
    /// Version reported in the MCP `initialize` answer.
    pub version: String,
    /// The tools it offers.
    pub tools: Vec<ToolSpec>,
}

/// One tool of an [`McpServerSpec`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolSpec {
    /// Tool name within its server.
    pub name: String,
    /// What the tool does, shown to the model.
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Box<RawValue>,
}

/// What [`route`] decided about one JSON-RPC message from the CLI.
#[derive(Debug)]
#[non_exhaustive]
pub enum McpRoute {
    /// Answer at once with this JSON-RPC message (the `mcp_response` body).
    Reply(Box<RawValue>),
    /// A `tools/call` the host must run.
    ToolCall(ToolCall),
}

/// A `tools/call` request for a declared tool.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolCall {
    /// Server name.
    pub server: String,
    /// Tool name within the server.
    pub tool: String,
    /// The arguments object.
    pub arguments: Box<RawValue>,
    /// The JSON-RPC id to answer with.
    pub jsonrpc_id: Box<RawValue>,
}

impl ToolCall {
    /// The JSON-RPC response (the `mcp_response` body) carrying `result`.
    pub fn response(&self, result: &ToolResult) -> Box<RawValue> {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": &*self.jsonrpc_id, "result": result});
        serde_json::value::to_raw_value(&body).expect("a JSON value always serializes")
    }
}

/// The result of a tool call.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ToolResult {
    /// Content blocks (text, image, …) as MCP content JSON.
    pub content: Vec<serde_json::Value>,
    /// Whether the tool failed.
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// Route one JSON-RPC message the CLI sent to the in-process server `server_name`.
pub fn route(servers: &[McpServerSpec], server_name: &str, message: &RawValue) -> McpRoute {
    let _ = (servers, server_name, message);
    McpRoute::Reply(RawValue::from_string("{}".into()).expect("valid"))
}

// ---- TEMPORARY SHIM (client branch): constructors the client layer uses; replaced on merge. ----
impl McpServerSpec {
    /// Shim.
    pub fn new(name: impl Into<String>, version: impl Into<String>, tools: Vec<ToolSpec>) -> Self {
        McpServerSpec {
            name: name.into(),
            version: version.into(),
            tools,
        }
    }
}
impl ToolSpec {
    /// Shim.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Box<RawValue>,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema,
        }
    }
}
impl ToolResult {
    /// Shim.
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![serde_json::json!({"type":"text","text":text.into()})],
            is_error: false,
        }
    }
    /// Shim.
    pub fn error(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![serde_json::json!({"type":"text","text":text.into()})],
            is_error: true,
        }
    }
}
