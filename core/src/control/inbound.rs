use serde::Deserialize;
use serde_json::value::RawValue;

use super::InboundId;
use crate::hooks::HookInput;
use crate::mcp::ToolCall;
use crate::permission::PermissionRequest;
use crate::session::HookRef;

/// A request from the CLI that the host must answer with [`crate::session::Session::respond`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct InboundRequest {
    /// Pass this to `respond`.
    pub id: InboundId,
    /// The CLI's own `request_id` (a UUID), for logs.
    pub wire_id: String,
    /// What is asked.
    pub kind: InboundKind,
}

/// What an [`InboundRequest`] asks for.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum InboundKind {
    /// May this tool run? Answer with [`super::Reply::Permission`].
    CanUseTool(PermissionRequest),
    /// A registered hook fired. Answer with [`super::Reply::Hook`].
    HookCallback(HookCallback),
    /// The model called a tool of an in-process MCP server. Answer with [`super::Reply::ToolResult`].
    McpToolCall(ToolCall),
    /// An MCP server asks the user for input. Answer with [`super::Reply::Elicitation`].
    Elicitation(ElicitationRequest),
    /// The CLI asks the host to show the user a dialog of a kind it declared. Answer with
    /// [`super::Reply::UserDialog`].
    UserDialog(UserDialogRequest),
}

/// A `hook_callback` request, resolved to the hook the host registered.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HookCallback {
    /// The callback id on the wire (`hook_N`).
    pub callback_id: String,
    /// Which registered hook this is.
    pub hook: HookRef,
    /// The event's input.
    pub input: HookInput,
    /// The tool use this is about, when the CLI gives one.
    pub tool_use_id: Option<String>,
}

/// An `elicitation` request: an MCP server wants input from the user.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// The MCP server asking.
    pub mcp_server_name: String,
    /// What to ask the user.
    pub message: String,
    /// `form` or `url`.
    pub mode: Option<String>,
    /// For `url` mode, the page to open.
    pub url: Option<String>,
    /// The elicitation's id.
    pub elicitation_id: Option<String>,
    /// JSON Schema of the wanted answer (`form` mode).
    pub requested_schema: Option<Box<RawValue>>,
    /// Title to show.
    pub title: Option<String>,
    /// Display name of the server.
    pub display_name: Option<String>,
    /// Longer description.
    pub description: Option<String>,
}

/// A `request_user_dialog` request: the CLI asks the host to show the user a dialog and send
/// back their choice. Only kinds the host declared (`Options::on_user_dialog`) are sent; each
/// kind defines its own payload and answer.
///
/// ```
/// # use claude_agent_core::control::UserDialogRequest;
/// let request: UserDialogRequest = serde_json::from_str(
///     r#"{"dialog_kind":"refusal_fallback_prompt","payload":{"originalModel":"claude-opus-4-1","fallbackModel":"claude-sonnet-4-5"},"tool_use_id":"toolu_1"}"#,
/// )?;
/// assert_eq!(request.dialog_kind, "refusal_fallback_prompt");
/// assert!(request.payload.get().contains("fallbackModel"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct UserDialogRequest {
    /// Which dialog (`refusal_fallback_prompt`, …): the kinds are an open set.
    pub dialog_kind: String,
    /// The data to show, as the kind defines it (a JSON object).
    pub payload: Box<RawValue>,
    /// The tool use the dialog is about, if any: the same id `can_use_tool` gives.
    pub tool_use_id: Option<String>,
}
