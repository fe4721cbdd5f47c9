//! Claude Agent SDK for Rust with no async runtime: blocking calls, iterators and plain-closure
//! callbacks, in the manner of `reqwest::blocking`. For command-line tools and sync applications.
//!
//! Drives the Claude Code CLI (`claude`) as a child process. [`query`] runs one prompt and is an
//! iterator over its messages; [`Client`] is a long-lived session whose methods block until they
//! have their answer; [`Options`] configures both, and [`callback`] makes plain closures into its
//! callbacks.
//!
//! ```no_run
//! use claude_agent_blocking::{query, Message, Options};
//!
//! for message in query("What is 2 + 2?", Options::new()) {
//!     if let Message::Result(result) = message? {
//!         println!("{}", result.result.unwrap_or_default());
//!     }
//! }
//! # Ok::<(), claude_agent_blocking::Error>(())
//! ```
//!
//! # Client
//!
//! A session over many turns. [`Client`] is `Clone + Send + Sync`: another thread can
//! [`interrupt`](Client::interrupt) a turn, or send any other control request, while one reads it.
//!
//! ```no_run
//! use std::time::Duration;
//! use claude_agent_blocking::{Client, Message, Options};
//!
//! let client = Client::connect(Options::new())?;
//! client.send("List the files here.")?;
//! for message in client.receive_response() {
//!     if let Message::Result(result) = message? {
//!         println!("{}", result.result.unwrap_or_default());
//!     }
//! }
//!
//! // A turn that another thread stops after 30 s.
//! client.send("Now read every one of them.")?;
//! let watchdog = client.clone();
//! std::thread::spawn(move || {
//!     std::thread::sleep(Duration::from_secs(30));
//!     let _ = watchdog.interrupt();
//! });
//! for message in client.receive_response() {
//!     println!("{:?}", message?);
//! }
//! client.close();
//! # Ok::<(), claude_agent_blocking::Error>(())
//! ```
//!
//! # Options and callbacks
//!
//! [`Options`] is the SDK's one options type, with every option the CLI understands. Its
//! callback methods take async closures; wrap a plain closure with the [`callback`] function
//! named after it and give it to the same method:
//!
//! | Callback | Plain closure | Its context |
//! |---|---|---|
//! | permission prompts | `on_permission_request(`[`callback::permission`]`(f))` | [`PermissionContext`] |
//! | hooks, typed by event | `on_hook(matcher, `[`callback::hook`]`(f))` | [`HookContext`] |
//! | hooks, any event | `on_hook_event(event, matcher, `[`callback::hook`]`(f))` | [`HookContext`] |
//! | MCP elicitation | `on_elicitation(`[`callback::elicitation`]`(f))` | [`ElicitationContext`] |
//! | dialogs the CLI asks the host to show | `on_user_dialog(kinds, `[`callback::user_dialog`]`(f))` | [`UserDialogContext`] |
//! | in-process MCP tools | [`tool`](mcp::tool), [`typed_tool`](mcp::typed_tool) in an [`SdkMcpServer`](mcp::SdkMcpServer) given to [`Options::sdk_mcp_server`] | |
//! | in-process MCP resources and prompts | [`resource`](mcp::resource), [`resource_template`](mcp::resource_template), [`prompt_template`](mcp::prompt_template) in an [`SdkMcpServer`](mcp::SdkMcpServer) | |
//! | stderr lines | [`Options::on_stderr`] (already plain) | |
//!
//! Each call of a callback runs on a thread of its own, so a slow one (a question on the
//! terminal) holds up nothing else, and it may call the session through its context's
//! [`client`](PermissionContext::client).
//!
//! ```no_run
//! use claude_agent_blocking::hooks::{HookOutput, PreToolUseInput};
//! use claude_agent_blocking::mcp::ToolResult;
//! use claude_agent_blocking::permission::PermissionResult;
//! use claude_agent_blocking::{query, Message, Options, callback};
//! use claude_agent_blocking::mcp::{tool, SdkMcpServer};
//! use serde_json::json;
//!
//! let clock = SdkMcpServer::new("clock", "1.0").tool(tool(
//!     "now",
//!     "The current Unix time",
//!     json!({"type": "object"}),
//!     |_args| {
//!         let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
//!         Ok::<_, std::time::SystemTimeError>(ToolResult::text(now.as_secs().to_string()))
//!     },
//! ));
//! let options = Options::new()
//!     .sdk_mcp_server(clock)
//!     .allowed_tools(["mcp__clock__now"])
//!     .on_permission_request(callback::permission(|request, _ctx| match request.tool_name.as_str() {
//!         "Read" | "Glob" | "Grep" => PermissionResult::allow(),
//!         _ => PermissionResult::deny("This session may only read files."),
//!     }))
//!     .on_hook(Some("Bash"), callback::hook(|input: PreToolUseInput, ctx| {
//!         let command = input.tool_input.to_value()["command"].as_str().unwrap_or_default().to_owned();
//!         if command.contains("rm -rf") {
//!             // Stop the whole turn, not just this command.
//!             let _ = ctx.client().interrupt();
//!             return HookOutput::deny_tool("no rm -rf");
//!         }
//!         HookOutput::proceed()
//!     }));
//! for message in query("What time is it? Then list the Rust files.", options) {
//!     if let Message::Result(result) = message? {
//!         println!("{}", result.result.unwrap_or_default());
//!     }
//! }
//! # Ok::<(), claude_agent_blocking::Error>(())
//! ```
//!
//! # Warm start
//!
//! [`startup`] starts and initializes the CLI before the prompt is known (while the user types);
//! [`prewarm`] parks a CLI before even the session's folder is known, and [`Spare::claim`] binds
//! it to a session; a [`SparePool`] keeps spares ready and hands them out.
//!
//! ```no_run
//! use claude_agent_blocking::control::ClaimOptions;
//! use claude_agent_blocking::{prewarm, Options};
//!
//! let spare = prewarm(Options::new())?; // at start-up
//! // … the user opens a folder and asks:
//! let claimed = spare.claim("Summarise README.md", ClaimOptions::new("/srv/app"))?;
//! for message in claimed.messages {
//!     println!("{:?}", message?);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Time-outs
//!
//! [`Query::next_timeout`] and [`Messages::next_timeout`] wait at most a given time for the next
//! message. Control requests (`interrupt`, `set_model`, …) fail with [`Error::ControlTimeout`]
//! after [`Options::control_timeout`] (60 s by default), and [`Client::connect`] after
//! [`Options::initialize_timeout`].
//!
//! # Threads
//!
//! These threads run beside yours, each started on first use and kept for the life of the process:
//!
//! * `claude-agent`: runs every session of the process: it reads and writes the CLIs' pipes,
//!   runs their protocol and their timers, and shuts them down. It lives as long as the process.
//!   Of your code it runs only the [`Options::on_stderr`] callback; a blocking call of this crate
//!   made there panics instead of waiting for itself.
//! * `blocking-N`: the thread pool of smol's `blocking` crate, where callbacks and tool handlers
//!   run. It grows to as many calls as run at once (at most 500, `BLOCKING_MAX_THREADS`), and its
//!   threads are kept for later calls.
//! * `async-io`: async-io's reactor thread, which wakes timers and pipes when no thread waits in
//!   a call of this crate.
//! * `async-process`: async-process's thread that reaps the CLI processes once they exit.
//!
//! Each blocking call waits on the calling thread for what it asked of the `claude-agent`
//! thread. Do not make them from async code: they would block its executor.
//!
//! # Testing
//!
//! `Options::transport` with the in-memory fake CLI of `claude-agent-testkit` runs the app's
//! ordinary code with no process:
//!
//! ```
//! use claude_agent_blocking::permission::PermissionResult;
//! use claude_agent_blocking::{query, Message, Options, callback};
//! use claude_agent_testkit::fake_cli::{Script, ToolUse};
//! use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
//! use serde_json::json;
//!
//! let bash = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf /"}));
//! let fake = FakeTransport::new(
//!     Script::new()
//!         .answer_initialize()
//!         .expect_user()
//!         .emit_tool_use(&bash)
//!         .can_use_tool_then(
//!             "p1",
//!             &bash,
//!             |allowed| allowed.emit_result("deleted"),
//!             |denied| denied.emit_result("kept"),
//!         ),
//! );
//! let options = Options::new()
//!     .transport(fake.clone())
//!     .on_permission_request(callback::permission(|_request, _ctx| PermissionResult::deny("read-only")));
//! let last = query("clean up", options).last().unwrap().unwrap();
//! assert!(matches!(last, Message::Result(result) if result.result.as_deref() == Some("kept")));
//! assert_eq!(fake.answers()[0].1, SdkAnswer::Permission(PermissionResult::deny("read-only")));
//! ```
//!
//! # Processes
//!
//! Sessions run on smol's process and timer crates (`claude-agent-smol`), and pull in no tokio.
//! Each one runs the CLI in a process group of its own and, on Unix, a small watcher (`/bin/sh`)
//! that kills the CLI's whole process tree, its Bash tools included, should this process die
//! first. Dropping a [`Query`], or the last [`Client`] of a session, shuts the CLI down in the
//! background; [`Client::close`] waits until it is gone.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod callback;
mod client;
mod context;
mod executor;

