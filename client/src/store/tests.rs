use std::path::Path;

use serde_json::{json, Value};

use super::*;
use crate::history::{ForkOptions, ListSessions, Page};

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
        let history = StoreHistory::new(&store);
        let listed = history
            .list_sessions(&ListSessions::in_dir(dir))
            .await
            .unwrap();
        let shown: Vec<(&str, &str)> = listed
            .iter()
            .map(|s| (s.session_id.as_str(), s.summary.as_str()))
            .collect();
        assert_eq!(shown, [("b", "Named"), ("a", "first question")]);
        assert_eq!(listed[1].cwd.as_deref(), Some(dir), "the directory listed");
        assert_eq!(
            (
                listed[1].path.as_deref(),
                listed[1].file_size,
                listed[1].archived
            ),
            (None, None, None),
            "a store has no file"
        );
        let page = history
            .list_sessions(&ListSessions::in_dir(dir).offset(1).limit(1))
            .await
            .unwrap();
        assert_eq!(page.len(), 1);
        assert_eq!(page[0].session_id, "a");
        let disk_only = ListSessions::in_dir(dir)
            .include_worktrees(false)
            .include_programmatic(false);
        assert_eq!(
            history.list_sessions(&disk_only).await.unwrap(),
            listed,
            "the disk-only flags change nothing"
        );
        for left_out in ["c", "d"] {
            let info = history.session(left_out, Some(dir)).info().await;
            assert!(
                matches!(info, Err(StoreError::NotFound { .. })),
                "{left_out}: {info:?}"
            );
        }
    });
}

/// An in-memory store with summaries that can be held back or left behind, loads that can
/// fail, and a count of loads.
struct Shaped {
    inner: InMemorySessionStore,
    /// Summaries are supported.
    summaries: bool,
    /// Summaries listed on top of the inner store's (a session deleted but its summary left).
    left_behind: Vec<SessionSummary>,
    /// Sessions whose summary is missing.
    unsummarised: Vec<String>,
    /// Sessions whose load fails.
    failing: Vec<String>,
    loads: std::sync::atomic::AtomicUsize,
}

impl Shaped {
    fn new(summaries: bool) -> Shaped {
        Shaped {
            inner: InMemorySessionStore::new(),
            summaries,
            left_behind: Vec::new(),
            unsummarised: Vec::new(),
            failing: Vec::new(),
            loads: Default::default(),
        }
    }

    fn loads(&self) -> usize {
        self.loads.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl SessionStore for Shaped {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        self.inner.append(key, entries)
    }
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        self.loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if self.failing.contains(&key.session_id) {
            return Box::pin(std::future::ready(Err(StoreError::backend(
                std::io::Error::other("the backend is down"),
            ))));
        }
        self.inner.load(key)
    }
    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<SessionListing>> {
        self.inner.list_sessions(project_key)
    }
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        if !self.summaries {
            return Box::pin(std::future::ready(Err(StoreError::Unsupported {
                operation: "list_session_summaries",
            })));
        }
        Box::pin(async move {
            let mut summaries = self.inner.list_session_summaries(project_key).await?;
            summaries.retain(|s| !self.unsummarised.contains(&s.session_id));
            summaries.extend(self.left_behind.iter().cloned());
            Ok(summaries)
        })
    }
}

/// A session id no store here has.
const OTHER: &str = "99999999-0000-4000-8000-000000000009";
const S1: &str = "11111111-0000-4000-8000-000000000001";
const S2: &str = "22222222-0000-4000-8000-000000000002";
const S3: &str = "33333333-0000-4000-8000-000000000003";

fn fill(store: &Shaped, project: &str, ids: &[&str]) {
    for id in ids {
        block_on(store.append(&SessionKey::new(project, *id), &[user(id)])).unwrap();
    }
}

/// The official SDKs list a session whose load fails with its id and time and an empty
/// summary: one failing session does not fail the listing.
#[test]
fn a_session_that_fails_to_load_is_still_listed() {
    let dir = Path::new("/nonexistent/failing");
    let project = project_key_for_directory(Some(dir));
    for summaries in [false, true] {
        let mut store = Shaped::new(summaries);
        fill(&store, &project, &[S1, S2]);
        store.failing.push(S2.into());
        store.unsummarised.push(S2.into());
        let listed =
            block_on(StoreHistory::new(&store).list_sessions(&ListSessions::in_dir(dir))).unwrap();
        let mut rows: Vec<(&str, &str)> = listed
            .iter()
            .map(|s| (s.session_id.as_str(), s.summary.as_str()))
            .collect();
        rows.sort();
        assert_eq!(rows, [(S1, S1), (S2, "")], "summaries: {summaries}");
        let failed = listed.iter().find(|s| s.session_id == S2).unwrap();
        assert_eq!(failed.cwd, None);
        assert!(failed.modified > std::time::UNIX_EPOCH);
    }
}

