//! The testkit's `fake-claude` playing a [`Script`], behind a small shell wrapper that records
//! what a test needs to check from outside: its pid, and optionally every line the SDK wrote to
//! its stdin or the lines it managed to write to its stdout.

use std::path::PathBuf;

use claude_agent_testkit::fake_cli::{fake_claude_binary, Script};
use claude_agent_testkit::real_cli::TestDir;
use serde_json::{json, Value};

use crate::sdk::Options;

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
}

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
        let wrapper = format!(
            "#!/bin/sh\necho $$ > {pid}\n{trap}FAKE_CLAUDE_SCRIPT={script}\nexport FAKE_CLAUDE_SCRIPT\n{run}\n",
            pid = quote(dir.path().join("pid")),
            trap = if self.ignore_sigterm { "trap '' TERM\n" } else { "" },
            script = quote(script),
        );
        let claude = dir.path().join("claude");
        std::fs::write(&claude, wrapper).expect("write wrapper");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755))
            .expect("chmod wrapper");
        Fake { dir }
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
        }
    }

    /// A fake playing `script`, recording the SDK's lines.
    pub fn new(script: Script) -> Self {
        Self::builder(script).log_stdin().build()
    }

    /// Options that run this fake.
    pub fn options(&self) -> Options {
        Options::new().cli_path(self.dir.path().join("claude"))
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
