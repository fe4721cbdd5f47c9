//! Subagent definitions, sent in initialize `agents` (never on the command line).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::mcp_config::McpServerConfig;
use super::types::{Effort, SettingSource};
use crate::permission::PermissionMode;

/// A subagent the main agent can hand tasks to. Serialized with the wire names
/// (`description, prompt, tools, disallowedTools, model, skills, memory, mcpServers, initialPrompt,
/// maxTurns, background, effort, permissionMode`); unset fields are left out.
///
/// ```
/// # use claude_agent_core::options::AgentDefinition;
/// let reviewer = AgentDefinition::new("Reviews diffs for bugs", "You review code. Be specific.")
///     .tools(["Read", "Grep"])
///     .model("haiku");
/// # let _ = reviewer;
/// ```
///
/// Every setter, and the JSON the agent is sent as:
///
/// ```
/// use claude_agent_core::options::{AgentDefinition, AgentMcpServer, Effort, SettingSource};
/// use claude_agent_core::permission::PermissionMode;
///
/// let fixer = AgentDefinition::new("Fixes failing tests", "You fix tests without changing what they check.")
///     .tools(["Read", "Edit", "Bash"])
///     .disallowed_tools(["WebFetch"])
///     .model("sonnet")
///     .skills(["rust-testing"])
///     .memory(SettingSource::Project)
///     .mcp_servers([AgentMcpServer::Named("github".into())])
///     .initial_prompt("Run `cargo test` first.")
///     .max_turns(20)
///     .background(false)
///     .effort(Effort::High)
///     .permission_mode(PermissionMode::AcceptEdits);
/// assert_eq!(
///     serde_json::to_string(&fixer).unwrap(),
///     r#"{"description":"Fixes failing tests","prompt":"You fix tests without changing what they check.","tools":["Read","Edit","Bash"],"disallowedTools":["WebFetch"],"model":"sonnet","skills":["rust-testing"],"memory":"project","mcpServers":["github"],"initialPrompt":"Run `cargo test` first.","maxTurns":20,"background":false,"effort":"high","permissionMode":"acceptEdits"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentDefinition {
    /// When the main agent should use this one.
    pub description: String,
    /// The subagent's system prompt.
    pub prompt: String,
    /// Tools it may use (all of the parent's when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Tools it may not use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// Model alias or id (`sonnet`, `opus`, `haiku`, `inherit`, or a full name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Skills it may use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// Where its memory lives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<SettingSource>,
    /// MCP servers it may use: names of the parent's servers, or its own configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Vec<AgentMcpServer>>,
    /// A first prompt it starts with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_prompt: Option<String>,
    /// Most turns it may take.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Whether it runs in the background.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// Its effort level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// Its permission mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<PermissionMode>,
}

impl AgentDefinition {
    /// An agent with a description (when to use it) and a system prompt.
    pub fn new(description: impl Into<String>, prompt: impl Into<String>) -> Self {
        AgentDefinition {
            description: description.into(),
            prompt: prompt.into(),
            tools: None,
            disallowed_tools: None,
            model: None,
            skills: None,
            memory: None,
            mcp_servers: None,
            initial_prompt: None,
            max_turns: None,
            background: None,
            effort: None,
            permission_mode: None,
        }
    }

    /// Only these tools.
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Never these tools.
    pub fn disallowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disallowed_tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// The model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Only these skills.
    pub fn skills<I, S>(mut self, skills: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skills = Some(skills.into_iter().map(Into::into).collect());
        self
    }

    /// Where its memory lives.
    pub fn memory(mut self, scope: SettingSource) -> Self {
        self.memory = Some(scope);
        self
    }

    /// The MCP servers it may use.
    pub fn mcp_servers(mut self, servers: impl IntoIterator<Item = AgentMcpServer>) -> Self {
        self.mcp_servers = Some(servers.into_iter().collect());
        self
    }

    /// A first prompt it starts with.
    pub fn initial_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.initial_prompt = Some(prompt.into());
        self
    }

    /// Most turns it may take.
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Run it in the background.
    pub fn background(mut self, background: bool) -> Self {
        self.background = Some(background);
        self
    }

    /// Its effort level.
    pub fn effort(mut self, effort: Effort) -> Self {
        self.effort = Some(effort);
        self
    }

    /// Its permission mode.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }
}

/// One MCP server of an [`AgentDefinition`].
///
/// ```
/// use claude_agent_core::options::{AgentDefinition, AgentMcpServer, McpServerConfig};
///
/// let researcher = AgentDefinition::new("Researches library APIs", "You read documentation.").mcp_servers([
///     // A server the main session already has:
///     AgentMcpServer::Named("github".into()),
///     // A server only this agent connects to:
///     AgentMcpServer::Inline { name: "docs".into(), config: McpServerConfig::http("https://mcp.example.com/docs") },
/// ]);
/// assert!(serde_json::to_string(&researcher).unwrap().contains(
///     r#""mcpServers":["github",{"docs":{"type":"http","url":"https://mcp.example.com/docs"}}]"#
/// ));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgentMcpServer {
    /// A server of the parent session, by name (a JSON string).
    Named(String),
    /// A server only this agent uses (`{name: config}`).
    Inline {
        /// Its name.
        name: String,
        /// How to reach it.
        config: McpServerConfig,
    },
}

impl Serialize for AgentMcpServer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMcpServer::Named(name) => serializer.serialize_str(name),
            AgentMcpServer::Inline { name, config } => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(name, config)?;
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ordered_map::to_json;
    use super::*;

    #[test]
    fn minimal_agent_has_two_keys() {
        let agent = AgentDefinition::new("d", "p");
        assert_eq!(to_json(&agent), r#"{"description":"d","prompt":"p"}"#);
    }

    #[test]
    fn every_field_uses_its_wire_name() {
        let agent = AgentDefinition::new("d", "p")
            .tools(["Read"])
            .disallowed_tools(["Bash"])
            .model("haiku")
            .skills(["pdf"])
            .memory(SettingSource::Project)
            .mcp_servers([
                AgentMcpServer::Named("calc".into()),
                AgentMcpServer::Inline {
                    name: "web".into(),
                    config: McpServerConfig::http("https://w"),
                },
            ])
            .initial_prompt("start")
            .max_turns(3)
            .background(true)
            .effort(Effort::XHigh)
            .permission_mode(PermissionMode::AcceptEdits);
        assert_eq!(
            to_json(&agent),
            concat!(
                r#"{"description":"d","prompt":"p","tools":["Read"],"disallowedTools":["Bash"],"#,
                r#""model":"haiku","skills":["pdf"],"memory":"project","#,
                r#""mcpServers":["calc",{"web":{"type":"http","url":"https://w"}}],"#,
                r#""initialPrompt":"start","maxTurns":3,"background":true,"effort":"xhigh","#,
                r#""permissionMode":"acceptEdits"}"#
            )
        );
    }
}
