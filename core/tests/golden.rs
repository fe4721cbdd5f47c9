//! Golden tests: every real CLI recording in `tests/transcripts/` is replayed through a
//! `Session`, with the CLI's stdout fed in chunks of 1, 7 and 4096 bytes and inbound requests
//! answered (with typed replies) the way the recording did. The lines the session writes must
//! equal the recorded stdin lines (request ids normalised), and no error event may appear.

use std::path::{Path, PathBuf};
use std::time::Instant;

use claude_agent_core::control::{
    ClaimOptions, ClaimRefusalReason, ControlRequest, InboundKind, Reply, ThinkingDisplayChange,
};
use claude_agent_core::hooks::{
    HookOutput, HookSpecificOutput, PermissionDecision, PreSkillShellCommandOutput,
};
use claude_agent_core::mcp::ToolResult;
use claude_agent_core::message::{ApiError, Message, StartupFailureReason, UserInput};
use claude_agent_core::permission::{PermissionMode, PermissionResult};
use claude_agent_core::recording::{Direction, Pace, Pieces, Recording};
use claude_agent_core::session::{
    CliVersion, Event, ExitStatusInfo, InputMode, Session, Termination, TranscriptMirror, Transmit,
    VersionCheck,
};
use claude_agent_core::Json;
use serde_json::Value;

