//! Unit tests of the session: bytes in, bytes and events out, no process and no clock.

use std::time::{Duration, Instant};

use super::given_up_requests::REMEMBERED_GIVEN_UP;
use super::*;
use crate::control::{ClaimOptions, ControlRequest, InboundKind, Reply};
use crate::hooks::HookFailurePolicy;
use crate::message::{LineError, UserInput};
use crate::session::RequestFailure;

fn lines(t: Option<Transmit>) -> Vec<serde_json::Value> {
    match t {
        Some(Transmit::Write(bytes)) => {
            assert_eq!(bytes.last(), Some(&b'\n'), "writes are whole lines");
            bytes
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_slice(l).expect("every written line is JSON"))
                .collect()
        }
        other => panic!("expected a write, got {other:?}"),
    }
}

fn events(s: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

fn feed(s: &mut Session, now: Instant, line: &str) {
    s.handle_stdout(now, line.as_bytes());
    s.handle_stdout(now, b"\n");
}

fn started(config: SessionConfig) -> (Session, Instant) {
    let now = Instant::now();
    let mut s = Session::new(config, now);
    let init = lines(s.poll_transmit());
    assert_eq!(init[0]["request"]["subtype"], "initialize");
    assert_eq!(init[0]["request_id"], "req_0");
    (s, now)
}

fn success(id: &str, body: &str) -> String {
    format!(
        r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{id}","response":{body}}}}}"#
    )
}

#[test]
fn initialize_answer_is_kept_and_reported() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(
        &mut s,
        now,
        &success(
            "req_0",
            r#"{"commands":[{"name":"x","description":"d"}],"models":[],"claude_code_version":"2.1.330"}"#,
        ),
    );
    let ev = events(&mut s);
    let supported = VersionCheck::Supported(CliVersion::new(2, 1, 330));
    assert!(
        matches!(&ev[..], [Event::CliVersion(check), Event::RequestDone { id, outcome: Ok(_) }, Event::Ready]
            if *id == s.initialize_id() && *check == supported),
        "{ev:?}"
    );
    let info = s.server_info().unwrap();
    assert_eq!(info.commands[0].name, "x");
    assert_eq!(info.claude_code_version.as_deref(), Some("2.1.330"));
}

