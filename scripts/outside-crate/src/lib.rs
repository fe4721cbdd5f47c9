//! A small agent app, written the way a user writes one: it asks a question with the adapter's
//! ordinary `query`, lets the agent read but never run commands, and folds the message stream
//! into an answer and its cost. Nothing here knows about tests.

use claude_agent_client::{query_with, Error, Runtime};
use claude_agent_core::message::Message;
use claude_agent_client::Options;
use claude_agent_core::permission::PermissionResult;
use futures_lite::{Stream, StreamExt};

/// What one question gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    pub cost_usd: f64,
}

/// The app's policy on top of `base`: reading is fine, anything else is refused.
pub fn read_only(base: Options) -> Options {
    base.on_permission_request(|request, _ctx| async move {
        match request.tool_name.as_str() {
            "Read" | "Glob" | "Grep" => PermissionResult::allow(),
            other => PermissionResult::deny(format!("{other} is not allowed: read-only agent")),
        }
    })
}

/// The answer and cost of the session's result.
pub async fn fold(
    mut messages: impl Stream<Item = Result<Message, Error>> + Unpin,
) -> Result<Answer, Error> {
    let mut answer = Answer { text: String::new(), cost_usd: 0.0 };
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            answer.text = result.result.clone().unwrap_or_default();
            answer.cost_usd += result.total_cost_usd.unwrap_or_default();
        }
    }
    Ok(answer)
}

/// Ask on tokio.
pub async fn ask_tokio(prompt: &str, base: Options) -> Result<Answer, Error> {
    fold(claude_agent_tokio::query(prompt, read_only(base))).await
}

/// Ask on smol.
pub async fn ask_smol(prompt: &str, base: Options) -> Result<Answer, Error> {
    fold(claude_agent_smol::query(prompt, read_only(base))).await
}

/// Ask on async-std.
pub async fn ask_async_std(prompt: &str, base: Options) -> Result<Answer, Error> {
    fold(claude_agent_async_std::query(prompt, read_only(base))).await
}

/// Ask on any runtime (the app embedded where there is no async runtime at all).
pub async fn ask_on<R: Runtime>(runtime: R, prompt: &str, base: Options) -> Result<Answer, Error> {
    fold(query_with(runtime, prompt, read_only(base))).await
}
