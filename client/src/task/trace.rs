//! The session's span and events for `tracing` (feature `tracing`; the crate docs' "Tracing"
//! section lists them).
//!
//! The driver tells its [`Trace`] what happens as it happens. Without the feature a `Trace` is
//! empty and each method an empty inline function whose arguments the driver has at hand
//! anyway: nothing is computed, allocated or kept for tracing.
#![cfg_attr(not(feature = "tracing"), allow(unused_variables))]

use std::future::Future;
use std::io;
use std::time::Instant;

use crate::callbacks::sdk_mcp::SdkMcpServer;
use crate::control::{
    ClaimInfo, ClaimRefusal, ControlRequest, InboundId, InboundRequest, Reply, RequestId,
    ResponseBody,
};
use crate::message::LineError;
use crate::message::Message;
use crate::options::{LaunchSpec, Options};
use crate::process::runtime::{BoxFuture, ChildProcess, Signal};
use crate::session::{EndReason, Event, ExitStatusInfo, OwnRequest, RequestFailure, VersionCheck};

#[cfg(feature = "tracing")]
use std::collections::HashMap;

#[cfg(feature = "tracing")]
use crate::control::InboundKind;
#[cfg(feature = "tracing")]
use crate::message::SystemMessage;
#[cfg(feature = "tracing")]
use crate::permission::PermissionResult;

/// The target of the session span and of every event but the CLI's stderr lines.
#[cfg(feature = "tracing")]
const TARGET: &str = "claude_agent_client";
/// The target of the CLI's stderr lines, to filter them apart.
#[cfg(feature = "tracing")]
const STDERR_TARGET: &str = "claude_agent_client::stderr";

/// An event named `$name` at `$level` on [`TARGET`].
#[cfg(feature = "tracing")]
macro_rules! event {
    ($name:literal, $level:ident, $($rest:tt)+) => {
        tracing::event!(name: $name, target: TARGET, tracing::Level::$level, $($rest)+)
    };
}

/// One session's tracing: its span, and what the events that end something need from the
/// events that started it.
pub(crate) struct Trace {
    #[cfg(feature = "tracing")]
    span: tracing::Span,
    #[cfg(feature = "tracing")]
    state: State,
}

#[cfg(feature = "tracing")]
struct State {
    /// Our control requests in flight: subtype, and when each was sent.
    requests: HashMap<RequestId, (Box<str>, Instant)>,
    /// The CLI's requests whose callbacks run.
    asked: HashMap<InboundId, Asked>,
    /// The session id recorded on the span.
    session_id: Option<String>,
    /// Names of the in-process MCP servers.
    sdk_servers: Vec<String>,
    /// `Options::allowed_tools`.
    allowed_tools: Vec<String>,
    /// When `initialize` was sent: what the start-up marks are timed from.
    started: Option<Instant>,
    /// When the claim in flight was sent.
    claim_sent: Option<Instant>,
    /// The running turn's `invoke_agent` span.
    turn: Option<tracing::Span>,
    /// The `execute_tool` spans of the CLI's tool calls still running, by `tool_use` id.
    tools: HashMap<String, tracing::Span>,
    /// The session's model, from `system/init`.
    model: Option<String>,
}

#[cfg(feature = "tracing")]
impl State {
    /// The span a callback on the CLI's request belongs in: its tool call's, else the turn's.
    fn scope(&self, tool_use_id: Option<&str>) -> Option<tracing::Span> {
        tool_use_id
            .and_then(|id| self.tools.get(id))
            .or(self.turn.as_ref())
            .cloned()
    }
}

#[cfg(feature = "tracing")]
struct Asked {
    subtype: &'static str,
    wire_id: String,
    since: Instant,
    /// The tool call's or turn's span the request came in, where its answer is reported.
    scope: Option<tracing::Span>,
}

/// The subtype of a control request about to be sent, kept for its outcome's event.
pub(crate) struct Subtype {
    #[cfg(feature = "tracing")]
    name: Box<str>,
}

impl Subtype {
    /// The subtype of `request`.
    #[inline]
    pub(crate) fn of(request: &ControlRequest) -> Subtype {
        Subtype {
            #[cfg(feature = "tracing")]
            name: request.subtype().into(),
        }
    }

