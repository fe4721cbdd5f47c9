//! Builder methods on [`Options`] that register callbacks: each stores the callback in the
//! options' [`super::Handlers`] and declares it to the session (so `initialize` tells the CLI).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use super::handlers::{ElicitationContext, HookContext, HookFn, PermissionContext};
use super::runtime::BoxFuture;
use super::sdk_mcp::SdkMcpServer;
use crate::control::{ElicitationRequest, ElicitationResult};
use crate::hooks::{HookEvent, HookInput, HookOutput};
use crate::options::Options;
use crate::permission::{PermissionRequest, PermissionResult};
use crate::session::HookMatcherConfig;

impl Options {
    /// Decide tool permission prompts with an async callback (the CLI's `can_use_tool`).
    ///
    /// ```
    /// # use claude_agent_core::options::Options;
    /// # use claude_agent_core::permission::PermissionResult;
    /// let options = Options::default().can_use_tool(|request, _ctx| async move {
    ///     if request.tool_name == "Bash" {
    ///         PermissionResult::deny("no shell here")
    ///     } else {
    ///         PermissionResult::allow()
    ///     }
    /// });
    /// # let _ = options;
    /// ```
    pub fn can_use_tool<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(PermissionRequest, PermissionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = PermissionResult> + Send + 'static,
    {
        self.handlers.can_use_tool = Some(Arc::new(move |request, ctx| -> BoxFuture<'static, _> {
            Box::pin(callback(request, ctx))
        }));
        self.declare_can_use_tool()
    }

    /// Run `callback` on `event`; for tool events `matcher` is a tool-name pattern (`"Bash"`,
    /// `"Write|Edit"`), `None` matches everything. The callback gets the event's input, the
    /// tool use id when there is one, and a context.
    ///
    /// ```
    /// # use claude_agent_core::options::Options;
    /// # use claude_agent_core::hooks::{HookEvent, HookOutput};
    /// let options = Options::default().hook(HookEvent::PreToolUse, Some("Bash"), |_input, _tool_use_id, _ctx| async {
    ///     HookOutput::default()
    /// });
    /// # let _ = options;
    /// ```
    pub fn hook<F, Fut>(self, event: HookEvent, matcher: Option<&str>, callback: F) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        self.add_hook(
            HookMatcherConfig::new(event, matcher.map(str::to_owned), 1),
            callback,
        )
    }

    /// [`Options::hook`] with a timeout the CLI applies to the callback (default 60 s).
    pub fn hook_with_timeout<F, Fut>(
        self,
        event: HookEvent,
        matcher: Option<&str>,
        timeout: Duration,
        callback: F,
    ) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        let mut config = HookMatcherConfig::new(event, matcher.map(str::to_owned), 1);
        config.timeout_secs = Some(timeout.as_secs_f64());
        self.add_hook(config, callback)
    }

    fn add_hook<F, Fut>(mut self, config: HookMatcherConfig, callback: F) -> Self
    where
        F: Fn(HookInput, Option<String>, HookContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        let declared = self.get_declared_hooks().len();
        let callback: HookFn = Arc::new(move |input, tool_use_id, ctx| -> BoxFuture<'static, _> {
            Box::pin(callback(input, tool_use_id, ctx))
        });
        self.handlers.hooks.push((declared, callback));
        self.declare_hook(config)
    }

    /// Serve an in-process MCP server; the model sees its tools as `mcp__<server>__<tool>`
    /// (allow them with `allowed_tools` or answer their permission prompts).
    pub fn sdk_mcp_server(mut self, server: SdkMcpServer) -> Self {
        let spec = server.spec();
        self.handlers.mcp_servers.push(server);
        self.declare_sdk_mcp_server(spec)
    }

    /// Answer MCP elicitations (a server asking the user for input). Without this they are
    /// declined.
    pub fn on_elicitation<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(ElicitationRequest, ElicitationContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitationResult> + Send + 'static,
    {
        self.handlers.elicitation = Some(Arc::new(move |request, ctx| -> BoxFuture<'static, _> {
            Box::pin(callback(request, ctx))
        }));
        self.declare_elicitation()
    }

    /// Get each line the CLI writes on stderr (trimmed; blank lines skipped). The last 8 KiB of
    /// stderr are kept for error reports either way.
    pub fn stderr<F>(mut self, callback: F) -> Self
    where
        F: Fn(&str) + Send + Sync + 'static,
    {
        self.handlers.stderr = Some(Arc::new(callback));
        self
    }
}
