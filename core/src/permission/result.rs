//! `PermissionResult`: the host's allow/deny answer to a `can_use_tool` request.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use super::PermissionUpdate;
use crate::Json;

/// The host's answer to a [`super::PermissionRequest`].
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::permission::PermissionResult;
/// let original = r#"{"command":"ls"}"#.parse::<Json>().unwrap();
/// assert_eq!(
///     PermissionResult::allow().to_wire_json(&original),
///     r#"{"behavior":"allow","updatedInput":{"command":"ls"}}"#
/// );
/// assert_eq!(
///     PermissionResult::deny_and_interrupt("no").to_wire_json(&original),
///     r#"{"behavior":"deny","message":"no","interrupt":true}"#
/// );
/// ```
///
/// An answer can say how the user decided ([`PermissionResult::with_decision_classification`])
/// and name the tool use it answers ([`PermissionResult::with_tool_use_id`]):
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::permission::{DecisionClassification, PermissionResult};
/// # let original = r#"{"command":"ls"}"#.parse::<Json>().unwrap();
/// let always = PermissionResult::allow()
///     .with_decision_classification(DecisionClassification::UserPermanent)
///     .with_tool_use_id("toolu_1");
/// assert_eq!(
///     always.to_wire_json(&original),
///     r#"{"behavior":"allow","updatedInput":{"command":"ls"},"decisionClassification":"user_permanent","toolUseID":"toolu_1"}"#
/// );
/// ```
///
/// Results compare by value, an `updated_input` by its exact JSON text, so a test can check what
/// a callback answered:
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::permission::PermissionResult;
/// let input = || r#"{"command":"ls"}"#.parse::<Json>().unwrap();
/// assert_eq!(
///     PermissionResult::allow().with_updated_input(input()),
///     PermissionResult::allow().with_updated_input(input())
/// );
/// assert_ne!(PermissionResult::allow(), PermissionResult::allow().with_updated_input(input()));
/// assert_ne!(PermissionResult::deny("no"), PermissionResult::deny_and_interrupt("no"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PermissionResult {
    /// Let the tool run.
    Allow {
        /// Run the tool with this input instead of the model's (`None`: the model's input).
        updated_input: Option<Json>,
        /// Permission changes to apply, e.g. the request's suggestions for "always allow".
        updated_permissions: Vec<PermissionUpdate>,
        /// How the user decided (`decisionClassification`), when the host knows.
        decision_classification: Option<DecisionClassification>,
        /// The tool use this answers (`toolUseID`), when the host names it.
        tool_use_id: Option<String>,
    },
    /// Refuse the tool.
    Deny {
        /// Why; the model sees this text as the tool's error.
        message: String,
        /// Also stop the whole turn.
        interrupt: bool,
        /// How the user decided (`decisionClassification`), when the host knows.
        decision_classification: Option<DecisionClassification>,
        /// The tool use this answers (`toolUseID`), when the host names it.
        tool_use_id: Option<String>,
    },
}

/// How a user decided a permission prompt: what a host that asks a person reports in
/// [`PermissionResult::with_decision_classification`] (`decisionClassification`).
///
/// Without it the CLI assumes [`UserTemporary`](Self::UserTemporary) for an allow and
/// [`UserReject`](Self::UserReject) for a deny. It records the value with the tool's result
/// (`tool_result_meta[].permission_decision.source` of the next `user` message) and in its
/// telemetry.
///
/// ```
/// use claude_agent_tokio::permission::{DecisionClassification, PermissionResult};
///
/// // The user clicked "always allow".
/// let answer = PermissionResult::allow()
///     .with_decision_classification(DecisionClassification::UserPermanent);
/// # let _ = answer;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecisionClassification {
    /// Allowed this once (`user_temporary`).
    UserTemporary,
    /// Allowed for good: the click, and later uses the rule it made allows (`user_permanent`).
    UserPermanent,
    /// Refused (`user_reject`).
    UserReject,
}

impl PermissionResult {
    /// Allow the tool with the model's own input.
    pub fn allow() -> Self {
        PermissionResult::Allow {
            updated_input: None,
            updated_permissions: Vec::new(),
            decision_classification: None,
            tool_use_id: None,
        }
    }

    /// Refuse the tool; the turn goes on and the model sees `message`.
    pub fn deny(message: impl Into<String>) -> Self {
        PermissionResult::Deny {
            message: message.into(),
            interrupt: false,
            decision_classification: None,
            tool_use_id: None,
        }
    }

    /// Refuse the tool and stop the turn.
    pub fn deny_and_interrupt(message: impl Into<String>) -> Self {
        PermissionResult::Deny {
            message: message.into(),
            interrupt: true,
            decision_classification: None,
            tool_use_id: None,
        }
    }

