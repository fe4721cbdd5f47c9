//! Many sessions on one host: how many CLIs run at once, what each key (a tenant, a user) has
//! spent, and each key's budget.

mod admission;
mod ledger;
mod shared;

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};

use crate::cost::{Budget, BudgetLevel, BudgetReport, Spent, TurnCost};
use crate::error::FleetError;
use crate::task::message_queue::Link;
use admission::{Admission, MemoryLimit, Permit};
use ledger::{Ledger, Signal};
pub use shared::{AdmitError, AdmitFuture, ChargeFuture, SharedLedger, SharedPlace};

/// The limits a [`Fleet`] keeps.
///
/// ```
/// use claude_agent_tokio::{Fleet, FleetLimits};
/// use claude_agent_tokio::cost::Budget;
///
/// let limits = FleetLimits {
///     max_sessions: Some(8),
///     max_resident_bytes: Some(4 << 30),
///     budget_per_key: Some(Budget::usd(20.0)),
/// };
/// assert_eq!(FleetLimits::default().max_sessions, None);
/// assert!(Fleet::new(limits).is_ok());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FleetLimits {
    /// The most sessions with a CLI at once (spares of a [`SparePool`] count); the others wait
    /// in a fair queue. `None`: no limit; `Some(0)` is refused ([`FleetLimitsError`]).
    ///
    /// [`SparePool`]: crate::SparePool
    pub max_sessions: Option<usize>,
    /// The most memory the fleet's CLIs may hold when another starts: a session starts only
    /// while the running CLIs' trees (each CLI and everything it started) hold less than this in
    /// resident memory, and one at a time, each once the one before has started (what a
    /// starting CLI will hold is not known yet). Checked just before a session's CLI starts
    /// (after its place is given and a session store read for it) and whenever one ends or
    /// starts; Linux only (elsewhere nothing is counted). `None`: no limit.
    pub max_resident_bytes: Option<u64>,
    /// Each key's spending limit, over all its sessions, counted at each turn's end: crossing
    /// its warning share brings a notice to each live session of the key; reaching it
    /// interrupts and closes them all (`Error::OverBudget`), and refuses the key's new sessions.
    pub budget_per_key: Option<Budget>,
}

/// Why [`Fleet::new`] refused its limits: a limit no session could ever start under, or a
/// budget that limits nothing.
///
/// ```
/// use claude_agent_tokio::{Fleet, FleetLimits, FleetLimitsError};
///
/// let refused = Fleet::new(FleetLimits { max_sessions: Some(0), ..FleetLimits::default() });
/// assert!(matches!(refused, Err(FleetLimitsError::NoSessions)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FleetLimitsError {
    /// `max_sessions` is `Some(0)`: no session could ever start (`None` is no limit).
    #[error(
        "FleetLimits::max_sessions is 0, so no session could ever start; use None for no limit"
    )]
    NoSessions,
    /// `max_resident_bytes` is `Some(0)` (`None` is no limit).
    #[error("FleetLimits::max_resident_bytes is 0; use None for no limit")]
    NoMemory,
    /// `budget_per_key` limits nothing, or not by a number: no limit, a limit that is not a
    /// positive, finite number, or a warning share outside (0, 1] ([`Budget::is_usable`]).
    #[error(
        "FleetLimits::budget_per_key limits nothing: give a positive, finite max_usd or a \
         positive max_tokens, and a warn_at above 0 and at most 1"
    )]
    UnusableBudget,
}

/// Sessions of one host that share limits: at most [`FleetLimits::max_sessions`] CLIs at once,
/// with the others waiting their turn, and what each key has spent against its budget. Clones
/// share the fleet; give each session a [`FleetMember`] ([`Fleet::member`]) through
/// `Options::fleet`.
///
/// The queue is fair between keys: a key with many waiting sessions does not hold up another
/// key's; each key's sessions start in the order they were asked for. A session waits for its
/// place before anything else (before a session store is read, before the CLI starts), holds it
/// until its CLI has exited, and leaves the queue when its handle (the `Query`, the `connect`
/// future, the `Client`) is dropped while it waits. The spares of a `SparePool` whose options
/// have a member hold places too. With [`FleetLimits::max_resident_bytes`], a session with its
/// place waits once more, just before its CLI starts, for memory (in a queue as fair).
///
/// ```
/// use claude_agent_tokio::{Fleet, FleetLimits};
/// use claude_agent_tokio::cost::Budget;
/// use claude_agent_tokio::Options;
///
/// let fleet = Fleet::new(FleetLimits {
///     max_sessions: Some(4),
///     budget_per_key: Some(Budget::usd(5.0)),
///     ..FleetLimits::default()
/// })?;
/// let for_tenant = |tenant: &str| Options::new().fleet(fleet.member(tenant));
/// let options = for_tenant("tenant-42");
/// assert_eq!((fleet.running(), fleet.waiting()), (0, 0));
/// # let _ = options;
/// # Ok::<(), claude_agent_tokio::FleetLimitsError>(())
/// ```
#[derive(Clone)]
pub struct Fleet {
    shared: Arc<Shared>,
}

