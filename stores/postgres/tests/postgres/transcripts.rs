//! What the store's and the fleet's tests read of sessions and transcripts.

use claude_agent_core::message::{ContentBlock, Message};
use serde_json::{json, Value};

/// A transcript line with its `uuid`.
pub fn line(uuid: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "message": {"role": "user", "content": uuid}})
}

/// The session id of the result among `messages`.
pub fn session_of(messages: &[Message]) -> String {
    messages
        .iter()
        .find_map(|m| match m {
            Message::Result(r) => Some(r.session_id().to_owned()),
            _ => None,
        })
        .expect("a result")
}

/// The assistant's texts.
pub fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => Some(&a.message.content),
            _ => None,
        })
        .flatten()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// The text of every `user` and `assistant` entry of a stored transcript, in order.
pub fn stored_texts(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e["type"] == "user" || e["type"] == "assistant")
        .map(|e| {
            let content = &e["message"]["content"];
            let text = match content.as_str() {
                Some(text) => text.to_owned(),
                None => content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            format!("{}: {text}", e["type"].as_str().unwrap_or(""))
        })
        .collect()
}
