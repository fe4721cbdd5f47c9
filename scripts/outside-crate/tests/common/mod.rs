//! The fake session every runtime's test runs the app against, and the checks after it.
use std::path::PathBuf;

use claude_agent_core::permission::PermissionResult;
use claude_agent_testkit::fake_cli::{FakeResult, Script, ToolUse};
use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
use outside_app::Answer;
use serde_json::json;

/// The model wants to run `rm -rf /`; the session goes on as the app's answer says.
pub fn fake() -> FakeTransport {
    let bash = ToolUse::new("toolu_1", "Bash", json!({"command": "rm -rf /"}));
    let refused = FakeResult::success("I may not run that.").cost_usd(0.25);
    FakeTransport::new(Script::new().answer_initialize().expect_user()
        .emit_tool_use(&bash)
        .can_use_tool_then("p1", &bash, |ran| ran.emit_result("done"),
            |refused_run| refused_run.emit_tool_error(&bash, "denied").emit_result_with(refused)))
}

/// Points CLI discovery at a script that leaves a mark if anything ever starts it.
pub fn tripwire() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("outside-app-{}", std::process::id()));
    let (cli, mark) = (dir.join("claude"), dir.join("spawned"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&cli, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&cli).status().unwrap();
    std::env::set_var("CLAUDE_AGENT_CLI_PATH", &cli);
    mark
}

/// The child processes of this test process, from every thread's `/proc` entry.
pub fn children() -> String {
    let tasks = std::fs::read_dir("/proc/self/task").unwrap();
    let read = |task: std::fs::DirEntry| std::fs::read_to_string(task.path().join("children"));
    tasks.map(|task| read(task.unwrap()).unwrap()).collect::<String>().trim().to_owned()
}

pub fn check(fake: &FakeTransport, answer: Answer, mark: &std::path::Path) {
    assert_eq!(answer, Answer { text: "I may not run that.".into(), cost_usd: 0.25 });
    let refusal = PermissionResult::deny("Bash is not allowed: read-only agent");
    assert_eq!(fake.answers(), [("p1".to_owned(), SdkAnswer::Permission(refusal))]);
    assert_eq!(fake.user_texts(), ["clean up"]);
    assert_eq!(children(), "");
    assert!(!mark.exists(), "the SDK started a process");
}
