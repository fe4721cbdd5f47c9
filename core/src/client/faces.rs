//! The modules each runtime crate publishes as its own (`claude_agent_tokio::mcp`, `::cli`,
//! `::prelude`, …), written once here.

/// MCP: in-process servers whose tools, resources and prompts run in this program
/// ([`SdkMcpServer`](crate::client::SdkMcpServer), [`tool`](crate::client::tool),
/// `typed_tool`), and the protocol's data types ([`ToolResult`](crate::mcp::ToolResult), …).
/// Each runtime crate publishes it as its `mcp`.
///
/// ```
/// use claude_agent_core::client::mcp::{tool, SdkMcpServer, ToolResult};
///
/// let clock = SdkMcpServer::new("clock", "1.0.0").tool(tool(
///     "now",
///     "The current Unix time in seconds",
///     serde_json::json!({"type": "object"}),
///     |_args| async { Ok::<_, String>(ToolResult::text("1767225600")) },
/// ));
/// let options = claude_agent_core::options::Options::new().sdk_mcp_server(clock);
/// # let _ = options;
/// ```
pub mod mcp {
    #[cfg(feature = "schemars")]
    pub use crate::client::typed_tool;
    pub use crate::client::{
        prompt_template, resource, resource_template, tool, McpServerSet, SdkMcpServer, SdkPrompt,
        SdkResource, SdkTool, ToolError, ToolHandler, DEFAULT_TOOL_TIMEOUT,
    };
    pub use crate::mcp::*;
}

/// Finding the Claude Code CLI: where sessions look for it, what to tell a user who has none,
/// and [`doctor`](crate::client::doctor), which checks what would keep it from starting. Each
/// runtime crate publishes it as its `cli`.
///
/// ```
/// use claude_agent_core::client::cli::{find_cli, INSTALL_HINT};
///
/// if let Err(error) = find_cli(None) {
///     eprintln!("{error}\n{INSTALL_HINT}");
/// }
/// ```
pub mod cli {
    #[cfg(unix)]
    pub use crate::client::raise_open_file_limit;
    pub use crate::client::{doctor, find_cli, Diagnosis, Finding, CLI_PATH_ENV, INSTALL_HINT};
}

/// The names most programs use, for a glob import. Each async runtime crate publishes it as its
/// `prelude`.
///
/// ```
/// use claude_agent_core::client::prelude::*;
///
/// let options = Options::new()
///     .on_permission_request(|_request, _ctx| async { PermissionResult::allow() })
///     .on_hook(HookMatcher::new("Bash"), |_input: PreToolUseInput, _ctx| async { HookOutput::proceed() });
/// # let _ = options;
/// ```
pub mod prelude {
    pub use crate::client::{Client, Error, Query};
    pub use crate::hooks::{HookMatcher, HookOutput, PreToolUseInput};
    pub use crate::message::Message;
    pub use crate::options::Options;
    pub use crate::permission::PermissionResult;
    pub use crate::Json;
}
