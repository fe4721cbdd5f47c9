//! In-process MCP servers: tools whose handlers are async Rust closures.
//!
//! The session answers the MCP handshake and `tools/list` itself from the declared
//! [`crate::mcp::McpServerSpec`]; only `tools/call` reaches the handlers here.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::control::Reply;
use crate::mcp::{McpServerSpec, PromptGet, ResourceRead, ToolAnnotations, ToolResult, ToolSpec};
use crate::process::runtime::BoxFuture;
use crate::Json;

mod arguments;
mod extras;

use arguments::ArgumentCheck;
pub use extras::{prompt_template, resource, resource_template, SdkPrompt, SdkResource};

type ToolFn = Arc<dyn Fn(Json) -> BoxFuture<'static, ToolResult> + Send + Sync>;

/// The error type tool handlers may return; it becomes an `isError` tool result.
pub type ToolError = Box<dyn std::error::Error + Send + Sync>;

/// What a tool's handler is: a function or closure taking the arguments (`Args`) and returning a
/// future of `Result<ToolResult, E>`, where `E` converts into a [`ToolError`] (`String`, `&str`,
/// any `std::error::Error`). Every such function implements it; there is nothing to implement.
///
/// It lets `typed_tool` (feature `schemars`) take the argument type as its only type parameter, so that
/// `typed_tool::<Args>(…)` names it, and a closure's argument type is still inferred:
///
/// ```
/// # use claude_agent_tokio::{mcp::typed_tool, mcp::ToolHandler};
/// # use claude_agent_tokio::mcp::ToolResult;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Echo {
///     text: String,
/// }
///
/// // An async fn is a handler…
/// async fn echo(args: Echo) -> Result<ToolResult, std::io::Error> {
///     Ok(ToolResult::text(args.text))
/// }
/// let by_fn = typed_tool("echo", "Repeat the text", echo);
/// // …and so is a closure, its argument's type given by the turbofish.
/// let by_closure = typed_tool::<Echo>("echo", "Repeat the text", |args| async move {
///     Ok::<_, String>(ToolResult::text(args.text))
/// });
///
/// fn takes_a_handler(_handler: impl ToolHandler<Echo>) {}
/// takes_a_handler(echo);
/// # let _ = (by_fn, by_closure);
/// ```
pub trait ToolHandler<Args>:
    Fn(Args) -> <Self as ToolHandler<Args>>::Future + Send + Sync + 'static
{
    /// The handler's error type.
    type Error: Into<ToolError>;
    /// The future the handler returns.
    type Future: Future<Output = Result<ToolResult, Self::Error>> + Send + 'static;
}

impl<Args, F, Fut, E> ToolHandler<Args> for F
where
    F: Fn(Args) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, E>> + Send + 'static,
    E: Into<ToolError>,
{
    type Error = E;
    type Future = Fut;
}

/// An in-process MCP server: a name, a version and its tools.
///
/// ```
/// # use claude_agent_tokio::{mcp::tool, mcp::SdkMcpServer};
/// # use claude_agent_tokio::mcp::ToolResult;
/// let server = SdkMcpServer::new("calc", "1.0.0").tool(tool(
///     "echo",
///     "Repeat the text",
///     serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}}),
///     |args| async move { Ok::<_, String>(ToolResult::text(args["text"].to_string())) },
/// ));
/// assert_eq!(server.name(), "calc");
/// assert_eq!(server.tools()[0].name(), "echo");
/// ```
#[derive(Clone)]
pub struct SdkMcpServer {
    name: String,
    version: String,
    instructions: Option<String>,
    always_load: bool,
    tools: Vec<SdkTool>,
    resources: Vec<SdkResource>,
    prompts: Vec<SdkPrompt>,
}

