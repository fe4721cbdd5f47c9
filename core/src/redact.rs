//! Secrets blanked out of the lines of a session (re-exported from [`crate::recording`]): a
//! leaf that the recorder, the replay check and the types that carry secrets all use.

use serde_json::Value;

/// What stands in a recording for the value of an environment variable or a header.
pub const REDACTED: &str = "[redacted]";

/// Blanks the secrets a line of a session can carry, so a recording can be kept with a project's
/// tests: the values (not the names) of every `env` and `headers` object anywhere in the line,
/// whichever way it went. That covers the external MCP servers of `initialize` and
/// `mcp_set_servers`, subagents' own servers, the server settings the CLI echoes back (in
/// `mcp_status`), and the environment a claim hands a spare CLI (its tokens among them).
/// Returns whether it changed anything. `Options::record_to` records lines
/// blanked this way, and the testkit's replay check compares what a test wrote the same way.
///
/// ```
/// use claude_agent_core::recording::{redact_secrets, REDACTED};
/// use serde_json::json;
///
/// let mut initialize = json!({"type": "control_request", "request_id": "req_1", "request": {
///     "subtype": "initialize",
///     "mcpServers": {"tickets": {"type": "http", "url": "https://mcp.example.com",
///                                "headers": {"Authorization": "Bearer sk-live-123"}}},
///     "agents": {"triage": {"mcpServers": [{"db": {"command": "db-mcp",
///                                                  "env": {"DB_PASSWORD": "hunter2"}}}]}}
/// }});
/// assert!(redact_secrets(&mut initialize));
/// let request = &initialize["request"];
/// assert_eq!(request["mcpServers"]["tickets"]["headers"]["Authorization"], REDACTED);
/// assert_eq!(request["mcpServers"]["tickets"]["url"], "https://mcp.example.com");
/// assert_eq!(request["agents"]["triage"]["mcpServers"][0]["db"]["env"]["DB_PASSWORD"], REDACTED);
/// ```
pub fn redact_secrets(msg: &mut Value) -> bool {
    match msg {
        Value::Object(map) => {
            let mut changed = false;
            for (key, value) in map.iter_mut() {
                match value {
                    Value::Object(secrets) if key == "env" || key == "headers" => {
                        for secret in secrets.values_mut() {
                            if secret != REDACTED {
                                *secret = Value::String(REDACTED.to_owned());
                                changed = true;
                            }
                        }
                    }
                    value => changed |= redact_secrets(value),
                }
            }
            changed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| redact_secrets(item) | changed),
        _ => false,
    }
}