fn init_frame(version: Option<&str>) -> String {
    let version = version.map_or(String::new(), |v| {
        format!(r#","claude_code_version":"{v}""#)
    });
    format!(
        r#"{{"type":"system","subtype":"init","session_id":"s","cwd":"/w","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none"{version}}}"#
    )
}

/// The version checks the session reports, and the kinds of the other events in order.
fn version_events(s: &mut Session) -> Vec<String> {
    events(s)
        .into_iter()
        .map(|event| match event {
            Event::CliVersion(check) => format!("{check:?}"),
            Event::RequestDone { .. } => "done".to_owned(),
            Event::Message(_) => "message".to_owned(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn the_cli_version_comes_once_from_initialize_or_else_the_first_init() {
    // In the initialize answer: reported there, and the init frames after it change nothing.
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(
        &mut s,
        now,
        &success("req_0", r#"{"claude_code_version":"2.0.77"}"#),
    );
    feed(&mut s, now, &init_frame(Some("2.1.330")));
    assert_eq!(
        version_events(&mut s),
        [
            "TooOld(CliVersion { major: 2, minor: 0, patch: 77 })",
            "done",
            "Ready",
            "message"
        ]
    );

    // Not in the initialize answer: the first init frame says it, just before its message.
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &success("req_0", "{}"));
    feed(&mut s, now, &init_frame(Some("2.1.400")));
    feed(&mut s, now, &init_frame(Some("1.0.0")));
    assert_eq!(
        version_events(&mut s),
        [
            "done",
            "Ready",
            "Supported(CliVersion { major: 2, minor: 1, patch: 400 })",
            "message",
            "message"
        ]
    );

    // In neither: unreported.
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(
        &mut s,
        now,
        &success("req_0", r#"{"claude_code_version":"next"}"#),
    );
    feed(&mut s, now, &init_frame(None));
    assert_eq!(
        version_events(&mut s),
        ["done", "Ready", "Unreported", "message"]
    );
}

#[test]
fn no_version_check_when_it_is_turned_off() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.check_cli_version = false;
    let (mut s, now) = started(config);
    feed(
        &mut s,
        now,
        &success("req_0", r#"{"claude_code_version":"1.0.0"}"#),
    );
    feed(&mut s, now, &init_frame(None));
    assert_eq!(version_events(&mut s), ["done", "Ready", "message"]);
}

#[test]
fn reinitialize_sends_the_first_initialize_again_and_keeps_the_first_answer() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.hooks.push(HookMatcherConfig::new(
        crate::hooks::HookEvent::PreToolUse,
        Some("Bash".into()),
        1,
    ));
    config.initialize_fields =
        Some(r#"{"systemPrompt":["Be brief."]}"#.parse::<crate::Json>().unwrap());
    let now = Instant::now();
    let mut s = Session::new(config, now);
    let first = lines(s.poll_transmit());
    feed(
        &mut s,
        now,
        &success("req_0", r#"{"commands":[],"session_state":"idle"}"#),
    );
    let again = s.request(now, ControlRequest::Reinitialize).unwrap();
    let second = lines(s.poll_transmit());
    assert_eq!(second[0]["request_id"], again.to_string());
    assert_eq!(second[0]["request"], first[0]["request"]);
    feed(
        &mut s,
        now,
        &success(&again.to_string(), r#"{"commands":[{"name":"fresh"}]}"#),
    );
    let done = events(&mut s).into_iter().find_map(|event| match event {
        Event::RequestDone { id, outcome } if id == again => Some(outcome),
        _ => None,
    });
    let fresh: InitializeResponse = done.unwrap().unwrap().parse().unwrap();
    assert_eq!(fresh.commands[0].name, "fresh");
    let info = s.server_info().unwrap();
    assert!(info.commands.is_empty());
    assert_eq!(info.other["session_state"], "idle");
}

#[test]
fn requests_are_matched_by_id_and_errors_carry_text_and_code() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    let a = s
        .request(
            now,
            ControlRequest::SetModel {
                model: Some("m".into()),
            },
        )
        .unwrap();
    let b = s
        .request(
            now,
            ControlRequest::Raw {
                subtype: "bogus_subtype".into(),
                body: "{}".parse::<crate::Json>().unwrap(),
            },
        )
        .unwrap();
    let written = lines(s.poll_transmit());
    assert_eq!(
        written[0]["request"],
        serde_json::json!({"subtype":"set_model","model":"m"})
    );
    assert_eq!(
        written[1]["request"],
        serde_json::json!({"subtype":"bogus_subtype"})
    );
    feed(
        &mut s,
        now,
        &format!(
            r#"{{"type":"control_response","response":{{"subtype":"error","request_id":"{b}","error":"Unsupported control request subtype: bogus_subtype","error_code":"unsupported_request"}}}}"#
        ),
    );
    feed(&mut s, now, &success(&a.to_string(), r#"{"model":"m"}"#));
    let ev = events(&mut s);
    match &ev[..] {
        [Event::RequestDone {
            id: id1,
            outcome: Err(RequestFailure::Refused { message, code }),
        }, Event::RequestDone {
            id: id2,
            outcome: Ok(body),
        }] => {
            assert_eq!(*id1, b);
            assert_eq!(
                message,
                "Unsupported control request subtype: bogus_subtype"
            );
            assert_eq!(code.as_deref(), Some("unsupported_request"));
            assert_eq!(*id2, a);
            assert_eq!(body.json().unwrap().as_str(), r#"{"model":"m"}"#);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.pending_requests(), 1, "only initialize is still pending");
}

#[test]
fn unmatched_response_is_a_recoverable_line_error() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &success("nope", "{}"));
    assert!(
        matches!(&events(&mut s)[..], [Event::LineError(LineError::UnmatchedResponse(id))] if id == "nope")
    );
}

/// A timeout too long for an `Instant` (`Duration::MAX`: "never") never expires; before, the
/// request failed at once.
#[test]
fn a_timeout_too_long_to_represent_never_expires() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.timeouts.control_request = Duration::MAX;
    config.timeouts.initialize = Duration::MAX;
    let (mut s, now) = started(config);
    s.request(now, ControlRequest::Interrupt).unwrap();
    assert_eq!(s.poll_timeout(), None);
    s.handle_timeout(now + Duration::from_secs(365 * 24 * 3600));
    assert!(events(&mut s).is_empty());
}

#[test]
fn requests_time_out_at_their_deadline() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.timeouts.control_request = Duration::from_secs(5);
    config.timeouts.initialize = Duration::from_secs(60);
    let (mut s, now) = started(config);
    let id = s.request(now, ControlRequest::Interrupt).unwrap();
    assert_eq!(s.poll_timeout(), Some(now + Duration::from_secs(5)));
    s.handle_timeout(now + Duration::from_secs(4));
    assert!(events(&mut s).is_empty());
    s.handle_timeout(now + Duration::from_secs(5));
    match &events(&mut s)[..] {
        [Event::RequestDone {
            id: got,
            outcome: Err(RequestFailure::Timeout(d)),
        }] => {
            assert_eq!(*got, id);
            assert_eq!(*d, Duration::from_secs(5));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        s.poll_timeout(),
        Some(now + Duration::from_secs(60)),
        "initialize still pending"
    );
}

#[test]
fn eof_and_exit_fail_everything_at_once_then_finish() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    let id = s.request(now, ControlRequest::McpStatus).unwrap();
    s.handle_exit(now, ExitStatusInfo::code(1));
    let ev = events(&mut s);
    assert_eq!(ev.len(), 2);
    for e in &ev {
        assert!(
            matches!(e, Event::RequestDone { outcome: Err(RequestFailure::Closed(CloseCause::Exited(st))), .. } if st.code == Some(1))
        );
    }
    assert!(matches!(ev[1], Event::RequestDone { id: got, .. } if got == id));
    assert!(!s.is_finished(), "stdout has not ended yet");
    s.handle_stdout_eof(now);
    // It exited before answering `initialize` or writing a message: the session never started.
    assert!(
        matches!(&events(&mut s)[..], [Event::Finished(Termination::StartFailed(failure))] if failure.exit.code == Some(1) && failure.reason.is_none())
    );
    assert!(s.is_finished());
    assert_eq!(
        s.send_user(now, UserInput::text("x")),
        Err(SendError::Closed)
    );
    assert_eq!(
        s.request(now, ControlRequest::Interrupt),
        Err(RequestError::Closed)
    );
}

/// A failed read is not an end of stdout: the official SDKs fail every pending request with
/// the error and report it. The session ends itself with the error as its reason, stdin
/// closes, and the CLI's clean exit does not turn it into a completed session.
#[test]
fn a_failed_stdout_read_ends_the_session_with_that_error() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    let id = s.request(now, ControlRequest::McpStatus).unwrap();
    s.handle_stdout(now, b"{\"type\":\"assist");
    s.handle_stdout_error(now, "Input/output error (os error 5)");
    let ev = events(&mut s);
    assert!(ev.iter().any(
        |e| matches!(e, Event::RequestDone { id: got, outcome: Err(RequestFailure::Closed(_)) } if *got == id)
    ));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Closing(EndReason::StdoutFailed(error)) if error.contains("os error 5")
    )));
    assert!(
        !ev.iter().any(|e| matches!(e, Event::LineError(_))),
        "the partial line is dropped"
    );
    assert!(stdin_closed(&mut s));
    s.handle_stdout(now, b"{}\n");
    s.handle_exit(now, ExitStatusInfo::code(0));
    assert!(matches!(
        events(&mut s).last(),
        Some(Event::Finished(Termination::Ended(
            EndReason::StdoutFailed(_)
        )))
    ));
}

#[test]
fn bad_lines_are_reported_and_the_session_goes_on() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.limits.max_line_bytes = 100;
    let (mut s, now) = started(config);
    feed(&mut s, now, "[SandboxDebug] hello");
    feed(&mut s, now, "\u{1b}[31m{\"type\":\"x\"}");
    let long = format!(r#"{{"type":"x","pad":"{}"}}"#, "a".repeat(150));
    feed(&mut s, now, &long);
    s.handle_stdout(now, &[0xff, 0xfe, b'\n']);
    feed(&mut s, now, &success("req_0", "{}"));
    let ev = events(&mut s);
    assert!(
        matches!(&ev[0], Event::LineError(LineError::NotJson { snippet, .. }) if snippet == "[SandboxDebug] hello")
    );
    assert!(matches!(
        &ev[1],
        Event::LineError(LineError::NotJson { .. })
    ));
    assert!(
        matches!(&ev[2], Event::LineError(LineError::TooLong { len, limit: 100 }) if *len == long.len())
    );
    assert!(
        matches!(&ev[3], Event::LineError(LineError::NotJson { error, .. }) if error.contains("invalid utf-8 sequence of 1 bytes from index 0")),
        "{:?}",
        ev[3]
    );
    assert!(
        matches!(&ev[4], Event::RequestDone { outcome: Ok(_), .. }),
        "{ev:?}"
    );
}

#[test]
fn unknown_message_kinds_pass_through_raw() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    let line = r#"{"type":"brand_new_kind","x":[1,2,{"y":null}]}"#;
    feed(&mut s, now, line);
    match &events(&mut s)[..] {
        [Event::Message(m)] => assert_eq!(m.raw_json(), line),
        other => panic!("{other:?}"),
    }
}

#[test]
fn keep_alive_is_consumed() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, r#"{"type":"keep_alive"}"#);
    assert!(events(&mut s).is_empty());
}

#[test]
fn unknown_inbound_subtype_and_unconfigured_callbacks_are_refused() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(
        &mut s,
        now,
        r#"{"type":"control_request","request_id":"u1","request":{"subtype":"oauth_token_refresh"}}"#,
    );
    feed(
        &mut s,
        now,
        r#"{"type":"control_request","request_id":"u2","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"t"}}"#,
    );
    feed(
        &mut s,
        now,
        r#"{"type":"control_request","request_id":"u3","request":{"subtype":"hook_callback","callback_id":"hook_9","input":{}}}"#,
    );
    feed(
        &mut s,
        now,
        r#"{"type":"control_request","request_id":"u4","request":{"subtype":"elicitation","mcp_server_name":"s","message":"m"}}"#,
    );
    assert!(events(&mut s).is_empty());
    let written = lines(s.poll_transmit());
    assert_eq!(
        written[0],
        serde_json::json!({"type":"control_response","response":{"subtype":"error","request_id":"u1","error":"Unsupported control request subtype: oauth_token_refresh","error_code":"unsupported_request"}})
    );
    assert_eq!(
        written[1]["response"]["error"],
        "canUseTool callback is not provided"
    );
    assert_eq!(
        written[2]["response"]["error"],
        "No hook callback found for ID: hook_9"
    );
    assert_eq!(
        written[3]["response"],
        serde_json::json!({"subtype":"success","request_id":"u4","response":{"action":"decline"}})
    );
}

fn permission_config() -> SessionConfig {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.can_use_tool = true;
    config
}

const CAN_USE_TOOL: &str = r#"{"type":"control_request","request_id":"p1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}"#;

#[test]
fn can_use_tool_is_surfaced_and_answered_once() {
    let (mut s, now) = started(permission_config());
    feed(&mut s, now, CAN_USE_TOOL);
    let id = match &events(&mut s)[..] {
        [Event::Inbound(req)] => {
            assert_eq!(req.wire_id, "p1");
            match &req.kind {
                InboundKind::CanUseTool(p) => {
                    assert_eq!(p.tool_name, "Bash");
                    assert_eq!(p.tool_input.as_str(), r#"{"command":"ls"}"#);
                }
                other => panic!("{other:?}"),
            }
            req.id
        }
        other => panic!("{other:?}"),
    };
    // The same request again while open is ignored.
    feed(&mut s, now, CAN_USE_TOOL);
    assert!(events(&mut s).is_empty());
    let wrong = s.respond(now, id, Reply::Hook(Default::default()));
    assert!(matches!(wrong, Err(RespondError::WrongKind { .. })));
    s.respond(now, id, Reply::error("no")).unwrap();
    assert_eq!(
        s.respond(now, id, Reply::error("again")),
        Err(RespondError::UnknownId)
    );
    let written = lines(s.poll_transmit());
    assert_eq!(written.len(), 1);
    assert_eq!(written[0]["response"]["request_id"], "p1");
    assert_eq!(written[0]["response"]["error"], "no");
}

/// Requests written as the CLI writes them are read in one pass; the same requests with their
/// keys in another order take the full reading. Both give the same events and the same answers,
/// for well-formed requests and for broken ones alike.
#[test]
fn a_request_read_in_one_pass_is_read_as_the_full_reading_reads_it() {
    let config = || {
        let mut config = permission_config();
        config.hooks.push(HookMatcherConfig::new(
            crate::hooks::HookEvent::PreToolUse,
            None,
            1,
        ));
        config
            .mcp_servers
            .push(crate::mcp::McpServerSpec::new("calc", "1.0.0").tool(object_tool("add")));
        config
    };
    let request = |id: &str, body: &str| {
        format!(r#"{{"type":"control_request","request_id":"{id}","request":{body}}}"#)
    };
    let requests = [
        request("p1", r#"{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"t1"}"#),
        request("p1", r#"{"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"t1"}"#),
        request("h1", r#"{"subtype":"hook_callback","callback_id":"hook_0","input":{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"/t","cwd":"/w","tool_name":"Bash","tool_input":{},"tool_use_id":"t1"},"tool_use_id":"t1"}"#),
        request("h2", r#"{"subtype":"hook_callback","callback_id":"hook_7","input":{}}"#),
        request("m1", r#"{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{}}}}"#),
        request("m2", r#"{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#),
        // Broken bodies: each is refused with what is wrong with it.
        request("b1", r#"{"subtype":"can_use_tool","tool_name":7,"input":{}}"#),
        request("b2", r#"{"subtype":"hook_callback","input":{}}"#),
        request("b3", r#"{"subtype":"mcp_message","server_name":"calc"}"#),
        // A line cut short is not JSON: a line error, with no answer (which one depends on how
        // much of the line could be read, so this one is not compared with its reordering).
        r#"{"type":"control_request","request_id":"b4","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}"#.to_owned(),
    ];
    let read = |input: &mut dyn Iterator<Item = String>| {
        let (mut s, now) = started(config());
        let mut seen = Vec::new();
        for line in input {
            feed(&mut s, now, &line);
            let written = match s.poll_transmit() {
                None => Vec::new(),
                write => lines(write),
            };
            seen.push((format!("{:?}", events(&mut s)), written));
        }
        seen
    };
    let reordered = requests.iter().map(|line| {
        let rest = line
            .strip_prefix(r#"{"type":"control_request","request_id":""#)
            .unwrap();
        let (id, rest) = rest.split_once('"').unwrap();
        format!(r#"{{"request_id":"{id}","type":"control_request"{rest}"#)
    });
    let one_pass = read(&mut requests.iter().cloned());
    let full = read(&mut reordered.into_iter());
    for ((line, one), full) in requests.iter().zip(&one_pass).zip(&full).take(9) {
        assert_eq!(one, full, "{line}");
    }
    assert!(one_pass[0].0.contains("CanUseTool"), "{:?}", one_pass[0]);
    assert_eq!(
        one_pass[1],
        (String::from("[]"), vec![]),
        "a repeated id is ignored"
    );
    assert!(one_pass[2].0.contains("HookCallback"), "{:?}", one_pass[2]);
    assert!(one_pass[4].0.contains("McpToolCall"), "{:?}", one_pass[4]);
    assert_eq!(one_pass[5].1[0]["response"]["request_id"], "m2");
    for (i, what) in [
        (6, "can_use_tool"),
        (7, "hook_callback"),
        (8, "mcp_message"),
    ] {
        let error = one_pass[i].1[0]["response"]["error"].as_str().unwrap();
        assert!(
            error.starts_with(&format!("malformed {what} request")),
            "{error}"
        );
    }
    assert!(one_pass[9].0.contains("Malformed"), "{:?}", one_pass[9]);
    assert!(one_pass[9].1.is_empty());
}

/// The official SDKs ask the callback even when the CLI names no tool use; the answer then
/// names none either.
#[test]
fn can_use_tool_without_a_tool_use_id_is_still_asked() {
    let (mut s, now) = started(permission_config());
    feed(
        &mut s,
        now,
        r#"{"type":"control_request","request_id":"p1","request":{"subtype":"can_use_tool","tool_name":"Read","input":{"file_path":"/a"}}}"#,
    );
    let id = match &events(&mut s)[..] {
        [Event::Inbound(req)] => match &req.kind {
            InboundKind::CanUseTool(ask) => {
                assert_eq!(
                    (ask.tool_name.as_str(), ask.tool_use_id.as_str()),
                    ("Read", "")
                );
                req.id
            }
            other => panic!("{other:?}"),
        },
        other => panic!("the callback is asked: {other:?}"),
    };
    assert!(s.poll_transmit().is_none(), "no refusal was written");
    let allow = crate::permission::PermissionResult::allow().with_tool_use_id("");
    s.respond(now, id, Reply::Permission(allow)).unwrap();
    let answer = lines(s.poll_transmit());
    assert_eq!(
        answer[0]["response"]["response"],
        serde_json::json!({"behavior":"allow","updatedInput":{"file_path":"/a"}})
    );
}

/// Each message written owes a run of its own: after the first message's run ended (its
/// result, then `idle`), a second message and the end of input keep stdin open until that
/// message's own result and `idle`, as the official SDKs wait for the last prompt's run.
#[test]
fn a_new_message_opens_an_ended_run_again() {
    let (mut s, now) = started(permission_config());
    s.send_user(now, UserInput::text("one")).unwrap();
    feed(&mut s, now, &state("running"));
    feed(&mut s, now, RESULT_OK);
    feed(&mut s, now, &state("idle"));
    s.send_user(now, UserInput::text("two")).unwrap();
    s.end_input(now);
    assert!(!stdin_closed(&mut s), "the second message's run is owed");
    feed(&mut s, now, &state("running"));
    feed(&mut s, now, ASSISTANT);
    feed(&mut s, now, RESULT_OK);
    assert!(!stdin_closed(&mut s), "still running after its result");
    feed(&mut s, now, &state("idle"));
    assert!(stdin_closed(&mut s));
}

/// The official SDKs stamp every user message they write `client_composed: true` when
/// verbatim prompts are on, overwriting what the message said.
#[test]
fn verbatim_prompts_stamp_every_user_message() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.verbatim_prompts = true;
    let (mut s, now) = started(config);
    s.send_user(now, UserInput::text("@/etc/passwd")).unwrap();
    s.send_user(now, UserInput::text("x").with_client_composed(false))
        .unwrap();
    let written = lines(s.poll_transmit());
    assert_eq!(written.len(), 2);
    assert!(
        written.iter().all(|l| l["client_composed"] == true),
        "{written:?}"
    );

    let (mut plain, now) = started(SessionConfig::new(InputMode::Streaming));
    plain.send_user(now, UserInput::text("hi")).unwrap();
    assert!(lines(plain.poll_transmit())[0]
        .get("client_composed")
        .is_none());
}

#[test]
fn cancel_withdraws_an_inbound_request_and_no_reply_is_written() {
    let (mut s, now) = started(permission_config());
    feed(&mut s, now, CAN_USE_TOOL);
    let Some(Event::Inbound(req)) = s.poll_event() else {
        panic!()
    };
    feed(
        &mut s,
        now,
        r#"{"type":"control_cancel_request","request_id":"p1"}"#,
    );
    assert!(matches!(&events(&mut s)[..], [Event::Cancelled(id)] if *id == req.id));
    assert_eq!(
        s.respond(now, req.id, Reply::error("late")),
        Err(RespondError::Cancelled)
    );
    assert_eq!(s.poll_transmit(), None);
}

#[test]
fn end_input_with_nothing_sent_closes_stdin_at_once() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    s.end_input(now);
    assert_eq!(s.poll_transmit(), Some(Transmit::CloseStdin));
    assert_eq!(s.poll_transmit(), None);
    assert_eq!(
        s.request(now, ControlRequest::Interrupt),
        Err(RequestError::InputClosed)
    );
    assert_eq!(
        s.send_user(now, UserInput::text("x")),
        Err(SendError::InputEnded)
    );
}

#[test]
fn stdin_stays_open_while_an_inbound_request_is_unanswered() {
    let (mut s, now) = started(permission_config());
    s.end_input(now);
    feed(&mut s, now, CAN_USE_TOOL);
    // Nothing was sent, so the run is over, but the CLI is waiting for our answer.
    let Some(Event::Inbound(req)) = s.poll_event() else {
        panic!()
    };
    assert_eq!(
        s.poll_transmit(),
        Some(Transmit::CloseStdin),
        "closing was decided before the request came"
    );
    assert_eq!(
        s.respond(now, req.id, Reply::error("x")),
        Err(RespondError::InputClosed)
    );
}

#[test]
fn close_by_host_fails_pending_and_finishes_as_closed() {
    let (mut s, now) = started(permission_config());
    feed(&mut s, now, CAN_USE_TOOL);
    let Some(Event::Inbound(req)) = s.poll_event() else {
        panic!()
    };
    s.close(now);
    let ev = events(&mut s);
    assert!(matches!(
        &ev[0],
        Event::RequestDone {
            outcome: Err(RequestFailure::Closed(CloseCause::ClosedByHost)),
            ..
        }
    ));
    assert!(matches!(&ev[1], Event::Cancelled(id) if *id == req.id));
    assert_eq!(s.poll_transmit(), Some(Transmit::CloseStdin));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::signal(15));
    assert!(matches!(
        &events(&mut s)[..],
        [Event::Finished(Termination::ClosedByHost)]
    ));
}

#[test]
fn full_event_queue_stops_reading_without_losing_anything() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.limits.max_queued_events = 3;
    let (mut s, now) = started(config);
    let mut text = String::new();
    for i in 0..10 {
        text.push_str(&format!("{{\"type\":\"k{i}\"}}\n"));
    }
    s.handle_stdout(now, text.as_bytes());
    assert!(!s.wants_read());
    let ev = events(&mut s);
    assert_eq!(ev.len(), 10, "back-pressure never drops");
    assert!(s.wants_read());
}

#[test]
fn too_many_pending_requests_are_refused() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.limits.max_pending_requests = 2;
    let (mut s, now) = started(config);
    s.request(now, ControlRequest::Interrupt).unwrap();
    assert_eq!(
        s.request(now, ControlRequest::Interrupt),
        Err(RequestError::TooManyPending(2))
    );
}

#[test]
fn pending_permission_requests_in_the_initialize_answer_are_served() {
    let (mut s, now) = started(permission_config());
    let body = format!(r#"{{"commands":[]}},"pending_permission_requests":[{CAN_USE_TOOL}]"#);
    feed(&mut s, now, &success("req_0", &body));
    let ev = events(&mut s);
    assert!(matches!(&ev[0], Event::RequestDone { outcome: Ok(_), .. }));
    assert!(matches!(&ev[1], Event::Ready));
    assert!(matches!(&ev[2], Event::Inbound(r) if r.wire_id == "p1"));
}

const USER_DIALOG: &str = r#"{"type":"control_request","request_id":"d1","request":{"subtype":"request_user_dialog","dialog_kind":"refusal_fallback_prompt","payload":{"fallbackModel":"m2"},"tool_use_id":"toolu_1"}}"#;

#[test]
fn a_user_dialog_goes_to_the_host_and_its_answer_to_the_cli() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.user_dialog = true;
    let (mut s, now) = started(config);
    feed(&mut s, now, USER_DIALOG);
    let request = match events(&mut s).pop() {
        Some(Event::Inbound(request)) => request,
        other => panic!("expected a dialog, got {other:?}"),
    };
    let InboundKind::UserDialog(dialog) = &request.kind else {
        panic!("{request:?}")
    };
    assert_eq!(dialog.dialog_kind, "refusal_fallback_prompt");
    assert_eq!(dialog.payload.as_str(), r#"{"fallbackModel":"m2"}"#);
    assert_eq!(dialog.tool_use_id.as_deref(), Some("toolu_1"));
    assert_eq!(
        s.respond(
            now,
            request.id,
            Reply::Hook(crate::hooks::HookOutput::default())
        ),
        Err(RespondError::WrongKind {
            reply: "hook output",
            request: "request_user_dialog"
        })
    );
    let choice = r#"{"choice":"retry"}"#.parse::<crate::Json>().unwrap();
    s.respond(
        now,
        request.id,
        Reply::UserDialog(crate::control::UserDialogResult::completed(choice)),
    )
    .unwrap();
    let answer = lines(s.poll_transmit());
    assert_eq!(
        answer[0],
        serde_json::json!({"type":"control_response","response":{"subtype":"success","request_id":"d1",
            "response":{"behavior":"completed","result":{"choice":"retry"}}}})
    );
}

#[test]
fn a_user_dialog_without_a_callback_is_refused() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, USER_DIALOG);
    assert!(events(&mut s).is_empty());
    let answer = lines(s.poll_transmit());
    assert_eq!(answer[0]["response"]["subtype"], "error");
    assert_eq!(
        answer[0]["response"]["error"],
        "no user dialog callback is registered"
    );
}

#[test]
fn pending_user_dialogs_in_the_initialize_answer_are_served() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.user_dialog = true;
    let (mut s, now) = started(config);
    let body = format!(r#"{{"commands":[]}},"pending_user_dialog_requests":[{USER_DIALOG}]"#);
    feed(&mut s, now, &success("req_0", &body));
    let ev = events(&mut s);
    assert!(matches!(&ev[0], Event::RequestDone { outcome: Ok(_), .. }));
    assert!(matches!(&ev[1], Event::Ready));
    assert!(matches!(&ev[2], Event::Inbound(r) if r.wire_id == "d1"));
    // Redelivered again (a second initialize): the dialog is still open, so it is not asked twice.
    let again = s.request(now, ControlRequest::Reinitialize).unwrap();
    let _ = s.poll_transmit();
    feed(&mut s, now, &success(&again.to_string(), &body));
    let ev = events(&mut s);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert!(matches!(&ev[0], Event::RequestDone { id, .. } if *id == again));
}

const RESULT_OK: &str = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"hi","session_id":"s"}"#;
const RESULT_MAX_TURNS: &str = r#"{"subtype":"error_max_turns","is_error":true,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"errors":["Reached maximum number of turns (1)"],"terminal_reason":"max_turns","session_id":"s","type":"result"}"#;
const ASSISTANT: &str = r#"{"type":"assistant","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#;

fn state(s: &str) -> String {
    format!(
        r#"{{"type":"system","subtype":"session_state_changed","state":"{s}","sdk_host_only":true,"session_id":"s","uuid":"u"}}"#
    )
}

fn stdin_closed(s: &mut Session) -> bool {
    std::iter::from_fn(|| s.poll_transmit()).any(|t| t == Transmit::CloseStdin)
}

#[test]
fn single_turn_without_callbacks_closes_stdin_at_the_result() {
    let (mut s, now) = started(SessionConfig::new(InputMode::SingleTurn));
    s.send_user(now, UserInput::text("hi")).unwrap();
    assert_eq!(
        s.send_user(now, UserInput::text("again")),
        Err(SendError::InputEnded)
    );
    feed(&mut s, now, ASSISTANT);
    assert!(!stdin_closed(&mut s));
    feed(&mut s, now, RESULT_OK);
    assert!(stdin_closed(&mut s));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    let ev = events(&mut s);
    assert!(matches!(
        ev.last(),
        Some(Event::Finished(Termination::Completed))
    ));
}

/// A message that starts no turn (`shouldQuery: false`) is answered with a result of no turn
/// (CLI 2.1.332), so it keeps the run open until that result like any message.
#[test]
fn a_message_that_starts_no_turn_waits_for_its_result() {
    let note = UserInput::text("the user is on the staging account").with_should_query(false);
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    s.send_user(now, note).unwrap();
    s.end_input(now);
    assert!(!stdin_closed(&mut s));
    feed(
        &mut s,
        now,
        r#"{"type":"result","subtype":"success","is_error":false,"num_turns":0,"result":"","session_id":"s"}"#,
    );
    assert!(stdin_closed(&mut s), "its result ends the run");
}

#[test]
fn with_callbacks_stdin_waits_for_idle_and_host_only_state_frames_are_consumed() {
    let mut config = permission_config();
    config.input = InputMode::SingleTurn;
    let (mut s, now) = started(config);
    s.send_user(now, UserInput::text("hi")).unwrap();
    feed(&mut s, now, &state("running"));
    feed(&mut s, now, ASSISTANT);
    feed(&mut s, now, RESULT_OK);
    assert!(
        !stdin_closed(&mut s),
        "a background turn may still ask for permission"
    );
    assert!(s.poll_timeout().is_some(), "the run-end ceiling is armed");
    feed(&mut s, now, &state("idle"));
    assert!(stdin_closed(&mut s));
    let kinds: Vec<String> = events(&mut s)
        .iter()
        .map(|e| match e {
            Event::Message(m) => crate::message::peek_tags(m.raw_json())
                .unwrap()
                .ty
                .to_owned(),
            _ => "other".to_owned(),
        })
        .collect();
    assert_eq!(
        kinds,
        ["assistant", "result"],
        "sdk_host_only frames are not passed on"
    );
}

#[test]
fn a_second_turn_the_cli_starts_itself_keeps_stdin_open_until_its_result() {
    let mut config = permission_config();
    config.input = InputMode::SingleTurn;
    let (mut s, now) = started(config);
    s.send_user(now, UserInput::text("run in background"))
        .unwrap();
    feed(&mut s, now, &task_started("a1", Some("local_agent")));
    feed(&mut s, now, RESULT_OK);
    assert!(
        !stdin_closed(&mut s),
        "the background agent is still running"
    );
    feed(
        &mut s,
        now,
        r#"{"type":"system","subtype":"task_notification","task_id":"a1","status":"completed","output_file":"/tmp/o","summary":"done","session_id":"s","uuid":"u"}"#,
    );
    feed(&mut s, now, ASSISTANT);
    feed(&mut s, now, CAN_USE_TOOL);
    let Some(Event::Inbound(req)) = events(&mut s)
        .into_iter()
        .find(|e| matches!(e, Event::Inbound(_)))
    else {
        panic!("the second turn's permission prompt reaches the host")
    };
    s.respond(now, req.id, Reply::error("no")).unwrap();
    assert!(!stdin_closed(&mut s));
    feed(&mut s, now, RESULT_OK);
    assert!(stdin_closed(&mut s));
}

/// A `task_started` line as CLI 2.1.332 prints it (`task_type` absent when `None`).
fn task_started(id: &str, task_type: Option<&str>) -> String {
    let ty = task_type.map_or(String::new(), |t| format!(r#","task_type":"{t}""#));
    format!(
        r#"{{"type":"system","subtype":"task_started","task_id":"{id}","description":"wait"{ty},"session_id":"s","uuid":"u"}}"#
    )
}

/// A single prompt with a permission callback whose turn started `task` in the background, up
/// to the CLI's `idle` after the result, as CLI 2.1.332 reports a background shell.
fn idle_after_background(task: &str) -> (Session, Instant) {
    let mut config = permission_config();
    config.input = InputMode::SingleTurn;
    let (mut s, now) = started(config);
    feed(&mut s, now, &success("req_0", "{}"));
    s.send_user(now, UserInput::text("start it")).unwrap();
    feed(&mut s, now, &state("running"));
    feed(&mut s, now, ASSISTANT);
    feed(&mut s, now, task);
    feed(&mut s, now, RESULT_OK);
    feed(&mut s, now, &state("idle"));
    (s, now)
}

/// A background shell can run for as long as the session lives (a dev server): waiting for it
/// would hold stdin open until the ceiling. The official SDKs wait only for background agents
/// (`local_agent`, `local_workflow`); the CLI settles its shells itself once its input ends.
#[test]
fn a_background_shell_does_not_hold_stdin_open() {
    let (mut s, _) = idle_after_background(&task_started("b1", Some("local_bash")));
    assert!(stdin_closed(&mut s));
}

/// With its input ended, CLI 2.1.332 still waits for a background shell before it exits, past
/// its own ceiling: the session bounds that wait by the ceiling, counted from the CLI's last
/// turn, and then ends the CLI. A turn the CLI takes up meanwhile (a shell that finished) stops
/// the clock.
#[test]
fn a_cli_waiting_on_background_work_past_the_ceiling_is_ended() {
    let (mut s, now) = idle_after_background(&task_started("b1", Some("local_bash")));
    assert!(stdin_closed(&mut s));
    let ceiling = Duration::from_secs(600);
    assert_eq!(s.poll_timeout(), Some(now + ceiling));
    // The shell ended: its notification wakes the CLI for a turn.
    let woken = now + Duration::from_secs(100);
    feed(&mut s, woken, &state("running"));
    assert_eq!(s.poll_timeout(), None, "no clock while the CLI works");
    feed(&mut s, woken, ASSISTANT);
    feed(&mut s, woken, RESULT_OK);
    feed(&mut s, woken, &state("idle"));
    assert_eq!(s.poll_timeout(), Some(woken + ceiling));
    events(&mut s);
    s.handle_timeout(woken + ceiling);
    let closing: Vec<_> = events(&mut s)
        .into_iter()
        .filter(|e| matches!(e, Event::Closing(_)))
        .collect();
    assert!(
        matches!(&closing[..], [Event::Closing(EndReason::BackgroundWaitPassed(c))] if *c == ceiling),
        "{closing:?}"
    );
    s.handle_stdout_eof(woken + ceiling);
    s.handle_exit(woken + ceiling, ExitStatusInfo::code(143));
    assert!(matches!(
        events(&mut s).last(),
        Some(Event::Finished(Termination::Ended(
            EndReason::BackgroundWaitPassed(_)
        )))
    ));
}

#[test]
fn with_no_ceiling_the_cli_waits_on_its_background_work_as_long_as_it_runs() {
    let mut config = permission_config();
    config.input = InputMode::SingleTurn;
    config.timeouts.run_end_ceiling = None;
    let (mut s, now) = started(config);
    feed(&mut s, now, &success("req_0", "{}"));
    s.send_user(now, UserInput::text("start it")).unwrap();
    feed(&mut s, now, &task_started("b1", Some("local_bash")));
    feed(&mut s, now, RESULT_OK);
    feed(&mut s, now, &state("idle"));
    assert!(stdin_closed(&mut s));
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn a_task_of_no_type_or_a_monitor_does_not_hold_stdin_open() {
    for task in [
        task_started("t1", None),
        task_started("m1", Some("monitor_mcp")),
    ] {
        let (mut s, _) = idle_after_background(&task);
        assert!(stdin_closed(&mut s), "{task}");
    }
}

#[test]
fn a_background_agent_holds_stdin_open_until_it_ends() {
    let (mut s, now) = idle_after_background(&task_started("a1", Some("local_agent")));
    assert!(!stdin_closed(&mut s));
    feed(
        &mut s,
        now,
        r#"{"type":"system","subtype":"task_updated","task_id":"a1","patch":{"status":"completed"},"session_id":"s","uuid":"u"}"#,
    );
    feed(&mut s, now, &state("running"));
    feed(&mut s, now, ASSISTANT);
    feed(&mut s, now, RESULT_OK);
    assert!(
        !stdin_closed(&mut s),
        "the woken turn's result, not yet idle"
    );
    feed(&mut s, now, &state("idle"));
    assert!(stdin_closed(&mut s));
}

/// `background_tasks_changed` lists only the tasks in the background; a subagent started in
/// the foreground is not in it. The official SDKs leave the tasks they track from their own
/// frames alone, so an empty snapshot does not close stdin under a running agent.
#[test]
fn an_empty_background_snapshot_does_not_drop_a_running_agent() {
    let mut config = permission_config();
    config.input = InputMode::SingleTurn;
    let (mut s, now) = started(config);
    s.send_user(now, UserInput::text("ask the reviewer"))
        .unwrap();
    feed(&mut s, now, &task_started("a1", Some("local_agent")));
    feed(
        &mut s,
        now,
        r#"{"type":"system","subtype":"background_tasks_changed","tasks":[],"session_id":"s","uuid":"u"}"#,
    );
    feed(&mut s, now, RESULT_OK);
    feed(&mut s, now, &state("idle"));
    assert!(!stdin_closed(&mut s), "the agent has not ended");
}

/// After `idle`, a finished background task wakes the CLI (`running`) for a turn of its own.
/// The official SDKs open the run again, so the host's end of input right after the wake does
/// not close stdin under that turn's permission prompt.
#[test]
fn a_wake_after_idle_keeps_stdin_open_for_the_turn_it_starts() {
    let (mut s, now) = started(permission_config());
    s.send_user(now, UserInput::text("start it")).unwrap();
    feed(&mut s, now, &state("running"));
    feed(&mut s, now, ASSISTANT);
    feed(&mut s, now, RESULT_OK);
    feed(&mut s, now, &state("idle"));
    feed(&mut s, now, &state("running"));
    s.end_input(now);
    assert!(!stdin_closed(&mut s), "the woken turn may still ask");
    feed(&mut s, now, &state("requires_action"));
    feed(&mut s, now, CAN_USE_TOOL);
    let Some(Event::Inbound(req)) = events(&mut s)
        .into_iter()
        .find(|e| matches!(e, Event::Inbound(_)))
    else {
        panic!("the woken turn's permission prompt reaches the host")
    };
    s.respond(now, req.id, Reply::error("no")).unwrap();
    let answered = lines(s.poll_transmit());
    assert_eq!(answered[0]["response"]["request_id"], "p1");
    feed(&mut s, now, &state("running"));
    feed(&mut s, now, RESULT_OK);
    assert!(!stdin_closed(&mut s));
    feed(&mut s, now, &state("idle"));
    assert!(stdin_closed(&mut s));
}

#[test]
fn exit_1_after_an_error_result_reports_that_result() {
    let (mut s, now) = started(SessionConfig::new(InputMode::SingleTurn));
    s.send_user(now, UserInput::text("hi")).unwrap();
    feed(&mut s, now, RESULT_MAX_TURNS);
    feed(&mut s, now, &state("idle"));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    match events(&mut s).last() {
        Some(Event::Finished(Termination::ErrorResult(e))) => {
            assert_eq!(e.subtype, "error_max_turns");
            assert_eq!(e.message, "Reached maximum number of turns (1)");
            assert_eq!(e.terminal_reason.as_deref(), Some("max_turns"));
            assert_eq!(e.exit, ExitStatusInfo::code(1));
        }
        other => panic!("{other:?}"),
    }
}

/// What a single-prompt session that ends with `result` and exit 1 reports.
fn end_after_result(result: &str) -> (Vec<Event>, Option<Termination>) {
    let (mut s, now) = started(SessionConfig::new(InputMode::SingleTurn));
    s.send_user(now, UserInput::text("hi")).unwrap();
    feed(&mut s, now, result);
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    let events = events(&mut s);
    let end = events.iter().find_map(|e| match e {
        Event::Finished(t) => Some(t.clone()),
        _ => None,
    });
    (events, end)
}

fn error_result_text(end: Option<Termination>) -> String {
    match end {
        Some(Termination::ErrorResult(e)) => e.message,
        other => panic!("expected the result's error, got {other:?}"),
    }
}

/// The official SDKs keep a result whose `errors` is one string, or holds blank or non-string
/// entries, or whose `api_error_status` is a string: the message is delivered as a result, and
/// the exit 1 after it is that result's error, not a bare process failure.
#[test]
fn an_error_result_of_loose_shape_is_still_the_result_and_its_error() {
    let (events, end) = end_after_result(
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"errors":"the tool crashed","api_error_status":"500","session_id":"s"}"#,
    );
    let result = events
        .iter()
        .find_map(|e| match e {
            Event::Message(Message::Result(r)) => Some(r.clone()),
            _ => None,
        })
        .expect("delivered as a result");
    assert_eq!(result.errors, ["the tool crashed"]);
    assert_eq!(result.api_error_status, Some(500));
    assert!(!events.iter().any(|e| matches!(e, Event::LineError(_))));
    assert_eq!(error_result_text(end), "the tool crashed");

    let (_, end) = end_after_result(
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["  ", 3, null, " a  "],"session_id":"s"}"#,
    );
    assert_eq!(error_result_text(end), "a");
}

/// With no usable `errors`, the official SDKs name the failure by the result text, then a
/// subtype other than `success`, then the HTTP status: never an empty message.
#[test]
fn an_error_result_with_blank_errors_is_named_by_what_it_has() {
    let text = |json: &str| error_result_text(end_after_result(json).1);
    assert_eq!(
        text(
            r#"{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["", "   "],"session_id":"s"}"#
        ),
        "error_max_turns"
    );
    assert_eq!(
        text(
            r#"{"type":"result","subtype":"success","is_error":true,"result":"  API Error: 529 overloaded ","api_error_status":529,"session_id":"s"}"#
        ),
        "API Error: 529 overloaded"
    );
    assert_eq!(
        text(
            r#"{"type":"result","subtype":"success","is_error":true,"result":"","api_error_status":"503","session_id":"s"}"#
        ),
        "API error (HTTP 503)"
    );
    assert_eq!(
        text(r#"{"type":"result","subtype":"success","is_error":true,"session_id":"s"}"#),
        "unknown error"
    );
}

/// A `task_updated` whose `patch` is not an object is still a `task_updated`; and a terminal
/// status in a patch whose other fields do not fit still ends the task for the run-end rule.
#[test]
fn a_task_update_of_loose_shape_is_kept_and_its_status_read() {
    for patch in [r#""done""#, "[1]", "7", "null"] {
        let (mut s, now) = started(permission_config());
        feed(
            &mut s,
            now,
            &format!(
                r#"{{"type":"system","subtype":"task_updated","task_id":"a1","patch":{patch},"session_id":"s","uuid":"u"}}"#
            ),
        );
        let events = events(&mut s);
        assert!(
            matches!(&events[..], [Event::Message(m)] if matches!(m, Message::System(SystemMessage::TaskUpdated(_)))),
            "{patch}: {events:?}"
        );
    }
    let (mut s, now) = idle_after_background(&task_started("a1", Some("local_agent")));
    assert!(!stdin_closed(&mut s));
    feed(
        &mut s,
        now,
        r#"{"type":"system","subtype":"task_updated","task_id":"a1","patch":{"status":"completed","error":{"code":1},"end_time":"soon"},"session_id":"s","uuid":"u"}"#,
    );
    feed(&mut s, now, &state("idle"));
    assert!(stdin_closed(&mut s), "the agent's terminal status was read");
}

#[test]
fn exit_1_after_an_error_result_and_the_lifecycle_frame_of_its_message_reports_that_result() {
    // A user message with a uuid (every message `Client::send` writes) gets `command_lifecycle`
    // frames; its `completed` comes after the turn's result.
    let (mut s, now) = started(SessionConfig::new(InputMode::SingleTurn));
    s.send_user(now, UserInput::text("hi").with_uuid("u-1"))
        .unwrap();
    feed(&mut s, now, RESULT_MAX_TURNS);
    feed(
        &mut s,
        now,
        r#"{"type":"command_lifecycle","command_uuid":"u-1","state":"completed","uuid":"c","session_id":"s"}"#,
    );
    feed(&mut s, now, &state("idle"));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    assert!(
        matches!(events(&mut s).last(), Some(Event::Finished(Termination::ErrorResult(e))) if e.subtype == "error_max_turns")
    );
}

/// A turn that gave up on the API ends with an error result that carries the CLI's class of the
/// failure, from the synthetic assistant message before it; an earlier turn's failure does not
/// carry over.
#[test]
fn an_error_result_carries_the_failed_api_call_of_its_turn() {
    let (mut s, now) = started(SessionConfig::new(InputMode::SingleTurn));
    s.send_user(now, UserInput::text("hi")).unwrap();
    feed(
        &mut s,
        now,
        r#"{"type":"assistant","message":{"id":"m","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 529 overloaded"}]},"error":"overloaded","is_api_error_message":true,"api_error_status":529,"api_error_type":"overloaded_error","parent_tool_use_id":null,"session_id":"s","uuid":"a"}"#,
    );
    feed(
        &mut s,
        now,
        r#"{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"API Error: 529 overloaded","api_error_status":529,"api_error_type":"overloaded_error","terminal_reason":"api_error","session_id":"s"}"#,
    );
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    let Some(Event::Finished(Termination::ErrorResult(error))) = events(&mut s).pop() else {
        panic!("not an error result");
    };
    assert_eq!(error.api_error, Some(ApiError::Overloaded));
    assert_eq!(error.api_error_type.as_deref(), Some("overloaded_error"));
    assert!(error.api_error.unwrap().may_pass_on_retry());

    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    s.send_user(now, UserInput::text("hi")).unwrap();
    feed(
        &mut s,
        now,
        r#"{"type":"assistant","message":{"id":"m","model":"<synthetic>","role":"assistant","content":[]},"error":"rate_limit","session_id":"s","uuid":"a"}"#,
    );
    feed(
        &mut s,
        now,
        r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"ok","session_id":"s"}"#,
    );
    s.send_user(now, UserInput::text("again")).unwrap();
    feed(&mut s, now, RESULT_MAX_TURNS);
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    let Some(Event::Finished(Termination::ErrorResult(error))) = events(&mut s).pop() else {
        panic!("not an error result");
    };
    assert_eq!(error.api_error, None);
}

#[test]
fn exit_1_after_initialize_is_answered_is_a_process_failure() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &success("req_0", "{}"));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    assert!(matches!(
        events(&mut s).last(),
        Some(Event::Finished(Termination::ProcessFailed(exit))) if exit.code == Some(1)
    ));
}

#[test]
fn a_start_up_failure_result_after_initialize_is_still_a_failed_start() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &success("req_0", "{}"));
    feed(
        &mut s,
        now,
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"errors":["not signed in"],"startup_failure_reason":"gateway_signin_required","session_id":"s"}"#,
    );
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    let Some(Event::Finished(Termination::StartFailed(failure))) = events(&mut s).pop() else {
        panic!("not a failed start");
    };
    assert_eq!(
        failure.reason,
        Some(crate::message::StartupFailureReason::GatewaySigninRequired)
    );
    assert_eq!(failure.message.as_deref(), Some("not signed in"));
}

#[test]
fn exit_1_after_later_output_is_a_process_failure() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    s.send_user(now, UserInput::text("hi")).unwrap();
    feed(&mut s, now, RESULT_MAX_TURNS);
    feed(&mut s, now, ASSISTANT);
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(1));
    assert!(matches!(
        events(&mut s).last(),
        Some(Event::Finished(Termination::ProcessFailed(_)))
    ));
}

#[test]
fn events_stay_small() {
    // Every message is moved through the event queue; a large variant would make each move costly.
    assert!(
        std::mem::size_of::<Event>() <= 80,
        "{}",
        std::mem::size_of::<Event>()
    );
}

#[test]
fn a_late_answer_to_a_timed_out_request_is_dropped_quietly() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.timeouts.control_request = Duration::from_secs(5);
    let (mut s, now) = started(config);
    let id = s.request(now, ControlRequest::Interrupt).unwrap();
    s.handle_timeout(now + Duration::from_secs(5));
    assert!(matches!(
        &events(&mut s)[..],
        [Event::RequestDone {
            outcome: Err(RequestFailure::Timeout(_)),
            ..
        }]
    ));
    // The CLI was only slow: its answer comes after we gave up.
    feed(&mut s, now, &success(&id.to_string(), "{}"));
    assert!(events(&mut s).is_empty(), "the late answer is dropped");
    // An id we never gave out is still reported.
    feed(&mut s, now, &success("req_99", "{}"));
    assert!(
        matches!(&events(&mut s)[..], [Event::LineError(LineError::UnmatchedResponse(id))] if id == "req_99")
    );
    // So is a second answer to a request that was answered.
    feed(&mut s, now, &success("req_0", "{}"));
    feed(&mut s, now, &success("req_0", "{}"));
    assert!(matches!(
        &events(&mut s)[..],
        [Event::RequestDone { outcome: Ok(_), .. }, Event::Ready, Event::LineError(LineError::UnmatchedResponse(id))] if id == "req_0"
    ));
}

