//! `query()`: run a prompt and stream every message the CLI prints.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_lite::Stream;

use crate::error::Error;
use crate::handles::prompt::Prompt;
use crate::message::Message;
use crate::options::Options;
use crate::process::runtime::Runtime;
use crate::task::message_queue::Shared;
use crate::task::spawn::{spawn_session, Start};
use crate::Client;

/// Start the CLI on `runtime`, send `prompt`, and stream every message until the CLI's stdout
/// ends (all results, not just the first).
///
/// Adapter crates wrap this as `query(prompt, options)` with their runtime. A failure to start
/// (CLI not found, bad options) is the stream's only item; a final [`Error::StartFailed`],
/// [`Error::Process`] or [`Error::Result`] item says how the CLI failed. An `Err` item means the session is over: a
/// line that could not be used comes as a [`Message::Notice`](crate::message::Message::Notice).
/// Dropping the stream shuts the CLI down.
///
/// ```no_run
/// # use claude_agent_client::{query_with, Runtime};
/// # use claude_agent_client::options::Options;
///
/// async fn ask(runtime: impl Runtime) {
///     let mut messages = query_with(runtime, "What is 2 + 2?", Options::new().max_turns(1));
///     while let Some(item) = messages.next().await {
///         match item {
///             Ok(message) => println!("{}", message.raw_json()),
///             Err(error) => eprintln!("{error}"),
///         }
///     }
/// }
/// ```
pub fn query_with(runtime: impl Runtime, prompt: impl Into<Prompt>, options: Options) -> Query {
    Query {
        shared: spawn_session(&runtime, &options, Start::Prompt(prompt.into().0), None),
    }
}

/// The message stream of a [`query_with`] (`query` in the adapter crates).
///
/// Items are `Result<Message, Error>`; the stream ends when the CLI's stdout has ended and the
/// process has exited.
///
/// ```
/// use claude_agent_tokio::{query, Error};
/// use claude_agent_tokio::message::{ContentBlock, Message};
/// use claude_agent_tokio::options::Options;
///
/// /// Run a prompt, but interrupt the turn if it runs more than 20 tool calls.
/// async fn bounded() -> Result<(), Error> {
///     let mut messages = query("Tidy up the test suite.", Options::new());
///     let client = messages.client();
///     let (mut tool_calls, mut interrupted) = (0, false);
///     while let Some(message) = messages.next().await {
///         if let Message::Assistant(reply) = message? {
///             tool_calls += reply.message.content.iter().filter(|b| matches!(b, ContentBlock::ToolUse(_))).count();
///             if tool_calls > 20 && !interrupted {
///                 client.interrupt().await?; // the turn ends with an error result
///                 interrupted = true;
///             }
///         }
///     }
///     Ok(())
/// }
/// ```
pub struct Query {
    shared: Arc<Shared>,
}

impl Query {
    /// The stream of a session that is already running.
    pub(crate) fn running(shared: Arc<Shared>) -> Self {
        Query { shared }
    }

    /// A [`Client`] for this query's session, to send control requests (`interrupt`,
    /// `set_model`, …) while the stream is read. Messages still come through this stream (or
    /// whichever reader asks first). If the CLI could not be started, the stream's only item is
    /// the error and the client's requests fail with [`Error::Closed`].
    pub fn client(&self) -> Client {
        Client::from_shared(self.shared.clone())
    }
}

impl Query {
    /// The next message; `None` when the session has ended. The same as `StreamExt::next` of
    /// `futures-lite` or `futures`, with no trait to import (and none to clash with another).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{query, Error};
    /// # use claude_agent_tokio::options::Options;
    /// # async fn example() -> Result<(), Error> {
    /// let mut messages = query("What is 2 + 2?", Options::new());
    /// while let Some(message) = messages.next().await {
    ///     println!("{}", message?.raw_json());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn next(&mut self) -> Option<Result<Message, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for Query {
    type Item = Result<Message, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.shared.link.poll_pop(cx)
    }
}

impl fmt::Debug for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query").finish_non_exhaustive()
    }
}
