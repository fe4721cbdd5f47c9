//! Turns a [`Reply`] into what the real Messages API sends: a JSON message, a server-sent event
//! stream, or an error body.

use std::time::Duration;

use serde_json::{json, Value};

use super::reply::{Block, Reply, ReplyKind};

/// How many pieces a text or a tool input is split into on the event stream.
const STREAM_PIECES: usize = 3;

/// Per-call facts that go into the rendered message.
pub(crate) struct CallContext {
    /// 1-based number of this Messages call; makes ids unique and readable.
    pub(crate) call: u64,
    /// The model the request named (echoed back like the real API does).
    pub(crate) model: String,
    /// Input tokens to report in `usage`.
    pub(crate) input_tokens: u64,
}

/// A reply ready to write.
#[derive(Debug, PartialEq)]
pub(crate) enum Rendered {
    /// A whole JSON body with this status; `retry: false` adds `x-should-retry: false`.
    Json {
        status: u16,
        body: Value,
        retry: bool,
    },
    /// `(event name, data)` pairs for a `text/event-stream` body.
    Sse(Vec<(&'static str, Value)>),
}

/// Takes the delays off a reply: the total wait and the reply to send after it.
pub(crate) fn split_delay(mut reply: &Reply) -> (Duration, &Reply) {
    let mut total = Duration::ZERO;
    while let ReplyKind::Delay { delay, inner } = &reply.kind {
        total += *delay;
        reply = inner;
    }
    (total, reply)
}

/// Renders a reply without delay (see [`split_delay`]).
pub(crate) fn render(reply: &Reply, ctx: &CallContext, stream: bool) -> Rendered {
    match &reply.kind {
        ReplyKind::Message {
            blocks,
            stop_reason,
        } => {
            if stream {
                Rendered::Sse(sse_events(blocks, stop_reason, ctx))
            } else {
                Rendered::Json {
                    status: 200,
                    body: message_json(blocks, stop_reason, ctx),
                    retry: true,
                }
            }
        }
        ReplyKind::Error {
            status,
            error_type,
            message,
            retryable,
        } => Rendered::Json {
            status: *status,
            body: json!({
                "type": "error",
                "error": {"type": error_type, "message": message},
                "request_id": request_id(ctx.call),
            }),
            retry: *retryable,
        },
        ReplyKind::Delay { inner, .. } => render(inner, ctx, stream),
    }
}

/// The `request-id` the stub reports for call `n`.
pub(crate) fn request_id(call: u64) -> String {
    format!("req_stub_{call}")
}

/// One SSE event as written on the wire.
pub(crate) fn sse_frame(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

fn tool_use_id(ctx: &CallContext, index: usize) -> String {
    format!("toolu_stub_{}_{index}", ctx.call)
}

fn output_tokens(blocks: &[Block]) -> u64 {
    let chars: usize = blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => t.len(),
            Block::ToolUse { input, .. } => input.to_string().len(),
        })
        .sum();
    1 + (chars / 4) as u64
}

fn block_json(block: &Block, ctx: &CallContext, index: usize) -> Value {
    match block {
        Block::Text(text) => json!({"type": "text", "text": text}),
        Block::ToolUse { name, input } => json!({
            "type": "tool_use", "id": tool_use_id(ctx, index), "name": name, "input": input,
        }),
    }
}

fn message_envelope(
    content: Vec<Value>,
    stop_reason: Value,
    usage: Value,
    ctx: &CallContext,
) -> Value {
    json!({
        "id": format!("msg_stub_{}", ctx.call),
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": usage,
    })
}

fn usage(input_tokens: u64, output_tokens: u64) -> Value {
    json!({
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    })
}

fn message_json(blocks: &[Block], stop_reason: &str, ctx: &CallContext) -> Value {
    let content = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| block_json(b, ctx, i))
        .collect();
    message_envelope(
        content,
        json!(stop_reason),
        usage(ctx.input_tokens, output_tokens(blocks)),
        ctx,
    )
}

/// Splits `s` into at most `n` non-empty pieces on char boundaries.
fn pieces(s: &str, n: usize) -> Vec<&str> {
    let size = s.len().div_ceil(n.max(1)).max(1);
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (head, tail) = rest.split_at(cut);
        out.push(head);
        rest = tail;
    }
    out
}

