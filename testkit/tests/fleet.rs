//! Costs, budgets and a fleet of sessions over the in-memory fake CLI ([`FakeTransport`]) on the
//! [`TestRuntime`]: per-turn cost from the CLI's running totals, a session's and a key's budget
//! ending sessions with a typed outcome, and the fleet's admission queue.

use std::time::Duration;

use claude_agent_client::options::{Options, SessionStart};
use claude_agent_client::store::{SessionKey, SessionStore, StoreFuture};
use claude_agent_client::{
    connect_with, prewarm_with, query_with, Error, Fleet, FleetLimits, FleetLimitsError, Runtime,
};
use claude_agent_core::cost::{Budget, BudgetLevel, BudgetScope};
use claude_agent_core::message::{Message, NoticeKind};
use claude_agent_testkit::fake_cli::{Answer, FakeResult, Script};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::{FakeTransport, SdkLine};
use futures_lite::StreamExt;
use serde_json::{json, Value};

/// A session of `turns` turns whose results carry these running totals (as the CLI reports
/// them), then idle.
fn turns(totals: &[f64]) -> Script {
    let mut script = Script::new().answer_initialize();
    for (turn, total) in totals.iter().enumerate() {
        script = script.expect_user().emit_result_with(
            FakeResult::success(&format!("turn {}", turn + 1))
                .cost_usd(*total)
                .usage(1_000, 100),
        );
    }
    script
        .auto_answer("interrupt", Answer::success(json!({})))
        .expect_eof()
}

/// Run `prompts` in one session, each turn read to its result; every item of the session.
fn session(
    runtime: &TestRuntime,
    options: Options,
    prompts: &[&str],
) -> Vec<Result<Message, Error>> {
    runtime.block_on(async {
        let client = connect_with(runtime.clone(), options)
            .await
            .expect("connected");
        let mut items = Vec::new();
        for prompt in prompts {
            if client.send(*prompt).await.is_err() {
                break;
            }
            let mut turn = client.receive_response();
            while let Some(item) = turn.next().await {
                items.push(item);
            }
        }
        client.end_input().await.ok();
        let mut rest = client.receive_messages();
        while let Some(item) = rest.next().await {
            items.push(item);
        }
        items
    })
}

fn turn_costs(items: &[Result<Message, Error>]) -> Vec<Option<f64>> {
    items
        .iter()
        .filter_map(|item| match item {
            Ok(Message::Result(result)) => Some(result.turn_cost.as_ref().and_then(|c| c.cli_usd)),
            _ => None,
        })
        .collect()
}

fn rounded(costs: Vec<Option<f64>>) -> Vec<Option<f64>> {
    costs
        .into_iter()
        .map(|c| c.map(|usd| (usd * 1e6).round() / 1e6))
        .collect()
}

#[test]
fn each_turn_costs_its_share_of_the_running_total_and_the_key_counts_them_all() {
    let runtime = TestRuntime::new();
    let fleet = Fleet::default();
    let fake = FakeTransport::new(turns(&[0.10, 0.25, 0.45])).then(turns(&[0.05]));
    let options = Options::new()
        .transport(fake.clone())
        .fleet(fleet.member("tenant-a"));
    let items = session(&runtime, options.clone(), &["one", "two", "three"]);
    assert_eq!(
        rounded(turn_costs(&items)),
        [Some(0.10), Some(0.15), Some(0.20)]
    );
    let other = session(&runtime, options.fleet(fleet.member("tenant-b")), &["one"]);
    assert_eq!(rounded(turn_costs(&other)), [Some(0.05)]);
    let a = fleet.spent("tenant-a");
    assert!((a.usd - 0.45).abs() < 1e-9, "{a:?}");
    assert_eq!((a.turns, a.tokens.total(), a.uncosted_turns), (3, 3_300, 0));
    let keys: Vec<String> = fleet.spent_by_key().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["tenant-a", "tenant-b"]);
}

#[test]
fn a_resumed_session_asks_what_the_cli_carried_over_so_its_first_turn_is_its_own() {
    let runtime = TestRuntime::new();
    let script = Script::new()
        .answer_initialize()
        .expect_request_as("get_usage", "usage")
        .respond(
            "usage",
            Answer::success(json!({"session": {"total_cost_usd": 0.30, "model_usage": {}}})),
        )
        .expect_user()
        .emit_result_with(
            FakeResult::success("again")
                .cost_usd(0.42)
                .usage(1_000, 100),
        )
        .expect_eof();
    let fake = FakeTransport::new(script);
    let options = Options::new()
        .transport(fake.clone())
        .session_start(SessionStart::resume("46eb1b6d-8361-4d7c-a347-8234db4a9d65"));
    let items = session(&runtime, options, &["go on"]);
    assert_eq!(rounded(turn_costs(&items)), [Some(0.12)]);
    let asked = fake.written().into_iter().any(
        |line| matches!(&line, SdkLine::ControlRequest { subtype, .. } if subtype == "get_usage"),
    );
    assert!(asked, "{:?}", fake.written());
}

