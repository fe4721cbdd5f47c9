use std::time::Duration;

use crate::hooks::{HookEvent, HookFailurePolicy};
use crate::mcp::McpServerSpec;
use crate::Json;

/// Everything a [`super::Session`] needs to know up front. Built by
/// [`crate::options::AgentConfig::session_config`], or by hand in tests.
///
/// ```
/// # use claude_agent_tokio::session::{SessionConfig, InputMode};
/// let config = SessionConfig::new(InputMode::SingleTurn);
/// assert_eq!(config.limits.max_line_bytes, 16 * 1024 * 1024);
/// ```
///
/// Usually built from the options, beside the declarations of which requests the host answers:
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
/// use claude_agent_tokio::session::InputMode;
///
/// let mut host = HostDeclarations::default();
/// host.can_use_tool = true;
/// let config = AgentConfig::default().session_config(InputMode::Streaming, &host)?;
/// assert!(config.can_use_tool);
/// // The CLI may then call back at any time, so stdin stays open after a result until it is idle.
/// assert!(config.has_bidirectional_needs());
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SessionConfig {
    /// How user input ends (decides when stdin is closed).
    pub input: InputMode,
    /// The fields of the `initialize` request other than `subtype` and `hooks` (a JSON object:
    /// `sdkMcpServers`, `agents`, `systemPrompt`, …). `None` sends `{"subtype":"initialize","hooks":…}` only.
    pub initialize_fields: Option<Json>,
    /// Registered hooks, in the order their `hook_N` callback ids are given out.
    pub hooks: Vec<HookMatcherConfig>,
    /// In-process MCP servers the session answers for.
    pub mcp_servers: Vec<McpServerSpec>,
    /// The `initialize` request carries external MCP servers (`mcpServers`): the session writes
    /// no user message until the CLI's answer says it read them (`mcp_servers_applied: true`),
    /// and otherwise fails `initialize` with [`RequestFailure::Unconfirmed`].
    ///
    /// [`RequestFailure::Unconfirmed`]: crate::session::RequestFailure::Unconfirmed
    pub delivers_mcp_servers: bool,
    /// The `initialize` request carries settings (`settings`, `managedSettings`): the session
    /// writes no user message until the CLI's answer says it took them at launch
    /// (`settings_applied: true`, `managed_settings_applied: true`), and otherwise fails
    /// `initialize` with [`RequestFailure::Unconfirmed`].
    ///
    /// [`RequestFailure::Unconfirmed`]: crate::session::RequestFailure::Unconfirmed
    pub delivers_settings: SettingsDelivered,
    /// Whether the host answers `can_use_tool` (otherwise the session refuses it).
    pub can_use_tool: bool,
    /// Whether the host answers `elicitation` (otherwise the session declines it).
    pub elicitation: bool,
    /// Whether the host answers `request_user_dialog` (otherwise the session refuses it).
    pub user_dialog: bool,
    /// Whether the host keeps a callback the CLI may call back later (OAuth refresh and the like);
    /// counts as a bidirectional need for the run-end rule.
    pub other_bidirectional_needs: bool,
    /// Whether to report the CLI's version and whether it is supported
    /// ([`super::Event::CliVersion`]). On by default;
    /// [`crate::options::AgentConfig::apply_environment`] turns it off when
    /// [`super::SKIP_VERSION_CHECK_ENV`] is set.
    pub check_cli_version: bool,
    /// The CLI was started with `--await-claim`: a spare that starts up, answers `initialize`
    /// and then waits for [`super::Session::claim`] before it takes any user message.
    pub await_claim: bool,
    /// The idle watchdog: when a running turn counts as stalled ([`Event::Stalled`]); `None`
    /// (the default) watches nothing.
    ///
    /// [`Event::Stalled`]: super::Event::Stalled
    pub stall: Option<super::StallWatch>,
    /// Prices to work out each turn's cost from its tokens beside the CLI's own figure
    /// ([`TurnCost::priced_usd`](crate::cost::TurnCost::priced_usd)).
    pub prices: Option<crate::cost::PriceTable>,
    /// The session's spending limit: its warning share brings an [`Event::Budget`]; exceeded,
    /// the session interrupts the turn and closes ([`Event::Closing`] with
    /// [`EndReason::OverBudget`]).
    ///
    /// [`Event::Budget`]: super::Event::Budget
    /// [`Event::Closing`]: super::Event::Closing
    /// [`EndReason::OverBudget`]: super::EndReason::OverBudget
    pub budget: Option<crate::cost::Budget>,
    /// The CLI's running cost starts from an earlier process's (a resume or a continue): the
    /// session asks the CLI what it carried over (`get_usage`) once `initialize` is answered, so
    /// that the first turn's cost is its own.
    pub cost_carried_over: bool,
    /// Count each model call as it comes, so that a turn the session ends without a result (a
    /// close, a crash) still costs what its calls used ([`Event::UnfinishedTurn`]). On when a
    /// [`budget`](SessionConfig::budget) is set, whatever this says; the client layer sets it
    /// for a session of a fleet, whose key is charged.
    ///
    /// [`Event::UnfinishedTurn`]: super::Event::UnfinishedTurn
    pub count_model_calls: bool,
    /// Report [`Event::Ready`](super::Event::Ready) only once the in-process MCP servers
    /// ([`SessionConfig::mcp_servers`]) are connected, as the CLI reports them to an
    /// `mcp_status` the session asks itself (within 5 s, or the initialize timeout), rather than
    /// as soon as `initialize` is answered: what a host waits for before its first message.
    pub ready_after_servers: bool,
    /// Hold each result (and what follows it) until the host has stored the transcript frames
    /// before it ([`Session::store_flushed`](super::Session::store_flushed)): a host mirroring
    /// to a session store then hands a result to its user only once the turn is stored.
    pub results_after_store: bool,
    /// Hold each result (and what follows it) until the host has charged its turn's cost to
    /// its ledger: the cost comes first ([`Event::Charge`](super::Event::Charge)), and the
    /// result once the host says it is charged
    /// ([`Session::turn_charged`](super::Session::turn_charged)). A host whose fleet shares a
    /// ledger with other hosts then hands a result to its user only once the turn is paid for,
    /// and a result it drops (its place lost meanwhile) is never charged twice. With
    /// [`results_after_store`](SessionConfig::results_after_store) too, the store comes first.
    pub results_after_charge: bool,
    /// Stamp every user message the session writes `"client_composed": true` (whatever the
    /// message said), so the CLI takes its text verbatim (`Options::verbatim_prompts`).
    pub verbatim_prompts: bool,
    /// Deadlines.
    pub timeouts: Timeouts,
    /// Size limits.
    pub limits: Limits,
}

