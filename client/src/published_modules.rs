//! The modules each runtime crate publishes as its own (`claude_agent_tokio::mcp` and `::cli`),
//! written once here.

/// MCP: in-process servers whose tools, resources and prompts run in this program
/// ([`SdkMcpServer`](crate::mcp::SdkMcpServer), [`tool`](crate::mcp::tool),
/// `typed_tool`), and the protocol's data types ([`ToolResult`](crate::mcp::ToolResult), …).
/// Each runtime crate publishes it as its `mcp`.
///
/// ```
/// use claude_agent_tokio::mcp::{tool, SdkMcpServer, ToolResult};
///
/// let clock = SdkMcpServer::new("clock", "1.0.0").tool(tool(
///     "now",
///     "The current Unix time in seconds",
///     serde_json::json!({"type": "object"}),
///     |_args| async { Ok::<_, String>(ToolResult::text("1767225600")) },
/// ));
/// let options = claude_agent_tokio::Options::new().sdk_mcp_server(clock);
/// # let _ = options;
/// ```
pub mod mcp {
    pub use crate::callbacks::mcp_servers::McpServerSet;
    #[cfg(feature = "schemars")]
    pub use crate::callbacks::sdk_mcp::typed_tool;
    pub use crate::callbacks::sdk_mcp::{
        prompt_template, resource, resource_template, tool, SdkMcpServer, SdkPrompt, SdkResource,
        SdkTool, ToolError, ToolHandler, DEFAULT_TOOL_TIMEOUT,
    };
    pub use claude_agent_core::mcp::*;
}

/// Finding the Claude Code CLI: where sessions look for it, what to tell a user who has none,
/// and [`doctor`](crate::cli::doctor), which checks what would keep it from starting. Each
/// runtime crate publishes it as its `cli`.
///
/// ```
/// use claude_agent_tokio::cli::{find_cli, INSTALL_HINT};
///
/// if let Err(error) = find_cli(None) {
///     eprintln!("{error}\n{INSTALL_HINT}");
/// }
/// ```
pub mod cli {
    pub use crate::error::INSTALL_HINT;
    pub use crate::process::discovery::{find_cli, CLI_PATH_ENV};
    pub use crate::process::preflight::{doctor, Diagnosis, Finding};
    #[cfg(unix)]
    pub use crate::process::resources::raise_open_file_limit;
}

/// What each async runtime crate's `runtime` module publishes of the client layer, written once,
/// so that code written against one runtime crate's `runtime` module finds the same names in
/// another's: the generic entry functions, the [`Runtime`](crate::Runtime) trait and what it
/// returns, and (on Unix) the process-group guard. Each crate adds its own runtime type and
/// process transport.
#[doc(hidden)]
#[macro_export]
macro_rules! runtime_module_common {
    () => {
        pub use claude_agent_client::{
            connect_with, prewarm_with, query_with, startup_with, BoxFuture, ChildProcess,
            Connection, LocalCommand, Runtime, Signal, Transport,
        };
        #[cfg(unix)]
        pub use claude_agent_client::{OrphanGuard, TreeKill, TreeKiller};
    };
}

