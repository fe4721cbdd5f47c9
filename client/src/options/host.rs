//! The builder methods of [`Options`] that set host values: callbacks, session store, fleet.
//! Each stores its value among the options' host values, from which the session's
//! declarations are derived (so `initialize` tells the CLI).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_lite::future::Boxed;

use crate::callbacks::handlers::{
    ElicitationContext, HookContext, HookFn, HostId, PermissionContext, UserDialogContext,
    UserDialogFn,
};
use crate::callbacks::sdk_mcp::SdkMcpServer;
use crate::control::{UserDialogRequest, UserDialogResult};
use crate::hooks::{EventInput, HookEvent, HookInput, HookMatcher, HookOutput};
use crate::mcp::{ElicitationRequest, ElicitationResult};
#[cfg(doc)]
use crate::options::SessionStart;
use crate::options::{HostDeclarations, Options};
use crate::permission::{PermissionRequest, PermissionResult};
use crate::session::HookMatcherConfig;
use crate::store::flush::StoreFlush;
use crate::store::SessionStore;

impl Options {
    /// Which of the CLI's requests the callbacks registered on these options answer, and what
    /// the session store needs printed: what a session started from them declares to the CLI.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookOutput, PreToolUseInput};
    /// use claude_agent_tokio::options::Options;
    /// use claude_agent_tokio::permission::PermissionResult;
    ///
    /// let options = Options::new()
    ///     .on_permission_request(|_request, _ctx| async { PermissionResult::allow() })
    ///     .on_hook("Bash", |_input: PreToolUseInput, _ctx| async { HookOutput::default() });
    /// let host = options.get_host_declarations();
    /// assert!(host.can_use_tool && !host.elicitation);
    /// assert_eq!(host.hooks[0].matcher.as_deref(), Some("Bash"));
    /// ```
    pub fn get_host_declarations(&self) -> HostDeclarations {
        self.handlers().declarations()
    }

    /// Which host values (callbacks, session store, transport, recording, fleet) these options
    /// hold, as a [`HostId`]: what a [`SparePool`](crate::SparePool) tells option sets
    /// apart by, besides their settings.
    ///
    /// ```
    /// use claude_agent_tokio::HostId;
    /// use claude_agent_tokio::options::Options;
    ///
    /// let host = Options::new().on_stderr(|line| eprintln!("{line}"));
    /// assert_ne!(host.get_host_id(), HostId::NONE);
    /// assert_eq!(host.clone().get_host_id(), host.get_host_id());
    /// ```
    pub fn get_host_id(&self) -> HostId {
        self.handlers().id
    }

    /// Mirror the session's transcript to `store`, and resume from it: the CLI prints every
    /// batch of transcript lines it writes (`--session-mirror`), and they are appended to the
    /// store once per turn, before the turn's result reaches you (see
    /// [`Options::session_store_flush`]). With a [`SessionStart::Resume`] or
    /// [`SessionStart::Continue`] start, the session is loaded from the store before the CLI
    /// starts, into a temporary configuration directory (`CLAUDE_CONFIG_DIR`) that is removed
    /// when the session ends; the machine that resumes needs nothing on its disk.
    ///
    /// A store that fails does not end the session: a
    /// [`SystemMessage::MirrorError`](crate::message::SystemMessage::MirrorError) comes in the
    /// message stream, and the lines it missed are kept (up to 2,000 lines or 4 MiB) and tried
    /// again ahead of the next turn's and at the end of the session. A store that fails while resuming fails the start
    /// ([`Error::Resume`](crate::Error::Resume)).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use claude_agent_tokio::options::{Options, Resume, SessionStart};
    /// use claude_agent_tokio::store::InMemorySessionStore;
    ///
    /// let store = Arc::new(InMemorySessionStore::new());
    /// let first = Options::new().cwd("/srv/app").session_store(store.clone());
    /// // … later, on any machine with the same store and working directory:
    /// let again = Options::new()
    ///     .cwd("/srv/app")
    ///     .session_store(store.clone())
    ///     .session_start(SessionStart::resume("46eb1b6d-8361-4d7c-a347-8234db4a9d65"));
    /// let spec = first.config().launch_spec("claude".into(), &first.get_host_declarations())?;
    /// assert!(spec.args.contains(&"--session-mirror".to_owned()));
    /// # let _ = again;
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn session_store(mut self, store: impl SessionStore + 'static) -> Self {
        self.handlers_mut().session_store = Some(Arc::new(store));
        self
    }

