use super::*;
use crate::permission::PermissionMode;
use crate::test_fixtures::recorded_requests;

#[derive(Deserialize)]
struct Callback {
    input: Json,
}

fn recorded_inputs(transcript: &str) -> Vec<HookInput> {
    recorded_requests(transcript, "hook_callback")
        .iter()
        .map(|request| {
            let callback: Callback = serde_json::from_str(request.as_str()).unwrap();
            HookInput::parse(callback.input.as_str()).unwrap()
        })
        .collect()
}

fn raw(json: &str) -> Json {
    Json::try_from(json.to_owned()).unwrap()
}

const BASE: &str = r#""session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w""#;

#[test]
fn recorded_hook_inputs_parse_typed() {
    let inputs = recorded_inputs("hooks");
    let events: Vec<HookEvent> = inputs.iter().map(HookInput::event).collect();
    assert_eq!(
        events,
        [
            HookEvent::UserPromptSubmit,
            HookEvent::PreToolUse,
            HookEvent::PostToolUse,
            HookEvent::Stop
        ]
    );

    let HookInput::UserPromptSubmit(prompt) = &inputs[0] else {
        panic!("{:?}", inputs[0])
    };
    assert_eq!(prompt.prompt, "BASH:echo hooked");
    assert_eq!(prompt.base.cwd, "/tmp/ws");
    assert_eq!(prompt.base.permission_mode, Some(PermissionMode::Default));
    assert_eq!(
        prompt.base.prompt_id.as_deref(),
        Some("7b927f27-ca1b-4171-aa82-afe0df3bef3b")
    );
    assert_eq!(prompt.base.effort, None);

    let HookInput::PreToolUse(pre) = &inputs[1] else {
        panic!("{:?}", inputs[1])
    };
    assert_eq!(pre.tool_name, "Bash");
    assert_eq!(
        pre.tool_input.as_str(),
        r#"{"command":"echo hooked","description":"run"}"#
    );
    assert_eq!(pre.tool_use_id, "toolu_fake_4_1");
    assert_eq!(
        pre.base.effort.as_ref().map(|e| e.level.as_str()),
        Some("medium")
    );
    assert_eq!(pre.base.session_id, "739ce4ca-b59b-45ac-8b21-272330895f34");

    let HookInput::PostToolUse(post) = &inputs[2] else {
        panic!("{:?}", inputs[2])
    };
    let response: serde_json::Value = serde_json::from_str(post.tool_response.as_str()).unwrap();
    assert_eq!(response["stdout"], "hooked");
    assert_eq!(post.duration_ms, Some(33));

    let HookInput::Stop(stop) = &inputs[3] else {
        panic!("{:?}", inputs[3])
    };
    assert!(!stop.stop_hook_active);
    assert_eq!(stop.last_assistant_message.as_deref(), Some("done: hooked"));
    assert_eq!(
        stop.background_tasks.as_ref().map(|b| b.as_str()),
        Some("[]")
    );
}

#[test]
fn recorded_input_keeps_the_raw_object() {
    let inputs = recorded_inputs("hook_deny");
    assert_eq!(inputs.len(), 1);
    let raw: serde_json::Value = serde_json::from_str(inputs[0].raw_json().unwrap()).unwrap();
    assert_eq!(raw["hook_event_name"], "PreToolUse");
    assert_eq!(raw["tool_input"]["command"], "ls -la /");
}

