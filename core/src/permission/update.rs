//! `PermissionUpdate`: a change to permission rules, mode or directories, as suggested by the CLI
//! in `can_use_tool` and sent back by the host with an allow answer.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use super::PermissionMode;
use crate::Json;

/// One change to the permission settings (`type` on the wire).
///
/// Updates of a `type` this crate does not know, or whose fields do not match, are kept as
/// [`PermissionUpdate::Unknown`] and serialized back unchanged.
///
/// ```
/// # use claude_agent_tokio::permission::{PermissionUpdate, PermissionRule, RuleBehavior, UpdateDestination};
/// let update = PermissionUpdate::add_rules(
///     vec![PermissionRule::new("Bash").with_content("ls:*")],
///     RuleBehavior::Allow,
///     UpdateDestination::Session,
/// );
/// assert_eq!(
///     serde_json::to_string(&update).unwrap(),
///     r#"{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],"behavior":"allow","destination":"session"}"#
/// );
/// let back: PermissionUpdate = serde_json::from_str(r#"{"type":"setMode","mode":"plan","destination":"session"}"#).unwrap();
/// assert!(matches!(back, PermissionUpdate::SetMode(_)));
/// ```
///
/// Sent back with an allow answer (`PermissionResult::with_updated_permissions`), for instance to
/// switch to accepting edits after the first one, or to open another directory:
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::permission::{PermissionMode, PermissionResult, PermissionUpdate, UpdateDestination};
/// let answer = PermissionResult::allow().with_updated_permissions(vec![
///     PermissionUpdate::set_mode(PermissionMode::AcceptEdits, UpdateDestination::Session),
///     PermissionUpdate::add_directories(vec!["/tmp/shared-lib".into()], UpdateDestination::Session),
/// ]);
/// let input = r#"{"file_path":"/tmp/ws/README.md"}"#.parse::<Json>().unwrap();
/// assert_eq!(
///     answer.to_wire_json(&input),
///     r#"{"behavior":"allow","updatedInput":{"file_path":"/tmp/ws/README.md"},"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"},{"type":"addDirectories","directories":["/tmp/shared-lib"],"destination":"session"}]}"#
/// );
/// ```
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum PermissionUpdate {
    /// `addRules`: add rules.
    AddRules(RuleUpdate),
    /// `replaceRules`: replace the rules of that behavior and destination.
    ReplaceRules(RuleUpdate),
    /// `removeRules`: remove rules.
    RemoveRules(RuleUpdate),
    /// `setMode`: change the permission mode.
    SetMode(ModeUpdate),
    /// `addDirectories`: allow more working directories.
    AddDirectories(DirectoryUpdate),
    /// `removeDirectories`: take working directories away.
    RemoveDirectories(DirectoryUpdate),
    /// Any other update, as the raw JSON object.
    #[serde(untagged)]
    Unknown(Json),
}

impl PermissionUpdate {
    /// An `addRules` update.
    pub fn add_rules(
        rules: Vec<PermissionRule>,
        behavior: RuleBehavior,
        destination: UpdateDestination,
    ) -> Self {
        PermissionUpdate::AddRules(RuleUpdate {
            rules,
            behavior,
            destination,
        })
    }

    /// A `setMode` update.
    pub fn set_mode(mode: PermissionMode, destination: UpdateDestination) -> Self {
        PermissionUpdate::SetMode(ModeUpdate { mode, destination })
    }

    /// An `addDirectories` update.
    pub fn add_directories(directories: Vec<String>, destination: UpdateDestination) -> Self {
        PermissionUpdate::AddDirectories(DirectoryUpdate {
            directories,
            destination,
        })
    }
}

/// The known update kinds, for parsing; the public enum adds the raw fallback.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum KnownUpdate {
    AddRules(RuleUpdate),
    ReplaceRules(RuleUpdate),
    RemoveRules(RuleUpdate),
    SetMode(ModeUpdate),
    AddDirectories(DirectoryUpdate),
    RemoveDirectories(DirectoryUpdate),
}

impl<'de> Deserialize<'de> for PermissionUpdate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        Ok(match serde_json::from_str::<KnownUpdate>(raw.get()) {
            Ok(KnownUpdate::AddRules(u)) => PermissionUpdate::AddRules(u),
            Ok(KnownUpdate::ReplaceRules(u)) => PermissionUpdate::ReplaceRules(u),
            Ok(KnownUpdate::RemoveRules(u)) => PermissionUpdate::RemoveRules(u),
            Ok(KnownUpdate::SetMode(u)) => PermissionUpdate::SetMode(u),
            Ok(KnownUpdate::AddDirectories(u)) => PermissionUpdate::AddDirectories(u),
            Ok(KnownUpdate::RemoveDirectories(u)) => PermissionUpdate::RemoveDirectories(u),
            Err(_) => PermissionUpdate::Unknown(Json::from(raw)),
        })
    }
}

