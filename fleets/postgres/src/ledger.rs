//! [`PostgresFleetLedger`]: a fleet's limits kept in PostgreSQL, so that the sessions of many
//! hosts form one fleet.

mod clock;
mod fence;
mod worker;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use claude_agent_client::{
    AdmitError, AdmitFuture, ChargeFuture, FleetLimits, SharedLedger, SharedPlace,
};
use claude_agent_core::cost::{BudgetLevel, BudgetReport, Spent, TurnCost};
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{AsyncMessage, Client, Config, Notification};
use tokio_postgres_rustls::MakeRustlsConnect;

use claude_agent_store_postgres::__private::{bound, described, prepare, Bounds, Prepared};
use claude_agent_store_postgres::{ConnectError, TlsRoots, DEFAULT_SCHEMA};

use crate::statements::{self as sql, HostLease};
use clock::LeaseClock;
pub use fence::LeaseFence;
use worker::Worker;

/// How long a host's places outlive its last renewal, unless [`FleetHost::lease`] says.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// One host of a fleet, as it joins the fleet's ledger ([`PostgresFleetLedger::connect`]).
///
/// Every host of a fleet should give the same `limits` (the last to join sets the session
/// limit kept in the database) and a `host` name of its own.
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::FleetLimits;
/// use claude_agent_tokio::cost::Budget;
/// use claude_agent_fleet_postgres::FleetHost;
///
/// let limits = FleetLimits { max_sessions: Some(400), budget_per_key: Some(Budget::usd(20.0)), ..FleetLimits::default() };
/// let mut host = FleetHost::new("agents", "worker-3", limits);
/// host.lease = Duration::from_secs(5);
/// assert_eq!(host.schema, "claude_agent");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FleetHost {
    /// The fleet's name: hosts that give the same one share its limits.
    pub fleet: String,
    /// This host's name in the fleet (a hostname, a pod name): unique among its hosts.
    pub host: String,
    /// The fleet's limits: `max_sessions` and `budget_per_key` hold across the hosts,
    /// `max_resident_bytes` is this host's.
    pub limits: FleetLimits,
    /// How long this host's places outlive its last renewal: a host that dies, is frozen or
    /// is cut off from the database loses them within this (and its sessions become
    /// [orphans](PostgresFleetLedger::orphans)). The host renews every quarter of it.
    pub lease: Duration,
    /// The schema the ledger's tables go in.
    pub schema: String,
}

impl FleetHost {
    /// `host` of `fleet` keeping `limits`, with a lease of [`DEFAULT_LEASE`], in the schema
    /// [`DEFAULT_SCHEMA`].
    ///
    /// ```
    /// use claude_agent_tokio::FleetLimits;
    /// use claude_agent_fleet_postgres::{FleetHost, DEFAULT_LEASE};
    ///
    /// let host = FleetHost::new("agents", "worker-1", FleetLimits::default());
    /// assert_eq!(host.lease, DEFAULT_LEASE);
    /// ```
    pub fn new(
        fleet: impl Into<String>,
        host: impl Into<String>,
        limits: FleetLimits,
    ) -> FleetHost {
        FleetHost {
            fleet: fleet.into(),
            host: host.into(),
            limits,
            lease: DEFAULT_LEASE,
            schema: DEFAULT_SCHEMA.to_owned(),
        }
    }
}

/// A place whose host's lease ran out (the host died, was frozen or cut off): its session may be
/// taken over by another host ([`PostgresFleetLedger::take_over`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Orphan {
    /// The place's id in the ledger.
    pub place: String,
    /// The session that held it, once its CLI told its id (`None`: the host died before).
    pub session_id: Option<String>,
    /// The key the session counted under.
    pub key: String,
    /// The host that held it.
    pub host: String,
    /// The session was in a turn when its host stopped renewing: a prompt had been sent and
    /// its result had not come. That turn is cut off. The session store has what the
    /// session's host had stored, which is often not the cut-off prompt, and a resumed session
    /// does not run the turn again: send its prompt again, or tell its user.
    pub cut_off_turn: bool,
}

