//! A fleet many hosts share, through a ledger of the test's own, over the in-memory fake CLI in
//! virtual time: what a session does with what its ledger tells it (a budget crossed while it
//! waited, a place lost while its application reads nothing, a store that fenced it off).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use claude_agent_client::options::Options;
use claude_agent_client::store::{
    InMemorySessionStore, SessionKey, SessionStore, StoreError, StoreFuture,
};
use claude_agent_client::{
    connect_with, query_with, AdmitFuture, ChargeFuture, Error, Fleet, FleetError, FleetLimits,
    Runtime, SharedLedger, SharedPlace,
};
use claude_agent_core::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, Spent, TurnCost};
use claude_agent_core::message::{Message, NoticeKind, SystemMessage};
use claude_agent_testkit::fake_cli::{Answer, Script};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::{FakeTransport, SdkLine};
use futures_lite::StreamExt;
use serde_json::{json, Value};

/// What the test's ledger hands out and hears.
#[derive(Default)]
struct Shared {
    /// Reports each place given has waiting for its session at once.
    reports: Mutex<Vec<BudgetReport>>,
    /// Set to take every place away.
    lost: AtomicBool,
    wakers: Mutex<Vec<Waker>>,
    charges: AtomicUsize,
    /// Set to hold every charge until `release`.
    hold_charges: AtomicBool,
}

impl Shared {
    /// Charges held so far are made now.
    fn release(&self) {
        self.hold_charges.store(false, Ordering::SeqCst);
        for waker in self.wakers.lock().unwrap().drain(..) {
            waker.wake();
        }
    }

    fn lose(&self) {
        self.lost.store(true, Ordering::SeqCst);
        for waker in self.wakers.lock().unwrap().drain(..) {
            waker.wake();
        }
    }
}

#[derive(Clone, Default)]
struct Ledger(Arc<Shared>);

struct Place {
    shared: Arc<Shared>,
    reports: Mutex<Vec<BudgetReport>>,
}

impl SharedPlace for Place {
    fn session_id(&self, _session_id: &str) {}
    fn turn_running(&self, _running: bool) {}
    fn poll_report(&self, _cx: &mut Context<'_>) -> Poll<BudgetReport> {
        let mut reports = self.reports.lock().unwrap();
        if reports.is_empty() {
            return Poll::Pending;
        }
        Poll::Ready(reports.remove(0))
    }
    fn poll_lost(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.shared.lost.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        self.shared.wakers.lock().unwrap().push(cx.waker().clone());
        Poll::Pending
    }
    fn is_lost(&self) -> bool {
        self.shared.lost.load(Ordering::SeqCst)
    }
}

impl SharedLedger for Ledger {
    fn limits(&self) -> FleetLimits {
        FleetLimits::default()
    }
    fn admit(&self, _key: &str) -> AdmitFuture {
        let place = Place {
            shared: self.0.clone(),
            reports: Mutex::new(self.0.reports.lock().unwrap().clone()),
        };
        Box::pin(async move { Ok(Box::new(place) as Box<dyn SharedPlace>) })
    }
    fn charge(&self, _key: &str, _cost: &TurnCost) -> ChargeFuture {
        self.0.charges.fetch_add(1, Ordering::SeqCst);
        let shared = self.0.clone();
        Box::pin(std::future::poll_fn(move |cx| {
            if !shared.hold_charges.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            shared.wakers.lock().unwrap().push(cx.waker().clone());
            Poll::Pending
        }))
    }
    fn spent(&self, _key: &str) -> Spent {
        Spent::default()
    }
    fn spent_by_key(&self) -> Vec<(String, Spent)> {
        Vec::new()
    }
    fn running(&self) -> usize {
        0
    }
    fn waiting(&self) -> usize {
        0
    }
}

fn report(level: BudgetLevel) -> BudgetReport {
    BudgetReport {
        scope: BudgetScope::Key("k".into()),
        level,
        budget: Budget::usd(1.0),
        spent: Spent::default(),
    }
}

fn options(fake: &FakeTransport, ledger: &Ledger) -> Options {
    let fleet = Fleet::shared(Arc::new(ledger.clone())).unwrap();
    Options::new()
        .transport(fake.clone())
        .fleet(fleet.member("k"))
}

/// A CLI of one turn whose transcript line (session `SESSION`, under `-work` of the
/// configuration folder `/fake-home/.claude`) is mirrored before its result.
fn one_mirrored_turn() -> FakeTransport {
    let mirror = json!({
        "type": "transcript_mirror",
        "filePath": format!("/fake-home/.claude/projects/-work/{SESSION}.jsonl"),
        "entries": [{"type": "user", "uuid": "u1"}],
    })
    .to_string();
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit(mirror)
        .emit_assistant_text("the answer")
        .emit_result("the answer")
        .expect_eof()
        .exit(0);
    FakeTransport::new(script)
}