    /// A request the session sent for itself.
    #[inline]
    pub(crate) fn own(request: OwnRequest) -> Subtype {
        Subtype {
            #[cfg(feature = "tracing")]
            name: request.subtype().into(),
        }
    }

    /// The `mcp_set_servers` request of `Client::set_mcp_servers`.
    #[inline]
    pub(crate) fn mcp_set_servers() -> Subtype {
        Subtype {
            #[cfg(feature = "tracing")]
            name: "mcp_set_servers".into(),
        }
    }
}

/// The session span, to run the driver in.
pub(crate) struct TaskSpan {
    #[cfg(feature = "tracing")]
    span: tracing::Span,
}

impl TaskSpan {
    /// `driver` as a task that enters the session span whenever it is polled or dropped.
    #[inline]
    pub(crate) fn run<F>(self, driver: F) -> BoxFuture<'static, ()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        #[cfg(feature = "tracing")]
        return Box::pin(tracing::Instrument::instrument(driver, self.span));
        #[cfg(not(feature = "tracing"))]
        Box::pin(driver)
    }
}

/// The turn's and tool calls' spans are closed where the session span's subscriber is the
/// default (see `Trace::in_session_dispatch`).
#[cfg(feature = "tracing")]
impl Drop for Trace {
    fn drop(&mut self) {
        let turn = self.state.turn.take();
        let tools = std::mem::take(&mut self.state.tools);
        let asked = std::mem::take(&mut self.state.asked);
        self.in_session_dispatch(move || drop((turn, tools, asked)));
    }
}

impl Trace {
    /// The trace of a session whose CLI `child` was started as `spec`, or reached through
    /// `Options::transport` with `spec` (`transport`).
    #[inline]
    pub(crate) fn start(
        spec: &LaunchSpec,
        child: &impl ChildProcess,
        transport: bool,
        options: &Options,
    ) -> Trace {
        #[cfg(feature = "tracing")]
        {
            let pid = child.id();
            let span = tracing::info_span!(
                target: TARGET,
                "session",
                pid,
                session_id = tracing::field::Empty,
                model = tracing::field::Empty,
            );
            let program = spec.program.display();
            let cwd = spec
                .cwd
                .as_ref()
                .map(|cwd| tracing::field::display(cwd.display()));
            span.in_scope(|| {
                if transport {
                    event!("connect", INFO, %program, cwd, "CLI reached through a transport");
                } else {
                    event!("spawn", INFO, %program, cwd, "CLI started");
                }
                match options.tools_never_asked() {
                    Some(crate::UnaskedTools::All) => event!(
                        "permission_callback_unasked",
                        WARN,
                        tools = "all",
                        "the permission callback will not be asked: permission mode \
                         bypassPermissions approves every tool call first; to see every call, \
                         use a PreToolUse hook"
                    ),
                    Some(crate::UnaskedTools::Tools(tools)) => event!(
                        "permission_callback_unasked", WARN, tools = %tools.join(", "),
                        "the permission callback will not be asked about these tools: bare \
                         allowed_tools entries approve the whole tool first; to see every call, \
                         use a PreToolUse hook, or remove them from allowed_tools"
                    ),
                    _ => {}
                }
            });
            let servers = options.handlers().mcp_servers.iter();
            let sdk_servers: Vec<String> = servers.map(|server| server.name().to_owned()).collect();
            // Kept even with no in-process server: `set_mcp_servers` may add one.
            let allowed_tools = options.config().allowed_tools.to_vec();
            Trace {
                span,
                state: State {
                    requests: HashMap::new(),
                    asked: HashMap::new(),
                    session_id: None,
                    sdk_servers,
                    allowed_tools,
                    started: None,
                    claim_sent: None,
                    turn: None,
                    tools: HashMap::new(),
                    model: None,
                },
            }
        }
        #[cfg(not(feature = "tracing"))]
        Trace {}
    }

    /// The span to run the driver in.
    #[inline]
    pub(crate) fn task_span(&self) -> TaskSpan {
        TaskSpan {
            #[cfg(feature = "tracing")]
            span: self.span.clone(),
        }
    }