#[test]
fn late_answers_to_requests_failed_by_close_or_exit_are_dropped_quietly() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    let id = s.request(now, ControlRequest::McpStatus).unwrap();
    s.close(now);
    assert_eq!(events(&mut s).len(), 2, "initialize and mcp_status failed");
    // The CLI answers before it notices stdin closed.
    feed(&mut s, now, &success("req_0", "{}"));
    feed(&mut s, now, &success(&id.to_string(), "{}"));
    assert!(events(&mut s).is_empty(), "{:?}", events(&mut s));

    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    let id = s.request(now, ControlRequest::McpStatus).unwrap();
    s.handle_exit(now, ExitStatusInfo::code(0));
    assert_eq!(events(&mut s).len(), 2);
    // stdout still holds what the CLI printed before it exited.
    feed(&mut s, now, &success(&id.to_string(), "{}"));
    assert!(events(&mut s).is_empty());
}

#[test]
fn only_the_most_recent_given_up_ids_are_remembered() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.timeouts.control_request = Duration::from_secs(1);
    let (mut s, mut now) = started(config);
    feed(&mut s, now, &success("req_0", "{}"));
    let mut given_up = Vec::new();
    for _ in 0..=REMEMBERED_GIVEN_UP {
        given_up.push(s.request(now, ControlRequest::Interrupt).unwrap());
        now += Duration::from_secs(1);
        s.handle_timeout(now);
    }
    assert_eq!(
        events(&mut s).len(),
        REMEMBERED_GIVEN_UP + 3,
        "initialize answered, ready, and each request given up"
    );
    // The oldest one was forgotten: its answer is reported like any unknown id.
    let oldest = given_up[0].to_string();
    feed(&mut s, now, &success(&oldest, "{}"));
    assert!(
        matches!(&events(&mut s)[..], [Event::LineError(LineError::UnmatchedResponse(id))] if *id == oldest)
    );
    for id in &given_up[1..] {
        feed(&mut s, now, &success(&id.to_string(), "{}"));
    }
    assert!(events(&mut s).is_empty());
}

