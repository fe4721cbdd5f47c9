//! A conformance kit for [`SessionStore`]s: the behaviour the SDK relies on, checked against a
//! store of your own.
//!
//! [`run_session_store_conformance`] takes a factory of fresh, empty stores (one per contract,
//! so the contracts do not see each other's data) and checks 16 contracts: appends keep their
//! order and their values, an empty append stores nothing, unknown keys load as `None`, subkeys
//! and projects are separate, and for each optional method the store implements, what listing,
//! summaries, deletion and subkeys must do, and that the history over a store
//! ([`StoreHistory`](claude_agent_client::store::StoreHistory): a session's `info`, `rename`,
//! `tag`, `fork`, `messages`, `subagents`, `subagent_messages`) works over it. An
//! optional method that returns
//! [`StoreError::Unsupported`] is skipped,
//! and so is one named with [`Conformance::skip`].
//!
//! It is plain async code: run it with any executor (`futures_lite::future::block_on`,
//! `#[tokio::test]`, …).
//!
//! ```
//! use claude_agent_tokio::store::InMemorySessionStore;
//! use claude_agent_testkit::store_conformance::run_session_store_conformance;
//!
//! let report = futures_lite::future::block_on(run_session_store_conformance(|| async {
//!     InMemorySessionStore::new()
//! }))
//! .unwrap_or_else(|violation| panic!("{violation}"));
//! assert_eq!(report.checked.len(), 16);
//! assert!(report.skipped.is_empty());
//! ```

use std::fmt;
use std::future::Future;

use claude_agent_client::store::{fold_session_summary, SessionKey, SessionStore, StoreError};
use serde_json::{json, Value};

/// An optional [`SessionStore`] method, for [`Conformance::skip`].
///
/// ```
/// use claude_agent_testkit::store_conformance::{Conformance, OptionalMethod};
///
/// // A write-once object store: no deletes.
/// let conformance = Conformance::new().skip(OptionalMethod::Delete);
/// # let _ = conformance;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionalMethod {
    /// [`SessionStore::list_sessions`].
    ListSessions,
    /// [`SessionStore::list_session_summaries`].
    ListSessionSummaries,
    /// [`SessionStore::delete`].
    Delete,
    /// [`SessionStore::list_subkeys`].
    ListSubkeys,
}

/// A contract the store broke.
///
/// ```
/// use claude_agent_testkit::store_conformance::Violation;
///
/// fn explain(violation: &Violation) -> String {
///     format!("contract {:?} failed: {}", violation.contract, violation.detail)
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// The contract.
    pub contract: &'static str,
    /// What the store did instead.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "session store contract \"{}\" broken: {}",
            self.contract, self.detail
        )
    }
}

impl std::error::Error for Violation {}

/// What a run checked.
///
/// ```
/// use claude_agent_testkit::store_conformance::Report;
///
/// fn summary(report: &Report) -> String {
///     format!("{} contracts hold, {} skipped", report.checked.len(), report.skipped.len())
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// The contracts that hold.
    pub checked: Vec<&'static str>,
    /// The contracts of optional methods the store does not implement, or that were skipped.
    pub skipped: Vec<&'static str>,
}

/// The conformance run, with optional methods left out on purpose.
///
/// ```
/// use claude_agent_tokio::store::FileSessionStore;
/// use claude_agent_testkit::real_cli::TestDir;
/// use claude_agent_testkit::store_conformance::{Conformance, OptionalMethod};
///
/// let dir = TestDir::new("conformance").unwrap();
/// let mut n = 0;
/// let report = futures_lite::future::block_on(
///     Conformance::new().skip(OptionalMethod::ListSubkeys).run(|| {
///         n += 1;
///         let root = dir.path().join(n.to_string());
///         async move { FileSessionStore::new(root) }
///     }),
/// )
/// .unwrap();
/// assert_eq!(report.skipped, [
///     "list_subkeys returns subpaths",
///     "list_subkeys leaves out the main transcript",
///     "a session's subagents are listed and read through StoreHistory",
/// ]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Conformance {
    skip: Vec<OptionalMethod>,
}

