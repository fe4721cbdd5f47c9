//! Warm start: `startup()` (a CLI initialized before its prompt), `prewarm()` and
//! [`Spare::claim`] (a CLI parked before its session is known), and a [`SparePool`] of spares.

use std::fmt;
use std::sync::Arc;

use claude_agent_client::Options;
use claude_agent_client::{ClaimError, Error, PoolStart, PrewarmError, Prompt};
use claude_agent_core::control::{ClaimInfo, ClaimOptions, InitializeResponse};

use crate::executor::{self, wait};
use crate::query::Query;

/// Start the CLI for `options` now, and return once it has answered `initialize`: the
/// [`WarmQuery`] then runs its prompt with no start-up left to wait for. Call it while the user
/// is still typing.
///
/// A CLI that fails to start gives the error [`Client::connect`](crate::Client::connect) gives.
///
/// ```no_run
/// use claude_agent_blocking::{startup, Message, Options};
///
/// let warm = startup(Options::new().cwd("/srv/app"))?; // while the user types
/// for message in warm.query("Summarise README.md") {
///     if let Message::Result(result) = message? {
///         println!("{}", result.result.unwrap_or_default());
///     }
/// }
/// # Ok::<(), claude_agent_blocking::Error>(())
/// ```
pub fn startup(options: Options) -> Result<WarmQuery, Error> {
    let inner = wait(claude_agent_client::startup_with(
        executor::runtime(),
        options,
    ))?;
    Ok(WarmQuery { inner })
}

/// A CLI that has started and answered `initialize`, waiting for its prompt: made by
/// [`startup`]. Dropping it (or [`WarmQuery::close`]) shuts the CLI down unused.
///
/// ```no_run
/// use claude_agent_blocking::{startup, Options};
///
/// let warm = startup(Options::new())?;
/// let answer: Vec<_> = warm.query("What is 2 + 2?").collect();
/// # Ok::<(), claude_agent_blocking::Error>(())
/// ```
pub struct WarmQuery {
    inner: claude_agent_client::WarmQuery,
}

impl WarmQuery {
    /// Send `prompt` and iterate over every message until the CLI's stdout ends, as [`query`]
    /// does.
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{startup, Options};
    /// let warm = startup(Options::new())?;
    /// for message in warm.query("What is 2 + 2?") {
    ///     println!("{:?}", message?);
    /// }
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    ///
    /// [`query`]: crate::query
    pub fn query(self, prompt: impl Into<Prompt>) -> Query {
        Query::from_inner(self.inner.query(prompt))
    }

    /// The CLI's answer to `initialize` (its commands, models, agents, account…).
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{startup, Options};
    /// let warm = startup(Options::new())?;
    /// if let Some(info) = warm.server_info() {
    ///     println!("Claude Code {:?} is ready", info.claude_code_version);
    /// }
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    pub fn server_info(&self) -> Option<Arc<InitializeResponse>> {
        self.inner.server_info()
    }

    /// Shut the CLI down without sending a prompt, and return once it is gone.
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{startup, Options};
    /// let warm = startup(Options::new())?;
    /// warm.close(); // the user left before asking anything
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    pub fn close(self) {
        wait(self.inner.close());
    }
}

impl fmt::Debug for WarmQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// Start a spare: the CLI with `--await-claim`, started up and initialized with the host-level
/// `options` and parked (in a folder of its own under the temp directory, removed once the CLI
/// is gone, unless the options name a `cwd`) until [`Spare::claim`] binds it to a session.
///
/// Options that describe a session (resume, continue, fork, a session id) are refused with
/// [`PrewarmError::SessionStart`]: give them to [`query`](crate::query).
///
/// ```no_run
/// use claude_agent_blocking::control::ClaimOptions;
/// use claude_agent_blocking::{prewarm, Options};
///
/// let spare = prewarm(Options::new().allowed_tools(["Read"]))?;
/// // … later, the user opens a folder and asks:
/// let claimed = spare.claim("Summarise README.md", ClaimOptions::new("/srv/app"))?;
/// for message in claimed.messages {
///     println!("{:?}", message?);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn prewarm(options: Options) -> Result<Spare, PrewarmError> {
    let inner = wait(claude_agent_client::prewarm_with(
        executor::runtime(),
        options,
    ))?;
    Ok(Spare { inner })
}

/// A parked CLI, bound to no session yet: made by [`prewarm`]. Dropping it (or
/// [`Spare::close`]) shuts the CLI down.
///
/// ```no_run
/// use claude_agent_blocking::{prewarm, Options};
///
/// let spare = prewarm(Options::new())?;
/// println!("parked: pid {:?}, alive: {}", spare.pid(), spare.is_alive());
/// # Ok::<(), claude_agent_blocking::PrewarmError>(())
/// ```
pub struct Spare {
    inner: claude_agent_client::Spare,
}

