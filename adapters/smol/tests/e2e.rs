//! The end-to-end scenarios of `conformance/e2e_scenarios.rs` (the real Claude Code CLI against
//! the testkit's stub Messages API) on smol.
//!
//! They fail, with a message saying how to install the CLI (`scripts/install-claude-cli`), when
//! it is missing: they never skip.

#[macro_use]
#[path = "../../../conformance/e2e_scenarios.rs"]
mod e2e_scenarios;

use claude_agent_smol::runtime::SmolRuntime;

e2e_tests!(|fut| smol::block_on(fut), SmolRuntime::default());
