//! Seed inputs for every target, made from the real CLI recordings in `core/tests/transcripts/`
//! (and those of the run-end rule in `core/tests/releases/2.1.332/`) and the benchmark corpus
//! `core/tests/corpus.jsonl`.

use std::path::Path;

use serde_json::Value;

use crate::commands::{ReplyKind, RequestKind};
use crate::frames::Frame;
use crate::ops::{self, Op};

/// A named input for one target.
#[derive(Debug, Clone)]
pub struct Seed {
    /// `framer`, `stdout` or `ops`.
    pub target: &'static str,
    /// A file name for it, unique per target.
    pub name: String,
    /// The input bytes.
    pub data: Vec<u8>,
}

/// What the CLI printed in one recording, as its stdout bytes.
pub fn recorded_stdout(recording: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in recording.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if value["dir"] == "out" {
            out.extend_from_slice(value["msg"].to_string().as_bytes());
            out.push(b'\n');
        }
    }
    out
}

/// The recording as an op sequence: its stdout lines, its user messages and requests, and its
/// answers to the CLI's requests (those the host answers; the session answers MCP handshakes).
pub fn recorded_ops(recording: &str) -> Vec<Op> {
    let mut ops = Vec::new();
    let mut asked: Vec<(String, String)> = Vec::new();
    for line in recording.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let msg = &value["msg"];
        if value["dir"] == "out" {
            if msg["type"] == "control_request" {
                let request = &msg["request"];
                let kind = match request["subtype"].as_str() {
                    Some("mcp_message") => request["message"]["method"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    other => other.unwrap_or_default().to_owned(),
                };
                let id = msg["request_id"].as_str().unwrap_or_default().to_owned();
                asked.push((id, kind));
            }
            let mut bytes = msg.to_string().into_bytes();
            bytes.push(b'\n');
            ops.push(Op::Stdout(bytes));
            continue;
        }
        match msg["type"].as_str() {
            Some("user") => ops.push(Op::SendUser(0)),
            Some("control_request") => {
                let subtype = msg["request"]["subtype"].as_str().unwrap_or_default();
                if subtype != "initialize" {
                    ops.push(Op::Request(RequestKind::from_subtype(subtype)));
                }
            }
            Some("control_response") => {
                let response = &msg["response"];
                let id = response["request_id"].as_str().unwrap_or_default();
                let kind = asked
                    .iter()
                    .find(|(asked, _)| asked == id)
                    .map(|(_, kind)| kind.as_str());
                let body = &response["response"];
                let reply = match kind {
                    Some("can_use_tool") if body["behavior"] == "allow" => ReplyKind::Allow,
                    Some("can_use_tool") => ReplyKind::Deny,
                    Some("hook_callback")
                        if body["hookSpecificOutput"]["permissionDecision"] == "deny" =>
                    {
                        ReplyKind::HookDenyTool
                    }
                    Some("hook_callback") => ReplyKind::HookProceed,
                    Some("tools/call") => ReplyKind::ToolText,
                    Some("resources/read") => ReplyKind::Resource,
                    Some("prompts/get") => ReplyKind::Prompt,
                    Some("request_user_dialog") => ReplyKind::DialogCompleted,
                    _ => continue,
                };
                ops.push(Op::Respond(0, reply));
            }
            _ => {}
        }
    }
    ops.extend([Op::EndInput, Op::Eof, Op::Exit(0)]);
    ops
}

/// A turn that goes quiet for 6 s, then ends with its transcript frame and result: the
/// session's own decisions on it (readiness, a stall, a result waiting for the store) differ by
/// configuration.
pub fn quiet_turn() -> Vec<Op> {
    use Frame::*;
    let line = Op::StdoutLine;
    vec![
        Op::SendUser(0),
        line(ControlResponse {
            ours: 0,
            success: true,
            with_pending: false,
        }),
        Op::Timeout(600),
        line(Assistant { subagent: false }),
        line(Result {
            is_error: false,
            subtype: 4,
        }),
        Op::SendUser(1),
        Op::Timeout(1),
        Op::Eof,
        Op::Exit(0),
    ]
}

/// A host with as many requests as it may take (configuration 2 takes two) and a tool call it
/// does not answer in time: a permission prompt, a `calc` call, a prompt held back, then the
/// call's 2 s pass.
pub fn late_tool_call() -> Vec<Op> {
    use Frame::*;
    let line = Op::StdoutLine;
    vec![
        Op::SendUser(0),
        line(ControlResponse {
            ours: 0,
            success: true,
            with_pending: false,
        }),
        line(CanUseTool { id: 1 }),
        line(McpMessage {
            id: 2,
            method: 3,
            known_server: true,
        }),
        line(CanUseTool { id: 3 }),
        Op::Timeout(150),
        Op::Timeout(60),
        Op::Respond(0, ReplyKind::Fitting),
        Op::Respond(0, ReplyKind::Fitting),
    ]
}

