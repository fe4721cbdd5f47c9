//! In-process MCP tools whose handlers are plain closures.

use std::sync::Arc;

use claude_agent_client::mcp::{SdkPrompt, SdkResource, SdkTool, ToolError};
use claude_agent_core::mcp::{PromptGet, PromptResult, ResourceRead, ResourceResult, ToolResult};

/// What a blocking tool's handler is: a function or closure taking the arguments (`Args`) and
/// returning `Result<ToolResult, E>`, where `E` converts into a [`ToolError`] (`String`, `&str`,
/// any `std::error::Error`). Every such function implements it; there is nothing to implement.
///
/// It lets [`typed_tool`] take the argument type as its only type parameter, so that
/// `typed_tool::<Args>(…)` names it and a closure's argument type is still inferred.
///
/// ```
/// use claude_agent_blocking::mcp::ToolResult;
/// use claude_agent_blocking::mcp::{typed_tool, BlockingToolHandler};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Echo {
///     text: String,
/// }
///
/// fn echo(args: Echo) -> Result<ToolResult, std::io::Error> {
///     Ok(ToolResult::text(args.text))
/// }
/// let by_fn = typed_tool("echo", "Repeat the text", echo);
/// let by_closure = typed_tool::<Echo>("echo", "Repeat the text", |args| {
///     Ok::<_, String>(ToolResult::text(args.text))
/// });
///
/// fn takes_a_handler(_handler: impl BlockingToolHandler<Echo>) {}
/// takes_a_handler(echo);
/// # let _ = (by_fn, by_closure);
/// ```
pub trait BlockingToolHandler<Args>:
    Fn(Args) -> Result<ToolResult, <Self as BlockingToolHandler<Args>>::Error> + Send + Sync + 'static
{
    /// The handler's error type.
    type Error: Into<ToolError> + Send + 'static;
}

impl<Args, F, E> BlockingToolHandler<Args> for F
where
    F: Fn(Args) -> Result<ToolResult, E> + Send + Sync + 'static,
    E: Into<ToolError> + Send + 'static,
{
    type Error = E;
}

/// A tool of an in-process MCP server ([`SdkMcpServer`](crate::mcp::SdkMcpServer)) taking its
/// arguments as JSON, with a hand-written JSON Schema; the handler is a plain closure.
///
/// Each call runs on a thread of smol's `blocking` pool, so the handler may block (read files,
/// call a service). Its `Err` becomes a result with `isError: true` carrying the error text,
/// which the model sees; a panic does too. With the `jsonschema` feature (on by default) the
/// arguments are checked against the schema first, as `claude_agent_client::mcp::tool` does;
/// the [`SdkTool`] builder methods add annotations and Claude Code's tool options. A call that
/// runs past the tool's time limit ([`SdkTool::timeout`]) or that the CLI cancels gets its
/// answer at once, but a thread cannot be stopped from outside: the closure runs to its end on
/// its thread, and what it returns is dropped.
///
/// ```
/// use claude_agent_blocking::mcp::ToolResult;
/// use claude_agent_blocking::Options;
/// use claude_agent_blocking::mcp::{tool, SdkMcpServer};
/// use serde_json::json;
///
/// let files = SdkMcpServer::new("files", "1.0").tool(tool(
///     "size",
///     "The size of a file in bytes",
///     json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
///     |args| {
///         let path = args["path"].as_str().unwrap_or_default();
///         let size = std::fs::metadata(path)?.len();
///         Ok::<_, std::io::Error>(ToolResult::text(size.to_string()))
///     },
/// ));
/// // The model calls it as `mcp__files__size`.
/// let options = Options::new().sdk_mcp_server(files).allowed_tools(["mcp__files__size"]);
/// # let _ = options;
/// ```
pub fn tool(
    name: impl Into<String>,
    description: impl Into<String>,
    input_schema: serde_json::Value,
    handler: impl BlockingToolHandler<serde_json::Value>,
) -> SdkTool {
    let handler = Arc::new(handler);
    claude_agent_client::mcp::tool(name, description, input_schema, move |args| {
        let handler = handler.clone();
        smol::unblock(move || handler(args))
    })
}

