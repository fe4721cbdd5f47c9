//! Resources and prompts of an in-process MCP server: their declarations and their async
//! handlers.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use super::{BoxFuture, ToolError};
use crate::control::Reply;
use crate::mcp::{
    PromptArgument, PromptGet, PromptResult, PromptSpec, ResourceRead, ResourceResult,
    ResourceSpec, ResourceTemplateSpec,
};

type Answer<T> = BoxFuture<'static, Result<T, String>>;
type ResourceFn = Arc<dyn Fn(ResourceRead) -> Answer<ResourceResult> + Send + Sync>;
type PromptFn = Arc<dyn Fn(PromptGet) -> Answer<PromptResult> + Send + Sync>;

/// A resource of an [`SdkMcpServer`](super::SdkMcpServer): a fixed URI ([`resource`]) or a
/// URI template ([`resource_template`]), and the handler that reads it.
///
/// ```
/// # use claude_agent_tokio::{mcp::resource, mcp::SdkMcpServer};
/// # use claude_agent_tokio::mcp::ResourceResult;
/// let readme = resource("docs://readme", "README", |read| async move {
///     Ok::<_, String>(ResourceResult::text(read.uri, "# Orders service\nAmounts are in cents."))
/// })
/// .title("Orders service guide")
/// .description("How to use the orders service")
/// .mime_type("text/markdown");
/// let server = SdkMcpServer::new("docs", "1.0.0").resource(readme);
/// assert_eq!(server.spec().resources[0].uri, "docs://readme");
/// ```
#[derive(Clone)]
pub struct SdkResource {
    declared: Declared,
    handler: ResourceFn,
}

#[derive(Clone, Debug)]
enum Declared {
    Fixed(ResourceSpec),
    Template(ResourceTemplateSpec),
}

impl SdkResource {
    /// A name for people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        let title = Some(title.into());
        match &mut self.declared {
            Declared::Fixed(spec) => spec.title = title,
            Declared::Template(spec) => spec.title = title,
        }
        self
    }

    /// What the resource is.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        let description = Some(description.into());
        match &mut self.declared {
            Declared::Fixed(spec) => spec.description = description,
            Declared::Template(spec) => spec.description = description,
        }
        self
    }

    /// Its type, e.g. `text/markdown`.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        let mime_type = Some(mime_type.into());
        match &mut self.declared {
            Declared::Fixed(spec) => spec.mime_type = mime_type,
            Declared::Template(spec) => spec.mime_type = mime_type,
        }
        self
    }

    /// The resource at a fixed URI, as declared.
    pub(super) fn fixed(&self) -> Option<&ResourceSpec> {
        match &self.declared {
            Declared::Fixed(spec) => Some(spec),
            Declared::Template(_) => None,
        }
    }

    /// The resource template, as declared.
    pub(super) fn template(&self) -> Option<&ResourceTemplateSpec> {
        match &self.declared {
            Declared::Template(spec) => Some(spec),
            Declared::Fixed(_) => None,
        }
    }

    /// Whether this resource answers `read`.
    fn answers(&self, read: &ResourceRead) -> bool {
        match (&self.declared, &read.template) {
            (Declared::Fixed(spec), None) => spec.uri == read.uri,
            (Declared::Template(spec), Some(template)) => spec.uri_template == *template,
            _ => false,
        }
    }
}

impl fmt::Debug for SdkResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkResource")
            .field("declared", &self.declared)
            .finish_non_exhaustive()
    }
}

/// A resource at a fixed URI; `handler` reads it when the CLI asks (`resources/read`), and gets
/// the request ([`ResourceRead`]: the URI). Its `Err` is a JSON-RPC error the CLI reports.
///
/// The model lists and reads a server's resources with the CLI's own `ListMcpResourcesTool` and
/// `ReadMcpResourceTool` tools; the handler's error, or a URI the server does not declare
/// (`Resource not found: …`), reaches the model as the read's error.
///
/// ```
/// # use claude_agent_tokio::{mcp::resource, mcp::SdkMcpServer};
/// # use claude_agent_tokio::mcp::ResourceResult;
/// let schema = resource("db://schema", "Database schema", |read| async move {
///     Ok::<_, std::io::Error>(ResourceResult::text(read.uri, "CREATE TABLE orders (id INTEGER)"))
/// })
/// .mime_type("text/x-sql");
/// let server = SdkMcpServer::new("db", "1.0.0").resource(schema);
/// # let _ = server;
/// ```
pub fn resource<F, Fut, E>(
    uri: impl Into<String>,
    name: impl Into<String>,
    handler: F,
) -> SdkResource
where
    F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ResourceResult, E>> + Send + 'static,
    E: Into<ToolError>,
{
    SdkResource {
        declared: Declared::Fixed(ResourceSpec::new(uri, name)),
        handler: Arc::new(move |read| answer(handler(read))),
    }
}

