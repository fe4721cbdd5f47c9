//! `Client`: a long-lived session, each call blocking the calling thread.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use claude_agent_client::mcp::McpServerSet;
use claude_agent_client::Error;
use claude_agent_client::Options;
use claude_agent_core::control::{
    AccountInfo, AgentInfo, ContextUsageDetail, ControlRequest, FileSuggestions,
    InitializeResponse, InterruptReceipt, McpCall, McpPermissionMode, McpPermissionOverrideResult,
    McpResource, McpSetServersResult, McpStatus, MessageCancelled, ModelInfo, OutputStyles,
    ReadFile, ReadFileResult, ReloadPlugins, ReloadPluginsResult, ReloadSkillsResult, ResponseBody,
    RewindFilesResult, SettingsFile, SettingsReport, SlashCommand, ThinkingDisplayChange,
    UsageDetail, UsageReport,
};
use claude_agent_core::mcp::ToolResult;
use claude_agent_core::message::{ContextUsage, Message, MessageId, UserInput};
use claude_agent_core::permission::PermissionMode;
use claude_agent_core::session::VersionCheck;
use serde::Serialize;

use crate::executor::{self, next_within, wait};
use crate::TimedOut;

/// A connected CLI session for many turns: send user messages, read the replies, and steer the
/// session with control requests. Every method blocks the calling thread until it has its answer.
///
/// Cheap to clone, `Send` and `Sync`: clones drive the same session from any thread, so one thread
/// can [`interrupt`](Client::interrupt) a turn while another reads it. A callback gets one through
/// its context ([`PermissionContext::client`](crate::PermissionContext::client), …) and may call
/// it there: callbacks run on threads of their own, not on the thread that drives sessions.
///
/// The CLI is shut down by [`Client::close`], or in the background when the last clone (and every
/// [`Messages`] made from one) is dropped: stdin is closed, then `SIGTERM` after 5 s, then
/// `SIGKILL` after 5 s more.
///
/// Messages wait in a bounded queue until read: a client whose messages nobody reads stops
/// reading the CLI, and with it the answers to control requests. Keep reading
/// ([`Client::receive_response`]) while another thread waits on a control request.
///
/// ```no_run
/// use claude_agent_blocking::{Client, Message, Options};
///
/// let client = Client::connect(Options::new())?;
/// for question in ["Pick a number.", "Double it."] {
///     client.send(question)?;
///     for message in client.receive_response() {
///         if let Message::Result(result) = message? {
///             println!("{}", result.result.unwrap_or_default());
///         }
///     }
/// }
/// client.close();
/// # Ok::<(), claude_agent_blocking::Error>(())
/// ```
#[derive(Clone)]
pub struct Client {
    /// The async client: connected, taken from a query, or handed out by a callback's context.
    inner: claude_agent_client::Client,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

impl Client {
    /// Start the CLI and wait until it has answered `initialize` and connected the options'
    /// in-process MCP servers (at most 5 s for those), so that [`Client::mcp_status`] lists them
    /// at once.
    ///
    /// A CLI that is not found, or that refuses the start or exits before answering (a bad flag,
    /// a settings file it rejects), is an error saying why: [`Error::CliNotFound`] with the
    /// places searched and how to install it, [`Error::StartFailed`] with the CLI's reason and
    /// stderr.
    ///
    /// ```no_run
    /// use claude_agent_blocking::{Client, Options};
    ///
    /// let client = Client::connect(Options::new().model("claude-sonnet-4-5"))?;
    /// # drop(client);
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    pub fn connect(options: Options) -> Result<Client, Error> {
        let connect = claude_agent_client::connect_with(executor::runtime(), options);
        wait(connect).map(Client::from_async)
    }

    pub(crate) fn from_async(inner: claude_agent_client::Client) -> Client {
        Client { inner }
    }

    /// Send a user message (a `&str`, a `String` or a [`UserInput`]) and return the uuid it went
    /// out with: the message's own ([`UserInput::with_uuid`]), or else a new random one. It is
    /// the id [`Client::rewind_files`] takes. Read the reply with [`Client::receive_response`].
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{Client, UserInput};
    /// # fn example(client: Client) -> Result<(), claude_agent_blocking::Error> {
    /// let uuid = client.send("Rename `foo` to `bar` everywhere.")?;
    /// assert_eq!(uuid.as_str().len(), 36);
    /// let mine = client.send(UserInput::text("Now tidy up.").with_uuid("tidy-up-1"))?;
    /// assert_eq!(mine, "tidy-up-1");
    /// # Ok(())
    /// # }
    /// ```
    pub fn send(&self, message: impl Into<UserInput>) -> Result<MessageId, Error> {
        let message = message.into();
        wait(self.inner.send(message))
    }

