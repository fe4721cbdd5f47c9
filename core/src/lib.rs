//! Sans-IO core of a Claude Agent SDK for Rust.
//!
//! This crate speaks the Claude Code CLI's `stream-json` protocol (one JSON object per line over the
//! child's stdin/stdout) without doing any I/O itself:
//!
//! * [`session`] — the protocol state machine: bytes in, bytes and events out, time passed in.
//! * [`message`] — typed messages the CLI prints, with raw passthrough of anything unknown.
//! * [`control`] — control requests we send, requests the CLI sends us, and our replies.
//! * `history` (feature `history`) — the sessions the CLI stored on disk: list, read, rename, tag, fork, delete.
//! * `store` (feature `history`) — session stores: transcripts mirrored to storage of your own, and resumed from it.
//! * [`options`] — every SDK option, turned into a [`options::LaunchSpec`] and a [`session::SessionConfig`].
//! * [`hooks`], [`permission`], [`mcp`] — payloads of hook callbacks, permission prompts and in-process MCP tools.
//!
//! The runtime adapters (`claude-agent-tokio`, `claude-agent-smol`, `claude-agent-async-std`) drive a
//! [`session::Session`] over a real child process; tests and fuzzers drive it directly.
//!
//! # Features
//!
//! With its default features (none) the crate is the pure protocol state machine and its data:
//! `session`, `message`, `control`, `options`, `hooks`, `permission`, `mcp` and `recording` open
//! no file, read no clock (time is passed in), start no process, read no environment variable
//! and touch no network; its dependencies are data crates only. That build is what the fuzz
//! targets drive and what a host of its own builds on. The runtime crates turn on the rest:
//!
//! | Feature | What it adds |
//! |---|---|
//! | `client` | The runtime-agnostic async layer, `client`: `query`, `Client`, callbacks, warm starts. Implies `history`. |
//! | `history` | `history` and `store`: the sessions the CLI keeps, on disk or in a session store. They read and write files and the clock. |
//! | `schemars` | `typed_tool`: an in-process tool's JSON Schema derived from its argument type. Implies `client`. |
//! | `jsonschema` | In-process tools check each call's arguments against their schema. Implies `client`. |
//! | `tracing` | Spans and events of each session (below, "Tracing"). Implies `client`. |
//! | `otel` | `tracing`, and the caller's OpenTelemetry trace continued in the CLI: at a session's start the current span's context (through `tracing-opentelemetry`) becomes the CLI's `TRACEPARENT` and `TRACESTATE`, unless `Options::trace_context` sets them. |
//!
//! ```toml
//! [dependencies]
//! claude-agent-core = "0.1"  # the state machine alone
//! # or, for an application: claude-agent-tokio (or -smol, -async-std, -blocking), which turns on
//! # `client`, `schemars` and `jsonschema` (its default features) and re-exports this crate.
//! ```
//!
//! # Supported CLI versions
//!
//! The SDK supports Claude Code CLI 2.1.330 and later ([`session::CliVersion::MINIMUM`]): it is
//! tested against 2.1.330, and older CLIs lack parts of the protocol it relies on. Each session
//! checks the version the CLI reports, in its answer to `initialize` or else in its first
//! `system/init`, and reports it as [`session::Event::CliVersion`]; `Client::version_check`
//! reads it, and with the `tracing` feature an older CLI (or one that reports no version) is a
//! warning. Setting `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` (to anything but the empty string)
//! turns the check off, as it does for the official SDKs.
//!
//! # Tracing
//!
//! With the feature `tracing` (off unless turned on) every session reports what it does through the
//! [`tracing`](https://docs.rs/tracing) crate, to whatever subscriber the application installs.
//! Turn it on through the runtime crate, which passes it on to this one:
//!
//! ```toml
//! [dependencies]
//! claude-agent-tokio = { version = "0.1", features = ["tracing"] }  # or -smol, -async-std, -blocking
//! tracing-subscriber = "0.3"
//! ```
//!
//! Each session runs in a span named `session` (level INFO, target `claude_agent_core`), entered
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
//! `claude_agent_core`, except the CLI's stderr lines (`claude_agent_core::stderr`, so that they
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
//! claude_agent_core: request from the CLI subtype="can_use_tool" request_id="…" tool="Bash"`.
//! (With `tracing-subscriber`'s `env-filter` feature, `RUST_LOG=claude_agent_core=debug` selects
//! the same, and `claude_agent_core::stderr=off` leaves the CLI's stderr out.)
//!
//! ```no_run
//! use claude_agent_core::client::{query_with, Runtime};
//! use claude_agent_core::client::options::Options;
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

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "client")]
pub mod client;
pub mod control;
pub mod cost;
#[cfg(feature = "history")]
pub mod history;
pub mod hooks;
mod json;
pub mod mcp;
pub mod message;
mod option_types;
pub mod options;
pub mod permission;
#[cfg(feature = "history")]
mod private_files;
pub mod recording;
mod redact;
pub mod session;
mod session_key;
#[cfg(feature = "history")]
pub mod store;
#[cfg(test)]
mod test_fixtures;
pub mod tools;
mod unknown_name;
#[cfg(feature = "history")]
mod uuid;

pub use json::Json;
pub use session_key::SessionKey;
pub use unknown_name::UnknownName;
