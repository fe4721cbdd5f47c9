//! `route`: answering the CLI's JSON-RPC messages to an in-process server.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::jsonrpc::{self, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND};
use super::{
    McpServerSpec, PromptResult, PromptSpec, ResourceResult, ResourceSpec, ResourceTemplateSpec,
    ToolContent, ToolResult, ToolSpec,
};
use crate::Json;

/// The MCP protocol version the servers answer `initialize` with. It is the version the real CLI
/// (2.1.330, which asks for `2025-11-25`) was answered with in the recordings, and every field
/// the servers send is valid in it.
pub const PROTOCOL_VERSION: &str = "2024-11-05";

/// What [`route`] decided about one JSON-RPC message from the CLI.
///
/// ```
/// # use claude_agent_tokio::Json;
/// use claude_agent_tokio::mcp::{route, McpRoute, McpServerSpec, ToolResult, ToolSpec};
///
/// let schema = r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}"#.parse::<Json>().unwrap();
/// let servers = [McpServerSpec::new("calc", "1.0.0").tool(ToolSpec::new("add", "Add two numbers", schema))];
///
/// // The `tools/call` a real CLI sent when the model called `mcp__calc__add`:
/// let message = r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"claudecode/toolUseId":"toolu_fake_6_0","progressToken":2}},"jsonrpc":"2.0","id":2}"#;
/// let answer = match route(&servers, "calc", message) {
///     McpRoute::Reply(reply) => reply, // handshake, tools/list, errors: answered already
///     McpRoute::ToolCall(call) => {
///         #[derive(serde::Deserialize)]
///         struct Add {
///             a: f64,
///             b: f64,
///         }
///         let args: Add = serde_json::from_str(call.arguments.as_str()).unwrap();
///         call.response(&ToolResult::text((args.a + args.b).to_string()))
///     }
///     _ => unreachable!(),
/// };
/// assert_eq!(answer.as_str(), r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"42"}]}}"#);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum McpRoute {
    /// Answer at once with this JSON-RPC message (the `mcp_response` body).
    Reply(Json),
    /// A `tools/call` the host must run; answer with [`ToolCall::response`].
    ToolCall(ToolCall),
    /// A `resources/read` of a declared resource (or of a URI that fits a declared template) the
    /// host must read; answer with [`ResourceRead::response`].
    ResourceRead(ResourceRead),
    /// A `prompts/get` of a declared prompt, with its required arguments, the host must fill;
    /// answer with [`PromptGet::response`].
    PromptGet(PromptGet),
}

/// A `tools/call` request for a declared tool.
///
/// ```
/// # use claude_agent_tokio::Json;
/// use claude_agent_tokio::mcp::{route, McpRoute, McpServerSpec, ToolResult, ToolSpec};
///
/// let schema = r#"{"type":"object"}"#.parse::<Json>().unwrap();
/// let servers = [McpServerSpec::new("calc", "1.0.0").tool(ToolSpec::new("add", "Add two numbers", schema))];
/// let message = r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"claudecode/toolUseId":"toolu_fake_6_0","progressToken":2}},"jsonrpc":"2.0","id":2}"#;
/// let McpRoute::ToolCall(call) = route(&servers, "calc", message) else { panic!("not a tool call") };
/// assert_eq!((call.server.as_str(), call.tool.as_str()), ("calc", "add"));
/// assert_eq!(call.arguments.as_str(), r#"{"a":2,"b":40}"#);
/// assert_eq!(call.tool_use_id.as_deref(), Some("toolu_fake_6_0"));
/// assert_eq!(call.jsonrpc_id.as_str(), "2");
///
/// // A tool failure is a result with `isError`, still inside a JSON-RPC success:
/// let answer = call.response(&ToolResult::error("b must not be 40"));
/// assert_eq!(
///     answer.as_str(),
///     r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"b must not be 40"}],"isError":true}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// Server name.
    pub server: String,
    /// Tool name within the server.
    pub tool: String,
    /// The arguments object (`{}` when the CLI sent none).
    pub arguments: Json,
    /// The JSON-RPC id to answer with.
    pub jsonrpc_id: Json,
    /// The `tool_use` block this call runs (`_meta["claudecode/toolUseId"]`).
    pub tool_use_id: Option<String>,
    /// The MCP progress token (`_meta.progressToken`), for progress notifications.
    pub progress_token: Option<Json>,
}

