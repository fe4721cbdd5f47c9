//! Nothing the SDK started outlives it: the CLI and every process the CLI started (its tools,
//! also those in a process group or session of their own) are killed when the CLI's handle is
//! dropped, and when the host process itself dies (killed, or exiting with a session running on
//! an executor that is never dropped).
//!
//! The fakes here start two "tools" ([`FakeBuilder::with_tools`](super::fake::FakeBuilder)): one in
//! the CLI's process group and one in a session of its own, as the real CLI starts its Bash tool.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::Script;

use crate::fake::{Fake, TREE_VAR};
use crate::within;
use claude_agent_client::connect_with;
use claude_agent_client::Options;
use claude_agent_client::{Connection, Runtime, Signal};
use claude_agent_core::options::LaunchSpec;

use crate::Harness;

/// How long the processes of a killed tree may take to be gone.
const GONE_WITHIN: Duration = Duration::from_secs(5);
/// How long a fake may take to start its tools.
const STARTED_WITHIN: Duration = Duration::from_secs(10);

/// The host process of [`killing_the_host_kills_the_cli_and_its_tools`] reads the CLI's path and
/// the tree marker from these, and ends as [`HOST_END`] says.
const HOST_CLI: &str = "CLAUDE_AGENT_TEST_HOST_CLI";
const HOST_MARKER: &str = "CLAUDE_AGENT_TEST_HOST_MARKER";
/// `wait` (to be killed) or `exit` (`std::process::exit` with the session running, once a line
/// comes on its stdin).
const HOST_END: &str = "CLAUDE_AGENT_TEST_HOST_END";
/// What the host prints once its session is connected.
const CONNECTED: &str = "host: connected";

/// `spec` started by the runtime's local process.
async fn local_process<H: Harness>(spec: LaunchSpec) -> Connection {
    let local = H::runtime()
        .local_process()
        .expect("a runtime with a local process");
    local.connect(spec).await.expect("spawned")
}

/// A fake CLI that answers `initialize` and hangs with its two tools running.
fn fake_with_tools() -> Fake {
    Fake::builder(Script::new().answer_initialize().hang())
        .with_tools()
        .build()
}

pub fn dropping_the_cli_handle_kills_every_process_it_started<H: Harness>() {
    let fake = fake_with_tools();
    let options = fake.options();
    let program = options
        .config()
        .cli_path
        .as_deref()
        .expect("a CLI path")
        .to_path_buf();
    let spec = options
        .config()
        .launch_spec(program, &options.get_host_declarations())
        .expect("a launch spec");
    let dropped = H::block_on(async {
        let connection = local_process::<H>(spec).await;
        // Blocks the task a moment: nothing else needs to run meanwhile.
        assert!(
            fake.wait_for_tools(STARTED_WITHIN),
            "the fake and its tools did not start"
        );
        let dropped = Instant::now();
        drop(connection);
        dropped
    });
    let left = fake.wait_tree_gone(GONE_WITHIN);
    assert!(
        left.is_empty(),
        "still running after the drop: {}",
        Fake::describe(&left)
    );
    eprintln!("tree gone {:?} after the drop", dropped.elapsed());
}

/// A kill does not hold up the executor: `signal(Kill)` returns while the watcher that kills the
/// tree cannot act (stopped here; before, the call waited up to 3 s for it), and the child's wait
/// ends once the watcher has killed the tree.
pub fn a_kill_returns_at_once_and_the_wait_ends_once_the_tree_is_gone<H: Harness>() {
    let fake = fake_with_tools();
    let options = fake.options();
    let program = options
        .config()
        .cli_path
        .as_deref()
        .expect("a CLI path")
        .to_path_buf();
    let spec = options
        .config()
        .launch_spec(program, &options.get_host_declarations())
        .expect("a launch spec");
    H::block_on(async {
        let mut connection = local_process::<H>(spec).await;
        assert!(
            fake.wait_for_tools(STARTED_WITHIN),
            "the fake and its tools did not start"
        );
        let child = connection.process().expect("the CLI's process");
        let cli = child.id().expect("running");
        let watcher = watcher_of(cli);
        let signal_watcher = |signal: &str| {
            let status = Command::new("kill")
                .args([signal, &watcher.to_string()])
                .status()
                .expect("kill");
            assert!(status.success(), "kill {signal} {watcher}");
        };
        signal_watcher("-STOP");
        let asked = Instant::now();
        child.signal(Signal::Kill).expect("the kill is under way");
        let returned_after = asked.elapsed();
        signal_watcher("-CONT");
        assert!(
            returned_after < Duration::from_secs(1),
            "signal(Kill) waited {returned_after:?} for the watcher"
        );
        within(GONE_WITHIN, std::future::poll_fn(|cx| child.poll_wait(cx)))
            .await
            .expect("reaped");
    });
    let left = fake.wait_tree_gone(GONE_WITHIN);
    assert!(
        left.is_empty(),
        "still running after the kill: {}",
        Fake::describe(&left)
    );
}

