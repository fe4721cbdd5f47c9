//! What the handles ask of the driver: their commands (send, a control request, a new set of
//! MCP servers, a warm session's first prompt, a claim, the end of input, close), and the
//! messages of a streaming prompt.

use std::task::{Context, Poll};
use std::time::Instant;

use futures_io::{AsyncRead, AsyncWrite};

use super::{Driver, COMMANDS_PER_PASS};
use crate::callbacks::sdk_mcp::SdkMcpServer;
use crate::error::ClaimError;
use crate::error::Error;
use crate::message::UserInput;
use crate::process::runtime::{ChildProcess, Runtime};
use crate::session::Termination;
use crate::task::message_queue::{Command, PromptKind};
use crate::task::trace::Subtype;

impl<R, C, I, O, E> Driver<R, C, I, O, E>
where
    R: Runtime,
    C: ChildProcess,
    I: AsyncWrite + Unpin,
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    pub(super) fn poll_commands(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let mut progress = false;
        for _ in 0..COMMANDS_PER_PASS {
            match self.handles.poll_command(cx) {
                Poll::Pending => return progress,
                Poll::Ready(None) => {
                    // Every handle is gone.
                    self.begin_shutdown(now, true);
                    return true;
                }
                Poll::Ready(Some(command)) => {
                    progress = true;
                    self.run_command(command, now);
                }
            }
        }
        // More may be waiting: come back after the other sources had their turn.
        cx.waker().wake_by_ref();
        progress
    }

    fn run_command(&mut self, command: Command, now: Instant) {
        match command {
            Command::Send(message, reply) => {
                let result = self.session.send_user(now, message).map_err(|error| {
                    // A session that closed itself says why (a lost fleet place, a budget),
                    // as its stream does.
                    match (Error::from_send(error), self.session.ending()) {
                        (Error::Closed, Some(reason)) => {
                            let ended = Termination::Ended(reason.clone());
                            Error::of_termination(&ended, String::new).unwrap_or(Error::Closed)
                        }
                        (error, _) => error,
                    }
                });
                if result.is_ok() {
                    self.trace.turn_started();
                }
                let _ = reply.try_send(result);
            }
            Command::Request(request, reply) => {
                let subtype = Subtype::of(&request);
                match self.session.request(now, request) {
                    Ok(id) => {
                        self.trace.request_sent(id, subtype, now);
                        self.handles.replies.request_sent(id, reply);
                    }
                    Err(error) => {
                        let _ = reply.try_send(Err(Error::from_request(error)));
                    }
                }
            }
            Command::SetMcpServers(servers, reply) => {
                let specs = servers.sdk.iter().map(SdkMcpServer::spec).collect();
                match self.session.set_mcp_servers(now, specs, &servers.external) {
                    Ok(id) => {
                        self.trace.sdk_servers(&servers.sdk);
                        self.dispatcher.set_mcp_servers(servers.sdk);
                        self.trace.request_sent(id, Subtype::mcp_set_servers(), now);
                        self.handles.replies.request_sent(id, reply);
                    }
                    Err(error) => {
                        let _ = reply.try_send(Err(Error::from_request(error)));
                    }
                }
            }
            Command::Prompt(prompt) => self.start_prompt(prompt, now),
            Command::Claim(claim, prompt, reply) => match self.session.claim(now, &claim) {
                Ok(id) => {
                    self.trace.claim_sent(id, now);
                    self.handles.replies.claim_sent(reply);
                    if let Some(prompt) = prompt {
                        self.start_prompt(prompt, now);
                    }
                }
                Err(_) => {
                    let _ = reply.try_send(Err(ClaimError::SpareExited));
                }
            },
            Command::EndInput => self.session.end_input(now),
            Command::Close => self.begin_shutdown(now, true),
        }
    }

    /// The first prompt of a warm session: a text is the one message, a stream is read as the
    /// streaming prompt of a cold session is.
    fn start_prompt(&mut self, prompt: PromptKind, now: Instant) {
        match prompt {
            PromptKind::Text(text) => {
                // A failure shows as the end of the stream (the CLI is gone).
                if self.session.send_last(now, UserInput::text(text)).is_ok() {
                    self.trace.turn_started();
                }
            }
            PromptKind::Stream(stream) => self.handles.read_input(stream),
        }
    }

    pub(super) fn poll_input(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        // Do not pull more user messages while stdin is backed up.
        if self.cli.stdin_backed_up() {
            return false;
        }
        let Some(input) = self.handles.input() else {
            return false;
        };
        match input.as_mut().poll_next(cx) {
            Poll::Pending => false,
            Poll::Ready(Some(message)) => {
                if self.session.send_user(now, message).is_err() {
                    self.handles.stop_input();
                } else {
                    self.trace.turn_started();
                }
                true
            }
            Poll::Ready(None) => {
                self.handles.stop_input();
                self.session.end_input(now);
                true
            }
        }
    }
}
