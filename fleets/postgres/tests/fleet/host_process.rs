//! A host process of the fleet tests: this test binary again, running one ignored test with
//! its spec in the environment, and saying what the test reads on lines of its own.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// What a host process is asked to do, as JSON in this variable.
pub const SPEC: &str = "CLAUDE_AGENT_FLEET_HOST_SPEC";

/// The spec of this host process.
pub fn spec() -> Value {
    serde_json::from_str(
        &std::env::var(SPEC).expect("started by a fleet test, with its spec in the environment"),
    )
    .expect("a spec")
}

/// Say something the test reads, on a line of its own.
pub fn say(what: &str, value: Value) {
    println!("{what} {value}");
}

/// A host process, its lines read as they come.
pub struct Host {
    pub child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    /// It exited (`finish`), or was killed; otherwise it is killed when dropped, as a failed
    /// test unwinds.
    pub done: bool,
}

impl Drop for Host {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Host {
    /// This binary running `test` (an ignored test) with `spec`.
    pub fn start(test: &str, spec: &Value) -> Host {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([test, "--exact", "--ignored", "--nocapture"])
            .env(SPEC, spec.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let reading = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                reading.lock().unwrap().push(line);
            }
        });
        Host {
            child,
            lines,
            done: false,
        }
    }

    /// Every line it said so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// Wait (at most `limit`) until it exits, killing it then; every line it said.
    pub fn finish_within(mut self, limit: Duration) -> Vec<String> {
        let started = Instant::now();
        while self.child.try_wait().unwrap().is_none() && started.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.done = true;
        // The reader has the last lines once the pipe closed.
        std::thread::sleep(Duration::from_millis(50));
        self.lines()
    }

    /// The values said as `what`.
    pub fn said(&self, what: &str) -> Vec<Value> {
        let prefix = format!("{what} ");
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter_map(|line| line.strip_prefix(&prefix))
            .map(|value| serde_json::from_str(value).unwrap())
            .collect()
    }

    /// Wait (at most `limit`) until it has said `what`.
    pub fn wait_for(&self, what: &str, limit: Duration) -> Value {
        let started = Instant::now();
        loop {
            if let Some(value) = self.said(what).pop() {
                return value;
            }
            assert!(
                started.elapsed() < limit,
                "no {what} within {limit:?}: {:?}",
                self.lines.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn finish(mut self) -> Vec<Value> {
        let status = self.child.wait().unwrap();
        self.done = true;
        assert!(
            status.success(),
            "{status}: {:?}",
            self.lines.lock().unwrap()
        );
        // The reader has the last lines once the pipe closed.
        std::thread::sleep(Duration::from_millis(50));
        self.said("OUTCOME")
    }
}