#[test]
fn every_known_event_parses_to_its_variant() {
    let samples = [
        r#""hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{},"tool_use_id":"t","mcp_server":{"name":"calc","source":"sdk"}"#,
        r#""hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{},"tool_response":"x","tool_use_id":"t""#,
        r#""hook_event_name":"PostToolUseFailure","tool_name":"Read","tool_input":{},"tool_use_id":"t","error":"boom","is_interrupt":true"#,
        r#""hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Read","tool_input":{},"tool_use_id":"t"}]"#,
        r#""hook_event_name":"Notification","message":"m","notification_type":"idle""#,
        r#""hook_event_name":"UserPromptSubmit","prompt":"p","source":"sdk""#,
        r#""hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"c","command_args":"","prompt":"p""#,
        r#""hook_event_name":"SessionStart","source":"startup","model":"m","context_tokens":12"#,
        r#""hook_event_name":"SessionEnd","reason":"other""#,
        r#""hook_event_name":"Stop","stop_hook_active":true"#,
        r#""hook_event_name":"StopFailure","error":"rate_limit""#,
        r#""hook_event_name":"SubagentStart","agent_id":"a","agent_type":"general""#,
        r#""hook_event_name":"SubagentStop","agent_id":"a","agent_type":"g","stop_hook_active":false,"agent_transcript_path":"/a""#,
        r#""hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null"#,
        r#""hook_event_name":"PostCompact","trigger":"manual","compact_summary":"s""#,
        r#""hook_event_name":"PreModelSwitch","from_model":"a","to_model":"b","requested_model":null,"source":"sdk","context_tokens":1,"prompt_cache_warm":true,"cache_ttl":"5m","estimated_cache_write_usd":0.5,"pricing":"catalog""#,
        r#""hook_event_name":"PostModelSwitch","from_model":"a","to_model":"b","source":"auto","context_tokens":1,"prompt_cache_warm":false,"cache_ttl":"1h","estimated_cache_write_usd":0,"pricing":"default""#,
        r#""hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{},"permission_suggestions":[{"type":"setMode","mode":"plan","destination":"session"}]"#,
        r#""hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{},"tool_use_id":"t","reason":"r""#,
        r#""hook_event_name":"Setup","trigger":"init""#,
        r#""hook_event_name":"TeammateIdle","teammate_name":"t","team_name":"n""#,
        r#""hook_event_name":"TaskCreated","task_id":"1","task_subject":"s""#,
        r#""hook_event_name":"TaskCompleted","task_id":"1","task_subject":"s","team_name":"n""#,
        r#""hook_event_name":"Elicitation","mcp_server_name":"m","message":"q","requested_schema":{"type":"object"}"#,
        r#""hook_event_name":"ElicitationResult","mcp_server_name":"m","action":"accept","content":{"a":1}"#,
        r#""hook_event_name":"ConfigChange","source":"skills""#,
        r#""hook_event_name":"WorktreeCreate","name":"w""#,
        r#""hook_event_name":"WorktreeRemove","worktree_path":"/w""#,
        r#""hook_event_name":"InstructionsLoaded","file_path":"/C.md","memory_type":"Project","load_reason":"include","globs":["*.rs"]"#,
        r#""hook_event_name":"CwdChanged","old_cwd":"/a","new_cwd":"/b""#,
        r#""hook_event_name":"FileChanged","file_path":"/f","event":"unlink""#,
        r#""hook_event_name":"DirectoryAdded","directory":"/d","source":"slash_command""#,
        r#""hook_event_name":"MessageDisplay","turn_id":"t","message_id":"m","index":0,"final":true,"delta":"hi""#,
        r#""hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"git log -1"},"tool_use_id":"k1","command_name":"notes","invoked_by":"claude""#,
    ];
    assert_eq!(samples.len(), HookEvent::ALL.len());
    for (sample, expected) in samples.iter().zip(HookEvent::ALL) {
        let json = format!("{{{BASE},{sample}}}");
        let input =
            HookInput::parse(raw(&json).as_str()).unwrap_or_else(|e| panic!("{sample}: {e}"));
        assert_eq!(&input.event(), expected);
        assert_eq!(input.base().unwrap().transcript_path, "/t.jsonl");
        assert_eq!(input.raw_json(), Some(json.as_str()));
    }
}

