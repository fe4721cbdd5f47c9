//! `SparePool`: parked CLIs kept ready per set of host-level options, refilled in the
//! background, with a cold start whenever no spare can take the session.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::SystemTime;

use crate::callbacks::handlers::HostId;
use crate::control::{ClaimInfo, ClaimOptions, ClaimRefusal};
use crate::error::ClaimError;
use crate::error::Error;
use crate::handles::prompt::Prompt;
use crate::handles::query::{query_with, Query};
use crate::handles::spare::{prewarm_with, PrewarmError, Spare};
use crate::options::{LaunchSpec, Options};
use crate::process::runtime::{BoxFuture, Runtime};
use crate::session::InputMode;
use crate::store::flush::StoreFlush;
use crate::task::message_queue::Command;

/// Sets of host-level options a pool keeps spares for by default; the least recently used set
/// is let go when another comes.
const DEFAULT_OPTION_SETS: usize = 2;

/// What tells two sets of host-level options apart: the command line and environment they start
/// the CLI with, their `initialize` request, the executable's modification time (an updated
/// CLI makes older spares stale), which callbacks, store and transport they hold (their
/// [`HostId`]: a spare runs the callbacks it was started with, so it only serves options that
/// hold the same ones), when
/// the store is written to, and what the SDK keeps for the session: its fleet and key (whose
/// place it holds, whose budget it is charged to), its budget, prices and stall watch.
#[derive(Debug, Clone, PartialEq)]
struct Key {
    spec: LaunchSpec,
    initialize: Option<String>,
    modified: Option<SystemTime>,
    host: HostId,
    store_flush: StoreFlush,
    /// The fleet's identity and the key.
    fleet: Option<(u64, String)>,
    budget: Option<crate::cost::Budget>,
    prices: Option<crate::cost::PriceTable>,
    stall: Option<crate::session::StallWatch>,
}

impl Key {
    fn of(options: &Options) -> Result<Key, Error> {
        let program = match options.config().cli_path.as_deref() {
            Some(path) => path.to_path_buf(),
            None => crate::process::discovery::find_cli(None)
                .unwrap_or_else(|_| PathBuf::from("claude")),
        };
        let modified = std::fs::metadata(&program).and_then(|m| m.modified()).ok();
        let host = options.handlers().declarations();
        let spec = options.config().launch_spec(program, &host)?;
        let config = options
            .config()
            .session_config(InputMode::Streaming, &host)?;
        Ok(Key {
            spec,
            initialize: config.initialize_fields.map(|raw| raw.as_str().to_owned()),
            modified,
            host: options.handlers().id,
            store_flush: options.handlers().store_flush,
            fleet: options
                .handlers()
                .fleet
                .as_ref()
                .map(|member| (member.fleet().id(), member.key().to_owned())),
            budget: config.budget,
            prices: config.prices,
            stall: config.stall,
        })
    }
}

struct Group {
    key: Key,
    /// The options the group's spares start with, with the callbacks their `HostId` names.
    options: Options,
    spares: Vec<Spare>,
    /// Spares being started.
    starting: usize,
    /// When the group was last asked for (a counter, not a clock).
    used: u64,
}

struct Inner {
    runtime: Arc<dyn Starter>,
    per_options: usize,
    option_sets: usize,
    state: Mutex<State>,
}

struct State {
    groups: Vec<Group>,
    uses: u64,
}

/// What a pool needs of its runtime, without its type: start a spare, start a session cold, run
/// a task.
trait Starter: Send + Sync {
    fn prewarm(&self, options: Options) -> BoxFuture<'static, Result<Spare, PrewarmError>>;
    fn cold(&self, prompt: Prompt, options: Options) -> Query;
    fn spawn(&self, task: BoxFuture<'static, ()>);
}

impl<R: Runtime> Starter for R {
    fn prewarm(&self, options: Options) -> BoxFuture<'static, Result<Spare, PrewarmError>> {
        Box::pin(prewarm_with(self.clone(), options))
    }

    fn cold(&self, prompt: Prompt, options: Options) -> Query {
        query_with(self.clone(), prompt, options)
    }

    fn spawn(&self, task: BoxFuture<'static, ()>) {
        self.spawn_task(task);
    }
}

