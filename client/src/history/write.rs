//! Changes to stored sessions: metadata entries appended to a transcript, and forks.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use serde_json::{json, Map, Value};
use unicode_normalization::UnicodeNormalization;

use super::clock::format_timestamp;
use super::{io_error, lite, HistoryError};
use crate::uuid::new_uuid;

/// A metadata line as the CLI writes it: `{"type":…,"<key>":…,"sessionId":…}`, `type` first
/// (listings find tag lines by their start).
pub(crate) fn metadata_line(ty: &str, key: &str, value: &str, session_id: &str) -> String {
    let value = Value::from(value);
    format!("{{\"type\":\"{ty}\",\"{key}\":{value},\"sessionId\":\"{session_id}\"}}\n")
}

/// Appends `line` to an existing transcript (never creating one).
pub(crate) fn append(path: &Path, line: &str) -> Result<(), HistoryError> {
    let mut file = OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io_error(path))?;
    file.write_all(line.as_bytes()).map_err(io_error(path))
}

/// A tag as the official SDKs keep it: in Unicode NFKC (so a tag typed with full-width or
/// composed characters is the same tag), without the characters that do not show (format
/// characters such as zero-width spaces, direction marks and the byte order mark; private use;
/// unassigned code points), repeated until nothing changes, then trimmed.
pub(crate) fn clean_tag(tag: &str) -> String {
    let mut current = tag.to_owned();
    // NFKC of a removal can compose anew; ten rounds settle any real input.
    for _ in 0..10 {
        let next: String = current.nfkc().filter(|&c| shows(c)).collect();
        if next == current {
            break;
        }
        current = next;
    }
    current.trim().to_owned()
}

/// Whether a character shows: assigned, not private use (`is_public_assigned`), and not a
/// format character (general category Cf).
fn shows(c: char) -> bool {
    unicode_normalization::char::is_public_assigned(c)
        && !matches!(c,
            '\u{00ad}' | '\u{0600}'..='\u{0605}' | '\u{061c}' | '\u{06dd}' | '\u{070f}'
            | '\u{0890}'..='\u{0891}' | '\u{08e2}' | '\u{180e}' | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}'
            | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{110bd}' | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}' | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}' | '\u{e0020}'..='\u{e007f}')
}

/// The entry kinds a fork copies (those that are links of the conversation chain).
const COPIED: [&str; 5] = ["user", "assistant", "attachment", "system", "progress"];

/// Writes a copy of the session at `path` next to it, with new ids, titled `title` or after the
/// original, and returns the new id.
pub(crate) fn fork(
    session_id: &str,
    path: &Path,
    up_to: Option<&str>,
    title: Option<&str>,
) -> Result<String, HistoryError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    let text = String::from_utf8_lossy(&bytes);
    let fork = fork_lines(session_id, &text, up_to, title).map_err(|refused| match refused {
        ForkRefused::MessageNotFound => HistoryError::MessageNotFound {
            session_id: session_id.to_owned(),
            uuid: up_to.unwrap_or_default().to_owned(),
            path: path.to_path_buf(),
        },
        ForkRefused::NothingToFork => HistoryError::NothingToFork {
            session_id: session_id.to_owned(),
            path: path.to_path_buf(),
        },
    })?;
    let target = path.with_file_name(format!("{}.jsonl", fork.session_id));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&target).map_err(io_error(&target))?;
    file.write_all(fork.lines.concat().as_bytes())
        .map_err(io_error(&target))?;
    Ok(fork.session_id)
}

/// A fork, not yet written: its id and its transcript lines (each ending in a newline).
pub(crate) struct Fork {
    pub(crate) session_id: String,
    pub(crate) lines: Vec<String>,
}

/// Why a session cannot be forked.
pub(crate) enum ForkRefused {
    /// The `up_to` message is not on the conversation.
    MessageNotFound,
    /// The session has no message to copy.
    NothingToFork,
}

