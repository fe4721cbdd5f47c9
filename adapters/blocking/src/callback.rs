//! Plain closures as the callbacks [`Options`] takes: wrap the closure with the function named
//! after its callback, and give the result to the usual method (`on_permission_request`,
//! `on_hook`, `on_hook_event`, `on_elicitation`, `on_user_dialog`). There is no second set of
//! methods and no trait to import.
//!
//! Each call of a wrapped closure runs on a thread of smol's `blocking` pool, never on the
//! thread that drives sessions: a callback may take its time (ask the user on the terminal,
//! call a service), and other sessions, and the other callbacks of the same session, go on
//! meanwhile. From inside a callback, the context's [`client`](PermissionContext::client)
//! steers the session (e.g. [`Client::interrupt`](crate::Client::interrupt)). A panic in a
//! callback becomes an error answer to the CLI; the session goes on.
//!
//! The other callbacks of `Options` are already plain: [`Options::on_stderr`] (which runs on
//! the session's own thread, so keep it short and make no [`Client`](crate::Client) call from
//! it) and in-process MCP tools made with this crate's [`tool`](crate::mcp::tool) or
//! [`typed_tool`](crate::mcp::typed_tool).
//!
//! ```
//! use claude_agent_blocking::hooks::{HookOutput, PreToolUseInput};
//! use claude_agent_blocking::permission::PermissionResult;
//! use claude_agent_blocking::{callback, Options};
//!
//! let options = Options::new()
//!     .on_permission_request(callback::permission(|request, _ctx| match request.tool_name.as_str() {
//!         "Read" | "Glob" | "Grep" => PermissionResult::allow(),
//!         _ => PermissionResult::deny("This session may only read files."),
//!     }))
//!     .on_hook("Bash", callback::hook(|input: PreToolUseInput, _ctx| {
//!         eprintln!("about to run a command ({})", input.tool_use_id);
//!         HookOutput::proceed()
//!     }));
//! # let _ = options;
//! ```
//!
//! [`Options`]: crate::Options
//! [`Options::on_stderr`]: crate::Options::on_stderr

use std::sync::Arc;

use claude_agent_core::control::{UserDialogRequest, UserDialogResult};
use claude_agent_core::hooks::HookOutput;
use claude_agent_core::mcp::{ElicitationRequest, ElicitationResult};
use claude_agent_core::permission::{PermissionRequest, PermissionResult};

use crate::{ElicitationContext, HookContext, PermissionContext, UserDialogContext};

/// A plain closure as the callback `Options::on_permission_request` takes.
///
/// ```
/// use std::io::{BufRead, Write};
/// use claude_agent_blocking::permission::PermissionResult;
/// use claude_agent_blocking::{callback, Options};
///
/// // Ask on the terminal: the closure may block as long as it needs.
/// let options = Options::new().on_permission_request(callback::permission(|request, _ctx| {
///     eprint!("Allow {}? [y/N] ", request.tool_name);
///     std::io::stderr().flush().ok();
///     let mut answer = String::new();
///     std::io::stdin().lock().read_line(&mut answer).ok();
///     if answer.trim() == "y" {
///         PermissionResult::allow()
///     } else {
///         PermissionResult::deny("the user said no")
///     }
/// }));
/// # let _ = options;
/// ```
pub fn permission<F>(
    callback: F,
) -> impl Fn(PermissionRequest, claude_agent_client::PermissionContext) -> smol::Task<PermissionResult>
       + Send
       + Sync
       + 'static
where
    F: Fn(PermissionRequest, PermissionContext) -> PermissionResult + Send + Sync + 'static,
{
    unblocked(callback, PermissionContext::new)
}

