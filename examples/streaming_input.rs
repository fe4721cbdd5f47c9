//! Streaming input: feed several user messages to one `query` through a prompt channel; the
//! CLI's stdin stays open until the sender is dropped and the last turn has ended.

use claude_agent_tokio::{prompt_channel, query, Message, Options, StreamExt};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let (tx, prompt) = prompt_channel();
    let mut messages = query(prompt, Options::new());

    let questions = ["Name a prime number.", "Now name a bigger one."];
    tx.send(questions[0]).await?;
    let mut asked = 1;
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("turn {asked}: {}", result.result.unwrap_or_default());
            match questions.get(asked) {
                Some(next) => {
                    tx.send(*next).await?;
                    asked += 1;
                }
                // No more input: once this run has ended the CLI exits and the stream ends.
                None => break,
            }
        }
    }
    drop(tx);
    while let Some(message) = messages.next().await {
        message?;
    }
    Ok(())
}
