//! A prompt of many user messages, fed from any thread while the query runs.

use claude_agent_client::{Error, PromptStream};
use claude_agent_core::message::UserInput;

use crate::executor::wait;

/// A channel for a prompt of many user messages: pass the [`PromptStream`] to
/// [`query`](crate::query) and send messages with the [`PromptSender`], from any thread, while
/// the query's messages are read. Input ends when every sender is dropped; the CLI exits once
/// the run then in progress has ended.
///
/// ```no_run
/// use claude_agent_blocking::{prompt_channel, query, Message, Options};
///
/// let (sender, prompt) = prompt_channel();
/// let messages = query(prompt, Options::new());
/// sender.send("Pick a number.")?;
/// let mut asked = false;
/// for message in messages {
///     if let Message::Result(result) = message? {
///         println!("{}", result.result.unwrap_or_default());
///         if !asked {
///             sender.send("Double it.")?;
///             asked = true;
///         } else {
///             break;
///         }
///     }
/// }
/// # Ok::<(), claude_agent_blocking::Error>(())
/// ```
pub fn prompt_channel() -> (PromptSender, PromptStream) {
    let (inner, stream) = claude_agent_client::prompt_channel();
    (PromptSender { inner }, stream)
}

/// The sending half of [`prompt_channel`]. Clone it to send from several threads.
///
/// ```
/// use claude_agent_blocking::prompt_channel;
///
/// let (sender, prompt) = prompt_channel();
/// drop(prompt); // no query reads it
/// assert!(sender.send("hello").is_err());
/// ```
#[derive(Clone, Debug)]
pub struct PromptSender {
    inner: claude_agent_client::PromptSender,
}

impl PromptSender {
    /// Queue a user message (a `&str`, a `String` or a [`UserInput`]), waiting while 16 are
    /// already queued. Fails with [`Error::Closed`] when the query is gone.
    ///
    /// ```no_run
    /// use claude_agent_blocking::{prompt_channel, query, Options, UserInput};
    ///
    /// let (sender, prompt) = prompt_channel();
    /// let messages = query(prompt, Options::new());
    /// sender.send(UserInput::text("Hello").with_uuid("greeting-1"))?;
    /// drop(sender); // no more input
    /// for message in messages {
    ///     println!("{:?}", message?);
    /// }
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    pub fn send(&self, message: impl Into<UserInput>) -> Result<(), Error> {
        wait(self.inner.send(message))
    }
}