/// Hand-made sequences over the frame grammar that reach states the recordings do not.
fn synthetic_ops() -> Vec<Vec<Op>> {
    use Frame::*;
    let line = Op::StdoutLine;
    let initialized = || {
        line(ControlResponse {
            ours: 0,
            success: true,
            with_pending: false,
        })
    };
    // A turn whose result waits for the store, its mirror frame first; then `rest`.
    let stored_turn_then = |rest: Vec<Op>| {
        let turn = vec![
            Op::SendUser(0),
            initialized(),
            line(Assistant { subagent: false }),
            line(Result {
                is_error: false,
                subtype: 4,
            }),
        ];
        [turn, rest].concat()
    };
    vec![
        quiet_turn(),
        late_tool_call(),
        vec![
            Op::SendUser(0),
            initialized(),
            line(SystemInit),
            line(CanUseTool { id: 1 }),
            line(HookCallback { id: 2, callback: 0 }),
            line(McpMessage {
                id: 3,
                method: 3,
                known_server: true,
            }),
            Op::Respond(0, ReplyKind::Allow),
            Op::Respond(0, ReplyKind::Fitting),
            Op::Respond(0, ReplyKind::ToolError),
            line(Assistant { subagent: false }),
            line(Result {
                is_error: false,
                subtype: 0,
            }),
            line(SessionState {
                state: 0,
                sdk_host_only: false,
            }),
            Op::Eof,
            Op::Exit(0),
        ],
        vec![
            Op::Request(RequestKind::Interrupt),
            Op::Request(RequestKind::McpStatus),
            Op::Request(RequestKind::SetModel),
            line(ControlResponse {
                ours: 1,
                success: false,
                with_pending: true,
            }),
            line(Elicitation { id: 4 }),
            line(Cancel { id: 4 }),
            line(Cancel { id: 7 }),
            Op::Timeout(6500),
            Op::Stdout(b"{\"type\":\"assist".to_vec()),
            Op::Stdout(b"ant\"}\n\xff\xfe\n{}\n".to_vec()),
            Op::Close,
            Op::Exit(-9),
            Op::Eof,
        ],
        vec![
            Op::SendUser(1),
            line(Task { task: 1, step: 0 }),
            line(Result {
                is_error: true,
                subtype: 1,
            }),
            Op::EndInput,
            line(Task { task: 1, step: 3 }),
            line(SessionState {
                state: 0,
                sdk_host_only: true,
            }),
            Op::Timeout(u16::MAX),
            line(UnknownRequest { id: 5 }),
            line(Malformed { which: 3 }),
            line(UnknownType),
            line(KeepAlive),
            line(StreamEvent),
            Op::Exit(1),
            Op::Eof,
        ],
        vec![
            Op::SendUser(0),
            initialized(),
            line(McpMessage {
                id: 1,
                method: 7,
                known_server: true,
            }),
            line(McpMessage {
                id: 2,
                method: 8,
                known_server: true,
            }),
            line(McpMessage {
                id: 3,
                method: 11,
                known_server: true,
            }),
            line(McpMessage {
                id: 4,
                method: 12,
                known_server: true,
            }),
            line(UserDialog {
                id: 5,
                about_tool: true,
            }),
            Op::Respond(0, ReplyKind::Resource),
            Op::Respond(0, ReplyKind::Fitting),
            Op::Respond(0, ReplyKind::Prompt),
            Op::Respond(1, ReplyKind::DialogCompleted),
            Op::Respond(0, ReplyKind::Fitting),
            Op::Request(RequestKind::AddInProcessServer),
            Op::Request(RequestKind::DropInProcessServers),
            line(McpMessage {
                id: 6,
                method: 3,
                known_server: true,
            }),
            Op::Request(RequestKind::Reinitialize),
            line(ControlResponse {
                ours: 3,
                success: true,
                with_pending: false,
            }),
            line(UserDialog {
                id: 7,
                about_tool: false,
            }),
            line(Cancel { id: 7 }),
            line(Result {
                is_error: false,
                subtype: 0,
            }),
            Op::EndInput,
            Op::Eof,
            Op::Exit(0),
        ],
        // A result waiting for the store (its mirror frame first) when the place is lost; the
        // CLI goes on printing while it stops.
        stored_turn_then(vec![
            Op::PlaceLost,
            line(Assistant { subagent: false }),
            line(Result {
                is_error: false,
                subtype: 0,
            }),
            Op::Timeout(100),
            Op::Eof,
            Op::Exit(0),
        ]),
        // A key's budget nearly spent, then exceeded with a permission open; the place is lost
        // while the session stops for the budget, before the turn's result comes.
        vec![
            Op::SendUser(0),
            initialized(),
            Op::BudgetReport { exceeded: false },
            line(CanUseTool { id: 1 }),
            Op::BudgetReport { exceeded: true },
            line(Assistant { subagent: false }),
            Op::PlaceLost,
            line(Result {
                is_error: false,
                subtype: 0,
            }),
            Op::Respond(0, ReplyKind::Allow),
            Op::BudgetReport { exceeded: true },
            Op::Eof,
            Op::Exit(-15),
        ],
        // The store fails a turn's lines, which wait with its result; they are tried again
        // and stored. The next turn's append is fenced: another host holds the session.
        stored_turn_then(vec![
            Op::StoreAnswer(1),
            Op::Timeout(20),
            Op::StoreAnswer(1),
            Op::Timeout(80),
            Op::StoreAnswer(0),
            Op::SendUser(1),
            line(Result {
                is_error: false,
                subtype: 5,
            }),
            Op::StoreAnswer(2),
            line(Assistant { subagent: false }),
            Op::Eof,
            Op::Exit(0),
        ]),
        // A fleet's session (configurations 2 and 5): the first turn's result goes on once it
        // is charged; the second's charge is under way when the CLI ends, and the place is lost
        // before it is made. That result is dropped, and not charged again.
        stored_turn_then(vec![
            Op::StoreAnswer(0),
            Op::Charged,
            Op::SendUser(1),
            line(Assistant { subagent: false }),
            line(Result {
                is_error: false,
                subtype: 0,
            }),
            Op::StoreAnswer(0),
            Op::Eof,
            Op::Exit(0),
            Op::PlaceLost,
            Op::Charged,
        ]),
        // A fleet's session given up by its host: the first turn is charged and handed on; the
        // second's result waits for the store (configuration 2) or its charge (5) when the host
        // abandons the session, which then finishes at once, with that turn still counted.
        stored_turn_then(vec![
            Op::StoreAnswer(0),
            Op::Charged,
            Op::SendUser(1),
            line(Assistant { subagent: false }),
            line(Result {
                is_error: false,
                subtype: 0,
            }),
            Op::Abandon,
            Op::StoreAnswer(0),
            Op::Charged,
        ]),
        // A busy host takes a turn's frame and its end without keeping the store in step at
        // once: the result and the end wait for the sync that comes an op later.
        vec![
            Op::SendUser(0),
            initialized(),
            Op::StoreLate,
            line(Assistant { subagent: false }),
            Op::StoreLate,
            line(Result {
                is_error: false,
                subtype: 4,
            }),
            Op::StoreAnswer(1),
            Op::StoreLate,
            Op::Eof,
            Op::StoreLate,
            Op::Exit(0),
            Op::Timeout(100),
        ],
    ]
}

