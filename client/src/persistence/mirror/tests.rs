use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::task::Poll;
use std::time::Instant;

use serde_json::{json, Value};

use super::*;
use crate::message::SystemMessage;
use crate::store::{InMemorySessionStore, StoreError, StoreFuture};

/// A store that records its appends, and fails the first `failures` of them.
#[derive(Default)]
struct Recording {
    appends: Mutex<Vec<(SessionKey, Vec<Value>)>>,
    failures: AtomicUsize,
}

impl SessionStore for Recording {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let left = self.failures.load(Ordering::SeqCst);
            if left > 0 {
                self.failures.store(left - 1, Ordering::SeqCst);
                return Err(StoreError::backend("database unavailable"));
            }
            self.appends
                .lock()
                .unwrap()
                .push((key.clone(), entries.to_vec()));
            Ok(())
        })
    }
    fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async { Ok(None) })
    }
}

const PROJECTS: &str = "/home/me/.claude/projects";

fn frame(file: &str, entries: &[Value]) -> TranscriptMirror {
    let line = json!({"type": "transcript_mirror", "filePath": format!("{PROJECTS}/{file}"), "entries": entries});
    serde_json::from_value(line).unwrap()
}

fn mirror(store: Arc<dyn SessionStore>, flush: StoreFlush) -> Mirror {
    Mirror::new(store, Some(PROJECTS.into()), flush, false)
}

/// Poll until nothing is under way, as the driver would, its clock moved on to each of the
/// queue's deadlines (the waits between tries take no time here).
fn settle(mirror: &mut Mirror) {
    let mut now = Instant::now();
    futures_lite::future::block_on(std::future::poll_fn(|cx| loop {
        mirror.poll(cx, now);
        if mirror.in_flight.is_some() {
            return Poll::Pending;
        }
        match mirror.poll_timeout() {
            Some(at) => {
                now = now.max(at);
                mirror.handle_timeout(now);
            }
            None => return Poll::Ready(()),
        }
    }));
}

#[test]
fn a_turn_is_stored_when_asked_one_append_per_file_in_order() {
    let store = Arc::new(Recording::default());
    let mut m = mirror(store.clone(), StoreFlush::Batched);
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "a"})]));
    m.enqueue(frame(
        "-app/s1/subagents/agent-7.jsonl",
        &[json!({"uuid": "x"})],
    ));
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "b"})]));
    settle(&mut m);
    assert!(store.appends.lock().unwrap().is_empty(), "batched: not yet");
    assert!(!m.queue.is_idle());

    m.queue.flush();
    settle(&mut m);
    assert!(m.queue.is_idle());
    let appends = store.appends.lock().unwrap().clone();
    assert_eq!(
        appends,
        [
            (
                SessionKey::new("-app", "s1"),
                vec![json!({"uuid": "a"}), json!({"uuid": "b"})]
            ),
            (
                SessionKey::new("-app", "s1").with_subpath("subagents/agent-7"),
                vec![json!({"uuid": "x"})]
            ),
        ]
    );
    assert!(take_failure(&mut m).is_none());
}

#[test]
fn past_the_entry_limit_a_flush_starts_on_its_own() {
    let store = Arc::new(Recording::default());
    let mut m = mirror(store.clone(), StoreFlush::Batched);
    let entries: Vec<Value> = (0..=500).map(|n| json!({ "n": n })).collect();
    m.enqueue(frame("-app/s1.jsonl", &entries));
    settle(&mut m);
    assert_eq!(store.appends.lock().unwrap()[0].1.len(), 501);
    assert!(m.queue.is_idle());
}

#[test]
fn eager_stores_every_frame_at_once() {
    let store = Arc::new(InMemorySessionStore::new());
    let mut m = mirror(store.clone(), StoreFlush::Eager);
    m.enqueue(frame("-app/s1.jsonl", &[json!({"type": "user"})]));
    settle(&mut m);
    assert_eq!(store.entries(&SessionKey::new("-app", "s1")).len(), 1);
}

