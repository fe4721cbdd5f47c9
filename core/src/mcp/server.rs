//! What the host declares: in-process MCP servers and their tools.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::Json;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// An in-process MCP server the host serves through the control protocol.
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::{McpServerSpec, ToolSpec};
/// let schema = r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#.parse::<Json>().unwrap();
/// let calc = McpServerSpec::new("calc", "1.0.0")
///     .tool(ToolSpec::new("add", "add two numbers", schema))
///     .with_instructions("Use `add` for arithmetic instead of working sums out yourself.");
/// assert_eq!(calc.tools[0].name, "add");
/// assert!(calc.find_tool("add").is_some());
/// assert!(calc.find_tool("sub").is_none());
/// ```
///
/// Resources and prompts:
///
/// ```
/// # use claude_agent_tokio::mcp::{McpServerSpec, PromptSpec, ResourceSpec, ResourceTemplateSpec};
/// let docs = McpServerSpec::new("docs", "1.0.0")
///     .resource(ResourceSpec::new("docs://faq", "FAQ"))
///     .resource_template(ResourceTemplateSpec::new("docs://pages/{slug}", "A page"))
///     .prompt(PromptSpec::new("summarise"));
/// assert!(docs.has_resources());
/// assert!(docs.find_prompt("summarise").is_some());
/// ```
///
/// In the runtime crates, `SdkMcpServer` builds one of these from its tools and their
/// handlers; this type is what a [`Session`](crate::session::Session) needs to answer the
/// CLI's handshake and `tools/list` by itself.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpServerSpec {
    /// Server name; the CLI names its tools `mcp__<name>__<tool>`.
    pub name: String,
    /// Version reported in the MCP `initialize` answer.
    pub version: String,
    /// The tools it offers.
    pub tools: Vec<ToolSpec>,
    /// Instructions for the model, sent in the `initialize` answer.
    pub instructions: Option<String>,
    /// Resources at fixed URIs (`resources/list`).
    pub resources: Vec<ResourceSpec>,
    /// Resources whose URIs fit a template (`resources/templates/list`).
    pub resource_templates: Vec<ResourceTemplateSpec>,
    /// Prompts (`prompts/list`).
    pub prompts: Vec<PromptSpec>,
}

impl McpServerSpec {
    /// A server with no tools yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        McpServerSpec {
            name: name.into(),
            version: version.into(),
            tools: Vec::new(),
            instructions: None,
            resources: Vec::new(),
            resource_templates: Vec::new(),
            prompts: Vec::new(),
        }
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: ToolSpec) -> Self {
        self.tools.push(tool);
        self
    }

    /// Sets the instructions for the model.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds a resource at a fixed URI.
    pub fn resource(mut self, resource: ResourceSpec) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds a resource template.
    pub fn resource_template(mut self, template: ResourceTemplateSpec) -> Self {
        self.resource_templates.push(template);
        self
    }

    /// Adds a prompt.
    pub fn prompt(mut self, prompt: PromptSpec) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// The tool named `name`.
    pub fn find_tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// The prompt named `name`.
    pub fn find_prompt(&self, name: &str) -> Option<&PromptSpec> {
        self.prompts.iter().find(|prompt| prompt.name == name)
    }

    /// Whether the server offers resources: it declares the `resources` capability then.
    pub fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.resource_templates.is_empty()
    }
}

/// A resource at a fixed URI. Serializes as an entry of the MCP `resources/list` answer.
///
/// ```
/// # use claude_agent_tokio::mcp::ResourceSpec;
/// let readme = ResourceSpec::new("docs://readme", "README")
///     .with_description("How to use the service")
///     .with_mime_type("text/markdown");
/// assert_eq!(readme.clone().with_title("Read me").title.as_deref(), Some("Read me"));
/// assert_eq!(
///     serde_json::to_string(&readme).unwrap(),
///     r#"{"uri":"docs://readme","name":"README","description":"How to use the service","mimeType":"text/markdown"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceSpec {
    /// Its URI, which `resources/read` names.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its type, e.g. `text/markdown`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl ResourceSpec {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceSpec {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }
    }

    /// Sets the name for people.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets what it is.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets its type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// Resources whose URIs fit a URI template, such as `logs://{day}`. Serializes as an entry of
