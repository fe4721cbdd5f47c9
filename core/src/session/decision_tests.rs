//! The protocol decisions the session makes itself, sans-IO: when it is ready, what a failed
//! `initialize`, a stall or a spent budget does, and that a result follows its turn's store.

use std::time::{Duration, Instant};

use super::*;
use crate::cost::{Budget, BudgetLevel};
use crate::message::Stall;
use serde_json::json;

fn lines(t: Option<Transmit>) -> Vec<serde_json::Value> {
    match t {
        Some(Transmit::Write(bytes)) => bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("every written line is JSON"))
            .collect(),
        other => panic!("expected a write, got {other:?}"),
    }
}

fn written(s: &mut Session) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    while let Some(t) = s.poll_transmit() {
        match t {
            Transmit::Write(_) => out.extend(lines(Some(t))),
            Transmit::CloseStdin => out.push(serde_json::json!("close stdin")),
            Transmit::Signal(signal) => out.push(serde_json::json!(format!("{signal:?}"))),
            Transmit::ReleasePipes => out.push(serde_json::json!("release pipes")),
        }
    }
    out
}

fn events(s: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

fn feed(s: &mut Session, now: Instant, line: &str) {
    s.handle_stdout(now, format!("{line}\n").as_bytes());
}

fn answer(id: &str, body: &str) -> String {
    format!(
        r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{id}","response":{body}}}}}"#
    )
}

fn start(config: SessionConfig) -> (Session, Instant) {
    let now = Instant::now();
    let mut s = Session::new(config, now);
    assert_eq!(written(&mut s)[0]["request"]["subtype"], "initialize");
    (s, now)
}

/// What the session wrote, by control request subtype (or `user`, `close stdin`).
fn kinds(lines: &[serde_json::Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| match l["type"].as_str() {
            Some("control_request") => l["request"]["subtype"].as_str().unwrap().to_owned(),
            Some(kind) => kind.to_owned(),
            None => l.as_str().unwrap().to_owned(),
        })
        .collect()
}

#[test]
fn ready_comes_once_initialize_is_answered() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    assert!(!events(&mut s).iter().any(|e| matches!(e, Event::Ready)));
    feed(&mut s, now, &answer("req_0", "{}"));
    let ready: Vec<_> = events(&mut s)
        .into_iter()
        .filter(|e| matches!(e, Event::Ready))
        .collect();
    assert_eq!(ready.len(), 1);
}

/// Asked to wait for its in-process servers, the session asks `mcp_status` itself until the
/// CLI lists them connected; its own questions are reported for the host's log, not counted.
#[test]
fn ready_after_servers_asks_until_they_are_connected() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.ready_after_servers = true;
    config.mcp_servers = vec![crate::mcp::McpServerSpec::new("calc", "1.0.0")];
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    assert_eq!(kinds(&written(&mut s)), ["mcp_status"]);
    assert_eq!(s.pending_requests(), 0, "the session's own question");
    feed(
        &mut s,
        now,
        &answer(
            "req_1",
            r#"{"mcpServers":[{"name":"calc","status":"pending"}]}"#,
        ),
    );
    let before: Vec<Event> = events(&mut s);
    assert!(
        matches!(
            &before[..],
            [
                Event::RequestDone { outcome: Ok(_), .. },
                Event::OwnRequestSent { request: OwnRequest::ServersReady, id: asked },
                Event::RequestDone { id: answered, outcome: Ok(_) },
            ] if asked == answered
        ),
        "not ready while `calc` is pending: {before:?}"
    );
    // Asked again after a while.
    let again = s.poll_timeout().expect("a retry");
    s.handle_timeout(again);
    assert_eq!(kinds(&written(&mut s)), ["mcp_status"]);
    feed(
        &mut s,
        again,
        &answer(
            "req_2",
            r#"{"mcpServers":[{"name":"calc","status":"connected"}]}"#,
        ),
    );
    let after = events(&mut s);
    assert!(
        matches!(
            after[..],
            [
                Event::OwnRequestSent { .. },
                Event::RequestDone { .. },
                Event::Ready
            ]
        ),
        "{after:?}"
    );
}

#[test]
fn a_failed_initialize_closes_the_session() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    feed(
        &mut s,
        now,
        r#"{"type":"control_response","response":{"subtype":"error","request_id":"req_0","error":"bad option"}}"#,
    );
    let events = events(&mut s);
    let closing = events.iter().find_map(|e| match e {
        Event::Closing(reason) => Some(reason.clone()),
        _ => None,
    });
    assert!(
        matches!(
            closing,
            Some(EndReason::InitializeFailed(RequestFailure::Refused { .. }))
        ),
        "{events:?}"
    );
    assert_eq!(written(&mut s), [serde_json::json!("close stdin")]);
    assert_eq!(
        s.send_user(now, UserInput::text("hi")),
        Err(SendError::Closed)
    );
    assert!(s.request(now, ControlRequest::McpStatus).is_err());
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    assert!(matches!(
        events_last(&mut s),
        Some(Event::Finished(Termination::Ended(
            EndReason::InitializeFailed(_)
        )))
    ));
}

fn events_last(s: &mut Session) -> Option<Event> {
    events(s).pop()
}

fn stalling(then: OnStall) -> (Session, Instant) {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.stall = Some(StallWatch {
        then,
        ..StallWatch::new(Duration::from_secs(30))
    });
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    s.send_user(now, UserInput::text("hi")).unwrap();
    let _ = written(&mut s);
    let _ = events(&mut s);
    let deadline = s.poll_timeout().unwrap();
    s.handle_timeout(deadline);
    (s, deadline)
}

