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

// ---- TEMPORARY SHIM (client branch): replaced by the options branch on merge. ----
use crate::mcp::McpServerSpec;
use crate::session::{HookMatcherConfig, InputMode, SessionConfig};

/// SDK options (shim).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Options {
    #[cfg(feature = "client")]
    pub(crate) handlers: crate::client::Handlers,
    cli_path: Option<PathBuf>,
    hooks: Vec<HookMatcherConfig>,
    mcp: Vec<McpServerSpec>,
    can_use_tool: bool,
    elicitation: bool,
}

/// Why options are invalid (shim).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// Shim.
    #[error("invalid options: {0}")]
    Invalid(String),
}

impl Options {
    /// Default options (shim).
    pub fn builder() -> Self {
        Options::default()
    }
    /// Path of the CLI (shim).
    pub fn cli_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.cli_path = Some(path.into());
        self
    }
    /// Configured CLI path (shim).
    pub fn get_cli_path(&self) -> Option<&std::path::Path> {
        self.cli_path.as_deref()
    }
    /// Launch spec (shim).
    pub fn launch_spec(&self, program: PathBuf) -> Result<LaunchSpec, OptionsError> {
        Ok(LaunchSpec {
            program,
            args: ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]
                .map(String::from)
                .to_vec(),
            env: vec![("CLAUDE_CODE_ENTRYPOINT".into(), "sdk-rust".into())],
            env_remove: vec!["CLAUDECODE".into()],
            cwd: None,
        })
    }
    /// Session config (shim).
    pub fn session_config(&self, input: InputMode) -> Result<SessionConfig, OptionsError> {
        let mut c = SessionConfig::new(input);
        c.hooks = self.hooks.clone();
        c.mcp_servers = self.mcp.clone();
        c.can_use_tool = self.can_use_tool;
        c.elicitation = self.elicitation;
        Ok(c)
    }
    /// Shim.
    pub fn declare_can_use_tool(&mut self) {
        self.can_use_tool = true;
    }
    /// Shim.
    pub fn declare_hook(&mut self, hook: HookMatcherConfig) {
        self.hooks.push(hook);
    }
    /// Shim.
    pub fn declare_sdk_mcp_server(&mut self, server: McpServerSpec) {
        self.mcp.push(server);
    }
    /// Shim.
    pub fn declare_elicitation(&mut self) {
        self.elicitation = true;
    }
}