/// Run every contract against stores made by `make_store`: [`Conformance::run`] with nothing
/// skipped.
///
/// ```
/// use claude_agent_tokio::store::InMemorySessionStore;
/// use claude_agent_testkit::store_conformance::run_session_store_conformance;
///
/// futures_lite::future::block_on(run_session_store_conformance(|| async { InMemorySessionStore::new() }))
///     .unwrap();
/// ```
pub async fn run_session_store_conformance<S, F, Fut>(make_store: F) -> Result<Report, Violation>
where
    S: SessionStore,
    F: FnMut() -> Fut,
    Fut: Future<Output = S>,
{
    Conformance::new().run(make_store).await
}

const KEY_PROJECT: &str = "proj";
/// A session id as the CLI makes them (a UUID): the history operations refuse any other.
const KEY_SESSION: &str = "5e55a0e1-0000-4000-8000-00000000c0de";

fn main_key() -> SessionKey {
    SessionKey::new(KEY_PROJECT, KEY_SESSION)
}

/// A test entry: `type` is required of every transcript line; the rest is opaque.
fn e(fields: Value) -> Value {
    let mut entry = json!({"type": "x"});
    if let (Some(entry), Some(fields)) = (entry.as_object_mut(), fields.as_object()) {
        entry.extend(fields.clone());
    }
    entry
}

/// Fails `contract` with `detail` unless `holds`.
fn ensure(
    holds: bool,
    contract: &'static str,
    detail: impl FnOnce() -> String,
) -> Result<(), Violation> {
    if holds {
        Ok(())
    } else {
        Err(Violation {
            contract,
            detail: detail(),
        })
    }
}

/// The value of a store call, or the violation of `contract` its error is.
fn ok<T>(result: Result<T, StoreError>, contract: &'static str) -> Result<T, Violation> {
    result.map_err(|e| Violation {
        contract,
        detail: format!("the store returned an error: {e}"),
    })
}

/// Whether the store implements an optional method: it does unless it says `Unsupported`.
async fn implements<S: SessionStore>(store: &S, method: OptionalMethod) -> bool {
    let probe = SessionKey::new("conformance-probe", "never-written");
    let outcome = match method {
        OptionalMethod::ListSessions => store.list_sessions("conformance-probe").await.err(),
        OptionalMethod::ListSessionSummaries => store
            .list_session_summaries("conformance-probe")
            .await
            .err(),
        OptionalMethod::Delete => store.delete(&probe).await.err(),
        OptionalMethod::ListSubkeys => store
            .list_subkeys("conformance-probe", "never-written")
            .await
            .err(),
    };
    !outcome.is_some_and(|e| e.is_unsupported())
}

impl Conformance {
    /// Every contract.
    ///
    /// ```
    /// use claude_agent_testkit::store_conformance::Conformance;
    ///
    /// let conformance = Conformance::new();
    /// # let _ = conformance;
    /// ```
    pub fn new() -> Conformance {
        Conformance::default()
    }

    /// Leave out the contracts of `method`, as if the store did not implement it.
    ///
    /// ```
    /// use claude_agent_testkit::store_conformance::{Conformance, OptionalMethod};
    ///
    /// let conformance = Conformance::new().skip(OptionalMethod::ListSessionSummaries);
    /// # let _ = conformance;
    /// ```
    pub fn skip(mut self, method: OptionalMethod) -> Conformance {
        self.skip.push(method);
        self
    }

