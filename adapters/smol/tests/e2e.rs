//! The end-to-end scenarios of `claude-agent-conformance` (the real Claude Code CLI against the
//! testkit's stub Messages API) on smol.
//!
//! The groups where the CLI's process meets the runtime (turns, failures, warm starts) run; the
//! others drive the same client code as on tokio and are `#[ignore]`d here (`-- --include-ignored`
//! runs them). They fail, with a message saying how to install the CLI
//! (`scripts/install-claude-cli`), when it is missing: they never skip.

mod harness;

claude_agent_conformance::e2e_tests!(crate::harness::Smol, process_groups_only);