impl ToolCall {
    /// The JSON-RPC response (the `mcp_response` body) carrying `result`, without the blocks
    /// that are not MCP content ([`ToolContent::is_mcp_content`]): the CLI refuses a whole
    /// result that holds one.
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// # use claude_agent_tokio::mcp::{route, McpRoute, McpServerSpec, ToolContent, ToolResult, ToolSpec};
    /// let servers = [McpServerSpec::new("charts", "1.0.0").tool(ToolSpec::new("plot", "Plot", serde_json::json!({"type": "object"})))];
    /// let call = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plot","arguments":{}}}"#;
    /// let McpRoute::ToolCall(call) = route(&servers, "charts", call) else { unreachable!() };
    /// let chart = ToolContent::Raw(r#"{"type":"chart","series":[1,2]}"#.parse::<Json>().unwrap());
    /// let answer = call.response(&ToolResult::new(vec![ToolContent::text("plotted"), chart]));
    /// assert_eq!(answer.as_str(), r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"plotted"}]}}"#);
    /// ```
    pub fn response(&self, result: &ToolResult) -> Json {
        if result.content.iter().all(ToolContent::is_mcp_content) {
            return jsonrpc::result(self.jsonrpc_id.as_raw(), result);
        }
        let taken = ToolResult {
            content: result
                .content
                .iter()
                .filter(|block| block.is_mcp_content())
                .cloned()
                .collect(),
            ..result.clone()
        };
        jsonrpc::result(self.jsonrpc_id.as_raw(), &taken)
    }
}

/// A `resources/read` request for a resource the server declares.
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::{route, McpRoute, McpServerSpec, ResourceResult, ResourceTemplateSpec};
/// let servers = [McpServerSpec::new("logs", "1.0.0")
///     .resource_template(ResourceTemplateSpec::new("logs://{day}", "Log of a day"))];
/// let read = r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"logs://monday"}}"#;
/// let McpRoute::ResourceRead(read) = route(&servers, "logs", read) else { unreachable!() };
/// assert_eq!(read.template.as_deref(), Some("logs://{day}"));
/// assert_eq!(read.variables["day"], "monday");
/// let answer = read.response(&ResourceResult::text("logs://monday", "quiet"));
/// assert_eq!(answer.as_str(), r#"{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"logs://monday","text":"quiet"}]}}"#);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResourceRead {
    /// Server name.
    pub server: String,
    /// The URI to read.
    pub uri: String,
    /// The URI template the URI fits, when it is not a declared resource's own URI.
    pub template: Option<String>,
    /// The template's variables in the URI (empty for a resource at a fixed URI).
    pub variables: BTreeMap<String, String>,
    /// The JSON-RPC id to answer with.
    pub jsonrpc_id: Json,
}

impl ResourceRead {
    /// The JSON-RPC response (the `mcp_response` body) carrying `result`.
    pub fn response(&self, result: &ResourceResult) -> Json {
        jsonrpc::result(self.jsonrpc_id.as_raw(), result)
    }
}

/// A `prompts/get` request for a prompt the server declares, with every argument it requires.
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::{route, McpRoute, McpServerSpec, PromptArgument, PromptResult, PromptSpec};
/// let servers = [McpServerSpec::new("team", "1.0.0")
///     .prompt(PromptSpec::new("greet").argument(PromptArgument::required("name")))];
/// let get = r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}"#;
/// let McpRoute::PromptGet(get) = route(&servers, "team", get) else { unreachable!() };
/// assert_eq!(get.arguments["name"], "Ada");
/// let answer = get.response(&PromptResult::user("Say hello to Ada."));
/// assert!(answer.as_str().starts_with(r#"{"jsonrpc":"2.0","id":4,"result":{"messages":"#));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PromptGet {
    /// Server name.
    pub server: String,
    /// The prompt's name.
    pub name: String,
    /// The arguments given, by name.
    pub arguments: BTreeMap<String, String>,
    /// The JSON-RPC id to answer with.
    pub jsonrpc_id: Json,
}

