//! The testkit's `fake-claude` playing a [`Script`], behind a small shell wrapper that records
//! what a test needs to check from outside: its pid, and optionally every line the SDK wrote to
//! its stdin or the lines it managed to write to its stdout. It can also start long-lived "tools"
//! the way the real CLI starts its Bash tool, and find every process of its tree afterwards.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::{fake_claude_binary, Script};
use claude_agent_testkit::real_cli::TestDir;
use serde_json::{json, Value};

use claude_agent_client::Options;

/// A `session_state_changed: idle` line: the end of a run for a session with callbacks.
pub fn idle() -> Value {
    json!({"type": "system", "subtype": "session_state_changed", "state": "idle",
           "sdk_host_only": true, "session_id": "s", "uuid": "idle"})
}

/// Builds a [`Fake`].
#[derive(Debug)]
pub struct FakeBuilder {
    script: Script,
    log_stdin: bool,
    log_stdout: bool,
    ignore_sigterm: bool,
    tools: bool,
}

/// The environment variable that marks every process of a fake's tree (see [`Fake::processes`]).
pub const TREE_VAR: &str = "CLAUDE_AGENT_TEST_TREE";

impl FakeBuilder {
    /// Record every line the SDK writes (see [`Fake::sdk_lines`]).
    pub fn log_stdin(mut self) -> Self {
        self.log_stdin = true;
        self
    }

    /// Record the lines the fake got into its stdout pipe (see [`Fake::lines_written`]).
    pub fn log_stdout(mut self) -> Self {
        self.log_stdout = true;
        self
    }

    /// Run the fake with `SIGTERM` ignored.
    pub fn ignore_sigterm(mut self) -> Self {
        self.ignore_sigterm = true;
        self
    }

    /// Before the fake runs, start two long-lived "tools" (5-minute sleeps): one in the CLI's
    /// process group, and one in a session and group of its own, as the real CLI starts its Bash
    /// tool. With the CLI itself that makes three processes (see [`Fake::processes`]).
    pub fn with_tools(mut self) -> Self {
        self.tools = true;
        self
    }

    /// Write the script and the wrapper.
    pub fn build(self) -> Fake {
        let dir = TestDir::new("conformance").expect("temp dir");
        let bin = fake_claude_binary().unwrap_or_else(|e| panic!("{e}"));
        let script = dir.path().join("script.json");
        std::fs::write(
            &script,
            serde_json::to_string(&self.script).expect("script JSON"),
        )
        .expect("write script");
        let quote = |p: PathBuf| format!("'{}'", p.display());
        let mut run = format!("{} \"$@\"", quote(bin));
        if self.log_stdin {
            run = format!("tee {} | {run}", quote(dir.path().join("stdin.jsonl")));
        }
        if self.log_stdout {
            // tee writes to the pipe first: the file holds what the pipe accepted.
            run = format!("{run} | tee {}", quote(dir.path().join("stdout.jsonl")));
        }
        if !self.log_stdin && !self.log_stdout {
            run = format!("exec {run}");
        }
        let tools = if self.tools {
            "sleep 300 </dev/null >/dev/null 2>&1 &\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\n"
        } else {
            ""
        };
        let wrapper = format!(
            "echo $$ > {pid}\n{trap}{tools}FAKE_CLAUDE_SCRIPT={script}\nexport FAKE_CLAUDE_SCRIPT\n{run}\n",
            pid = quote(dir.path().join("pid")),
            trap = if self.ignore_sigterm { "trap '' TERM\n" } else { "" },
            script = quote(script),
        );
        write_script(&dir.path().join("claude"), &wrapper);
        Fake { dir }
    }
}

/// Writes `body` as an executable shell script at `path`, and returns once it can be run.
///
/// Another test thread that forks while the file is open for writing keeps that descriptor in
/// its child until the child execs, and meanwhile the kernel refuses to run the file
/// (`ETXTBSY`, "Text file busy"). A probe run, which the script answers by exiting at once,
/// shows that moment has passed: our descriptor is closed, so no later fork can hold it.
pub fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    use std::process::{Command, Stdio};

    let text = format!("#!/bin/sh\n[ -n \"$CONFORMANCE_PROBE\" ] && exit 0\n{body}");
    std::fs::write(path, text).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod script");
    for attempt in 0.. {
        let probe = Command::new(path)
            .env("CONFORMANCE_PROBE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match probe {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempt < 200 => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => panic!("{} cannot be run: {e}", path.display()),
            Ok(_) => return,
        }
    }
}

/// A scripted fake CLI in a temporary directory.
#[derive(Debug)]
pub struct Fake {
    dir: TestDir,
}

