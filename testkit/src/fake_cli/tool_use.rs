//! A tool call of the fake model, which the script prints and asks about.

use serde_json::Value;

/// A tool call of the fake model: the id, tool name and input of a `tool_use` block. The builder
/// methods that print it or ask about it take the same value, so their ids agree.
///
/// ```
/// use claude_agent_testkit::fake_cli::{Script, ToolUse};
/// use serde_json::json;
///
/// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
/// let script = Script::new()
///     .emit_tool_use(&ls)
///     .emit_tool_result(&ls, "Cargo.toml\nsrc");
/// # let _ = script;
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolUse {
    /// The `tool_use` block's id (`toolu_…`).
    pub id: String,
    /// The tool name, e.g. `Bash` or `mcp__calc__add`.
    pub name: String,
    /// The tool's input.
    pub input: Value,
}

impl ToolUse {
    /// A call of tool `name` with `input`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::ToolUse;
    /// use serde_json::json;
    /// let read = ToolUse::new("toolu_7", "Read", json!({"file_path": "/tmp/notes.txt"}));
    /// assert_eq!(read.name, "Read");
    /// ```
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
        }
    }

    /// A call of `tool` of the MCP server `server`, named as the CLI names it:
    /// `mcp__<server>__<tool>`.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::ToolUse;
    /// use serde_json::json;
    /// let add = ToolUse::mcp("toolu_2", "calc", "add", json!({"a": 2, "b": 40}));
    /// assert_eq!(add.name, "mcp__calc__add");
    /// ```
    pub fn mcp(id: impl Into<String>, server: &str, tool: &str, input: Value) -> Self {
        Self::new(id, format!("mcp__{server}__{tool}"), input)
    }
}