impl SessionConfig {
    /// A configuration with no hooks, tools or callbacks, and default limits.
    pub fn new(input: InputMode) -> Self {
        SessionConfig {
            input,
            initialize_fields: None,
            hooks: Vec::new(),
            mcp_servers: Vec::new(),
            delivers_mcp_servers: false,
            delivers_settings: SettingsDelivered::default(),
            can_use_tool: false,
            elicitation: false,
            user_dialog: false,
            other_bidirectional_needs: false,
            check_cli_version: true,
            await_claim: false,
            stall: None,
            prices: None,
            budget: None,
            cost_carried_over: false,
            count_model_calls: false,
            ready_after_servers: false,
            results_after_store: false,
            results_after_charge: false,
            verbatim_prompts: false,
            timeouts: Timeouts::default(),
            limits: Limits::default(),
        }
    }

    /// Whether the CLI may send requests the host must answer (permission prompts, hooks,
    /// in-process MCP tools, elicitations, dialogs). Then stdin stays open after a `result` until the CLI
    /// is idle, since a later turn of its own may still ask something.
    pub fn has_bidirectional_needs(&self) -> bool {
        self.can_use_tool
            || self.elicitation
            || self.user_dialog
            || self.other_bidirectional_needs
            || !self.hooks.is_empty()
            || !self.mcp_servers.is_empty()
    }
}

