//! System prompts: your own text, or Claude Code's prompt with something appended.

use claude_agent_tokio::options::SystemPrompt;
use claude_agent_tokio::{query, Message, Options, StreamExt};

async fn ask(options: Options) -> Result<(), claude_agent_tokio::Error> {
    let mut messages = query("Who are you, in one sentence?", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}\n", result.result.unwrap_or_default());
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    // The default is an empty system prompt.
    ask(Options::new().system_prompt("You are a pirate. Stay in character.")).await?;
    ask(Options::new().system_prompt(SystemPrompt::preset_with_append("Answer in French."))).await
}
