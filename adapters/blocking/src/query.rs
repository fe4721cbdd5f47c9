//! `query()`: run a prompt and iterate over every message the CLI prints.

use std::fmt;
use std::time::Duration;

use claude_agent_client::Options;
use claude_agent_client::{query_with, Error, Prompt};
use claude_agent_core::message::Message;

use crate::executor::{self, next_within, wait};
use crate::{Client, TimedOut};

/// Start the CLI, send `prompt` (a `&str` or `String` for one turn, or the [`PromptStream`] of a
/// [`prompt_channel`] for many), and iterate over every message until the CLI's stdout ends.
///
/// Returns at once; the CLI starts in the background. A failure to start (CLI not found, bad
/// options) is the iterator's only item; a last [`Error::StartFailed`], [`Error::Process`] or
/// [`Error::Result`] item says how the CLI failed. An `Err` item means the session is over: a line that could not be
/// used comes as a [`Message::Notice`](claude_agent_core::message::Message::Notice). Dropping
/// the [`Query`] shuts the CLI down.
///
/// ```no_run
/// use claude_agent_blocking::{query, Message, Options};
///
/// for message in query("What is 2 + 2?", Options::new().max_turns(1)) {
///     match message? {
///         Message::Result(result) => println!("{}", result.result.unwrap_or_default()),
///         other => println!("{other:?}"),
///     }
/// }
/// # Ok::<(), claude_agent_blocking::Error>(())
/// ```
///
/// [`PromptStream`]: crate::PromptStream
/// [`prompt_channel`]: crate::prompt_channel
pub fn query(prompt: impl Into<Prompt>, options: Options) -> Query {
    Query {
        inner: query_with(executor::runtime(), prompt, options),
    }
}

/// The messages of a [`query`], as an iterator of `Result<Message, Error>`. `next` blocks until a
/// message comes; the iterator ends when the CLI's stdout has ended and the process has exited.
///
/// Dropping it before the end shuts the CLI down in the background (stdin closed, then `SIGTERM`
/// after 5 s, `SIGKILL` after 5 s more); nothing the SDK started outlives the process.
///
/// ```no_run
/// use claude_agent_blocking::{query, Message, Options};
///
/// // The first assistant message, then the CLI is shut down.
/// let first = query("Tell me a story.", Options::new())
///     .find_map(|message| match message {
///         Ok(Message::Assistant(reply)) => Some(reply),
///         _ => None,
///     });
/// # drop(first);
/// ```
pub struct Query {
    inner: claude_agent_client::Query,
}

impl Query {
    /// The blocking face of a session's message stream started some other way (warm start).
    pub(crate) fn from_inner(inner: claude_agent_client::Query) -> Query {
        Query { inner }
    }

    /// A [`Client`] for this query's session, to send control requests (`interrupt`,
    /// `set_model`, …) while the messages are read, from this thread or another. Messages still
    /// come through the query. If the CLI could not be started, the query's only item is the
    /// error and the client's requests fail with [`Error::Closed`](crate::Error::Closed).
    ///
    /// ```no_run
    /// use claude_agent_blocking::{query, Message, Options};
    ///
    /// let mut messages = query("Refactor the parser.", Options::new());
    /// let client = messages.client();
    /// for message in &mut messages {
    ///     if let Ok(Message::Assistant(_)) = &message {
    ///         client.interrupt()?; // one reply is enough
    ///     }
    /// }
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    pub fn client(&self) -> Client {
        Client::from_async(self.inner.client())
    }

    /// The next message, waiting at most `timeout` for it: `Ok(None)` at the end, `Err(TimedOut)`
    /// if none came in time. Nothing is lost on a time-out: call again to wait on.
    /// `Duration::ZERO` takes a message that is already there without waiting.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use claude_agent_blocking::{query, Options};
    ///
    /// let mut messages = query("Summarise README.md", Options::new());
    /// while let Some(message) = messages.next_timeout(Duration::from_secs(120))? {
    ///     println!("{:?}", message?);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_timeout(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<Result<Message, Error>>, TimedOut> {
        next_within(&mut self.inner, timeout)
    }
}

impl Iterator for Query {
    type Item = Result<Message, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        wait(smol::stream::StreamExt::next(&mut self.inner))
    }
}

impl fmt::Debug for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
