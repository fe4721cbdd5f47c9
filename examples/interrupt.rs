//! Interrupt a running turn: a `Client` asks for a slow shell command, interrupts the turn while
//! the command runs, and then shows that the session still works.
//!
//! Run: `cargo run --example interrupt` (needs the `claude` CLI and an API key), or offline with
//! the real CLI and a stub model: `scripts/quick-start interrupt`.

use std::time::{Duration, Instant};

use claude_agent_tokio::message::ContentBlock;
use claude_agent_tokio::{connect, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let client = connect(Options::new()).await?;
    client
        .send("Run `sleep 20 && echo finished` in the shell.")
        .await?;

    let started = Instant::now();
    let mut turn = client.receive_response();
    while let Some(message) = turn.next().await {
        match message? {
            Message::Assistant(reply) => {
                let content = &reply.message.content;
                let calls_a_tool = content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolUse(_)));
                // The command runs now: give it a moment, then stop the turn.
                if calls_a_tool {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    client.interrupt().await?;
                    println!("interrupted after {:.1} s", started.elapsed().as_secs_f64());
                }
            }
            Message::Result(result) => println!(
                "turn 1 ended after {:.1} s: {} ({})",
                started.elapsed().as_secs_f64(),
                result.subtype,
                result.terminal_reason.as_deref().unwrap_or("-")
            ),
            _ => {}
        }
    }

    client.send("Run `echo still here` in the shell.").await?;
    let mut turn = client.receive_response();
    while let Some(message) = turn.next().await {
        if let Message::Result(result) = message? {
            println!(
                "turn 2 ended: {}: {}",
                result.subtype,
                result.result.unwrap_or_default()
            );
        }
    }
    client.close().await;
    Ok(())
}
