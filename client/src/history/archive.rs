//! A session's archive mark: `<project>/<session id>/archived.json` beside its transcript, as
//! the CLI and the official SDKs keep it. A prompt sent after the mark unarchives the session.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Deserialize;

use super::clock::{format_timestamp, parse_timestamp};
use super::lite::{prompt_of_entry, Lite};
use super::{io_error, HistoryError};
use crate::private_files;

/// The largest mark read: the CLI's are a few dozen bytes.
const MARK_LIMIT: u64 = 4096;

/// Where the mark of the session whose transcript is `transcript` lives.
fn mark_path(transcript: &Path) -> PathBuf {
    transcript.with_extension("").join("archived.json")
}

/// Writes the mark: archived or not, as of now, by this SDK. Owner-only, never through a link.
pub(crate) fn set(transcript: &Path, archived: bool) -> Result<(), HistoryError> {
    let path = mark_path(transcript);
    let folder = transcript.with_extension("");
    private_files::create_dir_all(&folder).map_err(io_error(&folder))?;
    let mark = serde_json::json!({
        "archived": archived,
        "at": format_timestamp(SystemTime::now()),
        "by": "sdk",
    });
    private_files::write(&path, mark.to_string().as_bytes()).map_err(io_error(&path))
}

/// Whether the session is archived: `None` if it never was (or the mark cannot be read),
/// `Some(false)` if it was unarchived or a prompt came after the mark.
pub(crate) fn archived(transcript: &Path, lite: &Lite) -> Option<bool> {
    #[derive(Deserialize)]
    struct Mark {
        archived: bool,
        at: String,
    }
    let mut text = String::new();
    std::fs::File::open(mark_path(transcript))
        .ok()?
        .take(MARK_LIMIT + 1)
        .read_to_string(&mut text)
        .ok()?;
    if text.len() as u64 > MARK_LIMIT {
        return None;
    }
    let mark: Mark = serde_json::from_str(&text).ok()?;
    let at = parse_timestamp(&mark.at)?;
    if !mark.archived {
        return Some(false);
    }
    let prompted =
        prompt_after(&lite.tail, at) || (lite.head != lite.tail && prompt_after(&lite.head, at));
    Some(!prompted)
}

/// Whether `text` (a chunk of a transcript) has a prompt (typed, or queued while a turn ran)
/// written after `at`.
fn prompt_after(text: &str, at: SystemTime) -> bool {
    text.split('\n').any(|line| {
        if !(line.contains("\"user\"") || line.contains("\"queued_command\""))
            || line.contains("\"tool_result\"")
        {
            return false;
        }
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else {
            return false;
        };
        let queued =
            entry["type"] == "attachment" && entry["attachment"]["type"] == "queued_command";
        let prompt = entry["isSidechain"] != true && (queued || prompt_of_entry(&entry).is_some());
        prompt
            && entry["timestamp"]
                .as_str()
                .and_then(parse_timestamp)
                .is_some_and(|written| written > at)
    })
}