impl PromptGet {
    /// The JSON-RPC response (the `mcp_response` body) carrying `result`.
    pub fn response(&self, result: &PromptResult) -> Json {
        jsonrpc::result(self.jsonrpc_id.as_raw(), result)
    }
}

/// The fields of a JSON-RPC message that routing looks at.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Json>,
    #[serde(default, rename = "_meta")]
    meta: Option<CallMeta>,
}

#[derive(Deserialize)]
struct CallMeta {
    #[serde(default, rename = "claudecode/toolUseId")]
    tool_use_id: Option<String>,
    #[serde(default, rename = "progressToken")]
    progress_token: Option<Json>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult<'a> {
    protocol_version: &'static str,
    capabilities: Capabilities,
    server_info: ServerInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

#[derive(Serialize)]
struct Capabilities {
    tools: Empty,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<Empty>,
}

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}

#[derive(Deserialize)]
struct GetParams {
    name: String,
    #[serde(default)]
    arguments: Option<BTreeMap<String, String>>,
}

#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
struct ServerInfo<'a> {
    name: &'a str,
    version: &'a str,
}

#[derive(Serialize)]
struct ToolsList<'a> {
    tools: &'a [ToolSpec],
}

#[derive(Serialize)]
struct ResourcesList<'a> {
    resources: &'a [ResourceSpec],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplatesList<'a> {
    resource_templates: &'a [ResourceTemplateSpec],
}

#[derive(Serialize)]
struct PromptsList<'a> {
    prompts: &'a [PromptSpec],
}

/// Whether a JSON-RPC message of the CLI asks for a server's tools: the last step of the CLI
/// connecting an in-process server.
pub(crate) fn is_tools_list(message: &RawValue) -> bool {
    serde_json::from_str::<Incoming<'_>>(message.get())
        .is_ok_and(|incoming| incoming.method.as_deref() == Some("tools/list"))
}

/// The JSON-RPC id of the request a `notifications/cancelled` message withdraws (the CLI sends
/// one for each open `tools/call` when a turn is interrupted); `None` for any other message.
pub(crate) fn cancelled_request(message: &RawValue) -> Option<serde_json::Value> {
    #[derive(Deserialize)]
    struct Cancelled {
        #[serde(rename = "requestId")]
        request_id: serde_json::Value,
    }
    let incoming = serde_json::from_str::<Incoming<'_>>(message.get()).ok()?;
    if incoming.id.is_some() || incoming.method.as_deref() != Some("notifications/cancelled") {
        return None;
    }
    let params: Cancelled = serde_json::from_str(incoming.params?.get()).ok()?;
    Some(params.request_id)
}