struct Step {
    dir_in: bool,
    value: Value,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

fn load(path: &Path) -> (Recording, Vec<Step>) {
    let recording = Recording::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let steps = recording
        .lines()
        .iter()
        .map(|l| Step {
            dir_in: l.direction == Direction::ToCli,
            value: serde_json::from_str(l.json.as_str()).unwrap(),
        })
        .collect();
    (recording, steps)
}

/// The control request the recording sent, as our typed API builds it.
fn typed_request(request: &Value) -> ControlRequest {
    match request["subtype"].as_str().unwrap() {
        "set_model" => ControlRequest::SetModel {
            model: request["model"].as_str().map(String::from),
        },
        "set_permission_mode" => ControlRequest::SetPermissionMode {
            mode: request["mode"]
                .as_str()
                .unwrap()
                .parse::<PermissionMode>()
                .unwrap(),
        },
        "mcp_status" => ControlRequest::McpStatus,
        "interrupt" if request["cancel_queued"] == true => ControlRequest::InterruptAndCancelQueued,
        "interrupt" => ControlRequest::Interrupt,
        "cancel_async_message" => ControlRequest::CancelAsyncMessage {
            message_uuid: request["message_uuid"].as_str().unwrap().to_owned(),
        },
        "list_models" => ControlRequest::ListModels,
        "get_settings" => ControlRequest::GetSettings,
        "file_suggestions" => ControlRequest::FileSuggestions {
            query: request["query"].as_str().unwrap().to_owned(),
        },
        "get_context_usage" => ControlRequest::GetContextUsage { detail: None },
        "set_max_thinking_tokens" => ControlRequest::SetMaxThinkingTokens {
            max_thinking_tokens: request["max_thinking_tokens"].as_u64(),
            thinking_display: ThinkingDisplayChange::Keep,
        },
        other => ControlRequest::Raw {
            subtype: other.to_owned(),
            body: "{}".parse().unwrap(),
        },
    }
}

/// Our typed answer to an inbound request, built from what the recording answered.
fn typed_reply(kind: &InboundKind, recorded: &Value) -> Reply {
    match kind {
        InboundKind::CanUseTool(_) => match recorded["behavior"].as_str().unwrap() {
            "allow" => Reply::Permission(PermissionResult::allow()),
            _ => Reply::Permission(PermissionResult::deny(
                recorded["message"].as_str().unwrap(),
            )),
        },
        InboundKind::HookCallback(_) => {
            let specific = &recorded["hookSpecificOutput"];
            if specific["hookEventName"] == "PreSkillShellCommand" {
                let refused = PreSkillShellCommandOutput {
                    permission_decision: Some(PermissionDecision::Deny),
                    permission_decision_reason: specific["permissionDecisionReason"]
                        .as_str()
                        .map(str::to_owned),
                    ..Default::default()
                };
                Reply::Hook(
                    HookOutput::default().with_hook_specific_output(
                        HookSpecificOutput::PreSkillShellCommand(refused),
                    ),
                )
            } else if specific["permissionDecision"] == "deny" {
                Reply::Hook(HookOutput::deny_tool(
                    specific["permissionDecisionReason"].as_str().unwrap(),
                ))
            } else {
                assert_eq!(recorded, &serde_json::json!({"continue": true}));
                Reply::Hook(HookOutput::proceed())
            }
        }
        InboundKind::McpToolCall(call) => {
            assert_eq!(call.tool, "add");
            let args: Value = serde_json::from_str(call.arguments.as_str()).unwrap();
            let sum = args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap();
            Reply::ToolResult(ToolResult::text(format!("{sum}")))
        }
        other => panic!("the recordings hold no {other:?}"),
    }
}

fn normalise_written(v: &mut Value) {
    if v["type"] == "control_request" {
        v["request_id"] = Value::String("ID".into());
    }
}

struct Outcome {
    written: Vec<Value>,
    messages: Vec<Message>,
    mirrors: Vec<TranscriptMirror>,
    errors: Vec<String>,
    versions: Vec<VersionCheck>,
    /// How many times the session said it was ready.
    ready: usize,
}

fn replay(recording: &Recording, chunk: usize) -> Outcome {
    let pace = Pace {
        pieces: Pieces::Every(chunk),
        ..Pace::new(Instant::now())
    };
    let mut session = Session::new(recording.session_config(InputMode::Streaming), pace.start);
    let mut written = Vec::new();
    let mut messages = Vec::new();
    let mut mirrors = Vec::new();
    let mut errors = Vec::new();
    let mut versions = Vec::new();
    let mut initialized = false;
    let mut ready = 0;
    recording.replay(&mut session, &pace, |session, now| {
        while let Some(t) = session.poll_transmit() {
            if let Transmit::Write(bytes) = t {
                for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                    let mut v: Value =
                        serde_json::from_slice(line).expect("every written line is JSON");
                    normalise_written(&mut v);
                    written.push(v);
                }
            }
        }
        while let Some(event) = session.poll_event() {
            match event {
                Event::Message(m) => messages.push(m),
                Event::Mirror(m) => mirrors.push(*m),
                Event::Inbound(req) => {
                    let recorded = recording
                        .answer_to(&req.wire_id)
                        .unwrap_or_else(|| panic!("the recording answered {}", req.wire_id));
                    let reply =
                        typed_reply(&req.kind, &serde_json::from_str(recorded.as_str()).unwrap());
                    session.respond(now, req.id, reply).unwrap();
                    // The answer is written at once.
                    assert!(
                        matches!(session.poll_transmit(), Some(Transmit::Write(bytes)) if {
                            let mut v: Value = serde_json::from_slice(&bytes).unwrap();
                            normalise_written(&mut v);
                            written.push(v);
                            true
                        })
                    );
                }
                Event::RequestDone {
                    outcome: Err(e),
                    id,
                } => errors.push(format!("request {id} failed: {e}")),
                Event::RequestDone { id, .. } => initialized |= id == session.initialize_id(),
                Event::Ready if initialized => ready += 1,
                Event::Ready => errors.push("ready before `initialize` was answered".into()),
                Event::LineError(e) => errors.push(e.to_string()),
                Event::CliVersion(check) => versions.push(check),
                other => errors.push(format!("unexpected {other:?}")),
            }
        }
    });
    Outcome {
        written,
        messages,
        mirrors,
        errors,
        versions,
        ready,
    }
}

