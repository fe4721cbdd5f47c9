//! The async layer: [`query_with`] for one prompt, [`Client`] for a long-lived session, the user's
//! callbacks, and the one driver future that runs a session.
//!
//! Users normally reach this through a runtime crate (`claude-agent-tokio`, `claude-agent-smol`,
//! `claude-agent-async-std`), which re-exports it with the runtime filled in: `query(prompt,
//! options)` and `connect(options)`. This module is written once over the `futures-io`
//! traits and a small [`Runtime`] trait that those crates implement; [`query_with`] and
//! [`connect_with`] take the runtime explicitly.
//!
//! ```no_run
//! use claude_agent_core::client::{query_with, Runtime};
//! use claude_agent_core::message::Message;
//! use claude_agent_core::client::options::Options;
//! use futures_lite::StreamExt;
//!
//! async fn ask<R: Runtime>(runtime: R) -> Result<String, claude_agent_core::client::Error> {
//!     let mut messages = query_with(runtime, "What is 2 + 2?", Options::new());
//!     let mut answer = String::new();
//!     while let Some(message) = messages.next().await {
//!         if let Message::Result(result) = message? {
//!             answer = result.result.unwrap_or_default();
//!         }
//!     }
//!     Ok(answer)
//! }
//! ```
//!
//! How a session runs: [`query_with`] or [`connect_with`] finds the CLI ([`find_cli`]), spawns
//! it in its own process group (or opens the connection of `Options::transport`), and puts one
//! driver future on the runtime. The driver feeds the [`crate::session::Session`] with stdout,
//! writes its transmits to stdin, keeps stderr drained, runs the callbacks given to
//! [`Options`] as futures it polls itself, and serves the handles' commands over a bounded channel. Messages
//! reach the user through a bounded queue, each one exactly once; when nobody reads, the driver
//! stops reading the CLI. When the last handle is dropped, the driver shuts the CLI down (close
//! stdin, 2 s, `SIGTERM`, 5 s, `SIGKILL`) and reaps it.

/// What the user holds: [`Client`], [`Query`], the warm handles and the pool, prompt streams,
/// and the wait for a session to be ready.
mod handles {
    #[allow(clippy::module_inception)]
    pub(super) mod client;
    pub(super) mod mcp_call;
    pub(super) mod pool;
    pub(super) mod prompt;
    pub(super) mod query;
    pub(super) mod spare;
    pub(super) mod warm;
}

/// The one task that runs a session: starting it, the driver future, the queue to the handles,
/// stderr, and tracing.
mod task {
    pub(super) mod cli;
    pub(super) mod driver;
    pub(super) mod end;
    pub(super) mod link;
    #[cfg(feature = "otel")]
    pub(super) mod otel;
    pub(super) mod spawn;
    pub(super) mod stderr;
    pub(super) mod trace;
}

/// Reaching the CLI: the [`Runtime`] trait, transports, finding the executable, and the guard
/// that takes the CLI down with its host.
mod process {
    pub(super) mod discovery;
    pub(super) mod local;
    #[cfg(unix)]
    pub(super) mod orphan_guard;
    pub(super) mod preflight;
    pub(super) mod resources;
    pub(super) mod runtime;
    pub(super) mod temp_folders;
    pub(super) mod transport;
}

/// The user's callbacks: how they are registered on the options, stored, and run for the CLI's
/// requests, in-process MCP servers among them.
mod callbacks {
    pub(super) mod dispatch;
    pub(super) mod handlers;
    pub(super) mod mcp_servers;
    pub(super) mod sdk_mcp;
    pub(super) mod unasked;
}

/// What outlives the process: the session store's mirror, resuming from a store, recordings.
mod persistence {
    pub(super) mod config_dir;
    pub(super) mod mirror;
    pub(super) mod recorder;
    pub(super) mod store_resume;
    pub(super) mod user_files;
}

mod error;
mod faces;
mod fleet;
pub mod options;

// Each module by its own name across the client layer (`crate::client::link`, …).
use callbacks::{dispatch, handlers, mcp_servers, sdk_mcp, unasked};
use handles::{client, pool, prompt, query, spare, warm};
use persistence::{config_dir, mirror, recorder, store_resume, user_files};
#[cfg(unix)]
use process::orphan_guard;
use process::{discovery, local, preflight, runtime, transport};
#[cfg(feature = "otel")]
use task::otel;
use task::{driver, end, link, spawn, stderr, trace};

pub use client::{connect_with, Client, Messages};
pub use discovery::{find_cli, CLI_PATH_ENV};
pub use error::{Error, INSTALL_HINT};
pub use faces::{cli, mcp, prelude};
pub(crate) use fleet::Seat;
pub use fleet::{Fleet, FleetLimits, FleetLimitsError, FleetMember};
pub use handlers::{ElicitationContext, HookContext, HostId, PermissionContext, UserDialogContext};
pub use local::LocalCommand;
pub(crate) use local::{child_var, give_to, user_ids};
pub use mcp_servers::McpServerSet;
pub use mirror::StoreFlush;
pub use options::Options;
#[cfg(unix)]
pub use orphan_guard::{OrphanGuard, TreeKill, TreeKiller};
pub use pool::{PoolStart, PooledQuery, SparePool};
pub use preflight::{doctor, Diagnosis, Finding};
#[cfg(unix)]
pub use process::resources::raise_open_file_limit;
pub use process::resources::ProcessTree;
pub(crate) use process::resources::{process_tree, resident_of_trees};
pub(crate) use process::temp_folders::temp_folder;
pub use prompt::{prompt_channel, Prompt, PromptSender, PromptStream};
pub use query::{query_with, Query};
pub use runtime::{BoxFuture, ChildProcess, Runtime, Signal};
#[cfg(feature = "schemars")]
pub use sdk_mcp::typed_tool;
pub use sdk_mcp::{
    prompt_template, resource, resource_template, tool, SdkMcpServer, SdkPrompt, SdkResource,
    SdkTool, ToolError, ToolHandler, DEFAULT_TOOL_TIMEOUT,
};
pub use spare::{prewarm_with, ClaimError, Claimed, PrewarmError, Spare};
pub use store_resume::ResumeError;
pub use transport::{Connection, Transport};
pub use unasked::UnaskedTools;
pub use warm::{startup_with, WarmQuery};