/// The body of `addRules`, `replaceRules` and `removeRules`.
///
/// ```
/// use claude_agent_tokio::permission::{PermissionRequest, PermissionUpdate, RuleBehavior};
///
/// // The suggestions of a request a real CLI sent: allow this exact command for the project.
/// let request: PermissionRequest = serde_json::from_str(
///     r#"{"tool_name":"Bash","input":{"command":"npm test"},"tool_use_id":"toolu_01","permission_suggestions":[
///         {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"localSettings"}]}"#,
/// )
/// .unwrap();
/// let PermissionUpdate::AddRules(update) = &request.permission_suggestions[0] else { panic!("not addRules") };
/// assert_eq!(update.behavior, RuleBehavior::Allow);
/// assert_eq!(update.rules[0].rule_content.as_deref(), Some("npm test"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleUpdate {
    /// The rules.
    pub rules: Vec<PermissionRule>,
    /// What the rules do.
    pub behavior: RuleBehavior,
    /// Where they are stored.
    pub destination: UpdateDestination,
}

/// The body of `setMode`.
///
/// ```
/// use claude_agent_tokio::permission::{ModeUpdate, PermissionMode, PermissionUpdate, UpdateDestination};
///
/// let update = PermissionUpdate::set_mode(PermissionMode::AcceptEdits, UpdateDestination::Session);
/// let PermissionUpdate::SetMode(ModeUpdate { mode, destination }) = &update else { unreachable!() };
/// assert_eq!((mode, destination), (&PermissionMode::AcceptEdits, &UpdateDestination::Session));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeUpdate {
    /// The new mode.
    pub mode: PermissionMode,
    /// Where it is stored.
    pub destination: UpdateDestination,
}

/// The body of `addDirectories` and `removeDirectories`.
///
/// ```
/// use claude_agent_tokio::permission::{PermissionUpdate, UpdateDestination};
///
/// let update: PermissionUpdate = serde_json::from_str(
///     r#"{"type":"addDirectories","directories":["/tmp/shared-lib"],"destination":"session"}"#,
/// )
/// .unwrap();
/// assert_eq!(update, PermissionUpdate::add_directories(vec!["/tmp/shared-lib".into()], UpdateDestination::Session));
/// let PermissionUpdate::AddDirectories(dirs) = update else { unreachable!() };
/// assert_eq!(dirs.directories, ["/tmp/shared-lib"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectoryUpdate {
    /// Absolute directory paths.
    pub directories: Vec<String>,
    /// Where the change is stored.
    pub destination: UpdateDestination,
}

/// A permission rule: a tool name and an optional pattern, e.g. `Bash` + `npm test:*`.
///
/// ```
/// use claude_agent_tokio::permission::PermissionRule;
///
/// let whole_tool = PermissionRule::new("WebSearch");
/// let some_commands = PermissionRule::new("Bash").with_content("npm test:*");
/// assert_eq!(serde_json::to_string(&whole_tool).unwrap(), r#"{"toolName":"WebSearch"}"#);
/// assert_eq!(serde_json::to_string(&some_commands).unwrap(), r#"{"toolName":"Bash","ruleContent":"npm test:*"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRule {
    /// The tool the rule is about.
    pub tool_name: String,
    /// The pattern within the tool (e.g. a command prefix); `None` covers the whole tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

impl PermissionRule {
    /// A rule covering the whole tool `tool_name`.
    pub fn new(tool_name: impl Into<String>) -> Self {
        PermissionRule {
            tool_name: tool_name.into(),
            rule_content: None,
        }
    }

    /// The same rule, limited to `content`.
    pub fn with_content(mut self, content: impl Into<String>) -> Self {
        self.rule_content = Some(content.into());
        self
    }
}

/// What a rule does.
///
/// ```
/// use claude_agent_tokio::permission::{PermissionRule, PermissionUpdate, RuleBehavior, UpdateDestination};
///
/// // Never let this session push.
/// let no_push = PermissionUpdate::add_rules(
///     vec![PermissionRule::new("Bash").with_content("git push:*")],
///     RuleBehavior::Deny,
///     UpdateDestination::Session,
/// );
/// assert!(serde_json::to_string(&no_push).unwrap().contains(r#""behavior":"deny""#));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum RuleBehavior {
    /// Allow without asking.
    Allow,
    /// Refuse.
    Deny,
    /// Ask every time.
    Ask,
}

