//! `HookOutput`: what a hook callback answers, with its per-event part.

mod decision;
mod specific;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::HookEvent;

pub use decision::{HookDecision, PermissionDecision, PermissionRequestDecision};
pub use specific::{
    AdditionalContextOutput, ElicitationOutput, HookSpecificOutput, MessageDisplayOutput,
    PermissionDeniedOutput, PermissionRequestOutput, PostToolUseOutput, PreModelSwitchOutput,
    PreSkillShellCommandOutput, PreToolUseOutput, SessionStartOutput, UserPromptExpansionOutput,
    UserPromptSubmitOutput, WatchPathsOutput, WorktreeCreateOutput,
};

/// What a hook callback answers: the body of its `hook_callback` control response. Every field
/// is optional and only written when set, so [`HookOutput::default()`] is `{}`: "no opinion".
///
/// ```
/// # use claude_agent_tokio::hooks::HookOutput;
/// assert_eq!(HookOutput::default().to_wire_json(), "{}");
/// assert_eq!(HookOutput::proceed().to_wire_json(), r#"{"continue":true}"#);
/// assert_eq!(
///     HookOutput::deny_tool("hook says no").to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"hook says no"}}"#
/// );
/// ```
///
/// Outputs compare by value (fields kept as raw JSON by their exact text), so a test can check
/// what a hook answered:
///
/// ```
/// # use claude_agent_tokio::hooks::HookOutput;
/// assert_eq!(HookOutput::deny_tool("no"), HookOutput::deny_tool("no"));
/// assert_ne!(HookOutput::deny_tool("no"), HookOutput::ask_tool("no"));
/// assert_ne!(HookOutput::default(), HookOutput::proceed());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct HookOutput {
    /// `continue`: `false` stops the agent (with [`HookOutput::stop_reason`]).
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Hide the hook's output from the transcript.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppress_output: Option<bool>,
    /// Shown to the user when `continue` is `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `approve` or `block` the action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<HookDecision>,
    /// A message shown to the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Why (for `decision`), shown to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A terminal control sequence to emit (TypeScript SDK only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_sequence: Option<String>,
    /// The event-specific part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<HookSpecificOutput>,
    /// `async`: the hook goes on in the background; the CLI does not wait for it.
    #[serde(rename = "async", skip_serializing_if = "std::ops::Not::not")]
    pub async_: bool,
    /// `asyncTimeout` in milliseconds, with `async`.
    #[serde(rename = "asyncTimeout", skip_serializing_if = "Option::is_none")]
    pub async_timeout_ms: Option<u64>,
}

impl HookOutput {
    /// `{"continue":true}`: carry on.
    pub fn proceed() -> Self {
        HookOutput {
            continue_: Some(true),
            ..Default::default()
        }
    }

    /// `{"continue":false,"stopReason":…}`: stop the agent.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookOutput, PostToolUseInput};
    ///
    /// fn stop_when_disk_full(input: &PostToolUseInput) -> HookOutput {
    ///     if input.tool_response.as_str().contains("No space left on device") {
    ///         HookOutput::stop("The disk is full; stopping.")
    ///     } else {
    ///         HookOutput::default()
    ///     }
    /// }
    ///
    /// let input: PostToolUseInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash",
    ///     "tool_input":{"command":"cargo build"},"tool_response":{"stdout":"","stderr":"No space left on device"},
    ///     "tool_use_id":"toolu_1"}"#,
    /// )
    /// .unwrap();
    /// assert_eq!(
    ///     stop_when_disk_full(&input).to_wire_json(),
    ///     r#"{"continue":false,"stopReason":"The disk is full; stopping."}"#
    /// );
    /// ```
    pub fn stop(reason: impl Into<String>) -> Self {
        HookOutput {
            continue_: Some(false),
            stop_reason: Some(reason.into()),
            ..Default::default()
        }
    }

