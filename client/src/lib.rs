//! The runtime-agnostic async layer of a Claude Agent SDK for Rust: [`query_with`] for one
//! prompt, [`Client`] for a long-lived session, [`Options`] with the user's callbacks, the one
//! driver future that runs a session, and the sessions the CLI keeps ([`history`], [`store`]).
//!
//! Users normally reach this through a runtime crate (`claude-agent-tokio`, `claude-agent-smol`,
//! `claude-agent-async-std`), which re-exports it with the runtime filled in: `query(prompt,
//! options)` and `connect(options)`. This crate is written once over the `futures-io`
//! traits and a small [`Runtime`] trait that those crates implement; [`query_with`] and
//! [`connect_with`] take the runtime explicitly.
//!
//! ```no_run
//! use claude_agent_client::{query_with, Runtime};
//! use claude_agent_core::message::Message;
//! use claude_agent_client::options::Options;
//! use futures_lite::StreamExt;
//!
//! async fn ask<R: Runtime>(runtime: R) -> Result<String, claude_agent_client::Error> {
//!     let mut messages = query_with(runtime, "What is 2 + 2?", Options::new());
//!     let mut answer = String::new();
//!     while let Some(message) = messages.next().await {
//!         if let Message::Result(result) = message? {
//!             answer = result.result.unwrap_or_default();
//!         }
//!     }
//!     Ok(answer)
//! }
//! ```
//!
//! How a session runs: [`query_with`] or [`connect_with`] finds the CLI
//! ([`find_cli`](crate::cli::find_cli)), spawns it in its own process group (or opens the
//! connection of `Options::transport`), and puts one driver future on the runtime. The driver feeds
//! the [`crate::session::Session`] with stdout, writes its transmits to stdin, keeps stderr
//! drained, runs the callbacks given to [`Options`] as futures it polls itself, and serves the
//! handles' commands over a bounded channel. Messages reach the user through a bounded queue, each
//! one exactly once; when nobody reads, the driver stops reading the CLI. When the last handle is
//! dropped, the driver shuts the CLI down (close stdin, 5 s, `SIGTERM`, 5 s, `SIGKILL`) and reaps
//! it.
//!
//! # Features
//!
//! | Feature | What it adds |
//! |---|---|
//! | `schemars` | `typed_tool`: an in-process tool's JSON Schema derived from its argument type. |
//! | `jsonschema` | In-process tools check each call's arguments against their schema. |
//! | `tracing` | Spans and events of each session (below, "Tracing"). |
//! | `otel` | `tracing`, and the caller's OpenTelemetry trace continued in the CLI: at a session's start the current span's context (through `tracing-opentelemetry`) becomes the CLI's `TRACEPARENT` and `TRACESTATE`, unless `Options::trace_context` sets them. |
//!
//! The runtime crates turn on `schemars` and `jsonschema` by default and pass the others on.
//!
//! # Tracing
//!
//! With the feature `tracing` (off unless turned on) every session reports what it does through the
//! [`tracing`](https://docs.rs/tracing) crate, to whatever subscriber the application installs.
//! Turn it on through the runtime crate, which passes it on to this crate:
//!
//! ```toml
//! [dependencies]
//! claude-agent-tokio = { version = "0.1", features = ["tracing"] }  # or -smol, -async-std, -blocking
//! tracing-subscriber = "0.3"
//! ```
//!
//! Each session runs in a span named `session` (level INFO, target `claude_agent_client`), entered
//! whenever the session's driver runs. Every event below carries it, and so do the events of the
//! application's own callbacks (permission, hooks, in-process tools), which run inside the driver
//! (except with `claude-agent-blocking`, which runs each callback on a thread of its own).
//!
//! | Span field | Value |
//! |---|---|
//! | `pid` | the CLI's process id (absent for a transport without a process) |
//! | `session_id` | the session id of the CLI's `system/init`, recorded when it first comes (and again if it changes) |
//! | `model` | the model that `system/init` names |
//!
//! Inside it, each turn is a span named `invoke_agent` (from the prompt to its result), and each
//! tool call of the main agent a span named `execute_tool` inside the turn's (from the
//! `tool_use` to its `tool_result`), both with the attributes of OpenTelemetry's GenAI semantic
//! conventions. The `cli_request` and `cli_answer` events of a request about a tool call (a
//! permission prompt, a hook, an in-process tool) are in that call's span, others in the turn's.
//!
//! | Span | Field | Value |
//! |---|---|---|
//! | `invoke_agent` | `gen_ai.operation.name` | `invoke_agent` |
//! | | `gen_ai.provider.name`, `gen_ai.agent.name` | `anthropic`, `claude-code` |
//! | | `gen_ai.conversation.id` | the session id |
//! | | `gen_ai.request.model` | the model `system/init` names |
//! | | `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens` | the result's usage |
//! | | `gen_ai.response.finish_reasons` | the result's stop reason |
//! | | `error.type` | the result's subtype, when it is an error |
//! | `execute_tool` | `gen_ai.operation.name` | `execute_tool` |
//! | | `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` | the tool's name, the `tool_use` id, `function` |
//! | | `error.type` | `tool_error` when the result is an error |
//!
//! The events have a name (`Metadata::name`) and a message for people; their target is
//! `claude_agent_client`, except the CLI's stderr lines (`claude_agent_client::stderr`, so that they
//! can be filtered apart). Durations are in microseconds, on the runtime's clock
//! (`Runtime::now`: a virtual clock gives virtual durations).
//!
//! | Event | Level | When | Fields |
//! |---|---|---|---|
//! | `spawn` | INFO | the CLI was started | `program`, `cwd` |
//! | `connect` | INFO | the CLI was reached through `Options::transport` | `program`, `cwd` (of the command line the transport was given) |
//! | `exit` | INFO | the CLI exited | `code`, `signal` |
//! | `signal` | INFO for `SIGTERM`, WARN for `SIGKILL` | shutting down, the CLI's process group was sent a signal | `signal`, `reason`, `error` (when sending failed) |
//! | `control_request` | DEBUG | a control request of the SDK went out (`initialize`, `interrupt`, `set_model`, `mcp_status`, …) | `subtype`, `request_id` |
//! | `control_response` | DEBUG; WARN when it failed | its outcome: answered, refused by the CLI, timed out, or the session ended first | `subtype`, `request_id`, `ok`, `duration_us`, `error` |
//! | `cli_request` | DEBUG | the CLI asks a callback: `can_use_tool`, `hook_callback`, `mcp_message` (an in-process tool call, resource read or prompt), `elicitation`, `request_user_dialog` | `subtype`, `request_id` (the CLI's); `tool` (`can_use_tool`); `callback_id`, `hook_event` (`hook_callback`); `server`, `method`, and `tool`, `uri` or `prompt` (`mcp_message`: `tools/call`, `resources/read`, `prompts/get`); `server` (`elicitation`); `dialog_kind` (`request_user_dialog`) |
//! | `cli_answer` | DEBUG | the callback's answer went to the CLI | `subtype`, `request_id`, `reply` (`allow`, `deny`, `hook_output`, `tool_result`, `tool_error`, `resource`, `prompt`, `elicitation`, `user_dialog`, `error`), `duration_us` |
//! | `callback_error` | WARN | a callback returned an error or panicked (or none was registered); the CLI is answered with an error | `subtype`, `request_id`, `panicked`, `error` |
//! | `callback_expired` | WARN | an in-process tool ran past its time limit ([`SdkTool::timeout`](mcp::SdkTool::timeout)); the CLI got an error result in its place and the callback was dropped | `subtype`, `request_id`, `running`, `duration_us` |
//! | `callback_cancelled` | DEBUG | the CLI withdrew its request, or the session ended before the answer | `subtype`, `request_id`, `running` (whether a running callback was dropped) |
//! | `turn_stalled` | WARN | a turn went silent past `Options::stall_watch`'s limit | `idle_ms`, `last_event`, `in_flight_tools` |
//! | `cli_version` | DEBUG; WARN when the CLI is older than the supported minimum or reports no version | the CLI's version was checked (above, "Supported CLI versions") | `version` (when reported), `minimum` |
//! | `line_error` | WARN | a stdout line the SDK could not use (it also reaches the message stream as a `Message::Notice`) | `error` |
//! | `tool_refused` | WARN | the CLI refused the model a tool of an in-process MCP server that `allowed_tools` does not list (below) | `tool`, `server`, `tool_use_id`, `reason` (the CLI's text) |
//! | `startup_mark` | DEBUG | a start-up checkpoint the CLI passed (`startup` and `prewarm` ask for them) | `mark`, `since_us` (since `initialize` was sent) |
//! | `claim` | DEBUG | the claim of a parked CLI went out (`Spare::claim`) | `request_id` |
//! | `claim_answered` | DEBUG | the CLI took the claim | `session_id`, `cwd`, `parked_ms`, `not_applied` (how many options it did not take), `duration_us` |
//! | `claim_refused` | WARN | the CLI refused the claim (it exits) | `reason`, `error`, `duration_us` |
//! | `stderr` | DEBUG | a line the CLI wrote to stderr: the line is the event's message | |
//!
//! `tool_refused`: Claude Code lets the model use an MCP tool, in-process ones included, only when
//! a rule allows it (`allowed_tools(["mcp__calc__add"])`, or `mcp__calc` or `mcp__calc__*` for every
//! tool of the server) or an `on_permission_request` callback says yes. Without the rule and
//! without the callback, the CLI refuses the call by itself: the model gets the error "Claude requested
//! permissions to use mcp__calc__add, but you haven't granted it yet.", and the CLI prints a
//! `system/permission_denied` message. The warning is raised on that message, for a tool of one
//! of the session's in-process servers that no rule of `allowed_tools` names. (With a
//! `can_use_tool` callback the CLI asks it instead, which is a `cli_request`; a denial by the
//! callback is the application's own decision.)
//!
//! Requests that the session answers by itself, without a callback (the MCP handshake of the
//! in-process servers, refusals of requests that no callback can take), have no events.
//!
//! Installing a subscriber, here `tracing_subscriber::fmt` at DEBUG, is all it takes. A line of
//! its output: `DEBUG session{pid=4242 session_id="8d1f2c3e…" model="claude-sonnet-4-5"}:
//! claude_agent_client: request from the CLI subtype="can_use_tool" request_id="…" tool="Bash"`.
//! (With `tracing-subscriber`'s `env-filter` feature, `RUST_LOG=claude_agent_client=debug` selects
//! the same, and `claude_agent_client::stderr=off` leaves the CLI's stderr out.)
//!
//! ```no_run
//! use claude_agent_client::{query_with, Runtime};
//! use claude_agent_client::options::Options;
//! use futures_lite::StreamExt;
//! use tracing_subscriber::filter::LevelFilter;
//!
//! async fn traced<R: Runtime>(runtime: R) {
//!     tracing_subscriber::fmt().with_max_level(LevelFilter::DEBUG).init();
//!     // The SDK as usual (`claude_agent_tokio::query(prompt, options)` on tokio).
//!     let mut messages = query_with(runtime, "What is 2 + 2?", Options::new());
//!     while let Some(message) = messages.next().await {
//!         let _ = message;
//!     }
//! }
//! ```
#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// What the user holds: [`Client`], [`Query`], the warm handles and the pool, prompt streams,
/// and the wait for a session to be ready.
mod handles {
    #[allow(clippy::module_inception)]
    pub(super) mod client;
    pub(super) mod mcp_call;
    pub(super) mod pool;
    pub(super) mod prompt;
    pub(super) mod query;
    pub(super) mod spare;
    pub(super) mod warm;
}