#[test]
fn a_failing_append_is_tried_three_times() {
    let store = Arc::new(Recording::default());
    store.failures.store(2, Ordering::SeqCst);
    let mut m = mirror(store.clone(), StoreFlush::Batched);
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "a"})]));
    m.queue.flush();
    settle(&mut m);
    assert_eq!(
        store.appends.lock().unwrap().len(),
        1,
        "the third try stored it"
    );
    assert!(take_failure(&mut m).is_none());
}

/// The queue's next failure, as the `mirror_error` message the driver delivers for it.
fn take_failure(m: &mut Mirror) -> Option<Message> {
    let failure = m.queue.take_failure()?;
    Some(mirror_error(failure.key.as_ref(), &failure.error))
}

fn next_error(m: &mut Mirror) -> crate::message::MirrorError {
    match take_failure(m) {
        Some(Message::System(SystemMessage::MirrorError(error))) => *error,
        other => panic!("no mirror_error: {other:?}"),
    }
}

#[test]
fn a_batch_the_store_refuses_is_reported_kept_and_stored_ahead_of_the_next_turn() {
    let store = Arc::new(Recording::default());
    store.failures.store(3, Ordering::SeqCst);
    let mut m = mirror(store.clone(), StoreFlush::Batched);
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "first"})]));
    m.queue.flush();
    settle(&mut m);
    let error = next_error(&mut m);
    assert_eq!(
        error.error,
        "session store failed: database unavailable; 1 line kept, to be tried again with the next turn"
    );
    assert_eq!(error.key, Some(SessionKey::new("-app", "s1")));
    assert_eq!(error.session_id(), "s1");
    assert!(take_failure(&mut m).is_none());
    assert!(m.queue.is_idle(), "kept lines do not hold the stream");

    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "next"})]));
    m.queue.flush();
    settle(&mut m);
    assert_eq!(
        store.appends.lock().unwrap().clone(),
        [(
            SessionKey::new("-app", "s1"),
            vec![json!({"uuid": "first"}), json!({"uuid": "next"})]
        )]
    );
}

#[test]
fn kept_lines_are_tried_once_per_flush_not_in_a_loop() {
    let store = Arc::new(Recording::default());
    store.failures.store(6, Ordering::SeqCst);
    let mut m = mirror(store.clone(), StoreFlush::Batched);
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "a"})]));
    m.queue.flush();
    settle(&mut m);
    settle(&mut m);
    assert_eq!(
        store.failures.load(Ordering::SeqCst),
        3,
        "one flush, three tries"
    );
    m.queue.flush();
    settle(&mut m);
    assert_eq!(store.failures.load(Ordering::SeqCst), 0);
    assert_eq!(next_error(&mut m).key, Some(SessionKey::new("-app", "s1")));
    assert_eq!(next_error(&mut m).key, Some(SessionKey::new("-app", "s1")));
    assert!(store.appends.lock().unwrap().is_empty());
}

#[test]
fn the_end_of_the_session_tries_kept_lines_one_last_time() {
    let store = Arc::new(Recording::default());
    store.failures.store(3, Ordering::SeqCst);
    let mut m = mirror(store.clone(), StoreFlush::Batched);
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "a"})]));
    m.queue.flush();
    settle(&mut m);
    next_error(&mut m);
    // The store is back; the driver calls finish on every poll after the end.
    for _ in 0..3 {
        m.queue.finish();
        settle(&mut m);
    }
    assert_eq!(
        store.appends.lock().unwrap().clone(),
        [(SessionKey::new("-app", "s1"), vec![json!({"uuid": "a"})])]
    );

    let down = Arc::new(Recording::default());
    down.failures.store(usize::MAX, Ordering::SeqCst);
    let mut m = mirror(down.clone(), StoreFlush::Batched);
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "a"})]));
    m.queue.flush();
    settle(&mut m);
    next_error(&mut m);
    for _ in 0..3 {
        m.queue.finish();
        settle(&mut m);
    }
    assert_eq!(
        next_error(&mut m).error,
        "session store failed: database unavailable; 1 line not stored (the session has ended)"
    );
    assert!(
        take_failure(&mut m).is_none(),
        "no further tries after the last"
    );
    assert_eq!(usize::MAX - down.failures.load(Ordering::SeqCst), 6);
}

