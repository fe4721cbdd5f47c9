//! Session stores: the conformance kit against the stores of the core crate (and a broken one),
//! and mirroring through the client layer over the in-memory fake CLI, in virtual time: when the
//! lines reach the store, what a failing store does to the stream.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use claude_agent_client::options::{Options, SessionStart};
use claude_agent_client::store::{
    FileSessionStore, InMemorySessionStore, SessionKey, SessionStore, StoreError, StoreFuture,
};
use claude_agent_client::{connect_with, query_with, Error, StoreFlush};
use claude_agent_core::message::{Message, SystemMessage};
use claude_agent_testkit::fake_cli::Script;
use claude_agent_testkit::real_cli::TestDir;
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::store_conformance::{run_session_store_conformance, Conformance};
use claude_agent_testkit::transport::FakeTransport;
use futures_lite::StreamExt;
use serde_json::{json, Value};

#[test]
fn the_in_memory_store_conforms() {
    let report = futures_lite::future::block_on(run_session_store_conformance(|| async {
        InMemorySessionStore::new()
    }))
    .unwrap_or_else(|v| panic!("{v}"));
    assert_eq!((report.checked.len(), report.skipped.len()), (16, 0));
}

#[test]
fn the_file_store_conforms() {
    let dir = TestDir::new("file-store").unwrap();
    let mut n = 0;
    let report = futures_lite::future::block_on(run_session_store_conformance(|| {
        n += 1;
        let root = dir.path().join(n.to_string());
        async move { FileSessionStore::new(root) }
    }))
    .unwrap_or_else(|v| panic!("{v}"));
    assert_eq!((report.checked.len(), report.skipped.len()), (16, 0));
}

/// What the file store writes is its owner's only: the folders it creates 0700, the transcripts
/// and summaries 0600; a symbolic link planted where a transcript goes is refused, and its
/// target is left alone.
#[cfg(unix)]
#[test]
fn the_file_store_keeps_its_files_to_their_owner() {
    use std::os::unix::fs::{symlink, PermissionsExt};

    let dir = TestDir::new("file-store-modes").unwrap();
    let root = dir.path().join("sessions");
    let store = FileSessionStore::new(&root);
    let entry = json!({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}});
    futures_lite::future::block_on(store.append(&key(), std::slice::from_ref(&entry))).unwrap();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&root.join("-work")), 0o700);
    assert_eq!(mode(&root.join(format!("-work/{SESSION}.jsonl"))), 0o600);
    assert_eq!(
        mode(&root.join(format!("-work/{SESSION}.summary.json"))),
        0o600
    );

    let target = dir.path().join("elsewhere.jsonl");
    std::fs::write(&target, "").unwrap();
    let planted = SessionKey::new("-work", "planted");
    symlink(&target, root.join("-work/planted.jsonl")).unwrap();
    let refused = futures_lite::future::block_on(store.append(&planted, &[entry]));
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
}

/// A store with only the required methods passes what applies to it.
#[test]
fn optional_methods_a_store_lacks_are_skipped() {
    struct Minimal(InMemorySessionStore);
    impl SessionStore for Minimal {
        fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
            self.0.append(key, entries)
        }
        fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            self.0.load(key)
        }
    }
    let report = futures_lite::future::block_on(
        Conformance::new().run(|| async { Minimal(InMemorySessionStore::new()) }),
    )
    .unwrap();
    assert_eq!((report.checked.len(), report.skipped.len()), (7, 9));
}

/// A store that loses the order of appends is caught, with the contract named.
#[test]
fn a_store_that_breaks_a_contract_is_reported() {
    struct Reversed(InMemorySessionStore);
    impl SessionStore for Reversed {
        fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
            self.0.append(key, entries)
        }
        fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            Box::pin(async move {
                Ok(self.0.load(key).await?.map(|mut entries| {
                    entries.reverse();
                    entries
                }))
            })
        }
    }
    let violation = futures_lite::future::block_on(run_session_store_conformance(|| async {
        Reversed(InMemorySessionStore::new())
    }))
    .unwrap_err();
    assert_eq!(
        violation.contract,
        "append then load gives the same entries in order"
    );
}