mod prompt;
mod query;
mod tool;
mod warm;

use std::fmt;

pub use claude_agent_client::{history, store};
pub use claude_agent_client::{options, Options};
pub use claude_agent_client::{
    AdmitError, AdmitFuture, ChargeFuture, ClaimError, Connection, Error, Fleet, FleetError,
    FleetLimits, FleetLimitsError, FleetMember, HostId, PoolStart, PrewarmError, Prompt,
    PromptStream, ResumeError, SharedLedger, SharedPlace, StoreFlush, Transport,
};
pub use claude_agent_core::message::{Message, UserInput};
pub use claude_agent_core::{
    control, cost, hooks, message, permission, session, tools, Json, UnknownName,
};

/// MCP: in-process servers whose tools, resources and prompts run in this program as blocking
/// functions ([`SdkMcpServer`](mcp::SdkMcpServer), [`tool`](mcp::tool), `typed_tool`), and the
/// protocol's data types ([`ToolResult`](mcp::ToolResult), …).
///
/// ```
/// use claude_agent_blocking::mcp::{tool, SdkMcpServer, ToolResult};
///
/// let clock = SdkMcpServer::new("clock", "1.0.0").tool(tool(
///     "now",
///     "The current Unix time in seconds",
///     serde_json::json!({"type": "object"}),
///     |_args| Ok::<_, String>(ToolResult::text("1767225600")),
/// ));
/// let options = claude_agent_blocking::Options::new().sdk_mcp_server(clock);
/// # let _ = options;
/// ```
pub mod mcp {
    pub use claude_agent_client::mcp::{
        McpServerSet, SdkMcpServer, SdkPrompt, SdkResource, SdkTool, ToolError,
        DEFAULT_TOOL_TIMEOUT,
    };
    pub use claude_agent_core::mcp::*;

