//! End-to-end smoke tests: the real Claude Code CLI (installed by `scripts/install-claude-cli`)
//! against the stub Messages API with the convention rules, driven over stream-json by hand.
//!
//! They FAIL, with a message saying how to install the CLI, when it is missing: they never skip.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use claude_agent_testkit::real_cli::{RealCli, TestDir};
use claude_agent_testkit::stub_api::{Reply, Rule, StubApi};
use serde_json::{json, Value};

/// Upper bound for one turn; a normal one takes about a second.
const TURN_TIMEOUT: Duration = Duration::from_secs(60);

/// A running real CLI with a reader thread per output stream.
struct Cli {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    _home: TestDir,
    _work: TestDir,
}

impl Cli {
    fn start(stub: &StubApi, extra_args: &[&str]) -> Self {
        let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
        let home = TestDir::new("home").expect("create temp HOME");
        let work = TestDir::new("work").expect("create temp cwd");
        let mut cmd: Command = cli.command(stub, home.path());
        cmd.args(extra_args)
            .current_dir(work.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", cli.path().display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            stdout: rx,
            stderr,
            _home: home,
            _work: work,
        }
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{msg}").expect("write to CLI stdin");
        stdin.flush().expect("flush CLI stdin");
    }

    fn send_user(&mut self, text: &str) {
        self.send(
            &json!({"type":"user","message":{"role":"user","content":text},
                          "parent_tool_use_id":null,"session_id":""}),
        );
    }

    /// The next stdout line as JSON; panics with the CLI's stderr on timeout or EOF.
    fn next(&self, deadline: Instant) -> Value {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.stdout.recv_timeout(wait) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("CLI printed a non-JSON line ({e}): {line}")),
            Err(RecvTimeoutError::Timeout) => panic!(
                "no output from the CLI within {TURN_TIMEOUT:?}; stderr:\n{}",
                self.stderr.lock().unwrap()
            ),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "CLI stdout ended early; stderr:\n{}",
                self.stderr.lock().unwrap()
            ),
        }
    }

    /// Sends `initialize` and waits for its success response.
    fn initialize(&mut self) -> Value {
        self.send(&json!({"type":"control_request","request_id":"req_1",
                          "request":{"subtype":"initialize","hooks":null}}));
        let deadline = Instant::now() + TURN_TIMEOUT;
        loop {
            let msg = self.next(deadline);
            if msg["type"] == "control_response" && msg["response"]["request_id"] == "req_1" {
                assert_eq!(msg["response"]["subtype"], "success", "initialize: {msg}");
                return msg;
            }
        }
    }

    /// Reads until the turn's `result`, allowing every `can_use_tool` request.
    /// Returns the result and the `can_use_tool` requests seen.
    fn run_turn(&mut self) -> (Value, Vec<Value>) {
        let deadline = Instant::now() + TURN_TIMEOUT;
        let mut permission_requests = Vec::new();
        loop {
            let msg = self.next(deadline);
            match msg["type"].as_str() {
                Some("result") => return (msg, permission_requests),
                Some("control_request") if msg["request"]["subtype"] == "can_use_tool" => {
                    let id = msg["request_id"].clone();
                    let input = msg["request"]["input"].clone();
                    permission_requests.push(msg);
                    self.send(&json!({"type":"control_response","response":{
                        "subtype":"success","request_id":id,
                        "response":{"behavior":"allow","updatedInput":input}}}));
                }
                Some("control_request") => panic!("unexpected control request: {msg}"),
                _ => {}
            }
        }
    }

    /// Closes stdin and waits for the exit (killing the CLI after the timeout).
    fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + TURN_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for CLI") {
                return status;
            }
            if Instant::now() > deadline {
                drop(self.child.kill());
                panic!("CLI did not exit after stdin closed");
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Cli {
    fn drop(&mut self) {
        // On a failed assertion: never leave a CLI process behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            drop(self.child.kill());
            drop(self.child.wait());
        }
    }
}