    /// Check the contracts against stores made by `make_store`, which must give a fresh, empty
    /// store each time. Stops at the first contract that does not hold.
    ///
    /// ```
    /// use claude_agent_tokio::store::InMemorySessionStore;
    /// use claude_agent_testkit::store_conformance::Conformance;
    ///
    /// let report = futures_lite::future::block_on(Conformance::new().run(|| async { InMemorySessionStore::new() })).unwrap();
    /// assert!(report.checked.contains(&"append then load gives the same entries in order"));
    /// ```
    pub async fn run<S, F, Fut>(&self, mut make_store: F) -> Result<Report, Violation>
    where
        S: SessionStore,
        F: FnMut() -> Fut,
        Fut: Future<Output = S>,
    {
        let probe = make_store().await;
        let mut has = Vec::new();
        for method in [
            OptionalMethod::ListSessions,
            OptionalMethod::ListSessionSummaries,
            OptionalMethod::Delete,
            OptionalMethod::ListSubkeys,
        ] {
            if !self.skip.contains(&method) && implements(&probe, method).await {
                has.push(method);
            }
        }
        drop(probe);
        let has = |m: OptionalMethod| has.contains(&m);
        let mut report = Report::default();
        let key = main_key();
        let sub1 = main_key().with_subpath("subagents/agent-1");
        let sub2 = main_key().with_subpath("subagents/agent-2");

        // --- Required: append and load ---
        let c = "append then load gives the same entries in order";
        let store = make_store().await;
        let entries = [
            e(json!({"uuid": "b", "n": 1})),
            e(json!({"uuid": "a", "n": 2})),
        ];
        ok(store.append(&key, &entries).await, c)?;
        let loaded = ok(store.load(&key).await, c)?;
        ensure(loaded.as_deref() == Some(&entries[..]), c, || {
            format!("loaded {loaded:?}")
        })?;
        report.checked.push(c);

        let c = "an unknown key loads as None";
        let store = make_store().await;
        let never = SessionKey::new(KEY_PROJECT, "nope");
        let loaded = ok(store.load(&never).await, c)?;
        ensure(loaded.is_none(), c, || format!("loaded {loaded:?}"))?;
        ok(store.append(&key, &[e(json!({"uuid": "x"}))]).await, c)?;
        let sub = main_key().with_subpath("nope");
        let loaded = ok(store.load(&sub).await, c)?;
        ensure(loaded.is_none(), c, || {
            format!("an unwritten subpath loaded {loaded:?}")
        })?;
        report.checked.push(c);

        let c = "appends keep their call order";
        let store = make_store().await;
        let batches = [
            vec![e(json!({"uuid": "z", "n": 1}))],
            vec![
                e(json!({"uuid": "a", "n": 2})),
                e(json!({"uuid": "m", "n": 3})),
            ],
            vec![e(json!({"uuid": "b", "n": 4}))],
        ];
        for batch in &batches {
            ok(store.append(&key, batch).await, c)?;
        }
        let all: Vec<Value> = batches.concat();
        let loaded = ok(store.load(&key).await, c)?;
        ensure(loaded.as_deref() == Some(&all[..]), c, || {
            format!("loaded {loaded:?}")
        })?;
        report.checked.push(c);

        let c = "an empty append stores nothing";
        let store = make_store().await;
        ok(store.append(&key, &[e(json!({"uuid": "a"}))]).await, c)?;
        ok(store.append(&key, &[]).await, c)?;
        let loaded = ok(store.load(&key).await, c)?;
        ensure(loaded == Some(vec![e(json!({"uuid": "a"}))]), c, || {
            format!("loaded {loaded:?}")
        })?;
        let empty = SessionKey::new(KEY_PROJECT, "only-empty");
        ok(store.append(&empty, &[]).await, c)?;
        if has(OptionalMethod::ListSessions) {
            let listed = ok(store.list_sessions(KEY_PROJECT).await, c)?;
            ensure(
                !listed.iter().any(|l| l.session_id == "only-empty"),
                c,
                || "an empty append created a session".to_owned(),
            )?;
        }
        report.checked.push(c);

        let c = "a subkey is stored apart from its main transcript";
        let store = make_store().await;
        ok(store.append(&key, &[e(json!({"uuid": "m"}))]).await, c)?;
        ok(store.append(&sub1, &[e(json!({"uuid": "s"}))]).await, c)?;
        let main = ok(store.load(&key).await, c)?;
        let sub = ok(store.load(&sub1).await, c)?;
        ensure(
            main == Some(vec![e(json!({"uuid": "m"}))])
                && sub == Some(vec![e(json!({"uuid": "s"}))]),
            c,
            || format!("main {main:?}, subkey {sub:?}"),
        )?;
        report.checked.push(c);

        let c = "projects are separate";
        let store = make_store().await;
        let in_a = SessionKey::new("A", "s1");
        let in_b = SessionKey::new("B", "s1");
        ok(store.append(&in_a, &[e(json!({"from": "A"}))]).await, c)?;
        ok(store.append(&in_b, &[e(json!({"from": "B"}))]).await, c)?;
        let a = ok(store.load(&in_a).await, c)?;
        let b = ok(store.load(&in_b).await, c)?;
        ensure(
            a == Some(vec![e(json!({"from": "A"}))]) && b == Some(vec![e(json!({"from": "B"}))]),
            c,
            || format!("A {a:?}, B {b:?}"),
        )?;
        if has(OptionalMethod::ListSessions) {
            let listed = ok(store.list_sessions("A").await, c)?;
            ensure(listed.len() == 1, c, || {
                format!("project A lists {listed:?}")
            })?;
        }
        report.checked.push(c);

        // --- Optional: list_sessions ---
        let c = "list_sessions lists a project's sessions with epoch-millisecond times";
        let c2 = "list_sessions leaves out subkeys";
        if has(OptionalMethod::ListSessions) {
            let store = make_store().await;
            for (project, session) in [("proj", "a"), ("proj", "b"), ("other", "c")] {
                let k = SessionKey::new(project, session);
                ok(store.append(&k, &[e(json!({"n": 1}))]).await, c)?;
            }
            let listed = ok(store.list_sessions("proj").await, c)?;
            let mut ids: Vec<&str> = listed.iter().map(|l| l.session_id.as_str()).collect();
            ids.sort_unstable();
            ensure(ids == ["a", "b"], c, || format!("listed {listed:?}"))?;
            ensure(
                listed.iter().all(|l| l.mtime > 1_000_000_000_000),
                c,
                || format!("times are not milliseconds since the epoch: {listed:?}"),
            )?;
            let none = ok(store.list_sessions("never-appended-project").await, c)?;
            ensure(none.is_empty(), c, || {
                format!("an unknown project lists {none:?}")
            })?;
            report.checked.push(c);

            let store = make_store().await;
            let main = SessionKey::new("proj", "main");
            ok(store.append(&main, &[e(json!({"n": 1}))]).await, c2)?;
            let sub = main.clone().with_subpath("subagents/agent-1");
            ok(store.append(&sub, &[e(json!({"n": 1}))]).await, c2)?;
            let listed = ok(store.list_sessions("proj").await, c2)?;
            let ids: Vec<&str> = listed.iter().map(|l| l.session_id.as_str()).collect();
            ensure(ids == ["main"], c2, || format!("listed {listed:?}"))?;
            report.checked.push(c2);
        } else {
            report.skipped.extend([c, c2]);
        }

        // --- Optional: list_session_summaries ---
        let c = "summaries are the fold of the appends, stamped with the store's time";
        if has(OptionalMethod::ListSessionSummaries) {
            let store = make_store().await;
            let key = SessionKey::new("proj", "summ-sess");
            let first = [
                e(json!({"timestamp": "2024-01-01T00:00:00.000Z", "customTitle": "first"})),
                e(json!({"timestamp": "2024-01-01T00:00:01.000Z"})),
            ];
            let second = [e(
                json!({"timestamp": "2024-01-01T00:00:02.000Z", "customTitle": "second"}),
            )];
            ok(store.append(&key, &first).await, c)?;
            ok(store.append(&key, &second).await, c)?;
            let elsewhere = SessionKey::new("other", "elsewhere");
            ok(
                store
                    .append(
                        &elsewhere,
                        &[e(json!({"timestamp": "2024-01-01T00:00:00.000Z"}))],
                    )
                    .await,
                c,
            )?;
            let summaries = ok(store.list_session_summaries("proj").await, c)?;
            ensure(
                summaries.len() == 1 && summaries[0].session_id == "summ-sess",
                c,
                || format!("summaries {summaries:?}"),
            )?;
            let summary = &summaries[0];
            ensure(summary.mtime > 1_000_000_000_000, c, || {
                format!(
                    "mtime {} is not milliseconds since the epoch",
                    summary.mtime
                )
            })?;
            let expected = fold_session_summary(
                Some(&fold_session_summary(None, &key, &first)),
                &key,
                &second,
            );
            ensure(summary.data == expected.data, c, || {
                format!(
                    "data {:?}, the fold gives {:?}",
                    summary.data, expected.data
                )
            })?;
            if has(OptionalMethod::ListSessions) {
                let listed = ok(store.list_sessions("proj").await, c)?;
                let listed_at = listed
                    .iter()
                    .find(|l| l.session_id == "summ-sess")
                    .map(|l| l.mtime);
                ensure(listed_at.is_some_and(|at| summary.mtime >= at), c, || {
                    format!(
                        "the summary's mtime {} is older than the listing's {listed_at:?}: use the storage's write time for both",
                        summary.mtime
                    )
                })?;
            }
            let refolded = fold_session_summary(
                Some(summary),
                &key,
                &[e(json!({"timestamp": "2024-01-01T00:00:03.000Z"}))],
            );
            ensure(
                refolded.mtime == summary.mtime && refolded.session_id == "summ-sess",
                c,
                || format!("a stored summary does not fold again: {refolded:?}"),
            )?;
            let sub = key.clone().with_subpath("subagents/agent-1");
            ok(store.append(&sub, &[e(json!({"timestamp": "2024-01-01T00:00:09.000Z", "customTitle": "subagent"}))]).await, c)?;
            let after = ok(store.list_session_summaries("proj").await, c)?;
            ensure(after.len() == 1 && after[0].data == summary.data, c, || {
                format!("a subkey's append changed the summary: {after:?}")
            })?;
            let none = ok(
                store.list_session_summaries("never-appended-project").await,
                c,
            )?;
            ensure(none.is_empty(), c, || {
                format!("an unknown project has {none:?}")
            })?;
            if has(OptionalMethod::Delete) {
                ok(store.delete(&key).await, c)?;
                let left = ok(store.list_session_summaries("proj").await, c)?;
                ensure(left.is_empty(), c, || format!("after delete: {left:?}"))?;
            }
            report.checked.push(c);
        } else {
            report.skipped.push(c);
        }

        // --- Optional: delete ---
        let c = "a deleted session loads as None";
        let c2 = "deleting a session deletes its subkeys, and nothing else";
        let c3 = "deleting a subkey deletes only that subkey";
        if has(OptionalMethod::Delete) {
            let store = make_store().await;
            let never = SessionKey::new(KEY_PROJECT, "never-written");
            ok(store.delete(&never).await, c)?;
            ok(store.append(&key, &[e(json!({"n": 1}))]).await, c)?;
            ok(store.delete(&key).await, c)?;
            let loaded = ok(store.load(&key).await, c)?;
            ensure(loaded.is_none(), c, || format!("loaded {loaded:?}"))?;
            report.checked.push(c);

            let store = make_store().await;
            let other = SessionKey::new(KEY_PROJECT, "sess2");
            let other_project = SessionKey::new("other-proj", KEY_SESSION);
            for k in [&key, &sub1, &sub2, &other, &other_project] {
                ok(store.append(k, &[e(json!({"n": 1}))]).await, c2)?;
            }
            ok(store.delete(&key).await, c2)?;
            for gone in [&key, &sub1, &sub2] {
                let loaded = ok(store.load(gone).await, c2)?;
                ensure(loaded.is_none(), c2, || {
                    format!("{gone} still loads {loaded:?}")
                })?;
            }
            for kept in [&other, &other_project] {
                let loaded = ok(store.load(kept).await, c2)?;
                ensure(loaded.is_some_and(|l| l.len() == 1), c2, || {
                    format!("{kept} was deleted too")
                })?;
            }
            if has(OptionalMethod::ListSubkeys) {
                let subkeys = ok(store.list_subkeys(KEY_PROJECT, KEY_SESSION).await, c2)?;
                ensure(subkeys.is_empty(), c2, || {
                    format!("subkeys left: {subkeys:?}")
                })?;
            }
            if has(OptionalMethod::ListSessions) {
                let listed = ok(store.list_sessions(KEY_PROJECT).await, c2)?;
                ensure(
                    !listed.iter().any(|l| l.session_id == KEY_SESSION),
                    c2,
                    || format!("still listed: {listed:?}"),
                )?;
            }
            report.checked.push(c2);

            let store = make_store().await;
            for k in [&key, &sub1, &sub2] {
                ok(store.append(k, &[e(json!({"n": 1}))]).await, c3)?;
            }
            ok(store.delete(&sub1).await, c3)?;
            let gone = ok(store.load(&sub1).await, c3)?;
            ensure(gone.is_none(), c3, || {
                format!("the subkey still loads {gone:?}")
            })?;
            for kept in [&sub2, &key] {
                let loaded = ok(store.load(kept).await, c3)?;
                ensure(loaded.is_some_and(|l| l.len() == 1), c3, || {
                    format!("{kept} was deleted too")
                })?;
            }
            if has(OptionalMethod::ListSubkeys) {
                let subkeys = ok(store.list_subkeys(KEY_PROJECT, KEY_SESSION).await, c3)?;
                ensure(subkeys == ["subagents/agent-2"], c3, || {
                    format!("subkeys {subkeys:?}")
                })?;
            }
            report.checked.push(c3);
        } else {
            report.skipped.extend([c, c2, c3]);
        }

        // --- Optional: list_subkeys ---
        let c = "list_subkeys returns subpaths";
        let c2 = "list_subkeys leaves out the main transcript";
        if has(OptionalMethod::ListSubkeys) {
            let store = make_store().await;
            let elsewhere =
                SessionKey::new(KEY_PROJECT, "other-sess").with_subpath("subagents/agent-x");
            for k in [&key, &sub1, &sub2, &elsewhere] {
                ok(store.append(k, &[e(json!({"n": 1}))]).await, c)?;
            }
            let mut subkeys = ok(store.list_subkeys(KEY_PROJECT, KEY_SESSION).await, c)?;
            subkeys.sort();
            ensure(
                subkeys == ["subagents/agent-1", "subagents/agent-2"],
                c,
                || format!("subkeys {subkeys:?}"),
            )?;
            report.checked.push(c);

            let store = make_store().await;
            ok(store.append(&key, &[e(json!({"n": 1}))]).await, c2)?;
            let subkeys = ok(store.list_subkeys(KEY_PROJECT, KEY_SESSION).await, c2)?;
            ensure(subkeys.is_empty(), c2, || format!("subkeys {subkeys:?}"))?;
            let none = ok(store.list_subkeys(KEY_PROJECT, "never-appended").await, c2)?;
            ensure(none.is_empty(), c2, || {
                format!("an unknown session has {none:?}")
            })?;
            report.checked.push(c2);
        } else {
            report.skipped.extend([c, c2]);
        }

        // --- The history over the store ---
        let c = "a stored session is read, renamed, tagged and forked through StoreHistory";
        let store = make_store().await;
        edited_through_history(&store, c).await?;
        report.checked.push(c);

        let c = "a session's subagents are listed and read through StoreHistory";
        if has(OptionalMethod::ListSubkeys) {
            let store = make_store().await;
            subagents_through_history(&store, c).await?;
            report.checked.push(c);
        } else {
            report.skipped.push(c);
        }
        Ok(report)
    }
}