    /// What the session's `event` says, told as it comes out, before the driver acts on it. A
    /// message is told on the hot path ([`Trace::message`]); a callback withdrawn or past its
    /// time limit once the dispatcher says whether it was running ([`Trace::withdrawn`],
    /// [`Trace::expired`]).
    #[inline]
    pub(crate) fn event(&mut self, event: &Event, now: Instant) {
        match event {
            Event::Stalled(stall) | Event::Closing(EndReason::Stalled(stall)) => {
                self.stalled(stall)
            }
            Event::Budget(report) => self.budget(report),
            Event::Closing(EndReason::OverBudget(report)) => self.budget(report),
            Event::InterruptNotApplied(why) => self.interrupt_not_applied(*why),
            Event::LineError(error) => self.line_error(error),
            Event::CliVersion(check) => self.cli_version(check),
            Event::Inbound(request) => self.cli_request(request, now),
            Event::OwnRequestSent { id, request } => {
                self.request_sent(*id, Subtype::own(*request), now)
            }
            Event::RequestDone { id, outcome } => self.request_done(*id, outcome, now),
            Event::Claimed(outcome) => self.claimed(outcome, now),
            Event::StartupMark(mark) => self.startup_mark(mark, now),
            // The rest is told by what acts on it, or not at all.
            _ => {}
        }
    }

    /// We sent the control request `id`.
    #[inline]
    pub(crate) fn request_sent(&mut self, id: RequestId, subtype: Subtype, now: Instant) {
        #[cfg(feature = "tracing")]
        {
            let name = &*subtype.name;
            event!("control_request", DEBUG, subtype = name, request_id = %id, "control request sent");
            self.state.requests.insert(id, (subtype.name, now));
        }
    }

    /// The initialize request `id`, which the session sent when it was made (before the driver
    /// runs in the span).
    #[inline]
    pub(crate) fn initialize_sent(&mut self, id: RequestId, now: Instant) {
        #[cfg(feature = "tracing")]
        {
            let span = self.span.clone();
            let subtype = Subtype {
                name: "initialize".into(),
            };
            span.in_scope(|| self.request_sent(id, subtype, now));
            self.state.started = Some(now);
        }
    }

    /// The CLI passed the start-up checkpoint `mark` (a `keep_alive` line with `startup_mark`,
    /// which `startup` and `prewarm` ask for).
    #[inline]
    pub(crate) fn startup_mark(&self, mark: &str, now: Instant) {
        #[cfg(feature = "tracing")]
        {
            let since = self.state.started.map(|t| now.saturating_duration_since(t));
            let since_us = since.map(micros);
            event!(
                "startup_mark",
                DEBUG,
                mark,
                since_us,
                "CLI start-up checkpoint"
            );
        }
    }

    /// We sent the claim `id` of a parked CLI.
    #[inline]
    pub(crate) fn claim_sent(&mut self, id: RequestId, now: Instant) {
        #[cfg(feature = "tracing")]
        {
            event!("claim", DEBUG, request_id = %id, "claim sent");
            self.state.claim_sent = Some(now);
        }
    }

    /// The CLI answered the claim, or refused it.
    #[inline]
    pub(crate) fn claimed(
        &mut self,
        outcome: &Result<Box<ClaimInfo>, Box<ClaimRefusal>>,
        now: Instant,
    ) {
        #[cfg(feature = "tracing")]
        {
            let sent = self.state.claim_sent.take();
            let duration_us = sent.map(|t| micros(now.saturating_duration_since(t)));
            match outcome {
                Ok(info) => event!(
                    "claim_answered", DEBUG,
                    session_id = %info.session_id, cwd = info.cwd.as_deref(),
                    parked_ms = info.parked_ms, not_applied = info.not_applied.len(), duration_us,
                    "claim answered"
                ),
                Err(refusal) => event!(
                    "claim_refused", WARN,
                    reason = ?refusal.reason, error = %refusal.message, duration_us,
                    "claim refused"
                ),
            }
        }
    }

    /// Our control request `id` was answered, refused, timed out, or will never be answered.
    #[inline]
    pub(crate) fn request_done(
        &mut self,
        id: RequestId,
        outcome: &Result<ResponseBody, RequestFailure>,
        now: Instant,
    ) {
        #[cfg(feature = "tracing")]
        {
            let Some((subtype, sent)) = self.state.requests.remove(&id) else {
                return;
            };
            let subtype = &*subtype;
            let duration_us = micros(now.saturating_duration_since(sent));
            match outcome {
                Ok(_) => event!(
                    "control_response", DEBUG,
                    subtype, request_id = %id, ok = true, duration_us,
                    "control request answered"
                ),
                Err(error) => event!(
                    "control_response", WARN,
                    subtype, request_id = %id, ok = false, duration_us, %error,
                    "control request failed"
                ),
            }
        }
    }