/// How the host feeds user messages.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::message::UserInput;
/// use claude_agent_tokio::session::{InputMode, Session, SessionConfig};
///
/// let now = Instant::now();
/// // `query("…")` with a string prompt: one message, then the input ends by itself.
/// let mut one = Session::new(SessionConfig::new(InputMode::SingleTurn), now);
/// one.send_user(now, UserInput::text("Summarise README.md")).unwrap();
/// assert!(one.send_user(now, UserInput::text("one more")).is_err());
///
/// // A `Client` or a prompt stream: messages until `end_input`.
/// let mut many = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// many.send_user(now, UserInput::text("Pick a number.")).unwrap();
/// many.send_user(now, UserInput::text("Double it.")).unwrap();
/// many.end_input(now);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputMode {
    /// One prompt: the first [`super::Session::send_user`] also ends the input, and stdin is
    /// closed when that run has ended.
    SingleTurn,
    /// Any number of messages; input ends only with [`super::Session::end_input`].
    Streaming,
}

/// One hook matcher: an event, an optional matcher pattern, and how many callbacks it has.
///
/// ```
/// use claude_agent_tokio::hooks::HookEvent;
/// use claude_agent_tokio::hooks::HookFailurePolicy;
/// use claude_agent_tokio::session::HookMatcherConfig;
///
/// let mut guard = HookMatcherConfig::new(HookEvent::PreToolUse, Some("Write|Edit".into()), 1);
/// guard.timeout_secs = Some(5.0);
/// guard.on_failure = Some(HookFailurePolicy::Block); // a failing guard blocks the edit
/// # let _ = guard;
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HookMatcherConfig {
    /// The event.
    pub event: HookEvent,
    /// Tool-name pattern (for tool events) or other matcher; `None` matches everything.
    pub matcher: Option<String>,
    /// Per-callback timeout in seconds (the CLI's default is 60).
    pub timeout_secs: Option<f64>,
    /// What the CLI does when a callback fails (`onFailure`); `None` leaves it to the CLI, which
    /// continues. With [`HookFailurePolicy::Block`] the session writes no user message until the
    /// CLI's answer to `initialize` says it honours the setting (`hook_on_failure_supported`),
    /// and otherwise fails `initialize` with [`RequestFailure::Unconfirmed`].
    ///
    /// [`RequestFailure::Unconfirmed`]: crate::session::RequestFailure::Unconfirmed
    pub on_failure: Option<HookFailurePolicy>,
    /// Number of callbacks under this matcher; each gets its own `hook_N` id.
    pub callbacks: usize,
}

impl HookMatcherConfig {
    /// A matcher for `event` with `callbacks` callbacks.
    pub fn new(event: HookEvent, matcher: Option<String>, callbacks: usize) -> Self {
        HookMatcherConfig {
            event,
            matcher,
            timeout_secs: None,
            on_failure: None,
            callbacks,
        }
    }

    /// `matcher` (its pattern, timeout and failure policy) as declared for `event`, with one
    /// callback.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::hooks::{HookEvent, HookMatcher};
    /// use claude_agent_tokio::session::HookMatcherConfig;
    ///
    /// let matcher = HookMatcher::new("Bash").timeout(Duration::from_secs(5));
    /// let config = HookMatcherConfig::for_matcher(HookEvent::PreToolUse, matcher);
    /// assert_eq!(config.matcher.as_deref(), Some("Bash"));
    /// assert_eq!(config.timeout_secs, Some(5.0));
    /// ```
    pub fn for_matcher(event: HookEvent, matcher: crate::hooks::HookMatcher) -> Self {
        let mut config = HookMatcherConfig::new(event, matcher.pattern, 1);
        config.timeout_secs = matcher.timeout.map(|t| t.as_secs_f64());
        config.on_failure = matcher.on_failure;
        config
    }
}

