//! Inputs of the elicitation events: `Elicitation` and `ElicitationResult`.

use serde::Deserialize;

use super::HookBase;
use crate::Json;

/// `Elicitation`: an MCP server asks the user for input.
///
/// ```
/// # use claude_agent_tokio::Json;
/// use claude_agent_tokio::mcp::ElicitationAction;
/// use claude_agent_tokio::hooks::{ElicitationInput, ElicitationOutput, HookOutput, HookSpecificOutput};
///
/// /// Answer the `deploy` server's question for the user; leave every other one to them.
/// fn pick_staging(input: &ElicitationInput) -> HookOutput {
///     if input.mcp_server_name != "deploy" {
///         return HookOutput::default();
///     }
///     let answer = ElicitationOutput {
///         action: Some(ElicitationAction::Accept),
///         content: Some(r#"{"environment":"staging"}"#.parse::<Json>().unwrap()),
///     };
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::Elicitation(answer))
/// }
///
/// let input: ElicitationInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"Elicitation","mcp_server_name":"deploy","message":"Which environment?","mode":"form",
///     "elicitation_id":"elic_01","requested_schema":{"type":"object","properties":{"environment":{"type":"string"}}}}"#,
/// )
/// .unwrap();
/// assert_eq!((input.message.as_str(), input.mode.as_deref()), ("Which environment?", Some("form")));
/// assert_eq!(
///     pick_staging(&input).to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"environment":"staging"}}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ElicitationInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The MCP server asking.
    pub mcp_server_name: String,
    /// What it asks.
    pub message: String,
    /// `form` or `url`.
    #[serde(default)]
    pub mode: Option<String>,
    /// For `url` mode, the page to open.
    #[serde(default)]
    pub url: Option<String>,
    /// The elicitation's id.
    #[serde(default)]
    pub elicitation_id: Option<String>,
    /// JSON Schema of the wanted answer.
    #[serde(default)]
    pub requested_schema: Option<Json>,
}

/// `ElicitationResult`: the user answered an elicitation.
///
/// ```
/// use claude_agent_tokio::hooks::{ElicitationResultInput, HookOutput};
///
/// fn log_answer(input: &ElicitationResultInput) -> HookOutput {
///     eprintln!("{} answered {}: {:?}", input.mcp_server_name, input.action, input.content.as_ref().map(|c| c.as_str()));
///     HookOutput::default()
/// }
///
/// let input: ElicitationResultInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"ElicitationResult","mcp_server_name":"deploy","elicitation_id":"elic_01","mode":"form",
///     "action":"accept","content":{"environment":"staging"}}"#,
/// )
/// .unwrap();
/// assert_eq!(input.action, "accept");
/// assert_eq!(input.content.as_ref().unwrap().as_str(), r#"{"environment":"staging"}"#);
/// assert_eq!(log_answer(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ElicitationResultInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The MCP server that asked.
    pub mcp_server_name: String,
    /// The elicitation's id.
    #[serde(default)]
    pub elicitation_id: Option<String>,
    /// `form` or `url`.
    #[serde(default)]
    pub mode: Option<String>,
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The answer, for `accept`.
    #[serde(default)]
    pub content: Option<Json>,
}
