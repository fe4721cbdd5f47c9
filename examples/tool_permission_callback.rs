//! Decide tool use yourself: a `can_use_tool` callback is asked whenever the CLI would ask the
//! user. This one allows reading and refuses everything else with a reason the model sees; the
//! result lists what was refused.
//!
//! Run: `cargo run --example tool_permission_callback` (needs the `claude` CLI and an API key),
//! or offline with the real CLI and a stub model: `scripts/quick-start tool_permission_callback`.

use claude_agent_tokio::permission::PermissionResult;
use claude_agent_tokio::{query, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let options = Options::new().on_permission_request(|request, _ctx| async move {
        let allowed = matches!(request.tool_name.as_str(), "Read" | "Glob" | "Grep");
        println!(
            "permission asked for {} {} → {}",
            request.tool_name,
            request.tool_input.as_str(),
            if allowed { "allowed" } else { "denied" }
        );
        if allowed {
            PermissionResult::allow()
        } else {
            PermissionResult::deny("This session may only read files.")
        }
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
