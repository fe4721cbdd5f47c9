//! The ledger's task: it owns the connection, runs every statement, renews the lease, and tells
//! this host's places and waiters what the database decided.
//!
//! What the sessions hand it without waiting (charges, places given back, session ids, turns)
//! is queued, and leaves its queue only once its statement committed: a statement cut off by a
//! lost connection or a time limit is made again later, and a charge carries an id, so one made
//! again after its commit went unanswered counts once. One the database refuses for good (not
//! a lost connection, a time limit or a lock) is dropped and reported by `flush`, so that it
//! never holds the others up.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use claude_agent_client::AdmitError;
use claude_agent_core::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, Spent, TurnCost};
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{Client, Config, Notification};
use tokio_postgres_rustls::MakeRustlsConnect;

use claude_agent_store_postgres::__private::described;

use super::clock::LeaseClock;
use super::{
    listen, lose_all, Command, FleetHost, LeaseFence, LedgerError, Orphan, PlaceState, Signals,
    View, Waiter, SUPERSEDED,
};
use crate::statements::{self as sql, HostLease, Renewal};

/// The most commands handled together (`Worker::handle_all`).
const MOST_TOGETHER: usize = 1024;

/// The shortest wait between two tries to connect.
const FIRST_RETRY: Duration = Duration::from_millis(50);

/// What a waiter is told when this host's lease was found gone.
const EXPIRED: &str = "this host's lease on the fleet ran out (it was frozen or cut off past it) \
     while the session waited";

/// What the ledger's task starts with.
pub(super) struct Parts {
    pub(super) host: FleetHost,
    pub(super) fence: LeaseFence,
    pub(super) clock: Arc<LeaseClock>,
    /// The host's schema, quoted.
    pub(super) schema: String,
    pub(super) config: Config,
    pub(super) tls: MakeRustlsConnect,
    pub(super) runtime: tokio::runtime::Handle,
    pub(super) client: Client,
    pub(super) notes: mpsc::UnboundedReceiver<Notification>,
    pub(super) me: HostLease,
    pub(super) view: Arc<Mutex<View>>,
    /// The ledger's handles, not kept alive by the worker.
    pub(super) handles: mpsc::WeakUnboundedSender<Command>,
}

pub(super) struct Worker {
    host: FleetHost,
    /// The host's schema, quoted.
    schema: String,
    /// The lease a fenced store's appends need: the worker's, as it joins again.
    fence: LeaseFence,
    clock: Arc<LeaseClock>,
    config: Config,
    tls: MakeRustlsConnect,
    runtime: tokio::runtime::Handle,
    /// `None` while the database is out of reach.
    client: Option<Client>,
    notes: mpsc::UnboundedReceiver<Notification>,
    me: HostLease,
    view: Arc<Mutex<View>>,
    /// The ledger's handles: once none is left, the host is leaving.
    handles: mpsc::WeakUnboundedSender<Command>,
    /// Charges not committed yet, in order.
    charges: VecDeque<Charge>,
    /// Places given back, not committed yet.
    frees: VecDeque<String>,
    /// What the sessions said of their places (ids, turns), not committed yet: the latest
    /// of each place.
    updates: BTreeMap<String, PlaceUpdate>,
    /// Charges the database refused for good, for `flush` to report.
    refused: Vec<String>,
    /// Another process joined under this host's name: this one stopped.
    superseded: bool,
    /// No try to connect again before this (while the database is out of reach, a statement
    /// fails at once).
    next_attempt: Instant,
    /// The wait after the next failed try, doubled at each failure up to an eighth of a lease.
    backoff: Duration,
    /// Why the last try to connect failed, for the sessions told the database is out of reach.
    last_connect_error: String,
    /// When to sweep the rows no host can use any more.
    next_sweep: Instant,
    /// When the database last answered: the task's patience counts from there.
    progress: Arc<Progress>,
    /// When the last renewal that succeeded was sent.
    renewed_at: Instant,
}

/// When the database last answered the ledger's task.
struct Progress(Mutex<Instant>);

