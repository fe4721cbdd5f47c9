//! `PermissionRequest`: the fields of a `can_use_tool` control request.

use serde::Deserialize;

use super::PermissionUpdate;
use crate::tools::BuiltinTool;
use crate::Json;

/// A `can_use_tool` request: the CLI asks whether a tool may run. It asks only when launched with
/// `--permission-prompt-tool=stdio` (which a `can_use_tool` callback adds), and only about uses its
/// own rules and permission mode do not settle.
///
/// The two rare nested objects are boxed to keep the struct small, since it travels inside
/// every session event.
///
/// Parsed from the `request` object of the control request (its `subtype` is ignored). Only
/// `tool_name` and `input` are required; everything else defaults to empty.
///
/// ```
/// # use claude_agent_tokio::permission::PermissionRequest;
/// let req: PermissionRequest = serde_json::from_str(
///     r#"{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls /"},
///         "blocked_path":"/","tool_use_id":"toolu_1"}"#,
/// ).unwrap();
/// assert_eq!(req.tool_name, "Bash");
/// assert_eq!(req.tool_input.as_str(), r#"{"command":"ls /"}"#);
/// assert_eq!(req.blocked_path.as_deref(), Some("/"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// Name of the tool, e.g. `Bash` or `mcp__calc__add`.
    pub tool_name: String,
    /// The tool's input as the model wrote it (`input` on the wire);
    /// [`Json::parse`](crate::Json::parse) reads it as the tool's argument type.
    #[serde(rename = "input")]
    pub tool_input: Json,
    /// The `tool_use` block this request is about; empty when the CLI named none (the request
    /// is still asked, as the official SDKs ask it).
    #[serde(default)]
    pub tool_use_id: String,
    /// Rule changes the CLI suggests for "always allow" (send them back in the allow answer to apply them).
    #[serde(default)]
    pub permission_suggestions: Vec<PermissionUpdate>,
    /// The path outside the allowed directories that triggered the prompt.
    #[serde(default)]
    pub blocked_path: Option<String>,
    /// Why the CLI asks, in words.
    #[serde(default)]
    pub decision_reason: Option<String>,
    /// What kind of reason: `rule`, `mode`, `subcommandResults`, `permissionPromptTool`, `hook`,
    /// `asyncAgent`, `sandboxOverride`, `workingDir`, `safetyCheck`, `classifier` or `other`.
    #[serde(default)]
    pub decision_reason_type: Option<String>,
    /// Whether the auto-mode classifier could have approved this.
    #[serde(default)]
    pub classifier_approvable: Option<bool>,
    /// Whether the UI should not offer "always allow".
    #[serde(default)]
    pub suppress_always_allow_rule: Option<bool>,
    /// Whether "no" should be the default answer.
    #[serde(default)]
    pub default_to_no: Option<bool>,
    /// The `ask` rule that matched, if one did.
    #[serde(default)]
    pub matched_ask_rule: Option<Box<MatchedAskRule>>,
    /// Title for a prompt.
    #[serde(default)]
    pub title: Option<String>,
    /// Human name of the tool (e.g. `Add` for `mcp__calc__add`).
    #[serde(default)]
    pub display_name: Option<String>,
    /// What the tool call does, in words.
    #[serde(default)]
    pub description: Option<String>,
    /// The subagent asking, if not the main agent.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The MCP server of the tool, for MCP tools.
    #[serde(default)]
    pub mcp_server: Option<Box<McpServerOrigin>>,
    /// Whether a human must answer (no automatic answer allowed).
    #[serde(default)]
    pub requires_user_interaction: Option<bool>,
    /// Whether the server's policy only allows asking (seen on SDK MCP tools; internal to the CLI).
    #[serde(default)]
    pub server_policy_ask_only: Option<bool>,
}

