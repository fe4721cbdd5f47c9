//! A session's summary from the head and the tail of its transcript, without parsing it whole.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::clock::parse_timestamp;
use super::SessionInfo;

/// How much of the start and of the end of a transcript a listing reads.
pub(crate) const CHUNK: usize = 64 * 1024;

/// The head and tail of a transcript, with its size and modification time.
pub(crate) struct Lite {
    pub(crate) head: String,
    pub(crate) tail: String,
    pub(crate) size: u64,
    pub(crate) modified: std::time::SystemTime,
}

/// Reads the first and last [`CHUNK`] bytes of `path`; `None` when it cannot be read or is empty.
pub(crate) fn read_lite(path: &Path) -> Option<Lite> {
    let mut file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    let size = meta.len();
    if size == 0 || !meta.is_file() {
        return None;
    }
    let modified = meta.modified().ok()?;
    let mut buf = Vec::with_capacity(CHUNK.min(size as usize));
    (&mut file).take(CHUNK as u64).read_to_end(&mut buf).ok()?;
    let head = text(&buf);
    let tail = if size <= CHUNK as u64 {
        head.clone()
    } else {
        file.seek(SeekFrom::Start(size - CHUNK as u64)).ok()?;
        buf.clear();
        file.take(CHUNK as u64).read_to_end(&mut buf).ok()?;
        text(&buf)
    };
    Some(Lite {
        head,
        tail,
        size,
        modified,
    })
}

/// A chunk as text: without the pieces of a character cut at either end, and with any invalid
/// UTF-8 replaced (checked with SIMD first: the chunks are nearly always valid).
fn text(chunk: &[u8]) -> String {
    let start = chunk
        .iter()
        .take(3)
        .take_while(|&&b| b & 0xc0 == 0x80)
        .count();
    let mut chunk = &chunk[start..];
    if let Err(e) = simdutf8::compat::from_utf8(chunk) {
        if e.error_len().is_none() {
            chunk = &chunk[..e.valid_up_to()];
        }
    }
    match simdutf8::basic::from_utf8(chunk) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(chunk).into_owned(),
    }
}

/// The summary of a session from its head and tail; `None` for a subagent's transcript, or one
/// with nothing to show (no title, no prompt).
pub(crate) fn session_info(
    session_id: &str,
    path: PathBuf,
    lite: &Lite,
    project_cwd: Option<&Path>,
    archived: Option<bool>,
) -> Option<SessionInfo> {
    let Lite { head, tail, .. } = lite;
    let first_line = head.split('\n').next().unwrap_or("");
    if first_line.contains("\"isSidechain\":true") || first_line.contains("\"isSidechain\": true") {
        return None;
    }
    let custom_title = last_string_field(tail, "customTitle")
        .or_else(|| last_string_field(head, "customTitle"))
        .or_else(|| last_string_field(tail, "aiTitle"))
        .or_else(|| last_string_field(head, "aiTitle"))
        .filter(|t| !t.is_empty());
    let first_prompt = first_prompt(head);
    let summary = custom_title
        .clone()
        .or_else(|| last_string_field(tail, "lastPrompt").filter(|s| !s.is_empty()))
        .or_else(|| last_string_field(tail, "summary").filter(|s| !s.is_empty()))
        .or_else(|| first_prompt.clone())?;
    let git_branch = last_string_field(tail, "gitBranch")
        .or_else(|| string_field(head, "gitBranch"))
        .filter(|b| !b.is_empty());
    let cwd = string_field(head, "cwd")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| project_cwd.map(Path::to_path_buf));
    // Only `{"type":"tag"…}` lines: a bare "tag" key also appears in tool inputs.
    let tag = tail
        .rsplit('\n')
        .find(|line| line.starts_with("{\"type\":\"tag\""))
        .and_then(|line| last_string_field(line, "tag"))
        .filter(|t| !t.is_empty());
    let created = string_field(head, "timestamp").and_then(|t| parse_timestamp(&t));
    Some(SessionInfo {
        session_id: session_id.to_owned(),
        summary,
        custom_title,
        first_prompt,
        cwd,
        git_branch,
        tag,
        created,
        modified: lite.modified,
        file_size: Some(lite.size),
        path: Some(path),
        archived,
    })
}

/// The `CLAUDE_CODE_ENTRYPOINT`s of the SDKs, under which a program ran the session.
const SDK_ENTRYPOINTS: [&str; 4] = ["sdk-cli", "sdk-ts", "sdk-py", "sdk-rust"];

/// Whether a program ran the session: an SDK (its `entrypoint`), or the CLI's daemon (the
/// `sessionKind` of its first conversation entry).
pub(crate) fn programmatic(lite: &Lite) -> bool {
    let entrypoint = string_field(&lite.head, "entrypoint")
        .or_else(|| last_string_field(&lite.tail, "entrypoint"));
    if entrypoint.is_some_and(|e| SDK_ENTRYPOINTS.contains(&e.as_str())) {
        return true;
    }
    let first_entry = lite
        .head
        .split('\n')
        .find(|line| line.contains("\"parentUuid\":"))
        .unwrap_or(&lite.head);
    matches!(
        string_field(first_entry, "sessionKind").as_deref(),
        Some("daemon" | "daemon-worker")
    )
}

/// The value of the first `"key":"…"` in `text` (which may be cut anywhere), unescaped.
pub(crate) fn string_field(text: &str, key: &str) -> Option<String> {
    let pattern = format!("\"{key}\":");
    memchr::memmem::find_iter(text.as_bytes(), pattern.as_bytes())
        .find_map(|at| string_value(text, at + pattern.len()))
}