    /// Run the tool with `input` (a JSON object) instead. Has no effect on a `Deny`.
    pub fn with_updated_input(mut self, input: impl Into<Json>) -> Self {
        if let PermissionResult::Allow { updated_input, .. } = &mut self {
            *updated_input = Some(input.into());
        }
        self
    }

    /// Apply these permission changes too. Has no effect on a `Deny`.
    ///
    /// ```
    /// use claude_agent_tokio::permission::{PermissionRequest, PermissionResult};
    ///
    /// /// Allow, and take the CLI's suggestions ("always allow this") so it stops asking.
    /// fn always_allow_fetch(request: &PermissionRequest) -> PermissionResult {
    ///     if request.tool_name == "WebFetch" {
    ///         PermissionResult::allow().with_updated_permissions(request.permission_suggestions.clone())
    ///     } else {
    ///         PermissionResult::deny("only WebFetch is allowed")
    ///     }
    /// }
    ///
    /// let request: PermissionRequest = serde_json::from_str(
    ///     r#"{"tool_name":"WebFetch","input":{"url":"https://docs.rs/"},"tool_use_id":"toolu_1",
    ///     "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"WebFetch","ruleContent":"domain:docs.rs"}],
    ///         "behavior":"allow","destination":"session"}]}"#,
    /// )
    /// .unwrap();
    /// let PermissionResult::Allow { updated_permissions, .. } = always_allow_fetch(&request) else { panic!() };
    /// assert_eq!(updated_permissions, request.permission_suggestions);
    /// ```
    pub fn with_updated_permissions(mut self, updates: Vec<PermissionUpdate>) -> Self {
        if let PermissionResult::Allow {
            updated_permissions,
            ..
        } = &mut self
        {
            *updated_permissions = updates;
        }
        self
    }

    /// Say how the user decided: allowed once, allowed for good, or refused.
    ///
    /// ```
    /// # use claude_agent_tokio::permission::{DecisionClassification, PermissionResult};
    /// let refused = PermissionResult::deny("The user said no.")
    ///     .with_decision_classification(DecisionClassification::UserReject);
    /// # let _ = refused;
    /// ```
    pub fn with_decision_classification(mut self, classification: DecisionClassification) -> Self {
        match &mut self {
            PermissionResult::Allow {
                decision_classification,
                ..
            }
            | PermissionResult::Deny {
                decision_classification,
                ..
            } => *decision_classification = Some(classification),
        }
        self
    }

    /// Name the tool use this answers: the request's
    /// [`tool_use_id`](super::PermissionRequest::tool_use_id). The TypeScript SDK names it in
    /// every answer; the Python SDK in none; the CLI takes both. An empty id (a request that
    /// named no tool use) names none.
    ///
    /// ```
    /// use claude_agent_tokio::permission::{PermissionRequest, PermissionResult};
    ///
    /// fn allow(request: &PermissionRequest) -> PermissionResult {
    ///     PermissionResult::allow().with_tool_use_id(&request.tool_use_id)
    /// }
    ///
    /// let request: PermissionRequest =
    ///     serde_json::from_str(r#"{"tool_name":"Read","input":{"file_path":"/w/a.rs"},"tool_use_id":"toolu_1"}"#).unwrap();
    /// assert_eq!(
    ///     allow(&request).to_wire_json(&request.tool_input),
    ///     r#"{"behavior":"allow","updatedInput":{"file_path":"/w/a.rs"},"toolUseID":"toolu_1"}"#
    /// );
    /// ```
    pub fn with_tool_use_id(mut self, id: impl Into<String>) -> Self {
        let id = Some(id.into()).filter(|id| !id.is_empty());
        match &mut self {
            PermissionResult::Allow { tool_use_id, .. }
            | PermissionResult::Deny { tool_use_id, .. } => *tool_use_id = id,
        }
        self
    }

    /// The success body of the control response. An allow always carries `updatedInput` (the
    /// request's `original_input` when no other was given) and `updatedPermissions` only when
    /// there are some; a deny carries `interrupt` only when it is true. `decisionClassification`
    /// and `toolUseID` follow, when set.
    pub fn to_wire_json(&self, original_input: &Json) -> String {
        let json = match self {
            PermissionResult::Allow {
                updated_input,
                updated_permissions,
                decision_classification,
                tool_use_id,
            } => serde_json::to_string(&AllowBody {
                behavior: "allow",
                updated_input: updated_input.as_ref().unwrap_or(original_input).as_raw(),
                updated_permissions,
                decision_classification: *decision_classification,
                tool_use_id: tool_use_id.as_deref(),
            }),
            PermissionResult::Deny {
                message,
                interrupt,
                decision_classification,
                tool_use_id,
            } => serde_json::to_string(&DenyBody {
                behavior: "deny",
                message,
                interrupt: *interrupt,
                decision_classification: *decision_classification,
                tool_use_id: tool_use_id.as_deref(),
            }),
        };
        json.expect("serializing strings, raw JSON and permission updates cannot fail")
    }
}

