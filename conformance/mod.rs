//! The conformance suite: one set of end-to-end tests that every runtime adapter runs.
//!
//! Written once, compiled per runtime: each adapter's `tests/conformance.rs` names its crate
//! `sdk` and gives a `rt` module (`block_on`, `sleep`, `runtime`), then includes this folder:
//!
//! ```ignore
//! use claude_agent_smol as sdk;
//! mod rt {
//!     pub fn block_on<F: std::future::Future>(future: F) -> F::Output { smol::block_on(future) }
//!     pub fn block_on_threaded<F: std::future::Future>(future: F) -> F::Output { block_on(future) }
//!     pub async fn sleep(duration: std::time::Duration) { smol::Timer::after(duration).await; }
//!     pub fn runtime() -> claude_agent_smol::runtime::SmolRuntime { Default::default() }
//! }
//! #[path = "../../../conformance/mod.rs"]
//! mod conformance;
//! ```
//!
//! * [`endings`] — no call waits for ever: after a failed start (raced from the runtime's
//!   threads), a CLI that closes its stdout, or one that exits before `initialize`;
//! * [`fake_cli`] — against the testkit's scripted `fake-claude`: every user-facing capability,
//!   callback failures, shutdown and bad output;
//! * [`faults`] — surviving faults: a killed or silent CLI, huge and broken lines, stuck
//!   callbacks, a stalled consumer, many sessions in a row, early closed stdin, argv and secrets;
//! * [`orphans`] — nothing the SDK started outlives it: the CLI's tools die with a dropped child
//!   handle and with the host process;
//! * [`fleet`] — many sessions on one host: a fleet's session limit holds, and a session dropped
//!   while it waits starts nothing;
//!
//! The scenarios against the pinned real Claude Code CLI and the testkit's stub API are in
//! `e2e_scenarios.rs`, stamped out per runtime by each adapter's `tests/e2e.rs`.

mod endings;
pub mod fake;
mod fake_cli;
mod faults;
mod fleet;
mod orphans;

use std::future::Future;
use std::time::Duration;

use crate::sdk::{Error, Message};

/// `future`'s output, or a panic naming `limit` if it takes longer.
pub async fn within<T>(limit: Duration, future: impl Future<Output = T>) -> T {
    futures_lite::future::or(future, async move {
        crate::rt::sleep(limit).await;
        panic!("did not finish within {limit:?}")
    })
    .await
}

/// The JSON line of a message.
pub fn json(message: &Message) -> serde_json::Value {
    serde_json::from_str(message.raw_json()).expect("messages carry their JSON line")
}

/// The `type` of a message (`system/<subtype>` for system messages).
pub fn kind(message: &Message) -> String {
    let value = json(message);
    let kind = value["type"].as_str().unwrap_or_default();
    match value["subtype"].as_str() {
        Some(subtype) if kind == "system" => format!("system/{subtype}"),
        _ => kind.to_owned(),
    }
}

/// The kinds of a list of items that must all be messages.
pub fn kinds(items: &[Result<Message, Error>]) -> Vec<String> {
    items
        .iter()
        .map(|item| kind(item.as_ref().expect("no error items")))
        .collect()
}

/// The `result` text of a result message.
pub fn result_text(message: &Message) -> Option<String> {
    let value = json(message);
    (value["type"] == "result").then(|| value["result"].as_str().unwrap_or_default().to_owned())
}

/// Whether the process `pid` is gone (reaped: no `/proc` entry at all).
pub fn process_gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Wait up to `limit` for `pid` to be gone.
pub async fn wait_gone(pid: u32, limit: Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if process_gone(pid) {
            return true;
        }
        crate::rt::sleep(Duration::from_millis(20)).await;
    }
    process_gone(pid)
}
