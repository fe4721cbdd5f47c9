//! `HookSpecificOutput`: the per-event part of a hook output, tagged with `hookEventName`.

use serde::{Deserialize, Deserializer, Serialize};

use super::{PermissionDecision, PermissionRequestDecision};
use crate::hooks::HookEvent;
use crate::json::{read_kind, split_tag};
use crate::mcp::ElicitationAction;
use crate::Json;

/// `hookSpecificOutput`: what a hook answers for its particular event. Serialized with
/// `hookEventName` set from the variant.
///
/// ```
/// # use claude_agent_tokio::hooks::{HookSpecificOutput, PreToolUseOutput, PermissionDecision};
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
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::hooks::{HookEvent, HookSpecificOutput};
/// let context = || HookSpecificOutput::additional_context(HookEvent::Stop, "more");
/// assert_eq!(context(), context());
/// assert_ne!(context(), HookSpecificOutput::additional_context(HookEvent::SubagentStop, "more"));
/// let raw = |json: &str| HookSpecificOutput::Raw(json.parse::<Json>().unwrap());
/// assert_eq!(raw(r#"{"hookEventName":"Later"}"#), raw(r#"{"hookEventName":"Later"}"#));
/// assert_ne!(raw(r#"{"hookEventName":"Later"}"#), raw(r#"{"hookEventName": "Later"}"#));
/// ```
#[derive(Debug, Clone, Serialize, PartialEq)]
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
    /// `PreSkillShellCommand`: refuse a skill's shell command.
    PreSkillShellCommand(PreSkillShellCommandOutput),
    /// Any other object, written as is (it should carry its own `hookEventName`).
    #[serde(untagged)]
    Raw(Json),
}

impl<'de> Deserialize<'de> for HookSpecificOutput {
    /// Reads the variant `hookEventName` names; an unknown or missing name gives
    /// [`HookSpecificOutput::Raw`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (event, json) = split_tag(deserializer, "hookEventName")?;
        Ok(match event.as_deref() {
            Some("PreToolUse") => HookSpecificOutput::PreToolUse(read_kind(&json)?),
            Some("PostToolUse") => HookSpecificOutput::PostToolUse(read_kind(&json)?),
            Some("PostToolUseFailure") => HookSpecificOutput::PostToolUseFailure(read_kind(&json)?),
            Some("PostToolBatch") => HookSpecificOutput::PostToolBatch(read_kind(&json)?),
            Some("PermissionRequest") => HookSpecificOutput::PermissionRequest(read_kind(&json)?),
            Some("PermissionDenied") => HookSpecificOutput::PermissionDenied(read_kind(&json)?),
            Some("UserPromptSubmit") => HookSpecificOutput::UserPromptSubmit(read_kind(&json)?),
            Some("UserPromptExpansion") => {
                HookSpecificOutput::UserPromptExpansion(read_kind(&json)?)
            }
            Some("SessionStart") => HookSpecificOutput::SessionStart(read_kind(&json)?),
            Some("Setup") => HookSpecificOutput::Setup(read_kind(&json)?),
            Some("Stop") => HookSpecificOutput::Stop(read_kind(&json)?),
            Some("SubagentStart") => HookSpecificOutput::SubagentStart(read_kind(&json)?),
            Some("SubagentStop") => HookSpecificOutput::SubagentStop(read_kind(&json)?),
            Some("PreModelSwitch") => HookSpecificOutput::PreModelSwitch(read_kind(&json)?),
            Some("PostModelSwitch") => HookSpecificOutput::PostModelSwitch(read_kind(&json)?),
            Some("Notification") => HookSpecificOutput::Notification(read_kind(&json)?),
            Some("Elicitation") => HookSpecificOutput::Elicitation(read_kind(&json)?),
            Some("ElicitationResult") => HookSpecificOutput::ElicitationResult(read_kind(&json)?),
            Some("WorktreeCreate") => HookSpecificOutput::WorktreeCreate(read_kind(&json)?),
            Some("CwdChanged") => HookSpecificOutput::CwdChanged(read_kind(&json)?),
            Some("FileChanged") => HookSpecificOutput::FileChanged(read_kind(&json)?),
            Some("MessageDisplay") => HookSpecificOutput::MessageDisplay(read_kind(&json)?),
            Some("PreSkillShellCommand") => {
                HookSpecificOutput::PreSkillShellCommand(read_kind(&json)?)
            }
            _ => HookSpecificOutput::Raw(json),
        })
    }
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
                #[derive(Serialize, Deserialize)]
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
                    Json::from_serialize(&body).expect("serializing two strings cannot fail"),
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
    /// use claude_agent_tokio::hooks::{HookEvent, HookOutput};
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
            HookSpecificOutput::PreSkillShellCommand(_) => HookEvent::PreSkillShellCommand,
            HookSpecificOutput::Raw(_) => return None,
        })
    }
}