impl Progress {
    fn stamp(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    fn last(&self) -> Instant {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `work`'s output, or `None` once the database answered nothing for `patience`: a connection
/// that stalled (a partition dropping packets, a frozen server) is given up then. Work that
/// goes on answering (a long queue committed after an outage) is not cut short, however long
/// it takes in all.
async fn patiently<F: std::future::Future>(
    progress: &Progress,
    patience: Duration,
    work: F,
) -> Option<F::Output> {
    progress.stamp();
    let mut work = std::pin::pin!(work);
    loop {
        let silent_until = progress.last() + patience;
        tokio::select! {
            output = &mut work => return Some(output),
            () = tokio::time::sleep_until(silent_until.into()) => {
                if progress.last() + patience <= Instant::now() {
                    return None;
                }
            }
        }
    }
}

/// A turn's cost on its way to the database.
struct Charge {
    id: String,
    key: String,
    cost: TurnCost,
    /// Told once the charge is made (or dropped for good): the session's result waits for it.
    done: Option<oneshot::Sender<()>>,
}

/// What a session said of its place since the last commit.
#[derive(Default)]
struct PlaceUpdate {
    session_id: Option<String>,
    in_turn: Option<bool>,
}

/// Why a statement of the ledger's task did not run.
enum Failure {
    /// The database refused it, or the connection failed under it.
    Database(tokio_postgres::Error),
    /// The database is out of reach: the last try to connect failed.
    OutOfReach,
    /// Another process holds this host's name now.
    Superseded,
}

impl From<tokio_postgres::Error> for Failure {
    fn from(error: tokio_postgres::Error) -> Failure {
        Failure::Database(error)
    }
}

/// Whether the database refused a statement for good: its error is neither a lost connection,
/// nor a time limit or a lock it could not get, nor a shutdown, which a later try may pass.
fn refused_for_good(error: &tokio_postgres::Error) -> bool {
    let Some(db) = error.as_db_error() else {
        return false;
    };
    let code = db.code().code();
    let transient = ["08", "40", "53", "57"]
        .iter()
        .any(|class| code.starts_with(class))
        || ["55P03", "25P03"].contains(&code);
    !transient
}

impl Worker {
    pub(super) fn new(parts: Parts) -> Worker {
        let now = Instant::now();
        Worker {
            host: parts.host,
            schema: parts.schema,
            fence: parts.fence,
            clock: parts.clock,
            config: parts.config,
            tls: parts.tls,
            runtime: parts.runtime,
            client: Some(parts.client),
            notes: parts.notes,
            me: parts.me,
            view: parts.view,
            handles: parts.handles,
            charges: VecDeque::new(),
            frees: VecDeque::new(),
            updates: BTreeMap::new(),
            refused: Vec::new(),
            superseded: false,
            next_attempt: now,
            backoff: FIRST_RETRY,
            last_connect_error: String::new(),
            next_sweep: now,
            progress: Arc::new(Progress(Mutex::new(now))),
            renewed_at: now,
        }
    }

    pub(super) async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        let mut tick = tokio::time::interval(self.host.lease / 4);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // A database that does not answer (a half-open connection, a partition dropping
        // packets) holds the task no longer than this; the host's own clock ends its places in
        // time whatever the task waits for (`clock::watch`).
        let patience = self.host.lease / 2;
        let progress = self.progress.clone();
        loop {
            let out_of_reach = self.client.is_none() && !self.superseded;
            let retry = tokio::time::sleep_until(self.next_attempt.into());
            let answered = tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => {
                        let mut together = vec![command];
                        while together.len() < MOST_TOGETHER {
                            let Ok(command) = commands.try_recv() else { break };
                            together.push(command);
                        }
                        patiently(&progress, patience, self.handle_all(together)).await
                    }
                    None => break,
                },
                Some(note) = self.notes.recv() => {
                    patiently(&progress, patience, self.heard(note)).await
                }
                _ = tick.tick() => patiently(&progress, patience, self.tick()).await,
                // Out of reach, the database is tried again as soon as the back-off allows: a
                // restart shorter than the lease costs no place.
                () = retry, if out_of_reach => {
                    patiently(&progress, patience, self.tick()).await
                }
            };
            if answered.is_none() {
                self.unanswered(patience);
            }
        }
        // Every handle is gone, and with them every place: what the database could not take
        // yet is tried once more (`flush` is how a host makes sure of it). Then the host leaves
        // the fleet, rather than hold its lease, and the limits it joined with, for nobody.
        if let Some(Err(error)) = patiently(&progress, patience, self.leave()).await {
            self.failed(&error);
        }
        self.clock.stop();
    }

    fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Open the connection again if it was lost (when the back-off allows); a lease found gone
    /// on the way loses this host's places and joins again.
    async fn connected(&mut self) -> Result<(), Failure> {
        if self.superseded {
            return Err(Failure::Superseded);
        }
        if self.client.as_ref().is_some_and(|c| !c.is_closed()) {
            // However long the work between two ticks (a long queue after an outage), the
            // lease is renewed in time: work never lets it run out.
            if Instant::now() >= self.renewed_at + self.host.lease / 4 {
                return self.renew().await;
            }
            return Ok(());
        }
        self.client = None;
        if Instant::now() < self.next_attempt {
            return Err(Failure::OutOfReach);
        }
        let opened = listen(&self.config, self.tls.clone(), &self.runtime, &self.host).await;
        // Timed from the try's end: a try that hangs for its whole time limit is not made again
        // at once by the next statement.
        self.next_attempt = Instant::now() + self.backoff;
        match opened {
            Err(error) => {
                self.last_connect_error = described(&error);
                self.backoff = (self.backoff * 2).min(self.host.lease / 8).max(FIRST_RETRY);
                Err(error.into())
            }
            Ok((client, notes)) => {
                self.answered();
                self.backoff = FIRST_RETRY;
                self.notes = notes;
                self.client = Some(client);
                self.renew().await
            }
        }
    }

    /// A statement got no answer within `patience`: the connection is given up (another is
    /// opened as the back-off allows), and the sessions waiting for a place are told, since
    /// what the database made of their tickets is not known. (What is queued stays queued.)
    fn unanswered(&mut self, patience: Duration) {
        self.client = None;
        self.next_attempt = Instant::now() + self.backoff;
        self.last_connect_error = format!("the database did not answer within {patience:?}");
        let waiters = std::mem::take(&mut self.view().waiting);
        for waiter in waiters.into_values() {
            let _ = waiter.reply.send(Err(AdmitError::Unreachable(format!(
                "the fleet's database did not answer within {patience:?}"
            ))));
        }
    }

    /// The open connection ([`Worker::connected`] first).
    fn db(&self) -> &Client {
        self.client.as_ref().expect("connected first")
    }

    /// Renew the lease. Found gone, every place is lost and the host joins again under a new
    /// epoch, unless it is leaving; found taken by another process of the same name, the host
    /// stops for good.
    async fn renew(&mut self) -> Result<(), Failure> {
        let sent = Instant::now();
        match sql::renew(self.db(), &self.schema, &self.me, self.host.lease).await? {
            Renewal::Renewed => {}
            // Every handle is gone: joining again would keep a lease (and the fleet's limits,
            // which a host joining with others is refused over) for nobody until it ran out.
            // What is left to settle needs no lease: charges are the keys', and the places
            // are orphans already.
            Renewal::Expired if self.handles.strong_count() == 0 => {
                lose_all(&self.view, EXPIRED);
                self.renewed_at = sent;
                self.answered();
                return Ok(());
            }
            Renewal::Expired => {
                lose_all(&self.view, EXPIRED);
                let host = &self.host;
                self.me =
                    sql::join(self.db(), &self.schema, &host.fleet, &host.host, host.lease).await?;
                self.fence.rejoined(self.me.clone());
            }
            Renewal::Superseded => {
                self.superseded = true;
                lose_all(&self.view, SUPERSEDED);
                return Err(Failure::Superseded);
            }
        }
        self.clock.renewed(sent);
        self.renewed_at = sent;
        self.answered();
        if Instant::now() >= self.next_sweep {
            self.next_sweep = Instant::now() + self.host.lease;
            sql::sweep(self.db(), &self.schema, &self.host.fleet).await?;
        }
        Ok(())
    }

    /// The database answered a statement: the task's patience starts over.
    fn answered(&self) {
        self.progress.stamp();
    }

