//! The permission modes, as their wire strings.

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::UnknownName;

/// How the CLI decides about tool use. Sent with `--permission-mode` or `set_permission_mode`,
/// and reported in hook inputs and `system` messages.
///
/// Serialized as its wire string; a mode this crate does not know is kept as [`PermissionMode::Other`].
///
/// ```
/// # use claude_agent_tokio::permission::PermissionMode;
/// let mode: PermissionMode = "acceptEdits".parse().unwrap();
/// assert_eq!(mode, PermissionMode::AcceptEdits);
/// assert_eq!(serde_json::to_string(&mode).unwrap(), r#""acceptEdits""#);
/// assert_eq!("yolo".parse::<PermissionMode>().unwrap().as_str(), "yolo");
/// assert_eq!(PermissionMode::from_name("plan"), PermissionMode::Plan);
/// ```
///
/// Set at launch, or changed during a session (in the runtime crates, `Options::permission_mode`
/// and `Client::set_permission_mode`):
///
/// ```
/// use claude_agent_tokio::control::ControlRequest;
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
/// use claude_agent_tokio::permission::PermissionMode;
///
/// let mut config = AgentConfig::default();
/// config.permission_mode = Some(PermissionMode::Plan);
/// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(spec.args.contains(&"--permission-mode=plan".to_owned()));
///
/// // … once the plan is approved:
/// let request = ControlRequest::SetPermissionMode { mode: PermissionMode::AcceptEdits };
/// assert_eq!(request.body_json(), r#"{"subtype":"set_permission_mode","mode":"acceptEdits"}"#);
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum PermissionMode {
    /// `default`: ask for anything not allowed by a rule.
    #[default]
    Default,
    /// `acceptEdits`: file edits are allowed without asking.
    AcceptEdits,
    /// `bypassPermissions`: everything is allowed (the CLI refuses it when run as root).
    BypassPermissions,
    /// `plan`: plan only, run no tools that change anything.
    Plan,
    /// `dontAsk`: deny whatever would need a prompt.
    DontAsk,
    /// `auto`: a classifier decides.
    Auto,
    /// `manual`: ask for everything.
    Manual,
    /// A mode this crate does not know, as its wire string.
    Other(UnknownName),
}

impl PermissionMode {
    /// The mode's wire string.
    pub fn as_str(&self) -> &str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::Plan => "plan",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Auto => "auto",
            PermissionMode::Manual => "manual",
            PermissionMode::Other(name) => name.as_str(),
        }
    }

    /// The mode named `name`; unknown names become [`PermissionMode::Other`].
    pub fn from_name(name: &str) -> Self {
        match name {
            "default" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            "plan" => PermissionMode::Plan,
            "dontAsk" => PermissionMode::DontAsk,
            "auto" => PermissionMode::Auto,
            "manual" => PermissionMode::Manual,
            other => PermissionMode::Other(UnknownName::new(other)),
        }
    }
}

impl FromStr for PermissionMode {
    type Err = Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(PermissionMode::from_name(s))
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for PermissionMode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PermissionMode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(PermissionMode::from_name(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_mode_round_trips_through_its_wire_string() {
        let modes = [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::BypassPermissions,
            PermissionMode::Plan,
            PermissionMode::DontAsk,
            PermissionMode::Auto,
            PermissionMode::Manual,
        ];
        for mode in modes {
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
            let back: PermissionMode = serde_json::from_str(&json).unwrap();
            assert_eq!(back, mode);
        }
    }

    #[test]
    fn unknown_mode_is_kept_by_name() {
        let mode: PermissionMode = serde_json::from_str(r#""futureMode""#).unwrap();
        assert_eq!(mode, PermissionMode::from_name("futureMode"));
        assert_eq!(serde_json::to_string(&mode).unwrap(), r#""futureMode""#);
    }

    #[test]
    fn escaped_mode_string_is_decoded() {
        let mode: PermissionMode = serde_json::from_str(r#""pl\u0061n""#).unwrap();
        assert_eq!(mode, PermissionMode::Plan);
    }

    #[test]
    fn non_string_mode_is_an_error_not_a_panic() {
        assert!(serde_json::from_str::<PermissionMode>("42").is_err());
    }
}
