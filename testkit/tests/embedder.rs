//! The sans-IO session driven as an embedder without an async runtime drives it: the standard
//! library only (a child process, a reader thread, a channel, the clock), and only what
//! `claude-agent-core` has without its default features (`session`, `message`, `control`,
//! `permission`). The CLI is the testkit's fake one, asking permission for a `Bash` call that
//! the host denies.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use claude_agent_core::control::{InboundKind, Reply};
use claude_agent_core::message::{Message, UserInput};
use claude_agent_core::permission::PermissionResult;
use claude_agent_core::session::{
    Event, ExitStatusInfo, InputMode, Session, SessionConfig, Signal, Termination, Transmit,
};
use claude_agent_testkit::fake_cli::{FakeResult, Script, ToolUse};
use serde_json::json;

/// The CLI, killed and reaped when the test is done with it, whatever happened, and the folder
/// of its script removed.
struct Reaped {
    child: Child,
    dir: PathBuf,
}

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The testkit's fake CLI playing `script`, its stdin and stdout piped.
fn spawn_fake(script: &Script, name: &str) -> Reaped {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script_path = dir.join("script.json");
    std::fs::write(&script_path, serde_json::to_string(script).unwrap()).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_fake-claude"))
        .env("FAKE_CLAUDE_SCRIPT", &script_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Reaped { child, dir }
}

/// What the reader thread saw on the CLI's stdout.
enum Output {
    Bytes(Vec<u8>),
    End,
}

#[test]
fn a_std_only_host_denies_a_tool_and_gets_the_result() {
    let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf /tmp/x"}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_system_init()
        .emit_tool_use(&ls)
        .can_use_tool_then(
            "p1",
            &ls,
            |allowed| {
                allowed
                    .emit_tool_result(&ls, "removed")
                    .emit_result("removed")
            },
            |denied| {
                denied
                    .emit_tool_error(&ls, "denied by the host")
                    .emit_result_with(FakeResult::success("left alone").permission_denial(&ls))
            },
        );
    let mut child = spawn_fake(&script, "embedder");
    let mut stdin = child.child.stdin.take();
    let mut stdout = child.child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0; 8192];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(Output::Bytes(buf[..n].to_vec())).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = tx.send(Output::End);
    });

    let mut config = SessionConfig::new(InputMode::SingleTurn);
    config.can_use_tool = true;
    let mut session = Session::new(config, Instant::now());
    session
        .send_user(Instant::now(), UserInput::text("clean up /tmp/x"))
        .unwrap();
    let (mut asked, mut result, mut end) = (Vec::new(), None, None);
    let give_up = Instant::now() + Duration::from_secs(20);
    while end.is_none() && Instant::now() < give_up {
        while let Some(transmit) = session.poll_transmit() {
            match transmit {
                Transmit::Write(bytes) => stdin.as_mut().unwrap().write_all(&bytes).unwrap(),
                Transmit::CloseStdin => drop(stdin.take()),
                _ => {}
            }
        }
        while let Some(event) = session.poll_event() {
            match event {
                Event::Inbound(request) => {
                    let InboundKind::CanUseTool(permission) = &request.kind else {
                        panic!("only a permission prompt is expected: {request:?}");
                    };
                    asked.push(permission.tool_name.clone());
                    let deny = Reply::Permission(PermissionResult::deny("not on this host"));
                    session.respond(Instant::now(), request.id, deny).unwrap();
                }
                Event::Message(Message::Result(done)) => result = Some(done),
                Event::Finished(termination) => end = Some(termination),
                _ => {}
            }
        }
        if end.is_some() {
            break;
        }
        // Sleep until the CLI says something or a deadline of the session falls due.
        let wait = session
            .poll_timeout()
            .map_or(Duration::from_millis(200), |due| {
                due.saturating_duration_since(Instant::now())
            });
        match rx.recv_timeout(wait.min(Duration::from_millis(200))) {
            Ok(Output::Bytes(bytes)) => session.handle_stdout(Instant::now(), &bytes),
            Ok(Output::End) => {
                session.handle_stdout_eof(Instant::now());
                let status = child.child.wait().unwrap();
                session.handle_exit(Instant::now(), ExitStatusInfo::code(status.code().unwrap()));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => session.handle_timeout(Instant::now()),
            Err(mpsc::RecvTimeoutError::Disconnected) => unreachable!("End comes first"),
        }
    }
    drop(child);
    reader.join().unwrap();

    assert!(end.is_some(), "the session did not end within 20 s");
    assert_eq!(asked, ["Bash"]);
    let result = result.expect("a result");
    assert_eq!(result.result.as_deref(), Some("left alone"));
    assert_eq!(result.permission_denials.len(), 1, "{result:?}");
    assert_eq!(end, Some(Termination::Completed));
}

/// The same std-only host stopping a CLI that ignores its closed stdin: it sends the signals the
/// session asks for when it asks for them (here `SIGTERM`, through the `kill` command, the
/// standard library having no way to send it), and reports the exit. It keeps no clock of its own.
#[test]
fn a_std_only_host_stops_a_hung_cli_when_the_session_says() {
    let script = Script::new().answer_initialize().hang();
    let mut child = spawn_fake(&script, "embedder-stop");
    let mut stdin = child.child.stdin.take();

    let mut config = SessionConfig::new(InputMode::Streaming);
    config.timeouts.exit_after_stdin_closed = Duration::from_millis(300);
    let start = Instant::now();
    let mut session = Session::new(config, start);
    session.close(start);
    let (mut signals, mut end) = (Vec::new(), None);
    while end.is_none() && start.elapsed() < Duration::from_secs(20) {
        while let Some(transmit) = session.poll_transmit() {
            match transmit {
                Transmit::Write(bytes) => {
                    let _ = stdin.as_mut().map(|stdin| stdin.write_all(&bytes));
                }
                Transmit::CloseStdin => drop(stdin.take()),
                Transmit::Signal(signal) => {
                    signals.push((signal, start.elapsed()));
                    let name = if signal == Signal::Terminate {
                        "-TERM"
                    } else {
                        "-KILL"
                    };
                    let pid = child.child.id().to_string();
                    Command::new("kill").args([name, &pid]).status().unwrap();
                }
                _ => {}
            }
        }
        while let Some(event) = session.poll_event() {
            if let Event::Finished(termination) = event {
                end = Some(termination);
            }
        }
        if let Some(status) = child.child.try_wait().unwrap() {
            use std::os::unix::process::ExitStatusExt;
            let now = Instant::now();
            session.handle_stdout_eof(now);
            session.handle_exit(now, ExitStatusInfo::signal(status.signal().unwrap_or(0)));
            continue;
        }
        let due = session
            .poll_timeout()
            .expect("a session stopping its CLI has a deadline");
        std::thread::sleep(
            due.saturating_duration_since(Instant::now())
                .min(Duration::from_millis(20)),
        );
        session.handle_timeout(Instant::now());
    }
    drop(child);

    assert_eq!(end, Some(Termination::ClosedByHost));
    let [(Signal::Terminate, at)] = signals[..] else {
        panic!("one SIGTERM expected: {signals:?}");
    };
    assert!(
        at >= Duration::from_millis(300),
        "SIGTERM after {at:?}, before its grace"
    );
}
