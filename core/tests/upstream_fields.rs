//! Every field of the official SDKs maps to this crate, or says why not.
//!
//! `tests/releases/upstream/<cli-version>/sdk-fields.txt` lists every declaration, field (at any
//! depth) and string-union value of the TypeScript SDK's `sdk.d.ts` for that CLI release, and
//! `python-fields.txt` every class, field and value of the Python SDK's `types.py`; both are
//! written by `scripts/upstream-diff extract`. `tests/releases/upstream/map.txt` maps each row of
//! the newest release to an item of the public API snapshots (`api/claude-agent-core.txt`, and
//! `api/claude-agent-client.txt` as `client::…`) or to
//! a reason (its header gives the syntax). These tests fail, listing every case, on a row no map
//! line covers, on an item the snapshot does not have, on a line that matches no row, on a
//! pattern given twice and on an unknown reason. A new upstream field fails until it is typed
//! here or listed with its reason; `scripts/upstream-diff map` adds the lines it can find.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

const CATEGORIES: &[&str] = &[
    "tag",
    "json",
    "string",
    "not typed",
    "internal",
    "other shape",
    "runtime only",
];

fn upstream_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/releases/upstream")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The release folders (`2.1.332`), oldest first.
fn versions() -> Vec<String> {
    let mut found: Vec<(Vec<u32>, String)> = fs::read_dir(upstream_dir())
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let parts: Option<Vec<u32>> = name.split('.').map(|p| p.parse().ok()).collect();
            parts.filter(|p| p.len() == 3).map(|p| (p, name))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, name)| name).collect()
}

/// The key of a row: `Type.field` for `Type.field?: string`, the whole row for a value row
/// (`Type.field = 'value'`).
fn row_key(row: &str) -> &str {
    let colon = row.find(": ");
    match (row.find(" = "), colon) {
        (Some(equals), Some(colon)) if equals < colon => row,
        (Some(_), None) => row,
        (_, Some(colon)) => row[..colon].trim_end_matches('?'),
        (None, None) => row,
    }
}

/// key -> row of an extract.
fn rows(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| (row_key(line).to_owned(), line.to_owned()))
        .collect()
}

/// Every row key of a release: the TypeScript ones, and the Python ones as `py:KEY`.
fn release_keys(version: &str) -> BTreeSet<String> {
    let dir = upstream_dir().join(version);
    let mut keys: BTreeSet<String> = rows(&read(&dir.join("sdk-fields.txt")))
        .into_keys()
        .collect();
    keys.extend(
        rows(&read(&dir.join("python-fields.txt")))
            .into_keys()
            .map(|key| format!("py:{key}")),
    );
    keys
}

struct MapLine {
    number: usize,
    pattern: String,
    targets: Vec<String>,
    reason: Option<String>,
}

impl MapLine {
    fn prefix(&self) -> Option<&str> {
        self.pattern.strip_suffix('*')
    }

    fn matches(&self, key: &str) -> bool {
        match self.prefix() {
            Some(prefix) => key.starts_with(prefix),
            None => key == self.pattern,
        }
    }
}

/// `a::B, c::D { e, f }` split at the commas outside braces.
fn split_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut current) = (0, String::new());
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(current.trim().to_owned());
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

fn map_lines() -> Vec<MapLine> {
    let mut out = Vec::new();
    for (index, line) in read(&upstream_dir().join("map.txt")).lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let arrow = line.find(" -> ");
        let hash = line.find(" # ");
        let parsed = match (arrow, hash) {
            (Some(arrow), hash) if hash.is_none_or(|hash| arrow < hash) => {
                let rest = &line[arrow + 4..];
                let targets = rest.split(" # ").next().unwrap();
                MapLine {
                    number: index + 1,
                    pattern: line[..arrow].trim().to_owned(),
                    targets: split_targets(targets),
                    reason: None,
                }
            }
            (_, Some(hash)) => MapLine {
                number: index + 1,
                pattern: line[..hash].trim().to_owned(),
                targets: Vec::new(),
                reason: Some(line[hash + 3..].trim().to_owned()),
            },
            _ => panic!("map.txt:{}: neither `->` nor `#`: {line}", index + 1),
        };
        out.push(parsed);
    }
    out
}

/// The items of the API snapshots of the core and the client layer: path without
/// `claude_agent_core::` (the client's with `client::` in place of `claude_agent_client::`) ->
/// the rest of its line.
fn api_items() -> HashMap<String, String> {
    let mut items = HashMap::new();
    for (file, krate, prefix) in [
        ("claude-agent-core.txt", "claude_agent_core::", ""),
        (
            "claude-agent-client.txt",
            "claude_agent_client::",
            "client::",
        ),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../api")
            .join(file);
        for line in read(&path).lines() {
            if !(line.starts_with("pub ") || line.starts_with("#[non_exhaustive] pub ")) {
                continue;
            }
            let Some(start) = line.find(krate) else {
                continue;
            };
            let tail = &line[start + krate.len()..];
            let mut end = 0;
            let bytes = tail.as_bytes();
            while end < bytes.len() {
                let c = bytes[end];
                if c.is_ascii_alphanumeric() || c == b'_' {
                    end += 1;
                } else if tail[end..].starts_with("::") {
                    end += 2;
                } else {
                    break;
                }
            }
            let name = tail[..end].trim_end_matches(':');
            items
                .entry(format!("{prefix}{name}"))
                .or_insert_with(|| tail[name.len()..].to_owned());
        }
    }
    items
}

