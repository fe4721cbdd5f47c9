//! The typed tools against what CLI 2.1.331 sent for each (`core/tests/tools/2.1.331.jsonl`:
//! the `PreToolUse`, `PostToolUse` and `PostToolUseFailure` hook inputs and the `can_use_tool`
//! requests of one session that called them, against the testkit's stub API).

use serde_json::Value;

use super::*;

/// The recorded calls: (tool name, input, response when the line has one).
fn recorded() -> Vec<(String, Json, Option<Json>)> {
    include_str!("../../tests/tools/2.1.331.jsonl")
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            (
                value["tool_name"].as_str().unwrap().to_owned(),
                Json::from(value["tool_input"].clone()),
                value.get("tool_response").cloned().map(Json::from),
            )
        })
        .collect()
}

/// Every recorded input of a typed tool parses as its type; the others stay as sent.
#[test]
fn every_recorded_input_is_typed() {
    let mut typed = std::collections::BTreeSet::new();
    for (name, input, _) in recorded() {
        let call = BuiltinTool::parse(&name, &input);
        assert_eq!(call.name(), name);
        if let BuiltinTool::Other { .. } = call {
            panic!("{name} was not typed: {input}");
        }
        typed.insert(name);
    }
    assert_eq!(
        typed.into_iter().collect::<Vec<_>>(),
        [
            "Agent",
            "AskUserQuestion",
            "Bash",
            "Edit",
            "NotebookEdit",
            "Read",
            "WebFetch",
            "WebSearch",
            "Write"
        ]
    );
}

/// Every recorded result of a tool with a typed result parses as its type; `Agent`'s stays as
/// sent.
#[test]
fn every_recorded_output_is_typed() {
    let mut seen = Vec::new();
    for (name, _, response) in recorded() {
        let Some(response) = response else { continue };
        let output = BuiltinOutput::parse(&name, &response);
        match (&output, name.as_str()) {
            (BuiltinOutput::Other { name, .. }, "Agent") => assert_eq!(name, "Agent"),
            (BuiltinOutput::Other { .. }, _) => panic!("{name} was not typed: {response}"),
            _ => {}
        }
        seen.push(output);
    }
    let reads: Vec<&ReadOutput> = seen
        .iter()
        .filter_map(|o| match o {
            BuiltinOutput::Read(read) => Some(read),
            _ => None,
        })
        .collect();
    assert!(
        matches!(reads[0], ReadOutput::Text(text) if text.file.content == "hello\nworld\n" && text.file.total_lines == 3)
    );
    assert!(matches!(reads[1], ReadOutput::Notebook(nb) if nb.file.cells.len() == 1));
    let writes: Vec<&WriteOutput> = seen
        .iter()
        .filter_map(|o| match o {
            BuiltinOutput::Write(write) => Some(write),
            _ => None,
        })
        .collect();
    assert_eq!(writes[0].kind, WriteKind::Create);
    assert_eq!(writes[0].original_file, None);
    let edit = seen
        .iter()
        .find_map(|o| match o {
            BuiltinOutput::Edit(edit) => Some(edit),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        edit.structured_patch[0].lines,
        [" hello", "-world", "+there"]
    );
    let notebook = seen
        .iter()
        .find_map(|o| match o {
            BuiltinOutput::NotebookEdit(nb) => Some(nb),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        (notebook.edit_mode.clone(), notebook.error.clone()),
        (NotebookEditMode::Replace, None)
    );
    let background = seen
        .iter()
        .filter_map(|o| match o {
            BuiltinOutput::Bash(bash) => bash.background_task_id.as_deref(),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(background, ["bhxrkmflw"]);
    let answered = seen
        .iter()
        .find_map(|o| match o {
            BuiltinOutput::AskUserQuestion(asked) => Some(asked),
            _ => None,
        })
        .unwrap();
    assert_eq!(answered.answers["Which one?"], "A");
}

/// An input that does not fit its tool's type, and a tool this crate does not type, come back
/// as sent.
#[test]
fn what_does_not_fit_is_kept_as_sent() {
    let odd: Json = r#"{"command":42}"#.parse().unwrap();
    assert_eq!(
        BuiltinTool::parse("Bash", &odd),
        BuiltinTool::Other {
            name: "Bash".into(),
            input: odd.clone()
        }
    );
    let mcp = BuiltinOutput::parse("mcp__calc__add", &odd);
    assert!(
        matches!(mcp, BuiltinOutput::Other { name, response } if name == "mcp__calc__add" && response == odd)
    );
    let image: Json =
        r#"{"type":"image","file":{"base64":"","type":"image/png","originalSize":0}}"#
            .parse()
            .unwrap();
    assert!(matches!(
        BuiltinOutput::parse("Read", &image),
        BuiltinOutput::Read(ReadOutput::Other(raw)) if raw == image
    ));
    assert_eq!(
        NotebookCellType::from_name("raw"),
        NotebookCellType::Other(UnknownName::new("raw"))
    );
}