/// The value of the last `"key":"…"` in `text`, unescaped (searched from the end).
pub(crate) fn last_string_field(text: &str, key: &str) -> Option<String> {
    let pattern = format!("\"{key}\":");
    // The forward search is vectorised and the backward one is not: most keys are absent, and
    // the forward search says so fastest.
    memchr::memmem::find(text.as_bytes(), pattern.as_bytes())?;
    memchr::memmem::rfind_iter(text.as_bytes(), pattern.as_bytes())
        .find_map(|at| string_value(text, at + pattern.len()))
}

/// The string value that starts at `start` (after one optional space), if it is a string and
/// ends before the text does.
fn string_value(text: &str, mut start: usize) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.get(start) == Some(&b' ') {
        start += 1;
    }
    if bytes.get(start) != Some(&b'"') {
        return None;
    }
    let value_start = start + 1;
    let mut i = value_start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(unescape(&text[value_start..i])),
            _ => i += 1,
        }
    }
    None
}

fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_owned())
}

/// The first prompt a person typed, from the head of a transcript: the text of the first `user`
/// entry that is not a tool result, a meta or compaction entry, a slash command or a message the
/// CLI makes up; a slash command's name when there is nothing else. Newlines become spaces, and
/// past 200 characters it is cut and ends with `…`.
pub(crate) fn first_prompt(head: &str) -> Option<String> {
    let mut command = None;
    for line in head.split('\n') {
        if !(line.contains("\"type\":\"user\"") || line.contains("\"type\": \"user\""))
            || line.contains("\"tool_result\"")
            || line.contains("\"isMeta\":true")
            || line.contains("\"isMeta\": true")
            || line.contains("\"isCompactSummary\":true")
            || line.contains("\"isCompactSummary\": true")
        {
            continue;
        }
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        match prompt_of_entry(&entry) {
            Some(Prompt::Typed(text)) => return Some(text),
            Some(Prompt::Command(name)) => {
                command.get_or_insert(name);
            }
            None => {}
        }
    }
    command
}

/// What a transcript entry says about the session's first prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Prompt {
    /// Text a person typed, on one line and cut at 200 characters.
    Typed(String),
    /// Only a slash command, by name: the first prompt if nothing typed follows.
    Command(String),
}

/// The prompt in one transcript entry: the text of a `user` entry that is not a tool result, a
/// meta or compaction entry, or a message the CLI makes up; else a slash command's name.
pub(crate) fn prompt_of_entry(entry: &serde_json::Value) -> Option<Prompt> {
    if entry["type"] != "user" || entry["isMeta"] == true || entry["isCompactSummary"] == true {
        return None;
    }
    let texts: Vec<&str> = match &entry["message"]["content"] {
        serde_json::Value::String(text) => vec![text],
        serde_json::Value::Array(blocks) => {
            if blocks.iter().any(|b| b["type"] == "tool_result") {
                return None;
            }
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect()
        }
        _ => return None,
    };
    let mut command = None;
    for text in texts {
        let text = text.replace('\n', " ");
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(name) = between(text, "<command-name>", "</command-name>") {
            command.get_or_insert_with(|| name.to_owned());
            continue;
        }
        if made_up(text) {
            continue;
        }
        return Some(Prompt::Typed(match text.char_indices().nth(200) {
            Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
            None => text.to_owned(),
        }));
    }
    command.map(Prompt::Command)
}

fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(&text[start..start + len])
}

/// Text the CLI writes as a user message itself: command output, hook and tick markers, the
/// interruption notice, an IDE's file or selection note.
fn made_up(text: &str) -> bool {
    [
        "<local-command-stdout>",
        "<session-start-hook>",
        "<tick>",
        "<goal>",
    ]
    .iter()
    .any(|p| text.starts_with(p))
        || text
            .strip_prefix("[Request interrupted by user")
            .is_some_and(|rest| rest.contains(']'))
        || (text.starts_with("<ide_opened_file>") && text.ends_with("</ide_opened_file>"))
        || (text.starts_with("<ide_selection>") && text.ends_with("</ide_selection>"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cut_inside_a_character() {
        let bytes = "é→x→".as_bytes();
        assert_eq!(text(&bytes[1..bytes.len() - 1]), "→x");
        assert_eq!(text(b"a\xffb"), "a\u{fffd}b");
    }

    #[test]
    fn fields_without_a_full_parse() {
        let text = r#"{"cwd":"/a\"b","x":1}
{"cwd": "/second","summary":"cut off"#;
        assert_eq!(string_field(text, "cwd").as_deref(), Some("/a\"b"));
        assert_eq!(last_string_field(text, "cwd").as_deref(), Some("/second"));
        assert_eq!(string_field(text, "summary"), None);
        assert_eq!(
            string_field(r#"{"cwd":null,"cwd":"x"}"#, "cwd").as_deref(),
            Some("x")
        );
    }

    #[test]
    fn first_prompt_skips_what_a_person_did_not_type() {
        let head = [
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/init</command-name>"}}"#,
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"meta"}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":"[Request interrupted by user for tool use]"}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"fix\nthe bug"}]}}"#,
        ]
        .join("\n");
        assert_eq!(first_prompt(&head).as_deref(), Some("fix the bug"));
        assert_eq!(
            first_prompt(&head[..head.find("\n").unwrap()]).as_deref(),
            Some("/init")
        );
        let long = format!(
            r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
            "x".repeat(300)
        );
        assert_eq!(first_prompt(&long).unwrap().chars().count(), 201);
    }
}