/// the MCP `resources/templates/list` answer.
///
/// A `resources/read` of a URI that fits the template is the template's: `{name}` stands for
/// any text without `/`, `?` or `#`, and `{+name}` for any text at all (the simple and the
/// reserved expansions of RFC 6570, one variable each).
///
/// ```
/// # use claude_agent_tokio::mcp::ResourceTemplateSpec;
/// let logs = ResourceTemplateSpec::new("logs://{day}", "Log of a day").with_mime_type("text/plain");
/// let titled = logs.clone().with_title("Daily log").with_description("What happened that day");
/// assert_eq!(titled.title.as_deref(), Some("Daily log"));
/// assert_eq!(
///     serde_json::to_string(&logs).unwrap(),
///     r#"{"uriTemplate":"logs://{day}","name":"Log of a day","mimeType":"text/plain"}"#
/// );
/// assert_eq!(logs.fit("logs://2026-01-31").unwrap()["day"], "2026-01-31");
/// assert!(logs.fit("files://x").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplateSpec {
    /// The URI template.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Their type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl ResourceTemplateSpec {
    /// A template with a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplateSpec {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }
    }

    /// Sets the name for people.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets what the resources are.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets their type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The template's variables in `uri`, if `uri` fits the template.
    pub fn fit(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        super::uri_template::fit(&self.uri_template, uri)
    }
}

/// A prompt: a named message template with arguments, which an MCP client gets with
/// `prompts/get`. Serializes as an entry of the MCP `prompts/list` answer.
///
/// Claude Code offers the prompts of MCP servers as slash commands (`/mcp__<server>__<name>`,
/// arguments after it), but CLI 2.1.330 never asks an in-process server for its prompts (it
/// lists only their tools and reads their resources), so with that CLI they are served only to
/// a client that asks.
///
/// ```
/// # use claude_agent_tokio::mcp::{PromptArgument, PromptSpec};
/// let review = PromptSpec::new("review")
///     .with_description("Review a file")
///     .with_title("Code review")
///     .argument(PromptArgument::required("file").with_description("The file to review"))
///     .argument(PromptArgument::optional("focus"));
/// assert_eq!(
///     serde_json::to_string(&review).unwrap(),
///     r#"{"name":"review","title":"Code review","description":"Review a file","arguments":[{"name":"file","description":"The file to review","required":true},{"name":"focus"}]}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PromptSpec {
    /// Its name.
    pub name: String,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

impl PromptSpec {
    /// A prompt with a name and no arguments yet.
    pub fn new(name: impl Into<String>) -> Self {
        PromptSpec {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
        }
    }

    /// Sets the name for people.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets what it is for.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds an argument.
    pub fn argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.push(argument);
        self
    }
}

/// An argument of a [`PromptSpec`].
///
/// ```
/// # use claude_agent_tokio::mcp::PromptArgument;
/// let file = PromptArgument::required("file").with_description("The file to review");
/// let focus = PromptArgument::optional("focus");
/// assert!(file.required && !focus.required);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the prompt needs it (written only when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

impl PromptArgument {
    /// An argument the prompt needs.
    pub fn required(name: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            description: None,
            required: true,
        }
    }

    /// An argument that may be left out.
    pub fn optional(name: impl Into<String>) -> Self {
        PromptArgument {
            required: false,
            ..PromptArgument::required(name)
        }
    }

    /// Sets what it is.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// One tool of an [`McpServerSpec`]. Serializes as an entry of the MCP `tools/list` answer.
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::{ToolSpec, ToolAnnotations};
/// let tool = ToolSpec::new("now", "current time", r#"{"type":"object"}"#.parse::<Json>().unwrap())
///     .with_annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() })
///     .always_load();
/// assert_eq!(
///     serde_json::to_string(&tool).unwrap(),
///     r#"{"name":"now","description":"current time","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"anthropic/alwaysLoad":true}}"#
/// );
/// ```
///
/// A tool the CLI keeps behind tool search until a search matches it, with its results capped:
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::ToolSpec;
/// let schema = r#"{"type":"object","properties":{"query":{"type":"string"}}}"#.parse::<Json>().unwrap();
/// let tool = ToolSpec::new("search_tickets", "Search the issue tracker", schema)
///     .search_hint("jira issues tickets bugs")
///     .max_result_size_chars(20_000);
/// assert_eq!(tool.meta.search_hint.as_deref(), Some("jira issues tickets bugs"));
/// assert!(serde_json::to_string(&tool).unwrap().ends_with(
///     r#""_meta":{"anthropic/searchHint":"jira issues tickets bugs","anthropic/maxResultSizeChars":20000}}"#
/// ));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolSpec {
    /// Tool name within its server.
    pub name: String,
    /// What the tool does, shown to the model.
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Json,
    /// Behaviour hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Claude Code extensions, sent in `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "ToolMeta::is_empty")]
    pub meta: ToolMeta,
    /// How long the host may take to answer a call, counted from when the session read it
    /// (default [`DEFAULT_TOOL_TIMEOUT`]); `None` waits until the CLI withdraws the call. A
    /// call still unanswered then is answered by the session with an `isError` result saying
    /// so, and the host is told to stop its handler
    /// ([`Event::Expired`](crate::session::Event::Expired)). Not sent to the CLI.
    ///
    /// ```
    /// use std::time::Duration;
    /// # use claude_agent_tokio::Json;
    /// use claude_agent_tokio::mcp::{ToolSpec, DEFAULT_TOOL_TIMEOUT};
    ///
    /// let schema: Json = r#"{"type":"object"}"#.parse().unwrap();
    /// let mut build = ToolSpec::new("build", "Build the project", schema);
    /// assert_eq!(build.timeout, Some(DEFAULT_TOOL_TIMEOUT));
    /// build.timeout = Some(Duration::from_secs(30 * 60)); // a long build
    /// assert!(!serde_json::to_string(&build).unwrap().contains("timeout"));
    /// ```
    #[serde(skip)]
    pub timeout: Option<Duration>,
}