    /// What a caller is told of a failure ([`Worker::failed`] first).
    fn refusal(&mut self, failure: &Failure) -> LedgerError {
        let said = self.failed(failure);
        match failure {
            Failure::Superseded => LedgerError::Superseded,
            Failure::Database(error) if refused_for_good(error) => LedgerError::Refused(said),
            Failure::Database(_) | Failure::OutOfReach => LedgerError::Unreachable(said),
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
                 again within {:?}",
                self.last_connect_error,
                self.next_attempt.saturating_duration_since(Instant::now())
            ),
            Failure::Superseded => SUPERSEDED.to_owned(),
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

    /// The last handle is gone: settle what is queued, then end the lease.
    async fn leave(&mut self) -> Result<(), Failure> {
        self.settle().await?;
        self.connected().await?;
        sql::end_lease(self.db(), &self.schema, &self.me).await?;
        Ok(())
    }

    /// Commit what is queued, in order: the places' updates, the places given back, the
    /// charges. Each leaves its queue once its statement committed.
    async fn settle(&mut self) -> Result<(), Failure> {
        self.connected().await?;
        while let Some((place, update)) = self.updates.first_key_value() {
            let (place, session_id, in_turn) =
                (place.clone(), update.session_id.clone(), update.in_turn);
            self.connected().await?;
            let made = async {
                if let Some(session_id) = &session_id {
                    sql::bind(self.db(), &self.schema, &self.me, &place, session_id).await?;
                }
                if let Some(running) = in_turn {
                    sql::turn_running(self.db(), &self.schema, &self.me, &place, running).await?;
                }
                Ok::<_, tokio_postgres::Error>(())
            };
            match made.await {
                Ok(()) => {}
                Err(error) if refused_for_good(&error) => {}
                Err(error) => return Err(error.into()),
            }
            self.updates.remove(&place);
            self.answered();
        }
        if !self.frees.is_empty() {
            let places: Vec<String> = self.frees.iter().cloned().collect();
            sql::leave(self.db(), &self.schema, &self.me, &places).await?;
            self.frees.drain(..places.len());
            self.answered();
        }
        while let Some(charge) = self.charges.front() {
            let (id, key, cost) = (charge.id.clone(), charge.key.clone(), charge.cost.clone());
            self.connected().await?;
            match self.charge_now(&id, &key, &cost).await {
                Ok(()) => {}
                Err(Failure::Database(error)) if refused_for_good(&error) => {
                    self.refused.push(format!(
                        "a charge of key {key:?} (${:.4}): {}",
                        cost.usd().unwrap_or_default(),
                        described(&error)
                    ));
                }
                Err(error) => return Err(error),
            }
            if let Some(done) = self.charges.pop_front().and_then(|charge| charge.done) {
                let _ = done.send(());
            }
            self.answered();
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
        self.answered();
        self.collect().await
    }

    /// Hand this host's waiters the places they were given.
    async fn collect(&mut self) -> Result<(), Failure> {
        self.connected().await?;
        let granted = sql::take_grants(self.db(), &self.schema, &self.me).await?;
        let epoch = self.me.epoch;
        let mut view = self.view();
        for place in granted {
            let Some(waiter) = view.waiting.remove(&place) else {
                // Its waiter left as it was given: the `Free` on its way frees it.
                continue;
            };
            let state = Arc::new(PlaceState {
                id: place.clone(),
                key: waiter.key,
                epoch,
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

    /// Commands that came together, handled as one. What only queues something (charges,
    /// places given back, what sessions said of their places) is queued; a place asked for by
    /// a session already gone is not asked for; and the queues are committed, and free places
    /// given, once for them all. A burst (thousands of sessions that came and went while the
    /// database was out of reach) costs a few statements, not thousands.
    pub(super) async fn handle_all(&mut self, commands: Vec<Command>) {
        let (mut settle, mut serve) = (false, false);
        for command in commands {
            match command {
                Command::Admit { reply, .. } if reply.is_closed() => {}
                Command::Admit { key, place, reply } => {
                    self.admit(key, place, reply).await;
                    serve = true;
                }
                Command::Free { place } => {
                    {
                        let mut view = self.view();
                        view.waiting.remove(&place);
                        view.places.remove(&place);
                    }
                    // Queued first: held under a lease this host renews, a place the
                    // database does not take back now is given back at a later renewal.
                    self.updates.remove(&place);
                    self.frees.push_back(place);
                    (settle, serve) = (true, true);
                }
                Command::Turn { place, running } => {
                    self.updates.entry(place).or_default().in_turn = Some(running);
                    settle = true;
                }
                Command::Bind { place, session_id } => {
                    self.updates.entry(place).or_default().session_id = Some(session_id);
                    settle = true;
                }
                Command::Charge {
                    id,
                    key,
                    cost,
                    done,
                } => {
                    // Queued first, and made in order: one the database does not take now is
                    // made at a later renewal.
                    self.charges.push_back(Charge {
                        id,
                        key,
                        cost,
                        done: Some(done),
                    });
                    settle = true;
                }
                Command::Orphans { reply } => {
                    let _ = reply.send(self.orphans().await);
                }
                Command::Flush { reply } => {
                    let _ = reply.send(self.flush().await);
                }
                Command::Spending { reply } => {
                    let spending = self.all_spending().await;
                    let _ = reply.send(spending.map_err(|e| self.refusal(&e)));
                }
                Command::TakeOver { place, reply } => {
                    let _ = reply.send(self.take_over(&place).await);
                }
            }
        }
        let done = async {
            if settle {
                self.settle().await?;
            }
            if serve {
                self.serve().await?;
            }
            Ok(())
        };
        if let Err(error) = done.await {
            self.failed(&error);
        }
    }

    /// The fleet's orphans, for a host that may take one over.
    async fn orphans(&mut self) -> Result<Vec<Orphan>, LedgerError> {
        let orphans = async {
            self.connected().await?;
            Ok::<_, Failure>(sql::orphans(self.db(), &self.schema, &self.host.fleet).await?)
        };
        let orphans = orphans.await.map_err(|e| self.refusal(&e))?;
        Ok(orphans
            .into_iter()
            .map(|o| Orphan {
                place: o.place,
                session_id: o.session_id,
                key: o.key,
                host: o.host,
                cut_off_turn: o.cut_off_turn,
            })
            .collect())
    }

    /// Everything queued committed, and what the database refused for good since the last
    /// flush reported.
    async fn flush(&mut self) -> Result<(), LedgerError> {
        match self.settle().await {
            Ok(()) if self.refused.is_empty() => Ok(()),
            Ok(()) => Err(LedgerError::Refused(
                std::mem::take(&mut self.refused).join("; "),
            )),
            Err(error) => Err(self.refusal(&error)),
        }
    }

    /// Claim an orphan for this host: whether it was this host's to take.
    async fn take_over(&mut self, place: &str) -> Result<bool, LedgerError> {
        let taken = async {
            self.connected().await?;
            let client = self.client.as_mut().expect("connected");
            Ok::<_, Failure>(sql::take_over(client, &self.schema, &self.me, place).await?)
        };
        let taken = taken.await.map_err(|e| self.refusal(&e))?;
        Ok(taken.is_some())
    }

    /// A session asks for a place: refused at once when its key's budget is spent, or when the
    /// database cannot take its ticket (with the reason); otherwise it waits, even through a
    /// grant that fails (a lock held by a frozen host, a connection lost meanwhile): the
    /// renewals give places again.
    async fn admit(
        &mut self,
        key: String,
        place: String,
        reply: oneshot::Sender<Result<Arc<PlaceState>, AdmitError>>,
    ) {
        // Waiting from now on: a database that does not answer in time tells it why
        // (`Worker::unanswered`).
        self.view().waiting.insert(
            place.clone(),
            Waiter {
                key: key.clone(),
                reply,
            },
        );
        let refused = match self.ticket(&key, &place).await {
            // Places are given once the commands that came with this one are handled.
            Ok(None) => return,
            Ok(Some(report)) => AdmitError::OverBudget(Box::new(report)),
            Err(error) => AdmitError::Unreachable(self.failed(&error)),
        };
        if let Some(waiter) = self.view().waiting.remove(&place) {
            let _ = waiter.reply.send(Err(refused));
        }
    }

    /// The key's budget checked and the place asked for: the report of a spent budget, or
    /// `None` once the ticket is in the queue.
    async fn ticket(&mut self, key: &str, place: &str) -> Result<Option<BudgetReport>, Failure> {
        self.connected().await?;
        if let Some(budget) = self.host.limits.budget_per_key {
            if let Some((spent, Some(BudgetLevel::Exceeded))) =
                sql::spending(self.db(), &self.schema, &self.host.fleet, key).await?
            {
                return Ok(Some(BudgetReport {
                    scope: BudgetScope::Key(key.to_owned()),
                    level: BudgetLevel::Exceeded,
                    budget,
                    spent,
                }));
            }
        }
        sql::enqueue(self.db(), &self.schema, &self.me, key, place).await?;
        Ok(None)
    }

    async fn charge_now(&mut self, id: &str, key: &str, cost: &TurnCost) -> Result<(), Failure> {
        let (schema, fleet) = (self.schema.clone(), self.host.fleet.clone());
        let budget = self.host.limits.budget_per_key;
        self.connected().await?;
        let client = self.client.as_mut().expect("connected");
        let (spent, crossed) = sql::charge(client, &schema, &fleet, id, key, cost, budget).await?;
        self.view().spent.insert(key.to_owned(), spent);
        if let (Some(level), Some(budget)) = (crossed, budget) {
            self.tell(key, level, budget, spent);
        }
        Ok(())
    }

    /// Tell this host's places of `key` that its budget reached `level`, and the places it
    /// gives later.
    fn tell(&self, key: &str, level: BudgetLevel, budget: Budget, spent: Spent) {
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
        let Some(budget) = self.host.limits.budget_per_key else {
            return;
        };
        let digest = note.payload().to_owned();
        let read = async {
            self.connected().await?;
            Ok::<_, Failure>(
                sql::spending_of_digest(self.db(), &self.schema, &self.host.fleet, &digest).await?,
            )
        };
        match read.await {
            Ok(Some((key, spent, Some(level)))) => {
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
