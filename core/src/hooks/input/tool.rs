//! Inputs of the tool events: `PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `PostToolBatch`,
//! `PermissionRequest`, `PermissionDenied`, and `PreSkillShellCommand` (a skill's shell command).

use serde::Deserialize;

use super::HookBase;
use crate::permission::{McpServerOrigin, PermissionUpdate};
use crate::tools::{BuiltinOutput, BuiltinTool};
use crate::Json;

/// `PreToolUse`: a tool is about to run.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
/// use claude_agent_tokio::tools::BuiltinTool;
///
/// /// Keep shell commands inside the workspace (registered for `Bash`).
/// fn stay_in_workspace(input: &PreToolUseInput) -> HookOutput {
///     match input.builtin() {
///         BuiltinTool::Bash(bash) if bash.command.contains(" /") => HookOutput::deny_tool("Stay inside the workspace."),
///         _ => HookOutput::default(),
///     }
/// }
///
/// // What the CLI sends (from a recorded session), and the hook's answer, as a test would check it:
/// let input: PreToolUseInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la /","description":"run"},
///     "tool_use_id":"toolu_fake_3_1"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.tool_name.as_str(), input.tool_use_id.as_str()), ("Bash", "toolu_fake_3_1"));
/// assert_eq!(input.base.cwd, "/tmp/ws");
/// assert_eq!(stay_in_workspace(&input), HookOutput::deny_tool("Stay inside the workspace."));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PreToolUseInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool, e.g. `Bash`.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Json,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

/// `PostToolUse`: a tool ran successfully.
///
/// ```
/// use claude_agent_tokio::hooks::{HookEvent, HookOutput, PostToolUseInput};
/// use claude_agent_tokio::tools::BuiltinOutput;
///
/// /// Have the model fix the warnings a command printed (registered for `Bash`).
/// fn heed_warnings(input: &PostToolUseInput) -> HookOutput {
///     match input.builtin_output() {
///         BuiltinOutput::Bash(out) if out.stderr.contains("warning:") => HookOutput::default()
///             .with_additional_context(HookEvent::PostToolUse, "The command printed warnings; fix them before going on."),
///         _ => HookOutput::default(),
///     }
/// }
///
/// // What the CLI sends (from a recorded session):
/// let input: PostToolUseInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo hooked","description":"run"},
///     "tool_response":{"stdout":"hooked","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},
///     "tool_use_id":"toolu_fake_4_1","duration_ms":33}"#,
/// )
/// .unwrap();
/// assert_eq!(input.duration_ms, Some(33));
/// assert!(input.tool_response.as_str().contains(r#""stdout":"hooked""#));
/// assert_eq!(heed_warnings(&input), HookOutput::default()); // no warnings
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PostToolUseInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Json,
    /// What the tool returned.
    pub tool_response: Json,
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
///
/// ```
/// use claude_agent_tokio::hooks::{HookEvent, HookOutput, PostToolUseFailureInput};
///
/// /// Tell the model which package manager to use (registered for `Bash`).
/// fn use_npm(input: &PostToolUseFailureInput) -> HookOutput {
///     if input.error.contains("command not found") {
///         HookOutput::default()
///             .with_additional_context(HookEvent::PostToolUseFailure, "Use npm here; pnpm is not installed.")
///     } else {
///         HookOutput::default()
///     }
/// }
///
/// let input: PostToolUseFailureInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"pnpm test"},
///     "tool_use_id":"toolu_01","error":"Exit code 127\n/bin/sh: pnpm: command not found","is_interrupt":false}"#,
/// )
/// .unwrap();
/// assert!(input.error.starts_with("Exit code 127"));
/// assert_eq!(input.is_interrupt, Some(false));
/// assert_eq!(
///     use_npm(&input),
///     HookOutput::default().with_additional_context(HookEvent::PostToolUseFailure, "Use npm here; pnpm is not installed.")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PostToolUseFailureInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Json,
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
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, PostToolBatchInput};
///
/// /// Show the user which tools a batch ran.
/// fn report_batch(input: &PostToolBatchInput) -> HookOutput {
///     let names: Vec<&str> = input.tool_calls.iter().map(|call| call.tool_name.as_str()).collect();
///     HookOutput::default().with_system_message(format!("ran {}", names.join(", ")))
/// }
///
/// let input: PostToolBatchInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PostToolBatch","tool_calls":[
///         {"tool_name":"Read","tool_input":{"file_path":"/tmp/ws/Cargo.toml"},"tool_use_id":"toolu_01","tool_response":"[package]…"},
///         {"tool_name":"Glob","tool_input":{"pattern":"src/**/*.rs"},"tool_use_id":"toolu_02"}]}"#,
/// )
/// .unwrap();
/// assert_eq!(input.tool_calls.len(), 2);
/// assert!(input.tool_calls[1].tool_response.is_none());
/// assert_eq!(report_batch(&input).system_message.as_deref(), Some("ran Read, Glob"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PostToolBatchInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The calls of the batch.
    pub tool_calls: Vec<BatchedToolCall>,
}

