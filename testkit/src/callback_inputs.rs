//! The values your callbacks are called with, to unit-test a callback by calling it: a
//! permission request, and the input of any hook event, shaped as the real CLI sends them (the
//! same inputs the fake CLI sends). The SDK's types are `#[non_exhaustive]` and read from the
//! wire, so these functions build the wire JSON and read it the way a session does.
//!
//! ```
//! use claude_agent_tokio::{HookContext, PermissionContext};
//! use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
//! use claude_agent_tokio::permission::{PermissionRequest, PermissionResult};
//! use claude_agent_testkit::callback_inputs::{permission_request, pre_tool_use};
//! use claude_agent_testkit::fake_cli::ToolUse;
//! use serde_json::json;
//!
//! // The app's callbacks, as it registers them with `on_permission_request` and `on_hook`.
//! async fn no_shell(request: PermissionRequest, _ctx: PermissionContext) -> PermissionResult {
//!     if request.tool_name == "Bash" { PermissionResult::deny("no shell") } else { PermissionResult::allow() }
//! }
//! async fn no_rm(input: PreToolUseInput, _ctx: HookContext) -> HookOutput {
//!     if input.tool_input.as_str().contains("rm ") { HookOutput::deny_tool("no rm") } else { HookOutput::proceed() }
//! }
//!
//! # futures_lite::future::block_on(async {
//! let rm = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf build"}));
//! assert_eq!(no_shell(permission_request(&rm), PermissionContext::default()).await, PermissionResult::deny("no shell"));
//! assert_eq!(no_rm(pre_tool_use(&rm), HookContext::default()).await, HookOutput::deny_tool("no rm"));
//! # });
//! ```

use claude_agent_core::hooks::{
    EventInput, HookInput, PostToolUseInput, PreToolUseInput, StopInput, UserPromptSubmitInput,
};
use claude_agent_core::permission::PermissionRequest;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::fake_cli::hooks;
use crate::fake_cli::script::can_use_tool_request;
use crate::fake_cli::ToolUse;

/// The input of a hook of the event `I` is for, with the fields every hook input carries
/// (session, transcript path, working directory, prompt id, permission mode, effort) and then
/// `fields`, which win. For the events without a shortcut below.
///
/// Panics with the parser's message if the fields do not make an input of that event (a
/// required field missing, one of the wrong type), as a test should.
///
/// ```
/// use claude_agent_tokio::hooks::{SessionStartInput, TeammateIdleInput};
/// use claude_agent_testkit::callback_inputs::hook_input;
/// use serde_json::json;
///
/// let start: SessionStartInput = hook_input(json!({"source": "resume"}));
/// assert_eq!(start.source, "resume");
/// let idle: TeammateIdleInput = hook_input(json!({"teammate_name": "ada", "team_name": "core"}));
/// assert_eq!(idle.teammate_name, "ada");
/// ```
pub fn hook_input<I: EventInput>(fields: Value) -> I {
    let event = I::EVENT;
    let json = hooks::input(event.as_str(), None, fields);
    let input = HookInput::parse(&json.to_string())
        .unwrap_or_else(|error| panic!("not a {event} hook input ({error}): {json}"));
    I::from_hook_input(input)
        .unwrap_or_else(|other| panic!("a {event} input was read as {}", other.event()))
}

/// The `PreToolUse` input for `tool_use`, as the CLI sends it before the tool runs.
///
/// ```
/// use claude_agent_testkit::callback_inputs::pre_tool_use;
/// use claude_agent_testkit::fake_cli::ToolUse;
/// use serde_json::json;
///
/// let input = pre_tool_use(&ToolUse::new("toolu_1", "Bash", json!({"command": "ls"})));
/// assert_eq!((input.tool_name.as_str(), input.tool_use_id.as_str()), ("Bash", "toolu_1"));
/// assert_eq!(input.tool_input.as_str(), r#"{"command":"ls"}"#);
/// ```
pub fn pre_tool_use(tool_use: &ToolUse) -> PreToolUseInput {
    hook_input(with_tool_name(
        tool_use,
        hooks::pre_tool_use_fields(tool_use),
    ))
}

/// The `PostToolUse` input for `tool_use`, which returned `tool_response`.
///
/// ```
/// use claude_agent_testkit::callback_inputs::post_tool_use;
/// use claude_agent_testkit::fake_cli::ToolUse;
/// use serde_json::json;
///
/// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
/// let input = post_tool_use(&ls, json!({"stdout": "src", "stderr": "", "interrupted": false}));
/// assert!(input.tool_response.as_str().contains("src"));
/// ```
pub fn post_tool_use(tool_use: &ToolUse, tool_response: Value) -> PostToolUseInput {
    hook_input(with_tool_name(
        tool_use,
        hooks::post_tool_use_fields(tool_use, tool_response),
    ))
}

/// The `UserPromptSubmit` input for `prompt`.
///
/// ```
/// use claude_agent_testkit::callback_inputs::user_prompt_submit;
///
/// assert_eq!(user_prompt_submit("hello").prompt, "hello");
/// ```
pub fn user_prompt_submit(prompt: &str) -> UserPromptSubmitInput {
    hook_input(json!({ "prompt": prompt }))
}

/// The `Stop` input at the end of a turn whose last text was `last_assistant_message`, with
/// no stop hook active yet.
///
/// ```
/// use claude_agent_testkit::callback_inputs::stop;
///
/// let input = stop("All done.");
/// assert!(!input.stop_hook_active);
/// assert_eq!(input.last_assistant_message.as_deref(), Some("All done."));
/// ```
pub fn stop(last_assistant_message: &str) -> StopInput {
    hook_input(hooks::stop_fields(last_assistant_message))
}

/// The permission request the CLI sends to ask whether `tool_use` may run.
///
/// ```
/// use claude_agent_testkit::callback_inputs::permission_request;
/// use claude_agent_testkit::fake_cli::ToolUse;
/// use serde_json::json;
///
/// let request = permission_request(&ToolUse::new("toolu_1", "Write", json!({"file_path": "/etc/hosts"})));
/// assert_eq!(request.tool_name, "Write");
/// assert_eq!(request.tool_input.as_str(), r#"{"file_path":"/etc/hosts"}"#);
/// ```
pub fn permission_request(tool_use: &ToolUse) -> PermissionRequest {
    let json = can_use_tool_request(&tool_use.name, &tool_use.input, &tool_use.id);
    PermissionRequest::deserialize(&json)
        .unwrap_or_else(|error| panic!("not a permission request ({error}): {json}"))
}

/// `fields` with the tool's name, which tool events carry.
fn with_tool_name(tool_use: &ToolUse, mut fields: Value) -> Value {
    fields["tool_name"] = json!(tool_use.name);
    fields
}
