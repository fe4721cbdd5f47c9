//! Choosing tools: which built-in tools exist at all (`tools`), and which run without asking
//! (`allowed_tools`); the `system/init` message lists what the session got.

use claude_agent_tokio::message::SystemMessage;
use claude_agent_tokio::{query, Message, Options, StreamExt};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let options = Options::new()
        .tools(["Read", "Glob"])
        .allowed_tools(["Read", "Glob"]);
    let mut messages = query("How many Rust files are in this directory?", options);
    while let Some(message) = messages.next().await {
        match message? {
            Message::System(SystemMessage::Init(init)) => println!("tools: {:?}", init.tools),
            Message::Result(result) => println!("{}", result.result.unwrap_or_default()),
            _ => {}
        }
    }
    Ok(())
}