/// One call of a [`PostToolBatchInput`].
///
/// ```
/// use claude_agent_tokio::hooks::{BatchedToolCall, PostToolBatchInput};
///
/// /// The files a batch read, for a host that keeps track of them.
/// fn files_read(calls: &[BatchedToolCall]) -> Vec<String> {
///     #[derive(serde::Deserialize)]
///     struct Read {
///         file_path: String,
///     }
///     calls
///         .iter()
///         .filter(|call| call.tool_name == "Read")
///         .filter_map(|call| call.tool_input.parse::<Read>().ok())
///         .map(|read| read.file_path)
///         .collect()
/// }
///
/// let input: PostToolBatchInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PostToolBatch","tool_calls":[
///         {"tool_name":"Read","tool_input":{"file_path":"/tmp/ws/Cargo.toml"},"tool_use_id":"toolu_01"},
///         {"tool_name":"Glob","tool_input":{"pattern":"src/**/*.rs"},"tool_use_id":"toolu_02"}]}"#,
/// )
/// .unwrap();
/// assert_eq!(files_read(&input.tool_calls), ["/tmp/ws/Cargo.toml"]);
/// assert_eq!(input.tool_calls[1].tool_use_id, "toolu_02");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct BatchedToolCall {
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Json,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// What the tool returned, if it returned.
    #[serde(default)]
    pub tool_response: Option<Json>,
}

/// `PermissionRequest`: the CLI would show a permission prompt.
///
/// ```
/// use claude_agent_tokio::hooks::{
///     HookOutput, HookSpecificOutput, PermissionRequestDecision, PermissionRequestInput, PermissionRequestOutput,
/// };
///
/// /// Allow all but `Bash`, and keep the CLI's own suggestions ("always allow …") for the rest
/// /// of the session.
/// fn allow_for_session(input: &PermissionRequestInput) -> HookOutput {
///     if input.tool_name == "Bash" {
///         return HookOutput::default(); // the usual prompt
///     }
///     let decision = PermissionRequestDecision::Allow {
///         updated_input: None,
///         updated_permissions: Some(input.permission_suggestions.clone()),
///     };
///     HookOutput::default()
///         .with_hook_specific_output(HookSpecificOutput::PermissionRequest(PermissionRequestOutput { decision }))
/// }
///
/// let input: PermissionRequestInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PermissionRequest","tool_name":"WebFetch","tool_input":{"url":"https://docs.rs/"},
///     "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"WebFetch","ruleContent":"domain:docs.rs"}],
///         "behavior":"allow","destination":"session"}]}"#,
/// )
/// .unwrap();
/// assert_eq!(input.permission_suggestions.len(), 1);
/// assert!(allow_for_session(&input).to_wire_json().contains(r#""behavior":"allow","updatedPermissions":[{"type":"addRules""#));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PermissionRequestInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Json,
    /// Rule changes the CLI would offer.
    #[serde(default)]
    pub permission_suggestions: Vec<PermissionUpdate>,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

/// `PermissionDenied`: the permission system refused a tool call.
///
/// ```
/// use claude_agent_tokio::hooks::{
///     HookOutput, HookSpecificOutput, PermissionDeniedInput, PermissionDeniedOutput,
/// };
///
/// /// Log the refusal, and let the model try another way.
/// fn retry_after_denial(input: &PermissionDeniedInput) -> HookOutput {
///     eprintln!("denied {} ({}): {}", input.tool_name, input.tool_use_id, input.reason);
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PermissionDenied(
///         PermissionDeniedOutput { retry: Some(true) },
///     ))
/// }
///
/// let input: PermissionDeniedInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"git push --force"},
///     "tool_use_id":"toolu_01","reason":"Permission to use Bash with command git push --force has been denied."}"#,
/// )
/// .unwrap();
/// assert!(input.reason.starts_with("Permission to use Bash"));
/// assert_eq!(
///     retry_after_denial(&input).to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PermissionDeniedInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Json,
    /// The `tool_use` block.
    pub tool_use_id: String,
    /// Why it was denied.
    pub reason: String,
    /// The MCP server of an MCP tool.
    #[serde(default)]
    pub mcp_server: Option<McpServerOrigin>,
}

