//! External MCP servers the CLI starts or connects to itself (`--mcp-config`).
//!
//! In-process servers are declared in
//! [`HostDeclarations::sdk_mcp_servers`](crate::options::HostDeclarations::sdk_mcp_servers)
//! instead (`Options::sdk_mcp_server` of `claude-agent-client`); they never appear on the
//! command line.

use std::fmt;

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::ordered_map::OrderedMap;
use super::redact::{Pairs, RedactedPairs};

/// How the CLI reaches one external MCP server.
///
/// ```
/// # use claude_agent_tokio::options::{McpServerConfig, McpStdioServer};
/// let fs = McpServerConfig::Stdio(
///     McpStdioServer::new("npx").args(["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]),
/// );
/// let remote = McpServerConfig::http("https://mcp.example.com/mcp");
/// # let _ = (fs, remote);
/// ```
///
/// Each kind and the JSON the CLI gets in `--mcp-config`:
///
/// ```
/// use claude_agent_tokio::options::{McpServerConfig, McpRemoteServer};
///
/// let git = McpServerConfig::stdio("uvx", ["mcp-server-git", "--repository", "/srv/project"]);
/// assert_eq!(
///     serde_json::to_string(&git).unwrap(),
///     r#"{"type":"stdio","command":"uvx","args":["mcp-server-git","--repository","/srv/project"]}"#
/// );
/// let events = McpServerConfig::sse("https://mcp.example.com/sse");
/// assert_eq!(serde_json::to_string(&events).unwrap(), r#"{"type":"sse","url":"https://mcp.example.com/sse"}"#);
/// let tickets = McpServerConfig::Http(McpRemoteServer::new("https://mcp.example.com/tickets").header("X-Team", "platform"));
/// assert_eq!(
///     serde_json::to_string(&tickets).unwrap(),
///     r#"{"type":"http","url":"https://mcp.example.com/tickets","headers":{"X-Team":"platform"}}"#
/// );
/// // A kind this crate has no variant for, as the CLI's own JSON:
/// let ws = McpServerConfig::Raw(serde_json::json!({"type": "ws", "url": "wss://mcp.example.com/ws"}));
/// # let _ = ws;
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpServerConfig {
    /// A child process speaking MCP over stdio (`{"type":"stdio","command":…}`).
    Stdio(McpStdioServer),
    /// A server-sent-events endpoint (`{"type":"sse","url":…}`).
    Sse(McpRemoteServer),
    /// A streamable HTTP endpoint (`{"type":"http","url":…}`).
    Http(McpRemoteServer),
    /// Any other configuration, passed to the CLI as this JSON.
    Raw(serde_json::Value),
}

impl McpServerConfig {
    /// A stdio server started as `command args…`.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        McpServerConfig::Stdio(McpStdioServer::new(command).args(args))
    }

    /// A server-sent-events server at `url`.
    pub fn sse(url: impl Into<String>) -> Self {
        McpServerConfig::Sse(McpRemoteServer::new(url))
    }

    /// A streamable HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        McpServerConfig::Http(McpRemoteServer::new(url))
    }
}

impl Serialize for McpServerConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            McpServerConfig::Stdio(server) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("type", "stdio")?;
                map.serialize_entry("command", &server.command)?;
                if !server.args.is_empty() {
                    map.serialize_entry("args", &server.args)?;
                }
                if !server.env.0.is_empty() {
                    map.serialize_entry("env", &OrderedMap(&server.env.0))?;
                }
                map.end()
            }
            McpServerConfig::Sse(server) => server.serialize_as("sse", serializer),
            McpServerConfig::Http(server) => server.serialize_as("http", serializer),
            McpServerConfig::Raw(value) => value.serialize(serializer),
        }
    }
}

/// A stdio MCP server: the command the CLI runs. `Debug` hides secret-looking env values.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, McpServerConfig, McpStdioServer};
///
/// let github = McpStdioServer::new("npx")
///     .args(["-y", "@modelcontextprotocol/server-github"])
///     .env("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_example");
/// assert!(!format!("{github:?}").contains("ghp_example"));
/// assert_eq!(
///     serde_json::to_string(&McpServerConfig::Stdio(github.clone())).unwrap(),
///     r#"{"type":"stdio","command":"npx","args":["-y","@modelcontextprotocol/server-github"],"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"ghp_example"}}"#
/// );
/// let mut config = AgentConfig::default();
/// config.mcp_servers = vec![("github".into(), McpServerConfig::Stdio(github))];
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpStdioServer {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    env: Pairs,
}