const CONFIG: &str = "/fake-home/.claude";
const SESSION: &str = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";

fn mirror_frame(entries: Value) -> String {
    json!({
        "type": "transcript_mirror",
        "filePath": format!("{CONFIG}/projects/-work/{SESSION}.jsonl"),
        "entries": entries,
    })
    .to_string()
}

fn key() -> SessionKey {
    SessionKey::new("-work", SESSION)
}

/// Two turns, each mirrored before its result, and lines after the last result.
fn two_turns() -> Script {
    Script::new()
        .answer_initialize()
        .expect_user()
        .emit(mirror_frame(json!([{"type": "user", "uuid": "u1"}])))
        .emit_assistant_text("one")
        .emit(mirror_frame(json!([{"type": "assistant", "uuid": "a1"}])))
        .emit_result("one")
        .expect_user()
        .emit(mirror_frame(
            json!([{"type": "user", "uuid": "u2"}, {"type": "assistant", "uuid": "a2"}]),
        ))
        .emit_result("two")
        .emit(mirror_frame(json!([{"type": "last-prompt"}])))
}

fn options(fake: &FakeTransport) -> Options {
    Options::new()
        .transport(fake.clone())
        .env("CLAUDE_CONFIG_DIR", CONFIG)
}

fn uuids(store: &InMemorySessionStore) -> Vec<String> {
    store
        .entries(&key())
        .iter()
        .map(|e| {
            e["uuid"]
                .as_str()
                .unwrap_or(e["type"].as_str().unwrap())
                .to_owned()
        })
        .collect()
}

#[test]
fn a_turns_lines_are_in_the_store_when_its_result_is_read_and_the_rest_at_the_end() {
    let fake = FakeTransport::new(two_turns());
    let runtime = TestRuntime::new();
    let store = Arc::new(InMemorySessionStore::new());
    let client = runtime
        .block_on(connect_with(
            runtime.clone(),
            options(&fake).session_store(store.clone()),
        ))
        .unwrap();
    runtime.block_on(client.send("first")).unwrap();
    let turn: Vec<_> = runtime.block_on(client.receive_response().collect());
    assert!(matches!(turn.last(), Some(Ok(Message::Result(_)))));
    assert_eq!(uuids(&store), ["u1", "a1"]);

    runtime.block_on(client.send("second")).unwrap();
    let _: Vec<_> = runtime.block_on(client.receive_response().collect());
    assert_eq!(uuids(&store), ["u1", "a1", "u2", "a2"]);

    runtime.block_on(client.close());
    assert_eq!(uuids(&store), ["u1", "a1", "u2", "a2", "last-prompt"]);
}

#[test]
fn the_cli_is_started_with_session_mirror() {
    let fake = FakeTransport::new(
        Script::new()
            .answer_initialize()
            .expect_user()
            .emit_result("ok"),
    );
    let runtime = TestRuntime::new();
    let opts = options(&fake).session_store(InMemorySessionStore::new());
    let _: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", opts).collect());
    let spec = fake.launch().expect("connected");
    assert!(
        spec.args.contains(&"--session-mirror".to_owned()),
        "{:?}",
        spec.args
    );
}

