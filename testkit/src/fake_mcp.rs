//! A small MCP server over stdio, for tests of MCP features against the real CLI: the CLI
//! starts it as an external server (`fake-claude mcp-server`), and its tools answer at once.
//!
//! Its tools:
//! * `echo` — `{"text": …}` → a text block `echo: <text>` and the structured content
//!   `{"echoed": <text>}`;
//! * `fail` — a tool error (`isError: true`) with the text `it failed`.
//!
//! ```no_run
//! use claude_agent_tokio::Options;
//! use claude_agent_testkit::fake_mcp;
//!
//! // The CLI's tools now include `mcp__fake__echo` and `mcp__fake__fail`.
//! let options = Options::new().mcp_server("fake", fake_mcp::server_config().unwrap());
//! # let _ = options;
//! ```

use std::io::{self, BufRead, Write};

use claude_agent_core::options::McpServerConfig;
use serde_json::{json, Value};

use crate::fake_cli::{fake_claude_binary, FakeBinaryError};

/// The argument that makes `fake-claude` serve MCP on its stdin and stdout.
pub const MCP_SERVER_ARG: &str = "mcp-server";

/// The stdio configuration that starts this server: `fake-claude mcp-server`.
///
/// ```no_run
/// use claude_agent_testkit::fake_mcp;
///
/// let config = fake_mcp::server_config().unwrap_or_else(|e| panic!("{e}"));
/// # let _ = config;
/// ```
pub fn server_config() -> Result<McpServerConfig, FakeBinaryError> {
    let binary = fake_claude_binary()?;
    Ok(McpServerConfig::stdio(
        binary.display().to_string(),
        [MCP_SERVER_ARG],
    ))
}

/// Serve MCP over newline-delimited JSON-RPC: read requests from `input` until it ends, and
/// write each answer to `output`. Notifications get no answer; a method it does not know gets
/// the JSON-RPC error `-32601`.
///
/// ```
/// use claude_agent_testkit::fake_mcp;
///
/// let requests = concat!(
///     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
///     "\n",
/// );
/// let mut answers = Vec::new();
/// fake_mcp::serve(requests.as_bytes(), &mut answers).unwrap();
/// let answer: serde_json::Value = serde_json::from_slice(&answers).unwrap();
/// assert_eq!(answer["result"]["structuredContent"]["echoed"], "hi");
/// ```
pub fn serve(input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = request.get("id").cloned() else {
            continue;
        };
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let answer = match answer(method, &params) {
            Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            None => json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": -32601, "message": format!("no method {method}")},
            }),
        };
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
    Ok(())
}

/// The result of `method`, or `None` for a method this server does not have.
fn answer(method: &str, params: &Value) -> Option<Value> {
    match method {
        "initialize" => Some(json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake-mcp", "version": env!("CARGO_PKG_VERSION")},
        })),
        "ping" => Some(json!({})),
        "tools/list" => Some(json!({"tools": [
            {
                "name": "echo",
                "description": "Echoes its text.",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            },
            {
                "name": "fail",
                "description": "Always fails.",
                "inputSchema": {"type": "object", "properties": {}},
            },
        ]})),
        "tools/call" => {
            let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
            Some(match params.get("name").and_then(Value::as_str) {
                Some("echo") => {
                    let text = arguments.get("text").and_then(Value::as_str).unwrap_or("");
                    json!({
                        "content": [{"type": "text", "text": format!("echo: {text}")}],
                        "structuredContent": {"echoed": text},
                    })
                }
                Some("fail") => json!({
                    "content": [{"type": "text", "text": "it failed"}],
                    "isError": true,
                }),
                other => json!({
                    "content": [{"type": "text", "text": format!("no tool {other:?}")}],
                    "isError": true,
                }),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(requests: &[Value]) -> Vec<Value> {
        let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
        let mut output = Vec::new();
        serve(input.as_bytes(), &mut output).unwrap();
        output
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }

    #[test]
    fn answers_requests_and_not_notifications() {
        let answers = exchange(&[
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail"}}),
            json!({"jsonrpc":"2.0","id":4,"method":"resources/list"}),
        ]);
        assert_eq!(answers.len(), 4);
        assert_eq!(answers[0]["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(answers[1]["result"]["tools"][0]["name"], "echo");
        assert_eq!(answers[2]["result"]["isError"], true);
        assert_eq!(answers[3]["error"]["code"], -32601);
    }
}
