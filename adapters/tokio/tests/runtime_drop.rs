//! tokio only: a runtime dropped under a running session (its driver task dropped without any
//! shutdown sequence) still takes the CLI down, and every process the CLI started with it, also
//! tools in a session of their own: the child's drop kills the whole tree.

use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::Script;
use claude_agent_tokio as sdk;
use sdk::{connect, Client};

use claude_agent_conformance::fake;

/// The state letter of `pid` from `/proc/<pid>/stat` (`None` once it has been reaped).
fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next())
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn dropping_the_runtime_kills_the_cli() {
    let fake = fake::Fake::builder(Script::new().answer_initialize().hang()).build();
    let runtime = current_thread();
    let client = runtime.block_on(async { connect(fake.options()).await.unwrap() });
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

/// A fake CLI connected on `runtime`, hanging with its two tools running.
fn session_with_tools(runtime: &tokio::runtime::Runtime) -> (fake::Fake, Client) {
    let fake = fake::Fake::builder(Script::new().answer_initialize().hang())
        .with_tools()
        .build();
    let client = runtime.block_on(async { connect(fake.options()).await.unwrap() });
    assert!(
        fake.wait_for_tools(Duration::from_secs(10)),
        "the fake and its tools did not start"
    );
    (fake, client)
}

/// Every process of `fake`'s tree is gone within 5 s of `since`.
fn assert_tree_gone(fake: &fake::Fake, since: Instant) {
    let left = fake.wait_tree_gone(Duration::from_secs(5));
    assert!(
        left.is_empty(),
        "still running {:?} after the runtime was dropped: {}",
        since.elapsed(),
        fake::Fake::describe(&left)
    );
    eprintln!(
        "tree gone {:?} after the runtime was dropped",
        since.elapsed()
    );
}

#[test]
fn dropping_the_runtime_mid_tool_kills_the_tools_too() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (fake, client) = session_with_tools(&runtime);
    let dropped = Instant::now();
    // As when `#[tokio::main]` returns with the session still running.
    drop(runtime);
    assert_tree_gone(&fake, dropped);
    drop(client);
}

#[test]
fn a_panic_unwinding_the_runtime_mid_tool_kills_the_tools_too() {
    let runtime = current_thread();
    let (fake, client) = session_with_tools(&runtime);
    let dropped = Instant::now();
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        runtime.block_on(async { panic!("the application fails mid-tool") })
    }));
    assert!(unwound.is_err());
    assert_tree_gone(&fake, dropped);
    drop(client);
}

/// A session waiting in a fleet's queue when its runtime is dropped: its stream ends, and its
/// client's calls fail at once, instead of waiting for a task that no longer exists.
#[test]
fn dropping_the_runtime_ends_a_session_waiting_for_its_place() {
    use sdk::{query, Error, Fleet, FleetLimits};

    let fleet = Fleet::new(FleetLimits {
        max_sessions: Some(1),
        ..FleetLimits::default()
    })
    .unwrap();
    let holding = fake::Fake::builder(Script::new().answer_initialize().hang()).build();
    let queued = fake::Fake::builder(Script::new()).build();
    let runtime = current_thread();
    let (first, mut waiting) = runtime.block_on(async {
        let first = connect(holding.options().fleet(fleet.member("a")))
            .await
            .unwrap();
        let waiting = query("hi", queued.options().fleet(fleet.member("b")));
        tokio::task::yield_now().await;
        (first, waiting)
    });
    assert_eq!(fleet.waiting(), 1);
    drop(runtime);
    // Read with no runtime at all, on a thread of its own, within a bound.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let client = waiting.client();
        let answers = futures_lite::future::block_on(async {
            let end = waiting.next().await.map(|item| item.map(drop));
            (end, client.mcp_status().await.map(drop))
        });
        let _ = tx.send(answers);
    });
    let (end, status) = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the waiting session's handles were not answered");
    assert!(end.is_none(), "{end:?}");
    assert!(matches!(status, Err(Error::Closed)), "{status:?}");
    assert_eq!(fleet.waiting(), 0, "the dropped session left the queue");
    drop(first);
}
