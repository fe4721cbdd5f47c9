//! An in-process tool on smol: an MCP server in your program whose tool is an async closure
//! with typed arguments (the JSON Schema the model sees comes from the argument type).
//!
//! Run: `cargo run --example smol_mcp` (needs the `claude` CLI and an API key), or offline
//! with the real CLI and a stub model: `scripts/quick-start smol_mcp`.

use claude_agent_smol::mcp::ToolResult;
use claude_agent_smol::mcp::{typed_tool, SdkMcpServer};
use claude_agent_smol::{query, Message, Options};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Fahrenheit {
    /// Degrees Fahrenheit.
    degrees: f64,
}

fn main() -> Result<(), claude_agent_smol::Error> {
    let units = SdkMcpServer::new("units", "1.0.0").tool(typed_tool(
        "to_celsius",
        "Convert degrees Fahrenheit to Celsius",
        |args: Fahrenheit| async move {
            let celsius = (args.degrees - 32.0) * 5.0 / 9.0;
            println!("tool to_celsius({}) = {celsius:.1}", args.degrees);
            Ok::<_, String>(ToolResult::text(format!("{celsius:.1}")))
        },
    ));
    // The model sees the tool as mcp__units__to_celsius; it runs without asking.
    let options = Options::new()
        .sdk_mcp_server(units)
        .allowed_tools(["mcp__units__to_celsius"]);

    smol::block_on(async {
        let mut messages = query("What is 451 °F in Celsius? Use the units tool.", options);
        while let Some(message) = messages.next().await {
            if let Message::Result(result) = message? {
                println!("Claude: {}", result.result.unwrap_or_default());
            }
        }
        Ok(())
    })
}
