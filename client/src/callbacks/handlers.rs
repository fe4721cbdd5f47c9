//! The user's callbacks and the other host values of the options, in [`Handlers`].

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::callbacks::sdk_mcp::SdkMcpServer;
use crate::control::{UserDialogRequest, UserDialogResult};
use crate::hooks::{HookInput, HookOutput};
use crate::mcp::{ElicitationRequest, ElicitationResult};
use crate::options::HostDeclarations;
use crate::permission::{PermissionRequest, PermissionResult};
use crate::process::runtime::BoxFuture;
use crate::process::transport::TransportRef;
use crate::session::HookMatcherConfig;
use crate::task::message_queue::Shared;
use crate::Client;

pub(crate) type CanUseToolFn = Arc<
    dyn Fn(PermissionRequest, PermissionContext) -> BoxFuture<'static, PermissionResult>
        + Send
        + Sync,
>;
/// A hook callback; `Err` is an error reply to the CLI instead of an output (a typed callback
/// given another event's input).
pub(crate) type HookFn = Arc<
    dyn Fn(HookInput, HookContext) -> BoxFuture<'static, Result<HookOutput, String>> + Send + Sync,
>;
pub(crate) type ElicitationFn = Arc<
    dyn Fn(ElicitationRequest, ElicitationContext) -> BoxFuture<'static, ElicitationResult>
        + Send
        + Sync,
>;
pub(crate) type UserDialogFn = Arc<
    dyn Fn(UserDialogRequest, UserDialogContext) -> BoxFuture<'static, UserDialogResult>
        + Send
        + Sync,
>;
pub(crate) type StderrFn = Arc<dyn Fn(&str) + Send + Sync>;

/// The host values of the options, what runs in this process for a session: the user's
/// callbacks (permission prompt, hooks, in-process MCP servers, elicitation, dialogs, stderr),
/// the session store, the fleet, the transport and the recording.
///
/// Filled by the builder methods on [`crate::Options`] (`on_permission_request`,
/// `on_hook`, `on_hook_event`, `sdk_mcp_server`, `on_elicitation`, `on_user_dialog`,
/// `on_stderr`, `session_store`, `fleet`, `transport`, `record_to`);
/// [`Handlers::declarations`] tells the session which requests they answer.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) can_use_tool: Option<CanUseToolFn>,
    /// Hook callbacks with their matchers, in registration order.
    pub(crate) hooks: Vec<(HookMatcherConfig, HookFn)>,
    pub(crate) mcp_servers: Vec<SdkMcpServer>,
    pub(crate) elicitation: Option<ElicitationFn>,
    /// The dialog kinds the callback renders, and the callback.
    pub(crate) user_dialog: Option<(Vec<String>, UserDialogFn)>,
    pub(crate) stderr: Option<StderrFn>,
    /// Where transcripts are mirrored to and resumed from.
    pub(crate) session_store: Option<Arc<dyn crate::store::SessionStore>>,
    pub(crate) store_flush: crate::StoreFlush,
    pub(crate) store_load_timeout: Option<std::time::Duration>,
    /// The file every line of the session is appended to.
    pub(crate) record_to: Option<PathBuf>,
    /// Where the session's connection comes from, in place of spawning the CLI.
    pub(crate) transport: Option<TransportRef>,
    /// The fleet the session counts in, and under which key.
    pub(crate) fleet: Option<crate::FleetMember>,
    /// Which values these are: a fresh one with every change.
    pub(crate) id: HostId,
}

/// Which host values (callbacks, session store, transport, recording, fleet) a set of options
/// holds, as a number that tells sets apart without comparing code: every builder method that
/// sets one of them gives the options a new id, and clones keep it. Options that hold none
/// have [`HostId::NONE`].
///
/// A [`SparePool`](crate::SparePool) hands a spare only to options with the id (and the
/// settings) it was started with, since the spare runs the callbacks it was started with: build
/// each kind of host options once and pass clones of that value.
///
/// ```
/// use claude_agent_tokio::HostId;
/// use claude_agent_tokio::options::Options;
/// use claude_agent_tokio::permission::PermissionResult;
///
/// assert_eq!(Options::new().model("sonnet").get_host_id(), HostId::NONE);
/// let host = Options::new().on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
/// assert_ne!(host.get_host_id(), HostId::NONE);
/// // Clones, and settings changed on them, keep it; another callback makes another id.
/// assert_eq!(host.clone().model("sonnet").get_host_id(), host.get_host_id());
/// let other = Options::new().on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
/// assert_ne!(other.get_host_id(), host.get_host_id());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostId(u64);

