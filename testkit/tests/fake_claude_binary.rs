//! The `fake-claude` binary as a process: transcript replay over real pipes, scripts from JSON,
//! `--version`, the argv/env record, and the benchmarks' flood.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::{Script, VERSION_LINE};
use claude_agent_testkit::real_cli::TestDir;
use serde_json::{json, Value};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-claude");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/transcripts")
        .join(name)
}

fn fake() -> Command {
    let mut cmd = Command::new(FAKE);
    cmd.env_remove("FAKE_CLAUDE_SCRIPT")
        .env_remove("FAKE_CLAUDE_TRANSCRIPT")
        .env_remove("FAKE_CLAUDE_ARGV_OUT")
        .env_remove("FAKE_CLAUDE_CORPUS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Waits for the process with a deadline, killing it on timeout.
fn wait_exit(child: &mut std::process::Child) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("fake-claude did not exit");
        }
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn replays_hello_when_fed_the_recorded_in_lines() {
    let text = std::fs::read_to_string(fixture("hello.jsonl")).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut child = fake()
        .env("FAKE_CLAUDE_TRANSCRIPT", fixture("hello.jsonl"))
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            tx.send(line.unwrap()).unwrap();
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut expected = Vec::new();
    for entry in &entries {
        let mut msg = entry["msg"].clone();
        if entry["dir"] == "in" {
            // Our own request id: the fake must answer with it, not the recorded one.
            if msg["type"] == "control_request" {
                msg["request_id"] = json!("sdk-init");
            }
            writeln!(stdin, "{msg}").unwrap();
        } else {
            if msg["type"] == "control_response" {
                msg["response"]["request_id"] = json!("sdk-init");
            }
            expected.push(msg);
        }
    }
    stdin.flush().unwrap();
    let mut got = Vec::new();
    while got.len() < expected.len() {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("a replayed line");
        got.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    assert_eq!(got, expected);
    drop(stdin);
    assert_eq!(wait_exit(&mut child), 0);
    assert!(
        rx.recv_timeout(Duration::from_secs(5)).is_err(),
        "nothing after the result"
    );
}

#[test]
fn runs_a_json_script_with_stderr_and_exit_code() {
    let dir = TestDir::new("fake-script").unwrap();
    let script = Script::new()
        .answer_initialize()
        .stderr("warming up\n")
        .emit_garbage()
        .exit(7);
    let path = dir.path().join("script.json");
    std::fs::write(&path, serde_json::to_string(&script).unwrap()).unwrap();
    let mut child = fake().env("FAKE_CLAUDE_SCRIPT", &path).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"type":"control_request","request_id":"i","request":{{"subtype":"initialize"}}}}"#
    )
    .unwrap();
    stdin.flush().unwrap();
    let code = wait_exit(&mut child);
    let output = child.wait_with_output().unwrap();
    assert_eq!(code, 7);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    let init: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(init["response"]["request_id"], "i");
    assert_eq!(lines[1], "this is not json {");
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "warming up\n");
}

#[test]
fn sleep_keeps_reading_input() {
    let dir = TestDir::new("fake-sleep").unwrap();
    let script = Script::new()
        .sleep(Duration::from_millis(300))
        .answer_initialize()
        .exit(0);
    let path = dir.path().join("script.json");
    std::fs::write(&path, serde_json::to_string(&script).unwrap()).unwrap();
    let started = Instant::now();
    let mut child = fake().env("FAKE_CLAUDE_SCRIPT", &path).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"type":"control_request","request_id":"i","request":{{"subtype":"initialize"}}}}"#
    )
    .unwrap();
    assert_eq!(wait_exit(&mut child), 0);
    assert!(started.elapsed() >= Duration::from_millis(300));
    let output = child.wait_with_output().unwrap();
    assert!(String::from_utf8(output.stdout)
        .unwrap()
        .contains(r#""request_id":"i""#));
}

#[test]
fn version_flag_and_argv_record() {
    let dir = TestDir::new("fake-argv").unwrap();
    let record = dir.path().join("argv.json");
    let output = fake()
        .args(["--output-format", "stream-json", "-v"])
        .env("FAKE_CLAUDE_ARGV_OUT", &record)
        .env("SOME_TEST_VAR", "42")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap().trim_end(),
        VERSION_LINE
    );
    let rec: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(rec["argv"][1], "--output-format");
    assert_eq!(rec["argv"][3], "-v");
    assert_eq!(rec["env"]["SOME_TEST_VAR"], "42");
}

#[test]
fn without_a_script_it_says_what_to_set() {
    let output = fake().stdin(Stdio::null()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains("FAKE_CLAUDE_SCRIPT"));
}

#[test]
fn other_crates_find_the_binary() {
    let found = claude_agent_testkit::fake_cli::fake_claude_binary().unwrap();
    let output = Command::new(found).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap().trim_end(),
        VERSION_LINE
    );
}

/// The flood the benchmarks run on: `initialize` answered, the corpus written `REPEAT` times at
/// the first user message, then `RTT` `can_use_tool` round trips (each waits for its answer,
/// the figure goes to the report file), then a result; it exits when stdin closes.
#[test]
fn floods_the_corpus_then_asks_for_each_round_trip_and_reports_it() {
    let dir = TestDir::new("flood").unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    std::fs::write(&corpus, "{\"type\":\"a\"}\n\n{\"type\":\"b\"}\n").unwrap();
    let report = dir.path().join("report");
    let mut child = fake()
        .env("FAKE_CLAUDE_CORPUS", &corpus)
        .env("FAKE_CLAUDE_REPEAT", "3")
        .env("FAKE_CLAUDE_RTT", "2")
        .env("FAKE_CLAUDE_REPORT", &report)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    let initialize = json!({"type": "control_request", "request_id": "init",
        "request": {"subtype": "initialize"}});
    writeln!(stdin, "{initialize}").unwrap();
    let answer = next();
    assert_eq!(answer["response"]["request_id"], "init");
    assert_eq!(
        answer["response"]["response"]["claude_code_version"],
        "2.1.330"
    );
    writeln!(
        stdin,
        "{}",
        json!({"type": "user", "message": {"role": "user", "content": "go"}})
    )
    .unwrap();
    let kinds: Vec<Value> = (0..6).map(|_| next()["type"].clone()).collect();
    assert_eq!(kinds, ["a", "b", "a", "b", "a", "b"]);
    for round in 0..2 {
        let request = next();
        assert_eq!(request["request"]["subtype"], "can_use_tool");
        assert_eq!(request["request_id"], format!("rtt-{round}"));
        let allow = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": request["request_id"], "response": {"behavior": "allow"}}});
        writeln!(stdin, "{allow}").unwrap();
    }
    assert_eq!(next()["type"], "result");
    drop(stdin);
    assert_eq!(wait_exit(&mut child), 0);
    let figure = std::fs::read_to_string(&report).unwrap();
    assert!(
        figure.starts_with("fake-claude: replay ") && figure.contains("rtt 2 x"),
        "{figure}"
    );
}