/// Routes one JSON-RPC message the CLI sent (an `mcp_message` control request) to the in-process
/// server `server_name`. The CLI is the MCP client; each answer goes back as the `mcp_response`
/// of a successful control response, even an error.
///
/// Answers by itself: `initialize`, notifications (any message without an `id`), `ping`,
/// `tools/list`, and, when the server declares resources or prompts, `resources/list`,
/// `resources/templates/list` and `prompts/list`; a `tools/call` of an unknown tool (an
/// `isError` tool result), a `resources/read` of an unknown URI (`-32002 Resource not found`), a
/// `prompts/get` of an unknown prompt or without a required argument (`-32602`), unknown methods
/// (`-32601 Method not found: X`), an unknown server (`-32601 Server 'n' not found`) and messages
/// that are not JSON-RPC (`-32600`). Only a `tools/call` of a declared tool, a `resources/read` of
/// a declared resource and a `prompts/get` of a declared prompt are left to the host, as
/// [`McpRoute::ToolCall`], [`McpRoute::ResourceRead`] and [`McpRoute::PromptGet`]. Never panics.
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::{route, McpRoute, McpServerSpec};
/// let servers = [McpServerSpec::new("calc", "1.0.0")];
/// let ping = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
/// let McpRoute::Reply(reply) = route(&servers, "calc", ping) else { unreachable!() };
/// assert_eq!(reply.as_str(), r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
/// ```
pub fn route(servers: &[McpServerSpec], server_name: &str, message: &str) -> McpRoute {
    // Only an object is a JSON-RPC message (serde would also read a struct from an array).
    let parsed = if message.trim_start().starts_with('{') {
        serde_json::from_str::<Incoming<'_>>(message).ok()
    } else {
        None
    };
    let Some(incoming) = parsed else {
        return McpRoute::Reply(jsonrpc::error(None, INVALID_REQUEST, "Invalid Request"));
    };
    let Some(server) = servers.iter().find(|s| s.name == server_name) else {
        let text = format!("Server '{server_name}' not found");
        return McpRoute::Reply(jsonrpc::error(incoming.id, METHOD_NOT_FOUND, &text));
    };
    let Some(method) = incoming.method else {
        // A response to a request of ours (we send none) is acknowledged; anything else is invalid.
        return McpRoute::Reply(if incoming.result.is_some() || incoming.error.is_some() {
            jsonrpc::notification_ack()
        } else {
            jsonrpc::error(incoming.id, INVALID_REQUEST, "Invalid Request: no method")
        });
    };
    let Some(id) = incoming.id else {
        return McpRoute::Reply(jsonrpc::notification_ack());
    };
    if !is_request_id(id) {
        return McpRoute::Reply(jsonrpc::error(
            None,
            INVALID_REQUEST,
            "Invalid Request: an id must be a string or an integer",
        ));
    }
    McpRoute::Reply(match &*method {
        "initialize" => jsonrpc::result(
            id,
            &InitializeResult {
                protocol_version: PROTOCOL_VERSION,
                capabilities: Capabilities {
                    tools: Empty {},
                    resources: server.has_resources().then_some(Empty {}),
                    prompts: (!server.prompts.is_empty()).then_some(Empty {}),
                },
                server_info: ServerInfo {
                    name: &server.name,
                    version: &server.version,
                },
                instructions: server.instructions.as_deref(),
            },
        ),
        "ping" => jsonrpc::empty_result(id),
        "tools/list" => jsonrpc::result(
            id,
            &ToolsList {
                tools: &server.tools,
            },
        ),
        "tools/call" => return tool_call(server, id, incoming.params),
        "resources/list" if server.has_resources() => jsonrpc::result(
            id,
            &ResourcesList {
                resources: &server.resources,
            },
        ),
        "resources/templates/list" if server.has_resources() => jsonrpc::result(
            id,
            &TemplatesList {
                resource_templates: &server.resource_templates,
            },
        ),
        "resources/read" if server.has_resources() => {
            return resource_read(server, id, incoming.params)
        }
        "prompts/list" if !server.prompts.is_empty() => jsonrpc::result(
            id,
            &PromptsList {
                prompts: &server.prompts,
            },
        ),
        "prompts/get" if !server.prompts.is_empty() => {
            return prompt_get(server, id, incoming.params)
        }
        other => jsonrpc::error(
            Some(id),
            METHOD_NOT_FOUND,
            &format!("Method not found: {other}"),
        ),
    })
}