/// A fleet's ledger in PostgreSQL, for [`Fleet::shared`](claude_agent_client::Fleet::shared):
/// many hosts, each with its own `Fleet` on this ledger, share one session limit, one fair
/// queue between keys, and each key's spending and budget.
///
/// - **Places.** A place is given in one transaction that holds the fleet's row, so that two
///   hosts never give the last place twice; the key served longest ago goes first, whichever
///   host its session waits on. A host that frees a place gives it at once; the hosts hear of
///   places given through `LISTEN/NOTIFY`, and look again at every renewal (which also gives
///   the places of hosts whose lease ran out).
/// - **Leases.** Each host holds its places under a lease ([`FleetHost::lease`]) it renews
///   every quarter of it. A host that stops renewing (killed, frozen, cut off) holds no place
///   once its lease has run out: its places count no more, and its sessions are
///   [orphans](Self::orphans) another host may [take over](Self::take_over). A host that finds
///   its lease gone (it was frozen past it, or cut off) ends its sessions with
///   `FleetError::PlaceLost` and joins again under a new epoch (unless every handle of the
///   ledger is gone: then it lets the lease go); it ends them on its own clock too, once a
///   lease has passed since its last renewal, even while the database is out of reach. Once
///   every handle of the ledger is gone, the host leaves: what is queued is committed, and its
///   lease ends at once.
/// - **Spending.** A turn's cost is added in one statement; the charge that crosses a level of
///   the key's budget (whichever host makes it) tells every host, and each tells its live
///   sessions of the key. A key over its budget is refused on every host.
///
/// The connection is opened again when it is lost (a database restart): places and waiters are
/// rows, and survive it while the lease holds. A statement the database does not answer within
/// half a lease gives the connection up, so that a host cut off still ends its sessions in
/// time. Sessions hand their charges and given-back places to the ledger's task without
/// waiting: [`flush`](Self::flush) before the host's process exits.
///
/// ```no_run
/// use std::sync::Arc;
/// use claude_agent_tokio::{Fleet, FleetLimits, Options};
/// use claude_agent_fleet_postgres::{FleetHost, PostgresFleetLedger};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let limits = FleetLimits { max_sessions: Some(400), ..FleetLimits::default() };
/// let host = FleetHost::new("agents", "worker-3", limits);
/// let ledger = PostgresFleetLedger::connect("host=db.internal user=agent dbname=agent", host).await?;
/// let fleet = Fleet::shared(Arc::new(ledger))?;
/// let options = Options::new().fleet(fleet.member("tenant-42"));
/// # let _ = options;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct PostgresFleetLedger {
    inner: Arc<Inner>,
}

struct Inner {
    host: FleetHost,
    fence: LeaseFence,
    clock: Arc<LeaseClock>,
    commands: mpsc::UnboundedSender<Command>,
    view: Arc<Mutex<View>>,
    next_place: AtomicU64,
    next_charge: AtomicU64,
    /// The epoch this host first joined under: place and charge ids start with it, which makes
    /// them this process's own.
    first_epoch: i64,
}

/// What this host knows of the fleet, for the sync calls of [`SharedLedger`].
#[derive(Default)]
pub(crate) struct View {
    /// Each key's spending on every host, as last read or charged.
    spent: BTreeMap<String, Spent>,
    /// This host's places, by id.
    places: HashMap<String, Arc<PlaceState>>,
    /// This host's waiters, by place id.
    waiting: HashMap<String, Waiter>,
    /// The highest budget level each key reached, as last heard: a session that waited for
    /// its place while its key crossed one is told as its place comes.
    levels: HashMap<String, BudgetReport>,
}

struct Waiter {
    key: String,
    reply: oneshot::Sender<Result<Arc<PlaceState>, AdmitError>>,
}

/// A place of this host, shared by its [`SharedPlace`] and the ledger's task.
struct PlaceState {
    id: String,
    key: String,
    /// The host's epoch when the place was given: what its session's appends are fenced by.
    epoch: i64,
    signals: Mutex<Signals>,
}

#[derive(Default)]
struct Signals {
    reports: VecDeque<BudgetReport>,
    /// The highest budget level reported to this place.
    told: Option<BudgetLevel>,
    lost: bool,
    report_waker: Option<Waker>,
    lost_waker: Option<Waker>,
}

impl PlaceState {
    fn signals(&self) -> MutexGuard<'_, Signals> {
        self.signals.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn tell(&self, report: &BudgetReport) {
        let mut signals = self.signals();
        if signals.told >= Some(report.level) {
            return;
        }
        signals.told = Some(report.level);
        signals.reports.push_back(report.clone());
        if let Some(waker) = signals.report_waker.take() {
            waker.wake();
        }
    }

