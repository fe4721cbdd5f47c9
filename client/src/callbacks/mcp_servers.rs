//! `McpServerSet`: the MCP servers [`crate::Client::set_mcp_servers`] puts in place.

use crate::callbacks::sdk_mcp::SdkMcpServer;
use crate::options::McpServerConfig;

/// The MCP servers a running session is to have from now on: in-process servers, and external
/// ones the CLI starts or connects to itself. Given to [`Client::set_mcp_servers`], it replaces
/// every server added after the CLI started and **every in-process server, those of the options
/// included**, as the TypeScript SDK's `setMcpServers` does.
///
/// An in-process server already served under the same name stays as it is: the CLI keeps its
/// connection to it and what it listed of it. To change one, leave it out of one set and put the
/// new one in the next.
///
/// ```
/// use claude_agent_tokio::{mcp::tool, mcp::McpServerSet, mcp::SdkMcpServer};
/// use claude_agent_tokio::mcp::ToolResult;
/// use claude_agent_tokio::options::McpServerConfig;
///
/// let clock = SdkMcpServer::new("clock", "1.0.0").tool(tool(
///     "now",
///     "The time",
///     serde_json::json!({"type": "object"}),
///     |_args| async { Ok::<_, String>(ToolResult::text("12:00")) },
/// ));
/// let servers = McpServerSet::new()
///     .sdk(clock)
///     .external("docs", McpServerConfig::http("https://mcp.example.com/mcp"));
/// // client.set_mcp_servers(servers).await?
/// # let _ = servers;
/// ```
///
/// [`Client::set_mcp_servers`]: crate::Client::set_mcp_servers
#[derive(Debug, Clone, Default)]
pub struct McpServerSet {
    pub(crate) sdk: Vec<SdkMcpServer>,
    pub(crate) external: Vec<(String, McpServerConfig)>,
}

impl McpServerSet {
    /// No servers: given to `set_mcp_servers`, it removes every added and in-process server.
    pub fn new() -> Self {
        McpServerSet::default()
    }

    /// Adds an in-process server; the model sees its tools as `mcp__<name>__<tool>`.
    pub fn sdk(mut self, server: SdkMcpServer) -> Self {
        self.sdk.push(server);
        self
    }

    /// Adds a server the CLI starts or connects to itself; a later one of the same name replaces
    /// it.
    pub fn external(mut self, name: impl Into<String>, config: McpServerConfig) -> Self {
        let name = name.into();
        self.external.retain(|(n, _)| *n != name);
        self.external.push((name, config));
        self
    }
}