/// What each async runtime crate publishes at its root, written once: the client layer's
/// names, the protocol's modules, and the four entry functions (`connect`, `query`, `startup`,
/// `prewarm`) on that crate's runtime. `$krate` is the runtime crate's name (for its doc
/// examples), `$runtime` an expression giving its [`Runtime`](crate::Runtime), and
/// `$runs` how the doc of each entry function says where the session runs. The runtime crate
/// depends on this one as `claude_agent_client` and on the core as `claude_agent_core`: the
/// re-exports name them so, which is how its docs show them.
#[doc(hidden)]
#[macro_export]
macro_rules! runtime_crate_root {
    (crate: $krate:ident, runtime: $runtime:expr, runs: $runs:literal $(,)?) => {
        pub use claude_agent_client::{
            cli, mcp, prompt_channel, ClaimError, Claimed, Client, Connection,
            AdmitError, AdmitFuture, ChargeFuture, ElicitationContext, Error, Fleet, FleetError, FleetLimits,
            FleetLimitsError, FleetMember, HookContext, HostId, Messages, PermissionContext, PoolStart, PooledQuery, PrewarmError,
            ProcessTree, Prompt, PromptSender, PromptStream, Query, ResumeError, Spare, SparePool,
            SharedLedger, SharedPlace, StoreFlush, Transport, UnaskedTools, UserDialogContext,
            WarmQuery,
        };
        pub use claude_agent_client::{history, options, store, Options};
        pub use claude_agent_core::message::{Message, UserInput};
        pub use claude_agent_core::{
            control, cost, hooks, message, permission, session, tools, Json, UnknownName,
        };

        #[doc = concat!(
            "Start the CLI for a session over many turns and wait until it is ready: the [`Client`] then\n",
            "sends prompts, reads messages and steers the session. [`connect_with`](runtime::connect_with) on this crate's\n",
            "runtime. ", $runs, "\n\n",
            "```no_run\n",
            "use ", stringify!($krate), "::{connect, Message, Options};\n",
            "# async fn run() -> Result<(), ", stringify!($krate), "::Error> {\n",
            "let client = connect(Options::new()).await?;\n",
            "client.send(\"What is 2 + 2?\").await?;\n",
            "let mut reply = client.receive_response();\n",
            "while let Some(message) = reply.next().await {\n",
            "    if let Message::Result(result) = message? {\n",
            "        println!(\"{}\", result.result.unwrap_or_default());\n",
            "    }\n",
            "}\n",
            "client.close().await;\n",
            "# Ok(())\n",
            "# }\n",
            "```",
        )]
        pub async fn connect(options: Options) -> Result<Client, Error> {
            $crate::connect_with($runtime, options).await
        }

        #[doc = concat!(
            "Start the CLI, send `prompt` (a `&str`/`String` for one turn, or [`Prompt::stream`] /\n",
            "[`prompt_channel`] for many), and stream every message until the CLI's stdout ends.\n\n",
            $runs, " The CLI is shut down when the stream is dropped.\n\n",
            "```no_run\n",
            "use ", stringify!($krate), "::{query, Options};\n",
            "# async fn run() {\n",
            "let mut messages = query(\"Hello\", Options::default());\n",
            "while let Some(item) = messages.next().await {\n",
            "    match item {\n",
            "        Ok(message) => println!(\"{message:?}\"),\n",
            "        Err(error) => eprintln!(\"{error}\"),\n",
            "    }\n",
            "}\n",
            "# }\n",
            "```",
        )]
        pub fn query(prompt: impl Into<Prompt>, options: Options) -> Query {
            $crate::query_with($runtime, prompt, options)
        }

        #[doc = concat!(
            "Start the CLI for `options` now and wait until it is initialized; the [`WarmQuery`] then runs\n",
            "its prompt with no start-up to wait for.\n\n",
            "```no_run\n",
            "use ", stringify!($krate), "::{startup, Options};\n",
            "# async fn run() -> Result<(), ", stringify!($krate), "::Error> {\n",
            "let warm = startup(Options::new()).await?; // while the user types\n",
            "let mut messages = warm.query(\"What is 2 + 2?\");\n",
            "while let Some(message) = messages.next().await {\n",
            "    println!(\"{}\", message?.raw_json());\n",
            "}\n",
            "# Ok(())\n",
            "# }\n",
            "```",
        )]
        pub async fn startup(options: Options) -> Result<WarmQuery, Error> {
            $crate::startup_with($runtime, options).await
        }

        #[doc = concat!(
            "Start a spare: a CLI parked with the host-level `options` (`--await-claim`), to be claimed\n",
            "later for a session with [`Spare::claim`].\n\n",
            "```no_run\n",
            "use ", stringify!($krate), "::{prewarm, control::ClaimOptions, Options};\n",
            "# async fn run() -> Result<(), Box<dyn std::error::Error>> {\n",
            "let spare = prewarm(Options::new()).await?;\n",
            "// … when the user opens a folder and asks:\n",
            "let claimed = spare.claim(\"Summarise README.md\", ClaimOptions::new(\"/srv/app\")).await?;\n",
            "let mut messages = claimed.messages;\n",
            "while let Some(message) = messages.next().await {\n",
            "    println!(\"{}\", message?.raw_json());\n",
            "}\n",
            "# Ok(())\n",
            "# }\n",
            "```",
        )]
        pub async fn prewarm(options: Options) -> Result<Spare, PrewarmError> {
            $crate::prewarm_with($runtime, options).await
        }
    };
}