#[test]
fn a_stall_is_reported_interrupted_or_ends_the_session_as_the_watch_says() {
    let (mut s, _) = stalling(OnStall::Report);
    assert!(written(&mut s).is_empty());
    assert!(matches!(events(&mut s)[..], [Event::Stalled(_)]));

    let (mut s, _) = stalling(OnStall::Interrupt);
    assert_eq!(kinds(&written(&mut s)), ["interrupt"]);
    assert!(matches!(
        events(&mut s)[..],
        [
            Event::OwnRequestSent {
                request: OwnRequest::Interrupt,
                ..
            },
            Event::Stalled(_)
        ]
    ));
    assert_eq!(s.pending_requests(), 0, "the session's own interrupt");

    let (mut s, at) = stalling(OnStall::InterruptThenClose);
    assert_eq!(kinds(&written(&mut s)), ["interrupt", "close stdin"]);
    let events = events(&mut s);
    assert!(
        matches!(&events[..], [
            Event::OwnRequestSent { request: OwnRequest::Interrupt, .. },
            // Written, and failed by the close like anything pending: the result says the rest.
            Event::RequestDone { outcome: Err(RequestFailure::Closed(CloseCause::Ended)), .. },
            Event::Closing(EndReason::Stalled(Stall { idle_for, .. })),
        ] if *idle_for == Duration::from_secs(30)),
        "{events:?}"
    );
    s.handle_stdout_eof(at);
    s.handle_exit(at, ExitStatusInfo::signal(15));
    assert!(matches!(
        events_last(&mut s),
        Some(Event::Finished(Termination::Ended(EndReason::Stalled(_))))
    ));
}

#[test]
fn a_spent_budget_interrupts_the_turn_and_ends_the_session() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.budget = Some(Budget::tokens(100));
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    s.send_user(now, UserInput::text("go")).unwrap();
    let _ = written(&mut s);
    let call = |tokens: u64| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"m{tokens}","model":"m","content":[],"usage":{{"input_tokens":{tokens},"output_tokens":0}}}},"session_id":"s"}}"#
        )
    };
    feed(&mut s, now, &call(85));
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Budget(r) if r.level == BudgetLevel::Warning)));
    assert!(written(&mut s).is_empty(), "a warning changes nothing");
    feed(&mut s, now, &call(20));
    assert_eq!(kinds(&written(&mut s)), ["interrupt", "close stdin"]);
    assert!(events(&mut s).iter().any(
        |e| matches!(e, Event::Closing(EndReason::OverBudget(r)) if r.spent.tokens.total() == 105)
    ));
}

/// With `results_after_store`, a result (and what follows it) waits until the host says it has
/// stored the transcript frames before it; frames after it do not hold it.
#[test]
fn a_result_waits_for_its_turns_lines_in_the_store() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.results_after_store = true;
    let (mut s, now) = start(config);
    let mirror = |uuid: &str| {
        format!(
            r#"{{"type":"transcript_mirror","filePath":"/h/.claude/projects/-w/s.jsonl","entries":[{{"type":"user","uuid":"{uuid}"}}]}}"#
        )
    };
    feed(&mut s, now, &mirror("u1"));
    feed(
        &mut s,
        now,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
    );
    feed(&mut s, now, &mirror("u2"));
    assert!(matches!(s.poll_event(), Some(Event::Mirror(_))));
    assert!(s.poll_event().is_none(), "the result waits");
    assert!(s.waits_for_store());
    s.store_flushed();
    assert!(matches!(
        s.poll_event(),
        Some(Event::Message(Message::Result(_)))
    ));
    assert!(matches!(s.poll_event(), Some(Event::Mirror(_))));
    assert!(!s.waits_for_store());

    // What the CLI prints behind a waiting result is held back, and counts against the event
    // queue's limit: the host stops reading until the store catches up.
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.results_after_store = true;
    config.limits.max_queued_events = 3;
    let (mut s, now) = start(config);
    feed(&mut s, now, &mirror("u1"));
    feed(
        &mut s,
        now,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
    );
    assert_eq!(
        events(&mut s).len(),
        1,
        "the mirror frame; the result waits"
    );
    assert!(s.wants_read());
    feed(&mut s, now, &mirror("u2"));
    feed(&mut s, now, &mirror("u3"));
    assert!(events(&mut s).is_empty());
    assert!(!s.wants_read(), "three events held, at the limit");
    s.store_flushed();
    assert_eq!(events(&mut s).len(), 3);
    assert!(s.wants_read());

    // Without a store to wait for, the result goes out at once.
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &mirror("u1"));
    feed(
        &mut s,
        now,
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
    );
    assert_eq!(events(&mut s).len(), 2);
}

/// The result of a turn that cost $0.25.
const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.25,"usage":{"input_tokens":10,"output_tokens":5},"session_id":"s"}"#;

/// The cost in dollars of each unfinished turn among `events`.
fn unfinished_usd(events: &[Event]) -> Vec<f64> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::UnfinishedTurn(cost) => cost.usd(),
            _ => None,
        })
        .collect()
}

/// A session of `config`, ready, in its first turn.
fn in_a_turn(config: SessionConfig) -> (Session, Instant) {
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    s.send_user(now, UserInput::text("go")).unwrap();
    (s, now)
}

/// A session of `config` whose turn's result ($0.25) waits for the host to store the
/// transcript line before it.
fn result_held_for_the_store(mut config: SessionConfig) -> (Session, Instant) {
    config.results_after_store = true;
    let (mut s, now) = in_a_turn(config);
    feed(
        &mut s,
        now,
        r#"{"type":"transcript_mirror","filePath":"/h/.claude/projects/-w/s.jsonl","entries":[{"type":"user","uuid":"u1"}]}"#,
    );
    feed(&mut s, now, RESULT);
    (s, now)
}

