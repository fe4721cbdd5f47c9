//! A small async-std application: an in-process tool the model may call freely, and a permission
//! callback that refuses everything else. The model converts a temperature with the tool, then
//! tries to save the answer to a file, which the callback refuses.
//!
//! Nothing here needs tokio: `async_std::task::block_on` runs the app, the session runs on async-std's
//! executor, and the callbacks are plain async closures.
//!
//! Run: `cargo run --example async_std_app` (needs the `claude` CLI and an API key), or offline
//! with the real CLI and a stub model: `scripts/quick-start async_std_app`.

use claude_agent_async_std::mcp::ToolResult;
use claude_agent_async_std::mcp::{typed_tool, SdkMcpServer};
use claude_agent_async_std::permission::PermissionResult;
use claude_agent_async_std::{query, Message, Options};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Fahrenheit {
    /// Degrees Fahrenheit.
    degrees: f64,
}

fn main() -> Result<(), claude_agent_async_std::Error> {
    let units = SdkMcpServer::new("units", "1.0.0").tool(typed_tool(
        "to_celsius",
        "Convert degrees Fahrenheit to Celsius",
        |args: Fahrenheit| async move {
            let celsius = (args.degrees - 32.0) * 5.0 / 9.0;
            println!("tool to_celsius({}) = {celsius:.1}", args.degrees);
            Ok::<_, String>(ToolResult::text(format!("{celsius:.1}")))
        },
    ));
    let options = Options::new()
        .sdk_mcp_server(units)
        .allowed_tools(["mcp__units__to_celsius"])
        .on_permission_request(|request, _ctx| async move {
            println!("permission asked for {}: denied", request.tool_name);
            PermissionResult::deny("This app only converts units.")
        });

    async_std::task::block_on(async {
        let prompt =
            "What is 451 °F in Celsius? Use the units tool, then save the answer to notes.txt.";
        let mut messages = query(prompt, options);
        while let Some(message) = messages.next().await {
            if let Message::Result(result) = message? {
                println!("Claude: {}", result.result.unwrap_or_default());
            }
        }
        Ok(())
    })
}
