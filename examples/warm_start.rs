//! Take the CLI's start-up off the prompt. A cold `query` waits for the CLI to boot; `startup`
//! boots it ahead of the prompt for a folder known in advance; a `SparePool` keeps CLIs parked
//! before any folder is known and claims one for each session (starting cold when none can
//! take it). Each way prints its answer and how long the answer took.
//!
//! Run: `cargo run --example warm_start` (needs the `claude` CLI and an API key), or offline
//! with the real CLI and a stub model: `scripts/quick-start warm_start`.

use std::time::{Duration, Instant};

use claude_agent_tokio::control::ClaimOptions;
use claude_agent_tokio::runtime::TokioRuntime;
use claude_agent_tokio::{query, startup, Error, Message, Options, PoolStart, Query, SparePool};

/// Reads a session's messages to its result; returns the answer.
async fn answer(mut messages: Query) -> Result<String, Error> {
    let mut answer = String::new();
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            answer = result.result.unwrap_or_default();
        }
    }
    Ok(answer)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = std::env::current_dir()?;

    let asked = Instant::now();
    let text = answer(query("Say hello.", Options::new())).await?;
    println!("cold query: {text} ({} ms)", asked.elapsed().as_millis());

    // Booted while the user is still typing; the prompt goes straight to a ready CLI.
    let warm = startup(Options::new().cwd(&folder)).await?;
    let asked = Instant::now();
    let text = answer(warm.query("Say hello.")).await?;
    println!("after startup: {text} ({} ms)", asked.elapsed().as_millis());

    // Parked CLIs for sessions in any folder: one spare per set of host options by default.
    let host = Options::new();
    let pool = SparePool::new(TokioRuntime);
    pool.prewarm(&host)?;
    while pool.ready(&host) == 0 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let asked = Instant::now();
    let session = pool
        .query(&host, "Say hello.", ClaimOptions::new(&folder))
        .await?;
    match &session.start {
        PoolStart::Claimed(info) => println!(
            "claimed a CLI parked for {} ms, now in {}",
            info.parked_ms.unwrap_or_default(),
            info.cwd.as_deref().unwrap_or("?")
        ),
        PoolStart::Cold { refused } => println!("started cold (refused: {refused:?})"),
        other => println!("started: {other:?}"),
    }
    let text = answer(session.messages).await?;
    println!("from the pool: {text} ({} ms)", asked.elapsed().as_millis());
    Ok(())
}
