//! The fuzz targets as ordinary tests (stable, no libFuzzer): every seed made from the
//! recordings, every saved regression input, and a few hundred pseudo-random inputs go through
//! the same functions the fuzzer calls.

use std::path::{Path, PathBuf};

use arbitrary::{Arbitrary, Unstructured};
use claude_agent_fuzz::commands::{ReplyKind, RequestKind};
use claude_agent_fuzz::frames::Frame;
use claude_agent_fuzz::ops::{encode, play, Op};
use claude_agent_fuzz::seeds::{
    late_tool_call, quiet_turn, recorded_ops, recorded_stdout, seeds, Seed,
};
use claude_agent_fuzz::targets;
use claude_agent_fuzz::xorshift::XorShift;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn all_seeds() -> Vec<Seed> {
    seeds(&root().join("..")).expect("the recordings are readable")
}

fn run(target: &str, data: &[u8]) {
    match target {
        "framer" => targets::framer(data),
        "stdout" => targets::stdout(data),
        "ops" => targets::ops(data),
        other => panic!("no target {other}"),
    }
}

#[test]
fn seeds_cover_every_recording_and_target() {
    let seeds = all_seeds();
    for target in ["framer", "stdout", "ops"] {
        let n = seeds.iter().filter(|s| s.target == target).count();
        assert!(n >= 10, "only {n} seeds for {target}");
    }
    let hello =
        std::fs::read_to_string(root().join("../core/tests/transcripts/hello.jsonl")).unwrap();
    let stdout = recorded_stdout(&hello);
    assert_eq!(stdout.iter().filter(|b| **b == b'\n').count(), 4);
}

#[test]
fn every_seed_passes_its_target() {
    for seed in all_seeds() {
        run(seed.target, &seed.data);
    }
}

#[test]
fn every_regression_input_passes_its_target() {
    let mut count = 0;
    for target in ["framer", "stdout", "ops"] {
        let dir = root().join("regressions").join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        paths.sort();
        for path in paths.iter().filter(|p| p.is_file()) {
            eprintln!("{}", path.display());
            run(target, &std::fs::read(path).unwrap());
            count += 1;
        }
    }
    eprintln!("{count} regression inputs");
}

/// The encoder writes exactly what `arbitrary` reads back, so the `ops` seeds mean what they say.
#[test]
fn encoded_ops_decode_to_themselves() {
    let mut sequences: Vec<Vec<Op>> = Vec::new();
    for entry in std::fs::read_dir(root().join("../core/tests/transcripts")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        sequences.push(recorded_ops(&text));
    }
    let mut every_variant = vec![
        Op::Stdout(vec![0, 1, 255]),
        Op::SendUser(3),
        Op::EndInput,
        Op::Eof,
        Op::Exit(-9),
        Op::Exit(1),
        Op::Timeout(65535),
        Op::Close,
        Op::PlaceLost,
        Op::BudgetReport { exceeded: true },
        Op::BudgetReport { exceeded: false },
        Op::StoreAnswer(2),
        Op::StoreLate,
        Op::Charged,
        Op::Abandon,
    ];
    every_variant.extend(RequestKind::ALL.map(Op::Request));
    every_variant.extend(ReplyKind::ALL.map(|k| Op::Respond(7, k)));
    every_variant.extend(
        [
            Frame::Result {
                is_error: true,
                subtype: 3,
            },
            Frame::Assistant { subagent: true },
            Frame::StreamEvent,
            Frame::SystemInit,
            Frame::SessionState {
                state: 2,
                sdk_host_only: true,
            },
            Frame::Task { task: 9, step: 5 },
            Frame::CanUseTool { id: 1 },
            Frame::HookCallback { id: 2, callback: 3 },
            Frame::McpMessage {
                id: 4,
                method: 5,
                known_server: true,
            },
            Frame::Elicitation { id: 6 },
            Frame::UserDialog {
                id: 6,
                about_tool: true,
            },
            Frame::UnknownRequest { id: 7 },
            Frame::ControlResponse {
                ours: 8,
                success: true,
                with_pending: true,
            },
            Frame::Cancel { id: 9 },
            Frame::KeepAlive,
            Frame::UnknownType,
            Frame::Malformed { which: 4 },
        ]
        .map(Op::StdoutLine),
    );
    assert_eq!(every_variant.len(), 15 + 19 + 21 + 17);
    sequences.push(every_variant);
    for ops in sequences {
        let data = encode(5, &ops);
        assert_eq!(data[0], 5);
        let mut u = Unstructured::new(&data[1..]);
        let mut decoded = Vec::new();
        while !u.is_empty() {
            decoded.push(Op::arbitrary(&mut u).unwrap());
        }
        assert_eq!(decoded, ops);
    }
}

