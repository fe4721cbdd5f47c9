//! `HookSpecificOutput`: the per-event part of a hook output, tagged with `hookEventName`.

use serde::Serialize;
use serde_json::value::RawValue;

use super::{PermissionDecision, PermissionRequestDecision};
use crate::hooks::HookEvent;
use crate::mcp::ElicitationAction;
use crate::raw_text::same_text;

/// `hookSpecificOutput`: what a hook answers for its particular event. Serialized with
/// `hookEventName` set from the variant.
///
/// ```
/// # use claude_agent_core::hooks::{HookSpecificOutput, PreToolUseOutput, PermissionDecision};
/// let out = HookSpecificOutput::PreToolUse(PreToolUseOutput {
///     permission_decision: Some(PermissionDecision::Ask),
///     ..Default::default()
/// });
/// assert_eq!(
///     serde_json::to_string(&out).unwrap(),
///     r#"{"hookEventName":"PreToolUse","permissionDecision":"ask"}"#
/// );
/// ```
///
/// Outputs compare by value; fields kept as raw JSON, and [`HookSpecificOutput::Raw`], by their
/// exact text:
///
/// ```
/// # use claude_agent_core::hooks::{HookEvent, HookSpecificOutput};
/// # use serde_json::value::RawValue;
/// let context = || HookSpecificOutput::additional_context(HookEvent::Stop, "more");
/// assert_eq!(context(), context());
/// assert_ne!(context(), HookSpecificOutput::additional_context(HookEvent::SubagentStop, "more"));
/// let raw = |json: &str| HookSpecificOutput::Raw(RawValue::from_string(json.into()).unwrap());
/// assert_eq!(raw(r#"{"hookEventName":"Later"}"#), raw(r#"{"hookEventName":"Later"}"#));
/// assert_ne!(raw(r#"{"hookEventName":"Later"}"#), raw(r#"{"hookEventName": "Later"}"#));
/// ```
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "hookEventName")]
#[non_exhaustive]
pub enum HookSpecificOutput {
    /// `PreToolUse`: allow, deny, ask or defer; change the input; add context.
    PreToolUse(PreToolUseOutput),
    /// `PostToolUse`: add context or replace the tool's output.
    PostToolUse(PostToolUseOutput),
    /// `PostToolUseFailure`.
    PostToolUseFailure(AdditionalContextOutput),
    /// `PostToolBatch`.
    PostToolBatch(AdditionalContextOutput),
    /// `PermissionRequest`: answer the prompt.
    PermissionRequest(PermissionRequestOutput),
    /// `PermissionDenied`: let the model retry.
    PermissionDenied(PermissionDeniedOutput),
    /// `UserPromptSubmit`.
    UserPromptSubmit(UserPromptSubmitOutput),
    /// `UserPromptExpansion`.
    UserPromptExpansion(UserPromptExpansionOutput),
    /// `SessionStart`.
    SessionStart(SessionStartOutput),
    /// `Setup`.
    Setup(AdditionalContextOutput),
    /// `Stop`.
    Stop(AdditionalContextOutput),
    /// `SubagentStart`.
    SubagentStart(AdditionalContextOutput),
    /// `SubagentStop`.
    SubagentStop(AdditionalContextOutput),
    /// `PreModelSwitch`: allow, deny or ask.
    PreModelSwitch(PreModelSwitchOutput),
    /// `PostModelSwitch`.
    PostModelSwitch(AdditionalContextOutput),
    /// `Notification`.
    Notification(AdditionalContextOutput),
    /// `Elicitation`: answer in the user's place.
    Elicitation(ElicitationOutput),
    /// `ElicitationResult`: change the answer.
    ElicitationResult(ElicitationOutput),
    /// `WorktreeCreate`: where the worktree was made.
    WorktreeCreate(WorktreeCreateOutput),
    /// `CwdChanged`: files to watch.
    CwdChanged(WatchPathsOutput),
    /// `FileChanged`: files to watch.
    FileChanged(WatchPathsOutput),
    /// `MessageDisplay`: replace what is shown.
    MessageDisplay(MessageDisplayOutput),
    /// Any other object, written as is (it should carry its own `hookEventName`).
    #[serde(untagged)]
    Raw(Box<RawValue>),
}