impl SdkMcpServer {
    /// A server with no tools yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        SdkMcpServer {
            name: name.into(),
            version: version.into(),
            instructions: None,
            always_load: false,
            tools: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
        }
    }

    /// Add a tool (made with [`tool`] or `typed_tool`).
    pub fn tool(mut self, tool: SdkTool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Add a resource (made with [`resource`] or [`resource_template`]). The server then
    /// declares the MCP `resources` capability and answers `resources/list`,
    /// `resources/templates/list` and `resources/read`.
    ///
    /// ```
    /// # use claude_agent_tokio::{mcp::resource, mcp::SdkMcpServer};
    /// # use claude_agent_tokio::mcp::ResourceResult;
    /// let server = SdkMcpServer::new("docs", "1.0.0").resource(resource(
    ///     "docs://faq",
    ///     "FAQ",
    ///     |read| async move { Ok::<_, String>(ResourceResult::text(read.uri, "Q: …")) },
    /// ));
    /// assert!(server.spec().has_resources());
    /// ```
    pub fn resource(mut self, resource: SdkResource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Add a prompt (made with [`prompt_template`]). The server then declares the MCP `prompts`
    /// capability and answers `prompts/list` and `prompts/get` (which CLI 2.1.330 does not ask
    /// an in-process server; see [`prompt_template`]).
    ///
    /// ```
    /// # use claude_agent_tokio::{mcp::prompt_template, mcp::SdkMcpServer};
    /// # use claude_agent_tokio::mcp::PromptResult;
    /// let server = SdkMcpServer::new("team", "1.0.0").prompt(prompt_template(
    ///     "standup",
    ///     "Write today's standup note",
    ///     |_get| async { Ok::<_, String>(PromptResult::user("Summarise what changed since yesterday.")) },
    /// ));
    /// assert_eq!(server.spec().prompts[0].name, "standup");
    /// ```
    pub fn prompt(mut self, prompt: SdkPrompt) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Instructions for the model about the server as a whole, sent in the server's MCP
    /// `initialize` answer. The CLI hands them to the model under "MCP Server Instructions",
    /// headed by the server's name.
    ///
    /// ```
    /// # use claude_agent_tokio::mcp::SdkMcpServer;
    /// let server = SdkMcpServer::new("orders", "1.0.0")
    ///     .instructions("Look an order up before changing it; amounts are in cents.");
    /// assert_eq!(server.spec().instructions.as_deref(), Some("Look an order up before changing it; amounts are in cents."));
    /// ```
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Every tool of the server is always offered to the model, none deferred behind the CLI's
    /// tool search: as [`SdkTool::always_load`] on each tool.
    ///
    /// ```
    /// # use claude_agent_tokio::{mcp::tool, mcp::SdkMcpServer};
    /// # use claude_agent_tokio::mcp::ToolResult;
    /// let server = SdkMcpServer::new("clock", "1.0.0")
    ///     .tool(tool("now", "The time", serde_json::json!({"type": "object"}), |_args| async {
    ///         Ok::<_, String>(ToolResult::text("12:00"))
    ///     }))
    ///     .always_load();
    /// assert!(server.spec().tools[0].meta.always_load);
    /// ```
    pub fn always_load(mut self) -> Self {
        self.always_load = true;
        self
    }

    /// The server's name; the model sees its tools as `mcp__<name>__<tool>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server's tools, in the order they were added.
    pub fn tools(&self) -> &[SdkTool] {
        &self.tools
    }

    /// What the CLI is told about the server: its version, instructions and each tool's name,
    /// description, JSON Schema, annotations and `_meta`, as the session serves them.
    ///
    /// ```
    /// # use claude_agent_tokio::{mcp::tool, mcp::SdkMcpServer};
    /// # use claude_agent_tokio::mcp::ToolResult;
    /// let server = SdkMcpServer::new("calc", "2.0.0").tool(tool(
    ///     "add",
    ///     "Add two numbers",
    ///     serde_json::json!({"type": "object"}),
    ///     |_args| async { Ok::<_, String>(ToolResult::text("0")) },
    /// ));
    /// let spec = server.spec();
    /// assert_eq!((spec.version.as_str(), spec.tools[0].name.as_str()), ("2.0.0", "add"));
    /// ```
    pub fn spec(&self) -> McpServerSpec {
        let mut spec = McpServerSpec::new(self.name.clone(), self.version.clone());
        spec.instructions = self.instructions.clone();
        for resource in &self.resources {
            if let Some(fixed) = resource.fixed() {
                spec = spec.resource(fixed.clone());
            }
            if let Some(template) = resource.template() {
                spec = spec.resource_template(template.clone());
            }
        }
        for prompt in &self.prompts {
            spec = spec.prompt(prompt.spec.clone());
        }
        self.tools.iter().fold(spec, |spec, t| {
            let mut tool = t.spec.clone();
            tool.meta.always_load |= self.always_load;
            spec.tool(tool)
        })
    }

    /// The future of a call of `tool`'s handler; `None` when there is no such tool.
    pub(crate) fn call(
        &self,
        tool: &str,
        arguments: Json,
    ) -> Option<BoxFuture<'static, ToolResult>> {
        let found = self.tools.iter().find(|t| t.spec.name == tool)?;
        Some((found.handler)(arguments))
    }

    /// The reply to a `resources/read` of one of the servers: the contents, or an error.
    pub(crate) fn read(servers: &[SdkMcpServer], read: ResourceRead) -> BoxFuture<'static, Reply> {
        let server = servers.iter().find(|s| s.name == read.server);
        extras::read(server.map_or(&[], |s| &s.resources), read)
    }

    /// The reply to a `prompts/get` of one of the servers: the messages, or an error.
    pub(crate) fn get(servers: &[SdkMcpServer], get: PromptGet) -> BoxFuture<'static, Reply> {
        let server = servers.iter().find(|s| s.name == get.server);
        extras::get(server.map_or(&[], |s| &s.prompts), get)
    }
}

