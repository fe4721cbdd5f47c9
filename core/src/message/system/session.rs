//! `system` messages about the session itself: state, status, retries, compaction, persistence.

use std::fmt;
use std::time::Duration;

use crate::message::raw::message_struct;
use crate::message::ApiError;
use crate::Json;
use crate::UnknownName;
use serde::{Deserialize, Deserializer};

message_struct! {
    /// `system`/`status`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"status","status":"requesting","session_id":"f89550ef-8444-4a3f-9393-f1d96094a371","uuid":"fb82ac72-8383-4f03-9c89-e8cd6c0f323b"}"#;
    /// let Message::System(SystemMessage::Status(status)) = Message::parse(line).unwrap() else { panic!("not status") };
    /// assert_eq!(status.status.as_deref(), Some("requesting"));
    /// assert_eq!(status.permission_mode, None);
    /// ```
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
    /// `system`/`api_retry`: an API call failed and will be retried. Its `Display` is the line an
    /// app can show while it waits.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::message::{ApiError, Message, SystemMessage};
    ///
    /// // What CLI 2.1.331 wrote for a 429 it would retry.
    /// let line = r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":8000,"error_status":429,"error":"rate_limit","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::ApiRetry(retry)) = Message::parse(line).unwrap() else { panic!("not api_retry") };
    /// assert_eq!(retry.error, Some(ApiError::RateLimit));
    /// assert_eq!(retry.retry_in(), Duration::from_secs(8));
    /// assert_eq!(retry.to_string(), "API call failed (HTTP 429, rate_limit): retry 1 of 10 in 8.0 s");
    /// ```
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
        /// The HTTP status, if a response arrived (`None` for a connection error or time-out).
        #[serde(default)]
        pub error_status: Option<u16>,
        /// How the CLI classified the failure.
        #[serde(default)]
        pub error: Option<ApiError>,
    }
}

impl ApiRetry {
    /// How long the CLI waits before it tries again.
    pub fn retry_in(&self) -> Duration {
        Duration::from_millis(self.retry_delay_ms)
    }
}

impl fmt::Display for ApiRetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("API call failed (")?;
        match (self.error_status, &self.error) {
            (Some(status), Some(error)) => write!(f, "HTTP {status}, {error}")?,
            (Some(status), None) => write!(f, "HTTP {status}")?,
            (None, Some(error)) => write!(f, "{error}, no response")?,
            (None, None) => f.write_str("no response")?,
        }
        write!(
            f,
            "): retry {} of {} in {:.1} s",
            self.attempt,
            self.max_retries,
            self.retry_in().as_secs_f64()
        )
    }
}

message_struct! {
    /// `system`/`compact_boundary`: the conversation was compacted here.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":167000},"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::CompactBoundary(boundary)) = Message::parse(line).unwrap() else { panic!("not compact_boundary") };
    /// let meta: serde_json::Value = serde_json::from_str(boundary.compact_metadata.as_ref().unwrap().as_str()).unwrap();
    /// assert_eq!((meta["trigger"].as_str(), meta["pre_tokens"].as_u64()), (Some("auto"), Some(167000)));
    /// ```
    pub struct CompactBoundary {
        /// `{trigger: manual|auto, pre_tokens, …}`, as raw JSON. A transcript on disk names it
        /// `compactMetadata`, with its fields in camelCase (`preTokens`).
        #[serde(default, alias = "compactMetadata")]
        pub compact_metadata: Option<Json>,
    }
}

message_struct! {
    /// `system`/`session_state_changed`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SessionState, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"session_state_changed","state":"requires_action","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::SessionStateChanged(change)) = Message::parse(line).unwrap() else { panic!("not session_state_changed") };
    /// assert_eq!(change.state, SessionState::RequiresAction);
    /// assert!(!change.sdk_host_only);
    /// ```
    pub struct SessionStateChanged {
        /// The new state.
        pub state: SessionState,
        /// Set on frames meant only for the SDK host (not shown to users by the official SDKs).
        #[serde(default)]
        pub sdk_host_only: bool,
    }
}

