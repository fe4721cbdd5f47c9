use serde::Deserialize;

use super::InboundId;
use crate::hooks::HookInput;
use crate::hooks::HookRef;
use crate::mcp::{ElicitationRequest, PromptGet, ResourceRead, ToolCall};
use crate::permission::PermissionRequest;
use crate::Json;

/// A request from the CLI that the host must answer with [`crate::session::Session::respond`].
///
/// A host driving a [`Session`](crate::session::Session) itself answers a permission prompt like
/// this (the request is the one a real CLI sent for `ls -la /`):
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::control::{InboundKind, Reply};
/// use claude_agent_tokio::permission::PermissionResult;
/// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig, Transmit};
///
/// let now = Instant::now();
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.can_use_tool = true; // the host answers `can_use_tool`
/// let mut session = Session::new(config, now);
///
/// session.handle_stdout(now, br#"{"type":"control_request","request_id":"0f340601-0e16-4764-92e4-fc1465c611a6","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"ls -la /","description":"run"},"permission_suggestions":[],"blocked_path":"/","tool_use_id":"toolu_fake_1_1"}}
/// "#);
/// let Some(Event::Inbound(request)) = session.poll_event() else { panic!("no request") };
/// assert_eq!(request.wire_id, "0f340601-0e16-4764-92e4-fc1465c611a6");
/// let InboundKind::CanUseTool(ask) = &request.kind else { panic!("not a permission prompt") };
/// let answer = match ask.blocked_path {
///     Some(_) => PermissionResult::deny("not allowed by policy"),
///     None => PermissionResult::allow(),
/// };
/// session.respond(now, request.id, Reply::Permission(answer)).unwrap();
///
/// // The `initialize` request queued at start, then the answer, for the CLI's stdin:
/// let Some(Transmit::Write(bytes)) = session.poll_transmit() else { panic!("nothing to write") };
/// let written = String::from_utf8(bytes).unwrap();
/// assert!(written.lines().last().unwrap().contains(r#""behavior":"deny","message":"not allowed by policy""#));
/// ```
#[derive(Debug, Clone, PartialEq)]
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
///
/// A host answers each kind with the [`Reply`](super::Reply) variant that fits it:
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::control::{InboundKind, Reply};
/// use claude_agent_tokio::mcp::ElicitationResult;
/// use claude_agent_tokio::hooks::{HookEvent, HookOutput};
/// use claude_agent_tokio::mcp::ToolResult;
/// use claude_agent_tokio::permission::PermissionResult;
/// use claude_agent_tokio::session::{Event, HookMatcherConfig, InputMode, Session, SessionConfig};
///
/// fn answer(kind: &InboundKind) -> Reply {
///     match kind {
///         InboundKind::CanUseTool(ask) if ask.tool_name == "Read" => Reply::Permission(PermissionResult::allow()),
///         InboundKind::CanUseTool(ask) => Reply::Permission(PermissionResult::deny(format!("{} is not allowed", ask.tool_name))),
///         InboundKind::HookCallback(_) => Reply::Hook(HookOutput::default()),
///         InboundKind::McpToolCall(call) => Reply::ToolResult(ToolResult::error(format!("{} is not available", call.tool))),
///         InboundKind::Elicitation(_) => Reply::Elicitation(ElicitationResult::decline()),
///         _ => Reply::error("not supported by this host"),
///     }
/// }
///
/// // A session with one `Stop` hook, and the CLI calling it (as recorded from a real CLI).
/// let now = Instant::now();
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.hooks.push(HookMatcherConfig::new(HookEvent::Stop, None, 1));
/// let mut session = Session::new(config, now);
/// session.handle_stdout(now, br#"{"type":"control_request","request_id":"ca74e3c1-9684-4797-9616-98eb0a387994","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl","cwd":"/tmp/ws","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done: hooked"},"tool_use_id":"669be580-a205-4f93-92a1-1d5684521471"}}
/// "#);
/// while let Some(event) = session.poll_event() {
///     if let Event::Inbound(request) = event {
///         session.respond(now, request.id, answer(&request.kind)).unwrap();
///     }
/// }
/// assert_eq!(session.pending_inbound(), 0);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InboundKind {
    /// May this tool run? Answer with [`super::Reply::Permission`].
    CanUseTool(PermissionRequest),
    /// A registered hook fired. Answer with [`super::Reply::Hook`].
    HookCallback(HookCallback),
    /// The model called a tool of an in-process MCP server. Answer with [`super::Reply::ToolResult`].
    McpToolCall(ToolCall),
    /// The CLI reads a resource of an in-process MCP server. Answer with
    /// [`super::Reply::Resource`].
    McpResourceRead(ResourceRead),
    /// The CLI gets a prompt of an in-process MCP server. Answer with [`super::Reply::Prompt`].
    McpPromptGet(PromptGet),
    /// An MCP server asks the user for input. Answer with [`super::Reply::Elicitation`].
    Elicitation(ElicitationRequest),
    /// The CLI asks the host to show the user a dialog of a kind it declared. Answer with
    /// [`super::Reply::UserDialog`].
    UserDialog(UserDialogRequest),
}

