//! In-process ("SDK") MCP servers: declarations, JSON-RPC routing, and tool results
//! (PROTOCOL-REFERENCE §6).
//!
//! CONTRACT (used by `session`, `options` and `client`; flesh out, keep the names and signatures):
//! - `McpServerSpec` / `ToolSpec`: what the host declares; pure data.
//! - `route(servers, server_name, message) -> McpRoute`: answers initialize, notifications, ping,
//!   tools/list and errors itself (`McpRoute::Reply`), surfaces `tools/call` as `McpRoute::ToolCall`.
//! - `ToolResult` + `ToolCall::response(&ToolResult)`: the JSON-RPC response for a finished call.

mod jsonrpc;
mod result;
mod route;
mod server;

pub use result::{ToolContent, ToolResult};
pub(crate) use route::is_tools_list;
pub use route::{route, McpRoute, ToolCall, PROTOCOL_VERSION};
pub use server::{McpServerSpec, ToolAnnotations, ToolMeta, ToolSpec};