/// 10,000 turns of everything that leaves state behind: a control request that times out and is
/// answered late, one that is answered, a permission prompt answered, one cancelled. Every table
/// of the session stays within its bound.
#[test]
fn ten_thousand_turns_leave_every_table_bounded() {
    let mut config = permission_config();
    config.timeouts.control_request = Duration::from_secs(1);
    let (mut s, mut now) = started(config);
    feed(&mut s, now, &success("req_0", "{}"));
    for turn in 0..10_000 {
        let slow = s.request(now, ControlRequest::Interrupt).unwrap();
        let quick = s.request(now, ControlRequest::McpStatus).unwrap();
        feed(&mut s, now, &success(&quick.to_string(), "{}"));
        now += Duration::from_secs(1);
        s.handle_timeout(now);
        feed(&mut s, now, &success(&slow.to_string(), "{}"));
        let ask = |id: &str| {
            CAN_USE_TOOL.replace(r#""request_id":"p1""#, &format!(r#""request_id":"{id}""#))
        };
        feed(&mut s, now, &ask(&format!("a{turn}")));
        feed(&mut s, now, &ask(&format!("c{turn}")));
        feed(
            &mut s,
            now,
            &format!(r#"{{"type":"control_cancel_request","request_id":"c{turn}"}}"#),
        );
        for event in events(&mut s) {
            match event {
                Event::Inbound(request) if request.wire_id.starts_with('a') => {
                    s.respond(now, request.id, Reply::error("no")).unwrap();
                }
                Event::LineError(error) => panic!("turn {turn}: {error}"),
                _ => {}
            }
        }
        while s.poll_transmit().is_some() {}
    }
    assert_eq!(s.pending.len(), 0);
    assert_eq!(s.pending_inbound(), 0);
    assert!(
        s.given_up.len() <= REMEMBERED_GIVEN_UP,
        "{}",
        s.given_up.len()
    );
    assert!(s.inbound.remembered_cancels() <= 1024);
    assert!(s.events.is_empty());
}

#[test]
fn resource_reads_and_prompt_gets_go_to_the_host_and_their_answers_are_written() {
    use crate::mcp::{McpServerSpec, PromptResult, PromptSpec, ResourceResult, ResourceSpec};
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.mcp_servers.push(
        McpServerSpec::new("lib", "1.0.0")
            .resource(ResourceSpec::new("docs://readme", "README"))
            .prompt(PromptSpec::new("greet")),
    );
    let (mut s, now) = started(config);
    let mcp = |id: &str, message: &str| {
        format!(
            r#"{{"type":"control_request","request_id":"{id}","request":{{"subtype":"mcp_message","server_name":"lib","message":{message}}}}}"#
        )
    };
    feed(
        &mut s,
        now,
        &mcp(
            "m1",
            r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"docs://readme"}}"#,
        ),
    );
    feed(
        &mut s,
        now,
        &mcp(
            "m2",
            r#"{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"greet"}}"#,
        ),
    );
    feed(
        &mut s,
        now,
        &mcp(
            "m3",
            r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"docs://readme"}}"#,
        ),
    );
    let inbound: Vec<InboundRequest> = events(&mut s)
        .into_iter()
        .filter_map(|e| match e {
            Event::Inbound(request) => Some(*request),
            _ => None,
        })
        .collect();
    assert!(
        matches!(&inbound[0].kind, InboundKind::McpResourceRead(read) if read.uri == "docs://readme")
    );
    assert!(matches!(&inbound[1].kind, InboundKind::McpPromptGet(get) if get.name == "greet"));
    // A reply of the wrong kind is refused; the right one is written.
    assert!(matches!(
        s.respond(now, inbound[0].id, Reply::Prompt(PromptResult::user("x"))),
        Err(RespondError::WrongKind { .. })
    ));
    s.respond(
        now,
        inbound[0].id,
        Reply::Resource(ResourceResult::text("docs://readme", "hi")),
    )
    .unwrap();
    s.respond(
        now,
        inbound[1].id,
        Reply::Prompt(PromptResult::user("Say hi")),
    )
    .unwrap();
    s.respond(now, inbound[2].id, Reply::error("disk on fire"))
        .unwrap();
    let written = lines(s.poll_transmit());
    let answer = |i: usize| &written[i]["response"]["response"]["mcp_response"];
    assert_eq!(
        *answer(0),
        serde_json::json!({"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"docs://readme","text":"hi"}]}})
    );
    assert_eq!(
        *answer(1),
        serde_json::json!({"jsonrpc":"2.0","id":8,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Say hi"}}]}})
    );
    assert_eq!(
        *answer(2),
        serde_json::json!({"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"disk on fire"}})
    );
}

#[test]
fn set_mcp_servers_changes_which_in_process_servers_the_session_answers_for() {
    use crate::mcp::McpServerSpec;
    use crate::options::McpServerConfig;
    let mut config = SessionConfig::new(InputMode::Streaming);
    config
        .mcp_servers
        .push(McpServerSpec::new("calc", "1.0.0").tool(object_tool("add")));
    let (mut s, now) = started(config);
    let list = |id: &str, server: &str| {
        format!(
            r#"{{"type":"control_request","request_id":"{id}","request":{{"subtype":"mcp_message","server_name":"{server}","message":{{"jsonrpc":"2.0","id":1,"method":"tools/list"}}}}}}"#
        )
    };
    let tools_of = |s: &mut Session, id: &str, server: &str| {
        feed(s, now, &list(id, server));
        let written = lines(s.poll_transmit());
        written[0]["response"]["response"]["mcp_response"].clone()
    };

    // `calc` again, with other tools (the served one stays), and a new `clock`.
    let external = [(
        "docs".to_owned(),
        McpServerConfig::http("http://127.0.0.1:1/mcp"),
    )];
    let id = s
        .set_mcp_servers(
            now,
            vec![
                McpServerSpec::new("calc", "9.9.9").tool(object_tool("mul")),
                McpServerSpec::new("clock", "1.0.0").tool(object_tool("now")),
            ],
            &external,
        )
        .unwrap();
    let written = lines(s.poll_transmit());
    assert_eq!(
        written[0],
        serde_json::json!({"type":"control_request","request_id":id.to_string(),"request":{
            "subtype":"mcp_set_servers","servers":{
                "docs":{"type":"http","url":"http://127.0.0.1:1/mcp"},
                "calc":{"type":"sdk","name":"calc"},
                "clock":{"type":"sdk","name":"clock"}}}})
    );
    assert_eq!(
        tools_of(&mut s, "m1", "calc")["result"]["tools"][0]["name"],
        "add"
    );
    assert_eq!(
        tools_of(&mut s, "m2", "clock")["result"]["tools"][0]["name"],
        "now"
    );

    // Without `calc`: it is no longer served.
    s.set_mcp_servers(now, vec![McpServerSpec::new("clock", "1.0.0")], &[])
        .unwrap();
    let written = lines(s.poll_transmit());
    assert_eq!(
        written[0]["request"]["servers"],
        serde_json::json!({"clock":{"type":"sdk","name":"clock"}})
    );
    assert_eq!(
        tools_of(&mut s, "m3", "calc")["error"]["message"],
        "Server 'calc' not found"
    );
    let names: Vec<&str> = s
        .config()
        .mcp_servers
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, ["clock"]);
}

/// A session with a fail-closed hook on Bash.
fn fail_closed_hook() -> SessionConfig {
    let mut config = SessionConfig::new(InputMode::SingleTurn);
    let mut guard = HookMatcherConfig::new(crate::hooks::HookEvent::PreToolUse, None, 1);
    guard.on_failure = Some(HookFailurePolicy::Block);
    config.hooks.push(guard);
    config
}

#[test]
fn a_fail_closed_hook_holds_the_prompt_until_the_cli_confirms_it() {
    let (mut s, now) = started(fail_closed_hook());
    s.send_user(now, UserInput::text("hi")).unwrap();
    assert_eq!(s.poll_transmit(), None, "the prompt waits for the answer");
    feed(
        &mut s,
        now,
        &success(
            "req_0",
            r#"{"hooks_applied":true,"hook_on_failure_supported":true}"#,
        ),
    );
    assert!(matches!(
        &events(&mut s)[..],
        [Event::RequestDone { outcome: Ok(_), .. }, Event::Ready]
    ));
    let written = lines(s.poll_transmit());
    assert_eq!(written.len(), 1);
    assert_eq!(written[0]["type"], "user");
}

#[test]
fn a_cli_that_does_not_confirm_a_fail_closed_hook_gets_no_prompt() {
    let answers = [
        (r#"{"hooks_applied":true}"#, "hook_on_failure_supported"),
        (
            r#"{"hooks_applied":false,"hook_on_failure_supported":true}"#,
            "hooks_applied: false",
        ),
    ];
    for (answer, named) in answers {
        let (mut s, now) = started(fail_closed_hook());
        s.send_user(now, UserInput::text("hi")).unwrap();
        feed(&mut s, now, &success("req_0", answer));
        match &events(&mut s)[..] {
            [Event::RequestDone {
                id,
                outcome: Err(RequestFailure::Unconfirmed(message)),
            }, Event::Closing(EndReason::InitializeFailed(RequestFailure::Unconfirmed(why)))] => {
                assert_eq!(*id, s.initialize_id());
                assert_eq!(why, message, "the session ends for the same reason");
                assert!(message.contains(named), "{message}");
            }
            other => panic!("{answer}: {other:?}"),
        }
        assert_eq!(
            s.poll_transmit(),
            Some(Transmit::CloseStdin),
            "{answer}: the prompt is never written, and the session closes"
        );
        assert!(s.server_info().is_some());
        let mut streaming = fail_closed_hook();
        streaming.input = InputMode::Streaming;
        let (mut later, now) = started(streaming);
        feed(&mut later, now, &success("req_0", answer));
        assert_eq!(
            later.send_user(now, UserInput::text("again")),
            Err(SendError::Closed)
        );
        assert_eq!(later.poll_transmit(), Some(Transmit::CloseStdin));
    }
}

#[test]
fn mcp_servers_sent_in_initialize_must_be_confirmed_before_the_prompt() {
    let config = || {
        let mut config = SessionConfig::new(InputMode::Streaming);
        config.delivers_mcp_servers = true;
        config
    };
    for (answer, confirmed) in [
        (r#"{"mcp_servers_applied":true}"#, true),
        (r#"{"mcp_servers_applied":false}"#, false),
        (r#"{"claude_code_version":"2.1.200"}"#, false),
    ] {
        let (mut s, now) = started(config());
        s.send_user(now, UserInput::text("one")).unwrap();
        s.send_user(now, UserInput::text("two")).unwrap();
        assert_eq!(s.poll_transmit(), None);
        feed(&mut s, now, &success("req_0", answer));
        let ok = matches!(
            &events(&mut s)[..],
            [Event::RequestDone { outcome: Ok(_), .. }, Event::Ready]
        );
        assert_eq!(ok, confirmed, "{answer}");
        if confirmed {
            let written = lines(s.poll_transmit());
            let texts: Vec<_> = written.iter().map(|l| &l["message"]["content"]).collect();
            assert_eq!(texts, ["one", "two"]);
            s.send_user(now, UserInput::text("three")).unwrap();
            assert_eq!(lines(s.poll_transmit()).len(), 1);
        } else {
            assert_eq!(s.poll_transmit(), Some(Transmit::CloseStdin), "{answer}");
        }
    }
}

#[test]
fn settings_sent_in_initialize_must_be_confirmed_before_the_prompt() {
    use crate::session::SettingsDelivered;

    let both = SettingsDelivered {
        settings: true,
        managed_settings: true,
    };
    let settings_only = SettingsDelivered {
        settings: true,
        managed_settings: false,
    };
    for (delivered, answer, refused) in [
        (
            both,
            r#"{"settings_applied":true,"managed_settings_applied":true}"#,
            None,
        ),
        (settings_only, r#"{"settings_applied":true}"#, None),
        (
            both,
            r#"{"settings_applied":true}"#,
            Some("no `managed_settings_applied`"),
        ),
        (
            settings_only,
            r#"{"settings_applied":false}"#,
            Some("`settings_applied: false`"),
        ),
        (settings_only, r#"{"pid":1}"#, Some("no `settings_applied`")),
    ] {
        let mut config = SessionConfig::new(InputMode::Streaming);
        config.delivers_settings = delivered;
        let (mut s, now) = started(config);
        s.send_user(now, UserInput::text("one")).unwrap();
        assert_eq!(s.poll_transmit(), None, "held until the answer");
        feed(&mut s, now, &success("req_0", answer));
        match (&events(&mut s)[..], refused) {
            ([Event::RequestDone { outcome: Ok(_), .. }, Event::Ready], None) => {
                assert_eq!(lines(s.poll_transmit()).len(), 1, "{answer}");
            }
            (
                [Event::RequestDone {
                    outcome: Err(RequestFailure::Unconfirmed(message)),
                    ..
                }, Event::Closing(EndReason::InitializeFailed(_))],
                Some(named),
            ) => {
                assert!(message.contains(named), "{message}");
                assert!(
                    message.contains("settings_delivery(Delivery::Argv)"),
                    "{message}"
                );
                assert_eq!(
                    s.poll_transmit(),
                    Some(Transmit::CloseStdin),
                    "{answer}: the prompt is never written, and the session closes"
                );
            }
            (other, _) => panic!("{answer}: {other:?}"),
        }
    }
}

#[test]
fn a_failed_initialize_releases_no_held_prompt() {
    let (mut s, now) = started(fail_closed_hook());
    s.send_user(now, UserInput::text("hi")).unwrap();
    let deadline = s.poll_timeout().expect("initialize has a deadline");
    s.handle_timeout(deadline);
    assert!(matches!(
        &events(&mut s)[..],
        [
            Event::RequestDone {
                outcome: Err(RequestFailure::Timeout(_)),
                ..
            },
            Event::Closing(EndReason::InitializeFailed(RequestFailure::Timeout(_)))
        ]
    ));
    assert_eq!(
        s.poll_transmit(),
        Some(Transmit::CloseStdin),
        "no prompt, and the session closes"
    );
    // Without a setting to confirm, the prompt follows `initialize` at once.
    let (mut plain, now) = started(SessionConfig::new(InputMode::SingleTurn));
    plain.send_user(now, UserInput::text("hi")).unwrap();
    assert_eq!(lines(plain.poll_transmit())[0]["type"], "user");
}

fn parked() -> (Session, Instant) {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.await_claim = true;
    let (mut s, now) = started(config);
    feed(
        &mut s,
        now,
        r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}"#,
    );
    events(&mut s);
    (s, now)
}

fn ok(id: u64) -> String {
    format!(
        r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"req_{id}","response":{{"status":"ok","session_id":"s","cwd":"/w","sdk_mcp_settled":true}}}}}}"#
    )
}

fn refused(id: u64, error: &str) -> String {
    format!(
        r#"{{"type":"control_response","response":{{"subtype":"error","request_id":"req_{id}","error":"{error}"}}}}"#
    )
}

#[test]
fn a_parked_cli_takes_no_message_before_its_claim_and_one_claim_only() {
    let (mut s, now) = parked();
    assert_eq!(
        s.send_user(now, UserInput::text("hi")),
        Err(SendError::NotClaimed)
    );
    s.claim(now, &ClaimOptions::new("/w")).unwrap();
    assert!(!s.is_parked());
    assert_eq!(
        s.claim(now, &ClaimOptions::new("/w")),
        Err(StartClaimError::AlreadyClaimed)
    );
    s.send_user(now, UserInput::text("hi")).unwrap();
    let written = lines(s.poll_transmit());
    assert_eq!(written[0]["request"]["subtype"], "claim_session");
    assert_eq!(written[1]["type"], "user");
}

#[test]
fn an_overlay_holds_the_prompt_until_it_and_the_claim_are_accepted() {
    let (mut s, now) = parked();
    let claim = ClaimOptions::new("/w")
        .settings(serde_json::json!({"effortLevel": "high", "fastMode": true}))
        .unwrap();
    s.claim(now, &claim).unwrap();
    s.send_user(now, UserInput::text("hi")).unwrap();
    let written = lines(s.poll_transmit());
    let subtypes: Vec<&str> = written
        .iter()
        .map(|l| l["request"]["subtype"].as_str().unwrap())
        .collect();
    assert_eq!(
        subtypes,
        [
            "apply_flag_settings",
            "claim_session",
            "apply_flag_settings"
        ]
    );
    assert_eq!(
        written[0]["request"]["settings"],
        serde_json::json!({"effortLevel": "high"})
    );
    assert_eq!(
        written[2]["request"]["settings"],
        serde_json::json!({"fastMode": true})
    );
    feed(&mut s, now, &ok(1));
    feed(&mut s, now, &ok(2));
    assert_eq!(
        s.poll_transmit(),
        None,
        "the prompt waits for the last overlay"
    );
    feed(&mut s, now, &ok(3));
    assert_eq!(lines(s.poll_transmit())[0]["type"], "user");
    assert!(matches!(events(&mut s).as_slice(), [Event::Claimed(Ok(_))]));
}

#[test]
fn a_refused_overlay_refuses_the_claim_and_drops_the_prompt() {
    let (mut s, now) = parked();
    let claim = ClaimOptions::new("/w")
        .settings(serde_json::json!({"effortLevel": "high"}))
        .unwrap();
    s.claim(now, &claim).unwrap();
    s.send_user(now, UserInput::text("hi")).unwrap();
    let _ = s.poll_transmit();
    feed(&mut s, now, &refused(1, "bad effortLevel"));
    feed(
        &mut s,
        now,
        &refused(2, "settings_not_applied: bad effortLevel"),
    );
    let happened = events(&mut s);
    let [Event::Claimed(Err(refusal))] = happened.as_slice() else {
        panic!("not refused")
    };
    assert_eq!(
        refusal.reason,
        crate::control::ClaimRefusalReason::SettingsNotApplied
    );
    assert_eq!(refusal.message, "settings_not_applied: bad effortLevel");
    // Nothing was written, and nothing more will be: stdin closes.
    assert_eq!(s.poll_transmit(), Some(Transmit::CloseStdin));
}

#[test]
fn an_option_the_cli_does_not_take_is_reported_and_the_session_runs() {
    let (mut s, now) = parked();
    let claim = ClaimOptions::new("/w")
        .model("nope")
        .max_thinking_tokens(Some(10));
    s.claim(now, &claim).unwrap();
    s.send_user(now, UserInput::text("hi")).unwrap();
    let _ = s.poll_transmit();
    feed(&mut s, now, &ok(1));
    feed(&mut s, now, &refused(2, "Invalid model: nope"));
    feed(&mut s, now, &ok(3));
    let happened = events(&mut s);
    let [Event::Claimed(Ok(info))] = happened.as_slice() else {
        panic!("not claimed")
    };
    assert_eq!(info.not_applied.len(), 1);
    assert_eq!(
        info.not_applied[0].option,
        crate::control::ClaimOption::Model
    );
    assert_eq!(info.not_applied[0].message, "Invalid model: nope");
    assert_eq!(
        s.poll_transmit(),
        None,
        "stdin stays open: the session runs"
    );
}

/// An interrupt during in-process tool calls: the CLI sends `notifications/cancelled` for each
/// open `tools/call` (its JSON-RPC id as `requestId`). Each call is withdrawn (the host drops
/// its handler), the notification is acknowledged, and a late answer is refused; a call of
/// another server, or one not named, stays open.
#[test]
fn a_cancelled_mcp_tool_call_is_withdrawn() {
    use crate::mcp::McpServerSpec;
    let mut config = SessionConfig::new(InputMode::Streaming);
    config
        .mcp_servers
        .push(McpServerSpec::new("slow", "1.0.0").tool(object_tool("wait")));
    config
        .mcp_servers
        .push(McpServerSpec::new("other", "1.0.0").tool(object_tool("wait")));
    let (mut s, now) = started(config);
    let message = |id: &str, server: &str, message: &str| {
        format!(
            r#"{{"type":"control_request","request_id":"{id}","request":{{"subtype":"mcp_message","server_name":"{server}","message":{message}}}}}"#
        )
    };
    let call = |rpc: u32| {
        format!(
            r#"{{"method":"tools/call","params":{{"name":"wait","arguments":{{}},"_meta":{{"claudecode/toolUseId":"toolu_{rpc}"}}}},"jsonrpc":"2.0","id":{rpc}}}"#
        )
    };
    let mut ids = Vec::new();
    for (wire, server, rpc) in [("m1", "slow", 3), ("m2", "slow", 4), ("m3", "other", 3)] {
        feed(&mut s, now, &message(wire, server, &call(rpc)));
        let Some(Event::Inbound(request)) = s.poll_event() else {
            panic!("no tool call")
        };
        ids.push(request.id);
    }
    let cancelled = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"AbortError: remote-cancel"}}"#;
    feed(&mut s, now, &message("m4", "slow", cancelled));
    assert!(matches!(&events(&mut s)[..], [Event::Cancelled(id)] if *id == ids[0]));
    let written = lines(s.poll_transmit());
    assert_eq!(
        written[0]["response"]["request_id"], "m4",
        "the notification is acked"
    );
    assert_eq!(
        s.respond(now, ids[0], Reply::Raw(Json::from(serde_json::json!({})))),
        Err(RespondError::Cancelled)
    );
    assert_eq!(
        s.pending_inbound(),
        2,
        "the other server's call and call 4 stay open"
    );
}

/// A `tools/call` whose JSON-RPC id is still in flight on its server is refused with a JSON-RPC
/// error, as the official SDKs' bridge refuses it: the handler runs once per id. The same id
/// on another server, or once the first call is answered, is a call of its own.
#[test]
fn a_tool_call_reusing_an_id_in_flight_is_refused() {
    use crate::mcp::{McpServerSpec, ToolResult};
    let mut config = SessionConfig::new(InputMode::Streaming);
    for server in ["slow", "other"] {
        config
            .mcp_servers
            .push(McpServerSpec::new(server, "1.0.0").tool(object_tool("wait")));
    }
    let (mut s, now) = started(config);
    let call = |wire: &str, server: &str| {
        format!(
            r#"{{"type":"control_request","request_id":"{wire}","request":{{"subtype":"mcp_message","server_name":"{server}","message":{{"method":"tools/call","params":{{"name":"wait","arguments":{{}}}},"jsonrpc":"2.0","id":7}}}}}}"#
        )
    };
    feed(&mut s, now, &call("m1", "slow"));
    let [Event::Inbound(first)] = &events(&mut s)[..] else {
        panic!("the first call reaches the host")
    };
    let first = first.id;
    feed(&mut s, now, &call("m2", "slow"));
    assert!(events(&mut s).is_empty(), "no second handler");
    let refused = lines(s.poll_transmit());
    assert_eq!(refused[0]["response"]["request_id"], "m2");
    assert_eq!(
        refused[0]["response"]["response"]["mcp_response"],
        serde_json::json!({"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Request id 7 is already in flight"}})
    );
    feed(&mut s, now, &call("m3", "other"));
    assert_eq!(events(&mut s).len(), 1, "another server's id 7 is its own");
    s.respond(now, first, Reply::ToolResult(ToolResult::text("done")))
        .unwrap();
    let _ = s.poll_transmit();
    feed(&mut s, now, &call("m4", "slow"));
    assert_eq!(events(&mut s).len(), 1, "answered, the id is free again");
}

/// The idle watchdog counts silence only while a turn runs and nothing explains it: it reports
/// once per silence, a line re-arms it, a callback being answered pauses it, and a running tool
/// of the CLI has its own limit (none by default).
#[test]
fn a_silent_turn_is_reported_once_per_silence() {
    use crate::message::Stall;
    use crate::session::StallWatch;
    use std::time::Duration;

    let secs = Duration::from_secs;
    let mut config = permission_config();
    config.stall = Some(StallWatch::new(secs(30)));
    let (mut s, t0) = started(config);
    let stalls = |s: &mut Session| -> Vec<Stall> {
        events(s)
            .into_iter()
            .filter_map(|e| match e {
                Event::Stalled(stall) => Some(stall),
                _ => None,
            })
            .collect()
    };
    feed(&mut s, t0, &success("req_0", "{}"));
    // No turn: nothing to watch.
    assert_eq!(s.poll_timeout(), None);

    s.send_user(t0, UserInput::text("hi")).unwrap();
    let _ = s.poll_transmit();
    feed(
        &mut s,
        t0 + secs(5),
        r#"{"type":"system","subtype":"status","status":"requesting","session_id":"s"}"#,
    );
    assert_eq!(s.poll_timeout(), Some(t0 + secs(35)));
    s.handle_timeout(t0 + secs(34));
    assert!(stalls(&mut s).is_empty());
    s.handle_timeout(t0 + secs(35));
    let stall = stalls(&mut s);
    assert_eq!(
        stall,
        [Stall {
            idle_for: secs(30),
            last_event: Some("system/status".into()),
            in_flight_tools: vec![],
        }]
    );
    assert_eq!(
        stall[0].to_string(),
        "the CLI has been silent for 30.0 s during a turn (its last line: system/status)"
    );
    // Once per silence.
    s.handle_timeout(t0 + secs(100));
    assert!(stalls(&mut s).is_empty());

    // A tool call of the CLI: no limit while it runs (the default).
    feed(
        &mut s,
        t0 + secs(101),
        r#"{"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"sleep 600"}}]},"parent_tool_use_id":null,"session_id":"s"}"#,
    );
    assert_eq!(s.poll_timeout(), None);
    feed(
        &mut s,
        t0 + secs(700),
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"done"}]},"parent_tool_use_id":null,"session_id":"s"}"#,
    );
    assert_eq!(s.poll_timeout(), Some(t0 + secs(730)));

    // A permission prompt being answered: the CLI waits on us.
    feed(&mut s, t0 + secs(701), CAN_USE_TOOL);
    assert_eq!(s.poll_timeout(), None);
    let Some(Event::Inbound(request)) = events(&mut s)
        .into_iter()
        .find(|e| matches!(e, Event::Inbound(_)))
    else {
        panic!("no prompt")
    };
    s.respond(
        t0 + secs(900),
        request.id,
        Reply::Permission(crate::permission::PermissionResult::allow()),
    )
    .unwrap();
    assert_eq!(
        s.poll_timeout(),
        Some(t0 + secs(731)),
        "silence counts from the CLI's last line"
    );

    // The result ends the turn.
    feed(
        &mut s,
        t0 + secs(902),
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
    );
    assert_eq!(s.poll_timeout(), None);
}