    fn lose(&self) {
        let mut signals = self.signals();
        signals.lost = true;
        if let Some(waker) = signals.lost_waker.take() {
            waker.wake();
        }
    }
}

/// This host lost its lease (or its name to another process): every place of it is lost, and
/// every waiter told `why`.
fn lose_all(view: &Mutex<View>, why: &str) {
    let (places, waiters) = {
        let mut view = view.lock().unwrap_or_else(PoisonError::into_inner);
        (
            std::mem::take(&mut view.places),
            std::mem::take(&mut view.waiting),
        )
    };
    for place in places.values() {
        place.lose();
    }
    for waiter in waiters.into_values() {
        let _ = waiter
            .reply
            .send(Err(AdmitError::Unreachable(why.to_owned())));
    }
}

enum Command {
    Admit {
        key: String,
        place: String,
        reply: oneshot::Sender<Result<Arc<PlaceState>, AdmitError>>,
    },
    /// A waiter left, or a place was given back: whatever the place holds is freed.
    Free {
        place: String,
    },
    Bind {
        place: String,
        session_id: String,
    },
    Turn {
        place: String,
        running: bool,
    },
    Charge {
        /// The charge's id: made again after an unanswered commit, it counts once.
        id: String,
        key: String,
        cost: TurnCost,
        /// Told once it is made.
        done: oneshot::Sender<()>,
    },
    Orphans {
        reply: oneshot::Sender<Result<Vec<Orphan>, LedgerError>>,
    },
    Spending {
        reply: oneshot::Sender<Result<Vec<(String, Spent)>, LedgerError>>,
    },
    Flush {
        reply: oneshot::Sender<Result<(), LedgerError>>,
    },
    TakeOver {
        place: String,
        reply: oneshot::Sender<Result<bool, LedgerError>>,
    },
}