/// Whether a JSON-RPC id is one MCP takes: a string or an integer (`2.5`, `true`, `[1]` and `{}`
/// are not; `null` never gets here: it makes a notification).
fn is_request_id(id: &RawValue) -> bool {
    let text = id.get();
    let digits = text.strip_prefix('-').unwrap_or(text);
    text.starts_with('"')
        || (!digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0')))
}

/// The params of a request the host answers, or the reply saying what is wrong with them.
fn parse_params<'de, T: Deserialize<'de>>(
    method: &str,
    id: &RawValue,
    params: Option<&'de RawValue>,
) -> Result<T, McpRoute> {
    match params.map(|p| serde_json::from_str::<T>(p.get())) {
        Some(Ok(parsed)) => Ok(parsed),
        Some(Err(e)) => {
            let text = format!("Invalid params: {e}");
            Err(McpRoute::Reply(jsonrpc::error(
                Some(id),
                INVALID_PARAMS,
                &text,
            )))
        }
        None => {
            let text = format!("Invalid params: {method} needs params");
            Err(McpRoute::Reply(jsonrpc::error(
                Some(id),
                INVALID_PARAMS,
                &text,
            )))
        }
    }
}

/// A `resources/read`: a [`ResourceRead`] for a declared resource or a URI that fits a declared
/// template, `-32002` otherwise.
fn resource_read(server: &McpServerSpec, id: &RawValue, params: Option<&RawValue>) -> McpRoute {
    let parsed: ReadParams = match parse_params("resources/read", id, params) {
        Ok(parsed) => parsed,
        Err(reply) => return reply,
    };
    let read = |template: Option<&ResourceTemplateSpec>, variables| {
        McpRoute::ResourceRead(ResourceRead {
            server: server.name.clone(),
            uri: parsed.uri.clone(),
            template: template.map(|t| t.uri_template.clone()),
            variables,
            jsonrpc_id: Json::from(id.to_owned()),
        })
    };
    if server.resources.iter().any(|r| r.uri == parsed.uri) {
        return read(None, BTreeMap::new());
    }
    for template in &server.resource_templates {
        if let Some(variables) = template.fit(&parsed.uri) {
            return read(Some(template), variables);
        }
    }
    let text = format!("Resource not found: {}", parsed.uri);
    McpRoute::Reply(jsonrpc::error(Some(id), RESOURCE_NOT_FOUND, &text))
}

/// A `prompts/get`: a [`PromptGet`] for a declared prompt given its required arguments, `-32602`
/// otherwise.
fn prompt_get(server: &McpServerSpec, id: &RawValue, params: Option<&RawValue>) -> McpRoute {
    let parsed: GetParams = match parse_params("prompts/get", id, params) {
        Ok(parsed) => parsed,
        Err(reply) => return reply,
    };
    let Some(prompt) = server.find_prompt(&parsed.name) else {
        let text = format!("Invalid params: prompt '{}' not found", parsed.name);
        return McpRoute::Reply(jsonrpc::error(Some(id), INVALID_PARAMS, &text));
    };
    let arguments = parsed.arguments.unwrap_or_default();
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        let text = format!(
            "Invalid params: prompt '{}' needs the argument {}",
            prompt.name,
            missing.join(", ")
        );
        return McpRoute::Reply(jsonrpc::error(Some(id), INVALID_PARAMS, &text));
    }
    McpRoute::PromptGet(PromptGet {
        server: server.name.clone(),
        name: parsed.name,
        arguments,
        jsonrpc_id: Json::from(id.to_owned()),
    })
}

/// A `tools/call`: a [`ToolCall`] for a declared tool, a reply otherwise.
fn tool_call(server: &McpServerSpec, id: &RawValue, params: Option<&RawValue>) -> McpRoute {
    let parsed: CallParams<'_> = match parse_params("tools/call", id, params) {
        Ok(parsed) => parsed,
        Err(reply) => return reply,
    };
    if server.find_tool(&parsed.name).is_none() {
        let result = ToolResult::error(format!("Tool '{}' not found", parsed.name));
        return McpRoute::Reply(jsonrpc::result(id, &result));
    }
    let arguments = match parsed.arguments {
        Some(arguments) if arguments.as_str() != "null" => arguments,
        _ => jsonrpc::to_raw(&Empty {}),
    };
    let meta = parsed.meta.unwrap_or(CallMeta {
        tool_use_id: None,
        progress_token: None,
    });
    McpRoute::ToolCall(ToolCall {
        server: server.name.clone(),
        tool: parsed.name.into_owned(),
        arguments,
        jsonrpc_id: Json::from(id.to_owned()),
        tool_use_id: meta.tool_use_id,
        progress_token: meta.progress_token,
    })
}

#[cfg(test)]
mod tests;
