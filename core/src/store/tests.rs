use std::path::Path;

use serde_json::{json, Value};

use super::*;
use crate::history::Page;

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    futures_lite::future::block_on(future)
}

fn user(text: &str) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": text}})
}

#[test]
fn the_summary_keeps_first_values_and_the_latest_titles() {
    let key = SessionKey::new("proj", "sess");
    let first = fold_session_summary(
        None,
        &key,
        &[
            json!({"type": "user", "isMeta": true, "message": {"content": "meta"}}),
            json!({"type": "user", "cwd": "/a", "gitBranch": "main",
                   "timestamp": "2026-01-01T00:00:00.000Z",
                   "message": {"content": "<command-name>/init</command-name>"}}),
        ],
    );
    assert_eq!(first.session_id, "sess");
    assert_eq!(first.mtime, 0, "the store stamps it");
    assert_eq!(first.data["command_fallback"], "/init");
    assert!(!first.data.contains_key("first_prompt"));
    assert_eq!(first.data["created_at"], 1_767_225_600_000u64);
    assert_eq!(first.data["is_sidechain"], false);

    let mut stamped = first.clone();
    stamped.mtime = 42;
    let second = fold_session_summary(
        Some(&stamped),
        &key,
        &[
            json!({"type": "user", "cwd": "/b", "gitBranch": "dev",
                   "message": {"content": [{"type": "tool_result", "content": "x"}]}}),
            user("the real\nquestion"),
            user("a later one"),
            json!({"type": "tag", "tag": "kept"}),
            json!({"type": "ai-title", "aiTitle": "Generated"}),
        ],
    );
    assert_eq!(second.mtime, 42, "the fold keeps the store's time");
    assert_eq!(second.data["first_prompt"], "the real question");
    assert_eq!(second.data["cwd"], "/a");
    assert_eq!(second.data["git_branch"], "dev");
    assert_eq!(second.data["tag"], "kept");
    let cleared = fold_session_summary(Some(&second), &key, &[json!({"type": "tag", "tag": ""})]);
    assert!(!cleared.data.contains_key("tag"));
}

#[test]
fn a_sidechain_session_is_marked_from_its_first_entry() {
    let key = SessionKey::new("proj", "agent");
    let summary = fold_session_summary(None, &key, &[json!({"type": "user", "isSidechain": true})]);
    assert_eq!(summary.data["is_sidechain"], true);
}

#[test]
fn listing_prefers_titles_and_skips_sidechains_and_empty_sessions() {
    let store = InMemorySessionStore::new();
    let dir = Path::new("/nonexistent/listing");
    let project = project_key_for_directory(Some(dir));
    block_on(async {
        let key = |id: &str| SessionKey::new(project.clone(), id);
        store
            .append(&key("a"), &[user("first question")])
            .await
            .unwrap();
        store
            .append(
                &key("b"),
                &[
                    user("second"),
                    json!({"type": "custom-title", "customTitle": "Named"}),
                ],
            )
            .await
            .unwrap();
        store
            .append(
                &key("c"),
                &[json!({"type": "user", "isSidechain": true, "message": {"content": "x"}})],
            )
            .await
            .unwrap();
        store
            .append(&key("d"), &[json!({"type": "summary"})])
            .await
            .unwrap();
        let listed = list_sessions(&store, Some(dir), Page::ALL).await.unwrap();
        let shown: Vec<(&str, &str)> = listed
            .iter()
            .map(|s| (s.session_id.as_str(), s.summary.as_str()))
            .collect();
        assert_eq!(shown, [("b", "Named"), ("a", "first question")]);
        assert_eq!(listed[1].cwd.as_deref(), Some(dir), "the directory listed");
        let page = list_sessions(
            &store,
            Some(dir),
            Page {
                limit: Some(1),
                offset: 1,
            },
        )
        .await
        .unwrap();
        assert_eq!(page[0].session_id, "a");
    });
}

/// A store with only the required methods is listed by loading each session: but it cannot
/// list, so listing fails with `Unsupported`.
#[test]
fn listing_needs_list_sessions_or_summaries() {
    struct Minimal(InMemorySessionStore);
    impl SessionStore for Minimal {
        fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
            self.0.append(key, entries)
        }
        fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            self.0.load(key)
        }
    }
    let error = block_on(list_sessions(
        &Minimal(InMemorySessionStore::new()),
        None,
        Page::ALL,
    ))
    .unwrap_err();
    assert!(error.is_unsupported(), "{error}");
}

#[test]
fn keys_that_would_leave_the_store_directory_are_refused() {
    let root = std::env::temp_dir().join(format!("store-keys-{}", std::process::id()));
    let store = FileSessionStore::new(&root);
    for key in [
        SessionKey::new("..", "s"),
        SessionKey::new("p", "a/b"),
        SessionKey::new("p", "s").with_subpath("../../etc"),
        SessionKey::new("p", "s").with_subpath(""),
        SessionKey::new("", "s"),
    ] {
        let error = block_on(store.append(&key, &[json!({})])).unwrap_err();
        assert!(
            matches!(error, StoreError::InvalidKey { .. }),
            "{key}: {error}"
        );
    }
    assert!(!root.exists());
}

#[test]
fn transcript_paths_become_keys() {
    let projects = Path::new("/c/projects");
    let key = |p: &str| SessionKey::from_transcript_path(Path::new(p), projects);
    assert_eq!(
        key("/c/projects/-a/s.jsonl"),
        Some(SessionKey::new("-a", "s"))
    );
    assert_eq!(
        key("/c/projects/-a/s/subagents/nested/agent-1.jsonl"),
        Some(SessionKey::new("-a", "s").with_subpath("subagents/nested/agent-1"))
    );
    assert_eq!(key("/c/projects/-a/.jsonl"), None);
    assert_eq!(key("/c/projects/s.jsonl"), None);
    assert_eq!(key("/c/projects/-a/../x/s.jsonl"), None);
    assert_eq!(key("/other/-a/s.jsonl"), None);
}

#[test]
fn messages_read_from_a_store_are_the_typed_conversation() {
    let store = InMemorySessionStore::new();
    let dir = Path::new("/nonexistent/read");
    let id = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";
    let key = SessionKey::new(project_key_for_directory(Some(dir)), id);
    let entries = [
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id,
               "timestamp": "2026-01-01T00:00:00.000Z",
               "message": {"role": "user", "content": "hi"}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": id,
               "timestamp": "2026-01-01T00:00:01.000Z",
               "message": {"id": "m1", "role": "assistant", "model": "claude-opus-5-5",
                           "content": [{"type": "text", "text": "hello"}]}}),
    ];
    block_on(store.append(&key, &entries)).unwrap();
    let messages = block_on(session_messages(&store, id, Some(dir), Page::ALL)).unwrap();
    let uuids: Vec<&str> = messages.iter().map(|m| m.uuid.as_str()).collect();
    assert_eq!(uuids, ["u1", "a1"]);
    assert!(matches!(
        messages[1].message,
        crate::message::Message::Assistant(_)
    ));
    let none = block_on(session_messages(&store, "other", Some(dir), Page::ALL)).unwrap();
    assert!(none.is_empty());
}