    /// The CLI asks something; a callback starts on it.
    #[inline]
    pub(crate) fn cli_request(&mut self, request: &InboundRequest, now: Instant) {
        #[cfg(feature = "tracing")]
        {
            let request_id = request.wire_id.as_str();
            let tool_use_id = match &request.kind {
                InboundKind::CanUseTool(ask) => {
                    Some(ask.tool_use_id.as_str()).filter(|id| !id.is_empty())
                }
                InboundKind::HookCallback(call) => call.tool_use_id.as_deref(),
                InboundKind::McpToolCall(call) => call.tool_use_id.as_deref(),
                _ => None,
            };
            let scope = self.state.scope(tool_use_id);
            let _entered = scope.as_ref().map(tracing::Span::enter);
            let subtype = match &request.kind {
                InboundKind::CanUseTool(ask) => {
                    let tool = ask.tool_name.as_str();
                    event!(
                        "cli_request",
                        DEBUG,
                        subtype = "can_use_tool",
                        request_id,
                        tool,
                        "request from the CLI"
                    );
                    "can_use_tool"
                }
                InboundKind::HookCallback(call) => {
                    let hook_event = call.input.event();
                    let callback_id = call.callback_id.as_str();
                    event!(
                        "cli_request",
                        DEBUG,
                        subtype = "hook_callback",
                        request_id,
                        callback_id,
                        hook_event = hook_event.as_str(),
                        "request from the CLI"
                    );
                    "hook_callback"
                }
                InboundKind::McpToolCall(call) => {
                    let (server, tool) = (call.server.as_str(), call.tool.as_str());
                    event!(
                        "cli_request",
                        DEBUG,
                        subtype = "mcp_message",
                        request_id,
                        server,
                        method = "tools/call",
                        tool,
                        "request from the CLI"
                    );
                    "mcp_message"
                }
                InboundKind::McpResourceRead(read) => {
                    let server = read.server.as_str();
                    event!(
                        "cli_request",
                        DEBUG,
                        subtype = "mcp_message",
                        request_id,
                        server,
                        method = "resources/read",
                        uri = read.uri.as_str(),
                        "request from the CLI"
                    );
                    "mcp_message"
                }
                InboundKind::McpPromptGet(get) => {
                    let server = get.server.as_str();
                    event!(
                        "cli_request",
                        DEBUG,
                        subtype = "mcp_message",
                        request_id,
                        server,
                        method = "prompts/get",
                        prompt = get.name.as_str(),
                        "request from the CLI"
                    );
                    "mcp_message"
                }
                InboundKind::Elicitation(ask) => {
                    let server = ask.mcp_server_name.as_str();
                    event!(
                        "cli_request",
                        DEBUG,
                        subtype = "elicitation",
                        request_id,
                        server,
                        "request from the CLI"
                    );
                    "elicitation"
                }
                InboundKind::UserDialog(ask) => {
                    let dialog_kind = ask.dialog_kind.as_str();
                    event!(
                        "cli_request",
                        DEBUG,
                        subtype = "request_user_dialog",
                        request_id,
                        dialog_kind,
                        "request from the CLI"
                    );
                    "request_user_dialog"
                }
                _ => {
                    event!("cli_request", DEBUG, request_id, "request from the CLI");
                    "other"
                }
            };
            let asked = Asked {
                subtype,
                wire_id: request.wire_id.clone(),
                since: now,
                scope: scope.clone(),
            };
            self.state.asked.insert(request.id, asked);
        }
    }

