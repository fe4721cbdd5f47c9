//! `startup`: a session spawned and initialized ahead of its first prompt.

use std::fmt;
use std::sync::Arc;

use crate::control::InitializeResponse;
use crate::error::Error;
use crate::handles::prompt::Prompt;
use crate::handles::query::Query;
use crate::options::Options;
use crate::process::runtime::Runtime;
use crate::task::message_queue::Command;
use crate::Client;

/// Asks the CLI to report its start-up checkpoints (`keep_alive` lines with `startup_mark`)
/// before it answers `initialize`.
pub(crate) const STARTUP_MARKS_ENV: &str = "CLAUDE_CODE_SDK_READS_STARTUP_MARKS";

/// Start the CLI for `options` now, and wait until it has answered `initialize`: the
/// [`WarmQuery`] it gives then runs its prompt with no start-up left to wait for. The adapters'
/// `startup(options)` is this with their runtime.
///
/// A CLI that fails to start gives the error [`connect_with`](crate::connect_with) gives.
///
/// ```no_run
/// use claude_agent_client::{startup_with, Error, Runtime};
/// use claude_agent_core::message::Message;
/// use claude_agent_client::options::Options;
///
/// async fn answer(runtime: impl Runtime) -> Result<(), Error> {
///     // While the user is still typing:
///     let warm = startup_with(runtime, Options::new().cwd("/srv/app")).await?;
///     // … the prompt is there: it goes straight to a CLI that is ready.
///     let mut messages = warm.query("Summarise README.md");
///     while let Some(message) = messages.next().await {
///         if let Message::Result(result) = message? {
///             println!("{}", result.result.unwrap_or_default());
///         }
///     }
///     Ok(())
/// }
/// ```
pub async fn startup_with(runtime: impl Runtime, options: Options) -> Result<WarmQuery, Error> {
    let options = options.env(STARTUP_MARKS_ENV, "1");
    let client = crate::connect_with(runtime, options).await?;
    Ok(WarmQuery { client })
}

/// A CLI that has started and answered `initialize`, waiting for its prompt: made by
/// [`startup_with`] (`startup` in the adapters). [`WarmQuery::query`] sends the prompt; dropping
/// the handle (or [`WarmQuery::close`]) shuts the CLI down unused.
///
/// ```no_run
/// use claude_agent_tokio::WarmQuery;
///
/// async fn ask_or_drop(warm: WarmQuery, prompt: Option<&str>) {
///     match prompt {
///         Some(prompt) => {
///             let messages = warm.query(prompt);
///             # let _ = messages;
///         }
///         // The user left before asking: shut the CLI down now.
///         None => warm.close().await,
///     }
/// }
/// ```
pub struct WarmQuery {
    client: Client,
}

impl WarmQuery {
    /// Send `prompt` and stream every message until the CLI's stdout ends, as a cold `query`
    /// does: a text prompt is the one message, after which the input ends; a
    /// [`Prompt::stream`] is written as it yields.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Error, WarmQuery};
    /// use futures_lite::StreamExt;
    /// # async fn example(warm: WarmQuery) -> Result<(), Error> {
    /// let messages: Vec<_> = warm.query("What is 2 + 2?").collect().await;
    /// # Ok(())
    /// # }
    /// ```
    pub fn query(self, prompt: impl Into<Prompt>) -> Query {
        let shared = self.client.shared().clone();
        // A fresh session's command queue is empty, so there is room; if the CLI is gone, the
        // stream tells how it ended.
        let _ = shared.commands.try_send(Command::Prompt(prompt.into().0));
        Query::running(shared)
    }

    /// The CLI's answer to `initialize` (its commands, models, agents, account…).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::WarmQuery;
    /// # fn example(warm: WarmQuery) {
    /// if let Some(info) = warm.server_info() {
    ///     println!("Claude Code {:?} is ready", info.claude_code_version);
    /// }
    /// # }
    /// ```
    pub fn server_info(&self) -> Option<Arc<InitializeResponse>> {
        self.client.server_info()
    }

    /// Shut the CLI down without sending a prompt, and wait until it is gone.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::WarmQuery;
    /// # async fn example(warm: WarmQuery) {
    /// warm.close().await; // the user left before asking anything
    /// # }
    /// ```
    pub async fn close(self) {
        self.client.close().await;
    }
}

impl fmt::Debug for WarmQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarmQuery").finish_non_exhaustive()
    }
}
