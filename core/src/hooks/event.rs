//! `HookEvent`: the names of the hook events; 34 are known by name, any other is kept as `Other`.

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::UnknownName;

/// Declares [`HookEvent`] with one variant per wire name, plus `as_str`, `from_name` and `ALL`.
macro_rules! hook_events {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        /// A hook event name, such as `PreToolUse`. Serialized as its wire name; a name this
        /// crate does not know is kept as [`HookEvent::Other`].
        ///
        /// ```
        /// # use claude_agent_tokio::hooks::HookEvent;
        /// assert_eq!(HookEvent::from_name("PreToolUse"), HookEvent::PreToolUse);
        /// assert_eq!(HookEvent::PostToolBatch.as_str(), "PostToolBatch");
        /// assert_eq!("Later".parse::<HookEvent>().unwrap().as_str(), "Later");
        /// assert_eq!(HookEvent::ALL.len(), 34);
        /// ```
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum HookEvent {
            $($(#[doc = $doc])* $name,)*
            /// Any event this crate does not know by name.
            Other(UnknownName),
        }

        impl HookEvent {
            /// Every event this crate knows, in the order of the TypeScript SDK's `HOOK_EVENTS`.
            pub const ALL: &'static [HookEvent] = &[$(HookEvent::$name,)*];

            /// The event's name on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $(HookEvent::$name => stringify!($name),)*
                    HookEvent::Other(name) => name.as_str(),
                }
            }

            /// The event named `name`; unknown names become [`HookEvent::Other`].
            pub fn from_name(name: &str) -> Self {
                match name {
                    $(stringify!($name) => HookEvent::$name,)*
                    other => HookEvent::Other(UnknownName::new(other)),
                }
            }
        }
    };
}

hook_events! {
    /// Before a tool runs; may allow, deny or change the call.
    PreToolUse,
    /// After a tool succeeded.
    PostToolUse,
    /// After a tool failed.
    PostToolUseFailure,
    /// After a batch of parallel tool calls finished.
    PostToolBatch,
    /// The CLI shows a notification.
    Notification,
    /// The user submitted a prompt, before the model sees it.
    UserPromptSubmit,
    /// A slash command or MCP prompt was expanded into a prompt.
    UserPromptExpansion,
    /// A session starts, resumes, is cleared or compacted.
    SessionStart,
    /// A session ends.
    SessionEnd,
    /// The agent is about to stop.
    Stop,
    /// A turn ended with an API error.
    StopFailure,
    /// A subagent starts.
    SubagentStart,
    /// A subagent is about to stop.
    SubagentStop,
    /// Before the conversation is compacted.
    PreCompact,
    /// After the conversation was compacted.
    PostCompact,
    /// Before the model is switched.
    PreModelSwitch,
    /// After the model was switched.
    PostModelSwitch,
    /// The CLI would show a permission prompt.
    PermissionRequest,
    /// A tool call was denied by the permission system.
    PermissionDenied,
    /// Repository setup (`init` or maintenance).
    Setup,
    /// A teammate agent has nothing to do.
    TeammateIdle,
    /// A task was created.
    TaskCreated,
    /// A task was completed.
    TaskCompleted,
    /// An MCP server asks the user for input.
    Elicitation,
    /// The user answered an elicitation.
    ElicitationResult,
    /// A settings file or skill changed.
    ConfigChange,
    /// A git worktree is to be created.
    WorktreeCreate,
    /// A git worktree is to be removed.
    WorktreeRemove,
    /// A memory/instructions file (`CLAUDE.md` and the like) was loaded.
    InstructionsLoaded,
    /// The working directory changed.
    CwdChanged,
    /// A watched file changed.
    FileChanged,
    /// A working directory was added.
    DirectoryAdded,
    /// A piece of an assistant message is about to be displayed.
    MessageDisplay,
    /// A shell command of a skill or slash command (its ``!`command` `` lines) is about to run;
    /// may refuse it.
    PreSkillShellCommand,
}

impl FromStr for HookEvent {
    type Err = Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(HookEvent::from_name(s))
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for HookEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for HookEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(HookEvent::from_name(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_34_events_round_trip_through_their_names() {
        assert_eq!(HookEvent::ALL.len(), 34);
        for event in HookEvent::ALL {
            assert!(!matches!(event, HookEvent::Other(_)));
            assert_eq!(&HookEvent::from_name(event.as_str()), event);
            let json = serde_json::to_string(event).unwrap();
            assert_eq!(&serde_json::from_str::<HookEvent>(&json).unwrap(), event);
        }
        assert_eq!(HookEvent::MessageDisplay.as_str(), "MessageDisplay");
    }

    #[test]
    fn unknown_event_is_kept_by_name() {
        let event: HookEvent = serde_json::from_str(r#""BeforeLunch""#).unwrap();
        assert_eq!(event, HookEvent::from_name("BeforeLunch"));
        assert_eq!(event.to_string(), "BeforeLunch");
    }
}