/// Deadlines of the session.
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::session::{InputMode, SessionConfig, Timeouts};
///
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.timeouts.control_request = Duration::from_secs(10);
/// config.timeouts.run_end_ceiling = None; // wait for background tasks as long as they run
/// config.timeouts.exit_after_terminate = Duration::from_secs(30); // a CLI that saves on SIGTERM
/// assert_eq!(Timeouts::default().initialize, Duration::from_secs(60));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// How long `initialize` may take (default 60 s).
    pub initialize: Duration,
    /// How long any other control request may take (default 60 s). An answer that comes later
    /// is dropped.
    pub control_request: Duration,
    /// How long the CLI's background work may hold the session after its last turn
    /// (`CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`, default 600 s). After a result, how long to
    /// wait for the CLI to go idle before closing stdin anyway; once stdin is closed, how long
    /// the CLI may go on waiting for its background shells before the session ends it
    /// ([`EndReason::BackgroundWaitPassed`](super::EndReason::BackgroundWaitPassed)). `None`: no
    /// ceiling.
    pub run_end_ceiling: Option<Duration>,
    /// Once the session stops the CLI (closed by the host, or ending itself), how long the CLI
    /// gets to exit after its stdin closes before the session asks for `SIGTERM`
    /// ([`Transmit::Signal`](super::Transmit::Signal)) (default 5 s, as the official SDKs give
    /// it: the CLI writes the end of its session file after stdin closes, and a `SIGTERM` in the
    /// middle of that loses the last message).
    pub exit_after_stdin_closed: Duration,
    /// After `SIGTERM`, how long before the session asks for `SIGKILL` (default 5 s).
    pub exit_after_terminate: Duration,
    /// The CLI ended its stdout but did not exit: how long before the session closes its stdin
    /// and stops it, as on a close (default 5 s).
    pub exit_after_stdout_end: Duration,
    /// After the CLI exited, how long its stdout and stderr may stay open (a process it started
    /// holds them) before the session takes stdout as ended and asks the host to let them go
    /// ([`Transmit::ReleasePipes`](super::Transmit::ReleasePipes)) (default 500 ms).
    pub pipes_after_exit: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            initialize: Duration::from_secs(60),
            control_request: Duration::from_secs(60),
            run_end_ceiling: Some(Duration::from_secs(600)),
            exit_after_stdin_closed: Duration::from_secs(5),
            exit_after_terminate: Duration::from_secs(5),
            exit_after_stdout_end: Duration::from_secs(5),
            pipes_after_exit: Duration::from_millis(500),
        }
    }
}

/// Bounds on what the session buffers.
///
/// ```
/// use claude_agent_tokio::session::{InputMode, Limits, SessionConfig};
///
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.limits.max_line_bytes = 64 * 1024 * 1024; // tools that return very large outputs
/// assert_eq!(Limits::default().max_pending_requests, 256);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Longest stdout line accepted, in bytes (default 16 MiB). A longer line is skipped and reported.
    pub max_line_bytes: usize,
    /// Events queued before [`super::Session::wants_read`] turns false (default 1024).
    pub max_queued_events: usize,
    /// Control requests of ours in flight at once (default 256).
    pub max_pending_requests: usize,
    /// The CLI's requests handed to the host ([`Event::Inbound`](super::Event::Inbound)) and
    /// not answered yet, at once (default 256): at the limit, [`super::Session::poll_event`]
    /// holds the next request, and every event after it, until one is answered or withdrawn
    /// (the withdrawal of a request the host has goes out ahead of the held ones, and makes
    /// room once it has). The CLI then waits; so does a host's callback that waits for a later
    /// event. A limit of 0 counts as 1.
    pub max_inbound_in_flight: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_line_bytes: 16 * 1024 * 1024,
            max_queued_events: 1024,
            max_pending_requests: 256,
            max_inbound_in_flight: 256,
        }
    }
}

/// Which settings the `initialize` request carries ([`SessionConfig::delivers_settings`]).
///
/// ```
/// use claude_agent_tokio::session::{InputMode, SessionConfig, SettingsDelivered};
///
/// let mut config = SessionConfig::new(InputMode::Streaming);
/// config.delivers_settings = SettingsDelivered { settings: true, managed_settings: false };
/// assert!(config.delivers_settings.any());
/// assert!(!SettingsDelivered::default().any());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SettingsDelivered {
    /// `settings`: the inline settings, with the sandbox merged in.
    pub settings: bool,
    /// `managedSettings`: the host's policy settings.
    pub managed_settings: bool,
}

impl SettingsDelivered {
    /// Whether `initialize` carries any settings.
    ///
    /// ```
    /// use claude_agent_tokio::session::SettingsDelivered;
    /// let managed = SettingsDelivered { settings: false, managed_settings: true };
    /// assert!(managed.any());
    /// ```
    pub fn any(self) -> bool {
        self.settings || self.managed_settings
    }
}
