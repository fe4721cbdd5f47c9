//! Quick start with no async runtime: ask one question, print Claude's reply and what it cost.
//!
//! Run: `cargo run --example blocking_quick_start` (needs the `claude` CLI and an API key), or
//! `scripts/quick-start blocking_quick_start` (the pinned CLI against a local stub API, no key).

use std::process::ExitCode;

use claude_agent_blocking::message::ContentBlock;
use claude_agent_blocking::{query, Message, Options};

fn main() -> ExitCode {
    // Errors say what to do (e.g. how to install the CLI): print them as text, not as Debug.
    match ask() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn ask() -> Result<(), claude_agent_blocking::Error> {
    let options = Options::new().max_turns(1);
    for message in query("What is 2 + 2? Answer in one short sentence.", options) {
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
