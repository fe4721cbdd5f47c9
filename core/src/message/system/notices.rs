//! `system` messages that inform the user: notifications, command output, refusals, model
//! switches, denials.

use crate::message::raw::message_struct;
use crate::Json;

message_struct! {
    /// `system`/`notification`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"notification","key":"auto-update","text":"Claude Code has been updated to 2.1.330","priority":"low","timeout_ms":5000,"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::Notification(note)) = Message::parse(line).unwrap() else { panic!("not a notification") };
    /// assert_eq!((note.key.as_str(), note.priority.as_deref(), note.timeout_ms), ("auto-update", Some("low"), Some(5000)));
    /// ```
    pub struct Notification {
        /// A key identifying the notification.
        #[serde(default)]
        pub key: String,
        /// The text.
        #[serde(default)]
        pub text: String,
        /// `low`, `medium`, `high` or `immediate`.
        #[serde(default)]
        pub priority: Option<String>,
        /// How long to show it, in milliseconds.
        #[serde(default, deserialize_with = "crate::message::lenient::optional_whole")]
        pub timeout_ms: Option<u64>,
    }
}

message_struct! {
    /// `system`/`informational`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"informational","content":"Context is 90% full; it will be compacted soon.","level":"warning","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::Informational(info)) = Message::parse(line).unwrap() else { panic!("not informational") };
    /// assert_eq!(info.level.as_deref(), Some("warning"));
    /// assert_eq!(info.prevent_continuation, None);
    /// ```
    pub struct Informational {
        /// The text.
        #[serde(default)]
        pub content: String,
        /// `info`, `notice`, `suggestion` or `warning`.
        #[serde(default)]
        pub level: Option<String>,
        /// The related tool call.
        #[serde(default)]
        pub tool_use_id: Option<String>,
        /// Whether the turn stops after this.
        #[serde(default)]
        pub prevent_continuation: Option<bool>,
        /// What kind of notice it is, for a client that sorts them (`skill_shell_hook`: a
        /// skill's shell command a hook refused, …).
        #[serde(default)]
        pub tag: Option<String>,
    }
}

message_struct! {
    /// `system`/`local_command_output`: output of a local slash command.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"local_command_output","content":"Total cost: $0.0042","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::LocalCommandOutput(output)) = Message::parse(line).unwrap() else { panic!("not local_command_output") };
    /// assert_eq!(output.content, "Total cost: $0.0042");
    /// ```
    pub struct LocalCommandOutput {
        /// The output.
        #[serde(default)]
        pub content: String,
    }
}

message_struct! {
    /// `system`/`memory_recall`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"memory_recall","mode":"select","memories":[{"path":"/home/user/.claude/projects/-tmp-ws/memory/build.md","scope":"project"}],"uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::MemoryRecall(recall)) = Message::parse(line).unwrap() else { panic!("not memory_recall") };
    /// let memories: serde_json::Value = serde_json::from_str(recall.memories.as_ref().unwrap().as_str()).unwrap();
    /// assert_eq!((recall.mode.as_str(), memories[0]["scope"].as_str()), ("select", Some("project")));
    /// ```
    pub struct MemoryRecall {
        /// `select` or `synthesize`.
        #[serde(default)]
        pub mode: String,
        /// `[{path, scope, content?}]`, as raw JSON.
        #[serde(default)]
        pub memories: Option<Json>,
    }
}

message_struct! {
    /// `system`/`elicitation_complete`: an MCP elicitation finished.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"elicitation_complete","mcp_server_name":"github","elicitation_id":"elic_01","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::ElicitationComplete(done)) = Message::parse(line).unwrap() else { panic!("not elicitation_complete") };
    /// assert_eq!((done.mcp_server_name.as_str(), done.elicitation_id.as_str()), ("github", "elic_01"));
    /// ```
    pub struct ElicitationComplete {
        /// The MCP server.
        #[serde(default)]
        pub mcp_server_name: String,
        /// The elicitation id.
        #[serde(default)]
        pub elicitation_id: String,
    }
}