impl HostId {
    /// The id of options that hold no host values.
    pub const NONE: HostId = HostId(0);

    /// An id no set of options has had before in this process.
    pub(crate) fn next() -> HostId {
        static LAST: AtomicU64 = AtomicU64::new(0);
        HostId(LAST.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

impl fmt::Debug for Handlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handlers")
            .field("can_use_tool", &self.can_use_tool.is_some())
            .field("hooks", &self.hooks.len())
            .field("mcp_servers", &self.mcp_servers)
            .field("elicitation", &self.elicitation.is_some())
            .field(
                "user_dialog",
                &self.user_dialog.as_ref().map(|(kinds, _)| kinds),
            )
            .field("stderr", &self.stderr.is_some())
            .field("session_store", &self.session_store.is_some())
            .field("store_flush", &self.store_flush)
            .field("store_load_timeout", &self.store_load_timeout)
            .field("record_to", &self.record_to)
            .field("transport", &self.transport.is_some())
            .field("fleet", &self.fleet)
            .field("id", &self.id)
            .finish()
    }
}

impl Handlers {
    /// Which of the CLI's requests these callbacks answer, and what the CLI must print for the
    /// session store.
    pub(crate) fn declarations(&self) -> HostDeclarations {
        let mut declarations = HostDeclarations::default();
        declarations.can_use_tool = self.can_use_tool.is_some();
        declarations.elicitation = self.elicitation.is_some();
        declarations.user_dialog_kinds = self.user_dialog.as_ref().map(|(kinds, _)| kinds.clone());
        declarations.session_mirror = self.session_store.is_some();
        declarations.hooks = self
            .hooks
            .iter()
            .map(|(matcher, _)| matcher.clone())
            .collect();
        declarations.sdk_mcp_servers = self.mcp_servers.iter().map(SdkMcpServer::spec).collect();
        declarations
    }
}

/// A way back to the session from inside a callback, that does not keep the session alive.
/// The default one has no session behind it.
#[derive(Clone, Default)]
pub(crate) struct SessionRef(pub(crate) Weak<Shared>);

impl SessionRef {
    fn client(&self) -> Client {
        Client::from_shared(self.0.upgrade().unwrap_or_else(Shared::ended))
    }
}

/// What an `on_permission_request` callback gets besides the request.
///
/// The default context has no session behind it ([`PermissionContext::client`] is that of an ended
/// session): it is what a unit test passes to call the callback directly, with no CLI running.
///
/// ```
/// use claude_agent_tokio::PermissionContext;
/// use claude_agent_tokio::options::Options;
/// use claude_agent_tokio::permission::{PermissionRequest, PermissionResult};
///
/// // The callback under test, as it is registered with `Options::on_permission_request`.
/// async fn no_shell(request: PermissionRequest, _ctx: PermissionContext) -> PermissionResult {
///     if request.tool_name == "Bash" {
///         PermissionResult::deny("no shell here")
///     } else {
///         PermissionResult::allow()
///     }
/// }
/// let _options = Options::default().on_permission_request(no_shell);
///
/// // In a test (e.g. `#[tokio::test] async fn ...`):
/// # futures_lite::future::block_on(async {
/// let request: PermissionRequest = serde_json::from_str(
///     r#"{"tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}"#,
/// )
/// .unwrap();
/// let result = no_shell(request, PermissionContext::default()).await;
/// assert_eq!(result, PermissionResult::deny("no shell here"));
/// # });
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct PermissionContext {
    session: SessionRef,
}

/// What a hook callback gets besides its input.
///
/// The default context has no session behind it ([`HookContext::client`] is that of an ended
/// session): it is what a unit test passes to call the callback directly, with no CLI running.
///
/// ```
/// use claude_agent_tokio::HookContext;
/// use claude_agent_tokio::hooks::{HookEvent, HookInput, HookOutput};
/// use claude_agent_tokio::options::Options;
///
/// // The callback under test, as it is registered with `Options::on_hook_event`.
/// async fn no_rm(input: HookInput, ctx: HookContext) -> HookOutput {
///     match input {
///         HookInput::PreToolUse(pre) if pre.tool_input.as_str().contains("rm ") => {
///             HookOutput::deny_tool(format!("no rm ({})", ctx.tool_use_id().unwrap_or("?")))
///         }
///         _ => HookOutput::default(),
///     }
/// }
/// let _options = Options::default().on_hook_event(HookEvent::PreToolUse, "Bash", no_rm);
///
/// // In a test (e.g. `#[tokio::test] async fn ...`):
/// # futures_lite::future::block_on(async {
/// let input: HookInput = serde_json::from_str(
///     r#"{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"/t","cwd":"/w",
///         "tool_name":"Bash","tool_input":{"command":"rm x"},"tool_use_id":"toolu_1"}"#,
/// )
/// .unwrap();
/// let output = no_rm(input, HookContext::default().with_tool_use_id("toolu_1")).await;
/// assert_eq!(output, HookOutput::deny_tool("no rm (toolu_1)"));
/// # });
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct HookContext {
    session: SessionRef,
    tool_use_id: Option<String>,
}

impl HookContext {
    /// This context for a call the CLI sent with `tool_use_id` beside its input.
    pub(crate) fn for_tool_use(mut self, tool_use_id: Option<String>) -> Self {
        self.tool_use_id = tool_use_id;
        self
    }

