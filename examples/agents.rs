//! Subagents: define agents in `Options` — when to use each, its own system prompt, its tools —
//! and the main agent hands them tasks with its `Agent` tool. `task_started` and
//! `task_notification` messages say when a subagent starts and ends; with
//! `forward_subagent_text`, what it says arrives too, marked with the `parent_tool_use_id` of
//! the call that started it.
//!
//! Run: `cargo run --example agents` (needs the `claude` CLI and an API key), or offline with
//! the real CLI and a stub model: `scripts/quick-start agents`.

use claude_agent_tokio::message::{ContentBlock, SystemMessage};
use claude_agent_tokio::options::AgentDefinition;
use claude_agent_tokio::{query, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let reviewer = AgentDefinition::new(
        "Reviews Rust code for bugs. Use it for every code review.",
        "You are a careful Rust reviewer. Name each bug in one line.",
    )
    .tools(["Read"]);
    let options = Options::new()
        .agent_definition("code-reviewer", reviewer)
        .forward_subagent_text(true);
    let prompt =
        "Ask the code-reviewer agent to review this function: `fn add(a: i32, b: i32) -> i32 { a - b }`";
    let mut messages = query(prompt, options);
    while let Some(message) = messages.next().await {
        match message? {
            Message::System(SystemMessage::TaskStarted(task)) => println!(
                "subagent {} started: {}",
                task.subagent_type.as_deref().unwrap_or("?"),
                task.description
            ),
            Message::System(SystemMessage::TaskNotification(task)) => {
                println!("subagent {}: {}", task.status, task.summary)
            }
            Message::Assistant(reply) if reply.parent_tool_use_id.is_some() => {
                for block in &reply.message.content {
                    if let ContentBlock::Text(text) = block {
                        println!("[inside the subagent] {}", text.text);
                    }
                }
            }
            Message::Result(result) => println!("Claude: {}", result.result.unwrap_or_default()),
            _ => {}
        }
    }
    Ok(())
}