message_struct! {
    /// `system`/`permission_denied`: a tool call was denied.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"toolu_fake_4_1","message":"This session may only read files.","decision_reason_type":"other","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::PermissionDenied(denied)) = Message::parse(line).unwrap() else { panic!("not permission_denied") };
    /// assert_eq!(format!("{}: {}", denied.tool_name, denied.message), "Bash: This session may only read files.");
    /// assert_eq!(denied.agent_id, None);
    /// ```
    pub struct PermissionDenied {
        /// The tool.
        #[serde(default)]
        pub tool_name: String,
        /// The tool-use id.
        #[serde(default)]
        pub tool_use_id: String,
        /// The explanation.
        #[serde(default)]
        pub message: String,
        /// The kind of decision that denied it.
        #[serde(default)]
        pub decision_reason_type: Option<String>,
        /// Why it was denied.
        #[serde(default)]
        pub decision_reason: Option<String>,
        /// The subagent that made the call.
        #[serde(default)]
        pub agent_id: Option<String>,
    }
}

message_struct! {
    /// `system`/`model_refusal_fallback`: the model refused and another model was used.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"model_refusal_fallback","direction":"retry","original_model":"claude-opus-4-5","fallback_model":"claude-sonnet-4-5","request_id":"req_011CV1","api_refusal_category":"cyber","content":"Retrying with claude-sonnet-4-5","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::ModelRefusalFallback(swap)) = Message::parse(line).unwrap() else { panic!("not model_refusal_fallback") };
    /// assert_eq!((swap.original_model.as_str(), swap.fallback_model.as_str()), ("claude-opus-4-5", "claude-sonnet-4-5"));
    /// assert_eq!(swap.direction.as_deref(), Some("retry"));
    /// ```
    pub struct ModelRefusalFallback {
        /// `retry`, `revert` or `sticky`.
        #[serde(default)]
        pub direction: Option<String>,
        /// The model that refused.
        #[serde(default)]
        pub original_model: String,
        /// The model used instead.
        #[serde(default)]
        pub fallback_model: String,
        /// The API request id.
        #[serde(default)]
        pub request_id: Option<String>,
        /// The refusal category.
        #[serde(default)]
        pub api_refusal_category: Option<String>,
        /// The text shown to the user.
        #[serde(default)]
        pub content: String,
    }
}

message_struct! {
    /// `system`/`model_refusal_no_fallback`: the model refused and no fallback was available.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"model_refusal_no_fallback","original_model":"claude-opus-4-5","request_id":"req_011CV2","api_refusal_category":"cyber","content":"Claude declined this request.","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::ModelRefusalNoFallback(refusal)) = Message::parse(line).unwrap() else { panic!("not model_refusal_no_fallback") };
    /// assert_eq!(refusal.content, "Claude declined this request.");
    /// assert_eq!(refusal.request_id.as_deref(), Some("req_011CV2"));
    /// ```
    pub struct ModelRefusalNoFallback {
        /// The model that refused.
        #[serde(default)]
        pub original_model: String,
        /// The API request id.
        #[serde(default)]
        pub request_id: Option<String>,
        /// The refusal category.
        #[serde(default)]
        pub api_refusal_category: Option<String>,
        /// The text shown to the user.
        #[serde(default)]
        pub content: String,
    }
}