/// A lost fleet place: a result still waiting for the store is dropped (the fleet's
/// transcript will not have it, and another host may resume the session without it), and so
/// is everything the CLI prints while it stops; what the dropped turn cost still comes, for its
/// key, and the session closes with `PlaceLost`.
#[test]
fn a_lost_place_drops_what_the_store_did_not_take() {
    let (mut s, now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    let before = events(&mut s);
    assert!(!before
        .iter()
        .any(|e| matches!(e, Event::Message(Message::Result(_)))));
    s.place_lost(now);
    assert_eq!(s.ending(), Some(&EndReason::PlaceLost));
    feed(
        &mut s,
        now,
        r#"{"type":"assistant","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"late"}]},"parent_tool_use_id":null,"session_id":"s"}"#,
    );
    let after = events(&mut s);
    assert!(
        !after.iter().any(|e| matches!(e, Event::Message(_))),
        "nothing more reaches the application: {after:?}"
    );
    assert!(after
        .iter()
        .any(|e| matches!(e, Event::Closing(EndReason::PlaceLost))));
    assert_eq!(
        unfinished_usd(&after),
        [0.25],
        "the dropped turn's cost still counts"
    );
    assert!(!s.waits_for_store());
}

/// The CLI finished while its result waited for the store, then the place was lost: the
/// result is withheld, and the session ends with the loss, not as if it had completed.
#[test]
fn a_place_lost_after_the_cli_finished_ends_with_the_loss() {
    let (mut s, now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    let before = events(&mut s);
    assert!(
        !before.iter().any(|e| matches!(e, Event::Finished(_))),
        "the end waits behind the result: {before:?}"
    );
    s.place_lost(now);
    let after = events(&mut s);
    assert!(!after
        .iter()
        .any(|e| matches!(e, Event::Message(Message::Result(_)))));
    assert!(
        after
            .iter()
            .any(|e| matches!(e, Event::Finished(Termination::Ended(EndReason::PlaceLost)))),
        "{after:?}"
    );
}

/// A lost place outranks the end the session was already on: a session closing over its
/// key's budget keeps that reason, but the result its CLI prints while it stops no longer
/// reaches the application (another host may hold the session); its cost still counts.
#[test]
fn a_lost_place_withholds_what_comes_after_whatever_ended_the_session() {
    use crate::cost::{BudgetReport, BudgetScope, Spent};

    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &answer("req_0", "{}"));
    s.send_user(now, UserInput::text("go")).unwrap();
    s.budget_report(
        now,
        BudgetReport {
            scope: BudgetScope::Key("tenant".into()),
            level: BudgetLevel::Exceeded,
            budget: Budget::usd(1.0),
            spent: Spent::default(),
        },
    );
    assert!(matches!(s.ending(), Some(EndReason::OverBudget(_))));
    s.place_lost(now);
    assert!(
        matches!(s.ending(), Some(EndReason::OverBudget(_))),
        "the first reason stays"
    );
    feed(&mut s, now, RESULT);
    let after = events(&mut s);
    assert!(
        !after
            .iter()
            .any(|e| matches!(e, Event::Message(Message::Result(_)))),
        "the result is withheld: {after:?}"
    );
    assert!(after
        .iter()
        .any(|e| matches!(e, Event::UnfinishedTurn(cost) if cost.usd() == Some(0.25))));
}

/// A message the host has not taken when the place is lost is withheld too: here an assistant
/// message and a result wait in the queue behind a permission prompt, while the host already has
/// as many as it may (found by the fuzzer's `PlaceLost` op).
#[test]
fn a_message_waiting_behind_a_held_request_is_withheld_once_the_place_is_lost() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.can_use_tool = true;
    config.limits.max_inbound_in_flight = 1;
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    s.send_user(now, UserInput::text("go")).unwrap();
    feed(&mut s, now, &prompt("p1"));
    feed(&mut s, now, &prompt("p2"));
    feed(
        &mut s,
        now,
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}},"session_id":"s"}"#,
    );
    feed(&mut s, now, RESULT);
    let first = events(&mut s);
    assert!(
        matches!(first.last(), Some(Event::Inbound(_)))
            && !first.iter().any(|e| matches!(e, Event::Message(_))),
        "the second prompt and what follows wait: {first:?}"
    );
    s.place_lost(now);
    let after = events(&mut s);
    assert!(
        !after.iter().any(|e| matches!(e, Event::Message(_))),
        "nothing the CLI printed reaches the host after the loss: {after:?}"
    );
    assert!(
        after
            .iter()
            .any(|e| matches!(e, Event::UnfinishedTurn(cost) if cost.usd() == Some(0.25))),
        "the withheld result's cost still counts: {after:?}"
    );
    assert!(after.contains(&Event::Closing(EndReason::PlaceLost)));
}

/// A request held behind a result that waits for the store, when the place is lost, is
/// withdrawn unseen: the host hears neither of it nor of its withdrawal (the fuzzer saw the
/// withdrawal told before the request).
#[test]
fn a_request_held_for_the_store_when_the_place_is_lost_is_never_seen() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.can_use_tool = true;
    let (mut s, now) = result_held_for_the_store(config);
    feed(&mut s, now, &prompt("p1"));
    let before = events(&mut s);
    assert!(
        matches!(before.last(), Some(Event::Mirror(_)))
            && !before.iter().any(|e| matches!(e, Event::Inbound(_))),
        "{before:?}"
    );
    s.place_lost(now);
    let after = events(&mut s);
    assert!(
        !after.iter().any(|e| matches!(
            e,
            Event::Inbound(_) | Event::Cancelled(_) | Event::Message(_)
        )),
        "{after:?}"
    );
    assert!(
        after.contains(&Event::Closing(EndReason::PlaceLost)),
        "{after:?}"
    );
}

