//! Typed messages the CLI prints on stdout, and the user messages the host writes.
//!
//! CONTRACT (used by `session`; flesh out, keep the names and signatures):
//! - `Message`: every message kind of PROTOCOL-REFERENCE §2, `Unknown` for anything else (raw JSON kept).
//! - `Tags` + `peek_tags(line)`: the `type`/`subtype` of a line, read cheaply.
//! - `Message::parse_tagged(line, &tags)`: the typed parse of a non-control line.
//! - `UserInput`: a user message to write to stdin; `UserInput::to_json_line()`.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// One message from the CLI.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Message {
    /// A message type or subtype this crate does not model; the whole line, unchanged.
    Unknown(Box<RawValue>),
}

/// The `type` and `subtype` of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tags<'a> {
    /// Top-level `type`.
    pub ty: &'a str,
    /// Top-level `subtype`, if any.
    pub subtype: Option<&'a str>,
}

#[derive(Deserialize)]
struct TagScan<'a> {
    #[serde(rename = "type", borrow)]
    ty: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    subtype: Option<std::borrow::Cow<'a, str>>,
}

/// Read the `type` and `subtype` of one JSON line.
///
/// Returns an error when the line is not a JSON object with a string `type`.
pub fn peek_tags(line: &str) -> Result<Tags<'_>, serde_json::Error> {
    let scan: TagScan<'_> = serde_json::from_str(line)?;
    let ty = match scan.ty {
        std::borrow::Cow::Borrowed(s) => s,
        std::borrow::Cow::Owned(_) => "",
    };
    let subtype = match scan.subtype {
        Some(std::borrow::Cow::Borrowed(s)) => Some(s),
        _ => None,
    };
    Ok(Tags { ty, subtype })
}

impl Message {
    /// The exact line the CLI printed.
    pub fn raw_json(&self) -> &str {
        match self {
            Message::Unknown(raw) => raw.get(),
        }
    }

    /// Parse a line whose tags were read with [`peek_tags`].
    pub fn parse_tagged(line: &str, tags: &Tags<'_>) -> Result<Message, serde_json::Error> {
        let _ = tags;
        Ok(Message::Unknown(RawValue::from_string(line.to_owned())?))
    }
}

/// A user message for the CLI's stdin.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct UserInput {
    /// The message text.
    pub text: String,
}

impl UserInput {
    /// A plain-text user message.
    pub fn text(text: impl Into<String>) -> Self {
        UserInput { text: text.into() }
    }

    /// The `\n`-terminated stdin line for this message.
    pub fn to_json_line(&self) -> Vec<u8> {
        let mut line = serde_json::to_vec(&serde_json::json!({
            "type": "user",
            "message": {"role": "user", "content": self.text},
            "parent_tool_use_id": null,
            "session_id": ""
        }))
        .expect("a JSON value always serializes");
        line.push(b'\n');
        line
    }
}
