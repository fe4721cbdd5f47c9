//! Hooks: callbacks the CLI runs at points of the agent loop (before a tool runs, after it, when
//! a prompt is submitted, when the agent stops, …), with a typed input per event and an output
//! that can steer what happens next.
//!
//! Hooks are registered in the runtime crates: `Options::on_hook` takes a callback whose
//! parameter type picks the event ([`PreToolUseInput`] for `PreToolUse`, and so on);
//! `Options::on_hook_event` takes a [`HookEvent`] and the untyped [`HookInput`]. For tool events
//! the matcher is a tool-name pattern (`"Bash"`, `"Write|Edit"`); `None` matches everything; a
//! [`HookMatcher`] in its place can also set a timeout and make the hook fail closed.
//!
//! A hook's decision is a plain function of its input, which a test can call with the JSON the
//! CLI sends:
//!
//! ```
//! use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
//!
//! #[derive(serde::Deserialize)]
//! struct Bash {
//!     command: String,
//! }
//!
//! /// Registered with `on_hook("Bash", |input: PreToolUseInput, _ctx| async move { no_rm_rf(&input) })`.
//! fn no_rm_rf(input: &PreToolUseInput) -> HookOutput {
//!     match input.tool_input.parse::<Bash>() {
//!         Ok(bash) if bash.command.contains("rm -rf") => HookOutput::deny_tool("not here"),
//!         _ => HookOutput::default(), // no opinion: the CLI goes on as it would have
//!     }
//! }
//!
//! let input: PreToolUseInput = serde_json::from_str(
//!     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse",
//!     "tool_name":"Bash","tool_input":{"command":"rm -rf target"},"tool_use_id":"toolu_1"}"#,
//! )
//! .unwrap();
//! assert_eq!(no_rm_rf(&input), HookOutput::deny_tool("not here"));
//! ```
//!
//! On the wire each callback is a `hook_N` id in `initialize`, and the CLI calls it with a
//! `hook_callback` control request whose answer is the [`HookOutput`] (see "Hook callbacks" in
//! `docs/PROTOCOL.md` in the repository). Events this crate does not know keep their name
//! ([`HookEvent::Other`]) and their input as raw JSON ([`HookInput::Other`]).

mod event;
mod input;
mod matcher;
mod output;

pub use event::HookEvent;
pub use input::*;
pub use matcher::{HookFailurePolicy, HookMatcher, HookRef};
pub use output::*;
