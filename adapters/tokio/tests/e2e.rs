//! The end-to-end scenarios of `claude-agent-conformance` (the real Claude Code CLI against the
//! testkit's stub Messages API) on tokio, each on a multi-thread runtime of its own; and what only
//! tokio can do: a runtime dropped under a running real CLI.
//!
//! They fail, with a message saying how to install the CLI (`scripts/install-claude-cli`), when
//! it is missing: they never skip.

mod harness;

claude_agent_conformance::e2e_tests!(crate::harness::Tokio);

use claude_agent_conformance::{e2e, fake};
use claude_agent_tokio as sdk;

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Wait until the CLI marked `marker` runs the `sleep` of its Bash tool.
fn wait_for_the_sleep_tool(marker: &str) {
    use std::time::{Duration, Instant};

    let is_sleep = |pid: &u32| {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|name| name == "sleep\n")
    };
    let deadline = Instant::now() + Duration::from_secs(40);
    while !fake::marked_processes(marker).iter().any(is_sleep) {
        assert!(Instant::now() < deadline, "the Bash tool did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The processes marked `marker` still running after `limit`, or as soon as there are none.
fn left_after(marker: &str, limit: std::time::Duration) -> Vec<u32> {
    let deadline = std::time::Instant::now() + limit;
    let mut left = fake::marked_processes(marker);
    while !left.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = fake::marked_processes(marker);
    }
    left
}

/// tokio only (only its runtime can be dropped under a session): the real CLI is running a Bash
/// tool when the runtime is dropped. The CLI runs the tool's `bash` in a session of its own, out
/// of the CLI's process group; the CLI, the `bash` and its `sleep` are all gone within 5 s.
#[test]
fn dropping_the_runtime_mid_bash_tool_kills_the_tool() {
    use std::time::{Duration, Instant};

    use sdk::connect;
    use sdk::permission::PermissionResult;

    let env = e2e::env();
    let marker = env.work.path().display().to_string();
    let options = env
        .options
        .clone()
        .env(fake::TREE_VAR, &marker)
        .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    let runtime = tokio_rt();
    let client = runtime.block_on(async {
        let client = connect(options).await.expect("connected");
        client
            .send("BASH:echo start && sleep 40; echo slept")
            .await
            .expect("sent");
        client
    });
    wait_for_the_sleep_tool(&marker);
    let running = fake::marked_processes(&marker);
    assert!(running.len() >= 3, "{}", fake::Fake::describe(&running));

    let dropped = Instant::now();
    drop(runtime);
    let left = left_after(&marker, Duration::from_secs(5));
    assert!(
        left.is_empty(),
        "still running 5 s after the runtime was dropped: {}",
        fake::Fake::describe(&left)
    );
    eprintln!(
        "CLI and tool gone {:?} after the runtime was dropped",
        dropped.elapsed()
    );
    drop(client);
}

/// The pids of this process's children that are zombies (ended, not reaped).
#[cfg(target_os = "linux")]
fn zombie_children() -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let mut rest = stat
                    .rsplit_once(") ")
                    .map_or("", |(_, rest)| rest)
                    .split(' ');
                let (state, ppid) = (rest.next(), rest.next().and_then(|p| p.parse().ok()));
                state == Some("Z") && ppid == Some(me)
            })
        })
        .collect()
}

/// A host that is a subreaper (a container's init, a service manager) adopts the orphans of
/// the CLI's tree: after a session whose Bash tool had to be killed, none is left as a zombie.
/// Runs itself again in a process of its own that is a subreaper.
#[cfg(target_os = "linux")]
#[test]
fn a_subreaper_host_is_left_no_zombie_by_a_killed_session() {
    use std::time::{Duration, Instant};

    use sdk::connect;
    use sdk::permission::PermissionResult;

    const AS_SUBREAPER: &str = "CLAUDE_AGENT_TEST_SUBREAPER";
    if std::env::var_os(AS_SUBREAPER).is_none() {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_subreaper_host_is_left_no_zombie_by_a_killed_session",
                "--test-threads=1",
                "--nocapture",
            ])
            .env(AS_SUBREAPER, "1")
            .status()
            .unwrap();
        assert!(status.success(), "the subreaper run failed: {status}");
        return;
    }
    nix::sys::prctl::set_child_subreaper(true).unwrap();
    let env = e2e::env();
    let marker = env.work.path().display().to_string();
    let options = env
        .options
        .clone()
        .env(fake::TREE_VAR, &marker)
        .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    let runtime = tokio_rt();
    let (client, cli) = runtime.block_on(async {
        let client = connect(options).await.expect("connected");
        let cli = client
            .server_info()
            .and_then(|info| info.pid)
            .expect("the CLI's pid");
        client
            .send("BASH:echo start && sleep 40; echo slept")
            .await
            .expect("sent");
        (client, cli)
    });
    wait_for_the_sleep_tool(&marker);
    // The session is killed with its tool running: the runtime goes away under it, and the
    // watcher kills the whole tree. (The CLI's own zombie is tokio's to reap, and that runtime
    // is gone: it is not counted.)
    drop(runtime);
    let left = left_after(&marker, Duration::from_secs(5));
    assert!(
        left.is_empty(),
        "still running: {}",
        fake::Fake::describe(&left)
    );
    let others = || -> Vec<String> {
        zombie_children()
            .into_iter()
            .filter(|&pid| pid != cli)
            .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default())
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut zombies = others();
    while !zombies.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        zombies = others();
    }
    assert!(
        zombies.is_empty(),
        "zombie children of the host: {zombies:?}"
    );
    drop(client);
}