/// A session that finished takes no more budget reports: a warning would come as an event
/// after [`Event::Finished`], which is the last (found by the fuzzer's `BudgetReport` op).
#[test]
fn a_budget_report_after_the_session_finished_is_ignored() {
    use crate::cost::{BudgetReport, BudgetScope, Spent};

    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    feed(&mut s, now, &answer("req_0", "{}"));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Finished(_))));
    for level in [BudgetLevel::Warning, BudgetLevel::Exceeded] {
        s.budget_report(
            now,
            BudgetReport {
                scope: BudgetScope::Key("tenant".into()),
                level,
                budget: Budget::usd(1.0),
                spent: Spent::default(),
            },
        );
        assert_eq!(events(&mut s), vec![], "{level:?}");
    }
}

/// A transcript frame of one entry, for a store queue.
fn frame(uuid: &str) -> TranscriptMirror {
    serde_json::from_value(json!({
        "filePath": "/h/.claude/projects/-w/s.jsonl",
        "entries": [{"type": "user", "uuid": uuid}],
    }))
    .unwrap()
}

fn key() -> Result<crate::SessionKey, String> {
    Ok(crate::SessionKey::new("-w", "s"))
}

/// The store's queue takes the frames the session hands out, as a host does.
fn enqueue_frames(s: &mut Session, queue: &mut MirrorQueue) -> Vec<Event> {
    let mut rest = Vec::new();
    for event in events(s) {
        match event {
            Event::Mirror(frame) => queue.enqueue(key(), *frame),
            other => rest.push(other),
        }
    }
    rest
}

/// While a result waits for the store the session flushes the queue; an append the store
/// fences off loses the session's place, and the result never reaches the host.
#[test]
fn a_store_that_fences_the_host_off_loses_the_sessions_place() {
    let (mut s, now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    enqueue_frames(&mut s, &mut queue);
    assert!(
        queue.poll_append(now).is_none(),
        "batched: nothing goes by itself"
    );
    assert!(!s.sync_store(now, &mut queue));
    let append = queue
        .poll_append(now)
        .expect("the held result flushes the queue");
    queue.append_done(now, append.id, AppendOutcome::Fenced("another host".into()));
    assert!(s.sync_store(now, &mut queue));
    assert_eq!(s.ending(), Some(&EndReason::PlaceLost));
    let after = events(&mut s);
    assert!(
        after.contains(&Event::Closing(EndReason::PlaceLost)),
        "{after:?}"
    );
    assert!(!after
        .iter()
        .any(|e| matches!(e, Event::Message(Message::Result(_)))));
}

/// A host that syncs before it takes the turn's frames still gets them flushed: the session
/// flushes again once they are handed out.
#[test]
fn frames_taken_after_the_first_sync_are_flushed_for_the_held_result() {
    let (mut s, now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    s.sync_store(now, &mut queue);
    assert!(queue.poll_append(now).is_none(), "no frame taken yet");
    enqueue_frames(&mut s, &mut queue);
    s.sync_store(now, &mut queue);
    let append = queue
        .poll_append(now)
        .expect("the frames taken since are flushed");
    queue.append_done(now, append.id, AppendOutcome::Stored);
    assert!(s.sync_store(now, &mut queue));
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Message(Message::Result(_)))));
}

/// A store that is down: the batch is tried as the queue's limits say, its lines are kept for
/// the next turn, and the result goes on with the failure reported. The kept lines are not
/// tried again for the same result, however often the host syncs.
#[test]
fn a_store_that_is_down_costs_the_held_result_three_tries() {
    let (mut s, mut now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    enqueue_frames(&mut s, &mut queue);
    let mut tries = 0;
    for _ in 0..10 {
        s.sync_store(now, &mut queue);
        if let Some(append) = queue.poll_append(now) {
            tries += 1;
            queue.append_done(now, append.id, AppendOutcome::Failed("down".into()));
        }
        s.sync_store(now, &mut queue);
        if let Some(at) = queue.poll_timeout() {
            now = at;
            queue.handle_timeout(now);
        }
    }
    assert_eq!(tries, 3);
    let after = events(&mut s);
    let failed = after
        .iter()
        .position(|e| matches!(e, Event::StoreFailed(f) if f.error.contains("kept")));
    let result = after
        .iter()
        .position(|e| matches!(e, Event::Message(Message::Result(_))));
    assert!(
        failed.is_some() && failed < result,
        "the failure comes ahead of the result it held: {after:?}"
    );
}

/// The session's end waits for the store's last tries: lines the host took just before the
/// end are stored (or reported) before `Finished` goes out.
#[test]
fn the_end_waits_for_the_stores_last_tries() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    s.sync_store(now, &mut queue);
    feed(
        &mut s,
        now,
        r#"{"type":"transcript_mirror","filePath":"/h/.claude/projects/-w/s.jsonl","entries":[{"type":"user","uuid":"u1"}]}"#,
    );
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    let before = enqueue_frames(&mut s, &mut queue);
    assert!(
        !before.iter().any(|e| matches!(e, Event::Finished(_))),
        "the frame taken since the last sync holds the end: {before:?}"
    );
    s.sync_store(now, &mut queue);
    assert_eq!(s.poll_event(), None, "the store's last try is under way");
    let append = queue
        .poll_append(now)
        .expect("the session finished: the lines go");
    queue.append_done(now, append.id, AppendOutcome::Failed("down".into()));
    s.sync_store(now, &mut queue);
    assert_eq!(s.poll_event(), None, "tried again in 200 ms");
    while let Some(at) = queue.poll_timeout() {
        queue.handle_timeout(at);
        if let Some(append) = queue.poll_append(at) {
            queue.append_done(at, append.id, AppendOutcome::Failed("down".into()));
        }
        s.sync_store(at, &mut queue);
    }
    let end = events(&mut s);
    assert!(
        matches!(&end[..], [Event::StoreFailed(f), Event::Finished(_)] if f.error.contains("not stored")),
        "{end:?}"
    );
}

