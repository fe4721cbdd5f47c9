//! Times the `history` functions over a synthetic store of many sessions.
//!
//! ```text
//! cargo run --release -p claude-agent-client --example history_bench -- [SESSIONS] [PROJECTS]
//! ```
//!
//! Writes SESSIONS transcripts (default 1,000) spread over PROJECTS project folders (default 10)
//! in a temporary configuration directory, removed at the end. Each is a conversation of user
//! prompts, assistant replies, tool calls and results, with the CLI's attachment and metadata
//! entries: most from 10 to 280 KiB, one in 50 about 900 KiB. Then it times, each the median of
//! 5 runs with the files in the page cache: `list_sessions` over all projects and over one,
//! `get_session_info` of one session, and `get_session_messages` of the largest; and, for
//! comparison, reading every transcript whole, and parsing every one (`get_session_messages`).

use std::path::Path;
use std::time::{Duration, Instant};

use claude_agent_client::history::{History, ListSessions, Page};
use serde_json::json;

fn main() {
    let mut args = std::env::args().skip(1);
    let sessions: usize = args
        .next()
        .map_or(1000, |a| a.parse().expect("SESSIONS is a number"));
    let projects: usize = args
        .next()
        .map_or(10, |a| a.parse().expect("PROJECTS is a number"));
    let config = std::env::temp_dir().join(format!("history-bench-{}", std::process::id()));
    let history = History::at(&config);

    let started = Instant::now();
    let mut total = 0u64;
    let mut largest = (0u64, String::new(), String::new());
    for i in 0..sessions {
        let cwd = format!("/home/dev/project-{}", i % projects);
        let id = format!("{:08x}-0000-4000-8000-{:012x}", i, i);
        // About 4.5 KiB a turn: most sessions 10 to 280 KiB, one in 50 about 900 KiB.
        let turns = if i % 50 == 49 { 200 } else { 2 + (i * 37) % 60 };
        let folder = history.project_dir(&cwd);
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(format!("{id}.jsonl"));
        let text = transcript(&id, &cwd, turns);
        std::fs::write(&path, &text).unwrap();
        total += text.len() as u64;
        if text.len() as u64 > largest.0 {
            largest = (text.len() as u64, id, cwd);
        }
    }
    println!(
        "wrote {sessions} sessions in {projects} projects, {:.1} MiB (largest {:.0} KiB) in {:.1} s",
        total as f64 / 1048576.0,
        largest.0 as f64 / 1024.0,
        started.elapsed().as_secs_f64()
    );

    let (time, n) = median(|| history.list_sessions(&ListSessions::all()).unwrap().len());
    println!("list_sessions (all {n}):            {}", ms(time));
    let one = ListSessions::in_dir(&largest.2).include_worktrees(false);
    let (time, n) = median(|| history.list_sessions(&one).unwrap().len());
    println!("list_sessions (one project, {n}):    {}", ms(time));
    let (time, _) = median(|| {
        history
            .list_sessions(&ListSessions::all().limit(20))
            .unwrap()
            .len()
    });
    println!("list_sessions (all, first 20):      {}", ms(time));
    let dir = Path::new(&largest.2);
    let (time, _) = median(|| {
        history
            .session(&largest.1, Some(dir))
            .and_then(|s| s.info())
            .unwrap()
            .file_size
    });
    println!("get_session_info:                   {}", ms(time));
    let (time, n) = median(|| {
        history
            .session(&largest.1, Some(dir))
            .and_then(|s| s.messages(Page::ALL))
            .unwrap()
            .len()
    });
    println!(
        "get_session_messages ({n} messages, {:.0} KiB): {}",
        largest.0 as f64 / 1024.0,
        ms(time)
    );
    let (time, bytes) = median(|| {
        let mut bytes = 0;
        for folder in std::fs::read_dir(config.join("projects")).unwrap() {
            for file in std::fs::read_dir(folder.unwrap().path()).unwrap() {
                bytes += std::fs::read(file.unwrap().path()).unwrap().len();
            }
        }
        bytes
    });
    println!(
        "for comparison, reading every file whole ({:.0} MiB): {}",
        bytes as f64 / 1048576.0,
        ms(time)
    );
    // What a listing that parsed whole transcripts would cost (one run: it is slow).
    let all = history.list_sessions(&ListSessions::all()).unwrap();
    let start = Instant::now();
    let messages: usize = all
        .iter()
        .map(|s| {
            history
                .session(&s.session_id, None)
                .and_then(|s| s.messages(Page::ALL))
                .unwrap()
                .len()
        })
        .sum();
    println!(
        "for comparison, get_session_messages of every session ({messages} messages): {}",
        ms(start.elapsed())
    );
    std::fs::remove_dir_all(&config).unwrap();
}

/// A transcript of `turns` turns, each a prompt, a tool call, its result and a reply, with the
/// attachment and metadata entries the CLI writes around them.
fn transcript(id: &str, cwd: &str, turns: usize) -> String {
    let mut out = String::new();
    let mut parent: Option<String> = None;
    let push = |out: &mut String,
                parent: &mut Option<String>,
                uuid: String,
                mut entry: serde_json::Value| {
        entry["uuid"] = json!(uuid);
        entry["parentUuid"] = json!(parent);
        entry["sessionId"] = json!(id);
        entry["cwd"] = json!(cwd);
        entry["gitBranch"] = json!("main");
        entry["isSidechain"] = json!(false);
        entry["timestamp"] = json!("2026-11-23T06:00:00.000Z");
        out.push_str(&entry.to_string());
        out.push('\n');
        *parent = Some(uuid);
    };
    let filler = "The quick brown fox jumps over the lazy dog. ".repeat(15);
    for t in 0..turns {
        let u = |k: usize| format!("{:08x}-{:04x}-4000-8000-{:012x}", t, k, id.len() + t);
        out.push_str(&format!(
            "{{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"sessionId\":\"{id}\"}}\n"
        ));
        push(
            &mut out,
            &mut parent,
            u(1),
            json!({"type": "user", "message": {"role": "user", "content": format!("prompt {t}: please look at the parser")}}),
        );
        push(
            &mut out,
            &mut parent,
            u(2),
            json!({"type": "attachment", "attachment": {"type": "date", "date": "2026-11-23"}, "rendered": [{"content": filler}]}),
        );
        push(
            &mut out,
            &mut parent,
            u(3),
            json!({"type": "assistant", "message": {"id": format!("msg_{t}a"), "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "tool_use", "id": format!("toolu_{t}"), "name": "Read", "input": {"file_path": "/home/dev/src/parser.rs"}}], "usage": {"input_tokens": 1200, "output_tokens": 40}}}),
        );
        push(
            &mut out,
            &mut parent,
            u(4),
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("toolu_{t}"), "content": filler.repeat(3)}]}, "toolUseResult": {"stdout": filler}}),
        );
        push(
            &mut out,
            &mut parent,
            u(5),
            json!({"type": "assistant", "message": {"id": format!("msg_{t}b"), "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "text", "text": filler}], "usage": {"input_tokens": 2400, "output_tokens": 300}}}),
        );
        out.push_str(&format!("{{\"type\":\"last-prompt\",\"lastPrompt\":\"prompt {t}: please look at the parser\",\"sessionId\":\"{id}\"}}\n"));
    }
    out
}

/// The median time of 5 runs of `f`, and its last output.
fn median<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..5 {
        let start = Instant::now();
        out = Some(f());
        times.push(start.elapsed());
    }
    times.sort();
    (times[2], out.expect("five runs"))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
