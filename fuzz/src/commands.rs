//! The host's commands in fuzzable form: which control request to send, which reply to give,
//! which user message to queue. Each kind maps to one real value of the core's API.

use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use claude_agent_core::control::{
    ContextUsageDetail, ControlRequest, ReadFile, ReloadPlugins, Reply, RequestId, SettingsFile,
    UserDialogResult,
};
use claude_agent_core::hooks::{HookEvent, HookOutput};
use claude_agent_core::mcp::{
    ElicitationResult, McpServerSpec, PromptResult, ResourceResult, ToolResult,
};
use claude_agent_core::message::{InputBlock, UserInput};
use claude_agent_core::options::McpServerConfig;
use claude_agent_core::options::ThinkingDisplay;
use claude_agent_core::permission::{PermissionMode, PermissionResult};
use claude_agent_core::session::{RequestError, Session};
use claude_agent_core::Json;

use crate::configs;

fn raw(json: &str) -> Json {
    json.parse().expect("the harness's JSON literals are valid")
}

/// What kind of answer an open inbound request expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboundTag {
    /// `can_use_tool`.
    Permission,
    /// `hook_callback`.
    Hook,
    /// `mcp_message` `tools/call`.
    ToolCall,
    /// `mcp_message` `resources/read`.
    Resource,
    /// `mcp_message` `prompts/get`.
    Prompt,
    /// `elicitation`.
    Elicitation,
    /// `request_user_dialog`.
    UserDialog,
    /// A kind this harness does not know.
    Other,
}

/// A control request of ours.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// `interrupt`.
    Interrupt,
    /// `set_model`.
    SetModel,
    /// `set_model` back to the default.
    ResetModel,
    /// `set_permission_mode`.
    SetPermissionMode,
    /// `mcp_status`.
    McpStatus,
    /// `get_context_usage`.
    GetContextUsage,
    /// `set_max_thinking_tokens`.
    SetMaxThinkingTokens,
    /// `stop_task`.
    StopTask,
    /// `rewind_files`.
    RewindFiles,
    /// `mcp_toggle`.
    McpToggle,
    /// `mcp_set_servers`.
    McpSetServers,
    /// `initialize` again, mid-session.
    Reinitialize,
    /// `update_settings`.
    UpdateSettings,
    /// `reload_plugins`.
    ReloadPlugins,
    /// `read_file`.
    ReadFile,
    /// `mcp_read_resource`.
    McpReadResource,
    /// [`Session::set_mcp_servers`] keeping `calc` and adding an in-process `extra` server.
    AddInProcessServer,
    /// [`Session::set_mcp_servers`] with no in-process server: the session stops serving `calc`.
    DropInProcessServers,
    /// A subtype the core has no variant for.
    Raw,
}

impl RequestKind {
    /// Every variant, in declaration order (the order `arbitrary` numbers them).
    pub const ALL: [RequestKind; 19] = [
        RequestKind::Interrupt,
        RequestKind::SetModel,
        RequestKind::ResetModel,
        RequestKind::SetPermissionMode,
        RequestKind::McpStatus,
        RequestKind::GetContextUsage,
        RequestKind::SetMaxThinkingTokens,
        RequestKind::StopTask,
        RequestKind::RewindFiles,
        RequestKind::McpToggle,
        RequestKind::McpSetServers,
        RequestKind::Reinitialize,
        RequestKind::UpdateSettings,
        RequestKind::ReloadPlugins,
        RequestKind::ReadFile,
        RequestKind::McpReadResource,
        RequestKind::AddInProcessServer,
        RequestKind::DropInProcessServers,
        RequestKind::Raw,
    ];

    /// The variant a recorded request `subtype` corresponds to.
    pub fn from_subtype(subtype: &str) -> RequestKind {
        match subtype {
            "interrupt" => RequestKind::Interrupt,
            "set_model" => RequestKind::SetModel,
            "set_permission_mode" => RequestKind::SetPermissionMode,
            "mcp_status" => RequestKind::McpStatus,
            "get_context_usage" => RequestKind::GetContextUsage,
            "set_max_thinking_tokens" => RequestKind::SetMaxThinkingTokens,
            "stop_task" => RequestKind::StopTask,
            "rewind_files" => RequestKind::RewindFiles,
            "mcp_toggle" => RequestKind::McpToggle,
            "mcp_set_servers" => RequestKind::McpSetServers,
            "update_settings" => RequestKind::UpdateSettings,
            "reload_plugins" => RequestKind::ReloadPlugins,
            "read_file" => RequestKind::ReadFile,
            "mcp_read_resource" => RequestKind::McpReadResource,
            _ => RequestKind::Raw,
        }
    }

