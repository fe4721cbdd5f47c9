//! Soak: one `Client` taking 10,000 turns against the testkit's `fake-claude` process, each turn
//! with a permission round trip and a hook callback. After a warm-up, memory stays flat and no
//! file descriptor or thread is added.

use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::{fake_claude_binary, Script};
use claude_agent_testkit::real_cli::TestDir;
use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
use claude_agent_tokio::permission::PermissionResult;
use claude_agent_tokio::{connect, Message, Options};
use serde_json::json;

const TURNS: usize = 10_000;
const WARM_UP: usize = 1_000;
/// What RSS may still grow by after the warm-up: allocator noise, not a leak. A leak of a few
/// hundred bytes a turn (one kept message, one kept request) would pass 2 MiB by the end.
const RSS_SLACK_KIB: u64 = 2 * 1024;

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

/// The fake CLI: for each turn, a permission prompt and a PreToolUse hook, then a result.
fn script() -> Script {
    let mut script = Script::new().answer_initialize();
    for turn in 0..TURNS {
        let tool_use_id = format!("toolu_{turn}");
        script = script
            .expect_user()
            .can_use_tool(&format!("p{turn}"), "Bash", json!({"command": "ls"}))
            .hook_callback(
                &format!("h{turn}"),
                "hook_0",
                json!({"hook_event_name": "PreToolUse", "session_id": "s",
                    "transcript_path": "/t", "cwd": "/w", "tool_name": "Bash",
                    "tool_input": {"command": "ls"}, "tool_use_id": tool_use_id}),
            )
            .emit_result("ok");
    }
    script
}

#[test]
fn ten_thousand_turns_keep_memory_fds_and_threads_flat() {
    let dir = TestDir::new("soak").unwrap();
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, serde_json::to_string(&script()).unwrap()).unwrap();
    let cli = dir.path().join("claude");
    let wrapper = format!(
        "#!/bin/sh\nFAKE_CLAUDE_SCRIPT='{}' exec '{}' \"$@\"\n",
        script_path.display(),
        fake_claude_binary()
            .unwrap_or_else(|e| panic!("{e}"))
            .display()
    );
    std::fs::write(&cli, wrapper).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Hand the script's memory back to the system, so that the heap the session then uses has
    // no free room left by the set-up to hide a leak in.
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only releases free memory of the allocator; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = Options::new()
            .cli_path(&cli)
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() })
            .on_hook("Bash", |_input: PreToolUseInput, _ctx| async {
                HookOutput::proceed()
            });
        let client = connect(options).await.unwrap();
        let started = Instant::now();
        let mut warm = None;
        for turn in 0..TURNS {
            if turn == WARM_UP {
                warm = Some((
                    status_kib("VmRSS"),
                    count("/proc/self/fd"),
                    count("/proc/self/task"),
                ));
            }
            client.send("next").await.unwrap();
            let mut reply = client.receive_response();
            let mut results = 0;
            while let Some(item) = reply.next().await {
                if let Message::Result(_) = item.unwrap() {
                    results += 1;
                }
            }
            assert_eq!(results, 1, "turn {turn}");
        }
        let took = started.elapsed();
        let (rss, fds, threads) = warm.unwrap();
        let (rss_now, fds_now, threads_now) = (
            status_kib("VmRSS"),
            count("/proc/self/fd"),
            count("/proc/self/task"),
        );
        println!(
            "{TURNS} turns in {took:?} ({:.0} µs a turn); after {WARM_UP}: RSS {rss} → {rss_now} KiB, \
             fds {fds} → {fds_now}, threads {threads} → {threads_now}",
            took.as_secs_f64() * 1e6 / TURNS as f64,
        );
        assert!(
            rss_now <= rss + RSS_SLACK_KIB,
            "RSS grew from {rss} to {rss_now} KiB"
        );
        assert!(fds_now <= fds, "fds {fds} → {fds_now}");
        assert!(threads_now <= threads, "threads {threads} → {threads_now}");
        client.close().await;
        assert!(took < Duration::from_secs(60), "took {took:?}");
    });
}
