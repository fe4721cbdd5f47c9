//! System prompts: replace Claude Code's with your own text, or keep it and append to it.
//!
//! Run: `cargo run --example system_prompt` (needs the `claude` CLI and an API key), or offline
//! with the real CLI and a stub model: `scripts/quick-start system_prompt`.

use claude_agent_tokio::options::SystemPrompt;
use claude_agent_tokio::{query, Message, Options};

async fn ask(label: &str, options: Options) -> Result<(), claude_agent_tokio::Error> {
    let mut messages = query("Who are you, in one sentence?", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{label}: {}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    // Without `system_prompt` the session has a minimal one.
    let own = Options::new().system_prompt("You are a pirate. Stay in character.");
    ask("own system prompt", own).await?;
    let appended =
        Options::new().system_prompt(SystemPrompt::preset_with_append("Answer in French."));
    ask("Claude Code's, appended to", appended).await
}
