//! Every SDK option, turned into a [`LaunchSpec`] (program, argv, env, cwd) and a
//! [`crate::session::SessionConfig`] (initialize payload, declared hooks and tools, limits).
//!
//! CONTRACT (used by `client`; flesh out, keep the names):
//! - `Options` + `Options::builder()`.
//! - `Options::launch_spec(&self, program: PathBuf) -> Result<LaunchSpec, OptionsError>`.
//! - `Options::session_config(&self, input: InputMode) -> Result<SessionConfig, OptionsError>`.

use std::path::PathBuf;

/// What to start: program, arguments in a fixed order, environment changes, working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LaunchSpec {
    /// The CLI executable.
    pub program: PathBuf,
    /// Arguments, never passed through a shell.
    pub args: Vec<String>,
    /// Variables to set in the child's environment, on top of the inherited one.
    pub env: Vec<(String, String)>,
    /// Variables to remove from the inherited environment.
    pub env_remove: Vec<String>,
    /// Working directory of the child.
    pub cwd: Option<PathBuf>,
}
