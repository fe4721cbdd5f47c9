//! `Client`: a long-lived session for many turns, with control requests.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_lite::Stream;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::callbacks::mcp_servers::McpServerSet;
use crate::control::{
    AccountInfo, AgentInfo, BackgroundTasksResult, ContextUsageDetail, ControlRequest,
    FileSuggestions, InitializeResponse, InterruptReceipt, McpCall, McpPermissionMode,
    McpPermissionOverrideResult, McpResource, McpSetServersResult, McpStatus, MessageCancelled,
    ModelInfo, ModelList, OutputStyles, ReadFile, ReadFileResult, ReloadPlugins,
    ReloadPluginsResult, ReloadSkillsResult, ResponseBody, RewindFilesResult, SettingsFile,
    SettingsReport, SlashCommand, ThinkingDisplayChange, UsageDetail, UsageReport,
};
use crate::error::Error;
use crate::handles::mcp_call::McpCallAnswer;
use crate::mcp::ToolResult;
use crate::message::{ContextUsage, Message, MessageId, UserInput};
use crate::options::Options;
use crate::permission::PermissionMode;
use crate::persistence::parking_dir::ParkingDir;
use crate::process::runtime::Runtime;
use crate::session::{Termination, VersionCheck};
use crate::task::message_queue::{Command, Shared};
use crate::task::spawn::{spawn_session, Start};
use crate::uuid::new_uuid;
use crate::Json;

/// A connected CLI session for many turns: send user messages, read messages, and steer the
/// session with control requests.
///
/// Cheap to clone; every clone drives the same session and can be used from any task, including
/// from inside a callback (commands go through a queue and never block the session). The CLI is
/// shut down by [`Client::close`], or when the last clone (and every stream made from one) is
/// dropped: stdin is closed, then `SIGTERM` after 5 s, then `SIGKILL` after 5 s more.
///
/// Messages are held in a bounded queue until read: a client whose messages nobody reads stops
/// reading the CLI's output, and with it control responses. Keep a reader going
/// ([`Client::receive_messages`] or [`Client::receive_response`]) while you wait on control requests.
///
/// One type wherever it comes from: [`connect_with`] (the adapters' `connect`), a callback's
/// context ([`HookContext::client`](crate::HookContext::client)) or [`Query::client`](crate::Query::client),
/// whatever the runtime, so a handle from any of them fits the same struct field.
///
/// ```no_run
/// # use claude_agent_tokio::{connect, Error};
/// # use claude_agent_tokio::message::Message;
/// # use claude_agent_tokio::options::Options;
///
/// async fn two_turns() -> Result<(), Error> {
///     let client = connect(Options::new()).await?;
///     for question in ["Pick a number.", "Double it."] {
///         client.send(question).await?;
///         let mut reply = client.receive_response();
///         while let Some(message) = reply.next().await {
///             if let Message::Result(result) = message? {
///                 println!("{}", result.result.unwrap_or_default());
///             }
///         }
///     }
///     client.close().await;
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

/// Start the CLI on `runtime` and wait for it to answer `initialize`, and to connect the
/// in-process MCP servers of the options (it does so just after answering; a few hundred
/// milliseconds for CLI 2.1.330), so that [`Client::mcp_status`] lists them as soon as this
/// returns. The wait for the servers is at most 5 s (or the initialize timeout, if shorter);
/// after that it returns all the same.
///
/// A CLI that refuses the start or exits before answering (a bad flag, a settings file it
/// rejects) gives [`Error::StartFailed`] with its reason and stderr, as soon as it has exited. The adapter crates' `connect(options)` is this with their
/// runtime filled in.
///
/// ```
/// use claude_agent_client::{connect_with, Client, Error, Runtime};
/// use claude_agent_client::options::Options;
///
/// async fn start(runtime: impl Runtime) -> Result<Client, Error> {
///     connect_with(runtime, Options::new().model("sonnet")).await
/// }
/// ```
pub async fn connect_with(runtime: impl Runtime, options: Options) -> Result<Client, Error> {
    Client::connect_parked(runtime, options, None).await
}

impl Client {
    /// [`connect_with`] for a spare: its parking folder goes with the session's driver.
    pub(crate) async fn connect_parked<R: Runtime>(
        runtime: R,
        options: Options,
        parking: Option<ParkingDir>,
    ) -> Result<Self, Error> {
        let (reply, ready) = async_channel::bounded(1);
        let shared = spawn_session(&runtime, &options, Start::Connect(reply), parking);
        let client = Client::from_shared(shared);
        // No answer: the session's task ended without one (it panicked, or the runtime dropped it).
        ready.recv().await.map_err(|_| client.ended())??;
        Ok(client)
    }