/// A result held for a store that is down, in a session whose CLI has already exited: once
/// the result goes on, the end still waits while the kept lines get their last tries.
#[test]
fn kept_lines_get_their_last_tries_before_the_end_the_result_let_through() {
    let (mut s, now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    enqueue_frames(&mut s, &mut queue);
    let (mut at, mut failures_left, mut stored, mut seen) = (now, 3, 0, Vec::new());
    for _ in 0..20 {
        s.sync_store(at, &mut queue);
        if let Some(append) = queue.poll_append(at) {
            let outcome = if failures_left > 0 {
                failures_left -= 1;
                AppendOutcome::Failed("down".into())
            } else {
                stored += append.entries.len();
                AppendOutcome::Stored
            };
            queue.append_done(at, append.id, outcome);
            s.sync_store(at, &mut queue);
        }
        seen.extend(events(&mut s));
        match queue.poll_timeout() {
            Some(next) => {
                at = next;
                queue.handle_timeout(at);
            }
            None if queue.is_idle() => break,
            None => {}
        }
    }
    assert_eq!(stored, 1, "the kept line, stored with the last tries");
    let kinds: Vec<&str> = seen
        .iter()
        .filter_map(|e| match e {
            Event::StoreFailed(_) => Some("failed"),
            Event::Message(Message::Result(_)) => Some("result"),
            Event::Finished(_) => Some("finished"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["failed", "result", "finished"]);
}

/// The end waits for the store's last tries, unless the place is lost meanwhile: then nothing
/// more is stored from here, and the end goes out at once, before the host syncs again.
#[test]
fn a_place_lost_while_the_end_waits_for_the_store_ends_at_once() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    s.sync_store(now, &mut queue);
    queue.enqueue(key(), frame("u1"));
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    s.sync_store(now, &mut queue);
    assert!(!events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Finished(_))));
    s.place_lost(now);
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Finished(_))));
    s.sync_store(now, &mut queue);
    assert!(queue.is_idle() && queue.poll_append(now).is_none());
}

/// Lines kept from a failed batch get their last tries before the end, even when the CLI
/// exits while the queue looks idle (kept lines wait for a flush or the end).
#[test]
fn the_end_waits_for_kept_lines_even_when_the_queue_looked_idle() {
    let (mut s, now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits {
        retry_after: Vec::new(),
        ..MirrorLimits::default()
    });
    enqueue_frames(&mut s, &mut queue);
    s.sync_store(now, &mut queue);
    let append = queue.poll_append(now).unwrap();
    queue.append_done(now, append.id, AppendOutcome::Failed("down".into()));
    s.sync_store(now, &mut queue);
    assert!(queue.is_idle(), "the line is kept for later");
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Message(Message::Result(_)))));

    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    assert_eq!(events(&mut s), vec![], "the end waits for a sync");
    s.sync_store(now, &mut queue);
    assert_eq!(
        s.poll_event(),
        None,
        "the kept line's last try is under way"
    );
    let append = queue
        .poll_append(now)
        .expect("the kept line, tried at the end");
    queue.append_done(now, append.id, AppendOutcome::Stored);
    assert!(s.sync_store(now, &mut queue));
    assert!(matches!(s.poll_event(), Some(Event::Finished(_))));
}

/// Once the place is lost (here the fleet's ledger says so), the queue stores nothing more
/// and reports nothing: the transcript goes on on the other host.
#[test]
fn a_lost_place_lets_go_of_the_stores_lines() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    queue.enqueue(key(), frame("u1"));
    s.place_lost(now);
    s.sync_store(now, &mut queue);
    queue.enqueue(key(), frame("u2"));
    queue.finish();
    assert!(queue.is_idle());
    assert!(queue.poll_append(now).is_none());
    assert!(queue.take_failure().is_none());
}

/// A session that stops its CLI gives the queue's lines their last tries, without waiting for
/// a turn's result.
#[test]
fn a_stopping_session_sends_the_stores_lines_at_once() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits::default());
    queue.enqueue(key(), frame("u1"));
    s.sync_store(now, &mut queue);
    assert!(
        queue.poll_append(now).is_none(),
        "batched: the turn is not over"
    );
    s.close(now);
    s.sync_store(now, &mut queue);
    let append = queue.poll_append(now).expect("the last lines go");
    assert_eq!(append.entries.len(), 1);
}

/// A store so far behind that its queue is saturated holds the session's events back (and so,
/// once the event queue is full, the reading of the CLI) until it catches up.
#[test]
fn a_saturated_store_holds_the_events_back() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    let mut queue = MirrorQueue::new(MirrorLimits {
        eager: true,
        max_pending_entries: 1,
        saturation: 1,
        ..MirrorLimits::default()
    });
    queue.enqueue(key(), frame("u1"));
    let append = queue.poll_append(now).unwrap();
    queue.enqueue(key(), frame("u2"));
    queue.enqueue(key(), frame("u3"));
    feed(&mut s, now, &answer("req_0", "{}"));
    assert!(!s.sync_store(now, &mut queue));
    assert_eq!(s.poll_event(), None, "the store is behind");
    queue.append_done(now, append.id, AppendOutcome::Stored);
    assert!(s.sync_store(now, &mut queue), "caught up: the events go on");
    assert!(events(&mut s).contains(&Event::Ready));
}

/// A session whose first turn ended: its result waits for the turn's charge, and the status
/// line after it waits behind it.
fn result_held_for_its_charge() -> (Session, Instant, Vec<Event>) {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.results_after_charge = true;
    let (mut s, now) = in_a_turn(config);
    feed(&mut s, now, RESULT);
    feed(
        &mut s,
        now,
        r#"{"type":"system","subtype":"status","status":null,"session_id":"s"}"#,
    );
    let before = events(&mut s);
    (s, now, before)
}

