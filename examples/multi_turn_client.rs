//! A long-lived `Client`: several turns in one session, reading each answer up to its `result`.

use claude_agent_tokio::{Client, Message, Options, StreamExt};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let client = Client::connect(Options::new()).await?;
    if let Some(info) = client.server_info() {
        println!(
            "CLI {} with {} slash commands",
            info.claude_code_version.as_deref().unwrap_or("?"),
            info.commands.len()
        );
    }

    for question in ["Pick a random animal.", "What sound does it make?"] {
        println!("> {question}");
        client.send(question).await?;
        let mut turn = client.receive_response();
        while let Some(message) = turn.next().await {
            if let Message::Result(result) = message? {
                println!("{}", result.result.unwrap_or_default());
            }
        }
    }
    client.close().await;
    Ok(())
}
