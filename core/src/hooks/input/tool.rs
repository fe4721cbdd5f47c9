//! Inputs of the tool events: `PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `PostToolBatch`,
//! `PermissionRequest` and `PermissionDenied`.

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
