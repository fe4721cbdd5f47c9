//! The check a store fenced by a fleet's ledger makes before each append
//! ([`PostgresSessionStore::fenced_by`]): the host still holds the lease its session's place was
//! given under.
//!
//! [`PostgresSessionStore::fenced_by`]: claude_agent_store_postgres::PostgresSessionStore::fenced_by

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use claude_agent_client::store::SessionKey;
use claude_agent_client::BoxFuture;
use claude_agent_store_postgres::{AppendFence, FenceError};
use tokio_postgres::Client;

use crate::statements::HostLease;

/// How many sessions' epochs a host remembers: the last ones bound to a place, far more than
/// it runs at once (a session's mirror may flush after its place is given back).
const REMEMBERED_SESSIONS: usize = 4096;

/// The lease of a fleet host, as a store fenced by it checks it before each append
/// ([`PostgresFleetLedger::fence`](crate::PostgresFleetLedger::fence)): the host holds a live
/// lease under the epoch the session's place was given under, and keeps it until the append
/// commits (its row is locked; a host taking a session over waits for the append).
///
/// ```no_run
/// use claude_agent_tokio::FleetLimits;
/// use claude_agent_fleet_postgres::{FleetHost, LeaseFence, PostgresFleetLedger};
/// use claude_agent_store_postgres::PostgresSessionStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let db = "host=db.internal user=agent dbname=agent";
/// let ledger = PostgresFleetLedger::connect(db, FleetHost::new("agents", "worker-3", FleetLimits::default())).await?;
/// let fence: LeaseFence = ledger.fence();
/// let store = PostgresSessionStore::connect(db).await?.fenced_by(fence);
/// # let _ = store;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct LeaseFence {
    /// The ledger's schema, quoted.
    schema: String,
    /// The host's lease now (a new epoch each time it joins again).
    lease: Arc<Mutex<HostLease>>,
    /// The epoch each session's place was given under, by session id.
    sessions: Arc<Mutex<Epochs>>,
}

#[derive(Default)]
struct Epochs {
    by_session: HashMap<String, i64>,
    order: VecDeque<String>,
}

impl LeaseFence {
    pub(crate) fn new(schema: String, lease: HostLease) -> LeaseFence {
        LeaseFence {
            schema,
            lease: Arc::new(Mutex::new(lease)),
            sessions: Arc::default(),
        }
    }

    /// The host joined again under a new epoch.
    pub(crate) fn rejoined(&self, lease: HostLease) {
        *self.lease.lock().unwrap_or_else(PoisonError::into_inner) = lease;
    }

    /// The session `session_id` runs under a place given under `epoch`: its appends need that
    /// epoch's lease, not a later one the host joined again under.
    pub(crate) fn bind(&self, session_id: &str, epoch: i64) {
        let mut epochs = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if epochs
            .by_session
            .insert(session_id.to_owned(), epoch)
            .is_none()
        {
            epochs.order.push_back(session_id.to_owned());
            if epochs.order.len() > REMEMBERED_SESSIONS {
                if let Some(oldest) = epochs.order.pop_front() {
                    epochs.by_session.remove(&oldest);
                }
            }
        }
    }

    /// Inside the append's transaction: the host holds a live lease under the epoch `key`'s
    /// session was given its place under (the host's current epoch for a session it never
    /// bound), and keeps it until the commit (its row is locked; a host taking a session over
    /// waits for it). So an append still coming from a session of an earlier epoch (its
    /// mirror flushing late, a retry) is refused once the host joined again, even though the
    /// host's new lease is live.
    async fn check_lease(&self, client: &Client, key: &SessionKey) -> Result<(), FenceError> {
        let lease = self
            .lease
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let epoch = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .by_session
            .get(&key.session_id)
            .copied()
            .unwrap_or(lease.epoch);
        let live = client
            .query_opt(
                &format!(
                    "SELECT 1 FROM {}.fleet_hosts
                     WHERE fleet = $1 AND host = $2 AND epoch = $3
                     AND lease_until > clock_timestamp()
                     FOR SHARE",
                    self.schema
                ),
                &[&lease.fleet, &lease.host, &epoch],
            )
            .await
            .map_err(FenceError::Database)?;
        match live {
            Some(_) => Ok(()),
            None => Err(FenceError::Refused(format!(
                "host {} of fleet {} holds no live lease under the epoch session {} was given \
                 its place under (it was frozen or cut off past it, and another host may hold \
                 the session): nothing more of the session is stored from this host",
                lease.host, lease.fleet, key.session_id
            ))),
        }
    }
}

impl AppendFence for LeaseFence {
    fn check<'a>(
        &'a self,
        client: &'a Client,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, Result<(), FenceError>> {
        Box::pin(self.check_lease(client, key))
    }
}

/// The host and epoch, not the sessions it remembers.
///
/// ```no_run
/// # async fn run(ledger: claude_agent_fleet_postgres::PostgresFleetLedger) {
/// println!("{:?}", ledger.fence()); // LeaseFence { fleet: "agents", host: "worker-3", epoch: 4, .. }
/// # }
/// ```
impl fmt::Debug for LeaseFence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lease = self.lease.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("LeaseFence")
            .field("fleet", &lease.fleet)
            .field("host", &lease.host)
            .field("epoch", &lease.epoch)
            .finish_non_exhaustive()
    }
}