/// One line per request the stub got, for failure messages and the test log.
fn describe_requests(stub: &StubApi) -> String {
    stub.requests()
        .iter()
        .map(|r| {
            format!(
                "{} {} main={} stream={} model={:?} user={:?} tool_result={:?}",
                r.method,
                r.path,
                r.is_main_conversation(),
                r.wants_stream(),
                r.model(),
                r.last_user_text(),
                r.last_tool_result_text(),
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn hello_is_echoed_by_the_stub() {
    let started = Instant::now();
    let stub = StubApi::start_with_conventions();
    let mut cli = Cli::start(&stub, &[]);
    let init = cli.initialize();
    assert!(
        init["response"]["response"]["commands"].is_array(),
        "{init}"
    );
    cli.send_user("hello");
    let (result, _) = cli.run_turn();
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(
        result["result"],
        "echo: hello",
        "{result}\n{}",
        describe_requests(&stub)
    );
    let status = cli.finish();
    assert!(status.success(), "exit status {status}");
    let main = stub.main_requests();
    assert_eq!(main.len(), 1, "{}", describe_requests(&stub));
    assert_eq!(main[0].last_user_text().as_deref(), Some("hello"));
    assert_eq!(main[0].header("x-api-key"), Some("sk-ant-dummy"));
    eprintln!(
        "hello: {:?}\nrequests:\n{}",
        started.elapsed(),
        describe_requests(&stub)
    );
}

#[test]
fn bash_tool_runs_with_permission_over_stdio() {
    let started = Instant::now();
    let stub = StubApi::start_with_conventions();
    let mut cli = Cli::start(&stub, &["--permission-prompt-tool", "stdio"]);
    cli.initialize();

    // `echo` is auto-allowed: the CLI runs it without asking.
    cli.send_user("BASH:echo hi");
    let (result, permissions) = cli.run_turn();
    assert_eq!(result["subtype"], "success", "{result}");
    let text = result["result"].as_str().unwrap_or_default();
    assert!(
        text.contains("hi"),
        "result {result}\nrequests:\n{}",
        describe_requests(&stub)
    );
    assert_eq!(text, "done: hi");
    assert!(permissions.is_empty(), "{permissions:?}");

    // Writing a file asks: a can_use_tool request, which run_turn allows.
    cli.send_user("BASH:touch hi.txt && ls");
    let (result, permissions) = cli.run_turn();
    assert_eq!(
        result["result"],
        "done: hi.txt",
        "{result}\nrequests:\n{}",
        describe_requests(&stub)
    );
    assert_eq!(permissions.len(), 1, "{permissions:?}");
    let request = &permissions[0]["request"];
    assert_eq!(request["tool_name"], "Bash");
    assert_eq!(request["input"]["command"], "touch hi.txt && ls");

    let status = cli.finish();
    assert!(status.success(), "exit status {status}");
    let main = stub.main_requests();
    assert_eq!(main.len(), 4, "{}", describe_requests(&stub));
    assert_eq!(main[1].last_tool_result_text().as_deref(), Some("hi"));
    eprintln!(
        "bash: {:?}\nrequests:\n{}",
        started.elapsed(),
        describe_requests(&stub)
    );
}

#[test]
fn api_error_becomes_an_error_result() {
    let stub = StubApi::start_with_conventions();
    // A rule, not a queued reply: on a 400 the CLI retries once without one of its betas
    // (`thinking-token-count-…`), so one queued error would be used up by the first try.
    stub.add_rule(Rule::any().reply(Reply::error(
        400,
        "invalid_request_error",
        "scripted failure",
    )));
    let mut cli = Cli::start(&stub, &[]);
    cli.initialize();
    cli.send_user("hello");
    let (result, _) = cli.run_turn();
    assert_eq!(
        result["is_error"],
        true,
        "{result}\n{}",
        describe_requests(&stub)
    );
    assert_eq!(result["api_error_status"], 400, "{result}");
    assert!(
        result["result"]
            .as_str()
            .unwrap_or_default()
            .contains("scripted failure"),
        "{result}"
    );
    let status = cli.finish();
    assert_eq!(status.code(), Some(1), "exit 1 after an error result");
    // On a 400 the CLI 2.1.330 retries without some of its betas (six tries in all when every
    // one fails); they are all the same turn.
    let main = stub.main_requests();
    let betas: Vec<&str> = main
        .iter()
        .map(|r| r.header("anthropic-beta").unwrap_or_default())
        .collect();
    assert!(main.len() >= 2, "retried: {betas:#?}");
    assert!(betas[0].contains("thinking-token-count"), "{betas:#?}");
    assert!(!betas[1].contains("thinking-token-count"), "{betas:#?}");
    assert!(main
        .iter()
        .all(|r| r.last_user_text().as_deref() == Some("hello")));
}