/// `PreToolUse` output.
///
/// Rewrite a tool call before it runs:
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseInput, PreToolUseOutput};
///
/// #[derive(serde::Deserialize)]
/// struct Bash {
///     command: String,
/// }
///
/// /// Keep npm offline (registered for `Bash`).
/// fn npm_offline(input: &PreToolUseInput) -> HookOutput {
///     let Ok(bash) = input.tool_input.parse::<Bash>() else { return HookOutput::default() };
///     if !bash.command.starts_with("npm ") {
///         return HookOutput::default();
///     }
///     let command = bash.command.replacen("npm ", "npm --offline ", 1);
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreToolUse(PreToolUseOutput {
///         permission_decision: Some(PermissionDecision::Allow),
///         updated_input: Some(serde_json::json!({ "command": command }).into()),
///         ..Default::default()
///     }))
/// }
///
/// let input: PreToolUseInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash",
///     "tool_input":{"command":"npm install"},"tool_use_id":"toolu_1"}"#,
/// )
/// .unwrap();
/// assert_eq!(
///     npm_offline(&input).to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"npm --offline install"}}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
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
    pub updated_input: Option<Json>,
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

/// `PreSkillShellCommand` output: `deny` (or `ask`, or `defer`: a skill cannot wait for an
/// answer) keeps the command from running, with the reason; `allow` adds nothing (the command
/// runs unless a hook refuses it).
///
/// ```
/// use claude_agent_tokio::hooks::{HookSpecificOutput, PermissionDecision, PreSkillShellCommandOutput};
///
/// let refused = HookSpecificOutput::PreSkillShellCommand(PreSkillShellCommandOutput {
///     permission_decision: Some(PermissionDecision::Deny),
///     permission_decision_reason: Some("no network in skills".into()),
///     ..Default::default()
/// });
/// assert_eq!(
///     serde_json::to_string(&refused).unwrap(),
///     r#"{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"no network in skills"}"#
/// );
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PreSkillShellCommandOutput {
    /// Refuse (`deny`, `ask`, `defer`), or `allow`, which changes nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<PermissionDecision>,
    /// Why: shown in place of the command's output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// Never applied: the CLI does not run a changed command, and any value keeps the command
    /// from running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Json>,
}

/// `PostToolUse` output.
///
/// ```
/// # use claude_agent_tokio::Json;
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, PostToolUseInput, PostToolUseOutput};
///
/// /// Keep secrets that a tool printed out of the conversation (registered for `Bash`).
/// fn withhold_secrets(input: &PostToolUseInput) -> HookOutput {
///     if !input.tool_response.as_str().contains("AWS_SECRET_ACCESS_KEY") {
///         return HookOutput::default();
///     }
///     let redacted = r#"{"stdout":"[output withheld: it contained credentials]","stderr":""}"#.parse::<Json>().unwrap();
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PostToolUse(PostToolUseOutput {
///         updated_tool_output: Some(redacted),
///         ..Default::default()
///     }))
/// }
///
/// let input: PostToolUseInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash",
///     "tool_input":{"command":"env"},"tool_response":{"stdout":"AWS_SECRET_ACCESS_KEY=…","stderr":""},
///     "tool_use_id":"toolu_1"}"#,
/// )
/// .unwrap();
/// assert!(withhold_secrets(&input).to_wire_json().contains(r#""updatedToolOutput":{"stdout":"[output withheld"#));
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
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
    pub updated_tool_output: Option<Json>,
    /// Replace an MCP tool's output (`updatedMCPToolOutput`).
    #[serde(
        rename = "updatedMCPToolOutput",
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_mcp_tool_output: Option<Json>,
}

/// The output of the events whose only specific field is `additionalContext`.
///
/// ```
/// use claude_agent_tokio::hooks::{AdditionalContextOutput, HookEvent, HookOutput, HookSpecificOutput};
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdditionalContextOutput {
    /// Text added to the model's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

/// `PermissionRequest` output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, PermissionRequestDecision, PermissionRequestOutput};
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRequestOutput {
    /// The answer to the prompt.
    pub decision: PermissionRequestDecision,
}

/// `PermissionDenied` output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, PermissionDeniedOutput};
///
/// let retry = HookOutput::default()
///     .with_hook_specific_output(HookSpecificOutput::PermissionDenied(PermissionDeniedOutput { retry: Some(true) }));
/// assert_eq!(retry.to_wire_json(), r#"{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PermissionDeniedOutput {
    /// Let the model try again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
}

/// `UserPromptSubmit` output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, UserPromptSubmitInput, UserPromptSubmitOutput};
///
/// /// Title the session after the prompt's first line, and ask for British spelling.
/// fn title_session(input: &UserPromptSubmitInput) -> HookOutput {
///     let title = input.prompt.lines().next().unwrap_or_default().chars().take(40).collect::<String>();
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::UserPromptSubmit(UserPromptSubmitOutput {
///         session_title: Some(title),
///         additional_context: Some("Answer in British English.".into()),
///         ..Default::default()
///     }))
/// }
///
/// let input: UserPromptSubmitInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"UserPromptSubmit",
///     "prompt":"Fix the flaky test\nIt fails one run in ten."}"#,
/// )
/// .unwrap();
/// assert_eq!(
///     title_session(&input).to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Answer in British English.","sessionTitle":"Fix the flaky test"}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, UserPromptExpansionInput, UserPromptExpansionOutput};
///
/// /// Point `/review` at the team's review guide.
/// fn review_guide(input: &UserPromptExpansionInput) -> HookOutput {
///     if input.command_name != "review" {
///         return HookOutput::default();
///     }
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::UserPromptExpansion(UserPromptExpansionOutput {
///         additional_context: Some("Reviews follow REVIEWING.md in the repository root.".into()),
///         ..Default::default()
///     }))
/// }
///
/// let input: UserPromptExpansionInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"UserPromptExpansion",
///     "expansion_type":"slash_command","command_name":"review","command_args":"142","prompt":"Review pull request 142"}"#,
/// )
/// .unwrap();
/// assert_eq!(
///     review_guide(&input).to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"UserPromptExpansion","additionalContext":"Reviews follow REVIEWING.md in the repository root."}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, SessionStartOutput};
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
/// use claude_agent_tokio::hooks::{
///     HookOutput, HookSpecificOutput, PermissionDecision, PreModelSwitchInput, PreModelSwitchOutput,
/// };
///
/// /// Refuse a switch that would rewrite a large prompt cache.
/// fn keep_the_cache(input: &PreModelSwitchInput) -> HookOutput {
///     if input.estimated_cache_write_usd < 1.0 {
///         return HookOutput::default();
///     }
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreModelSwitch(PreModelSwitchOutput {
///         permission_decision: Some(PermissionDecision::Deny),
///         permission_decision_reason: Some(format!("switching would cost ${:.2}", input.estimated_cache_write_usd)),
///     }))
/// }
///
/// let input: PreModelSwitchInput = serde_json::from_str(
///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreModelSwitch",
///     "from_model":"sonnet","to_model":"opus","source":"sdk","context_tokens":480000,
///     "prompt_cache_warm":true,"cache_ttl":"1h","estimated_cache_write_usd":2.4,"pricing":"catalog"}"#,
/// )
/// .unwrap();
/// assert!(keep_the_cache(&input).to_wire_json().contains(r#""permissionDecisionReason":"switching would cost $2.40""#));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
/// use claude_agent_tokio::mcp::ElicitationAction;
/// use claude_agent_tokio::hooks::{ElicitationOutput, HookOutput, HookSpecificOutput};
///
/// // Decline in the user's place.
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::Elicitation(ElicitationOutput {
///     action: Some(ElicitationAction::Decline),
///     content: None,
/// }));
/// assert_eq!(output.to_wire_json(), r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"decline"}}"#);
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ElicitationOutput {
    /// Accept, decline or cancel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<ElicitationAction>,
    /// The form data, for accept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Json>,
}

/// `WorktreeCreate` output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, WorktreeCreateOutput};
///
/// let made = WorktreeCreateOutput { worktree_path: "/tmp/worktrees/fix-flaky-test".into() };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::WorktreeCreate(made));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"WorktreeCreate","worktreePath":"/tmp/worktrees/fix-flaky-test"}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeCreateOutput {
    /// Path of the created worktree (required).
    pub worktree_path: String,
}

/// `CwdChanged` and `FileChanged` output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, WatchPathsOutput};
///
/// let watch = WatchPathsOutput { watch_paths: Some(vec!["/tmp/ws/package.json".into()]) };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::FileChanged(watch));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"FileChanged","watchPaths":["/tmp/ws/package.json"]}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchPathsOutput {
    /// Files to watch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch_paths: Option<Vec<String>>,
}

/// `MessageDisplay` output.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, MessageDisplayOutput};
///
/// let shown = MessageDisplayOutput { display_content: Some("[redacted]".into()) };
/// let output = HookOutput::default().with_hook_specific_output(HookSpecificOutput::MessageDisplay(shown));
/// assert_eq!(
///     output.to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"[redacted]"}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageDisplayOutput {
    /// Show this instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_content: Option<String>,
}
