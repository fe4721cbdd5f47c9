//! Every SDK option, in one builder: [`Options`], with the protocol's option types beside it.
//!
//! Start with [`Options::new`] and chain the setters: what the CLI is told (`model`,
//! `system_prompt`, `allowed_tools`, `permission_mode`, `cwd`, `env`, …) and what runs in this
//! process (`on_permission_request`, `on_hook`/`on_hook_event`, `sdk_mcp_server`,
//! `on_elicitation`, `on_user_dialog`, `on_stderr`, `session_store`, `fleet`, `transport`,
//! `record_to`), then hand the options to `query` or `connect`.
//!
//! ```
//! use claude_agent_tokio::options::{Options, SystemPrompt};
//! use claude_agent_tokio::permission::{PermissionMode, PermissionResult};
//!
//! let options = Options::new()
//!     .model("sonnet")
//!     .system_prompt(SystemPrompt::preset_with_append("Answer briefly."))
//!     .permission_mode(PermissionMode::AcceptEdits)
//!     .max_turns(10)
//!     .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
//! assert_eq!(options.config().model.as_deref(), Some("sonnet"));
//! ```
//!
//! What the CLI is told is plain data, an [`AgentConfig`] ([`Options::config`]): the sans-IO
//! core turns it into the CLI's command line and `initialize` request without this layer.

mod host;
mod setters;

use std::fmt;

pub use claude_agent_core::options::*;

use crate::callbacks::handlers::{Handlers, HostId};
use crate::control::ClaimOptions;

/// Everything that configures one session: the [`AgentConfig`] the CLI is told, and what runs
/// in this process for it (the callbacks, session store, fleet, transport and recording).
/// Build it with [`Options::new`] and the consuming setters.
///
/// `Debug` never prints the value of an environment variable whose name contains `KEY`, `TOKEN`,
/// `SECRET` or `PASSWORD` (any case).
///
/// ```
/// use claude_agent_tokio::options::{Options, SystemPrompt};
///
/// let options = Options::new()
///     .model("sonnet")
///     .system_prompt(SystemPrompt::preset_with_append("Answer briefly."))
///     .allowed_tools(["Read", "Grep"])
///     .max_turns(5)
///     .cwd("/srv/project")
///     .env("ANTHROPIC_API_KEY", "sk-ant-example")
///     .on_stderr(|line| eprintln!("{line}"));
///
/// // What was set reads back as plain data:
/// let config = options.config();
/// assert_eq!(config.cwd.as_deref(), Some(std::path::Path::new("/srv/project")));
/// assert_eq!(config.allowed_tools, ["Read", "Grep"]);
/// assert!(!format!("{options:?}").contains("sk-ant-example"));
/// ```
#[derive(Clone, Default)]
#[must_use = "the setters return the updated options"]
pub struct Options {
    config: AgentConfig,
    host: Handlers,
}

impl Options {
    /// Options with nothing set: the CLI's defaults, an empty system prompt, no callbacks.
    pub fn new() -> Self {
        Options::default()
    }

    /// What the CLI is told, as plain data: every setter but the host ones writes here.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    ///
    /// let options = Options::new().model("sonnet").max_turns(3);
    /// let spec = options.config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(spec.args.contains(&"--max-turns=3".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// These options (a spare's, fixed when it started) with the per-session options of `claim`
    /// on top, and the same host values: what starts the same session cold, when no spare is
    /// at hand or a claim was refused. See [`AgentConfig::claimed`] for what is set.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, Options};
    /// use claude_agent_tokio::control::ClaimOptions;
    ///
    /// let host = Options::new().on_stderr(|line| eprintln!("{line}"));
    /// let cold = host.claimed(&ClaimOptions::new("/srv/app").model("claude-sonnet-5"))?;
    /// assert_eq!(cold.config().model.as_deref(), Some("claude-sonnet-5"));
    /// assert_eq!(cold.get_host_id(), host.get_host_id());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claimed(&self, claim: &ClaimOptions) -> Result<Options, OptionsError> {
        Ok(Options {
            config: self.config.claimed(claim)?,
            host: self.host.clone(),
        })
    }

    /// The host values of these options: callbacks, session store, fleet, transport, recording.
    pub(crate) fn handlers(&self) -> &Handlers {
        &self.host
    }

    /// The host values, to change: what is changed is other host values, with an id of their
    /// own.
    pub(crate) fn handlers_mut(&mut self) -> &mut Handlers {
        self.host.id = HostId::next();
        &mut self.host
    }
}

/// Options that tell the CLI `config`, with no host values: how a configuration built as plain
/// data starts a session.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, Options};
///
/// let mut config = AgentConfig::default();
/// config.model = Some("haiku".into());
/// let options = Options::from(config).on_stderr(|line| eprintln!("{line}"));
/// assert_eq!(options.config().model.as_deref(), Some("haiku"));
/// ```
impl From<AgentConfig> for Options {
    fn from(config: AgentConfig) -> Self {
        Options {
            config,
            host: Handlers::default(),
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("config", &self.config)
            .field("host", &self.host)
            .finish()
    }
}