/// A stall watch of `Duration::MAX` (for "never") watches nothing and never overflows the
/// clock, with or without a limit while a tool runs; before, the deadline's sum panicked.
#[test]
fn a_stall_limit_too_long_to_represent_is_never_reached() {
    use crate::session::StallWatch;
    use std::time::Duration;

    let secs = Duration::from_secs;
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.stall = Some(StallWatch {
        while_tool_runs: Some(Duration::MAX),
        ..StallWatch::new(Duration::MAX)
    });
    let (mut s, t0) = started(config);
    feed(&mut s, t0, &success("req_0", "{}"));
    s.send_user(t0, UserInput::text("hi")).unwrap();
    assert_eq!(s.poll_timeout(), None);
    s.handle_timeout(t0 + secs(365 * 24 * 3600));
    assert!(!events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Stalled(_))));
}

/// A session that ends mid-turn reports what the turn's model calls used, just before it
/// finishes, when it counts calls; a turn that ended with its result is not reported again.
#[test]
fn a_session_ended_mid_turn_reports_its_unfinished_turn() {
    let call = r#"{"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[],"usage":{"input_tokens":13,"output_tokens":6}},"parent_tool_use_id":null,"session_id":"s"}"#;
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.count_model_calls = true;
    let (mut s, now) = started(config);
    feed(&mut s, now, &success("req_0", "{}"));
    s.send_user(now, UserInput::text("go")).unwrap();
    feed(&mut s, now, call);
    let _ = events(&mut s);
    s.close(now);
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::signal(15));
    let ends: Vec<String> = events(&mut s)
        .into_iter()
        .filter_map(|e| match e {
            Event::UnfinishedTurn(cost) => Some(format!("unfinished {}", cost.tokens.total())),
            Event::Finished(_) => Some("finished".to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(ends, ["unfinished 19", "finished"]);
    assert_eq!(s.spent().tokens.total(), 19);

    // Without counting calls there is nothing to report.
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &success("req_0", "{}"));
    s.send_user(now, UserInput::text("go")).unwrap();
    feed(&mut s, now, call);
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::signal(9));
    assert!(!events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::UnfinishedTurn(_))));
}

