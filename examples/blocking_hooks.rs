//! Hooks and a permission prompt as plain closures, with no async runtime: ask on the terminal
//! before any tool runs, refuse `rm -rf` and stop the turn from inside the hook, and log every
//! tool that finished.
//!
//! Run: `cargo run --example blocking_hooks` (needs the `claude` CLI and an API key).

use std::io::{BufRead, Write};

use claude_agent_blocking::hooks::{HookEvent, HookInput, HookOutput, PreToolUseInput};
use claude_agent_blocking::permission::PermissionResult;
use claude_agent_blocking::tools::BuiltinTool;
use claude_agent_blocking::{callback, query, Message, Options};

fn main() -> Result<(), claude_agent_blocking::Error> {
    let options = Options::new()
        // Each call runs on a thread of its own: reading the terminal holds up nothing else.
        .on_permission_request(callback::permission(|request, _ctx| {
            eprint!(
                "Allow {} {}? [y/N] ",
                request.tool_name,
                request.tool_input.as_str()
            );
            let _ = std::io::stderr().flush();
            let mut answer = String::new();
            let _ = std::io::stdin().lock().read_line(&mut answer);
            if answer.trim().eq_ignore_ascii_case("y") {
                PermissionResult::allow()
            } else {
                PermissionResult::deny("The user said no.")
            }
        }))
        .on_hook(
            Some("Bash"),
            callback::hook(|input: PreToolUseInput, ctx| {
                match input.builtin() {
                    BuiltinTool::Bash(bash) if bash.command.contains("rm -rf") => {
                        // Stop the whole turn, not only this command.
                        let _ = ctx.client().interrupt();
                        HookOutput::deny_tool("rm -rf is not allowed here")
                    }
                    _ => HookOutput::proceed(),
                }
            }),
        )
        .on_hook_event(
            HookEvent::PostToolUse,
            None,
            callback::hook(|input, ctx| {
                if let HookInput::PostToolUse(post) = input {
                    println!(
                        "tool finished: {} ({})",
                        post.tool_name,
                        ctx.tool_use_id().unwrap_or_default()
                    );
                }
                HookOutput::proceed()
            }),
        );
    for message in query("Run `echo hello` in the shell.", options) {
        if let Message::Result(result) = message? {
            println!("{}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}