impl fmt::Debug for SdkMcpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|t| t.spec.name.as_str()).collect();
        f.debug_struct("SdkMcpServer")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("instructions", &self.instructions)
            .field("always_load", &self.always_load)
            .field("tools", &tools)
            .field("resources", &self.resources)
            .field("prompts", &self.prompts)
            .finish()
    }
}

/// One tool of an [`SdkMcpServer`]: its declaration and its handler.
///
/// Made by [`tool`] or `typed_tool`; the builder methods add what the CLI is told about the
/// tool besides its name, description and schema: MCP annotations (`title`, `readOnlyHint`,
/// `destructiveHint`, `idempotentHint`, `openWorldHint`) and Claude Code's `_meta` keys
/// (`anthropic/alwaysLoad`, `anthropic/searchHint`, `anthropic/maxResultSizeChars`).
///
/// ```
/// # use claude_agent_tokio::mcp::tool;
/// # use claude_agent_tokio::mcp::ToolResult;
/// let lookup = tool(
///     "lookup_order",
///     "Find an order by its number",
///     serde_json::json!({"type": "object", "properties": {"number": {"type": "integer"}}, "required": ["number"]}),
///     |args| async move { Ok::<_, String>(ToolResult::text(format!("order {}: shipped", args["number"]))) },
/// )
/// .title("Look up an order")
/// .read_only_hint(true)
/// .destructive_hint(false)
/// .idempotent_hint(true)
/// .open_world_hint(false)
/// .search_hint("order status shipping tracking")
/// .max_result_size_chars(200_000)
/// .always_load();
/// assert_eq!(lookup.name(), "lookup_order");
/// let wire = serde_json::to_value(lookup.spec()).unwrap();
/// assert_eq!(
///     wire["annotations"],
///     serde_json::json!({"title": "Look up an order", "readOnlyHint": true, "destructiveHint": false,
///         "idempotentHint": true, "openWorldHint": false})
/// );
/// assert_eq!(wire["_meta"]["anthropic/alwaysLoad"], true);
/// ```
#[derive(Clone)]
pub struct SdkTool {
    spec: ToolSpec,
    handler: ToolFn,
}

/// How long an in-process tool call may run unless the tool says otherwise
/// ([`SdkTool::timeout`]): ten minutes, as long as the CLI lets a foreground `Bash` command run.
/// The session's own default ([`ToolSpec::timeout`]).
pub const DEFAULT_TOOL_TIMEOUT: Duration = claude_agent_core::mcp::DEFAULT_TOOL_TIMEOUT;