    /// The callback on the CLI's request `id` finished with `reply` (`panicked`: the reply is the
    /// error a panic of the callback became).
    #[inline]
    pub(crate) fn answer(&mut self, id: InboundId, reply: &Reply, panicked: bool, now: Instant) {
        #[cfg(feature = "tracing")]
        {
            let Some(mut asked) = self.state.asked.remove(&id) else {
                return;
            };
            let scope = asked.scope.take();
            {
                let _entered = scope.as_ref().map(tracing::Span::enter);
                let (subtype, request_id) = (asked.subtype, asked.wire_id.as_str());
                let duration_us = micros(now.saturating_duration_since(asked.since));
                if let Reply::Error { message, .. } = reply {
                    event!("callback_error", WARN, subtype, request_id, panicked, error = %message,
                        "callback failed; the CLI gets an error");
                }
                if let Reply::ToolResult(result) = reply {
                    let left_out = result
                        .content
                        .iter()
                        .filter(|b| !b.is_mcp_content())
                        .count();
                    if left_out > 0 {
                        event!(
                            "tool_blocks_left_out",
                            WARN,
                            subtype,
                            request_id,
                            left_out,
                            "the tool's result held blocks that are not MCP content, which the \
                             CLI refuses: they were left out"
                        );
                    }
                }
                let reply = reply_kind(reply);
                event!(
                    "cli_answer",
                    DEBUG,
                    subtype,
                    request_id,
                    reply,
                    duration_us,
                    "answered the CLI's request"
                );
            }
            self.in_session_dispatch(move || drop(scope));
        }
    }

    /// A turn stalled (`Options::stall_watch`).
    #[inline]
    pub(crate) fn stalled(&mut self, stall: &crate::message::Stall) {
        #[cfg(feature = "tracing")]
        {
            let idle_ms = stall.idle_for.as_millis() as u64;
            let last_event = stall.last_event.as_deref().unwrap_or("");
            let in_flight_tools = stall.in_flight_tools.join(",");
            event!(
                "turn_stalled",
                WARN,
                idle_ms,
                last_event,
                in_flight_tools,
                "the CLI has been silent past the stall limit during a turn"
            );
        }
        #[cfg(not(feature = "tracing"))]
        let _ = stall;
    }

    /// The CLI accepted an interrupt but did not apply it.
    pub(crate) fn interrupt_not_applied(&mut self, why: crate::message::InterruptNotApplied) {
        #[cfg(feature = "tracing")]
        {
            let why = tracing::field::display(why);
            event!("interrupt_not_applied", WARN, %why, "an interrupt changed nothing");
        }
        #[cfg(not(feature = "tracing"))]
        let _ = why;
    }

    /// A budget was crossed (nearly spent, or exceeded).
    pub(crate) fn budget(&mut self, report: &crate::cost::BudgetReport) {
        #[cfg(feature = "tracing")]
        {
            let scope = tracing::field::display(&report.scope);
            let spent_usd = report.spent.usd;
            let spent_tokens = report.spent.tokens.total();
            match report.level {
                crate::cost::BudgetLevel::Warning => {
                    event!(
                        "budget_warning",
                        WARN,
                        scope,
                        spent_usd,
                        spent_tokens,
                        "a budget is nearly spent"
                    )
                }
                _ => event!(
                    "budget_exceeded",
                    WARN,
                    scope,
                    spent_usd,
                    spent_tokens,
                    "a budget was exceeded: the turn is interrupted and the session closed"
                ),
            }
        }
        #[cfg(not(feature = "tracing"))]
        let _ = report;
    }

    /// The CLI withdrew its request `id`, or the session ended before it was answered
    /// (`running`: its callback was still running, and is dropped).
    #[inline]
    pub(crate) fn withdrawn(&mut self, id: InboundId, running: bool) {
        #[cfg(feature = "tracing")]
        {
            let Some(mut asked) = self.state.asked.remove(&id) else {
                return;
            };
            let (subtype, request_id) = (asked.subtype, asked.wire_id.as_str());
            event!(
                "callback_cancelled",
                DEBUG,
                subtype,
                request_id,
                running,
                "the CLI's request was withdrawn"
            );
            let scope = asked.scope.take();
            self.in_session_dispatch(move || drop(scope));
        }
    }

    /// The callback answering `id` ran past its time limit: the session answered in its place
    /// ([`Event::Expired`](crate::session::Event::Expired)).
    #[inline]
    pub(crate) fn expired(&mut self, id: InboundId, running: bool, now: Instant) {
        #[cfg(feature = "tracing")]
        {
            let Some(mut asked) = self.state.asked.remove(&id) else {
                return;
            };
            let (subtype, request_id) = (asked.subtype, asked.wire_id.as_str());
            let duration_us = micros(now.saturating_duration_since(asked.since));
            event!(
                "callback_expired",
                WARN,
                subtype,
                request_id,
                running,
                duration_us,
                "the callback ran past its time limit; the CLI got an error result in its place"
            );
            let scope = asked.scope.take();
            self.in_session_dispatch(move || drop(scope));
        }
    }

