//! Every real CLI line of `tests/transcripts/` and the benchmark corpus parses to its typed variant, keeps its raw text, and the user
//! messages we write match the recorded ones.

use super::*;
use serde::Deserialize;

const CONTROL: [&str; 4] = [
    "control_request",
    "control_response",
    "control_cancel_request",
    "keep_alive",
];

#[derive(Deserialize)]
struct Recorded<'a> {
    dir: &'a str,
    #[serde(borrow)]
    msg: &'a RawValue,
}

fn fixture(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

const TRANSCRIPTS: [&str; 9] = [
    "control_requests",
    "hello",
    "hook_deny",
    "hooks",
    "multi_turn",
    "partial_messages",
    "permission_deny",
    "sdk_mcp",
    "tool_bash",
];

/// The raw `msg` of every recorded line in direction `dir`, with its file name.
fn recorded(dir: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for name in TRANSCRIPTS {
        for line in fixture(&format!("tests/transcripts/{name}.jsonl")).lines() {
            let rec: Recorded<'_> = serde_json::from_str(line).unwrap();
            if rec.dir == dir {
                out.push((name, rec.msg.get().to_owned()));
            }
        }
    }
    out
}

fn parse(line: &str) -> Message {
    Message::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn is_unknown(msg: &Message) -> bool {
    matches!(
        msg,
        Message::Unknown(_) | Message::System(SystemMessage::Unknown(_))
    )
}

/// Parse a non-control line and check it is typed and keeps its exact text.
fn check_typed(line: &str) -> Option<Message> {
    let tags = peek_tags(line).unwrap();
    if CONTROL.contains(&tags.ty) {
        return None;
    }
    let msg = parse(line);
    assert!(!is_unknown(&msg), "parsed as unknown: {line}");
    assert_eq!(msg.raw_json(), line);
    assert_eq!(
        serde_json::to_string(&msg).unwrap(),
        line,
        "serializes back to the line"
    );
    Some(msg)
}

#[test]
fn every_transcript_out_line_is_typed_and_kept_exactly() {
    let lines = recorded("out");
    let typed: Vec<_> = lines
        .iter()
        .filter_map(|(_, line)| check_typed(line))
        .collect();
    assert_eq!(
        typed.len(),
        62,
        "non-control out lines across the transcripts"
    );
    let results = typed
        .iter()
        .filter(|m| matches!(m, Message::Result(_)))
        .count();
    assert_eq!(results, 9);
}

#[test]
fn every_corpus_line_is_typed_and_kept_exactly() {
    let text = fixture("tests/corpus.jsonl");
    let mut n = 0;
    for line in text.lines() {
        check_typed(line).expect("no control frames in the corpus");
        n += 1;
    }
    assert_eq!(n, 31);
}

#[test]
fn debug_output_shows_the_text_of_fields_kept_as_positions() {
    for line in fixture("tests/corpus.jsonl").lines() {
        let msg = parse(line);
        let shown = format!("{msg:?}");
        assert!(
            !shown.contains("line["),
            "a position printed as such: {shown}"
        );
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let session_id = format!("{:?}", value["session_id"].as_str().unwrap());
        assert!(shown.contains(&session_id), "no {session_id} in {shown}");
    }
    // A message struct printed on its own does the same.
    let corpus = fixture("tests/corpus.jsonl");
    let line = corpus
        .lines()
        .find(|l| l.starts_with(r#"{"type":"assistant""#))
        .unwrap();
    let Message::Assistant(assistant) = parse(line) else {
        panic!("not an assistant line")
    };
    let shown = format!("{assistant:?}");
    assert!(
        shown.starts_with("AssistantMessage {") && !shown.contains("line["),
        "{shown}"
    );
    assert!(
        shown.contains(r#""claude-opus-5-5""#),
        "the model, kept as a position: {shown}"
    );
}

fn out_messages(name: &str) -> Vec<Message> {
    recorded("out")
        .iter()
        .filter(|(file, _)| *file == name)
        .filter_map(|(_, line)| check_typed(line))
        .collect()
}

#[test]
fn hello_fields() {
    let msgs = out_messages("hello");
    let Message::System(SystemMessage::Init(init)) = &msgs[0] else {
        panic!("{:?}", msgs[0])
    };
    assert_eq!(init.model(), Some("claude-opus-5-5"));
    assert_eq!(init.permission_mode(), Some("default"));
    assert_eq!(init.cwd().map(|c| c.starts_with('/')), Some(true));
    assert!(init.tools.contains("Bash"));
    assert_eq!(init.tools.to_vec()[0], "Task");
    assert_eq!(init.claude_code_version(), Some("2.1.330"));
    assert_eq!(init.plugin_errors(), None);
    let plugins = init.plugins();
    assert!(
        !plugins.is_empty() && plugins.iter().all(|p| !p.name.is_empty()),
        "{plugins:?}"
    );
    assert_eq!(init.session_id(), "46eb1b6d-8361-4d7c-a347-8234db4a9d65");

    let Message::Assistant(a) = &msgs[1] else {
        panic!()
    };
    assert_eq!(a.parent_tool_use_id, None);
    assert_eq!(a.model(), Some("claude-opus-5-5"));
    assert_eq!(a.message_id(), Some("msg_fake_1"));
    assert!(
        matches!(&a.message.content[0], ContentBlock::Text(t) if t.text == "echo: hello there")
    );
    assert_eq!(a.message.usage.as_ref().map(|u| u.output_tokens), Some(7));

    let Message::Result(r) = &msgs[2] else {
        panic!()
    };
    assert_eq!(r.subtype, "success");
    assert!(!r.is_error);
    assert_eq!(r.result.as_deref(), Some("echo: hello there"));
    assert_eq!(r.terminal_reason.as_deref(), Some("completed"));
    assert_eq!(
        (r.num_turns, r.duration_ms, r.duration_api_ms),
        (1, 163, 34)
    );
    assert_eq!(r.api_error_status, None);
    assert_eq!(r.total_cost_usd, Some(0.000188));
    assert_eq!(r.model_usage["claude-opus-5-5"].output_tokens, 7);
    assert_eq!(
        r.model_usage["claude-opus-5-5"].context_window,
        Some(1_000_000)
    );
    assert!(r.permission_denials.is_empty() && r.errors.is_empty());
    assert_eq!(r.usage.as_ref().map(|u| u.input_tokens), Some(12));
    assert_eq!(r.uuid(), Some("727ca1e5-d066-42dc-ba91-329d85120c60"));
}

fn first_tool_use(msgs: &[Message]) -> ToolUseBlock {
    msgs.iter()
        .find_map(|m| match m {
            Message::Assistant(a) => a.message.content.iter().find_map(|b| match b {
                ContentBlock::ToolUse(t) => Some(t.clone()),
                _ => None,
            }),
            _ => None,
        })
        .expect("a tool_use block")
}

fn first_tool_result(msgs: &[Message]) -> (UserMessage, ToolResultBlock) {
    let Some(Message::User(u)) = msgs.iter().find(|m| matches!(m, Message::User(_))) else {
        panic!()
    };
    let MessageContent::Blocks(blocks) = &u.content else {
        panic!()
    };
    let ContentBlock::ToolResult(r) = &blocks[0] else {
        panic!("{blocks:?}")
    };
    ((**u).clone(), r.clone())
}

#[test]
fn tool_use_and_tool_result() {
    let msgs = out_messages("tool_bash");
    let tool_use = first_tool_use(&msgs);
    assert_eq!(tool_use.name, "Bash");
    assert_eq!(
        tool_use.input.as_str(),
        r#"{"command":"echo hi-from-bash","description":"run"}"#
    );
    // tool_result blocks start with `tool_use_id`, before `type`.
    let (u, r) = first_tool_result(&msgs);
    assert_eq!(r.tool_use_id, tool_use.id);
    assert_eq!(r.is_error, Some(false));
    assert!(matches!(&r.content, Some(MessageContent::Text(t)) if t == "hi-from-bash"));
    assert!(u
        .tool_use_result()
        .unwrap()
        .starts_with(r#"{"stdout":"hi-from-bash""#));
    assert!(u.uuid().is_some() && !u.is_replay && !u.is_synthetic);
    assert!(u.timestamp().is_some_and(|t| t.starts_with("20")));
}

#[test]
fn denied_tool_use() {
    let msgs = out_messages("permission_deny");
    let tool_use = first_tool_use(&msgs);
    assert!(
        tool_use
            .input
            .as_str()
            .starts_with(r#"{"command":"ls -la /""#),
        "{}",
        tool_use.input.as_str()
    );
    let (u, r) = first_tool_result(&msgs);
    assert_eq!(
        (r.tool_use_id.as_str(), r.is_error),
        (tool_use.id.as_str(), Some(true))
    );
    assert!(matches!(&r.content, Some(MessageContent::Text(t)) if t == "not allowed by policy"));
    assert_eq!(
        u.tool_use_result().unwrap(),
        r#""Error: not allowed by policy""#
    );
}

#[test]
fn mcp_tool_result_blocks() {
    let msgs = out_messages("sdk_mcp");
    let Some(Message::User(u)) = msgs.iter().find(|m| matches!(m, Message::User(_))) else {
        panic!()
    };
    let MessageContent::Blocks(blocks) = &u.content else {
        panic!()
    };
    let ContentBlock::ToolResult(r) = &blocks[0] else {
        panic!()
    };
    let Some(MessageContent::Blocks(inner)) = &r.content else {
        panic!()
    };
    assert!(matches!(&inner[0], ContentBlock::Text(t) if t.text == "42"));
    assert_eq!(
        u.tool_use_result().unwrap(),
        r#"[{"type":"text","text":"42"}]"#
    );
    let Message::System(SystemMessage::Init(init)) = &msgs[0] else {
        panic!()
    };
    assert_eq!(init.mcp_servers[0].name, "calc");
    assert_eq!(init.mcp_servers[0].status, "connected");
}

#[test]
fn stream_events() {
    let msgs = out_messages("partial_messages");
    let events: Vec<_> = msgs
        .iter()
        .filter_map(|m| match m {
            Message::StreamEvent(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 15);
    assert!(events
        .iter()
        .all(|e| e.parent_tool_use_id.is_none() && !e.session_id().is_empty()));
    assert_eq!(events[0].event_type(), Some("message_start"));
    assert_eq!(events[0].ttft_ms, Some(14));
    assert_eq!(events.last().unwrap().event_type(), Some("message_stop"));
    let statuses = msgs.iter().filter(|m| matches!(m, Message::System(SystemMessage::Status(s)) if s.status.as_deref() == Some("requesting"))).count();
    assert_eq!(statuses, 2);
}

#[test]
fn unknown_kinds_are_kept_raw() {
    let line = r#"{"type":"transcript_mirror","filePath":"/x","entries":[1,{"a":null}]}"#;
    let msg = parse(line);
    assert!(matches!(&msg, Message::Unknown(raw) if raw.as_str() == line));
    assert_eq!(msg.raw_json(), line);
    assert_eq!(serde_json::to_string(&msg).unwrap(), line);

    let line =
        r#"{"type":"system","subtype":"post_turn_summary","summary":{"x":1},"session_id":"s"}"#;
    let msg = parse(line);
    assert!(matches!(&msg, Message::System(SystemMessage::Unknown(raw)) if raw.as_str() == line));

    let block = r#"{"type":"hologram","beam":[1,2],"id":"h1"}"#;
    let line = format!(
        r#"{{"type":"assistant","message":{{"id":"m","model":"x","content":[{{"type":"text","text":"a"}},{block}]}},"parent_tool_use_id":null,"session_id":"s"}}"#
    );
    let Message::Assistant(a) = parse(&line) else {
        panic!()
    };
    assert!(matches!(&a.message.content[1], ContentBlock::Unknown(raw) if raw.as_str() == block));
    assert_eq!(a.raw_json(), line);
}

#[test]
fn results_in_any_key_order_and_with_few_fields() {
    let line = r#"{"session_id":"s","errors":["boom"],"is_error":true,"subtype":"error_during_execution","type":"result"}"#;
    let Message::Result(r) = parse(line) else {
        panic!()
    };
    assert_eq!(
        (r.subtype.as_str(), r.is_error, r.errors.as_slice()),
        ("error_during_execution", true, &["boom".to_owned()][..])
    );
    assert_eq!((r.result, r.duration_ms, r.total_cost_usd), (None, 0, None));

    let line = r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"duration_ms":12.7}"#;
    let Message::Result(r) = parse(line) else {
        panic!()
    };
    assert_eq!(
        (r.api_error_status, r.duration_ms, r.session_id()),
        (Some(529), 12, "")
    );
}

#[test]
fn session_and_task_system_messages() {
    let line = r#"{"type":"system","subtype":"session_state_changed","state":"requires_action","sdk_host_only":true,"uuid":"u","session_id":"s"}"#;
    let Message::System(SystemMessage::SessionStateChanged(s)) = parse(line) else {
        panic!()
    };
    assert_eq!(
        (s.state.clone(), s.sdk_host_only, s.state.as_str()),
        (SessionState::RequiresAction, true, "requires_action")
    );
    let line = r#"{"type":"system","subtype":"session_state_changed","state":"dreaming"}"#;
    let Message::System(SystemMessage::SessionStateChanged(s)) = parse(line) else {
        panic!()
    };
    assert_eq!(
        (s.state, s.sdk_host_only),
        (
            serde_json::from_str::<SessionState>(r#""dreaming""#).unwrap(),
            false
        )
    );

    let line = r#"{"type":"system","subtype":"task_started","task_id":"t1","task_type":"local_agent","description":"d","session_id":"s"}"#;
    let Message::System(SystemMessage::TaskStarted(t)) = parse(line) else {
        panic!()
    };
    assert_eq!(
        (t.task_id.as_str(), t.task_type.as_deref()),
        ("t1", Some("local_agent"))
    );
    let line = r#"{"type":"system","subtype":"task_updated","task_id":"t1","patch":{"status":"completed","end_time":5}}"#;
    let Message::System(SystemMessage::TaskUpdated(t)) = parse(line) else {
        panic!()
    };
    assert_eq!(t.patch.status.as_deref(), Some("completed"));
    let line = r#"{"type":"system","subtype":"task_notification","task_id":"t1","status":"failed","output_file":"/o","summary":"s"}"#;
    let Message::System(SystemMessage::TaskNotification(t)) = parse(line) else {
        panic!()
    };
    assert_eq!((t.task_id.as_str(), t.status.as_str()), ("t1", "failed"));
}

#[test]
fn other_top_level_types() {
    let cases = [
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1700000000,"utilization":0.9}}"#,
        r#"{"type":"tool_progress","tool_use_id":"t","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":1.5}"#,
        r#"{"type":"tool_use_summary","summary":"ran ls","preceding_tool_use_ids":["a","b"]}"#,
        r#"{"type":"auth_status","isAuthenticating":true,"output":["visit"]}"#,
        r#"{"type":"prompt_suggestion","suggestion":"try again"}"#,
        r#"{"type":"conversation_reset","new_conversation_id":"c2","trigger":"clear"}"#,
    ];
    let msgs: Vec<Message> = cases.iter().map(|l| parse(l)).collect();
    assert!(
        matches!(&msgs[0], Message::RateLimit(r) if r.rate_limit_info.status == "allowed_warning" && r.rate_limit_info.utilization == Some(0.9))
    );
    assert!(matches!(&msgs[1], Message::ToolProgress(p) if p.elapsed_time_seconds == 1.5));
    assert!(
        matches!(&msgs[2], Message::ToolUseSummary(s) if s.preceding_tool_use_ids == ["a", "b"])
    );
    assert!(
        matches!(&msgs[3], Message::AuthStatus(a) if a.is_authenticating && a.output == ["visit"])
    );
    assert!(matches!(&msgs[4], Message::PromptSuggestion(p) if p.suggestion == "try again"));
    assert!(matches!(&msgs[5], Message::ConversationReset(c) if c.new_conversation_id == "c2"));
    for (msg, line) in msgs.iter().zip(cases) {
        assert_eq!(msg.raw_json(), line);
    }
}

#[test]
fn parse_and_from_str_read_a_whole_line() {
    for (_, line) in recorded("out") {
        let parsed = Message::parse(&line).unwrap();
        let via_str: Message = line.parse().unwrap();
        assert_eq!(parsed.raw_json(), line);
        assert_eq!(via_str.raw_json(), line);
        assert_eq!(
            std::mem::discriminant(&parsed),
            std::mem::discriminant(&via_str)
        );
        let tags = peek_tags(&line).unwrap();
        if CONTROL.contains(&tags.ty) {
            assert!(matches!(parsed, Message::Unknown(_)), "{line}");
        }
    }
    for line in [
        "",
        "not json",
        "[1]",
        r#"{"subtype":"success"}"#,
        r#"{"type":7}"#,
        r#"{"type":"assistant","message":5}"#,
    ] {
        assert!(Message::parse(line).is_err(), "{line}");
        assert!(line.parse::<Message>().is_err(), "{line}");
    }
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    let tags = Tags {
        ty: "assistant",
        subtype: None,
    };
    for line in [
        "",
        "not json",
        r#"{"type":"assistant","#,
        r#"{"type":"assistant","message":5}"#,
        "[1]",
    ] {
        assert!(Message::parse_tagged(line, &tags).is_err(), "{line}");
    }
    let wrong = r#"{"type":"result","subtype":"success","is_error":"no"}"#;
    assert!(Message::parse_tagged(wrong, &peek_tags(wrong).unwrap()).is_err());
    let no_subtype = r#"{"type":"result","is_error":false}"#;
    assert!(Message::parse_tagged(no_subtype, &peek_tags(no_subtype).unwrap()).is_err());
    let unknown_but_broken = Tags {
        ty: "brand_new",
        subtype: None,
    };
    assert!(Message::parse_tagged(r#"{"type":"brand_new""#, &unknown_but_broken).is_err());
    assert!(peek_tags("\u{0}\u{ff}garbage").is_err());
}

#[test]
fn user_input_matches_the_recorded_stdin_lines() {
    let users: Vec<String> = recorded("in")
        .into_iter()
        .map(|(_, line)| line)
        .filter(|line| peek_tags(line).unwrap().ty == "user")
        .collect();
    assert_eq!(users.len(), 10);
    for recorded in users {
        let v: serde_json::Value = serde_json::from_str(&recorded).unwrap();
        let text = v["message"]["content"].as_str().unwrap();
        let ours = UserInput::text(text).to_json_line();
        assert_eq!(ours.last(), Some(&b'\n'));
        let ours = std::str::from_utf8(&ours[..ours.len() - 1]).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(ours).unwrap(), v);
        // Key order: type, message, parent_tool_use_id, session_id.
        let positions: Vec<usize> = [
            r#""type""#,
            r#""message""#,
            r#""parent_tool_use_id""#,
            r#""session_id""#,
        ]
        .iter()
        .map(|key| ours.find(key).unwrap())
        .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{ours}");
        if !recorded.contains(": ") && !recorded.contains(", ") {
            assert_eq!(ours, recorded);
        }
    }
}

#[test]
fn user_input_options() {
    let line = UserInput::blocks(vec![
        InputBlock::text("hi"),
        InputBlock::raw(r#"{"type":"x"}"#.parse::<Json>().unwrap()),
    ])
    .with_uuid("u1")
    .with_session_id("default")
    .with_parent_tool_use_id("toolu_1")
    .with_priority("next")
    .with_client_composed(true)
    .to_json_line();
    assert_eq!(
        std::str::from_utf8(&line).unwrap(),
        concat!(
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"x"}]},"#,
            r#""parent_tool_use_id":"toolu_1","session_id":"default","uuid":"u1","priority":"next","client_composed":true}"#,
            "\n"
        )
    );
}

// Lines printed by the real CLI 2.1.330 (`-p --input-format stream-json --output-format
// stream-json --verbose`) against a stub Messages API on 127.0.0.1, kept verbatim.

/// `--model claude-primary-1 --fallback-model claude-fallback-2`, the stub answering the primary
/// model `529 overloaded_error` (the CLI printed two `api_retry` first) or `404 not_found_error`.
const RECORDED_MODEL_FALLBACKS: [&str; 2] = [
    r#"{"type":"system","subtype":"model_fallback","uuid":"d3a29055-42df-4fec-a919-0876cd62a5c8","trigger":"overloaded","original_model":"claude-primary-1","fallback_model":"claude-fallback-2","content":"Switched to claude-fallback-2 due to high demand for claude-primary-1","session_id":"d5b7b80c-0292-47b7-92b1-2e7420ce7917"}"#,
    r#"{"type":"system","subtype":"model_fallback","uuid":"0a3a1e81-d2a6-430c-bddc-11e541a1a66c","trigger":"model_not_found","original_model":"claude-primary-1","fallback_model":"claude-fallback-2","content":"Switched to claude-fallback-2 because claude-primary-1 is not available (404 {\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"nope\"},\"request_id\":\"req_stub_err\"})","session_id":"40c739eb-b8e3-4eda-b7be-7396ba05c58b"}"#,
];

/// A user message sent with `"uuid":"11111111-2222-4333-8444-555555555555"`; `completed` came
/// after the turn's result.
const RECORDED_COMMAND_LIFECYCLE: [&str; 3] = [
    r#"{"type":"command_lifecycle","command_uuid":"11111111-2222-4333-8444-555555555555","state":"queued","uuid":"2d120165-c856-4146-9ce6-4a105430de5a","session_id":"f9d383fa-7dea-41d9-ad3d-65124e50659e"}"#,
    r#"{"type":"command_lifecycle","command_uuid":"11111111-2222-4333-8444-555555555555","state":"started","uuid":"d4b8d24c-2e68-4729-a1d5-68988d3f1b61","session_id":"f9d383fa-7dea-41d9-ad3d-65124e50659e"}"#,
    r#"{"type":"command_lifecycle","command_uuid":"11111111-2222-4333-8444-555555555555","state":"completed","uuid":"fa7e1c40-4d74-47c7-b9c4-b242a0f24aa6","session_id":"f9d383fa-7dea-41d9-ad3d-65124e50659e"}"#,
];

/// The tool result of a `ToolSearch` call with `{"query":"select:WebFetch"}`.
const RECORDED_TOOL_REFERENCE: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_stub_1","content":[{"type":"tool_reference","tool_name":"WebFetch"}]}]},"parent_tool_use_id":null,"session_id":"bdc4cb8d-e795-466f-b00b-f4d1e466fb67","uuid":"ea1c8376-5a5f-4981-9541-2bf44d325244","timestamp":"2026-11-23T02:42:35.234Z","tool_use_result":{"matches":["WebFetch"],"query":"select:WebFetch","total_deferred_tools":11},"tool_result_meta":[{"id":"toolu_stub_1","permission_decision":{"decision":"accept","source":"config","reason_type":"rule"}}]}"#;

/// The stub streamed a `fallback` block (`from` claude-x, `to` claude-rescue-3, with a refusal
/// `trigger`) before a text block; the CLI printed it in an assistant message of its own, without
/// the trigger.
const RECORDED_FALLBACK_BLOCK: &str = r#"{"type":"assistant","message":{"id":"msg_stub_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"fallback","from":{"model":"claude-x"},"to":{"model":"claude-rescue-3"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1},"context_management":null},"parent_tool_use_id":null,"session_id":"fe40b411-3b1e-4d88-9bd5-083a4d994c83","uuid":"e864ef15-f3fe-4a12-ba26-4793d8546e3d","timestamp":"2026-11-23T02:43:06.882Z","request_id":"req_stub_1"}"#;

#[test]
fn recorded_model_fallback() {
    let expected = [
        (
            "overloaded",
            "Switched to claude-fallback-2 due to high demand for claude-primary-1",
        ),
        (
            "model_not_found",
            r#"Switched to claude-fallback-2 because claude-primary-1 is not available (404 {"type":"error","error":{"type":"not_found_error","message":"nope"},"request_id":"req_stub_err"})"#,
        ),
    ];
    for (line, (trigger, content)) in RECORDED_MODEL_FALLBACKS.iter().zip(expected) {
        let Some(Message::System(SystemMessage::ModelFallback(m))) = check_typed(line) else {
            panic!("{line}")
        };
        assert_eq!(m.trigger, trigger);
        assert_eq!(
            (m.original_model.as_str(), m.fallback_model.as_str()),
            ("claude-primary-1", "claude-fallback-2")
        );
        assert_eq!(m.content, content);
        assert!(m.uuid().is_some() && !m.session_id().is_empty());
        let shown = format!("{m:?}");
        assert!(
            shown.starts_with("ModelFallback {") && shown.contains(r#"trigger: "#),
            "{shown}"
        );
        assert!(shown.contains(&format!("{:?}", m.session_id())), "{shown}");
    }
    // Only the subtype is required: a line with fields left out still parses.
    let bare = r#"{"type":"system","subtype":"model_fallback"}"#;
    let Message::System(SystemMessage::ModelFallback(m)) = parse(bare) else {
        panic!()
    };
    assert_eq!(
        (m.trigger.as_str(), m.session_id(), m.uuid()),
        ("", "", None)
    );
    let wrong = r#"{"type":"system","subtype":"model_fallback","fallback_model":7}"#;
    assert!(Message::parse(wrong).is_err());
}

/// No recording: the shape the CLI 2.1.330 bundle builds when a model that needs consent is
/// swapped out (its own type, `original_model_name` optional).
#[test]
fn model_consent_fallback_from_the_cli_shape() {
    let line = r#"{"type":"system","subtype":"model_consent_fallback","choice":"switch_default","original_model":"claude-opus-5","original_model_name":"Opus 5","fallback_model":"claude-opus-4-5","persisted_as_default":true,"content":"Switched to Opus 4.5","uuid":"u","session_id":"s"}"#;
    let Some(Message::System(SystemMessage::ModelConsentFallback(m))) = check_typed(line) else {
        panic!()
    };
    assert_eq!(
        (
            m.choice.as_str(),
            m.original_model.as_str(),
            m.original_model_name.as_deref(),
            m.fallback_model.as_str(),
            m.persisted_as_default,
            m.content.as_str(),
        ),
        (
            "switch_default",
            "claude-opus-5",
            Some("Opus 5"),
            "claude-opus-4-5",
            true,
            "Switched to Opus 4.5"
        )
    );
    let line = r#"{"type":"system","subtype":"model_consent_fallback","choice":"cancelled","original_model":"a","fallback_model":"b","persisted_as_default":false,"content":"c","uuid":"u","session_id":"s"}"#;
    let Message::System(SystemMessage::ModelConsentFallback(m)) = parse(line) else {
        panic!()
    };
    assert_eq!(
        (m.original_model_name, m.persisted_as_default),
        (None, false)
    );
}

#[test]
fn recorded_command_lifecycle() {
    let states: Vec<String> = RECORDED_COMMAND_LIFECYCLE
        .iter()
        .map(|line| {
            let Some(Message::CommandLifecycle(c)) = check_typed(line) else {
                panic!("{line}")
            };
            assert_eq!(c.command_uuid, "11111111-2222-4333-8444-555555555555");
            assert_eq!((c.wakeup_source.as_deref(), c.scheduled_for), (None, None));
            assert_eq!(c.session_id(), "f9d383fa-7dea-41d9-ad3d-65124e50659e");
            c.state.clone()
        })
        .collect();
    assert_eq!(states, ["queued", "started", "completed"]);
    // A scheduled wake-up, shaped as the CLI 2.1.330 bundle describes it (no recording).
    let line = r#"{"type":"command_lifecycle","command_uuid":"c","state":"started","wakeup_source":"loop_wakeup","scheduled_for":1790000000000.0,"uuid":"u","session_id":"s"}"#;
    let Message::CommandLifecycle(c) = parse(line) else {
        panic!()
    };
    assert_eq!(
        (c.wakeup_source.as_deref(), c.scheduled_for),
        (Some("loop_wakeup"), Some(1_790_000_000_000))
    );
}

#[test]
fn recorded_tool_reference_block() {
    let Some(Message::User(u)) = check_typed(RECORDED_TOOL_REFERENCE) else {
        panic!()
    };
    let MessageContent::Blocks(blocks) = &u.content else {
        panic!()
    };
    let ContentBlock::ToolResult(r) = &blocks[0] else {
        panic!("{blocks:?}")
    };
    let Some(MessageContent::Blocks(inner)) = &r.content else {
        panic!("{r:?}")
    };
    assert!(
        matches!(&inner[..], [ContentBlock::ToolReference(t)] if t.tool_name == "WebFetch"),
        "{inner:?}"
    );
}

#[test]
fn recorded_fallback_block() {
    let Some(Message::Assistant(a)) = check_typed(RECORDED_FALLBACK_BLOCK) else {
        panic!()
    };
    let [ContentBlock::Fallback(f)] = &a.message.content[..] else {
        panic!("{:?}", a.message.content)
    };
    assert_eq!(
        (f.from_model.as_str(), f.to_model.as_str()),
        ("claude-x", "claude-rescue-3")
    );
    // The API's own form carries a trigger, and may carry more: they stay in the raw line.
    let block = r#"{"type":"fallback","from":{"model":"a","x":1},"to":{"model":"b"},"trigger":{"type":"refusal","category":"cyber"}}"#;
    let ContentBlock::Fallback(f) = serde_json::from_str(block).unwrap() else {
        panic!()
    };
    assert_eq!((f.from_model.as_str(), f.to_model.as_str()), ("a", "b"));
    assert!(serde_json::from_str::<ContentBlock>(r#"{"type":"fallback","from":"a"}"#).is_err());
}

/// No recording (a fetched page becomes one only when the CLI marks it citable): the shape the
/// CLI 2.1.330 bundle gives a `WebFetch` result.
#[test]
fn search_result_block_from_the_cli_shape() {
    let line = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":[{"type":"search_result","source":"https://example.com/","title":"https://example.com/","content":[{"type":"text","text":"Example Domain\n"},{"type":"text","text":"More text"}],"citations":{"enabled":true}}]}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#;
    let Some(Message::User(u)) = check_typed(line) else {
        panic!()
    };
    let MessageContent::Blocks(blocks) = &u.content else {
        panic!()
    };
    let ContentBlock::ToolResult(r) = &blocks[0] else {
        panic!()
    };
    let Some(MessageContent::Blocks(inner)) = &r.content else {
        panic!()
    };
    let [ContentBlock::SearchResult(s)] = &inner[..] else {
        panic!("{inner:?}")
    };
    assert_eq!(
        (s.source.as_str(), s.title.as_str()),
        ("https://example.com/", "https://example.com/")
    );
    let texts: Vec<&str> = s.content.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["Example Domain\n", "More text"]);
    assert_eq!(
        s.citations.as_ref().map(|c| c.as_str()),
        Some(r#"{"enabled":true}"#)
    );
}

/// The fields of CLI 2.1.332's message types that were read from the raw line only: the
/// assistant message's resume and replacement fields and its `/context` report, the result's
/// timing and account fields (without the CLI's internal diagnostics in `errors`), `init`'s view
/// and fast-mode fields, and a rate-limit event's overage and scope fields.
#[test]
fn the_newer_fields_of_2_1_332_are_typed() {
    let Message::Assistant(reply) = parse(
        r#"{"type":"assistant","message":{"id":"m2","model":"claude-sonnet-5","content":[]},"parent_tool_use_id":null,"session_id":"s","resume_reason":"host_draining","resumed_from_incomplete_thinking":true,"supersedes":["u-1","u-2"],"task_description":"Review the diff","context_usage":{"model":"claude-sonnet-5","total_tokens":21400,"raw_max_tokens":200000,"percentage":10.7,"over_limit":{"tokens_over":10,"kind":"hard_limit"},"categories":[{"name":"Messages","tokens":900,"kind":"used"}],"mcp_tools":[{"name":"add","server_name":"calc","tokens":40}],"memory_files":[],"agents":[{"agent_type":"reviewer","source":"project","tokens":5}],"skills":[]},"usage_report":{"session":{"total_cost_usd":0.5}}}"#,
    ) else {
        panic!("not an assistant message")
    };
    assert_eq!(reply.resume_reason(), Some("host_draining"));
    assert_eq!(reply.resumed_from_incomplete_thinking, Some(true));
    assert_eq!(reply.supersedes(), ["u-1", "u-2"]);
    assert_eq!(reply.task_description(), Some("Review the diff"));
    let context = reply.context_usage().expect("the /context report");
    assert_eq!(
        (context.total_tokens, context.raw_max_tokens),
        (21_400, Some(200_000))
    );
    assert_eq!(context.mcp_tools[0].server_name, "calc");
    assert_eq!(context.agents[0].agent_type, "reviewer");
    assert_eq!(context.over_limit.as_ref().map(|o| o.tokens_over), Some(10));
    assert!(reply.usage_report().unwrap().contains("total_cost_usd"));

    let Message::Result(result) = parse(
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null","Request was aborted."],"ttft_stream_ms":395,"time_to_request_ms":12,"first_text_post_queued_behind":"hold","resume_reason":"interrupted_turn","local_command":"/cost","credential_expires_at":"2026-12-01T00:00:00Z","warm_spare_claimed":true,"session_id":"s"}"#,
    ) else {
        panic!("not a result")
    };
    assert_eq!(
        result.errors,
        ["Request was aborted."],
        "no internal diagnostics"
    );
    assert!(
        result.raw_json().contains("[ede_diagnostic]"),
        "kept in the line"
    );
    assert_eq!(
        (result.ttft_stream_ms, result.time_to_request_ms),
        (Some(395), Some(12))
    );
    assert_eq!(
        result.first_text_post_queued_behind.as_deref(),
        Some("hold")
    );
    assert_eq!(result.resume_reason.as_deref(), Some("interrupted_turn"));
    assert_eq!(result.local_command.as_deref(), Some("/cost"));
    assert_eq!(
        result.credential_expires_at.as_deref(),
        Some("2026-12-01T00:00:00Z")
    );
    assert_eq!(result.warm_spare_claimed, Some(true));

    let Message::System(SystemMessage::Init(init)) = parse(
        r#"{"type":"system","subtype":"init","view_mode":"focus","fast_mode_disabled_reason":"sdk_opt_in_required","session_id":"s"}"#,
    ) else {
        panic!("not an init")
    };
    assert_eq!(init.view_mode(), Some("focus"));
    assert_eq!(
        init.fast_mode_disabled_reason(),
        Some("sdk_opt_in_required")
    );

    let Message::RateLimit(event) = parse(
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","overageInUse":false,"overageEnabled":true,"surpassedThreshold":0.9,"limitScope":"group_pool","errorCode":"credits_required","canUserPurchaseCredits":true,"hasChargeableSavedPaymentMethod":false},"session_id":"s"}"#,
    ) else {
        panic!("not a rate_limit_event")
    };
    let info = event.rate_limit_info;
    assert_eq!(
        (info.overage_in_use, info.overage_enabled),
        (Some(false), Some(true))
    );
    assert_eq!(info.surpassed_threshold, Some(0.9));
    assert_eq!(info.limit_scope.as_deref(), Some("group_pool"));
    assert_eq!(info.error_code.as_deref(), Some("credits_required"));
    assert_eq!(
        (
            info.can_user_purchase_credits,
            info.has_chargeable_saved_payment_method
        ),
        (Some(true), Some(false))
    );
}