impl PermissionRequest {
    /// The tool call, typed when it is a built-in tool this crate knows ([`BuiltinTool`]);
    /// `tool_name` and `tool_input` as sent otherwise.
    ///
    /// ```
    /// use claude_agent_tokio::permission::PermissionRequest;
    /// use claude_agent_tokio::tools::BuiltinTool;
    ///
    /// let request: PermissionRequest = serde_json::from_str(
    ///     r#"{"tool_name":"Edit","tool_use_id":"toolu_1",
    ///         "input":{"file_path":"/srv/app/a.txt","old_string":"a","new_string":"b"}}"#,
    /// ).unwrap();
    /// let BuiltinTool::Edit(edit) = request.builtin() else { panic!("not Edit") };
    /// assert_eq!(edit.file_path, "/srv/app/a.txt");
    /// ```
    pub fn builtin(&self) -> BuiltinTool {
        BuiltinTool::parse(&self.tool_name, &self.tool_input)
    }
}

/// Which MCP server a tool comes from (`mcp_server` on the wire).
///
/// ```
/// use claude_agent_tokio::permission::{PermissionRequest, PermissionResult};
///
/// /// Allow the tools of in-process servers; refuse the rest.
/// fn own_tools_only(request: &PermissionRequest) -> PermissionResult {
///     match &request.mcp_server {
///         Some(server) if server.source.as_deref() == Some("sdk") => PermissionResult::allow(),
///         _ => PermissionResult::deny("not approved for this agent"),
///     }
/// }
///
/// // The request a real CLI sent for the in-process `calc` server's `add` tool:
/// let request: PermissionRequest = serde_json::from_str(
///     r#"{"subtype":"can_use_tool","tool_name":"mcp__calc__add","mcp_server":{"name":"calc","source":"sdk"},
///         "display_name":"Add","input":{"a":2,"b":40},"tool_use_id":"toolu_fake_6_0"}"#,
/// )
/// .unwrap();
/// assert_eq!(own_tools_only(&request), PermissionResult::allow());
/// let server = request.mcp_server.unwrap();
/// assert_eq!((server.name.as_str(), server.source.as_deref()), ("calc", Some("sdk")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct McpServerOrigin {
    /// The server's name.
    pub name: String,
    /// Where it was configured, e.g. `sdk` for an in-process server.
    #[serde(default)]
    pub source: Option<String>,
}