/// Appends that fail: each flush is tried 3 times, then reported once as `mirror_error`,
/// before the result; every message still arrives, and the last flush tries the kept lines
/// again with the newer ones.
#[test]
fn a_failing_store_costs_no_message() {
    #[derive(Default)]
    struct Down {
        calls: AtomicUsize,
        keys: Mutex<Vec<SessionKey>>,
    }
    impl SessionStore for Down {
        fn append<'a>(&'a self, key: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.keys.lock().unwrap().push(key.clone());
            Box::pin(async { Err(StoreError::backend("down")) })
        }
        fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            Box::pin(async { Ok(None) })
        }
    }
    let store = Arc::new(Down::default());
    let without = {
        let fake = FakeTransport::new(two_turns_as_one_query());
        let runtime = TestRuntime::new();
        runtime.block_on(query_with(runtime.clone(), "go", options(&fake)).collect::<Vec<_>>())
    };
    let fake = FakeTransport::new(two_turns_as_one_query());
    let runtime = TestRuntime::new();
    let items: Vec<Result<Message, Error>> = runtime.block_on(
        query_with(
            runtime.clone(),
            "go",
            options(&fake).session_store(store.clone()),
        )
        .collect(),
    );
    let shape = |items: &[Result<Message, Error>]| -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Ok(Message::System(SystemMessage::MirrorError(e))) => {
                    format!("mirror_error {} {}", e.error, e.key.as_ref().unwrap())
                }
                Ok(m) => m.raw_json().to_owned(),
                Err(e) => format!("error {e}"),
            })
            .collect()
    };
    let got = shape(&items);
    let mirror_error = |outcome: &str| {
        format!("mirror_error session store failed: down; {outcome} -work/{SESSION}")
    };
    let mut expected = shape(&without);
    let result_at = expected
        .iter()
        .position(|l| l.contains(r#""type":"result""#))
        .unwrap();
    expected.insert(
        result_at,
        mirror_error("2 lines kept, to be tried again with the next turn"),
    );
    // The last flush brings the kept lines back with the newer one.
    expected.push(mirror_error("3 lines not stored (the session has ended)"));
    assert_eq!(got, expected);
    assert_eq!(
        store.calls.load(Ordering::SeqCst),
        6,
        "two batches, three tries each"
    );
}

/// One query whose single turn is mirrored before its result and once after it.
fn two_turns_as_one_query() -> Script {
    Script::new()
        .answer_initialize()
        .expect_user()
        .emit_assistant_text("one")
        .emit(mirror_frame(
            json!([{"type": "user", "uuid": "u1"}, {"type": "assistant", "uuid": "a1"}]),
        ))
        .emit_result("one")
        .emit(mirror_frame(json!([{"type": "last-prompt"}])))
}

/// Eager: lines reach the store while the turn is still going; batched: not before its result.
#[test]
fn eager_flushes_before_the_turn_ends() {
    for (flush, stored) in [
        (StoreFlush::Eager, vec!["u1"]),
        (StoreFlush::Batched, vec![]),
    ] {
        // The fake CLI waits for a second message before it ends the turn.
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit(mirror_frame(json!([{"type": "user", "uuid": "u1"}])))
            .emit_assistant_text("one")
            .expect_user()
            .emit_result("one");
        let fake = FakeTransport::new(script);
        let runtime = TestRuntime::new();
        let store = Arc::new(InMemorySessionStore::new());
        let client = runtime
            .block_on(connect_with(
                runtime.clone(),
                options(&fake)
                    .session_store(store.clone())
                    .session_store_flush(flush),
            ))
            .unwrap();
        runtime.block_on(client.send("first")).unwrap();
        let mut messages = client.receive_messages();
        loop {
            match runtime.block_on(messages.next()) {
                Some(Ok(Message::Assistant(_))) => break,
                Some(_) => {}
                None => panic!("no assistant message"),
            }
        }
        assert_eq!(uuids(&store), stored, "{flush:?}");
        drop(messages);
        runtime.block_on(client.send("more")).unwrap();
        let _: Vec<_> = runtime.block_on(client.receive_response().collect());
        assert_eq!(uuids(&store), ["u1"], "{flush:?}");
        runtime.block_on(client.close());
    }
}

/// Without a store, mirror frames are dropped: never messages.
#[test]
fn without_a_store_mirror_frames_are_not_messages() {
    let fake = FakeTransport::new(two_turns_as_one_query());
    let runtime = TestRuntime::new();
    let items: Vec<_> =
        runtime.block_on(query_with(runtime.clone(), "go", options(&fake)).collect());
    assert!(items
        .iter()
        .all(|i| matches!(i, Ok(m) if !m.raw_json().contains("transcript_mirror"))));
}

/// `continue_conversation` with a store resumes the newest main session of the working
/// directory from the store: the CLI gets `--resume` and a temporary `CLAUDE_CONFIG_DIR` holding
/// the transcript (not `--continue`), and the directory is gone when the session ends.
#[test]
fn continuing_resumes_the_newest_stored_session() {
    let work = TestDir::new("work").unwrap();
    let project = claude_agent_client::store::project_key_for_directory(Some(work.path()));
    let store = Arc::new(InMemorySessionStore::new());
    let older = "11111111-1111-4111-8111-111111111111";
    let newer = "22222222-2222-4222-8222-222222222222";
    let subagent = "33333333-3333-4333-8333-333333333333";
    futures_lite::future::block_on(async {
        for (id, first) in [
            (older, json!({"type": "user", "uuid": "o"})),
            (newer, json!({"type": "user", "uuid": "n"})),
            (
                subagent,
                json!({"type": "user", "uuid": "s", "isSidechain": true}),
            ),
        ] {
            store
                .append(&SessionKey::new(project.clone(), id), &[first])
                .await
                .unwrap();
        }
    });
    let fake = FakeTransport::new(
        Script::new()
            .answer_initialize()
            .expect_user()
            .emit_result("ok"),
    );
    let runtime = TestRuntime::new();
    let opts = Options::new()
        .cwd(work.path())
        .transport(fake.clone())
        .session_store(store.clone())
        .session_start(SessionStart::continue_last());
    let client = runtime
        .block_on(connect_with(runtime.clone(), opts))
        .unwrap();
    // While the session runs, the transcript is in the temporary configuration directory.
    let spec = fake.launch().expect("connected");
    let config = spec
        .env
        .iter()
        .find(|(name, _)| name == "CLAUDE_CONFIG_DIR")
        .map(|(_, dir)| std::path::PathBuf::from(dir))
        .expect("CLAUDE_CONFIG_DIR");
    let transcript = config
        .join("projects")
        .join(&project)
        .join(format!("{newer}.jsonl"));
    assert_eq!(
        std::fs::read_to_string(&transcript).unwrap(),
        "{\"type\":\"user\",\"uuid\":\"n\"}\n"
    );
    assert!(
        spec.args.contains(&format!("--resume={newer}")),
        "{:?}",
        spec.args
    );
    assert!(!spec.args.contains(&"--continue".to_owned()));
    runtime.block_on(client.send("go on")).unwrap();
    let _: Vec<_> = runtime.block_on(client.receive_response().collect());
    runtime.block_on(client.close());
    assert!(
        !config.exists(),
        "the temporary configuration directory is removed"
    );
}

/// A store whose `list_subkeys` never returns, and which says when it was asked and when the
/// call was dropped.
struct Hangs {
    inner: InMemorySessionStore,
    asked: Arc<std::sync::atomic::AtomicBool>,
    dropped: Arc<std::sync::atomic::AtomicBool>,
}

/// Sets a flag when dropped.
struct DropFlag(Arc<std::sync::atomic::AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl SessionStore for Hangs {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        self.inner.append(key, entries)
    }
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        self.inner.load(key)
    }
    fn list_subkeys<'a>(&'a self, _: &'a str, _: &'a str) -> StoreFuture<'a, Vec<String>> {
        self.asked.store(true, Ordering::SeqCst);
        let flag = DropFlag(self.dropped.clone());
        Box::pin(async move {
            let _flag = flag;
            futures_lite::future::pending().await
        })
    }
}