/// A tool whose arguments are a Rust type: the JSON Schema is derived from `Args` with
/// `schemars`, and the arguments are deserialized before the plain-closure handler runs.
/// Arguments that do not fit `Args` give an `isError` result without calling it. Otherwise as
/// [`tool`]. `Args` is the only type parameter: give it with a turbofish
/// (`typed_tool::<Add>(…)`) or as the type of the closure's argument.
///
/// ```
/// use claude_agent_blocking::mcp::ToolResult;
/// use claude_agent_blocking::mcp::{typed_tool, SdkMcpServer};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add {
///     /// The first number.
///     a: f64,
///     /// The second number.
///     b: f64,
/// }
///
/// let calc = SdkMcpServer::new("calc", "1.0").tool(typed_tool("add", "Add two numbers", |args: Add| {
///     Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
/// }));
/// # let _ = calc;
/// ```
#[cfg(feature = "schemars")]
pub fn typed_tool<Args>(
    name: impl Into<String>,
    description: impl Into<String>,
    handler: impl BlockingToolHandler<Args>,
) -> SdkTool
where
    Args: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
{
    let handler = Arc::new(handler);
    claude_agent_client::mcp::typed_tool(name, description, move |args: Args| {
        let handler = handler.clone();
        smol::unblock(move || handler(args))
    })
}

/// A resource at a fixed URI of an in-process MCP server; the plain-closure `handler` reads it
/// when the CLI asks, on a thread of smol's `blocking` pool, and gets the request (the URI).
/// Its `Err` is the read's error. Otherwise as `claude_agent_client::mcp::resource`.
///
/// ```
/// use claude_agent_blocking::mcp::ResourceResult;
/// use claude_agent_blocking::mcp::{resource, SdkMcpServer};
///
/// let notes = resource("notes://today", "Today's notes", |read| {
///     let text = std::fs::read_to_string("notes.md")?;
///     Ok::<_, std::io::Error>(ResourceResult::text(read.uri, text))
/// })
/// .mime_type("text/markdown");
/// let server = SdkMcpServer::new("notes", "1.0").resource(notes);
/// # let _ = server;
/// ```
pub fn resource<F, E>(uri: impl Into<String>, name: impl Into<String>, handler: F) -> SdkResource
where
    F: Fn(ResourceRead) -> Result<ResourceResult, E> + Send + Sync + 'static,
    E: Into<ToolError> + Send + 'static,
{
    let handler = Arc::new(handler);
    claude_agent_client::mcp::resource(uri, name, move |read| {
        let handler = handler.clone();
        smol::unblock(move || handler(read))
    })
}

/// Resources whose URIs fit a URI template (`logs://{day}`); the plain-closure `handler` reads
/// the one the CLI asks for, on a thread of smol's `blocking` pool, and gets the URI and the
/// template's variables. Otherwise as `claude_agent_client::mcp::resource_template`.
///
/// ```
/// use claude_agent_blocking::mcp::ResourceResult;
/// use claude_agent_blocking::mcp::{resource_template, SdkMcpServer};
///
/// let logs = resource_template("logs://{day}", "Log of a day", |read| {
///     let text = std::fs::read_to_string(format!("logs/{}.log", read.variables["day"]))?;
///     Ok::<_, std::io::Error>(ResourceResult::text(read.uri, text))
/// });
/// let server = SdkMcpServer::new("logs", "1.0").resource(logs);
/// # let _ = server;
/// ```
pub fn resource_template<F, E>(
    uri_template: impl Into<String>,
    name: impl Into<String>,
    handler: F,
) -> SdkResource
where
    F: Fn(ResourceRead) -> Result<ResourceResult, E> + Send + Sync + 'static,
    E: Into<ToolError> + Send + 'static,
{
    let handler = Arc::new(handler);
    claude_agent_client::mcp::resource_template(uri_template, name, move |read| {
        let handler = handler.clone();
        smol::unblock(move || handler(read))
    })
}

/// A prompt of an in-process MCP server; the plain-closure `handler` turns its arguments into
/// messages, on a thread of smol's `blocking` pool. Otherwise as
/// `claude_agent_client::mcp::prompt_template`, whose docs say what CLI 2.1.330 does with the
/// prompts of in-process servers.
///
/// ```
/// use claude_agent_blocking::mcp::PromptResult;
/// use claude_agent_blocking::mcp::{prompt_template, SdkMcpServer};
///
/// let review = prompt_template("review", "Review a file", |get| {
///     Ok::<_, String>(PromptResult::user(format!("Review {}.", get.arguments["file"])))
/// })
/// .argument("file", "The file to review");
/// let server = SdkMcpServer::new("team", "1.0").prompt(review);
/// # let _ = server;
/// ```
pub fn prompt_template<F, E>(
    name: impl Into<String>,
    description: impl Into<String>,
    handler: F,
) -> SdkPrompt
where
    F: Fn(PromptGet) -> Result<PromptResult, E> + Send + Sync + 'static,
    E: Into<ToolError> + Send + 'static,
{
    let handler = Arc::new(handler);
    claude_agent_client::mcp::prompt_template(name, description, move |get| {
        let handler = handler.clone();
        smol::unblock(move || handler(get))
    })
}
