//! Surviving faults: a CLI killed mid-stream, one that never answers, huge and broken lines, a
//! callback that never returns, a consumer that stalls during a flood, many sessions in a row, a
//! CLI that closes its stdin early, and arguments and secrets that must not leak or be re-parsed.
//!
//! Tests that read process-wide figures (`/proc/self`: RSS, open descriptors, threads) take
//! `measuring` so that they do not disturb each other.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::{canned, fake_claude_binary, Answer, Script};
use claude_agent_testkit::real_cli::TestDir;
use futures_lite::future::zip;
use serde_json::{json, Value};

use crate::fake::{write_script, Fake};
use crate::{json, kind, kinds, result_text, wait_gone, within};
use claude_agent_client::Options;
use claude_agent_client::{connect_with, query_with, Error, Prompt};
use claude_agent_core::message::Message;
use claude_agent_core::message::{LineError, NoticeKind};
use claude_agent_core::permission::PermissionResult;

use crate::Harness;
use futures_lite::StreamExt;

const LIMIT: Duration = Duration::from_secs(10);

async fn collect<H: Harness>(
    options: Options,
    prompt: impl Into<Prompt>,
) -> Vec<Result<Message, Error>> {
    within(
        LIMIT,
        query_with(H::runtime(), prompt, options).collect::<Vec<_>>(),
    )
    .await
}

/// One test at a time among those that read process-wide figures.
fn measuring() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A number field of `/proc/self/status` (`VmRSS` is in kB).
fn status_field(name: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in /proc/self/status"))
}