/// What the application read of a session whose place was lost with a result in the way: not
/// the result, and the loss last.
fn no_result_then_the_loss(items: &[Result<Message, Error>]) {
    assert!(
        !items
            .iter()
            .any(|item| matches!(item, Ok(Message::Result(_)))),
        "a result was handed on after the place was lost: {items:?}"
    );
    assert!(
        matches!(items.last(), Some(Err(Error::Fleet(FleetError::PlaceLost)))),
        "{items:?}"
    );
}

/// The session of [`one_mirrored_turn`].
const SESSION: &str = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";

/// A place given after the key crossed its budget comes with the report: the session is
/// refused before its CLI starts, and its prompt costs nothing.
#[test]
fn a_session_whose_key_crossed_its_budget_while_it_waited_never_starts() {
    let ledger = Ledger::default();
    ledger
        .0
        .reports
        .lock()
        .unwrap()
        .push(report(BudgetLevel::Exceeded));
    let fake = FakeTransport::new(Script::single_turn("ok"));
    let runtime = TestRuntime::new();
    let items: Vec<_> =
        runtime.block_on(query_with(runtime.clone(), "go", options(&fake, &ledger)).collect());
    assert!(
        matches!(items.as_slice(), [Err(Error::OverBudget(report))] if report.level == BudgetLevel::Exceeded),
        "{items:?}"
    );
    assert_eq!(fake.connections(), 0, "no CLI was started");
}

/// A warning that came while the session waited is still told, and the session runs.
#[test]
fn a_warning_that_came_while_the_session_waited_is_told() {
    let ledger = Ledger::default();
    ledger
        .0
        .reports
        .lock()
        .unwrap()
        .push(report(BudgetLevel::Warning));
    let fake = FakeTransport::new(Script::single_turn("ok"));
    let runtime = TestRuntime::new();
    let items: Vec<_> =
        runtime.block_on(query_with(runtime.clone(), "go", options(&fake, &ledger)).collect());
    let warned = items.iter().any(|item| {
        matches!(item, Ok(Message::Notice(notice)) if matches!(&notice.kind, NoticeKind::Budget(r) if r.level == BudgetLevel::Warning))
    });
    assert!(warned, "{items:?}");
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
}

/// The application reads nothing (its queue is full) when the place is lost: the CLI is told
/// to stop all the same (the turn interrupted, stdin closed), and a later `send` says why.
#[test]
fn a_lost_place_stops_the_cli_while_the_application_reads_nothing() {
    let ledger = Ledger::default();
    let status = r#"{"type":"system","subtype":"status","status":"requesting","session_id":"s"}"#;
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .flood(status, 2_000)
        .expect_request("interrupt")
        .expect_eof()
        .exit(0);
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    runtime.block_on(async {
        let client = connect_with(runtime.clone(), options(&fake, &ledger))
            .await
            .unwrap();
        client.send("go").await.unwrap();
        // Let the flood fill the queue; nobody reads it.
        runtime.sleep_until(runtime.now() + Duration::from_secs(1)).await;
        ledger.0.lose();
        runtime.sleep_until(runtime.now() + Duration::from_secs(10)).await;
        let interrupted = fake
            .written()
            .iter()
            .any(|line| matches!(line, SdkLine::ControlRequest { subtype, .. } if subtype == "interrupt"));
        assert!(interrupted, "the turn was interrupted");
        assert_eq!(fake.waiting_for(), None, "the fake CLI saw stdin end and exited");
        let refused = client.send("more").await.unwrap_err();
        assert!(
            matches!(refused, Error::Fleet(FleetError::PlaceLost)),
            "{refused:?}"
        );
    });
}

/// A store that fences the host off the session (another host holds it now): the result
/// waiting for the store never reaches the application, and the session ends with `PlaceLost`.
#[test]
fn a_store_that_fenced_the_session_off_holds_its_result_back() {
    struct Fenced(InMemorySessionStore);
    impl SessionStore for Fenced {
        fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
            Box::pin(async {
                Err(StoreError::Fenced {
                    reason: "another host holds the session".into(),
                })
            })
        }
        fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            self.0.load(key)
        }
    }
    let fake = one_mirrored_turn();
    let ledger = Ledger::default();
    let runtime = TestRuntime::new();
    let options = options(&fake, &ledger)
        .env("CLAUDE_CONFIG_DIR", "/fake-home/.claude")
        .session_store(Fenced(InMemorySessionStore::new()));
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", options).collect());
    no_result_then_the_loss(&items);
    assert_eq!(
        ledger.0.charges.load(Ordering::SeqCst),
        1,
        "its cost still counts"
    );
}