impl Spare {
    /// Bind the spare to a session and run `prompt` there; returns once the CLI has answered the
    /// claim. A refusal ([`ClaimError::Refused`]) or a spare that died
    /// ([`ClaimError::SpareExited`]) means the prompt did not run: start the session cold
    /// ([`Options::claimed`] gives its options).
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::ClaimOptions;
    /// use claude_agent_blocking::{prewarm, query, ClaimError, Options};
    ///
    /// let host = Options::new();
    /// let spare = prewarm(host.clone())?;
    /// let claim = ClaimOptions::new("/srv/app").model("claude-sonnet-5");
    /// let messages = match spare.claim("Fix the failing test", claim.clone()) {
    ///     Ok(claimed) => claimed.messages,
    ///     Err(ClaimError::Refused(refusal)) => {
    ///         eprintln!("cold start: {}", refusal.message);
    ///         query("Fix the failing test", host.claimed(&claim)?)
    ///     }
    ///     Err(other) => return Err(other.into()),
    /// };
    /// for message in messages {
    ///     println!("{:?}", message?);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claim(
        self,
        prompt: impl Into<Prompt>,
        options: ClaimOptions,
    ) -> Result<Claimed, ClaimError> {
        let claimed = wait(self.inner.claim(prompt, options))?;
        Ok(Claimed {
            info: claimed.info,
            messages: Query::from_inner(claimed.messages),
        })
    }

    /// Whether the spare's process is still running (a parked CLI can die; replace it then).
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{prewarm, Options};
    /// let mut spare = prewarm(Options::new())?;
    /// if !spare.is_alive() {
    ///     spare = prewarm(Options::new())?;
    /// }
    /// # Ok::<(), claude_agent_blocking::PrewarmError>(())
    /// ```
    pub fn is_alive(&self) -> bool {
        self.inner.is_alive()
    }

    /// The spare's process id, as its answer to `initialize` gave it.
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{prewarm, Options};
    /// let spare = prewarm(Options::new())?;
    /// println!("parked CLI: pid {:?}", spare.pid());
    /// # Ok::<(), claude_agent_blocking::PrewarmError>(())
    /// ```
    pub fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }

    /// Shut the spare's CLI down unused, and return once it is gone.
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{prewarm, Options};
    /// let spare = prewarm(Options::new())?;
    /// spare.close(); // the host's options changed: this spare is stale
    /// # Ok::<(), claude_agent_blocking::PrewarmError>(())
    /// ```
    pub fn close(self) {
        wait(self.inner.close());
    }
}

impl fmt::Debug for Spare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A claimed [`Spare`]: how the CLI answered the claim, and the session's messages.
///
/// ```no_run
/// use claude_agent_blocking::control::ClaimOptions;
/// use claude_agent_blocking::{prewarm, Options};
///
/// let claimed = prewarm(Options::new())?.claim("hello", ClaimOptions::new("/srv/app"))?;
/// println!("session {} in {:?}", claimed.info.session_id, claimed.info.cwd);
/// if !claimed.info.not_applied.is_empty() {
///     println!("running without {:?}", claimed.info.not_applied);
/// }
/// let messages: Vec<_> = claimed.messages.collect();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[non_exhaustive]
pub struct Claimed {
    /// The claim's answer: the session id, its working directory, how long the spare was
    /// parked, and the options the CLI did not take ([`ClaimInfo::not_applied`]).
    pub info: Box<ClaimInfo>,
    /// Every message of the session, as [`query`](crate::query) gives them.
    pub messages: Query,
}

impl fmt::Debug for Claimed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claimed")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

/// Parked CLIs kept ready per set of host-level options: [`SparePool::query`] claims one for a
/// session (or starts the session cold when none is ready or the claim is refused) and parks
/// another in its place. Clones share the pool; dropping the last one shuts its spares down.
///
/// ```no_run
/// use claude_agent_blocking::control::ClaimOptions;
/// use claude_agent_blocking::{Options, SparePool};
///
/// let pool = SparePool::new();
/// let host = Options::new().allowed_tools(["Read"]);
/// pool.prewarm(&host)?; // at start-up
/// // … for each session:
/// let session = pool.query(&host, "Summarise README.md", ClaimOptions::new("/srv/app"))?;
/// println!("started: {:?}", session.start);
/// for message in session.messages {
///     println!("{:?}", message?);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct SparePool {
    inner: claude_agent_client::SparePool,
}

