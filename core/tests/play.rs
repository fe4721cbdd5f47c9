//! Recordings of the real CLI played to their end through the core alone, as a host of the core
//! plays a session (`Recording::play`): the host answers the CLI's requests by a rule of typed
//! replies, and its answers are checked against the recorded host's, byte for byte as JSON; the
//! play ends the input, reports stdout's end and the exit, and the session finishes. Cut into
//! pieces of any size, the same recording plays the same.

use std::time::{Duration, Instant};

use claude_agent_core::control::{InboundKind, Reply};
use claude_agent_core::hooks::HookOutput;
use claude_agent_core::mcp::ToolResult;
use claude_agent_core::message::Message;
use claude_agent_core::permission::PermissionResult;
use claude_agent_core::recording::{Pace, Pieces, Played, Recording};
use claude_agent_core::session::{
    Event, ExitStatusInfo, InputMode, Session, Termination, Transmit,
};

fn recording(name: &str) -> Recording {
    let path = format!("{}/tests/transcripts/{name}", env!("CARGO_MANIFEST_DIR"));
    Recording::parse(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The host's rule: what a host of typed callbacks answers, the same for every recording.
fn typed_host(kind: &InboundKind) -> Option<Reply> {
    Some(match kind {
        InboundKind::CanUseTool(request) if request.tool_name == "Bash" => {
            Reply::Permission(PermissionResult::deny("not allowed by policy"))
        }
        InboundKind::CanUseTool(_) => Reply::Permission(PermissionResult::allow()),
        InboundKind::HookCallback(_) => Reply::Hook(HookOutput::deny_tool("hook says no")),
        InboundKind::McpToolCall(call) if call.tool == "add" => {
            Reply::ToolResult(ToolResult::text("42"))
        }
        _ => return None,
    })
}

fn play(name: &str, pieces: Pieces) -> Played {
    let recording = recording(name);
    let pace = Pace {
        step: Duration::from_millis(3),
        pieces,
        ..Pace::new(Instant::now())
    };
    let mut session = Session::new(recording.session_config(InputMode::SingleTurn), pace.start);
    recording.play(&mut session, &pace, ExitStatusInfo::code(0), |request| {
        typed_host(&request.kind)
    })
}

#[test]
fn a_typed_host_answers_as_the_recorded_host_did_and_the_session_completes() {
    for name in ["permission_deny.jsonl", "hook_deny.jsonl", "sdk_mcp.jsonl"] {
        let played = play(name, Pieces::Lines);
        assert!(
            played.answers_differing.is_empty(),
            "{name}: {:#?}",
            played.answers_differing
        );
        // Every request the recorded host answered, this one answered too.
        assert!(
            played.unanswered.is_empty(),
            "{name}: {:?}",
            played.unanswered
        );
        let recorded = std::fs::read_to_string(format!(
            "{}/tests/transcripts/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
        .lines()
        .filter(|line| line.starts_with(r#"{"dir":"in","msg":{"type":"control_response""#))
        .count();
        assert_eq!(played.answers_checked, recorded, "{name}");
        assert_eq!(
            played.termination(),
            Some(&Termination::Completed),
            "{name}"
        );
        // The input ended once the turn's result came, and the CLI was never signalled.
        assert!(played.transmits.contains(&Transmit::CloseStdin), "{name}");
        assert!(
            !played
                .transmits
                .iter()
                .any(|t| matches!(t, Transmit::Signal(_))),
            "{name}"
        );
        // After the exit, the pipes are let go of once.
        assert_eq!(
            played.transmits.last(),
            Some(&Transmit::ReleasePipes),
            "{name}"
        );
    }
}

#[test]
fn a_recording_cut_any_way_plays_the_same() {
    for name in ["permission_deny.jsonl", "hook_deny.jsonl", "sdk_mcp.jsonl"] {
        let whole = play(name, Pieces::Lines);
        for pieces in [
            Pieces::Every(1),
            Pieces::Every(7),
            Pieces::Random {
                seed: 11,
                longest: 40,
            },
        ] {
            assert_eq!(play(name, pieces), whole, "{name} in {pieces:?}");
        }
    }
}

/// A session of a fleet with a session store, played from the real CLI's recording of two
/// turns it mirrored: each result waits for its turn's lines, then for its charge, which comes
/// just before it with the turn's own cost; the session still completes.
#[test]
fn each_mirrored_turn_is_stored_then_charged_then_handed_on() {
    let recording = recording("session_mirror.jsonl");
    let pace = Pace::new(Instant::now());
    let mut config = recording.session_config(InputMode::SingleTurn);
    config.results_after_store = true;
    config.results_after_charge = true;
    let mut session = Session::new(config, pace.start);
    let played = recording.play(&mut session, &pace, ExitStatusInfo::code(0), |_| None);
    let events = &played.events;
    let mut results = 0;
    for (at, event) in events.iter().enumerate() {
        let Event::Message(Message::Result(result)) = event else {
            continue;
        };
        results += 1;
        let before = &events[..at];
        assert!(
            matches!(before.last(), Some(Event::Charge(cost)) if Some(&**cost) == result.turn_cost.as_ref()),
            "result {results} comes right after its charge: {:?}",
            before.last()
        );
        let frames = before
            .iter()
            .filter(|event| matches!(event, Event::Mirror(_)))
            .count();
        assert!(frames > 0, "result {results} before its turn's lines");
    }
    let charges = events
        .iter()
        .filter_map(|event| match event {
            Event::Charge(cost) => cost.cli_usd,
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(results, 2);
    // Each turn's own cost: the CLI's running total was 0.000172, then 0.000344.
    assert_eq!(charges.len(), 2);
    assert!(
        charges.iter().all(|usd| (usd - 0.000172).abs() < 1e-9),
        "{charges:?}"
    );
    assert_eq!(played.termination(), Some(&Termination::Completed));
}
