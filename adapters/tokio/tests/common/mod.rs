//! Helpers shared by the adapter tests: a scripted fake CLI and message inspection.
#![allow(dead_code)] // each test file uses a different subset

use std::path::PathBuf;
use std::time::Duration;

use claude_agent_tokio::{Message, Options};

/// Options that start `tests/support/fake_claude.py` playing `scenario`.
pub fn fake(scenario: &str) -> Options {
    Options::new()
        .cli_path(fake_cli())
        .env("FAKE_SCENARIO", scenario)
}

/// An executable wrapper around the Python fake (written once per test binary).
pub fn fake_cli() -> PathBuf {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake_claude.py");
    let dir = std::env::temp_dir().join(format!("claude-agent-tokio-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let wrapper = dir.join("claude");
    if !wrapper.exists() {
        let tmp = dir.join(format!("claude.{:?}", std::thread::current().id()));
        std::fs::write(
            &tmp,
            format!("#!/bin/sh\nexec python3 {} \"$@\"\n", script.display()),
        )
        .expect("write wrapper");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
            .expect("chmod wrapper");
        std::fs::rename(&tmp, &wrapper).expect("install wrapper");
    }
    wrapper
}

/// The JSON line of a message.
pub fn json(message: &Message) -> serde_json::Value {
    serde_json::from_str(message.raw_json()).expect("messages carry their JSON line")
}

/// The `type` of a message.
pub fn kind(message: &Message) -> String {
    json(message)["type"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The `result` text of a result message.
pub fn result_text(message: &Message) -> Option<String> {
    let value = json(message);
    (value["type"] == "result").then(|| value["result"].as_str().unwrap_or_default().to_owned())
}

/// Whether the process `pid` is gone (reaped: no `/proc` entry at all).
pub fn process_gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Wait up to `limit` for `pid` to be gone.
pub async fn wait_gone(pid: u32, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        if process_gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    process_gone(pid)
}
