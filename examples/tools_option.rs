//! Choosing tools: `tools` says which built-in tools exist at all, `allowed_tools` which of them
//! run without asking. The `system/init` message lists what the session got, and each
//! `tool_use` block shows what the model called.
//!
//! Run: `cargo run --example tools_option` (needs the `claude` CLI and an API key), or offline
//! with the real CLI and a stub model: `scripts/quick-start tools_option`.

use claude_agent_tokio::message::{ContentBlock, SystemMessage};
use claude_agent_tokio::{query, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let options = Options::new()
        .tools(["Read", "Glob"])
        .allowed_tools(["Read", "Glob"]);
    let mut messages = query("How many Rust files are in this directory?", options);
    while let Some(message) = messages.next().await {
        match message? {
            Message::System(SystemMessage::Init(init)) => println!("tools: {:?}", init.tools),
            Message::Assistant(reply) => {
                for block in &reply.message.content {
                    if let ContentBlock::ToolUse(call) = block {
                        println!("tool use: {} {}", call.name, call.input.as_str());
                    }
                }
            }
            Message::Result(result) => println!("Claude: {}", result.result.unwrap_or_default()),
            _ => {}
        }
    }
    Ok(())
}
