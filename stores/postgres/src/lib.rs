//! A PostgreSQL [`SessionStore`]: session transcripts mirrored to a database, and resumed from
//! it on any machine.
//!
//! ```no_run
//! use std::sync::Arc;
//! use claude_agent_tokio::Options;
//! use claude_agent_store_postgres::PostgresSessionStore;
//!
//! # async fn run() -> Result<(), claude_agent_store_postgres::ConnectError> {
//! let store = Arc::new(PostgresSessionStore::connect("host=db.internal user=agent dbname=agent").await?);
//! let options = Options::new().cwd("/srv/app").session_store(store.clone());
//! # let _ = options;
//! # Ok(())
//! # }
//! ```
//!
//! The tables are created on first use, in the schema `claude_agent` unless
//! [`PostgresSessionStore::with_schema`] names another:
//!
//! - `session_entries`: one row per transcript line (`jsonb`), in append order. A line with a
//!   `uuid` is stored once per transcript, so an append that is tried again adds no duplicates.
//! - `sessions`: one row per transcript (main or subkey) with its last write time.
//! - `session_summaries`: the [`SessionSummary`] of each main transcript.
//!
//! Each append is one transaction that first locks (or creates) its transcript's row in
//! `sessions`, so concurrent writers, on one machine or many, serialize per transcript and no
//! summary update is lost. Times are the database's clock (`clock_timestamp()`), in
//! milliseconds, and never go backwards for one transcript.
//!
//! # Lost connections
//!
//! A store made with [`PostgresSessionStore::connect`] connects again when its connection has
//! been lost (the server restarted, a proxy dropped it): the call that finds it closed opens a
//! new one. The calls under way when it went fail with [`StoreError`]; a session mirroring to
//! the store reports them as `mirror_error` items and stores the lines with a later turn. A
//! store made with [`PostgresSessionStore::from_client`] cannot connect again: once that
//! client's connection is gone, every call fails. Connecting again runs on the store's tokio
//! runtime, whichever executor awaits the call.
//!
//! # TLS
//!
//! Connections are encrypted as the configuration's `sslmode` says (`prefer` by default,
//! `require`, `disable`), with rustls: the server's certificate is always checked, against the
//! system's root certificates ([`PostgresSessionStore::connect`]) or roots you give
//! ([`PostgresSessionStore::connect_with`], [`TlsRoots::Pem`]), and its name against `host`.
//! Unlike libpq's `require`, there is no unchecked encryption: a server whose certificate is
//! not trusted is refused. Set `hostaddr` beside `host` to connect to an address while
//! checking the certificate's name.
//!
//! # Abandoned writes
//!
//! A write whose future is dropped inside its transaction (a time limit such as the mirror's,
//! a runtime shutting down) commits nothing. The store leaves that transaction at once, on its
//! runtime, so the rows it locked do not hold up other writers: a store made with `connect`
//! replaces its connection (the server then rolls the transaction back), and one made with
//! `from_client` sends `ROLLBACK` after whatever was still in flight. No later call runs inside
//! it. An error the server reports carries its message and SQLSTATE
//! (`the database refused: … (ERROR 42P01)`).
//!
//! # Runtime
//!
//! The client is `tokio-postgres`: its connection is a task on tokio (it reads and writes with
//! tokio's sockets), so [`PostgresSessionStore::connect`] must be called inside a tokio runtime,
//! which must keep running. The store's futures talk to that task through channels and can be
//! awaited from any executor: the store works with `claude-agent-smol` or
//! `claude-agent-blocking` too, given a tokio runtime somewhere in the process.
#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod fence;

pub use fence::{AppendFence, FenceError};

/// What `claude-agent-fleet-postgres` shares with this crate: opening connections as the store
/// does. That crate is released with this one, at the same version, and is the only user; this
/// is not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use crate::{bound, described, prepare, Bounds, Prepared};
}

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use claude_agent_client::store::{
    fold_session_summary, SessionKey, SessionListing, SessionStore, SessionSummary, StoreError,
    StoreFuture,
};
use serde_json::Value;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::Json;
use tokio_postgres::{Client, Config};
use tokio_postgres_rustls::MakeRustlsConnect;

/// The schema the tables go in unless [`PostgresSessionStore::with_schema`] says otherwise.
pub const DEFAULT_SCHEMA: &str = "claude_agent";

