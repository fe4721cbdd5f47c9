//! Sessions outlive the process that ran them: resume one by its id to go on where it stopped,
//! or fork it to branch off a copy under a new id while the original stays as it was.
//!
//! Run: `cargo run --example resume_and_fork` (needs the `claude` CLI and an API key), or
//! offline with the real CLI and a stub model: `scripts/quick-start resume_and_fork`.

use claude_agent_tokio::options::{Fork, Resume, SessionStart};
use claude_agent_tokio::{query, Message, Options};

/// Runs one turn; returns the id of the session it ran in and the answer.
async fn ask(
    prompt: &str,
    options: Options,
) -> Result<(String, String), claude_agent_tokio::Error> {
    let mut messages = query(prompt, options);
    let mut outcome = (String::new(), String::new());
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            outcome = (
                result.session_id().to_owned(),
                result.result.unwrap_or_default(),
            );
        }
    }
    Ok(outcome)
}

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let (original, answer) = ask("Remember this: the build number is 42.", Options::new()).await?;
    println!("new session {original}\n  {answer}");

    let fork = Options::new().session_start(SessionStart::Resume(
        Resume::new(original.clone()).fork(Fork::new()),
    ));
    let prompt = "Also remember that the release is on Friday. What have I told you so far?";
    let (forked, answer) = ask(prompt, fork).await?;
    println!("forked {original} into {forked}\n  {answer}");

    let resume = Options::new().session_start(SessionStart::resume(original.clone()));
    let (resumed, answer) = ask("What have I told you so far?", resume).await?;
    println!("resumed {resumed} (the fork did not change it)\n  {answer}");
    Ok(())
}
