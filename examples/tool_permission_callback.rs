//! Decide tool use yourself: a `can_use_tool` callback that allows reads and refuses everything
//! else with a reason the model sees.

use claude_agent_tokio::permission::PermissionResult;
use claude_agent_tokio::{query, Message, Options, StreamExt};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let options = Options::new().can_use_tool(|request, _ctx| async move {
        println!(
            "permission asked for {} with {}",
            request.tool_name,
            request.input.get()
        );
        match request.tool_name.as_str() {
            "Read" | "Glob" | "Grep" => PermissionResult::allow(),
            _ => PermissionResult::deny("This session may only read files."),
        }
    });
    let mut messages = query("List the files here, then create notes.txt.", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}