/// The working directory of the sessions the `StoreHistory` contracts write: a path that
/// does not exist, so its project key is the same on every machine.
const FUNCTIONS_DIR: &str = "/nonexistent-conformance/app";

/// The message ids of [`conversation`]: UUIDs, as the CLI makes them.
const U1: &str = "0a000000-0000-4000-8000-000000000001";
const A1: &str = "0a000000-0000-4000-8000-000000000002";
const U2: &str = "0a000000-0000-4000-8000-000000000003";
const A2: &str = "0a000000-0000-4000-8000-000000000004";

/// A conversation of two turns, as the CLI writes its entries.
fn conversation(session_id: &str) -> Vec<Value> {
    let turn = |uuid: &str, parent: Option<&str>, role: &str, text: &str, at: &str| {
        let content = if role == "user" {
            json!(text)
        } else {
            json!([{"type": "text", "text": text}])
        };
        json!({"type": role, "uuid": uuid, "parentUuid": parent, "isSidechain": false,
               "sessionId": session_id, "cwd": FUNCTIONS_DIR, "timestamp": at,
               "message": {"role": role, "content": content}})
    };
    vec![
        turn(
            U1,
            None,
            "user",
            "first question",
            "2026-11-26T09:00:00.000Z",
        ),
        turn(
            A1,
            Some(U1),
            "assistant",
            "first answer",
            "2026-11-26T09:00:01.000Z",
        ),
        turn(
            U2,
            Some(A1),
            "user",
            "second question",
            "2026-11-26T09:00:02.000Z",
        ),
        turn(
            A2,
            Some(U2),
            "assistant",
            "second answer",
            "2026-11-26T09:00:03.000Z",
        ),
    ]
}

