//! [`PostgresFleetLedger`]: a fleet's limits kept in PostgreSQL, so that the sessions of many
//! hosts form one fleet.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use claude_agent_client::store::StoreError;
use claude_agent_client::{AdmitError, AdmitFuture, FleetLimits, SharedLedger, SharedPlace};
use claude_agent_core::cost::{BudgetLevel, BudgetReport, BudgetScope, Spent, TurnCost};
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{AsyncMessage, Client, Config, Notification};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::fleet_ledger::{self as sql, HostLease};
use crate::{described, prepare, ConnectError, Prepared, TlsRoots, DEFAULT_SCHEMA};

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
/// use claude_agent_store_postgres::FleetHost;
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
    /// use claude_agent_store_postgres::{FleetHost, DEFAULT_LEASE};
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
///   `FleetError::PlaceLost` and joins again under a new epoch; it ends them on its own clock
///   too, once a lease has passed since its last renewal, even while the database is out of
///   reach.
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
/// use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
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
    fence: Fence,
    commands: mpsc::UnboundedSender<Command>,
    view: Arc<Mutex<View>>,
    next_place: AtomicU64,
    /// The epoch this host first joined under: place ids start with it.
    first_epoch: i64,
}

/// What this host knows of the fleet, for the sync calls of [`SharedLedger`].
#[derive(Default)]
struct View {
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
        key: String,
        cost: TurnCost,
    },
    Orphans {
        reply: oneshot::Sender<Result<Vec<Orphan>, StoreError>>,
    },
    Spending {
        reply: oneshot::Sender<Result<Vec<(String, Spent)>, StoreError>>,
    },
    Flush {
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
    TakeOver {
        place: String,
        reply: oneshot::Sender<Result<bool, StoreError>>,
    },
}