/// Dropping `connect` while the session is read from the store drops the read at once, and
/// the temporary folder it was filling (with the credentials copied in) with it: not once the
/// store answers or its 60 s pass. The CLI is never started.
#[test]
fn dropping_connect_during_a_store_resume_drops_the_read_and_its_folder() {
    let work = TestDir::new("work").unwrap();
    let project = claude_agent_client::store::project_key_for_directory(Some(work.path()));
    let asked = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let store = Hangs {
        inner: InMemorySessionStore::new(),
        asked: asked.clone(),
        dropped: dropped.clone(),
    };
    futures_lite::future::block_on(store.append(
        &SessionKey::new(project, SESSION),
        &[json!({"type": "user", "uuid": "u"})],
    ))
    .unwrap();
    // A login to copy, marked so that this test finds its own folder among others'.
    let home = TestDir::new("home").unwrap();
    let marker = format!("token-{}", work.path().display());
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/.credentials.json"),
        json!({"claudeAiOauth": {"accessToken": marker}}).to_string(),
    )
    .unwrap();
    let fake = FakeTransport::new(Script::new().answer_initialize());
    let runtime = TestRuntime::new();
    let opts = Options::new()
        .cwd(work.path())
        .env("HOME", home.path().display().to_string())
        .transport(fake.clone())
        .session_store(store)
        .session_start(SessionStart::resume(SESSION));
    runtime.block_on(futures_lite::future::or(
        async {
            let _ = connect_with(runtime.clone(), opts).await;
        },
        async {
            while !asked.load(Ordering::SeqCst) {
                futures_lite::future::yield_now().await;
            }
        },
    ));
    // `connect` is dropped now; the store was asked once the folder held the login.
    let folder = resume_folder_holding(&marker);
    runtime.block_on(futures_lite::future::yield_now());
    assert!(
        dropped.load(Ordering::SeqCst),
        "the store's call was dropped"
    );
    assert!(
        folder.as_ref().is_none_or(|folder| !folder.exists()),
        "the folder is gone: {folder:?}"
    );
    assert!(runtime.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(fake.connections(), 0, "the CLI was not started");
}