/// With a ledger to charge, each turn's cost comes first, once; its result, and what came
/// after it, goes on once the host says the charge is made.
#[test]
fn a_result_waits_for_its_turns_charge() {
    let (mut s, _, before) = result_held_for_its_charge();
    let charge = before
        .iter()
        .position(|e| matches!(e, Event::Charge(cost) if cost.cli_usd == Some(0.25)));
    assert_eq!(
        charge,
        Some(before.len() - 1),
        "the charge comes last: {before:?}"
    );
    assert_eq!(s.poll_event(), None, "the result waits for its charge");
    s.turn_charged();
    let after = events(&mut s);
    assert!(
        matches!(
            &after[..],
            [
                Event::Message(Message::Result(_)),
                Event::Message(Message::System(_))
            ]
        ),
        "{after:?}"
    );
    s.turn_charged();
    assert_eq!(events(&mut s), vec![], "nothing waits for a charge");
}

/// A place lost while a result waits for its charge: the result is dropped, and since its cost
/// is the host's already it is not charged again as an unfinished turn. A session that had
/// finished cleanly ends with the loss, since the application did not get everything.
#[test]
fn a_result_dropped_after_its_charge_is_not_charged_again() {
    let (mut s, now, _) = result_held_for_its_charge();
    s.handle_stdout_eof(now);
    s.handle_exit(now, ExitStatusInfo::code(0));
    assert_eq!(s.poll_event(), None, "the end waits behind the result");
    assert!(!s.is_finished());
    s.place_lost(now);
    let after = events(&mut s);
    assert_eq!(
        after,
        vec![Event::Finished(Termination::Ended(EndReason::PlaceLost))]
    );
    assert!(s.is_finished());
}

/// A host that lets the session go mid-flight (its task cancelled) hands on nothing more: an
/// assistant message not taken yet and a result held for the store are dropped, and the
/// result's turn is still counted, as an unfinished turn.
#[test]
fn an_abandoned_session_hands_on_nothing_and_still_counts_its_turn() {
    let (mut s, now) = result_held_for_the_store(SessionConfig::new(InputMode::Streaming));
    let before = events(&mut s);
    assert!(!before
        .iter()
        .any(|e| matches!(e, Event::Message(Message::Result(_)))));
    feed(
        &mut s,
        now,
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"late"}]},"session_id":"s"}"#,
    );
    s.abandon(now);
    assert!(s.is_finished());
    let after = events(&mut s);
    assert!(
        !after.iter().any(|e| matches!(e, Event::Message(_))),
        "nothing reaches the application: {after:?}"
    );
    assert_eq!(unfinished_usd(&after), [0.25], "{after:?}");
    assert!(
        matches!(after.last(), Some(Event::Finished(_))),
        "{after:?}"
    );
    assert!(!s.waits_for_store());
}

/// A result whose charge the host already has is dropped when the session is abandoned, and
/// its turn is not counted again.
#[test]
fn an_abandoned_session_does_not_count_a_charged_turn_again() {
    let (mut s, now, before) = result_held_for_its_charge();
    assert!(matches!(before.last(), Some(Event::Charge(_))));
    s.abandon(now);
    let after = events(&mut s);
    assert!(
        !after.iter().any(|e| matches!(
            e,
            Event::Message(_) | Event::Charge(_) | Event::UnfinishedTurn(_)
        )),
        "{after:?}"
    );
    assert!(s.is_finished());
}

/// With a store and a ledger, a result is stored first, and then charged.
#[test]
fn a_result_is_stored_before_it_is_charged() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.results_after_charge = true;
    let (mut s, _) = result_held_for_the_store(config);
    let before = events(&mut s);
    assert!(
        matches!(&before[..], [.., Event::Mirror(_)]),
        "the store first: {before:?}"
    );
    s.store_flushed();
    assert!(matches!(&events(&mut s)[..], [Event::Charge(_)]));
    s.turn_charged();
    assert!(matches!(
        &events(&mut s)[..],
        [Event::Message(Message::Result(_))]
    ));
}

/// Hand the session every deadline up to `until`, in order; what it asked the host to do, and
/// when (from `start`).
fn run_until(
    s: &mut Session,
    start: Instant,
    until: Instant,
) -> Vec<(Duration, serde_json::Value)> {
    let mut done = Vec::new();
    while let Some(deadline) = s.poll_timeout().filter(|d| *d <= until) {
        s.handle_timeout(deadline);
        for what in written(s) {
            done.push((deadline - start, what));
        }
    }
    done
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

#[test]
fn a_cli_that_exits_when_its_stdin_closes_gets_no_signal() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    s.close(now);
    assert_eq!(written(&mut s), ["close stdin"]);
    s.handle_stdout_eof(now + secs(1.0));
    s.handle_exit(now + secs(1.0), ExitStatusInfo::code(0));
    assert!(matches!(
        events_last(&mut s),
        Some(Event::Finished(Termination::ClosedByHost))
    ));
    // Its stderr may be held by a process it started: let go half a second after the exit.
    assert_eq!(
        run_until(&mut s, now, now + secs(60.0)),
        [(secs(1.5), json!("release pipes"))]
    );
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn a_cli_that_ignores_its_closed_stdin_gets_sigterm_and_then_sigkill() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    s.close(now);
    assert!(s.stopping());
    assert_eq!(written(&mut s), ["close stdin"]);
    assert_eq!(
        run_until(&mut s, now, now + secs(60.0)),
        [(secs(5.0), json!("Terminate")), (secs(10.0), json!("Kill"))]
    );
    s.handle_stdout_eof(now + secs(10.1));
    s.handle_exit(now + secs(10.1), ExitStatusInfo::signal(9));
    assert!(matches!(
        events_last(&mut s),
        Some(Event::Finished(Termination::ClosedByHost))
    ));
}