    /// `make` run with the subscriber the session span belongs to as the default: a child span
    /// must live in its parent's subscriber, and the driver may be polled where another one is
    /// the default (a runtime shared by sessions traced by different subscribers).
    /// The same goes for closing a child span: its subscriber closes the parent through the
    /// default one.
    #[cfg(feature = "tracing")]
    fn in_session_dispatch<T>(&self, f: impl FnOnce() -> T) -> T {
        match self.span.with_subscriber(|(_, dispatch)| dispatch.clone()) {
            Some(dispatch) => tracing::dispatcher::with_default(&dispatch, f),
            None => f(),
        }
    }

    /// A prompt went to the CLI: a turn starts, as an `invoke_agent` span (OpenTelemetry's
    /// GenAI conventions) in the session span, unless one runs already.
    #[inline]
    pub(crate) fn turn_started(&mut self) {
        #[cfg(feature = "tracing")]
        if self.state.turn.is_none() {
            let turn = self.in_session_dispatch(|| {
                tracing::info_span!(
                    target: TARGET,
                    parent: &self.span,
                    "invoke_agent",
                    "gen_ai.operation.name" = "invoke_agent",
                    "gen_ai.provider.name" = "anthropic",
                    "gen_ai.agent.name" = "claude-code",
                    "gen_ai.conversation.id" = tracing::field::Empty,
                    "gen_ai.request.model" = tracing::field::Empty,
                    "gen_ai.usage.input_tokens" = tracing::field::Empty,
                    "gen_ai.usage.output_tokens" = tracing::field::Empty,
                    "gen_ai.response.finish_reasons" = tracing::field::Empty,
                    "error.type" = tracing::field::Empty,
                )
            });
            if let Some(id) = &self.state.session_id {
                turn.record("gen_ai.conversation.id", id.as_str());
            }
            if let Some(model) = &self.state.model {
                turn.record("gen_ai.request.model", model.as_str());
            }
            self.state.turn = Some(turn);
        }
    }

    /// A message for the user: `system/init` names the session and its model; the main
    /// agent's tool calls open `execute_tool` spans that their results close, and a result
    /// closes the turn's span with its token usage; `system/permission_denied` may be an
    /// in-process tool `allowed_tools` forgot.
    #[inline]
    pub(crate) fn message(&mut self, message: &Message) {
        #[cfg(feature = "tracing")]
        match message {
            Message::System(SystemMessage::Init(init)) => {
                let session_id = init.session_id();
                if self.state.session_id.as_deref() != Some(session_id) {
                    self.span.record("session_id", session_id);
                    if let Some(model) = init.model() {
                        self.span.record("model", model);
                        self.state.model = Some(model.to_owned());
                    }
                    self.state.session_id = Some(session_id.to_owned());
                }
                if let Some(turn) = &self.state.turn {
                    turn.record("gen_ai.conversation.id", session_id);
                    if let Some(model) = init.model() {
                        turn.record("gen_ai.request.model", model);
                    }
                }
            }
            Message::Assistant(reply) if reply.parent_tool_use_id.is_none() => {
                let parent = self.state.turn.as_ref().unwrap_or(&self.span).clone();
                for block in &reply.message.content {
                    if let crate::message::ContentBlock::ToolUse(call) = block {
                        let tool = self.in_session_dispatch(|| {
                            tracing::info_span!(
                                target: TARGET,
                                parent: &parent,
                                "execute_tool",
                                "gen_ai.operation.name" = "execute_tool",
                                "gen_ai.tool.name" = call.name.as_str(),
                                "gen_ai.tool.call.id" = call.id.as_str(),
                                "gen_ai.tool.type" = "function",
                                "error.type" = tracing::field::Empty,
                            )
                        });
                        self.state.tools.insert(call.id.clone(), tool);
                    }
                }
            }
            Message::User(user) if user.parent_tool_use_id.is_none() => {
                if let crate::message::MessageContent::Blocks(blocks) = &user.content {
                    for block in blocks {
                        if let crate::message::ContentBlock::ToolResult(result) = block {
                            let Some(tool) = self.state.tools.remove(&result.tool_use_id) else {
                                continue;
                            };
                            if result.is_error == Some(true) {
                                tool.record("error.type", "tool_error");
                            }
                            self.in_session_dispatch(move || drop(tool));
                        }
                    }
                }
            }
            Message::Result(result) => {
                if let Some(cost) = result.turn_cost.as_ref().filter(|cost| cost.disagrees()) {
                    let cli_usd = cost.cli_usd.unwrap_or_default();
                    let priced_usd = cost.priced_usd.unwrap_or_default();
                    event!("cost_disagrees", WARN, cli_usd, priced_usd,
                        "the CLI's cost for the turn differs from the price table's by more than 1 %: \
                         check the table's prices");
                }
                let tools = std::mem::take(&mut self.state.tools);
                self.in_session_dispatch(move || drop(tools));
                if let Some(turn) = self.state.turn.take() {
                    if let Some(usage) = &result.usage {
                        turn.record("gen_ai.usage.input_tokens", usage.input_tokens);
                        turn.record("gen_ai.usage.output_tokens", usage.output_tokens);
                    }
                    if let Some(reason) = &result.stop_reason {
                        turn.record("gen_ai.response.finish_reasons", reason.as_str());
                    }
                    if result.is_error {
                        turn.record("error.type", result.subtype.as_str());
                    }
                    self.in_session_dispatch(move || drop(turn));
                }
            }
            Message::System(SystemMessage::PermissionDenied(denied)) => {
                let tool = denied.tool_name.as_str();
                if let Some(server) = self.state.unlisted_sdk_tool(tool) {
                    let (tool_use_id, reason) = (denied.tool_use_id.as_str(), &denied.message);
                    event!("tool_refused", WARN, tool, server, tool_use_id, %reason,
                        "the CLI refused a tool of an in-process MCP server that allowed_tools does not list");
                }
            }
            _ => {}
        }
    }