/// How long a host may take to answer an in-process tool call unless its tool says otherwise
/// ([`ToolSpec::timeout`]): ten minutes, as long as the CLI lets a foreground `Bash` command
/// run.
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::mcp::DEFAULT_TOOL_TIMEOUT;
///
/// assert_eq!(DEFAULT_TOOL_TIMEOUT, Duration::from_secs(600));
/// ```
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(600);

impl ToolSpec {
    /// A tool with a name, a description and the JSON Schema of its arguments.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: impl Into<Json>,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema: input_schema.into(),
            annotations: None,
            meta: ToolMeta::default(),
            timeout: Some(DEFAULT_TOOL_TIMEOUT),
        }
    }

    /// Sets the behaviour hints.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the words the CLI's tool search matches (`anthropic/searchHint`).
    pub fn search_hint(mut self, hint: impl Into<String>) -> Self {
        self.meta.search_hint = Some(hint.into());
        self
    }

    /// Always loads the tool, never defers it behind tool search (`anthropic/alwaysLoad`).
    pub fn always_load(mut self) -> Self {
        self.meta.always_load = true;
        self
    }

    /// Caps the size of results the CLI keeps (`anthropic/maxResultSizeChars`).
    pub fn max_result_size_chars(mut self, chars: u64) -> Self {
        self.meta.max_result_size_chars = Some(chars);
        self
    }
}

/// MCP tool annotations: hints about what a tool does.
///
/// ```
/// # use claude_agent_tokio::Json;
/// use claude_agent_tokio::mcp::{ToolAnnotations, ToolSpec};
///
/// let schema = r#"{"type":"object","properties":{"path":{"type":"string"}}}"#.parse::<Json>().unwrap();
/// let delete = ToolSpec::new("delete_file", "Delete a file", schema).with_annotations(ToolAnnotations {
///     title: Some("Delete file".into()),
///     destructive_hint: Some(true),
///     idempotent_hint: Some(true),
///     ..Default::default()
/// });
/// assert!(serde_json::to_string(&delete).unwrap().contains(
///     r#""annotations":{"title":"Delete file","destructiveHint":true,"idempotentHint":true}"#
/// ));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool changes nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it twice with the same arguments does no more than once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside systems.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Claude Code's `_meta` extensions of a tool.
///
/// ```
/// # use claude_agent_tokio::Json;
/// use claude_agent_tokio::mcp::ToolSpec;
///
/// let schema = r#"{"type":"object"}"#.parse::<Json>().unwrap();
/// let plain = ToolSpec::new("now", "current time", schema.clone());
/// assert!(plain.meta.is_empty()); // no `_meta` is sent
/// let eager = ToolSpec::new("now", "current time", schema).always_load();
/// assert!(eager.meta.always_load && !eager.meta.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolMeta {
    /// `anthropic/searchHint`.
    pub search_hint: Option<String>,
    /// `anthropic/alwaysLoad` (written only when true).
    pub always_load: bool,
    /// `anthropic/maxResultSizeChars`.
    pub max_result_size_chars: Option<u64>,
}

impl ToolMeta {
    /// Whether nothing is set (then no `_meta` is sent).
    pub fn is_empty(&self) -> bool {
        self.search_hint.is_none() && !self.always_load && self.max_result_size_chars.is_none()
    }
}

impl Serialize for ToolMeta {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(hint) = &self.search_hint {
            map.serialize_entry("anthropic/searchHint", hint)?;
        }
        if self.always_load {
            map.serialize_entry("anthropic/alwaysLoad", &true)?;
        }
        if let Some(chars) = self.max_result_size_chars {
            map.serialize_entry("anthropic/maxResultSizeChars", &chars)?;
        }
        map.end()
    }
}