/// The temporary folder of a store resume whose copied login holds `marker`.
fn resume_folder_holding(marker: &str) -> Option<std::path::PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("claude-agent-resume-"))
        })
        .find(|p| {
            std::fs::read_to_string(p.join(".credentials.json"))
                .is_ok_and(|text| text.contains(marker))
        })
}

/// With a transport that reaches a CLI elsewhere (the default), a resume is not read from the
/// store here: nothing is written to this machine for a CLI that could not read it, and the
/// resume goes to the CLI as it is, as the official SDKs do with a transport of the caller's
/// own.
#[test]
fn a_remote_transport_gets_the_resume_as_it_is() {
    struct Elsewhere(FakeTransport);
    impl claude_agent_client::Transport for Elsewhere {
        fn connect(
            &self,
            spec: claude_agent_client::options::LaunchSpec,
        ) -> claude_agent_client::BoxFuture<'static, std::io::Result<claude_agent_client::Connection>>
        {
            self.0.connect(spec)
        }
    }
    let work = TestDir::new("work").unwrap();
    let project = claude_agent_client::store::project_key_for_directory(Some(work.path()));
    let store = Arc::new(InMemorySessionStore::new());
    let stored = SessionKey::new(project, SESSION);
    futures_lite::future::block_on(store.append(&stored, &[json!({"type": "user", "uuid": "u"})]))
        .unwrap();
    let fake = FakeTransport::new(
        Script::new()
            .answer_initialize()
            .expect_user()
            .emit_result("ok"),
    );
    let runtime = TestRuntime::new();
    let opts = Options::new()
        .cwd(work.path())
        .transport(Elsewhere(fake.clone()))
        .session_store(store)
        .session_start(SessionStart::resume(SESSION));
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", opts).collect());
    assert!(items.iter().all(Result::is_ok), "{items:?}");
    let spec = fake.launch().expect("connected");
    assert!(
        spec.args.contains(&format!("--resume={SESSION}")),
        "{:?}",
        spec.args
    );
    assert!(
        spec.env.iter().all(|(name, _)| name != "CLAUDE_CONFIG_DIR"),
        "no local folder: {:?}",
        spec.env
    );
}

