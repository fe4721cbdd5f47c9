//! No call ever waits forever: for each way a session can end, every handle's calls made while
//! it ends, and after, answer (an error naming the cause, or `Closed`), and every stream ends.
//! Over the in-memory fake CLI on the [`TestRuntime`], so each schedule is the same on every
//! run: the calls are queued before the end comes, which is where a command used to be left
//! with nobody to answer it.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use claude_agent_client::mcp::McpServerSet;
use claude_agent_client::options::{Options, SessionStart};
use claude_agent_client::store::{SessionKey, SessionStore, StoreError, StoreFuture};
use claude_agent_client::{
    connect_with, query_with, Client, Connection, Error, Fleet, FleetLimits, Prompt, Query, Runtime,
};
use claude_agent_core::cost::Budget;
use claude_agent_core::message::{Message, UserInput};
use claude_agent_core::permission::PermissionMode;
use claude_agent_core::session::{OnStall, StallWatch};
use claude_agent_testkit::fake_cli::{Answer, FakeResult, Script};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::FakeTransport;
use futures_lite::stream::once;
use futures_lite::StreamExt;
use serde_json::{json, Value};

/// Longer than any wait a session has (the 60 s initialize time-out, the 7 s shutdown), in
/// virtual time: a call still pending then would wait for ever.
const BOUND: Duration = Duration::from_secs(600);

