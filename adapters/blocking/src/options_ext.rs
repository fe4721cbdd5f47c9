//! Callbacks as plain closures: the blocking counterparts of the `Options` builder methods that
//! take async callbacks.

use std::sync::Arc;

use claude_agent_core::control::{
    ElicitationRequest, ElicitationResult, UserDialogRequest, UserDialogResult,
};
use claude_agent_core::hooks::{EventInput, HookEvent, HookInput, HookMatcher, HookOutput};
use claude_agent_core::options::Options;
use claude_agent_core::permission::{PermissionRequest, PermissionResult};

use crate::{ElicitationContext, HookContext, PermissionContext, UserDialogContext};

/// Callbacks as plain closures on [`Options`]: `use claude_agent_blocking::OptionsExt;` and each
/// async builder method (`on_permission_request`, `on_hook`, `on_hook_event`, `on_elicitation`,
/// `on_user_dialog`) has a counterpart named with `_blocking` that takes a closure returning the
/// answer itself.
///
/// Each call of a callback runs on a thread of smol's `blocking` pool, never on the thread that
/// drives sessions: a callback may take its time (ask the user on the terminal, call a service),
/// and other sessions, and the other callbacks of the same session, go on meanwhile. From inside
/// a callback, the context's [`client`](PermissionContext::client) steers the session (e.g.
/// [`Client::interrupt`](crate::Client::interrupt)). A panic in a callback becomes an error answer
/// to the CLI; the session goes on.
///
/// The other callbacks of `Options` are already plain: [`Options::on_stderr`] (which runs on the
/// session's own thread, so keep it short and make no [`Client`](crate::Client) call from it) and
/// in-process MCP tools made with this crate's [`tool`](crate::tool) or
/// [`typed_tool`](crate::typed_tool).
///
/// ```
/// use claude_agent_blocking::hooks::{HookOutput, PreToolUseInput};
/// use claude_agent_blocking::permission::PermissionResult;
/// use claude_agent_blocking::{Options, OptionsExt};
///
/// let options = Options::new()
///     .on_permission_request_blocking(|request, _ctx| match request.tool_name.as_str() {
///         "Read" | "Glob" | "Grep" => PermissionResult::allow(),
///         _ => PermissionResult::deny("This session may only read files."),
///     })
///     .on_hook_blocking(Some("Bash"), |input: PreToolUseInput, _ctx| {
///         eprintln!("about to run a command ({})", input.tool_use_id);
///         HookOutput::proceed()
///     });
/// # let _ = options;
/// ```
pub trait OptionsExt: sealed::Sealed + Sized {
    /// Decide tool permission prompts (the CLI's `can_use_tool`) with a plain closure: the
    /// counterpart of [`Options::on_permission_request`].
    ///
    /// ```
    /// use std::io::{BufRead, Write};
    /// use claude_agent_blocking::permission::PermissionResult;
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// // Ask on the terminal: the closure may block as long as it needs.
    /// let options = Options::new().on_permission_request_blocking(|request, _ctx| {
    ///     eprint!("Allow {}? [y/N] ", request.tool_name);
    ///     std::io::stderr().flush().ok();
    ///     let mut answer = String::new();
    ///     std::io::stdin().lock().read_line(&mut answer).ok();
    ///     if answer.trim() == "y" {
    ///         PermissionResult::allow()
    ///     } else {
    ///         PermissionResult::deny("the user said no")
    ///     }
    /// });
    /// # let _ = options;
    /// ```
    fn on_permission_request_blocking<F>(self, callback: F) -> Self
    where
        F: Fn(PermissionRequest, PermissionContext) -> PermissionResult + Send + Sync + 'static;

