//! When a session's transcript lines go to its store.

/// When the mirrored transcript lines are written to the session store.
///
/// ```
/// use claude_agent_tokio::StoreFlush;
/// use claude_agent_tokio::options::Options;
/// use claude_agent_tokio::store::InMemorySessionStore;
///
/// // Every batch the CLI prints goes to the store at once, not once per turn.
/// let options = Options::new()
///     .session_store(InMemorySessionStore::new())
///     .session_store_flush(StoreFlush::Eager);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreFlush {
    /// Once per turn, before its result is handed on, and whenever 500 entries or 1 MiB are
    /// waiting (the default).
    #[default]
    Batched,
    /// As soon as the CLI prints them (still one append at a time, in order).
    Eager,
}
