//! `prewarm`: a CLI started before its session is known (`--await-claim`), and its claim.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::error::Error;
use super::link::{Command, Shared};
use super::prompt::{Prompt, PromptKind};
use super::query::Query;
use super::runtime::Runtime;
use super::warm::STARTUP_MARKS_ENV;
use super::Client;
use crate::control::{ClaimInfo, ClaimOptions, ClaimRefusal};
use crate::options::Options;

/// Why a claim did not give a running session. The prompt did not run: start the session cold
/// ([`Options::claimed`] gives its options).
///
/// ```
/// use claude_agent_core::client::ClaimError;
/// use claude_agent_core::control::ClaimRefusalReason;
///
/// fn explain(error: &ClaimError) -> String {
///     match error {
///         ClaimError::Refused(refusal) if refusal.reason == ClaimRefusalReason::CwdNotFound => {
///             "no such folder".into()
///         }
///         ClaimError::Refused(refusal) => format!("refused: {}", refusal.message),
///         ClaimError::SpareExited => "the spare died; start cold".into(),
///         _ => error.to_string(),
///     }
/// }
/// assert_eq!(explain(&ClaimError::SpareExited), "the spare died; start cold");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimError {
    /// The CLI refused the claim; it exits once it has answered.
    #[error(transparent)]
    Refused(Box<ClaimRefusal>),
    /// The spare's process ended before the claim was answered.
    #[error("the spare's process ended before it was claimed")]
    SpareExited,
}

/// A parked CLI: started and initialized with the host-level options, bound to no session yet.
/// Made by [`prewarm_with`] (`prewarm` in the adapters); [`Spare::claim`] binds it to a session.
/// Dropping it (or [`Spare::close`]) shuts the CLI down, like any session's last handle.
pub struct Spare<R = ()> {
    client: Client<R>,
}

/// Where spares are parked until claimed unless the options name a directory: an empty folder
/// of their own, so that no project settings apply before the claim.
fn parking_dir() -> PathBuf {
    std::env::temp_dir().join("claude-agent-spares")
}

/// Start a spare: the CLI with `--await-claim`, which starts up (configuration, auth, tools,
/// plugins, the options' MCP servers and hooks, `initialize`) in a parking directory and then
/// waits. The options are the host-level ones, fixed for the life of the spare; the
/// per-session ones come with the claim ([`ClaimOptions`]). Without [`Options::cwd`] the spare
/// is parked in an empty folder under the temp directory; a `cwd` given must not be a session's
/// folder. A parked CLI holds about 250 MB.
///
/// ```no_run
/// use claude_agent_core::client::{prewarm_with, Error, Runtime};
/// use claude_agent_core::control::ClaimOptions;
/// use claude_agent_core::options::Options;
/// use futures_lite::StreamExt;
///
/// async fn serve<R: Runtime>(runtime: R) -> Result<(), Box<dyn std::error::Error>> {
///     let spare = prewarm_with(runtime, Options::new().allowed_tools(["Read"])).await?;
///     // … later, the user opens a folder and asks:
///     let claimed = spare.claim("Summarise README.md", ClaimOptions::new("/srv/app")).await?;
///     let mut messages = claimed.messages;
///     while let Some(message) = messages.next().await {
///         println!("{}", message?.raw_json());
///     }
///     Ok(())
/// }
/// ```
pub async fn prewarm_with<R: Runtime>(runtime: R, options: Options) -> Result<Spare<R>, Error> {
    let mut options = options
        .extra_arg(crate::options::AWAIT_CLAIM_FLAG, None)
        .env(STARTUP_MARKS_ENV, "1");
    if options.get_cwd().is_none() {
        let dir = parking_dir();
        std::fs::create_dir_all(&dir).map_err(|source| Error::WorkingDirectory {
            path: dir.clone(),
            source,
        })?;
        options = options.cwd(dir);
    }
    let client = Client::connect_with(runtime, options).await?;
    Ok(Spare { client })
}

/// A claimed spare: how the CLI answered the claim, and the session's messages.
#[non_exhaustive]
pub struct Claimed<R = ()> {
    /// The claim's answer: the session id, its working directory, how long the spare was
    /// parked, and the options behind the claim the CLI did not take
    /// ([`ClaimInfo::not_applied`]: the session runs without them; do not start it again).
    pub info: Box<ClaimInfo>,
    /// Every message of the session, as a `query` streams them.
    pub messages: Query<R>,
}

