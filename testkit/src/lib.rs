//! Test tools for the Claude Agent SDK.
//!
//! * [`transport`] — the fake CLI as an in-memory `Options::transport`: test an agent app
//!   through its ordinary `query` / `Client::connect` calls, with no process, on any runtime;
//!   replay a recorded session and check the SDK wrote what it wrote then.
//! * [`runtime`] — [`runtime::TestRuntime`], for tests with no async runtime at all, in virtual
//!   time.
//! * [`fake_cli`] — a scripted stand-in for the Claude Code CLI: a sans-IO state machine
//!   ([`fake_cli::FakeCli`]) driven by a [`fake_cli::Script`], and the `fake-claude` binary that runs
//!   it over real stdin/stdout (for adapter tests that spawn a process).
//! * [`stub_api`] — a stub of the Anthropic Messages API on `127.0.0.1` with scripted replies, for
//!   running the **real** CLI end to end without network access; its [`stub_api::intents`] play
//!   the model for prompts written for a real one (the SDK's examples run offline against them).
//! * [`real_cli`] — where the pinned real CLI is installed (`scripts/install-claude-cli`) and the one
//!   environment every end-to-end test runs it with.
//!
//! This crate uses only `std` threads and sockets (no async runtime), so every adapter's tests
//! can use it.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod fake_cli;
pub mod real_cli;
pub mod runtime;
pub mod stub_api;
pub mod transport;