/// How long opening a connection may take, unless the configuration says.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The database's clock, in milliseconds since the Unix epoch.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/// Why [`PostgresSessionStore::connect`] failed.
///
/// ```
/// use claude_agent_store_postgres::ConnectError;
///
/// fn explain(error: &ConnectError) -> String {
///     format!("the session database is unreachable: {error}")
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The configuration string does not parse.
    #[error("invalid PostgreSQL configuration: {}", described(.0))]
    Config(#[source] tokio_postgres::Error),
    /// The connection could not be opened (server down, refused login).
    #[error("could not connect to PostgreSQL: {}", described(.0))]
    Connect(#[source] tokio_postgres::Error),
    /// `connect` was called outside a tokio runtime, which the connection's task needs.
    #[error("PostgresSessionStore::connect must be called inside a tokio runtime")]
    NoRuntime,
    /// The TLS set-up failed: root certificates that do not parse, or none in what was given.
    #[error("PostgreSQL TLS set-up: {0}")]
    Tls(String),
}

/// Which certificate authorities a store trusts when its connection is encrypted
/// ([`PostgresSessionStore::connect_with`]).
///
/// ```
/// use claude_agent_store_postgres::TlsRoots;
///
/// let system = TlsRoots::System;
/// let private_ca = TlsRoots::Pem(b"-----BEGIN CERTIFICATE-----\n...".to_vec());
/// # let _ = (system, private_ca);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TlsRoots {
    /// The system's root certificates (the platform's store; on Linux the CA bundle, or
    /// `SSL_CERT_FILE` / `SSL_CERT_DIR`).
    System,
    /// These CA certificates, PEM-encoded, instead of the system's: a private CA, or a
    /// managed service's published bundle.
    Pem(Vec<u8>),
}

/// A [`SessionStore`] in PostgreSQL, with every optional method. See the [crate docs](crate).
///
/// ```no_run
/// use claude_agent_tokio::store::{SessionKey, SessionStore};
/// use claude_agent_store_postgres::PostgresSessionStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = PostgresSessionStore::connect("host=127.0.0.1 user=postgres")
///     .await?
///     .with_schema("tenant_42");
/// let key = SessionKey::new("-srv-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
/// let stored = store.load(&key).await?;
/// println!("{} lines", stored.map_or(0, |lines| lines.len()));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct PostgresSessionStore {
    link: Arc<Link>,
    schema: String,
    /// The tables exist (created, or found, by this store); cleared when a statement finds them
    /// gone (a schema dropped under the store), so that the next call makes them again.
    ready: Arc<AtomicBool>,
    /// The check each append makes before its lines ([`PostgresSessionStore::fenced_by`]).
    fence: Option<Arc<dyn AppendFence>>,
}

/// The connection the store's clones share, and how to open it again.
struct Link {
    client: tokio::sync::Mutex<Arc<Client>>,
    /// `None` for a client the user connected: it cannot be opened again.
    reconnect: Option<Reconnect>,
    /// The one connection runs one transaction, or one statement outside any, at a time: a read
    /// or the tables' creation that ran while another task's transaction was open would run
    /// inside it (seeing its uncommitted lines, or aborting it with an error of its own).
    busy: tokio::sync::Mutex<()>,
    /// A transaction was abandoned (its future dropped between `BEGIN` and its end): the
    /// connection may still be in it, with statements in flight. Nothing may run on it before
    /// it is left ([`Link::settled_client`]), or the next `COMMIT` would commit the abandoned
    /// lines too.
    abandoned: AtomicBool,
    /// Transcripts whose last append was abandoned while its `COMMIT` was in flight: the
    /// server may have committed it, so the append tried again first looks whether its lines
    /// are already the transcript's last ones.
    in_doubt: std::sync::Mutex<HashSet<SessionKey>>,
}

/// A transaction on the link's connection, begun with `busy` held. Dropped before
/// [`Transaction::end`] (its future was dropped, by a timeout or a shutdown), it marks the link
/// and has the store's runtime leave the transaction at once, so that the rows it locked are
/// not held until the store's next call; dropped while its `COMMIT` was in flight, it also
/// marks its transcript as in doubt ([`Link::in_doubt`]).
struct Transaction {
    link: Arc<Link>,
    client: Arc<Client>,
    /// The transcript an append writes.
    appending: Option<SessionKey>,
    committing: bool,
    ended: bool,
}

impl Transaction {
    /// `BEGIN` on the link's connection, for an append to `appending` or another write;
    /// `busy` must be held.
    async fn begin(
        link: &Arc<Link>,
        appending: Option<&SessionKey>,
    ) -> Result<Transaction, StoreError> {
        let client = link.settled_client().await?;
        client.batch_execute("BEGIN").await.map_err(backend)?;
        Ok(Transaction {
            link: link.clone(),
            client,
            appending: appending.cloned(),
            committing: false,
            ended: false,
        })
    }