type Call = Pin<Box<dyn Future<Output = (&'static str, Result<(), String>)>>>;

/// One call of each kind a handle makes (each command of the channel, and several control
/// calls), each reporting `Ok` or its error; `after_the_end`, also a reader of the messages
/// (while the session runs, it would take items the query's reader must get: each item goes to
/// one reader) and `close` (which would end the session its own way).
fn every_call(client: &Client, after_the_end: bool) -> Vec<Call> {
    fn call<F, T>(name: &'static str, future: F) -> Call
    where
        F: Future<Output = Result<T, Error>> + 'static,
    {
        Box::pin(async move { (name, future.await.map(drop).map_err(|e| e.to_string())) })
    }
    let c = client.clone();
    let mut calls = vec![
        call("send", {
            let c = c.clone();
            async move { c.send("hello").await }
        }),
        call("interrupt", {
            let c = c.clone();
            async move { c.interrupt().await }
        }),
        call("set_model", {
            let c = c.clone();
            async move { c.set_model(Some("claude-sonnet-5")).await }
        }),
        call("set_permission_mode", {
            let c = c.clone();
            async move { c.set_permission_mode(PermissionMode::Plan).await }
        }),
        call("mcp_status", {
            let c = c.clone();
            async move { c.mcp_status().await }
        }),
        call("set_mcp_servers", {
            let c = c.clone();
            async move { c.set_mcp_servers(McpServerSet::default()).await }
        }),
        call("end_input", {
            let c = c.clone();
            async move { c.end_input().await }
        }),
    ];
    if after_the_end {
        calls.push(Box::pin({
            let c = c.clone();
            async move {
                let items = collect(c.receive_response()).await;
                ("receive_response", errors_only(&items))
            }
        }));
        calls.push(Box::pin(async move {
            c.close().await;
            ("close", Ok(()))
        }));
    }
    calls
}

/// Each stream's items must be errors or messages that came before the end; `Ok` when it ended
/// with no error item.
fn errors_only(items: &[Result<Message, Error>]) -> Result<(), String> {
    match items.iter().find_map(|item| item.as_ref().err()) {
        Some(error) => Err(error.to_string()),
        None => Ok(()),
    }
}

async fn collect(
    mut stream: impl futures_lite::Stream<Item = Result<Message, Error>> + Unpin,
) -> Vec<Result<Message, Error>> {
    let mut items = Vec::new();
    while let Some(item) = stream.next().await {
        items.push(item);
    }
    items
}

/// Every call's outcome, in order; panics naming the calls still pending after [`BOUND`] of
/// virtual time.
async fn answered(
    runtime: &TestRuntime,
    calls: Vec<Call>,
) -> Vec<(&'static str, Result<(), String>)> {
    let mut pending: Vec<Option<Call>> = calls.into_iter().map(Some).collect();
    let mut outcomes = vec![None; pending.len()];
    let deadline = runtime.now() + BOUND;
    let mut timer = Box::pin(runtime.sleep_until(deadline));
    std::future::poll_fn(|cx| {
        for (slot, outcome) in pending.iter_mut().zip(outcomes.iter_mut()) {
            if let Some(call) = slot {
                if let Poll::Ready(done) = call.as_mut().poll(cx) {
                    *outcome = Some(done);
                    *slot = None;
                }
            }
        }
        if pending.iter().all(Option::is_none) {
            return Poll::Ready(());
        }
        if timer.as_mut().poll(cx).is_ready() {
            let names: Vec<usize> = (0..pending.len())
                .filter(|&i| pending[i].is_some())
                .collect();
            panic!("calls {names:?} were not answered within {BOUND:?}");
        }
        Poll::Pending
    })
    .await;
    outcomes.into_iter().map(Option::unwrap).collect()
}

/// A query's stream read to its end within [`BOUND`].
async fn read_to_end(runtime: &TestRuntime, query: Query) -> Vec<Result<Message, Error>> {
    futures_lite::future::or(collect(query), async {
        runtime.sleep_until(runtime.now() + BOUND).await;
        panic!("the stream did not end within {BOUND:?}")
    })
    .await
}

/// Start `prompt` with `options`, make every call while the session starts and ends, then
/// again once its stream has ended: every call answers, and none succeeds once the session is
/// over. Returns the stream's items.
fn end_with(
    options: impl FnOnce(&TestRuntime) -> Options,
    prompt: impl Into<Prompt>,
) -> Vec<Result<Message, Error>> {
    let runtime = TestRuntime::new();
    let prompt = prompt.into();
    let options = options(&runtime);
    runtime.block_on(async {
        let query = query_with(runtime.clone(), prompt, options);
        let client = query.client();
        let during = every_call(&client, false);
        let (items, _) =
            futures_lite::future::zip(read_to_end(&runtime, query), answered(&runtime, during))
                .await;
        for (name, outcome) in answered(&runtime, every_call(&client, true)).await {
            if name != "close" && name != "receive_response" {
                assert!(outcome.is_err(), "{name} after the end: {outcome:?}");
            }
        }
        items
    })
}

/// The error the stream ended with.
fn last_error(items: &[Result<Message, Error>]) -> &Error {
    match items.last() {
        Some(Err(error)) => error,
        other => panic!("the stream ended without an error: {other:?}"),
    }
}

/// A transport that fails, or panics, after a second of virtual time.
fn failing_transport(panics: bool) -> impl FnOnce(&TestRuntime) -> Options {
    move |runtime| {
        let runtime = runtime.clone();
        Options::new().transport(move |_spec| {
            let runtime = runtime.clone();
            async move {
                runtime
                    .sleep_until(runtime.now() + Duration::from_secs(1))
                    .await;
                if panics {
                    panic!("the transport fell over");
                }
                Err::<Connection, _>(io::Error::other("connection refused"))
            }
        })
    }
}

/// The options as they are, whatever the runtime.
fn given(options: Options) -> impl FnOnce(&TestRuntime) -> Options {
    move |_| options
}

/// A prompt of one message whose input never ends.
fn open_prompt() -> Prompt {
    Prompt::stream(once(UserInput::text("hi")).chain(futures_lite::stream::pending()))
}

#[test]
fn a_failed_start_answers_the_calls_queued_while_it_started() {
    let items = end_with(failing_transport(false), "hi");
    assert!(
        matches!(last_error(&items), Error::Connect(e) if e.to_string() == "connection refused")
    );
}

#[test]
fn a_transport_that_panics_fails_the_start_with_its_message() {
    let items = end_with(failing_transport(true), "hi");
    let error = last_error(&items).to_string();
    assert!(
        error.contains("the transport panicked: the transport fell over"),
        "{error}"
    );
}

#[test]
fn a_cli_that_exits_before_answering_initialize() {
    let fake = FakeTransport::new(Script::new().stderr("no auth\n").exit(3));
    let items = end_with(given(Options::new().transport(fake)), "hi");
    assert!(
        matches!(last_error(&items), Error::StartFailed { failure, stderr_tail } if failure.exit.code == Some(3) && stderr_tail.contains("no auth"))
    );
}

#[test]
fn an_initialize_that_times_out() {
    let fake = FakeTransport::new(Script::new().hang());
    let options = Options::new()
        .transport(fake)
        .initialize_timeout(Duration::from_secs(30));
    let items = end_with(given(options), "hi");
    assert!(matches!(last_error(&items), Error::ControlTimeout(_)));
}

#[test]
fn a_cli_killed_mid_turn() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_assistant_text("half an answer")
        .exit(137);
    let items = end_with(
        given(Options::new().transport(FakeTransport::new(script))),
        "hi",
    );
    assert!(matches!(last_error(&items), Error::Process { .. }));
}

#[test]
fn a_cli_whose_stdout_closes_while_its_stdin_is_open() {
    // Without a process, the end of stdout is the end of the session: here before `initialize`
    // is answered, with stdin taking everything and never closing.
    let options = Options::new().transport(|_spec| async {
        Ok(Connection::new(
            futures_lite::io::sink(),
            futures_lite::io::empty(),
        ))
    });
    let items = end_with(given(options), "hi");
    assert!(items.iter().all(Result::is_ok), "{items:?}");
}

#[test]
fn a_fleet_that_refuses_the_key() {
    let fleet = Fleet::new(FleetLimits {
        budget_per_key: Some(Budget::tokens(10)),
        ..FleetLimits::default()
    })
    .unwrap();
    let spend = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_result_with(FakeResult::success("costly").usage(1_000, 100))
        .auto_answer("interrupt", Answer::success(json!({})))
        .expect_eof();
    let options = |fake| Options::new().transport(fake).fleet(fleet.member("tenant"));
    end_with(given(options(FakeTransport::new(spend))), "spend it all");
    let items = end_with(
        given(options(FakeTransport::new(Script::new().hang()))),
        "more",
    );
    assert!(matches!(last_error(&items), Error::OverBudget(_)));
}

/// A store whose every load fails after a second of virtual time.
struct BrokenStore(TestRuntime);

impl SessionStore for BrokenStore {
    fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [Value]) -> StoreFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }

    fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async {
            let runtime = &self.0;
            runtime
                .sleep_until(runtime.now() + Duration::from_secs(1))
                .await;
            Err(StoreError::backend("the database is down"))
        })
    }
}

