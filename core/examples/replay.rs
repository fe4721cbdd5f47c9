//! Replays a recording through a `Session` and prints every event.
//!
//! ```text
//! cargo run -q -p claude-agent-core --example replay -- FILE.jsonl [--summary]
//! ```
//!
//! FILE is either a recording (`{"dir":"in"|"out","msg":…}` per line, as `Options::record_to`
//! writes them) or plain CLI stdout (one message per line). Inbound requests (permission prompts,
//! hook callbacks, in-process tool calls) are answered the way the recording did, with its success
//! body or its error. A request the recording never answered stays open, as it did in the
//! recorded session: a later `control_cancel_request` shows as a cancel, and a request still open
//! at the end is listed as `open`. With `--summary` the output ends with one line:
//! `messages=N results=N inbound=N cancels=N errors=N unknown=N`.

use std::collections::HashMap;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Instant;

use claude_agent_core::control::{InboundId, Reply};
use claude_agent_core::message::Message;
use claude_agent_core::recording::{Direction, Pace, Recording};
use claude_agent_core::session::{Event, InputMode, Session};
use claude_agent_core::Json;
use serde_json::Value;

#[derive(Default)]
struct Counts {
    messages: usize,
    results: usize,
    inbound: usize,
    cancels: usize,
    errors: usize,
    unknown: usize,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let summary = args.iter().any(|a| a == "--summary");
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: replay FILE.jsonl [--summary]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };

    let recording = match Recording::parse(&text) {
        Ok(recording) => recording,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = io::stdout().lock();
    let printed = replay(&recording, &mut out).and_then(|counts| {
        if summary {
            let Counts {
                messages,
                results,
                inbound,
                cancels,
                errors,
                unknown,
            } = counts;
            writeln!(out, "messages={messages} results={results} inbound={inbound} cancels={cancels} errors={errors} unknown={unknown}")?;
        }
        Ok(())
    });
    match printed {
        Ok(()) => ExitCode::SUCCESS,
        // Output piped into a program that stopped reading (`| head`): nothing more to say.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Replays `recording` through a session, writing one line per event to `out`, then one `open`
/// line per inbound request that was neither answered nor cancelled.
fn replay(recording: &Recording, out: &mut impl Write) -> io::Result<Counts> {
    let replies = recorded_replies(recording);
    let pace = Pace::new(Instant::now());
    let mut session = Session::new(recording.session_config(InputMode::Streaming), pace.start);
    let mut counts = Counts::default();
    // Inbound requests the recording never answered, by id, with their wire ids.
    let mut open: HashMap<InboundId, String> = HashMap::new();
    let mut result = Ok(());
    recording.replay(&mut session, &pace, |session, now| {
        while session.poll_transmit().is_some() {}
        while let Some(event) = session.poll_event() {
            if result.is_ok() {
                result = print_event(out, &event, &mut counts);
            }
            match event {
                Event::Inbound(req) => match replies.get(&req.wire_id) {
                    Some(reply) => {
                        if let Err(e) = session.respond(now, req.id, reply.clone()) {
                            if result.is_ok() {
                                result = writeln!(out, "respond  {} failed: {e}", req.wire_id);
                            }
                        }
                    }
                    None => {
                        open.insert(req.id, req.wire_id);
                    }
                },
                Event::Cancelled(id) => {
                    open.remove(&id);
                }
                _ => {}
            }
        }
    });
    result?;
    let mut open: Vec<(InboundId, String)> = open.into_iter().collect();
    open.sort();
    for (id, wire_id) in open {
        writeln!(
            out,
            "open     {id} {wire_id}: never answered in the recording"
        )?;
    }
    Ok(counts)
}

/// The answers the recording wrote to the CLI's requests, by request id: a success body as is,
/// an error as an error with its text and code.
fn recorded_replies(recording: &Recording) -> HashMap<String, Reply> {
    let mut replies = HashMap::new();
    for line in recording
        .lines()
        .iter()
        .filter(|l| l.direction == Direction::ToCli)
    {
        let Ok(value) = serde_json::from_str::<Value>(line.json.as_str()) else {
            continue;
        };
        let response = &value["response"];
        let (true, Some(request_id)) = (
            value["type"] == "control_response",
            response["request_id"].as_str(),
        ) else {
            continue;
        };
        let reply = match response["subtype"].as_str() {
            Some("success") => {
                let body = match response.get("response") {
                    Some(body) => body.to_string(),
                    None => "{}".to_owned(),
                };
                match Json::try_from(body) {
                    Ok(body) => Reply::Raw(body),
                    Err(_) => continue,
                }
            }
            _ => Reply::Error {
                message: response["error"].as_str().unwrap_or_default().to_owned(),
                code: response["error_code"].as_str().map(str::to_owned),
            },
        };
        replies.insert(request_id.to_owned(), reply);
    }
    replies
}

fn print_event(out: &mut impl Write, event: &Event, counts: &mut Counts) -> io::Result<()> {
    match event {
        Event::Message(m) => {
            counts.messages += 1;
            match m {
                Message::Result(_) => counts.results += 1,
                Message::Unknown(_) => counts.unknown += 1,
                _ => {}
            }
            writeln!(out, "message  {}", describe(m))
        }
        Event::Inbound(req) => {
            counts.inbound += 1;
            writeln!(out, "inbound  {} {} {:?}", req.id, req.wire_id, req.kind)
        }
        Event::Cancelled(id) => {
            counts.cancels += 1;
            writeln!(out, "cancel   {id}")
        }
        Event::RequestDone { id, outcome } => match outcome {
            Ok(_) => writeln!(out, "done     {id}"),
            Err(e) => writeln!(out, "failed   {id}: {e}"),
        },
        Event::LineError(e) => {
            counts.errors += 1;
            writeln!(out, "error    {e}")
        }
        Event::Ready => writeln!(out, "ready"),
        Event::Finished(t) => writeln!(out, "finished {t:?}"),
        other => writeln!(out, "event    {other:?}"),
    }
}

fn describe(m: &Message) -> String {
    let raw = m.raw_json();
    let kind = match claude_agent_core::message::peek_tags(raw) {
        Ok(tags) => match tags.subtype {
            Some(sub) => format!("{}/{}", tags.ty, sub),
            None => tags.ty.to_owned(),
        },
        Err(_) => "?".to_owned(),
    };
    format!("{kind:<28} {} bytes", raw.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const INITIALIZE: &str = r#"{"dir":"in","msg":{"type":"control_request","request_id":"r0","request":{"subtype":"initialize","hooks":null}}}
{"dir":"out","msg":{"type":"control_response","response":{"subtype":"success","request_id":"r0","response":{}}}}
"#;

    fn can_use_tool(request_id: &str) -> String {
        format!(
            r#"{{"dir":"out","msg":{{"type":"control_request","request_id":"{request_id}","request":{{"subtype":"can_use_tool","tool_name":"Bash","input":{{"command":"ls"}},"tool_use_id":"toolu_1"}}}}}}"#
        )
    }

    fn run(text: &str) -> (String, Counts) {
        let recording = Recording::parse(text).unwrap();
        let mut out = Vec::new();
        let counts = replay(&recording, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), counts)
    }

    #[test]
    fn a_request_the_recording_never_answered_stays_open_until_the_cli_cancels_it() {
        let text = format!(
            "{INITIALIZE}{}\n{}\n",
            can_use_tool("p1"),
            r#"{"dir":"out","msg":{"type":"control_cancel_request","request_id":"p1"}}"#
        );
        let (out, counts) = run(&text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[..2], ["done     req_0", "ready"], "{out}");
        assert!(lines[2].starts_with("inbound  inbound_0 p1 "), "{out}");
        assert_eq!(lines[3], "cancel   inbound_0", "{out}");
        assert_eq!(lines.len(), 4, "{out}");
        assert_eq!((counts.inbound, counts.cancels), (1, 1));
    }

    #[test]
    fn a_request_still_unanswered_at_the_end_is_listed_as_open() {
        let (out, _) = run(&format!("{INITIALIZE}{}\n", can_use_tool("p1")));
        assert_eq!(
            out.lines().last(),
            Some("open     inbound_0 p1: never answered in the recording"),
            "{out}"
        );
    }

    #[test]
    fn answered_requests_get_the_recorded_answer_and_are_not_open() {
        let answers = r#"{"dir":"in","msg":{"type":"control_response","response":{"subtype":"success","request_id":"p1","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}}
{"dir":"in","msg":{"type":"control_response","response":{"subtype":"error","request_id":"p2","error":"no","error_code":"denied"}}}
"#;
        let text = format!(
            "{INITIALIZE}{}\n{answers}{}\n",
            can_use_tool("p1"),
            can_use_tool("p2")
        );
        let recording = Recording::parse(&text).unwrap();
        let replies = recorded_replies(&recording);
        assert!(matches!(&replies["p1"], Reply::Raw(body) if body.as_str().contains("allow")));
        assert!(matches!(&replies["p2"],
            Reply::Error { message, code } if message == "no" && code.as_deref() == Some("denied")));
        let (out, counts) = run(&text);
        assert_eq!(counts.inbound, 2, "{out}");
        assert!(!out.contains("open ") && !out.contains("failed"), "{out}");
    }
}