    /// The id of the tool use the call is about, as the CLI sent it beside the input (the tool
    /// events' inputs also carry it: `PreToolUseInput::tool_use_id`, …). `None` for events that
    /// concern no tool use.
    ///
    /// ```
    /// use claude_agent_tokio::HookContext;
    ///
    /// let ctx = HookContext::default().with_tool_use_id("toolu_1");
    /// assert_eq!(ctx.tool_use_id(), Some("toolu_1"));
    /// assert_eq!(HookContext::default().tool_use_id(), None);
    /// ```
    pub fn tool_use_id(&self) -> Option<&str> {
        self.tool_use_id.as_deref()
    }

    /// A context with `tool_use_id`, to call a callback in a unit test as the session would.
    ///
    /// ```
    /// use claude_agent_tokio::HookContext;
    ///
    /// let ctx = HookContext::default().with_tool_use_id("toolu_1");
    /// assert_eq!(ctx.tool_use_id(), Some("toolu_1"));
    /// ```
    pub fn with_tool_use_id(self, tool_use_id: impl Into<String>) -> Self {
        self.for_tool_use(Some(tool_use_id.into()))
    }
}

/// What an elicitation callback gets besides the request.
///
/// The default context has no session behind it ([`ElicitationContext::client`] is that of an ended
/// session): it is what a unit test passes to call the callback directly, with no CLI running.
///
/// ```
/// use claude_agent_tokio::ElicitationContext;
/// use claude_agent_tokio::mcp::{ElicitationAction, ElicitationRequest, ElicitationResult};
/// use claude_agent_tokio::options::Options;
///
/// // The callback under test, as it is registered with `Options::on_elicitation`.
/// async fn decline_all(_request: ElicitationRequest, _ctx: ElicitationContext) -> ElicitationResult {
///     ElicitationResult::decline()
/// }
/// let _options = Options::default().on_elicitation(decline_all);
///
/// // In a test (e.g. `#[tokio::test] async fn ...`):
/// # futures_lite::future::block_on(async {
/// let request: ElicitationRequest =
///     serde_json::from_str(r#"{"mcp_server_name":"m","message":"Your name?"}"#).unwrap();
/// let result = decline_all(request, ElicitationContext::default()).await;
/// assert_eq!(result.action, ElicitationAction::Decline);
/// # });
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct ElicitationContext {
    session: SessionRef,
}

/// What a dialog callback gets besides the request.
///
/// The default context has no session behind it ([`UserDialogContext::client`] is that of an ended
/// session): it is what a unit test passes to call the callback directly, with no CLI running.
///
/// ```
/// use claude_agent_tokio::UserDialogContext;
/// use claude_agent_tokio::control::{UserDialogRequest, UserDialogResult};
/// use claude_agent_tokio::options::Options;
///
/// // The callback under test, as it is registered with `Options::on_user_dialog`.
/// async fn always_dismiss(_request: UserDialogRequest, _ctx: UserDialogContext) -> UserDialogResult {
///     UserDialogResult::cancelled()
/// }
/// let _options = Options::default().on_user_dialog(["refusal_fallback_prompt"], always_dismiss);
///
/// // In a test (e.g. `#[tokio::test] async fn ...`):
/// # futures_lite::future::block_on(async {
/// let request: UserDialogRequest =
///     serde_json::from_str(r#"{"dialog_kind":"refusal_fallback_prompt","payload":{}}"#).unwrap();
/// let result = always_dismiss(request, UserDialogContext::default()).await;
/// assert_eq!(result, UserDialogResult::cancelled());
/// # });
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct UserDialogContext {
    session: SessionRef,
}

macro_rules! context_impl {
    ($name:ident, $example:literal) => {
        impl $name {
            pub(crate) fn new(session: SessionRef) -> Self {
                $name {
                    session,
                    ..Default::default()
                }
            }

            /// A [`Client`] for the running session, to send control requests from inside the
            /// callback (e.g. `interrupt`), as [`Query::client`](crate::Query::client) gives one.
            /// Commands go through the session's command queue, so awaiting them here does not
            /// block the session. Once the session is gone, and for a default context (which
            /// has no session), it is the client of an ended session: its calls fail with
            /// [`Error::Closed`](crate::Error::Closed).
            ///
            #[doc = $example]
            pub fn client(&self) -> Client {
                self.session.client()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
    };
}

context_impl!(
    PermissionContext,
    r#"```
use claude_agent_tokio::options::Options;
use claude_agent_tokio::permission::{PermissionMode, PermissionResult};

// After the first edit is approved, stop asking about edits for the rest of the session.
let _options = Options::new().on_permission_request(|request, ctx| async move {
    if request.tool_name == "Edit" {
        let _ = ctx.client().set_permission_mode(PermissionMode::AcceptEdits).await;
    }
    PermissionResult::allow()
});
```"#
);
context_impl!(
    HookContext,
    r#"```
use claude_agent_tokio::control::ContextUsageDetail;
use claude_agent_tokio::hooks::{HookOutput, StopInput};
use claude_agent_tokio::options::Options;

// When the agent stops with the context nearly full, tell the user.
let _options = Options::new().on_hook(None, |_input: StopInput, ctx| async move {
    match ctx.client().context_usage(ContextUsageDetail::Full).await {
        Ok(usage) if usage.percentage > 90.0 => {
            HookOutput::default().with_system_message("The context is over 90% full; consider /compact.")
        }
        _ => HookOutput::default(),
    }
});
```"#
);
context_impl!(
    ElicitationContext,
    r#"```
use claude_agent_tokio::mcp::ElicitationResult;
use claude_agent_tokio::options::Options;

// An MCP server that asks for a login the host cannot give: decline, and stop the turn.
let _options = Options::new().on_elicitation(|request, ctx| async move {
    if request.mode.as_deref() == Some("url") {
        let _ = ctx.client().interrupt().await;
    }
    ElicitationResult::decline()
});
```"#
);
context_impl!(
    UserDialogContext,
    r#"```
use claude_agent_tokio::control::UserDialogResult;
use claude_agent_tokio::options::Options;

// The user closed the dialog: dismiss it, and stop the turn too.
let _options = Options::new().on_user_dialog(["refusal_fallback_prompt"], |_request, ctx| async move {
    let _ = ctx.client().interrupt().await;
    UserDialogResult::cancelled()
});
```"#
);

impl Handlers {
    /// The hook callbacks by [`crate::hooks::HookRef::matcher_index`] (the session's order),
    /// given `order`, the registration index of each of the session's matchers
    /// ([`HostDeclarations::hook_matcher_order`]).
    pub(crate) fn hooks_in_session_order(&self, order: &[usize]) -> Vec<Option<HookFn>> {
        order
            .iter()
            .map(|&registered| self.hooks.get(registered).map(|(_, f)| f.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Options;
    use futures_lite::future::block_on;

    #[test]
    fn the_client_of_a_default_context_is_of_an_ended_session() {
        let refused = |client: Client| {
            block_on(async move {
                assert!(matches!(
                    client.interrupt().await,
                    Err(crate::Error::Closed)
                ));
                assert!(client.receive_messages().next().await.is_none());
                client.close().await;
            })
        };
        refused(PermissionContext::default().client());
        refused(HookContext::default().client());
        refused(ElicitationContext::default().client());
        refused(UserDialogContext::default().client());
    }

    #[test]
    fn a_registered_callback_runs_with_a_default_context() {
        let options = Options::default().on_permission_request(|request, ctx| async move {
            assert!(matches!(
                ctx.client().interrupt().await,
                Err(crate::Error::Closed)
            ));
            PermissionResult::deny(format!("no {}", request.tool_name))
        });
        let callback = options.handlers().can_use_tool.clone().expect("registered");
        let request: PermissionRequest =
            serde_json::from_str(r#"{"tool_name":"Bash","input":{},"tool_use_id":"t"}"#).unwrap();
        let result = block_on(callback(request, PermissionContext::default()));
        assert_eq!(result, PermissionResult::deny("no Bash"));
    }
}
