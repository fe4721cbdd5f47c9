//! Replays a recording through a `Session` and prints every event.
//!
//! ```text
//! cargo run -q -p claude-agent-core --example replay -- FILE.jsonl [--summary]
//! ```
//!
//! FILE is either a recording (`{"dir":"in"|"out","msg":…}` per line, as in `fixtures/transcripts/`)
//! or plain CLI stdout (one message per line). Inbound requests (permission prompts, hook callbacks,
//! in-process tool calls) are answered the way the recording did; with plain stdout they are refused.
//! With `--summary` the output ends with one line:
//! `messages=N results=N inbound=N cancels=N errors=N unknown=N`.

use std::process::ExitCode;
use std::time::Instant;

use claude_agent_core::control::Reply;
use claude_agent_core::message::Message;
use claude_agent_core::recording::Recording;
use claude_agent_core::session::{Event, InputMode, Session};

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
    let now = Instant::now();
    let mut session = Session::new(recording.session_config(InputMode::Streaming), now);
    let mut counts = Counts::default();
    recording.replay(&mut session, now, 64 * 1024, |session| {
        while session.poll_transmit().is_some() {}
        while let Some(event) = session.poll_event() {
            print_event(&event, &mut counts);
            if let Event::Inbound(req) = event {
                let reply = match recording.answer_to(&req.wire_id) {
                    Some(body) => Reply::Raw(body.to_owned()),
                    None => Reply::error("not answered in the recording"),
                };
                if let Err(e) = session.respond(now, req.id, reply) {
                    println!("respond  {} failed: {e}", req.wire_id);
                }
            }
        }
    });
    if summary {
        let Counts {
            messages,
            results,
            inbound,
            cancels,
            errors,
            unknown,
        } = counts;
        println!("messages={messages} results={results} inbound={inbound} cancels={cancels} errors={errors} unknown={unknown}");
    }
    ExitCode::SUCCESS
}

fn print_event(event: &Event, counts: &mut Counts) {
    match event {
        Event::Message(m) => {
            counts.messages += 1;
            match m {
                Message::Result(_) => counts.results += 1,
                Message::Unknown(_) => counts.unknown += 1,
                _ => {}
            }
            println!("message  {}", describe(m));
        }
        Event::Inbound(req) => {
            counts.inbound += 1;
            println!("inbound  {} {:?}", req.wire_id, req.kind);
        }
        Event::Cancelled(id) => {
            counts.cancels += 1;
            println!("cancel   {id}");
        }
        Event::RequestDone { id, outcome } => match outcome {
            Ok(_) => println!("done     {id}"),
            Err(e) => println!("failed   {id}: {e}"),
        },
        Event::LineError(e) => {
            counts.errors += 1;
            println!("error    {e}");
        }
        Event::Finished(t) => println!("finished {t:?}"),
        other => println!("event    {other:?}"),
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
