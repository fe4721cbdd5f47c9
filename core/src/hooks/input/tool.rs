//! Inputs of the tool events: `PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `PostToolBatch`,
//! `PermissionRequest` and `PermissionDenied`.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::HookBase;
use crate::permission::{McpServerOrigin, PermissionUpdate};

/// `PreToolUse`: a tool is about to run.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PreToolUseInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool, e.g. `Bash`.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Box<RawValue>,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

/// `PostToolUse`: a tool ran successfully.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PostToolUseInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Box<RawValue>,
    /// What the tool returned.
    pub tool_response: Box<RawValue>,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// How long the tool ran, in milliseconds.
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

/// `PostToolUseFailure`: a tool failed.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PostToolUseFailureInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Box<RawValue>,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// The error text.
    pub error: String,
    /// Whether the tool was interrupted.
    #[serde(default)]
    pub is_interrupt: Option<bool>,
    /// How long the tool ran, in milliseconds.
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

/// `PostToolBatch`: a batch of tool calls finished.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PostToolBatchInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The calls of the batch.
    pub tool_calls: Vec<BatchedToolCall>,
}

/// One call of a [`PostToolBatchInput`].
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct BatchedToolCall {
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Box<RawValue>,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// What the tool returned, if it returned.
    #[serde(default)]
    pub tool_response: Option<Box<RawValue>>,
}

/// `PermissionRequest`: the CLI would show a permission prompt.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PermissionRequestInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Box<RawValue>,
    /// Rule changes the CLI would offer.
    #[serde(default)]
    pub permission_suggestions: Vec<PermissionUpdate>,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

/// `PermissionDenied`: the permission system refused a tool call.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PermissionDeniedInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Box<RawValue>,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// Why it was denied.
    pub reason: String,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

impl PreToolUseInput {
    /// The tool's input read as `T`: the tool's own argument type, or [`serde_json::Value`].
    /// Fails when the input does not fit `T`.
    ///
    /// ```
    /// # use claude_agent_core::hooks::PreToolUseInput;
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let input: PreToolUseInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}"#,
    /// )
    /// .unwrap();
    /// let bash: Bash = input.tool_input_as().unwrap();
    /// assert_eq!(bash.command, "ls");
    /// assert!(input.tool_input_as::<Vec<String>>().is_err());
    /// ```
    pub fn tool_input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.tool_input.get())
    }
}

impl PostToolUseInput {
    /// The tool's input read as `T`: the tool's own argument type, or [`serde_json::Value`].
    /// Fails when the input does not fit `T`.
    ///
    /// ```
    /// # use claude_agent_core::hooks::PostToolUseInput;
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let input: PostToolUseInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1",
    ///         "tool_response":{"stdout":"a.txt"}}"#,
    /// )
    /// .unwrap();
    /// let bash: Bash = input.tool_input_as().unwrap();
    /// assert_eq!(bash.command, "ls");
    /// assert!(input.tool_input_as::<Vec<String>>().is_err());
    /// ```
    pub fn tool_input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.tool_input.get())
    }
}

impl PostToolUseFailureInput {
    /// The tool's input read as `T`: the tool's own argument type, or [`serde_json::Value`].
    /// Fails when the input does not fit `T`.
    ///
    /// ```
    /// # use claude_agent_core::hooks::PostToolUseFailureInput;
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let input: PostToolUseFailureInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1",
    ///         "error":"exit 2"}"#,
    /// )
    /// .unwrap();
    /// let bash: Bash = input.tool_input_as().unwrap();
    /// assert_eq!(bash.command, "ls");
    /// assert!(input.tool_input_as::<Vec<String>>().is_err());
    /// ```
    pub fn tool_input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.tool_input.get())
    }
}

impl BatchedToolCall {
    /// The tool's input read as `T`: the tool's own argument type, or [`serde_json::Value`].
    /// Fails when the input does not fit `T`.
    ///
    /// ```
    /// # use claude_agent_core::hooks::BatchedToolCall;
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let input: BatchedToolCall = serde_json::from_str(
    ///     r#"{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}"#,
    /// )
    /// .unwrap();
    /// let bash: Bash = input.tool_input_as().unwrap();
    /// assert_eq!(bash.command, "ls");
    /// assert!(input.tool_input_as::<Vec<String>>().is_err());
    /// ```
    pub fn tool_input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.tool_input.get())
    }
}

impl PermissionRequestInput {
    /// The tool's input read as `T`: the tool's own argument type, or [`serde_json::Value`].
    /// Fails when the input does not fit `T`.
    ///
    /// ```
    /// # use claude_agent_core::hooks::PermissionRequestInput;
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let input: PermissionRequestInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    /// )
    /// .unwrap();
    /// let bash: Bash = input.tool_input_as().unwrap();
    /// assert_eq!(bash.command, "ls");
    /// assert!(input.tool_input_as::<Vec<String>>().is_err());
    /// ```
    pub fn tool_input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.tool_input.get())
    }
}

impl PermissionDeniedInput {
    /// The tool's input read as `T`: the tool's own argument type, or [`serde_json::Value`].
    /// Fails when the input does not fit `T`.
    ///
    /// ```
    /// # use claude_agent_core::hooks::PermissionDeniedInput;
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let input: PermissionDeniedInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1",
    ///         "reason":"denied by rule"}"#,
    /// )
    /// .unwrap();
    /// let bash: Bash = input.tool_input_as().unwrap();
    /// assert_eq!(bash.command, "ls");
    /// assert!(input.tool_input_as::<Vec<String>>().is_err());
    /// ```
    pub fn tool_input_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.tool_input.get())
    }
}
