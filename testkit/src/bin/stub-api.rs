//! Serves the stub Messages API on 127.0.0.1 until stdin closes (or the process is killed), for
//! running the SDK's examples against the real CLI with no credentials and no network.
//!
//! Prints `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT` as its first line. Replies follow the
//! recordings' conventions: `BASH:<cmd>` → a Bash tool call, `TOOL:<name>:<json>` → that tool
//! call, after a tool result → `done: <result>`, anything else → `echo: <text>`.

use std::io::{Read, Write};

use claude_agent_testkit::stub_api::StubApi;

fn main() {
    let stub = StubApi::start_with_conventions();
    println!("ANTHROPIC_BASE_URL={}", stub.base_url());
    let _ = std::io::stdout().flush();
    // Serve until our stdin reaches end of file.
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    drop(stub);
}