/// A continue with an empty store fails with `Error::NothingToContinue` (the CLI is not
/// started); with `or_new` it starts a new session.
#[test]
fn continuing_with_nothing_stored_fails_unless_a_new_session_is_accepted() {
    let work = TestDir::new("work").unwrap();
    let store = Arc::new(InMemorySessionStore::new());
    let runtime = TestRuntime::new();
    let start = |or_new: bool| {
        let fake = FakeTransport::new(
            Script::new()
                .answer_initialize()
                .expect_user()
                .emit_result("ok"),
        );
        let opts = Options::new()
            .cwd(work.path())
            .transport(fake.clone())
            .session_store(store.clone())
            .session_start(SessionStart::Continue { fork: None, or_new });
        (fake, runtime.block_on(connect_with(runtime.clone(), opts)))
    };
    let (fake, refused) = start(false);
    match refused {
        Err(Error::NothingToContinue { cwd }) => assert_eq!(cwd, work.path()),
        other => panic!("not NothingToContinue: {:?}", other.map(|_| ())),
    }
    assert!(fake.launch().is_none(), "the CLI was not started");
    let (fake, started) = start(true);
    let client = started.expect("a new session");
    let args = fake.launch().expect("connected").args;
    assert!(
        !args
            .iter()
            .any(|a| a == "--continue" || a.starts_with("--resume")),
        "{args:?}"
    );
    runtime.block_on(client.close());
}

/// A store that fails while the session is loaded fails the start with `Error::Resume`.
/// A store whose every load fails, as a store whose database is down.
struct LoadRefused;

impl SessionStore for LoadRefused {
    fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async { Err(StoreError::backend("connection refused")) })
    }
}

/// `session_store_load_timeout(Duration::MAX)` means no limit; before, adding it to the clock
/// panicked inside the start.
#[test]
fn a_load_timeout_of_duration_max_is_no_limit() {
    let fake = FakeTransport::new(Script::new().answer_initialize());
    let runtime = TestRuntime::new();
    let opts = options(&fake)
        .session_store(LoadRefused)
        .session_store_load_timeout(std::time::Duration::MAX)
        .session_start(SessionStart::resume(SESSION));
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", opts).collect());
    // The store's own failure, reported as with any limit.
    let [Err(Error::Resume(error))] = items.as_slice() else {
        panic!("{items:?}")
    };
    assert!(error.to_string().contains("connection refused"), "{error}");
}

/// A store that panics while the session is loaded fails the start with an error naming the
/// call, and the stream ends; before, the stream waited for ever.
#[test]
fn a_store_panicking_on_load_fails_the_start() {
    struct Panicking;
    impl SessionStore for Panicking {
        fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
            Box::pin(async { Ok(()) })
        }
        fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            Box::pin(async { panic!("a bug in the store") })
        }
    }
    let fake = FakeTransport::new(Script::new().answer_initialize());
    let runtime = TestRuntime::new();
    let opts = options(&fake)
        .session_store(Panicking)
        .session_start(SessionStart::resume(SESSION));
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", opts).collect());
    let [Err(Error::Resume(error))] = items.as_slice() else {
        panic!("{items:?}")
    };
    assert!(error.to_string().contains("`load` panicked"), "{error}");
    assert_eq!(fake.connections(), 0, "the CLI was not started");
}

#[test]
fn a_store_failing_to_load_fails_the_start() {
    let fake = FakeTransport::new(Script::new().answer_initialize());
    let runtime = TestRuntime::new();
    let opts = options(&fake)
        .session_store(LoadRefused)
        .session_start(SessionStart::resume(SESSION));
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", opts.clone()).collect());
    assert!(
        matches!(items.as_slice(), [Err(Error::Resume(_))]),
        "{items:?}"
    );
    assert_eq!(fake.connections(), 0, "the CLI was not started");
    let connected = runtime.block_on(connect_with(runtime.clone(), opts));
    let Err(error) = connected else {
        panic!("connect fails")
    };
    assert!(
        error
            .to_string()
            .contains("`load` failed: session store failed: connection refused"),
        "{error}"
    );
}