fn rss_mib() -> u64 {
    status_field("VmRSS") / 1024
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

/// Send `signal` (e.g. `KILL`) to `pid`.
fn kill(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

/// A `can_use_tool` request body of the CLI.
fn can_use_tool(tool_name: &str) -> Value {
    json!({"subtype": "can_use_tool", "tool_name": tool_name, "input": {},
           "tool_use_id": format!("toolu_{tool_name}")})
}

pub fn sigkill_mid_stream_ends_the_stream_with_the_signal_and_fails_pending_calls_at_once<
    H: Harness,
>() {
    H::block_on(async {
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_system_init()
            .emit_assistant_text("half an answer")
            .stderr("fake-claude: working on it\n")
            .hang();
        let fake = Fake::builder(script).build();
        // A long control timeout: a pending call must fail because the CLI died, not time out.
        let options = fake.options().control_timeout(Duration::from_secs(30));
        let client = within(LIMIT, connect_with(H::runtime(), options))
            .await
            .unwrap();
        within(LIMIT, client.send("go")).await.unwrap();
        let mut messages = client.receive_messages();
        let mut seen = Vec::new();
        for _ in 0..2 {
            seen.push(within(LIMIT, messages.next()).await.unwrap());
        }
        assert_eq!(kinds(&seen), ["system/init", "assistant"]);

        let pid = fake.pid();
        // The hung fake never answers this interrupt; SIGKILL arrives while it is pending.
        let (answer, killed_at) = within(
            LIMIT,
            zip(client.interrupt(), async {
                H::sleep(Duration::from_millis(200)).await;
                kill(pid, "KILL");
                Instant::now()
            }),
        )
        .await;
        let took = killed_at.elapsed();
        assert!(
            matches!(answer, Err(Error::Closed)),
            "expected Closed, got {answer:?}"
        );
        assert!(
            took < Duration::from_secs(2),
            "the pending call failed {took:?} after SIGKILL"
        );

        let rest: Vec<_> = within(LIMIT, messages.collect()).await;
        match &rest[..] {
            [Err(Error::Process { exit, stderr_tail })] => {
                assert_eq!(exit.signal, Some(9), "{exit:?}");
                assert_eq!(exit.code, None, "{exit:?}");
                assert!(stderr_tail.contains("working on it"), "{stderr_tail}");
            }
            other => panic!("expected one Error::Process, got {other:?}"),
        }
        assert!(
            wait_gone::<H>(pid, Duration::from_secs(2)).await,
            "pid {pid}"
        );
    });
}

pub fn send_after_the_cli_was_killed_fails_at_once<H: Harness>() {
    H::block_on(async {
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_assistant_text("half")
            .hang();
        let fake = Fake::builder(script).build();
        let client = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .unwrap();
        within(LIMIT, client.send("go")).await.unwrap();
        let mut messages = client.receive_messages();
        within(LIMIT, messages.next()).await.unwrap().unwrap();
        kill(fake.pid(), "KILL");
        let rest: Vec<_> = within(LIMIT, messages.collect()).await;
        assert!(matches!(rest[..], [Err(Error::Process { .. })]), "{rest:?}");
        let late = within(Duration::from_secs(2), client.send("late")).await;
        assert!(matches!(late, Err(Error::Closed)), "{late:?}");
    });
}

pub fn initialize_never_answered_times_out_at_the_deadline<H: Harness>() {
    H::block_on(async {
        let fake = Fake::builder(Script::new().hang()).build();
        let deadline = Duration::from_millis(500);
        let options = fake.options().initialize_timeout(deadline);

        let started = Instant::now();
        let error = within(LIMIT, connect_with(H::runtime(), options.clone()))
            .await
            .unwrap_err();
        let took = started.elapsed();
        assert!(
            matches!(error, Error::ControlTimeout(after) if after == deadline),
            "{error:?}"
        );
        assert!(
            (deadline..deadline + Duration::from_secs(1)).contains(&took),
            "connect failed after {took:?}"
        );
        let pid = fake.pid();
        assert!(
            wait_gone::<H>(pid, Duration::from_secs(10)).await,
            "pid {pid}"
        );

        let started = Instant::now();
        let mut stream = query_with(H::runtime(), "hi", options);
        let first = within(LIMIT, stream.next()).await;
        let took = started.elapsed();
        assert!(
            matches!(first, Some(Err(Error::ControlTimeout(after))) if after == deadline),
            "{first:?}"
        );
        assert!(
            (deadline..deadline + Duration::from_secs(1)).contains(&took),
            "the query's first item came after {took:?}"
        );
        // The stream then ends (the hung CLI is shut down: stdin closed, SIGTERM 5 s later)
        // instead of waiting for ever.
        let rest: Vec<_> = within(LIMIT, stream.collect()).await;
        let took = started.elapsed();
        assert!(
            rest.iter().all(|item| item.is_err()),
            "no message expected: {rest:?}"
        );
        assert!(
            took < Duration::from_secs(8),
            "the stream ended after {took:?}"
        );
    });
}

pub fn a_ten_mib_line_arrives_whole_and_an_over_limit_line_is_skipped<H: Harness>() {
    // Taken on the test's own thread, outside the runtime.
    let _measuring = measuring();
    H::block_on(async {
        let text = "x".repeat(10 * 1024 * 1024);
        let limit = 12 * 1024 * 1024;
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_assistant_text(&text)
            .emit_long_line(limit + 1)
            .emit_assistant_text("after")
            .emit_result("ok");
        let fake = Fake::builder(script).build();
        let items = collect::<H>(fake.options().max_buffer_size(limit), "hi").await;
        assert_eq!(items.len(), 4, "{:?}", items.get(1..));
        let big = json(items[0].as_ref().unwrap());
        let got = big["message"]["content"][0]["text"].as_str().unwrap_or("");
        assert_eq!(got.len(), text.len());
        assert!(got == text, "the 10 MiB text changed on the way");
        match &items[1] {
            Ok(Message::Notice(notice)) => match &notice.kind {
                NoticeKind::UnreadableLine(LineError::TooLong { limit: l, .. }) => {
                    assert_eq!(*l, limit)
                }
                other => panic!("expected a too-long line, got {other:?}"),
            },
            other => panic!("expected a too-long line error, got {other:?}"),
        }
        assert_eq!(kinds(&items[2..]), ["assistant", "result"]);
        let after = json(items[2].as_ref().unwrap());
        assert_eq!(after["message"]["content"][0]["text"], "after");
    });
}

pub fn garbage_and_ansi_prefixed_lines_are_notices_and_nothing_is_lost<H: Harness>() {
    H::block_on(async {
        let hidden = canned::assistant_text("behind escapes", 90).to_string();
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_assistant_text("one")
            .emit_garbage()
            .emit_ansi_prefixed(&hidden)
            .emit("\u{1b}[0m")
            .emit_assistant_text("two")
            .emit(r#"{"type":"assistant","message":"#)
            .emit("\u{0}\u{7f}binary\u{fffd}")
            .emit_assistant_text("three")
            .emit_result("ok");
        let fake = Fake::builder(script).build();
        let items = collect::<H>(fake.options(), "hi").await;
        let shape: Vec<&str> = items
            .iter()
            .map(|item| match item {
                // A cut-off line of a known type is `Malformed`, the others `NotJson`.
                Ok(Message::Notice(notice))
                    if matches!(
                        notice.kind,
                        NoticeKind::UnreadableLine(
                            LineError::NotJson { .. } | LineError::Malformed { .. }
                        )
                    ) =>
                {
                    "bad line"
                }
                Ok(_) => "message",
                Err(_) => "other error",
            })
            .collect();
        assert_eq!(
            shape,
            [
                "message", "bad line", "bad line", "bad line", "message", "bad line", "bad line",
                "message", "message"
            ],
            "{items:?}"
        );
        let texts: Vec<Value> = items
            .iter()
            .filter_map(|item| item.as_ref().ok())
            .filter(|m| !matches!(m, Message::Notice(_)))
            .map(|m| json(m)["message"]["content"][0]["text"].clone())
            .collect();
        assert_eq!(texts[..3], [json!("one"), json!("two"), json!("three")]);
        assert_eq!(
            result_text(items[8].as_ref().unwrap()).as_deref(),
            Some("ok")
        );
    });
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

pub fn a_callback_that_never_returns_is_freed_by_the_cli_cancel_and_the_session_goes_on<
    H: Harness,
>() {
    H::block_on(async {
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .send_request("perm-stuck", can_use_tool("Stuck"))
            .sleep(Duration::from_millis(300))
            .cancel("perm-stuck")
            .emit_assistant_text("moved on")
            .emit_result("first")
            .expect_user()
            .request_and_wait("perm-next", can_use_tool("Read"))
            .emit_result("second")
            .auto_answer("interrupt", Answer::success(json!({"still_queued": []})));
        let fake = Fake::new(script);
        let dropped = Arc::new(AtomicBool::new(false));
        let flag = dropped.clone();
        let options = fake.options().on_permission_request(move |request, _ctx| {
            let guard = SetOnDrop(flag.clone());
            async move {
                let _guard = guard;
                if request.tool_name == "Stuck" {
                    std::future::pending::<()>().await;
                }
                PermissionResult::allow()
            }
        });
        let client = within(LIMIT, connect_with(H::runtime(), options))
            .await
            .unwrap();
        client.send("one").await.unwrap();
        let first: Vec<_> = within(LIMIT, client.receive_response().collect()).await;
        assert_eq!(kinds(&first), ["assistant", "result"]);
        assert!(
            dropped.load(Ordering::SeqCst),
            "the cancelled callback was not dropped"
        );
        client.send("two").await.unwrap();
        let second: Vec<_> = within(LIMIT, client.receive_response().collect()).await;
        assert_eq!(kinds(&second), ["result"]);
        within(LIMIT, client.interrupt()).await.unwrap();
        within(LIMIT, client.close()).await;
        assert_eq!(fake.response_to("perm-stuck"), None);
        let next = fake.response_to("perm-next").expect("answered");
        assert_eq!(next["response"]["behavior"], "allow", "{next}");
    });
}

pub fn a_stalled_consumer_loses_nothing_of_a_flood_and_memory_stays_bounded<H: Harness>() {
    // Taken on the test's own thread, outside the runtime.
    let _measuring = measuring();
    H::block_on(async {
        let total = 50_000;
        // ~1 KiB lines: buffering them all would take well over the allowed growth.
        let line = canned::assistant_text(&"y".repeat(100), 1).to_string();
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .flood(line, total)
            .emit_result("flooded")
            .auto_answer("interrupt", Answer::success(json!({"still_queued": []})));
        let fake = Fake::builder(script).build();
        let client = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .unwrap();
        let before = rss_mib();
        client.send("go").await.unwrap();
        let started = Instant::now();
        let ask = async {
            H::sleep(Duration::from_millis(300)).await;
            let answer = client.interrupt().await;
            (answer, started.elapsed())
        };
        let read = async {
            H::sleep(Duration::from_secs(2)).await;
            let stalled = rss_mib();
            let mut count = 0;
            let mut reply = client.receive_response();
            while let Some(item) = reply.next().await {
                let message = item.unwrap();
                count += 1;
                if count == total + 1 {
                    assert_eq!(result_text(&message).as_deref(), Some("flooded"));
                }
            }
            (count, stalled)
        };
        // Twice the usual limit: 50k lines take a few seconds in a debug build on a busy machine.
        let ((answer, answered_after), (count, stalled)) = within(2 * LIMIT, zip(ask, read)).await;
        let after = rss_mib();
        assert_eq!(count, total + 1);
        let receipt = answer.unwrap();
        assert!(receipt.still_queued.is_empty());
        let growth = stalled.max(after).saturating_sub(before);
        assert!(
            growth < 50,
            "RSS grew by {growth} MiB ({before} → stalled {stalled} → after {after})"
        );
        eprintln!(
            "flood: {total} lines in {:?}; interrupt answered after {answered_after:?}; \
             RSS {before} → {stalled} (stalled) → {after} MiB",
            started.elapsed()
        );
        within(LIMIT, client.close()).await;
    });
}

pub fn two_hundred_sessions_leak_no_descriptors_or_threads<H: Harness>() {
    // Taken on the test's own thread, outside the runtime.
    let _measuring = measuring();
    H::block_on(async {
        let fake = Fake::builder(Script::single_turn("ok")).build();
        let session = || async {
            let items = collect::<H>(fake.options(), "hi").await;
            assert_eq!(kinds(&items), ["system/init", "assistant", "result"]);
        };
        // Runtimes start global threads lazily: the first sessions are a warm-up.
        for _ in 0..5 {
            session().await;
        }
        let (fds, threads) = (open_fds(), status_field("Threads"));
        let started = Instant::now();
        for _ in 0..200 {
            session().await;
        }
        let took = started.elapsed();
        // Other tests of this binary may hold a few descriptors or threads for a moment: a
        // leak of one per session (200) cannot settle down under the slack.
        let slack = 24;
        let settle = Instant::now() + Duration::from_secs(3);
        let (mut fds_now, mut threads_now) = (open_fds(), status_field("Threads"));
        while (fds_now > fds + slack || threads_now > threads + slack as u64)
            && Instant::now() < settle
        {
            H::sleep(Duration::from_millis(100)).await;
            (fds_now, threads_now) = (open_fds(), status_field("Threads"));
        }
        eprintln!(
            "200 sessions in {took:?}; fds {fds} → {fds_now}; threads {threads} → {threads_now}"
        );
        assert!(fds_now <= fds + slack, "open fds {fds} → {fds_now}");
        assert!(
            threads_now <= threads + slack as u64,
            "threads {threads} → {threads_now}"
        );
    });
}

/// A wrapper around the fake whose stdin is `head -n 1`: the CLI side stops reading after the
/// first line (the initialize request), so everything the SDK writes later meets a closed pipe.
fn closes_stdin_after_one_line(dir: &Path, script: &Script) -> PathBuf {
    let script_path = dir.join("script.json");
    std::fs::write(&script_path, serde_json::to_string(script).unwrap()).unwrap();
    let bin = fake_claude_binary().unwrap_or_else(|e| panic!("{e}"));
    let wrapper = format!(
        "FAKE_CLAUDE_SCRIPT='{}'\nexport FAKE_CLAUDE_SCRIPT\nhead -n 1 | '{}' \"$@\"\n",
        script_path.display(),
        bin.display()
    );
    let path = dir.join("claude");
    write_script(&path, &wrapper);
    path
}

pub fn a_cli_that_closes_its_stdin_early_gives_a_clean_error_and_no_deadlock<H: Harness>() {
    H::block_on(async {
        let dir = TestDir::new("faults-stdin").unwrap();
        let script = Script::new()
            .answer_initialize()
            .sleep(Duration::from_millis(500))
            .emit_assistant_text("still talking")
            .expect_user();
        let cli = closes_stdin_after_one_line(dir.path(), &script);
        let client = within(
            LIMIT,
            connect_with(H::runtime(), Options::new().cli_path(cli)),
        )
        .await
        .unwrap();
        let started = Instant::now();
        // Keep sending (with messages large enough to fill a pipe) into the closed stdin.
        let big = "z".repeat(256 * 1024);
        let mut sent = Vec::new();
        for _ in 0..8 {
            sent.push(within(LIMIT, client.send(big.as_str())).await);
        }
        assert!(
            sent.iter()
                .all(|r| matches!(r, Ok(_) | Err(Error::Closed | Error::InputEnded))),
            "{sent:?}"
        );
        let items: Vec<_> = within(LIMIT, client.receive_messages().collect()).await;
        let took = started.elapsed();
        assert_eq!(kind(items[0].as_ref().unwrap()), "assistant", "{items:?}");
        match &items[1..] {
            [Err(Error::Process { exit, stderr_tail })] => {
                assert_eq!(exit.code, Some(1), "{exit:?}");
                assert!(stderr_tail.contains("stdin closed"), "{stderr_tail}");
            }
            other => panic!("expected one Error::Process, got {other:?}"),
        }
        assert!(took < Duration::from_secs(3), "took {took:?}");
        within(LIMIT, client.close()).await;
        assert!(matches!(client.send("late").await, Err(Error::Closed)));
    });
}

const SECRET: &str = "sk-ant-faults-0123456789-do-not-print";

pub fn arguments_never_pass_through_a_shell_and_dash_values_stay_one_token<H: Harness>() {
    H::block_on(async {
        let dir = TestDir::new("faults-argv").unwrap();
        let script_path = dir.path().join("script.json");
        let script = serde_json::to_string(&Script::single_turn("ok")).unwrap();
        std::fs::write(&script_path, script).unwrap();
        let argv_out = dir.path().join("argv.json");
        let pwned = dir.path().join("pwned");
        let victim = dir.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        let substitution = format!("$(touch '{}')", pwned.display());
        let separator = format!("; rm -rf '{}'", victim.display());
        let backticks = format!("`touch '{}'` && echo \"$HOME\"", pwned.display());
        let options = Options::new()
            .cli_path(fake_claude_binary().unwrap_or_else(|e| panic!("{e}")))
            .env("FAKE_CLAUDE_SCRIPT", script_path.display().to_string())
            .env("FAKE_CLAUDE_ARGV_OUT", argv_out.display().to_string())
            .env("ANTHROPIC_API_KEY", SECRET)
            .model(substitution.as_str())
            .fallback_model("--print")
            .extra_arg("note", Some(separator.clone()))
            .extra_arg("quoted", Some(backticks.clone()))
            .extra_arg("dash", Some("-v".to_owned()));
        let items = collect::<H>(options, "hi").await;
        assert!(items.iter().all(Result::is_ok), "{items:?}");

        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(&argv_out).unwrap()).unwrap();
        let argv: Vec<&str> = record["argv"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let has = |token: &str| argv.contains(&token);
        let followed_by =
            |flag: &str, value: &str| argv.windows(2).any(|pair| pair == [flag, value]);
        assert!(has(&format!("--model={substitution}")), "{argv:?}");
        assert!(has("--fallback-model=--print"), "{argv:?}");
        assert!(has("--dash=-v"), "{argv:?}");
        assert!(followed_by("--note", &separator), "{argv:?}");
        assert!(followed_by("--quoted", &backticks), "{argv:?}");
        // The dash-leading values did not become flags of their own.
        assert!(!has("--print") && !has("-v"), "{argv:?}");
        assert!(!pwned.exists(), "a shell ran the substitution");
        assert!(victim.exists(), "a shell ran the command after `;`");
        assert_eq!(record["env"]["ANTHROPIC_API_KEY"], SECRET);
    });
}

pub fn an_api_key_in_options_env_appears_neither_in_debug_nor_in_errors<H: Harness>() {
    H::block_on(async {
        let script = Script::new()
            .stderr("fake-claude: authentication failed\n")
            .exit(1);
        let fake = Fake::builder(script).build();
        let options = fake.options().env("ANTHROPIC_API_KEY", SECRET);
        let debug = format!("{options:?}");
        assert!(!debug.contains(SECRET), "{debug}");
        assert!(debug.contains("ANTHROPIC_API_KEY"), "{debug}");

        let error = within(LIMIT, connect_with(H::runtime(), options.clone()))
            .await
            .unwrap_err();
        assert!(matches!(error, Error::StartFailed { .. }), "{error:?}");
        let items = collect::<H>(options.clone(), "hi").await;
        let last = items.last().and_then(|item| item.as_ref().err());
        assert!(matches!(last, Some(Error::StartFailed { .. })), "{items:?}");

        // A CLI that cannot even be started.
        let not_executable = TestDir::new("faults-secret").unwrap();
        let cli = not_executable.path().join("claude");
        std::fs::write(&cli, "not a program").unwrap();
        let spawn = within(LIMIT, connect_with(H::runtime(), options.cli_path(&cli)))
            .await
            .unwrap_err();
        assert!(matches!(spawn, Error::Spawn { .. }), "{spawn:?}");

        for error in [&error, last.unwrap(), &spawn] {
            for text in [error.to_string(), format!("{error:?}")] {
                assert!(!text.contains(SECRET), "{text}");
            }
        }
    });
}