/// How a pooled session started.
///
/// ```
/// use claude_agent_tokio::PoolStart;
///
/// fn describe(start: &PoolStart) -> &'static str {
///     match start {
///         PoolStart::Claimed(_) => "from a parked CLI",
///         PoolStart::Cold { refused: Some(_) } => "cold: a spare refused the claim",
///         PoolStart::Cold { refused: None } => "cold: no spare was ready",
///         _ => "other",
///     }
/// }
/// assert_eq!(describe(&PoolStart::Cold { refused: None }), "cold: no spare was ready");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PoolStart {
    /// A spare took the claim; its answer (with [`ClaimInfo::not_applied`], options the session
    /// runs without).
    Claimed(Box<ClaimInfo>),
    /// The session started cold, with the options [`Options::claimed`] gives: no spare was
    /// ready, or the one taken refused the claim (`refused`).
    Cold {
        /// The refusal of the spare that was tried, if one was.
        refused: Option<Box<ClaimRefusal>>,
    },
}

/// A session from a [`SparePool`]: its messages, and how it started.
///
/// ```no_run
/// use claude_agent_tokio::{Error, PoolStart, PooledQuery};
/// use claude_agent_tokio::message::Message;
///
/// async fn show(session: PooledQuery) -> Result<(), Error> {
///     if let PoolStart::Cold { refused: Some(refusal) } = &session.start {
///         eprintln!("no spare took the session: {}", refusal.message);
///     }
///     let mut messages = session.messages;
///     while let Some(message) = messages.next().await {
///         if let Message::Result(result) = message? {
///             println!("{}", result.result.unwrap_or_default());
///         }
///     }
///     Ok(())
/// }
/// ```
#[non_exhaustive]
pub struct PooledQuery {
    /// Every message of the session, as a `query` streams them.
    pub messages: Query,
    /// From a spare, or cold.
    pub start: PoolStart,
}

impl fmt::Debug for PooledQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PooledQuery")
            .field("start", &self.start)
            .finish_non_exhaustive()
    }
}

/// Parked CLIs ([`Spare`]s) ready for sessions, kept per distinct set of host-level options.
///
/// [`SparePool::query`] takes a spare started with the same host-level options, claims it for
/// the session and runs the prompt there; it starts a replacement in the background. When no
/// live spare is ready, or the one taken refuses the claim, the session starts cold with the
/// same options ([`Options::claimed`]): the caller gets a session either way. Spares whose
/// process died are dropped; spares of options not asked for lately are let go once more than
/// [`SparePool::option_sets`] sets are in use, and when the CLI executable has been updated, the
/// spares of its older build are let go the next time the pool is asked for options that start
/// it.
///
/// A spare runs the callbacks (permission requests, hooks, in-process MCP servers, stderr) of the
/// options it was started with, so a set is one `Options` value and its clones (one
/// [`HostId`](crate::HostId)): options built separately are separate sets even when
/// every setting matches, and one tenant's session never runs with another tenant's callbacks.
/// Build each kind of host options once and pass that value (or a clone) to the pool; options
/// built afresh for every session never find a spare.
///
/// A parked CLI holds about 250 MB, so the pool is bounded: [`SparePool::per_options`] spares
/// (default 1) for each of at most [`SparePool::option_sets`] sets (default 2). Dropping the
/// last clone of the pool shuts its spares down.
///
/// ```no_run
/// use claude_agent_client::{PoolStart, Runtime, SparePool};
/// use claude_agent_core::control::ClaimOptions;
/// use claude_agent_client::options::Options;
///
/// async fn serve(runtime: impl Runtime) -> Result<(), Box<dyn std::error::Error>> {
///     let host = Options::new().allowed_tools(["Read", "Grep"]);
///     let pool = SparePool::new(runtime).per_options(2);
///     pool.prewarm(&host)?; // start two spares now
///     // … for every session the user opens:
///     let session = pool.query(&host, "Summarise README.md", ClaimOptions::new("/srv/app")).await?;
///     if let PoolStart::Cold { .. } = session.start {
///         eprintln!("no spare was ready");
///     }
///     let mut messages = session.messages;
///     while let Some(message) = messages.next().await {
///         println!("{}", message?.raw_json());
///     }
///     Ok(())
/// }
/// ```
pub struct SparePool {
    inner: Arc<Inner>,
}

impl Clone for SparePool {
    fn clone(&self) -> Self {
        SparePool {
            inner: self.inner.clone(),
        }
    }
}

