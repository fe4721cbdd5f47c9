//! Fuzz targets for the sans-IO [`claude_agent_core::session::Session`].
//!
//! The target logic lives here so that it runs two ways: under libFuzzer
//! (`fuzz_targets/*.rs`, `cargo fuzz run --features libfuzzer <target>`) and as ordinary tests
//! over the seed corpus, the regression inputs and pseudo-random inputs (`tests/seeds.rs`,
//! `cargo test --manifest-path fuzz/Cargo.toml`). Every check is an assertion: a broken
//! invariant is a panic, which libFuzzer reports as a crash.
//!
//! - [`targets::framer`]: stdout framing does not depend on the chunking.
//! - [`targets::stdout`]: arbitrary stdout into richly configured sessions, every inbound
//!   request answered, then end of stdout and exit.
//! - [`targets::ops`]: arbitrary interleavings of host commands and CLI output ([`ops::Op`]).
#![warn(missing_docs)]

pub mod commands;
pub mod configs;
pub mod driver;
pub mod frames;
pub mod ops;
pub mod seeds;
pub mod store;
pub mod targets;
pub mod xorshift;
