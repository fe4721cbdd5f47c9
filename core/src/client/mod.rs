//! Runtime-agnostic async layer: [`query_with`], [`Client`], user callbacks, and the one driver
//! future that runs a session.
//!
//! Written once over the `futures-io` traits and a small [`Runtime`] trait; the adapter crates
//! (`claude-agent-tokio`, …) implement that trait and wrap [`query_with`] / [`Client::connect`]
//! so users never name a runtime.
//!
//! How a session runs: [`query_with`] or [`Client::connect`] finds the CLI ([`find_cli`]), spawns
//! it in its own process group, and puts one driver future on the runtime. The driver feeds the
//! [`crate::session::Session`] with stdout, writes its transmits to stdin, keeps stderr drained,
//! runs the callbacks from [`Handlers`] as futures it polls itself, and serves the handles'
//! commands over a bounded channel. Messages reach the user through a bounded queue, each one
//! exactly once; when nobody reads, the driver stops reading the CLI. When the last handle is
//! dropped, the driver shuts the CLI down (close stdin, 2 s, `SIGTERM`, 5 s, `SIGKILL`) and
//! reaps it.
//!
//! CONTRACT: `Handlers` (Default + Clone + Debug) holds the user's callbacks; `Options` carries one
//! (`Options::handlers`). The rest of this module is built on [`crate::session::Session`].

mod callbacks;
#[allow(clippy::module_inception)]
mod client;
mod discovery;
mod driver;
mod error;
mod handlers;
mod link;
mod message_uuid;
mod options_ext;
#[cfg(unix)]
mod orphan_guard;
mod prompt;
mod query;
mod ready;
mod recorder;
mod runtime;
mod sdk_mcp;
mod spawn;
mod stderr;
pub(crate) mod transport;

pub use client::{Client, Messages};
pub use discovery::{find_cli, CLI_PATH_ENV};
pub use error::{Error, INSTALL_HINT};
pub use handlers::{ElicitationContext, Handlers, HookContext, PermissionContext};
#[cfg(unix)]
pub use orphan_guard::OrphanGuard;
pub use prompt::{prompt_channel, Prompt, PromptSender, PromptStream};
pub use query::{query_with, Query};
pub use runtime::{BoxFuture, ChildParts, ChildProcess, Runtime, Signal};
#[cfg(feature = "schemars")]
pub use sdk_mcp::typed_tool;
pub use sdk_mcp::{tool, SdkMcpServer, SdkTool, ToolError};
pub use transport::{Connection, Transport};