/// A host frozen past its lease wakes with a turn's result in hand whose charge was made just
/// before the freeze: the place is lost by then, so the result is not handed on (another host
/// may have taken the session over meanwhile).
#[test]
fn a_result_in_hand_when_the_place_is_lost_is_not_delivered() {
    let ledger = Ledger::default();
    ledger.0.hold_charges.store(true, Ordering::SeqCst);
    let fake = FakeTransport::new(Script::single_turn("too late"));
    let runtime = TestRuntime::new();
    let query = query_with(runtime.clone(), "go", options(&fake, &ledger));
    let thaw = async {
        // The result is read, and waits for its charge.
        runtime
            .sleep_until(runtime.now() + Duration::from_secs(1))
            .await;
        assert_eq!(ledger.0.charges.load(Ordering::SeqCst), 1);
        // Both at once, as a thawed host finds them: the charge made, the place lost.
        ledger.0.release();
        ledger.0.lose();
    };
    let (items, ()) = runtime.block_on(futures_lite::future::zip(query.collect::<Vec<_>>(), thaw));
    no_result_then_the_loss(&items);
}

/// A host frozen past its lease wakes with a turn's result held back for the store (its append
/// cut off by the freeze): the place is lost and the store let go, and the result the store
/// held is not handed on either.
#[test]
fn a_result_waiting_for_its_store_when_the_place_is_lost_is_not_delivered() {
    struct Hanging;
    impl SessionStore for Hanging {
        fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
            Box::pin(std::future::pending())
        }
        fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            Box::pin(async { Ok(None) })
        }
    }
    let ledger = Ledger::default();
    let fake = one_mirrored_turn();
    let runtime = TestRuntime::new();
    let options = options(&fake, &ledger)
        .env("CLAUDE_CONFIG_DIR", "/fake-home/.claude")
        .session_store(Hanging);
    let query = query_with(runtime.clone(), "go", options);
    let thaw = async {
        // The result is read, and waits for its turn to be stored.
        runtime
            .sleep_until(runtime.now() + Duration::from_secs(1))
            .await;
        ledger.0.lose();
    };
    let (items, ()) = runtime.block_on(futures_lite::future::zip(query.collect::<Vec<_>>(), thaw));
    no_result_then_the_loss(&items);
}

/// A result handed to the application's queue while the place was held, and read only after
/// the place was lost (the host froze before the application read it, and another host took
/// the session over meanwhile): it is withheld as it is read, and the stream ends with the
/// loss. Found by the PostgreSQL fleet's fault test (seed 1362855054271523742), whose slow
/// reader read a result after its host thawed.
#[test]
fn a_result_queued_before_the_place_was_lost_is_not_read_after() {
    let ledger = Ledger::default();
    let fake = FakeTransport::new(Script::single_turn("read too late"));
    let runtime = TestRuntime::new();
    let query = query_with(runtime.clone(), "go", options(&fake, &ledger));
    let items = runtime.block_on(async {
        // The whole turn is queued (and the session over) before the application reads.
        runtime
            .sleep_until(runtime.now() + Duration::from_secs(1))
            .await;
        ledger.0.lose();
        query.collect::<Vec<_>>().await
    });
    no_result_then_the_loss(&items);
    assert_eq!(
        ledger.0.charges.load(Ordering::SeqCst),
        1,
        "its cost counts"
    );
}

/// A session already ending for another reason (its own budget spent) when its place is lost
/// still withholds the turn's result waiting for its charge: another host may hold the
/// session. Before, a session already ending skipped the check and handed the result on.
#[test]
fn a_result_of_a_session_ending_otherwise_is_not_delivered_once_the_place_is_lost() {
    let ledger = Ledger::default();
    ledger.0.hold_charges.store(true, Ordering::SeqCst);
    // The reply's usage crosses the session's budget: the session ends, and the CLI's result
    // comes after.
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_assistant_text("spent")
        .emit_result("spent")
        .auto_answer("interrupt", Answer::success(json!({})))
        .expect_eof()
        .exit(0);
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let options = options(&fake, &ledger).budget(Budget::tokens(10));
    let query = query_with(runtime.clone(), "go", options);
    let thaw = async {
        runtime
            .sleep_until(runtime.now() + Duration::from_secs(1))
            .await;
        assert_eq!(ledger.0.charges.load(Ordering::SeqCst), 1);
        ledger.0.release();
        ledger.0.lose();
    };
    let (items, ()) = runtime.block_on(futures_lite::future::zip(query.collect::<Vec<_>>(), thaw));
    assert!(
        !items
            .iter()
            .any(|item| matches!(item, Ok(Message::Result(_)))),
        "the result was delivered after the place was lost: {items:?}"
    );
    assert!(
        matches!(items.last(), Some(Err(Error::OverBudget(_)))),
        "{:?}",
        items.last()
    );
}

