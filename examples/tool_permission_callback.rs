//! Decide tool use yourself: a `can_use_tool` callback is asked whenever the CLI would ask the
//! user. This one reads each call typed by its tool (`request.builtin()`), allows reading and
//! refuses everything else with a reason the model sees (naming the file of a refused write);
//! the result lists what was refused.
//!
//! Run: `cargo run --example tool_permission_callback` (needs the `claude` CLI and an API key),
//! or offline with the real CLI and a stub model: `scripts/quick-start tool_permission_callback`.

use claude_agent_tokio::permission::PermissionResult;
use claude_agent_tokio::tools::BuiltinTool;
use claude_agent_tokio::{query, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let options = Options::new().on_permission_request(|request, _ctx| async move {
        let answer = match request.builtin() {
            BuiltinTool::Read(_) => PermissionResult::allow(),
            BuiltinTool::Write(write) => PermissionResult::deny(format!(
                "This session may only read files, not write {}.",
                write.file_path
            )),
            _ => PermissionResult::deny("This session may only read files."),
        };
        let verdict = match answer {
            PermissionResult::Allow { .. } => "allowed",
            _ => "denied",
        };
        println!(
            "permission asked for {} {} → {verdict}",
            request.tool_name,
            request.tool_input.as_str()
        );
        answer
    });
    let mut messages = query("List the files here, then create notes.txt.", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("Claude: {}", result.result.unwrap_or_default());
            for denial in &result.permission_denials {
                println!("refused: {} ({})", denial.tool_name, denial.tool_use_id);
            }
        }
    }
    Ok(())
}
