//! Serves the stub Messages API on 127.0.0.1 until stdin closes (or the process is killed), for
//! running the SDK's examples against the real CLI with no credentials and no network.
//!
//! Prints `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT` as its first line. Replies follow the
//! testkit's intent rules (`claude_agent_testkit::stub_api::intents`): the stub plays the model
//! for natural prompts with the tools the CLI offers — a backticked command and the word "shell"
//! → a Bash call, a named in-process tool → a call of it with arguments from the prompt,
//! "`<type>` agent" → a subagent, a JSON Schema → a conforming `StructuredOutput` call, "who are
//! you" → the end of its system prompt, "what did I say so far" → a recap — and says `echo:
//! <prompt>` to anything else. `BASH:<cmd>` and `TOOL:<name>:<json>` work as in the recordings.

use std::io::{Read, Write};

use claude_agent_testkit::stub_api::StubApi;

fn main() {
    let stub = StubApi::start_with_intents();
    println!("ANTHROPIC_BASE_URL={}", stub.base_url());
    let _ = std::io::stdout().flush();
    // Serve until our stdin reaches end of file.
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    drop(stub);
}