/// Stores [`conversation`] as session `sess` of [`FUNCTIONS_DIR`]'s project: that directory,
/// and the session's key.
async fn stored_conversation<S: SessionStore>(
    store: &S,
    c: &'static str,
) -> Result<(Option<&'static std::path::Path>, SessionKey), Violation> {
    let dir = Some(std::path::Path::new(FUNCTIONS_DIR));
    let project = claude_agent_client::store::project_key_for_directory(dir);
    let key = SessionKey::new(project, KEY_SESSION);
    ok(store.append(&key, &conversation(KEY_SESSION)).await, c)?;
    Ok((dir, key))
}

/// A session's `info`, `rename`, `tag`, `fork` and `messages` over the store, through
/// [`StoreHistory`](claude_agent_client::store::StoreHistory).
async fn edited_through_history<S: SessionStore>(
    store: &S,
    c: &'static str,
) -> Result<(), Violation> {
    use claude_agent_client::history::{ForkOptions, Page};
    use claude_agent_client::store::StoreHistory;

    let (dir, _) = stored_conversation(store, c).await?;
    let history = StoreHistory::new(store);
    let session = history.session(KEY_SESSION, dir);
    fn edit<T>(result: Result<T, StoreError>, c: &'static str) -> Result<T, Violation> {
        result.map_err(|e| Violation {
            contract: c,
            detail: format!("a StoreHistory operation failed: {e}"),
        })
    }
    edit(session.rename("Renamed").await, c)?;
    edit(session.tag(Some("kept")).await, c)?;
    let info = ok(session.info().await, c)?;
    let shown = (
        info.summary.as_str(),
        info.tag.as_deref(),
        info.first_prompt.as_deref(),
    );
    ensure(
        shown == ("Renamed", Some("kept"), Some("first question")),
        c,
        || format!("after a rename and a tag, info gave {info:?}"),
    )?;
    let fork = ForkOptions::new().up_to(A1).title("Plan B");
    let forked = edit(session.fork(fork).await, c)?;
    let copy = history.session(&forked, dir);
    let messages = ok(copy.messages(Page::ALL).await, c)?;
    ensure(
        messages.len() == 2 && messages.iter().all(|m| m.session_id == forked),
        c,
        || format!("the fork up to the first answer reads back as {messages:?}"),
    )?;
    let info = ok(copy.info().await, c)?;
    ensure(info.summary == "Plan B", c, || {
        format!("the fork's info is {info:?}")
    })?;
    let original = ok(session.messages(Page::ALL).await, c)?;
    ensure(original.len() == 4, c, || {
        format!("the original now reads back as {original:?}")
    })
}

