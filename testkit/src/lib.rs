//! Test tools for the Claude Agent SDK.
//!
//! * [`transport`] — the fake CLI as an in-memory `Options::transport`: test an agent app
//!   through its ordinary `query` / `connect` calls, with no process, on any runtime;
//!   replay a recorded session and check the SDK wrote what it wrote then.
//! * [`runtime`] — [`runtime::TestRuntime`], for tests with no async runtime at all, in virtual
//!   time.
//! * [`fake_cli`] — a scripted stand-in for the Claude Code CLI: a sans-IO state machine
//!   ([`fake_cli::FakeCli`]) driven by a [`fake_cli::Script`], and the `fake-claude` binary that runs
//!   it over real stdin/stdout (for adapter tests that spawn a process).
//! * [`fake_mcp`] — a small MCP server over stdio (`fake-claude mcp-server`), for tests of MCP
//!   features against the real CLI.
//! * [`stub_api`] — a stub of the Anthropic Messages API on `127.0.0.1` with scripted replies, for
//!   running the **real** CLI end to end without network access; its [`stub_api::intents`] play
//!   the model for prompts written for a real one (the SDK's examples run offline against them).
//! * [`store_conformance`] — the conformance kit for session stores: run it against a
//!   `SessionStore` of your own.
//! * [`real_cli`] — where the pinned real CLI is installed (`scripts/install-claude-cli`) and the one
//!   environment every end-to-end test runs it with.
//!
//! This crate uses only `std` threads and sockets (no async runtime), so every adapter's tests
//! can use it.
//!
//! A test of an app's permission policy: the fake model asks to run a command, the app's
//! callback refuses it, and the turn goes on the way the script says it does after a refusal.
//!
//! ```
//! use claude_agent_tokio::runtime::query_with;
//! use claude_agent_tokio::message::Message;
//! use claude_agent_tokio::Options;
//! use claude_agent_tokio::permission::PermissionResult;
//! use claude_agent_testkit::fake_cli::{Script, ToolUse};
//! use claude_agent_testkit::runtime::TestRuntime;
//! use claude_agent_testkit::transport::FakeTransport;
//! use futures_lite::StreamExt;
//! use serde_json::json;
//!
//! /// The app under test: read-only tools only.
//! fn read_only(options: Options) -> Options {
//!     options.on_permission_request(|request, _ctx| async move {
//!         match request.tool_name.as_str() {
//!             "Read" | "Glob" | "Grep" => PermissionResult::allow(),
//!             _ => PermissionResult::deny("This agent may only read files."),
//!         }
//!     })
//! }
//!
//! let rm = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf target"}));
//! let script = Script::new()
//!     .answer_initialize()
//!     .expect_user()
//!     .emit_tool_use(&rm)
//!     .can_use_tool_then(
//!         "p1",
//!         &rm,
//!         |ran| ran.emit_tool_result(&rm, "").emit_result("deleted"),
//!         |refused| refused.emit_tool_error(&rm, "This agent may only read files.").emit_result("I may not delete files."),
//!     );
//! let fake = FakeTransport::new(script);
//! let runtime = TestRuntime::new();
//! let options = read_only(Options::new().transport(fake.clone()));
//! let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "Clean the build", options).collect());
//! let Some(Ok(Message::Result(result))) = items.last() else { panic!("{items:?}") };
//! assert_eq!(result.result.as_deref(), Some("I may not delete files."));
//! ```
#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod callback_inputs;
pub mod fake_cli;
pub mod fake_mcp;
pub mod real_cli;
pub mod runtime;
pub mod store_conformance;
pub mod stub_api;
pub mod transport;