impl fmt::Debug for SparePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SparePool")
            .field("per_options", &self.inner.per_options)
            .field("option_sets", &self.inner.option_sets)
            .finish_non_exhaustive()
    }
}

impl SparePool {
    /// An empty pool on `runtime`, keeping one spare per set of options, for at most two sets.
    ///
    /// ```
    /// use claude_agent_client::{Runtime, SparePool};
    /// fn pool(runtime: impl Runtime) -> SparePool {
    ///     SparePool::new(runtime).per_options(2).option_sets(1)
    /// }
    /// ```
    pub fn new(runtime: impl Runtime) -> Self {
        SparePool {
            inner: Arc::new(Inner {
                runtime: Arc::new(runtime),
                per_options: 1,
                option_sets: DEFAULT_OPTION_SETS,
                state: Mutex::new(State {
                    groups: Vec::new(),
                    uses: 0,
                }),
            }),
        }
    }

    /// How many spares to keep ready for each set of options (at least 1). Set it before the
    /// pool is used.
    pub fn per_options(self, spares: usize) -> Self {
        self.reconfigure(|inner| inner.per_options = spares.max(1))
    }

    /// For how many distinct sets of options to keep spares (at least 1). Set it before the pool
    /// is used.
    ///
    /// ```no_run
    /// # use claude_agent_client::{Runtime, SparePool};
    /// # fn pool(runtime: impl Runtime) -> SparePool {
    /// // Spares for three kinds of session (say: read-only, editing, and a reviewer's tools).
    /// SparePool::new(runtime).option_sets(3)
    /// # }
    /// ```
    pub fn option_sets(self, sets: usize) -> Self {
        self.reconfigure(|inner| inner.option_sets = sets.max(1))
    }