    pub(crate) fn from_shared(shared: Arc<Shared>) -> Self {
        Client { shared }
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Send a user message (a `&str`, a `String` or a [`UserInput`]) and return the uuid it went
    /// out with (a [`MessageId`]): the message's own ([`UserInput::with_uuid`]), or else a new random one. The CLI
    /// keeps the message under that uuid, and echoes it as `user_message_uuid`; it is the id
    /// [`Client::rewind_files`] takes.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # use claude_agent_tokio::message::UserInput;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let uuid = client.send("Rename `foo` to `bar` everywhere.").await?;
    /// // … read the turn with `client.receive_response()` …
    /// // Undo the file changes that message led to:
    /// client.rewind_files(&uuid).await?;
    ///
    /// // A uuid of your own is sent as it is:
    /// let mine = client.send(UserInput::text("Now tidy up.").with_uuid("tidy-up-1")).await?;
    /// assert_eq!(mine, "tidy-up-1");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn send(&self, message: impl Into<UserInput>) -> Result<MessageId, Error> {
        let mut message = message.into();
        let uuid = message.uuid.get_or_insert_with(new_uuid).clone();
        let (reply, outcome) = async_channel::bounded(1);
        self.command(Command::Send(message, reply)).await?;
        outcome.recv().await.map_err(|_| self.ended())??;
        Ok(MessageId::new(uuid))
    }

