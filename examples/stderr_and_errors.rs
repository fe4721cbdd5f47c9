//! Errors and the CLI's stderr: every stderr line goes to a callback, and each kind of failure
//! is its own `Error` variant (CLI missing, CLI dying with its stderr, an error result, …).

use claude_agent_tokio::{query, Error, Options, StreamExt};

#[tokio::main]
async fn main() {
    let options = Options::new()
        .max_turns(1)
        .stderr(|line| eprintln!("[claude stderr] {line}"));
    let mut messages = query("Hello!", options);
    while let Some(item) = messages.next().await {
        match item {
            Ok(message) => println!("{}", message.raw_json()),
            Err(Error::CliNotFound { searched, hint }) => {
                eprintln!(
                    "claude not found (looked in {} places); install: {hint}",
                    searched.len()
                );
            }
            Err(Error::Process { exit, stderr_tail }) => {
                eprintln!("CLI failed ({exit}):\n{stderr_tail}")
            }
            Err(Error::Result(result)) => {
                eprintln!("the session ended with an error: {}", result.message)
            }
            // A stdout line that could not be used; the stream goes on.
            Err(Error::Protocol(line)) => eprintln!("skipped a line: {line}"),
            Err(other) => eprintln!("error: {other}"),
        }
    }
}
