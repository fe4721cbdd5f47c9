//! [`SdkAnswer`]: the SDK's answer to a request of the fake CLI, read as the type the callback
//! returned.

use claude_agent_core::control::UserDialogResult;
use claude_agent_core::hooks::HookOutput;
use claude_agent_core::mcp::{ElicitationResult, ToolResult};
use claude_agent_core::permission::PermissionResult;
use claude_agent_core::Json;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The SDK's answer to one of the fake CLI's requests, read according to what the request was,
/// so that a test compares it with the value its callback returns.
///
/// ```
/// use claude_agent_tokio::runtime::query_with;
/// use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
/// use claude_agent_tokio::Options;
/// use claude_agent_tokio::permission::PermissionResult;
/// use claude_agent_testkit::fake_cli::{Script, ToolUse};
/// use claude_agent_testkit::{runtime::TestRuntime, transport::{FakeTransport, SdkAnswer}};
/// use futures_lite::StreamExt;
/// use serde_json::json;
///
/// let rm = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf target"}));
/// let script = Script::new()
///     .answer_initialize()
///     .expect_user()
///     .pre_tool_use_hook("h1", &rm)
///     .can_use_tool("p1", "Bash", json!({"command": "ls"}))
///     .emit_result("ok");
/// let fake = FakeTransport::new(script);
/// let options = Options::new()
///     .transport(fake.clone())
///     .on_hook("Bash", |_input: PreToolUseInput, _ctx| async { HookOutput::deny_tool("no rm") })
///     .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
/// let runtime = TestRuntime::new();
/// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "clean up", options).collect());
///
/// let answers = fake.answers();
/// assert_eq!(answers[0], ("h1".to_owned(), SdkAnswer::Hook(HookOutput::deny_tool("no rm"))));
/// assert_eq!(answers[1], ("p1".to_owned(), SdkAnswer::Permission(PermissionResult::allow())));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SdkAnswer {
    /// To a `can_use_tool` prompt. An allow that kept the model's input reads back as
    /// `PermissionResult::allow()` (`updated_input: None`), although the wire repeats the input.
    Permission(PermissionResult),
    /// To a `hook_callback`.
    Hook(HookOutput),
    /// To an `mcp_message` that called a tool (`tools/call`): the tool's result.
    ToolResult(ToolResult),
    /// To any other `mcp_message` (the handshake, `tools/list`, resources, prompts, or a
    /// JSON-RPC error): the server's JSON-RPC answer.
    Mcp(Json),
    /// To an `elicitation`.
    Elicitation(ElicitationResult),
    /// To a `request_user_dialog`.
    UserDialog(UserDialogResult),
    /// An error answer (a callback that failed or panicked, or none registered): its text.
    Error(String),
    /// An answer to a request of another kind, or one that does not read as its kind: its body.
    Other(Json),
}

impl SdkAnswer {
    /// Reads `outcome`, the SDK's answer to `request` (the `request` object the fake CLI sent,
    /// when it is known).
    pub(crate) fn read(request: Option<&Value>, outcome: Result<Value, String>) -> SdkAnswer {
        let body = match outcome {
            Ok(body) => body,
            Err(error) => return SdkAnswer::Error(error),
        };
        let subtype = request
            .and_then(|r| r["subtype"].as_str())
            .unwrap_or_default();
        let typed = match subtype {
            "can_use_tool" => read::<PermissionResult>(&body).map(|answer| {
                SdkAnswer::Permission(without_echoed_input(answer, request.map(|r| &r["input"])))
            }),
            "hook_callback" => read(&body).map(SdkAnswer::Hook),
            "elicitation" => read(&body).map(SdkAnswer::Elicitation),
            "request_user_dialog" => read(&body).map(SdkAnswer::UserDialog),
            "mcp_message" => mcp_answer(request, &body),
            _ => None,
        };
        typed.unwrap_or_else(|| SdkAnswer::Other(Json::from(body)))
    }
}

fn read<T: DeserializeOwned>(body: &Value) -> Option<T> {
    // Through text: `Json` fields read only from a JSON text.
    serde_json::from_str(&body.to_string()).ok()
}

/// An allow whose input is the request's own: the callback kept the model's input.
fn without_echoed_input(answer: PermissionResult, input: Option<&Value>) -> PermissionResult {
    match &answer {
        PermissionResult::Allow {
            updated_input: Some(updated),
            ..
        } if input.is_some_and(|input| updated.to_value() == *input) => {
            let mut kept = PermissionResult::allow();
            if let PermissionResult::Allow {
                updated_permissions,
                decision_classification,
                tool_use_id,
                ..
            } = answer
            {
                kept = kept.with_updated_permissions(updated_permissions);
                if let Some(classification) = decision_classification {
                    kept = kept.with_decision_classification(classification);
                }
                if let Some(id) = tool_use_id {
                    kept = kept.with_tool_use_id(id);
                }
            }
            kept
        }
        _ => answer,
    }
}

fn mcp_answer(request: Option<&Value>, body: &Value) -> Option<SdkAnswer> {
    let response = body.get("mcp_response")?;
    let called_tool = request.and_then(|r| r["message"]["method"].as_str()) == Some("tools/call");
    match response.get("result") {
        Some(result) if called_tool => read(result).map(SdkAnswer::ToolResult),
        _ => Some(SdkAnswer::Mcp(Json::from(response.clone()))),
    }
}
