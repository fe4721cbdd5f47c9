//! Callbacks as plain closures: the blocking counterparts of the `Options` builder methods that
//! take async callbacks.

use std::sync::Arc;
use std::time::Duration;

use claude_agent_core::control::{
    ElicitationRequest, ElicitationResult, UserDialogRequest, UserDialogResult,
};
use claude_agent_core::hooks::{EventInput, HookEvent, HookInput, HookMatcher, HookOutput};
use claude_agent_core::options::Options;
use claude_agent_core::permission::{PermissionRequest, PermissionResult};

use crate::{ElicitationContext, HookContext, PermissionContext, UserDialogContext};

/// Callbacks as plain closures on [`Options`]: `use claude_agent_blocking::OptionsExt;` and each
/// async builder method (`can_use_tool`, `on_hook`, `hook`, `on_elicitation`, `on_user_dialog`)
/// has a counterpart
/// named with `_blocking` that takes a closure returning the answer itself.
///
/// Each call of a callback runs on a thread of smol's `blocking` pool, never on the thread that
/// drives sessions: a callback may take its time (ask the user on the terminal, call a service),
/// and other sessions, and the other callbacks of the same session, go on meanwhile. From inside
/// a callback, the context's [`client`](PermissionContext::client) steers the session (e.g.
/// [`Client::interrupt`](crate::Client::interrupt)). A panic in a callback becomes an error answer
/// to the CLI; the session goes on.
///
/// The other callbacks of `Options` are already plain: [`Options::stderr`] (which runs on the
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
///     .can_use_tool_blocking(|request, _ctx| match request.tool_name.as_str() {
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
    /// counterpart of [`Options::can_use_tool`].
    ///
    /// ```
    /// use std::io::{BufRead, Write};
    /// use claude_agent_blocking::permission::PermissionResult;
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// // Ask on the terminal: the closure may block as long as it needs.
    /// let options = Options::new().can_use_tool_blocking(|request, _ctx| {
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
    fn can_use_tool_blocking<F>(self, callback: F) -> Self
    where
        F: Fn(PermissionRequest, PermissionContext) -> PermissionResult + Send + Sync + 'static;

    /// Run `callback` on the hook event whose input type it takes (a [`PreToolUseInput`] on
    /// `PreToolUse`, a [`StopInput`] on `Stop`, …): the counterpart of [`Options::on_hook`].
    /// For tool events `matcher` is a tool-name pattern (`"Bash"`, `"Write|Edit"`); `None`
    /// matches everything.
    ///
    /// [`PreToolUseInput`]: crate::hooks::PreToolUseInput
    /// [`StopInput`]: crate::hooks::StopInput
    ///
    /// ```
    /// use claude_agent_blocking::hooks::{HookOutput, PreToolUseInput};
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let options = Options::new().on_hook_blocking(Some("Bash"), |input: PreToolUseInput, _ctx| {
    ///     match input.tool_input_as::<Bash>() {
    ///         Ok(bash) if bash.command.starts_with("rm ") => HookOutput::deny_tool("no rm"),
    ///         _ => HookOutput::proceed(),
    ///     }
    /// });
    /// # let _ = options;
    /// ```
    fn on_hook_blocking<I, F>(self, matcher: Option<&str>, callback: F) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static;

    /// [`OptionsExt::on_hook_blocking`] with a timeout the CLI applies to the callback (default
    /// 60 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_blocking::hooks::{HookOutput, PostToolUseInput};
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// let options = Options::new().on_hook_with_timeout_blocking(
    ///     Some("Write|Edit"),
    ///     Duration::from_secs(5),
    ///     |input: PostToolUseInput, _ctx| {
    ///         HookOutput::default().with_system_message(format!("{} done", input.tool_name))
    ///     },
    /// );
    /// assert_eq!(options.get_declared_hooks()[0].timeout_secs, Some(5.0));
    /// ```
    fn on_hook_with_timeout_blocking<I, F>(
        self,
        matcher: Option<&str>,
        timeout: Duration,
        callback: F,
    ) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static;

    /// [`OptionsExt::on_hook_blocking`] with a [`HookMatcher`], which can also set a timeout
    /// and make the hook fail closed: the counterpart of [`Options::on_hook_with`]. A fail-closed
    /// hook whose closure panics blocks the tool call instead of letting it run.
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
    /// let options = Options::new().on_hook_with_blocking(
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
    fn on_hook_with_blocking<I, F>(self, matcher: HookMatcher, callback: F) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static;

    /// Run `callback` on `event`, with the event's input as a [`HookInput`] and the tool use id
    /// the CLI sends beside it: the counterpart of [`Options::hook`]. Prefer
    /// [`OptionsExt::on_hook_blocking`], whose callback takes its event's own input type.
    ///
    /// ```
    /// use claude_agent_blocking::hooks::{HookEvent, HookInput, HookOutput};
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// let options = Options::new().hook_blocking(HookEvent::PostToolUse, None, |input, tool_use_id, _ctx| {
    ///     if let HookInput::PostToolUse(post) = input {
    ///         println!("{} finished ({})", post.tool_name, tool_use_id.unwrap_or_default());
    ///     }
    ///     HookOutput::proceed()
    /// });
    /// # let _ = options;
    /// ```
    fn hook_blocking<F>(self, event: HookEvent, matcher: Option<&str>, callback: F) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> HookOutput + Send + Sync + 'static;

    /// [`OptionsExt::hook_blocking`] with a timeout the CLI applies to the callback (default
    /// 60 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_blocking::hooks::{HookEvent, HookOutput};
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// let options = Options::new().hook_with_timeout_blocking(
    ///     HookEvent::Stop,
    ///     None,
    ///     Duration::from_secs(10),
    ///     |_input, _tool_use_id, _ctx| HookOutput::proceed(),
    /// );
    /// assert_eq!(options.get_declared_hooks()[0].timeout_secs, Some(10.0));
    /// ```
    fn hook_with_timeout_blocking<F>(
        self,
        event: HookEvent,
        matcher: Option<&str>,
        timeout: Duration,
        callback: F,
    ) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> HookOutput + Send + Sync + 'static;

    /// [`OptionsExt::hook_blocking`] with a [`HookMatcher`]: the counterpart of
    /// [`Options::hook_with`].
    ///
    /// ```
    /// use claude_agent_blocking::hooks::{HookEvent, HookInput, HookMatcher, HookOutput};
    /// use claude_agent_blocking::{Options, OptionsExt};
    ///
    /// let options = Options::new().hook_with_blocking(
    ///     HookEvent::PreToolUse,
    ///     HookMatcher::all().fail_closed(),
    ///     |input, _tool_use_id, _ctx| match input {
    ///         HookInput::PreToolUse(pre) if pre.tool_name == "WebFetch" => {
    ///             HookOutput::deny_tool("no network")
    ///         }
    ///         _ => HookOutput::proceed(),
    ///     },
    /// );
    /// # let _ = options;
    /// ```
    fn hook_with_blocking<F>(self, event: HookEvent, matcher: HookMatcher, callback: F) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> HookOutput + Send + Sync + 'static;

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
    fn can_use_tool_blocking<F>(self, callback: F) -> Self
    where
        F: Fn(PermissionRequest, PermissionContext) -> PermissionResult + Send + Sync + 'static,
    {
        let callback = Arc::new(callback);
        self.can_use_tool(move |request, ctx| {
            let callback = callback.clone();
            smol::unblock(move || callback(request, PermissionContext::new(ctx)))
        })
    }

    fn on_hook_blocking<I, F>(self, matcher: Option<&str>, callback: F) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.on_hook(matcher, typed_hook(callback))
    }

    fn on_hook_with_timeout_blocking<I, F>(
        self,
        matcher: Option<&str>,
        timeout: Duration,
        callback: F,
    ) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.on_hook_with_timeout(matcher, timeout, typed_hook(callback))
    }

    fn on_hook_with_blocking<I, F>(self, matcher: HookMatcher, callback: F) -> Self
    where
        I: EventInput + Send + 'static,
        F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.on_hook_with(matcher, typed_hook(callback))
    }

    fn hook_blocking<F>(self, event: HookEvent, matcher: Option<&str>, callback: F) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.hook(event, matcher, untyped_hook(callback))
    }

    fn hook_with_timeout_blocking<F>(
        self,
        event: HookEvent,
        matcher: Option<&str>,
        timeout: Duration,
        callback: F,
    ) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.hook_with_timeout(event, matcher, timeout, untyped_hook(callback))
    }

    fn hook_with_blocking<F>(self, event: HookEvent, matcher: HookMatcher, callback: F) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> HookOutput + Send + Sync + 'static,
    {
        self.hook_with(event, matcher, untyped_hook(callback))
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

/// A typed hook closure as the async callback `Options::on_hook` takes.
fn typed_hook<I, F>(
    callback: F,
) -> impl Fn(I, claude_agent_core::client::HookContext) -> smol::Task<HookOutput> + Send + Sync + 'static
where
    I: EventInput + Send + 'static,
    F: Fn(I, HookContext) -> HookOutput + Send + Sync + 'static,
{
    let callback = Arc::new(callback);
    move |input, ctx| {
        let callback = callback.clone();
        smol::unblock(move || callback(input, HookContext::new(ctx)))
    }
}

/// An untyped hook closure as the async callback `Options::hook` takes.
fn untyped_hook<F>(
    callback: F,
) -> impl Fn(
    HookInput,
    Option<String>,
    claude_agent_core::client::HookContext,
) -> smol::Task<HookOutput>
       + Send
       + Sync
       + 'static
where
    F: Fn(HookInput, Option<String>, HookContext) -> HookOutput + Send + Sync + 'static,
{
    let callback = Arc::new(callback);
    move |input, tool_use_id, ctx| {
        let callback = callback.clone();
        smol::unblock(move || callback(input, tool_use_id, HookContext::new(ctx)))
    }
}

/// Keeps [`OptionsExt`] to [`Options`], so that methods can be added to it.
mod sealed {
    pub trait Sealed {}

    impl Sealed for claude_agent_core::options::Options {}
}
