//! [`HookMatcher`]: which calls of an event a hook gets, and how the CLI treats the hook;
//! [`HookRef`]: which registered hook a callback request names.

use std::time::Duration;

use super::HookEvent;

/// Which calls of an event a hook callback gets (for tool events, a tool-name pattern), how long
/// the CLI waits for it, and whether a failing callback blocks the action it guards. Given to
/// `Options::on_hook` or `Options::on_hook_event` (in the runtime crates), which also take a
/// bare pattern (`"Bash"`) or `None` for every call.
///
/// By default a hook fails open: when its callback panics, or its input cannot be read, the CLI
/// reports the failure and the tool runs anyway. A guard must not let a tool through because it
/// broke, so make it [`fail_closed`](HookMatcher::fail_closed).
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::hooks::{HookEvent, HookFailurePolicy, HookMatcher, HookOutput, PreToolUseInput};
/// use claude_agent_tokio::session::HookMatcherConfig;
///
/// #[derive(serde::Deserialize)]
/// struct Bash {
///     command: String,
/// }
///
/// /// Registered with `on_hook(guard, …)`: a command that does not parse panics here, and the
/// /// Bash call is blocked.
/// fn no_rm_rf(input: &PreToolUseInput) -> HookOutput {
///     let bash: Bash = input.tool_input.parse().expect("a Bash call has a command");
///     if bash.command.contains("rm -rf") {
///         HookOutput::deny_tool("rm -rf is not allowed here")
///     } else {
///         HookOutput::proceed()
///     }
/// }
///
/// let guard = HookMatcher::new("Bash").timeout(Duration::from_secs(5)).fail_closed();
/// // What the session declares to the CLI for it:
/// let declared = HookMatcherConfig::for_matcher(HookEvent::PreToolUse, guard);
/// assert_eq!(declared.matcher.as_deref(), Some("Bash"));
/// assert_eq!(declared.timeout_secs, Some(5.0));
/// assert_eq!(declared.on_failure, Some(HookFailurePolicy::Block));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use = "the builder methods return the updated matcher"]
pub struct HookMatcher {
    pub(crate) pattern: Option<String>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) on_failure: Option<HookFailurePolicy>,
}

impl HookMatcher {
    /// The calls that match `pattern`: for tool events a tool-name pattern (`"Bash"`,
    /// `"Write|Edit"`, `"mcp__github__.*"`), for other events what the CLI matches them on.
    ///
    /// ```
    /// # use claude_agent_tokio::hooks::HookMatcher;
    /// let writes = HookMatcher::new("Write|Edit");
    /// # let _ = writes;
    /// ```
    pub fn new(pattern: impl Into<String>) -> Self {
        HookMatcher {
            pattern: Some(pattern.into()),
            ..HookMatcher::all()
        }
    }

    /// Every call of the event (no pattern; `None` in `Options::on_hook`).
    ///
    /// ```
    /// # use claude_agent_tokio::hooks::HookMatcher;
    /// let every_tool = HookMatcher::all().fail_closed();
    /// # let _ = every_tool;
    /// ```
    pub fn all() -> Self {
        HookMatcher {
            pattern: None,
            timeout: None,
            on_failure: None,
        }
    }

    /// How long the CLI waits for the callback (`timeout`, in seconds on the wire; the CLI's
    /// default is 60 s).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use claude_agent_tokio::hooks::HookMatcher;
    /// let quick = HookMatcher::new("Bash").timeout(Duration::from_millis(2500));
    /// # let _ = quick;
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// A failing callback blocks the action the event guards (`onFailure: "block"`): a tool
    /// call, a permission request, a prompt. The callback fails when it panics or when its input
    /// cannot be read (a typed callback given another event's input): the SDK then answers the
    /// CLI with an error, and the CLI counts that as a block, as it does an answer it cannot use.
    /// The CLI ignores the setting on `Stop`, `SubagentStop`, `TaskCompleted` and
    /// `TeammateIdle`.
    ///
    /// The session sends no prompt until the CLI's answer to `initialize` confirms that it
    /// honours the setting; a CLI that does not (older than the one this SDK is tested with)
    /// ends the session with `Error::Unconfirmed` instead of running the hook fail-open.
    ///
    /// ```
    /// # use claude_agent_tokio::hooks::HookMatcher;
    /// let guard = HookMatcher::new("Bash").fail_closed();
    /// # let _ = guard;
    /// ```
    pub fn fail_closed(mut self) -> Self {
        self.on_failure = Some(HookFailurePolicy::Block);
        self
    }