struct Shared {
    /// Tells this fleet from every other of the process (a pool keeps spares per fleet).
    id: u64,
    limits: FleetLimits,
    /// The places: at most `max_sessions` at once.
    admission: Option<Arc<Admission>>,
    /// The memory limit: a session with its place waits here just before its CLI starts (not
    /// while a store is read for it), one CLI starting at a time.
    launch: Option<Arc<Admission>>,
    ledger: Ledger,
    /// The ledger the fleet's hosts share ([`Fleet::shared`]): it keeps the places and the
    /// spending instead of `admission` and `ledger`.
    shared_ledger: Option<Arc<dyn SharedLedger>>,
    /// The sessions that hold a place, to read what their CLIs hold.
    sessions: Arc<Sessions>,
}

/// The links of the fleet's sessions (each knows its CLI's pid while it runs).
#[derive(Default)]
struct Sessions(Mutex<Vec<Weak<Link>>>);

impl Sessions {
    fn join(&self, link: &Arc<Link>) {
        let mut links = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        links.retain(|link| link.strong_count() > 0);
        links.push(Arc::downgrade(link));
    }

    /// What the running CLIs' trees hold in resident memory now.
    fn resident_bytes(&self) -> u64 {
        let pids: Vec<u32> = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(|link| link.upgrade()?.process_id())
            .collect();
        crate::resident_of_trees(&pids)
    }
}

impl Fleet {
    /// A fleet keeping `limits`, refused when a limit could never be met or a budget limits
    /// nothing ([`FleetLimitsError`]).
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// let fleet = Fleet::new(FleetLimits { max_sessions: Some(16), ..FleetLimits::default() })?;
    /// assert_eq!(fleet.limits().max_sessions, Some(16));
    /// # Ok::<(), claude_agent_tokio::FleetLimitsError>(())
    /// ```
    pub fn new(limits: FleetLimits) -> Result<Fleet, FleetLimitsError> {
        Fleet::build(limits, None)
    }

    /// A fleet whose places, fair queue and spending are kept in `ledger`, which many hosts
    /// share: [`FleetLimits::max_sessions`] and [`FleetLimits::budget_per_key`] (the ledger's
    /// [`limits`](SharedLedger::limits)) hold across all of them, and each host keeps
    /// `max_resident_bytes` for its own CLIs. Everything else is as with [`Fleet::new`]: the
    /// same members, options and budget reports. A session that loses its place (its host's
    /// lease ran out) ends with [`FleetError::PlaceLost`](crate::FleetError::PlaceLost); one
    /// whose ledger cannot be reached never starts
    /// ([`FleetError::Unreachable`](crate::FleetError::Unreachable)).
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use claude_agent_tokio::{Fleet, Options, SharedLedger};
    ///
    /// fn fleet_of(ledger: Arc<dyn SharedLedger>) -> Result<Fleet, claude_agent_tokio::FleetLimitsError> {
    ///     let fleet = Fleet::shared(ledger)?;
    ///     let options = Options::new().fleet(fleet.member("tenant-42"));
    ///     # let _ = options;
    ///     Ok(fleet)
    /// }
    /// ```
    pub fn shared(ledger: Arc<dyn SharedLedger>) -> Result<Fleet, FleetLimitsError> {
        Fleet::build(ledger.limits(), Some(ledger))
    }

