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
