//! What the handles ask of the session: their commands (send, a control request, a new set of
//! MCP servers, a warm session's first prompt, a claim, the end of input, close), and the
//! messages of a streaming prompt. Each becomes a call on the [`Session`]; its answer goes back
//! to the handle that asked, and the trace is told.

use std::task::{Context, Poll};
use std::time::Instant;

use super::HandlesSide;
use crate::callbacks::dispatch::Dispatcher;
use crate::callbacks::sdk_mcp::SdkMcpServer;
use crate::error::ClaimError;
use crate::error::Error;
use crate::message::UserInput;
use crate::session::{Session, Termination};
use crate::task::message_queue::{Command, PromptKind};
use crate::task::trace::{Subtype, Trace};

/// Commands taken per pass.
const COMMANDS_PER_PASS: usize = 32;

impl HandlesSide {
    /// Run the handles' commands: `dispatcher` takes a new set of the SDK's MCP servers.
    pub(crate) fn poll_commands(
        &mut self,
        cx: &mut Context<'_>,
        now: Instant,
        session: &mut Session,
        trace: &mut Trace,
        dispatcher: &mut Dispatcher,
    ) -> bool {
        let mut progress = false;
        for _ in 0..COMMANDS_PER_PASS {
            match self.poll_command(cx) {
                Poll::Pending => return progress,
                Poll::Ready(None) => {
                    // Every handle is gone.
                    self.close(session, now);
                    return true;
                }
                Poll::Ready(Some(command)) => {
                    progress = true;
                    self.run_command(command, now, session, trace, dispatcher);
                }
            }
        }
        // More may be waiting: come back after the other sources had their turn.
        cx.waker().wake_by_ref();
        progress
    }

    fn run_command(
        &mut self,
        command: Command,
        now: Instant,
        session: &mut Session,
        trace: &mut Trace,
        dispatcher: &mut Dispatcher,
    ) {
        match command {
            Command::Send(message, reply) => {
                let result = session.send_user(now, message).map_err(|error| {
                    // A session that closed itself says why (a lost fleet place, a budget),
                    // as its stream does.
                    match (Error::from_send(error), session.ending()) {
                        (Error::Closed, Some(reason)) => {
                            let ended = Termination::Ended(reason.clone());
                            Error::of_termination(&ended, String::new).unwrap_or(Error::Closed)
                        }
                        (error, _) => error,
                    }
                });
                if result.is_ok() {
                    trace.turn_started();
                }
                let _ = reply.try_send(result);
            }
            Command::Request(request, reply) => {
                let subtype = Subtype::of(&request);
                match session.request(now, request) {
                    Ok(id) => {
                        trace.request_sent(id, subtype, now);
                        self.replies.request_sent(id, reply);
                    }
                    Err(error) => {
                        let _ = reply.try_send(Err(Error::from_request(error)));
                    }
                }
            }
            Command::SetMcpServers(servers, reply) => {
                let specs = servers.sdk.iter().map(SdkMcpServer::spec).collect();
                match session.set_mcp_servers(now, specs, &servers.external) {
                    Ok(id) => {
                        trace.sdk_servers(&servers.sdk);
                        dispatcher.set_mcp_servers(servers.sdk);
                        trace.request_sent(id, Subtype::mcp_set_servers(), now);
                        self.replies.request_sent(id, reply);
                    }
                    Err(error) => {
                        let _ = reply.try_send(Err(Error::from_request(error)));
                    }
                }
            }
            Command::Prompt(prompt) => self.start_prompt(prompt, now, session, trace),
            Command::Claim(claim, prompt, reply) => match session.claim(now, &claim) {
                Ok(id) => {
                    trace.claim_sent(id, now);
                    self.replies.claim_sent(reply);
                    if let Some(prompt) = prompt {
                        self.start_prompt(prompt, now, session, trace);
                    }
                }
                Err(_) => {
                    let _ = reply.try_send(Err(ClaimError::SpareExited));
                }
            },
            Command::EndInput => session.end_input(now),
            Command::Close => self.close(session, now),
        }
    }

    /// The first prompt of a warm session: a text is the one message, a stream is read as the
    /// streaming prompt of a cold session is.
    fn start_prompt(
        &mut self,
        prompt: PromptKind,
        now: Instant,
        session: &mut Session,
        trace: &mut Trace,
    ) {
        match prompt {
            PromptKind::Text(text) => {
                // A failure shows as the end of the stream (the CLI is gone).
                if session.send_last(now, UserInput::text(text)).is_ok() {
                    trace.turn_started();
                }
            }
            PromptKind::Stream(stream) => self.input = Some(stream),
        }
    }

    /// Send the streaming prompt's next message; its end is the end of input. The caller asks
    /// only while stdin has room.
    pub(crate) fn poll_input(
        &mut self,
        cx: &mut Context<'_>,
        now: Instant,
        session: &mut Session,
        trace: &mut Trace,
    ) -> bool {
        let Some(input) = self.input.as_mut() else {
            return false;
        };
        match input.as_mut().poll_next(cx) {
            Poll::Pending => false,
            Poll::Ready(Some(message)) => {
                if session.send_user(now, message).is_err() {
                    self.stop_input();
                } else {
                    trace.turn_started();
                }
                true
            }
            Poll::Ready(None) => {
                self.stop_input();
                session.end_input(now);
                true
            }
        }
    }

    /// The application closed the session: the session stops the CLI (unless it has finished
    /// already), and the streaming prompt is dropped unread.
    fn close(&mut self, session: &mut Session, now: Instant) {
        if !self.has_ended() {
            session.close(now);
        }
        self.stop_input();
    }
}