    /// A failing callback does not block: the CLI reports the failure and the action goes
    /// ahead (`onFailure: "continue"`, written out). That is the CLI's default; saying it
    /// keeps the hook fail-open whatever default the CLI's settings or a later CLI choose. It
    /// needs no confirmation from the CLI.
    ///
    /// ```
    /// # use claude_agent_tokio::hooks::{HookEvent, HookFailurePolicy, HookMatcher};
    /// # use claude_agent_tokio::session::HookMatcherConfig;
    /// let audit = HookMatcher::all().fail_open();
    /// let config = HookMatcherConfig::for_matcher(HookEvent::PostToolUse, audit);
    /// assert_eq!(config.on_failure, Some(HookFailurePolicy::Continue));
    /// ```
    pub fn fail_open(mut self) -> Self {
        self.on_failure = Some(HookFailurePolicy::Continue);
        self
    }
}

/// A tool-name pattern: [`HookMatcher::new`].
impl From<&str> for HookMatcher {
    fn from(pattern: &str) -> Self {
        HookMatcher::new(pattern)
    }
}

/// A tool-name pattern: [`HookMatcher::new`].
impl From<String> for HookMatcher {
    fn from(pattern: String) -> Self {
        HookMatcher::new(pattern)
    }
}

/// A pattern, or `None` for every call ([`HookMatcher::all`]).
///
/// ```
/// use claude_agent_tokio::hooks::HookMatcher;
///
/// assert_eq!(HookMatcher::from(None::<&str>), HookMatcher::all());
/// assert_eq!(HookMatcher::from(Some("Bash")), HookMatcher::new("Bash"));
/// ```
impl From<Option<&str>> for HookMatcher {
    fn from(pattern: Option<&str>) -> Self {
        pattern.map_or_else(HookMatcher::all, HookMatcher::new)
    }
}

impl Default for HookMatcher {
    /// [`HookMatcher::all`].
    fn default() -> Self {
        HookMatcher::all()
    }
}

/// What the CLI does when a hook callback fails: the host answered it with an error (the
/// callback panicked, or its input could not be read), or with an answer the CLI cannot use.
///
/// ```
/// use claude_agent_tokio::hooks::{HookEvent, HookFailurePolicy};
/// use claude_agent_tokio::session::HookMatcherConfig;
///
/// let mut guard = HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 1);
/// guard.on_failure = Some(HookFailurePolicy::Block);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookFailurePolicy {
    /// The CLI reports the failure and the action goes ahead (`"continue"`, the CLI's default).
    Continue,
    /// The failure counts as a block: the action the event guards (a tool call, a permission
    /// request, a prompt) does not happen (`"block"`). The CLI ignores it on `Stop`,
    /// `SubagentStop`, `TaskCompleted` and `TeammateIdle`.
    Block,
}

/// Which registered hook a `hook_callback` is for.
///
/// ```
/// use claude_agent_tokio::control::InboundKind;
/// use claude_agent_tokio::hooks::HookEvent;
///
/// // With several matchers, `matcher_index` tells which one fired.
/// fn which(kind: &InboundKind) -> Option<(HookEvent, usize)> {
///     match kind {
///         InboundKind::HookCallback(callback) => Some((callback.hook.event.clone(), callback.hook.matcher_index)),
///         _ => None,
///     }
/// }
/// # let _ = which;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookRef {
    /// The event.
    pub event: HookEvent,
    /// Index into [`SessionConfig::hooks`](crate::session::SessionConfig::hooks).
    pub matcher_index: usize,
    /// Index of the callback within that matcher.
    pub hook_index: usize,
}