impl PostgresFleetLedger {
    /// Join `host`'s fleet on the database of `config` (a `tokio-postgres` configuration string
    /// or `postgresql://` URL, TLS as [`PostgresSessionStore::connect`] does it): make the tables
    /// on first use, set the fleet's session limit, take a lease, and run the ledger's task on
    /// the current tokio runtime.
    ///
    /// [`PostgresSessionStore::connect`]: claude_agent_store_postgres::PostgresSessionStore::connect
    ///
    /// ```no_run
    /// use claude_agent_tokio::FleetLimits;
    /// use claude_agent_fleet_postgres::{FleetHost, PostgresFleetLedger};
    ///
    /// # async fn run() -> Result<(), claude_agent_fleet_postgres::JoinError> {
    /// let host = FleetHost::new("agents", "worker-1", FleetLimits { max_sessions: Some(50), ..FleetLimits::default() });
    /// let ledger = PostgresFleetLedger::connect("host=127.0.0.1 user=agent dbname=agent", host).await?;
    /// # let _ = ledger;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect(config: &str, host: FleetHost) -> Result<PostgresFleetLedger, JoinError> {
        PostgresFleetLedger::connect_with(config, TlsRoots::System, host).await
    }

    /// [`connect`](Self::connect), trusting `roots` for the server's certificate.
    ///
    /// ```no_run
    /// use claude_agent_tokio::FleetLimits;
    /// use claude_agent_fleet_postgres::{FleetHost, PostgresFleetLedger, TlsRoots};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let ca = std::fs::read("/etc/agent/db-ca.pem")?;
    /// let host = FleetHost::new("agents", "worker-1", FleetLimits::default());
    /// let ledger = PostgresFleetLedger::connect_with("host=db.internal user=agent sslmode=require", TlsRoots::Pem(ca), host).await?;
    /// # let _ = ledger;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect_with(
        config: &str,
        roots: TlsRoots,
        host: FleetHost,
    ) -> Result<PostgresFleetLedger, JoinError> {
        check_name("schema", &host.schema)?;
        let Prepared {
            runtime,
            mut config,
            tls,
        } = prepare(config, &roots)?;
        // A statement waits for a lock a quarter of a lease at most, runs half a lease at
        // most, and a transaction left open (its host frozen) ends in half a lease: one host
        // never holds the others up for longer. A peer that vanished is noticed as soon.
        bound(
            &mut config,
            &Bounds {
                lock: host.lease / 4,
                idle_in_transaction: host.lease / 2,
                statement: host.lease / 2,
                keepalive: host.lease / 4,
            },
        );
        if config
            .get_connect_timeout()
            .is_none_or(|t| *t > host.lease / 2)
        {
            config.connect_timeout(host.lease / 2);
        }
        let (mut client, notes) = listen(&config, tls.clone(), &runtime, &host)
            .await
            .map_err(|e| JoinError::Connect(ConnectError::Connect(e)))?;
        let schema = format!("\"{}\"", host.schema.replace('"', "\"\""));
        let sent = Instant::now();
        let me = first_join(&mut client, &schema, &host).await?;
        let (commands, receiver) = mpsc::unbounded_channel();
        let view = Arc::new(Mutex::new(View::default()));
        let fence = LeaseFence::new(schema.clone(), me.clone());
        let clock = LeaseClock::new(host.lease, sent);
        runtime.spawn(clock::watch(clock.clone(), Arc::downgrade(&view)));
        let first_epoch = me.epoch;
        let worker = Worker::new(worker::Parts {
            host: host.clone(),
            fence: fence.clone(),
            clock: clock.clone(),
            schema,
            config,
            tls,
            runtime: runtime.clone(),
            client,
            notes,
            me,
            view: view.clone(),
            handles: commands.downgrade(),
        });
        runtime.spawn(worker.run(receiver));
        Ok(PostgresFleetLedger {
            inner: Arc::new(Inner {
                host,
                fence,
                clock,
                commands,
                view,
                next_place: AtomicU64::new(0),
                next_charge: AtomicU64::new(0),
                first_epoch,
            }),
        })
    }

    /// The host as it joined.
    ///
    /// ```no_run
    /// # fn show(ledger: &claude_agent_fleet_postgres::PostgresFleetLedger) {
    /// println!("{} of {}", ledger.host().host, ledger.host().fleet);
    /// # }
    /// ```
    pub fn host(&self) -> &FleetHost {
        &self.inner.host
    }

    /// The places of the fleet whose host's lease ran out: sessions another host may take over.
    ///
    /// ```no_run
    /// # async fn run(ledger: claude_agent_fleet_postgres::PostgresFleetLedger) -> Result<(), claude_agent_fleet_postgres::LedgerError> {
    /// for orphan in ledger.orphans().await? {
    ///     println!("{:?} of {} was on {}", orphan.session_id, orphan.key, orphan.host);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn orphans(&self) -> Result<Vec<Orphan>, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Orphans { reply });
        answer.await.map_err(|_| LedgerError::Ended)?
    }

    /// Wait until every charge and every place given back so far is in the database: call it
    /// before the host's process exits, as the sessions hand both to the ledger's task without
    /// waiting. An error when the database cannot take them now (they stay queued, and are
    /// tried again while the ledger runs).
    ///
    /// ```no_run
    /// # async fn run(ledger: claude_agent_fleet_postgres::PostgresFleetLedger) -> Result<(), claude_agent_fleet_postgres::LedgerError> {
    /// // The host's sessions are over: what they spent reaches the fleet before the host exits.
    /// ledger.flush().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn flush(&self) -> Result<(), LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Flush { reply });
        answer.await.map_err(|_| LedgerError::Ended)?
    }

    /// What every key of the fleet has spent, on every host, read from the database now (the
    /// fleet's `spent_by_key` is what this host last learned), in key order.
    ///
    /// ```no_run
    /// # async fn run(ledger: claude_agent_fleet_postgres::PostgresFleetLedger) -> Result<(), claude_agent_fleet_postgres::LedgerError> {
    /// for (key, spent) in ledger.spending().await? {
    ///     println!("{key}: ${:.2} in {} turns", spent.usd, spent.turns);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn spending(&self) -> Result<Vec<(String, Spent)>, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Spending { reply });
        answer.await.map_err(|_| LedgerError::Ended)?
    }

    /// Take `orphan`'s session over: its place is freed for this host, which then resumes the
    /// session from the session store under the same key, waiting for a place like any other
    /// session. `Ok(false)` when it is no orphan any more (another host took it first, or its
    /// host renewed in time): exactly one host gets `true`. Taking it over also keeps the host
    /// that held it from holding it again: that host finds its lease gone before it renews.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use claude_agent_tokio::{connect, Fleet, Options};
    /// use claude_agent_tokio::options::SessionStart;
    /// use claude_agent_tokio::store::SessionStore;
    /// use claude_agent_fleet_postgres::PostgresFleetLedger;
    ///
    /// # async fn run(ledger: PostgresFleetLedger, fleet: Fleet, store: Arc<dyn SessionStore>) -> Result<(), Box<dyn std::error::Error>> {
    /// for orphan in ledger.orphans().await? {
    ///     let Some(session_id) = orphan.session_id.clone() else { continue };
    ///     if ledger.take_over(&orphan).await? {
    ///         let options = Options::new()
    ///             .session_store(store.clone())
    ///             .session_start(SessionStart::resume(session_id))
    ///             .fleet(fleet.member(orphan.key.clone()));
    ///         let client = connect(options).await?;
    ///         # let _ = client;
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn take_over(&self, orphan: &Orphan) -> Result<bool, LedgerError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::TakeOver {
            place: orphan.place.clone(),
            reply,
        });
        answer.await.map_err(|_| LedgerError::Ended)?
    }

    /// The fence of this host's lease, for a store whose appends need it
    /// ([`PostgresSessionStore::fenced_by`]): once the host has been frozen or cut off past
    /// its lease, and another host may have taken its sessions over, the store writes nothing
    /// more of them.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use claude_agent_tokio::{Fleet, FleetLimits, Options};
    /// use claude_agent_fleet_postgres::{FleetHost, PostgresFleetLedger};
    /// use claude_agent_store_postgres::PostgresSessionStore;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let db = "host=db.internal user=agent dbname=agent";
    /// let ledger = PostgresFleetLedger::connect(db, FleetHost::new("agents", "worker-3", FleetLimits::default())).await?;
    /// let store = PostgresSessionStore::connect(db).await?.fenced_by(ledger.fence());
    /// let fleet = Fleet::shared(Arc::new(ledger))?;
    /// let options = Options::new().session_store(Arc::new(store)).fleet(fleet.member("tenant-42"));
    /// # let _ = options;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// [`PostgresSessionStore::fenced_by`]: claude_agent_store_postgres::PostgresSessionStore::fenced_by
    pub fn fence(&self) -> LeaseFence {
        self.inner.fence.clone()
    }

    fn send(&self, command: Command) {
        // The task ends only once every sender is gone: a send always arrives.
        let _ = self.inner.commands.send(command);
    }

    fn view(&self) -> MutexGuard<'_, View> {
        self.inner
            .view
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why [`PostgresFleetLedger::connect`] failed: the host did not join its fleet.
///
/// ```
/// use claude_agent_fleet_postgres::JoinError;
///
/// fn explain(error: &JoinError) -> String {
///     match error {
///         JoinError::LimitMismatch { .. } => format!("{error} (restart the fleet to change it)"),
///         _ => format!("this host could not join its fleet: {error}"),
///     }
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JoinError {
    /// Connecting failed: a configuration that does not parse, a server down or a login
    /// refused, the TLS set-up, or no tokio runtime to run the connection on.
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// The database refused making the tables, setting the fleet's limit or taking the first
    /// lease.
    #[error("joining the fleet failed: {}", described(.0))]
    Database(#[source] tokio_postgres::Error),
    /// A name PostgreSQL would cut (over 63 bytes) or cannot use (empty): two names that share
    /// their first 63 bytes would share tables.
    #[error("the {what} name {name:?} is empty or longer than 63 bytes, which PostgreSQL cuts; give a shorter one")]
    InvalidName {
        /// What the name is of (`schema`).
        what: &'static str,
        /// The name given.
        name: String,
    },
    /// The fleet's live hosts keep another session limit than this host gives: the hosts of a
    /// fleet must agree on it (to change it, stop every host, then start them with the new one).
    #[error(
        "fleet {fleet:?} keeps a session limit of {} among its live hosts, and this host gives {}: \
         give every host of the fleet the same limits",
        limit_text(*kept),
        limit_text(*given)
    )]
    LimitMismatch {
        /// The fleet.
        fleet: String,
        /// The limit its live hosts keep (`None`: no limit).
        kept: Option<u32>,
        /// The limit this host gave.
        given: Option<u32>,
    },
}