/// The watcher guarding this host's CLIs (the CLI `cli` among them): the one process whose
/// arguments name the watcher and this process's pid.
fn watcher_of(cli: u32) -> u32 {
    const MARKER: &str = "CLAUDE_AGENT_SDK_TREE=";
    let environ = std::fs::read(format!("/proc/{cli}/environ")).expect("the CLI's environment");
    assert!(
        environ
            .split(|byte| *byte == 0)
            .any(|var| var.starts_with(MARKER.as_bytes())),
        "the CLI carries the tree marker"
    );
    let host = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|argv| {
                let args: Vec<&[u8]> = argv.split(|byte| *byte == 0).collect();
                args.windows(2)
                    .any(|pair| pair[0] == b"claude-agent-watcher" && pair[1] == host.as_bytes())
            })
        })
        .expect("the watcher runs")
}

pub fn killing_the_host_kills_the_cli_and_its_tools<H: Harness>() {
    host_dies_with_a_session_running("wait");
}

/// The host's one watcher guards all its sessions: killed with three running, it takes down
/// every CLI and every tool.
pub fn killing_a_host_with_three_sessions_kills_every_tree<H: Harness>() {
    host_dies_with_a_session_running("wait 3");
}

pub fn a_host_exiting_with_a_session_running_kills_the_cli_and_its_tools<H: Harness>() {
    host_dies_with_a_session_running("exit");
}

/// Run [`host_of_a_session`] in a process of its own (this test binary again), let it connect a
/// session whose CLI has started its tools, end it as `end` says (`wait`: SIGKILL it), and check
/// that the whole tree is gone within [`GONE_WITHIN`].
fn host_dies_with_a_session_running(end: &str) {
    let fake = fake_with_tools();
    let options = fake.options();
    let cli = options.config().cli_path.as_deref().expect("a CLI path");
    // Stamped at the root of the adapter's test crate by `conformance_tests!`.
    let host_test = "host_of_a_session";
    let mut host = Command::new(std::env::current_exe().expect("the test binary"))
        .args([host_test, "--exact", "--ignored", "--nocapture"])
        .env(HOST_CLI, cli)
        .env(HOST_MARKER, fake.marker())
        .env(HOST_END, end)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the host");
    let stdout = host.stdout.take().expect("piped");
    let mut stderr = host.stderr.take().expect("piped");
    // What the host printed, for a failure message.
    let host_said = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let (connected_tx, connected) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(line) if line == CONNECTED => {
                    let _ = connected_tx.send(());
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    });
    connected
        .recv_timeout(STARTED_WITHIN)
        .expect("the host connected its session");
    let sessions: usize = end.strip_prefix("wait ").map_or(1, |n| n.parse().unwrap());
    // Each session: its CLI and two tools.
    let deadline = Instant::now() + STARTED_WITHIN;
    while fake.processes().len() < 3 * sessions && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let running = fake.processes();
    if running.len() != 3 * sessions {
        let _ = host.kill();
        let _ = host.wait();
        panic!(
            "{} of the {} processes of the fakes and their tools run: {}\nthe host said: {}",
            running.len(),
            3 * sessions,
            Fake::describe(&running),
            host_said.join().unwrap_or_default()
        );
    }
    assert!(sessions > 1 || fake.wait_for_tools(STARTED_WITHIN));

    if end.starts_with("wait") {
        host.kill().expect("SIGKILL the host");
    } else {
        let mut stdin = host.stdin.take().expect("piped");
        writeln!(stdin, "exit").expect("tell the host to exit");
    }
    let status = host.wait().expect("reap the host");
    let died = Instant::now();
    if end == "exit" {
        assert!(status.success(), "the host failed: {status:?}");
    }
    let left = fake.wait_tree_gone(GONE_WITHIN);
    assert!(
        left.is_empty(),
        "still running {GONE_WITHIN:?} after the host died: {}",
        Fake::describe(&left)
    );
    eprintln!("tree gone {:?} after the host died", died.elapsed());
}

/// The host process of `host_dies_with_a_session_running`: connects a session to the CLI named
/// by `HOST_CLI` and then waits to be killed, or exits at once without closing it.
pub fn host_of_a_session<H: Harness>() {
    let (Some(cli), Some(marker), Some(end)) = (
        std::env::var_os(HOST_CLI),
        std::env::var(HOST_MARKER).ok(),
        std::env::var(HOST_END).ok(),
    ) else {
        return;
    };
    let options = Options::new().cli_path(cli).env(TREE_VAR, marker);
    let sessions: usize = end.strip_prefix("wait ").map_or(1, |n| n.parse().unwrap());
    H::block_on(async {
        let mut clients = Vec::new();
        for _ in 0..sessions {
            let client = within(STARTED_WITHIN, connect_with(H::runtime(), options.clone()))
                .await
                .expect("connected");
            clients.push(client);
        }
        println!("{CONNECTED}");
        if end == "exit" {
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
            // As when `main` returns with a session still running on a global executor: no
            // destructor runs.
            std::process::exit(0);
        }
        loop {
            H::sleep(Duration::from_secs(1)).await;
        }
    });
}
