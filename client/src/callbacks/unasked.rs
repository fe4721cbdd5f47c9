//! [`UnaskedTools`]: the tool calls a permission callback is never asked about.

use crate::options::Options;
use crate::permission::PermissionMode;

/// The tool calls that the options' permission callback ([`Options::on_permission_request`])
/// will never be asked about, because the options approve them before the CLI asks: what
/// [`Options::tools_never_asked`] reports, and a session warns about through `tracing`. Allow
/// rules of settings files can do the same, but the options do not show them.
///
/// To see every call, use a `PreToolUse` hook, or leave the tools out of `allowed_tools` (or
/// give them a pattern, such as `Bash(git status:*)`).
///
/// ```
/// use claude_agent_tokio::UnaskedTools;
/// use claude_agent_tokio::options::Options;
/// use claude_agent_tokio::permission::PermissionResult;
///
/// let options = Options::new()
///     .allowed_tools(["Read", "Bash(git status:*)"])
///     .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
/// assert_eq!(options.tools_never_asked(), Some(UnaskedTools::Tools(vec!["Read".into()])));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnaskedTools {
    /// The permission mode is `bypassPermissions`: every call is approved (but those an
    /// explicit deny rule refuses) before the callback could be asked.
    All,
    /// These bare `allowed_tools` entries (no `(…)` pattern) approve their whole tool.
    Tools(Vec<String>),
}

impl Options {
    /// The tool calls the permission callback will never be asked about, when there is a
    /// callback and the options approve some calls before it ([`UnaskedTools`]); `None`
    /// otherwise.
    ///
    /// ```
    /// use claude_agent_tokio::UnaskedTools;
    /// use claude_agent_tokio::options::Options;
    /// use claude_agent_tokio::permission::{PermissionMode, PermissionResult};
    ///
    /// let callback = |_request, _ctx| async { PermissionResult::allow() };
    /// let bypass = Options::new().permission_mode(PermissionMode::BypassPermissions).on_permission_request(callback);
    /// assert_eq!(bypass.tools_never_asked(), Some(UnaskedTools::All));
    /// assert_eq!(Options::new().allowed_tools(["Read"]).tools_never_asked(), None); // no callback
    /// ```
    pub fn tools_never_asked(&self) -> Option<UnaskedTools> {
        self.handlers().can_use_tool.as_ref()?;
        if self.config().permission_mode.as_ref() == Some(&PermissionMode::BypassPermissions) {
            return Some(UnaskedTools::All);
        }
        let bare: Vec<String> = self
            .config()
            .allowed_tools
            .iter()
            .filter(|rule| !rule.is_empty() && !rule.contains('('))
            .cloned()
            .collect();
        (!bare.is_empty()).then_some(UnaskedTools::Tools(bare))
    }
}
