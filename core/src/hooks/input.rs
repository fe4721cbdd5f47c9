//! `HookInput`: the typed input of a `hook_callback` request, one variant per event.

/// Declares the input structs of two events that carry the same fields, so each event still has a
/// type of its own: `twin_inputs! { #[doc] First, #[doc] Second, { fields } }`.
macro_rules! twin_inputs {
    (
        $(#[$first_meta:meta])* $first:ident,
        $(#[$second_meta:meta])* $second:ident,
        { $($fields:tt)* }
    ) => {
        $(#[$first_meta])*
        #[derive(Debug, Clone, PartialEq, Deserialize)]
        #[non_exhaustive]
        pub struct $first { $($fields)* }

        $(#[$second_meta])*
        #[derive(Debug, Clone, PartialEq, Deserialize)]
        #[non_exhaustive]
        pub struct $second { $($fields)* }
    };
}

mod agent;
mod base;
mod elicitation;
mod prompt;
mod session;
mod tool;
mod workspace;

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::HookEvent;
use crate::Json;

pub use agent::{
    SubagentStartInput, SubagentStopInput, TaskCompletedInput, TaskCreatedInput, TeammateIdleInput,
};
pub use base::{HookBase, HookEffort};
pub use elicitation::{ElicitationInput, ElicitationResultInput};
pub use prompt::{
    MessageDisplayInput, NotificationInput, UserPromptExpansionInput, UserPromptSubmitInput,
};
pub use session::{
    PostCompactInput, PostModelSwitchInput, PreCompactInput, PreModelSwitchInput, SessionEndInput,
    SessionStartInput, SetupInput, StopFailureInput, StopInput,
};
pub use tool::{
    BatchedToolCall, PermissionDeniedInput, PermissionRequestInput, PostToolBatchInput,
    PostToolUseFailureInput, PostToolUseInput, PreSkillShellCommandInput, PreToolUseInput,
    SkillShellCommand,
};
pub use workspace::{
    ConfigChangeInput, CwdChangedInput, DirectoryAddedInput, FileChangedInput,
    InstructionsLoadedInput, WorktreeCreateInput, WorktreeRemoveInput,
};

/// The input type of one hook event: [`PreToolUseInput`] is the input of `PreToolUse`, and so on,
/// one type for each event this crate knows. It names its event and takes itself out of a
/// [`HookInput`]; that is how `Options::on_hook` (in the runtime crates) picks the event from
/// the type of its callback's parameter.
///
/// Implemented by this crate for every event's input type; it cannot be implemented elsewhere.
///
/// ```
/// use claude_agent_tokio::hooks::{EventInput, HookEvent, HookInput, PreToolUseInput, StopInput};
///
/// assert_eq!(PreToolUseInput::EVENT, HookEvent::PreToolUse);
/// let input: HookInput = serde_json::from_str(
///     r#"{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"/t","cwd":"/w",
///         "tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}"#,
/// )
/// .unwrap();
/// // Not a `Stop` input: it comes back unchanged.
/// let input = StopInput::from_hook_input(input).unwrap_err();
/// let pre = PreToolUseInput::from_hook_input(input).unwrap();
/// assert_eq!(pre.tool_name, "Bash");
/// ```
pub trait EventInput: Sized + sealed::Sealed {
    /// The event this is the input of.
    const EVENT: HookEvent;

    /// `input` as this type when it is the input of [`EventInput::EVENT`]; otherwise `input`
    /// back, unchanged.
    fn from_hook_input(input: HookInput) -> Result<Self, HookInput>;
}

/// Keeps [`EventInput`] to the input types of this crate.
mod sealed {
    pub trait Sealed {}
}

/// Declares [`HookInput`] with one variant per known event (named as the [`HookEvent`] variant),
/// the matches over all of them, and the [`EventInput`] impl of each event's input type.
macro_rules! hook_inputs {
    ($($event:ident($input:ty),)*) => {
        /// The input of a hook callback: one variant per [`HookEvent`], each with the event's
        /// typed fields and the common [`HookBase`]. Tool inputs and responses stay raw JSON.
        ///
        /// Read it with [`HookInput::parse`] (or `Deserialize`); an event this crate does not
        /// know becomes [`HookInput::Other`] with the whole input kept raw. Each variant holds
        /// its event's input type, which implements [`EventInput`].
        ///
        /// ```
        /// # use claude_agent_tokio::Json;
        /// # use claude_agent_tokio::hooks::{HookEvent, HookInput};
        /// let raw = r#"{"session_id":"s","transcript_path":"/t","cwd":"/w",
        ///     "hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},
        ///     "tool_use_id":"toolu_1"}"#;
        /// let input = HookInput::parse(raw).unwrap();
        /// assert_eq!(input.event(), HookEvent::PreToolUse);
        /// let HookInput::PreToolUse(pre) = &input else { unreachable!() };
        /// assert_eq!(pre.tool_name, "Bash");
        /// assert_eq!(pre.tool_input.as_str(), r#"{"command":"ls"}"#);
        /// assert_eq!(input.base().unwrap().cwd, "/w");
        /// assert_eq!(input.raw_json(), Some(raw));
        /// ```
        ///
        /// A callback registered with `Options::on_hook_event` (in the runtime crates) gets this
        /// untyped input, so one callback can serve several events:
        ///
        /// ```
        /// use claude_agent_tokio::hooks::HookInput;
        ///
        /// /// What an audit hook, registered for several events, logs of each call.
        /// fn audit_line(input: &HookInput) -> String {
        ///     let cwd = input.base().map_or("?", |base| base.cwd.as_str());
        ///     format!("{} in {cwd}", input.event().as_str())
        /// }
        ///
        /// let pre = r#"{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"/t","cwd":"/w",
        ///     "tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}"#;
        /// let stop = r#"{"hook_event_name":"Stop","session_id":"s","transcript_path":"/t","cwd":"/w",
        ///     "stop_hook_active":false}"#;
        /// assert_eq!(audit_line(&HookInput::parse(pre).unwrap()), "PreToolUse in /w");
        /// assert_eq!(audit_line(&HookInput::parse(stop).unwrap()), "Stop in /w");
        /// ```
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum HookInput {
            $(
                #[doc = concat!("`", stringify!($event), "`.")]
                $event(Box<$input>),
            )*
            /// An event this crate does not know.
            Other {
                /// The event's name (`hook_event_name`).
                event: String,
                /// The whole input object.
                raw: Json,
            },
        }

        impl HookInput {
            /// Parses the fields of a known `event` from `json`; `None` for unknown events.
            fn parse_known(event: &HookEvent, json: &str) -> Option<Result<Self, serde_json::Error>> {
                match event {
                    $(HookEvent::$event => Some(serde_json::from_str(json).map(HookInput::$event)),)*
                    _ => None,
                }
            }

            /// The event that fired.
            pub fn event(&self) -> HookEvent {
                match self {
                    $(HookInput::$event(_) => HookEvent::$event,)*
                    HookInput::Other { event, .. } => HookEvent::from_name(event),
                }
            }

            /// The common fields; `None` for [`HookInput::Other`].
            pub fn base(&self) -> Option<&HookBase> {
                match self {
                    $(HookInput::$event(input) => Some(&input.base),)*
                    HookInput::Other { .. } => None,
                }
            }

            fn base_mut(&mut self) -> Option<&mut HookBase> {
                match self {
                    $(HookInput::$event(input) => Some(&mut input.base),)*
                    HookInput::Other { .. } => None,
                }
            }
        }

        $(
            impl sealed::Sealed for $input {}

            impl EventInput for $input {
                const EVENT: HookEvent = HookEvent::$event;

                fn from_hook_input(input: HookInput) -> Result<Self, HookInput> {
                    match input {
                        HookInput::$event(input) => Ok(*input),
                        other => Err(other),
                    }
                }
            }
        )*
    };
}

hook_inputs! {
    PreToolUse(PreToolUseInput),
    PostToolUse(PostToolUseInput),
    PostToolUseFailure(PostToolUseFailureInput),
    PostToolBatch(PostToolBatchInput),
    Notification(NotificationInput),
    UserPromptSubmit(UserPromptSubmitInput),
    UserPromptExpansion(UserPromptExpansionInput),
    SessionStart(SessionStartInput),
    SessionEnd(SessionEndInput),
    Stop(StopInput),
    StopFailure(StopFailureInput),
    SubagentStart(SubagentStartInput),
    SubagentStop(SubagentStopInput),
    PreCompact(PreCompactInput),
    PostCompact(PostCompactInput),
    PreModelSwitch(PreModelSwitchInput),
    PostModelSwitch(PostModelSwitchInput),
    PermissionRequest(PermissionRequestInput),
    PermissionDenied(PermissionDeniedInput),
    Setup(SetupInput),
    TeammateIdle(TeammateIdleInput),
    TaskCreated(TaskCreatedInput),
    TaskCompleted(TaskCompletedInput),
    Elicitation(ElicitationInput),
    ElicitationResult(ElicitationResultInput),
    ConfigChange(ConfigChangeInput),
    WorktreeCreate(WorktreeCreateInput),
    WorktreeRemove(WorktreeRemoveInput),
    InstructionsLoaded(InstructionsLoadedInput),
    CwdChanged(CwdChangedInput),
    FileChanged(FileChangedInput),
    DirectoryAdded(DirectoryAddedInput),
    MessageDisplay(MessageDisplayInput),
    PreSkillShellCommand(PreSkillShellCommandInput),
}

#[derive(Deserialize)]
struct EventName<'a> {
    #[serde(borrow)]
    hook_event_name: Cow<'a, str>,
}

impl HookInput {
    /// Reads the `input` object of a `hook_callback` request, dispatching on `hook_event_name`.
    ///
    /// An unknown event gives [`HookInput::Other`]. It fails when `input` is not an object with a
    /// string `hook_event_name`, or when a known event lacks one of its required fields or has one
    /// of the wrong type. It never panics.
    pub fn parse(input: &str) -> Result<HookInput, serde_json::Error> {
        HookInput::from_raw(serde_json::from_str(input)?)
    }

    /// [`HookInput::parse`] of raw JSON already checked to be JSON: the session's path, which
    /// keeps the input's text without checking it again.
    pub(crate) fn from_raw(input: &RawValue) -> Result<HookInput, serde_json::Error> {
        let text = input.get();
        // Only an object is a hook input (serde would also read a struct from an array).
        if !text.trim_start().starts_with('{') {
            return Err(serde::de::Error::custom(
                "a hook input must be a JSON object",
            ));
        }
        let name: EventName<'_> = serde_json::from_str(text)?;
        let event = HookEvent::from_name(&name.hook_event_name);
        match HookInput::parse_known(&event, text) {
            Some(parsed) => {
                let mut parsed = parsed?;
                if let Some(base) = parsed.base_mut() {
                    base.raw = Some(Json::from(input.to_owned()));
                }
                Ok(parsed)
            }
            None => Ok(HookInput::Other {
                event: event.as_str().to_owned(),
                raw: Json::from(input.to_owned()),
            }),
        }
    }

    /// The whole input object as the CLI sent it (for fields this crate does not type).
    /// `None` only for a typed input that was not read with [`HookInput::parse`].
    pub fn raw_json(&self) -> Option<&str> {
        match self {
            HookInput::Other { raw, .. } => Some(raw.as_str()),
            typed => typed.base().and_then(HookBase::raw_json),
        }
    }
}

impl<'de> Deserialize<'de> for HookInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        HookInput::from_raw(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