/// The copy of the transcript `text` of `session_id`: its entries up to `up_to` with new ids,
/// titled `title` or after the original.
pub(crate) fn fork_lines(
    session_id: &str,
    text: &str,
    up_to: Option<&str>,
    title: Option<&str>,
) -> Result<Fork, ForkRefused> {
    let mut entries: Vec<Map<String, Value>> = Vec::new();
    let mut replacements: Vec<Value> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let ty = entry.get("type").and_then(Value::as_str).unwrap_or("");
        if COPIED.contains(&ty) && entry.get("uuid").is_some_and(Value::is_string) {
            if entry.get("isSidechain") != Some(&Value::Bool(true)) {
                entries.push(entry);
            }
        } else if ty == "content-replacement"
            && entry.get("sessionId").and_then(Value::as_str) == Some(session_id)
        {
            if let Some(Value::Array(r)) = entry.get("replacements") {
                replacements.extend(r.iter().cloned());
            }
        }
    }
    let uuid_of = |e: &Map<String, Value>| e["uuid"].as_str().unwrap_or("").to_owned();
    if let Some(up_to) = up_to {
        let cut = entries
            .iter()
            .position(|e| uuid_of(e) == up_to)
            .ok_or(ForkRefused::MessageNotFound)?;
        entries.truncate(cut + 1);
    }
    let is_progress =
        |e: &Map<String, Value>| e.get("type").and_then(Value::as_str) == Some("progress");
    if entries.iter().all(is_progress) {
        return Err(ForkRefused::NothingToFork);
    }

    let new_ids: HashMap<String, String> =
        entries.iter().map(|e| (uuid_of(e), new_uuid())).collect();
    let by_uuid: HashMap<String, &Map<String, Value>> =
        entries.iter().map(|e| (uuid_of(e), e)).collect();
    let fork_id = new_uuid();
    let now = format_timestamp(SystemTime::now());
    let written: Vec<&Map<String, Value>> = entries.iter().filter(|e| !is_progress(e)).collect();
    let mut lines = Vec::with_capacity(written.len() + 2);
    for (i, original) in written.iter().enumerate() {
        let old = uuid_of(original);
        // The parent, past any progress entries (which are not copied).
        let mut parent = original
            .get("parentUuid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut new_parent = None;
        // At most one step an entry: progress entries whose parents loop (a damaged or hostile
        // transcript) end the walk instead of holding it for ever.
        for _ in 0..by_uuid.len() {
            let Some(p) = parent else { break };
            let Some(entry) = by_uuid.get(&p) else { break };
            if !is_progress(entry) {
                new_parent = new_ids.get(&p).cloned();
                break;
            }
            parent = entry
                .get("parentUuid")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        let mut entry = (*original).clone();
        for key in ["teamName", "agentName", "slug", "sourceToolAssistantUUID"] {
            entry.remove(key);
        }
        let logical = match original.get("logicalParentUuid") {
            Some(Value::String(l)) => new_ids.get(l).cloned().map_or(Value::Null, Value::String),
            other => other.cloned().unwrap_or(Value::Null),
        };
        let timestamp = match original.get("timestamp") {
            Some(t) if i + 1 < written.len() => t.clone(),
            _ => Value::from(now.as_str()),
        };
        entry.insert("uuid".into(), Value::from(new_ids[&old].as_str()));
        entry.insert(
            "parentUuid".into(),
            new_parent.map_or(Value::Null, Value::String),
        );
        entry.insert("logicalParentUuid".into(), logical);
        if let Some(Value::Object(compaction)) = entry.get_mut("compactMetadata") {
            renumber_preserved(compaction, &new_ids);
        }
        entry.insert("sessionId".into(), Value::from(fork_id.as_str()));
        entry.insert("timestamp".into(), timestamp);
        entry.insert("isSidechain".into(), Value::Bool(false));
        entry.insert(
            "forkedFrom".into(),
            json!({"sessionId": session_id, "messageUuid": old}),
        );
        lines.push(format!("{}\n", Value::Object(entry)));
    }
    if !replacements.is_empty() {
        let line = json!({
            "type": "content-replacement",
            "sessionId": fork_id,
            "replacements": replacements,
            "uuid": new_uuid(),
            "timestamp": now,
        });
        lines.push(format!("{line}\n"));
    }
    let title = title.map_or_else(|| format!("{} (fork)", fork_title(text)), str::to_owned);
    // With its own uuid and the fork's time, as the official SDKs write it: a store keys and
    // orders what it keeps by them.
    lines.push(format!(
        "{{\"type\":\"custom-title\",\"sessionId\":\"{fork_id}\",\"customTitle\":{},\"uuid\":\"{}\",\"timestamp\":{}}}\n",
        Value::from(title),
        new_uuid(),
        Value::from(now.as_str()),
    ));
    Ok(Fork {
        session_id: fork_id,
        lines,
    })
}

/// Gives the messages a compaction kept (`preservedSegment`, `preservedMessages`) their ids in
/// the fork, so that the CLI puts them back after the summary when it resumes the fork.
fn renumber_preserved(compaction: &mut Map<String, Value>, new_ids: &HashMap<String, String>) {
    let renumber = |value: Option<&mut Value>| {
        if let Some(value) = value {
            if let Some(new) = value.as_str().and_then(|old| new_ids.get(old)) {
                *value = Value::from(new.as_str());
            }
        }
    };
    if let Some(Value::Object(segment)) = compaction.get_mut("preservedSegment") {
        for key in ["headUuid", "anchorUuid", "tailUuid"] {
            renumber(segment.get_mut(key));
        }
    }
    if let Some(Value::Object(kept)) = compaction.get_mut("preservedMessages") {
        renumber(kept.get_mut("anchorUuid"));
        for key in ["uuids", "allUuids"] {
            if let Some(Value::Array(ids)) = kept.get_mut(key) {
                ids.iter_mut().for_each(|id| renumber(Some(id)));
            }
        }
    }
}

/// The original's title (its own, or the one the CLI generated), else its first prompt.
fn fork_title(text: &str) -> String {
    let head = &text[..floor_boundary(text, lite::CHUNK)];
    let tail = &text[ceil_boundary(text, text.len().saturating_sub(lite::CHUNK))..];
    lite::last_string_field(tail, "customTitle")
        .or_else(|| lite::last_string_field(head, "customTitle"))
        .or_else(|| lite::last_string_field(tail, "aiTitle"))
        .or_else(|| lite::last_string_field(head, "aiTitle"))
        .filter(|t| !t.is_empty())
        .or_else(|| lite::first_prompt(head))
        .unwrap_or_else(|| "Forked session".to_owned())
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}
