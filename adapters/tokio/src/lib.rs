//! Claude Agent SDK for Rust, on tokio.
//!
//! Drives the Claude Code CLI (`claude`) as a child process. Everything you need is here:
//! [`query`] for one prompt, [`Client`] for a long-lived session, [`Options`] with callbacks for
//! permission prompts, hooks and in-process MCP tools.
//!
//! ```no_run
//! use claude_agent_tokio::{query, Message, Options};
//!
//! # async fn run() -> Result<(), claude_agent_tokio::Error> {
//! let mut messages = query("What is 2 + 2?", Options::default());
//! while let Some(message) = messages.next().await {
//!     println!("{:?}", message?);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! A session over many turns, with a permission callback:
//!
//! ```no_run
//! use claude_agent_tokio::permission::PermissionResult;
//! use claude_agent_tokio::{connect, Message, Options};
//!
//! # async fn run() -> Result<(), claude_agent_tokio::Error> {
//! let options = Options::new().on_permission_request(|request, _ctx| async move {
//!     if request.tool_name == "Bash" { PermissionResult::deny("no shell") } else { PermissionResult::allow() }
//! });
//! let client = connect(options).await?;
//! client.send("List the files here.").await?;
//! let mut reply = client.receive_response();
//! while let Some(message) = reply.next().await {
//!     if let Message::Result(result) = message? {
//!         println!("{}", result.result.unwrap_or_default());
//!     }
//! }
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! The protocol itself lives in `claude-agent-core` (sans-IO); this crate only supplies tokio's
//! processes, timers and task spawning ([`runtime::TokioRuntime`]).
//!
//! # Processes
//!
//! Each session runs the CLI in a process group of its own. On Unix it also runs a watcher: a
//! `/bin/sh` in a group of its own, asleep in a blocking read on a socket only this process holds
//! ([`runtime::OrphanGuard`]). Its job is that nothing the SDK started outlives it. The CLI runs its Bash
//! tools in process groups (sessions) of their own, so a signal to the CLI's group does not reach
//! them; the watcher kills the CLI's whole tree (its descendants, the groups they lead, and on
//! Linux every process that inherited the `CLAUDE_AGENT_SDK_TREE` variable the CLI is started
//! with):
//!
//! * when this process dies with a session running (killed, crashed, or exited before the runtime was dropped):
//!   the socket closes and the watcher acts on its own, within a fraction of a second;
//! * when the CLI's handle is dropped before the CLI was reaped (the runtime or executor went away
//!   under a running session), and when a shutdown gets to `SIGKILL`: on request, while the handle
//!   waits for it.
//!
//! Per session that costs one more process (about 1 MB of memory), one socket, and a few
//! milliseconds at start; a kill takes some tens of milliseconds. On macOS and the BSDs the tree
//! is read with `ps` and there is no environment marker, so a tool that left the CLI's group and
//! whose parent has already exited is not found. On Windows only the CLI itself is killed.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod pipe;
pub mod runtime;

pub use claude_agent_core::client::{
    prompt_channel, ClaimError, Claimed, Client, Connection, ElicitationContext, Error, Fleet,
    FleetLimits, FleetLimitsError, FleetMember, HookContext, Messages, PermissionContext,
    PoolStart, PooledQuery, PrewarmError, Prompt, PromptSender, PromptStream, Query, ResumeError,
    Spare, SparePool, StoreFlush, Transport, UserDialogContext, WarmQuery,
};
pub use claude_agent_core::message::{Message, UserInput};
pub use claude_agent_core::options::Options;
pub use claude_agent_core::{
    control, cost, history, hooks, message, options, permission, session, store, tools, Json,
    UnknownName,
};

pub use claude_agent_core::client::{cli, mcp, prelude};

use runtime::{connect_with, prewarm_with, query_with, startup_with, TokioRuntime};

/// Start the CLI for a session over many turns and wait until it is ready: the [`Client`] then
/// sends prompts, reads messages and steers the session. [`connect_with`] on this crate's
/// runtime. Must be called inside a tokio runtime.
///
/// ```no_run
/// use claude_agent_tokio::{connect, Message, Options};
/// # async fn run() -> Result<(), claude_agent_tokio::Error> {
/// let client = connect(Options::new()).await?;
/// client.send("What is 2 + 2?").await?;
/// let mut reply = client.receive_response();
/// while let Some(message) = reply.next().await {
///     if let Message::Result(result) = message? {
///         println!("{}", result.result.unwrap_or_default());
///     }
/// }
/// client.close().await;
/// # Ok(())
/// # }
/// ```
pub async fn connect(options: Options) -> Result<Client, Error> {
    connect_with(TokioRuntime, options).await
}

/// Start the CLI, send `prompt` (a `&str`/`String` for one turn, or [`Prompt::stream`] /
/// [`prompt_channel`] for many), and stream every message until the CLI's stdout ends.
///
/// Must be called inside a tokio runtime. The CLI is shut down when the stream is dropped.
///
/// ```no_run
/// use claude_agent_tokio::{query, Options};
/// # async fn run() {
/// let mut messages = query("Hello", Options::default());
/// while let Some(item) = messages.next().await {
///     match item {
///         Ok(message) => println!("{message:?}"),
///         Err(error) => eprintln!("{error}"),
///     }
/// }
/// # }
/// ```
pub fn query(prompt: impl Into<Prompt>, options: Options) -> Query {
    query_with(TokioRuntime, prompt, options)
}

/// Start the CLI for `options` now and wait until it is initialized; the [`WarmQuery`] then runs
/// its prompt with no start-up to wait for.
///
/// ```no_run
/// use claude_agent_tokio::{startup, Options};
/// # async fn run() -> Result<(), claude_agent_tokio::Error> {
/// let warm = startup(Options::new()).await?; // while the user types
/// let mut messages = warm.query("What is 2 + 2?");
/// while let Some(message) = messages.next().await {
///     println!("{}", message?.raw_json());
/// }
/// # Ok(())
/// # }
/// ```
pub async fn startup(options: Options) -> Result<WarmQuery, Error> {
    startup_with(TokioRuntime, options).await
}

/// Start a spare: a CLI parked with the host-level `options` (`--await-claim`), to be claimed
/// later for a session with [`Spare::claim`](claude_agent_core::client::Spare::claim).
///
/// ```no_run
/// use claude_agent_tokio::{prewarm, control::ClaimOptions, Options};
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let spare = prewarm(Options::new()).await?;
/// // … when the user opens a folder and asks:
/// let claimed = spare.claim("Summarise README.md", ClaimOptions::new("/srv/app")).await?;
/// let mut messages = claimed.messages;
/// while let Some(message) = messages.next().await {
///     println!("{}", message?.raw_json());
/// }
/// # Ok(())
/// # }
/// ```
pub async fn prewarm(options: Options) -> Result<Spare, PrewarmError> {
    prewarm_with(TokioRuntime, options).await
}