fn limit_text(limit: Option<u32>) -> String {
    limit.map_or_else(|| "none".to_owned(), |limit| limit.to_string())
}

/// What a waiter is told when this host gave its name up to another process.
pub(super) const SUPERSEDED: &str = "another process joined the fleet under this host's name, so \
     this one stopped (each host process needs a name of its own in the fleet)";

/// Why a call to a [`PostgresFleetLedger`] failed: [`orphans`](PostgresFleetLedger::orphans),
/// [`take_over`](PostgresFleetLedger::take_over), [`spending`](PostgresFleetLedger::spending),
/// [`flush`](PostgresFleetLedger::flush).
///
/// ```no_run
/// use claude_agent_fleet_postgres::{LedgerError, PostgresFleetLedger};
///
/// # async fn run(ledger: PostgresFleetLedger) {
/// match ledger.flush().await {
///     Ok(()) => {}
///     // Still queued: the ledger tries again while it runs.
///     Err(LedgerError::Unreachable(why)) => eprintln!("not in the database yet: {why}"),
///     Err(error) => eprintln!("{error}"),
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// The fleet's database could not be reached, or did not answer in time. Asking again
    /// later may work; what a flush could not commit stays queued and is tried again.
    #[error("the fleet's database could not be reached: {0}")]
    Unreachable(String),
    /// The database refused it for good (not a lost connection, a time limit or a lock). From
    /// a flush: the charges or changes it refused, which were dropped so that they would not
    /// hold the others up.
    #[error("the fleet's database refused it: {0}")]
    Refused(String),
    /// Another process joined the fleet under this host's name, so this one stopped.
    #[error("{SUPERSEDED}")]
    Superseded,
    /// The ledger's task is gone: the tokio runtime it ran on shut down.
    #[error("the fleet ledger's task ended: the tokio runtime it ran on shut down")]
    Ended,
}