/// The state of a [`SessionStateChanged`].
///
/// ```
/// use claude_agent_tokio::message::SessionState;
///
/// fn label(state: &SessionState) -> &str {
///     match state {
///         SessionState::Idle => "ready",
///         SessionState::Running => "working…",
///         SessionState::RequiresAction => "waiting for you",
///         other => other.as_str(), // a state newer than this crate, by its wire name
///     }
/// }
///
/// let state: SessionState = serde_json::from_str(r#""requires_action""#).unwrap();
/// assert_eq!((label(&state), state.as_str()), ("waiting for you", "requires_action"));
/// let newer: SessionState = serde_json::from_str(r#""dreaming""#).unwrap();
/// assert_eq!(newer.as_str(), "dreaming");
/// assert_eq!(label(&newer), "dreaming");
/// ```
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
    Other(UnknownName),
}

impl SessionState {
    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            SessionState::Idle => "idle",
            SessionState::Running => "running",
            SessionState::RequiresAction => "requires_action",
            SessionState::Other(name) => name.as_str(),
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
            _ => SessionState::Other(UnknownName::new(s)),
        })
    }
}

message_struct! {
    /// `system`/`files_persisted`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"files_persisted","files":[{"filename":"report.md","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}],"failed":[],"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::FilesPersisted(persisted)) = Message::parse(line).unwrap() else { panic!("not files_persisted") };
    /// let files: serde_json::Value = serde_json::from_str(persisted.files.as_ref().unwrap().as_str()).unwrap();
    /// assert_eq!(files[0]["filename"], "report.md");
    /// ```
    pub struct FilesPersisted {
        /// `[{filename, file_id}]`, as raw JSON.
        #[serde(default)]
        pub files: Option<Json>,
        /// `[{filename, error}]`, as raw JSON.
        #[serde(default)]
        pub failed: Option<Json>,
    }
}

message_struct! {
    /// `system`/`thinking_tokens`: an estimate of thinking tokens so far.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"thinking_tokens","estimated_tokens":1536,"estimated_tokens_delta":512,"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::ThinkingTokens(thinking)) = Message::parse(line).unwrap() else { panic!("not thinking_tokens") };
    /// assert_eq!((thinking.estimated_tokens, thinking.estimated_tokens_delta), (1536, 512));
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"commands_changed","commands":[{"name":"review","description":"Review a pull request","argumentHint":"<pr>"}],"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::CommandsChanged(changed)) = Message::parse(line).unwrap() else { panic!("not commands_changed") };
    /// let commands: serde_json::Value = serde_json::from_str(changed.commands.as_ref().unwrap().as_str()).unwrap();
    /// assert_eq!(commands[0]["name"], "review");
    /// ```
    pub struct CommandsChanged {
        /// The commands (`[{name, description, argumentHint}]`), as raw JSON.
        #[serde(default)]
        pub commands: Option<Json>,
    }
}

message_struct! {
    /// `system`/`plugin_install`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"plugin_install","status":"failed","name":"formatter","error":"marketplace not found: acme","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::PluginInstall(install)) = Message::parse(line).unwrap() else { panic!("not plugin_install") };
    /// assert_eq!((install.status.as_str(), install.name.as_deref()), ("failed", Some("formatter")));
    /// assert_eq!(install.error.as_deref(), Some("marketplace not found: acme"));
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"control_request_progress","request_id":"req_3","status":"api_retry","attempt":2,"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::ControlRequestProgress(progress)) = Message::parse(line).unwrap() else { panic!("not control_request_progress") };
    /// assert_eq!((progress.request_id.as_str(), progress.status.as_str(), progress.attempt), ("req_3", "api_retry", Some(2)));
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"worker_shutting_down","reason":"idle timeout","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::WorkerShuttingDown(shutdown)) = Message::parse(line).unwrap() else { panic!("not worker_shutting_down") };
    /// assert_eq!(shutdown.reason, "idle timeout");
    /// ```
    pub struct WorkerShuttingDown {
        /// Why.
        #[serde(default)]
        pub reason: String,
    }
}

message_struct! {
    /// `system`/`session_writes_lost`: the transcript could not be written.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"session_writes_lost","error_code":"ENOSPC","lost":{"entries":3},"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::SessionWritesLost(lost)) = Message::parse(line).unwrap() else { panic!("not session_writes_lost") };
    /// assert_eq!(lost.error_code, "ENOSPC");
    /// ```
    pub struct SessionWritesLost {
        /// `ENOSPC` or `EDQUOT`.
        #[serde(default)]
        pub error_code: String,
        /// What was lost, as raw JSON.
        #[serde(default)]
        pub lost: Option<Json>,
    }
}