/// Where a permission change is stored.
///
/// ```
/// use claude_agent_tokio::permission::{PermissionRule, PermissionUpdate, RuleBehavior, UpdateDestination};
///
/// // `Session` lasts until the CLI exits; `LocalSettings` is written to `.claude/settings.local.json`.
/// let for_now = PermissionUpdate::add_rules(vec![PermissionRule::new("WebFetch")], RuleBehavior::Allow, UpdateDestination::Session);
/// let for_good = PermissionUpdate::add_rules(vec![PermissionRule::new("WebFetch")], RuleBehavior::Allow, UpdateDestination::LocalSettings);
/// assert!(serde_json::to_string(&for_now).unwrap().ends_with(r#""destination":"session"}"#));
/// assert!(serde_json::to_string(&for_good).unwrap().ends_with(r#""destination":"localSettings"}"#));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum UpdateDestination {
    /// `userSettings`: `~/.claude/settings.json`.
    UserSettings,
    /// `projectSettings`: `.claude/settings.json`.
    ProjectSettings,
    /// `localSettings`: `.claude/settings.local.json`.
    LocalSettings,
    /// `session`: this session only.
    Session,
    /// `cliArg`: as if given on the command line.
    CliArg,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn round_trip(json: &str) -> PermissionUpdate {
        let update: PermissionUpdate = serde_json::from_str(json).unwrap();
        let back: Value = serde_json::from_str(&serde_json::to_string(&update).unwrap()).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<Value>(json).unwrap(),
            "round trip of {json}"
        );
        update
    }

    #[test]
    fn recorded_add_rules_suggestion_parses_typed() {
        let update = round_trip(
            r#"{"type":"addRules","rules":[{"toolName":"mcp__calc__add"}],"behavior":"allow","destination":"localSettings"}"#,
        );
        let PermissionUpdate::AddRules(rules) = update else {
            panic!("not addRules: {update:?}")
        };
        assert_eq!(rules.rules, vec![PermissionRule::new("mcp__calc__add")]);
        assert_eq!(rules.behavior, RuleBehavior::Allow);
        assert_eq!(rules.destination, UpdateDestination::LocalSettings);
    }

    #[test]
    fn every_known_kind_round_trips() {
        let cases = [
            r#"{"type":"replaceRules","rules":[{"toolName":"Bash","ruleContent":"ls"}],"behavior":"deny","destination":"userSettings"}"#,
            r#"{"type":"removeRules","rules":[],"behavior":"ask","destination":"projectSettings"}"#,
            r#"{"type":"setMode","mode":"acceptEdits","destination":"cliArg"}"#,
            r#"{"type":"addDirectories","directories":["/tmp/a"],"destination":"session"}"#,
            r#"{"type":"removeDirectories","directories":["/tmp/b"],"destination":"session"}"#,
        ];
        for case in cases {
            assert!(
                !matches!(round_trip(case), PermissionUpdate::Unknown(_)),
                "{case}"
            );
        }
    }

    #[test]
    fn unknown_type_or_destination_is_kept_raw() {
        let unknown = r#"{"type":"grantEverything","scope":"world"}"#;
        let update = round_trip(unknown);
        let PermissionUpdate::Unknown(raw) = update else {
            panic!("typed: {update:?}")
        };
        assert_eq!(raw.as_str(), unknown);

        let odd = r#"{"type":"setMode","mode":"plan","destination":"orgSettings"}"#;
        assert!(matches!(round_trip(odd), PermissionUpdate::Unknown(_)));
        let untyped = r#"[1,2]"#;
        assert!(matches!(round_trip(untyped), PermissionUpdate::Unknown(_)));
    }

    #[test]
    fn constructors_build_the_wire_shape() {
        let json = serde_json::to_string(&PermissionUpdate::set_mode(
            PermissionMode::Plan,
            UpdateDestination::Session,
        ))
        .unwrap();
        assert_eq!(
            json,
            r#"{"type":"setMode","mode":"plan","destination":"session"}"#
        );
        let json = serde_json::to_string(&PermissionUpdate::add_directories(
            vec!["/w".into()],
            UpdateDestination::LocalSettings,
        ))
        .unwrap();
        assert_eq!(
            json,
            r#"{"type":"addDirectories","directories":["/w"],"destination":"localSettings"}"#
        );
    }
}
