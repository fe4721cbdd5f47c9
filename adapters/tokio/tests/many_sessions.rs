//! Five hundred sessions open at once against the testkit's `fake-claude`, in a process whose
//! soft limit on open files starts at the common default of 1,024: the SDK raises it
//! (`cli::raise_open_file_limit`), every session connects and answers, and what each session
//! costs the host in descriptors and helper processes is measured.

use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::{fake_claude_binary, Script};
use claude_agent_testkit::real_cli::TestDir;
use claude_agent_tokio::{cli, connect, Options};
use futures_lite::StreamExt;

const SESSIONS: usize = 500;

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Processes whose parent is this one, or whose command line names the SDK's watcher.
fn helper_processes() -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|line| line.windows(20).any(|w| w == b"claude-agent-watcher"))
        })
        .count()
}

#[test]
fn five_hundred_sessions_at_once() {
    // The common default soft limit, as on a host nobody tuned.
    let (_, hard) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .expect("getrlimit");
    nix::sys::resource::setrlimit(
        nix::sys::resource::Resource::RLIMIT_NOFILE,
        1024.min(hard),
        hard,
    )
    .expect("setrlimit");
    let raised = cli::raise_open_file_limit().expect("raised");
    assert_eq!(raised, hard, "the soft limit is raised to the hard one");

    let dir = TestDir::new("many-sessions").unwrap();
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_result("ok")
        .expect_eof();
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, serde_json::to_string(&script).unwrap()).unwrap();
    let cli_path = dir.path().join("claude");
    let wrapper = format!(
        "#!/bin/sh\nFAKE_CLAUDE_SCRIPT='{}' exec '{}' \"$@\"\n",
        script_path.display(),
        fake_claude_binary().unwrap().display()
    );
    std::fs::write(&cli_path, wrapper).unwrap();
    std::fs::set_permissions(
        &cli_path,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = Options::new().cli_path(&cli_path);
        // One session first, so that what is made once per host (a runtime's threads, the
        // watcher) is not counted per session.
        let first = connect(options.clone()).await.expect("connected");
        let (fds, helpers) = (open_fds(), helper_processes());
        let started = Instant::now();
        let mut connecting = Vec::new();
        for _ in 0..SESSIONS {
            connecting.push(tokio::spawn(connect(options.clone())));
        }
        let mut clients = Vec::new();
        for connecting in connecting {
            clients.push(connecting.await.unwrap().expect("connected"));
        }
        let connected = started.elapsed();
        let (fds_open, helpers_open) = (open_fds(), helper_processes());
        for client in &clients {
            client.send("hi").await.unwrap();
        }
        for client in &clients {
            let turn: Vec<_> = client.receive_response().collect().await;
            assert!(turn.last().is_some_and(Result::is_ok), "{turn:?}");
        }
        let per_session = (fds_open - fds) as f64 / SESSIONS as f64;
        let helpers_per_session = (helpers_open - helpers) as f64 / SESSIONS as f64;
        eprintln!(
            "{SESSIONS} sessions connected in {connected:?}, a turn each in {:?}; \
             {per_session:.2} fds and {helpers_per_session:.2} watcher processes per session",
            started.elapsed()
        );
        for client in &clients {
            client.close().await;
        }
        first.close().await;
        drop(clients);
        assert!(per_session <= 4.0, "{per_session} fds per session");
        assert_eq!(helpers_open - helpers, 0, "one watcher for the whole host");
        // Everything is given back.
        let deadline = Instant::now() + Duration::from_secs(20);
        while open_fds() > fds + 8 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(open_fds() <= fds + 8, "fds {fds} → {}", open_fds());
    });
}