#[test]
fn typed_fields_are_read_from_the_samples() {
    let parse =
        |fields: &str| HookInput::parse(raw(&format!("{{{BASE},{fields}}}")).as_str()).unwrap();
    let HookInput::SubagentStart(start) =
        parse(r#""hook_event_name":"SubagentStart","agent_id":"a7","agent_type":"Explore""#)
    else {
        panic!()
    };
    assert_eq!(start.base.agent_id.as_deref(), Some("a7"));
    assert_eq!(start.base.agent_type.as_deref(), Some("Explore"));

    let HookInput::PreSkillShellCommand(shell) = parse(
        r#""hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"date"},"tool_use_id":"k1","command_name":"now","command_source":"userSettings","invoked_by":"user""#,
    ) else {
        panic!()
    };
    assert_eq!(shell.tool_input.command, "date");
    assert_eq!(
        (shell.command_name.as_str(), shell.command_source.as_deref()),
        ("now", Some("userSettings"))
    );

    let HookInput::MessageDisplay(display) = parse(
        r#""hook_event_name":"MessageDisplay","turn_id":"t","message_id":"m","index":3,"final":true,"delta":"hi""#,
    ) else {
        panic!()
    };
    assert!(display.is_final);
    assert_eq!(display.index, 3);

    let HookInput::PermissionRequest(request) = parse(
        r#""hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"x"},"permission_suggestions":[{"type":"someday"}]"#,
    ) else {
        panic!()
    };
    assert!(matches!(
        request.permission_suggestions.as_slice(),
        [crate::permission::PermissionUpdate::Unknown(_)]
    ));
}

#[test]
fn unknown_event_is_kept_raw() {
    let json = r#"{"hook_event_name":"TeaTime","cup":"green","session_id":"s"}"#;
    let input = HookInput::parse(raw(json).as_str()).unwrap();
    let HookInput::Other { event, raw: kept } = &input else {
        panic!("{input:?}")
    };
    assert_eq!(event, "TeaTime");
    assert_eq!(kept.as_str(), json);
    assert_eq!(input.event(), HookEvent::from_name("TeaTime"));
    assert!(input.base().is_none());
    assert_eq!(input.raw_json(), Some(json));
}

#[test]
fn deserialize_goes_through_parse() {
    let json = format!(r#"{{{BASE},"hook_event_name":"SessionEnd","reason":"logout"}}"#);
    let input: HookInput = serde_json::from_str(&json).unwrap();
    let HookInput::SessionEnd(end) = &input else {
        panic!("{input:?}")
    };
    assert_eq!(end.reason, "logout");
    assert_eq!(input.raw_json(), Some(json.as_str()));
    assert!(serde_json::from_str::<HookInput>("[]").is_err());
}

#[test]
fn malformed_inputs_are_errors_not_panics() {
    let bad = [
        "null",
        "[]",
        r#"["PreToolUse"]"#,
        "\"PreToolUse\"",
        "{}",
        r#"{"hook_event_name":7}"#,
        r#"{"hook_event_name":"PreToolUse"}"#,
        r#"{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"t","cwd":"c","tool_name":"Bash","tool_input":{}}"#,
        r#"{"hook_event_name":"MessageDisplay","session_id":"s","transcript_path":"t","cwd":"c","turn_id":"t","message_id":"m","index":-1,"final":true,"delta":""}"#,
    ];
    for json in bad {
        assert!(HookInput::parse(raw(json).as_str()).is_err(), "{json}");
    }
}

#[test]
fn tool_inputs_read_as_the_tool_argument_type() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Bash {
        command: String,
    }
    let bash = || Bash {
        command: "echo hooked".into(),
    };
    let inputs = recorded_inputs("hooks");
    let HookInput::PreToolUse(pre) = &inputs[1] else {
        panic!("{:?}", inputs[1])
    };
    assert_eq!(pre.tool_input.parse::<Bash>().unwrap(), bash());
    let HookInput::PostToolUse(post) = &inputs[2] else {
        panic!("{:?}", inputs[2])
    };
    assert_eq!(post.tool_input.parse::<Bash>().unwrap(), bash());
    assert!(post.tool_input.parse::<u32>().unwrap_err().is_data());

    let parse =
        |fields: &str| HookInput::parse(raw(&format!("{{{BASE},{fields}}}")).as_str()).unwrap();
    let tool = r#""tool_name":"Bash","tool_input":{"command":"echo hooked"}"#;
    let HookInput::PostToolUseFailure(failure) = parse(&format!(
        r#""hook_event_name":"PostToolUseFailure",{tool},"tool_use_id":"t","error":"e""#
    )) else {
        panic!()
    };
    assert_eq!(failure.tool_input.parse::<Bash>().unwrap(), bash());
    let HookInput::PermissionRequest(request) =
        parse(&format!(r#""hook_event_name":"PermissionRequest",{tool}"#))
    else {
        panic!()
    };
    assert_eq!(request.tool_input.parse::<Bash>().unwrap(), bash());
    let HookInput::PermissionDenied(denied) = parse(&format!(
        r#""hook_event_name":"PermissionDenied",{tool},"tool_use_id":"t","reason":"r""#
    )) else {
        panic!()
    };
    assert_eq!(denied.tool_input.parse::<Bash>().unwrap(), bash());
    let HookInput::PostToolBatch(batch) = parse(&format!(
        r#""hook_event_name":"PostToolBatch","tool_calls":[{{{tool},"tool_use_id":"t"}}]"#
    )) else {
        panic!()
    };
    assert_eq!(
        batch.tool_calls[0].tool_input.parse::<Bash>().unwrap(),
        bash()
    );
    assert!(batch.tool_calls[0]
        .tool_input
        .parse::<Vec<String>>()
        .unwrap_err()
        .is_data());
}

#[test]
fn events_sharing_fields_each_have_their_own_type() {
    let parse =
        |fields: &str| HookInput::parse(raw(&format!("{{{BASE},{fields}}}")).as_str()).unwrap();
    let task = r#""task_id":"1","task_subject":"s","team_name":"n""#;
    let HookInput::TaskCreated(created) = parse(&format!(
        r#""hook_event_name":"TaskCreated",{task},"task_description":"d""#
    )) else {
        panic!()
    };
    assert_eq!(created.task_description.as_deref(), Some("d"));
    let HookInput::TaskCompleted(completed) =
        parse(&format!(r#""hook_event_name":"TaskCompleted",{task}"#))
    else {
        panic!()
    };
    assert_eq!(completed.team_name.as_deref(), Some("n"));

    let switch = r#""from_model":"a","to_model":"b","source":"sdk","context_tokens":7,"prompt_cache_warm":true,"cache_ttl":"5m","estimated_cache_write_usd":0.25,"pricing":"catalog""#;
    let HookInput::PreModelSwitch(pre) = parse(&format!(
        r#""hook_event_name":"PreModelSwitch",{switch},"requested_model":"opus""#
    )) else {
        panic!()
    };
    assert_eq!(pre.requested_model.as_deref(), Some("opus"));
    assert_eq!(pre.estimated_cache_write_usd, 0.25);
    let HookInput::PostModelSwitch(post) =
        parse(&format!(r#""hook_event_name":"PostModelSwitch",{switch}"#))
    else {
        panic!()
    };
    assert_eq!(
        (post.from_model.as_str(), post.to_model.as_str()),
        ("a", "b")
    );
    assert_eq!(post.context_tokens, 7);
}

#[test]
fn each_event_input_type_names_its_event_and_takes_only_its_input() {
    fn check<I: EventInput>(input: HookInput) -> Option<I> {
        let event = input.event();
        match I::from_hook_input(input) {
            Ok(typed) => {
                assert_eq!(event, I::EVENT);
                Some(typed)
            }
            Err(back) => {
                assert_ne!(event, I::EVENT);
                assert_eq!(back.event(), event, "given back unchanged");
                None
            }
        }
    }
    let parse =
        |fields: &str| HookInput::parse(raw(&format!("{{{BASE},{fields}}}")).as_str()).unwrap();
    let pre = || {
        parse(
            r#""hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"tool_use_id":"t""#,
        )
    };
    let task = || parse(r#""hook_event_name":"TaskCompleted","task_id":"1","task_subject":"s""#);
    let typed = check::<PreToolUseInput>(pre()).expect("a PreToolUse input");
    assert_eq!(typed.tool_use_id, "t");
    assert!(check::<PostToolUseInput>(pre()).is_none());
    assert!(check::<TaskCompletedInput>(task()).is_some());
    assert!(check::<TaskCreatedInput>(task()).is_none());
    let other = parse(r#""hook_event_name":"TeaTime""#);
    assert!(check::<StopInput>(other).is_none());

    // One type per event, and each names a different one.
    let events = [
        PreToolUseInput::EVENT,
        PostToolUseInput::EVENT,
        PostToolUseFailureInput::EVENT,
        PostToolBatchInput::EVENT,
        NotificationInput::EVENT,
        UserPromptSubmitInput::EVENT,
        UserPromptExpansionInput::EVENT,
        SessionStartInput::EVENT,
        SessionEndInput::EVENT,
        StopInput::EVENT,
        StopFailureInput::EVENT,
        SubagentStartInput::EVENT,
        SubagentStopInput::EVENT,
        PreCompactInput::EVENT,
        PostCompactInput::EVENT,
        PreModelSwitchInput::EVENT,
        PostModelSwitchInput::EVENT,
        PermissionRequestInput::EVENT,
        PermissionDeniedInput::EVENT,
        SetupInput::EVENT,
        TeammateIdleInput::EVENT,
        TaskCreatedInput::EVENT,
        TaskCompletedInput::EVENT,
        ElicitationInput::EVENT,
        ElicitationResultInput::EVENT,
        ConfigChangeInput::EVENT,
        WorktreeCreateInput::EVENT,
        WorktreeRemoveInput::EVENT,
        InstructionsLoadedInput::EVENT,
        CwdChangedInput::EVENT,
        FileChangedInput::EVENT,
        DirectoryAddedInput::EVENT,
        MessageDisplayInput::EVENT,
        PreSkillShellCommandInput::EVENT,
    ];
    assert_eq!(events, HookEvent::ALL);
}
