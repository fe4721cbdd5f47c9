//! In-process MCP servers: tools whose handlers are async Rust closures.
//!
//! The session answers the MCP handshake and `tools/list` itself from the declared
//! [`crate::mcp::McpServerSpec`]; only `tools/call` reaches the handlers here.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::runtime::BoxFuture;
use crate::mcp::{McpServerSpec, ToolResult, ToolSpec};

type ToolFn = Arc<dyn Fn(Box<RawValue>) -> BoxFuture<'static, ToolResult> + Send + Sync>;

/// The error type tool handlers may return; it becomes an `isError` tool result.
pub type ToolError = Box<dyn std::error::Error + Send + Sync>;

/// An in-process MCP server: a name, a version and its tools.
///
/// ```
/// # use claude_agent_core::client::{tool, SdkMcpServer};
/// # use claude_agent_core::mcp::ToolResult;
/// let server = SdkMcpServer::new("calc", "1.0.0").tool(tool(
///     "echo",
///     "Repeat the text",
///     serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}}),
///     |args| async move { Ok::<_, String>(ToolResult::text(args["text"].to_string())) },
/// ));
/// assert_eq!(server.name(), "calc");
/// ```
#[derive(Clone)]
pub struct SdkMcpServer {
    name: String,
    version: String,
    tools: Vec<SdkTool>,
}

impl SdkMcpServer {
    /// A server with no tools yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        SdkMcpServer {
            name: name.into(),
            version: version.into(),
            tools: Vec::new(),
        }
    }

    /// Add a tool (made with [`tool`] or [`typed_tool`]).
    pub fn tool(mut self, tool: SdkTool) -> Self {
        self.tools.push(tool);
        self
    }

    /// The server's name; the model sees its tools as `mcp__<name>__<tool>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the session must know: names, descriptions, schemas.
    pub(crate) fn spec(&self) -> McpServerSpec {
        let spec = McpServerSpec::new(self.name.clone(), self.version.clone());
        self.tools
            .iter()
            .fold(spec, |spec, t| spec.tool(t.spec.clone()))
    }

    /// Run the handler of `tool`, or an error result when there is no such tool.
    pub(crate) fn call(
        &self,
        tool: &str,
        arguments: Box<RawValue>,
    ) -> Option<BoxFuture<'static, ToolResult>> {
        let found = self.tools.iter().find(|t| t.spec.name == tool)?;
        Some((found.handler)(arguments))
    }
}

impl fmt::Debug for SdkMcpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|t| t.spec.name.as_str()).collect();
        f.debug_struct("SdkMcpServer")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("tools", &tools)
            .finish()
    }
}

/// One tool of an [`SdkMcpServer`]: its declaration and its handler.
///
/// Made with [`tool`] (JSON arguments, a hand-written schema) or `typed_tool` (arguments of a
/// Rust type, with the `schemars` feature):
///
/// ```
/// use claude_agent_core::client::{tool, SdkMcpServer, SdkTool};
/// use claude_agent_core::mcp::ToolResult;
///
/// fn word_count() -> SdkTool {
///     tool(
///         "word_count",
///         "Count the words of a text",
///         serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///         |args| async move {
///             let text = args["text"].as_str().ok_or("text must be a string")?;
///             Ok::<_, &str>(ToolResult::text(text.split_whitespace().count().to_string()))
///         },
///     )
/// }
/// let server = SdkMcpServer::new("text", "1.0.0").tool(word_count());
/// assert!(format!("{server:?}").contains("word_count"));
/// ```
#[derive(Clone)]
pub struct SdkTool {
    spec: ToolSpec,
    handler: ToolFn,
}

impl fmt::Debug for SdkTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkTool")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
}

/// A tool taking its arguments as JSON, with a hand-written JSON Schema.
///
/// The handler's `Err` becomes a result with `isError: true` carrying the error text, which the
/// model sees; a schema that is not valid JSON is replaced by an empty object schema.
///
/// ```
/// # use claude_agent_core::client::tool;
/// # use claude_agent_core::mcp::ToolResult;
/// let greet = tool("greet", "Say hello", serde_json::json!({"type": "object"}), |_args| async {
///     Ok::<_, String>(ToolResult::text("hello"))
/// });
/// # let _ = greet;
/// ```
pub fn tool<F, Fut, E>(
    name: impl Into<String>,
    description: impl Into<String>,
    input_schema: serde_json::Value,
    handler: F,
) -> SdkTool
where
    F: Fn(serde_json::Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, E>> + Send + 'static,
    E: Into<ToolError>,
{
    let handler: ToolFn = Arc::new(move |raw: Box<RawValue>| {
        match serde_json::from_str::<serde_json::Value>(raw.get()) {
            Ok(args) => finish(handler(args)),
            Err(e) => ready_error(format!("invalid arguments: {e}")),
        }
    });
    let schema = serde_json::value::to_raw_value(&input_schema).unwrap_or_else(|_| empty_schema());
    SdkTool {
        spec: ToolSpec::new(name, description, schema),
        handler,
    }
}

/// A tool whose arguments are a Rust type: the JSON Schema is derived from `Args` with
/// `schemars`, and the arguments are deserialized before the handler runs. Arguments that do not
/// fit `Args` give an `isError` result without calling the handler.
///
/// ```
/// # use claude_agent_core::client::typed_tool;
/// # use claude_agent_core::mcp::ToolResult;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: f64, b: f64 }
///
/// let add = typed_tool("add", "Add two numbers", |args: Add| async move {
///     Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
/// });
/// # let _ = add;
/// ```
#[cfg(feature = "schemars")]
pub fn typed_tool<Args, F, Fut, E>(
    name: impl Into<String>,
    description: impl Into<String>,
    handler: F,
) -> SdkTool
where
    Args: serde::de::DeserializeOwned + schemars::JsonSchema + 'static,
    F: Fn(Args) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, E>> + Send + 'static,
    E: Into<ToolError>,
{
    let mut schema = schemars::schema_for!(Args);
    schema.remove("$schema");
    let schema = serde_json::value::to_raw_value(&schema).unwrap_or_else(|_| empty_schema());
    let handler: ToolFn =
        Arc::new(
            move |raw: Box<RawValue>| match serde_json::from_str::<Args>(raw.get()) {
                Ok(args) => finish(handler(args)),
                Err(e) => ready_error(format!("invalid arguments: {e}")),
            },
        );
    SdkTool {
        spec: ToolSpec::new(name, description, schema),
        handler,
    }
}

fn finish<Fut, E>(fut: Fut) -> BoxFuture<'static, ToolResult>
where
    Fut: Future<Output = Result<ToolResult, E>> + Send + 'static,
    E: Into<ToolError>,
{
    Box::pin(async move {
        match fut.await {
            Ok(result) => result,
            Err(e) => ToolResult::error(e.into().to_string()),
        }
    })
}

fn ready_error(message: String) -> BoxFuture<'static, ToolResult> {
    Box::pin(std::future::ready(ToolResult::error(message)))
}

fn empty_schema() -> Box<RawValue> {
    RawValue::from_string(r#"{"type":"object"}"#.to_owned()).expect("a constant JSON object")
}
