//! Inputs of the prompt and display events: `UserPromptSubmit`, `UserPromptExpansion`,
//! `Notification` and `MessageDisplay`.

use serde::Deserialize;

use super::HookBase;

/// `UserPromptSubmit`: a prompt was submitted, before the model sees it.
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
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
