//! The code of the repository's README.md, compiled and run as this package's doc tests
//! (`cargo test --doc -p claude-agent-examples`), so the README shows code that builds.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