/// The one task that runs a session: starting it, the driver future, the queue to the handles,
/// stderr, and tracing.
mod task {
    pub(super) mod cli;
    pub(super) mod clock;
    pub(super) mod driver;
    pub(super) mod handles_side;
    pub(super) mod message_queue;
    #[cfg(feature = "otel")]
    pub(super) mod otel;
    pub(super) mod place;
    pub(super) mod replies;
    pub(super) mod session_end;
    pub(super) mod spawn;
    pub(super) mod stderr;
    pub(super) mod trace;
}

/// Reaching the CLI: the [`Runtime`] trait, transports, finding the executable, and the guard
/// that takes the CLI down with its host.
mod process {
    pub(super) mod discovery;
    pub(super) mod local;
    #[cfg(unix)]
    pub(super) mod orphan_guard;
    pub(super) mod preflight;
    pub(super) mod resources;
    pub(super) mod runtime;
    pub(super) mod temp_folders;
    pub(super) mod transport;
}

/// The user's callbacks: how they are registered on the options, stored, and run for the CLI's
/// requests, in-process MCP servers among them.
mod callbacks {
    pub(super) mod dispatch;
    pub(super) mod handlers;
    pub(super) mod mcp_servers;
    pub(super) mod sdk_mcp;
    pub(super) mod unasked_tools;
}