#[test]
fn a_session_over_its_budget_warns_then_ends_with_a_typed_error() {
    let runtime = TestRuntime::new();
    let fake = FakeTransport::new(turns(&[0.10, 0.25, 0.45]));
    let options = Options::new()
        .transport(fake.clone())
        .budget(Budget::usd(0.30));
    let items = session(&runtime, options, &["one", "two", "three", "four"]);
    let warning = items.iter().find_map(|item| match item {
        Ok(Message::Notice(notice)) => match &notice.kind {
            NoticeKind::Budget(report) => Some(report.clone()),
            _ => None,
        },
        _ => None,
    });
    let warning = warning.expect("a warning notice");
    assert_eq!(warning.level, BudgetLevel::Warning);
    assert!((warning.spent.usd - 0.25).abs() < 1e-9, "{warning:?}");
    let Some(Err(Error::OverBudget(report))) = items.last() else {
        panic!("{items:?}")
    };
    assert_eq!(
        (report.scope.clone(), report.level),
        (BudgetScope::Session, BudgetLevel::Exceeded)
    );
    assert!((report.spent.usd - 0.45).abs() < 1e-9, "{report:?}");
    assert_eq!(turn_costs(&items).len(), 3, "the fourth prompt never ran");
}

#[test]
fn a_token_budget_interrupts_the_turn_that_exceeds_it() {
    let runtime = TestRuntime::new();
    let big_call = json!({"type": "assistant", "session_id": "s", "message": {
        "id": "msg_1", "model": "claude-opus-5-5", "role": "assistant", "content": [],
        "usage": {"input_tokens": 5_000, "output_tokens": 1}}});
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_json(&big_call)
        .expect_request_as("interrupt", "stop")
        .respond("stop", Answer::success(json!({})))
        .emit_result_with(FakeResult::error_during_execution().terminal_reason("aborted_streaming"))
        .expect_eof();
    let fake = FakeTransport::new(script);
    let options = Options::new()
        .transport(fake.clone())
        .budget(Budget::tokens(4_000));
    let items = runtime.block_on(query_with(runtime.clone(), "go", options).collect::<Vec<_>>());
    let Some(Err(Error::OverBudget(report))) = items.last() else {
        panic!("{items:?}")
    };
    assert_eq!(report.spent.tokens.total(), 5_001);
    let interrupted = items
        .iter()
        .any(|item| matches!(item, Ok(Message::Result(result)) if result.was_interrupted()));
    assert!(interrupted, "{items:?}");
}

#[test]
fn a_keys_budget_ends_every_session_of_the_key_and_refuses_new_ones() {
    let runtime = TestRuntime::new();
    let fleet = Fleet::new(FleetLimits {
        budget_per_key: Some(Budget::usd(1.0)),
        ..FleetLimits::default()
    })
    .unwrap();
    // The first session of the key waits in a turn; the second spends the key's budget.
    let waiting = Script::new()
        .answer_initialize()
        .expect_user()
        .expect_request_as("interrupt", "stop")
        .respond("stop", Answer::success(json!({})))
        .emit_result_with(FakeResult::error_during_execution().terminal_reason("aborted_tools"))
        .expect_eof();
    let spending = turns(&[1.20]);
    let fake = FakeTransport::new(waiting).then(spending);
    let options = Options::new()
        .transport(fake.clone())
        .fleet(fleet.member("tenant-a"));
    let first = query_with(runtime.clone(), "a long task", options.clone());
    let second = query_with(runtime.clone(), "a costly one", options.clone());
    let (first, second) = runtime.block_on(futures_lite::future::zip(
        first.collect::<Vec<_>>(),
        second.collect::<Vec<_>>(),
    ));
    let Some(Err(Error::OverBudget(report))) = first.last() else {
        panic!("{first:?}")
    };
    assert_eq!(report.scope, BudgetScope::Key("tenant-a".into()));
    assert!(
        matches!(second.last(), Some(Err(Error::OverBudget(_)))),
        "{second:?}"
    );
    let refused =
        runtime.block_on(query_with(runtime.clone(), "more", options).collect::<Vec<_>>());
    assert!(
        matches!(refused[..], [Err(Error::OverBudget(_))]),
        "{refused:?}"
    );
    assert_eq!(fake.connections(), 2, "the refused session started no CLI");
}