fn check(name: &str) {
    let (recording, steps) = load(&fixtures().join(name));
    let expected: Vec<Value> = steps
        .iter()
        .filter(|s| s.dir_in)
        .map(|s| {
            let mut v = s.value.clone();
            normalise_written(&mut v);
            v
        })
        .collect();
    let out_messages = steps
        .iter()
        .filter(|s| !s.dir_in && !s.value["type"].as_str().unwrap().starts_with("control_"))
        .filter(|s| s.value["type"] != "transcript_mirror")
        // `session_state_changed` frames the CLI sends for the SDK only are consumed.
        .filter(|s| s.value["sdk_host_only"] != true)
        .count();
    let out_mirrors: Vec<&Value> = steps
        .iter()
        .filter(|s| !s.dir_in && s.value["type"] == "transcript_mirror")
        .map(|s| &s.value)
        .collect();
    for chunk in [1, 7, 4096] {
        let outcome = replay(&recording, chunk);
        let mut written = outcome.written.clone();
        // Written order interleaves with reading; compare as the recording listed them.
        assert_eq!(
            written.len(),
            expected.len(),
            "{name} chunk {chunk}: written {written:#?}"
        );
        for (i, (w, e)) in written.iter_mut().zip(&expected).enumerate() {
            assert_eq!(w, e, "{name} chunk {chunk}: stdin line {i}");
        }
        assert_eq!(
            outcome.messages.len(),
            out_messages,
            "{name} chunk {chunk}: every message delivered once"
        );
        // Mirror frames are events of their own, whole and in order, never messages.
        assert_eq!(
            outcome.mirrors.len(),
            out_mirrors.len(),
            "{name} chunk {chunk}: every mirror frame once"
        );
        for (mirror, recorded) in outcome.mirrors.iter().zip(&out_mirrors) {
            assert_eq!(mirror.file_path, recorded["filePath"].as_str().unwrap());
            let entries: Vec<Value> = mirror
                .entries
                .iter()
                .map(|e| serde_json::from_str(e.as_str()).unwrap())
                .collect();
            assert_eq!(&Value::Array(entries), &recorded["entries"]);
        }
        for m in &outcome.messages {
            assert!(
                !matches!(m, Message::Unknown(_)),
                "{name}: untyped message {}",
                m.raw_json()
            );
        }
        // Every recording is of a supported CLI (2.1.330, or 2.1.332 for the features new
        // there), which says its version once.
        let [VersionCheck::Supported(version)] = outcome.versions[..] else {
            panic!("{name} chunk {chunk}: {:?}", outcome.versions)
        };
        assert!(
            [CliVersion::new(2, 1, 330), CliVersion::new(2, 1, 332)].contains(&version),
            "{name} chunk {chunk}: {version}"
        );
        assert_eq!(outcome.ready, 1, "{name} chunk {chunk}: ready once");
        let unexpected: Vec<&String> = outcome
            .errors
            .iter()
            .filter(|e| !e.contains("Unsupported control request subtype: bogus_subtype"))
            .collect();
        assert!(
            unexpected.is_empty(),
            "{name} chunk {chunk}: {unexpected:#?}"
        );
    }
}

/// Our typed control requests serialize exactly as the recordings wrote them (the 2.1.332
/// ones: the mode's answer, the lookups, cancelling queued messages).
#[test]
fn typed_control_requests_match_the_recording() {
    let mut checked = 0;
    for name in [
        "control_requests.jsonl",
        "session_lookups.jsonl",
        "queued_message_control.jsonl",
    ] {
        let (_, steps) = load(&fixtures().join(name));
        for step in steps
            .iter()
            .filter(|s| s.dir_in && s.value["type"] == "control_request")
        {
            let request = &step.value["request"];
            if request["subtype"] == "initialize" {
                continue;
            }
            let typed = typed_request(request);
            // The recording's one untyped request is the subtype no CLI knows.
            let bogus = request["subtype"] == "bogus_subtype";
            assert_eq!(
                matches!(typed, ControlRequest::Raw { .. }),
                bogus,
                "{request}"
            );
            let body: Value = serde_json::from_str(&typed.body_json()).unwrap();
            assert_eq!(&body, request, "{}", typed.subtype());
            checked += 1;
        }
    }
    // `file_suggestions` twice: the CLI had not indexed the folder yet the first time.
    assert_eq!(checked, 7 + 5 + 2, "every recorded request but initialize");
}

macro_rules! golden {
    ($($test:ident => $file:literal),* $(,)?) => {
        $(#[test] fn $test() { check($file); })*
        #[test]
        fn every_recording_has_a_golden_test() {
            // The claim recordings, and the resumed session's cost, have tests of their own.
            let mut covered = vec![$($file,)* "claim.jsonl", "claim_refused.jsonl", "resumed_cost.jsonl"];
            covered.sort();
            let mut found: Vec<String> = std::fs::read_dir(fixtures()).unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.ends_with(".jsonl")).collect();
            found.sort();
            assert_eq!(found, covered);
        }
    };
}

golden! {
    context_only_message => "context_only_message.jsonl",
    queued_message_control => "queued_message_control.jsonl",
    session_lookups => "session_lookups.jsonl",
    skill_shell_command_hook => "skill_shell_command_hook.jsonl",
    control_requests => "control_requests.jsonl",
    hello => "hello.jsonl",
    hook_deny => "hook_deny.jsonl",
    hooks => "hooks.jsonl",
    multi_turn => "multi_turn.jsonl",
    partial_messages => "partial_messages.jsonl",
    permission_deny => "permission_deny.jsonl",
    sdk_mcp => "sdk_mcp.jsonl",
    session_mirror => "session_mirror.jsonl",
    tool_bash => "tool_bash.jsonl",
}