    fn build(
        limits: FleetLimits,
        shared_ledger: Option<Arc<dyn SharedLedger>>,
    ) -> Result<Fleet, FleetLimitsError> {
        if limits.max_sessions == Some(0) {
            return Err(FleetLimitsError::NoSessions);
        }
        if limits.max_resident_bytes == Some(0) {
            return Err(FleetLimitsError::NoMemory);
        }
        if limits
            .budget_per_key
            .is_some_and(|budget| !budget.is_usable())
        {
            return Err(FleetLimitsError::UnusableBudget);
        }
        let sessions = Arc::new(Sessions::default());
        let launch = limits.max_resident_bytes.map(|max| {
            let sessions = sessions.clone();
            let memory = MemoryLimit {
                max,
                resident: Box::new(move || sessions.resident_bytes()),
            };
            Admission::new(None, Some(memory))
        });
        let admission = limits
            .max_sessions
            .filter(|_| shared_ledger.is_none())
            .map(|max| Admission::new(Some(max), None));
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        Ok(Fleet {
            shared: Arc::new(Shared {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                limits,
                admission,
                launch,
                ledger: Ledger::new(limits.budget_per_key),
                shared_ledger,
                sessions,
            }),
        })
    }

    /// Whether the fleet's hosts share a ledger ([`Fleet::shared`]).
    pub(crate) fn is_shared(&self) -> bool {
        self.shared.shared_ledger.is_some()
    }

    /// What tells this fleet from every other of the process: clones share it.
    pub(crate) fn id(&self) -> u64 {
        self.shared.id
    }

    /// What the fleet's running CLIs hold in resident memory now: each CLI and everything it
    /// started (Linux; 0 elsewhere).
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// let fleet = Fleet::default();
    /// println!("{} MiB", fleet.resident_bytes() >> 20);
    /// ```
    pub fn resident_bytes(&self) -> u64 {
        self.shared.sessions.resident_bytes()
    }

    /// The limits it keeps.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// assert_eq!(Fleet::default().limits(), FleetLimits::default());
    /// ```
    pub fn limits(&self) -> FleetLimits {
        self.shared.limits
    }

    /// Membership for a session counted under `key` (a tenant, a user, a job): what it spends
    /// goes to that key, and it waits its turn in the key's queue.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    /// use claude_agent_tokio::Options;
    ///
    /// let fleet = Fleet::default();
    /// let options = Options::new().fleet(fleet.member("tenant-42"));
    /// # let _ = options;
    /// ```
    pub fn member(&self, key: impl Into<String>) -> FleetMember {
        FleetMember {
            fleet: self.clone(),
            key: key.into(),
        }
    }

    /// Sessions holding a place now (their CLI starting, running or exiting). Without a
    /// limit, always 0. With a [`SharedLedger`], this host's sessions.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// let fleet = Fleet::new(FleetLimits { max_sessions: Some(2), ..FleetLimits::default() })?;
    /// assert_eq!(fleet.running(), 0);
    /// # Ok::<(), claude_agent_tokio::FleetLimitsError>(())
    /// ```
    pub fn running(&self) -> usize {
        let shared = &self.shared;
        if let Some(ledger) = &shared.shared_ledger {
            return ledger.running();
        }
        match (&shared.admission, &shared.launch) {
            (Some(places), _) => places.running(),
            (None, Some(launch)) => launch.running(),
            (None, None) => 0,
        }
    }

    /// Sessions waiting: for a place, or (with a memory limit) for memory to start their CLI.
    /// With a [`SharedLedger`], this host's sessions.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// let fleet = Fleet::new(FleetLimits { max_sessions: Some(2), ..FleetLimits::default() })?;
    /// assert_eq!(fleet.waiting(), 0);
    /// # Ok::<(), claude_agent_tokio::FleetLimitsError>(())
    /// ```
    pub fn waiting(&self) -> usize {
        let shared = &self.shared;
        let queued = |queue: &Option<Arc<Admission>>| queue.as_ref().map_or(0, |q| q.waiting());
        let places = match &shared.shared_ledger {
            Some(ledger) => ledger.waiting(),
            None => queued(&shared.admission),
        };
        places + queued(&shared.launch)
    }

    /// What the sessions of `key` have spent: every turn's cost and tokens, as the sessions
    /// worked them out ([`TurnCost`](crate::cost::TurnCost)). With a [`SharedLedger`], on
    /// every host, as this host last learned it.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// let fleet = Fleet::default();
    /// let spent = fleet.spent("tenant-42");
    /// println!("${:.2} in {} turns", spent.usd, spent.turns);
    /// ```
    pub fn spent(&self, key: &str) -> Spent {
        match &self.shared.shared_ledger {
            Some(ledger) => ledger.spent(key),
            None => self.shared.ledger.spent(key),
        }
    }