impl fmt::Debug for PostgresFleetLedger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresFleetLedger")
            .field("fleet", &self.inner.host.fleet)
            .field("host", &self.inner.host.host)
            .finish_non_exhaustive()
    }
}

impl SharedLedger for PostgresFleetLedger {
    fn limits(&self) -> FleetLimits {
        self.inner.host.limits
    }

    fn admit(&self, key: &str) -> AdmitFuture {
        let n = self.inner.next_place.fetch_add(1, Ordering::Relaxed);
        let host = &self.inner.host.host;
        let place = format!("{host}/{}/{n}", self.inner.first_epoch);
        let (reply, answer) = oneshot::channel();
        self.send(Command::Admit {
            key: key.to_owned(),
            place: place.clone(),
            reply,
        });
        let commands = self.inner.commands.clone();
        let (clock, fence) = (self.inner.clock.clone(), self.inner.fence.clone());
        // Made now, not at the first poll: a future dropped before it was ever polled gives
        // its place back too.
        let leave = FreeOnDrop {
            place: Some(place),
            commands: commands.clone(),
        };
        Box::pin(async move {
            let mut leave = leave;
            match answer.await {
                Ok(Ok(state)) => {
                    leave.place = None;
                    let place = PostgresPlace {
                        state,
                        commands,
                        clock,
                        fence,
                    };
                    Ok(Box::new(place) as Box<dyn SharedPlace>)
                }
                Ok(Err(error)) => Err(error),
                Err(_) => Err(AdmitError::Unreachable(LedgerError::Ended.to_string())),
            }
        })
    }

    fn charge(&self, key: &str, cost: &TurnCost) -> ChargeFuture {
        let n = self.inner.next_charge.fetch_add(1, Ordering::Relaxed);
        let id = format!("{}/{}/{n}", self.inner.host.host, self.inner.first_epoch);
        let (done, made) = oneshot::channel();
        self.send(Command::Charge {
            id,
            key: key.to_owned(),
            cost: cost.clone(),
            done,
        });
        // The task gone (the runtime shut down) ends the wait too.
        Box::pin(async move {
            let _ = made.await;
        })
    }

    fn spent(&self, key: &str) -> Spent {
        self.view().spent.get(key).copied().unwrap_or_default()
    }

    fn spent_by_key(&self) -> Vec<(String, Spent)> {
        let view = self.view();
        view.spent
            .iter()
            .map(|(key, spent)| (key.clone(), *spent))
            .collect()
    }

    fn running(&self) -> usize {
        self.view().places.len()
    }

    fn waiting(&self) -> usize {
        self.view().waiting.len()
    }
}

/// Frees a place asked for whose future was dropped before it came.
struct FreeOnDrop {
    place: Option<String>,
    commands: mpsc::UnboundedSender<Command>,
}