#[test]
fn the_graces_of_stopping_are_the_configuration_s() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.timeouts.exit_after_stdin_closed = secs(10.0);
    config.timeouts.exit_after_terminate = secs(1.0);
    let (mut s, now) = start(config);
    s.close(now);
    written(&mut s);
    assert_eq!(
        run_until(&mut s, now, now + secs(60.0)),
        [
            (secs(10.0), json!("Terminate")),
            (secs(11.0), json!("Kill"))
        ]
    );
}

#[test]
fn a_session_that_ends_itself_stops_its_cli_the_same_way() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    s.place_lost(now);
    assert!(s.stopping());
    assert_eq!(kinds(&written(&mut s)), ["interrupt", "close stdin"]);
    assert_eq!(
        run_until(&mut s, now, now + secs(5.0)),
        [(secs(5.0), json!("Terminate"))]
    );
    // Exited before SIGKILL was due: none is asked for.
    s.handle_exit(now + secs(6.0), ExitStatusInfo::signal(15));
    s.handle_stdout_eof(now + secs(6.0));
    assert_eq!(
        run_until(&mut s, now, now + secs(60.0)),
        [(secs(6.5), json!("release pipes"))]
    );
}

#[test]
fn a_cli_that_closes_stdout_before_initialize_and_runs_on_is_stopped() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    s.handle_stdout_eof(now);
    // `initialize` failed at once, and nothing more can be sent.
    assert!(events(&mut s).iter().any(|e| matches!(
        e,
        Event::RequestDone {
            outcome: Err(RequestFailure::Closed(CloseCause::StdoutClosed)),
            ..
        }
    )));
    assert_eq!(
        s.send_user(now, UserInput::text("hello")),
        Err(SendError::Closed)
    );
    assert!(!s.stopping());
    // Five seconds on, still running: its stdin is closed, then SIGTERM, then SIGKILL, 5 s apart.
    assert_eq!(
        run_until(&mut s, now, now + secs(60.0)),
        [
            (secs(5.0), json!("close stdin")),
            (secs(10.0), json!("Terminate")),
            (secs(15.0), json!("Kill")),
        ]
    );
    s.handle_exit(now + secs(15.0), ExitStatusInfo::signal(9));
    let last = events_last(&mut s);
    assert!(
        matches!(last, Some(Event::Finished(Termination::StartFailed(_)))),
        "{last:?}"
    );
}

#[test]
fn stdout_held_open_after_the_exit_is_taken_as_ended() {
    let (mut s, now) = start(SessionConfig::new(InputMode::Streaming));
    s.handle_exit(now, ExitStatusInfo::code(0));
    assert!(!events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Finished(_))));
    assert_eq!(
        run_until(&mut s, now, now + secs(60.0)),
        [(secs(0.5), json!("release pipes"))]
    );
    assert!(matches!(events_last(&mut s), Some(Event::Finished(_))));
}

/// A `tools/call` of the in-process `slow` server, numbered `rpc`, as control request `wire`.
fn tool_call(wire: &str, rpc: u32) -> String {
    format!(
        r#"{{"type":"control_request","request_id":"{wire}","request":{{"subtype":"mcp_message","server_name":"slow","message":{{"method":"tools/call","params":{{"name":"wait","arguments":{{}}}},"jsonrpc":"2.0","id":{rpc}}}}}}}"#
    )
}

fn slow_server(timeout: Option<Duration>) -> crate::mcp::McpServerSpec {
    let schema = Json::from_serialize(&json!({"type": "object"})).unwrap();
    let mut tool = crate::mcp::ToolSpec::new("wait", "waits", schema);
    tool.timeout = timeout;
    crate::mcp::McpServerSpec::new("slow", "1.0.0").tool(tool)
}

/// A tool call the host has not answered within its tool's time limit (counted from when the
/// session read it) is answered by the session with an error result; the host is told to stop
/// it, and its late answer is refused. A tool without a limit waits.
#[test]
fn a_tool_call_past_its_time_limit_is_answered_by_the_session() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.mcp_servers = vec![slow_server(Some(secs(30.0)))];
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    events(&mut s);
    feed(&mut s, now + secs(1.0), &tool_call("m1", 7));
    let Some(Event::Inbound(call)) = s.poll_event() else {
        panic!("no tool call")
    };
    assert_eq!(s.poll_timeout(), Some(now + secs(31.0)));

    s.handle_timeout(now + secs(30.9));
    assert!(written(&mut s).is_empty());
    s.handle_timeout(now + secs(31.0));
    let answered = &written(&mut s)[0]["response"];
    assert_eq!(answered["request_id"], "m1");
    let result = &answered["response"]["mcp_response"];
    assert_eq!(result["id"], 7);
    assert_eq!(result["result"]["isError"], true);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "The tool wait of server slow did not finish within 30 s and was stopped."
    );
    assert_eq!(events(&mut s), [Event::Expired(call.id)]);
    let late = Reply::ToolResult(crate::mcp::ToolResult::text("done"));
    assert_eq!(
        s.respond(now + secs(32.0), call.id, late),
        Err(RespondError::Expired)
    );
    assert!(written(&mut s).is_empty(), "nothing more is written");
    assert_eq!((s.pending_inbound(), s.poll_timeout()), (0, None));

    // Without a limit the call waits for the host.
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.mcp_servers = vec![slow_server(None)];
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    feed(&mut s, now, &tool_call("m1", 7));
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, Event::Inbound(_))));
    assert_eq!(s.poll_timeout(), None);
}