    /// The CLI's version was checked: a warning when this SDK does not support it.
    #[inline]
    pub(crate) fn cli_version(&self, check: &VersionCheck) {
        #[cfg(feature = "tracing")]
        {
            use crate::session::CliVersion;
            let minimum = tracing::field::display(CliVersion::MINIMUM);
            match check {
                VersionCheck::Supported(version) => {
                    event!("cli_version", DEBUG, version = %version, minimum, "CLI version supported")
                }
                VersionCheck::TooOld(version) => event!(
                    "cli_version", WARN, version = %version, minimum,
                    "the Claude Code CLI is older than the oldest version this SDK supports; \
                     some features may not work: update it (npm install -g @anthropic-ai/claude-code), \
                     or set CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1 to silence this"
                ),
                _ => {
                    event!(
                    "cli_version", WARN, minimum,
                    "the Claude Code CLI did not report its version, so it is likely older than \
                     the oldest version this SDK supports; some features may not work: update it \
                     (npm install -g @anthropic-ai/claude-code), or set \
                     CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1 to silence this"
                )
                }
            }
        }
    }

    /// The in-process servers are these from now on (`Client::set_mcp_servers`).
    #[inline]
    pub(crate) fn sdk_servers(&mut self, servers: &[SdkMcpServer]) {
        #[cfg(feature = "tracing")]
        {
            self.state.sdk_servers = servers.iter().map(|s| s.name().to_owned()).collect();
        }
    }

    /// A stdout line the session could not use.
    #[inline]
    pub(crate) fn line_error(&self, error: &LineError) {
        #[cfg(feature = "tracing")]
        event!("line_error", WARN, %error, "unusable line from the CLI");
    }

    /// The CLI exited.
    #[inline]
    pub(crate) fn exit(&self, status: &ExitStatusInfo) {
        #[cfg(feature = "tracing")]
        event!(
            "exit",
            INFO,
            code = status.code,
            signal = status.signal,
            "CLI exited"
        );
    }

    /// We sent `signal` to the CLI's process group because `reason`.
    #[inline]
    pub(crate) fn signal(&self, signal: Signal, reason: &'static str, sent: &io::Result<()>) {
        #[cfg(feature = "tracing")]
        {
            let error = sent.as_ref().err().map(tracing::field::display);
            match signal {
                Signal::Terminate => {
                    event!(
                        "signal",
                        INFO,
                        signal = "SIGTERM",
                        reason,
                        error,
                        "sent SIGTERM to the CLI"
                    )
                }
                _ => event!(
                    "signal",
                    WARN,
                    signal = "SIGKILL",
                    reason,
                    error,
                    "sent SIGKILL to the CLI"
                ),
            }
        }
    }
}