/// `builtin()` on the inputs that carry a tool call: the call typed by its tool.
macro_rules! builtin_call {
    ($($input:ident),+) => {
        $(
            impl $input {
                /// The tool call, typed when it is a built-in tool this crate knows
                /// ([`BuiltinTool`]); `tool_name` and `tool_input` as sent otherwise.
                ///
                /// ```
                /// use claude_agent_tokio::tools::BuiltinTool;
                ///
                /// fn is_write(input: &claude_agent_tokio::hooks::PreToolUseInput) -> bool {
                ///     matches!(input.builtin(), BuiltinTool::Write(_))
                /// }
                /// ```
                pub fn builtin(&self) -> BuiltinTool {
                    BuiltinTool::parse(&self.tool_name, &self.tool_input)
                }
            }
        )+
    };
}

builtin_call!(
    PreToolUseInput,
    PostToolUseInput,
    PostToolUseFailureInput,
    BatchedToolCall,
    PermissionRequestInput,
    PermissionDeniedInput
);

impl PostToolUseInput {
    /// What the tool returned, typed when it is a built-in tool this crate knows
    /// ([`BuiltinOutput`]); `tool_response` as sent otherwise.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::PostToolUseInput;
    /// use claude_agent_tokio::tools::{BuiltinOutput, WriteKind};
    ///
    /// fn created(input: &PostToolUseInput) -> Option<String> {
    ///     match input.builtin_output() {
    ///         BuiltinOutput::Write(write) if write.kind == WriteKind::Create => Some(write.file_path),
    ///         _ => None,
    ///     }
    /// }
    /// ```
    pub fn builtin_output(&self) -> BuiltinOutput {
        BuiltinOutput::parse(&self.tool_name, &self.tool_response)
    }
}

impl BatchedToolCall {
    /// What the tool returned, typed as [`PostToolUseInput::builtin_output`] types it; `None`
    /// when the batch carries no result for the call.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::BatchedToolCall;
    /// use claude_agent_tokio::tools::BuiltinOutput;
    ///
    /// fn bash_failed(call: &BatchedToolCall) -> bool {
    ///     matches!(call.builtin_output(), Some(BuiltinOutput::Bash(out)) if !out.stderr.is_empty())
    /// }
    /// ```
    pub fn builtin_output(&self) -> Option<BuiltinOutput> {
        self.tool_response
            .as_ref()
            .map(|response| BuiltinOutput::parse(&self.tool_name, response))
    }
}

/// `PreSkillShellCommand`: a shell command written in a skill or a slash command (a
/// ``!`command` `` line of its text) is about to run, before the model sees the skill. The
/// matcher matches the shell tool (`Bash` or `PowerShell`). A hook can only refuse the command
/// ([`PreSkillShellCommandOutput`](crate::hooks::PreSkillShellCommandOutput)): `deny`, `ask`
/// and `defer` all keep it from running, since a skill cannot wait for an answer.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, PermissionDecision};
/// use claude_agent_tokio::hooks::{PreSkillShellCommandInput, PreSkillShellCommandOutput};
///
/// /// Keep skills off the network (registered for `Bash`).
/// fn no_curl_in_skills(input: &PreSkillShellCommandInput) -> HookOutput {
///     if !input.tool_input.command.contains("curl") {
///         return HookOutput::default();
///     }
///     let refused = PreSkillShellCommandOutput {
///         permission_decision: Some(PermissionDecision::Deny),
///         permission_decision_reason: Some(format!("{} may not reach the network", input.command_name)),
///         ..Default::default()
///     };
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreSkillShellCommand(refused))
/// }
///
/// // What the CLI sends:
/// let input: PreSkillShellCommandInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreSkillShellCommand",
///     "tool_name":"Bash","tool_input":{"command":"git log -1"},"tool_use_id":"skill-shell-1",
///     "command_name":"release-notes","command_source":"projectSettings","invoked_by":"user"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.tool_input.command.as_str(), input.invoked_by.as_str()), ("git log -1", "user"));
/// assert_eq!(no_curl_in_skills(&input), HookOutput::default()); // no network: it runs
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PreSkillShellCommandInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The shell tool that would run the command: `Bash` or `PowerShell`.
    pub tool_name: String,
    /// The command.
    pub tool_input: SkillShellCommand,
    /// Names this command; no tool call of the transcript has it.
    pub tool_use_id: String,
    /// The skill or command whose text holds the command.
    pub command_name: String,
    /// Where that skill or command comes from (`projectSettings`, a plugin, …).
    #[serde(default)]
    pub command_source: Option<String>,
    /// Who loaded it: `user` (typed, or sent by an SDK host), `claude` (the Skill tool, or a
    /// turn Claude scheduled) or `other` (a subagent's preload, a channel message, or not known).
    pub invoked_by: String,
}

/// The `tool_input` of [`PreSkillShellCommandInput`].
///
/// ```
/// use claude_agent_tokio::hooks::SkillShellCommand;
///
/// let input: SkillShellCommand = serde_json::from_str(r#"{"command":"git log -1"}"#)?;
/// assert_eq!(input.command, "git log -1");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct SkillShellCommand {
    /// The command as it would run, with its arguments filled in.
    pub command: String,
}