/// The `ask` rule that made the CLI prompt.
///
/// ```
/// use claude_agent_tokio::permission::PermissionRequest;
///
/// let request: PermissionRequest = serde_json::from_str(
///     r#"{"tool_name":"Bash","input":{"command":"git push origin main"},"tool_use_id":"toolu_01",
///         "decision_reason_type":"rule",
///         "matched_ask_rule":{"source":"projectSettings","tool_name":"Bash","rule_content":"git push:*"}}"#,
/// )
/// .unwrap();
/// let rule = request.matched_ask_rule.as_deref().unwrap();
/// assert_eq!((rule.tool_name.as_str(), rule.rule_content.as_deref()), ("Bash", Some("git push:*")));
/// assert_eq!(rule.source.as_deref(), Some("projectSettings"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct MatchedAskRule {
    /// Which settings the rule comes from.
    #[serde(default)]
    pub source: Option<String>,
    /// The rule's tool.
    pub tool_name: String,
    /// The rule's pattern, if any.
    #[serde(default)]
    pub rule_content: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::{PermissionRule, RuleBehavior, UpdateDestination};
    use crate::test_fixtures::recorded_requests;

    fn recorded(transcript: &str) -> Vec<PermissionRequest> {
        recorded_requests(transcript, "can_use_tool")
            .iter()
            .map(|raw| serde_json::from_str(raw.as_str()).unwrap())
            .collect()
    }

    #[test]
    fn recorded_bash_request_parses_with_blocked_path() {
        let reqs = recorded("permission_deny");
        assert_eq!(reqs.len(), 1);
        let req = &reqs[0];
        assert_eq!(req.tool_name, "Bash");
        let input: serde_json::Value = serde_json::from_str(req.tool_input.as_str()).unwrap();
        assert_eq!(input["command"], "ls -la /");
        assert_eq!(req.tool_use_id, "toolu_fake_1_1");
        assert_eq!(req.blocked_path.as_deref(), Some("/"));
        assert_eq!(req.display_name.as_deref(), Some("Bash"));
        assert_eq!(req.description.as_deref(), Some("run"));
        assert!(req.permission_suggestions.is_empty());
        assert!(req.mcp_server.is_none());
    }

    #[test]
    fn recorded_mcp_request_parses_server_and_suggestions() {
        let reqs = recorded("sdk_mcp");
        assert_eq!(reqs.len(), 1);
        let req = &reqs[0];
        assert_eq!(req.tool_name, "mcp__calc__add");
        assert_eq!(req.tool_input.as_str(), r#"{"a":2,"b":40}"#);
        let server = req.mcp_server.as_ref().unwrap();
        assert_eq!(
            (server.name.as_str(), server.source.as_deref()),
            ("calc", Some("sdk"))
        );
        assert_eq!(req.server_policy_ask_only, Some(true));
        assert_eq!(
            req.permission_suggestions,
            vec![crate::permission::PermissionUpdate::add_rules(
                vec![PermissionRule::new("mcp__calc__add")],
                RuleBehavior::Allow,
                UpdateDestination::LocalSettings,
            )]
        );
    }

    #[test]
    fn every_documented_field_is_read() {
        let req: PermissionRequest = serde_json::from_str(
            r#"{"tool_name":"Edit","input":{},"tool_use_id":"t","decision_reason":"r",
                "decision_reason_type":"rule","classifier_approvable":false,
                "suppress_always_allow_rule":true,"default_to_no":true,
                "matched_ask_rule":{"source":"userSettings","tool_name":"Edit","rule_content":"*.rs"},
                "title":"T","agent_id":"a1","requires_user_interaction":true,
                "permission_suggestions":[{"type":"future"}],"decision_reason_code":"x"}"#,
        )
        .unwrap();
        assert_eq!(req.decision_reason.as_deref(), Some("r"));
        assert_eq!(req.decision_reason_type.as_deref(), Some("rule"));
        assert_eq!(req.classifier_approvable, Some(false));
        assert_eq!(req.suppress_always_allow_rule, Some(true));
        assert_eq!(req.default_to_no, Some(true));
        let rule = req.matched_ask_rule.unwrap();
        assert_eq!(rule.tool_name, "Edit");
        assert_eq!(rule.rule_content.as_deref(), Some("*.rs"));
        assert_eq!(req.title.as_deref(), Some("T"));
        assert_eq!(req.agent_id.as_deref(), Some("a1"));
        assert_eq!(req.requires_user_interaction, Some(true));
        assert!(matches!(
            req.permission_suggestions.as_slice(),
            [crate::permission::PermissionUpdate::Unknown(_)]
        ));
    }

    #[test]
    fn input_reads_as_the_tool_argument_type() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct Add {
            a: i64,
            b: i64,
        }
        let req = &recorded("sdk_mcp")[0];
        assert_eq!(req.tool_input.parse::<Add>().unwrap(), Add { a: 2, b: 40 });
        let value: serde_json::Value = req.tool_input.parse().unwrap();
        assert_eq!(value["b"], 40);
        let err = req.tool_input.parse::<String>().unwrap_err();
        assert!(err.is_data(), "{err}");
    }

    #[test]
    fn stays_small_enough_to_travel_in_events() {
        // `session::Event` holds it inline; clippy's large_enum_variant starts at a 200-byte gap.
        assert!(std::mem::size_of::<PermissionRequest>() <= 288);
    }

    #[test]
    fn missing_required_fields_are_errors_not_panics() {
        for bad in [
            "{}",
            r#"{"tool_name":"Bash"}"#,
            "[]",
            "null",
            r#"{"tool_name":1}"#,
        ] {
            assert!(
                serde_json::from_str::<PermissionRequest>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