#[test]
fn a_resume_whose_store_fails() {
    let options = |runtime: &TestRuntime| {
        Options::new()
            .transport(FakeTransport::new(Script::new().hang()))
            .session_store(BrokenStore(runtime.clone()))
            .session_start(SessionStart::resume("0b7b3d6e-6d0a-4a43-9d55-4c1b4b4a0a01"))
    };
    let items = end_with(options, "hi");
    assert!(matches!(last_error(&items), Error::Resume(_)), "{items:?}");
}

#[test]
fn a_session_closed_by_its_stall_watch() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .auto_answer("interrupt", Answer::success(json!({})))
        .hang();
    let options = Options::new()
        .transport(FakeTransport::new(script))
        .stall_watch(StallWatch {
            then: OnStall::InterruptThenClose,
            ..StallWatch::new(Duration::from_secs(30))
        });
    let items = end_with(given(options), open_prompt());
    assert!(matches!(last_error(&items), Error::Stalled(_)), "{items:?}");
}

#[test]
fn a_session_closed_by_its_budget() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_result_with(FakeResult::success("costly").usage(1_000, 100))
        .auto_answer("interrupt", Answer::success(json!({})))
        .hang();
    let options = Options::new()
        .transport(FakeTransport::new(script))
        .budget(Budget::tokens(10));
    let items = end_with(given(options), open_prompt());
    assert!(
        matches!(last_error(&items), Error::OverBudget(_)),
        "{items:?}"
    );
}

