use super::*;
use crate::mcp::ElicitationAction;
use crate::test_fixtures::recorded_exchanges;
use crate::Json;
use serde_json::Value;

fn value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn raw(json: &str) -> Json {
    Json::try_from(json.to_owned()).unwrap()
}

#[test]
fn reproduces_the_recorded_continue_replies() {
    let exchanges = recorded_exchanges("hooks", "hook_callback");
    assert_eq!(exchanges.len(), 4);
    for (_, reply) in exchanges {
        assert_eq!(
            value(&HookOutput::proceed().to_wire_json()),
            value(reply.as_str())
        );
    }
}

#[test]
fn reproduces_the_recorded_pre_tool_use_deny() {
    let exchanges = recorded_exchanges("hook_deny", "hook_callback");
    assert_eq!(exchanges.len(), 1);
    assert_eq!(
        value(&HookOutput::deny_tool("hook says no").to_wire_json()),
        value(exchanges[0].1.as_str())
    );
}

#[test]
fn every_top_level_field_has_its_wire_name() {
    let mut out = HookOutput::stop("enough").with_system_message("bye");
    out.suppress_output = Some(true);
    out.decision = Some(HookDecision::Approve);
    out.reason = Some("fine".into());
    out.terminal_sequence = Some("\u{7}".into());
    assert_eq!(
        value(&out.to_wire_json()),
        value(
            r#"{"continue":false,"stopReason":"enough","systemMessage":"bye","suppressOutput":true,
                "decision":"approve","reason":"fine","terminalSequence":"\u0007"}"#
        )
    );
    assert_eq!(
        HookOutput::block("no").to_wire_json(),
        r#"{"decision":"block","reason":"no"}"#
    );
}

