//! A small grammar of real CLI stdout frames, so the `ops` target reaches deep states (a control
//! response to one of our ids, a cancel of an open request…) without guessing JSON byte by byte.

use arbitrary::Arbitrary;
use claude_agent_core::control::RequestId;

/// One stdout line the CLI could print. Numbers pick ids and variants from small sets, so that
/// repeats, cancels and answers hit ids that are really in play.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// A `result`, success or error.
    Result {
        /// `is_error`.
        is_error: bool,
        /// Picks the subtype (`% 4`); from 4 to 7 (`/ 4 % 2`), the turn's `transcript_mirror`
        /// frame comes just before it, as when the host mirrors to a session store.
        subtype: u8,
    },
    /// An `assistant` message, of the main thread or a subagent.
    Assistant {
        /// With a `parent_tool_use_id`.
        subagent: bool,
    },
    /// A partial-message `stream_event`.
    StreamEvent,
    /// `system/init`.
    SystemInit,
    /// `system/session_state_changed`.
    SessionState {
        /// Picks idle, running, requires_action or an unknown state.
        state: u8,
        /// `sdk_host_only`.
        sdk_host_only: bool,
    },
    /// A task's frame: `system/task_started` (of an agent, a shell, or no type), its end
    /// (`task_notification`, or `task_updated` with a terminal status), a `task_updated` whose
    /// patch is not an object, or an empty `background_tasks_changed`.
    Task {
        /// Picks the task id.
        task: u8,
        /// Picks the frame (`% 7`).
        step: u8,
    },
    /// `control_request` `can_use_tool`.
    CanUseTool {
        /// Picks the wire id.
        id: u8,
    },
    /// `control_request` `hook_callback`.
    HookCallback {
        /// Picks the wire id.
        id: u8,
        /// Picks `hook_N` (some out of range).
        callback: u8,
    },
    /// `control_request` `mcp_message`.
    McpMessage {
        /// Picks the wire id.
        id: u8,
        /// Picks the JSON-RPC method.
        method: u8,
        /// Our server, or one we do not have.
        known_server: bool,
    },
    /// `control_request` `elicitation`.
    Elicitation {
        /// Picks the wire id.
        id: u8,
    },
    /// `control_request` `request_user_dialog`.
    UserDialog {
        /// Picks the wire id.
        id: u8,
        /// With a `tool_use_id`.
        about_tool: bool,
    },
    /// A `control_request` of a subtype nobody knows.
    UnknownRequest {
        /// Picks the wire id.
        id: u8,
    },
    /// A `control_response` to one of our requests (or to an id we never used).
    ControlResponse {
        /// Picks among our issued ids, one past the end being unknown.
        ours: u8,
        /// Success or error.
        success: bool,
        /// With a `pending_permission_requests` entry.
        with_pending: bool,
    },
    /// `control_cancel_request`.
    Cancel {
        /// Picks the wire id.
        id: u8,
    },
    /// `keep_alive`.
    KeepAlive,
    /// A `type` nobody knows.
    UnknownType,
    /// A known type whose fields are wrong.
    Malformed {
        /// Picks which.
        which: u8,
    },
}

impl Frame {
    /// Number of variants (for the seed encoder).
    pub const COUNT: usize = 17;
}

fn wire_id(id: u8) -> String {
    format!("in-{}", id % 8)
}

