//! Inputs of the prompt and display events: `UserPromptSubmit`, `UserPromptExpansion`,
//! `Notification` and `MessageDisplay`.

use serde::Deserialize;

use super::HookBase;

/// `UserPromptSubmit`: a prompt was submitted, before the model sees it.
///
/// ```
/// use claude_agent_tokio::hooks::{EventInput, HookOutput, UserPromptSubmitInput};
///
/// /// Refuse prompts with private keys in them; point the model at the style guide.
/// fn check_prompt(input: &UserPromptSubmitInput) -> HookOutput {
///     if input.prompt.contains("BEGIN PRIVATE KEY") {
///         HookOutput::block("Prompts must not contain private keys.")
///     } else {
///         HookOutput::default()
///             .with_additional_context(UserPromptSubmitInput::EVENT, "The team's style guide is in STYLE.md.")
///     }
/// }
///
/// // What the CLI sends (from a recorded session):
/// let input: UserPromptSubmitInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "prompt_id":"7b927f27-ca1b-4171-aa82-afe0df3bef3b","hook_event_name":"UserPromptSubmit","prompt":"BASH:echo hooked"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.prompt, "BASH:echo hooked");
/// assert_eq!(input.base.prompt_id.as_deref(), Some("7b927f27-ca1b-4171-aa82-afe0df3bef3b"));
/// assert_eq!(
///     check_prompt(&input),
///     HookOutput::default().with_additional_context(UserPromptSubmitInput::EVENT, "The team's style guide is in STYLE.md.")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct UserPromptSubmitInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The prompt text.
    pub prompt: String,
    /// Who sent it: `user`, `sdk`, `system`, `loop_wakeup`, `schedule_wakeup` or `poll_event`.
    #[serde(default)]
    pub source: Option<String>,
    /// The session's title, if it has one.
    #[serde(default)]
    pub session_title: Option<String>,
}

/// `UserPromptExpansion`: a slash command or MCP prompt was expanded.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, UserPromptExpansionInput};
///
/// fn log_expansion(input: &UserPromptExpansionInput) -> HookOutput {
///     eprintln!("/{} {} → {} chars", input.command_name, input.command_args, input.prompt.len());
///     HookOutput::default()
/// }
///
/// let input: UserPromptExpansionInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"review",
///     "command_args":"142","command_source":"project","prompt":"Review pull request 142: …"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.expansion_type.as_str(), input.command_name.as_str()), ("slash_command", "review"));
/// assert_eq!(log_expansion(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct UserPromptExpansionInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `slash_command` or `mcp_prompt`.
    pub expansion_type: String,
    /// The command's name.
    pub command_name: String,
    /// Its arguments.
    pub command_args: String,
    /// Where the command comes from.
    #[serde(default)]
    pub command_source: Option<String>,
    /// The expanded prompt.
    pub prompt: String,
}

/// `Notification`: the CLI shows a notification.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, NotificationInput};
///
/// fn log_notification(input: &NotificationInput) -> HookOutput {
///     eprintln!("[{}] {}", input.notification_type, input.message);
///     HookOutput::default()
/// }
///
/// let input: NotificationInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"Notification","message":"Claude needs your permission to use Bash",
///     "notification_type":"permission_prompt"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.notification_type, "permission_prompt");
/// assert_eq!(input.title, None);
/// assert_eq!(log_notification(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct NotificationInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The text.
    pub message: String,
    /// A title.
    #[serde(default)]
    pub title: Option<String>,
    /// What kind of notification.
    pub notification_type: String,
}

/// `MessageDisplay`: a piece of an assistant message is about to be displayed.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, MessageDisplayInput, MessageDisplayOutput};
///
/// /// Show no API key the model wrote out.
/// fn redact_keys(input: &MessageDisplayInput) -> HookOutput {
///     if !input.delta.contains("sk-ant-") {
///         return HookOutput::default();
///     }
///     let shown = MessageDisplayOutput { display_content: Some("[redacted]".into()) };
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::MessageDisplay(shown))
/// }
///
/// let input: MessageDisplayInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"MessageDisplay","turn_id":"t_3","message_id":"msg_01","index":0,"final":true,
///     "delta":"Done: the tests pass."}"#,
/// )
/// .unwrap();
/// assert!(input.is_final);
/// assert_eq!(input.index, 0);
/// assert_eq!(redact_keys(&input), HookOutput::default()); // no key: shown as it is
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct MessageDisplayInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The turn.
    pub turn_id: String,
    /// The message.
    pub message_id: String,
    /// Index of this piece.
    pub index: u64,
    /// Whether this is the last piece (`final` on the wire).
    #[serde(rename = "final")]
    pub is_final: bool,
    /// The text of this piece.
    pub delta: String,
}
