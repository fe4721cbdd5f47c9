//! Errors and the CLI's stderr: each kind of failure is its own `Error` variant, and every line
//! the CLI writes on stderr can go to a callback. Three sessions that fail differently: no CLI
//! at the path given, a CLI that refuses its command line, and a turn that hits `max_turns`.
//!
//! Run: `cargo run --example stderr_and_errors` (needs the `claude` CLI and an API key), or
//! offline with the real CLI and a stub model: `scripts/quick-start stderr_and_errors`.

use claude_agent_tokio::{query, Error, Message, Options};

async fn run(label: &str, prompt: &str, options: Options) {
    println!("== {label}");
    let options = options.on_stderr(|line| println!("[claude stderr] {line}"));
    let mut messages = query(prompt, options);
    while let Some(item) = messages.next().await {
        match item {
            Ok(Message::Result(result)) => println!(
                "result: {} (is_error: {}, turns: {})",
                result.subtype, result.is_error, result.num_turns
            ),
            // A stdout line that could not be used: a notice, and the stream goes on.
            Ok(Message::Notice(notice)) => println!("notice: {}", notice.raw_json()),
            Ok(_) => {}
            Err(Error::CliNotFound { searched, hint }) => {
                println!("CLI not found (looked at {searched:?}); install it: {hint}")
            }
            Err(Error::StartFailed {
                failure,
                stderr_tail,
            }) => {
                let exit = failure.exit;
                println!("the CLI did not start the session ({exit}); its stderr ended with: {stderr_tail}")
            }
            Err(Error::Process { exit, stderr_tail }) => {
                println!("CLI failed ({exit}); its stderr ended with: {stderr_tail}")
            }
            Err(Error::Result(error)) => println!("session ended with an error: {error}"),
            Err(other) => println!("error: {other}"),
        }
    }
}

#[tokio::main]
async fn main() {
    run(
        "no CLI there",
        "Hello!",
        Options::new().cli_path("/nonexistent/claude"),
    )
    .await;
    run(
        "a flag this CLI does not know",
        "Hello!",
        Options::new().extra_arg("no-such-flag", None),
    )
    .await;
    run(
        "more turns than allowed",
        "Run `echo one` in the shell.",
        Options::new().max_turns(1),
    )
    .await;
}
