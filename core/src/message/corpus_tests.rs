//! The release corpus: every line the real CLI printed in the recordings kept in this repository
//! (`tests/transcripts/` of CLI 2.1.330, `tests/releases/<version>/`) is parsed, and any message
//! kind the types do not know, or field no typed message reads, must be listed in
//! `tests/releases/unread.txt` with the reason it is not modelled. A new CLI release's recordings
//! thus show what it added; a listed entry no recording has any more fails too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::raw::unread;
use super::{peek_tags, Message, SystemMessage};

/// Lines of the session's own protocol (the store mirror's frames among them), not messages.
const CONTROL: [&str; 5] = [
    "control_request",
    "control_response",
    "control_cancel_request",
    "keep_alive",
    "transcript_mirror",
];

/// A field's path with map keys that vary between recordings (model names) as `*`, or `None`
/// for the tags every line has, which the parser reads before the message.
fn normalised(path: &str) -> Option<String> {
    if path == "type" || path == "subtype" {
        return None;
    }
    let mut parts: Vec<&str> = path.split('.').collect();
    if let Some(at) = parts.iter().position(|part| *part == "modelUsage") {
        if at + 1 < parts.len() {
            parts[at + 1] = "*";
        }
    }
    Some(parts.join("."))
}

fn recordings() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    let mut folders = vec![root.join("transcripts"), root.join("releases")];
    while let Some(folder) = folders.pop() {
        for entry in
            std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `kind path` for each unread field, `kind` alone for an unknown kind, with the files it is in.
fn findings() -> BTreeMap<String, BTreeSet<String>> {
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in recordings() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        for entry in text.lines().filter(|line| !line.trim().is_empty()) {
            let entry: serde_json::Value = serde_json::from_str(entry).unwrap();
            if entry["dir"] != "out" {
                continue;
            }
            let line = entry["msg"].to_string();
            let tags = peek_tags(&line).unwrap();
            if CONTROL.contains(&tags.ty) {
                continue;
            }
            let kind = match tags.subtype {
                Some(subtype) if tags.ty == "system" => format!("{}/{subtype}", tags.ty),
                _ => tags.ty.to_owned(),
            };
            let (parsed, unread) = unread::collect(|| Message::parse(&line));
            let message = parsed.unwrap_or_else(|e| panic!("{name}: {kind}: {e}"));
            if matches!(
                message,
                Message::Unknown(_) | Message::System(SystemMessage::Unknown(_))
            ) {
                found
                    .entry(format!("{kind} (unknown kind)"))
                    .or_default()
                    .insert(name.clone());
            }
            for path in unread.iter().filter_map(|path| normalised(path)) {
                found
                    .entry(format!("{kind} {path}"))
                    .or_default()
                    .insert(name.clone());
            }
        }
    }
    found
}

#[test]
fn every_field_of_the_recordings_is_read_or_listed() {
    let listed_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/releases/unread.txt");
    let listed_text = std::fs::read_to_string(&listed_file).unwrap_or_default();
    let listed: BTreeSet<&str> = listed_text
        .lines()
        .map(|line| line.split(" #").next().unwrap_or("").trim())
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let found = findings();
    let new: Vec<String> = found
        .iter()
        .filter(|(finding, _)| !listed.contains(finding.as_str()))
        .map(|(finding, files)| {
            format!(
                "{finding}   (in {})",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    let stale: Vec<&&str> = listed
        .iter()
        .filter(|entry| !found.contains_key(**entry))
        .collect();
    assert!(
        new.is_empty() && stale.is_empty(),
        "the recordings have fields or kinds the types do not read: model them, or list them in \
         {} with the reason they stay raw:\n{}\nlisted but in no recording any more: {stale:?}",
        listed_file.display(),
        new.join("\n")
    );
}