    /// No more user messages: the CLI's stdin is closed once the current run has ended, and the
    /// CLI then exits by itself. Read the remaining messages to see the end.
    ///
    /// ```no_run
    /// # use claude_agent_blocking::Client;
    /// # fn example(client: Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.send("Write the release notes.")?;
    /// client.end_input()?;
    /// for message in client.receive_messages() {
    ///     println!("{:?}", message?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn end_input(&self) -> Result<(), Error> {
        wait(self.inner.end_input())
    }

    /// Every message from now on, until the CLI's stdout ends.
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{Client, Message};
    /// # fn example(client: Client) -> Result<(), claude_agent_blocking::Error> {
    /// let reader = client.clone();
    /// std::thread::spawn(move || {
    ///     for message in reader.receive_messages() {
    ///         match message {
    ///             Ok(Message::Result(result)) => println!("{:?}", result.result),
    ///             Ok(_) => {}
    ///             Err(error) => eprintln!("{error}"),
    ///         }
    ///     }
    /// });
    /// client.send("First.")?;
    /// client.send("Second.")?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn receive_messages(&self) -> Messages {
        Messages::new(self.inner.receive_messages())
    }

    /// Messages up to and including the next `result` (the end of the current turn).
    ///
    /// ```no_run
    /// # use claude_agent_blocking::{Client, Message};
    /// # fn example(client: Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.send("What is 2 + 2?")?;
    /// for message in client.receive_response() {
    ///     if let Message::Result(result) = message? {
    ///         println!("{}", result.result.unwrap_or_default());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn receive_response(&self) -> Messages {
        Messages::new(self.inner.receive_response())
    }

    /// Stop the current turn. The CLI then ends the turn with an error `result`. Call it from any
    /// thread, e.g. while another one reads [`Client::receive_response`].
    ///
    /// ```no_run
    /// # use claude_agent_blocking::Client;
    /// # use std::time::Duration;
    /// # fn example(client: Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.send("Count to a million, slowly.")?;
    /// let stopper = client.clone();
    /// std::thread::spawn(move || {
    ///     std::thread::sleep(Duration::from_secs(10));
    ///     stopper.interrupt()
    /// });
    /// for message in client.receive_response() {
    ///     println!("{:?}", message?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn interrupt(&self) -> Result<InterruptReceipt, Error> {
        wait(self.inner.interrupt())
    }

    /// [`interrupt`](Client::interrupt), and cancel the user messages still queued behind the
    /// turn (listed in the receipt's `cancelled`).
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let receipt = client.interrupt_and_cancel_queued()?;
    /// println!("{} queued messages dropped", receipt.cancelled.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn interrupt_and_cancel_queued(&self) -> Result<InterruptReceipt, Error> {
        wait(self.inner.interrupt_and_cancel_queued())
    }

    /// Drop a user message still waiting in the CLI's queue, by its uuid.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let queued = client.send("Also update the changelog.")?;
    /// if !client.cancel_message(&queued)?.cancelled {
    ///     println!("too late: the agent has read it");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn cancel_message(&self, uuid: impl Into<String>) -> Result<MessageCancelled, Error> {
        wait(self.inner.cancel_message(uuid))
    }

    /// The models the session can run now (asked of the CLI).
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// for model in client.list_models()? {
    ///     println!("{}", model.value);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn list_models(&self) -> Result<Vec<ModelInfo>, Error> {
        wait(self.inner.list_models())
    }

    /// The settings in effect, each source's own, and the files that did not parse.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let settings = client.settings()?;
    /// println!("{} sources", settings.sources.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn settings(&self) -> Result<SettingsReport, Error> {
        wait(self.inner.settings())
    }

    /// The files an `@`-mention of `query` offers.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// for suggestion in client.file_suggestions("src/ma")?.suggestions {
    ///     println!("@{}", suggestion.path);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn file_suggestions(&self, query: &str) -> Result<FileSuggestions, Error> {
        wait(self.inner.file_suggestions(query))
    }

    /// Use another model from the next turn on; `None` goes back to the default.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.set_model(Some("claude-opus-4-1"))?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_model(&self, model: Option<&str>) -> Result<(), Error> {
        wait(self.inner.set_model(model))
    }

    /// Change the permission mode; the mode now in effect, which is not always the one asked
    /// for (`None` when the CLI named none).
    ///
    /// ```no_run
    /// use claude_agent_blocking::permission::PermissionMode;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let now = client.set_permission_mode(PermissionMode::AcceptEdits)?;
    /// # let _ = now;
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_permission_mode(
        &self,
        mode: PermissionMode,
    ) -> Result<Option<PermissionMode>, Error> {
        wait(self.inner.set_permission_mode(mode))
    }

    /// Change the extended-thinking budget (`None` clears it), and the thinking display: kept
    /// with [`ThinkingDisplayChange::Keep`], reset to the CLI's default with
    /// [`ThinkingDisplayChange::Reset`], or set with a
    /// [`ThinkingDisplay`](claude_agent_core::options::ThinkingDisplay).
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::ThinkingDisplayChange;
    /// use claude_agent_blocking::options::ThinkingDisplay;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.set_max_thinking_tokens(Some(8_000), ThinkingDisplay::Summarized)?;
    /// client.set_max_thinking_tokens(None, ThinkingDisplayChange::Keep)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_max_thinking_tokens(
        &self,
        tokens: Option<u64>,
        display: impl Into<ThinkingDisplayChange>,
    ) -> Result<(), Error> {
        let display = display.into();
        wait(self.inner.set_max_thinking_tokens(tokens, display))
    }

    /// Undo file changes made after the user message `user_message_id` (needs
    /// `Options::enable_file_checkpointing`). The id is the uuid [`Client::send`] returned for
    /// that message; [`Client::preview_rewind_files`] says what would change without changing it.
    ///
    /// ```no_run
    /// use claude_agent_blocking::{Client, Options};
    ///
    /// let client = Client::connect(Options::new().enable_file_checkpointing(true))?;
    /// let uuid = client.send("Add a CHANGELOG.md.")?;
    /// for message in client.receive_response() {
    ///     message?;
    /// }
    /// if client.preview_rewind_files(&uuid)?.can_rewind {
    ///     client.rewind_files(&uuid)?;
    /// }
    /// # Ok::<(), claude_agent_blocking::Error>(())
    /// ```
    pub fn rewind_files(
        &self,
        user_message_id: impl Into<String>,
    ) -> Result<RewindFilesResult, Error> {
        let id = user_message_id.into();
        wait(self.inner.rewind_files(id))
    }

    /// What [`Client::rewind_files`] would undo for `user_message_id`, without undoing it.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client, uuid: String) -> Result<(), claude_agent_blocking::Error> {
    /// println!("{:?}", client.preview_rewind_files(&uuid)?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn preview_rewind_files(
        &self,
        user_message_id: impl Into<String>,
    ) -> Result<RewindFilesResult, Error> {
        let id = user_message_id.into();
        wait(self.inner.preview_rewind_files(id))
    }

    /// The state of every MCP server.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// for server in client.mcp_status()?.mcp_servers {
    ///     println!("{}: {}", server.name, server.status);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn mcp_status(&self) -> Result<McpStatus, Error> {
        wait(self.inner.mcp_status())
    }

    /// Call a tool of an MCP server the CLI runs, with no model turn, and get its result:
    /// [`claude_agent_client::Client::mcp_call`].
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::McpCall;
    /// use serde_json::json;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let result = client.mcp_call(McpCall::new("github", "search_issues", json!({"query": "crash"})))?;
    /// println!("{:?}", result.content);
    /// # Ok(())
    /// # }
    /// ```
    pub fn mcp_call(&self, call: McpCall) -> Result<ToolResult, Error> {
        wait(self.inner.mcp_call(call))
    }

    /// Reconnect the MCP server `name`.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.reconnect_mcp_server("github")?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn reconnect_mcp_server(&self, name: impl Into<String>) -> Result<(), Error> {
        let name = name.into();
        wait(self.inner.reconnect_mcp_server(name))
    }

    /// Disable the MCP server `name`: its tools disappear until [`Client::enable_mcp_server`].
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.disable_mcp_server("github")?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn disable_mcp_server(&self, name: impl Into<String>) -> Result<(), Error> {
        let name = name.into();
        wait(self.inner.disable_mcp_server(name))
    }

    /// Enable the MCP server `name` again after [`Client::disable_mcp_server`].
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.enable_mcp_server("github")?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn enable_mcp_server(&self, name: impl Into<String>) -> Result<(), Error> {
        let name = name.into();
        wait(self.inner.enable_mcp_server(name))
    }

    /// Replace the MCP servers added since the CLI started, and the in-process servers (those of
    /// the options included), with `servers`; see [`McpServerSet`] for what stays and what goes.
    ///
    /// ```no_run
    /// use claude_agent_blocking::mcp::ToolResult;
    /// use claude_agent_blocking::options::McpServerConfig;
    /// use claude_agent_blocking::mcp::{tool, McpServerSet, SdkMcpServer};
    ///
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let clock = SdkMcpServer::new("clock", "1.0").tool(tool(
    ///     "now",
    ///     "The time",
    ///     serde_json::json!({"type": "object"}),
    ///     |_args| Ok::<_, String>(ToolResult::text("12:00")),
    /// ));
    /// let servers = McpServerSet::new()
    ///     .sdk(clock)
    ///     .external("fs", McpServerConfig::stdio("mcp-fs", ["/srv"]));
    /// let outcome = client.set_mcp_servers(servers)?;
    /// println!("added {:?}, removed {:?}", outcome.added, outcome.removed);
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_mcp_servers(&self, servers: McpServerSet) -> Result<McpSetServersResult, Error> {
        wait(self.inner.set_mcp_servers(servers))
    }

    /// Stop the background task `task_id`.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.stop_task("task-1")?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn stop_task(&self, task_id: impl Into<String>) -> Result<(), Error> {
        let task_id = task_id.into();
        wait(self.inner.stop_task(task_id))
    }

    /// How the context window is used: [`ContextUsageDetail::Full`] counts each category with
    /// the token-count API (the CLI's default), [`ContextUsageDetail::Summary`] estimates from
    /// the last response.
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::ContextUsageDetail;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let usage = client.context_usage(ContextUsageDetail::Summary)?;
    /// println!("{} of {} tokens", usage.total_tokens, usage.max_tokens);
    /// # Ok(())
    /// # }
    /// ```
    pub fn context_usage(&self, detail: ContextUsageDetail) -> Result<ContextUsage, Error> {
        wait(self.inner.context_usage(detail))
    }

    /// Send `initialize` again, as the session first sent it, and get the CLI's fresh answer.
    /// The CLI redelivers the permission prompts and dialogs it is still waiting on, and they
    /// reach the callbacks again (a prompt still open in this session is not asked twice).
    /// [`Client::server_info`] keeps the first answer.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let fresh = client.reinitialize()?;
    /// println!("{} commands", fresh.commands.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn reinitialize(&self) -> Result<InitializeResponse, Error> {
        wait(self.inner.reinitialize())
    }

    /// Merge `settings` (a JSON object) into the session's flag-settings layer, the one
    /// `Options::settings` fills: each top-level key replaces the earlier value, and a `null`
    /// removes it.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.apply_flag_settings(&serde_json::json!({"model": "claude-sonnet-4-5"}))?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn apply_flag_settings(&self, settings: &impl Serialize) -> Result<(), Error> {
        wait(self.inner.apply_flag_settings(settings))
    }

    /// Write `settings` into a settings file the way `/config` does, and apply them: `outputStyle`
    /// in [`SettingsFile::Local`], `effortLevel` in [`SettingsFile::User`].
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::SettingsFile;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.update_settings(SettingsFile::Local, &serde_json::json!({"outputStyle": "Explanatory"}))?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn update_settings(
        &self,
        file: SettingsFile,
        settings: &impl Serialize,
    ) -> Result<(), Error> {
        wait(self.inner.update_settings(file, settings))
    }

    /// Reload plugins from disk and get the session's commands, agents, plugins and MCP servers
    /// afterwards.
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::ReloadPlugins;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let reloaded = client.reload_plugins(ReloadPlugins::new().refuse_if_busy(true))?;
    /// println!("{} plugins", reloaded.plugins.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn reload_plugins(&self, reload: ReloadPlugins) -> Result<ReloadPluginsResult, Error> {
        wait(self.inner.reload_plugins(reload))
    }

    /// Reload skills from disk and get the refreshed list.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// for skill in client.reload_skills()?.skills {
    ///     println!("{}", skill.name);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn reload_skills(&self) -> Result<ReloadSkillsResult, Error> {
        wait(self.inner.reload_skills())
    }

    /// Read the output-style directories again and get every style's name.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// println!("{:?}", client.reload_output_styles()?.available_output_styles);
    /// # Ok(())
    /// # }
    /// ```
    pub fn reload_output_styles(&self) -> Result<OutputStyles, Error> {
        wait(self.inner.reload_output_styles())
    }

    /// Read a `ui://` resource of the MCP server `server` (one the CLI connected itself).
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let widget = client.read_mcp_resource("charts", "ui://charts/bar")?;
    /// println!("{} parts", widget.contents.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn read_mcp_resource(
        &self,
        server: impl Into<String>,
        uri: impl Into<String>,
    ) -> Result<McpResource, Error> {
        let (server, uri) = (server.into(), uri.into());
        wait(self.inner.read_mcp_resource(server, uri))
    }

    /// Read a file of the session under the Read tool's permission rules; one that may not be
    /// read, or does not exist, is [`Error::ControlRefused`].
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::ReadFile;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// println!("{}", client.read_file(ReadFile::new("NOTES.md"))?.contents);
    /// # Ok(())
    /// # }
    /// ```
    pub fn read_file(&self, file: ReadFile) -> Result<ReadFileResult, Error> {
        wait(self.inner.read_file(file))
    }

    /// Tell the CLI that `path` was read when it had the modification time `mtime`, so that an
    /// Edit of it needs no fresh Read.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let mtime = std::fs::metadata("src/main.rs").and_then(|m| m.modified()).expect("a file");
    /// client.seed_read_state("src/main.rs", mtime)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn seed_read_state(
        &self,
        path: impl Into<String>,
        mtime: std::time::SystemTime,
    ) -> Result<(), Error> {
        let path = path.into();
        wait(self.inner.seed_read_state(path, mtime))
    }

    /// Move every running foreground task to the background, as Ctrl+B does.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.background_tasks()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn background_tasks(&self) -> Result<(), Error> {
        wait(self.inner.background_tasks())
    }

    /// Move the foreground task started by the tool use `tool_use_id` to the background.
    /// `false` when no foreground task of that tool use runs.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let moved = client.background_task("toolu_01")?;
    /// # let _ = moved;
    /// # Ok(())
    /// # }
    /// ```
    pub fn background_task(&self, tool_use_id: impl Into<String>) -> Result<bool, Error> {
        let tool_use_id = tool_use_id.into();
        wait(self.inner.background_task(tool_use_id))
    }

    /// Pin the permission mode of the MCP server `server`'s tools, or clear it with `None`.
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::McpPermissionMode;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// client.set_mcp_permission_mode_override("github", Some(McpPermissionMode::Default))?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_mcp_permission_mode_override(
        &self,
        server: impl Into<String>,
        mode: Option<McpPermissionMode>,
    ) -> Result<McpPermissionOverrideResult, Error> {
        let server = server.into();
        wait(self.inner.set_mcp_permission_mode_override(server, mode))
    }

    /// The data behind `/usage`: the session's cost and totals, and the plan's rate limits where
    /// they apply (experimental in the TypeScript SDK).
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// use claude_agent_blocking::control::UsageDetail;
    /// println!("${:.4}", client.usage(UsageDetail::WithoutBehaviors)?.session.total_cost_usd);
    /// # Ok(())
    /// # }
    /// ```
    pub fn usage(&self, detail: UsageDetail) -> Result<UsageReport, Error> {
        wait(self.inner.usage(detail))
    }

    /// What the CLI said in answer to `initialize`: commands, models, agents, account, and every
    /// other field it sent. It does not block.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) {
    /// if let Some(info) = client.server_info() {
    ///     for command in &info.commands {
    ///         println!("/{}", command.name);
    ///     }
    ///     println!("{:?}", info.other.get("current_permission_mode"));
    /// }
    /// # }
    /// ```
    pub fn server_info(&self) -> Option<Arc<InitializeResponse>> {
        self.inner.server_info()
    }

    /// The CLI's version and whether this SDK supports it, as soon as the CLI said it (in its
    /// answer to `initialize` for current CLIs); `None` before that, and when
    /// `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` is set. It does not block.
    ///
    /// ```no_run
    /// use claude_agent_blocking::session::{CliVersion, VersionCheck};
    ///
    /// # fn example(client: claude_agent_blocking::Client) {
    /// if let Some(VersionCheck::TooOld(version)) = client.version_check() {
    ///     eprintln!("Claude Code {version} is too old; {} or later is needed", CliVersion::MINIMUM);
    /// }
    /// # }
    /// ```
    pub fn version_check(&self) -> Option<VersionCheck> {
        self.inner.version_check()
    }

    /// The slash commands and skills the CLI offers. It does not block.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) {
    /// let count = client.supported_commands().len();
    /// # let _ = count;
    /// # }
    /// ```
    pub fn supported_commands(&self) -> Vec<SlashCommand> {
        self.inner.supported_commands()
    }

    /// The models the account can use. It does not block.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) {
    /// for model in client.supported_models() {
    ///     println!("{}", model.value);
    /// }
    /// # }
    /// ```
    pub fn supported_models(&self) -> Vec<ModelInfo> {
        self.inner.supported_models()
    }

    /// The subagents the session knows. It does not block.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) {
    /// for agent in client.supported_agents() {
    ///     println!("{}: {}", agent.name, agent.description);
    /// }
    /// # }
    /// ```
    pub fn supported_agents(&self) -> Vec<AgentInfo> {
        self.inner.supported_agents()
    }

    /// The account the CLI runs as. It does not block.
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) {
    /// println!("{:?}", client.account_info().and_then(|a| a.email));
    /// # }
    /// ```
    pub fn account_info(&self) -> Option<AccountInfo> {
        self.inner.account_info()
    }

    /// Send any control request and get its raw answer.
    ///
    /// ```no_run
    /// use claude_agent_blocking::control::ControlRequest;
    /// # fn example(client: claude_agent_blocking::Client) -> Result<(), claude_agent_blocking::Error> {
    /// let answer = client.request(ControlRequest::McpStatus)?;
    /// println!("{answer:?}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn request(&self, request: ControlRequest) -> Result<ResponseBody, Error> {
        wait(self.inner.request(request))
    }

    /// Shut the CLI down now and wait until it has exited and been reaped (stdin closed, then
    /// `SIGTERM` after 5 s, `SIGKILL` after 5 s more). Pending requests fail with
    /// [`Error::Closed`].
    ///
    /// ```no_run
    /// # fn example(client: claude_agent_blocking::Client) {
    /// client.close();
    /// assert!(matches!(client.send("hello?"), Err(claude_agent_blocking::Error::Closed)));
    /// # }
    /// ```
    pub fn close(&self) {
        wait(self.inner.close())
    }
}