/// A summary of a session the store's listing no longer has is of a deleted session: the
/// official SDKs leave it out.
#[test]
fn a_summary_left_behind_by_a_deleted_session_is_not_listed() {
    let dir = Path::new("/nonexistent/deleted");
    let project = project_key_for_directory(Some(dir));
    let mut store = Shaped::new(true);
    fill(&store, &project, &[S1]);
    let mut gone = fold_session_summary(None, &SessionKey::new(&*project, S3), &[user("gone")]);
    gone.mtime = u64::MAX / 2;
    store.left_behind.push(gone);
    let listed =
        block_on(StoreHistory::new(&store).list_sessions(&ListSessions::in_dir(dir))).unwrap();
    let ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [S1]);
}

/// Sessions without a summary are loaded once the page is cut: a page of 2 out of 5 loads 2,
/// as the official SDKs load them.
#[test]
fn only_the_sessions_on_the_page_are_loaded() {
    let dir = Path::new("/nonexistent/paged");
    let project = project_key_for_directory(Some(dir));
    let mut store = Shaped::new(true);
    let ids = [
        S1,
        S2,
        S3,
        "44444444-0000-4000-8000-000000000004",
        "55555555-0000-4000-8000-000000000005",
    ];
    fill(&store, &project, &ids);
    store.unsummarised = ids.iter().map(|id| id.to_string()).collect();
    let page = block_on(
        StoreHistory::new(&store).list_sessions(&ListSessions::in_dir(dir).offset(1).limit(2)),
    )
    .unwrap();
    assert_eq!(page.len(), 2);
    assert_eq!(store.loads(), 2);
}

/// The official SDKs check a session id (and a fork's message id) to be a UUID before a
/// change touches the store.
#[test]
fn a_change_with_an_id_that_is_not_a_uuid_touches_no_store() {
    let dir = Path::new("/nonexistent/ids");
    let store = Shaped::new(true);
    let history = StoreHistory::new(&store);
    let bad = history.session("../other-project/x", Some(dir));
    let invalid = |result: Result<(), StoreError>| {
        matches!(
            result,
            Err(StoreError::InvalidId {
                what: "session id",
                ..
            })
        )
    };
    assert!(invalid(block_on(bad.rename("x"))));
    assert!(invalid(block_on(bad.tag(Some("x")))));
    assert!(invalid(block_on(bad.fork(ForkOptions::new())).map(drop)));
    assert!(invalid(block_on(
        history.session("nope", Some(dir)).delete()
    )));
    let good = history.session(S1, Some(dir));
    assert!(matches!(
        block_on(good.fork(ForkOptions::new().up_to("m1"))),
        Err(StoreError::InvalidId { what: "message id", id }) if id == "m1"
    ));
    assert_eq!(store.loads(), 0);
    assert_eq!(store.inner.session_count(), 0);
}

/// The official SDKs keep a tag in NFKC without the characters that do not show: `café`
/// typed either way, or in full-width letters, is one tag.
#[test]
fn tags_are_normalised() {
    let store = InMemorySessionStore::new();
    let dir = Path::new("/nonexistent/tags");
    let key = SessionKey::new(project_key_for_directory(Some(dir)), S1);
    block_on(store.append(&key, &[user("hi")])).unwrap();
    let session = StoreHistory::new(&store).session(S1, Some(dir));
    // Full-width letters, a tag character (U+E0041), a private-use one and a decomposed é.
    block_on(session.tag(Some(
        " \u{ff45}\u{ff58}\u{ff50}\u{e0041}\u{e000}cafe\u{301} ",
    )))
    .unwrap();
    assert_eq!(
        block_on(session.info()).unwrap().tag.as_deref(),
        Some("expcaf\u{e9}")
    );
}

/// A project's key is the CLI's folder name for the path as given: the CLI does not normalise
/// it (a decomposed `é` is two characters there), so neither does the key, or the store's
/// sessions of such a folder would be looked for under a key the CLI never wrote.
#[test]
fn a_project_key_is_the_clis_folder_name_for_the_path_as_given() {
    let composed = Path::new("/nonexistent/caf\u{e9}");
    let decomposed = Path::new("/nonexistent/cafe\u{301}");
    assert_eq!(
        project_key_for_directory(Some(composed)),
        "-nonexistent-caf-"
    );
    assert_eq!(
        project_key_for_directory(Some(decomposed)),
        "-nonexistent-cafe-"
    );
}