/// What replaying a claim recording gave.
struct ClaimReplay {
    written: Vec<Value>,
    events: Vec<Event>,
    closed_stdin: bool,
}

/// Replay a recording of a spare (`--await-claim`) that was claimed: the claim is made with
/// [`Session::claim`] from the options the recording's claim carried (its `claim_session`,
/// `set_model` and `set_max_thinking_tokens`), the prompt with `send_user`.
fn replay_claim(name: &str, chunk: usize) -> (ClaimReplay, Vec<Value>) {
    let (recording, steps) = load(&fixtures().join(name));
    let sent = |subtype: &str| {
        steps
            .iter()
            .find(|s| s.dir_in && s.value["request"]["subtype"] == subtype)
            .map(|s| s.value["request"].clone())
    };
    let body = sent("claim_session").expect("a claim");
    let mut claim = ClaimOptions::new(body["cwd"].as_str().unwrap());
    if let Some(mode) = body["permission_mode"].as_str() {
        claim = claim.permission_mode(mode.parse::<PermissionMode>().unwrap());
    }
    if let Some(model) = sent("set_model") {
        claim = claim.model(model["model"].as_str().unwrap());
    }
    if let Some(tokens) = sent("set_max_thinking_tokens") {
        claim = claim.max_thinking_tokens(tokens["max_thinking_tokens"].as_u64());
    }
    let mut config = recording.session_config(InputMode::Streaming);
    config.await_claim = true;
    // The `initialize` fields other than hooks, as the recording sent them.
    let mut fields = sent("initialize").expect("an initialize");
    let fields = fields.as_object_mut().unwrap();
    fields.remove("subtype");
    fields.remove("hooks");
    config.initialize_fields = Json::from_serialize(fields).ok();
    let now = Instant::now();
    let mut session = Session::new(config, now);
    let mut out = ClaimReplay {
        written: Vec::new(),
        events: Vec::new(),
        closed_stdin: false,
    };
    let drain = |session: &mut Session, out: &mut ClaimReplay| {
        while let Some(t) = session.poll_transmit() {
            match t {
                Transmit::Write(bytes) => {
                    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                        out.written.push(serde_json::from_slice(line).unwrap());
                    }
                }
                Transmit::CloseStdin => out.closed_stdin = true,
                _ => {}
            }
        }
        out.events
            .extend(std::iter::from_fn(|| session.poll_event()));
    };
    for line in recording.lines() {
        let value: Value = serde_json::from_str(line.json.as_str()).unwrap();
        if line.direction == Direction::ToCli {
            match (value["type"].as_str(), value["request"]["subtype"].as_str()) {
                (Some("control_request"), Some("claim_session")) => {
                    assert!(session.is_parked());
                    session.claim(now, &claim).unwrap();
                }
                (Some("user"), _) => {
                    let text = value["message"]["content"].as_str().unwrap();
                    session.send_user(now, UserInput::text(text)).unwrap();
                    session.end_input(now);
                }
                // `initialize` is written at construction; the claim writes what follows it.
                _ => {}
            }
        } else {
            let text = format!("{}\n", line.json.as_str());
            for piece in text.as_bytes().chunks(chunk) {
                session.handle_stdout(now, piece);
                drain(&mut session, &mut out);
            }
        }
        drain(&mut session, &mut out);
    }
    let expected = steps
        .into_iter()
        .filter(|s| s.dir_in)
        .map(|s| s.value)
        .collect();
    (out, expected)
}

