//! The body of every adapter's bench example: throughput and round trip against a fake CLI that
//! replays recorded output, written once over the runtime-agnostic client layer so the runtimes
//! are measured on the same code.
//!
//! `stream`: one prompt, every message read until the CLI's stdout ends; prints messages per
//! second. `rtt`: the fake asks `can_use_tool` `FAKE_CLAUDE_RTT` times in a row and we allow each;
//! prints the round-trip time (the fake's own mean, and the median between our callbacks).
//! `rtt-floor`: the same round trips answered by a blocking loop with no SDK at all (it only copies
//! the request id into a canned reply): the least any SDK can take on this machine and fake CLI.
//! `stream-floor`: the `stream` work with no SDK at all: a blocking reader that frames the lines
//! and checks that each is JSON, reading only its `type` (serde skips the rest, building
//! nothing): what any SDK that reads every message must at least do. All modes print the process's peak RSS.
//! With `BENCH_COUNT_ALLOCATIONS=1`, `stream` and `rtt` (and their floors) also print the
//! allocations made per message or per round trip, counted from the start to the last one.
//!
//! The fake CLI is the testkit's `fake-claude` in its flood mode (`FAKE_CLAUDE_CORPUS`;
//! `cargo build --release -p claude-agent-testkit --bin fake-claude`); docs/BENCHMARKS.md has the
//! commands.

mod allocations;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use claude_agent_client::Options;
use claude_agent_client::{prompt_channel, query_with, Prompt, Runtime};
use claude_agent_core::message::{Message, UserInput};
use claude_agent_core::permission::PermissionResult;

/// Run the mode named by the command line (`NAME stream|rtt FAKE_CLAUDE`) on `runtime`.
pub async fn run<R: Runtime>(runtime: R) {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(cli)) = (args.get(1), args.get(2)) else {
        eprintln!(
            "usage: {} stream|stream-floor|rtt|rtt-floor FAKE_CLAUDE",
            args[0]
        );
        std::process::exit(2);
    };
    allocations::start();
    match mode.as_str() {
        "stream" => stream(runtime, cli).await,
        "stream-floor" => stream_floor(cli),
        "rtt" => rtt(runtime, cli).await,
        "rtt-floor" => rtt_floor(cli),
        _ => {
            eprintln!("mode must be stream, stream-floor, rtt or rtt-floor");
            std::process::exit(2);
        }
    }
    if let Some(rss) = peak_rss_kib() {
        println!("peak RSS: {:.1} MB", rss as f64 / 1024.0);
    }
}

async fn stream<R: Runtime>(runtime: R, cli: &str) {
    let started = Instant::now();
    let mut messages = query_with(runtime, "go", Options::new().cli_path(cli));
    let mut count = 0u64;
    while let Some(item) = messages.next().await {
        if let Err(error) = item {
            eprintln!("error: {error}");
        }
        count += 1;
    }
    report(count, started);
    allocations::report(count, "message");
}

async fn rtt<R: Runtime>(runtime: R, cli: &str) {
    let stamps = Arc::new(Mutex::new(Vec::with_capacity(8192)));
    let fake_report = Arc::new(Mutex::new(None));
    let (seen, said) = (stamps.clone(), fake_report.clone());
    let options = Options::new()
        .cli_path(cli)
        .on_permission_request(move |_request, _ctx| {
            seen.lock().unwrap().push(Instant::now());
            async { PermissionResult::allow() }
        })
        .on_stderr(move |line| {
            // "fake-claude: replay …, rtt N x -> … (X us each)"
            if let Some(each) = line
                .rsplit_once('(')
                .and_then(|(_, r)| r.strip_suffix(" us each)"))
            {
                *said.lock().unwrap() = Some(each.to_owned());
            }
        });
    // One user message, then keep input open until the result (like the TypeScript peer).
    let (tx, prompt) = prompt_channel();
    tx.send(UserInput::text("go")).await.unwrap();
    let started = Instant::now();
    let mut messages = query_with(runtime.clone(), Prompt::from(prompt), options);
    let mut count = 0u64;
    while let Some(item) = messages.next().await {
        count += 1;
        if matches!(item, Ok(Message::Result(_))) {
            break;
        }
    }
    report(count, started);
    allocations::report(stamps.lock().unwrap().len() as u64, "round trip");
    drop(tx);
    drop(messages);
    let stamps = std::mem::take(&mut *stamps.lock().unwrap());
    if let Some(median) = median_gap_us(&stamps) {
        println!(
            "rtt: {median:.1} us median between callbacks ({} round trips)",
            stamps.len()
        );
    }
    // The fake prints its figure on stderr just before the result; give the reader a moment.
    runtime
        .sleep_until(Instant::now() + std::time::Duration::from_millis(50))
        .await;
    let said = fake_report.lock().unwrap().clone();
    if let Some(each) = said {
        println!("rtt: {each} us mean, measured by the fake CLI");
    }
}

