//! The end-to-end scenarios of `conformance/e2e_scenarios.rs` (the real Claude Code CLI against
//! the testkit's stub Messages API) on async-std.
//!
//! They fail, with a message saying how to install the CLI (`scripts/install-claude-cli`), when
//! it is missing: they never skip.

#[macro_use]
#[path = "../../../conformance/e2e_scenarios.rs"]
mod e2e_scenarios;

use claude_agent_async_std::runtime::AsyncStdRuntime;

e2e_tests!(|fut| async_std::task::block_on(fut), AsyncStdRuntime);