#[test]
fn claim_of_a_parked_cli() {
    for chunk in [1, 7, 4096] {
        let (out, expected) = replay_claim("claim.jsonl", chunk);
        assert_eq!(out.written, expected, "chunk {chunk}");
        let marks = out
            .events
            .iter()
            .filter(|e| matches!(e, Event::StartupMark(_)))
            .count();
        assert_eq!(marks, 31, "chunk {chunk}: every start-up mark");
        let claimed: Vec<_> = out
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Claimed(outcome) => Some(outcome),
                _ => None,
            })
            .collect();
        assert_eq!(claimed.len(), 1, "chunk {chunk}: one outcome");
        let info = claimed[0].as_ref().expect("claimed");
        assert!(info
            .cwd
            .as_deref()
            .unwrap()
            .starts_with("/tmp/claude-agent-testkit-work-"));
        assert!(info.parked_ms.is_some());
        assert!(info.not_applied.is_empty());
        assert!(info
            .initialize
            .as_ref()
            .is_some_and(|i| !i.commands.is_empty()));
        // No `RequestDone` for the claim's own requests, and none failed.
        let done = out
            .events
            .iter()
            .filter(|e| matches!(e, Event::RequestDone { .. }))
            .count();
        assert_eq!(done, 1, "chunk {chunk}: only initialize");
        let init = out.events.iter().find_map(|e| match e {
            Event::Message(Message::System(claude_agent_core::message::SystemMessage::Init(i))) => {
                Some(i)
            }
            _ => None,
        });
        assert_eq!(init.unwrap().model(), Some("claude-haiku-9"));
        assert!(out.closed_stdin, "chunk {chunk}: the run ended");
    }
}

#[test]
fn claim_refused_by_the_cli() {
    for chunk in [1, 7, 4096] {
        let (out, expected) = replay_claim("claim_refused.jsonl", chunk);
        assert_eq!(out.written, expected, "chunk {chunk}");
        let refusal = out
            .events
            .iter()
            .find_map(|e| match e {
                Event::Claimed(Err(refusal)) => Some(refusal),
                _ => None,
            })
            .expect("refused");
        assert_eq!(refusal.reason, ClaimRefusalReason::CwdNotFound);
        assert!(!refusal.recurs());
        // The prompt written with the claim is answered with an error result; then stdin closes.
        assert!(out
            .events
            .iter()
            .any(|e| matches!(e, Event::Message(Message::Result(r)) if r.is_error)));
        assert!(out.closed_stdin, "chunk {chunk}");
    }
}

/// How a session of `recording`'s configuration ends when the CLI prints `output` (cut into
/// pieces of `chunk` bytes), closes its stdout and exits with `exit`.
fn end_of_run(
    recording: &Recording,
    output: &[u8],
    chunk: usize,
    exit: ExitStatusInfo,
) -> Option<Termination> {
    let now = Instant::now();
    let mut session = Session::new(recording.session_config(InputMode::Streaming), now);
    for piece in output.chunks(chunk) {
        session.handle_stdout(now, piece);
    }
    session.handle_stdout_eof(now);
    session.handle_exit(now, exit);
    std::iter::from_fn(|| session.poll_event()).find_map(|event| match event {
        Event::Finished(end) => Some(end),
        _ => None,
    })
}

/// The real CLI refusing a start (`HTTPS_PROXY=bogus`, recorded from 2.1.332): instead of
/// answering `initialize` it writes an error result with its `startup_failure_reason` and exits 1
/// (the exit status as the end-to-end scenario `startup_failure_reason` sees it). The session
/// ends with `Termination::StartFailed`, naming the reason and the CLI's text, however the
/// output is cut.
#[test]
fn a_refused_start_ends_as_start_failed() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/releases/2.1.332/startup_failure_reason.jsonl");
    let (recording, _) = load(&path);
    let first_refusal: Vec<u8> = recording
        .cli_output()
        .take(1)
        .flat_map(|line| format!("{}\n", line.as_str()).into_bytes())
        .collect();
    for chunk in [1, 7, 4096] {
        let end = end_of_run(&recording, &first_refusal, chunk, ExitStatusInfo::code(1));
        let Some(Termination::StartFailed(failure)) = end else {
            panic!("chunk {chunk}: not a refused start: {end:?}");
        };
        assert_eq!(failure.reason, Some(StartupFailureReason::ProxyInvalid));
        assert!(
            failure
                .message
                .as_deref()
                .unwrap_or_default()
                .contains("HTTPS_PROXY"),
            "{failure:?}"
        );
        assert_eq!(failure.exit, ExitStatusInfo::code(1));
    }
}