    /// No more user messages: the CLI's stdin is closed once the current run has ended, and the
    /// CLI then exits by itself. Read the remaining messages to see the end.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.send("Write the release notes for 0.2.0 to CHANGELOG.md.").await?;
    /// client.end_input().await?; // this was the last message
    /// // Read to the end: the CLI exits once the turn (and any background task) is done.
    /// let mut rest = client.receive_messages();
    /// while let Some(message) = rest.next().await {
    ///     message?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn end_input(&self) -> Result<(), Error> {
        self.command(Command::EndInput).await
    }

    /// Every message from now on, until the CLI's stdout ends.
    ///
    /// ```no_run
    /// use claude_agent_tokio::message::Message;
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// // Everything the session prints, for as long as it runs, in a task of its own:
    /// let mut all = client.receive_messages();
    /// while let Some(message) = all.next().await {
    ///     match message? {
    ///         Message::Assistant(reply) => println!("{:?}", reply.message.content),
    ///         Message::Result(result) => println!("turn done: {}", result.result.unwrap_or_default()),
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn receive_messages(&self) -> Messages {
        Messages {
            shared: self.shared.clone(),
            until_result: false,
            done: false,
        }
    }

    /// Messages up to and including the next `result` (the end of the current turn).
    pub fn receive_response(&self) -> Messages {
        Messages {
            shared: self.shared.clone(),
            until_result: true,
            done: false,
        }
    }

    /// Stop the current turn. The CLI then ends the turn with an error `result`.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.send("Refactor the whole crate.").await?;
    /// // … the user changes their mind:
    /// let receipt = client.interrupt().await?;
    /// for uuid in &receipt.still_queued {
    ///     println!("{uuid} still queued");
    /// }
    /// // The turn ends with an error result; read it before the next `send`.
    /// let mut turn = client.receive_response();
    /// while let Some(message) = turn.next().await {
    ///     message?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn interrupt(&self) -> Result<InterruptReceipt, Error> {
        self.typed(ControlRequest::Interrupt).await
    }

    /// [`interrupt`](Client::interrupt), and cancel the user messages still queued behind the
    /// turn: they are listed in the receipt's [`cancelled`](InterruptReceipt::cancelled), and
    /// will not run. (A note the CLI queued itself as context may stay.) A CLI without the
    /// `interrupt_cancel_queued_v1` capability takes it as a plain interrupt.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// // The user pressed Escape twice: stop, and forget what they typed ahead.
    /// let receipt = client.interrupt_and_cancel_queued().await?;
    /// println!("{} queued messages dropped", receipt.cancelled.len());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn interrupt_and_cancel_queued(&self) -> Result<InterruptReceipt, Error> {
        self.typed(ControlRequest::InterruptAndCancelQueued).await
    }

    /// Drop a user message still waiting in the CLI's queue (sent with a
    /// [`UserInput::with_uuid`], or the uuid [`Client::send`] returned), before any turn reads
    /// it; too late, [`MessageCancelled::cancelled`] is `false`.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let queued = client.send("Also update the changelog.").await?;
    /// // … the user deletes that message from the input queue:
    /// if !client.cancel_message(&queued).await?.cancelled {
    ///     println!("too late: the agent has read it");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn cancel_message(&self, uuid: impl Into<String>) -> Result<MessageCancelled, Error> {
        let request = ControlRequest::CancelAsyncMessage {
            message_uuid: uuid.into(),
        };
        self.typed(request).await
    }

    /// The models the session can run now, as the CLI's provider, settings and policy decide
    /// (disabled ones included): asked of the CLI, where
    /// [`supported_models`](Client::supported_models) is what it said at the start.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// for model in client.list_models().await? {
    ///     println!("{}: {}", model.value, model.display_name);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_models(&self) -> Result<Vec<ModelInfo>, Error> {
        let list: ModelList = self.typed(ControlRequest::ListModels).await?;
        Ok(list.models)
    }

    /// The settings in effect in the session, each source's own (user, project, local, flag,
    /// policy), what the next message will use, and the files that did not parse.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let settings = client.settings().await?;
    /// for error in &settings.errors {
    ///     eprintln!("{:?}: {} ({})", error.file, error.message, error.path);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn settings(&self) -> Result<SettingsReport, Error> {
        self.typed(ControlRequest::GetSettings).await
    }

    /// The files an `@`-mention of `query` offers, as the CLI's own prompt offers them.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let found = client.file_suggestions("src/ma").await?;
    /// for suggestion in &found.suggestions {
    ///     println!("@{}", suggestion.path);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn file_suggestions(&self, query: &str) -> Result<FileSuggestions, Error> {
        let request = ControlRequest::FileSuggestions {
            query: query.to_owned(),
        };
        self.typed(request).await
    }

    /// Use another model from the next turn on; `None` goes back to the default.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.set_model(Some("haiku")).await?; // cheap turns for the chores
    /// client.send("Fix the typos in README.md.").await?;
    /// // …
    /// client.set_model(None).await?; // back to the default model
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_model(&self, model: Option<&str>) -> Result<(), Error> {
        self.request(ControlRequest::SetModel {
            model: model.map(str::to_owned),
        })
        .await
        .map(drop)
    }

    /// Change the permission mode, and learn the mode now in effect, which is not always the
    /// one asked for (a policy may hold another): keep the answer, not the argument. `None`
    /// when the CLI named no mode.
    ///
    /// ```no_run
    /// use claude_agent_tokio::permission::PermissionMode;
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// // The plan was approved: let the agent edit files without asking.
    /// let now = client.set_permission_mode(PermissionMode::AcceptEdits).await?;
    /// if now != Some(PermissionMode::AcceptEdits) {
    ///     eprintln!("the CLI kept {now:?}");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_permission_mode(
        &self,
        mode: PermissionMode,
    ) -> Result<Option<PermissionMode>, Error> {
        let answer: PermissionModeSet = self
            .typed(ControlRequest::SetPermissionMode { mode })
            .await?;
        Ok(answer.mode)
    }

    /// Change the extended-thinking budget (`None` clears it), and the thinking display: kept
    /// with [`ThinkingDisplayChange::Keep`], reset to the CLI's default with
    /// [`ThinkingDisplayChange::Reset`], or set with a
    /// [`ThinkingDisplay`](crate::options::ThinkingDisplay).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// use claude_agent_tokio::control::ThinkingDisplayChange;
    /// use claude_agent_tokio::options::ThinkingDisplay;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.set_max_thinking_tokens(Some(8_000), ThinkingDisplay::Summarized).await?;
    /// client.set_max_thinking_tokens(None, ThinkingDisplayChange::Keep).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_max_thinking_tokens(
        &self,
        tokens: Option<u64>,
        display: impl Into<ThinkingDisplayChange>,
    ) -> Result<(), Error> {
        let request = ControlRequest::SetMaxThinkingTokens {
            max_thinking_tokens: tokens,
            thinking_display: display.into(),
        };
        self.request(request).await.map(drop)
    }

    /// Undo file changes made after the user message `user_message_id` (needs
    /// `Options::enable_file_checkpointing`). The id is the uuid [`Client::send`] returned for
    /// that message. [`Client::preview_rewind_files`] says what would change, without changing
    /// it.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{connect, Error};
    /// # use claude_agent_tokio::options::Options;
    ///
    /// async fn try_and_undo() -> Result<(), Error> {
    ///     let options = Options::new().enable_file_checkpointing(true);
    ///     let client = connect(options).await?;
    ///     let uuid = client.send("Add a CHANGELOG.md.").await?;
    ///     let mut turn = client.receive_response();
    ///     while let Some(message) = turn.next().await {
    ///         message?;
    ///     }
    ///     let preview = client.preview_rewind_files(&uuid).await?;
    ///     if preview.can_rewind {
    ///         client.rewind_files(&uuid).await?;
    ///     }
    ///     client.close().await;
    ///     Ok(())
    /// }
    /// ```
    pub async fn rewind_files(
        &self,
        user_message_id: impl Into<String>,
    ) -> Result<RewindFilesResult, Error> {
        self.typed(ControlRequest::RewindFiles {
            user_message_id: user_message_id.into(),
            dry_run: false,
        })
        .await
    }

    /// What [`Client::rewind_files`] would undo for `user_message_id`, without undoing it
    /// (the CLI's dry run): whether it can, and the files it would change.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client, uuid: String) -> Result<(), Error> {
    /// let preview = client.preview_rewind_files(&uuid).await?;
    /// println!("{preview:?}");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn preview_rewind_files(
        &self,
        user_message_id: impl Into<String>,
    ) -> Result<RewindFilesResult, Error> {
        self.typed(ControlRequest::RewindFiles {
            user_message_id: user_message_id.into(),
            dry_run: true,
        })
        .await
    }

    /// The state of every MCP server.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let status = client.mcp_status().await?;
    /// for server in &status.mcp_servers {
    ///     println!("{}: {}", server.name, server.status);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn mcp_status(&self) -> Result<McpStatus, Error> {
        self.typed(ControlRequest::McpStatus).await
    }

    /// Call a tool of an MCP server the CLI runs (stdio, HTTP, SSE, a plugin's) with no model
    /// turn, and get its result; the conversation does not see it. [`McpCall`] says which tool
    /// and how: whether a tool error is a result or a failed call, whether the content stays as
    /// the server sent it, whether the call goes through the session's permission checks.
    ///
    /// A call the CLI could not make (no such server or tool, a server not connected, a refused
    /// permission) fails with [`Error::ControlRefused`] and the CLI's words, as does a tool
    /// error unless [`McpCall::soft_error_result`](struct@McpCall#structfield.soft_error_result)
    /// is set.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// use claude_agent_tokio::control::McpCall;
    /// use serde_json::json;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let call = McpCall::new("github", "search_issues", json!({"query": "crash"})).soft_error_result(true);
    /// let result = client.mcp_call(call).await?;
    /// if result.is_error {
    ///     eprintln!("the tool failed: {:?}", result.content);
    /// } else if let Some(found) = result.structured_content {
    ///     println!("{found}");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn mcp_call(&self, call: McpCall) -> Result<ToolResult, Error> {
        let answer: McpCallAnswer = self.typed(ControlRequest::McpCall(call)).await?;
        Ok(answer.into())
    }

    /// Reconnect the MCP server `name`.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let status = client.mcp_status().await?;
    /// for server in status.mcp_servers.iter().filter(|s| s.status == "failed") {
    ///     client.reconnect_mcp_server(&server.name).await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reconnect_mcp_server(&self, name: impl Into<String>) -> Result<(), Error> {
        self.request(ControlRequest::McpReconnect {
            server_name: name.into(),
        })
        .await
        .map(drop)
    }

    /// Disable the MCP server `name`: its tools disappear until [`Client::enable_mcp_server`].
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.disable_mcp_server("github").await?; // its tools disappear for now
    /// // …
    /// client.enable_mcp_server("github").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn disable_mcp_server(&self, name: impl Into<String>) -> Result<(), Error> {
        self.request(ControlRequest::McpToggle {
            server_name: name.into(),
            enabled: false,
        })
        .await
        .map(drop)
    }

    /// Enable the MCP server `name` again after [`Client::disable_mcp_server`].
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.enable_mcp_server("github").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn enable_mcp_server(&self, name: impl Into<String>) -> Result<(), Error> {
        self.request(ControlRequest::McpToggle {
            server_name: name.into(),
            enabled: true,
        })
        .await
        .map(drop)
    }

    /// Replace the MCP servers added since the CLI started, and the in-process servers (those of
    /// the options included), with `servers`: the CLI drops the ones left out and connects the
    /// new ones, and the session serves the new in-process ones from now on (see
    /// [`McpServerSet`]). The answer names the servers added and removed, and any the CLI
    /// refused. A new server may still be connecting when this returns; [`Client::mcp_status`]
    /// says when it is `connected`.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{mcp::tool, Client, Error, mcp::McpServerSet, mcp::SdkMcpServer};
    /// # use claude_agent_tokio::mcp::ToolResult;
    /// # async fn example(client: Client, calc: SdkMcpServer) -> Result<(), Error> {
    /// let clock = SdkMcpServer::new("clock", "1.0.0").tool(tool(
    ///     "now",
    ///     "The time",
    ///     serde_json::json!({"type": "object"}),
    ///     |_args| async { Ok::<_, String>(ToolResult::text("12:00")) },
    /// ));
    /// // Keep `calc` (already served), add `clock`.
    /// let outcome = client.set_mcp_servers(McpServerSet::new().sdk(calc).sdk(clock)).await?;
    /// assert_eq!(outcome.added, ["clock"]);
    /// // Drop every in-process and added server.
    /// client.set_mcp_servers(McpServerSet::new()).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_mcp_servers(
        &self,
        servers: McpServerSet,
    ) -> Result<McpSetServersResult, Error> {
        let (reply, outcome) = async_channel::bounded(1);
        self.command(Command::SetMcpServers(servers, reply)).await?;
        let body = outcome.recv().await.map_err(|_| self.ended())??;
        body.parse().map_err(Error::Response)
    }

    /// Stop the background task `task_id`.
    ///
    /// ```no_run
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// // Stop background shells (a dev server, a watcher) as soon as they start.
    /// let mut messages = client.receive_messages();
    /// while let Some(message) = messages.next().await {
    ///     if let Message::System(SystemMessage::TaskStarted(task)) = message? {
    ///         if task.task_type.as_deref() == Some("local_bash") {
    ///             client.stop_task(&task.task_id).await?;
    ///         }
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn stop_task(&self, task_id: impl Into<String>) -> Result<(), Error> {
        self.request(ControlRequest::StopTask {
            task_id: task_id.into(),
        })
        .await
        .map(drop)
    }

    /// How the context window is used: [`ContextUsageDetail::Full`] counts each category with
    /// the token-count API (the CLI's default), [`ContextUsageDetail::Summary`] estimates from
    /// the last response.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// use claude_agent_tokio::control::ContextUsageDetail;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let usage = client.context_usage(ContextUsageDetail::Summary).await?;
    /// for category in &usage.categories {
    ///     println!("{}: {} tokens", category.name, category.tokens);
    /// }
    /// println!("{} of {} tokens", usage.total_tokens, usage.max_tokens);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn context_usage(&self, detail: ContextUsageDetail) -> Result<ContextUsage, Error> {
        // The CLI's default is the full count: ask for it as it is asked for by default.
        let detail = Some(detail).filter(|detail| *detail != ContextUsageDetail::Full);
        self.typed(ControlRequest::GetContextUsage { detail }).await
    }

    /// Send `initialize` again, as the session first sent it, and get the CLI's fresh answer.
    /// The CLI redelivers the permission prompts and dialogs it is still waiting on with its
    /// answer, and they reach the callbacks again (a prompt still open in this session is not
    /// asked twice). [`Client::server_info`] keeps the first answer.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let fresh = client.reinitialize().await?;
    /// println!("{} commands", fresh.commands.len());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reinitialize(&self) -> Result<InitializeResponse, Error> {
        self.typed(ControlRequest::Reinitialize).await
    }

    /// Merge `settings` (a JSON object) into the session's flag-settings layer, the one
    /// `Options::settings` fills: each top-level key replaces the earlier value, and a `null`
    /// removes it. The CLI refuses the whole call when a value would make it drop that layer;
    /// the settings of earlier calls stay then.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let settings = serde_json::json!({
    ///     "model": "claude-sonnet-4-5",
    ///     "permissions": {"deny": ["Bash(rm:*)"]},
    /// });
    /// client.apply_flag_settings(&settings).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn apply_flag_settings(&self, settings: &impl Serialize) -> Result<(), Error> {
        let settings = Json::from_serialize(settings).map_err(Error::Response)?;
        self.request(ControlRequest::ApplyFlagSettings { settings })
            .await
            .map(drop)
    }

    /// Write `settings` (a JSON object of string values) into a settings file the way `/config`
    /// does, and apply them. The CLI takes only some keys: `outputStyle` in
    /// [`SettingsFile::Local`], `effortLevel` in [`SettingsFile::User`]; it refuses others.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// use claude_agent_tokio::control::SettingsFile;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let style = serde_json::json!({"outputStyle": "Explanatory"});
    /// client.update_settings(SettingsFile::Local, &style).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_settings(
        &self,
        file: SettingsFile,
        settings: &impl Serialize,
    ) -> Result<(), Error> {
        let settings = Json::from_serialize(settings).map_err(Error::Response)?;
        self.request(ControlRequest::UpdateSettings {
            source: file,
            settings,
        })
        .await
        .map(drop)
    }

    /// Reload plugins from disk and get the session's commands, agents, plugins and MCP servers
    /// afterwards. [`ReloadPlugins`] can add plugins, hold back a reload that would change the
    /// tools under the prompt cache, or refuse while the session is busy (then the call fails
    /// with [`Error::ControlRefused`] and the code `reload_plugins_busy`).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// use claude_agent_tokio::control::ReloadPlugins;
    /// use claude_agent_tokio::options::PluginConfig;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let reload = ReloadPlugins::new().add_plugin(PluginConfig::local("/srv/plugins/review"));
    /// let reloaded = client.reload_plugins(reload).await?;
    /// println!("{} plugins, {} failed", reloaded.plugins.len(), reloaded.error_count);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_plugins(
        &self,
        reload: ReloadPlugins,
    ) -> Result<ReloadPluginsResult, Error> {
        self.typed(ControlRequest::ReloadPlugins(reload)).await
    }

    /// Reload skills from disk and get the refreshed list.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// for skill in client.reload_skills().await?.skills {
    ///     println!("{}: {}", skill.name, skill.description);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_skills(&self) -> Result<ReloadSkillsResult, Error> {
        self.typed(ControlRequest::ReloadSkills).await
    }

    /// Read the output-style directories again (a style written during the session is otherwise
    /// not seen) and get every style's name.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let styles = client.reload_output_styles().await?;
    /// println!("{:?}", styles.available_output_styles);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn reload_output_styles(&self) -> Result<OutputStyles, Error> {
        self.typed(ControlRequest::ReloadOutputStyles).await
    }

    /// Read a `ui://` resource (an MCP Apps widget) of the MCP server `server`, one the CLI
    /// connected itself. The contents come from a third party: render them sandboxed.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let widget = client.read_mcp_resource("charts", "ui://charts/bar").await?;
    /// for part in widget.contents {
    ///     println!("{} {:?}", part.uri, part.mime_type);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_mcp_resource(
        &self,
        server: impl Into<String>,
        uri: impl Into<String>,
    ) -> Result<McpResource, Error> {
        self.typed(ControlRequest::McpReadResource {
            server_name: server.into(),
            uri: uri.into(),
        })
        .await
    }

    /// Read a file of the session (relative to its working directory, or absolute), under the
    /// Read tool's permission rules. A file that may not be read, or does not exist, is
    /// [`Error::ControlRefused`] (`read denied: <path>`).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// use claude_agent_tokio::control::ReadFile;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let notes = client.read_file(ReadFile::new("NOTES.md")).await?;
    /// println!("{}", notes.contents);
    /// let logo = client.read_file(ReadFile::new("logo.png").base64()).await?;
    /// assert!(logo.is_base64());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_file(&self, file: ReadFile) -> Result<ReadFileResult, Error> {
        self.typed(ControlRequest::ReadFile(file)).await
    }

    /// Tell the CLI that `path` was read when it had the modification time `mtime`, so that an
    /// Edit of it needs no fresh Read (after the Read fell out of the context). If the file
    /// changed since, the CLI ignores this and an Edit still needs a Read.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let mtime = std::fs::metadata("src/main.rs").and_then(|m| m.modified()).expect("a file");
    /// client.seed_read_state("src/main.rs", mtime).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn seed_read_state(
        &self,
        path: impl Into<String>,
        mtime: std::time::SystemTime,
    ) -> Result<(), Error> {
        let millis = mtime
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            });
        self.request(ControlRequest::SeedReadState {
            path: path.into(),
            mtime: millis,
        })
        .await
        .map(drop)
    }

    /// Move every running foreground task (Bash commands, subagents) to the background, as
    /// Ctrl+B does. Each blocked tool call returns at once and the turn goes on; each task
    /// reports with a `task_notification` when it ends.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.background_tasks().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn background_tasks(&self) -> Result<(), Error> {
        let _: BackgroundTasksResult = self
            .typed(ControlRequest::BackgroundTasks { tool_use_id: None })
            .await?;
        Ok(())
    }

    /// Move the foreground task started by the tool use `tool_use_id` to the background (see
    /// [`Client::background_tasks`]). `false` when no foreground task of that tool use runs.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// if !client.background_task("toolu_01").await? {
    ///     println!("that command had already finished");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn background_task(&self, tool_use_id: impl Into<String>) -> Result<bool, Error> {
        let result: BackgroundTasksResult = self
            .typed(ControlRequest::BackgroundTasks {
                tool_use_id: Some(tool_use_id.into()),
            })
            .await?;
        Ok(result.backgrounded)
    }

    /// Pin the permission mode of the MCP server `server`'s tools, or clear it with `None`. It
    /// only tightens: it applies where the session's mode would allow the tool without asking.
    /// The override is stored even for a server not connected yet; the answer's `warning` says
    /// so.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// use claude_agent_tokio::control::McpPermissionMode;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// let outcome = client
    ///     .set_mcp_permission_mode_override("github", Some(McpPermissionMode::Default))
    ///     .await?;
    /// if let Some(warning) = outcome.warning {
    ///     eprintln!("{warning}");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_mcp_permission_mode_override(
        &self,
        server: impl Into<String>,
        mode: Option<McpPermissionMode>,
    ) -> Result<McpPermissionOverrideResult, Error> {
        self.typed(ControlRequest::SetMcpPermissionModeOverride {
            server_name: server.into(),
            mode,
        })
        .await
    }

    /// The data behind `/usage`: the session's cost and totals, and the plan's rate-limit
    /// windows where they apply. [`UsageDetail::WithoutBehaviors`] leaves out the scan of local
    /// transcripts that fills [`UsageReport::behaviors`]. The TypeScript SDK marks this call
    /// experimental: the CLI may change its answer.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// use claude_agent_tokio::control::UsageDetail;
    /// let usage = client.usage(UsageDetail::WithoutBehaviors).await?;
    /// println!("${:.4} so far", usage.session.total_cost_usd);
    /// if let Some(five_hour) = usage.rate_limits.and_then(|limits| limits.five_hour) {
    ///     println!("5-hour window: {:?}% used", five_hour.utilization);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn usage(&self, detail: UsageDetail) -> Result<UsageReport, Error> {
        let skip_behaviors = detail == UsageDetail::WithoutBehaviors;
        self.typed(ControlRequest::GetUsage { skip_behaviors })
            .await
    }

    /// The CLI's processes (it and every descendant: tools, MCP servers) and their resident
    /// memory, read now from `/proc`. `None` off Linux, for a CLI reached through a transport,
    /// and once it has exited.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::Client;
    /// # fn example(client: Client) {
    /// if let Some(tree) = client.resources() {
    ///     println!("{} processes, {} MiB", tree.pids.len(), tree.resident_bytes >> 20);
    /// }
    /// # }
    /// ```
    pub fn resources(&self) -> Option<crate::ProcessTree> {
        crate::process_tree(self.shared.link.process_id()?)
    }

    /// What the CLI said in answer to `initialize`: commands, models, agents, account, its
    /// version, and every other field it sent ([`InitializeResponse::other`]). `None` only
    /// before the answer came (a client taken from a callback can see that).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::Client;
    /// # fn example(client: Client) {
    /// if let Some(info) = client.server_info() {
    ///     println!("CLI {:?}, pid {:?}", info.claude_code_version, info.pid);
    ///     println!("permission mode: {:?}", info.other.get("current_permission_mode"));
    /// }
    /// # }
    /// ```
    pub fn server_info(&self) -> Option<Arc<InitializeResponse>> {
        self.shared.link.server_info()
    }

    /// The CLI's version and whether this SDK supports it ([`VersionCheck`]), from the CLI's
    /// answer to `initialize` (so as soon as `connect` returns), or from the first turn's
    /// `system/init` for a CLI that does not say it there. `None` before that, and when the
    /// check is turned off by `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK`. A CLI older than
    /// [`CliVersion::MINIMUM`](crate::session::CliVersion::MINIMUM) is also reported as a
    /// `tracing` warning, with the `tracing` feature.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{connect, Error};
    /// # use claude_agent_tokio::options::Options;
    /// use claude_agent_tokio::session::{CliVersion, VersionCheck};
    ///
    /// async fn check() -> Result<(), Error> {
    ///     let client = connect(Options::new()).await?;
    ///     if let Some(VersionCheck::TooOld(version)) = client.version_check() {
    ///         eprintln!("Claude Code {version} is too old; {} or later is needed", CliVersion::MINIMUM);
    ///     }
    ///     Ok(())
    /// }
    /// ```
    pub fn version_check(&self) -> Option<VersionCheck> {
        self.shared.link.version_check()
    }

    /// The slash commands and skills the CLI offers (from its `initialize` answer).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::Client;
    /// # fn example(client: Client) {
    /// let names: Vec<String> = client.supported_commands().into_iter().map(|c| c.name).collect();
    /// # let _ = names;
    /// # }
    /// ```
    pub fn supported_commands(&self) -> Vec<SlashCommand> {
        self.server_info()
            .map(|info| info.commands.clone())
            .unwrap_or_default()
    }

    /// The models the account can use (from the CLI's `initialize` answer).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::Client;
    /// # fn example(client: Client) {
    /// for model in client.supported_models() {
    ///     println!("{}: {}", model.value, model.display_name);
    /// }
    /// # }
    /// ```
    pub fn supported_models(&self) -> Vec<ModelInfo> {
        self.server_info()
            .map(|info| info.models.clone())
            .unwrap_or_default()
    }

    /// The subagents the session knows (from the CLI's `initialize` answer).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::Client;
    /// # fn example(client: Client) {
    /// let reviewers = client.supported_agents().iter().filter(|a| a.name.contains("review")).count();
    /// # let _ = reviewers;
    /// # }
    /// ```
    pub fn supported_agents(&self) -> Vec<AgentInfo> {
        self.server_info()
            .map(|info| info.agents.clone())
            .unwrap_or_default()
    }

    /// The account the CLI runs as (from its `initialize` answer).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::Client;
    /// # fn example(client: Client) {
    /// if let Some(account) = client.account_info() {
    ///     println!("{:?} via {:?}", account.email, account.api_key_source);
    /// }
    /// # }
    /// ```
    pub fn account_info(&self) -> Option<AccountInfo> {
        self.server_info().and_then(|info| info.account.clone())
    }

    /// Send any control request and get its raw answer.
    ///
    /// ```no_run
    /// use claude_agent_tokio::control::{ContextUsageDetail, ControlRequest};
    /// use claude_agent_tokio::message::ContextUsage;
    /// # use claude_agent_tokio::{Client, Error};
    /// # async fn example(client: Client) -> Result<(), Box<dyn std::error::Error>> {
    /// // A request with fields no method sets: the full context breakdown.
    /// let body = client.request(ControlRequest::GetContextUsage { detail: Some(ContextUsageDetail::Full) }).await?;
    /// let usage: ContextUsage = body.parse()?;
    /// println!("{} categories", usage.categories.len());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn request(&self, request: ControlRequest) -> Result<ResponseBody, Error> {
        let (reply, outcome) = async_channel::bounded(1);
        self.command(Command::Request(request, reply)).await?;
        outcome.recv().await.map_err(|_| self.ended())?
    }

    /// Shut the CLI down now and wait until it has exited and been reaped (stdin closed, then
    /// `SIGTERM` after 5 s, `SIGKILL` after 5 s more). Pending requests fail with
    /// [`Error::Closed`]. Messages the application has not read stay readable, but the
    /// session does not wait for them to be read; a session still waiting for its fleet's
    /// place (a [`Query`](crate::Query)'s client) gives its place up and starts no CLI.
    pub async fn close(&self) {
        self.shared.link.ask_close();
        let _ = self.command(Command::Close).await;
        // The driver never sends on this channel; it closes it when it ends.
        let _ = self.shared.done.recv().await;
    }

    async fn typed<T: DeserializeOwned>(&self, request: ControlRequest) -> Result<T, Error> {
        self.request(request)
            .await?
            .parse()
            .map_err(Error::Response)
    }

    /// Why a session whose task ended gave no answer: [`Error::Panicked`] if it panicked, the
    /// reason it closed itself for (a budget spent, its fleet place lost, a stall), as its
    /// stream said it, else [`Error::Closed`].
    fn ended(&self) -> Error {
        let link = &self.shared.link;
        if let Some(message) = link.panic_message() {
            return Error::Panicked(message);
        }
        link.closed_itself_because()
            .and_then(|reason| Error::of_termination(&Termination::Ended(reason), String::new))
            .unwrap_or(Error::Closed)
    }

    /// Hand `command` to the session's task; once the task has ended, say why. A command whose
    /// reply the task dropped unanswered (it ended with the command still queued) says the
    /// same, where its caller reads the reply.
    async fn command(&self, command: Command) -> Result<(), Error> {
        self.shared
            .commands
            .send(command)
            .await
            .map_err(|_| self.ended())
    }
}