impl SdkTool {
    /// The tool's name within its server.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The JSON Schema of the tool's arguments, as the CLI (and so the model) gets it: the one
    /// given to [`tool`], or the one `typed_tool` derived.
    ///
    /// ```
    /// # use claude_agent_tokio::mcp::typed_tool;
    /// # use claude_agent_tokio::mcp::ToolResult;
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Add {
    ///     /// The first number.
    ///     a: f64,
    ///     b: f64,
    /// }
    /// let add = typed_tool::<Add>("add", "Add two numbers", |args| async move {
    ///     Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
    /// });
    /// let schema: serde_json::Value = serde_json::from_str(add.input_schema().as_str()).unwrap();
    /// assert_eq!(schema["properties"]["a"]["type"], "number");
    /// assert_eq!(schema["properties"]["a"]["description"], "The first number.");
    /// assert_eq!(schema["required"], serde_json::json!(["a", "b"]));
    /// ```
    pub fn input_schema(&self) -> &Json {
        &self.spec.input_schema
    }

    /// The tool as the CLI is told about it: an entry of the server's `tools/list` answer.
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Sets every MCP annotation at once (`annotations` of `tools/list`), replacing any set
    /// before.
    ///
    /// ```
    /// # use claude_agent_tokio::mcp::tool;
    /// # use claude_agent_tokio::mcp::{ToolAnnotations, ToolResult};
    /// let delete = tool("delete", "Delete a file", serde_json::json!({"type": "object"}), |_args| async {
    ///     Ok::<_, String>(ToolResult::text("deleted"))
    /// })
    /// .annotations(ToolAnnotations { destructive_hint: Some(true), ..Default::default() });
    /// assert_eq!(delete.spec().annotations.as_ref().unwrap().destructive_hint, Some(true));
    /// ```
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.spec.annotations = Some(annotations);
        self
    }

    /// A name for people (`annotations.title`); the CLI shows it in place of the tool's name.
    pub fn title(self, title: impl Into<String>) -> Self {
        let title = Some(title.into());
        self.annotate(|a| a.title = title)
    }

    /// Whether the tool changes nothing (`annotations.readOnlyHint`). The CLI runs read-only
    /// tools alongside each other, and treats them as reads in its permission modes.
    pub fn read_only_hint(self, read_only: bool) -> Self {
        self.annotate(|a| a.read_only_hint = Some(read_only))
    }

    /// Whether the tool may destroy or overwrite data (`annotations.destructiveHint`).
    pub fn destructive_hint(self, destructive: bool) -> Self {
        self.annotate(|a| a.destructive_hint = Some(destructive))
    }

    /// Whether calling the tool again with the same arguments does nothing more
    /// (`annotations.idempotentHint`).
    pub fn idempotent_hint(self, idempotent: bool) -> Self {
        self.annotate(|a| a.idempotent_hint = Some(idempotent))
    }

    /// Whether the tool reaches systems outside the host (`annotations.openWorldHint`).
    pub fn open_world_hint(self, open_world: bool) -> Self {
        self.annotate(|a| a.open_world_hint = Some(open_world))
    }

    /// Words the CLI's tool search matches the tool by, besides its name and description
    /// (`_meta["anthropic/searchHint"]`): when the CLI defers the server's tools behind its
    /// `ToolSearch` tool, a search for any of these words finds this one.
    pub fn search_hint(mut self, hint: impl Into<String>) -> Self {
        self.spec = self.spec.search_hint(hint);
        self
    }

    /// Always offer the tool to the model, never deferred behind the CLI's tool search
    /// (`_meta["anthropic/alwaysLoad"]`). By default the CLI offers an MCP server's tools by name
    /// only, and the model loads a tool's schema with `ToolSearch` before calling it.
    pub fn always_load(mut self) -> Self {
        self.spec = self.spec.always_load();
        self
    }

