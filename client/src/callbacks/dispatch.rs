//! Running user callbacks: turning an inbound request into the callback's future, and polling
//! those futures inside the driver (no task per callback).
//!
//! Each running callback gets its own waker that marks it and wakes the driver, so the driver
//! polls only the callbacks that can make progress. A panic in a callback becomes an error reply;
//! the session goes on.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use crate::callbacks::handlers::{
    ElicitationContext, Handlers, HookContext, HookFn, PermissionContext, SessionRef,
    UserDialogContext,
};
use crate::callbacks::sdk_mcp::SdkMcpServer;
use crate::control::{InboundId, InboundKind, InboundRequest, Reply};
use crate::mcp::{ElicitationResult, ToolResult};
use crate::process::runtime::BoxFuture;

/// Starts the user's callback for each inbound request, and runs the ones started.
pub(crate) struct Dispatcher {
    handlers: Handlers,
    /// Hook callbacks by the session's matcher index.
    hooks: Vec<Option<HookFn>>,
    session: SessionRef,
    running: Running,
}

impl Dispatcher {
    /// `hook_order`: the declaration index of each of the session's hook matchers.
    pub(crate) fn new(handlers: Handlers, hook_order: &[usize], session: SessionRef) -> Self {
        let hooks = handlers.hooks_in_session_order(hook_order);
        Dispatcher {
            handlers,
            hooks,
            session,
            running: Running::default(),
        }
    }

    /// Serve these in-process servers from now on (`Client::set_mcp_servers`): one already
    /// served under the same name stays as it is, as the session keeps its declaration.
    pub(crate) fn set_mcp_servers(&mut self, servers: Vec<SdkMcpServer>) {
        let mut served: Vec<SdkMcpServer> = Vec::with_capacity(servers.len());
        for server in servers {
            if served.iter().any(|s| s.name() == server.name()) {
                continue;
            }
            let current = &self.handlers.mcp_servers;
            let kept = current.iter().find(|s| s.name() == server.name());
            served.push(kept.cloned().unwrap_or(server));
        }
        self.handlers.mcp_servers = served;
    }

    /// Start the callback that answers `request`; [`Dispatcher::poll`] runs it. A callback that
    /// panics when called gives a future that resumes the panic when polled, so that it is
    /// reported like a panic while it runs.
    pub(crate) fn start(&mut self, request: InboundRequest) {
        let id = request.id;
        let started = catch_unwind(AssertUnwindSafe(|| self.dispatch(request.kind)));
        let future = started.unwrap_or_else(|panic| Box::pin(async move { resume_unwind(panic) }));
        self.running.push(id, future);
    }

    /// Drop the callback answering `id` (the CLI withdrew it, or its time limit passed).
    /// Returns whether one was running.
    pub(crate) fn cancel(&mut self, id: InboundId) -> bool {
        self.running.cancel(id)
    }

    /// Drop every running callback: nobody is left to answer.
    pub(crate) fn cancel_all(&mut self) {
        self.running = Running::default();
    }