#[test]
fn kept_lines_are_bounded() {
    let store = Arc::new(Recording::default());
    store.failures.store(usize::MAX, Ordering::SeqCst);
    let mut m = mirror(store, StoreFlush::Batched);
    let big: Vec<Value> = (0..500).map(|i| json!({"uuid": i})).collect();
    for _ in 0..4 {
        m.enqueue(frame("-app/s1.jsonl", &big));
        m.queue.flush();
        settle(&mut m);
        assert!(next_error(&mut m)
            .error
            .ends_with("to be tried again with the next turn"));
    }
    m.enqueue(frame("-app/s1.jsonl", &[json!({"uuid": "one more"})]));
    m.queue.flush();
    settle(&mut m);
    assert_eq!(
        next_error(&mut m).error,
        format!(
            "session store failed: database unavailable; {} lines dropped (at most {} lines or 4 MiB are kept for a store that is down)",
            4 * 500 + 1,
            4 * 500
        )
    );
}

#[test]
fn a_transcript_outside_the_projects_folder_is_reported() {
    let store = Arc::new(Recording::default());
    let mut m = mirror(store.clone(), StoreFlush::Batched);
    let outside: TranscriptMirror =
        serde_json::from_str(r#"{"filePath":"/elsewhere/s1.jsonl","entries":[{}]}"#).unwrap();
    m.enqueue(outside);
    m.queue.flush();
    settle(&mut m);
    let Some(Message::System(SystemMessage::MirrorError(error))) = take_failure(&mut m) else {
        panic!("no mirror_error")
    };
    assert_eq!(error.key, None);
    assert!(
        error.error.contains("/elsewhere/s1.jsonl"),
        "{}",
        error.error
    );
}

#[test]
fn a_panicking_store_is_a_failure_not_a_crash() {
    struct Panics;
    impl SessionStore for Panics {
        fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
            Box::pin(async { panic!("bug in the store") })
        }
        fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            Box::pin(async { Ok(None) })
        }
    }
    struct PanicsAtOnce;
    impl SessionStore for PanicsAtOnce {
        fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
            panic!("bug in the store, before its future")
        }
        fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            Box::pin(async { Ok(None) })
        }
    }
    let mut m = mirror(Arc::new(PanicsAtOnce), StoreFlush::Eager);
    m.enqueue(frame("-app/s1.jsonl", &[json!({})]));
    settle(&mut m);
    assert!(matches!(
        take_failure(&mut m),
        Some(Message::System(SystemMessage::MirrorError(e))) if e.error.contains("panicked")
    ));
    let mut m = mirror(Arc::new(Panics), StoreFlush::Eager);
    m.enqueue(frame("-app/s1.jsonl", &[json!({})]));
    settle(&mut m);
    assert!(matches!(
        take_failure(&mut m),
        Some(Message::System(SystemMessage::MirrorError(e))) if e.error.contains("panicked")
    ));
}

#[test]
fn the_projects_folder_follows_the_child_environment() {
    let spec = |env: &[(&str, &str)], remove: &[&str]| {
        let mut spec = LaunchSpec::new("claude");
        spec.env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        spec.env_remove = remove.iter().map(|v| v.to_string()).collect();
        spec
    };
    assert_eq!(
        projects_dir(&spec(&[("CLAUDE_CONFIG_DIR", "/c"), ("HOME", "/h")], &[])).as_deref(),
        Some(Path::new("/c/projects"))
    );
    assert_eq!(
        projects_dir(&spec(&[("HOME", "/h")], &["CLAUDE_CONFIG_DIR"])).as_deref(),
        Some(Path::new("/h/.claude/projects"))
    );
    // A child that inherits only some variables does not see this process's HOME.
    let mut only_path = spec(&[], &[]);
    only_path.inherit_only = Some(vec!["PATH".into()]);
    assert_eq!(projects_dir(&only_path), None);
    let mut with_home = spec(&[("HOME", "/h")], &[]);
    with_home.inherit_only = Some(vec!["PATH".into()]);
    assert_eq!(
        projects_dir(&with_home).as_deref(),
        Some(Path::new("/h/.claude/projects"))
    );
}