    /// Results up to this many characters go to the model whole
    /// (`_meta["anthropic/maxResultSizeChars"]`); a longer one is saved to a file and the model
    /// gets a preview and the file's path. The CLI's own limit for MCP tools is 50,000
    /// characters; it takes this value up to 500,000.
    pub fn max_result_size_chars(mut self, chars: u64) -> Self {
        self.spec = self.spec.max_result_size_chars(chars);
        self
    }

    /// How long a call may run (default [`DEFAULT_TOOL_TIMEOUT`]),
    /// counted from when the session read it. A call still running then is stopped (its future
    /// dropped) and the model gets an `isError` result saying so; what the handler would have
    /// returned later is never sent. The session keeps the time ([`ToolSpec::timeout`]).
    ///
    /// ```
    /// # use claude_agent_tokio::mcp::tool;
    /// # use claude_agent_tokio::mcp::ToolResult;
    /// use std::time::Duration;
    ///
    /// let lookup = tool("lookup", "Look a word up", serde_json::json!({"type": "object"}), |_args| async {
    ///     Ok::<_, String>(ToolResult::text("found"))
    /// })
    /// .timeout(Duration::from_secs(30));
    /// assert_eq!(lookup.get_timeout(), Some(Duration::from_secs(30)));
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.spec.timeout = Some(timeout);
        self
    }

    /// Lets calls run for as long as they take (until the CLI cancels them).
    ///
    /// ```
    /// # use claude_agent_tokio::mcp::tool;
    /// # use claude_agent_tokio::mcp::ToolResult;
    /// let build = tool("build", "Build the project", serde_json::json!({"type": "object"}), |_args| async {
    ///     Ok::<_, String>(ToolResult::text("built"))
    /// })
    /// .without_timeout();
    /// assert_eq!(build.get_timeout(), None);
    /// ```
    pub fn without_timeout(mut self) -> Self {
        self.spec.timeout = None;
        self
    }

    /// How long a call may run; `None` without a limit.
    ///
    /// ```
    /// # use claude_agent_tokio::{mcp::tool, mcp::DEFAULT_TOOL_TIMEOUT};
    /// # use claude_agent_tokio::mcp::ToolResult;
    /// let echo = tool("echo", "Echo", serde_json::json!({"type": "object"}), |args| async move {
    ///     Ok::<_, String>(ToolResult::text(args.to_string()))
    /// });
    /// assert_eq!(echo.get_timeout(), Some(DEFAULT_TOOL_TIMEOUT));
    /// ```
    pub fn get_timeout(&self) -> Option<Duration> {
        self.spec.timeout
    }

    fn annotate(mut self, set: impl FnOnce(&mut ToolAnnotations)) -> Self {
        set(self.spec.annotations.get_or_insert_with(Default::default));
        self
    }
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
/// With the `jsonschema` feature (on by default) the arguments of each call are checked against
/// the schema before the handler runs: a call that does not fit gets an `isError` result naming
/// what is wrong (`Invalid arguments for tool add: /b: "x" is not of type "number"`), which the
/// model sees, and the handler is not called. A schema that is not a valid JSON Schema makes every
/// call such an error. The handler's `Err` becomes an `isError` result carrying the error text.
///
/// ```
/// # use claude_agent_tokio::mcp::tool;
/// # use claude_agent_tokio::mcp::ToolResult;
/// let greet = tool(
///     "greet",
///     "Say hello",
///     serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
///     |args| async move { Ok::<_, String>(ToolResult::text(format!("hello {}", args["name"]))) },
/// );
/// # let _ = greet;
/// ```
pub fn tool(
    name: impl Into<String>,
    description: impl Into<String>,
    input_schema: serde_json::Value,
    handler: impl ToolHandler<serde_json::Value>,
) -> SdkTool {
    let name = name.into();
    let check = ArgumentCheck::new(&name, &input_schema);
    let handler: ToolFn = Arc::new(move |raw: Json| {
        let args = match serde_json::from_str::<serde_json::Value>(raw.as_str()) {
            Ok(args) => args,
            Err(e) => return ready_error(format!("invalid arguments: {e}")),
        };
        match check.check(&args) {
            Ok(()) => finish(handler(args)),
            Err(message) => ready_error(message),
        }
    });
    let schema = Json::from_serialize(&input_schema).unwrap_or_else(|_| empty_schema());
    SdkTool {
        spec: ToolSpec::new(name, description, schema),
        handler,
    }
}

