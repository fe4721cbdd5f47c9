//! Start-up latency against the real CLI and the testkit's stub Messages API: time to
//! `system/init`, to the first assistant message and to the result of a one-word prompt, for
//!
//! * `raw`: no SDK — spawn the CLI, write `initialize` and the prompt, read to the result;
//! * `cold`: `query`;
//! * `startup`: `startup()` done beforehand, timed from `WarmQuery::query`;
//! * `claim`: a spare parked beforehand by `prewarm()`, timed from `Spare::claim`;
//! * `turn`: the second prompt of a `Client` session whose first turn is done, timed from
//!   `Client::send`: the CLI's own work for any prompt, the floor under every warm mode.
//!
//! The warm modes wait `--park MS` (200 by default) between the warm start resolving and the
//! prompt: how long a CLI has sat ready before a session needs it.
//!
//! With `--ts DIR` (a folder holding `bench/warm/peer_ts.mjs` and its `npm install`), the
//! TypeScript Agent SDK's `query`, `startup()` → `query` and `prewarm()` → `claim` run in the
//! same rounds, against the same CLI, stub API and folder (`ts-cold`, `ts-startup`, `ts-claim`).
//!
//! The modes take turns, round after round; medians (and the range) are printed per mode.
//!
//! ```sh
//! (cd bench/warm && npm install)
//! cargo run --release -p claude-agent-tokio --example warm_bench -- /path/to/claude 10 --ts bench/warm --park 200
//! ```

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use claude_agent_testkit::real_cli::{real_cli_env, TestDir};
use claude_agent_testkit::stub_api::StubApi;
use claude_agent_tokio::control::ClaimOptions;
use claude_agent_tokio::{connect, prewarm, query, startup, Message, Options};
use futures_lite::StreamExt;

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
fn raw(cli: &str, env: &[(String, String)], cwd: &Path) -> Marks {
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

/// One run of `peer_ts.mjs` in `mode`: it prints the three marks, timed inside node.
fn typescript(
    dir: &str,
    mode: &str,
    cli: &str,
    env: &[(String, String)],
    cwd: &Path,
    park: Duration,
) -> Marks {
    let output = Command::new("node")
        .arg(Path::new(dir).join("peer_ts.mjs"))
        .args([mode, cli])
        .arg(cwd)
        .arg(park.as_millis().to_string())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stderr(Stdio::inherit())
        .output()
        .expect("node runs");
    assert!(output.status.success(), "peer_ts.mjs {mode} failed");
    let text = String::from_utf8_lossy(&output.stdout);
    let values: Vec<f64> = text
        .split_whitespace()
        .map(|v| v.parse().expect("a number of milliseconds"))
        .collect();
    let [init, assistant, result] = values[..] else {
        panic!("peer_ts.mjs {mode} printed {text:?}");
    };
    Marks {
        init,
        assistant,
        result,
    }
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
        "{name:<10} init {}  first assistant {}  result {}",
        column(|m| m.init),
        column(|m| m.assistant),
        column(|m| m.result)
    );
}

#[tokio::main]
async fn main() {
    let usage = "usage: warm_bench CLAUDE [ROUNDS] [--ts DIR] [--park MS]";
    let mut args = std::env::args().skip(1);
    let cli = args.next().expect(usage);
    let mut rounds = 10;
    let mut ts = None;
    let mut park = Duration::from_millis(200);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ts" => ts = Some(args.next().expect(usage)),
            "--park" => {
                park = Duration::from_millis(args.next().expect(usage).parse().expect(usage))
            }
            n => rounds = n.parse().expect(usage),
        }
    }
    let stub = StubApi::start_with_conventions();
    let home = TestDir::new("bench-home").expect("a HOME");
    let work = TestDir::new("bench-work").expect("a folder");
    let env = real_cli_env(&stub, home.path());
    let host = Options::new().cli_path(&cli).envs(env.clone());
    let session = host.clone().cwd(work.path());

    let (mut r, mut c, mut s, mut p) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut t = Vec::new();
    let mut peer = [Vec::new(), Vec::new(), Vec::new()];
    for round in 0..=rounds {
        let raw_marks = raw(&cli, &env, work.path());

        let start = Instant::now();
        let cold = timed(start, query("hello", session.clone())).await;

        let warm = startup(session.clone()).await.expect("started");
        tokio::time::sleep(park).await;
        let start = Instant::now();
        let warm = timed(start, warm.query("hello")).await;

        let spare = prewarm(host.clone()).await.expect("parked");
        tokio::time::sleep(park).await;
        let start = Instant::now();
        let claimed = spare
            .claim("hello", ClaimOptions::new(work.path()))
            .await
            .expect("claimed");
        let claim = timed(start, claimed.messages).await;

        let client = connect(session.clone()).await.expect("connected");
        client.send("hello").await.expect("sent");
        timed(Instant::now(), client.receive_response()).await;
        tokio::time::sleep(park).await;
        let start = Instant::now();
        client.send("hello").await.expect("sent");
        let turn = timed(start, client.receive_response()).await;
        client.close().await;

        let ts_marks = ts.as_deref().map(|dir| {
            ["cold", "startup", "claim"]
                .map(|mode| typescript(dir, mode, &cli, &env, work.path(), park))
        });

        // Round 0 warms the page cache and is not counted.
        if round > 0 {
            r.push(raw_marks);
            c.push(cold);
            s.push(warm);
            p.push(claim);
            t.push(turn);
            for (runs, marks) in peer.iter_mut().zip(ts_marks.into_iter().flatten()) {
                runs.push(marks);
            }
        }
    }
    println!(
        "{rounds} rounds, parked {} ms, medians (range):",
        park.as_millis()
    );
    report("raw", &r);
    report("cold", &c);
    report("startup", &s);
    report("claim", &p);
    report("turn", &t);
    if ts.is_some() {
        report("ts-cold", &peer[0]);
        report("ts-startup", &peer[1]);
        report("ts-claim", &peer[2]);
    }
}
