//! [`HostDeclarations`]: what the program driving a session answers itself, which the CLI must
//! be told at launch and in `initialize`.

use crate::mcp::McpServerSpec;
use crate::session::HookMatcherConfig;

/// Which of the CLI's requests the host answers, and what it serves in-process: permission
/// prompts, hook callbacks, in-process MCP servers, elicitations, dialogs, transcript mirror
/// frames. [`AgentConfig::launch_spec`](super::AgentConfig::launch_spec) and
/// [`AgentConfig::session_config`](super::AgentConfig::session_config) take them beside the options.
///
/// The client layer derives them from the callbacks registered on the options
/// (`Options::get_host_declarations` of `claude-agent-client`). A host that drives a
/// [`Session`](crate::session::Session) itself fills them in by hand, then answers each request
/// the session hands out as [`Event::Inbound`](crate::session::Event::Inbound).
///
/// ```
/// use claude_agent_tokio::hooks::HookEvent;
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
/// use claude_agent_tokio::session::{HookMatcherConfig, InputMode};
///
/// // A host answering permission prompts and a `Bash` hook from its own UI:
/// let mut host = HostDeclarations::default();
/// host.can_use_tool = true;
/// host.hooks.push(HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 1));
///
/// let mut options = AgentConfig::default();
/// options.model = Some("sonnet".into());
/// let spec = options.launch_spec("claude".into(), &host)?;
/// assert!(spec.args.contains(&"--permission-prompt-tool=stdio".to_owned()));
/// let config = options.session_config(InputMode::Streaming, &host)?;
/// assert!(config.can_use_tool);
/// assert_eq!(config.hooks[0].matcher.as_deref(), Some("Bash"));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HostDeclarations {
    /// The host answers `can_use_tool` permission prompts: the CLI runs with
    /// `--permission-prompt-tool=stdio` and the session hands the prompts out.
    pub can_use_tool: bool,
    /// The host answers `elicitation` requests of MCP servers.
    pub elicitation: bool,
    /// The `request_user_dialog` kinds the host renders (initialize `supportedDialogKinds`);
    /// `None` when it renders none, and the CLI then takes each dialog's fallback.
    pub user_dialog_kinds: Option<Vec<String>>,
    /// The CLI prints each batch of transcript lines it writes as a `transcript_mirror` frame
    /// (`--session-mirror`), which the session hands out as
    /// [`Event::Mirror`](crate::session::Event::Mirror).
    pub session_mirror: bool,
    /// Hook matchers whose callbacks the host runs, in declaration order.
    ///
    /// Callback ids `hook_0, hook_1, …` are given out event → matcher → callback, as both
    /// official SDKs do: events in the order each was first declared, then that event's matchers
    /// in declaration order, then each matcher's callbacks. So declaring `PreToolUse`
    /// (2 callbacks), `Stop` (1), `PreToolUse` (1) gives `hook_0, hook_1` and `hook_2` to the two
    /// `PreToolUse` matchers and `hook_3` to `Stop`.
    /// [`SessionConfig::hooks`](crate::session::SessionConfig::hooks) is in that order;
    /// [`HostDeclarations::hook_matcher_order`] maps it back to this one.
    pub hooks: Vec<HookMatcherConfig>,
    /// In-process MCP servers the host serves (initialize `sdkMcpServers`, never on argv).
    pub sdk_mcp_servers: Vec<McpServerSpec>,
}

impl HostDeclarations {
    /// No declarations: the host answers none of the CLI's requests and serves nothing
    /// in-process. The same as `HostDeclarations::default()`.
    ///
    /// ```
    /// use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
    ///
    /// let mut config = AgentConfig::default();
    /// config.max_turns = Some(3);
    /// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert!(spec.args.contains(&"--max-turns=3".to_owned()));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub const NONE: HostDeclarations = HostDeclarations {
        can_use_tool: false,
        elicitation: false,
        user_dialog_kinds: None,
        session_mirror: false,
        hooks: Vec::new(),
        sdk_mcp_servers: Vec::new(),
    };

    /// For each entry of [`SessionConfig::hooks`](crate::session::SessionConfig::hooks), the
    /// index in [`HostDeclarations::hooks`] it came from.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::HookEvent;
    /// use claude_agent_tokio::options::HostDeclarations;
    /// use claude_agent_tokio::session::HookMatcherConfig;
    ///
    /// let mut host = HostDeclarations::default();
    /// host.hooks = vec![
    ///     HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 2),
    ///     HookMatcherConfig::new(HookEvent::Stop, None, 1),
    ///     HookMatcherConfig::new(HookEvent::PreToolUse, Some("Write".into()), 1),
    /// ];
    /// // `hook_0`/`hook_1` (Bash) and `hook_2` (Write) come before `hook_3` (Stop):
    /// assert_eq!(host.hook_matcher_order(), [0, 2, 1]);
    /// ```
    pub fn hook_matcher_order(&self) -> Vec<usize> {
        let hooks = &self.hooks;
        let mut order: Vec<usize> = Vec::with_capacity(hooks.len());
        for (index, hook) in hooks.iter().enumerate() {
            let event = hook.event.as_str();
            if order.iter().any(|&i| hooks[i].event.as_str() == event) {
                continue;
            }
            order.extend((index..hooks.len()).filter(|&i| hooks[i].event.as_str() == event));
        }
        order
    }
}

#[cfg(test)]
impl HostDeclarations {
    /// Test shorthand: these declarations with `change` made.
    pub(crate) fn with(mut self, change: impl FnOnce(&mut Self)) -> Self {
        change(&mut self);
        self
    }
}
