//! The flood mode of `fake-claude`, for measuring an SDK's overhead: it answers every control
//! request at once, and at the first user message writes a corpus of stdout lines as fast as the
//! pipe takes them (`FAKE_CLAUDE_REPEAT` times), then asks `can_use_tool` `FAKE_CLAUDE_RTT`
//! times in a row (each waits for its answer), then prints a result and stays until stdin closes.
//! The benchmarks of this repository and of the official SDKs (`bench/peers`) run on it.

use std::io::{self, BufRead, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Instant;

use serde_json::{json, Value};

/// What a flood writes: the corpus and how often, and how many round trips follow.
pub struct Flood {
    corpus: Vec<String>,
    repeat: usize,
    round_trips: usize,
    /// A file each round-trip figure is appended to (`FAKE_CLAUDE_REPORT`).
    report: Option<String>,
}

impl Flood {
    /// The flood the environment describes, when `FAKE_CLAUDE_CORPUS` names a corpus file.
    pub fn from_env() -> Option<Result<Self, String>> {
        let path = std::env::var_os("FAKE_CLAUDE_CORPUS")?;
        Some(Self::load(Path::new(&path)))
    }

    fn load(path: &Path) -> Result<Self, String> {
        let count = |var: &str, default: usize| match std::env::var(var) {
            Ok(text) => text.parse().map_err(|e| format!("bad {var} {text:?}: {e}")),
            Err(_) => Ok(default),
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read FAKE_CLAUDE_CORPUS {path:?}: {e}"))?;
        Ok(Self {
            corpus: text
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(str::to_owned)
                .collect(),
            repeat: count("FAKE_CLAUDE_REPEAT", 1)?,
            round_trips: count("FAKE_CLAUDE_RTT", 0)?,
            report: std::env::var("FAKE_CLAUDE_REPORT").ok(),
        })
    }

    /// Runs the flood over the real stdin and stdout; returns the exit code.
    pub fn run(self) -> i32 {
        let input = spawn_line_reader();
        let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
        let mut flooded = false;
        while let Ok(line) = input.recv() {
            let Ok(message) = line else {
                return 1;
            };
            let written = match message["type"].as_str() {
                Some("control_request") => answer(&mut out, &message),
                Some("user") if !flooded => {
                    flooded = true;
                    self.flood(&mut out, &input)
                }
                _ => Ok(()),
            };
            if written.is_err() {
                // The SDK closed our stdout: nobody is listening any more.
                return 1;
            }
        }
        0
    }

    fn flood(
        &self,
        out: &mut impl Write,
        input: &Receiver<Result<Value, String>>,
    ) -> io::Result<()> {
        let started = Instant::now();
        for _ in 0..self.repeat {
            for line in &self.corpus {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()?;
        let replayed = Instant::now();
        for round in 0..self.round_trips {
            let request_id = format!("rtt-{round}");
            // Written as the real CLI writes it, keys in its order (`type` first): a `json!`
            // value would sort them, and a host that peeks at a leading `type` would read it the
            // slow way, as it never does with the CLI.
            writeln!(
                out,
                r#"{{"type":"control_request","request_id":"{request_id}","request":{{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{{"command":"echo hi","description":"run"}},"description":"run","permission_suggestions":[],"tool_use_id":"toolu_{round}"}}}}"#
            )?;
            out.flush()?;
            loop {
                let Ok(Ok(message)) = input.recv() else {
                    return Err(io::Error::other("stdin closed during the round trips"));
                };
                if message["type"] == "control_response"
                    && message["response"]["request_id"] == request_id.as_str()
                {
                    break;
                }
            }
        }
        if self.round_trips > 0 {
            let took = replayed.elapsed();
            let line = format!(
                "fake-claude: replay {:?}, rtt {} x -> {took:?} ({:.1} us each)\n",
                replayed - started,
                self.round_trips,
                took.as_secs_f64() * 1e6 / self.round_trips as f64
            );
            eprint!("{line}");
            if let Some(path) = &self.report {
                let appended = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .and_then(|mut file| file.write_all(line.as_bytes()));
                if let Err(error) = appended {
                    eprintln!("fake-claude: cannot append to FAKE_CLAUDE_REPORT {path:?}: {error}");
                }
            }
        }
        let result = json!({"type": "result", "subtype": "success", "is_error": false,
            "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1, "result": "ok",
            "session_id": "00000000-0000-4000-8000-000000000000", "total_cost_usd": 0.0,
            "usage": {"input_tokens": 1, "output_tokens": 1}});
        writeln!(out, "{result}")?;
        out.flush()
    }
}

/// Answers a control request at once: `initialize` with the few fields an SDK needs, anything
/// else with an empty success.
fn answer(out: &mut impl Write, request: &Value) -> io::Result<()> {
    let body = if request["request"]["subtype"] == "initialize" {
        json!({"commands": [], "models": [], "account": {"apiKeySource": "none"},
            "output_style": "default", "available_output_styles": ["default"],
            "pid": std::process::id(), "claude_code_version": "2.1.330"})
    } else {
        json!({})
    };
    let response = json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": request["request_id"], "response": body}});
    writeln!(out, "{response}")?;
    out.flush()
}

/// Reads stdin's lines as JSON on a thread of its own: a line that is not JSON ends the stream
/// with its error.
fn spawn_line_reader() -> Receiver<Result<Value, String>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in io::stdin().lock().lines() {
            let Ok(line) = line else { return };
            if line.trim().is_empty() {
                continue;
            }
            let parsed = serde_json::from_str(&line).map_err(|e| format!("bad input line: {e}"));
            let bad = parsed.is_err();
            if tx.send(parsed).is_err() || bad {
                return;
            }
        }
    });
    rx
}
