//! The history functions over synthetic configuration directories, and over transcripts the real
//! CLI wrote (`client/tests/history/`, made against the testkit's stub API).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::json;

use super::*;
use crate::message::{ContentBlock, MessageContent};

/// A configuration directory under the system temp dir, removed on drop.
struct TempConfig(PathBuf);

impl TempConfig {
    fn new() -> TempConfig {
        let dir = std::env::temp_dir().join(format!("claude-history-{}", crate::uuid::new_uuid()));
        std::fs::create_dir_all(dir.join("projects")).unwrap();
        TempConfig(dir)
    }

    fn history(&self) -> History {
        History::at(&self.0)
    }

    /// Writes a transcript of `entries` for a session that ran in `cwd`, modified at `age`
    /// seconds before now.
    fn session(&self, cwd: &str, id: &str, entries: &[serde_json::Value], age: u64) -> PathBuf {
        let folder = self.history().project_dir(cwd);
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(format!("{id}.jsonl"));
        // A string is a line written as is (key order kept, as the CLI writes metadata lines).
        let text: String = entries
            .iter()
            .map(|e| match e {
                serde_json::Value::String(line) if line.starts_with('{') => format!("{line}\n"),
                e => format!("{e}\n"),
            })
            .collect();
        std::fs::write(&path, text).unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(age))
            .unwrap();
        path
    }
}

impl Drop for TempConfig {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
const B: &str = "bbbbbbbb-0000-4000-8000-000000000002";
const C: &str = "cccccccc-0000-4000-8000-000000000003";

fn user(uuid: &str, parent: Option<&str>, text: &str) -> serde_json::Value {
    json!({"parentUuid": parent, "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": text}, "uuid": uuid,
        "timestamp": "2026-11-23T06:00:00.000Z", "cwd": "/work/app", "sessionId": A, "gitBranch": "main"})
}

fn assistant(
    uuid: &str,
    parent: &str,
    id: &str,
    block: serde_json::Value,
    ts: &str,
) -> serde_json::Value {
    json!({"parentUuid": parent, "isSidechain": false, "type": "assistant",
        "message": {"id": id, "role": "assistant", "model": "claude-opus-5-5", "content": [block]},
        "uuid": uuid, "timestamp": ts, "sessionId": A})
}

fn text(t: &str) -> serde_json::Value {
    json!({"type": "text", "text": t})
}

fn tool_result(uuid: &str, parent: &str, call: &str, ts: &str) -> serde_json::Value {
    json!({"parentUuid": parent, "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": "ok"}]},
        "uuid": uuid, "timestamp": ts, "sessionId": A, "sourceToolAssistantUUID": parent})
}

