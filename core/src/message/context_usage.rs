//! `ContextUsage`: what fills the context window, as the `get_context_usage` control request
//! answers and the `/context` command's report carries it.

use serde::Deserialize;

/// How the context window is used: the answer to `get_context_usage` (`Client::context_usage`).
/// The `/context` command's report carries the same, spelt in `snake_case`
/// ([`AssistantMessage::context_usage`](crate::message::AssistantMessage::context_usage)), which
/// this reads too.
///
/// ```
/// # use claude_agent_tokio::control::ResponseBody;
/// # use claude_agent_tokio::message::ContextUsage;
/// let body = ResponseBody::from_json(
///     r#"{"categories":[{"id":"system_prompt","name":"System prompt","tokens":2264,"color":"promptBorder","kind":"used"}],
///         "totalTokens":12848,"maxTokens":1000000,"rawMaxTokens":1000000,"percentage":1,
///         "model":"claude-sonnet-4-5","isAutoCompactEnabled":true,"gridRows":[]}"#,
/// )?;
/// let usage: ContextUsage = body.parse()?;
/// assert_eq!(usage.categories[0].tokens, 2264);
/// assert_eq!(usage.is_auto_compact_enabled, Some(true));
/// assert!(usage.other.contains_key("gridRows"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextUsage {
    /// Tokens used.
    #[serde(default, alias = "total_tokens")]
    pub total_tokens: u64,
    /// Context window size (after any configured cap); 0 in the `/context` report, which gives
    /// only the raw size.
    #[serde(default)]
    pub max_tokens: u64,
    /// The model's own context window size.
    #[serde(alias = "raw_max_tokens")]
    pub raw_max_tokens: Option<u64>,
    /// Percentage used.
    #[serde(default)]
    pub percentage: f64,
    /// The model.
    #[serde(default)]
    pub model: String,
    /// Usage by category (system prompt, tools, messages, free space, …).
    #[serde(default)]
    pub categories: Vec<ContextCategory>,
    /// Whether the conversation is compacted automatically when it fills up.
    pub is_auto_compact_enabled: Option<bool>,
    /// The token count at which it is compacted.
    pub auto_compact_threshold: Option<u64>,
    /// Memory files (`CLAUDE.md` and the like) in the context.
    #[serde(default, alias = "memory_files")]
    pub memory_files: Vec<ContextMemoryFile>,
    /// MCP tools in the context.
    #[serde(default, alias = "mcp_tools")]
    pub mcp_tools: Vec<ContextMcpTool>,
    /// Subagent definitions in the context.
    #[serde(default)]
    pub agents: Vec<ContextAgent>,
    /// Set when the context is over a limit.
    #[serde(default, alias = "over_limit")]
    pub over_limit: Option<ContextOverLimit>,
    /// The token counts of the last API response (`input_tokens`, `output_tokens`, cache
    /// reads and writes); `None` before the first one.
    pub api_usage: Option<crate::message::Usage>,
    /// Every other field of the answer, by name, as sent (the grid behind `/context`, the
    /// message breakdown, the skills: a summary here, a list in the `/context` report, …).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// One category of [`ContextUsage`].
///
/// ```
/// # use claude_agent_tokio::message::ContextCategory;
/// let free: ContextCategory = serde_json::from_str(
///     r#"{"id":"free_space","name":"Free space","tokens":954152,"color":"promptBorder","kind":"free"}"#,
/// )?;
/// assert_eq!((free.kind.as_str(), free.tokens), ("free", 954_152));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextCategory {
    /// Stable id (`system_prompt`, `system_tools`, `messages`, `free_space`, …), when given.
    pub id: Option<String>,
    /// Name to show.
    pub name: String,
    /// Tokens it takes.
    #[serde(default)]
    pub tokens: u64,
    /// `used`, `free`, `buffer` or `deferred`.
    #[serde(default)]
    pub kind: String,
    /// Whether its tools are loaded only when used.
    #[serde(default)]
    pub is_deferred: bool,
}

/// A subagent definition of [`ContextUsage`].
///
/// ```
/// # use claude_agent_tokio::message::ContextAgent;
/// let agent: ContextAgent = serde_json::from_str(r#"{"agentType":"reviewer","source":"projectSettings","tokens":140}"#)?;
/// assert_eq!((agent.agent_type.as_str(), agent.tokens), ("reviewer", 140));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextAgent {
    /// The agent's type.
    #[serde(default, alias = "agent_type")]
    pub agent_type: String,
    /// Where it is defined.
    #[serde(default)]
    pub source: String,
    /// Its definition's tokens.
    #[serde(default)]
    pub tokens: u64,
}

/// How far the context of [`ContextUsage`] is over a limit.
///
/// ```
/// # use claude_agent_tokio::message::ContextOverLimit;
/// let over: ContextOverLimit = serde_json::from_str(r#"{"tokens_over":1200,"kind":"compaction_window"}"#)?;
/// assert_eq!(over.tokens_over, 1200);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextOverLimit {
    /// Tokens over it.
    #[serde(default, alias = "tokens_over")]
    pub tokens_over: u64,
    /// `hard_limit` (the window) or `compaction_window` (where compaction starts).
    #[serde(default)]
    pub kind: String,
}

/// A memory file of [`ContextUsage`].
///
/// ```
/// # use claude_agent_tokio::message::ContextMemoryFile;
/// let file: ContextMemoryFile =
///     serde_json::from_str(r#"{"path":"/w/CLAUDE.md","type":"Project","tokens":310}"#)?;
/// assert_eq!(file.kind, "Project");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ContextMemoryFile {
    /// Its path.
    pub path: String,
    /// Which kind of memory (`Project`, `User`, …).
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Tokens it takes.
    #[serde(default)]
    pub tokens: u64,
}

/// An MCP tool of [`ContextUsage`].
///
/// ```
/// # use claude_agent_tokio::message::ContextMcpTool;
/// let tool: ContextMcpTool =
///     serde_json::from_str(r#"{"name":"mcp__calc__add","serverName":"calc","tokens":120,"isLoaded":true}"#)?;
/// assert_eq!(tool.server_name, "calc");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextMcpTool {
    /// The tool's name.
    pub name: String,
    /// Its server.
    #[serde(default, alias = "server_name")]
    pub server_name: String,
    /// Tokens it takes.
    #[serde(default)]
    pub tokens: u64,
    /// Whether it is loaded (deferred tools are not, until used).
    pub is_loaded: Option<bool>,
}
