//! The sans-IO protocol state machine.
//!
//! A [`Session`] performs no I/O, reads no clock, spawns nothing and holds no callbacks. The host
//! feeds it what happened (stdout bytes, end of stdout, process exit, the current time) and
//! drains what it must do (bytes for stdin, events, the next deadline).

mod config;
mod error;
mod event;

pub use config::{
    HookFailurePolicy, HookMatcherConfig, HookRef, InputMode, Limits, SessionConfig, Timeouts,
};
pub use error::{RequestError, RespondError, SendError};
pub use event::{CloseCause, Event, ExitStatusInfo, LineError, ResultError, Termination, Transmit};

/// The protocol state machine of one CLI process.
#[derive(Debug)]
pub struct Session {
    config: SessionConfig,
}

impl Session {
    /// A session for a freshly spawned CLI.
    pub fn new(config: SessionConfig, now: std::time::Instant) -> Session {
        let _ = now;
        Session { config }
    }

    /// The configuration the session was made with.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }
}

// Method signatures of the public API; bodies land with the state machine.
#[allow(unused_variables)]
impl Session {
    /// Feed bytes read from the CLI's stdout, in any chunking. Never panics.
    pub fn handle_stdout(&mut self, now: std::time::Instant, bytes: &[u8]) {}
    /// The CLI's stdout reached end of file.
    pub fn handle_stdout_eof(&mut self, now: std::time::Instant) {}
    /// The CLI process exited.
    pub fn handle_exit(&mut self, now: std::time::Instant, status: ExitStatusInfo) {}
    /// Time passed; call when `now >= poll_timeout()`.
    pub fn handle_timeout(&mut self, now: std::time::Instant) {}
    /// Queue a user message for stdin.
    pub fn send_user(
        &mut self,
        now: std::time::Instant,
        msg: crate::message::UserInput,
    ) -> Result<(), SendError> {
        Ok(())
    }
    /// Send a control request; its outcome comes as [`Event::RequestDone`] with the returned id.
    pub fn request(
        &mut self,
        now: std::time::Instant,
        req: crate::control::ControlRequest,
    ) -> Result<crate::control::RequestId, RequestError> {
        Err(RequestError::Closed)
    }
    /// Answer an inbound request.
    pub fn respond(
        &mut self,
        now: std::time::Instant,
        id: crate::control::InboundId,
        reply: crate::control::Reply,
    ) -> Result<(), RespondError> {
        Ok(())
    }
    /// No more user messages: close stdin once the run has ended.
    pub fn end_input(&mut self, now: std::time::Instant) {}
    /// Stop now: close stdin at once and fail everything pending with `ClosedByHost`.
    pub fn close(&mut self, now: std::time::Instant) {}
    /// Next bytes to write to stdin, or `CloseStdin`. Call after every input or command.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        None
    }
    /// Next event. Call after every input or command until `None`.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        None
    }
    /// When to call `handle_timeout` next.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<std::time::Instant> {
        None
    }
    /// Whether the host should read more stdout (false while the event queue is full).
    #[must_use]
    pub fn wants_read(&self) -> bool {
        true
    }
    /// The id of the `initialize` request sent at construction.
    pub fn initialize_id(&self) -> crate::control::RequestId {
        crate::control::RequestId::from_raw(0)
    }
    /// The CLI's answer to `initialize`, once it came.
    pub fn server_info(&self) -> Option<&crate::control::InitializeResponse> {
        None
    }
    /// Whether the session is over (`Event::Finished` was queued).
    pub fn is_finished(&self) -> bool {
        false
    }
}