/// The fake CLI started, asked to `initialize` and given the prompt "go", as the SDK does.
fn start_fake(
    cli: &str,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::process::ChildStdout,
) {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let mut child = Command::new(cli)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start the fake CLI {cli}: {error}"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let opening = concat!(
        r#"{"type":"control_request","request_id":"req_0","request":{"subtype":"initialize"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"go"},"parent_tool_use_id":null,"session_id":""}"#,
        "\n",
    );
    stdin
        .write_all(opening.as_bytes())
        .expect("write to the fake CLI");
    (child, stdin, stdout)
}

/// The `stream` work without an SDK: blocking reads into one reused buffer, each line checked to
/// be JSON and its `type` read (serde skips the rest, building nothing), stdin closed at the
/// result, read to EOF.
fn stream_floor(cli: &str) {
    use std::io::{BufRead, BufReader};

    /// A line's `type`, every other field skipped over.
    #[derive(serde::Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<&'a str>,
    }

    let started = Instant::now();
    let (mut child, stdin, stdout) = start_fake(cli);
    let mut stdin = Some(stdin);
    let mut stdout = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::with_capacity(1 << 16);
    let mut count = 0u64;
    loop {
        line.clear();
        let read = stdout
            .read_until(b'\n', &mut line)
            .expect("read from the fake CLI");
        if read == 0 {
            break;
        }
        let kind = serde_json::from_slice::<Kind>(&line)
            .expect("a JSON line")
            .kind;
        match kind {
            // The answer to `initialize`: not a message, as `stream` counts them.
            Some("control_response") => continue,
            Some("result") => stdin = None,
            _ => {}
        }
        count += 1;
    }
    allocations::report(count, "message");
    drop(stdin);
    let _ = child.wait();
    report(count, started);
}

/// The `rtt` work without an SDK: blocking reads, no JSON parsing, a canned reply per request.
fn rtt_floor(cli: &str) {
    use std::io::{BufRead, BufReader, Write};

    let (mut child, mut stdin, stdout) = start_fake(cli);
    let stdout = BufReader::new(stdout);
    let mut stamps = Vec::with_capacity(8192);
    for line in stdout.lines() {
        let line = line.expect("read from the fake CLI");
        if line.contains(r#""type":"result""#) {
            break;
        }
        if !line.contains(r#""subtype":"can_use_tool""#) {
            continue;
        }
        stamps.push(Instant::now());
        let id_at = line.find(r#""request_id":""#).expect("a request id") + 14;
        let id = &line[id_at..id_at + line[id_at..].find('"').expect("a closing quote")];
        writeln!(
            stdin,
            r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{id}","response":{{"behavior":"allow","updatedInput":{{}}}}}}}}"#
        )
        .expect("write to the fake CLI");
    }
    allocations::report(stamps.len() as u64, "round trip");
    drop(stdin);
    let _ = child.wait();
    if let Some(median) = median_gap_us(&stamps) {
        println!(
            "rtt floor: {median:.1} us median between requests ({} round trips, no SDK)",
            stamps.len()
        );
    }
}

/// The median time between consecutive instants, in microseconds.
fn median_gap_us(stamps: &[Instant]) -> Option<f64> {
    let mut gaps: Vec<f64> = stamps
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1e6)
        .collect();
    gaps.sort_by(f64::total_cmp);
    gaps.get(gaps.len() / 2).copied()
}

fn report(count: u64, started: Instant) {
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{count} messages in {secs:.3} s = {:.0} msg/s",
        count as f64 / secs
    );
}

/// Peak resident set size of this process, in KiB (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