    /// Every key with what it has spent, in key order.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// let fleet = Fleet::default();
    /// for (key, spent) in fleet.spent_by_key() {
    ///     println!("{key}: ${:.2}, {} tokens", spent.usd, spent.tokens.total());
    /// }
    /// ```
    pub fn spent_by_key(&self) -> Vec<(String, Spent)> {
        match &self.shared.shared_ledger {
            Some(ledger) => ledger.spent_by_key(),
            None => self.shared.ledger.all(),
        }
    }
}

/// A fleet with no limits: it counts what each key spends, and nothing waits.
///
/// ```
/// use claude_agent_tokio::{Fleet, FleetLimits};
///
/// assert_eq!(Fleet::default().limits(), FleetLimits::default());
/// ```
impl Default for Fleet {
    fn default() -> Fleet {
        Fleet::new(FleetLimits::default()).expect("no limits are always valid")
    }
}

impl fmt::Debug for Fleet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fleet")
            .field("limits", &self.shared.limits)
            .field("running", &self.running())
            .field("waiting", &self.waiting())
            .finish()
    }
}

/// A session's membership of a [`Fleet`], under a key ([`Fleet::member`]); given to
/// `Options::fleet`.
///
/// ```
/// use claude_agent_tokio::{Fleet, FleetLimits};
///
/// let member = Fleet::default().member("tenant-42");
/// assert_eq!(member.key(), "tenant-42");
/// ```
#[derive(Clone)]
pub struct FleetMember {
    fleet: Fleet,
    key: String,
}

impl FleetMember {
    /// The key its sessions count under.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// assert_eq!(Fleet::default().member("k").key(), "k");
    /// ```
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The fleet.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    ///
    /// let member = Fleet::default().member("k");
    /// assert_eq!(member.fleet().spent("k").turns, 0);
    /// ```
    pub fn fleet(&self) -> &Fleet {
        &self.fleet
    }

    /// A session's seat: refused when the key's budget is spent; otherwise once admitted, or
    /// `Ok(None)` when every handle of the session was dropped while it waited.
    pub(crate) async fn seat(&self, link: &Arc<Link>) -> Result<Option<Seat>, crate::Error> {
        let shared = &self.fleet.shared;
        let account = match &shared.shared_ledger {
            Some(ledger) => {
                let admitted = link.while_wanted(ledger.admit(&self.key)).await;
                match admitted {
                    None => return Ok(None),
                    Some(Ok(place)) => {
                        let place: Arc<dyn SharedPlace> = Arc::from(place);
                        link.watch_place(place.clone());
                        Account::Shared {
                            place,
                            session_id: Mutex::new(None),
                        }
                    }
                    Some(Err(AdmitError::OverBudget(report))) => {
                        return Err(crate::Error::OverBudget(report))
                    }
                    Some(Err(AdmitError::Unreachable(message))) => {
                        return Err(crate::Error::Fleet(FleetError::Unreachable(message)))
                    }
                }
            }
            None => {
                let signal = shared
                    .ledger
                    .join(&self.key)
                    .map_err(crate::Error::OverBudget)?;
                let place = match &shared.admission {
                    None => None,
                    Some(admission) => match wait_while_wanted(admission, &self.key, link).await {
                        Some(permit) => Some(permit),
                        None => return Ok(None),
                    },
                };
                Account::Local {
                    signal,
                    _place: place,
                }
            }
        };
        shared.sessions.join(link);
        let mut seat = Seat {
            fleet: self.fleet.clone(),
            key: self.key.clone(),
            account,
            launch: None,
            early: VecDeque::new(),
        };
        // The key may have crossed its budget while the session waited: it is refused now,
        // before its CLI starts and its prompt costs anything (the place goes back as the seat
        // is dropped).
        if let Some(report) = seat.over_budget_already() {
            return Err(crate::Error::OverBudget(report));
        }
        Ok(Some(seat))
    }
}

