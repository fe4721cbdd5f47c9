//! A long-lived `Client`: one session, several turns, each answer read up to its `result`. The
//! second question only makes sense because the session remembers the first.
//!
//! Run: `cargo run --example multi_turn_client` (needs the `claude` CLI and an API key), or
//! offline with the real CLI and a stub model: `scripts/quick-start multi_turn_client`.

use claude_agent_tokio::{connect, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let client = connect(Options::new()).await?;
    if let Some(info) = client.server_info() {
        println!(
            "connected to Claude Code {} ({} slash commands)",
            info.claude_code_version.as_deref().unwrap_or("?"),
            info.commands.len()
        );
    }

    for question in ["Pick a random animal.", "Which animal did you pick?"] {
        println!("> {question}");
        client.send(question).await?;
        let mut turn = client.receive_response();
        while let Some(message) = turn.next().await {
            if let Message::Result(result) = message? {
                let answer = result.result.as_deref().unwrap_or_default();
                println!("[session {}] {answer}", result.session_id());
            }
        }
    }
    client.close().await;
    Ok(())
}
