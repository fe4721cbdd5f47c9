//! With the `tracing` feature, a session on a real process: the testkit's `fake-claude`, spawned
//! by tokio. The span carries the process id and the CLI's session id and model; `spawn` names
//! the program and working directory, and `exit` the exit code. (Everything else a session
//! reports is tested over the in-memory fake CLI: `conformance/tests/tracing.rs`.)

use claude_agent_conformance::{fake, trace_log};

use claude_agent_testkit::fake_cli::{canned, Script};
use claude_agent_testkit::real_cli::TestDir;
use claude_agent_tokio as sdk;
use tracing::Level;

use fake::Fake;
use futures_lite::StreamExt;
use trace_log::{capture, one, session_span};

#[test]
fn a_spawned_cli_is_traced_with_its_pid_program_cwd_and_exit() {
    let fake = Fake::builder(Script::single_turn("hi")).build();
    let cwd = TestDir::new("tracing-cwd").expect("temp dir");
    let options = fake.options().cwd(cwd.path());
    let program = fake
        .options()
        .config()
        .cli_path
        .as_deref()
        .expect("a path")
        .to_owned();
    // On this thread, where the subscriber is: a current-thread runtime.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (items, log) = capture(|| {
        runtime.block_on(async { sdk::query("hello", options).collect::<Vec<_>>().await })
    });
    assert!(items.iter().all(Result::is_ok), "{items:?}");

    let span = session_span(&log);
    assert_eq!(span.get("pid"), Some(&fake.pid().to_string()));
    assert_eq!(
        span.get("session_id").map(String::as_str),
        Some(canned::SESSION_ID)
    );
    assert_eq!(
        span.get("model").map(String::as_str),
        Some("claude-opus-5-5")
    );

    let spawn = one(&log, "spawn", &[]);
    assert_eq!(spawn.level, Level::INFO);
    assert_eq!(spawn.fields["program"], program.display().to_string());
    assert_eq!(spawn.fields["cwd"], cwd.path().display().to_string());
    assert_eq!(
        spawn.span.as_ref().map(|(name, _)| name.as_str()),
        Some("session")
    );
    let exit = one(&log, "exit", &[]);
    assert_eq!(
        (exit.level, exit.fields["code"].as_str()),
        (Level::INFO, "0")
    );
    assert!(!exit.fields.contains_key("signal"), "{exit:?}");
}
