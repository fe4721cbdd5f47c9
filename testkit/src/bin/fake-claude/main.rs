//! `fake-claude`: a scripted stand-in for the `claude` executable, for SDK tests that spawn a
//! process. It runs a [`FakeCli`] over real stdin/stdout/stderr.
//!
//! Environment:
//! * `FAKE_CLAUDE_SCRIPT=<file>` — a `Script` in its JSON form, or
//! * `FAKE_CLAUDE_TRANSCRIPT=<file>` — a recording to replay (`Script::from_transcript`), or
//! * `FAKE_CLAUDE_CORPUS=<file>` — a flood for benchmarks (`flood.rs`): the file's lines written
//!   `FAKE_CLAUDE_REPEAT` times (default 1) at the first user message, then `FAKE_CLAUDE_RTT`
//!   `can_use_tool` round trips (default 0), timed on stderr and appended to
//!   `FAKE_CLAUDE_REPORT` if set;
//! * `FAKE_CLAUDE_ARGV_OUT=<file>` — write `{"argv":[…],"env":{…}}` there at start;
//! * `FAKE_CLAUDE_STDOUT_COPY=<file>` — append every line printed on stdout there too.
//!
//! `Mirror` steps name transcripts below `$CLAUDE_CONFIG_DIR` (else `$HOME/.claude`) for the
//! working folder, as the real CLI writes them.
//!
//! `fake-claude mcp-server` serves the testkit's small MCP server (`fake_mcp`) on stdin and
//! stdout instead.
//!
//! `-v` / `--version` prints `2.1.330 (Claude Code)`. Exit code 2 means the fake itself was
//! misconfigured (no or bad script).

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Instant;

mod flood;

use claude_agent_client::history::History;
use claude_agent_testkit::fake_cli::{transcript_folder, FakeCli, Script, VERSION_LINE};
use claude_agent_testkit::fake_mcp;
use serde_json::json;

/// Exit code for a misconfigured fake (as opposed to a scripted exit code).
const SETUP_ERROR: i32 = 2;

fn main() {
    std::process::exit(run());
}

fn run() -> i32 {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(path) = std::env::var_os("FAKE_CLAUDE_ARGV_OUT") {
        let env: BTreeMap<String, String> = std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect();
        let record = json!({"argv": argv, "env": env});
        if let Err(e) = std::fs::write(&path, record.to_string()) {
            eprintln!("fake-claude: cannot write FAKE_CLAUDE_ARGV_OUT {path:?}: {e}");
            return SETUP_ERROR;
        }
    }
    if argv.get(1).map(String::as_str) == Some(fake_mcp::MCP_SERVER_ARG) {
        return match fake_mcp::serve(io::stdin().lock(), io::stdout().lock()) {
            Ok(()) => 0,
            Err(error) => {
                eprintln!("fake-claude mcp-server: {error}");
                1
            }
        };
    }
    if argv.iter().skip(1).any(|a| a == "-v" || a == "--version") {
        println!("{VERSION_LINE}");
        return 0;
    }
    if let Some(flood) = flood::Flood::from_env() {
        return match flood {
            Ok(flood) => flood.run(),
            Err(message) => {
                eprintln!("fake-claude: {message}");
                SETUP_ERROR
            }
        };
    }
    match load_script() {
        Ok(script) => match stdout_copy() {
            Ok(copy) => drive(start(script), copy),
            Err(message) => {
                eprintln!("fake-claude: {message}");
                SETUP_ERROR
            }
        },
        Err(message) => {
            eprintln!("fake-claude: {message}");
            SETUP_ERROR
        }
    }
}

/// The file `FAKE_CLAUDE_STDOUT_COPY` names, opened for appending; `None` when it is not set.
fn stdout_copy() -> Result<Option<std::fs::File>, String> {
    let Some(path) = std::env::var_os("FAKE_CLAUDE_STDOUT_COPY") else {
        return Ok(None);
    };
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map(Some)
        .map_err(|e| format!("cannot open FAKE_CLAUDE_STDOUT_COPY {path:?}: {e}"))
}

/// The script started in this process's configuration and working folders.
fn start(script: Script) -> FakeCli {
    match (History::from_env(), std::env::current_dir()) {
        (Ok(history), Ok(cwd)) => FakeCli::with_transcript_folder(
            script,
            transcript_folder(&history.projects_dir(), &cwd),
        ),
        _ => FakeCli::new(script),
    }
}

fn load_script() -> Result<Script, String> {
    let read = |var: &str, path: std::ffi::OsString| {
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {var} {path:?}: {e}"))
    };
    if let Some(path) = std::env::var_os("FAKE_CLAUDE_SCRIPT") {
        let text = read("FAKE_CLAUDE_SCRIPT", path)?;
        return serde_json::from_str(&text).map_err(|e| format!("bad FAKE_CLAUDE_SCRIPT: {e}"));
    }
    if let Some(path) = std::env::var_os("FAKE_CLAUDE_TRANSCRIPT") {
        let text = read("FAKE_CLAUDE_TRANSCRIPT", path)?;
        return Script::from_transcript(&text)
            .map_err(|e| format!("bad FAKE_CLAUDE_TRANSCRIPT: {e}"));
    }
    Err("set FAKE_CLAUDE_SCRIPT (a Script as JSON) or FAKE_CLAUDE_TRANSCRIPT (a recording)".into())
}

/// Reads stdin on its own thread: `Some(bytes)` per read, then one `None` at end of input.
fn spawn_stdin_reader() -> Receiver<Option<Vec<u8>>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => {
                    // The receiver may be gone when the fake already exits.
                    drop(tx.send(None));
                    return;
                }
                Ok(n) => {
                    if tx.send(Some(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// Runs the machine over the real stdio until it exits; returns the exit code.
fn drive(mut cli: FakeCli, mut copy: Option<std::fs::File>) -> i32 {
    let input = spawn_stdin_reader();
    let mut stdout = io::stdout().lock();
    let mut stderr = io::stderr().lock();
    let mut input_open = true;
    let mut sleep_until: Option<Instant> = None;
    loop {
        while let Some(chunk) = cli.poll_stdout() {
            if stdout.write_all(&chunk).is_err() {
                // The SDK closed our stdout: nobody is listening any more.
                return 1;
            }
            // Copied once printed: whole lines, so a reader of the copy sees no half line.
            if let Some(copy) = &mut copy {
                drop(copy.write_all(&chunk));
            }
        }
        if stdout.flush().is_err() {
            return 1;
        }
        while let Some(chunk) = cli.poll_stderr() {
            // A closed stderr must not stop the script.
            drop(stderr.write_all(&chunk));
        }
        drop(stderr.flush());
        if let Some(code) = cli.poll_exit() {
            return code;
        }
        if let Some(duration) = cli.poll_sleep() {
            sleep_until = Some(Instant::now() + duration);
        }
        let next = match sleep_until {
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                let received = if input_open {
                    input.recv_timeout(wait)
                } else {
                    thread::sleep(wait);
                    Err(RecvTimeoutError::Timeout)
                };
                match received {
                    Ok(next) => next,
                    Err(_) => {
                        sleep_until = None;
                        cli.handle_wake();
                        continue;
                    }
                }
            }
            None if input_open => input.recv().unwrap_or(None),
            // No input will come and nothing is scheduled: the script hangs.
            None => loop {
                thread::park();
            },
        };
        match next {
            Some(bytes) => cli.handle_stdin(&bytes),
            None => {
                input_open = false;
                cli.handle_stdin_eof();
            }
        }
    }
}