impl Fake {
    /// A fake playing `script`.
    pub fn builder(script: Script) -> FakeBuilder {
        FakeBuilder {
            script,
            log_stdin: false,
            log_stdout: false,
            ignore_sigterm: false,
            tools: false,
        }
    }

    /// A fake playing `script`, recording the SDK's lines.
    pub fn new(script: Script) -> Self {
        Self::builder(script).log_stdin().build()
    }

    /// Options that run this fake, with [`Fake::marker`] in its environment.
    pub fn options(&self) -> Options {
        Options::new()
            .cli_path(self.dir.path().join("claude"))
            .env(TREE_VAR, self.marker())
    }

    /// The value of [`TREE_VAR`] in the environment of every process of this fake's tree.
    pub fn marker(&self) -> String {
        self.dir.path().display().to_string()
    }

    /// The running processes (zombies aside) of this fake's tree: the CLI and everything it
    /// started, wherever it put them, found by the marker in their environment.
    pub fn processes(&self) -> Vec<u32> {
        marked_processes(&self.marker())
    }

    /// Wait (blocking the thread) up to `limit` for a fake built [`FakeBuilder::with_tools`]
    /// to be running with both its tools asleep; returns whether it is.
    pub fn wait_for_tools(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            let names: Vec<String> = self
                .processes()
                .iter()
                .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).ok())
                .collect();
            let sleeping = names.iter().filter(|name| name.trim() == "sleep").count();
            let fake = names.iter().any(|name| name.trim() == "fake-claude");
            if sleeping == 2 && fake {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `/proc/<pid>/stat` of each of `pids`, for a failure message.
    pub fn describe(pids: &[u32]) -> String {
        pids.iter()
            .map(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .unwrap_or_else(|_| format!("{pid} (gone)"))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Wait (blocking the thread) up to `limit` for every process of the tree to be gone; returns the survivors.
    pub fn wait_tree_gone(&self, limit: Duration) -> Vec<u32> {
        let deadline = Instant::now() + limit;
        loop {
            let left = self.processes();
            if left.is_empty() || Instant::now() >= deadline {
                return left;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The pid of the process the SDK started (the fake itself, or the wrapper shell around it
    /// when it logs; either way the head of the process group).
    pub fn pid(&self) -> u32 {
        let text = std::fs::read_to_string(self.dir.path().join("pid")).expect("pid file");
        text.trim().parse().expect("a pid")
    }

    /// Every line the SDK wrote to the CLI's stdin, as JSON.
    pub fn sdk_lines(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.dir.path().join("stdin.jsonl")).unwrap_or_default();
        text.lines()
            .map(|line| serde_json::from_str(line).expect("the SDK writes JSON lines"))
            .collect()
    }

    /// The SDK's `control_response.response` to the fake's request `request_id`.
    pub fn response_to(&self, request_id: &str) -> Option<Value> {
        self.sdk_lines().into_iter().find_map(|line| {
            (line["type"] == "control_response" && line["response"]["request_id"] == request_id)
                .then(|| line["response"].clone())
        })
    }

    /// The SDK's control requests of `subtype`.
    pub fn requests(&self, subtype: &str) -> Vec<Value> {
        self.sdk_lines()
            .into_iter()
            .filter(|line| {
                line["type"] == "control_request" && line["request"]["subtype"] == subtype
            })
            .map(|line| line["request"].clone())
            .collect()
    }

    /// The texts of the user messages the SDK sent.
    pub fn user_texts(&self) -> Vec<String> {
        self.sdk_lines()
            .into_iter()
            .filter(|line| line["type"] == "user")
            .map(|line| match &line["message"]["content"] {
                Value::String(text) => text.clone(),
                blocks => blocks
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str())
                    .collect(),
            })
            .collect()
    }

    /// How many stdout lines the fake got into its pipe so far.
    pub fn lines_written(&self) -> usize {
        std::fs::read(self.dir.path().join("stdout.jsonl"))
            .map(|bytes| bytes.iter().filter(|b| **b == b'\n').count())
            .unwrap_or(0)
    }
}

/// The running processes (zombies aside) with `TREE_VAR=marker` in their environment.
pub fn marked_processes(marker: &str) -> Vec<u32> {
    let needle = format!("{TREE_VAR}={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // A zombie's environment reads as empty: it is not counted.
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|byte| *byte == 0)
                    .any(|var| var == needle.as_bytes())
            })
        })
        .collect()
}

impl Drop for Fake {
    fn drop(&mut self) {
        // A test that failed must not leave its tools sleeping: kill what is left of the tree.
        for pid in self.processes() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}