/// A `can_use_tool` prompt from the CLI, with the request id `wire`.
fn prompt(wire: &str) -> String {
    format!(
        r#"{{"type":"control_request","request_id":"{wire}","request":{{"subtype":"can_use_tool","tool_name":"Bash","input":{{"command":"ls"}},"tool_use_id":"toolu_{wire}"}}}}"#
    )
}

/// A ready session whose host may have two prompts at once, fed four (`p1` to `p4`).
fn four_prompts_with_room_for_two() -> (Session, Instant) {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.can_use_tool = true;
    config.limits.max_inbound_in_flight = 2;
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    events(&mut s);
    for wire in ["p1", "p2", "p3", "p4"] {
        feed(&mut s, now, &prompt(wire));
    }
    (s, now)
}

/// A tool call the session answers past its time limit, while the host has as many requests as
/// it may and a result waits for its charge behind the next one: the host is told of the expiry
/// at once, which frees the place of the next request, and then the charge comes. (Found by the
/// fuzzer: the expiry waited behind the result, the result behind its charge, the charge
/// behind the request, and the request for a place only the told expiry frees.)
#[test]
fn an_expiry_held_behind_a_result_waiting_for_its_charge_is_told_at_once() {
    let mut config = SessionConfig::new(InputMode::Streaming);
    config.can_use_tool = true;
    config.mcp_servers = vec![slow_server(Some(secs(2.0)))];
    config.limits.max_inbound_in_flight = 2;
    config.results_after_charge = true;
    let (mut s, now) = start(config);
    feed(&mut s, now, &answer("req_0", "{}"));
    events(&mut s);
    feed(&mut s, now, &tool_call("m1", 7));
    feed(&mut s, now, &prompt("p1"));
    feed(&mut s, now, &prompt("p2"));
    feed(&mut s, now, RESULT);
    let first = events(&mut s);
    assert_eq!(first.len(), 2, "two requests, then p2 waits: {first:?}");
    let Event::Inbound(call) = &first[0] else {
        panic!("{first:?}")
    };
    let call = call.id;
    s.handle_timeout(now + secs(2.0));
    let after = events(&mut s);
    assert!(
        matches!(
            &after[..],
            [Event::Expired(id), Event::Inbound(p2), Event::Charge(_)]
                if *id == call && p2.wire_id == "p2"
        ),
        "{after:?}"
    );
}

/// The host gets at most `max_inbound_in_flight` requests it has not answered: the next one,
/// and every event after it, waits until one is answered or withdrawn.
#[test]
fn requests_past_the_in_flight_limit_wait_for_an_answer() {
    let (mut s, now) = four_prompts_with_room_for_two();
    feed(
        &mut s,
        now,
        r#"{"type":"system","subtype":"status","status":"requesting","session_id":"s"}"#,
    );
    let handed: Vec<InboundRequest> = events(&mut s)
        .into_iter()
        .map(|e| match e {
            Event::Inbound(request) => *request,
            other => panic!("{other:?} before the held requests"),
        })
        .collect();
    assert_eq!(handed.len(), 2, "two at once");
    assert_eq!(s.pending_inbound(), 4, "all four are open");

    let allow = || Reply::Permission(crate::permission::PermissionResult::allow());
    s.respond(now, handed[0].id, allow()).unwrap();
    let Some(Event::Inbound(third)) = s.poll_event() else {
        panic!("the third request comes once the first is answered")
    };
    assert_eq!(third.wire_id, "p3");
    assert_eq!(s.poll_event(), None, "the fourth waits: two are out again");

    // A withdrawn request makes room too, once the host is told: the withdrawal goes ahead of
    // the waiting request, which would otherwise be a third in the host's hands.
    feed(
        &mut s,
        now,
        r#"{"type":"control_cancel_request","request_id":"p2"}"#,
    );
    let rest = events(&mut s);
    assert!(
        matches!(rest[0], Event::Cancelled(id) if id == handed[1].id),
        "{rest:?}"
    );
    assert!(
        matches!(&rest[1], Event::Inbound(r) if r.wire_id == "p4"),
        "{rest:?}"
    );
    assert!(
        matches!(rest[2], Event::Message(_)),
        "then the message held behind it"
    );
}

/// A request withdrawn while it waits behind the limit was never the host's: it leaves the
/// queue unseen, with no withdrawal to tell, and the host still has no more than the limit
/// (the fuzzer's `ops` target saw a third request handed out, then its cancellation).
#[test]
fn a_request_withdrawn_before_it_was_handed_out_is_never_seen() {
    let (mut s, now) = four_prompts_with_room_for_two();
    let handed = events(&mut s);
    assert_eq!(handed.len(), 2, "{handed:?}");
    feed(
        &mut s,
        now,
        r#"{"type":"control_cancel_request","request_id":"p3"}"#,
    );
    assert_eq!(events(&mut s), vec![], "p3 is gone unseen, p4 still waits");
    assert_eq!(s.pending_inbound(), 3);
    // Closing withdraws the rest: the host is told of the two it has, not of p4.
    s.close(now);
    let told: Vec<InboundId> = events(&mut s)
        .into_iter()
        .filter_map(|e| match e {
            Event::Cancelled(id) => Some(id),
            Event::Inbound(request) => panic!("{} handed out after the close", request.wire_id),
            _ => None,
        })
        .collect();
    let had: Vec<InboundId> = handed
        .iter()
        .map(|e| match e {
            Event::Inbound(request) => request.id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(told, had);
}

#[test]
fn time_limits_read_as_people_write_them() {
    assert_eq!(human_duration(Duration::from_millis(500)), "0.5 s");
    assert_eq!(human_duration(Duration::from_secs(90)), "90 s");
    assert_eq!(human_duration(Duration::from_secs(600)), "10 min");
}
