//! What one host holds: the memory of N real CLI sessions at once, each after one turn, against
//! the testkit's stub Messages API (local, no network).
//!
//! Starts N sessions with `connect` (each in a folder of its own), runs one short turn in each,
//! and while all N are alive reads every CLI's process tree from Linux's `/proc`: its resident
//! memory (`VmRSS`, what `Client::resources` reports and `FleetLimits::max_resident_bytes`
//! counts) and its proportional share (`Pss` of `smaps_rollup`: pages the CLIs share, such as
//! node's code, split between them). PSS is what N sessions cost together; RSS counts shared
//! pages once per session. Prints the median and range per session and how many sessions the
//! host's memory would hold by each.
//!
//! ```sh
//! cargo run --release -p claude-agent-tokio --example memory_bench -- /path/to/claude 10
//! ```

use std::time::Instant;

use claude_agent_testkit::real_cli::{real_cli_env, TestDir};
use claude_agent_testkit::stub_api::StubApi;
use claude_agent_tokio::{connect, Client, Message, Options};

/// `Pss` of `/proc/<pid>/smaps_rollup`, in bytes; `None` when the process is gone.
fn pss_bytes(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let line = text.lines().find(|line| line.starts_with("Pss:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn host_memory() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").expect("/proc/meminfo");
    let line = text
        .lines()
        .find(|line| line.starts_with("MemTotal:"))
        .expect("MemTotal");
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// Run one turn to its result.
async fn one_turn(client: &Client) {
    client.send("hello").await.expect("sent");
    let mut reply = client.receive_response();
    while let Some(message) = reply.next().await {
        if let Message::Result(result) = message.expect("a message") {
            assert!(!result.is_error, "{result:?}");
        }
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// Median, smallest and largest, in MiB.
fn summary(mut values: Vec<u64>) -> (f64, f64, f64) {
    values.sort_unstable();
    let median = values[values.len() / 2];
    (mib(median), mib(values[0]), mib(values[values.len() - 1]))
}

#[tokio::main]
async fn main() {
    if !cfg!(target_os = "linux") {
        eprintln!("memory_bench reads /proc: Linux only");
        std::process::exit(2);
    }
    let mut args = std::env::args().skip(1);
    let cli = args
        .next()
        .expect("usage: memory_bench /path/to/claude [SESSIONS]");
    let sessions: usize = args.next().map_or(10, |n| n.parse().expect("a number"));
    assert!(
        sessions > 0,
        "usage: memory_bench /path/to/claude [SESSIONS], SESSIONS at least 1"
    );

    let stub = StubApi::start_with_conventions();
    let home = TestDir::new("memory-bench-home").expect("a HOME");
    let env = real_cli_env(&stub, home.path());
    let folders: Vec<TestDir> = (0..sessions)
        .map(|_| TestDir::new("memory-bench-work").expect("a folder"))
        .collect();

    let started = Instant::now();
    let mut clients = Vec::with_capacity(sessions);
    for folder in &folders {
        let options = Options::new()
            .cli_path(&cli)
            .envs(env.clone())
            .cwd(folder.path());
        clients.push(connect(options).await.expect("a session"));
    }
    for client in &clients {
        one_turn(client).await;
    }
    println!(
        "{sessions} sessions started and ran a turn each in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut rss = Vec::with_capacity(sessions);
    let mut pss = Vec::with_capacity(sessions);
    let mut processes = Vec::with_capacity(sessions);
    for client in &clients {
        let tree = client.resources().expect("the CLI's process tree");
        rss.push(tree.resident_bytes);
        pss.push(tree.pids.iter().filter_map(|&pid| pss_bytes(pid)).sum());
        processes.push(tree.pids.len() as u64);
    }
    let total_pss: u64 = pss.iter().sum();
    let total_rss: u64 = rss.iter().sum();
    let host = host_memory();
    let (pss_median, pss_low, pss_high) = summary(pss);
    let (rss_median, rss_low, rss_high) = summary(rss);
    println!("per session, PSS: {pss_median:.0} MiB ({pss_low:.0}–{pss_high:.0})");
    println!("per session, RSS: {rss_median:.0} MiB ({rss_low:.0}–{rss_high:.0})");
    println!(
        "processes per session: {} (the CLI and what it started)",
        processes[processes.len() / 2]
    );
    println!(
        "all {sessions}: PSS {:.0} MiB, RSS {:.0} MiB",
        mib(total_pss),
        mib(total_rss)
    );
    println!(
        "this host ({:.1} GiB): about {} sessions by PSS, {} by RSS, before any tool runs",
        host as f64 / f64::from(1 << 30),
        host / (total_pss / sessions as u64).max(1),
        host / (total_rss / sessions as u64).max(1),
    );
    for client in clients {
        client.close().await;
    }
}
