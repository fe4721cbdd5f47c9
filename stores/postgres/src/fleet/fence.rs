//! The check a store fenced by a fleet's ledger makes before each append
//! ([`PostgresSessionStore::fenced_by`](crate::PostgresSessionStore::fenced_by)): the host still
//! holds the lease its session's place was given under.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use claude_agent_client::store::SessionKey;
use tokio_postgres::Client;

use crate::fleet_ledger::HostLease;

/// How many sessions' epochs a host remembers: the last ones bound to a place, far more than
/// it runs at once (a session's mirror may flush after its place is given back).
const REMEMBERED_SESSIONS: usize = 4096;

/// The lease of a fleet host, as a store fenced by it checks it before each append.
#[derive(Clone)]
pub(crate) struct Fence {
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

/// Why a fenced append may not be made.
pub(crate) enum Fenced {
    /// The lease the session's place was given under ran out, or the host joined again since:
    /// the message says so.
    Refused(String),
    /// The check itself failed.
    Failed(tokio_postgres::Error),
}

impl Fence {
    pub(crate) fn new(schema: String, lease: HostLease) -> Fence {
        Fence {
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
    pub(crate) async fn check(&self, client: &Client, key: &SessionKey) -> Result<(), Fenced> {
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
            .map_err(Fenced::Failed)?;
        match live {
            Some(_) => Ok(()),
            None => Err(Fenced::Refused(format!(
                "host {} of fleet {} holds no live lease under the epoch session {} was given \
                 its place under (it was frozen or cut off past it, and another host may hold \
                 the session): nothing more of the session is stored from this host",
                lease.host, lease.fleet, key.session_id
            ))),
        }
    }
}