impl McpStdioServer {
    /// A server started as `command` with no arguments.
    pub fn new(command: impl Into<String>) -> Self {
        McpStdioServer {
            command: command.into(),
            args: Vec::new(),
            env: Pairs::default(),
        }
    }

    /// Add arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Set an environment variable of the server process.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.set(name.into(), value.into());
        self
    }
}

impl fmt::Debug for McpStdioServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpStdioServer")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &RedactedPairs(&self.env.0))
            .finish()
    }
}

/// An SSE or HTTP MCP server. `Debug` hides secret-looking header values (`Authorization`, …).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, McpRemoteServer, McpServerConfig};
///
/// let linear = McpRemoteServer::new("https://mcp.linear.app/mcp").header("Authorization", "Bearer lin_api_example");
/// assert!(!format!("{linear:?}").contains("lin_api_example"));
/// let mut config = AgentConfig::default();
/// config.mcp_servers = vec![("linear".into(), McpServerConfig::Http(linear))];
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpRemoteServer {
    /// The endpoint.
    pub url: String,
    headers: Pairs,
}

impl McpRemoteServer {
    /// A server at `url` with no extra headers.
    pub fn new(url: impl Into<String>) -> Self {
        McpRemoteServer {
            url: url.into(),
            headers: Pairs::default(),
        }
    }

    /// Send this HTTP header with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.set(name.into(), value.into());
        self
    }

    fn serialize_as<S: Serializer>(&self, kind: &str, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", kind)?;
        map.serialize_entry("url", &self.url)?;
        if !self.headers.0.is_empty() {
            map.serialize_entry("headers", &OrderedMap(&self.headers.0))?;
        }
        map.end()
    }
}

impl fmt::Debug for McpRemoteServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRemoteServer")
            .field("url", &self.url)
            .field("headers", &RedactedPairs(&self.headers.0))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::ordered_map::to_json;
    use super::*;

    #[test]
    fn stdio_json() {
        let config = McpServerConfig::Stdio(
            McpStdioServer::new("npx")
                .args(["-y", "srv"])
                .env("DEBUG", "1"),
        );
        assert_eq!(
            to_json(&config),
            r#"{"type":"stdio","command":"npx","args":["-y","srv"],"env":{"DEBUG":"1"}}"#
        );
        let bare = McpServerConfig::stdio("srv", Vec::<String>::new());
        assert_eq!(to_json(&bare), r#"{"type":"stdio","command":"srv"}"#);
    }

    #[test]
    fn remote_json() {
        let sse = McpServerConfig::sse("https://a.example/sse");
        assert_eq!(
            to_json(&sse),
            r#"{"type":"sse","url":"https://a.example/sse"}"#
        );
        let http = McpServerConfig::Http(
            McpRemoteServer::new("https://b.example/mcp").header("X-Team", "t1"),
        );
        assert_eq!(
            to_json(&http),
            r#"{"type":"http","url":"https://b.example/mcp","headers":{"X-Team":"t1"}}"#
        );
        let raw = McpServerConfig::Raw(serde_json::json!({"type":"ws","url":"wss://c"}));
        assert_eq!(to_json(&raw), r#"{"type":"ws","url":"wss://c"}"#);
    }

    #[test]
    fn debug_hides_secrets() {
        let stdio = McpStdioServer::new("srv").env("GITHUB_TOKEN", "ghp_secret1");
        let http = McpRemoteServer::new("https://x").header("Authorization", "Bearer secret2");
        let text = format!("{stdio:?} {http:?}");
        assert!(
            !text.contains("ghp_secret1") && !text.contains("secret2"),
            "{text}"
        );
        assert!(
            text.contains("GITHUB_TOKEN") && text.contains("Authorization"),
            "{text}"
        );
    }
}