impl PostgresFleetLedger {
    /// Join `host`'s fleet on the database of `config` (a `tokio-postgres` configuration string
    /// or `postgresql://` URL, TLS as [`PostgresSessionStore::connect`] does it): make the tables
    /// on first use, set the fleet's session limit, take a lease, and run the ledger's task on
    /// the current tokio runtime.
    ///
    /// [`PostgresSessionStore::connect`]: crate::PostgresSessionStore::connect
    ///
    /// ```no_run
    /// use claude_agent_tokio::FleetLimits;
    /// use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
    ///
    /// # async fn run() -> Result<(), claude_agent_store_postgres::ConnectError> {
    /// let host = FleetHost::new("agents", "worker-1", FleetLimits { max_sessions: Some(50), ..FleetLimits::default() });
    /// let ledger = PostgresFleetLedger::connect("host=127.0.0.1 user=agent dbname=agent", host).await?;
    /// # let _ = ledger;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect(
        config: &str,
        host: FleetHost,
    ) -> Result<PostgresFleetLedger, ConnectError> {
        PostgresFleetLedger::connect_with(config, TlsRoots::System, host).await
    }

    /// [`connect`](Self::connect), trusting `roots` for the server's certificate.
    ///
    /// ```no_run
    /// use claude_agent_tokio::FleetLimits;
    /// use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger, TlsRoots};
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
    ) -> Result<PostgresFleetLedger, ConnectError> {
        let Prepared {
            runtime,
            config,
            tls,
        } = prepare(config, &roots)?;
        let (client, notes) = listen(&config, tls.clone(), &runtime, &host)
            .await
            .map_err(ConnectError::Connect)?;
        let schema = format!("\"{}\"", host.schema.replace('"', "\"\""));
        let me = first_join(&client, &schema, &host)
            .await
            .map_err(ConnectError::Connect)?;
        let (commands, receiver) = mpsc::unbounded_channel();
        let view = Arc::new(Mutex::new(View::default()));
        let fence = Fence {
            schema: schema.clone(),
            lease: Arc::new(Mutex::new(me.clone())),
        };
        let worker = Worker {
            host: host.clone(),
            fence,
            schema,
            config,
            tls,
            runtime: runtime.clone(),
            client: Some(client),
            notes,
            me,
            renewed_at: Instant::now(),
            view: view.clone(),
            charges: VecDeque::new(),
            frees: Vec::new(),
            next_attempt: Instant::now(),
            last_connect_error: String::new(),
        };
        let first_epoch = worker.me.epoch;
        let fence = worker.fence.clone();
        runtime.spawn(worker.run(receiver));
        Ok(PostgresFleetLedger {
            inner: Arc::new(Inner {
                host,
                fence,
                commands,
                view,
                next_place: AtomicU64::new(0),
                first_epoch,
            }),
        })
    }

    /// The host as it joined.
    ///
    /// ```no_run
    /// # fn show(ledger: &claude_agent_store_postgres::PostgresFleetLedger) {
    /// println!("{} of {}", ledger.host().host, ledger.host().fleet);
    /// # }
    /// ```
    pub fn host(&self) -> &FleetHost {
        &self.inner.host
    }

    /// The places of the fleet whose host's lease ran out: sessions another host may take over.
    ///
    /// ```no_run
    /// # async fn run(ledger: claude_agent_store_postgres::PostgresFleetLedger) -> Result<(), claude_agent_tokio::store::StoreError> {
    /// for orphan in ledger.orphans().await? {
    ///     println!("{:?} of {} was on {}", orphan.session_id, orphan.key, orphan.host);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn orphans(&self) -> Result<Vec<Orphan>, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Orphans { reply });
        answer.await.map_err(|_| ended())?
    }

    /// Wait until every charge and every place given back so far is in the database: call it
    /// before the host's process exits, as the sessions hand both to the ledger's task without
    /// waiting. An error when the database cannot take them now (they stay queued, and are
    /// tried again while the ledger runs).
    ///
    /// ```no_run
    /// # async fn run(ledger: claude_agent_store_postgres::PostgresFleetLedger) -> Result<(), claude_agent_tokio::store::StoreError> {
    /// // The host's sessions are over: what they spent reaches the fleet before the host exits.
    /// ledger.flush().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn flush(&self) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Flush { reply });
        answer.await.map_err(|_| ended())?
    }

    /// What every key of the fleet has spent, on every host, read from the database now (the
    /// fleet's `spent_by_key` is what this host last learned), in key order.
    ///
    /// ```no_run
    /// # async fn run(ledger: claude_agent_store_postgres::PostgresFleetLedger) -> Result<(), claude_agent_tokio::store::StoreError> {
    /// for (key, spent) in ledger.spending().await? {
    ///     println!("{key}: ${:.2} in {} turns", spent.usd, spent.turns);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn spending(&self) -> Result<Vec<(String, Spent)>, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::Spending { reply });
        answer.await.map_err(|_| ended())?
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
    /// use claude_agent_store_postgres::PostgresFleetLedger;
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
    pub async fn take_over(&self, orphan: &Orphan) -> Result<bool, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Command::TakeOver {
            place: orphan.place.clone(),
            reply,
        });
        answer.await.map_err(|_| ended())?
    }

    /// What a store fenced by this ledger checks ([`PostgresSessionStore::fenced_by`]).
    ///
    /// [`PostgresSessionStore::fenced_by`]: crate::PostgresSessionStore::fenced_by
    pub(crate) fn fence(&self) -> Fence {
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

fn ended() -> StoreError {
    StoreError::backend(
        "the fleet ledger's task gave no answer: its database did not answer in time, or its \
         tokio runtime shut down",
    )
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
        Box::pin(async move {
            let mut leave = FreeOnDrop {
                place: Some(place),
                commands: commands.clone(),
            };
            match answer.await {
                Ok(Ok(state)) => {
                    leave.place = None;
                    Ok(Box::new(PostgresPlace { state, commands }) as Box<dyn SharedPlace>)
                }
                Ok(Err(error)) => Err(error),
                Err(_) => Err(AdmitError::Unreachable(ended().to_string())),
            }
        })
    }

    fn charge(&self, key: &str, cost: &TurnCost) {
        self.send(Command::Charge {
            key: key.to_owned(),
            cost: cost.clone(),
        });
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
}

impl SharedPlace for PostgresPlace {
    fn session_id(&self, session_id: &str) {
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

    fn poll_lost(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut signals = self.state.signals();
        if signals.lost {
            return Poll::Ready(());
        }
        signals.lost_waker = Some(cx.waker().clone());
        Poll::Pending
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

/// The tables, the fleet's limit, and this host's first lease.
async fn first_join(
    client: &Client,
    schema: &str,
    host: &FleetHost,
) -> Result<HostLease, tokio_postgres::Error> {
    sql::create(client, schema).await?;
    let max = host
        .limits
        .max_sessions
        .map(|max| u32::try_from(max).unwrap_or(u32::MAX));
    sql::set_limit(client, schema, &host.fleet, max).await?;
    sql::join(client, schema, &host.fleet, &host.host, host.lease).await
}

/// The ledger's task: it owns the connection, runs every statement, renews the lease, and
/// tells this host's places and waiters what the database decided.
struct Worker {
    host: FleetHost,
    /// The host's schema, quoted.
    schema: String,
    /// The lease a fenced store's appends need: the worker's, as it joins again.
    fence: Fence,
    config: Config,
    tls: MakeRustlsConnect,
    runtime: tokio::runtime::Handle,
    /// `None` while the database is out of reach.
    client: Option<Client>,
    notes: mpsc::UnboundedReceiver<Notification>,
    me: HostLease,
    /// When the last renewal that succeeded was sent.
    renewed_at: Instant,
    view: Arc<Mutex<View>>,
    /// Charges the database has not taken yet (it was out of reach).
    charges: VecDeque<(String, TurnCost)>,
    /// Places given back while the database was out of reach.
    frees: Vec<String>,
    /// No try to connect again before this: while the database is out of reach, a statement
    /// fails at once, and the renewals try again.
    next_attempt: Instant,
    /// Why the last try to connect failed, for the sessions told the database is out of reach.
    last_connect_error: String,
}

/// Why a statement of the ledger's task did not run.
enum Failure {
    /// The database refused it, or the connection failed under it.
    Database(tokio_postgres::Error),
    /// The database is out of reach: the last try to connect failed.
    OutOfReach,
}

impl From<tokio_postgres::Error> for Failure {
    fn from(error: tokio_postgres::Error) -> Failure {
        Failure::Database(error)
    }
}

impl Worker {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        let mut tick = tokio::time::interval(self.host.lease / 4);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // A database that does not answer (a half-open connection, a partition dropping
        // packets) holds the task no longer than this, so that the host's own clock still
        // ends its places in time.
        let patience = self.host.lease / 2;
        loop {
            let answered = tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => tokio::time::timeout(patience, self.handle(command)).await,
                    None => break,
                },
                Some(note) = self.notes.recv() => {
                    tokio::time::timeout(patience, self.heard(note)).await
                }
                _ = tick.tick() => tokio::time::timeout(patience, self.tick()).await,
            };
            if answered.is_err() {
                self.unanswered(patience);
            }
            self.check_own_clock();
        }
        // Every handle is gone, and with them every place: what the database could not take
        // yet is tried once more (`flush` is how a host makes sure of it).
        if let Err(error) = self.settle().await {
            self.failed(&error);
        }
    }

    fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Open the connection again if it was lost (at most once a renewal period); a lease
    /// found gone on the way loses this host's places and joins again.
    async fn connected(&mut self) -> Result<(), Failure> {
        if self.client.as_ref().is_none_or(Client::is_closed) {
            self.client = None;
            if Instant::now() < self.next_attempt {
                return Err(Failure::OutOfReach);
            }
            self.next_attempt = Instant::now() + self.host.lease / 4;
            let opened = listen(&self.config, self.tls.clone(), &self.runtime, &self.host).await;
            let (client, notes) = opened.inspect_err(|error| {
                self.last_connect_error = described(error);
            })?;
            self.notes = notes;
            self.client = Some(client);
            self.renew().await?;
        }
        Ok(())
    }

    /// A statement got no answer within `patience`: the connection is given up (the next
    /// renewal opens another), and the sessions waiting for a place are told, since what the
    /// database made of their tickets is not known. (Places given back and charges stay queued.)
    fn unanswered(&mut self, patience: Duration) {
        self.client = None;
        let waiters = std::mem::take(&mut self.view().waiting);
        for waiter in waiters.into_values() {
            let _ = waiter.reply.send(Err(AdmitError::Unreachable(format!(
                "the fleet's database did not answer within {patience:?}"
            ))));
        }
    }

    /// On this host's own clock: a lease since the last renewal, and its places are another
    /// host's to take, whether or not the database can say so.
    fn check_own_clock(&mut self) {
        if self.renewed_at.elapsed() >= self.host.lease && !self.view().places.is_empty() {
            self.lose_everything();
        }
    }

    /// The open connection ([`Worker::connected`] first).
    fn db(&self) -> &Client {
        self.client.as_ref().expect("connected first")
    }

    /// Renew the lease; found gone, lose every place and join again.
    async fn renew(&mut self) -> Result<(), Failure> {
        let sent = Instant::now();
        if sql::renew(self.db(), &self.schema, &self.me, self.host.lease).await? {
            self.renewed_at = sent;
            return Ok(());
        }
        self.lose_everything();
        let host = &self.host;
        self.me = sql::join(self.db(), &self.schema, &host.fleet, &host.host, host.lease).await?;
        *self
            .fence
            .lease
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = self.me.clone();
        self.renewed_at = sent;
        Ok(())
    }

    /// The lease is gone: every place of this host is lost, and every waiter told.
    fn lose_everything(&mut self) {
        let (places, waiters) = {
            let mut view = self.view();
            (
                std::mem::take(&mut view.places),
                std::mem::take(&mut view.waiting),
            )
        };
        for place in places.values() {
            place.lose();
        }
        for waiter in waiters.into_values() {
            let _ = waiter.reply.send(Err(AdmitError::Unreachable(
                "this host's lease on the fleet ran out while the session waited".into(),
            )));
        }
    }

    /// Forget the connection after a failure that closed it; what failed, in words.
    fn failed(&mut self, failure: &Failure) -> String {
        if self.client.as_ref().is_some_and(Client::is_closed) {
            self.client = None;
        }
        match failure {
            Failure::Database(error) => described(error),
            Failure::OutOfReach => format!(
                "the fleet's database is out of reach (the last try to connect: {}); it is tried \
                 again at every renewal of the lease",
                self.last_connect_error
            ),
        }
    }

    async fn tick(&mut self) {
        let renewed = match self.client.as_ref().is_some_and(|c| !c.is_closed()) {
            true => self.renew().await,
            false => self.connected().await,
        };
        if let Err(error) = renewed {
            self.failed(&error);
            return;
        }
        if let Err(error) = self.settle().await {
            self.failed(&error);
            return;
        }
        if let Err(error) = self.serve().await {
            self.failed(&error);
            return;
        }
        if let Err(error) = self.refresh_spending().await {
            self.failed(&error);
        }
    }

    /// Give back the places and make the charges the database could not take before.
    async fn settle(&mut self) -> Result<(), Failure> {
        self.connected().await?;
        while let Some(place) = self.frees.pop() {
            if let Err(error) = sql::leave(self.db(), &self.schema, &self.me, &place).await {
                self.frees.push(place);
                return Err(error.into());
            }
        }
        while let Some((key, cost)) = self.charges.pop_front() {
            if let Err(error) = self.charge_now(&key, &cost).await {
                self.charges.push_front((key, cost));
                return Err(error);
            }
        }
        Ok(())
    }

    /// Give free places (the fleet's limit, the fair queue), and hand this host's the ones it
    /// was given.
    async fn serve(&mut self) -> Result<(), Failure> {
        let fleet = self.host.fleet.clone();
        let schema = self.schema.clone();
        self.connected().await?;
        let client = self.client.as_mut().expect("connected");
        sql::grant(client, &schema, &fleet).await?;
        self.collect().await
    }

    /// Hand this host's waiters the places they were given.
    async fn collect(&mut self) -> Result<(), Failure> {
        self.connected().await?;
        let granted = sql::take_grants(self.db(), &self.schema, &self.me).await?;
        let mut view = self.view();
        for place in granted {
            let Some(waiter) = view.waiting.remove(&place) else {
                // Its waiter left as it was given: the `Free` on its way frees it.
                continue;
            };
            let state = Arc::new(PlaceState {
                id: place.clone(),
                key: waiter.key,
                signals: Mutex::new(Signals::default()),
            });
            if let Some(report) = view.levels.get(&state.key) {
                state.tell(report);
            }
            view.places.insert(place, state.clone());
            // A waiter gone by now sent a `Free`, which frees the place.
            let _ = waiter.reply.send(Ok(state));
        }
        Ok(())
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Admit { key, place, reply } => {
                if let Err(error) = self.admit(key, place.clone(), reply).await {
                    let message = self.failed(&error);
                    if let Some(waiter) = self.view().waiting.remove(&place) {
                        let _ = waiter.reply.send(Err(AdmitError::Unreachable(message)));
                    }
                }
            }
            Command::Free { place } => {
                {
                    let mut view = self.view();
                    view.waiting.remove(&place);
                    view.places.remove(&place);
                }
                // Queued first: held under a lease this host renews, a place the database does
                // not take back now is given back at a later renewal.
                self.frees.push(place);
                let freed = async {
                    self.settle().await?;
                    self.serve().await
                };
                if let Err(error) = freed.await {
                    self.failed(&error);
                }
            }
            Command::Turn { place, running } => {
                let told = async {
                    self.connected().await?;
                    Ok::<_, Failure>(
                        sql::turn_running(self.db(), &self.schema, &self.me, &place, running)
                            .await?,
                    )
                };
                if let Err(error) = told.await {
                    self.failed(&error);
                }
            }
            Command::Bind { place, session_id } => {
                let bound = async {
                    self.connected().await?;
                    Ok::<_, Failure>(
                        sql::bind(self.db(), &self.schema, &self.me, &place, &session_id).await?,
                    )
                };
                if let Err(error) = bound.await {
                    self.failed(&error);
                }
            }
            Command::Charge { key, cost } => {
                // Queued first, and made in order: one the database does not take now is made
                // at a later renewal.
                self.charges.push_back((key, cost));
                if let Err(error) = self.settle().await {
                    self.failed(&error);
                }
            }
            Command::Orphans { reply } => {
                let orphans = async {
                    self.connected().await?;
                    Ok::<_, Failure>(sql::orphans(self.db(), &self.schema, &self.host.fleet).await?)
                };
                let result = orphans
                    .await
                    .map_err(|e| StoreError::backend(self.failed(&e)));
                let _ = reply.send(result.map(|orphans| {
                    orphans
                        .into_iter()
                        .map(|o| Orphan {
                            place: o.place,
                            session_id: o.session_id,
                            key: o.key,
                            host: o.host,
                            cut_off_turn: o.cut_off_turn,
                        })
                        .collect()
                }));
            }
            Command::Flush { reply } => {
                let result = self
                    .settle()
                    .await
                    .map_err(|e| StoreError::backend(self.failed(&e)));
                let _ = reply.send(result);
            }
            Command::Spending { reply } => {
                let result = self
                    .all_spending()
                    .await
                    .map_err(|e| StoreError::backend(self.failed(&e)));
                let _ = reply.send(result);
            }
            Command::TakeOver { place, reply } => {
                let taken = async {
                    self.connected().await?;
                    let client = self.client.as_mut().expect("connected");
                    Ok::<_, Failure>(sql::take_over(client, &self.schema, &self.me, &place).await?)
                };
                let result = taken
                    .await
                    .map_err(|e| StoreError::backend(self.failed(&e)));
                if matches!(result, Ok(Some(_))) {
                    if let Err(error) = self.serve().await {
                        self.failed(&error);
                    }
                }
                let _ = reply.send(result.map(|key| key.is_some()));
            }
        }
    }

    async fn admit(
        &mut self,
        key: String,
        place: String,
        reply: oneshot::Sender<Result<Arc<PlaceState>, AdmitError>>,
    ) -> Result<(), Failure> {
        let (schema, fleet) = (self.schema.clone(), self.host.fleet.clone());
        self.connected().await?;
        if let Some(budget) = self.host.limits.budget_per_key {
            if let Some((spent, Some(BudgetLevel::Exceeded))) =
                sql::spending(self.db(), &schema, &fleet, &key).await?
            {
                let report = BudgetReport {
                    scope: BudgetScope::Key(key),
                    level: BudgetLevel::Exceeded,
                    budget,
                    spent,
                };
                let _ = reply.send(Err(AdmitError::OverBudget(Box::new(report))));
                return Ok(());
            }
        }
        self.view().waiting.insert(
            place.clone(),
            Waiter {
                key: key.clone(),
                reply,
            },
        );
        sql::enqueue(self.db(), &schema, &self.me, &key, &place).await?;
        self.serve().await
    }

    async fn charge_now(&mut self, key: &str, cost: &TurnCost) -> Result<(), Failure> {
        let (schema, fleet) = (self.schema.clone(), self.host.fleet.clone());
        let budget = self.host.limits.budget_per_key;
        self.connected().await?;
        let client = self.client.as_mut().expect("connected");
        let (spent, crossed) = sql::charge(client, &schema, &fleet, key, cost, budget).await?;
        self.view().spent.insert(key.to_owned(), spent);
        if let (Some(level), Some(budget)) = (crossed, budget) {
            self.tell(key, level, budget, spent);
        }
        Ok(())
    }

    /// Tell this host's places of `key` that its budget reached `level`, and the places it
    /// gives later.
    fn tell(
        &self,
        key: &str,
        level: BudgetLevel,
        budget: claude_agent_core::cost::Budget,
        spent: Spent,
    ) {
        let report = BudgetReport {
            scope: BudgetScope::Key(key.to_owned()),
            level,
            budget,
            spent,
        };
        let mut view = self.view();
        for place in view.places.values().filter(|place| place.key == key) {
            place.tell(&report);
        }
        let known = view.levels.get(key).map(|known| known.level);
        if known < Some(level) {
            view.levels.insert(key.to_owned(), report);
        }
    }

    /// A notification: places were given (look for this host's), or a key crossed a level of its
    /// budget (tell this host's sessions of it).
    async fn heard(&mut self, note: Notification) {
        if note.channel() == sql::places_channel(&self.host.fleet) {
            // Places were given by another host: this one's waiters may have some. (Places
            // freed by a host that died are given at the next renewal of any host.)
            if self.view().waiting.is_empty() {
                return;
            }
            if let Err(error) = self.collect().await {
                self.failed(&error);
            }
            return;
        }
        let key = note.payload().to_owned();
        let Some(budget) = self.host.limits.budget_per_key else {
            return;
        };
        let read = async {
            self.connected().await?;
            Ok::<_, Failure>(sql::spending(self.db(), &self.schema, &self.host.fleet, &key).await?)
        };
        match read.await {
            Ok(Some((spent, Some(level)))) => {
                self.view().spent.insert(key.clone(), spent);
                self.tell(&key, level, budget, spent);
            }
            Ok(_) => {}
            Err(error) => {
                self.failed(&error);
            }
        }
    }

    /// Read again what the keys of this host's sessions have spent on every host.
    async fn refresh_spending(&mut self) -> Result<(), Failure> {
        let keys: Vec<String> = {
            let view = self.view();
            let mut keys: Vec<String> = view.places.values().map(|p| p.key.clone()).collect();
            keys.extend(view.waiting.values().map(|w| w.key.clone()));
            keys.sort();
            keys.dedup();
            keys
        };
        if keys.is_empty() {
            return Ok(());
        }
        self.connected().await?;
        let read = sql::spending_by_key(self.db(), &self.schema, &self.host.fleet, Some(&keys));
        let read = read.await?;
        // A budget notice this host missed (its connection was down) is made up for here.
        for (key, spent, level) in read {
            if let (Some(level), Some(budget)) = (level, self.host.limits.budget_per_key) {
                self.tell(&key, level, budget, spent);
            }
            self.view().spent.insert(key, spent);
        }
        Ok(())
    }

    /// What every key of the fleet has spent, read now.
    async fn all_spending(&mut self) -> Result<Vec<(String, Spent)>, Failure> {
        self.connected().await?;
        let read = sql::spending_by_key(self.db(), &self.schema, &self.host.fleet, None);
        let all: Vec<(String, Spent)> = read
            .await?
            .into_iter()
            .map(|(key, spent, _)| (key, spent))
            .collect();
        self.view().spent.extend(all.iter().cloned());
        Ok(all)
    }
}

