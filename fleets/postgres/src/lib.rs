//! A fleet ledger in PostgreSQL: the sessions of many hosts share one fleet's session limit,
//! each key's budget and a queue fair between keys, and the sessions of a host that died are
//! taken over by another.
//!
//! [`PostgresFleetLedger`] is a [`SharedLedger`](claude_agent_client::SharedLedger):
//! `Fleet::shared(ledger)` runs a fleet whose limits hold across every host that joined it.
//! A session store fenced by the ledger's [lease](PostgresFleetLedger::fence) stores nothing
//! more from a host once another host may have taken its sessions over.
//!
//! ```no_run
//! use std::sync::Arc;
//! use claude_agent_tokio::{Fleet, FleetLimits, Options};
//! use claude_agent_fleet_postgres::{FleetHost, PostgresFleetLedger};
//! use claude_agent_store_postgres::PostgresSessionStore;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let db = "host=db.internal user=agent dbname=agent";
//! let limits = FleetLimits { max_sessions: Some(600), ..FleetLimits::default() };
//! let ledger = PostgresFleetLedger::connect(db, FleetHost::new("agents", "worker-3", limits)).await?;
//! let store = PostgresSessionStore::connect(db).await?.fenced_by(ledger.fence());
//! let fleet = Fleet::shared(Arc::new(ledger))?;
//! let options = Options::new().session_store(Arc::new(store)).fleet(fleet.member("tenant-42"));
//! # let _ = options;
//! # Ok(())
//! # }
//! ```
//!
//! The tables are made on first use, in the schema `claude_agent` unless
//! [`FleetHost::schema`] names another (the store's default schema: fleet and transcripts side
//! by side). Every decision that must hold across hosts is one transaction: a place is given
//! while the fleet's row is locked, so two hosts never give the last one twice, and a turn's
//! cost is added in one statement, so exactly one charge crosses each budget level. Hosts hear
//! of freed places and budget levels through `LISTEN/NOTIFY`.
//!
//! # Leases
//!
//! Each host holds a lease ([`FleetHost::lease`], [`DEFAULT_LEASE`] unless you choose),
//! renewed every quarter of it. A host that was killed, frozen or cut off from the database
//! stops renewing: once its lease has run out its places are free, its sessions are
//! [orphans](PostgresFleetLedger::orphans) another host may
//! [take over](PostgresFleetLedger::take_over), and the host, when it finds out, closes its
//! sessions with `FleetError::PlaceLost`. Every connection of the ledger has time limits of a
//! fraction of the lease, so that one frozen host holds the others up no longer.
//!
//! # Runtime
//!
//! As the store's, the ledger's connection is a task on tokio: [`PostgresFleetLedger::connect`]
//! must be called inside a tokio runtime, and its futures can be awaited from any executor.
#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod ledger;
#[doc(hidden)]
pub mod statements;

pub use claude_agent_store_postgres::{ConnectError, TlsRoots};
pub use ledger::{
    FleetHost, JoinError, LeaseFence, LedgerError, Orphan, PostgresFleetLedger, DEFAULT_LEASE,
};