    /// `COMMIT` after `outcome` succeeded, `ROLLBACK` after it failed.
    async fn end(mut self, outcome: Result<(), StoreError>) -> Result<(), StoreError> {
        let end = if outcome.is_ok() {
            "COMMIT"
        } else {
            "ROLLBACK"
        };
        self.committing = outcome.is_ok();
        let ended = self.client.batch_execute(end).await.map_err(backend);
        // A failed end leaves the connection in doubt: leave it as an abandoned one.
        self.ended = ended.is_ok();
        outcome.and(ended)
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        if let (true, Some(key)) = (self.committing, self.appending.take()) {
            let mut in_doubt = self
                .link
                .in_doubt
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            in_doubt.insert(key);
        }
        self.link.abandoned.store(true, Ordering::SeqCst);
        let runtime = match &self.link.reconnect {
            Some(reconnect) => Some(reconnect.runtime.clone()),
            None => tokio::runtime::Handle::try_current().ok(),
        };
        if let Some(runtime) = runtime {
            let link = self.link.clone();
            runtime.spawn(async move {
                let _busy = link.busy.lock().await;
                // Failing here, the next call tries again.
                let _ = link.settled_client().await;
            });
        }
    }
}

impl Link {
    fn new(client: Client, reconnect: Option<Reconnect>) -> Link {
        Link {
            client: tokio::sync::Mutex::new(Arc::new(client)),
            reconnect,
            busy: tokio::sync::Mutex::new(()),
            abandoned: AtomicBool::new(false),
            in_doubt: std::sync::Mutex::new(HashSet::new()),
        }
    }

    /// The connection to itself, out of any abandoned transaction, for a statement outside a
    /// transaction: no other task's transaction is open on it while the guard is held.
    async fn exclusive(
        &self,
    ) -> Result<(tokio::sync::MutexGuard<'_, ()>, Arc<Client>), StoreError> {
        let busy = self.busy.lock().await;
        let client = self.settled_client().await?;
        Ok((busy, client))
    }

    /// Whether the last append to `key` was abandoned with its `COMMIT` in flight (and forget
    /// it: one look settles it).
    fn was_in_doubt(&self, key: &SessionKey) -> bool {
        self.in_doubt
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(key)
    }

    /// The client, out of any abandoned transaction; `busy` must be held. A store that
    /// can connect again does, and the old connection closes once nothing uses it (the server
    /// then rolls its transaction back, without waiting for what was in flight); the user's
    /// own connection gets a `ROLLBACK`.
    async fn settled_client(&self) -> Result<Arc<Client>, StoreError> {
        if !self.abandoned.swap(false, Ordering::SeqCst) {
            return self.open_client().await;
        }
        let left = match &self.reconnect {
            Some(reconnect) => match reconnect.open().await {
                Ok(fresh) => {
                    *self.client.lock().await = Arc::new(fresh);
                    Ok(())
                }
                Err(error) => Err(error),
            },
            None => {
                let client = self.client.lock().await.clone();
                client.batch_execute("ROLLBACK").await.map_err(backend)
            }
        };
        if let Err(error) = left {
            self.abandoned.store(true, Ordering::SeqCst);
            return Err(error);
        }
        self.open_client().await
    }

    /// The open client, connecting again if the connection has been lost.
    async fn open_client(&self) -> Result<Arc<Client>, StoreError> {
        let mut client = self.client.lock().await;
        if !client.is_closed() {
            return Ok(client.clone());
        }
        let Some(reconnect) = &self.reconnect else {
            return Err(StoreError::backend(
                "the PostgreSQL connection is closed (a store made with from_client does not \
                 connect again)",
            ));
        };
        *client = Arc::new(reconnect.open().await?);
        Ok(client.clone())
    }
}

/// How a store made with `connect` opens its connection again.
struct Reconnect {
    config: Config,
    tls: MakeRustlsConnect,
    /// The runtime the connection's task runs on, and connecting too.
    runtime: tokio::runtime::Handle,
}

impl Reconnect {
    /// [`open`] on the store's own runtime, whatever executor awaits it: tokio's sockets need a
    /// tokio reactor, which the caller's executor (smol, async-std, a `block_on`) does not have.
    async fn open(&self) -> Result<Client, StoreError> {
        let (config, tls, runtime) = (self.config.clone(), self.tls.clone(), self.runtime.clone());
        self.runtime
            .spawn(async move { open(&config, tls, &runtime).await })
            .await
            .map_err(StoreError::backend)?
            .map_err(backend)
    }
}

/// What opening a connection takes: the current tokio runtime, the parsed configuration (with
/// a connect timeout), and the TLS connector for `roots`.
#[doc(hidden)]
pub struct Prepared {
    /// The runtime the connection's task runs on.
    pub runtime: tokio::runtime::Handle,
    /// The configuration, with a connect timeout.
    pub config: Config,
    /// The TLS connector.
    pub tls: MakeRustlsConnect,
}