/// The line (without `\n`; a result with its mirror frame is two) for `frame`, given the ids
/// we issued so far.
pub fn render(frame: Frame, issued: &[RequestId]) -> String {
    match frame {
        Frame::Result { is_error, subtype } => {
            let mirror = if subtype / 4 % 2 == 1 {
                r#"{"type":"transcript_mirror","filePath":"/h/.claude/projects/-tmp/s.jsonl","entries":[{"type":"assistant","uuid":"u"}]}"#.to_owned() + "\n"
            } else {
                String::new()
            };
            // From 8 to 15 (`/ 8 % 2`), the error fields come in the loose shapes some CLIs
            // write: one string of errors, the HTTP status as a string.
            let (errors, status) = if subtype / 8 % 2 == 1 {
                (r#""e1""#, r#""500""#)
            } else {
                (r#"["e1"]"#, "null")
            };
            let subtype = ["success", "error_max_turns", "error_during_execution", "weird"]
                [usize::from(subtype % 4)];
            format!(
                r#"{mirror}{{"type":"result","subtype":"{subtype}","is_error":{is_error},"duration_ms":12,"duration_api_ms":3,"num_turns":1,"result":"done","errors":{errors},"session_id":"s","total_cost_usd":0.1,"usage":{{"input_tokens":1,"output_tokens":2}},"terminal_reason":"completed","api_error_status":{status},"uuid":"u"}}"#
            )
        }
        Frame::Assistant { subagent } => {
            let parent = if subagent { r#""toolu_1""# } else { "null" };
            format!(
                r#"{{"type":"assistant","message":{{"id":"m","type":"message","role":"assistant","model":"claude","content":[{{"type":"text","text":"hi"}},{{"type":"tool_use","id":"toolu_2","name":"Bash","input":{{"command":"ls"}}}},{{"type":"new_block"}}],"stop_reason":null,"usage":{{"input_tokens":1,"output_tokens":1}}}},"parent_tool_use_id":{parent},"session_id":"s","uuid":"u"}}"#
            )
        }
        Frame::StreamEvent => r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"h"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#.into(),
        Frame::SystemInit => r#"{"type":"system","subtype":"init","cwd":"/tmp","session_id":"s","tools":["Bash"],"mcp_servers":[{"name":"calc","status":"connected"}],"model":"claude","permissionMode":"default","slash_commands":[],"apiKeySource":"none","uuid":"u"}"#.into(),
        Frame::SessionState { state, sdk_host_only } => {
            let state = ["idle", "running", "requires_action", "dreaming"][usize::from(state % 4)];
            format!(
                r#"{{"type":"system","subtype":"session_state_changed","state":"{state}","sdk_host_only":{sdk_host_only},"uuid":"u","session_id":"s"}}"#
            )
        }
        Frame::Task { task, step } => {
            let id = task % 4;
            match step % 7 {
                0..=2 => {
                    let ty = ["\"local_agent\"", "\"local_bash\"", "null"][usize::from(step % 7)];
                    format!(
                        r#"{{"type":"system","subtype":"task_started","task_id":"t{id}","task_type":{ty},"description":"d","session_id":"s"}}"#
                    )
                }
                3 => format!(
                    r#"{{"type":"system","subtype":"task_notification","task_id":"t{id}","status":"completed","output_file":"/o","summary":"s"}}"#
                ),
                4 => format!(
                    r#"{{"type":"system","subtype":"task_updated","task_id":"t{id}","patch":{{"status":"killed","end_time":1}},"session_id":"s"}}"#
                ),
                5 => format!(
                    r#"{{"type":"system","subtype":"task_updated","task_id":"t{id}","patch":"done","session_id":"s"}}"#
                ),
                _ => r#"{"type":"system","subtype":"background_tasks_changed","tasks":[],"session_id":"s"}"#.into(),
            }
        }
        Frame::CanUseTool { id } => format!(
            r#"{{"type":"control_request","request_id":"{}","request":{{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{{"command":"ls -la /"}},"permission_suggestions":[],"blocked_path":"/","tool_use_id":"toolu_1"}}}}"#,
            wire_id(id)
        ),
        Frame::HookCallback { id, callback } => format!(
            r#"{{"type":"control_request","request_id":"{}","request":{{"subtype":"hook_callback","callback_id":"hook_{}","input":{{"session_id":"s","transcript_path":"/t","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls"}},"tool_use_id":"toolu_1"}},"tool_use_id":"toolu_1"}}}}"#,
            wire_id(id),
            callback % 6
        ),
        Frame::McpMessage { id, method, known_server } => {
            let server = if known_server { "calc" } else { "nope" };
            let message = match method % 13 {
                0 => r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}},"jsonrpc":"2.0","id":0}"#,
                1 => r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#,
                2 => r#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#,
                3 => r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}},"jsonrpc":"2.0","id":2}"#,
                4 => r#"{"method":"tools/call","params":{"name":"missing","arguments":{}},"jsonrpc":"2.0","id":"x"}"#,
                5 => r#"{"method":"ping","jsonrpc":"2.0","id":3}"#,
                6 => r#"{"method":"resources/list","jsonrpc":"2.0","id":4}"#,
                7 => r#"{"method":"resources/read","params":{"uri":"calc://constants/pi"},"jsonrpc":"2.0","id":5}"#,
                8 => r#"{"method":"resources/read","params":{"uri":"calc://numbers/7"},"jsonrpc":"2.0","id":6}"#,
                9 => r#"{"method":"resources/templates/list","jsonrpc":"2.0","id":7}"#,
                10 => r#"{"method":"prompts/list","jsonrpc":"2.0","id":8}"#,
                11 => r#"{"method":"prompts/get","params":{"name":"explain","arguments":{"topic":"sums"}},"jsonrpc":"2.0","id":9}"#,
                _ => r#"{"method":"prompts/get","params":{"name":"missing"},"jsonrpc":"2.0","id":10}"#,
            };
            format!(
                r#"{{"type":"control_request","request_id":"{}","request":{{"subtype":"mcp_message","server_name":"{server}","message":{message}}}}}"#,
                wire_id(id)
            )
        }
        Frame::Elicitation { id } => format!(
            r#"{{"type":"control_request","request_id":"{}","request":{{"subtype":"elicitation","mcp_server_name":"calc","message":"name?","requested_schema":{{"type":"object"}}}}}}"#,
            wire_id(id)
        ),
        Frame::UserDialog { id, about_tool } => {
            let tool_use = if about_tool { r#","tool_use_id":"toolu_1""# } else { "" };
            format!(
                r#"{{"type":"control_request","request_id":"{}","request":{{"subtype":"request_user_dialog","dialog_kind":"refusal_fallback_prompt","payload":{{"originalModel":"claude-opus","fallbackModel":"claude-sonnet"}}{tool_use}}}}}"#,
                wire_id(id)
            )
        }
        Frame::UnknownRequest { id } => format!(
            r#"{{"type":"control_request","request_id":"{}","request":{{"subtype":"brand_new","x":1}}}}"#,
            wire_id(id)
        ),
        Frame::ControlResponse { ours, success, with_pending } => {
            let index = usize::from(ours) % (issued.len() + 1);
            let id = issued
                .get(index)
                .map_or_else(|| "req_999".to_owned(), ToString::to_string);
            let pending = if with_pending {
                r#","pending_permission_requests":[{"type":"control_request","request_id":"in-7","request":{"subtype":"can_use_tool","tool_name":"Read","input":{},"tool_use_id":"toolu_9"}}]"#
            } else {
                ""
            };
            if success {
                format!(
                    r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{id}","response":{{"commands":[],"models":[]}}{pending}}}}}"#
                )
            } else {
                format!(
                    r#"{{"type":"control_response","response":{{"subtype":"error","request_id":"{id}","error":"nope","error_code":"unsupported_request"{pending}}}}}"#
                )
            }
        }
        Frame::Cancel { id } => format!(
            r#"{{"type":"control_cancel_request","request_id":"{}"}}"#,
            wire_id(id)
        ),
        Frame::KeepAlive => r#"{"type":"keep_alive"}"#.into(),
        Frame::UnknownType => r#"{"type":"from_the_future","x":{"y":[1,2,3]}}"#.into(),
        Frame::Malformed { which } => match which % 5 {
            0 => r#"{"type":"result","subtype":"success","is_error":"no"}"#.into(),
            1 => r#"{"type":"assistant","message":7}"#.into(),
            2 => r#"{"type":"control_request","request_id":5}"#.into(),
            3 => r#"{"type":"control_response","response":{}}"#.into(),
            _ => r#"{"type":"system","subtype":"task_started","task_id":[]}"#.into(),
        },
    }
}
