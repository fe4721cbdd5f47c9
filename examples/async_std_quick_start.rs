//! Quick start on async-std: ask one question, print Claude's reply and what it cost. Nothing here
//! needs tokio: `async_std::task::block_on` runs the app and the session runs on async-std's executor.
//!
//! Run: `cargo run --example async_std_quick_start` (needs the `claude` CLI and an API key), or
//! offline with the real CLI and a stub model: `scripts/quick-start async_std_quick_start`.

use claude_agent_async_std::message::ContentBlock;
use claude_agent_async_std::{query, Message, Options};

fn main() -> std::process::ExitCode {
    // Errors say what to do (e.g. how to install the CLI): print them as text, not as Debug.
    match async_std::task::block_on(ask()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn ask() -> Result<(), claude_agent_async_std::Error> {
    let mut messages = query(
        "What is 2 + 2? Answer in one short sentence.",
        Options::new().max_turns(1),
    );
    while let Some(message) = messages.next().await {
        match message? {
            Message::Assistant(reply) => {
                for block in &reply.message.content {
                    if let ContentBlock::Text(text) = block {
                        println!("Claude: {}", text.text);
                    }
                }
            }
            Message::Result(result) => {
                println!("cost: ${:.4}", result.total_cost_usd.unwrap_or(0.0));
            }
            _ => {}
        }
    }
    Ok(())
}