/// Resources whose URIs fit a URI template, such as `logs://{day}` (`{name}` stands for text
/// without `/`, `?` or `#`, `{+name}` for any text); `handler` reads the one the CLI asks for,
/// and gets the URI and the template's variables in it ([`ResourceRead::variables`]).
///
/// ```
/// # use claude_agent_tokio::{mcp::resource_template, mcp::SdkMcpServer};
/// # use claude_agent_tokio::mcp::ResourceResult;
/// let logs = resource_template("logs://{day}", "Log of a day", |read| async move {
///     let day = &read.variables["day"];
///     Ok::<_, String>(ResourceResult::text(&read.uri, format!("nothing happened on {day}")))
/// });
/// let server = SdkMcpServer::new("logs", "1.0.0").resource(logs);
/// assert_eq!(server.spec().resource_templates[0].uri_template, "logs://{day}");
/// ```
pub fn resource_template<F, Fut, E>(
    uri_template: impl Into<String>,
    name: impl Into<String>,
    handler: F,
) -> SdkResource
where
    F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ResourceResult, E>> + Send + 'static,
    E: Into<ToolError>,
{
    SdkResource {
        declared: Declared::Template(ResourceTemplateSpec::new(uri_template, name)),
        handler: Arc::new(move |read| answer(handler(read))),
    }
}

/// A prompt of an [`SdkMcpServer`](super::SdkMcpServer): its declaration and the handler that
/// turns its arguments into messages. Made by [`prompt_template`].
///
/// ```
/// # use claude_agent_tokio::mcp::prompt_template;
/// # use claude_agent_tokio::mcp::PromptResult;
/// let release_notes = prompt_template("release_notes", "Draft release notes", |get| async move {
///     let since = get.arguments.get("since").map_or("the last tag", String::as_str);
///     Ok::<_, String>(PromptResult::user(format!("Draft release notes for the changes since {since}.")))
/// })
/// .title("Release notes")
/// .argument("audience", "Who reads them: users or developers")
/// .optional_argument("since", "A tag or commit to start from");
/// assert_eq!(format!("{release_notes:?}"), r#"SdkPrompt { name: "release_notes", .. }"#);
/// ```
#[derive(Clone)]
pub struct SdkPrompt {
    pub(super) spec: PromptSpec,
    handler: PromptFn,
}

impl SdkPrompt {
    /// A name for people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.spec.title = Some(title.into());
        self
    }

    /// Adds an argument the prompt needs; a `prompts/get` without it is refused before the
    /// handler runs. Arguments are listed in the order they are added.
    pub fn argument(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        let argument = PromptArgument::required(name).with_description(description);
        self.spec.arguments.push(argument);
        self
    }

    /// Adds an argument that may be left out.
    pub fn optional_argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        let argument = PromptArgument::optional(name).with_description(description);
        self.spec.arguments.push(argument);
        self
    }
}

impl fmt::Debug for SdkPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkPrompt")
            .field("name", &self.spec.name)
            .finish_non_exhaustive()
    }
}

/// A prompt: `handler` gets its arguments ([`PromptGet::arguments`]) and returns the messages it
/// stands for ([`PromptResult`]); its `Err` is a JSON-RPC error.
///
/// Claude Code offers the prompts of MCP servers as slash commands (`/mcp__<server>__<name>`,
/// arguments after it), but CLI 2.1.330 never asks an in-process server for its prompts (it
/// lists only their tools and reads their resources), so with that CLI they are served only to
/// a client that asks.
///
/// ```
/// # use claude_agent_tokio::{mcp::prompt_template, mcp::SdkMcpServer};
/// # use claude_agent_tokio::mcp::PromptResult;
/// let review = prompt_template("review", "Review a file", |get| async move {
///     let file = &get.arguments["file"];
///     Ok::<_, String>(PromptResult::user(format!("Review {file} for error handling.")))
/// })
/// .argument("file", "The file to review");
/// let server = SdkMcpServer::new("team", "1.0.0").prompt(review);
/// assert_eq!(server.spec().prompts[0].arguments[0].name, "file");
/// ```
pub fn prompt_template<F, Fut, E>(
    name: impl Into<String>,
    description: impl Into<String>,
    handler: F,
) -> SdkPrompt
where
    F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<PromptResult, E>> + Send + 'static,
    E: Into<ToolError>,
{
    SdkPrompt {
        spec: PromptSpec::new(name).with_description(description),
        handler: Arc::new(move |get| answer(handler(get))),
    }
}

fn answer<T, Fut, E>(fut: Fut) -> Answer<T>
where
    Fut: Future<Output = Result<T, E>> + Send + 'static,
    E: Into<ToolError>,
{
    Box::pin(async move { fut.await.map_err(|e| e.into().to_string()) })
}

/// The reply to `read`: the contents from the handler of the resource it names, or an error.
pub(super) fn read(resources: &[SdkResource], read: ResourceRead) -> BoxFuture<'static, Reply> {
    match resources.iter().find(|r| r.answers(&read)) {
        Some(found) => {
            let contents = (found.handler)(read);
            Box::pin(async move { contents.await.map_or_else(Reply::error, Reply::Resource) })
        }
        None => ready_error(format!("no handler for resource {}", read.uri)),
    }
}

/// The reply to `get`: the messages from the handler of the prompt it names, or an error.
pub(super) fn get(prompts: &[SdkPrompt], get: PromptGet) -> BoxFuture<'static, Reply> {
    match prompts.iter().find(|p| p.spec.name == get.name) {
        Some(found) => {
            let messages = (found.handler)(get);
            Box::pin(async move { messages.await.map_or_else(Reply::error, Reply::Prompt) })
        }
        None => ready_error(format!("no handler for prompt {}", get.name)),
    }
}

fn ready_error(message: String) -> BoxFuture<'static, Reply> {
    Box::pin(std::future::ready(Reply::error(message)))
}