    /// Count the session in a [`Fleet`](crate::Fleet), under a key: it waits for a place
    /// when the fleet's session limit is reached, its turns' costs go to the key, and the key's
    /// budget can end it.
    ///
    /// ```
    /// use claude_agent_tokio::{Fleet, FleetLimits};
    /// use claude_agent_tokio::options::Options;
    ///
    /// let fleet = Fleet::new(FleetLimits { max_sessions: Some(4), ..FleetLimits::default() })?;
    /// let options = Options::new().fleet(fleet.member("tenant-42"));
    /// # let _ = options;
    /// # Ok::<(), claude_agent_tokio::FleetLimitsError>(())
    /// ```
    pub fn fleet(mut self, member: crate::FleetMember) -> Self {
        self.handlers_mut().fleet = Some(member);
        self
    }

    /// When mirrored lines are written to the session store: [`StoreFlush::Batched`] (once per
    /// turn, and whenever 500 entries or 1 MiB wait; the default) or [`StoreFlush::Eager`] (as
    /// soon as the CLI prints them).
    ///
    /// ```
    /// use claude_agent_tokio::StoreFlush;
    /// use claude_agent_tokio::options::Options;
    /// use claude_agent_tokio::store::FileSessionStore;
    ///
    /// let options = Options::new()
    ///     .session_store(FileSessionStore::new("/srv/agent-sessions"))
    ///     .session_store_flush(StoreFlush::Eager);
    /// # let _ = options;
    /// ```
    pub fn session_store_flush(mut self, flush: StoreFlush) -> Self {
        self.handlers_mut().store_flush = flush;
        self
    }

    /// How long each store call may take while a session is resumed from the store (default
    /// 60 s); past it, the start fails with [`Error::Resume`](crate::Error::Resume).
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::options::Options;
    /// use claude_agent_tokio::store::InMemorySessionStore;
    ///
    /// let options = Options::new()
    ///     .session_store(InMemorySessionStore::new())
    ///     .session_store_load_timeout(Duration::from_secs(10));
    /// # let _ = options;
    /// ```
    pub fn session_store_load_timeout(mut self, timeout: Duration) -> Self {
        self.handlers_mut().store_load_timeout = Some(timeout);
        self
    }