fn sse_events(
    blocks: &[Block],
    stop_reason: &str,
    ctx: &CallContext,
) -> Vec<(&'static str, Value)> {
    let mut events = vec![(
        "message_start",
        json!({
            "type": "message_start",
            "message": message_envelope(vec![], Value::Null, usage(ctx.input_tokens, 1), ctx),
        }),
    )];
    for (index, block) in blocks.iter().enumerate() {
        match block {
            Block::Text(text) => {
                events.push((
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}}),
                ));
                for piece in pieces(text, STREAM_PIECES) {
                    events.push((
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": index,
                               "delta": {"type": "text_delta", "text": piece}}),
                    ));
                }
            }
            Block::ToolUse { name, input } => {
                events.push((
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "tool_use", "id": tool_use_id(ctx, index),
                                             "name": name, "input": {}}}),
                ));
                // The real API opens a tool input with an empty partial_json.
                let json_text = input.to_string();
                for piece in std::iter::once("").chain(pieces(&json_text, STREAM_PIECES)) {
                    events.push((
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": index,
                               "delta": {"type": "input_json_delta", "partial_json": piece}}),
                    ));
                }
            }
        }
        if index == 0 {
            events.push(("ping", json!({"type": "ping"})));
        }
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": output_tokens(blocks)}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> CallContext {
        CallContext {
            call: 7,
            model: "m".into(),
            input_tokens: 3,
        }
    }

    #[test]
    fn pieces_respect_char_boundaries_and_rejoin() {
        for s in ["", "a", "héllo wörld", "{\"command\":\"ls\"}"] {
            let p = pieces(s, 3);
            assert!(
                p.len() <= 3 && p.iter().all(|x| !x.is_empty()),
                "{s}: {p:?}"
            );
            assert_eq!(p.concat(), s);
        }
    }

    #[test]
    fn tool_use_stream_rebuilds_the_input() {
        let reply =
            Reply::tool_use("Bash", json!({"command": "echo hi"})).with_leading_text("running");
        let Rendered::Sse(events) = render(&reply, &ctx(), true) else {
            panic!("expected SSE");
        };
        let names: Vec<&str> = events.iter().map(|(n, _)| *n).collect();
        assert_eq!(names.first(), Some(&"message_start"));
        assert_eq!(names.last(), Some(&"message_stop"));
        let partial: String = events
            .iter()
            .filter_map(|(_, d)| d["delta"]["partial_json"].as_str())
            .collect();
        assert_eq!(partial, r#"{"command":"echo hi"}"#);
        let text: String = events
            .iter()
            .filter_map(|(_, d)| d["delta"]["text"].as_str())
            .collect();
        assert_eq!(text, "running");
        let delta = events.iter().find(|(n, _)| *n == "message_delta").unwrap();
        assert_eq!(delta.1["delta"]["stop_reason"], "tool_use");
        let start = events
            .iter()
            .find(|(_, d)| d["content_block"]["type"] == "tool_use")
            .unwrap();
        assert_eq!(start.1["content_block"]["id"], "toolu_stub_7_1");
        assert_eq!(
            sse_frame("message_stop", &json!({"type":"message_stop"})),
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
        );
    }

    #[test]
    fn json_message_and_error_bodies() {
        let Rendered::Json { status, body, .. } = render(&Reply::text("hi"), &ctx(), false) else {
            panic!("expected JSON");
        };
        assert_eq!(status, 200);
        assert_eq!(body["content"][0]["text"], "hi");
        assert_eq!(body["stop_reason"], "end_turn");
        assert_eq!(body["model"], "m");
        let err = Reply::delay(
            Duration::from_millis(5),
            Reply::error(529, "overloaded_error", "busy"),
        );
        let (wait, inner) = split_delay(&err);
        assert_eq!(wait, Duration::from_millis(5));
        assert_eq!(
            render(inner, &ctx(), true),
            Rendered::Json {
                status: 529,
                body: json!({"type":"error","error":{"type":"overloaded_error","message":"busy"},
                             "request_id":"req_stub_7"}),
                retry: false,
            }
        );
    }
}