impl HookSpecificOutput {
    /// An output for `event` that only adds `context` for the model. Events without an
    /// `additionalContext` field get a [`HookSpecificOutput::Raw`] object with one.
    pub fn additional_context(event: HookEvent, context: impl Into<String>) -> Self {
        let additional_context = Some(context.into());
        let context = AdditionalContextOutput {
            additional_context: additional_context.clone(),
        };
        match event {
            HookEvent::PreToolUse => HookSpecificOutput::PreToolUse(PreToolUseOutput {
                additional_context,
                ..Default::default()
            }),
            HookEvent::PostToolUse => HookSpecificOutput::PostToolUse(PostToolUseOutput {
                additional_context,
                ..Default::default()
            }),
            HookEvent::UserPromptSubmit => {
                HookSpecificOutput::UserPromptSubmit(UserPromptSubmitOutput {
                    additional_context,
                    ..Default::default()
                })
            }
            HookEvent::UserPromptExpansion => {
                HookSpecificOutput::UserPromptExpansion(UserPromptExpansionOutput {
                    additional_context,
                    ..Default::default()
                })
            }
            HookEvent::SessionStart => HookSpecificOutput::SessionStart(SessionStartOutput {
                additional_context,
                ..Default::default()
            }),
            HookEvent::PostToolUseFailure => HookSpecificOutput::PostToolUseFailure(context),
            HookEvent::PostToolBatch => HookSpecificOutput::PostToolBatch(context),
            HookEvent::Setup => HookSpecificOutput::Setup(context),
            HookEvent::Stop => HookSpecificOutput::Stop(context),
            HookEvent::SubagentStart => HookSpecificOutput::SubagentStart(context),
            HookEvent::SubagentStop => HookSpecificOutput::SubagentStop(context),
            HookEvent::PostModelSwitch => HookSpecificOutput::PostModelSwitch(context),
            HookEvent::Notification => HookSpecificOutput::Notification(context),
            other => {
                #[derive(Serialize)]
                #[serde(rename_all = "camelCase")]
                struct Untyped<'a> {
                    hook_event_name: &'a str,
                    additional_context: Option<String>,
                }
                let body = Untyped {
                    hook_event_name: other.as_str(),
                    additional_context,
                };
                HookSpecificOutput::Raw(
                    serde_json::value::to_raw_value(&body)
                        .expect("serializing two strings cannot fail"),
                )
            }
        }
    }

    /// The `additionalContext` slot of this output, if its event has one.
    pub(super) fn additional_context_mut(&mut self) -> Option<&mut Option<String>> {
        match self {
            HookSpecificOutput::PreToolUse(o) => Some(&mut o.additional_context),
            HookSpecificOutput::PostToolUse(o) => Some(&mut o.additional_context),
            HookSpecificOutput::UserPromptSubmit(o) => Some(&mut o.additional_context),
            HookSpecificOutput::UserPromptExpansion(o) => Some(&mut o.additional_context),
            HookSpecificOutput::SessionStart(o) => Some(&mut o.additional_context),
            HookSpecificOutput::PostToolUseFailure(o)
            | HookSpecificOutput::PostToolBatch(o)
            | HookSpecificOutput::Setup(o)
            | HookSpecificOutput::Stop(o)
            | HookSpecificOutput::SubagentStart(o)
            | HookSpecificOutput::SubagentStop(o)
            | HookSpecificOutput::PostModelSwitch(o)
            | HookSpecificOutput::Notification(o) => Some(&mut o.additional_context),
            _ => None,
        }
    }

    /// The event this output is for; `None` for [`HookSpecificOutput::Raw`].
    ///
    /// ```
    /// use claude_agent_core::hooks::{HookEvent, HookOutput};
    ///
    /// let output = HookOutput::deny_tool("no");
    /// let part = output.hook_specific_output.as_ref().unwrap();
    /// assert_eq!(part.event(), Some(HookEvent::PreToolUse));
    /// ```
    pub fn event(&self) -> Option<HookEvent> {
        Some(match self {
            HookSpecificOutput::PreToolUse(_) => HookEvent::PreToolUse,
            HookSpecificOutput::PostToolUse(_) => HookEvent::PostToolUse,
            HookSpecificOutput::PostToolUseFailure(_) => HookEvent::PostToolUseFailure,
            HookSpecificOutput::PostToolBatch(_) => HookEvent::PostToolBatch,
            HookSpecificOutput::PermissionRequest(_) => HookEvent::PermissionRequest,
            HookSpecificOutput::PermissionDenied(_) => HookEvent::PermissionDenied,
            HookSpecificOutput::UserPromptSubmit(_) => HookEvent::UserPromptSubmit,
            HookSpecificOutput::UserPromptExpansion(_) => HookEvent::UserPromptExpansion,
            HookSpecificOutput::SessionStart(_) => HookEvent::SessionStart,
            HookSpecificOutput::Setup(_) => HookEvent::Setup,
            HookSpecificOutput::Stop(_) => HookEvent::Stop,
            HookSpecificOutput::SubagentStart(_) => HookEvent::SubagentStart,
            HookSpecificOutput::SubagentStop(_) => HookEvent::SubagentStop,
            HookSpecificOutput::PreModelSwitch(_) => HookEvent::PreModelSwitch,
            HookSpecificOutput::PostModelSwitch(_) => HookEvent::PostModelSwitch,
            HookSpecificOutput::Notification(_) => HookEvent::Notification,
            HookSpecificOutput::Elicitation(_) => HookEvent::Elicitation,
            HookSpecificOutput::ElicitationResult(_) => HookEvent::ElicitationResult,
            HookSpecificOutput::WorktreeCreate(_) => HookEvent::WorktreeCreate,
            HookSpecificOutput::CwdChanged(_) => HookEvent::CwdChanged,
            HookSpecificOutput::FileChanged(_) => HookEvent::FileChanged,
            HookSpecificOutput::MessageDisplay(_) => HookEvent::MessageDisplay,
            HookSpecificOutput::Raw(_) => return None,
        })
    }
}