/// A message line of 3 MiB (a large tool result, a long file read), far over the 1 MiB other
/// SDKs stop at, is read whole under the default 16 MiB limit.
#[test]
fn a_three_mebibyte_line_is_read_whole() {
    let (mut s, now) = started(SessionConfig::new(InputMode::Streaming));
    let text = "x".repeat(3 << 20);
    let line = format!(
        r#"{{"type":"assistant","message":{{"id":"m1","role":"assistant","model":"m","content":[{{"type":"text","text":"{text}"}}]}},"parent_tool_use_id":null,"session_id":"s"}}"#
    );
    // In pieces, as a pipe delivers it.
    for chunk in line.as_bytes().chunks(64 * 1024) {
        s.handle_stdout(now, chunk);
    }
    s.handle_stdout(now, b"\n");
    let read: Vec<usize> = events(&mut s)
        .into_iter()
        .filter_map(|e| match e {
            Event::Message(Message::Assistant(reply)) => match reply.message.content.first() {
                Some(crate::message::ContentBlock::Text(t)) => Some(t.text.len()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(read, [3 << 20]);
}

/// A prompt sent while a turn runs joins that turn: its one result ends the watch, and the idle
/// session after it is not a stall; the CLI saying it runs again (a turn of its own) restarts it.
#[test]
fn a_prompt_joining_a_running_turn_does_not_leave_the_watch_armed() {
    use crate::session::StallWatch;
    use std::time::Duration;

    let secs = Duration::from_secs;
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.stall = Some(StallWatch::new(secs(30)));
    let (mut s, t0) = started(config);
    feed(&mut s, t0, &success("req_0", "{}"));
    s.send_user(t0, UserInput::text("build it")).unwrap();
    s.send_user(t0 + secs(1), UserInput::text("and test it"))
        .unwrap();
    feed(
        &mut s,
        t0 + secs(2),
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
    );
    assert_eq!(
        s.poll_timeout(),
        None,
        "one result ends the turn both prompts were in"
    );
    feed(
        &mut s,
        t0 + secs(3),
        r#"{"type":"system","subtype":"session_state_changed","state":"running","sdk_host_only":true,"session_id":"s"}"#,
    );
    assert_eq!(s.poll_timeout(), Some(t0 + secs(33)));
    feed(
        &mut s,
        t0 + secs(4),
        r#"{"type":"system","subtype":"session_state_changed","state":"idle","sdk_host_only":true,"session_id":"s"}"#,
    );
    assert_eq!(s.poll_timeout(), None);
}

/// An in-process tool `name` taking any object.
fn object_tool(name: &str) -> crate::mcp::ToolSpec {
    crate::mcp::ToolSpec::new(
        name,
        "d",
        Json::from_serialize(&serde_json::json!({"type":"object"})).unwrap(),
    )
}