#[test]
fn async_form() {
    assert_eq!(
        HookOutput::async_(Some(Duration::from_secs(30))).to_wire_json(),
        r#"{"async":true,"asyncTimeout":30000}"#
    );
    assert_eq!(HookOutput::async_(None).to_wire_json(), r#"{"async":true}"#);
}

#[test]
fn tool_decisions() {
    assert_eq!(
        HookOutput::allow_tool().to_wire_json(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#
    );
    assert_eq!(
        HookOutput::ask_tool("check").to_wire_json(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check"}}"#
    );
}

#[test]
fn additional_context_joins_an_output_of_the_same_event() {
    let out = HookOutput::deny_tool("no").with_additional_context(HookEvent::PreToolUse, "ctx");
    assert_eq!(
        value(&out.to_wire_json()),
        value(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",
                "permissionDecisionReason":"no","additionalContext":"ctx"}}"#
        )
    );
}

#[test]
fn additional_context_for_each_kind_of_event() {
    let cases = [
        (
            HookEvent::UserPromptSubmit,
            r#"{"hookEventName":"UserPromptSubmit","additionalContext":"c"}"#,
        ),
        (
            HookEvent::SessionStart,
            r#"{"hookEventName":"SessionStart","additionalContext":"c"}"#,
        ),
        (
            HookEvent::PostToolUse,
            r#"{"hookEventName":"PostToolUse","additionalContext":"c"}"#,
        ),
        (
            HookEvent::Stop,
            r#"{"hookEventName":"Stop","additionalContext":"c"}"#,
        ),
        (
            HookEvent::Notification,
            r#"{"hookEventName":"Notification","additionalContext":"c"}"#,
        ),
        (
            HookEvent::SessionEnd,
            r#"{"hookEventName":"SessionEnd","additionalContext":"c"}"#,
        ),
        (
            HookEvent::from_name("Later"),
            r#"{"hookEventName":"Later","additionalContext":"c"}"#,
        ),
    ];
    for (event, expected) in cases {
        // A different event's output is replaced, not merged.
        let out = HookOutput::deny_tool("x").with_additional_context(event.clone(), "c");
        let body = value(&out.to_wire_json());
        assert_eq!(body["hookSpecificOutput"], value(expected), "{event}");
    }
}

/// One output of each kind, with the JSON it serializes to.
fn specific_outputs() -> Vec<(HookSpecificOutput, &'static str)> {
    vec![
        (
            HookSpecificOutput::PostToolUse(PostToolUseOutput {
                updated_mcp_tool_output: Some(raw(r#"{"content":[]}"#)),
                updated_tool_output: Some(raw(r#""x""#)),
                ..Default::default()
            }),
            r#"{"hookEventName":"PostToolUse","updatedToolOutput":"x","updatedMCPToolOutput":{"content":[]}}"#,
        ),
        (
            HookSpecificOutput::PermissionRequest(PermissionRequestOutput {
                decision: PermissionRequestDecision::Allow {
                    updated_input: Some(raw(r#"{"a":1}"#)),
                    updated_permissions: None,
                },
            }),
            r#"{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"a":1}}}"#,
        ),
        (
            HookSpecificOutput::PermissionRequest(PermissionRequestOutput {
                decision: PermissionRequestDecision::Deny {
                    message: Some("m".into()),
                    interrupt: Some(true),
                },
            }),
            r#"{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m","interrupt":true}}"#,
        ),
        (
            HookSpecificOutput::UserPromptSubmit(UserPromptSubmitOutput {
                session_title: Some("T".into()),
                suppress_original_prompt: Some(true),
                ..Default::default()
            }),
            r#"{"hookEventName":"UserPromptSubmit","sessionTitle":"T","suppressOriginalPrompt":true}"#,
        ),
        (
            HookSpecificOutput::SessionStart(SessionStartOutput {
                initial_user_message: Some("hi".into()),
                watch_paths: Some(vec!["/a".into()]),
                reload_skills: Some(false),
                ..Default::default()
            }),
            r#"{"hookEventName":"SessionStart","initialUserMessage":"hi","watchPaths":["/a"],"reloadSkills":false}"#,
        ),
        (
            HookSpecificOutput::PermissionDenied(PermissionDeniedOutput { retry: Some(true) }),
            r#"{"hookEventName":"PermissionDenied","retry":true}"#,
        ),
        (
            HookSpecificOutput::Elicitation(ElicitationOutput {
                action: Some(ElicitationAction::Accept),
                content: Some(raw(r#"{"name":"x"}"#)),
            }),
            r#"{"hookEventName":"Elicitation","action":"accept","content":{"name":"x"}}"#,
        ),
        (
            HookSpecificOutput::WorktreeCreate(WorktreeCreateOutput {
                worktree_path: "/wt".into(),
            }),
            r#"{"hookEventName":"WorktreeCreate","worktreePath":"/wt"}"#,
        ),
        (
            HookSpecificOutput::MessageDisplay(MessageDisplayOutput {
                display_content: Some("d".into()),
            }),
            r#"{"hookEventName":"MessageDisplay","displayContent":"d"}"#,
        ),
        (
            HookSpecificOutput::PreModelSwitch(PreModelSwitchOutput {
                permission_decision: Some(PermissionDecision::Deny),
                permission_decision_reason: Some("cost".into()),
            }),
            r#"{"hookEventName":"PreModelSwitch","permissionDecision":"deny","permissionDecisionReason":"cost"}"#,
        ),
        (
            HookSpecificOutput::PreSkillShellCommand(PreSkillShellCommandOutput {
                permission_decision: Some(PermissionDecision::Ask),
                ..Default::default()
            }),
            r#"{"hookEventName":"PreSkillShellCommand","permissionDecision":"ask"}"#,
        ),
        (
            HookSpecificOutput::CwdChanged(WatchPathsOutput::default()),
            r#"{"hookEventName":"CwdChanged"}"#,
        ),
        (
            HookSpecificOutput::Raw(raw(r#"{"hookEventName":"Future","x":1}"#)),
            r#"{"hookEventName":"Future","x":1}"#,
        ),
    ]
}

#[test]
fn event_specific_outputs_serialize_with_camel_case_and_tag() {
    for (output, expected) in specific_outputs() {
        let event = output.event();
        let json = HookOutput::default()
            .with_hook_specific_output(output)
            .to_wire_json();
        assert_eq!(value(&json)["hookSpecificOutput"], value(expected));
        let tag = value(expected)["hookEventName"]
            .as_str()
            .map(HookEvent::from_name);
        assert_eq!(
            event.is_some(),
            tag.as_ref()
                .is_some_and(|t| !matches!(t, HookEvent::Other(_)))
        );
    }
}

#[test]
fn each_specific_output_equals_itself_only() {
    let mut outputs: Vec<HookSpecificOutput> =
        specific_outputs().into_iter().map(|(o, _)| o).collect();
    // The same body under two events, and raw objects differing only in spacing.
    outputs.push(HookSpecificOutput::additional_context(HookEvent::Stop, "c"));
    outputs.push(HookSpecificOutput::additional_context(
        HookEvent::SubagentStop,
        "c",
    ));
    outputs.push(HookSpecificOutput::Raw(raw(
        r#"{"hookEventName": "Future","x":1}"#,
    )));
    for (i, a) in outputs.iter().enumerate() {
        for (j, b) in outputs.iter().enumerate() {
            assert_eq!(a == b, i == j, "{a:?} == {b:?}");
        }
        assert_eq!(a, &a.clone());
    }
}

#[test]
fn raw_json_fields_compare_by_text() {
    let pre = |input: &str| PreToolUseOutput {
        updated_input: Some(raw(input)),
        ..Default::default()
    };
    assert_eq!(pre(r#"{"a":1}"#), pre(r#"{"a":1}"#));
    assert_ne!(pre(r#"{"a":1}"#), pre(r#"{"a": 1}"#));
    assert_ne!(pre(r#"{"a":1}"#), PreToolUseOutput::default());

    let post = |tool: &str, mcp: &str| PostToolUseOutput {
        updated_tool_output: Some(raw(tool)),
        updated_mcp_tool_output: Some(raw(mcp)),
        ..Default::default()
    };
    assert_eq!(post("1", "2"), post("1", "2"));
    assert_ne!(post("1", "2"), post("1", "3"));
    assert_ne!(post("1", "2"), post("0", "2"));

    let elicit = |content: &str| ElicitationOutput {
        action: Some(ElicitationAction::Accept),
        content: Some(raw(content)),
    };
    assert_eq!(elicit(r#"{"n":"x"}"#), elicit(r#"{"n":"x"}"#));
    assert_ne!(elicit(r#"{"n":"x"}"#), elicit(r#"{"n":"y"}"#));

    let allow = |input: &str| PermissionRequestDecision::Allow {
        updated_input: Some(raw(input)),
        updated_permissions: Some(vec![]),
    };
    assert_eq!(allow("{}"), allow("{}"));
    assert_ne!(allow("{}"), allow("[]"));
    assert_ne!(
        allow("{}"),
        PermissionRequestDecision::Allow {
            updated_input: Some(raw("{}")),
            updated_permissions: None,
        }
    );
    let deny = |interrupt| PermissionRequestDecision::Deny {
        message: None,
        interrupt,
    };
    assert_eq!(deny(Some(true)), deny(Some(true)));
    assert_ne!(deny(Some(true)), deny(None));
}

#[test]
fn hook_outputs_compare_field_by_field() {
    assert_eq!(HookOutput::stop("x"), HookOutput::stop("x"));
    assert_ne!(HookOutput::stop("x"), HookOutput::stop("y"));
    assert_ne!(HookOutput::block("x"), HookOutput::stop("x"));
    assert_ne!(
        HookOutput::async_(None),
        HookOutput::async_(Some(Duration::from_secs(1)))
    );
    assert_eq!(
        HookOutput::allow_tool().with_additional_context(HookEvent::PreToolUse, "c"),
        HookOutput::allow_tool().with_additional_context(HookEvent::PreToolUse, "c")
    );
    assert_ne!(
        HookOutput::allow_tool(),
        HookOutput::allow_tool().with_system_message("m")
    );
}

/// What a test reads back from the wire is the output the hook gave.
#[test]
fn outputs_read_back_from_their_wire_json() {
    let updated = HookOutput::default().with_hook_specific_output(HookSpecificOutput::PreToolUse(
        PreToolUseOutput {
            permission_decision: Some(PermissionDecision::Allow),
            updated_input: Some(raw(r#"{"command":"ls -la"}"#)),
            ..Default::default()
        },
    ));
    let decided = HookOutput::default().with_hook_specific_output(
        HookSpecificOutput::PermissionRequest(PermissionRequestOutput {
            decision: PermissionRequestDecision::Allow {
                updated_input: Some(raw(r#"{"a":1}"#)),
                updated_permissions: None,
            },
        }),
    );
    let refused = HookOutput::default().with_hook_specific_output(
        HookSpecificOutput::PermissionRequest(PermissionRequestOutput {
            decision: PermissionRequestDecision::Deny {
                message: Some("frozen".into()),
                interrupt: Some(true),
            },
        }),
    );
    let answered = HookOutput::default().with_hook_specific_output(
        HookSpecificOutput::Elicitation(ElicitationOutput {
            action: Some(ElicitationAction::Accept),
            content: Some(raw(r#"{"env":"staging"}"#)),
        }),
    );
    let unknown = HookOutput::default().with_hook_specific_output(HookSpecificOutput::Raw(raw(
        r#"{"hookEventName":"FutureEvent","x":1}"#,
    )));
    for output in [
        HookOutput::proceed(),
        HookOutput::deny_tool("no"),
        HookOutput::block("stop"),
        HookOutput::async_(Some(Duration::from_secs(30))),
        HookOutput::default(),
        updated,
        decided,
        refused,
        answered,
        unknown,
    ] {
        let wire = output.to_wire_json();
        let read: HookOutput =
            serde_json::from_str(&wire).unwrap_or_else(|e| panic!("{wire}: {e}"));
        assert_eq!(read, output, "{wire}");
    }
}
