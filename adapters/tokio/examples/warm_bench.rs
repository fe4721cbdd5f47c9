//! Start-up latency against the real CLI and the testkit's stub Messages API: time to
//! `system/init`, to the first assistant message and to the result of a one-word prompt, for
//!
//! * `raw`: no SDK — spawn the CLI, write `initialize` and the prompt, read to the result;
//! * `cold`: `query`;
//! * `startup`: `startup()` done beforehand, timed from `WarmQuery::query`;
//! * `claim`: a spare parked beforehand by `prewarm()`, timed from `Spare::claim`.
//!
//! The modes take turns, round after round; medians (and the range) are printed per mode.
//!
//! ```sh
//! cargo run --release -p claude-agent-tokio --example warm_bench -- /path/to/claude [ROUNDS]
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use claude_agent_testkit::real_cli::{real_cli_env, TestDir};
use claude_agent_testkit::stub_api::StubApi;
use claude_agent_tokio::control::ClaimOptions;
use claude_agent_tokio::{prewarm, query, startup, Message, Options, StreamExt};

/// Milliseconds from the start to `system/init`, the first assistant message and the result.
#[derive(Debug, Clone, Copy, Default)]
struct Marks {
    init: f64,
    assistant: f64,
    result: f64,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Read a message stream to its end, marking when each milestone came.
async fn timed<S>(start: Instant, mut messages: S) -> Marks
where
    S: futures_lite::Stream<Item = Result<Message, claude_agent_tokio::Error>> + Unpin,
{
    let mut marks = Marks::default();
    while let Some(message) = messages.next().await {
        match message.expect("a message") {
            Message::System(claude_agent_tokio::message::SystemMessage::Init(_)) => {
                marks.init = ms(start)
            }
            Message::Assistant(_) if marks.assistant == 0.0 => marks.assistant = ms(start),
            Message::Result(_) => marks.result = ms(start),
            _ => {}
        }
    }
    marks
}

/// No SDK: the CLI's own pipes, the two lines written by hand, lines read until the result.
fn raw(cli: &str, env: &[(String, String)], cwd: &std::path::Path) -> Marks {
    let start = Instant::now();
    let mut child = Command::new(cli)
        .args([
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
        ])
        .env("CLAUDE_CODE_ENTRYPOINT", "sdk-rust")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the CLI starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(concat!(
            r#"{"type":"control_request","request_id":"req_0","request":{"subtype":"initialize","hooks":null,"systemPrompt":[""]}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"hello"},"parent_tool_use_id":null,"session_id":""}"#,
            "\n"
        ).as_bytes())
        .expect("written");
    let mut marks = Marks::default();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("a line");
        if line.starts_with(r#"{"type":"system","subtype":"init""#) {
            marks.init = ms(start);
        } else if line.starts_with(r#"{"type":"assistant""#) && marks.assistant == 0.0 {
            marks.assistant = ms(start);
        } else if line.contains(r#""type":"result""#) {
            marks.result = ms(start);
            break;
        }
    }
    drop(stdin);
    let _ = child.wait();
    marks
}

fn report(name: &str, runs: &[Marks]) {
    let column = |pick: fn(&Marks) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(pick).collect();
        values.sort_by(f64::total_cmp);
        let median = values[values.len() / 2];
        format!(
            "{median:7.1} ms ({:.0}–{:.0})",
            values[0],
            values[values.len() - 1]
        )
    };
    println!(
        "{name:<8} init {}  first assistant {}  result {}",
        column(|m| m.init),
        column(|m| m.assistant),
        column(|m| m.result)
    );
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let cli = args.next().expect("usage: warm_bench CLAUDE [ROUNDS]");
    let rounds: usize = args.next().map_or(10, |n| n.parse().expect("a number"));
    let stub = StubApi::start_with_conventions();
    let home = TestDir::new("bench-home").expect("a HOME");
    let work = TestDir::new("bench-work").expect("a folder");
    let env = real_cli_env(&stub, home.path());
    let host = Options::new().cli_path(&cli).envs(env.clone());
    let session = host.clone().cwd(work.path());

    let (mut r, mut c, mut s, mut p) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..=rounds {
        let raw_marks = raw(&cli, &env, work.path());

        let start = Instant::now();
        let cold = timed(start, query("hello", session.clone())).await;

        let warm = startup(session.clone()).await.expect("started");
        tokio::time::sleep(Duration::from_millis(200)).await;
        let start = Instant::now();
        let warm = timed(start, warm.query("hello")).await;

        let spare = prewarm(host.clone()).await.expect("parked");
        tokio::time::sleep(Duration::from_millis(200)).await;
        let start = Instant::now();
        let claimed = spare
            .claim("hello", ClaimOptions::new(work.path()))
            .await
            .expect("claimed");
        let claim = timed(start, claimed.messages).await;

        // Round 0 warms the page cache and is not counted.
        if round > 0 {
            r.push(raw_marks);
            c.push(cold);
            s.push(warm);
            p.push(claim);
        }
    }
    println!("{rounds} rounds, medians (range):");
    report("raw", &r);
    report("cold", &c);
    report("startup", &s);
    report("claim", &p);
}