/// The messages of a [`Client`], as an iterator: from [`Client::receive_messages`] (until stdout
/// ends) or [`Client::receive_response`] (until the next `result`, included). `next` blocks until
/// a message comes; [`Messages::next_timeout`] waits at most a given time.
///
/// ```no_run
/// # use claude_agent_blocking::{Client, Message};
/// # fn example(client: Client) -> Result<(), claude_agent_blocking::Error> {
/// let texts: Vec<String> = client
///     .receive_response()
///     .filter_map(|message| match message {
///         Ok(Message::Result(result)) => result.result,
///         _ => None,
///     })
///     .collect();
/// # Ok(())
/// # }
/// ```
pub struct Messages {
    inner: claude_agent_client::Messages,
}

impl Messages {
    fn new(inner: claude_agent_client::Messages) -> Self {
        Messages { inner }
    }

    /// The next message, waiting at most `timeout` for it: `Ok(None)` at the end, `Err(TimedOut)`
    /// if none came in time. Nothing is lost on a time-out: call again to wait on.
    /// `Duration::ZERO` takes a message that is already there without waiting.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// # use claude_agent_blocking::Client;
    /// # fn example(client: Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let mut reply = client.receive_response();
    /// loop {
    ///     match reply.next_timeout(Duration::from_secs(60)) {
    ///         Ok(Some(message)) => println!("{:?}", message?),
    ///         Ok(None) => break,
    ///         Err(_timed_out) => {
    ///             client.interrupt()?;
    ///         }
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn next_timeout(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<Result<Message, Error>>, TimedOut> {
        next_within(&mut self.inner, timeout)
    }
}

impl Iterator for Messages {
    type Item = Result<Message, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        wait(smol::stream::StreamExt::next(&mut self.inner))
    }
}

impl fmt::Debug for Messages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