/// A result whose charge is still on its way when the CLI exits is handed on once the charge
/// is made: the session does not end without it.
#[test]
fn a_result_waits_for_its_charge_past_the_clis_exit() {
    let ledger = Ledger::default();
    ledger.0.hold_charges.store(true, Ordering::SeqCst);
    let fake = FakeTransport::new(Script::single_turn("worth waiting for"));
    let runtime = TestRuntime::new();
    let query = query_with(runtime.clone(), "go", options(&fake, &ledger));
    let slow_ledger = async {
        runtime
            .sleep_until(runtime.now() + Duration::from_secs(5))
            .await;
        ledger.0.release();
    };
    let (items, ()) = runtime.block_on(futures_lite::future::zip(
        query.collect::<Vec<_>>(),
        slow_ledger,
    ));
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
}

/// A store that is down for a while (five appends fail, as while its database restarts): in a
/// shared fleet the turn's result waits until its lines are stored, since the next host would
/// resume the session from the store; outside a fleet the result goes on after three tries,
/// with a `mirror_error` saying its lines wait for the next turn. A store that never comes back
/// holds a shared fleet's result a minute.
#[test]
fn in_a_shared_fleet_a_result_waits_until_its_turn_is_stored() {
    struct Restarting {
        store: InMemorySessionStore,
        failures: AtomicUsize,
    }
    impl SessionStore for Restarting {
        fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
            if self.failures.load(Ordering::SeqCst) > 0 {
                self.failures.fetch_sub(1, Ordering::SeqCst);
                return Box::pin(async { Err(StoreError::backend("the database is restarting")) });
            }
            self.store.append(key, entries)
        }
        fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            self.store.load(key)
        }
    }
    let run = |shared: bool, failures: usize| {
        let fake = one_mirrored_turn();
        let store = Arc::new(Restarting {
            store: InMemorySessionStore::new(),
            failures: AtomicUsize::new(failures),
        });
        let options = if shared {
            options(&fake, &Ledger::default())
        } else {
            Options::new().transport(fake.clone())
        };
        let options = options
            .env("CLAUDE_CONFIG_DIR", "/fake-home/.claude")
            .session_store(store.clone());
        let runtime = TestRuntime::new();
        let started = runtime.now();
        let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "go", options).collect());
        let key = SessionKey::new("-work", SESSION);
        let stored = store.store.entries(&key).len();
        (items, stored, runtime.now() - started)
    };

    let (items, stored, took) = run(true, 5);
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
    let mirror_errors = |items: &[Result<Message, Error>]| {
        items
            .iter()
            .filter(|item| matches!(item, Ok(Message::System(SystemMessage::MirrorError(_)))))
            .count()
    };
    assert_eq!(mirror_errors(&items), 0, "nothing given up: {items:?}");
    assert_eq!(stored, 1);
    // 200 ms, 800 ms, then 800 ms for each try after.
    assert_eq!(took, Duration::from_millis(200 + 800 * 4));

    let (items, stored, _) = run(false, 5);
    assert_eq!(mirror_errors(&items), 1, "{items:?}");
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
    assert_eq!(
        stored, 1,
        "stored with the last try, at the end of the session"
    );

    // A store down for good holds the result a minute, not for ever: then it goes on, with a
    // `mirror_error`, and the session ends.
    let (items, stored, took) = run(true, usize::MAX);
    assert_eq!(
        mirror_errors(&items),
        2,
        "the turn's, then the end's: {items:?}"
    );
    assert!(items
        .iter()
        .any(|item| matches!(item, Ok(Message::Result(_)))));
    assert_eq!(stored, 0);
    assert!(
        (Duration::from_secs(60)..Duration::from_secs(62)).contains(&took),
        "{took:?}"
    );
}

/// Closing a session of a shared fleet whose result waits for a store that is down: the lines
/// get their last three tries, and the close ends within seconds, not the minute a running
/// session would wait.
#[test]
fn closing_does_not_wait_out_a_store_that_is_down() {
    struct Down;
    impl SessionStore for Down {
        fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
            Box::pin(async { Err(StoreError::backend("the database is down")) })
        }
        fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
            Box::pin(async { Ok(None) })
        }
    }
    let fake = one_mirrored_turn();
    let runtime = TestRuntime::new();
    let options = options(&fake, &Ledger::default())
        .env("CLAUDE_CONFIG_DIR", "/fake-home/.claude")
        .session_store(Down);
    let took = runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        client.send("go").await.unwrap();
        // The result is read, and waits for the store.
        runtime
            .sleep_until(runtime.now() + Duration::from_secs(5))
            .await;
        let closing = runtime.now();
        client.close().await;
        runtime.now() - closing
    });
    assert!(took < Duration::from_secs(5), "{took:?}");
}
