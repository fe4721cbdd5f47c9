//! `prewarm`: a CLI started before its session is known (`--await-claim`), and its claim.

use std::fmt;
use std::sync::Arc;

use crate::control::{ClaimInfo, ClaimOptions};
use crate::error::{ClaimError, Error};
use crate::handles::prompt::Prompt;
use crate::handles::query::Query;
use crate::handles::warm::STARTUP_MARKS_ENV;
use crate::options::{AgentConfig, Options, SessionStart};
use crate::persistence::parking_dir::ParkingDir;
use crate::process::runtime::Runtime;
use crate::task::message_queue::{Command, PromptKind, Shared};
use crate::Client;

/// Why `prewarm` did not park a CLI.
///
/// ```
/// use claude_agent_tokio::options::SessionStart;
/// use claude_agent_tokio::PrewarmError;
///
/// fn explain(error: &PrewarmError) -> String {
///     match error {
///         PrewarmError::SessionStart { start } => format!("{start} belongs to query()"),
///         PrewarmError::Start(error) => format!("the CLI did not start: {error}"),
///         _ => error.to_string(),
///     }
/// }
/// let error = PrewarmError::SessionStart { start: SessionStart::resume("46eb1b6d") };
/// assert_eq!(explain(&error), "the session 46eb1b6d belongs to query()");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PrewarmError {
    /// The options start a session of their own (one to resume, continue or fork, or a new
    /// one with its id: [`Options::session_start`]), and a spare has none until it is claimed:
    /// start that session with `query` instead. Nothing was started.
    #[error(
        "prewarm: the options start {start}, and a spare has no session until it is claimed; pass them to query() instead"
    )]
    SessionStart {
        /// The start the options asked for.
        start: SessionStart,
    },
    /// The CLI did not start, or did not answer `initialize`.
    #[error(transparent)]
    Start(#[from] Error),
}

/// A parked CLI: started and initialized with the host-level options, bound to no session yet.
/// Made by [`prewarm_with`] (`prewarm` in the adapters); [`Spare::claim`] binds it to a session.
/// Dropping it (or [`Spare::close`]) shuts the CLI down, like any session's last handle.
///
/// ```no_run
/// use claude_agent_tokio::{prewarm};
/// use claude_agent_tokio::control::ClaimOptions;
/// use claude_agent_tokio::options::Options;
///
/// async fn serve() -> Result<(), Box<dyn std::error::Error>> {
///     // At boot, before any user has picked a project:
///     let spare = prewarm(Options::new().allowed_tools(["Read"])).await?;
///     // … a user opens /srv/app and asks:
///     if spare.is_alive() {
///         let claimed = spare.claim("What does this app do?", ClaimOptions::new("/srv/app")).await?;
///         # let _ = claimed;
///     }
///     Ok(())
/// }
/// ```
pub struct Spare {
    client: Client,
}

/// Start a spare: the CLI with `--await-claim`, which starts up (configuration, auth, tools,
/// plugins, the options' MCP servers and hooks, `initialize`) in a parking directory and then
/// waits. The options are the host-level ones, fixed for the life of the spare; the
/// per-session ones come with the claim ([`ClaimOptions`]). Without [`Options::cwd`] the spare
/// is parked in an empty folder of its own under the temp directory, removed once its CLI is
/// gone (the claimed session ended, or the spare was closed, dropped or refused); a `cwd` given
/// must not be a session's folder. A parked CLI holds about 250 MB.
///
/// Options that describe a session (an [`Options::session_start`] other than
/// [`SessionStart::New`](crate::options::SessionStart::New): one to resume, continue or fork, or
/// the new session's id) are refused with [`PrewarmError::SessionStart`], as the
/// TypeScript SDK's `prewarm()` refuses them: give them to `query`.
///
/// ```no_run
/// use claude_agent_client::{prewarm_with, Error, Runtime};
/// use claude_agent_core::control::ClaimOptions;
/// use claude_agent_client::options::Options;
///
/// async fn serve(runtime: impl Runtime) -> Result<(), Box<dyn std::error::Error>> {
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
pub async fn prewarm_with(runtime: impl Runtime, options: Options) -> Result<Spare, PrewarmError> {
    if let Some(start) = own_session(options.config()) {
        return Err(PrewarmError::SessionStart { start });
    }
    let mut options = options
        .extra_arg(crate::options::AWAIT_CLAIM, None)
        .env(STARTUP_MARKS_ENV, "1");
    let parking = match options.config().cwd.as_deref() {
        Some(_) => None,
        None => {
            let dir = ParkingDir::create(options.config().user.as_deref())?;
            options = options.cwd(dir.path());
            Some(dir)
        }
    };
    let client = Client::connect_parked(runtime, options, parking).await?;
    Ok(Spare { client })
}

/// A claimed spare: how the CLI answered the claim, and the session's messages.
///
/// ```no_run
/// use claude_agent_tokio::{Claimed, Error};
///
/// async fn run(claimed: Claimed) -> Result<(), Error> {
///     println!("session {} in {:?}", claimed.info.session_id, claimed.info.cwd);
///     for option in &claimed.info.not_applied {
///         eprintln!("the CLI did not take {option:?}; the session runs without it");
///     }
///     let mut messages = claimed.messages;
///     while let Some(message) = messages.next().await {
///         println!("{:?}", message?);
///     }
///     Ok(())
/// }
/// ```
#[non_exhaustive]
pub struct Claimed {
    /// The claim's answer: the session id, its working directory, how long the spare was
    /// parked, and the options behind the claim the CLI did not take
    /// ([`ClaimInfo::not_applied`]: the session runs without them; do not start it again).
    pub info: Box<ClaimInfo>,
    /// Every message of the session, as a `query` streams them.
    pub messages: Query,
}

impl fmt::Debug for Claimed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claimed")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Spare {
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
    /// use claude_agent_tokio::{query, ClaimError, Spare};
    /// use claude_agent_tokio::control::ClaimOptions;
    /// use claude_agent_tokio::options::Options;
    /// use claude_agent_tokio::permission::PermissionMode;
    ///
    /// async fn start(spare: Spare, host: Options) -> Result<(), Box<dyn std::error::Error>> {
    ///     let claim = ClaimOptions::new("/srv/app").model("claude-sonnet-5").permission_mode(PermissionMode::AcceptEdits);
    ///     let messages = match spare.claim("Fix the failing test", claim.clone()).await {
    ///         Ok(claimed) => claimed.messages,
    ///         Err(ClaimError::Refused(refusal)) => {
    ///             eprintln!("cold start: {}", refusal.message);
    ///             query("Fix the failing test", host.claimed(&claim)?)
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
    ) -> Result<Claimed, ClaimError> {
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
    /// # use claude_agent_tokio::Spare;
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
    /// # use claude_agent_tokio::Spare;
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
    /// # use claude_agent_tokio::Spare;
    /// # async fn example(spare: Spare) {
    /// spare.close().await; // the host's options changed: this spare is stale
    /// # }
    /// ```
    pub async fn close(self) {
        self.client.close().await;
    }
}

impl fmt::Debug for Spare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spare")
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

/// The start of `config` when it describes a session (one to resume, continue or fork, or the
/// new session's id): a spare has no session until it is claimed.
pub(crate) fn own_session(config: &AgentConfig) -> Option<SessionStart> {
    (config.session_start != SessionStart::New).then(|| config.session_start.clone())
}
