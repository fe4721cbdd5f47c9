//! Sans-IO core of a Claude Agent SDK for Rust.
//!
//! This crate speaks the Claude Code CLI's `stream-json` protocol (one JSON object per line over the
//! child's stdin/stdout) without doing any I/O itself:
//!
//! * [`session`] — the protocol state machine: bytes in, bytes and events out, time passed in.
//! * [`message`] — typed messages the CLI prints, with raw passthrough of anything unknown.
//! * [`control`] — control requests we send, requests the CLI sends us, and our replies.
//! * [`options`] — the session's configuration as plain data ([`options::AgentConfig`]), turned
//!   into a [`options::LaunchSpec`] and a [`session::SessionConfig`].
//! * [`hooks`], [`permission`], [`mcp`] — payloads of hook callbacks, permission prompts and in-process MCP tools.
//! * [`recording`], [`cost`], [`tools`] — recordings to replay, what turns cost, the built-in tools' inputs.
//!
//! Nothing here opens a file, reads a clock (time is passed in), starts a process, reads an
//! environment variable or touches the network; the dependencies are data crates only. That is
//! what the fuzz targets drive and what a host of its own builds on. The async layer over it
//! (`query`, `Client`, callbacks, session stores and history) is the crate `claude-agent-client`,
//! and the runtime crates (`claude-agent-tokio`, `claude-agent-smol`, `claude-agent-async-std`,
//! `claude-agent-blocking`) bind that to a runtime and re-export both.
//!
//! ```toml
//! [dependencies]
//! claude-agent-core = "0.1"  # the state machine alone
//! # or, for an application: claude-agent-tokio (or -smol, -async-std, -blocking).
//! ```
//!
//! # Supported CLI versions
//!
//! The SDK supports Claude Code CLI 2.1.330 and later ([`session::CliVersion::MINIMUM`]): it is
//! tested against 2.1.330, and older CLIs lack parts of the protocol it relies on. Each session
//! checks the version the CLI reports, in its answer to `initialize` or else in its first
//! `system/init`, and reports it as [`session::Event::CliVersion`]; the client
//! layer's `Client::version_check` reads it, and with its `tracing` feature an older CLI (or one
//! that reports no version) is a warning. Setting `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` (to anything but the empty string)
//! turns the check off, as it does for the official SDKs.
//!
#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The examples of the crate README (shown on crates.io) run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod control;
pub mod cost;
pub mod hooks;
mod json;
pub mod mcp;
pub mod message;
mod option_types;
pub mod options;
pub mod permission;
pub mod recording;
mod redact;
pub mod session;
mod session_key;
#[cfg(test)]
mod test_fixtures;
pub mod tools;
mod unknown_name;

pub use json::Json;
pub use session_key::SessionKey;
pub use unknown_name::UnknownName;
