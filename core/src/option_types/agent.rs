//! Subagent definitions, sent in initialize `agents` (never on the command line).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::mcp_config::McpServerConfig;
use super::types::{Effort, SettingSource};
use crate::permission::PermissionMode;

/// A subagent the main agent can hand tasks to. Serialized with the wire names
/// (`description, prompt, tools, disallowedTools, model, skills, memory, mcpServers, initialPrompt,
/// maxTurns, autoCompactWindow, background, omitClaudeMd, effort, permissionMode, observer,
/// observerMessage, criticalSystemReminder_EXPERIMENTAL`); unset fields are left out.
///
/// ```
/// # use claude_agent_tokio::options::AgentDefinition;
/// let reviewer = AgentDefinition::new("Reviews diffs for bugs", "You review code. Be specific.")
///     .tools(["Read", "Grep"])
///     .model("haiku");
/// # let _ = reviewer;
/// ```
///
/// Every setter, and the JSON the agent is sent as:
///
/// ```
/// use claude_agent_tokio::options::{AgentDefinition, AgentMcpServer, Effort, SettingSource};
/// use claude_agent_tokio::permission::PermissionMode;
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
    /// The token count at which it compacts its own conversation when it runs as a subagent
    /// (it can only lower the window it would inherit); at least
    /// [`AgentDefinition::MIN_AUTO_COMPACT_WINDOW`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_compact_window: Option<u64>,
    /// Whether it runs in the background.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// Whether it runs without the user, project and local `CLAUDE.md` files when it runs as a
    /// subagent (managed policy files are kept).
    #[serde(rename = "omitClaudeMd", skip_serializing_if = "Option::is_none")]
    pub omit_claude_md: Option<bool>,
    /// Its effort level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<AgentEffort>,
    /// Its permission mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<PermissionMode>,
    /// The agent type started as a background observer whenever this one runs, or up to four
    /// of them separated by commas. An observer gets read-only digests of the activity and
    /// reports through its own tool; it takes no part in the task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observer: Option<String>,
    /// Text added after the default at the end of each digest sent to the observer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observer_message: Option<String>,
    /// A reminder added to its system prompt (experimental in the CLI).
    #[serde(
        rename = "criticalSystemReminder_EXPERIMENTAL",
        skip_serializing_if = "Option::is_none"
    )]
    pub critical_system_reminder: Option<String>,
}

/// An agent's effort: a named level, or a number.
///
/// ```
/// # use claude_agent_tokio::options::{AgentDefinition, AgentEffort, Effort};
/// let named = AgentDefinition::new("d", "p").effort(Effort::High);
/// let numeric = AgentDefinition::new("d", "p").effort(AgentEffort::Value(3));
/// assert_eq!(named.effort, Some(AgentEffort::Level(Effort::High)));
/// # let _ = numeric;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentEffort {
    /// A named level (`"high"`).
    Level(Effort),
    /// A number (`3`).
    Value(u32),
}

impl From<Effort> for AgentEffort {
    fn from(level: Effort) -> Self {
        AgentEffort::Level(level)
    }
}

impl Serialize for AgentEffort {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentEffort::Level(level) => level.serialize(serializer),
            AgentEffort::Value(value) => serializer.serialize_u32(*value),
        }
    }
}

impl AgentDefinition {
    /// The smallest [`AgentDefinition::auto_compact_window`] the CLI takes. CLI 2.1.330 drops
    /// every agent of the session when one has a smaller window, so the options refuse it
    /// ([`OptionsError::AgentAutoCompactWindow`](crate::options::OptionsError::AgentAutoCompactWindow)).
    ///
    /// ```
    /// # use claude_agent_tokio::options::{AgentConfig, AgentDefinition, HostDeclarations, OptionsError};
    /// let tiny = AgentDefinition::new("d", "p").auto_compact_window(50_000);
    /// let mut config = AgentConfig::default();
    /// config.agents = vec![("tiny".into(), tiny)];
    /// let refused = config.launch_spec("claude".into(), &HostDeclarations::NONE);
    /// assert!(matches!(refused, Err(OptionsError::AgentAutoCompactWindow { .. })));
    /// ```
    pub const MIN_AUTO_COMPACT_WINDOW: u64 = 100_000;

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
            auto_compact_window: None,
            background: None,
            omit_claude_md: None,
            effort: None,
            permission_mode: None,
            observer: None,
            observer_message: None,
            critical_system_reminder: None,
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