    /// Decide tool permission prompts with an async callback (the CLI's `can_use_tool`).
    ///
    /// The options hold one permission callback: a second call replaces the first, so combine
    /// policies inside one callback. (Hooks add up instead: each `on_hook` registers one more.)
    ///
    /// ```
    /// # use claude_agent_tokio::options::Options;
    /// # use claude_agent_tokio::permission::PermissionResult;
    /// let options = Options::default().on_permission_request(|request, _ctx| async move {
    ///     if request.tool_name == "Bash" {
    ///         PermissionResult::deny("no shell here")
    ///     } else {
    ///         PermissionResult::allow()
    ///     }
    /// });
    /// # let _ = options;
    /// ```
    #[doc(alias = "can_use_tool")]
    pub fn on_permission_request<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(PermissionRequest, PermissionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = PermissionResult> + Send + 'static,
    {
        self.handlers_mut().can_use_tool = Some(Arc::new(move |request, ctx| -> Boxed<_> {
            Box::pin(callback(request, ctx))
        }));
        self
    }

    /// Run `callback` on the event whose input type it takes: a callback taking a
    /// [`PreToolUseInput`](crate::hooks::PreToolUseInput) runs on `PreToolUse`, one taking a
    /// [`StopInput`](crate::hooks::StopInput) on `Stop`, and so on for every type that
    /// implements [`EventInput`]. [`Options::on_hook_event`] takes the event as a value instead,
    /// with every event's input in one [`HookInput`].
    ///
    /// `matcher` says which calls of the event the callback gets: a tool-name pattern for tool
    /// events (`"Bash"`, `"Write|Edit"`), `None` for every call, or a [`HookMatcher`] that also
    /// sets the timeout the CLI applies and whether a failing callback blocks the action it
    /// guards ([`HookMatcher::fail_closed`]).
    ///
    /// The CLI sends a hook only inputs of the event it was registered for. Should an input of
    /// another event come all the same, the callback is not called and the CLI gets an error
    /// reply, as it does for any hook input that fails to parse; the CLI then treats the hook as
    /// failed.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::hooks::{HookEvent, HookMatcher, HookOutput, PreToolUseInput, StopInput};
    /// use claude_agent_tokio::options::Options;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Bash {
    ///     command: String,
    /// }
    ///
    /// let options = Options::default()
    ///     .on_hook("Bash", |input: PreToolUseInput, _ctx| async move {
    ///         match input.tool_input.parse::<Bash>() {
    ///             Ok(bash) if bash.command.starts_with("rm ") => HookOutput::deny_tool("no rm"),
    ///             _ => HookOutput::default(),
    ///         }
    ///     })
    ///     .on_hook(None, |input: StopInput, _ctx| async move {
    ///         if input.stop_hook_active {
    ///             HookOutput::default()
    ///         } else {
    ///             HookOutput::block("run the tests first")
    ///         }
    ///     })
    ///     // Writes outside /srv/app are refused, and so is every write if the check breaks.
    ///     .on_hook(
    ///         HookMatcher::new("Write|Edit").timeout(Duration::from_secs(5)).fail_closed(),
    ///         |input: PreToolUseInput, _ctx| async move {
    ///             let path = input.tool_input.parse::<serde_json::Value>().expect("JSON")["file_path"].clone();
    ///             if path.as_str().is_some_and(|p| p.starts_with("/srv/app/")) {
    ///                 HookOutput::proceed()
    ///             } else {
    ///                 HookOutput::deny_tool("only /srv/app may be written")
    ///             }
    ///         },
    ///     );
    /// let host = options.get_host_declarations();
    /// let events: Vec<&HookEvent> = host.hooks.iter().map(|h| &h.event).collect();
    /// assert_eq!(events, [&HookEvent::PreToolUse, &HookEvent::Stop, &HookEvent::PreToolUse]);
    /// assert_eq!(host.hooks[2].timeout_secs, Some(5.0));
    /// ```
    ///
    /// A callback written as a function can be called directly in a unit test, with an input read
    /// from JSON and a default context:
    ///
    /// ```
    /// use claude_agent_tokio::HookContext;
    /// use claude_agent_tokio::hooks::{HookOutput, StopInput};
    /// use claude_agent_tokio::options::Options;
    ///
    /// async fn keep_going(input: StopInput, _ctx: HookContext) -> HookOutput {
    ///     if input.stop_hook_active {
    ///         HookOutput::default()
    ///     } else {
    ///         HookOutput::block("run the tests first")
    ///     }
    /// }
    /// let _options = Options::default().on_hook(None, keep_going);
    ///
    /// // In a test (e.g. `#[tokio::test] async fn ...`):
    /// # futures_lite::future::block_on(async {
    /// let input: StopInput = serde_json::from_str(
    ///     r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","stop_hook_active":false}"#,
    /// )
    /// .unwrap();
    /// let output = keep_going(input, HookContext::default()).await;
    /// assert_eq!(output, HookOutput::block("run the tests first"));
    /// # });
    /// ```
    pub fn on_hook<I, F, Fut>(self, matcher: impl Into<HookMatcher>, callback: F) -> Self
    where
        I: EventInput,
        F: Fn(I, HookContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        self.add_hook(
            HookMatcherConfig::for_matcher(I::EVENT, matcher.into()),
            typed_hook(callback),
        )
    }

    /// Run `callback` on `event`, with the event's input as a [`HookInput`]: for an event this
    /// crate has no input type for, or one callback for several events. `matcher` is as for
    /// [`Options::on_hook`]; the tool use id the CLI sends beside the input is
    /// [`HookContext::tool_use_id`].
    ///
    /// ```
    /// use claude_agent_tokio::hooks::{HookEvent, HookInput, HookMatcher, HookOutput};
    /// use claude_agent_tokio::options::Options;
    ///
    /// let options = Options::new().on_hook_event(
    ///     HookEvent::PreToolUse,
    ///     HookMatcher::all().fail_closed(),
    ///     |input, ctx| async move {
    ///         match input {
    ///             HookInput::PreToolUse(pre) if pre.tool_name == "WebFetch" => {
    ///                 HookOutput::deny_tool(format!("no network ({:?})", ctx.tool_use_id()))
    ///             }
    ///             _ => HookOutput::proceed(),
    ///         }
    ///     },
    /// );
    /// # let _ = options;
    /// ```
    pub fn on_hook_event<F, Fut>(
        self,
        event: HookEvent,
        matcher: impl Into<HookMatcher>,
        callback: F,
    ) -> Self
    where
        F: Fn(HookInput, HookContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        self.add_hook(
            HookMatcherConfig::for_matcher(event, matcher.into()),
            untyped_hook(callback),
        )
    }

    fn add_hook(mut self, config: HookMatcherConfig, callback: HookFn) -> Self {
        self.handlers_mut().hooks.push((config, callback));
        self
    }

    /// Serve an in-process MCP server; the model sees its tools as `mcp__<server>__<tool>`
    /// (allow them with `allowed_tools` or answer their permission prompts).
    ///
    /// ```
    /// use claude_agent_tokio::{mcp::tool, mcp::SdkMcpServer};
    /// use claude_agent_tokio::mcp::ToolResult;
    /// use claude_agent_tokio::options::Options;
    ///
    /// let clock = SdkMcpServer::new("clock", "1.0.0").tool(tool(
    ///     "now",
    ///     "The current Unix time in seconds",
    ///     serde_json::json!({"type": "object", "properties": {}}),
    ///     |_args| async {
    ///         let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    ///         Ok::<_, String>(ToolResult::text(secs.to_string()))
    ///     },
    /// ));
    /// let options = Options::new().sdk_mcp_server(clock).allowed_tools(["mcp__clock__now"]);
    /// assert_eq!(options.get_host_declarations().sdk_mcp_servers[0].name, "clock");
    /// ```
    pub fn sdk_mcp_server(mut self, server: SdkMcpServer) -> Self {
        self.handlers_mut().mcp_servers.push(server);
        self
    }

    /// Answer MCP elicitations (a server asking the user for input). Without this they are
    /// declined. A second call replaces the callback set before.
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// use claude_agent_tokio::mcp::ElicitationResult;
    /// use claude_agent_tokio::options::Options;
    ///
    /// // Fill in the form an MCP server asks for, from the host's configuration.
    /// let options = Options::new().on_elicitation(|request, _ctx| async move {
    ///     match (request.mcp_server_name.as_str(), request.mode.as_deref()) {
    ///         ("deploy", Some("form") | None) => {
    ///             ElicitationResult::accept(serde_json::json!({"environment": "staging"}))
    ///         }
    ///         _ => ElicitationResult::decline(),
    ///     }
    /// });
    /// # let _ = options;
    /// ```
    pub fn on_elicitation<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(ElicitationRequest, ElicitationContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitationResult> + Send + 'static,
    {
        self.handlers_mut().elicitation = Some(Arc::new(move |request, ctx| -> Boxed<_> {
            Box::pin(callback(request, ctx))
        }));
        self
    }

    /// Show the user the CLI's dialogs of the kinds `kinds` (`request_user_dialog`), with
    /// `callback` answering each: what the user chose, or
    /// [`UserDialogResult::cancelled`] when they dismissed it (the CLI then takes the dialog's
    /// default). The CLI sends only the kinds declared here (initialize `supportedDialogKinds`),
    /// and without them takes each dialog's fallback (for `refusal_fallback_prompt`, the plain
    /// refusal error). Declare only kinds the application really shows; the payload and answer
    /// of each kind are the kind's own. A second call replaces the callback set before (and the
    /// kinds it declared).
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// use claude_agent_tokio::control::UserDialogResult;
    /// use claude_agent_tokio::options::Options;
    ///
    /// let options = Options::default().on_user_dialog(["refusal_fallback_prompt"], |request, _ctx| async move {
    ///     let payload: serde_json::Value = serde_json::from_str(request.payload.as_str()).unwrap_or_default();
    ///     println!("The model refused; retry on {}?", payload["fallbackModel"]);
    ///     let choice = Json::from_serialize(&serde_json::json!({"choice": "retry"})).unwrap();
    ///     UserDialogResult::completed(choice)
    /// });
    /// # let _ = options;
    /// ```
    pub fn on_user_dialog<I, S, F, Fut>(mut self, kinds: I, callback: F) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
        F: Fn(UserDialogRequest, UserDialogContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = UserDialogResult> + Send + 'static,
    {
        let kinds = kinds.into_iter().map(Into::into).collect();
        let callback: UserDialogFn =
            Arc::new(move |request, ctx| -> Boxed<_> { Box::pin(callback(request, ctx)) });
        self.handlers_mut().user_dialog = Some((kinds, callback));
        self
    }

    /// Get each line the CLI writes on stderr (trimmed; blank lines skipped). The last 8 KiB of
    /// stderr are kept for error reports either way. A second call replaces the callback set
    /// before.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use claude_agent_tokio::options::Options;
    ///
    /// let log = Arc::new(Mutex::new(Vec::<String>::new()));
    /// let sink = log.clone();
    /// let options = Options::new().debug(true).on_stderr(move |line| sink.lock().unwrap().push(line.to_owned()));
    /// # let _ = options;
    /// ```
    pub fn on_stderr<F>(mut self, callback: F) -> Self
    where
        F: Fn(&str) + Send + Sync + 'static,
    {
        self.handlers_mut().stderr = Some(Arc::new(callback));
        self
    }
}

/// A callback of [`Options::on_hook_event`], stored type-erased.
fn untyped_hook<F, Fut>(callback: F) -> HookFn
where
    F: Fn(HookInput, HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HookOutput> + Send + 'static,
{
    Arc::new(move |input, ctx| -> Boxed<_> {
        let output = callback(input, ctx);
        Box::pin(async move { Ok(output.await) })
    })
}

/// A callback of [`Options::on_hook`], stored type-erased: an input of another event than `I`'s
/// is an error, and the callback is not called.
fn typed_hook<I, F, Fut>(callback: F) -> HookFn
where
    I: EventInput,
    F: Fn(I, HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HookOutput> + Send + 'static,
{
    Arc::new(move |input, ctx| -> Boxed<_> {
        match I::from_hook_input(input) {
            Ok(input) => {
                let output = callback(input, ctx);
                Box::pin(async move { Ok(output.await) })
            }
            Err(other) => Box::pin(std::future::ready(Err(format!(
                "malformed hook input: a {} hook got a {} input",
                I::EVENT,
                other.event()
            )))),
        }
    })
}
