//! A small smol application: one query on smol's executor with a permission callback that only
//! lets the model read, and an in-process MCP tool (`mcp__units__to_celsius`) the model may call.
//!
//! Shows that nothing here needs tokio: `smol::block_on` runs the app, the session runs on smol's
//! global executor, and the callbacks are plain async closures.
//!
//! ```text
//! cargo run --example smol_app
//! ```

use claude_agent_smol::mcp::ToolResult;
use claude_agent_smol::permission::PermissionResult;
use claude_agent_smol::{query, typed_tool, Message, Options, SdkMcpServer, StreamExt};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Fahrenheit {
    /// Degrees Fahrenheit.
    degrees: f64,
}

fn main() -> Result<(), claude_agent_smol::Error> {
    smol::block_on(async {
        let units = SdkMcpServer::new("units", "1.0.0").tool(typed_tool(
            "to_celsius",
            "Convert degrees Fahrenheit to Celsius",
            |args: Fahrenheit| async move {
                let celsius = (args.degrees - 32.0) * 5.0 / 9.0;
                Ok::<_, String>(ToolResult::text(format!("{celsius:.1}")))
            },
        ));
        let options = Options::new()
            .sdk_mcp_server(units)
            .allowed_tools(["mcp__units__to_celsius"])
            .can_use_tool(|request, _ctx| async move {
                println!("permission asked for {}", request.tool_name);
                match request.tool_name.as_str() {
                    "Read" | "Glob" | "Grep" => PermissionResult::allow(),
                    _ => PermissionResult::deny("This app only lets the model read."),
                }
            });
        let mut messages = query("What is 451 °F in Celsius? Use the units tool.", options);
        while let Some(message) = messages.next().await {
            if let Message::Result(result) = message? {
                println!("{}", result.result.unwrap_or_default());
            }
        }
        Ok(())
    })
}
