//! Streaming input: one long-running agent fed through a prompt channel. A message sent while
//! the agent works joins the running turn; one sent after a result starts the next turn. The
//! CLI's stdin stays open until the sender is dropped; then the CLI finishes and the stream ends.
//!
//! Run: `cargo run --example streaming_input` (needs the `claude` CLI and an API key), or
//! offline with the real CLI and a stub model: `scripts/quick-start streaming_input`.

use claude_agent_tokio::message::ContentBlock;
use claude_agent_tokio::{prompt_channel, query, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let (sender, prompt) = prompt_channel();
    let mut messages = query(prompt, Options::new());

    let first = "Run `sleep 2 && echo built` in the shell.";
    println!("> {first}");
    sender.send(first).await?;
    let mut input = Some(sender);
    let mut added = false;
    let mut results = 0;
    while let Some(message) = messages.next().await {
        match message? {
            Message::Assistant(reply) => {
                for block in &reply.message.content {
                    let ContentBlock::ToolUse(call) = block else {
                        continue;
                    };
                    println!("tool use: {} {}", call.name, call.input.as_str());
                    // The agent is busy: add to its task without waiting for the result.
                    if let (Some(input), false) = (&input, added) {
                        let more = "Also run `echo tested` in the shell.";
                        println!("> (while it works) {more}");
                        input.send(more).await?;
                        added = true;
                    }
                }
            }
            Message::Result(result) => {
                results += 1;
                println!("result {results}: {}", result.result.unwrap_or_default());
                // One more question, then close the input (the sender is dropped here).
                if let Some(input) = input.take() {
                    let last = "What have you run so far?";
                    println!("> {last}");
                    input.send(last).await?;
                }
            }
            _ => {}
        }
    }
    println!("the CLI exited after {results} results");
    Ok(())
}
