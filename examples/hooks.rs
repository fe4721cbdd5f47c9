//! Hooks: your code runs inside the agent loop. A `PreToolUse` hook on `Bash` sees every command
//! before it runs and refuses `rm`; a `PostToolUse` hook on every tool sees what each returned.
//!
//! Run: `cargo run --example hooks` (needs the `claude` CLI and an API key), or offline with the
//! real CLI and a stub model: `scripts/quick-start hooks`.

use claude_agent_tokio::hooks::{HookOutput, PostToolUseInput, PreToolUseInput};
use claude_agent_tokio::tools::BuiltinTool;
use claude_agent_tokio::{query, Message, Options};

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let options = Options::new()
        .on_hook("Bash", |input: PreToolUseInput, _ctx| async move {
            match input.builtin() {
                BuiltinTool::Bash(bash) if bash.command.split_whitespace().any(|w| w == "rm") => {
                    println!("PreToolUse hook: refused `{}`", bash.command);
                    HookOutput::deny_tool("deleting files is not allowed here")
                }
                BuiltinTool::Bash(bash) => {
                    println!("PreToolUse hook: allowed `{}`", bash.command);
                    HookOutput::proceed()
                }
                other => HookOutput::deny_tool(format!("unreadable Bash input: {other:?}")),
            }
        })
        .on_hook(None, |input: PostToolUseInput, _ctx| async move {
            println!(
                "PostToolUse hook: {} returned {}",
                input.tool_name,
                input.tool_response.as_str()
            );
            HookOutput::proceed()
        });

    let prompt = "Run `echo hello` in the shell, then clean up with `rm -rf build`.";
    let mut messages = query(prompt, options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("Claude: {}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}
