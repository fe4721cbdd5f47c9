//! The idle watchdog: a turn during which the CLI says nothing for too long, while nothing the
//! session knows of explains the silence.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::message::{ContentBlock, Message, MessageContent, SessionState, Stall, SystemMessage};

/// When a running turn counts as stalled, and what the session then does
/// ([`AgentConfig::stall_watch`](crate::options::AgentConfig::stall_watch)): it reports the stall ([`Event::Stalled`], with a [`Stall`]), and
/// as [`StallWatch::then`] says, interrupts the turn or closes itself
/// ([`Event::Closing`] with [`EndReason::Stalled`]).
///
/// The rule: silence is counted from the CLI's last line (or the prompt) while a turn runs. It
/// does not count while one of your callbacks is being answered (a permission prompt, a hook,
/// an in-process tool), since the CLI is then waiting on you. While one of the CLI's own tool
/// calls runs (a `tool_use` without its result yet: a long `Bash` command, a subagent, an
/// external MCP server's tool), the limit is [`StallWatch::while_tool_runs`], by default none:
/// a running tool is silence the CLI accounts for.
///
/// [`Event::Stalled`]: super::Event::Stalled
/// [`Event::Closing`]: super::Event::Closing
/// [`EndReason::Stalled`]: super::EndReason::Stalled
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::session::{OnStall, StallWatch};
///
/// let watch = StallWatch {
///     while_tool_runs: Some(Duration::from_secs(15 * 60)),
///     then: OnStall::InterruptThenClose,
///     ..StallWatch::new(Duration::from_secs(120))
/// };
/// assert_eq!(watch.after, Duration::from_secs(120));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StallWatch {
    /// Silence that makes a stall while no tool call runs (`Duration::MAX`: never; zero is
    /// refused).
    pub after: Duration,
    /// Silence that makes a stall while a tool call of the CLI runs; `None`: never then.
    pub while_tool_runs: Option<Duration>,
    /// What the client does about a stall.
    pub then: OnStall,
}

impl StallWatch {
    /// A stall after `after` of silence, none while a tool runs, reported only.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::session::{OnStall, StallWatch};
    ///
    /// let watch = StallWatch::new(Duration::from_secs(120));
    /// assert_eq!((watch.while_tool_runs, watch.then), (None, OnStall::Report));
    /// ```
    pub fn new(after: Duration) -> StallWatch {
        StallWatch {
            after,
            while_tool_runs: None,
            then: OnStall::Report,
        }
    }
}

/// What the client does when a turn stalls.
///
/// ```
/// use claude_agent_tokio::session::OnStall;
///
/// let then = OnStall::Interrupt;
/// assert_ne!(then, OnStall::default());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnStall {
    /// The stall is reported (a client's stream: a `Message::Notice` of kind `Stalled`); the
    /// turn goes on.
    #[default]
    Report,
    /// Reported, and the session interrupts the turn (it ends with its result, as an interrupt
    /// does); the session goes on.
    Interrupt,
    /// The session interrupts the turn and closes itself; a client's stream ends with
    /// `Error::Stalled`.
    InterruptThenClose,
}

/// The watchdog's state.
#[derive(Debug)]
pub(crate) struct StallClock {
    watch: StallWatch,
    /// When silence started: the last line, or the prompt.
    quiet_since: Option<Instant>,
    /// The last line's kind; empty before any.
    last_kind: String,
    /// The CLI's tool calls without a result: id → tool name.
    open_tools: BTreeMap<String, String>,
    /// Reported already for this silence.
    fired: bool,
}

impl StallClock {
    pub(crate) fn new(watch: StallWatch) -> StallClock {
        StallClock {
            watch,
            quiet_since: None,
            last_kind: String::new(),
            open_tools: BTreeMap::new(),
            fired: false,
        }
    }

    /// A prompt was written: silence counts from now.
    pub(crate) fn prompt_sent(&mut self, now: Instant) {
        self.quiet_since = Some(now);
        self.last_kind.clear();
        self.fired = false;
    }

    /// A line came from the CLI.
    pub(crate) fn line(&mut self, now: Instant, ty: &str, subtype: Option<&str>) {
        self.quiet_since = Some(now);
        self.fired = false;
        self.last_kind.clear();
        self.last_kind.push_str(ty);
        if let Some(subtype) = subtype {
            self.last_kind.push('/');
            self.last_kind.push_str(subtype);
        }
    }

    /// What a message says about the turn and its tool calls.
    pub(crate) fn message(&mut self, message: &Message) {
        match message {
            Message::Assistant(reply) if reply.parent_tool_use_id.is_none() => {
                for block in &reply.message.content {
                    if let ContentBlock::ToolUse(call) = block {
                        self.open_tools.insert(call.id.clone(), call.name.clone());
                    }
                }
            }
            Message::User(user) if user.parent_tool_use_id.is_none() => {
                if let MessageContent::Blocks(blocks) = &user.content {
                    for block in blocks {
                        if let ContentBlock::ToolResult(result) = block {
                            self.open_tools.remove(&result.tool_use_id);
                        }
                    }
                }
            }
            Message::Result(_) => self.open_tools.clear(),
            Message::System(SystemMessage::SessionStateChanged(change))
                if change.state == SessionState::Idle =>
            {
                self.open_tools.clear();
            }
            _ => {}
        }
    }

    /// When the running turn counts as stalled; `None` when no turn runs (`running`), the host
    /// is answering the CLI (`host_busy`), a tool runs with no limit, or it was reported
    /// already.
    pub(crate) fn deadline(&self, running: bool, host_busy: bool) -> Option<Instant> {
        if !running || self.fired || host_busy {
            return None;
        }
        let limit = if self.open_tools.is_empty() {
            Some(self.watch.after)
        } else {
            self.watch.while_tool_runs
        };
        // A limit too long for an `Instant` (`Duration::MAX`) is never reached.
        self.quiet_since?.checked_add(limit?)
    }

    /// The stall, if the deadline has passed (reported once per silence).
    pub(crate) fn check(&mut self, now: Instant, running: bool, host_busy: bool) -> Option<Stall> {
        let deadline = self.deadline(running, host_busy)?;
        if deadline > now {
            return None;
        }
        self.fired = true;
        Some(Stall {
            idle_for: now.saturating_duration_since(self.quiet_since?),
            last_event: (!self.last_kind.is_empty()).then(|| self.last_kind.clone()),
            in_flight_tools: self.open_tools.values().cloned().collect(),
        })
    }
}
