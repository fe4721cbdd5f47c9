//! Claude Agent SDK for Rust, on smol.
//!
//! Drives the Claude Code CLI (`claude`) as a child process. Everything you need is here:
//! [`query`] for one prompt, [`Client`] for a long-lived session, [`Options`] with callbacks for
//! permission prompts, hooks and in-process MCP tools.
//!
//! ```no_run
//! use claude_agent_smol::{query, Message, Options};
//!
//! smol::block_on(async {
//!     let mut messages = query("What is 2 + 2?", Options::default());
//!     while let Some(message) = messages.next().await {
//!         println!("{:?}", message?);
//!     }
//!     Ok::<_, claude_agent_smol::Error>(())
//! })
//! # .unwrap();
//! ```
//!
//! A session over many turns, with a permission callback:
//!
//! ```no_run
//! use claude_agent_smol::permission::PermissionResult;
//! use claude_agent_smol::{connect, Message, Options};
//!
//! # async fn run() -> Result<(), claude_agent_smol::Error> {
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
//! The session's driver runs on smol's global executor (`smol::spawn`), so it makes progress
//! whatever executor or `block_on` your own code runs on. Code that reads many messages is
//! fastest when it runs on that executor too (`smol::block_on(smol::spawn(app))`): messages then
//! pass between tasks on one thread instead of crossing threads. To run it on an executor of your own,
//! use [`runtime::SmolRuntime::with_executor`] with [`runtime::query_with`] or [`runtime::connect_with`].
//!
//! The protocol itself lives in `claude-agent-core` (sans-IO); this crate only supplies
//! async-process children, async-io timers and smol's task spawning ([`runtime::SmolRuntime`]).
//!
//! # Tasks
//!
//! | To… | Use |
//! |---|---|
//! | ask one prompt | [`query`] |
//! | hold a session over many turns | [`connect`] and [`Client`] |
//! | allow or deny each tool call | [`Options::on_permission_request`] |
//! | run code before or after a tool, or at other hook events | [`Options::on_hook`] |
//! | give the model tools that run in this process | [`Options::sdk_mcp_server`], [`mcp::tool`] |
//! | know and cap what turns cost | [`ResultMessage::turn_cost`](message::ResultMessage::turn_cost), [`Options::budget`] |
//! | stop the running turn | [`Client::interrupt`] |
//! | resume an earlier session | [`Options::session_start`] with [`SessionStart::resume`](options::SessionStart::resume) |
//! | get the result as a typed value | [`Options::output_type`], [`ResultMessage::structured`](message::ResultMessage::structured) |
//! | test your agent with no process | `Options::transport` with the fake CLI of the `claude-agent-testkit` crate |
//!
//! Together, in one session:
//!
//! ```no_run
//! use claude_agent_smol::cost::Budget;
//! use claude_agent_smol::hooks::{HookOutput, PreToolUseInput};
//! use claude_agent_smol::options::SessionStart;
//! use claude_agent_smol::permission::PermissionResult;
//! use claude_agent_smol::{connect, Message, Options};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Verdict { safe: bool }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let options = Options::new()
//!     // Permissions: only reads.
//!     .on_permission_request(|request, _ctx| async move {
//!         if request.tool_name == "Read" { PermissionResult::allow() } else { PermissionResult::deny("read-only") }
//!     })
//!     // Hooks: see every Bash command before it runs.
//!     .on_hook("Bash", |input: PreToolUseInput, _ctx| async move {
//!         println!("{:?}", input.tool_input);
//!         HookOutput::proceed()
//!     })
//!     // Cost: end the session past half a dollar.
//!     .budget(Budget::usd(0.50))
//!     // Resume: go on where an earlier session stopped.
//!     .session_start(SessionStart::resume("46eb1b6d-8361-4d7c-a347-8234db4a9d65"))
//!     // Structured output: the result as a `Verdict`.
//!     .output_type::<Verdict>();
//! let client = connect(options).await?;
//! client.send("Is this repository safe to build?").await?;
//! let mut reply = client.receive_response();
//! while let Some(message) = reply.next().await {
//!     if let Message::Result(result) = message? {
//!         let verdict: Verdict = result.structured()?;
//!         let cost = result.turn_cost.as_ref().and_then(|cost| cost.usd());
//!         println!("safe: {}, cost: {cost:?}", verdict.safe);
//!     }
//! }
//! client.interrupt().await?; // stop a running turn (here, none is left)
//! client.close().await;
//! # Ok(())
//! # }
//! ```
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
//! * when this process dies with a session running (killed, crashed, or exited from `main` while sessions run on smol's global executor, which is never dropped):
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
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod runtime;

claude_agent_client::runtime_crate_root! {
    crate: claude_agent_smol,
    runtime: runtime::SmolRuntime::default(),
    runs: "Works from any executor (the session runs on smol's global one).",
}