    /// Run `callback` on the hook event whose input type it takes (a [`PreToolUseInput`] on
    /// `PreToolUse`, a [`StopInput`] on `Stop`, …): the counterpart of [`Options::on_hook`].
    /// `matcher` is a tool-name pattern for tool events (`"Bash"`, `"Write|Edit"`), `None` for
    /// every call, or a [`HookMatcher`] that also sets a timeout and makes the hook fail closed
    /// (a fail-closed hook whose closure panics blocks the tool call instead of letting it run).
    ///
    /// [`PreToolUseInput`]: crate::hooks::PreToolUseInput
    /// [`StopInput`]: crate::hooks::StopInput
    ///
    /// ```
    /// use claude_agent_blocking::hooks::{HookMatcher, HookOutput, PreToolUseInput};
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let options = Options::new().on_hook_blocking(
    ///     HookMatcher::new("Bash").fail_closed(),
    ///     |input: PreToolUseInput, _ctx| {
    ///         let bash: Bash = input.tool_input_as().expect("a Bash call has a command");
    ///         if bash.command.starts_with("rm ") {
    ///             HookOutput::deny_tool("no rm")
    ///         } else {
    ///             HookOutput::proceed()
    ///         }
    ///     },
    /// );
    /// # let _ = options;
    /// ```
    fn on_hook_blocking<I, F>(self, matcher: impl Into<HookMatcher>, callback: F) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static;

    /// Run `callback` on `event`, with the event's input as a [`HookInput`]: the counterpart of
    /// [`Options::on_hook_event`]. The tool use id the CLI sends beside the input is
    /// [`HookContext::tool_use_id`].
    ///
    /// ```
    /// use claude_agent_blocking::hooks::{HookEvent, HookInput, HookOutput};
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// let options = Options::new().on_hook_event_blocking(HookEvent::PostToolUse, None, |input, ctx| {
    ///     if let HookInput::PostToolUse(post) = input {
    ///         println!("{} finished ({})", post.tool_name, ctx.tool_use_id().unwrap_or_default());
    ///     }
    ///     HookOutput::proceed()
    /// });
    /// # let _ = options;
    /// ```
    fn on_hook_event_blocking<F>(
        self,
        event: HookEvent,
        matcher: impl Into<HookMatcher>,
        callback: F,
    ) -> Self
    where
        F: Fn(HookInput, HookContext) -> HookOutput + Send + Sync + 'static;

    /// Answer MCP elicitations (a server asking the user for input) with a plain closure: the
    /// counterpart of [`Options::on_elicitation`]. Without one they are declined.
    ///
    /// ```
    /// use claude_agent_blocking::control::ElicitationResult;
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// let options = Options::new().on_elicitation_blocking(|request, _ctx| {
    ///     eprintln!("{} asks: {}", request.mcp_server_name, request.message);
    ///     let answer = serde_json::value::to_raw_value(&serde_json::json!({"name": "Ada"})).unwrap();
    ///     ElicitationResult::accept(answer)
    /// });
    /// # let _ = options;
    /// ```
    fn on_elicitation_blocking<F>(self, callback: F) -> Self
    where
        F: Fn(ElicitationRequest, ElicitationContext) -> ElicitationResult + Send + Sync + 'static;

    /// Show the user the CLI's dialogs of the kinds `kinds` with a plain closure: the
    /// counterpart of [`Options::on_user_dialog`]. The CLI sends only the kinds declared here.
    ///
    /// ```
    /// use claude_agent_blocking::control::UserDialogResult;
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// let options = Options::new().on_user_dialog_blocking(["refusal_fallback_prompt"], |request, _ctx| {
    ///     eprintln!("dialog {}: {}", request.dialog_kind, request.payload.get());
    ///     UserDialogResult::cancelled()
    /// });
    /// # let _ = options;
    /// ```
    fn on_user_dialog_blocking<I, S, F>(self, kinds: I, callback: F) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
        F: Fn(UserDialogRequest, UserDialogContext) -> UserDialogResult + Send + Sync + 'static;
}

impl OptionsExt for Options {
    fn on_permission_request_blocking<F>(self, callback: F) -> Self
    where
        F: Fn(PermissionRequest, PermissionContext) -> PermissionResult + Send + Sync + 'static,
    {
        let callback = Arc::new(callback);
        self.on_permission_request(move |request, ctx| {
            let callback = callback.clone();
            smol::unblock(move || callback(request, PermissionContext::new(ctx)))
        })
    }

    fn on_hook_blocking<I, F>(self, matcher: impl Into<HookMatcher>, callback: F) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.on_hook(matcher, unblocked(callback))
    }

    fn on_hook_event_blocking<F>(
        self,
        event: HookEvent,
        matcher: impl Into<HookMatcher>,
        callback: F,
    ) -> Self
    where
        F: Fn(HookInput, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.on_hook_event(event, matcher, unblocked(callback))
    }

    fn on_elicitation_blocking<F>(self, callback: F) -> Self
    where
        F: Fn(ElicitationRequest, ElicitationContext) -> ElicitationResult + Send + Sync + 'static,
    {
        let callback = Arc::new(callback);
        self.on_elicitation(move |request, ctx| {
            let callback = callback.clone();
            smol::unblock(move || callback(request, ElicitationContext::new(ctx)))
        })
    }

    fn on_user_dialog_blocking<I, S, F>(self, kinds: I, callback: F) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
        F: Fn(UserDialogRequest, UserDialogContext) -> UserDialogResult + Send + Sync + 'static,
    {
        let callback = Arc::new(callback);
        self.on_user_dialog(kinds, move |request, ctx| {
            let callback = callback.clone();
            smol::unblock(move || callback(request, UserDialogContext::new(ctx)))
        })
    }
}

/// A hook closure as the async callback `Options::on_hook` and `Options::on_hook_event` take:
/// each call runs on smol's blocking pool.
fn unblocked<I, F>(
    callback: F,
) -> impl Fn(I, claude_agent_core::client::HookContext) -> smol::Task<HookOutput> + Send + Sync + 'static
where
    I: Send + 'static,
    F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static,
{
    let callback = Arc::new(callback);
    move |input, ctx| {
        let callback = callback.clone();
        smol::unblock(move || callback(input, HookContext::new(ctx)))
    }
}

/// Keeps [`OptionsExt`] to [`Options`], so that methods can be added to it.
mod sealed {
    pub trait Sealed {}

    impl Sealed for claude_agent_core::options::Options {}
}