impl Drop for FreeOnDrop {
    fn drop(&mut self) {
        if let Some(place) = self.place.take() {
            let _ = self.commands.send(Command::Free { place });
        }
    }
}

/// A session's place ([`SharedPlace`]): freed when dropped.
struct PostgresPlace {
    state: Arc<PlaceState>,
    commands: mpsc::UnboundedSender<Command>,
    clock: Arc<LeaseClock>,
    fence: LeaseFence,
}

impl SharedPlace for PostgresPlace {
    fn session_id(&self, session_id: &str) {
        // Before the session's first append: it is fenced by this place's epoch.
        self.fence.bind(session_id, self.state.epoch);
        let _ = self.commands.send(Command::Bind {
            place: self.state.id.clone(),
            session_id: session_id.to_owned(),
        });
    }

    fn turn_running(&self, running: bool) {
        let _ = self.commands.send(Command::Turn {
            place: self.state.id.clone(),
            running,
        });
    }

    fn poll_report(&self, cx: &mut Context<'_>) -> Poll<BudgetReport> {
        let mut signals = self.state.signals();
        match signals.reports.pop_front() {
            Some(report) => Poll::Ready(report),
            None => {
                signals.report_waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Lost once the ledger said so, or once this host's own clock says its lease would have
    /// run out: whichever comes first, and before any task of the ledger runs.
    fn poll_lost(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut signals = self.state.signals();
        if signals.lost || self.clock.expired(Instant::now()) {
            signals.lost = true;
            return Poll::Ready(());
        }
        signals.lost_waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// As [`poll_lost`](Self::poll_lost), without waiting: a host that wakes from a freeze
    /// withholds what its application had not read yet, before any task of the ledger runs.
    fn is_lost(&self) -> bool {
        let mut signals = self.state.signals();
        signals.lost |= self.clock.expired(Instant::now());
        signals.lost
    }
}

impl Drop for PostgresPlace {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Free {
            place: self.state.id.clone(),
        });
    }
}

/// Open a connection that hears the fleet's channels, its connection driven on `runtime`.
async fn listen(
    config: &Config,
    tls: MakeRustlsConnect,
    runtime: &tokio::runtime::Handle,
    host: &FleetHost,
) -> Result<(Client, mpsc::UnboundedReceiver<Notification>), tokio_postgres::Error> {
    let (client, mut connection) = config.connect(tls).await?;
    let (notes, heard) = mpsc::unbounded_channel();
    runtime.spawn(async move {
        std::future::poll_fn(|cx| loop {
            match connection.poll_message(cx) {
                Poll::Ready(Some(Ok(AsyncMessage::Notification(note)))) => {
                    let _ = notes.send(note);
                }
                Poll::Ready(Some(Ok(_))) => {}
                // Closed, or failed: the ledger's task sees the client closed and opens another.
                Poll::Ready(Some(Err(_)) | None) => return Poll::Ready(()),
                Poll::Pending => return Poll::Pending,
            }
        })
        .await;
    });
    client
        .batch_execute(&format!(
            "LISTEN {}; LISTEN {}",
            sql::places_channel(&host.fleet),
            sql::budget_channel(&host.fleet)
        ))
        .await?;
    Ok((client, heard))
}

/// The tables, the fleet's limit (refused when the fleet's live hosts keep another), and this
/// host's first lease.
async fn first_join(
    client: &mut Client,
    schema: &str,
    host: &FleetHost,
) -> Result<HostLease, JoinError> {
    sql::create(client, schema)
        .await
        .map_err(JoinError::Database)?;
    let given = host
        .limits
        .max_sessions
        .map(|max| u32::try_from(max).unwrap_or(u32::MAX));
    sql::join_limit(client, schema, &host.fleet, &host.host, given)
        .await
        .map_err(JoinError::Database)?
        .map_err(|mismatch| JoinError::LimitMismatch {
            fleet: host.fleet.clone(),
            kept: mismatch.kept,
            given,
        })?;
    sql::join(client, schema, &host.fleet, &host.host, host.lease)
        .await
        .map_err(JoinError::Database)
}

/// PostgreSQL cuts a name (a schema, a channel) at 63 bytes: two longer names that share those
/// would share tables.
fn check_name(what: &'static str, name: &str) -> Result<(), JoinError> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(JoinError::InvalidName {
            what,
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// The longest name PostgreSQL keeps whole.
const MAX_NAME_BYTES: usize = 63;