fn texts(messages: &[SessionMessage]) -> Vec<String> {
    messages
        .iter()
        .map(|m| match &m.message {
            Message::User(u) => match &u.content {
                MessageContent::Text(t) => format!("user: {t}"),
                MessageContent::Blocks(blocks) => blocks
                    .iter()
                    .map(|b| match b {
                        ContentBlock::ToolResult(r) => format!("result {}", r.tool_use_id),
                        other => format!("{other:?}"),
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                other => format!("{other:?}"),
            },
            Message::Assistant(a) => a
                .message
                .content
                .iter()
                .map(|b| match b {
                    ContentBlock::Text(t) => format!("claude: {}", t.text),
                    ContentBlock::ToolUse(u) => format!("call {}", u.id),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join(","),
            other => format!("{other:?}"),
        })
        .collect()
}

/// The official SDKs keep an entry on the chain whatever its other fields hold, as long as its
/// `type` is a chain type and its `uuid` a string. Here a numeric timestamp, no `message`, a
/// numeric `message.id`, a `null` flag, a message that is a string and a number no float holds
/// do not break the walk: all eight come back, in order.
#[test]
fn entries_with_odd_fields_stay_on_the_chain() {
    let config = TempConfig::new();
    let mut entries = vec![user("u1", None, "one")];
    let mut odd = |uuid: &str, parent: &str, change: &dyn Fn(&mut serde_json::Value)| {
        let mut entry = user(uuid, Some(parent), uuid);
        change(&mut entry);
        entries.push(entry);
    };
    odd("u2", "u1", &|_| {});
    odd("u3", "u2", &|e| e["timestamp"] = json!(1_700_000_000));
    odd("u4", "u3", &|e| {
        e.as_object_mut().unwrap().remove("message");
    });
    odd("u5", "u4", &|e| {
        e["type"] = json!("assistant");
        e["message"] = json!({"id": 42, "role": "assistant", "content": [text("five")]});
    });
    odd("u6", "u5", &|e| e["isSidechain"] = json!(null));
    odd("u7", "u6", &|e| e["message"] = json!("text"));
    let path = config.session("/work/app", A, &entries, 0);
    let eighth = format!(
        r#"{{"parentUuid":"u7","type":"assistant","uuid":"u8","sessionId":"{A}","message":{{"id":"m8","role":"assistant","content":[{{"type":"tool_use","id":"t8","name":"Calc","input":{{"x":1e999}}}}]}}}}"#
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(format!("{eighth}\n").as_bytes())
        .unwrap();
    let messages = config
        .history()
        .session(A, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    let uuids: Vec<&str> = messages.iter().map(|m| m.uuid.as_str()).collect();
    assert_eq!(uuids, ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8"]);
}

#[test]
fn lists_newest_first_with_titles_tags_and_pages() {
    let config = TempConfig::new();
    config.session(
        "/work/app",
        A,
        &[
            user("u1", None, "first prompt"),
            json!(write::metadata_line("tag", "tag", "keep", A).trim_end()),
        ],
        30,
    );
    config.session(
        "/work/app",
        B,
        &[
            user("u1", None, "<command-name>/init</command-name>"),
            json!({"type":"custom-title","customTitle":"Named","sessionId":B}),
        ],
        10,
    );
    config.session("/work/other", C, &[user("u1", None, "elsewhere")], 20);
    // Not sessions: a subagent's transcript, a file with nothing to show, a name that is no id.
    let folder = config.history().project_dir("/work/app");
    std::fs::write(
        folder.join("dddddddd-0000-4000-8000-000000000004.jsonl"),
        format!(
            "{}\n",
            json!({"isSidechain": true, "type": "user", "message": {"content": "x"}})
        ),
    )
    .unwrap();
    std::fs::write(
        folder.join("eeeeeeee-0000-4000-8000-000000000005.jsonl"),
        "{\"type\":\"mode\"}\n",
    )
    .unwrap();
    std::fs::write(
        folder.join("notes.jsonl"),
        format!("{}\n", user("u", None, "x")),
    )
    .unwrap();

    let history = config.history();
    let all = history.list_sessions(&ListSessions::all()).unwrap();
    let ids: Vec<&str> = all.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [B, C, A]);
    let named = &all[0];
    assert_eq!(
        (named.summary.as_str(), named.custom_title.as_deref()),
        ("Named", Some("Named"))
    );
    assert_eq!(named.first_prompt.as_deref(), Some("/init"));
    let first = &all[2];
    assert_eq!(first.summary, "first prompt");
    assert_eq!(first.tag.as_deref(), Some("keep"));
    assert_eq!(first.cwd.as_deref(), Some(Path::new("/work/app")));
    assert_eq!(first.git_branch.as_deref(), Some("main"));
    assert_eq!(
        first.created,
        clock::parse_timestamp("2026-11-23T06:00:00.000Z")
    );
    assert!(first.file_size.is_some_and(|size| size > 0));
    assert!(first
        .path
        .as_ref()
        .is_some_and(|path| path.ends_with(format!("{A}.jsonl"))));

    let app = history
        .list_sessions(&ListSessions::in_dir("/work/app").include_worktrees(false))
        .unwrap();
    assert_eq!(
        app.iter()
            .map(|s| s.session_id.as_str())
            .collect::<Vec<_>>(),
        [B, A]
    );
    let page = history
        .list_sessions(&ListSessions::all().offset(1).limit(1))
        .unwrap();
    assert_eq!(page[0].session_id, C);
    assert!(history
        .list_sessions(&ListSessions::in_dir("/work/none"))
        .unwrap()
        .is_empty());

    // The same session in two folders is listed once, the newer copy.
    config.session("/work/copy", A, &[user("u1", None, "copied prompt")], 0);
    let all = history.list_sessions(&ListSessions::all()).unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all[0].first_prompt.as_deref(), Some("copied prompt"));
}

#[test]
fn session_info_by_id() {
    let config = TempConfig::new();
    config.session("/work/app", A, &[user("u1", None, "hello")], 0);
    let history = config.history();
    assert_eq!(
        history
            .session(A, None)
            .and_then(|s| s.info())
            .unwrap()
            .summary,
        "hello"
    );
    assert_eq!(
        history
            .session(A, Some(Path::new("/work/app")))
            .and_then(|s| s.info())
            .unwrap()
            .session_id,
        A
    );
    let err = history
        .session(A, Some(Path::new("/work/other")))
        .and_then(|s| s.info())
        .unwrap_err();
    assert!(matches!(err, HistoryError::NotFound { .. }));
    assert!(err.to_string().contains("-work-other"), "{err}");
    assert!(matches!(
        history.session("../x", None).and_then(|s| s.info()),
        Err(HistoryError::InvalidId { .. })
    ));
}

#[test]
fn conversation_follows_the_chain_from_the_last_message() {
    let config = TempConfig::new();
    let entries = [
        json!({"type": "queue-operation", "operation": "enqueue", "sessionId": A}),
        user("u1", None, "question"),
        json!({"parentUuid": "u1", "type": "attachment", "uuid": "at1", "attachment": {"type": "date"}, "sessionId": A}),
        assistant(
            "a1",
            "at1",
            "msg_1",
            text("answer"),
            "2026-11-23T06:00:01.000Z",
        ),
        // An abandoned branch (the question was edited), then the branch the session went on with.
        user("u2", Some("a1"), "abandoned"),
        assistant(
            "a2",
            "u2",
            "msg_2",
            text("old reply"),
            "2026-11-23T06:00:02.000Z",
        ),
        user("u3", Some("a1"), "edited"),
        json!({"parentUuid": "u3", "isMeta": true, "type": "user", "message": {"role": "user", "content": "meta"}, "uuid": "m1", "sessionId": A}),
        assistant(
            "a3",
            "m1",
            "msg_3",
            text("new reply"),
            "2026-11-23T06:00:03.000Z",
        ),
        json!({"parentUuid": "a3", "isSidechain": true, "type": "assistant", "uuid": "s1", "message": {"id": "msg_s", "content": [text("side")]}, "sessionId": A}),
        json!({"type": "system", "subtype": "compact_boundary", "parentUuid": "a3", "uuid": "cb", "sessionId": A}),
        json!({"type": "last-prompt", "lastPrompt": "edited", "sessionId": A}),
        json!("not an object"),
    ];
    let path = config.session("/work/app", A, &entries, 0);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{cut off\n")
        .unwrap();
    let history = config.history();
    let messages = history
        .session(A, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(
        texts(&messages),
        [
            "user: question",
            "claude: answer",
            "user: edited",
            "claude: new reply"
        ]
    );
    assert_eq!(messages[1].uuid, "a1");
    assert_eq!(messages[1].parent_uuid.as_deref(), Some("at1"));
    assert_eq!(messages[1].session_id, A);
    assert_eq!(
        messages[1].timestamp.as_deref(),
        Some("2026-11-23T06:00:01.000Z")
    );
    let page = history
        .session(A, None)
        .and_then(|s| {
            s.messages(Page {
                limit: Some(2),
                offset: 1,
                ..Page::ALL
            })
        })
        .unwrap();
    assert_eq!(texts(&page), ["claude: answer", "user: edited"]);
    assert_eq!(info_summary(&history), "edited");
}

fn info_summary(history: &History) -> String {
    history
        .session(A, None)
        .and_then(|s| s.info())
        .unwrap()
        .summary
}

use std::io::Write as _;

#[test]
fn parallel_tool_calls_come_back_whole() {
    // One reply with two calls (two entries sharing msg_1), each result a child of its own
    // call; the next reply follows the second result, so the chain alone misses call 1's result.
    let config = TempConfig::new();
    let entries = [
        user("u1", None, "run both"),
        assistant(
            "a1",
            "u1",
            "msg_1",
            json!({"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}),
            "2026-11-23T06:00:01.000Z",
        ),
        assistant(
            "a2",
            "a1",
            "msg_1",
            json!({"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}),
            "2026-11-23T06:00:01.100Z",
        ),
        tool_result("r1", "a1", "t1", "2026-11-23T06:00:02.000Z"),
        tool_result("r2", "a2", "t2", "2026-11-23T06:00:02.100Z"),
        assistant(
            "a3",
            "r2",
            "msg_2",
            text("both done"),
            "2026-11-23T06:00:03.000Z",
        ),
    ];
    config.session("/work/app", A, &entries, 0);
    let messages = config
        .history()
        .session(A, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(
        texts(&messages),
        [
            "user: run both",
            "call t1",
            "call t2",
            "result t1",
            "result t2",
            "claude: both done"
        ]
    );

    // The chain ending on the first call's branch: the second call and its result come back.
    let entries = [
        user("u1", None, "run both"),
        assistant(
            "a1",
            "u1",
            "msg_1",
            json!({"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}),
            "2026-11-23T06:00:01.000Z",
        ),
        assistant(
            "a2",
            "a1",
            "msg_1",
            json!({"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}),
            "2026-11-23T06:00:01.100Z",
        ),
        tool_result("r2", "a2", "t2", "2026-11-23T06:00:02.000Z"),
        tool_result("r1", "a1", "t1", "2026-11-23T06:00:02.100Z"),
        assistant(
            "a3",
            "r1",
            "msg_2",
            text("both done"),
            "2026-11-23T06:00:03.000Z",
        ),
    ];
    config.session("/work/app", B, &entries, 0);
    let messages = config
        .history()
        .session(B, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(
        texts(&messages),
        [
            "user: run both",
            "call t1",
            "call t2",
            "result t2",
            "result t1",
            "claude: both done"
        ]
    );
}

/// The archive mark: written owner-only beside the transcript, read back, and outdone by a
/// prompt written after it (a CLI that did not rewrite the mark) but not by one before it.
/// Sessions a person ran at the terminal stay listed without the programmatic ones; the CLI's
/// daemon sessions are programmatic too.
#[test]
fn programmatic_sessions_are_told_apart() {
    let config = TempConfig::new();
    config.session(
        "/work/app",
        A,
        &[user("u1", None, "typed at the terminal")],
        0,
    );
    let mut daemon = user("d1", None, "scheduled");
    daemon["sessionKind"] = json!("daemon");
    daemon["sessionId"] = json!(B);
    config.session("/work/app", B, &[daemon], 10);
    let history = config.history();
    let ids = |list: ListSessions| -> Vec<String> {
        history
            .list_sessions(&list)
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    assert_eq!(ids(ListSessions::in_dir("/work/app")), [A, B]);
    assert_eq!(
        ids(ListSessions::in_dir("/work/app").include_programmatic(false)),
        [A]
    );
}

#[test]
fn archiving_and_a_later_prompt() {
    let config = TempConfig::new();
    let path = config.session("/work/app", A, &[user("u1", None, "first")], 0);
    let history = config.history();
    let session = history.session(A, None).unwrap();
    assert_eq!(session.info().unwrap().archived, None);
    session.archive().unwrap();
    assert_eq!(session.info().unwrap().archived, Some(true));
    let mark = path.with_extension("").join("archived.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&mark).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&mark).unwrap()).unwrap();
    assert_eq!(
        (written["archived"].clone(), written["by"].clone()),
        (json!(true), json!("sdk"))
    );
    session.unarchive().unwrap();
    assert_eq!(session.info().unwrap().archived, Some(false));

    // A mark at a known time, and a prompt after it in the transcript.
    std::fs::write(
        &mark,
        r#"{"archived":true,"at":"2026-11-23T07:00:00.000Z","by":"cli"}"#,
    )
    .unwrap();
    assert_eq!(session.info().unwrap().archived, Some(true));
    let mut later = user("u2", Some("u1"), "second");
    later["timestamp"] = json!("2026-11-23T08:00:00.000Z");
    let mut tool_result = user("u3", Some("u2"), "ignored");
    tool_result["message"]["content"] =
        json!([{"type": "tool_result", "tool_use_id": "t", "content": "x"}]);
    tool_result["timestamp"] = json!("2026-11-23T09:00:00.000Z");
    let append = |entry: serde_json::Value| {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(file, "{entry}").unwrap();
    };
    append(tool_result);
    assert_eq!(
        session.info().unwrap().archived,
        Some(true),
        "a tool result is no prompt"
    );
    append(later);
    assert_eq!(session.info().unwrap().archived, Some(false));
}

#[test]
fn subagents() {
    let config = TempConfig::new();
    let path = config.session("/work/app", A, &[user("u1", None, "delegate")], 0);
    let folder = path.with_extension("").join("subagents");
    std::fs::create_dir_all(folder.join("workflows/run1")).unwrap();
    let sub = |agent: &str| {
        [
            json!({"parentUuid": null, "isSidechain": true, "agentId": agent, "type": "user", "message": {"role": "user", "content": "task"}, "uuid": "s1", "sessionId": A}),
            json!({"parentUuid": "s1", "isSidechain": true, "agentId": agent, "type": "assistant", "message": {"id": "m", "content": [text("done")]}, "uuid": "s2", "sessionId": A}),
        ]
        .iter()
        .map(|e| format!("{e}\n"))
        .collect::<String>()
    };
    std::fs::write(folder.join("agent-a1.jsonl"), sub("a1")).unwrap();
    std::fs::write(folder.join("workflows/run1/agent-b2.jsonl"), sub("b2")).unwrap();
    let history = config.history();
    assert_eq!(
        history
            .session(A, None)
            .and_then(|s| s.subagents())
            .unwrap(),
        ["a1", "b2"]
    );
    let messages = history
        .session(A, None)
        .and_then(|s| s.subagent_messages("b2", Page::ALL))
        .unwrap();
    assert_eq!(texts(&messages), ["user: task", "claude: done"]);
    // Without the CLI's `.meta.json`, nothing says who started it.
    assert!(messages
        .iter()
        .all(|m| m.parent_tool_use_id.is_none() && m.parent_agent_id.is_none()));
    // With it (as CLI 2.1.331 writes it for an agent that another one started).
    std::fs::write(
        folder.join("workflows/run1/agent-b2.meta.json"),
        json!({"agentType": "general-purpose", "toolUseId": "toolu_9", "parentAgentId": "a1", "spawnDepth": 2}).to_string(),
    )
    .unwrap();
    let messages = history
        .session(A, None)
        .and_then(|s| s.subagent_messages("b2", Page::ALL))
        .unwrap();
    assert!(messages
        .iter()
        .all(|m| m.parent_tool_use_id.as_deref() == Some("toolu_9")
            && m.parent_agent_id.as_deref() == Some("a1")));
    let err = history
        .session(A, None)
        .and_then(|s| s.subagent_messages("zz", Page::ALL))
        .unwrap_err();
    assert!(
        matches!(err, HistoryError::SubagentNotFound { .. }),
        "{err}"
    );
    // Subagents' transcripts are not sessions of their own, nor part of the conversation.
    assert_eq!(
        history.list_sessions(&ListSessions::all()).unwrap().len(),
        1
    );
    assert_eq!(
        texts(
            &history
                .session(A, None)
                .and_then(|s| s.messages(Page::ALL))
                .unwrap()
        ),
        ["user: delegate"]
    );
}

#[test]
fn rename_tag_delete() {
    let config = TempConfig::new();
    let path = config.session("/work/app", A, &[user("u1", None, "hello")], 0);
    std::fs::create_dir_all(path.with_extension("").join("subagents")).unwrap();
    let history = config.history();
    history
        .session(A, None)
        .and_then(|s| s.rename("  First title "))
        .unwrap();
    history
        .session(A, Some(Path::new("/work/app")))
        .and_then(|s| s.rename("Second \"title\""))
        .unwrap();
    history
        .session(A, None)
        .and_then(|s| s.tag(Some("\u{200b}wip\u{feff}")))
        .unwrap();
    let info = history.session(A, None).and_then(|s| s.info()).unwrap();
    assert_eq!(info.summary, "Second \"title\"");
    assert_eq!(info.tag.as_deref(), Some("wip"));
    let last = std::fs::read_to_string(&path).unwrap();
    assert!(
        last.ends_with(&format!(
            "{{\"type\":\"tag\",\"tag\":\"wip\",\"sessionId\":\"{A}\"}}\n"
        )),
        "{last}"
    );
    history.session(A, None).and_then(|s| s.tag(None)).unwrap();
    assert_eq!(
        history.session(A, None).and_then(|s| s.info()).unwrap().tag,
        None
    );
    assert!(matches!(
        history.session(A, None).and_then(|s| s.rename(" ")),
        Err(HistoryError::Empty { what: "title" })
    ));
    assert!(matches!(
        history.session(B, None).and_then(|s| s.rename("x")),
        Err(HistoryError::NotFound { .. })
    ));

    history.session(A, None).and_then(|s| s.delete()).unwrap();
    assert!(!path.exists() && !path.with_extension("").exists());
    assert!(matches!(
        history.session(A, None).and_then(|s| s.delete()),
        Err(HistoryError::NotFound { .. })
    ));
}

/// Progress entries whose parents loop (a damaged or hostile transcript) do not hold the fork
/// for ever: the entry after them is copied with no parent.
#[test]
fn a_loop_of_progress_parents_ends_the_fork_walk() {
    let config = TempConfig::new();
    let entries = [
        user("u1", None, "question"),
        json!({"parentUuid": "p2", "type": "progress", "uuid": "p1", "sessionId": A}),
        json!({"parentUuid": "p1", "type": "progress", "uuid": "p2", "sessionId": A}),
        json!({"parentUuid": "p3", "type": "progress", "uuid": "p3", "sessionId": A}),
        assistant(
            "a1",
            "p1",
            "msg_1",
            text("answer"),
            "2026-11-23T06:00:01.000Z",
        ),
        assistant(
            "a2",
            "p3",
            "msg_2",
            text("again"),
            "2026-11-23T06:00:02.000Z",
        ),
    ];
    config.session("/work/app", A, &entries, 0);
    let history = config.history();
    let fork = history
        .session(A, None)
        .and_then(|s| s.fork(ForkOptions::new()))
        .unwrap();
    let path = history
        .project_dir("/work/app")
        .join(format!("{fork}.jsonl"));
    let copied: Vec<serde_json::Value> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|entry: &serde_json::Value| entry["type"] == "assistant")
        .collect();
    assert_eq!(copied.len(), 2);
    assert!(copied.iter().all(|entry| entry["parentUuid"].is_null()));
}

/// Symbolic links to folders among a session's subagent folders are not followed: two links to
/// `.` would make the walk take about 2^40 paths.
#[cfg(unix)]
#[test]
fn subagent_folders_linked_to_themselves_are_walked_once() {
    let config = TempConfig::new();
    let path = config.session("/work/app", A, &[user("u1", None, "delegate")], 0);
    let folder = path.with_extension("").join("subagents");
    std::fs::create_dir_all(&folder).unwrap();
    let line = json!({"parentUuid": null, "isSidechain": true, "agentId": "a1", "type": "user",
        "message": {"role": "user", "content": "task"}, "uuid": "s1", "sessionId": A});
    std::fs::write(folder.join("agent-a1.jsonl"), format!("{line}\n")).unwrap();
    for name in ["x", "y"] {
        std::os::unix::fs::symlink(".", folder.join(name)).unwrap();
    }
    let history = config.history();
    assert_eq!(
        history
            .session(A, None)
            .and_then(|s| s.subagents())
            .unwrap(),
        ["a1"]
    );
}

#[test]
fn fork_copies_the_conversation_with_new_ids() {
    let config = TempConfig::new();
    let entries = [
        user("u1", None, "question"),
        json!({"parentUuid": "u1", "type": "progress", "uuid": "p1", "sessionId": A}),
        assistant(
            "a1",
            "p1",
            "msg_1",
            text("answer"),
            "2026-11-23T06:00:01.000Z",
        ),
        user("u2", Some("a1"), "follow-up"),
        assistant(
            "a2",
            "u2",
            "msg_2",
            text("second answer"),
            "2026-11-23T06:00:02.000Z",
        ),
        json!({"type": "content-replacement", "sessionId": A, "replacements": [{"id": 1}]}),
        json!({"type": "custom-title", "customTitle": "Original", "sessionId": A}),
    ];
    let path = config.session("/work/app", A, &entries, 0);
    let history = config.history();

    let fork = history
        .session(A, None)
        .and_then(|s| s.fork(ForkOptions::new()))
        .unwrap();
    assert!(clock::is_uuid(&fork) && fork != A);
    let info = history
        .session(&fork, Some(Path::new("/work/app")))
        .and_then(|s| s.info())
        .unwrap();
    assert_eq!(info.custom_title.as_deref(), Some("Original (fork)"));
    let messages = history
        .session(&fork, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(
        texts(&messages),
        [
            "user: question",
            "claude: answer",
            "user: follow-up",
            "claude: second answer"
        ]
    );
    assert!(messages
        .iter()
        .all(|m| m.session_id == fork && !["u1", "a1", "u2", "a2"].contains(&m.uuid.as_str())));
    // The progress entry is not copied: the answer follows the question directly.
    assert_eq!(
        messages[1].parent_uuid.as_deref(),
        Some(messages[0].uuid.as_str())
    );
    let raw: serde_json::Value = serde_json::from_str(messages[3].message.raw_json()).unwrap();
    assert_eq!(
        raw["forkedFrom"],
        json!({"sessionId": A, "messageUuid": "a2"})
    );
    let text_of_fork =
        std::fs::read_to_string(path.with_file_name(format!("{fork}.jsonl"))).unwrap();
    assert!(
        text_of_fork.contains("\"replacements\":[{\"id\":1}]"),
        "{text_of_fork}"
    );

    let partial = history
        .session(A, None)
        .and_then(|s| s.fork(ForkOptions::new().up_to("a1")))
        .unwrap();
    let messages = history
        .session(&partial, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(texts(&messages), ["user: question", "claude: answer"]);

    let missing = "ffffffff-0000-4000-8000-000000000006";
    assert!(matches!(
        history
            .session(A, None)
            .and_then(|s| s.fork(ForkOptions::new().up_to(missing))),
        Err(HistoryError::MessageNotFound { .. })
    ));
    assert_eq!(
        history.list_sessions(&ListSessions::all()).unwrap().len(),
        3
    );
}

#[test]
fn long_paths_share_a_folder_by_prefix() {
    let config = TempConfig::new();
    let long = format!("/work/{}", "deep/".repeat(60));
    let history = config.history();
    // Written under another hash suffix than ours (as a CLI with another hash function would).
    let ours = history.project_dir(&long);
    let name = ours.file_name().unwrap().to_string_lossy().into_owned();
    let theirs = ours.with_file_name(format!("{}-otherhash", &name[..200]));
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(
        theirs.join(format!("{A}.jsonl")),
        format!("{}\n", user("u1", None, "deep")),
    )
    .unwrap();
    let sessions = history
        .list_sessions(&ListSessions::in_dir(&long).include_worktrees(false))
        .unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        history
            .session(A, Some(Path::new(&long)))
            .and_then(|s| s.info())
            .unwrap()
            .summary,
        "deep"
    );
}

/// Transcripts the real CLI (2.1.330) wrote against the stub API: a two-turn session (the second
/// turn by `--resume`) and a session that ran a Bash command.
#[test]
fn real_cli_transcripts() {
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/history");
    let history = History::at(&recorded);
    let two_turns = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";
    let bash = "cbeb2b35-efb1-4ab1-9199-973a77be2065";

    let sessions = history
        .list_sessions(&ListSessions::in_dir("/tmp/rt/work").include_worktrees(false))
        .unwrap();
    let mut ids: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [two_turns, bash]);
    // An SDK ran both (`"entrypoint":"sdk-cli"`): a picker for people lists neither.
    let typed = history
        .list_sessions(
            &ListSessions::in_dir("/tmp/rt/work")
                .include_worktrees(false)
                .include_programmatic(false),
        )
        .unwrap();
    assert!(typed.is_empty(), "{typed:?}");
    let info = history
        .session(two_turns, None)
        .and_then(|s| s.info())
        .unwrap();
    assert_eq!(info.first_prompt.as_deref(), Some("first question"));
    assert_eq!(info.summary, "second question"); // the last prompt
    assert_eq!(info.cwd.as_deref(), Some(Path::new("/tmp/rt/work")));
    assert_eq!(info.git_branch.as_deref(), Some("HEAD"));
    // The first timestamp of the file: the prompt's queueing, just before the prompt.
    assert_eq!(
        info.created,
        clock::parse_timestamp("2026-11-23T06:03:37.201Z")
    );

    let messages = history
        .session(two_turns, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(
        texts(&messages),
        [
            "user: first question",
            "claude: echo: first question",
            "user: second question",
            "claude: echo: second question"
        ]
    );
    let Message::Assistant(reply) = &messages[1].message else {
        panic!()
    };
    assert_eq!(reply.model(), Some("claude-opus-5-5"));
    assert_eq!(reply.uuid(), Some(messages[1].uuid.as_str()));

    let messages = history
        .session(bash, None)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(
        texts(&messages),
        [
            "user: run `echo hi` in the shell",
            "call toolu_stub_2_0",
            "result toolu_stub_2_0",
            "claude: done: `echo hi` → hi"
        ]
    );
    let Message::User(result) = &messages[2].message else {
        panic!()
    };
    let output: serde_json::Value =
        serde_json::from_str(result.tool_use_result().unwrap_or("null")).unwrap();
    assert_eq!(
        output,
        serde_json::Value::Null,
        "transcripts name it toolUseResult"
    );
    let raw: serde_json::Value = serde_json::from_str(result.raw_json()).unwrap();
    assert_eq!(raw["toolUseResult"]["stdout"], "hi");
}

/// A session the real CLI (2.1.331) compacted with `/compact` after three turns, then went on:
/// the compaction kept the last reply (`compactMetadata.preservedSegment`), and the model's
/// next request carried the summary, that reply, then the new turn. Reading the session gives
/// the same order.
#[test]
fn a_compaction_keeps_the_messages_it_preserved_after_its_summary() {
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/history");
    let session = History::at(&recorded)
        .session(
            "f56c78c5-030a-4661-bfd2-b413006c7ab9",
            Some(Path::new("/tmp/rt/compact")),
        )
        .unwrap();
    let messages = session.messages(Page::ALL).unwrap();
    let said: Vec<String> = texts(&messages)
        .into_iter()
        .map(|t| t.chars().take(40).collect())
        .collect();
    assert_eq!(
        said,
        [
            "user: This session is being continued fr",
            "claude: echo: third question",
            "user: <command-name>/compact</command-na",
            "user: <local-command-stdout>Compacted </",
            "user: after compaction",
            "claude: echo: <local-command-caveat>The ",
        ]
    );

    let with_system = session.messages(Page::ALL.with_system_messages()).unwrap();
    let Message::System(crate::message::SystemMessage::CompactBoundary(boundary)) =
        &with_system[0].message
    else {
        panic!("{:?}", with_system[0].message)
    };
    let metadata: serde_json::Value =
        serde_json::from_str(boundary.compact_metadata.as_ref().unwrap().as_str()).unwrap();
    assert_eq!(metadata["trigger"], "manual");
    assert_eq!(
        with_system.len(),
        messages.len() + 1,
        "{:?}",
        texts(&with_system)
    );
    let page = session
        .messages(Page {
            offset: 1,
            limit: Some(1),
            system_messages: true,
        })
        .unwrap();
    assert_eq!(page[0].uuid, messages[0].uuid);

    // A fork keeps the compaction's kept messages after the summary.
    let config = TempConfig::new();
    let folder = config.0.join("projects/-tmp-rt-compact");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        session.path(),
        folder.join("f56c78c5-030a-4661-bfd2-b413006c7ab9.jsonl"),
    )
    .unwrap();
    let dir = Some(Path::new("/tmp/rt/compact"));
    let fork = config
        .history()
        .session("f56c78c5-030a-4661-bfd2-b413006c7ab9", dir)
        .and_then(|s| s.fork(ForkOptions::new()))
        .unwrap();
    let forked = config
        .history()
        .session(&fork, dir)
        .and_then(|s| s.messages(Page::ALL))
        .unwrap();
    assert_eq!(texts(&forked), texts(&messages));
}
