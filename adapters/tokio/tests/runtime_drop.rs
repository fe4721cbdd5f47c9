//! tokio only: a runtime dropped under a running session (its driver task dropped without any
//! shutdown sequence) still takes the CLI down, through the child's kill-on-drop.

use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::Script;
use claude_agent_tokio as sdk;
use sdk::Client;

// The suite's fake CLI helper; this test uses a part of it.
#[allow(dead_code)]
#[path = "../../../conformance/fake.rs"]
mod fake;

/// The state letter of `pid` from `/proc/<pid>/stat` (`None` once it has been reaped).
fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next())
}

#[test]
fn dropping_the_runtime_kills_the_cli() {
    let fake = fake::Fake::builder(Script::new().answer_initialize().hang()).build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(async { Client::connect(fake.options()).await.unwrap() });
    let pid = fake.pid();
    assert!(matches!(process_state(pid), Some(s) if s != 'Z'));
    drop(runtime);
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline && !matches!(process_state(pid), None | Some('Z')) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let state = process_state(pid);
    assert!(
        matches!(state, None | Some('Z')),
        "pid {pid} still running: {state:?}"
    );
}
