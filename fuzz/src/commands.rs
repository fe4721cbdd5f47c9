//! The host's commands in fuzzable form: which control request to send, which reply to give,
//! which user message to queue. Each kind maps to one real value of the core's API.

use std::time::Duration;

use arbitrary::Arbitrary;
use claude_agent_core::control::{
    ContextUsageDetail, ControlRequest, ElicitationResult, Reply, ThinkingDisplay,
};
use claude_agent_core::hooks::{HookEvent, HookOutput};
use claude_agent_core::mcp::ToolResult;
use claude_agent_core::message::{InputBlock, UserInput};
use claude_agent_core::permission::{PermissionMode, PermissionResult};
use serde_json::value::RawValue;

use crate::driver::InboundTag;

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).expect("the harness's JSON literals are valid")
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
    /// A subtype the core has no variant for.
    Raw,
}

impl RequestKind {
    /// Every variant, in declaration order (the order `arbitrary` numbers them).
    pub const ALL: [RequestKind; 12] = [
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
            _ => RequestKind::Raw,
        }
    }

    /// The request.
    pub fn request(self) -> ControlRequest {
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
    pub const ALL: [ReplyKind; 17] = [
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
            (ReplyKind::Fitting, InboundTag::Elicitation) => ReplyKind::ElicitDecline,
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