    /// `{"decision":"block","reason":…}`: block the action (e.g. keep a `Stop` from stopping, or
    /// report a `PostToolUse` problem to the model).
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookOutput, StopInput};
    ///
    /// fn test_before_stopping(input: &StopInput) -> HookOutput {
    ///     if input.stop_hook_active {
    ///         HookOutput::default()
    ///     } else {
    ///         HookOutput::block("Run `cargo test` before you stop.")
    ///     }
    /// }
    ///
    /// let input: StopInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"Stop","stop_hook_active":false}"#,
    /// )
    /// .unwrap();
    /// assert_eq!(
    ///     test_before_stopping(&input).to_wire_json(),
    ///     r#"{"decision":"block","reason":"Run `cargo test` before you stop."}"#
    /// );
    /// ```
    pub fn block(reason: impl Into<String>) -> Self {
        HookOutput {
            decision: Some(HookDecision::Block),
            reason: Some(reason.into()),
            ..Default::default()
        }
    }

    /// A `PreToolUse` answer that refuses the tool; the model sees `reason`.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
    ///
    /// /// Registered for `Write|Edit`.
    /// fn leave_migrations_alone(input: &PreToolUseInput) -> HookOutput {
    ///     if input.tool_input.as_str().contains("/migrations/") {
    ///         HookOutput::deny_tool("Migrations are generated; change the schema instead.")
    ///     } else {
    ///         HookOutput::default()
    ///     }
    /// }
    ///
    /// let input: PreToolUseInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Write",
    ///     "tool_input":{"file_path":"/w/db/migrations/0042.sql","content":"…"},"tool_use_id":"toolu_1"}"#,
    /// )
    /// .unwrap();
    /// assert_eq!(
    ///     leave_migrations_alone(&input),
    ///     HookOutput::deny_tool("Migrations are generated; change the schema instead.")
    /// );
    /// ```
    pub fn deny_tool(reason: impl Into<String>) -> Self {
        Self::tool_decision(PermissionDecision::Deny, Some(reason.into()))
    }

    /// A `PreToolUse` answer that lets the tool run without asking.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
    ///
    /// /// Registered for `Bash`.
    /// fn tests_may_run(input: &PreToolUseInput) -> HookOutput {
    ///     #[derive(serde::Deserialize)]
    ///     struct Bash {
    ///         command: String,
    ///     }
    ///     match input.tool_input.parse::<Bash>() {
    ///         Ok(bash) if bash.command == "cargo test" => HookOutput::allow_tool(),
    ///         _ => HookOutput::default(), // the usual permission check
    ///     }
    /// }
    ///
    /// let input: PreToolUseInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash",
    ///     "tool_input":{"command":"cargo test"},"tool_use_id":"toolu_1"}"#,
    /// )
    /// .unwrap();
    /// assert_eq!(
    ///     tests_may_run(&input).to_wire_json(),
    ///     r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#
    /// );
    /// ```
    pub fn allow_tool() -> Self {
        Self::tool_decision(PermissionDecision::Allow, None)
    }

    /// A `PreToolUse` answer that makes the CLI ask as usual, with `reason`.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
    ///
    /// /// Registered for `Bash`.
    /// fn ask_before_push(input: &PreToolUseInput) -> HookOutput {
    ///     if input.tool_input.as_str().contains("git push") {
    ///         HookOutput::ask_tool("Pushing changes the shared branch.")
    ///     } else {
    ///         HookOutput::default()
    ///     }
    /// }
    ///
    /// let input: PreToolUseInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash",
    ///     "tool_input":{"command":"git push origin main"},"tool_use_id":"toolu_1"}"#,
    /// )
    /// .unwrap();
    /// assert_eq!(ask_before_push(&input), HookOutput::ask_tool("Pushing changes the shared branch."));
    /// ```
    pub fn ask_tool(reason: impl Into<String>) -> Self {
        Self::tool_decision(PermissionDecision::Ask, Some(reason.into()))
    }

    fn tool_decision(decision: PermissionDecision, reason: Option<String>) -> Self {
        HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreToolUse(
            PreToolUseOutput {
                permission_decision: Some(decision),
                permission_decision_reason: reason,
                ..Default::default()
            },
        ))
    }

    /// `{"async":true,"asyncTimeout":ms}`: the hook runs on in the background.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::hooks::{HookOutput, PostToolUseInput};
    ///
    /// /// Report to an audit log without making the agent wait for it.
    /// fn audit_in_background(_input: &PostToolUseInput) -> HookOutput {
    ///     // … hand the input to the audit log's writer here …
    ///     HookOutput::async_(Some(Duration::from_secs(30)))
    /// }
    /// assert_eq!(HookOutput::async_(Some(Duration::from_secs(30))).to_wire_json(), r#"{"async":true,"asyncTimeout":30000}"#);
    /// ```
    pub fn async_(timeout: Option<Duration>) -> Self {
        HookOutput {
            async_: true,
            async_timeout_ms: timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
            ..Default::default()
        }
    }

    /// Adds text to the model's context for `event` (pass the input's [`super::HookInput::event`],
    /// or a typed input's [`super::EventInput::EVENT`]).
    /// Keeps the other fields of an existing `hookSpecificOutput` of the same event.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{EventInput, HookEvent, HookOutput, UserPromptSubmitInput};
    ///
    /// fn add_date(_input: &UserPromptSubmitInput) -> HookOutput {
    ///     HookOutput::default().with_additional_context(UserPromptSubmitInput::EVENT, "Today is 2026-11-22.")
    /// }
    ///
    /// // Added to an answer that already has a `PreToolUse` part, the context joins it.
    /// let output = HookOutput::deny_tool("not in CI")
    ///     .with_additional_context(HookEvent::PreToolUse, "CI runs the tests itself.");
    /// assert_eq!(
    ///     output.to_wire_json(),
    ///     r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not in CI","additionalContext":"CI runs the tests itself."}}"#
    /// );
    /// ```
    pub fn with_additional_context(mut self, event: HookEvent, context: impl Into<String>) -> Self {
        let context = context.into();
        if let Some(existing) = &mut self.hook_specific_output {
            if existing.event().as_ref() == Some(&event) {
                if let Some(slot) = existing.additional_context_mut() {
                    *slot = Some(context);
                    return self;
                }
            }
        }
        self.hook_specific_output = Some(HookSpecificOutput::additional_context(event, context));
        self
    }

    /// Adds a message shown to the user.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::HookOutput;
    ///
    /// let output = HookOutput::deny_tool("no network in tests").with_system_message("Blocked a curl call.");
    /// assert_eq!(output.system_message.as_deref(), Some("Blocked a curl call."));
    /// ```
    pub fn with_system_message(mut self, message: impl Into<String>) -> Self {
        self.system_message = Some(message.into());
        self
    }

    /// Sets the event-specific part.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, UserPromptSubmitOutput};
    ///
    /// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::UserPromptSubmit(
    ///     UserPromptSubmitOutput { session_title: Some("Fix the flaky test".into()), ..Default::default() },
    /// ));
    /// assert_eq!(
    ///     output.to_wire_json(),
    ///     r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"Fix the flaky test"}}"#
    /// );
    /// ```
    pub fn with_hook_specific_output(mut self, output: HookSpecificOutput) -> Self {
        self.hook_specific_output = Some(output);
        self
    }

    /// The success body of the control response.
    pub fn to_wire_json(&self) -> String {
        serde_json::to_string(self)
            .expect("serializing strings, booleans, numbers and raw JSON cannot fail")
    }
}

#[cfg(test)]
mod tests;
