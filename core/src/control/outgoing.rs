use serde::Serialize;
use serde_json::value::RawValue;

use crate::permission::PermissionMode;

/// A control request the host sends to the CLI.
///
/// `initialize` is not here: the session sends it by itself, from its
/// [`crate::session::SessionConfig`].
///
/// ```
/// # use claude_agent_core::control::ControlRequest;
/// let req = ControlRequest::SetModel { model: Some("claude-sonnet-4-5".into()) };
/// assert_eq!(req.subtype(), "set_model");
/// assert_eq!(req.body_json(), r#"{"subtype":"set_model","model":"claude-sonnet-4-5"}"#);
/// ```
///
/// A subtype this crate has no variant for goes as [`ControlRequest::Raw`]:
///
/// ```
/// # use claude_agent_core::control::ControlRequest;
/// # use serde_json::value::RawValue;
/// let req = ControlRequest::Raw {
///     subtype: "reload_plugins".into(),
///     body: RawValue::from_string("{}".into()).unwrap(),
/// };
/// assert_eq!(req.subtype(), "reload_plugins");
/// assert_eq!(req.body_json(), r#"{"subtype":"reload_plugins"}"#);
/// ```
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ControlRequest {
    /// Stop the current turn. The CLI answers with an [`super::InterruptReceipt`] and then ends
    /// the turn with an error `result`.
    Interrupt,
    /// Change the permission mode for the rest of the session.
    SetPermissionMode {
        /// The new mode.
        mode: PermissionMode,
    },
    /// Change the model; `None` goes back to the default model.
    SetModel {
        /// Model name or alias.
        model: Option<String>,
    },
    /// Change the thinking budget; `None` clears it.
    SetMaxThinkingTokens {
        /// Token budget for extended thinking.
        max_thinking_tokens: Option<u64>,
        /// How thinking is shown, if set.
        #[serde(skip_serializing_if = "Option::is_none")]
        thinking_display: Option<ThinkingDisplay>,
    },
    /// Undo file changes made after a user message (needs file checkpointing).
    RewindFiles {
        /// The `uuid` of the user message to rewind to.
        user_message_id: String,
        /// Only report what would change.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        dry_run: bool,
    },
    /// Ask for the state of every MCP server.
    McpStatus,
    /// Reconnect one MCP server.
    #[serde(rename = "mcp_reconnect")]
    McpReconnect {
        /// The server's name.
        #[serde(rename = "serverName")]
        server_name: String,
    },
    /// Enable or disable one MCP server.
    #[serde(rename = "mcp_toggle")]
    McpToggle {
        /// The server's name.
        #[serde(rename = "serverName")]
        server_name: String,
        /// Whether it should be enabled.
        enabled: bool,
    },
    /// Replace the set of dynamically added MCP servers: `{name: config}`.
    #[serde(rename = "mcp_set_servers")]
    McpSetServers {
        /// Server configurations by name, as the `--mcp-config` JSON would hold them.
        servers: Box<RawValue>,
    },
    /// Stop a background task.
    StopTask {
        /// The task's id from `system/task_started`.
        task_id: String,
    },
    /// Ask how the context window is used.
    GetContextUsage {
        /// How much detail to return.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<ContextUsageDetail>,
    },
    /// Any other subtype, with its fields. `body` must be a JSON object; `subtype` is added to it.
    #[serde(skip)]
    Raw {
        /// The request subtype.
        subtype: String,
        /// The other request fields, as a JSON object.
        body: Box<RawValue>,
    },
}

/// How thinking is displayed (`thinking_display`).
///
/// ```
/// use claude_agent_core::control::{ControlRequest, ThinkingDisplay};
///
/// let request = ControlRequest::SetMaxThinkingTokens {
///     max_thinking_tokens: Some(8000),
///     thinking_display: Some(ThinkingDisplay::Summarized),
/// };
/// assert_eq!(
///     request.body_json(),
///     r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":8000,"thinking_display":"summarized"}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ThinkingDisplay {
    /// Summaries of the thinking.
    Summarized,
    /// No thinking shown.
    Omitted,
    /// Highlights only.
    Highlights,
}

/// Detail level of a context-usage answer.
///
/// ```
/// use claude_agent_core::control::{ContextUsageDetail, ControlRequest};
///
/// let request = ControlRequest::GetContextUsage { detail: Some(ContextUsageDetail::Summary) };
/// assert_eq!(request.body_json(), r#"{"subtype":"get_context_usage","detail":"summary"}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ContextUsageDetail {
    /// Category totals.
    Summary,
    /// Everything the CLI reports.
    Full,
}

impl ControlRequest {
    /// The wire `subtype` of this request.
    pub fn subtype(&self) -> &str {
        match self {
            ControlRequest::Interrupt => "interrupt",
            ControlRequest::SetPermissionMode { .. } => "set_permission_mode",
            ControlRequest::SetModel { .. } => "set_model",
            ControlRequest::SetMaxThinkingTokens { .. } => "set_max_thinking_tokens",
            ControlRequest::RewindFiles { .. } => "rewind_files",
            ControlRequest::McpStatus => "mcp_status",
            ControlRequest::McpReconnect { .. } => "mcp_reconnect",
            ControlRequest::McpToggle { .. } => "mcp_toggle",
            ControlRequest::McpSetServers { .. } => "mcp_set_servers",
            ControlRequest::StopTask { .. } => "stop_task",
            ControlRequest::GetContextUsage { .. } => "get_context_usage",
            ControlRequest::Raw { subtype, .. } => subtype,
        }
    }

    /// The `request` object of the envelope, as JSON text.
    ///
    /// A [`ControlRequest::Raw`] whose body is not a JSON object is sent as `{"subtype":…}` alone.
    pub fn body_json(&self) -> String {
        match self {
            ControlRequest::Raw { subtype, body } => {
                let mut fields: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(body.get()).unwrap_or_default();
                fields.insert("subtype".into(), serde_json::Value::String(subtype.clone()));
                serde_json::to_string(&fields).expect("a JSON map always serializes")
            }
            other => serde_json::to_string(other).expect("control requests always serialize"),
        }
    }
}
