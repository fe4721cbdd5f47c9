//! What the host declares: in-process MCP servers and their tools.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// An in-process MCP server the host serves through the control protocol.
///
/// ```
/// # use claude_agent_core::mcp::{McpServerSpec, ToolSpec};
/// # use serde_json::value::RawValue;
/// let schema = RawValue::from_string(
///     r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#.into(),
/// ).unwrap();
/// let calc = McpServerSpec::new("calc", "1.0.0")
///     .tool(ToolSpec::new("add", "add two numbers", schema))
///     .with_instructions("Use `add` for arithmetic instead of working sums out yourself.");
/// assert_eq!(calc.tools[0].name, "add");
/// assert!(calc.find_tool("add").is_some());
/// assert!(calc.find_tool("sub").is_none());
/// ```
///
/// With the `client` feature, `SdkMcpServer` builds one of these from its tools and their
/// handlers; this type is what a [`Session`](crate::session::Session) needs to answer the
/// CLI's handshake and `tools/list` by itself.
#[derive(Debug, Clone)]
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
}

impl McpServerSpec {
    /// A server with no tools yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        McpServerSpec {
            name: name.into(),
            version: version.into(),
            tools: Vec::new(),
            instructions: None,
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

    /// The tool named `name`.
    pub fn find_tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|tool| tool.name == name)
    }
}

/// One tool of an [`McpServerSpec`]. Serializes as an entry of the MCP `tools/list` answer.
///
/// ```
/// # use claude_agent_core::mcp::{ToolSpec, ToolAnnotations};
/// # use serde_json::value::RawValue;
/// let tool = ToolSpec::new("now", "current time", RawValue::from_string(r#"{"type":"object"}"#.into()).unwrap())
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
/// # use claude_agent_core::mcp::ToolSpec;
/// # use serde_json::value::RawValue;
/// let schema = RawValue::from_string(r#"{"type":"object","properties":{"query":{"type":"string"}}}"#.into()).unwrap();
/// let tool = ToolSpec::new("search_tickets", "Search the issue tracker", schema)
///     .search_hint("jira issues tickets bugs")
///     .max_result_size_chars(20_000);
/// assert_eq!(tool.meta.search_hint.as_deref(), Some("jira issues tickets bugs"));
/// assert!(serde_json::to_string(&tool).unwrap().ends_with(
///     r#""_meta":{"anthropic/searchHint":"jira issues tickets bugs","anthropic/maxResultSizeChars":20000}}"#
/// ));
/// ```
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolSpec {
    /// Tool name within its server.
    pub name: String,
    /// What the tool does, shown to the model.
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Box<RawValue>,
    /// Behaviour hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Claude Code extensions, sent in `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "ToolMeta::is_empty")]
    pub meta: ToolMeta,
}

impl ToolSpec {
    /// A tool with a name, a description and the JSON Schema of its arguments.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Box<RawValue>,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema,
            annotations: None,
            meta: ToolMeta::default(),
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
/// use claude_agent_core::mcp::{ToolAnnotations, ToolSpec};
/// use serde_json::value::RawValue;
///
/// let schema = RawValue::from_string(r#"{"type":"object","properties":{"path":{"type":"string"}}}"#.into()).unwrap();
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
/// use claude_agent_core::mcp::ToolSpec;
/// use serde_json::value::RawValue;
///
/// let schema = RawValue::from_string(r#"{"type":"object"}"#.into()).unwrap();
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
