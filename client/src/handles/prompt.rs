//! What [`crate::query_with`] is asked: one text (a single turn) or a stream of user messages.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_lite::{Stream, StreamExt};

use crate::error::Error;
use crate::message::UserInput;
use crate::task::message_queue::PromptKind;

/// The prompt of a [`crate::query_with`]: a text, or a stream of user messages.
///
/// A text is a single turn: stdin is closed once that run has ended. With a stream, stdin stays
/// open until the stream ends *and* the run then in progress has ended.
///
/// ```
/// # use claude_agent_tokio::Prompt;
/// # use claude_agent_tokio::message::UserInput;
/// let single: Prompt = "What is 2 + 2?".into();
/// let streamed = Prompt::stream(futures_lite::stream::iter(vec![UserInput::text("hi"), UserInput::text("bye")]));
/// # let _ = (single, streamed);
/// ```
///
/// Both forms with `query`:
///
/// ```no_run
/// # use claude_agent_tokio::{query, Prompt};
/// # use claude_agent_tokio::message::UserInput;
/// # use claude_agent_tokio::Options;
/// # fn example() {
/// let one_turn = query(Prompt::text("What is 2 + 2?"), Options::new());
/// let steps = futures_lite::stream::iter(["Read src/lib.rs.", "Now list its public items."].map(UserInput::text));
/// let two_turns = query(Prompt::stream(steps), Options::new());
/// # let _ = (one_turn, two_turns);
/// # }
/// ```
pub struct Prompt(pub(crate) PromptKind);

impl Prompt {
    /// A single-turn prompt.
    pub fn text(text: impl Into<String>) -> Self {
        Prompt(PromptKind::Text(text.into()))
    }

    /// A prompt of many user messages, written as the stream yields them.
    pub fn stream<S>(messages: S) -> Self
    where
        S: Stream<Item = UserInput> + Send + 'static,
    {
        Prompt(PromptKind::Stream(messages.boxed()))
    }
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            PromptKind::Text(text) => f.debug_tuple("Prompt::Text").field(text).finish(),
            PromptKind::Stream(_) => f.write_str("Prompt::Stream(..)"),
        }
    }
}

impl From<&str> for Prompt {
    fn from(text: &str) -> Self {
        Prompt::text(text)
    }
}

impl From<String> for Prompt {
    fn from(text: String) -> Self {
        Prompt::text(text)
    }
}

impl From<PromptStream> for Prompt {
    fn from(stream: PromptStream) -> Self {
        Prompt::stream(stream)
    }
}

/// A channel for feeding a streaming prompt from anywhere: pass the [`PromptStream`] to
/// [`crate::query_with`] and send messages with the [`PromptSender`]. Input ends when every sender is
/// dropped.
///
/// ```
/// # use claude_agent_tokio::{prompt_channel, Prompt};
/// let (tx, prompt) = prompt_channel();
/// let prompt: Prompt = prompt.into();
/// drop(tx); // no messages: input ends at once
/// # let _ = prompt;
/// ```
pub fn prompt_channel() -> (PromptSender, PromptStream) {
    let (tx, rx) = async_channel::bounded(16);
    (PromptSender { tx }, PromptStream { rx: Box::pin(rx) })
}

/// The sending half of [`prompt_channel`]. Clone it to send from several places.
///
/// ```
/// use claude_agent_tokio::{prompt_channel, query, Error};
/// use claude_agent_tokio::message::Message;
/// use claude_agent_tokio::Options;
///
/// /// A chat: the next question goes in once the previous answer is out.
/// async fn chat(questions: Vec<String>) -> Result<(), Error> {
///     let (tx, prompt) = prompt_channel();
///     let mut messages = query(prompt, Options::new());
///     let mut questions = questions.into_iter();
///     if let Some(first) = questions.next() {
///         tx.send(first).await?;
///     }
///     let mut tx = Some(tx);
///     while let Some(message) = messages.next().await {
///         if let Message::Result(result) = message? {
///             println!("{}", result.result.unwrap_or_default());
///             match (questions.next(), &tx) {
///                 (Some(next), Some(sender)) => sender.send(next).await?,
///                 _ => drop(tx.take()), // no more input: the CLI exits after this turn
///             }
///         }
///     }
///     Ok(())
/// }
/// ```
#[derive(Clone, Debug)]
pub struct PromptSender {
    tx: async_channel::Sender<UserInput>,
}

impl PromptSender {
    /// Queue a user message (a `&str`, a `String` or a [`UserInput`]). Fails with
    /// [`Error::Closed`] when the query is gone.
    ///
    /// ```
    /// use claude_agent_tokio::prompt_channel;
    /// use claude_agent_tokio::message::UserInput;
    /// use futures_lite::StreamExt;
    ///
    /// # futures_lite::future::block_on(async {
    /// let (tx, mut prompt) = prompt_channel();
    /// tx.send("What changed since v0.1?").await.unwrap();
    /// tx.send(UserInput::text("Keep it short.").with_priority("next")).await.unwrap();
    /// drop(tx);
    /// // What the query reads from the other end:
    /// assert_eq!(prompt.next().await.unwrap().uuid, None);
    /// assert_eq!(prompt.next().await.unwrap().priority.as_deref(), Some("next"));
    /// assert!(prompt.next().await.is_none());
    /// # });
    /// ```
    pub async fn send(&self, message: impl Into<UserInput>) -> Result<(), Error> {
        self.tx
            .send(message.into())
            .await
            .map_err(|_| Error::Closed)
    }
}

/// The receiving half of [`prompt_channel`]: a stream of user messages to pass as a prompt.
///
/// ```
/// use claude_agent_tokio::{prompt_channel, query};
/// use claude_agent_tokio::Options;
///
/// async fn start() {
///     let (tx, prompt) = prompt_channel();
///     let messages = query(prompt, Options::new()); // the stream is the prompt
///     tx.send("Summarise README.md").await.unwrap();
///     # let _ = messages;
/// }
/// ```
#[derive(Debug)]
pub struct PromptStream {
    rx: Pin<Box<async_channel::Receiver<UserInput>>>,
}

impl Stream for PromptStream {
    type Item = UserInput;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<UserInput>> {
        self.rx.as_mut().poll_next(cx)
    }
}