#[cfg(feature = "tracing")]
impl State {
    /// The in-process server of `tool` (`mcp__<server>__<name>`), if `allowed_tools` lists
    /// neither the tool nor its whole server (`mcp__<server>`, `mcp__<server>__*`).
    fn unlisted_sdk_tool(&self, tool: &str) -> Option<&str> {
        let rest = tool.strip_prefix("mcp__")?;
        let server = self.sdk_servers.iter().find(|server| {
            rest.strip_prefix(server.as_str())
                .is_some_and(|name| name.starts_with("__"))
        })?;
        let listed = self.allowed_tools.iter().any(|rule| {
            rule == tool
                || rule.strip_prefix("mcp__").is_some_and(|rule| {
                    rule.strip_prefix(server.as_str())
                        .is_some_and(|end| end.is_empty() || end == "__*")
                })
        });
        (!listed).then_some(server.as_str())
    }
}

/// Whether the CLI's stderr lines are traced (so they must be split into lines).
#[inline]
pub(crate) fn stderr_wanted() -> bool {
    #[cfg(feature = "tracing")]
    return tracing::enabled!(target: STDERR_TARGET, tracing::Level::DEBUG);
    #[cfg(not(feature = "tracing"))]
    false
}

/// A line the CLI wrote to stderr.
#[inline]
pub(crate) fn stderr_line(line: &str) {
    #[cfg(feature = "tracing")]
    tracing::event!(name: "stderr", target: STDERR_TARGET, tracing::Level::DEBUG, message = line);
}

/// What kind of answer `reply` is, for `cli_answer`.
#[cfg(feature = "tracing")]
fn reply_kind(reply: &Reply) -> &'static str {
    match reply {
        Reply::Permission(PermissionResult::Allow { .. }) => "allow",
        Reply::Permission(PermissionResult::Deny { .. }) => "deny",
        Reply::Hook(_) => "hook_output",
        Reply::ToolResult(result) if result.is_error => "tool_error",
        Reply::ToolResult(_) => "tool_result",
        Reply::Resource(_) => "resource",
        Reply::Prompt(_) => "prompt",
        Reply::Elicitation(_) => "elicitation",
        Reply::UserDialog(_) => "user_dialog",
        Reply::Error { .. } => "error",
        _ => "raw",
    }
}

#[cfg(feature = "tracing")]
fn micros(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(all(test, feature = "tracing"))]
mod tests {
    use super::*;

    fn state(allowed_tools: &[&str]) -> State {
        State {
            requests: HashMap::new(),
            asked: HashMap::new(),
            session_id: None,
            sdk_servers: vec!["calc".to_owned(), "calc2".to_owned()],
            allowed_tools: allowed_tools.iter().map(|rule| rule.to_string()).collect(),
            started: None,
            claim_sent: None,
            turn: None,
            tools: HashMap::new(),
            model: None,
        }
    }

    #[test]
    fn an_in_process_tool_is_unlisted_unless_a_rule_names_it_or_its_server() {
        assert_eq!(
            state(&["Read"]).unlisted_sdk_tool("mcp__calc__add"),
            Some("calc")
        );
        assert_eq!(
            state(&["mcp__calc__sub"]).unlisted_sdk_tool("mcp__calc__add"),
            Some("calc")
        );
        for rule in ["mcp__calc__add", "mcp__calc", "mcp__calc__*"] {
            assert_eq!(
                state(&[rule]).unlisted_sdk_tool("mcp__calc__add"),
                None,
                "{rule}"
            );
        }
        // A server whose name starts with another's is told apart.
        assert_eq!(
            state(&["mcp__calc"]).unlisted_sdk_tool("mcp__calc2__add"),
            Some("calc2")
        );
        // Built-in tools and tools of servers the CLI runs are not in-process tools.
        assert_eq!(state(&[]).unlisted_sdk_tool("Bash"), None);
        assert_eq!(state(&[]).unlisted_sdk_tool("mcp__github__search"), None);
    }
}
