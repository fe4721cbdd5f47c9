//! Interrupt a running turn: a `Client` starts a long task and interrupts it after 5 seconds;
//! the turn ends with an error result and the session stays usable.

use std::time::Duration;

use claude_agent_tokio::{Client, Message, Options, StreamExt};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let client = Client::connect(Options::new()).await?;
    client
        .send("Count slowly from 1 to 1000, one number per line.")
        .await?;

    let stopper = client.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        match stopper.interrupt().await {
            Ok(receipt) => println!(
                "interrupted ({} messages still queued)",
                receipt.still_queued.len()
            ),
            Err(error) => eprintln!("interrupt failed: {error}"),
        }
    });

    let mut turn = client.receive_response();
    while let Some(message) = turn.next().await {
        if let Message::Result(result) = message? {
            println!(
                "turn ended: {} ({:?})",
                result.subtype, result.terminal_reason
            );
        }
    }

    client.send("Just say: done.").await?;
    let mut turn = client.receive_response();
    while let Some(message) = turn.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.result.unwrap_or_default());
        }
    }
    client.close().await;
    Ok(())
}