    fn reconfigure(self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => return SparePool { inner: shared },
        };
        change(&mut inner);
        SparePool {
            inner: Arc::new(inner),
        }
    }

    /// Start spares for `options` in the background until [`SparePool::per_options`] are parked
    /// or starting. Errors in the options (and options that describe a session, which a spare
    /// cannot take: [`PrewarmError::SessionStart`]) are reported at once; a spare that fails
    /// to start is not retried until the pool is asked for one again.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{PrewarmError, SparePool};
    /// # use claude_agent_tokio::options::Options;
    /// # fn example(pool: SparePool) -> Result<(), PrewarmError> {
    /// // At start-up, before any session is asked for:
    /// pool.prewarm(&Options::new().model("sonnet"))?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn prewarm(&self, options: &Options) -> Result<(), PrewarmError> {
        if let Some(start) = crate::handles::spare::own_session(options.config()) {
            return Err(PrewarmError::SessionStart { start });
        }
        let key = Key::of(options)?;
        let mut state = self.inner.lock();
        let at = state.group(&key, options, self.inner.option_sets);
        self.refill(&mut state, at);
        Ok(())
    }

    /// Live spares parked for `options` now (not counting those still starting).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::SparePool;
    /// # use claude_agent_tokio::options::Options;
    /// # fn example(pool: SparePool, options: Options) {
    /// println!("{} spares ready", pool.ready(&options));
    /// # }
    /// ```
    pub fn ready(&self, options: &Options) -> usize {
        let Ok(key) = Key::of(options) else {
            return 0;
        };
        let mut state = self.inner.lock();
        state
            .groups
            .iter_mut()
            .find(|g| g.key == key)
            .map_or(0, |group| {
                group.spares.retain(Spare::is_alive);
                group.spares.len()
            })
    }

    /// The process ids of every live spare of the pool, parked or not.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::SparePool;
    /// # fn example(pool: SparePool) {
    /// println!("parked CLIs: {:?}", pool.pids());
    /// # }
    /// ```
    pub fn pids(&self) -> Vec<u32> {
        let state = self.inner.lock();
        state
            .groups
            .iter()
            .flat_map(|g| g.spares.iter().filter_map(Spare::pid))
            .collect()
    }

    /// Let go of the spares of `options` (the host's options changed: sign-out, new settings).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::SparePool;
    /// # use claude_agent_tokio::options::Options;
    /// # fn example(pool: SparePool, old: Options) {
    /// pool.discard(&old);
    /// # }
    /// ```
    pub fn discard(&self, options: &Options) {
        let Ok(key) = Key::of(options) else {
            return;
        };
        let removed: Vec<Group> = {
            let mut state = self.inner.lock();
            let (gone, kept) = std::mem::take(&mut state.groups)
                .into_iter()
                .partition(|g| g.key == key);
            state.groups = kept;
            gone
        };
        drop(removed);
    }

    /// Run `prompt` in a session with the host-level `options` and the per-session `claim`: on a
    /// parked spare of those options when one is ready and takes the claim, cold otherwise. A
    /// replacement spare starts in the background either way. Errors are those of a cold start
    /// (a spare's refusal only makes the start cold: see [`PooledQuery::start`]).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{SparePool, Error};
    /// # use claude_agent_tokio::control::ClaimOptions;
    /// # use claude_agent_tokio::options::Options;
    /// # async fn example(pool: SparePool, host: Options) -> Result<(), Error> {
    /// let session = pool.query(&host, "What changed since yesterday?", ClaimOptions::new("/srv/app").model("sonnet")).await?;
    /// # let _ = session;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn query(
        &self,
        options: &Options,
        prompt: impl Into<Prompt>,
        claim: ClaimOptions,
    ) -> Result<PooledQuery, Error> {
        let cold = options.claimed(&claim)?;
        let key = Key::of(options)?;
        let spare = {
            let mut state = self.inner.lock();
            let at = state.group(&key, options, self.inner.option_sets);
            let group = &mut state.groups[at];
            group.spares.retain(Spare::is_alive);
            let spare = group.spares.pop();
            self.refill(&mut state, at);
            spare
        };
        let prompt = prompt.into().0;
        let refused = match spare {
            None => None,
            Some(spare) => match spare.claim_session(claim, None).await {
                Ok((info, shared)) => {
                    // Behind the claim's answer: the CLI has applied everything the claim set.
                    let _ = shared.commands.send(Command::Prompt(prompt)).await;
                    return Ok(PooledQuery {
                        messages: Query::running(shared),
                        start: PoolStart::Claimed(info),
                    });
                }
                Err(ClaimError::Refused(refusal)) => Some(refusal),
                Err(ClaimError::SpareExited) => None,
            },
        };
        Ok(PooledQuery {
            messages: self.inner.runtime.cold(Prompt(prompt), cold),
            start: PoolStart::Cold { refused },
        })
    }

    /// Start spares for the group at `at` until it has its count.
    fn refill(&self, state: &mut State, at: usize) {
        let group = &mut state.groups[at];
        while group.spares.len() + group.starting < self.inner.per_options {
            group.starting += 1;
            let pool = Arc::downgrade(&self.inner);
            let key = group.key.clone();
            let options = group.options.clone();
            let start = self.inner.runtime.prewarm(options);
            self.inner.runtime.spawn(Box::pin(async move {
                let spare = start.await.ok();
                park(&pool, &key, spare);
            }));
        }
    }
}

/// A spare finished starting (or failed to): park it in its group, if the pool and the group
/// are still there; otherwise it is dropped, which shuts it down.
fn park(pool: &Weak<Inner>, key: &Key, spare: Option<Spare>) {
    let Some(inner) = pool.upgrade() else {
        return;
    };
    let mut state = inner.lock();
    if let Some(group) = state.groups.iter_mut().find(|g| g.key == *key) {
        group.starting = group.starting.saturating_sub(1);
        if let Some(spare) = spare {
            group.spares.push(spare);
        }
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the lock is held; a poisoned lock still holds consistent state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// The index of the group of `key`, made if needed; the least recently used group goes when
    /// there are more than `limit`. Groups of an older build of `key`'s CLI executable go at
    /// once: their spares can never be handed out again.
    fn group(&mut self, key: &Key, options: &Options, limit: usize) -> usize {
        self.uses += 1;
        let uses = self.uses;
        self.groups
            .retain(|g| g.key.spec.program != key.spec.program || g.key.modified == key.modified);
        if let Some(at) = self.groups.iter().position(|g| g.key == *key) {
            self.groups[at].used = uses;
            return at;
        }
        while self.groups.len() >= limit {
            let Some(oldest) = (0..self.groups.len()).min_by_key(|&i| self.groups[i].used) else {
                break;
            };
            self.groups.swap_remove(oldest);
        }
        self.groups.push(Group {
            key: key.clone(),
            options: options.clone(),
            spares: Vec::new(),
            starting: 0,
            used: uses,
        });
        self.groups.len() - 1
    }
}