    /// Its effort: a level ([`Effort`]) or a number ([`AgentEffort::Value`]).
    pub fn effort(mut self, effort: impl Into<AgentEffort>) -> Self {
        self.effort = Some(effort.into());
        self
    }

    /// Compact its own conversation at this many tokens when it runs as a subagent (at least
    /// [`AgentDefinition::MIN_AUTO_COMPACT_WINDOW`]).
    ///
    /// ```
    /// # use claude_agent_tokio::options::AgentDefinition;
    /// let scanner = AgentDefinition::new("Scans logs", "Summarize the errors.").auto_compact_window(120_000);
    /// # let _ = scanner;
    /// ```
    pub fn auto_compact_window(mut self, tokens: u64) -> Self {
        self.auto_compact_window = Some(tokens);
        self
    }

    /// Run it without the user, project and local `CLAUDE.md` files when it runs as a subagent.
    ///
    /// ```
    /// # use claude_agent_tokio::options::AgentDefinition;
    /// let translator = AgentDefinition::new("Translates text", "Translate to French.").omit_claude_md(true);
    /// # let _ = translator;
    /// ```
    pub fn omit_claude_md(mut self, omit: bool) -> Self {
        self.omit_claude_md = Some(omit);
        self
    }

    /// Start this agent type (or up to four, separated by commas) as an observer whenever this
    /// agent runs.
    ///
    /// ```
    /// # use claude_agent_tokio::options::AgentDefinition;
    /// let coder = AgentDefinition::new("Writes code", "Implement the task.")
    ///     .observer("security-reviewer")
    ///     .observer_message("Flag any secret written to disk.");
    /// # let _ = coder;
    /// ```
    pub fn observer(mut self, agent_types: impl Into<String>) -> Self {
        self.observer = Some(agent_types.into());
        self
    }

    /// Text added at the end of each activity digest the observer gets.
    ///
    /// ```
    /// # use claude_agent_tokio::options::AgentDefinition;
    /// let agent = AgentDefinition::new("d", "p").observer("auditor").observer_message("Watch the shell.");
    /// # let _ = agent;
    /// ```
    pub fn observer_message(mut self, message: impl Into<String>) -> Self {
        self.observer_message = Some(message.into());
        self
    }

    /// A reminder added to its system prompt (`criticalSystemReminder_EXPERIMENTAL`, an
    /// experimental field of the CLI).
    ///
    /// ```
    /// # use claude_agent_tokio::options::AgentDefinition;
    /// let agent = AgentDefinition::new("d", "p").critical_system_reminder("Never push to main.");
    /// # let _ = agent;
    /// ```
    pub fn critical_system_reminder(mut self, reminder: impl Into<String>) -> Self {
        self.critical_system_reminder = Some(reminder.into());
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
/// use claude_agent_tokio::options::{AgentDefinition, AgentMcpServer, McpServerConfig};
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
            .auto_compact_window(150_000)
            .background(true)
            .omit_claude_md(true)
            .effort(Effort::XHigh)
            .permission_mode(PermissionMode::AcceptEdits)
            .observer("auditor,linter")
            .observer_message("Watch the shell.")
            .critical_system_reminder("Never push.");
        assert_eq!(
            to_json(&agent),
            concat!(
                r#"{"description":"d","prompt":"p","tools":["Read"],"disallowedTools":["Bash"],"#,
                r#""model":"haiku","skills":["pdf"],"memory":"project","#,
                r#""mcpServers":["calc",{"web":{"type":"http","url":"https://w"}}],"#,
                r#""initialPrompt":"start","maxTurns":3,"autoCompactWindow":150000,"background":true,"#,
                r#""omitClaudeMd":true,"effort":"xhigh","permissionMode":"acceptEdits","#,
                r#""observer":"auditor,linter","observerMessage":"Watch the shell.","#,
                r#""criticalSystemReminder_EXPERIMENTAL":"Never push."}"#
            )
        );
        let numeric = AgentDefinition::new("d", "p").effort(AgentEffort::Value(2));
        assert_eq!(
            to_json(&numeric),
            r#"{"description":"d","prompt":"p","effort":2}"#
        );
    }
}