    #[cfg(feature = "schemars")]
    pub use crate::tool::typed_tool;
    pub use crate::tool::{
        prompt_template, resource, resource_template, tool, BlockingToolHandler,
    };
}

pub use claude_agent_client::cli;

pub use client::{Client, Messages};
pub use context::{ElicitationContext, HookContext, PermissionContext, UserDialogContext};

pub use prompt::{prompt_channel, PromptSender};
pub use query::{query, Query};
pub use warm::{prewarm, startup, Claimed, PooledQuery, Spare, SparePool, WarmQuery};

/// No message came within the time given to [`Query::next_timeout`] or
/// [`Messages::next_timeout`]. Nothing was lost: the next call goes on waiting.
///
/// ```no_run
/// use std::time::Duration;
/// use claude_agent_blocking::{query, Options, TimedOut};
///
/// let mut messages = query("Think hard about this.", Options::new());
/// match messages.next_timeout(Duration::from_secs(5)) {
///     Ok(Some(message)) => println!("{:?}", message?),
///     Ok(None) => println!("the end"),
///     Err(TimedOut) => println!("still thinking…"),
/// }
/// # Ok::<(), claude_agent_blocking::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

impl fmt::Display for TimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no message came within the time-out")
    }
}

impl std::error::Error for TimedOut {}
