//! Hooks: block dangerous shell commands before they run (`PreToolUse` on `Bash`) and log every
//! tool that finished (`PostToolUse`, any tool).

use claude_agent_tokio::hooks::{HookEvent, HookInput, HookOutput};
use claude_agent_tokio::{query, Message, Options, StreamExt};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let options = Options::new()
        .hook(
            HookEvent::PreToolUse,
            Some("Bash"),
            |input, _tool_use_id, _ctx| async move {
                if let HookInput::PreToolUse(pre) = &input {
                    if pre.tool_input.get().contains("rm -rf") {
                        return HookOutput::deny_tool("rm -rf is not allowed here");
                    }
                }
                HookOutput::proceed()
            },
        )
        .hook(
            HookEvent::PostToolUse,
            None,
            |input, tool_use_id, _ctx| async move {
                println!(
                    "tool finished: {:?} ({})",
                    input.event(),
                    tool_use_id.unwrap_or_default()
                );
                HookOutput::proceed()
            },
        );
    let mut messages = query("Run `echo hello` in the shell.", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}
