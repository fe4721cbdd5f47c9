//! A scripted stand-in for the Claude Code CLI.
//!
//! [`FakeCli`] plays the CLI side of the stream-json protocol with no I/O: the SDK's stdin bytes
//! go in, stdout/stderr bytes and an exit code come out, as a [`Script`] says: answer
//! `initialize`, print lines (assistant text, tool calls and their results, results with chosen
//! figures), wait for SDK lines, send control requests (`can_use_tool`, `hook_callback`,
//! `mcp_message`, `elicitation`, any subtype) and wait for their answers, go on one way or another
//! depending on an answer, call the hooks the SDK registered and the tools of its in-process MCP
//! servers, cancel requests, answer the SDK's control requests automatically, print garbage,
//! ANSI-prefixed, over-long or flooded lines, write stderr, sleep, exit with a code, or hang.
//! [`Script::from_transcript`] replays a recording of the real CLI.
//!
//! The `fake-claude` binary of this crate runs a `FakeCli` over real pipes, for tests that spawn
//! a process. Its environment:
//!
//! * `FAKE_CLAUDE_SCRIPT` — a file holding a [`Script`] as JSON (`serde_json::to_string(&script)`), or
//! * `FAKE_CLAUDE_TRANSCRIPT` — a transcript file to replay;
//! * `FAKE_CLAUDE_ARGV_OUT` — if set, a file to which it writes `{"argv":[…],"env":{…}}` (what it was
//!   started with), so tests can assert the flags an SDK passed;
//! * `FAKE_CLAUDE_STDOUT_COPY` — if set, a file to which it appends every line it prints, so a
//!   test can tell what the CLI said from what the app received.
//!
//! Its [`Step::Mirror`] frames name transcripts in the folder the real CLI would write them to
//! ([`transcript_folder`]): below `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`, for its working
//! folder.
//!
//! It answers `-v` / `--version` with `2.1.330 (Claude Code)`. Tests of other crates find it
//! with [`fake_claude_binary`].
//!
//! ```
//! use claude_agent_testkit::fake_cli::{FakeCli, Script};
//! use serde_json::json;
//!
//! // The CLI asks for permission; the "SDK" (this test) allows it.
//! let script = Script::new().can_use_tool("p1", "Bash", json!({"command": "ls"})).exit(0);
//! let mut cli = FakeCli::new(script);
//! let request: serde_json::Value = serde_json::from_slice(&cli.poll_stdout().unwrap()).unwrap();
//! assert_eq!(request["request"]["subtype"], "can_use_tool");
//! assert_eq!(cli.poll_exit(), None);
//! cli.handle_stdin(br#"{"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{"behavior":"allow"}}}
//! "#);
//! assert_eq!(cli.poll_exit(), Some(0));
//! ```

mod binary;
pub mod canned;
mod folders;
pub(crate) mod hooks;
mod machine;
mod result;
pub(crate) mod script;
mod tool_use;
mod transcript;

pub use binary::{fake_claude_binary, FakeBinaryError, FAKE_CLAUDE_BIN_ENV};
pub(crate) use folders::projects_dir;
pub use folders::transcript_folder;
pub use machine::FakeCli;
pub use result::FakeResult;
pub use script::{Answer, Condition, Matcher, Script, Step};
pub use tool_use::ToolUse;
pub use transcript::TranscriptError;

/// What `fake-claude --version` prints (the pinned real CLI's version line).
pub const VERSION_LINE: &str = "2.1.330 (Claude Code)";

#[cfg(test)]
mod tests;