/// The runtime, configuration and TLS connector a connection to `config` needs.
#[doc(hidden)]
pub fn prepare(config: &str, roots: &TlsRoots) -> Result<Prepared, ConnectError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| ConnectError::NoRuntime)?;
    let mut config: Config = config.parse().map_err(ConnectError::Config)?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    let tls = tls_connector(roots)?;
    Ok(Prepared {
        runtime,
        config,
        tls,
    })
}

/// How long the server lets one of our connections hold others up, and how soon a peer that
/// vanished is noticed: a host frozen inside a transaction (a lock on a fleet's row, a fenced
/// append) holds the others up no longer, and a connection whose other end is gone (a
/// half-open socket) is given up instead of waiting for TCP's two hours.
#[doc(hidden)]
pub struct Bounds {
    /// How long a statement waits for a lock (`lock_timeout`).
    pub lock: Duration,
    /// How long a transaction may sit idle (`idle_in_transaction_session_timeout`).
    pub idle_in_transaction: Duration,
    /// How long a statement may run (`statement_timeout`).
    pub statement: Duration,
    /// Quiet time before TCP keepalives start, which then come at half that, three times.
    pub keepalive: Duration,
}

/// The connections of a store that a fleet fences: a fenced append holds its host's lease row
/// (`FOR SHARE`) until its commit, so a frozen one must not keep it longer than this.
const STORE_BOUNDS: Bounds = Bounds {
    lock: Duration::from_secs(5),
    idle_in_transaction: Duration::from_secs(5),
    statement: Duration::from_secs(60),
    keepalive: Duration::from_secs(5),
};

/// Set `bounds` on `config`: the server's time limits unless the configuration's `options`
/// says something already, and TCP keepalives with a limit on unacknowledged data.
#[doc(hidden)]
pub fn bound(config: &mut Config, bounds: &Bounds) {
    let ms = |d: Duration| d.as_millis().max(1);
    if config.get_options().is_none() {
        config.options(format!(
            "-c lock_timeout={} -c idle_in_transaction_session_timeout={} -c statement_timeout={}",
            ms(bounds.lock),
            ms(bounds.idle_in_transaction),
            ms(bounds.statement)
        ));
    }
    let keepalive = bounds.keepalive.max(Duration::from_secs(1));
    config
        .keepalives(true)
        .keepalives_idle(keepalive)
        .keepalives_interval((keepalive / 2).max(Duration::from_secs(1)))
        .keepalives_retries(3)
        .tcp_user_timeout(bounds.statement.max(keepalive * 2));
}

/// Connect, and run the connection as a task on `runtime`.
async fn open(
    config: &Config,
    tls: MakeRustlsConnect,
    runtime: &tokio::runtime::Handle,
) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = config.connect(tls).await?;
    // Ends when the client is dropped; an error ends it too, and the next call connects again.
    runtime.spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// The TLS connector for `roots`: rustls (with ring), TLS 1.2 and 1.3, the server's