/// A fork's title entry carries a uuid and the fork's time, as the official SDKs write it: a
/// store keys and orders entries by them.
#[test]
fn a_fork_title_has_a_uuid_and_the_fork_time() {
    let store = InMemorySessionStore::new();
    let dir = Path::new("/nonexistent/forked");
    let project = project_key_for_directory(Some(dir));
    let entry = json!({"type": "user", "uuid": "a0000000-0000-4000-8000-000000000001",
        "parentUuid": null, "sessionId": S1, "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": "hi"}});
    block_on(store.append(&SessionKey::new(project.clone(), S1), &[entry])).unwrap();
    let history = StoreHistory::new(&store);
    let fork = block_on(history.session(S1, Some(dir)).fork(ForkOptions::new())).unwrap();
    let entries = store.entries(&SessionKey::new(project, fork));
    let (title, copied) = (entries.last().unwrap(), &entries[entries.len() - 2]);
    assert_eq!(title["type"], "custom-title");
    assert!(
        crate::history::clock::is_uuid(title["uuid"].as_str().unwrap()),
        "{title}"
    );
    assert_eq!(title["timestamp"], copied["timestamp"]);
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
    let store = Minimal(InMemorySessionStore::new());
    let error =
        block_on(StoreHistory::new(&store).list_sessions(&ListSessions::default())).unwrap_err();
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
    let history = StoreHistory::new(&store);
    let messages = block_on(history.session(id, Some(dir)).messages(Page::ALL)).unwrap();
    let uuids: Vec<&str> = messages.iter().map(|m| m.uuid.as_str()).collect();
    assert_eq!(uuids, ["u1", "a1"]);
    assert!(matches!(
        messages[1].message,
        crate::message::Message::Assistant(_)
    ));
    let missing = block_on(history.session(OTHER, Some(dir)).messages(Page::ALL));
    assert!(
        matches!(&missing, Err(StoreError::NotFound { session_id, .. }) if session_id == OTHER),
        "{missing:?}"
    );
}

/// The real CLI's two-turn transcript (`client/tests/history/`), imported into `store`; the
/// working directory it ran in.
fn imported(store: &(impl SessionStore + ?Sized)) -> &'static Path {
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/history");
    let options = ImportOptions::new()
        .dir("/tmp/rt/work")
        .history(crate::history::History::at(recorded));
    block_on(import_session(store, TWO_TURNS, &options)).unwrap();
    Path::new("/tmp/rt/work")
}

const TWO_TURNS: &str = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";

fn said(messages: &[crate::history::SessionMessage]) -> Vec<String> {
    use crate::message::{Message, MessageContent};
    messages
        .iter()
        .map(|m| match &m.message {
            Message::User(user) => match &user.content {
                MessageContent::Text(text) => format!("user: {text}"),
                other => format!("user: {other:?}"),
            },
            Message::Assistant(reply) => match reply.message.content.first() {
                Some(crate::message::ContentBlock::Text(t)) => format!("claude: {}", t.text),
                other => format!("claude: {other:?}"),
            },
            other => format!("{other:?}"),
        })
        .collect()
}