#[test]
fn a_session_whose_prompt_stream_panics() {
    let script = Script::new().answer_initialize().hang();
    let options = Options::new().transport(FakeTransport::new(script));
    let panicking = futures_lite::stream::poll_fn(|_| -> Poll<Option<UserInput>> {
        panic!("the prompt stream fell over")
    });
    let items = end_with(given(options), Prompt::stream(panicking));
    let error = last_error(&items);
    assert!(
        matches!(error, Error::Panicked(message) if message == "the prompt stream fell over"),
        "{error:?}"
    );
}

#[test]
fn a_session_closed_by_the_app() {
    let script = Script::new().answer_initialize().hang();
    let options = Options::new().transport(FakeTransport::new(script));
    let runtime = TestRuntime::new();
    runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        let during = every_call(&client, false);
        let closing = {
            let client = client.clone();
            Box::pin(async move {
                client.close().await;
                ("the app's close", Ok(()))
            }) as Call
        };
        let mut calls = during;
        calls.insert(0, closing);
        answered(&runtime, calls).await;
        for (name, outcome) in answered(&runtime, every_call(&client, true)).await {
            if name != "close" && name != "receive_response" {
                assert!(outcome.is_err(), "{name} after close: {outcome:?}");
            }
        }
    });
}

/// A small deterministic generator, so that a failing schedule can be run again by its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A CLI that ends in one of the ways a session can end, picked by `rng`: it exits (before or
/// after `initialize`, mid-turn), hangs until the app closes it, closes its stdout, or cannot be
/// reached.
fn random_ending(rng: &mut Rng, runtime: &TestRuntime) -> (Options, &'static str) {
    let turn = || {
        Script::new()
            .answer_initialize()
            .expect_user()
            .emit_assistant_text("part")
    };
    match rng.below(6) {
        0 => (
            Options::new().transport(FakeTransport::new(Script::new().exit(1))),
            "exit before initialize",
        ),
        1 => (
            Options::new().transport(FakeTransport::new(turn().exit(137))),
            "exit mid-turn",
        ),
        2 => (
            Options::new().transport(FakeTransport::new(turn().hang())),
            "hang (the app closes)",
        ),
        3 => (
            Options::new().transport(|_spec| async {
                Ok(Connection::new(
                    futures_lite::io::sink(),
                    futures_lite::io::empty(),
                ))
            }),
            "stdout closes",
        ),
        4 => (
            Options::new()
                .transport(FakeTransport::new(Script::new().hang()))
                .initialize_timeout(Duration::from_secs(5)),
            "initialize times out",
        ),
        _ => (
            failing_transport(rng.below(2) == 0)(runtime),
            "no connection",
        ),
    }
}

/// Random schedules over the ways a session ends: calls of every kind made at random moments
/// (before the start, while it runs, as it ends, after), the app closing at a random moment or
/// never; every call answers and the stream ends. 400 seeds, in virtual time.
#[test]
fn random_schedules_leave_no_call_unanswered() {
    for seed in 1..=400u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let runtime = TestRuntime::new();
        let (options, ending) = random_ending(&mut rng, &runtime);
        let delays: Vec<u64> = (0..12).map(|_| rng.below(4) * rng.below(3_000)).collect();
        let close_at = (rng.below(3) == 0).then(|| rng.below(8_000));
        runtime.block_on(async {
            let query = query_with(runtime.clone(), open_prompt(), options);
            let client = query.client();
            let mut calls: Vec<Call> = Vec::new();
            for (call, delay) in every_call(&client, false).into_iter().zip(&delays) {
                let runtime = runtime.clone();
                let delay = Duration::from_millis(*delay);
                calls.push(Box::pin(async move {
                    runtime.sleep_until(runtime.now() + delay).await;
                    call.await
                }));
            }
            if let Some(at) = close_at {
                let (runtime, client) = (runtime.clone(), client.clone());
                calls.push(Box::pin(async move {
                    runtime
                        .sleep_until(runtime.now() + Duration::from_millis(at))
                        .await;
                    client.close().await;
                    ("the app's close", Ok(()))
                }));
            }
            let closing = async {
                // A CLI that hangs with nobody closing it is no ending: close it at last.
                runtime
                    .sleep_until(runtime.now() + Duration::from_secs(60))
                    .await;
                client.close().await;
            };
            let ((_, _), ()) = futures_lite::future::zip(
                futures_lite::future::zip(read_to_end(&runtime, query), answered(&runtime, calls)),
                closing,
            )
            .await;
            for (name, outcome) in answered(&runtime, every_call(&client, true)).await {
                if name != "close" && name != "receive_response" {
                    assert!(
                        outcome.is_err(),
                        "seed {seed} ({ending}): {name} after the end: {outcome:?}"
                    );
                }
            }
        });
    }
}

