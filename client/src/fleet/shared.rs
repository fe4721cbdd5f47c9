//! A fleet whose limits many hosts share: the ledger that keeps them where every host sees it
//! (a database), and what a session holds of it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::cost::{BudgetReport, Spent, TurnCost};
use crate::FleetLimits;

/// The future a [`SharedLedger`] returns for a place.
pub type AdmitFuture =
    Pin<Box<dyn Future<Output = Result<Box<dyn SharedPlace>, AdmitError>> + Send>>;

/// The future a [`SharedLedger`] returns for a charge: ready once the charge is in the ledger
/// (or the ledger gave it up: refused for good, or gone). Dropping it does not take the charge
/// back.
pub type ChargeFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where the hosts of one fleet keep what must hold across all of them: the places (at most
/// [`FleetLimits::max_sessions`] sessions at once, on all hosts together), the fair queue
/// between keys, each key's spending against [`FleetLimits::budget_per_key`], and each host's
/// lease on the places it holds. Give one to [`Fleet::shared`](crate::Fleet::shared); the
/// fleet's API stays the same.
///
/// `claude-agent-fleet-postgres` has one on PostgreSQL (`PostgresFleetLedger`). Write your own
/// for another database: every decision that must hold across hosts (the last place, a budget
/// crossed) has to be one transaction there.
///
/// ```
/// use std::sync::Arc;
/// use std::task::{Context, Poll};
/// use claude_agent_tokio::cost::{BudgetReport, Spent, TurnCost};
/// use claude_agent_tokio::{AdmitError, AdmitFuture, ChargeFuture, Fleet, FleetLimits, SharedLedger, SharedPlace};
///
/// /// One host, no limit: a place for everybody, spending not kept.
/// struct Open;
///
/// struct Place;
///
/// impl SharedPlace for Place {
///     fn session_id(&self, _session_id: &str) {}
///     fn turn_running(&self, _running: bool) {}
///     fn poll_report(&self, _cx: &mut Context<'_>) -> Poll<BudgetReport> {
///         Poll::Pending
///     }
///     fn poll_lost(&self, _cx: &mut Context<'_>) -> Poll<()> {
///         Poll::Pending
///     }
/// }
///
/// impl SharedLedger for Open {
///     fn limits(&self) -> FleetLimits {
///         FleetLimits::default()
///     }
///     fn admit(&self, _key: &str) -> AdmitFuture {
///         Box::pin(async { Ok(Box::new(Place) as Box<dyn SharedPlace>) })
///     }
///     fn charge(&self, _key: &str, _cost: &TurnCost) -> ChargeFuture {
///         Box::pin(async {})
///     }
///     fn spent(&self, _key: &str) -> Spent {
///         Spent::default()
///     }
///     fn spent_by_key(&self) -> Vec<(String, Spent)> {
///         Vec::new()
///     }
///     fn running(&self) -> usize {
///         0
///     }
///     fn waiting(&self) -> usize {
///         0
///     }
/// }
///
/// let fleet = Fleet::shared(Arc::new(Open))?;
/// assert_eq!(fleet.running(), 0);
/// # Ok::<(), claude_agent_tokio::FleetLimitsError>(())
/// ```
pub trait SharedLedger: Send + Sync + 'static {
    /// The fleet's limits. `max_sessions` and `budget_per_key` hold across the hosts;
    /// `max_resident_bytes` is each host's own (what its CLIs hold in memory).
    fn limits(&self) -> FleetLimits;

    /// A place for a session of `key`: resolves once the fleet's limit and its fair queue
    /// (fair between keys across every host) give one, or at once when the key's budget is
    /// spent ([`AdmitError::OverBudget`]). Dropping the future leaves the queue, even one
    /// never polled; dropping the place gives it back.
    fn admit(&self, key: &str) -> AdmitFuture;

    /// A turn of a session of `key` cost `cost`: add it to the key's spending. When that
    /// crosses a level of the key's budget, every live place of the key, on every host, has a
    /// report ([`SharedPlace::poll_report`]). Called from a session's task: it must not block;
    /// the work goes on in the ledger whether or not the future is awaited. A session holds its
    /// turn's result until the future is ready, so that no result reaches its application
    /// with the turn's cost not counted (a host that dies in between loses the result, not the
    /// charge's count).
    fn charge(&self, key: &str, cost: &TurnCost) -> ChargeFuture;

    /// What `key` has spent, as this host last learned it.
    fn spent(&self, key: &str) -> Spent;

    /// Every key this host has seen with what it has spent, in key order.
    fn spent_by_key(&self) -> Vec<(String, Spent)>;

    /// Sessions of this host holding a place.
    fn running(&self) -> usize;

    /// Sessions of this host waiting for one.
    fn waiting(&self) -> usize;
}