/// The real CLI with no credentials at all (no `ANTHROPIC_API_KEY`, no login; recorded from
/// 2.1.332 with an empty `HOME`): a synthetic assistant message "Not logged in · Please run
/// /login" flagged `authentication_failed`, a result of subtype `success` with `is_error`, then
/// exit 1. The session ends with that error result, classified, and its text says what to do
/// (the CLI's own text names neither the variable nor the command).
#[test]
fn no_credentials_end_with_an_error_result_that_says_what_to_do() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/releases/2.1.332/not_logged_in.jsonl");
    let (recording, _) = load(&path);
    let output: Vec<u8> = recording
        .cli_output()
        .flat_map(|line| format!("{}\n", line.as_str()).into_bytes())
        .collect();
    for chunk in [1, 7, 4096] {
        let end = end_of_run(&recording, &output, chunk, ExitStatusInfo::code(1));
        let Some(Termination::ErrorResult(error)) = end else {
            panic!("chunk {chunk}: not an error result: {end:?}");
        };
        assert_eq!(error.api_error, Some(ApiError::AuthenticationFailed));
        assert_eq!(error.message, "Not logged in · Please run /login");
        let text = error.to_string();
        assert!(text.contains("Not logged in"), "{text}");
        assert!(text.contains("set ANTHROPIC_API_KEY"), "{text}");
        assert!(text.contains("`claude`"), "{text}");
    }
}

/// A session run with `--session-mirror` (two turns of a `Client` with a session store): the
/// CLI prints its transcript lines as `transcript_mirror` frames, before each result and after
/// the last one; each is one `Event::Mirror` naming the session's transcript file.
#[test]
fn session_mirror_frames_carry_the_transcript() {
    let (recording, _) = load(&fixtures().join("session_mirror.jsonl"));
    let outcome = replay(&recording, 4096);
    let session_id = outcome
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Result(r) => Some(r.session_id().to_owned()),
            _ => None,
        })
        .unwrap();
    assert_eq!(outcome.mirrors.len(), 7);
    assert!(outcome
        .mirrors
        .iter()
        .all(|m| m.file_path.ends_with(&format!(
            "/projects/-tmp-claude-agent-testkit-work-5726-1/{session_id}.jsonl"
        ))));
    let types: Vec<String> = outcome
        .mirrors
        .iter()
        .flat_map(|m| &m.entries)
        .map(|e| {
            serde_json::from_str::<Value>(e.as_str()).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let count = |t: &str| types.iter().filter(|x| *x == t).count();
    assert_eq!((count("user"), count("assistant")), (2, 2), "{types:?}");
    assert_eq!(types.len(), 23);
}

/// A session of CLI 2.1.331 resumed after two turns (`resumed_cost.jsonl`, recorded by the
/// real-CLI scenario `turn_costs`): once `initialize` is answered, the session itself asks the
/// CLI what running cost it carried over (`get_usage`, where the recording has it), and the
/// first result's turn cost is the turn's own share, matching its tokens priced, not the
/// running total of all three turns.
#[test]
fn a_resumed_session_asks_what_the_cli_carried_over() {
    use claude_agent_core::cost::{ModelPrice, PriceTable};

    let (recording, steps) = load(&fixtures().join("resumed_cost.jsonl"));
    for chunk in [1, 7, 4096] {
        let now = Instant::now();
        let mut config = recording.session_config(InputMode::SingleTurn);
        config.cost_carried_over = true;
        config.prices =
            Some(PriceTable::new().with("claude-opus-5", ModelPrice::per_million(4.0, 20.0)));
        let mut session = Session::new(config, now);
        let mut written: Vec<Value> = Vec::new();
        let mut results = Vec::new();
        let mut ours_get_usage: Option<String> = None;
        let mut recorded_get_usage: Option<String> = None;
        let pump = |session: &mut Session, written: &mut Vec<Value>, results: &mut Vec<_>| {
            while let Some(Transmit::Write(bytes)) = session.poll_transmit() {
                for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                    written.push(serde_json::from_slice(line).unwrap());
                }
            }
            while let Some(event) = session.poll_event() {
                match event {
                    Event::Message(Message::Result(result)) => results.push(result),
                    Event::Message(_)
                    | Event::CliVersion(_)
                    | Event::Ready
                    | Event::OwnRequestSent { .. }
                    | Event::RequestDone { outcome: Ok(_), .. } => {}
                    other => panic!("unexpected {other:?}"),
                }
            }
        };
        for step in &steps {
            let value = &step.value;
            if step.dir_in {
                match (value["type"].as_str(), value["request"]["subtype"].as_str()) {
                    (Some("user"), _) => {
                        let text = value["message"]["content"].as_str().unwrap();
                        session.send_user(now, UserInput::text(text)).unwrap();
                    }
                    // The session writes these itself.
                    (_, Some("initialize")) => {}
                    (_, Some("get_usage")) => {
                        recorded_get_usage = value["request_id"].as_str().map(String::from);
                    }
                    other => panic!("unexpected line to the CLI: {other:?}"),
                }
                pump(&mut session, &mut written, &mut results);
                continue;
            }
            let mut line = value.clone();
            let answered = line["response"]["request_id"].as_str().map(String::from);
            if line["type"] == "control_response" {
                let ours = if answered == recorded_get_usage && answered.is_some() {
                    ours_get_usage
                        .clone()
                        .expect("the session asked before the answer")
                } else {
                    session.initialize_id().to_string()
                };
                line["response"]["request_id"] = Value::String(ours);
            }
            let text = format!("{line}\n");
            for piece in text.as_bytes().chunks(chunk) {
                session.handle_stdout(now, piece);
                pump(&mut session, &mut written, &mut results);
            }
            if ours_get_usage.is_none() {
                ours_get_usage = written
                    .iter()
                    .find(|w| w["request"]["subtype"] == "get_usage")
                    .and_then(|w| w["request_id"].as_str().map(String::from));
            }
        }
        let kinds: Vec<String> = written
            .iter()
            .map(|w| match w["request"]["subtype"].as_str() {
                Some(subtype) => subtype.to_owned(),
                None => w["type"].as_str().unwrap().to_owned(),
            })
            .collect();
        assert_eq!(kinds, ["initialize", "user", "get_usage"], "chunk {chunk}");
        assert_eq!(
            written[2]["request"],
            serde_json::json!({"subtype": "get_usage", "skip_behaviors": true})
        );
        let [result] = &results[..] else {
            panic!("chunk {chunk}: {results:?}")
        };
        let cost = result.turn_cost.as_ref().expect("a turn cost");
        let total = result.total_cost_usd.unwrap();
        let cli = cost.cli_usd.expect("the CLI's figure for the turn");
        assert!((cli - (total - 0.000344)).abs() < 1e-12, "{cost:?}");
        assert!((cli - cost.priced_usd.unwrap()).abs() < 1e-12, "{cost:?}");
        assert_eq!((cost.tokens.input, cost.tokens.output), (11, 3));
        assert_eq!(session.spent().turns, 1);
    }
}