/// The recordings of the run-end rule's harder cases (a background shell, a server the CLI
/// waits on, work taken up after `idle`), seeds besides `core/tests/transcripts/`.
const RUN_END_RECORDINGS: [&str; 3] = [
    "background_shell_after_input.jsonl",
    "background_server.jsonl",
    "wake_after_idle.jsonl",
];

/// Every seed, for every target, from the recordings and the benchmark corpus of the repo whose
/// root is `repo`.
pub fn seeds(repo: &Path) -> std::io::Result<Vec<Seed>> {
    let mut recordings = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(repo.join("core/tests/transcripts"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    paths.extend(
        RUN_END_RECORDINGS
            .iter()
            .map(|name| repo.join("core/tests/releases/2.1.332").join(name)),
    );
    for path in paths {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        recordings.push((name, std::fs::read_to_string(&path)?));
    }
    let corpus = std::fs::read(repo.join("core/tests/corpus.jsonl"))?;

    let mut seeds = Vec::new();
    let mut add = |target, name: String, data| seeds.push(Seed { target, name, data });
    for (name, text) in &recordings {
        let stdout = recorded_stdout(text);
        // framer: in one piece with the rich config; cut in three with the small line limit.
        add(
            "framer",
            format!("{name}-whole"),
            [&[0x20][..], &stdout].concat(),
        );
        add(
            "framer",
            format!("{name}-cut"),
            [&[0x43, 7, 0, 200, 0, 99, 1][..], &stdout].concat(),
        );
        for (config, seed) in [(2u8, 0u8), (3, 1), (4, 2)] {
            let data = [&[config, seed, 128][..], &stdout].concat();
            add("stdout", format!("{name}-{config}"), data);
        }
        let ops = recorded_ops(text);
        add("ops", format!("{name}-streaming"), ops::encode(2, &ops));
        add("ops", format!("{name}-single"), ops::encode(3, &ops));
    }
    add("framer", "corpus".into(), [&[0x00][..], &corpus].concat());
    add(
        "stdout",
        "corpus".into(),
        [&[0, 0, 0][..], &corpus].concat(),
    );
    for (i, line) in corpus.split(|b| *b == b'\n').enumerate() {
        if !line.is_empty() {
            add(
                "stdout",
                format!("corpus-line-{i}"),
                [&[1, 0, 255][..], line].concat(),
            );
        }
    }
    let corpus_ops = vec![Op::SendUser(0), Op::Stdout(corpus), Op::Eof, Op::Exit(0)];
    add("ops", "corpus".into(), ops::encode(1, &corpus_ops));
    for (i, sequence) in synthetic_ops().iter().enumerate() {
        add("ops", format!("synthetic-{i}"), ops::encode(2, sequence));
        add(
            "ops",
            format!("synthetic-{i}-small"),
            ops::encode(4, sequence),
        );
    }
    add(
        "ops",
        "quiet-turn-single".into(),
        ops::encode(3, &quiet_turn()),
    );
    Ok(seeds)
}