/// A tool whose arguments are a Rust type: the JSON Schema is derived from `Args` with
/// `schemars`, and the arguments are deserialized before the handler runs. Arguments that do not
/// fit the schema (with the `jsonschema` feature, as for [`tool`]) or `Args` give an `isError`
/// result without calling the handler.
///
/// `Args` is the function's only type parameter: give it with a turbofish, or as the type of
/// the closure's argument.
///
/// ```
/// # use claude_agent_tokio::mcp::typed_tool;
/// # use claude_agent_tokio::mcp::ToolResult;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: f64, b: f64 }
///
/// let add = typed_tool("add", "Add two numbers", |args: Add| async move {
///     Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
/// });
/// let same = typed_tool::<Add>("add", "Add two numbers", |args| async move {
///     Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
/// });
/// # let _ = (add, same);
/// ```
#[cfg(feature = "schemars")]
pub fn typed_tool<Args>(
    name: impl Into<String>,
    description: impl Into<String>,
    handler: impl ToolHandler<Args>,
) -> SdkTool
where
    Args: serde::de::DeserializeOwned + schemars::JsonSchema + 'static,
{
    let name = name.into();
    let mut schema = schemars::schema_for!(Args);
    schema.remove("$schema");
    let check = ArgumentCheck::new(&name, schema.as_value());
    let schema = Json::from_serialize(&schema).unwrap_or_else(|_| empty_schema());
    let handler: ToolFn = Arc::new(move |raw: Json| {
        if let Err(message) = check.check_raw(raw.as_raw()) {
            return ready_error(message);
        }
        match serde_json::from_str::<Args>(raw.as_str()) {
            Ok(args) => finish(handler(args)),
            Err(e) => ready_error(format!("invalid arguments: {e}")),
        }
    });
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

fn empty_schema() -> Json {
    r#"{"type":"object"}"#.parse().expect("a constant JSON object")
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_lite::future::block_on;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn call(server: &SdkMcpServer, tool: &str, args: &str) -> ToolResult {
        let args = Json::try_from(args.to_owned()).unwrap();
        block_on(server.call(tool, args).expect("a declared tool"))
    }

    fn adder(calls: Arc<AtomicUsize>) -> SdkMcpServer {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number", "minimum": 0}},
            "required": ["a", "b"],
            "additionalProperties": false
        });
        SdkMcpServer::new("calc", "1.0.0").tool(tool("add", "Add", schema, move |args| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move {
                let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
                Ok::<_, String>(ToolResult::text(sum.to_string()))
            }
        }))
    }

    #[cfg(feature = "jsonschema")]
    #[test]
    fn arguments_that_do_not_fit_the_schema_are_a_tool_error_and_the_handler_does_not_run() {
        let calls = Arc::new(AtomicUsize::new(0));
        let server = adder(calls.clone());
        let cases = [
            (
                r#"{"a":1,"b":"x"}"#,
                r#"Invalid arguments for tool add: /b: "x" is not of type "number""#,
            ),
            (
                r#"{"a":1}"#,
                r#"Invalid arguments for tool add: "b" is a required property"#,
            ),
            (
                r#"{"a":1,"b":-2}"#,
                "Invalid arguments for tool add: /b: -2 is less than the minimum of 0",
            ),
            (
                r#"{"a":1,"b":2,"c":3}"#,
                "Invalid arguments for tool add: Additional properties are not allowed ('c' was unexpected)",
            ),
        ];
        for (args, expected) in cases {
            assert_eq!(
                call(&server, "add", args),
                ToolResult::error(expected),
                "{args}"
            );
        }
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert_eq!(
            call(&server, "add", r#"{"a":1,"b":2}"#),
            ToolResult::text("3")
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[cfg(feature = "jsonschema")]
    #[test]
    fn every_problem_is_named_up_to_five() {
        let server = adder(Arc::new(AtomicUsize::new(0)));
        let ToolResult { content, .. } = call(&server, "add", r#"{"a":"1","b":"2"}"#);
        let crate::mcp::ToolContent::Text { text } = &content[0] else {
            panic!("{content:?}")
        };
        assert_eq!(
            text,
            r#"Invalid arguments for tool add: /a: "1" is not of type "number"; /b: "2" is not of type "number""#
        );
    }

    #[cfg(feature = "jsonschema")]
    #[test]
    fn a_schema_that_is_not_json_schema_makes_every_call_an_error() {
        let server = SdkMcpServer::new("s", "1").tool(tool(
            "t",
            "d",
            json!({"type": "objekt"}),
            |_args| async { Ok::<_, String>(ToolResult::text("ran")) },
        ));
        let result = call(&server, "t", "{}");
        assert!(result.is_error, "{result:?}");
        let crate::mcp::ToolContent::Text { text } = &result.content[0] else {
            panic!("{result:?}")
        };
        assert!(
            text.starts_with("The input schema of tool t is not a valid JSON Schema: "),
            "{text}"
        );
    }

    #[cfg(not(feature = "jsonschema"))]
    #[test]
    fn without_the_jsonschema_feature_the_handler_gets_any_arguments() {
        let calls = Arc::new(AtomicUsize::new(0));
        let server = adder(calls.clone());
        assert_eq!(call(&server, "add", r#"{"a":1}"#), ToolResult::text("1"));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[cfg(all(feature = "schemars", feature = "jsonschema"))]
    #[test]
    fn a_typed_tool_checks_its_derived_schema_before_deserializing() {
        /// Operands.
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        struct Operands {
            a: u8,
            b: u8,
        }
        let server = SdkMcpServer::new("calc", "1.0.0").tool(typed_tool::<Operands>(
            "add",
            "Add",
            |args| async move { Ok::<_, String>(ToolResult::text((args.a + args.b).to_string())) },
        ));
        assert_eq!(
            call(&server, "add", r#"{"a":1,"b":2}"#),
            ToolResult::text("3")
        );
        assert_eq!(
            call(&server, "add", r#"{"a":1,"b":300}"#),
            ToolResult::error(
                "Invalid arguments for tool add: /b: 300 is greater than the maximum of 255"
            )
        );
    }

    #[test]
    fn options_of_a_tool_and_its_server_reach_the_tools_list_entry() {
        let bare = |name: &str| {
            tool(name, "d", json!({"type": "object"}), |_args| async {
                Ok::<_, String>(ToolResult::text(""))
            })
        };
        let plain = bare("plain");
        let dressed = bare("dressed")
            .title("Dressed")
            .read_only_hint(true)
            .destructive_hint(false)
            .idempotent_hint(true)
            .open_world_hint(false)
            .search_hint("fancy")
            .max_result_size_chars(1000);
        let spec = SdkMcpServer::new("s", "1")
            .tool(plain)
            .tool(dressed)
            .instructions("be nice")
            .always_load()
            .spec();
        assert_eq!(spec.instructions.as_deref(), Some("be nice"));
        let wire = serde_json::to_value(&spec.tools).unwrap();
        assert_eq!(
            wire,
            json!([
                {"name": "plain", "description": "d", "inputSchema": {"type": "object"},
                 "_meta": {"anthropic/alwaysLoad": true}},
                {"name": "dressed", "description": "d", "inputSchema": {"type": "object"},
                 "annotations": {"title": "Dressed", "readOnlyHint": true, "destructiveHint": false,
                                 "idempotentHint": true, "openWorldHint": false},
                 "_meta": {"anthropic/searchHint": "fancy", "anthropic/alwaysLoad": true,
                           "anthropic/maxResultSizeChars": 1000}}
            ])
        );
    }
}