/// certificate checked against `roots` and its name against the configuration's `host`.
fn tls_connector(roots: &TlsRoots) -> Result<MakeRustlsConnect, ConnectError> {
    let mut store = rustls::RootCertStore::empty();
    match roots {
        // A system with none (a minimal container) still connects without TLS; a TLS server
        // is then refused as untrusted.
        TlsRoots::System => {
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = store.add(cert);
            }
        }
        TlsRoots::Pem(pem) => {
            use rustls::pki_types::pem::PemObject;
            for cert in rustls::pki_types::CertificateDer::pem_slice_iter(pem) {
                let cert =
                    cert.map_err(|e| ConnectError::Tls(format!("a root certificate: {e}")))?;
                store
                    .add(cert)
                    .map_err(|e| ConnectError::Tls(format!("a root certificate: {e}")))?;
            }
            if store.is_empty() {
                return Err(ConnectError::Tls(
                    "no certificate in the PEM roots given".into(),
                ));
            }
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| ConnectError::Tls(e.to_string()))?
    .with_root_certificates(store)
    .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

impl std::fmt::Debug for PostgresSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresSessionStore")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl PostgresSessionStore {
    /// Connect with a `tokio-postgres` configuration string (`host=… user=… dbname=…`, or a
    /// `postgresql://` URL), and run the connection as a task on the current tokio runtime. A
    /// lost connection is opened again by the next call. Opening one may take 10 s unless the
    /// configuration sets `connect_timeout`.
    ///
    /// TLS follows the configuration's `sslmode`: `prefer` (the default) encrypts when the
    /// server offers TLS, `require` refuses a server that does not, `disable` never encrypts.
    /// An encrypted connection always checks the server's certificate against the system's
    /// root certificates and its name against `host` (`hostaddr` gives the address when `host`
    /// is the certificate's name); [`connect_with`](Self::connect_with) trusts other roots.
    ///
    /// ```no_run
    /// use claude_agent_store_postgres::PostgresSessionStore;
    ///
    /// # async fn run() -> Result<(), claude_agent_store_postgres::ConnectError> {
    /// let store = PostgresSessionStore::connect("postgresql://agent@db.internal/agent?sslmode=require").await?;
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect(config: &str) -> Result<PostgresSessionStore, ConnectError> {
        PostgresSessionStore::connect_with(config, TlsRoots::System).await
    }

    /// [`connect`](Self::connect), trusting `roots` for the server's certificate.
    ///
    /// ```no_run
    /// use claude_agent_store_postgres::{PostgresSessionStore, TlsRoots};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let ca = std::fs::read("/etc/agent/db-ca.pem")?;
    /// let store = PostgresSessionStore::connect_with(
    ///     "host=db.internal user=agent dbname=agent sslmode=require",
    ///     TlsRoots::Pem(ca),
    /// )
    /// .await?;
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect_with(
        config: &str,
        roots: TlsRoots,
    ) -> Result<PostgresSessionStore, ConnectError> {
        let Prepared {
            runtime,
            mut config,
            tls,
        } = prepare(config, &roots)?;
        bound(&mut config, &STORE_BOUNDS);
        let client = open(&config, tls.clone(), &runtime)
            .await
            .map_err(ConnectError::Connect)?;
        Ok(PostgresSessionStore::with_link(Link::new(
            client,
            Some(Reconnect {
                config,
                tls,
                runtime,
            }),
        )))
    }

    /// A store over a client you connected yourself (with TLS, say); its connection must be
    /// running. This store cannot connect again: once the connection is lost, every call fails.
    ///
    /// ```no_run
    /// use claude_agent_store_postgres::PostgresSessionStore;
    ///
    /// # async fn run() -> Result<(), tokio_postgres::Error> {
    /// let (client, connection) = tokio_postgres::connect("host=127.0.0.1 user=postgres", tokio_postgres::NoTls).await?;
    /// tokio::spawn(connection);
    /// let store = PostgresSessionStore::from_client(client);
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_client(client: Client) -> PostgresSessionStore {
        PostgresSessionStore::with_link(Link::new(client, None))
    }

    fn with_link(link: Link) -> PostgresSessionStore {
        PostgresSessionStore {
            link: Arc::new(link),
            schema: DEFAULT_SCHEMA.to_owned(),
            ready: Arc::new(AtomicBool::new(false)),
            fence: None,
        }
    }

    /// Make each append pass `fence` first, inside its transaction: an append it refuses
    /// stores nothing and fails with [`StoreError::Fenced`]. Reads, and the history's edits
    /// (rename, tag, delete), are not fenced. A fleet's host lease is the fence this is made
    /// for (`claude-agent-fleet-postgres`): a host frozen or cut off past its lease, whose
    /// sessions another host may have taken over, then writes nothing more to them.
    ///
    /// ```no_run
    /// use claude_agent_client::BoxFuture;
    /// use claude_agent_client::store::SessionKey;
    /// use claude_agent_store_postgres::{AppendFence, FenceError, PostgresSessionStore};
    /// use tokio_postgres::Client;
    ///
    /// /// No appends while the `maintenance` flag is set.
    /// struct Maintenance;
    ///
    /// impl AppendFence for Maintenance {
    ///     fn check<'a>(&'a self, client: &'a Client, _key: &'a SessionKey) -> BoxFuture<'a, Result<(), FenceError>> {
    ///         Box::pin(async move {
    ///             let row = client
    ///                 .query_one("SELECT set FROM ops.flags WHERE name = 'maintenance' FOR SHARE", &[])
    ///                 .await
    ///                 .map_err(FenceError::Database)?;
    ///             match row.get::<_, bool>(0) {
    ///                 true => Err(FenceError::Refused("the database is under maintenance".into())),
    ///                 false => Ok(()),
    ///             }
    ///         })
    ///     }
    /// }
    ///
    /// # async fn run() -> Result<(), claude_agent_store_postgres::ConnectError> {
    /// let store = PostgresSessionStore::connect("host=db.internal user=agent").await?.fenced_by(Maintenance);
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// [`StoreError::Fenced`]: claude_agent_client::store::StoreError::Fenced
    pub fn fenced_by(mut self, fence: impl AppendFence) -> PostgresSessionStore {
        self.fence = Some(Arc::new(fence));
        self
    }

    /// Keep the tables in `schema` (created on first use) instead of [`DEFAULT_SCHEMA`]: one
    /// schema per tenant, or per test.
    ///
    /// ```no_run
    /// # use claude_agent_store_postgres::PostgresSessionStore;
    /// # async fn run(store: PostgresSessionStore) {
    /// let tenant = store.with_schema("tenant_42");
    /// # let _ = tenant;
    /// # }
    /// ```
    pub fn with_schema(mut self, schema: impl Into<String>) -> PostgresSessionStore {
        self.schema = schema.into();
        self.ready = Arc::new(AtomicBool::new(false));
        self
    }

    /// `name` qualified with the schema, quoted.
    fn table(&self, name: &str) -> String {
        format!("\"{}\".\"{name}\"", self.schema.replace('"', "\"\""))
    }

    /// Create the schema and tables unless they exist (or were found gone since).
    async fn ensure_schema(&self) -> Result<(), StoreError> {
        if self.ready.load(Ordering::SeqCst) {
            return Ok(());
        }
        if self.schema.is_empty() || self.schema.len() > 63 {
            // PostgreSQL would cut it: two schemas that share their first 63 bytes would share
            // tables.
            return Err(StoreError::backend(format!(
                "the schema name {:?} is empty or longer than 63 bytes, which PostgreSQL cuts; \
                 give a shorter one to with_schema",
                self.schema
            )));
        }
        let schema = self.schema.replace('"', "\"\"");
        let (entries, sessions, summaries) = (
            self.table("session_entries"),
            self.table("sessions"),
            self.table("session_summaries"),
        );
        let ddl = format!(
            "CREATE SCHEMA IF NOT EXISTS \"{schema}\";
             CREATE TABLE IF NOT EXISTS {sessions} (
                 project_key text NOT NULL,
                 session_id text NOT NULL,
                 subpath text NOT NULL,
                 mtime_ms bigint NOT NULL,
                 PRIMARY KEY (project_key, session_id, subpath));
             CREATE TABLE IF NOT EXISTS {entries} (
                 seq bigserial PRIMARY KEY,
                 project_key text NOT NULL,
                 session_id text NOT NULL,
                 subpath text NOT NULL,
                 uuid text,
                 entry jsonb NOT NULL);
             CREATE INDEX IF NOT EXISTS session_entries_key
                 ON {entries} (project_key, session_id, subpath, seq);
             CREATE UNIQUE INDEX IF NOT EXISTS session_entries_uuid
                 ON {entries} (project_key, session_id, subpath, uuid)
                 WHERE uuid IS NOT NULL;
             CREATE TABLE IF NOT EXISTS {summaries} (
                 project_key text NOT NULL,
                 session_id text NOT NULL,
                 mtime_ms bigint NOT NULL,
                 data jsonb NOT NULL,
                 PRIMARY KEY (project_key, session_id));"
        );
        // Outside any other task's transaction, so that no other statement's failure rolls it
        // back. Two stores creating the same schema at once: one of them may fail on the
        // catalog's unique index although the other succeeded; a second try finds it.
        let (_busy, client) = self.link.exclusive().await?;
        match client.batch_execute(&ddl).await {
            Ok(()) => {}
            Err(_) => client.batch_execute(&ddl).await.map_err(backend)?,
        }
        self.ready.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// `error` as a store error; a table or schema found missing (dropped under the store)
    /// has the next call make them again.
    fn refused(&self, error: tokio_postgres::Error) -> StoreError {
        let gone = [SqlState::UNDEFINED_TABLE, SqlState::INVALID_SCHEMA_NAME];
        if error.code().is_some_and(|code| gone.contains(code)) {
            self.ready.store(false, Ordering::SeqCst);
        }
        backend(error)
    }

    async fn append_once(&self, key: &SessionKey, entries: &[Value]) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        self.ensure_schema().await?;
        let subpath = key.subpath.as_deref().unwrap_or("");
        let (sessions, table, summaries) = (
            self.table("sessions"),
            self.table("session_entries"),
            self.table("session_summaries"),
        );
        let sql = [
            // The write time, which also locks this transcript's row until the commit.
            &format!(
                "INSERT INTO {sessions} AS s (project_key, session_id, subpath, mtime_ms)
                 VALUES ($1, $2, $3, {NOW_MS})
                 ON CONFLICT (project_key, session_id, subpath)
                 DO UPDATE SET mtime_ms = GREATEST(s.mtime_ms + 1, {NOW_MS})
                 RETURNING mtime_ms"
            ),
            &format!(
                "INSERT INTO {table} (project_key, session_id, subpath, uuid, entry)
                 SELECT $1, $2, $3, e.value ->> 'uuid', e.value
                 FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS e(value, n)
                 ORDER BY e.n
                 ON CONFLICT DO NOTHING"
            ),
            &format!(
                "SELECT mtime_ms, data FROM {summaries} WHERE project_key = $1 AND session_id = $2"
            ),
            &format!(
                "INSERT INTO {summaries} (project_key, session_id, mtime_ms, data)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (project_key, session_id)
                 DO UPDATE SET mtime_ms = EXCLUDED.mtime_ms, data = EXCLUDED.data"
            ),
        ];
        let tail = format!(
            "SELECT entry FROM {table} WHERE project_key = $1 AND session_id = $2
             AND subpath = $3 ORDER BY seq DESC LIMIT $4"
        );
        let _busy = self.link.busy.lock().await;
        let transaction = Transaction::begin(&self.link, Some(key)).await?;
        let client = &transaction.client;
        let outcome = async {
            if let Some(fence) = &self.fence {
                fence.check(client, key).await.map_err(|e| match e {
                    FenceError::Refused(reason) => StoreError::Fenced { reason },
                    FenceError::Database(error) => self.refused(error),
                })?;
            }
            let row = client
                .query_one(sql[0], &[&key.project_key, &key.session_id, &subpath])
                .await
                .map_err(|e| self.refused(e))?;
            let mtime: i64 = row.get(0);
            // The same append tried again after its commit went unanswered: if the server did
            // commit it, its lines are the transcript's last ones, and are not stored twice.
            if self.link.was_in_doubt(key) {
                let count = i64::try_from(entries.len()).unwrap_or(i64::MAX);
                let rows = client
                    .query(
                        &tail,
                        &[&key.project_key, &key.session_id, &subpath, &count],
                    )
                    .await
                    .map_err(|e| self.refused(e))?;
                let last: Vec<Value> = rows
                    .iter()
                    .rev()
                    .map(|row| row.get::<_, Json<Value>>(0).0)
                    .collect();
                if last == entries {
                    return Ok(());
                }
            }
            let batch = Json(Value::Array(entries.to_vec()));
            client
                .execute(
                    sql[1],
                    &[&key.project_key, &key.session_id, &subpath, &batch],
                )
                .await
                .map_err(|e| self.refused(e))?;
            if key.is_main() {
                let prev = client
                    .query_opt(sql[2], &[&key.project_key, &key.session_id])
                    .await
                    .map_err(|e| self.refused(e))?
                    .map(|row| summary(&key.session_id, row.get(0), row.get(1)));
                let mut folded = fold_session_summary(prev.as_ref(), key, entries);
                folded.mtime = u64::try_from(mtime).unwrap_or(0);
                let data = Json(Value::Object(folded.data));
                client
                    .execute(sql[3], &[&key.project_key, &key.session_id, &mtime, &data])
                    .await
                    .map_err(|e| self.refused(e))?;
            }
            Ok(())
        }
        .await;
        transaction.end(outcome).await
    }

    async fn load_once(&self, key: &SessionKey) -> Result<Option<Vec<Value>>, StoreError> {
        self.ensure_schema().await?;
        let subpath = key.subpath.as_deref().unwrap_or("");
        let sql = format!(
            "SELECT entry FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath = $3
             ORDER BY seq",
            self.table("session_entries")
        );
        let (_busy, client) = self.link.exclusive().await?;
        let rows = client
            .query(&sql, &[&key.project_key, &key.session_id, &subpath])
            .await
            .map_err(|e| self.refused(e))?;
        if rows.is_empty() {
            return Ok(None);
        }
        Ok(Some(
            rows.iter()
                .map(|row| row.get::<_, Json<Value>>(0).0)
                .collect(),
        ))
    }

    async fn list_once(&self, project_key: &str) -> Result<Vec<SessionListing>, StoreError> {
        self.ensure_schema().await?;
        let sql = format!(
            "SELECT session_id, mtime_ms FROM {} WHERE project_key = $1 AND subpath = ''",
            self.table("sessions")
        );
        let (_busy, client) = self.link.exclusive().await?;
        let rows = client
            .query(&sql, &[&project_key])
            .await
            .map_err(|e| self.refused(e))?;
        Ok(rows
            .iter()
            .map(|row| {
                let mtime: i64 = row.get(1);
                SessionListing::new(row.get::<_, String>(0), u64::try_from(mtime).unwrap_or(0))
            })
            .collect())
    }

    async fn summaries_once(&self, project_key: &str) -> Result<Vec<SessionSummary>, StoreError> {
        self.ensure_schema().await?;
        let sql = format!(
            "SELECT session_id, mtime_ms, data FROM {} WHERE project_key = $1",
            self.table("session_summaries")
        );
        let (_busy, client) = self.link.exclusive().await?;
        let rows = client
            .query(&sql, &[&project_key])
            .await
            .map_err(|e| self.refused(e))?;
        Ok(rows
            .iter()
            .map(|row| summary(&row.get::<_, String>(0), row.get(1), row.get(2)))
            .collect())
    }

    async fn delete_once(&self, key: &SessionKey) -> Result<(), StoreError> {
        self.ensure_schema().await?;
        let args: [&(dyn tokio_postgres::types::ToSql + Sync); 3] = [
            &key.project_key,
            &key.session_id,
            &key.subpath.as_deref().unwrap_or(""),
        ];
        // A main key takes its subkeys and summary along; a subkey only itself.
        let only_subpath = if key.is_main() {
            ""
        } else {
            " AND subpath = $3"
        };
        let mut statements = vec![
            format!(
                "DELETE FROM {} WHERE project_key = $1 AND session_id = $2{only_subpath}",
                self.table("session_entries")
            ),
            format!(
                "DELETE FROM {} WHERE project_key = $1 AND session_id = $2{only_subpath}",
                self.table("sessions")
            ),
        ];
        if key.is_main() {
            statements.push(format!(
                "DELETE FROM {} WHERE project_key = $1 AND session_id = $2",
                self.table("session_summaries")
            ));
        }
        let used = if key.is_main() { &args[..2] } else { &args[..] };
        let _busy = self.link.busy.lock().await;
        let transaction = Transaction::begin(&self.link, None).await?;
        let mut outcome = Ok(());
        for sql in &statements {
            if let Err(e) = transaction.client.execute(sql.as_str(), used).await {
                outcome = Err(self.refused(e));
                break;
            }
        }
        transaction.end(outcome).await
    }

    async fn subkeys_once(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> Result<Vec<String>, StoreError> {
        self.ensure_schema().await?;
        let sql = format!(
            "SELECT subpath FROM {} WHERE project_key = $1 AND session_id = $2 AND subpath <> ''",
            self.table("sessions")
        );
        let (_busy, client) = self.link.exclusive().await?;
        let rows = client
            .query(&sql, &[&project_key, &session_id])
            .await
            .map_err(|e| self.refused(e))?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }
}

/// A call of the store, made once more if it found the tables gone (a schema dropped under the
/// store): the second try makes them again.
macro_rules! once_more_if_gone {
    ($store:expr, $call:expr) => {{
        let ready = $store.ready.load(Ordering::SeqCst);
        match $call.await {
            Err(_) if ready && !$store.ready.load(Ordering::SeqCst) => $call.await,
            outcome => outcome,
        }
    }};
}

impl SessionStore for PostgresSessionStore {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        Box::pin(async move { once_more_if_gone!(self, self.append_once(key, entries)) })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async move { once_more_if_gone!(self, self.load_once(key)) })
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<SessionListing>> {
        Box::pin(async move { once_more_if_gone!(self, self.list_once(project_key)) })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        Box::pin(async move { once_more_if_gone!(self, self.summaries_once(project_key)) })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        Box::pin(async move { once_more_if_gone!(self, self.delete_once(key)) })
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> StoreFuture<'a, Vec<String>> {
        Box::pin(
            async move { once_more_if_gone!(self, self.subkeys_once(project_key, session_id)) },
        )
    }
}

