//! `system` messages about the session itself: state, status, retries, compaction, persistence.

use crate::message::raw::message_struct;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

message_struct! {
    /// `system`/`status`.
    pub struct Status {
        /// `compacting`, `requesting`, or `None`.
        #[serde(default)]
        pub status: Option<String>,
        /// The permission mode (`permissionMode`).
        #[serde(default, rename = "permissionMode")]
        pub permission_mode: Option<String>,
    }
}

message_struct! {
    /// `system`/`api_retry`: an API call failed and will be retried.
    pub struct ApiRetry {
        /// This attempt's number.
        #[serde(default)]
        pub attempt: u32,
        /// The retry limit.
        #[serde(default)]
        pub max_retries: u32,
        /// Delay before the retry, in milliseconds.
        #[serde(default, deserialize_with = "crate::message::lenient::whole")]
        pub retry_delay_ms: u64,
        /// The HTTP status, if a response arrived.
        #[serde(default)]
        pub error_status: Option<u16>,
        /// The error, as raw JSON.
        #[serde(default)]
        pub error: Option<Box<RawValue>>,
    }
}

message_struct! {
    /// `system`/`compact_boundary`: the conversation was compacted here.
    pub struct CompactBoundary {
        /// `{trigger: manual|auto, pre_tokens, …}`, as raw JSON.
        #[serde(default)]
        pub compact_metadata: Option<Box<RawValue>>,
    }
}

message_struct! {
    /// `system`/`session_state_changed`.
    pub struct SessionStateChanged {
        /// The new state.
        pub state: SessionState,
        /// Set on frames meant only for the SDK host (not shown to users by the official SDKs).
        #[serde(default)]
        pub sdk_host_only: bool,
    }
}

/// The state of a [`SessionStateChanged`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionState {
    /// `idle`: the CLI waits for input.
    Idle,
    /// `running`: a turn is in progress.
    Running,
    /// `requires_action`: the CLI waits for an answer (a permission prompt, …).
    RequiresAction,
    /// A state this crate does not know.
    Other(String),
}

impl SessionState {
    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            SessionState::Idle => "idle",
            SessionState::Running => "running",
            SessionState::RequiresAction => "requires_action",
            SessionState::Other(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for SessionState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "idle" => SessionState::Idle,
            "running" => SessionState::Running,
            "requires_action" => SessionState::RequiresAction,
            _ => SessionState::Other(s),
        })
    }
}

message_struct! {
    /// `system`/`files_persisted`.
    pub struct FilesPersisted {
        /// `[{filename, file_id}]`, as raw JSON.
        #[serde(default)]
        pub files: Option<Box<RawValue>>,
        /// `[{filename, error}]`, as raw JSON.
        #[serde(default)]
        pub failed: Option<Box<RawValue>>,
    }
}

message_struct! {
    /// `system`/`thinking_tokens`: an estimate of thinking tokens so far.
    pub struct ThinkingTokens {
        /// Estimated thinking tokens.
        #[serde(default)]
        pub estimated_tokens: u64,
        /// Change since the previous estimate.
        #[serde(default)]
        pub estimated_tokens_delta: i64,
    }
}

message_struct! {
    /// `system`/`commands_changed`: the slash commands changed.
    pub struct CommandsChanged {
        /// The commands (`[{name, description, argumentHint}]`), as raw JSON.
        #[serde(default)]
        pub commands: Option<Box<RawValue>>,
    }
}

message_struct! {
    /// `system`/`plugin_install`.
    pub struct PluginInstall {
        /// `started`, `installed`, `failed` or `completed`.
        #[serde(default)]
        pub status: String,
        /// The plugin name.
        #[serde(default)]
        pub name: Option<String>,
        /// The error, when it failed.
        #[serde(default)]
        pub error: Option<String>,
    }
}

message_struct! {
    /// `system`/`control_request_progress`: progress of a slow control request.
    pub struct ControlRequestProgress {
        /// The control request's id.
        #[serde(default)]
        pub request_id: String,
        /// `started` or `api_retry`.
        #[serde(default)]
        pub status: String,
        /// The retry attempt.
        #[serde(default)]
        pub attempt: Option<u32>,
    }
}

message_struct! {
    /// `system`/`worker_shutting_down`.
    pub struct WorkerShuttingDown {
        /// Why.
        #[serde(default)]
        pub reason: String,
    }
}

message_struct! {
    /// `system`/`session_writes_lost`: the transcript could not be written.
    pub struct SessionWritesLost {
        /// `ENOSPC` or `EDQUOT`.
        #[serde(default)]
        pub error_code: String,
        /// What was lost, as raw JSON.
        #[serde(default)]
        pub lost: Option<Box<RawValue>>,
    }
}