impl<R> fmt::Debug for Claimed<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claimed")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl<R> Spare<R> {
    /// Bind the spare to a session and run `prompt` there. The claim, the options behind it and
    /// the prompt are written together (the prompt waits one round trip more when the claim has
    /// a settings overlay); this resolves once the CLI has answered the claim, which it does
    /// before the prompt's first message.
    ///
    /// A refusal ([`ClaimError::Refused`]) or a spare that died ([`ClaimError::SpareExited`])
    /// means the prompt did not run: start the session cold. Options the CLI did not take
    /// (`option_not_applied`) are no refusal: the session runs without them, and they are listed
    /// in [`ClaimInfo::not_applied`].
    ///
    /// ```no_run
    /// use claude_agent_core::client::{query_with, ClaimError, Runtime, Spare};
    /// use claude_agent_core::control::ClaimOptions;
    /// use claude_agent_core::options::Options;
    /// use claude_agent_core::permission::PermissionMode;
    ///
    /// async fn start<R: Runtime>(runtime: R, spare: Spare<R>, host: Options) -> Result<(), Box<dyn std::error::Error>> {
    ///     let claim = ClaimOptions::new("/srv/app").model("claude-sonnet-5").permission_mode(PermissionMode::AcceptEdits);
    ///     let messages = match spare.claim("Fix the failing test", claim.clone()).await {
    ///         Ok(claimed) => claimed.messages,
    ///         Err(ClaimError::Refused(refusal)) => {
    ///             eprintln!("cold start: {}", refusal.message);
    ///             query_with(runtime, "Fix the failing test", host.claimed(&claim)?)
    ///         }
    ///         Err(other) => return Err(other.into()),
    ///     };
    ///     # let _ = messages;
    ///     Ok(())
    /// }
    /// ```
    pub async fn claim(
        self,
        prompt: impl Into<Prompt>,
        options: ClaimOptions,
    ) -> Result<Claimed<R>, ClaimError> {
        let (info, shared) = self.claim_session(options, Some(prompt.into().0)).await?;
        Ok(Claimed {
            info,
            messages: Query::running(shared),
        })
    }

    /// Claim with the prompt written along (`Some`) or by the caller once the claim succeeded.
    pub(crate) async fn claim_session(
        self,
        options: ClaimOptions,
        prompt: Option<PromptKind>,
    ) -> Result<(Box<ClaimInfo>, Arc<Shared>), ClaimError> {
        let shared = self.client.shared().clone();
        let (reply, outcome) = async_channel::bounded(1);
        shared
            .commands
            .send(Command::Claim(Box::new(options), prompt, reply))
            .await
            .map_err(|_| ClaimError::SpareExited)?;
        let info = outcome
            .recv()
            .await
            .map_err(|_| ClaimError::SpareExited)??;
        Ok((info, shared))
    }

    /// Whether the spare's process is still running (a parked CLI can die; replace it then).
    ///
    /// ```no_run
    /// # use claude_agent_core::client::Spare;
    /// # fn example(spare: Spare) {
    /// if !spare.is_alive() {
    ///     drop(spare); // start another
    /// }
    /// # }
    /// ```
    pub fn is_alive(&self) -> bool {
        !self.client.shared().done.is_closed()
    }

    /// The spare's process id, as its answer to `initialize` gave it.
    ///
    /// ```no_run
    /// # use claude_agent_core::client::Spare;
    /// # fn example(spare: Spare) {
    /// println!("parked CLI: pid {:?}", spare.pid());
    /// # }
    /// ```
    pub fn pid(&self) -> Option<u32> {
        self.client.server_info().and_then(|info| info.pid)
    }

    /// Shut the spare's CLI down unused, and wait until it is gone.
    ///
    /// ```no_run
    /// # use claude_agent_core::client::Spare;
    /// # async fn example(spare: Spare) {
    /// spare.close().await; // the host's options changed: this spare is stale
    /// # }
    /// ```
    pub async fn close(self) {
        self.client.close().await;
    }
}

impl<R> fmt::Debug for Spare<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spare")
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}
