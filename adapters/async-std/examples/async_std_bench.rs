//! Throughput and round-trip benchmark against a fake CLI that replays recorded output, on
//! async-std (the same figures as `claude-agent-tokio`'s `bench` example, to compare runtimes; named apart
//! from it so that building every example at once does not overwrite one binary with another).
//!
//! ```text
//! FAKECLI_CORPUS=fixtures/bench/corpus.jsonl FAKECLI_REPEAT=3000 \
//!   cargo run --release -p claude-agent-async-std --example async_std_bench -- stream path/to/fakecli
//! FAKECLI_CORPUS=fixtures/bench/corpus.jsonl FAKECLI_REPEAT=0 FAKECLI_RTT=5000 \
//!   cargo run --release -p claude-agent-async-std --example async_std_bench -- rtt path/to/fakecli
//! ```
//!
//! `stream`: one prompt, every message read until the CLI's stdout ends; prints messages per
//! second. `rtt`: the fake asks `can_use_tool` FAKECLI_RTT times in a row and we allow each;
//! prints the round-trip time (the fake's own mean, and the median between our callbacks).
//! Both print the process's peak RSS.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use claude_agent_async_std::permission::PermissionResult;
use claude_agent_async_std::{query, Message, Options, Prompt, StreamExt, UserInput};

fn main() {
    async_std::task::block_on(run());
}

async fn run() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(cli)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: async_std_bench stream|rtt FAKECLI");
        std::process::exit(2);
    };
    match mode.as_str() {
        "stream" => stream(cli).await,
        "rtt" => rtt(cli).await,
        _ => {
            eprintln!("mode must be stream or rtt");
            std::process::exit(2);
        }
    }
    if let Some(rss) = peak_rss_kib() {
        println!("peak RSS: {:.1} MB", rss as f64 / 1024.0);
    }
}

async fn stream(cli: &str) {
    let started = Instant::now();
    let mut messages = query("go", Options::new().cli_path(cli));
    let mut count = 0u64;
    while let Some(item) = messages.next().await {
        if let Err(error) = item {
            eprintln!("error: {error}");
        }
        count += 1;
    }
    report(count, started);
}

async fn rtt(cli: &str) {
    let stamps = Arc::new(Mutex::new(Vec::with_capacity(8192)));
    let fake_report = Arc::new(Mutex::new(None));
    let (seen, said) = (stamps.clone(), fake_report.clone());
    let options = Options::new()
        .cli_path(cli)
        .can_use_tool(move |_request, _ctx| {
            seen.lock().unwrap().push(Instant::now());
            async { PermissionResult::allow() }
        })
        .stderr(move |line| {
            // "fakecli: replay …, rtt N x -> … (X us each)"
            if let Some(each) = line
                .rsplit_once('(')
                .and_then(|(_, r)| r.strip_suffix(" us each)"))
            {
                *said.lock().unwrap() = Some(each.to_owned());
            }
        });
    // One user message, then keep input open until the result (like the TypeScript peer).
    let (tx, prompt) = claude_agent_async_std::prompt_channel();
    tx.send(UserInput::text("go")).await.unwrap();
    let started = Instant::now();
    let mut messages = query(Prompt::from(prompt), options);
    let mut count = 0u64;
    while let Some(item) = messages.next().await {
        count += 1;
        if matches!(item, Ok(Message::Result(_))) {
            break;
        }
    }
    report(count, started);
    drop(tx);
    drop(messages);
    let stamps = std::mem::take(&mut *stamps.lock().unwrap());
    let mut gaps: Vec<f64> = stamps
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1e6)
        .collect();
    gaps.sort_by(f64::total_cmp);
    if let Some(median) = gaps.get(gaps.len() / 2) {
        println!(
            "rtt: {median:.1} us median between callbacks ({} round trips)",
            stamps.len()
        );
    }
    // The fake prints its figure on stderr just before the result; give the reader a moment.
    async_std::task::sleep(std::time::Duration::from_millis(50)).await;
    let said = fake_report.lock().unwrap().clone();
    if let Some(each) = said {
        println!("rtt: {each} us mean, measured by the fake CLI");
    }
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