/// A session that closed itself over its key's budget says so to every call made after it
/// is gone, as its stream did: the next prompt gets `Error::OverBudget`, not `Closed`.
#[test]
fn calls_after_a_session_closed_itself_say_why() {
    let runtime = TestRuntime::new();
    let fleet = Fleet::new(FleetLimits {
        budget_per_key: Some(Budget::usd(1.0)),
        ..FleetLimits::default()
    })
    .unwrap();
    let fake = FakeTransport::new(turns(&[1.20, 1.30]));
    let options = Options::new()
        .transport(fake)
        .fleet(fleet.member("tenant-a"));
    let (stream, next) = runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        client.send("a costly one").await.unwrap();
        let stream: Vec<_> = client.receive_messages().collect().await;
        (stream, client.send("one more").await)
    });
    assert!(
        matches!(stream.last(), Some(Err(Error::OverBudget(_)))),
        "{stream:?}"
    );
    assert!(matches!(next, Err(Error::OverBudget(_))), "{next:?}");
}

#[test]
fn a_parked_spare_holds_its_place_until_its_cli_is_gone() {
    let runtime = TestRuntime::new();
    let fleet = Fleet::new(FleetLimits {
        max_sessions: Some(1),
        ..FleetLimits::default()
    })
    .unwrap();
    let fake = FakeTransport::new(Script::new().answer_initialize().expect_eof())
        .then(Script::single_turn("cold"));
    let options = Options::new()
        .transport(fake.clone())
        .fleet(fleet.member("a"));
    let spare = runtime
        .block_on(prewarm_with(runtime.clone(), options.clone()))
        .expect("parked");
    assert_eq!((fleet.running(), fleet.waiting()), (1, 0));
    let cold = query_with(runtime.clone(), "hi", options);
    runtime.block_on(futures_lite::future::yield_now());
    assert_eq!((fleet.running(), fleet.waiting()), (1, 1));
    assert_eq!(
        fake.connections(),
        1,
        "the cold session waits for the spare's place"
    );
    runtime.block_on(spare.close());
    let items = runtime.block_on(cold.collect::<Vec<_>>());
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(result))) if result.result.as_deref() == Some("cold")),
        "{items:?}"
    );
    assert_eq!(fake.connections(), 2);
}

/// A store that takes 30 s (virtual) to load any session.
struct SlowStore(TestRuntime);

impl SessionStore for SlowStore {
    fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }

    fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async {
            let runtime = &self.0;
            runtime
                .sleep_until(runtime.now() + Duration::from_secs(30))
                .await;
            Ok(None)
        })
    }
}

/// Under a memory limit, a session whose store is slow to load does not hold up another key's:
/// the limit applies just before a CLI starts, not while a store is read for it.
#[test]
fn a_slow_store_under_a_memory_limit_holds_up_no_other_key() {
    let runtime = TestRuntime::new();
    let fleet = Fleet::new(FleetLimits {
        max_resident_bytes: Some(1),
        ..FleetLimits::default()
    })
    .unwrap();
    let fake = FakeTransport::new(Script::single_turn("quick")).then(Script::single_turn("late"));
    let resuming = Options::new()
        .transport(fake.clone())
        .fleet(fleet.member("a"))
        .session_store(SlowStore(runtime.clone()))
        .session_start(SessionStart::resume("0b7b3d6e-6d0a-4a43-9d55-4c1b4b4a0a01"));
    let slow = query_with(runtime.clone(), "resume it", resuming);
    let quick = query_with(
        runtime.clone(),
        "hi",
        Options::new().transport(fake).fleet(fleet.member("b")),
    );
    let answered_at = runtime.block_on(async {
        let items: Vec<_> = quick.collect().await;
        assert!(
            matches!(items.last(), Some(Ok(Message::Result(r))) if r.result.as_deref() == Some("quick")),
            "{items:?}"
        );
        runtime.elapsed()
    });
    assert!(
        answered_at < Duration::from_secs(30),
        "the other key waited {answered_at:?} for the store"
    );
    let items = runtime.block_on(slow.collect::<Vec<_>>());
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
}

#[test]
fn limits_no_session_could_start_under_are_refused() {
    let refused = |limits| Fleet::new(limits).err();
    assert_eq!(
        refused(FleetLimits {
            max_sessions: Some(0),
            ..FleetLimits::default()
        }),
        Some(FleetLimitsError::NoSessions)
    );
    assert_eq!(
        refused(FleetLimits {
            max_resident_bytes: Some(0),
            ..FleetLimits::default()
        }),
        Some(FleetLimitsError::NoMemory)
    );
    for budget in [
        Budget::usd(f64::NAN),
        Budget::usd(-1.0),
        Budget::usd(f64::INFINITY),
        Budget::tokens(0),
        Budget {
            max_usd: None,
            max_tokens: None,
            warn_at: 0.8,
        },
    ] {
        let limits = FleetLimits {
            budget_per_key: Some(budget),
            ..FleetLimits::default()
        };
        assert_eq!(
            refused(limits),
            Some(FleetLimitsError::UnusableBudget),
            "{budget:?}"
        );
    }
}

