//! What a blocking callback gets besides its input: a way back to the session.

use std::fmt;

use crate::Client;

impl HookContext {
    /// The id of the tool use the call is about, as the CLI sent it beside the input; `None`
    /// for events that concern no tool use.
    ///
    /// ```
    /// use claude_agent_blocking::HookContext;
    ///
    /// assert_eq!(HookContext::default().tool_use_id(), None);
    /// ```
    pub fn tool_use_id(&self) -> Option<&str> {
        self.inner.tool_use_id()
    }
}

macro_rules! context {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Default)]
        pub struct $name {
            inner: claude_agent_client::$name,
        }

        impl $name {
            pub(crate) fn new(inner: claude_agent_client::$name) -> Self {
                $name { inner }
            }

            /// A [`Client`] for the running session, to call from inside the callback (e.g.
            /// [`Client::interrupt`]). It does not block the session: callbacks run on threads of
            /// their own. Do not read messages here, though: the turn waits for this callback's
            /// answer. Once the session is gone, and for a default context (which has no
            /// session), it is the client of an ended session: its calls fail with
            /// [`Error::Closed`](crate::Error::Closed).
            ///
            /// ```
            #[doc = concat!("use claude_agent_blocking::{Error, ", stringify!($name), "};")]
            ///
            #[doc = concat!("let client = ", stringify!($name), "::default().client();")]
            /// assert!(matches!(client.interrupt(), Err(Error::Closed)));
            /// ```
            pub fn client(&self) -> Client {
                Client::from_async(self.inner.client())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
    };
}

context! {
    /// What a [`callback::permission`](crate::callback::permission) closure gets besides the
    /// request.
    ///
    /// The default context has no session behind it: it is what a unit test passes to call the
    /// callback directly, with no CLI running.
    ///
    /// ```
    /// use claude_agent_blocking::permission::{PermissionRequest, PermissionResult};
    /// use claude_agent_blocking::{Options, callback, PermissionContext};
    ///
    /// fn no_shell(request: PermissionRequest, _ctx: PermissionContext) -> PermissionResult {
    ///     if request.tool_name == "Bash" {
    ///         PermissionResult::deny("no shell here")
    ///     } else {
    ///         PermissionResult::allow()
    ///     }
    /// }
    /// let _options = Options::new().on_permission_request(callback::permission(no_shell));
    ///
    /// // In a unit test:
    /// let request: PermissionRequest =
    ///     serde_json::from_str(r#"{"tool_name":"Bash","input":{},"tool_use_id":"toolu_1"}"#).unwrap();
    /// assert_eq!(no_shell(request, PermissionContext::default()), PermissionResult::deny("no shell here"));
    /// ```
    PermissionContext
}

context! {
    /// What a [`callback::hook`](crate::callback::hook) closure gets besides its input.
    ///
    /// The default context has no session behind it: it is what a unit test passes to call the
    /// callback directly, with no CLI running.
    ///
    /// ```
    /// use claude_agent_blocking::hooks::{HookOutput, StopInput};
    /// use claude_agent_blocking::{HookContext, Options, callback};
    ///
    /// fn keep_going(input: StopInput, _ctx: HookContext) -> HookOutput {
    ///     if input.stop_hook_active {
    ///         HookOutput::default()
    ///     } else {
    ///         HookOutput::block("run the tests first")
    ///     }
    /// }
    /// let _options = Options::new().on_hook(None, callback::hook(keep_going));
    ///
    /// // In a unit test:
    /// let input: StopInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","stop_hook_active":false}"#,
    /// )
    /// .unwrap();
    /// assert_eq!(keep_going(input, HookContext::default()), HookOutput::block("run the tests first"));
    /// ```
    HookContext
}

context! {
    /// What a [`callback::elicitation`](crate::callback::elicitation) closure
    /// gets besides the request.
    ///
    /// The default context has no session behind it: it is what a unit test passes to call the
    /// callback directly, with no CLI running.
    ///
    /// ```
    /// use claude_agent_blocking::mcp::{ElicitationAction, ElicitationRequest, ElicitationResult};
    /// use claude_agent_blocking::{ElicitationContext, Options, callback};
    ///
    /// fn decline_all(_request: ElicitationRequest, _ctx: ElicitationContext) -> ElicitationResult {
    ///     ElicitationResult::decline()
    /// }
    /// let _options = Options::new().on_elicitation(callback::elicitation(decline_all));
    ///
    /// // In a unit test:
    /// let request: ElicitationRequest =
    ///     serde_json::from_str(r#"{"mcp_server_name":"m","message":"Your name?"}"#).unwrap();
    /// let result = decline_all(request, ElicitationContext::default());
    /// assert_eq!(result.action, ElicitationAction::Decline);
    /// ```
    ElicitationContext
}

context! {
    /// What a [`callback::user_dialog`](crate::callback::user_dialog) closure
    /// gets besides the request.
    ///
    /// The default context has no session behind it: it is what a unit test passes to call the
    /// callback directly, with no CLI running.
    ///
    /// ```
    /// use claude_agent_blocking::control::{UserDialogRequest, UserDialogResult};
    /// use claude_agent_blocking::{Options, callback, UserDialogContext};
    ///
    /// fn dismiss(_request: UserDialogRequest, _ctx: UserDialogContext) -> UserDialogResult {
    ///     UserDialogResult::cancelled()
    /// }
    /// let _options = Options::new().on_user_dialog(["refusal_fallback_prompt"], callback::user_dialog(dismiss));
    ///
    /// // In a unit test:
    /// let request: UserDialogRequest =
    ///     serde_json::from_str(r#"{"dialog_kind":"refusal_fallback_prompt","payload":{}}"#).unwrap();
    /// assert_eq!(dismiss(request, UserDialogContext::default()), UserDialogResult::cancelled());
    /// ```
    UserDialogContext
}
