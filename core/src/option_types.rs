//! The plain values of options that the protocol layers carry too: agent definitions, MCP server
//! configurations, plugins, effort, setting sources and the other small option types. They are
//! published under [`crate::options`]; living here, below `control` and `session`, lets those
//! layers send them without depending on [`crate::options::AgentConfig`].

pub(crate) mod agent;
pub(crate) mod mcp_config;
pub(crate) mod ordered_map;
pub(crate) mod redact;
pub(crate) mod types;