/// `PreToolUse` output.
///
/// Rewrite a tool call before it runs:
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseInput, PreToolUseOutput};
/// use claude_agent_core::options::Options;
/// use serde_json::value::to_raw_value;
///
/// #[derive(serde::Deserialize)]
/// struct Bash {
///     command: String,
/// }
///
/// let _options = Options::new().on_hook("Bash", |input: PreToolUseInput, _ctx| async move {
///     let Ok(bash) = input.tool_input_as::<Bash>() else { return HookOutput::default() };
///     if !bash.command.starts_with("npm ") {
///         return HookOutput::default();
///     }
///     let command = bash.command.replacen("npm ", "npm --offline ", 1);
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreToolUse(PreToolUseOutput {
///         permission_decision: Some(PermissionDecision::Allow),
///         updated_input: Some(to_raw_value(&serde_json::json!({ "command": command })).unwrap()),
///         ..Default::default()
///     }))
/// });
/// ```
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreToolUseOutput {
    /// Allow, deny, ask or defer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<PermissionDecision>,
    /// Why (shown to the model on deny).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// Run the tool with this input instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Box<RawValue>>,
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

/// `PostToolUse` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, PostToolUseInput, PostToolUseOutput};
/// use claude_agent_core::options::Options;
/// use serde_json::value::RawValue;
///
/// // Keep secrets that a tool printed out of the conversation.
/// let _options = Options::new().on_hook("Bash", |input: PostToolUseInput, _ctx| async move {
///     if !input.tool_response.get().contains("AWS_SECRET_ACCESS_KEY") {
///         return HookOutput::default();
///     }
///     let redacted = RawValue::from_string(r#"{"stdout":"[output withheld: it contained credentials]","stderr":""}"#.into()).unwrap();
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PostToolUse(PostToolUseOutput {
///         updated_tool_output: Some(redacted),
///         ..Default::default()
///     }))
/// });
/// ```
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostToolUseOutput {
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Context for the auto-mode classifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classifier_context: Option<String>,
    /// Replace the tool's output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_tool_output: Option<Box<RawValue>>,
    /// Replace an MCP tool's output (`updatedMCPToolOutput`).
    #[serde(
        rename = "updatedMCPToolOutput",
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_mcp_tool_output: Option<Box<RawValue>>,
}

/// The output of the events whose only specific field is `additionalContext`.
///
/// ```
/// use claude_agent_core::hooks::{AdditionalContextOutput, HookEvent, HookOutput, HookSpecificOutput};
///
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::PostToolUseFailure(
///     AdditionalContextOutput { additional_context: Some("The test database is not running; start it with `make db`.".into()) },
/// ));
/// // The same as:
/// assert_eq!(
///     output,
///     HookOutput::default().with_additional_context(
///         HookEvent::PostToolUseFailure,
///         "The test database is not running; start it with `make db`."
///     )
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdditionalContextOutput {
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

/// `PermissionRequest` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, PermissionRequestDecision, PermissionRequestOutput};
///
/// let deny = PermissionRequestOutput {
///     decision: PermissionRequestDecision::Deny { message: Some("Not during the release freeze.".into()), interrupt: Some(true) },
/// };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::PermissionRequest(deny));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Not during the release freeze.","interrupt":true}}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PermissionRequestOutput {
    /// The answer to the prompt.
    pub decision: PermissionRequestDecision,
}

/// `PermissionDenied` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, PermissionDeniedOutput};
///
/// let retry = HookOutput::default()
///     .with_hook_specific_output(HookSpecificOutput::PermissionDenied(PermissionDeniedOutput { retry: Some(true) }));
/// assert_eq!(retry.to_wire_json(), r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PermissionDeniedOutput {
    /// Let the model try again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
}

/// `UserPromptSubmit` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, UserPromptSubmitInput, UserPromptSubmitOutput};
/// use claude_agent_core::options::Options;
///
/// let _options = Options::new().on_hook(None, |input: UserPromptSubmitInput, _ctx| async move {
///     let title = input.prompt.lines().next().unwrap_or_default().chars().take(40).collect::<String>();
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::UserPromptSubmit(UserPromptSubmitOutput {
///         session_title: Some(title),
///         additional_context: Some("Answer in British English.".into()),
///         ..Default::default()
///     }))
/// });
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserPromptSubmitOutput {
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Set the session's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// Do not show the prompt itself to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppress_original_prompt: Option<bool>,
}

/// `UserPromptExpansion` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, UserPromptExpansionInput, UserPromptExpansionOutput};
/// use claude_agent_core::options::Options;
///
/// let _options = Options::new().on_hook(None, |input: UserPromptExpansionInput, _ctx| async move {
///     if input.command_name != "review" {
///         return HookOutput::default();
///     }
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::UserPromptExpansion(UserPromptExpansionOutput {
///         additional_context: Some("Reviews follow REVIEWING.md in the repository root.".into()),
///         ..Default::default()
///     }))
/// });
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserPromptExpansionOutput {
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Do not show the expanded prompt to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppress_original_prompt: Option<bool>,
}

/// `SessionStart` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, SessionStartOutput};
///
/// let start = SessionStartOutput {
///     additional_context: Some("The main branch is `trunk`.".into()),
///     watch_paths: Some(vec!["/tmp/ws/.env".into()]),
///     ..Default::default()
/// };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::SessionStart(start));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"The main branch is `trunk`.","watchPaths":["/tmp/ws/.env"]}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStartOutput {
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// A first user message to start with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_user_message: Option<String>,
    /// Set the session's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// Files to watch (they fire `FileChanged`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch_paths: Option<Vec<String>>,
    /// Reload the skills.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reload_skills: Option<bool>,
}

/// `PreModelSwitch` output.
///
/// ```
/// use claude_agent_core::hooks::{
///     HookOutput, HookSpecificOutput, PermissionDecision, PreModelSwitchInput, PreModelSwitchOutput,
/// };
/// use claude_agent_core::options::Options;
///
/// // Refuse a switch that would rewrite a large prompt cache.
/// let _options = Options::new().on_hook(None, |input: PreModelSwitchInput, _ctx| async move {
///     if input.estimated_cache_write_usd < 1.0 {
///         return HookOutput::default();
///     }
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreModelSwitch(PreModelSwitchOutput {
///         permission_decision: Some(PermissionDecision::Deny),
///         permission_decision_reason: Some(format!("switching would cost ${:.2}", input.estimated_cache_write_usd)),
///     }))
/// });
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreModelSwitchOutput {
    /// Allow, deny or ask (`defer` is not valid here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<PermissionDecision>,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
}

/// `Elicitation` and `ElicitationResult` output.
///
/// ```
/// use claude_agent_core::mcp::ElicitationAction;
/// use claude_agent_core::hooks::{ElicitationOutput, HookOutput, HookSpecificOutput};
///
/// // Decline in the user's place.
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::Elicitation(ElicitationOutput {
///     action: Some(ElicitationAction::Decline),
///     content: None,
/// }));
/// assert_eq!(output.to_wire_json(), r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"decline"}}"#);
/// ```
#[derive(Debug, Clone, Default, Serialize)]
pub struct ElicitationOutput {
    /// Accept, decline or cancel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<ElicitationAction>,
    /// The form data, for accept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Box<RawValue>>,
}

/// `WorktreeCreate` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, WorktreeCreateOutput};
///
/// let made = WorktreeCreateOutput { worktree_path: "/tmp/worktrees/fix-flaky-test".into() };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::WorktreeCreate(made));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"WorktreeCreate","worktreePath":"/tmp/worktrees/fix-flaky-test"}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeCreateOutput {
    /// Path of the created worktree (required).
    pub worktree_path: String,
}

/// `CwdChanged` and `FileChanged` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, WatchPathsOutput};
///
/// let watch = WatchPathsOutput { watch_paths: Some(vec!["/tmp/ws/package.json".into()]) };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::FileChanged(watch));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"FileChanged","watchPaths":["/tmp/ws/package.json"]}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchPathsOutput {
    /// Files to watch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch_paths: Option<Vec<String>>,
}

/// `MessageDisplay` output.
///
/// ```
/// use claude_agent_core::hooks::{HookOutput, HookSpecificOutput, MessageDisplayOutput};
///
/// let shown = MessageDisplayOutput { display_content: Some("[redacted]".into()) };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::MessageDisplay(shown));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"[redacted]"}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageDisplayOutput {
    /// Show this instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_content: Option<String>,
}

/// Compares by value; [`HookSpecificOutput::Raw`] and fields kept as raw JSON by their exact text.
impl PartialEq for HookSpecificOutput {
    fn eq(&self, other: &Self) -> bool {
        use HookSpecificOutput as O;
        match self {
            O::PreToolUse(a) => matches!(other, O::PreToolUse(b) if a == b),
            O::PostToolUse(a) => matches!(other, O::PostToolUse(b) if a == b),
            O::PostToolUseFailure(a) => matches!(other, O::PostToolUseFailure(b) if a == b),
            O::PostToolBatch(a) => matches!(other, O::PostToolBatch(b) if a == b),
            O::PermissionRequest(a) => matches!(other, O::PermissionRequest(b) if a == b),
            O::PermissionDenied(a) => matches!(other, O::PermissionDenied(b) if a == b),
            O::UserPromptSubmit(a) => matches!(other, O::UserPromptSubmit(b) if a == b),
            O::UserPromptExpansion(a) => matches!(other, O::UserPromptExpansion(b) if a == b),
            O::SessionStart(a) => matches!(other, O::SessionStart(b) if a == b),
            O::Setup(a) => matches!(other, O::Setup(b) if a == b),
            O::Stop(a) => matches!(other, O::Stop(b) if a == b),
            O::SubagentStart(a) => matches!(other, O::SubagentStart(b) if a == b),
            O::SubagentStop(a) => matches!(other, O::SubagentStop(b) if a == b),
            O::PreModelSwitch(a) => matches!(other, O::PreModelSwitch(b) if a == b),
            O::PostModelSwitch(a) => matches!(other, O::PostModelSwitch(b) if a == b),
            O::Notification(a) => matches!(other, O::Notification(b) if a == b),
            O::Elicitation(a) => matches!(other, O::Elicitation(b) if a == b),
            O::ElicitationResult(a) => matches!(other, O::ElicitationResult(b) if a == b),
            O::WorktreeCreate(a) => matches!(other, O::WorktreeCreate(b) if a == b),
            O::CwdChanged(a) => matches!(other, O::CwdChanged(b) if a == b),
            O::FileChanged(a) => matches!(other, O::FileChanged(b) if a == b),
            O::MessageDisplay(a) => matches!(other, O::MessageDisplay(b) if a == b),
            O::Raw(a) => matches!(other, O::Raw(b) if a.get() == b.get()),
        }
    }
}

/// Compares by value; `updated_input` by its exact JSON text.
impl PartialEq for PreToolUseOutput {
    fn eq(&self, other: &Self) -> bool {
        let PreToolUseOutput {
            permission_decision,
            permission_decision_reason,
            updated_input,
            additional_context,
        } = self;
        *permission_decision == other.permission_decision
            && *permission_decision_reason == other.permission_decision_reason
            && same_text(updated_input, &other.updated_input)
            && *additional_context == other.additional_context
    }
}

/// Compares by value; the replaced outputs by their exact JSON text.
impl PartialEq for PostToolUseOutput {
    fn eq(&self, other: &Self) -> bool {
        let PostToolUseOutput {
            additional_context,
            classifier_context,
            updated_tool_output,
            updated_mcp_tool_output,
        } = self;
        *additional_context == other.additional_context
            && *classifier_context == other.classifier_context
            && same_text(updated_tool_output, &other.updated_tool_output)
            && same_text(updated_mcp_tool_output, &other.updated_mcp_tool_output)
    }
}

/// Compares by value; `content` by its exact JSON text.
impl PartialEq for ElicitationOutput {
    fn eq(&self, other: &Self) -> bool {
        let ElicitationOutput { action, content } = self;
        *action == other.action && same_text(content, &other.content)
    }
}
