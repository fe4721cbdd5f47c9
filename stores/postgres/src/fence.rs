//! A check each append makes inside its transaction before its lines are written
//! ([`PostgresSessionStore::fenced_by`](crate::PostgresSessionStore::fenced_by)).

use claude_agent_client::store::SessionKey;
use claude_agent_client::BoxFuture;
use tokio_postgres::Client;

/// A check each append of a fenced store makes inside its transaction, before its lines are
/// written; it may refuse the append. What it locks (`FOR SHARE`) stays locked until the
/// append commits, so a writer that changes the fenced row waits for an append under way.
///
/// See [`PostgresSessionStore::fenced_by`](crate::PostgresSessionStore::fenced_by) for an
/// implementation; `claude-agent-fleet-postgres`'s host lease is another.
///
/// ```
/// use claude_agent_client::BoxFuture;
/// use claude_agent_client::store::SessionKey;
/// use claude_agent_store_postgres::{AppendFence, FenceError};
/// use tokio_postgres::Client;
///
/// /// Sessions of the project `-srv-archive` are read-only.
/// struct ReadOnlyArchive;
///
/// impl AppendFence for ReadOnlyArchive {
///     fn check<'a>(&'a self, _client: &'a Client, key: &'a SessionKey) -> BoxFuture<'a, Result<(), FenceError>> {
///         let archived = key.project_key == "-srv-archive";
///         Box::pin(async move {
///             match archived {
///                 true => Err(FenceError::Refused("archived sessions are read-only".into())),
///                 false => Ok(()),
///             }
///         })
///     }
/// }
/// ```
pub trait AppendFence: Send + Sync + 'static {
    /// Whether the append to `key` may write its lines, asked on `client` inside the append's
    /// transaction.
    fn check<'a>(
        &'a self,
        client: &'a Client,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, Result<(), FenceError>>;
}

/// Why an [`AppendFence`] stopped an append.
///
/// ```
/// use claude_agent_store_postgres::FenceError;
///
/// let refused = FenceError::Refused("host worker-3 holds no live lease".into());
/// assert_eq!(refused.to_string(), "host worker-3 holds no live lease");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FenceError {
    /// The fence refuses the append; the text says why, and reaches the session as the
    /// store's `Fenced` error.
    #[error("{0}")]
    Refused(String),
    /// The check itself failed: the append fails as any statement of it would.
    #[error("the fence's check failed: {}", crate::described(.0))]
    Database(#[source] tokio_postgres::Error),
}