impl Default for SparePool {
    fn default() -> Self {
        SparePool::new()
    }
}

impl SparePool {
    /// An empty pool: one spare per set of options, for the two sets of options asked for
    /// last. Spares start on the crate's executor thread.
    ///
    /// ```
    /// let pool = claude_agent_blocking::SparePool::new();
    /// # drop(pool);
    /// ```
    pub fn new() -> Self {
        SparePool {
            inner: claude_agent_client::SparePool::new(executor::runtime()),
        }
    }

    /// Keep `spares` parked per set of options (1 by default, at least 1). Set it before the
    /// pool is used.
    ///
    /// ```
    /// let pool = claude_agent_blocking::SparePool::new().per_options(2);
    /// # drop(pool);
    /// ```
    pub fn per_options(self, spares: usize) -> Self {
        SparePool {
            inner: self.inner.per_options(spares),
        }
    }

    /// Keep spares for at most `sets` distinct sets of options (2 by default, at least 1); the
    /// set asked for least recently is let go when another comes. Set it before the pool is used.
    ///
    /// ```
    /// let pool = claude_agent_blocking::SparePool::new().option_sets(1);
    /// # drop(pool);
    /// ```
    pub fn option_sets(self, sets: usize) -> Self {
        SparePool {
            inner: self.inner.option_sets(sets),
        }
    }

    /// Start spares for `options` in the background; returns at once. Errors in the options
    /// are reported now.
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{Options, SparePool};
    /// let pool = SparePool::new();
    /// pool.prewarm(&Options::new().model("sonnet"))?;
    /// # Ok::<(), claude_agent_blocking::PrewarmError>(())
    /// ```
    pub fn prewarm(&self, options: &Options) -> Result<(), PrewarmError> {
        self.inner.prewarm(options)
    }

    /// Live spares parked for `options` now (not counting those still starting).
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{Options, SparePool};
    /// # let pool = SparePool::new();
    /// println!("{} spares ready", pool.ready(&Options::new()));
    /// ```
    pub fn ready(&self, options: &Options) -> usize {
        self.inner.ready(options)
    }

    /// The process ids of every parked spare.
    ///
    /// ```no_run
    /// # let pool = claude_agent_blocking::SparePool::new();
    /// println!("parked CLIs: {:?}", pool.pids());
    /// ```
    pub fn pids(&self) -> Vec<u32> {
        self.inner.pids()
    }

    /// Shut down the spares of `options` (signed out, settings changed…).
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{Options, SparePool};
    /// # let pool = SparePool::new();
    /// pool.discard(&Options::new());
    /// ```
    pub fn discard(&self, options: &Options) {
        self.inner.discard(options);
    }

    /// Start a session for `prompt`: on a parked spare of `options` claimed with `claim`, or
    /// cold (`options` with the claim's, [`Options::claimed`]) when none is ready or the claim
    /// is refused. [`PooledQuery::start`] tells which.
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::ClaimOptions;
    /// use claude_agent_blocking::{Options, PoolStart, SparePool};
    ///
    /// let pool = SparePool::new();
    /// let host = Options::new();
    /// let session = pool.query(&host, "hello", ClaimOptions::new("/srv/app"))?;
    /// if let PoolStart::Cold { refused: Some(refusal) } = &session.start {
    ///     eprintln!("the spare refused: {}", refusal.message);
    /// }
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    pub fn query(
        &self,
        options: &Options,
        prompt: impl Into<Prompt>,
        claim: ClaimOptions,
    ) -> Result<PooledQuery, Error> {
        let pooled = wait(self.inner.query(options, prompt, claim))?;
        Ok(PooledQuery {
            start: pooled.start,
            messages: Query::from_inner(pooled.messages),
        })
    }
}

impl fmt::Debug for SparePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A session from a [`SparePool`]: how it started, and its messages.
///
/// ```no_run
/// use claude_agent_blocking::control::ClaimOptions;
/// use claude_agent_blocking::{Options, PoolStart, SparePool};
///
/// let pool = SparePool::new();
/// let session = pool.query(&Options::new(), "hello", ClaimOptions::new("/srv/app"))?;
/// let warm = matches!(session.start, PoolStart::Claimed(_));
/// let messages: Vec<_> = session.messages.collect();
/// # Ok::<(), claude_agent_blocking::Error>(())
/// ```
#[non_exhaustive]
pub struct PooledQuery {
    /// How the session started: on a claimed spare, or cold.
    pub start: PoolStart,
    /// Every message of the session.
    pub messages: Query,
}

impl fmt::Debug for PooledQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PooledQuery")
            .field("start", &self.start)
            .finish_non_exhaustive()
    }
}
