//! Sans-IO core of a Claude Agent SDK for Rust.
//!
//! This crate speaks the Claude Code CLI's `stream-json` protocol (one JSON object per line over the
//! child's stdin/stdout) without doing any I/O itself:
//!
//! * [`session`] — the protocol state machine: bytes in, bytes and events out, time passed in.
//! * [`message`] — typed messages the CLI prints, with raw passthrough of anything unknown.
//! * [`control`] — control requests we send, requests the CLI sends us, and our replies.
//! * [`options`] — every SDK option, turned into a [`options::LaunchSpec`] and a [`session::SessionConfig`].
//! * [`hooks`], [`permission`], [`mcp`] — payloads of hook callbacks, permission prompts and in-process MCP tools.
//!
//! The runtime adapters (`claude-agent-tokio`, `claude-agent-smol`, `claude-agent-async-std`) drive a
//! [`session::Session`] over a real child process; tests and fuzzers drive it directly.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(feature = "client")]
pub mod client;
pub mod control;
pub mod hooks;
pub mod mcp;
pub mod message;
pub mod options;
pub mod permission;
mod raw_text;
pub mod recording;
pub mod session;
#[cfg(test)]
mod test_fixtures;