/// What outlives the process: the session store's mirror, resuming from a store, recordings.
mod persistence {
    pub(super) mod config_dir;
    pub(super) mod mirror;
    pub(super) mod parking_dir;
    pub(super) mod recorder;
    pub(super) mod session_folders;
    pub(super) mod store_resume;
    pub(super) mod user_files;
}

mod error;
mod fleet;
pub mod history;
pub mod options;
mod private_files;
mod published_modules;
pub mod store;
mod uuid;

// The protocol's modules, by their names in the core, across this crate (`crate::session`, …).
use claude_agent_core::{
    control, cost, hooks, message, permission, recording, session, Json, SessionKey,
};

pub use callbacks::handlers::{
    ElicitationContext, HookContext, HostId, PermissionContext, UserDialogContext,
};
pub use callbacks::unasked_tools::UnaskedTools;
pub use error::{ClaimError, Error, FleetError};
pub(crate) use fleet::Seat;
pub use fleet::{
    AdmitError, AdmitFuture, ChargeFuture, Fleet, FleetLimits, FleetLimitsError, FleetMember,
    SharedLedger, SharedPlace,
};
pub use handles::client::{connect_with, Client, Messages};
pub use handles::pool::{PoolStart, PooledQuery, SparePool};
pub use handles::prompt::{prompt_channel, Prompt, PromptSender, PromptStream};
pub use handles::query::{query_with, Query};
pub use handles::spare::{prewarm_with, Claimed, PrewarmError, Spare};
pub use handles::warm::{startup_with, WarmQuery};
pub use options::Options;
pub use persistence::store_resume::ResumeError;
pub use process::local::LocalCommand;
pub(crate) use process::local::{child_var, give_to, user_ids};
#[cfg(unix)]
pub use process::orphan_guard::{OrphanGuard, TreeKill, TreeKiller};
pub(crate) use process::preflight::Finding;
pub use process::resources::ProcessTree;
pub(crate) use process::resources::{process_tree, resident_of_trees};
pub use process::runtime::{BoxFuture, ChildProcess, Runtime, Signal};
pub(crate) use process::temp_folders::temp_folder;
pub use process::transport::{Connection, Transport};
pub use published_modules::{cli, mcp};
pub use store::flush::StoreFlush;