/// The lease of a fleet host, as a store fenced by it checks it before each append
/// ([`PostgresSessionStore::fenced_by`](crate::PostgresSessionStore::fenced_by)).
#[derive(Clone)]
pub(crate) struct Fence {
    /// The ledger's schema, quoted.
    schema: String,
    /// The host's lease now (a new epoch each time it joins again).
    lease: Arc<Mutex<HostLease>>,
}

/// Why a fenced append may not be made.
pub(crate) enum Fenced {
    /// The host's lease ran out, or it joined again since: the message says so.
    Refused(String),
    /// The check itself failed.
    Failed(tokio_postgres::Error),
}

impl Fence {
    /// Inside the append's transaction: the host's lease is live, and stays so (its row is
    /// locked until the commit; a host taking a session over waits for it).
    pub(crate) async fn check(&self, client: &Client) -> Result<(), Fenced> {
        let lease = self
            .lease
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let live = client
            .query_opt(
                &format!(
                    "SELECT 1 FROM {}.fleet_hosts
                     WHERE fleet = $1 AND host = $2 AND epoch = $3
                     AND lease_until > clock_timestamp()
                     FOR SHARE",
                    self.schema
                ),
                &[&lease.fleet, &lease.host, &lease.epoch],
            )
            .await
            .map_err(Fenced::Failed)?;
        match live {
            Some(_) => Ok(()),
            None => Err(Fenced::Refused(format!(
                "host {} of fleet {} holds no live lease (it was frozen or cut off past it, and \
                 another host may hold its sessions): nothing more of its sessions is stored",
                lease.host, lease.fleet
            ))),
        }
    }
}