/// A session's place in a fleet many hosts share ([`SharedLedger::admit`]): given back when
/// dropped, which the session's task does once its CLI is gone.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::{Arc, Mutex};
/// use std::task::{Context, Poll, Waker};
/// use claude_agent_tokio::cost::BudgetReport;
/// use claude_agent_tokio::SharedPlace;
///
/// /// A place its ledger takes away by setting `lost` and waking the session.
/// struct Place {
///     lost: Arc<AtomicBool>,
///     waker: Mutex<Option<Waker>>,
/// }
///
/// impl SharedPlace for Place {
///     fn session_id(&self, session_id: &str) {
///         println!("the place holds session {session_id}");
///     }
///     fn turn_running(&self, running: bool) {
///         println!("in a turn: {running}");
///     }
///     fn poll_report(&self, _cx: &mut Context<'_>) -> Poll<BudgetReport> {
///         Poll::Pending
///     }
///     fn poll_lost(&self, cx: &mut Context<'_>) -> Poll<()> {
///         if self.lost.load(Ordering::SeqCst) {
///             return Poll::Ready(());
///         }
///         *self.waker.lock().unwrap() = Some(cx.waker().clone());
///         Poll::Pending
///     }
///     fn is_lost(&self) -> bool {
///         self.lost.load(Ordering::SeqCst)
///     }
/// }
///
/// let place = Place { lost: Arc::new(AtomicBool::new(true)), waker: Mutex::new(None) };
/// let mut cx = Context::from_waker(Waker::noop());
/// assert!(place.poll_lost(&mut cx).is_ready());
/// assert!(place.is_lost());
/// ```
pub trait SharedPlace: Send + Sync {
    /// The session's id, as its CLI told it: the ledger keeps it with the place, so that
    /// another host can take the session over (resume it from the session store) when this
    /// host dies.
    fn session_id(&self, session_id: &str);

    /// Whether the session is in a turn now (a prompt sent, its result not yet come): the
    /// ledger keeps it with the place, so that a host taking the session over knows a turn
    /// was cut off with the host that held it.
    fn turn_running(&self, running: bool);

    /// The next budget report of the place's key, from a charge made on any host; `Pending`
    /// with the waker kept.
    fn poll_report(&self, cx: &mut Context<'_>) -> Poll<BudgetReport>;

    /// Ready once the place is lost: the host's lease ran out (it was cut off from the ledger,
    /// or frozen), or another host took the session over. The session then stops
    /// ([`FleetError::PlaceLost`](crate::FleetError::PlaceLost)), so that it runs on one host
    /// only.
    fn poll_lost(&self, cx: &mut Context<'_>) -> Poll<()>;

    /// Whether the place is lost now, asked without waiting each time the application takes a
    /// message of the session: a message handed over before a freeze and read after it (when
    /// another host may hold the session) is then withheld, and the stream ends with
    /// [`FleetError::PlaceLost`](crate::FleetError::PlaceLost). The default, `false`, leaves
    /// the loss to [`poll_lost`](Self::poll_lost), which the session hears of as it runs; a
    /// ledger that can tell at once (a lease timed on the host's own clock) should say so here.
    /// It is called for every message, while the session's message queue is locked: a flag or
    /// a clock read, never I/O or a wait.
    fn is_lost(&self) -> bool {
        false
    }
}

/// Why a [`SharedLedger`] gave no place.
///
/// ```
/// use claude_agent_tokio::AdmitError;
///
/// let error = AdmitError::Unreachable("connection refused".into());
/// assert!(error.to_string().contains("connection refused"));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AdmitError {
    /// The key's budget is spent, on some host of the fleet: its new sessions are refused.
    #[error("{0}")]
    OverBudget(Box<BudgetReport>),
    /// The ledger could not be reached (its database is down, the connection was lost) or
    /// refused the request; the message says what failed.
    #[error("{0}")]
    Unreachable(String),
}
