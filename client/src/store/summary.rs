//! [`fold_session_summary`]: a session's summary, kept up to date one appended batch at a time.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::SessionKey;
use crate::history::clock::parse_timestamp;
use crate::history::lite::{prompt_of_entry, Prompt};

/// What a store keeps about each session so that listing needs no transcript reads: made by
/// [`fold_session_summary`] inside [`SessionStore::append`](super::SessionStore::append), given
/// back by [`SessionStore::list_session_summaries`](super::SessionStore::list_session_summaries).
///
/// `data` belongs to this crate: store it as it is (as JSON) and do not read it. `mtime` is the
/// store's own: set it to the time the storage wrote the summary, on the same clock as
/// [`SessionListing::mtime`](super::SessionListing::mtime).
///
/// ```
/// use claude_agent_tokio::store::{fold_session_summary, SessionKey, SessionSummary};
/// use serde_json::json;
///
/// let key = SessionKey::new("proj", "sess");
/// let mut summary = fold_session_summary(None, &key, &[json!({"type": "user", "message": {"content": "hi"}})]);
/// summary.mtime = 1_767_225_600_000; // when the storage wrote it
/// // Stored as JSON and read back:
/// let stored = serde_json::to_string(&summary).unwrap();
/// let back: SessionSummary = serde_json::from_str(&stored).unwrap();
/// assert_eq!(back, summary);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionSummary {
    /// The session id.
    pub session_id: String,
    /// When the storage wrote this summary, in milliseconds since the Unix epoch.
    pub mtime: u64,
    /// The summary itself; opaque to stores.
    pub data: Map<String, Value>,
}

impl SessionSummary {
    /// A summary of `session_id` with the given `mtime` and `data`, as a store reads it back
    /// from its storage.
    ///
    /// ```
    /// use claude_agent_tokio::store::SessionSummary;
    ///
    /// let summary = SessionSummary::new("sess", 1_767_225_600_000, serde_json::Map::new());
    /// assert_eq!(summary.session_id, "sess");
    /// ```
    pub fn new(session_id: impl Into<String>, mtime: u64, data: Map<String, Value>) -> Self {
        SessionSummary {
            session_id: session_id.into(),
            mtime,
            data,
        }
    }
}

/// Fields whose last value wins: (transcript field, summary field).
const LAST_WINS: [(&str, &str); 5] = [
    ("customTitle", "custom_title"),
    ("aiTitle", "ai_title"),
    ("lastPrompt", "last_prompt"),
    ("summary", "summary_hint"),
    ("gitBranch", "git_branch"),
];

/// Fold a batch of entries appended under `key` into the session's summary (`prev`, `None` for
/// the first batch). Call it from [`SessionStore::append`](super::SessionStore::append) for main
/// transcripts only (a subagent's entries must not change its session's summary), then stamp
/// `mtime` with the storage's write time: the fold keeps `prev`'s `mtime` (0 for a new summary).
///
/// It needs no earlier entries: the title, last prompt and branch are the latest seen, the first
/// prompt, working directory and start time the first.
///
/// ```
/// use claude_agent_tokio::store::{fold_session_summary, SessionKey};
/// use serde_json::json;
///
/// let key = SessionKey::new("proj", "sess");
/// let first = fold_session_summary(None, &key, &[
///     json!({"type": "user", "cwd": "/home/me/app", "timestamp": "2026-01-01T00:00:00.000Z",
///            "message": {"role": "user", "content": "fix the bug"}}),
/// ]);
/// let second = fold_session_summary(Some(&first), &key, &[
///     json!({"type": "custom-title", "customTitle": "Bug hunt", "sessionId": "sess"}),
/// ]);
/// assert_eq!(second.data["first_prompt"], "fix the bug");
/// assert_eq!(second.data["custom_title"], "Bug hunt");
/// assert_eq!(second.data["cwd"], "/home/me/app");
/// ```
pub fn fold_session_summary(
    prev: Option<&SessionSummary>,
    key: &SessionKey,
    entries: &[Value],
) -> SessionSummary {
    let mut summary = match prev {
        Some(prev) => prev.clone(),
        None => SessionSummary::new(key.session_id.clone(), 0, Map::new()),
    };
    let data = &mut summary.data;
    for entry in entries {
        if !data.contains_key("is_sidechain") {
            data.insert(
                "is_sidechain".into(),
                Value::Bool(entry["isSidechain"] == true),
            );
        }
        if !data.contains_key("created_at") {
            let created = entry["timestamp"]
                .as_str()
                .and_then(parse_timestamp)
                .map(super::epoch_ms);
            if let Some(ms) = created {
                data.insert("created_at".into(), ms.into());
            }
        }
        if !data.contains_key("cwd") {
            if let Some(cwd) = entry["cwd"].as_str().filter(|c| !c.is_empty()) {
                data.insert("cwd".into(), cwd.into());
            }
        }
        if data.get("first_prompt_locked") != Some(&Value::Bool(true)) {
            match prompt_of_entry(entry) {
                Some(Prompt::Typed(text)) => {
                    data.insert("first_prompt".into(), text.into());
                    data.insert("first_prompt_locked".into(), true.into());
                }
                Some(Prompt::Command(name)) if !data.contains_key("command_fallback") => {
                    data.insert("command_fallback".into(), name.into());
                }
                _ => {}
            }
        }
        for (from, to) in LAST_WINS {
            if let Some(value) = entry[from].as_str() {
                data.insert(to.into(), value.into());
            }
        }
        if entry["type"] == "tag" {
            match entry["tag"].as_str().filter(|t| !t.is_empty()) {
                Some(tag) => data.insert("tag".into(), tag.into()),
                None => data.remove("tag"),
            };
        }
    }
    summary
}

/// A text field of a summary's data, when present and not empty.
pub(crate) fn text<'a>(data: &'a Map<String, Value>, field: &str) -> Option<&'a str> {
    data.get(field)
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
}