    /// Send the request on `session`.
    pub fn issue(self, session: &mut Session, now: Instant) -> Result<RequestId, RequestError> {
        let request = match self {
            RequestKind::AddInProcessServer => {
                let servers = vec![configs::calc(), McpServerSpec::new("extra", "0.1.0")];
                return session.set_mcp_servers(now, servers, &[]);
            }
            RequestKind::DropInProcessServers => {
                let external = [(
                    "docs".to_owned(),
                    McpServerConfig::http("http://127.0.0.1:9/mcp"),
                )];
                return session.set_mcp_servers(now, Vec::new(), &external);
            }
            other => other.request(),
        };
        session.request(now, request)
    }

    fn request(self) -> ControlRequest {
        match self {
            RequestKind::Interrupt => ControlRequest::Interrupt,
            RequestKind::SetModel => ControlRequest::SetModel {
                model: Some("claude-haiku-9".into()),
            },
            RequestKind::ResetModel => ControlRequest::SetModel { model: None },
            RequestKind::SetPermissionMode => ControlRequest::SetPermissionMode {
                mode: PermissionMode::AcceptEdits,
            },
            RequestKind::McpStatus => ControlRequest::McpStatus,
            RequestKind::GetContextUsage => ControlRequest::GetContextUsage {
                detail: Some(ContextUsageDetail::Full),
            },
            RequestKind::SetMaxThinkingTokens => ControlRequest::SetMaxThinkingTokens {
                max_thinking_tokens: Some(1000),
                thinking_display: ThinkingDisplay::Summarized.into(),
            },
            RequestKind::StopTask => ControlRequest::StopTask {
                task_id: "t1".into(),
            },
            RequestKind::RewindFiles => ControlRequest::RewindFiles {
                user_message_id: "u\"1\n".into(),
                dry_run: true,
            },
            RequestKind::McpToggle => ControlRequest::McpToggle {
                server_name: "calc".into(),
                enabled: false,
            },
            RequestKind::McpSetServers => ControlRequest::McpSetServers {
                servers: raw(r#"{"x":{"type":"stdio","command":"x"}}"#),
            },
            RequestKind::Reinitialize => ControlRequest::Reinitialize,
            RequestKind::UpdateSettings => ControlRequest::UpdateSettings {
                source: SettingsFile::Local,
                settings: raw(r#"{"model":"claude-haiku-9"}"#),
            },
            RequestKind::ReloadPlugins => ControlRequest::ReloadPlugins(ReloadPlugins::new()),
            RequestKind::ReadFile => ControlRequest::ReadFile(ReadFile::new("/tmp/notes.md")),
            RequestKind::McpReadResource => ControlRequest::McpReadResource {
                server_name: "calc".into(),
                uri: "calc://constants/pi".into(),
            },
            RequestKind::AddInProcessServer | RequestKind::DropInProcessServers => {
                unreachable!("issue() sends these with Session::set_mcp_servers")
            }
            RequestKind::Raw => ControlRequest::Raw {
                subtype: "bogus_subtype".into(),
                body: raw(r#"{"a":[1,2]}"#),
            },
        }
    }
}

/// A reply to an inbound request; some kinds fit only some requests, on purpose.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// Allow the tool.
    Allow,
    /// Allow with a changed input.
    AllowUpdatedInput,
    /// Deny the tool.
    Deny,
    /// Deny and interrupt.
    DenyInterrupt,
    /// `{"continue":true}`.
    HookProceed,
    /// Deny the tool from a hook.
    HookDenyTool,
    /// Stop the agent from a hook.
    HookStop,
    /// An async hook.
    HookAsync,
    /// Extra context from a hook.
    HookContext,
    /// A text tool result.
    ToolText,
    /// A failed tool result.
    ToolError,
    /// Accept an elicitation.
    ElicitAccept,
    /// Decline an elicitation.
    ElicitDecline,
    /// A resource's contents.
    Resource,
    /// A prompt's messages.
    Prompt,
    /// The user's choice in a dialog.
    DialogCompleted,
    /// The user closed a dialog.
    DialogCancelled,
    /// A control error.
    Error,
    /// A control error with a code.
    ErrorWithCode,
    /// A raw success body.
    Raw,
    /// Whatever fits the request (the usual answer).
    Fitting,
}

impl ReplyKind {
    /// Every variant, in declaration order (the order `arbitrary` numbers them).
    pub const ALL: [ReplyKind; 21] = [
        ReplyKind::Allow,
        ReplyKind::AllowUpdatedInput,
        ReplyKind::Deny,
        ReplyKind::DenyInterrupt,
        ReplyKind::HookProceed,
        ReplyKind::HookDenyTool,
        ReplyKind::HookStop,
        ReplyKind::HookAsync,
        ReplyKind::HookContext,
        ReplyKind::ToolText,
        ReplyKind::ToolError,
        ReplyKind::ElicitAccept,
        ReplyKind::ElicitDecline,
        ReplyKind::Resource,
        ReplyKind::Prompt,
        ReplyKind::DialogCompleted,
        ReplyKind::DialogCancelled,
        ReplyKind::Error,
        ReplyKind::ErrorWithCode,
        ReplyKind::Raw,
        ReplyKind::Fitting,
    ];

    /// The reply, for a request of kind `tag`.
    pub fn reply(self, tag: InboundTag) -> Reply {
        let kind = match (self, tag) {
            (ReplyKind::Fitting, InboundTag::Permission) => ReplyKind::Allow,
            (ReplyKind::Fitting, InboundTag::Hook) => ReplyKind::HookProceed,
            (ReplyKind::Fitting, InboundTag::ToolCall) => ReplyKind::ToolText,
            (ReplyKind::Fitting, InboundTag::Resource) => ReplyKind::Resource,
            (ReplyKind::Fitting, InboundTag::Prompt) => ReplyKind::Prompt,
            (ReplyKind::Fitting, InboundTag::Elicitation) => ReplyKind::ElicitDecline,
            (ReplyKind::Fitting, InboundTag::UserDialog) => ReplyKind::DialogCancelled,
            (ReplyKind::Fitting, InboundTag::Other) => ReplyKind::Raw,
            (kind, _) => kind,
        };
        match kind {
            ReplyKind::Allow => Reply::Permission(PermissionResult::allow()),
            ReplyKind::AllowUpdatedInput => Reply::Permission(
                PermissionResult::allow().with_updated_input(raw(r#"{"command":"ls"}"#)),
            ),
            ReplyKind::Deny => Reply::Permission(PermissionResult::deny("no \"way\"\n")),
            ReplyKind::DenyInterrupt => {
                Reply::Permission(PermissionResult::deny_and_interrupt("stop"))
            }
            ReplyKind::HookProceed => Reply::Hook(HookOutput::proceed()),
            ReplyKind::HookDenyTool => Reply::Hook(HookOutput::deny_tool("hook says no")),
            ReplyKind::HookStop => Reply::Hook(HookOutput::stop("enough")),
            ReplyKind::HookAsync => {
                Reply::Hook(HookOutput::async_(Some(Duration::from_millis(1500))))
            }
            ReplyKind::HookContext => Reply::Hook(
                HookOutput::proceed()
                    .with_additional_context(HookEvent::PostToolUse, "ctx\u{2028}"),
            ),
            ReplyKind::ToolText => Reply::ToolResult(ToolResult::text("42")),
            ReplyKind::ToolError => Reply::ToolResult(ToolResult::error("bad")),
            ReplyKind::ElicitAccept => {
                Reply::Elicitation(ElicitationResult::accept(raw(r#"{"name":"x"}"#)))
            }
            ReplyKind::ElicitDecline => Reply::Elicitation(ElicitationResult::decline()),
            ReplyKind::Resource => {
                Reply::Resource(ResourceResult::text("calc://constants/pi", "3.14159"))
            }
            ReplyKind::Prompt => {
                Reply::Prompt(PromptResult::user("Explain \"sums\"\n").with_description("explain"))
            }
            ReplyKind::DialogCompleted => {
                Reply::UserDialog(UserDialogResult::completed(raw(r#"{"choice":"fallback"}"#)))
            }
            ReplyKind::DialogCancelled => Reply::UserDialog(UserDialogResult::cancelled()),
            ReplyKind::Error => Reply::error("host failed"),
            ReplyKind::ErrorWithCode => Reply::Error {
                message: "nope".into(),
                code: Some("not_allowed".into()),
            },
            ReplyKind::Raw | ReplyKind::Fitting => Reply::Raw(raw(r#"{"behavior":"allow"}"#)),
        }
    }
}

/// A user message of ours.
pub fn user_input(n: u8) -> UserInput {
    match n % 4 {
        0 => UserInput::text("hello"),
        1 => UserInput::text("line\nbreak \"quoted\" \u{0}"),
        2 => UserInput::blocks(vec![
            InputBlock::text("look"),
            InputBlock::raw(raw(r#"{"type":"text","text":"raw"}"#)),
        ]),
        _ => UserInput::text("sub").with_parent_tool_use_id("toolu_1"),
    }
}
