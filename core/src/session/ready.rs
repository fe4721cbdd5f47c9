//! When the session is ready ([`Event::Ready`](super::Event::Ready)): `initialize` answered,
//! and, when the configuration asks ([`SessionConfig::ready_after_servers`]), the in-process MCP
//! servers connected as the CLI itself reports them.
//!
//! The CLI answers `initialize` first and connects in-process servers afterwards (their
//! handshake ends with `tools/list`, and it counts them as connected a moment later). Until then
//! `mcp_status` does not list them. So the session asks `mcp_status` itself, at once, again as
//! soon as every server's tools were listed, and every [`RETRY`] meanwhile, until each declared
//! server is listed with a settled status — or [`BOUND`] has passed.
//!
//! [`SessionConfig::ready_after_servers`]: super::SessionConfig::ready_after_servers

use std::time::{Duration, Instant};

use crate::control::{McpStatus, RequestId, ResponseBody};
use crate::session::RequestFailure;

/// How long the session waits at most for the servers (never longer than the initialize
/// timeout).
pub(crate) const BOUND: Duration = Duration::from_secs(5);
/// Between two `mcp_status` questions once the servers' tools were listed.
const RETRY: Duration = Duration::from_millis(25);
/// Between two `mcp_status` questions before that.
const RETRY_UNLISTED: Duration = Duration::from_millis(100);

/// What the session should do for the wait.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ReadyStep {
    /// Nothing yet.
    Wait,
    /// Ask `mcp_status` now, and hand the request's id to [`ReadyWait::asked`].
    Ask,
    /// The session is ready.
    Ready,
}

/// The wait for the in-process servers.
#[derive(Debug)]
pub(crate) struct ReadyWait {
    servers: Vec<String>,
    deadline: Instant,
    /// The `mcp_status` question in flight.
    asking: Option<RequestId>,
    /// When to ask next, while no question is in flight.
    next_ask: Instant,
    /// Whether the tools of every server were listed when the last question was asked.
    asked_listed: bool,
}

impl ReadyWait {
    /// A wait for `servers`, from `now` until `bound` has passed.
    pub(crate) fn new(servers: Vec<String>, now: Instant, bound: Duration) -> ReadyWait {
        ReadyWait {
            servers,
            deadline: now.checked_add(bound).unwrap_or(now),
            asking: None,
            next_ask: now,
            asked_listed: false,
        }
    }

    /// What to do at `now`; `listed` says whether the CLI has listed every server's tools.
    pub(crate) fn poll(&mut self, now: Instant, listed: bool) -> ReadyStep {
        if now >= self.deadline {
            return ReadyStep::Ready;
        }
        if self.asking.is_some() {
            return ReadyStep::Wait;
        }
        if listed && !self.asked_listed {
            // The handshake just ended: ask at once.
            self.next_ask = self.next_ask.min(now);
        }
        if now < self.next_ask {
            return ReadyStep::Wait;
        }
        self.asked_listed = listed;
        ReadyStep::Ask
    }

    /// The `mcp_status` question went out as `id`.
    pub(crate) fn asked(&mut self, id: RequestId) {
        self.asking = Some(id);
    }

    /// Whether `id` is this wait's question.
    pub(crate) fn is_question(&self, id: RequestId) -> bool {
        self.asking == Some(id)
    }

    /// The answer to the question came. Returns whether the session is ready.
    pub(crate) fn answered(
        &mut self,
        now: Instant,
        outcome: Result<ResponseBody, RequestFailure>,
    ) -> bool {
        self.asking = None;
        let status = match outcome.map(|body| body.parse::<McpStatus>()) {
            Ok(Ok(status)) => status,
            // A CLI that cannot tell will not tell later either.
            _ => return true,
        };
        let settled = self.servers.iter().all(|name| {
            status
                .mcp_servers
                .iter()
                .any(|server| server.name == *name && server.status != "pending")
        });
        if !settled {
            let retry = if self.asked_listed {
                RETRY
            } else {
                RETRY_UNLISTED
            };
            self.next_ask = now.checked_add(retry).unwrap_or(now);
        }
        settled
    }

    /// When the session must look at the wait again.
    pub(crate) fn next_deadline(&self) -> Instant {
        match self.asking {
            Some(_) => self.deadline,
            None => self.next_ask.min(self.deadline),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(servers: &[(&str, &str)]) -> Result<ResponseBody, RequestFailure> {
        let list: Vec<String> = servers
            .iter()
            .map(|(name, status)| format!(r#"{{"name":"{name}","status":"{status}"}}"#))
            .collect();
        Ok(ResponseBody::from_json(&format!(r#"{{"mcpServers":[{}]}}"#, list.join(","))).unwrap())
    }

    #[test]
    fn asks_at_once_then_again_when_the_tools_are_listed_until_every_server_is_settled() {
        let start = Instant::now();
        let mut wait = ReadyWait::new(vec!["calc".into(), "db".into()], start, BOUND);
        assert_eq!(wait.poll(start, false), ReadyStep::Ask);
        wait.asked(RequestId::from_raw(1));
        assert_eq!(wait.poll(start, false), ReadyStep::Wait);
        assert!(!wait.answered(start, status(&[])));
        assert_eq!(wait.next_deadline(), start + RETRY_UNLISTED);
        // The handshake ends before the retry is due: ask at once.
        let listed_at = start + Duration::from_millis(30);
        assert_eq!(wait.poll(listed_at, true), ReadyStep::Ask);
        wait.asked(RequestId::from_raw(2));
        assert!(wait.is_question(RequestId::from_raw(2)));
        assert!(!wait.answered(
            listed_at,
            status(&[("calc", "connected"), ("db", "pending")])
        ));
        assert_eq!(wait.poll(listed_at, true), ReadyStep::Wait);
        assert_eq!(wait.poll(listed_at + RETRY, true), ReadyStep::Ask);
        wait.asked(RequestId::from_raw(3));
        let answer = status(&[
            ("calc", "connected"),
            ("db", "failed"),
            ("other", "pending"),
        ]);
        assert!(wait.answered(listed_at + RETRY, answer));
    }

    #[test]
    fn gives_up_at_the_bound_or_when_the_cli_cannot_tell() {
        let start = Instant::now();
        let mut wait = ReadyWait::new(vec!["calc".into()], start, BOUND);
        assert_eq!(wait.poll(start, false), ReadyStep::Ask);
        wait.asked(RequestId::from_raw(1));
        assert_eq!(wait.next_deadline(), start + BOUND);
        assert_eq!(wait.poll(start + BOUND, false), ReadyStep::Ready);

        let mut wait = ReadyWait::new(vec!["calc".into()], start, BOUND);
        assert_eq!(wait.poll(start, false), ReadyStep::Ask);
        wait.asked(RequestId::from_raw(1));
        let refused = Err(RequestFailure::Refused {
            message: "Unsupported control request subtype: mcp_status".into(),
            code: None,
        });
        assert!(wait.answered(start, refused));
    }
}