/// Every recording, cut at random (pieces of 1 to 200 bytes, across line ends) with the clock
/// moving a millisecond a step, gives exactly the events (compared with `==`) and the bytes of
/// feeding it a line at a time with the clock standing still: what the session does depends on
/// neither the chunking nor the time between its deadlines.
#[test]
fn every_recording_gives_the_same_events_however_it_is_cut_and_timed() {
    let start = Instant::now();
    let run = |recording: &Recording, pace: Pace| {
        let config = recording.session_config(InputMode::Streaming);
        let mut session = Session::new(config, pace.start);
        let (mut events, mut written) = (Vec::new(), Vec::new());
        recording.replay(&mut session, &pace, |session, now| {
            while let Some(event) = session.poll_event() {
                if let Event::Inbound(request) = &event {
                    if let Some(answer) = recording.answer_to(&request.wire_id) {
                        let reply = Reply::Raw(answer.to_owned());
                        session.respond(now, request.id, reply).unwrap();
                    }
                }
                events.push(event);
            }
            written.extend(std::iter::from_fn(|| session.poll_transmit()));
        });
        (events, written)
    };
    let mut recordings = 0;
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        let (recording, _) = load(&path);
        let (events, written) = run(&recording, Pace::new(start));
        assert!(events.len() > 2, "{}: {events:?}", path.display());
        for seed in 0..20 {
            let pace = Pace {
                step: std::time::Duration::from_millis(1),
                pieces: Pieces::Random { seed, longest: 200 },
                ..Pace::new(start)
            };
            let (cut_events, cut_written) = run(&recording, pace);
            assert!(cut_events == events, "{} seed {seed}", path.display());
            // Writes may be split or joined differently; the bytes and the close are the same.
            let bytes = |written: &[Transmit]| -> Vec<u8> {
                written
                    .iter()
                    .flat_map(|t| match t {
                        Transmit::Write(bytes) => bytes.clone(),
                        _ => b"<close>".to_vec(),
                    })
                    .collect()
            };
            assert_eq!(
                bytes(&cut_written),
                bytes(&written),
                "{} seed {seed}",
                path.display()
            );
        }
        recordings += 1;
    }
    assert!(recordings >= 15, "{recordings} recordings");
}
