//! In-process tools: an MCP server that lives in your program. Each tool is an async closure
//! with typed arguments — the JSON Schema the model sees comes from the argument type
//! (`schemars`), the arguments arrive deserialized, and an `Err` becomes a tool error the model
//! reads.
//!
//! Run: `cargo run --example mcp_calculator` (needs the `claude` CLI and an API key), or offline
//! with the real CLI and a stub model: `scripts/quick-start mcp_calculator`.

use claude_agent_tokio::mcp::ToolResult;
use claude_agent_tokio::mcp::{typed_tool, SdkMcpServer};
use claude_agent_tokio::{query, Message, Options};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Operands {
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
}

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let calculator = SdkMcpServer::new("calc", "1.0.0")
        .tool(typed_tool(
            "add",
            "Add two numbers",
            |args: Operands| async move {
                let sum = args.a + args.b;
                println!("tool add({}, {}) = {sum}", args.a, args.b);
                Ok::<_, String>(ToolResult::text(sum.to_string()))
            },
        ))
        .tool(typed_tool(
            "divide",
            "Divide a by b",
            |args: Operands| async move {
                if args.b == 0.0 {
                    println!("tool divide({}, 0): refused", args.a);
                    return Err("division by zero".to_owned());
                }
                let quotient = args.a / args.b;
                println!("tool divide({}, {}) = {quotient}", args.a, args.b);
                Ok(ToolResult::text(quotient.to_string()))
            },
        ));
    // The model sees the tools as mcp__<server>__<tool>; these run without asking.
    let options = Options::new()
        .sdk_mcp_server(calculator)
        .allowed_tools(["mcp__calc__add", "mcp__calc__divide"]);
    let mut messages = query("Use the calculator: what is (12 + 30) / 7?", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("Claude: {}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}