    /// Poll every woken callback; each one that finished is passed to `done` with its reply, and
    /// whether that reply is the error its panic became.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>, done: impl FnMut(InboundId, Reply, bool)) {
        self.running.poll(cx, done);
    }

    fn dispatch(&self, kind: InboundKind) -> BoxFuture<'static, Reply> {
        let handlers = &self.handlers;
        let session = &self.session;
        match kind {
            InboundKind::McpToolCall(call) => {
                let server = handlers
                    .mcp_servers
                    .iter()
                    .find(|s| s.name() == call.server);
                match server.and_then(|s| s.call(&call.tool, call.arguments)) {
                    Some(future) => map(future, Reply::ToolResult),
                    None => ready(Reply::ToolResult(ToolResult::error(format!(
                        "unknown tool {} of server {}",
                        call.tool, call.server
                    )))),
                }
            }
            InboundKind::CanUseTool(request) => match &handlers.can_use_tool {
                Some(f) => map(
                    f(request, PermissionContext::new(session.clone())),
                    Reply::Permission,
                ),
                None => ready(Reply::error(
                    "no on_permission_request callback is registered",
                )),
            },
            InboundKind::HookCallback(call) => {
                // One callback per matcher is registered, so only `hook_index` 0 has one.
                let hook = self
                    .hooks
                    .get(call.hook.matcher_index)
                    .filter(|_| call.hook.hook_index == 0);
                match hook.and_then(Option::as_ref) {
                    Some(f) => map(
                        f(
                            call.input,
                            HookContext::new(session.clone()).for_tool_use(call.tool_use_id),
                        ),
                        |output| output.map_or_else(Reply::error, Reply::Hook),
                    ),
                    None => ready(Reply::error(format!(
                        "no hook callback is registered for {}",
                        call.callback_id
                    ))),
                }
            }
            InboundKind::McpResourceRead(read) => SdkMcpServer::read(&handlers.mcp_servers, read),
            InboundKind::McpPromptGet(get) => SdkMcpServer::get(&handlers.mcp_servers, get),
            InboundKind::Elicitation(request) => match &handlers.elicitation {
                Some(f) => map(
                    f(request, ElicitationContext::new(session.clone())),
                    Reply::Elicitation,
                ),
                None => ready(Reply::Elicitation(ElicitationResult::decline())),
            },
            InboundKind::UserDialog(request) => match &handlers.user_dialog {
                Some((_, f)) => map(
                    f(request, UserDialogContext::new(session.clone())),
                    Reply::UserDialog,
                ),
                None => ready(Reply::error("no user dialog callback is registered")),
            },
            // A request newer than this layer: the CLI is told it is not answered here.
            _ => ready(Reply::error(
                "this SDK does not answer this kind of request",
            )),
        }
    }
}

fn map<T: Send + 'static>(
    fut: BoxFuture<'static, T>,
    f: fn(T) -> Reply,
) -> BoxFuture<'static, Reply> {
    Box::pin(async move { f(fut.await) })
}

fn ready(reply: Reply) -> BoxFuture<'static, Reply> {
    Box::pin(std::future::ready(reply))
}

/// A readable message for a caught panic.
pub(crate) fn panic_message(what: &str, panic: Box<dyn Any + Send>) -> String {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_owned());
    format!("{what} panicked: {detail}")
}

/// The set of running callbacks.
#[derive(Default)]
struct Running {
    slots: Vec<Slot>,
    driver: Arc<DriverWaker>,
}

struct Slot {
    id: InboundId,
    future: BoxFuture<'static, Reply>,
    wake: Arc<SlotWake>,
}

#[derive(Default)]
struct DriverWaker(Mutex<Option<Waker>>);

struct SlotWake {
    woken: AtomicBool,
    driver: Arc<DriverWaker>,
}

impl Wake for SlotWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        let driver = self.driver.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(waker) = driver.as_ref() {
            waker.wake_by_ref();
        }
    }
}

impl Running {
    /// Add a callback; it is polled on the next [`Running::poll`].
    fn push(&mut self, id: InboundId, future: BoxFuture<'static, Reply>) {
        let wake = Arc::new(SlotWake {
            woken: AtomicBool::new(true),
            driver: self.driver.clone(),
        });
        self.slots.push(Slot { id, future, wake });
    }

    fn cancel(&mut self, id: InboundId) -> bool {
        let before = self.slots.len();
        self.slots.retain(|slot| slot.id != id);
        self.slots.len() != before
    }

    fn poll(&mut self, cx: &mut Context<'_>, mut done: impl FnMut(InboundId, Reply, bool)) {
        if self.slots.is_empty() {
            return;
        }
        {
            let mut driver = self.driver.0.lock().unwrap_or_else(|p| p.into_inner());
            if !driver.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *driver = Some(cx.waker().clone());
            }
        }
        let mut i = 0;
        while i < self.slots.len() {
            let slot = &mut self.slots[i];
            if !slot.wake.woken.swap(false, Ordering::AcqRel) {
                i += 1;
                continue;
            }
            let waker = Waker::from(slot.wake.clone());
            let mut slot_cx = Context::from_waker(&waker);
            let polled = catch_unwind(AssertUnwindSafe(|| slot.future.as_mut().poll(&mut slot_cx)));
            let (reply, panicked) = match polled {
                Ok(Poll::Pending) => {
                    i += 1;
                    continue;
                }
                Ok(Poll::Ready(reply)) => (reply, false),
                Err(panic) => (Reply::error(panic_message("callback", panic)), true),
            };
            let finished = self.slots.swap_remove(i);
            done(finished.id, reply, panicked);
        }
    }
}
