//! The `mcp_call` request: a tool of an MCP server the CLI runs, called without a model turn.

use serde::Serialize;

use crate::Json;

/// A call of a tool of an MCP server the CLI runs (stdio, HTTP, SSE, a plugin's), through the
/// CLI's own MCP client and with no model turn: what `Client::mcp_call` sends. The result goes
/// to the caller, not into the conversation. In-process (`SdkMcpServer`) tools are not called
/// this way: call them directly.
///
/// By default the CLI checks no permission (the host is trusted), hands back the content as a
/// model would get it, and turns a tool error into a failed request. Each flag changes one of
/// those; CLIs before 2.1.331 ignore them (their `initialize` answer lists no
/// `mcp_call_*_v1` capability).
///
/// ```
/// use claude_agent_tokio::control::{ControlRequest, McpCall};
/// use serde_json::json;
///
/// let call = McpCall::new("github", "search_issues", json!({"query": "crash"}))
///     .soft_error_result(true)
///     .check_permissions(true);
/// assert_eq!(call.tool, "mcp__github__search_issues");
/// assert_eq!(
///     ControlRequest::McpCall(call).body_json(),
///     r#"{"subtype":"mcp_call","tool":"mcp__github__search_issues","arguments":{"query":"crash"},"soft_error_result":true,"check_permissions":true}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct McpCall {
    /// The tool's full name, `mcp__<server>__<tool>`.
    pub tool: String,
    /// The tool's arguments, a JSON object.
    pub arguments: Json,
    /// A tool error comes back as a result with
    /// [`ToolResult::is_error`](crate::mcp::ToolResult::is_error) and the server's content (text
    /// and resource links), instead of a failed request with its text alone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub soft_error_result: bool,
    /// The result is for a program (one that renders it, a script), not a model: the server's
    /// own content blocks unchanged (no image resized, nothing saved aside, nothing flattened
    /// or truncated), up to 10 MiB of JSON. Treat them as untrusted data.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub result_not_for_model: bool,
    /// Decide the call as the model's own call of the tool would be: permission rules and mode,
    /// managed settings, `PreToolUse`/`PostToolUse` hooks, and an ask reaching the host's
    /// permission callback. A refused call fails with a message starting `The tool did not
    /// run: `.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub check_permissions: bool,
}

impl McpCall {
    /// A call of `tool` of the server the session names `server`, with `arguments`. The
    /// server's name is written as the CLI writes it in tool names (every character but ASCII
    /// letters, digits, `_` and `-` becomes `_`).
    ///
    /// ```
    /// use claude_agent_tokio::control::McpCall;
    /// use serde_json::json;
    ///
    /// let call = McpCall::new("my docs", "search", json!({}));
    /// assert_eq!(call.tool, "mcp__my_docs__search");
    /// ```
    pub fn new(server: &str, tool: &str, arguments: impl Into<Json>) -> Self {
        let server: String = server
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        McpCall {
            tool: format!("mcp__{server}__{tool}"),
            arguments: arguments.into(),
            soft_error_result: false,
            result_not_for_model: false,
            check_permissions: false,
        }
    }

    /// See [`McpCall::soft_error_result`](struct@McpCall#structfield.soft_error_result).
    ///
    /// ```
    /// # use claude_agent_tokio::control::McpCall;
    /// assert!(McpCall::new("s", "t", serde_json::json!({})).soft_error_result(true).soft_error_result);
    /// ```
    pub fn soft_error_result(mut self, soft: bool) -> Self {
        self.soft_error_result = soft;
        self
    }

    /// See [`McpCall::result_not_for_model`](struct@McpCall#structfield.result_not_for_model).
    ///
    /// ```
    /// # use claude_agent_tokio::control::McpCall;
    /// assert!(McpCall::new("s", "t", serde_json::json!({})).result_not_for_model(true).result_not_for_model);
    /// ```
    pub fn result_not_for_model(mut self, raw: bool) -> Self {
        self.result_not_for_model = raw;
        self
    }

    /// See [`McpCall::check_permissions`](struct@McpCall#structfield.check_permissions).
    ///
    /// ```
    /// # use claude_agent_tokio::control::McpCall;
    /// assert!(McpCall::new("s", "t", serde_json::json!({})).check_permissions(true).check_permissions);
    /// ```
    pub fn check_permissions(mut self, check: bool) -> Self {
        self.check_permissions = check;
        self
    }
}
