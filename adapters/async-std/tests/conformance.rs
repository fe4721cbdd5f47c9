//! The conformance suite (`claude-agent-conformance`) against the testkit's `fake-claude`, on
//! async-std.

mod harness;

claude_agent_conformance::conformance_tests!(crate::harness::AsyncStd);
