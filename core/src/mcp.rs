//! In-process ("SDK") MCP servers: tools the model can call whose code runs in the host process.
//!
//! In the runtime crates a server is built with `SdkMcpServer` and `tool`/`typed_tool`, and
//! registered with `Options::sdk_mcp_server`; the model sees its tools as
//! `mcp__<server>__<tool>`. A tool's handler is a plain function of its arguments, which a test
//! can call as it is:
//!
//! ```
//! use claude_agent_tokio::mcp::{McpServerSpec, ToolResult, ToolSpec};
//!
//! /// The handler of `add`: its arguments are an object that fits the schema below.
//! fn add(args: &serde_json::Value) -> ToolResult {
//!     let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
//!     ToolResult::text(sum.to_string())
//! }
//!
//! let schema = serde_json::json!({
//!     "type": "object",
//!     "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
//!     "required": ["a", "b"]
//! });
//! // What the server declares to the CLI:
//! let calc = McpServerSpec::new("calc", "1.0.0").tool(ToolSpec::new("add", "Add two numbers", schema));
//! assert!(calc.find_tool("add").is_some());
//! assert_eq!(add(&serde_json::json!({"a": 2, "b": 40})), ToolResult::text("42"));
//! ```
//!
//! This module holds the sans-IO part: what a server declares ([`McpServerSpec`], [`ToolSpec`],
//! [`ResourceSpec`], [`ResourceTemplateSpec`], [`PromptSpec`]), what the host answers with
//! ([`ToolResult`], [`ResourceResult`], [`PromptResult`]), and [`route`], which answers the CLI's
//! JSON-RPC messages (handshake, the lists, errors) by itself and leaves to the host only a
//! `tools/call` of a declared tool ([`ToolCall`]), a `resources/read` of a declared resource
//! ([`ResourceRead`]) and a `prompts/get` of a declared prompt ([`PromptGet`]). The messages
//! travel inside `mcp_message` control requests; see "In-process MCP servers" in
//! `docs/PROTOCOL.md` in the repository.

mod elicitation;
mod jsonrpc;
mod prompt;
mod resource;
mod result;
mod route;
mod server;
mod uri_template;

pub use elicitation::{ElicitationAction, ElicitationRequest, ElicitationResult};
pub(crate) use jsonrpc::result;
pub use prompt::{PromptMessage, PromptResult, PromptRole};
pub use resource::{ResourceContents, ResourceResult};
pub use result::{ToolContent, ToolResult};
pub(crate) use route::{cancelled_request, is_tools_list};
pub use route::{route, McpRoute, PromptGet, ResourceRead, ToolCall, PROTOCOL_VERSION};
pub use server::{
    McpServerSpec, PromptArgument, PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolAnnotations,
    ToolMeta, ToolSpec, DEFAULT_TOOL_TIMEOUT,
};
