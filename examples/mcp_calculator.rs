//! An in-process MCP server with typed tools: the JSON Schema comes from the argument type
//! (`schemars`), the arguments are deserialized for you, and a returned `Err` becomes a tool
//! error the model sees.

use claude_agent_tokio::mcp::ToolResult;
use claude_agent_tokio::{query, typed_tool, Message, Options, SdkMcpServer, StreamExt};

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
                Ok::<_, String>(ToolResult::text((args.a + args.b).to_string()))
            },
        ))
        .tool(typed_tool(
            "divide",
            "Divide a by b",
            |args: Operands| async move {
                if args.b == 0.0 {
                    return Err("division by zero".to_owned());
                }
                Ok(ToolResult::text((args.a / args.b).to_string()))
            },
        ));
    let options = Options::new()
        .sdk_mcp_server(calculator)
        .allowed_tools(["mcp__calc__add", "mcp__calc__divide"]);
    let mut messages = query("Use the calculator: what is (12 + 30) / 7?", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}