#[test]
fn pseudo_random_inputs_pass_every_target() {
    let seeds = all_seeds();
    let mut rng = XorShift::new(0x5eed);
    for round in 0..300 {
        let target = ["framer", "stdout", "ops"][round % 3];
        let data = if round % 2 == 0 {
            let len = rng.below(600);
            rng.bytes(len)
        } else {
            // A seed of this target with a few bytes flipped, cut or repeated.
            let pool: Vec<&Seed> = seeds.iter().filter(|s| s.target == target).collect();
            let mut data = pool[rng.below(pool.len())].data.clone();
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(data.len());
                match rng.below(3) {
                    0 => data[at] ^= 1 << rng.below(8),
                    1 => data.truncate(at.max(3)),
                    _ => {
                        let end = (at + rng.below(64)).min(data.len());
                        let piece = data[at..end].to_vec();
                        data.splice(at..at, piece);
                    }
                }
            }
            data
        };
        run(target, &data);
    }
}

/// The decisions the session makes on its own are within the fuzzer's reach: one quiet turn,
/// three configurations, three outcomes (the harness checks that a result never overtakes the
/// store); and a tool call answered in the host's place once its time limit passed, while a
/// request past the host's limit waited.
#[test]
fn the_sessions_own_decisions_are_reached() {
    let position =
        |events: &[String], prefix: &str| events.iter().position(|e| e.starts_with(prefix));

    // A client's connect and store: ready at the readiness bound (`calc` never says it is
    // connected), and the result after its transcript frame was stored.
    let store = play(2, &quiet_turn(), true);
    assert!(store
        .written
        .iter()
        .any(|l| l.contains(r#""subtype":"mcp_status""#)));
    let ready = position(&store.events, "Ready").expect("ready");
    let mirror = position(&store.events, "Mirror(").expect("a transcript frame");
    let result = store
        .events
        .iter()
        .position(|e| e.starts_with("Message(Result("))
        .expect("the result");
    assert!(ready < mirror && mirror < result, "{:#?}", store.events);

    // The store fences the host off while the turn's result waits for it: the place is lost,
    // the session closes, and the result never reaches the application.
    let mut turn = quiet_turn();
    turn.insert(5, Op::StoreAnswer(2));
    let fenced = play(2, &turn, true);
    assert!(
        position(&fenced.events, "Closing(PlaceLost").is_some(),
        "{:#?}",
        fenced.events
    );
    assert!(position(&fenced.events, "Message(Result(").is_none());

    // A stall interrupts the turn, which goes on.
    let interrupt = play(3, &quiet_turn(), true);
    assert!(
        position(&interrupt.events, "Stalled(").is_some(),
        "{:#?}",
        interrupt.events
    );
    assert!(interrupt
        .written
        .iter()
        .any(|l| l.contains(r#""subtype":"interrupt""#)));
    assert!(position(&interrupt.events, "Closing(").is_none());

    // A stall interrupts the turn and closes the session: the next message is refused.
    let close = play(5, &quiet_turn(), true);
    assert!(
        position(&close.events, "Closing(Stalled(").is_some(),
        "{:#?}",
        close.events
    );
    let written = &close.written;
    let interrupt = written
        .iter()
        .position(|l| l.contains(r#""subtype":"interrupt""#));
    let closed = written.iter().position(|l| l == "close stdin");
    assert!(interrupt.is_some() && interrupt < closed, "{written:#?}");
    assert_eq!(
        written
            .iter()
            .filter(|l| l.contains(r#""type":"user""#))
            .count(),
        1
    );

    let late = play(2, &late_tool_call(), true);
    let expired = position(&late.events, "Expired(")
        .unwrap_or_else(|| panic!("{:#?}\n{:#?}", late.events, late.written));
    let inbound: Vec<usize> = (0..late.events.len())
        .filter(|&i| late.events[i].starts_with("Inbound("))
        .collect();
    assert_eq!(inbound.len(), 3, "{:#?}", late.events);
    assert!(
        expired < inbound[2],
        "the held prompt comes once the host is told the call is out of the way"
    );
    assert!(late
        .written
        .iter()
        .any(|l| l.contains("did not finish within 2 s and was stopped")));
}
