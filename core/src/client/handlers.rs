//! The user's callbacks, stored type-erased in [`Handlers`] and carried by the options.

use std::fmt;
use std::sync::{Arc, Weak};

use super::link::Shared;
use super::runtime::BoxFuture;
use super::sdk_mcp::SdkMcpServer;
use super::Client;
use crate::control::{ElicitationRequest, ElicitationResult};
use crate::hooks::{HookInput, HookOutput};
use crate::permission::{PermissionRequest, PermissionResult};

pub(crate) type CanUseToolFn = Arc<
    dyn Fn(PermissionRequest, PermissionContext) -> BoxFuture<'static, PermissionResult>
        + Send
        + Sync,
>;
pub(crate) type HookFn = Arc<
    dyn Fn(HookInput, Option<String>, HookContext) -> BoxFuture<'static, HookOutput> + Send + Sync,
>;
pub(crate) type ElicitationFn = Arc<
    dyn Fn(ElicitationRequest, ElicitationContext) -> BoxFuture<'static, ElicitationResult>
        + Send
        + Sync,
>;
pub(crate) type StderrFn = Arc<dyn Fn(&str) + Send + Sync>;

/// The user's callbacks: permission prompt, hooks, in-process MCP servers, elicitation, stderr.
///
/// Filled by the builder methods on [`crate::options::Options`] (`can_use_tool`, `hook`,
/// `sdk_mcp_server`, `on_elicitation`, `stderr`); each of them also declares the callback to
/// the session, so the CLI is told about it in `initialize`.
#[derive(Clone, Default)]
pub struct Handlers {
    pub(crate) can_use_tool: Option<CanUseToolFn>,
    /// Hook callbacks, each with the index of its `Options::declare_hook` call.
    pub(crate) hooks: Vec<(usize, HookFn)>,
    pub(crate) mcp_servers: Vec<SdkMcpServer>,
    pub(crate) elicitation: Option<ElicitationFn>,
    pub(crate) stderr: Option<StderrFn>,
}

impl fmt::Debug for Handlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handlers")
            .field("can_use_tool", &self.can_use_tool.is_some())
            .field("hooks", &self.hooks.len())
            .field("mcp_servers", &self.mcp_servers)
            .field("elicitation", &self.elicitation.is_some())
            .field("stderr", &self.stderr.is_some())
            .finish()
    }
}

/// A way back to the session from inside a callback, that does not keep the session alive.
#[derive(Clone)]
pub(crate) struct SessionRef(pub(crate) Weak<Shared>);

impl SessionRef {
    fn client(&self) -> Option<Client> {
        self.0.upgrade().map(Client::from_shared)
    }
}

/// What a `can_use_tool` callback gets besides the request.
#[derive(Clone)]
#[non_exhaustive]
pub struct PermissionContext {
    session: SessionRef,
}

/// What a hook callback gets besides its input.
#[derive(Clone)]
#[non_exhaustive]
pub struct HookContext {
    session: SessionRef,
}

/// What an elicitation callback gets besides the request.
#[derive(Clone)]
#[non_exhaustive]
pub struct ElicitationContext {
    session: SessionRef,
}

macro_rules! context_impl {
    ($name:ident) => {
        impl $name {
            pub(crate) fn new(session: SessionRef) -> Self {
                $name { session }
            }

            /// A [`Client`] for the running session, to send control requests from inside the
            /// callback (e.g. `interrupt`). Commands go through the session's command queue, so
            /// awaiting them here does not block the session. `None` once the session is gone.
            pub fn client(&self) -> Option<Client> {
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

context_impl!(PermissionContext);
context_impl!(HookContext);
context_impl!(ElicitationContext);

impl Handlers {
    /// The hook callbacks by [`crate::session::HookRef::matcher_index`] (the session's order),
    /// given `order`, the declaration index of each of the session's matchers
    /// (`Options::hook_matcher_order`).
    pub(crate) fn hooks_in_session_order(&self, order: &[usize]) -> Vec<Option<HookFn>> {
        order
            .iter()
            .map(|declared| {
                self.hooks
                    .iter()
                    .find(|(d, _)| d == declared)
                    .map(|(_, f)| f.clone())
            })
            .collect()
    }
}