impl fmt::Debug for FleetMember {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FleetMember")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// A permit of `queue` for `key`; `None` when every handle of the session (`link`) is dropped
/// first.
async fn wait_while_wanted(queue: &Arc<Admission>, key: &str, link: &Link) -> Option<Permit> {
    link.while_wanted(queue.enter(key)).await
}

/// A running session's part in its fleet: its place and its launch (given back when the
/// session's task ends, once the CLI is gone), its key's account, and the key's budget reports.
pub(crate) struct Seat {
    fleet: Fleet,
    key: String,
    account: Account,
    /// With a memory limit: the go-ahead to start the CLI ([`Seat::launch`]).
    launch: Option<Permit>,
    /// Reports that came while the session waited for its place, not yet told to it.
    early: VecDeque<BudgetReport>,
}

/// Where a seat's place and spending are kept.
enum Account {
    /// In this process: the place (with a session limit) and the key's budget reports.
    Local {
        signal: Arc<Signal>,
        _place: Option<Permit>,
    },
    /// In a ledger the fleet's hosts share.
    Shared {
        place: Arc<dyn SharedPlace>,
        /// The session id last given to the place.
        session_id: Mutex<Option<String>>,
    },
}

impl Seat {
    /// Wait, with a memory limit, until the session's CLI may start: `false` when every handle
    /// of the session (`link`) was dropped first.
    pub(crate) async fn launch(&mut self, link: &Link) -> bool {
        let Some(gate) = &self.fleet.shared.launch else {
            return true;
        };
        match wait_while_wanted(gate, &self.key, link).await {
            Some(permit) => {
                self.launch = Some(permit);
                true
            }
            None => false,
        }
    }

    /// The session's CLI has started (its pid is on the link): the next CLI may start.
    pub(crate) fn started(&mut self) {
        if let Some(permit) = &mut self.launch {
            permit.started();
        }
    }

    /// A turn's cost goes to the key: one that ended, or one the session ended in. In this
    /// process the charge is made at once; a shared ledger's future is ready once it is made
    /// there (dropping it does not take the charge back).
    pub(crate) fn charge(&self, cost: &TurnCost) -> Option<ChargeFuture> {
        match &self.fleet.shared.shared_ledger {
            Some(ledger) => Some(ledger.charge(&self.key, cost)),
            None => {
                self.fleet.shared.ledger.turn(&self.key, cost);
                None
            }
        }
    }

    /// The session's id, from a message of its CLI: a shared ledger keeps it with the place,
    /// for a host that takes the session over.
    pub(crate) fn session_id(&self, session_id: &str) {
        let Account::Shared {
            place,
            session_id: known,
        } = &self.account
        else {
            return;
        };
        if session_id.is_empty() {
            return;
        }
        let mut known = known.lock().unwrap_or_else(PoisonError::into_inner);
        if known.as_deref() != Some(session_id) {
            *known = Some(session_id.to_owned());
            place.session_id(session_id);
        }
    }

    /// Whether the session is in a turn: a shared ledger keeps it with the place.
    pub(crate) fn turn_running(&self, running: bool) {
        if let Account::Shared { place, .. } = &self.account {
            place.turn_running(running);
        }
    }

    /// A budget report of the key for this session.
    pub(crate) fn poll_report(&mut self, cx: &mut Context<'_>) -> Poll<BudgetReport> {
        if let Some(report) = self.early.pop_front() {
            return Poll::Ready(report);
        }
        match &self.account {
            Account::Local { signal, .. } => signal.poll_report(cx),
            Account::Shared { place, .. } => place.poll_report(cx),
        }
    }

    /// The report of a budget the key exceeded while the session waited for its place, if it
    /// did; the warnings that came meanwhile are kept for the session.
    fn over_budget_already(&mut self) -> Option<Box<BudgetReport>> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut exceeded = None;
        while let Poll::Ready(report) = match &self.account {
            Account::Local { signal, .. } => signal.poll_report(&mut cx),
            Account::Shared { place, .. } => place.poll_report(&mut cx),
        } {
            if report.level >= BudgetLevel::Exceeded {
                exceeded = Some(Box::new(report));
            } else {
                self.early.push_back(report);
            }
        }
        exceeded
    }

    /// Ready once a shared ledger took the session's place away.
    pub(crate) fn poll_lost(&self, cx: &mut Context<'_>) -> Poll<()> {
        match &self.account {
            Account::Local { .. } => Poll::Pending,
            Account::Shared { place, .. } => place.poll_lost(cx),
        }
    }
}