/// `close` returns although the application never read a message and the queue is full: the
/// session does not wait for what the application has not taken.
#[test]
fn close_with_a_full_queue_nobody_reads() {
    let assistant = json!({"type": "assistant", "message": {"id": "m", "role": "assistant",
        "content": [{"type": "text", "text": "more"}]}, "session_id": "s", "uuid": "u"});
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .flood(assistant.to_string(), 2_000)
        .emit_result("done")
        .expect_eof();
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let options = Options::new().transport(fake.clone());
    let closed = runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        client.send("flood me").await.unwrap();
        let close = client.close();
        futures_lite::pin!(close);
        // Room for the flood's start only: the queue is full, and nobody reads it.
        let closed = within(&runtime, BOUND, close).await;
        // What the queue held is still there to read.
        let first = client.receive_messages().next().await;
        (closed, first.map(|item| item.is_ok()))
    });
    assert_eq!(closed, (Some(()), Some(true)));
}

/// `close` on a session still waiting for its fleet's place gives the place up: no CLI starts,
/// and the next session in line gets the place.
#[test]
fn close_while_waiting_for_a_place() {
    let fleet = Fleet::new(FleetLimits {
        max_sessions: Some(1),
        ..FleetLimits::default()
    })
    .unwrap();
    let fake = FakeTransport::new(Script::single_turn("ok"));
    let runtime = TestRuntime::new();
    let options = Options::new()
        .transport(fake.clone())
        .fleet(fleet.member("k"));
    runtime.block_on(async {
        let holder = connect_with(runtime.clone(), options.clone())
            .await
            .unwrap();
        let waiting = query_with(runtime.clone(), "hi", options.clone());
        runtime
            .sleep_until(runtime.now() + Duration::from_secs(1))
            .await;
        assert_eq!(fleet.waiting(), 1);
        let waiting_client = waiting.client();
        let close = waiting_client.close();
        futures_lite::pin!(close);
        assert_eq!(
            within(&runtime, Duration::from_secs(1), close).await,
            Some(())
        );
        assert_eq!(fleet.waiting(), 0, "the place given up");
        assert_eq!(
            fake.connections(),
            1,
            "no CLI started for the closed session"
        );
        holder.close().await;
        let next = query_with(runtime.clone(), "hi", options)
            .collect::<Vec<_>>()
            .await;
        assert!(next.iter().all(Result::is_ok), "{next:?}");
    });
}

/// `work`'s output, or `None` if it is still pending after `limit` of virtual time.
async fn within<F: Future + Unpin>(
    runtime: &TestRuntime,
    limit: Duration,
    mut work: F,
) -> Option<F::Output> {
    let mut timer = Box::pin(runtime.sleep_until(runtime.now() + limit));
    std::future::poll_fn(|cx| {
        if let Poll::Ready(output) = Pin::new(&mut work).poll(cx) {
            return Poll::Ready(Some(output));
        }
        timer.as_mut().poll(cx).map(|()| None)
    })
    .await
}