message_struct! {
    /// `system`/`model_fallback`: this turn moved to the fallback model because the primary model
    /// failed.
    ///
    /// Sent when a fallback model is set ([`AgentConfig::fallback_model`], the CLI's
    /// `--fallback-model`) and a request on the primary model fails in a way that retrying it
    /// will not fix soon: the model is unknown or retired, the account may not use it, the API
    /// stays overloaded (repeated `529`s; the retries before the switch come as [`ApiRetry`]
    /// messages), or a server error. It comes before the fallback model's reply. The switch lasts for this turn
    /// only: the next turn tries the primary model again.
    ///
    /// [`AgentConfig::fallback_model`]: crate::options::AgentConfig::fallback_model
    /// [`ApiRetry`]: super::ApiRetry
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"model_fallback","trigger":"overloaded","original_model":"claude-opus-4-5","fallback_model":"claude-sonnet-4-5","content":"Switched to claude-sonnet-4-5 due to high demand for claude-opus-4-5","session_id":"s","uuid":"u"}"#;
    /// let Message::System(SystemMessage::ModelFallback(fallback)) = Message::parse(line).unwrap() else {
    ///     panic!("not a model_fallback")
    /// };
    /// assert_eq!(fallback.trigger, "overloaded");
    /// println!("{} → {}: {}", fallback.original_model, fallback.fallback_model, fallback.content);
    /// ```
    pub struct ModelFallback {
        /// Why the CLI switched: `model_not_found` (the model is unknown or retired),
        /// `permission_denied` (the account may not use it), `overloaded` (repeated `529`s),
        /// `server_error` (a `5xx` worth switching for), `last_resort` (an error the CLI does not
        /// retry), `model_blocked` (the model is switched off), or a reason newer than this list.
        #[serde(default)]
        pub trigger: String,
        /// The model that failed.
        #[serde(default)]
        pub original_model: String,
        /// The model this turn goes on with.
        #[serde(default)]
        pub fallback_model: String,
        /// The notice to show the user, e.g. `Switched to … due to high demand for …`.
        #[serde(default)]
        pub content: String,
    }
}

message_struct! {
    /// `system`/`model_consent_fallback`: the session left the requested model because using it
    /// needs the user's consent (such as agreeing to pay for usage credits), and that consent was
    /// declined, dismissed or could not take effect.
    ///
    /// Sent before the turn's request, instead of sending it to the requested model. Unlike
    /// [`ModelFallback`], the switch lasts for the rest of the session, and with
    /// `persisted_as_default` it also became the user's saved default model. When the user
    /// consents and the model stays, no such message comes.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"model_consent_fallback","choice":"cancelled","original_model":"claude-opus-5","fallback_model":"claude-opus-4-5","persisted_as_default":false,"content":"Using claude-opus-4-5 instead","session_id":"s","uuid":"u"}"#;
    /// let Message::System(SystemMessage::ModelConsentFallback(swap)) = Message::parse(line).unwrap() else {
    ///     panic!("not a model_consent_fallback")
    /// };
    /// assert_eq!((swap.choice.as_str(), swap.fallback_model.as_str()), ("cancelled", "claude-opus-4-5"));
    /// assert!(!swap.persisted_as_default);
    /// ```
    pub struct ModelConsentFallback {
        /// The answer that led to the switch: `consent` (given, but what it needed did not come
        /// through), `switch_default` (the user chose another model) or `cancelled` (dismissed,
        /// or no prompt could be shown).
        #[serde(default)]
        pub choice: String,
        /// The model the session asked for.
        #[serde(default)]
        pub original_model: String,
        /// The product name of `original_model`, for a host that words its own notice.
        #[serde(default)]
        pub original_model_name: Option<String>,
        /// The model the session goes on with.
        #[serde(default)]
        pub fallback_model: String,
        /// Whether the switch also replaced the user's saved default model.
        #[serde(default)]
        pub persisted_as_default: bool,
        /// The notice to show the user.
        #[serde(default)]
        pub content: String,
    }
}

message_struct! {
    /// `system`/`mirror_error`: a batch of transcript lines could not be stored in the session
    /// store (its append failed 3 times, or timed out). The SDK makes this message, not the CLI;
    /// the session goes on, and the CLI's own transcript on disk is complete. The store may be
    /// missing the batch: `store::import_session`
    /// copies the session again.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"mirror_error","error":"session store failed: disk full","key":{"project_key":"-home-me-app","session_id":"s1"},"uuid":"u","session_id":"s1"}"#;
    /// let Message::System(SystemMessage::MirrorError(error)) = Message::parse(line).unwrap() else { panic!("not a mirror error") };
    /// assert_eq!(error.error, "session store failed: disk full");
    /// assert_eq!(error.key.as_ref().map(|k| k.session_id.as_str()), Some("s1"));
    /// ```
    pub struct MirrorError {
        /// What the store said.
        #[serde(default)]
        pub error: String,
        /// The transcript whose lines were not stored.
        #[serde(default)]
        pub key: Option<crate::SessionKey>,
    }
}