/// A `hook_callback` request, resolved to the hook the host registered.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::control::{InboundKind, Reply};
/// use claude_agent_tokio::hooks::{HookEvent, HookInput, HookOutput};
/// use claude_agent_tokio::session::{Event, HookMatcherConfig, InputMode, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.hooks.push(HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 1));
/// let mut session = Session::new(config, now);
/// session.handle_stdout(now, br#"{"type":"control_request","request_id":"4969c313-ed48-4fa6-9d6c-97a5ecc57bc9","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{"session_id":"c6c6f19f-3d54-4dd3-913e-eaa37765a6e2","transcript_path":"/home/user/.claude/projects/-tmp-ws/c6c6f19f-3d54-4dd3-913e-eaa37765a6e2.jsonl","cwd":"/tmp/ws","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la /","description":"run"},"tool_use_id":"toolu_fake_3_1"},"tool_use_id":"toolu_fake_3_1"}}
/// "#);
/// let Some(Event::Inbound(request)) = session.poll_event() else { panic!("no request") };
/// let InboundKind::HookCallback(hook) = &request.kind else { panic!("not a hook callback") };
/// assert_eq!(hook.callback_id, "hook_0");
/// assert_eq!((hook.hook.event.clone(), hook.hook.matcher_index), (HookEvent::PreToolUse, 0));
/// assert_eq!(hook.tool_use_id.as_deref(), Some("toolu_fake_3_1"));
/// let HookInput::PreToolUse(input) = &hook.input else { panic!("not a PreToolUse input") };
/// assert_eq!(input.tool_name, "Bash");
/// session.respond(now, request.id, Reply::Hook(HookOutput::deny_tool("Stay inside the workspace."))).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
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

/// A `request_user_dialog` request: the CLI asks the host to show the user a dialog and send
/// back their choice. Only kinds the host declared (`Options::on_user_dialog`) are sent; each
/// kind defines its own payload and answer.
///
/// ```
/// # use claude_agent_tokio::control::UserDialogRequest;
/// let request: UserDialogRequest = serde_json::from_str(
///     r#"{"dialog_kind":"refusal_fallback_prompt","payload":{"originalModel":"claude-opus-4-1","fallbackModel":"claude-sonnet-4-5"},"tool_use_id":"toolu_1"}"#,
/// )?;
/// assert_eq!(request.dialog_kind, "refusal_fallback_prompt");
/// assert!(request.payload.as_str().contains("fallbackModel"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct UserDialogRequest {
    /// Which dialog (`refusal_fallback_prompt`, …): the kinds are an open set.
    pub dialog_kind: String,
    /// The data to show, as the kind defines it (a JSON object).
    pub payload: Json,
    /// The tool use the dialog is about, if any: the same id `can_use_tool` gives.
    pub tool_use_id: Option<String>,
}