/// A plain closure as the callback `Options::on_hook` (whose input type picks the event: a
/// [`PreToolUseInput`](crate::hooks::PreToolUseInput) runs on `PreToolUse`, …) or
/// `Options::on_hook_event` (whose input is a [`HookInput`](crate::hooks::HookInput)) takes.
/// Name the input's type on the closure's parameter. The tool use id the CLI sends beside the
/// input is [`HookContext::tool_use_id`].
///
/// ```
/// use claude_agent_blocking::hooks::{HookEvent, HookInput, HookMatcher, HookOutput, PreToolUseInput};
/// use claude_agent_blocking::{callback, Options};
///
/// #[derive(serde::Deserialize)]
/// struct Bash {
///     command: String,
/// }
///
/// let options = Options::new()
///     // A guard that blocks the call if it breaks.
///     .on_hook(
///         HookMatcher::new("Bash").fail_closed(),
///         callback::hook(|input: PreToolUseInput, _ctx| {
///             let bash: Bash = input.tool_input.parse().expect("a Bash call has a command");
///             if bash.command.starts_with("rm ") {
///                 HookOutput::deny_tool("no rm")
///             } else {
///                 HookOutput::proceed()
///             }
///         }),
///     )
///     .on_hook_event(
///         HookEvent::PostToolUse,
///         None,
///         callback::hook(|input: HookInput, ctx| {
///             if let HookInput::PostToolUse(post) = input {
///                 println!("{} finished ({})", post.tool_name, ctx.tool_use_id().unwrap_or_default());
///             }
///             HookOutput::proceed()
///         }),
///     );
/// # let _ = options;
/// ```
pub fn hook<I, F>(
    callback: F,
) -> impl Fn(I, claude_agent_client::HookContext) -> smol::Task<HookOutput> + Send + Sync + 'static
where
    I: Send + 'static,
    F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static,
{
    unblocked(callback, HookContext::new)
}

/// A plain closure as the callback `Options::on_elicitation` takes (an MCP server asking the
/// user for input; without a callback it is declined).
///
/// ```
/// use claude_agent_blocking::mcp::ElicitationResult;
/// use claude_agent_blocking::{callback, Options};
///
/// let options = Options::new().on_elicitation(callback::elicitation(|request, _ctx| {
///     eprintln!("{} asks: {}", request.mcp_server_name, request.message);
///     ElicitationResult::accept(serde_json::json!({"name": "Ada"}))
/// }));
/// # let _ = options;
/// ```
pub fn elicitation<F>(
    callback: F,
) -> impl Fn(
    ElicitationRequest,
    claude_agent_client::ElicitationContext,
) -> smol::Task<ElicitationResult>
       + Send
       + Sync
       + 'static
where
    F: Fn(ElicitationRequest, ElicitationContext) -> ElicitationResult + Send + Sync + 'static,
{
    unblocked(callback, ElicitationContext::new)
}

/// A plain closure as the callback `Options::on_user_dialog` takes (the CLI's dialogs of the
/// kinds declared there).
///
/// ```
/// use claude_agent_blocking::control::UserDialogResult;
/// use claude_agent_blocking::{callback, Options};
///
/// let options = Options::new().on_user_dialog(
///     ["refusal_fallback_prompt"],
///     callback::user_dialog(|request, _ctx| {
///         eprintln!("dialog {}: {}", request.dialog_kind, request.payload);
///         UserDialogResult::cancelled()
///     }),
/// );
/// # let _ = options;
/// ```
pub fn user_dialog<F>(
    callback: F,
) -> impl Fn(UserDialogRequest, claude_agent_client::UserDialogContext) -> smol::Task<UserDialogResult>
       + Send
       + Sync
       + 'static
where
    F: Fn(UserDialogRequest, UserDialogContext) -> UserDialogResult + Send + Sync + 'static,
{
    unblocked(callback, UserDialogContext::new)
}

/// `callback` as an async callback: each call runs on smol's blocking pool, with the session's
/// context turned into this crate's by `context`.
fn unblocked<A, C, B, R, F>(
    callback: F,
    context: fn(C) -> B,
) -> impl Fn(A, C) -> smol::Task<R> + Send + Sync + 'static
where
    A: Send + 'static,
    C: Send + 'static,
    B: 'static,
    R: Send + 'static,
    F: Fn(A, B) -> R + Send + Sync + 'static,
{
    let callback = Arc::new(callback);
    move |input, ctx| {
        let callback = callback.clone();
        smol::unblock(move || callback(input, context(ctx)))
    }
}