/// The answer to `set_permission_mode`.
#[derive(serde::Deserialize)]
struct PermissionModeSet {
    #[serde(default)]
    mode: Option<PermissionMode>,
}

/// A stream of a [`Client`]'s messages: from [`Client::receive_messages`] (until stdout ends) or
/// [`Client::receive_response`] (until the next `result`, included).
///
/// ```no_run
/// # use claude_agent_tokio::{Client, Error, Messages};
/// use claude_agent_tokio::message::{ContentBlock, Message};
///
/// /// The text of one turn's reply.
/// async fn reply_text(mut turn: Messages) -> Result<String, Error> {
///     let mut text = String::new();
///     while let Some(message) = turn.next().await {
///         if let Message::Assistant(reply) = message? {
///             for block in &reply.message.content {
///                 if let ContentBlock::Text(t) = block {
///                     text.push_str(&t.text);
///                 }
///             }
///         }
///     }
///     Ok(text)
/// }
/// # async fn example(client: Client) -> Result<(), Error> {
/// client.send("Name three sorting algorithms.").await?;
/// println!("{}", reply_text(client.receive_response()).await?);
/// # Ok(())
/// # }
/// ```
pub struct Messages {
    shared: Arc<Shared>,
    until_result: bool,
    done: bool,
}

impl Messages {
    /// The next message; `None` when the stream has ended. The same as `StreamExt::next` of
    /// `futures-lite` or `futures`, with no trait to import (and none to clash with another).
    ///
    /// ```no_run
    /// # use claude_agent_tokio::{Client, Error};
    /// # use claude_agent_tokio::message::Message;
    /// # async fn example(client: Client) -> Result<(), Error> {
    /// client.send("Hello!").await?;
    /// let mut reply = client.receive_response();
    /// while let Some(message) = reply.next().await {
    ///     if let Message::Result(result) = message? {
    ///         println!("{}", result.result.unwrap_or_default());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn next(&mut self) -> Option<Result<Message, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for Messages {
    type Item = Result<Message, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        let item = std::task::ready!(self.shared.link.poll_pop(cx));
        match &item {
            Some(Ok(message)) if self.until_result && is_result(message) => self.done = true,
            None => self.done = true,
            _ => {}
        }
        Poll::Ready(item)
    }
}

impl fmt::Debug for Messages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Messages")
            .field("until_result", &self.until_result)
            .finish_non_exhaustive()
    }
}

fn is_result(message: &Message) -> bool {
    matches!(message, Message::Result(_))
}