/// A session that ends mid-turn (dropped by the app, or closed by its stall watch) is charged
/// what its model calls used: a tenant cannot spend past its budget by never letting a turn
/// end. Before, only a turn's result was charged.
#[test]
fn turns_cut_short_are_charged_to_the_key() {
    use claude_agent_core::session::{OnStall, StallWatch};

    let runtime = TestRuntime::new();
    let fleet = Fleet::new(FleetLimits {
        budget_per_key: Some(Budget::tokens(30)),
        ..FleetLimits::default()
    })
    .unwrap();
    // Each model call of the fake uses 19 tokens; no turn ever ends.
    let mid_turn = || {
        Script::new()
            .answer_initialize()
            .expect_user()
            .emit_assistant_text("thinking")
            .hang()
    };
    let fake = FakeTransport::new(mid_turn())
        .then(mid_turn())
        .then(Script::single_turn("never"));
    let options = Options::new()
        .transport(fake.clone())
        .fleet(fleet.member("tenant"));
    // The first is dropped by the app once the call came.
    runtime.block_on(async {
        let client = connect_with(runtime.clone(), options.clone())
            .await
            .unwrap();
        client.send("go").await.unwrap();
        let first = client.receive_messages().next().await;
        assert!(
            matches!(first, Some(Ok(Message::Assistant(_)))),
            "{first:?}"
        );
    });
    runtime.block_on(runtime.sleep_until(runtime.now() + Duration::from_secs(30)));
    assert_eq!(fleet.spent("tenant").tokens.total(), 19);
    // The second is closed by its stall watch.
    let stalled = options.clone().stall_watch(StallWatch {
        then: OnStall::InterruptThenClose,
        ..StallWatch::new(Duration::from_secs(10))
    });
    let items = runtime.block_on(async {
        let client = connect_with(runtime.clone(), stalled).await.unwrap();
        client.send("go").await.unwrap();
        client.receive_messages().collect::<Vec<_>>().await
    });
    assert!(
        matches!(items.last(), Some(Err(Error::Stalled(_)))),
        "{items:?}"
    );
    assert_eq!(fleet.spent("tenant").tokens.total(), 38);
    let refused =
        runtime.block_on(query_with(runtime.clone(), "more", options).collect::<Vec<_>>());
    assert!(
        matches!(refused[..], [Err(Error::OverBudget(_))]),
        "{refused:?}"
    );
}

/// A pool keeps one tenant's spares for that tenant: options that differ only in their fleet
/// key, their fleet, their budget, their prices or their stall watch never claim another's spare
/// (its place, its budget and its charges are the tenant's).
#[test]
fn a_pool_never_hands_one_tenants_spare_to_another() {
    use claude_agent_client::SparePool;
    use claude_agent_core::cost::{ModelPrice, PriceTable};
    use claude_agent_core::session::StallWatch;

    let runtime = TestRuntime::new();
    let fleet = Fleet::default();
    let fake = FakeTransport::new(Script::new().answer_initialize().expect_eof());
    let host = Options::new().transport(fake);
    let a = host.clone().fleet(fleet.member("tenant-a"));
    let pool = SparePool::new(runtime.clone());
    pool.prewarm(&a).unwrap();
    runtime.block_on(runtime.sleep_until(runtime.now() + Duration::from_secs(1)));
    assert_eq!(pool.ready(&a), 1);
    assert_eq!(pool.ready(&a.clone()), 1, "a clone is the same tenant");
    let others = [
        ("another key", host.clone().fleet(fleet.member("tenant-b"))),
        (
            "another fleet",
            host.clone().fleet(Fleet::default().member("tenant-a")),
        ),
        ("no fleet", host.clone()),
        ("a budget", a.clone().budget(Budget::usd(1.0))),
        (
            "prices",
            a.clone().price_table(
                PriceTable::new().with("claude-opus-5", ModelPrice::per_million(1.0, 5.0)),
            ),
        ),
        (
            "a stall watch",
            a.clone()
                .stall_watch(StallWatch::new(Duration::from_secs(60))),
        ),
    ];
    for (what, options) in others {
        assert_eq!(pool.ready(&options), 0, "{what}: took tenant a's spare");
    }
}