impl<'de> Deserialize<'de> for PermissionResult {
    /// Reads the success body of a permission answer, as [`PermissionResult::to_wire_json`]
    /// writes it. An allow read back has the `updatedInput` that was sent, which is the
    /// request's own input when the answer gave none.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Body {
            behavior: String,
            updated_input: Option<Json>,
            #[serde(default)]
            updated_permissions: Vec<PermissionUpdate>,
            message: Option<String>,
            #[serde(default)]
            interrupt: bool,
            decision_classification: Option<DecisionClassification>,
            #[serde(rename = "toolUseID")]
            tool_use_id: Option<String>,
        }
        let body = Body::deserialize(deserializer)?;
        match body.behavior.as_str() {
            "allow" => Ok(PermissionResult::Allow {
                updated_input: body.updated_input,
                updated_permissions: body.updated_permissions,
                decision_classification: body.decision_classification,
                tool_use_id: body.tool_use_id,
            }),
            "deny" => Ok(PermissionResult::Deny {
                message: body.message.unwrap_or_default(),
                interrupt: body.interrupt,
                decision_classification: body.decision_classification,
                tool_use_id: body.tool_use_id,
            }),
            other => Err(serde::de::Error::custom(format!(
                "a permission answer's `behavior` is `allow` or `deny`, not `{other}`"
            ))),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AllowBody<'a> {
    behavior: &'static str,
    updated_input: &'a RawValue,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    updated_permissions: &'a [PermissionUpdate],
    #[serde(skip_serializing_if = "Option::is_none")]
    decision_classification: Option<DecisionClassification>,
    #[serde(rename = "toolUseID", skip_serializing_if = "Option::is_none")]
    tool_use_id: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DenyBody<'a> {
    behavior: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupt: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision_classification: Option<DecisionClassification>,
    #[serde(rename = "toolUseID", skip_serializing_if = "Option::is_none")]
    tool_use_id: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::{PermissionRequest, RuleBehavior, UpdateDestination};
    use crate::test_fixtures::recorded_exchanges;
    use serde_json::Value;

    fn value(json: &str) -> Value {
        serde_json::from_str(json).unwrap()
    }

    fn raw(json: &str) -> Json {
        Json::try_from(json.to_owned()).unwrap()
    }

    #[test]
    fn reproduces_the_recorded_deny() {
        let exchanges = recorded_exchanges("permission_deny", "can_use_tool");
        assert_eq!(exchanges.len(), 1);
        let (request, reply) = &exchanges[0];
        let req: PermissionRequest = serde_json::from_str(request.as_str()).unwrap();
        let ours = PermissionResult::deny("not allowed by policy").to_wire_json(&req.tool_input);
        assert_eq!(value(&ours), value(reply.as_str()));
    }

    #[test]
    fn reproduces_the_recorded_allow_with_the_original_input() {
        let exchanges = recorded_exchanges("sdk_mcp", "can_use_tool");
        assert_eq!(exchanges.len(), 1);
        let (request, reply) = &exchanges[0];
        let req: PermissionRequest = serde_json::from_str(request.as_str()).unwrap();
        let ours = PermissionResult::allow().to_wire_json(&req.tool_input);
        assert_eq!(value(&ours), value(reply.as_str()));
        assert_eq!(value(&ours)["updatedInput"], value(r#"{"a":2,"b":40}"#));
    }

    #[test]
    fn allow_with_updates_carries_them() {
        let result = PermissionResult::allow()
            .with_updated_input(raw(r#"{"command":"ls -la"}"#))
            .with_updated_permissions(vec![PermissionUpdate::add_rules(
                vec![crate::permission::PermissionRule::new("Bash")],
                RuleBehavior::Allow,
                UpdateDestination::Session,
            )]);
        assert_eq!(
            result.to_wire_json(&raw(r#"{"command":"ls"}"#)),
            r#"{"behavior":"allow","updatedInput":{"command":"ls -la"},"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"session"}]}"#
        );
    }

    #[test]
    fn results_compare_by_value_and_input_text() {
        let allow_ls = || PermissionResult::allow().with_updated_input(raw(r#"{"command":"ls"}"#));
        assert_eq!(allow_ls(), allow_ls());
        assert_ne!(
            allow_ls(),
            PermissionResult::allow().with_updated_input(raw(r#"{"command": "ls"}"#))
        );
        assert_ne!(allow_ls(), PermissionResult::allow());
        let rule = || {
            vec![PermissionUpdate::add_rules(
                vec![crate::permission::PermissionRule::new("Bash")],
                RuleBehavior::Allow,
                UpdateDestination::Session,
            )]
        };
        assert_eq!(
            PermissionResult::allow().with_updated_permissions(rule()),
            PermissionResult::allow().with_updated_permissions(rule())
        );
        assert_ne!(
            PermissionResult::allow().with_updated_permissions(rule()),
            PermissionResult::allow()
        );
        assert_eq!(PermissionResult::deny("no"), PermissionResult::deny("no"));
        assert_ne!(PermissionResult::deny("no"), PermissionResult::deny("nope"));
        assert_ne!(
            PermissionResult::deny("no"),
            PermissionResult::deny_and_interrupt("no")
        );
        assert_ne!(PermissionResult::deny("no"), PermissionResult::allow());
    }

    /// The bodies the TypeScript SDK 0.3.330 writes for the same answers (its `canUseTool`
    /// answer with `toolUseID`, which it sets to the request's, captured from its stdin); ours
    /// always carries `updatedInput` too, as the Python SDK's does.
    #[test]
    fn classification_and_tool_use_id_are_written_as_the_typescript_sdk_writes_them() {
        let original = raw(r#"{"command":"ls"}"#);
        let cases = [
            (
                PermissionResult::allow()
                    .with_updated_input(raw(r#"{"command":"ls -la"}"#))
                    .with_decision_classification(DecisionClassification::UserPermanent)
                    .with_tool_use_id("toolu_1"),
                r#"{"behavior":"allow","updatedInput":{"command":"ls -la"},"decisionClassification":"user_permanent","toolUseID":"toolu_1"}"#,
            ),
            (
                PermissionResult::deny("no")
                    .with_decision_classification(DecisionClassification::UserReject)
                    .with_tool_use_id("toolu_2"),
                r#"{"behavior":"deny","message":"no","decisionClassification":"user_reject","toolUseID":"toolu_2"}"#,
            ),
            (
                PermissionResult::deny_and_interrupt("no")
                    .with_tool_use_id("toolu_3")
                    .with_decision_classification(DecisionClassification::UserTemporary),
                r#"{"behavior":"deny","message":"no","interrupt":true,"decisionClassification":"user_temporary","toolUseID":"toolu_3"}"#,
            ),
            (
                PermissionResult::allow().with_tool_use_id("toolu_0"),
                r#"{"behavior":"allow","updatedInput":{"command":"ls"},"toolUseID":"toolu_0"}"#,
            ),
        ];
        for (result, expected) in cases {
            assert_eq!(result.to_wire_json(&original), expected);
        }
        assert_ne!(
            PermissionResult::allow(),
            PermissionResult::allow().with_tool_use_id("t")
        );
        assert_ne!(
            PermissionResult::deny("no"),
            PermissionResult::deny("no")
                .with_decision_classification(DecisionClassification::UserReject)
        );
    }

    #[test]
    fn deny_without_interrupt_omits_it_and_builders_do_not_touch_deny() {
        let result = PermissionResult::deny("no \"way\"")
            .with_updated_input(raw("{}"))
            .with_updated_permissions(vec![]);
        assert_eq!(
            result.to_wire_json(&raw("{}")),
            r#"{"behavior":"deny","message":"no \"way\""}"#
        );
    }

    #[test]
    fn answers_read_back_from_their_wire_json() {
        let original = raw(r#"{"command":"ls"}"#);
        let rewritten = PermissionResult::allow()
            .with_updated_input(raw(r#"{"command":"ls -la"}"#))
            .with_decision_classification(DecisionClassification::UserPermanent)
            .with_tool_use_id("toolu_1");
        let refused = PermissionResult::deny_and_interrupt("no").with_tool_use_id("toolu_2");
        for answer in [rewritten, refused, PermissionResult::deny("not now")] {
            let wire = answer.to_wire_json(&original);
            let read: PermissionResult = serde_json::from_str(&wire).unwrap();
            assert_eq!(read, answer, "{wire}");
        }
        // A plain allow sends the request's own input back.
        let wire = PermissionResult::allow().to_wire_json(&original);
        let read: PermissionResult = serde_json::from_str(&wire).unwrap();
        assert_eq!(read, PermissionResult::allow().with_updated_input(original));
        assert!(serde_json::from_str::<PermissionResult>(r#"{"behavior":"maybe"}"#).is_err());
    }
}