/// Info, rename, tag, fork and delete over each store give what `SessionFile` gives on disk.
fn edits_over(store: &(impl SessionStore + ?Sized)) {
    let dir = imported(store);
    let history = StoreHistory::new(store);
    let session = history.session(TWO_TURNS, Some(dir));
    assert_eq!(session.id(), TWO_TURNS);
    let info = block_on(session.info()).expect("stored");
    assert_eq!(info.first_prompt.as_deref(), Some("first question"));
    assert_eq!(info.summary, "second question");
    assert_eq!(info.cwd.as_deref(), Some(dir));
    assert_eq!(
        info.created,
        crate::history::clock::parse_timestamp("2026-11-23T06:03:37.201Z")
    );
    assert!(info.modified > info.created.unwrap());
    assert_eq!(
        (info.path, info.file_size, info.archived),
        (None, None, None)
    );
    let other = history.session(OTHER, Some(dir));
    assert!(matches!(
        block_on(other.info()),
        Err(StoreError::NotFound { session_id, .. }) if session_id == OTHER
    ));

    block_on(session.rename("  Renamed  ")).unwrap();
    block_on(session.tag(Some("kept\u{200b}"))).unwrap();
    let info = block_on(session.info()).unwrap();
    assert_eq!(info.summary, "Renamed");
    assert_eq!(info.tag.as_deref(), Some("kept"));
    let listed = block_on(history.list_sessions(&ListSessions::in_dir(dir))).unwrap();
    assert_eq!(listed[0].summary, "Renamed");
    assert_eq!(listed[0].tag.as_deref(), Some("kept"));
    block_on(session.tag(None)).unwrap();
    let info = block_on(session.info()).unwrap();
    assert_eq!(info.tag, None);

    let messages = block_on(session.messages(Page::ALL)).unwrap();
    let fork = ForkOptions::new().up_to(&messages[1].uuid).title("Plan B");
    let forked = block_on(session.fork(fork)).unwrap();
    let copy = history.session(&forked, Some(dir));
    let copied = block_on(copy.messages(Page::ALL)).unwrap();
    assert_eq!(
        said(&copied),
        ["user: first question", "claude: echo: first question"]
    );
    assert!(copied.iter().all(|m| m.session_id == forked));
    assert_ne!(copied[0].uuid, messages[0].uuid, "new ids");
    let info = block_on(copy.info()).unwrap();
    assert_eq!(info.summary, "Plan B");
    let whole = block_on(session.fork(ForkOptions::new())).unwrap();
    let whole = history.session(&whole, Some(dir));
    let info = block_on(whole.info()).unwrap();
    assert_eq!(info.summary, "Renamed (fork)");
    let copied = block_on(whole.messages(Page::ALL)).unwrap();
    assert_eq!(said(&copied), said(&messages));

    let refused = |result: Result<_, StoreError>| result.unwrap_err().to_string();
    assert_eq!(refused(block_on(session.rename(" "))), "the title is empty");
    assert_eq!(
        refused(block_on(session.tag(Some("\u{feff}")))),
        "the tag is empty"
    );
    assert!(matches!(
        block_on(other.rename("x")),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        block_on(session.fork(ForkOptions::new().up_to(OTHER))),
        Err(StoreError::MessageNotFound { uuid, .. }) if uuid == OTHER
    ));
    assert!(
        matches!(block_on(other.info()), Err(StoreError::NotFound { .. })),
        "a refused rename wrote nothing"
    );

    let deleted = whole.id().to_owned();
    block_on(whole.delete()).unwrap();
    assert!(matches!(
        block_on(history.session(&deleted, Some(dir)).info()),
        Err(StoreError::NotFound { .. })
    ));
    assert!(
        block_on(copy.info()).is_ok(),
        "only that session is deleted"
    );
}

#[test]
fn a_session_is_read_renamed_tagged_and_forked_over_the_in_memory_store() {
    edits_over(&InMemorySessionStore::new());
}

#[test]
fn a_session_is_read_renamed_tagged_and_forked_over_the_file_store() {
    let root = std::env::temp_dir().join(format!("claude-store-{}", crate::uuid::new_uuid()));
    edits_over(&FileSessionStore::new(&root));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn subagents_are_listed_and_read_with_their_parents() {
    let store = InMemorySessionStore::new();
    let dir = Path::new("/nonexistent/agents");
    let main = SessionKey::new(project_key_for_directory(Some(dir)), "s1");
    let agent = |id: &str, text: &str| {
        json!({"type": "user", "uuid": format!("{id}-u"), "parentUuid": null, "isSidechain": true,
               "agentId": id, "message": {"role": "user", "content": text}})
    };
    block_on(store.append(&main, &[user("go")])).unwrap();
    let nested = main.clone().with_subpath("subagents/workflows/w1/agent-b2");
    block_on(store.append(&nested, &[agent("b2", "nested")])).unwrap();
    let first = main.clone().with_subpath("subagents/agent-a1");
    block_on(store.append(
        &first,
        &[
            agent("a1", "look around"),
            json!({"type": "agent_metadata", "toolUseId": "toolu_01", "parentAgentId": "b2"}),
        ],
    ))
    .unwrap();
    let journal = main.clone().with_subpath("journal/other");
    block_on(store.append(&journal, &[user("not an agent")])).unwrap();

    let session = StoreHistory::new(&store).session("s1", Some(dir));
    let agents = block_on(session.subagents()).unwrap();
    assert_eq!(agents, ["a1", "b2"]);
    let messages = block_on(session.subagent_messages("a1", Page::ALL)).unwrap();
    assert_eq!(said(&messages), ["user: look around"]);
    assert_eq!(messages[0].parent_tool_use_id.as_deref(), Some("toolu_01"));
    assert_eq!(messages[0].parent_agent_id.as_deref(), Some("b2"));
    let nested = block_on(session.subagent_messages("b2", Page::ALL)).unwrap();
    assert_eq!(said(&nested), ["user: nested"]);
    assert_eq!(nested[0].parent_tool_use_id, None);
    let unknown = block_on(session.subagent_messages("zz", Page::ALL)).unwrap();
    assert!(unknown.is_empty());
    assert!(
        block_on(session.info()).is_ok(),
        "the main session is still listed"
    );
}