fn summary(session_id: &str, mtime: i64, data: Json<Value>) -> SessionSummary {
    let data = match data.0 {
        Value::Object(data) => data,
        _ => serde_json::Map::new(),
    };
    SessionSummary::new(session_id, u64::try_from(mtime).unwrap_or(0), data)
}

/// A store error from a client error, with the server's own message when the server refused
/// the statement (the client's error alone reads "db error").
fn backend(error: tokio_postgres::Error) -> StoreError {
    match error.as_db_error() {
        Some(db) => {
            let message = format!(
                "the database refused: {} ({} {})",
                db.message(),
                db.severity(),
                db.code().code()
            );
            StoreError::backend(ServerError {
                message,
                source: error,
            })
        }
        None => StoreError::backend(ServerError {
            message: described(&error),
            source: error,
        }),
    }
}

/// A client error with its causes, which its own text leaves out ("error performing TLS
/// handshake", without saying that the certificate was not valid for the host name).
#[doc(hidden)]
pub fn described(error: &tokio_postgres::Error) -> String {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(next) = cause {
        text.push_str(": ");
        text.push_str(&next.to_string());
        cause = next.source();
    }
    text
}

/// What the server said, or the client's error with its causes, over the client's error.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct ServerError {
    message: String,
    #[source]
    source: tokio_postgres::Error,
}
