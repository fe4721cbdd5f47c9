//! One application on tokio, smol or async-std: an in-process tool the model may call freely,
//! and a permission callback that refuses everything else. The model converts a temperature
//! with the tool, then tries to save the answer to a file, which the callback refuses.
//!
//! Every adapter exports the same types (`claude_agent_smol::Options` is
//! `claude_agent_tokio::Options`, and so are `Query`, `Client`, `Message`…), so an app's code
//! does not depend on its runtime. Two lines do: which crate's `query` (or `connect`) starts
//! the session, and what runs the `async` code. An app uses one adapter; this example takes the
//! runtime's name as its argument to show all three side by side. Every other example uses
//! tokio and runs unchanged on smol or async-std with those two lines swapped.
//!
//! Run: `cargo run --example any_runtime -- smol` (or `tokio`, `async-std`; needs the `claude`
//! CLI and an API key), or offline with the real CLI and a stub model:
//! `scripts/quick-start any_runtime smol`.

use claude_agent_smol::mcp::{typed_tool, SdkMcpServer, ToolResult};
use claude_agent_smol::permission::PermissionResult;
use claude_agent_smol::{Error, Message, Options, Query};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Fahrenheit {
    /// Degrees Fahrenheit.
    degrees: f64,
}

const PROMPT: &str =
    "What is 451 °F in Celsius? Use the units tool, then save the answer to notes.txt.";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = std::env::args().nth(1).unwrap_or_else(|| "tokio".into());
    let options = app_options();
    match runtime.as_str() {
        "tokio" => tokio::runtime::Runtime::new()?
            .block_on(async { print_answer(claude_agent_tokio::query(PROMPT, options)).await })?,
        "smol" => {
            smol::block_on(async { print_answer(claude_agent_smol::query(PROMPT, options)).await })?
        }
        "async-std" => async_std::task::block_on(async {
            print_answer(claude_agent_async_std::query(PROMPT, options)).await
        })?,
        other => return Err(format!("no runtime {other:?}: tokio, smol or async-std").into()),
    }
    Ok(())
}

/// The app's options: the same value for every runtime.
fn app_options() -> Options {
    let units = SdkMcpServer::new("units", "1.0.0").tool(typed_tool(
        "to_celsius",
        "Convert degrees Fahrenheit to Celsius",
        |args: Fahrenheit| async move {
            let celsius = (args.degrees - 32.0) * 5.0 / 9.0;
            println!("tool to_celsius({}) = {celsius:.1}", args.degrees);
            Ok::<_, String>(ToolResult::text(format!("{celsius:.1}")))
        },
    ));
    Options::new()
        .sdk_mcp_server(units)
        .allowed_tools(["mcp__units__to_celsius"])
        .on_permission_request(|request, _ctx| async move {
            println!("permission asked for {}: denied", request.tool_name);
            PermissionResult::deny("This app only converts units.")
        })
}

/// The app's reading of a session: the same code for every runtime.
async fn print_answer(mut messages: Query) -> Result<(), Error> {
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("Claude: {}", result.result.unwrap_or_default());
        }
    }
    Ok(())
}