/// Whether a map target is in the snapshot: `path`, or `path { field, … }` for fields of an
/// enum variant.
fn target_exists(items: &HashMap<String, String>, target: &str) -> bool {
    let (path, fields) = match target.split_once(" {") {
        Some((path, fields)) => (path.trim(), fields.trim_end_matches('}')),
        None => (target.trim(), ""),
    };
    let Some(rest) = items.get(path) else {
        return false;
    };
    fields
        .split(',')
        .map(str::trim)
        .filter(|field| !field.is_empty())
        .all(|field| {
            rest.contains(&format!("{{ {field}: ")) || rest.contains(&format!(", {field}: "))
        })
}

#[test]
fn every_upstream_row_maps_to_an_item_or_a_reason() {
    let newest = versions()
        .pop()
        .expect("no release under tests/releases/upstream");
    let keys = release_keys(&newest);
    let lines = map_lines();
    let items = api_items();
    let mut problems = Vec::new();

    let exact: HashSet<&str> = lines
        .iter()
        .filter(|line| line.prefix().is_none())
        .map(|line| line.pattern.as_str())
        .collect();
    let prefixes: Vec<&str> = lines.iter().filter_map(MapLine::prefix).collect();
    for key in &keys {
        if !exact.contains(key.as_str()) && !prefixes.iter().any(|p| key.starts_with(p)) {
            problems.push(format!(
                "not mapped: `{key}` (type it, or add a map line with its reason)"
            ));
        }
    }

    let mut seen = HashSet::new();
    for line in &lines {
        let at = format!("map.txt:{}", line.number);
        if !seen.insert(line.pattern.as_str()) {
            problems.push(format!("{at}: `{}` is mapped twice", line.pattern));
        }
        if !keys.iter().any(|key| line.matches(key)) {
            problems.push(format!(
                "{at}: `{}` matches no row of {newest} (stale)",
                line.pattern
            ));
        }
        for target in &line.targets {
            if !target_exists(&items, target) {
                problems.push(format!(
                    "{at}: `{target}` is not in api/claude-agent-core.txt or api/claude-agent-client.txt"
                ));
            }
        }
        if let Some(reason) = &line.reason {
            let category = reason.split(':').next().unwrap();
            if !reason.contains(':') || !CATEGORIES.contains(&category) {
                problems.push(format!(
                    "{at}: the reason `{reason}` does not start with one of {CATEGORIES:?} and `:`"
                ));
            }
        }
        if line.targets.is_empty() && line.reason.is_none() {
            problems.push(format!("{at}: no item and no reason"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems with tests/releases/upstream/map.txt against {newest} \
         (scripts/upstream-diff map adds the lines it can find):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// What changed from 2.1.331 to 2.1.332, row by row: the extract sees a new nested field, not
/// only the top-level lists.
#[test]
fn the_extracts_show_what_changed_in_2_1_332() {
    let (old, new) = (
        upstream_dir().join("2.1.331"),
        upstream_dir().join("2.1.332"),
    );
    let diff = |name: &str| {
        let (before, after) = (rows(&read(&old.join(name))), rows(&read(&new.join(name))));
        let added: Vec<&str> = after
            .keys()
            .filter(|key| !before.contains_key(*key))
            .map(String::as_str)
            .collect();
        let removed: Vec<String> = before
            .keys()
            .filter(|key| !after.contains_key(*key))
            .cloned()
            .collect();
        let changed: Vec<String> = after
            .iter()
            .filter(|(key, row)| before.get(*key).is_some_and(|old| old != *row))
            .map(|(key, _)| key.clone())
            .collect();
        (added.join("\n"), removed, changed)
    };

    let (added, removed, changed) = diff("sdk-fields.txt");
    assert_eq!(
        added,
        "HOOK_EVENTS = 'PreSkillShellCommand'\n\
         HookEvent = 'PreSkillShellCommand'\n\
         PreSkillShellCommandHookInput\n\
         PreSkillShellCommandHookInput.command_name\n\
         PreSkillShellCommandHookInput.command_source\n\
         PreSkillShellCommandHookInput.hook_event_name\n\
         PreSkillShellCommandHookInput.invoked_by\n\
         PreSkillShellCommandHookInput.invoked_by = 'claude'\n\
         PreSkillShellCommandHookInput.invoked_by = 'other'\n\
         PreSkillShellCommandHookInput.invoked_by = 'user'\n\
         PreSkillShellCommandHookInput.tool_input\n\
         PreSkillShellCommandHookInput.tool_input.command\n\
         PreSkillShellCommandHookInput.tool_name\n\
         PreSkillShellCommandHookInput.tool_use_id\n\
         PreSkillShellCommandHookSpecificOutput\n\
         PreSkillShellCommandHookSpecificOutput.hookEventName\n\
         PreSkillShellCommandHookSpecificOutput.permissionDecision\n\
         PreSkillShellCommandHookSpecificOutput.permissionDecisionReason\n\
         PreSkillShellCommandHookSpecificOutput.updatedInput\n\
         ResolvedSettings.machinePolicy.registryPolicyDifferedFromFingerprint\n\
         SDKControlSetPermissionModeResponse\n\
         SDKControlSetPermissionModeResponse.mode"
    );
    assert_eq!(removed, Vec::<String>::new());
    assert_eq!(
        changed,
        [
            "HOOK_EVENTS",
            "HookEvent",
            "HookInput",
            "Query.setPermissionMode()",
            "SyncHookJSONOutput.hookSpecificOutput",
        ]
    );

    let (added, removed, changed) = diff("python-fields.txt");
    assert_eq!(
        (added.as_str(), removed, changed),
        ("", Vec::new(), Vec::new())
    );
}