/// A session's `subagents` and `subagent_messages` over the store, through
/// [`StoreHistory`](claude_agent_client::store::StoreHistory).
async fn subagents_through_history<S: SessionStore>(
    store: &S,
    c: &'static str,
) -> Result<(), Violation> {
    use claude_agent_client::history::Page;
    use claude_agent_client::store::StoreHistory;

    let (dir, key) = stored_conversation(store, c).await?;
    let mut agent = conversation(KEY_SESSION);
    agent.truncate(2);
    for entry in &mut agent {
        entry["isSidechain"] = json!(true);
    }
    agent.push(json!({"type": "agent_metadata", "toolUseId": "toolu_1"}));
    let sub = key.clone().with_subpath("subagents/agent-1");
    ok(store.append(&sub, &agent).await, c)?;
    let session = StoreHistory::new(store).session(KEY_SESSION, dir);
    let agents = ok(session.subagents().await, c)?;
    ensure(agents == ["1"], c, || format!("subagents gave {agents:?}"))?;
    let messages = ok(session.subagent_messages("1", Page::ALL).await, c)?;
    ensure(
        messages.len() == 2
            && messages
                .iter()
                .all(|m| m.parent_tool_use_id.as_deref() == Some("toolu_1")),
        c,
        || format!("subagent_messages gave {messages:?}"),
    )
}
