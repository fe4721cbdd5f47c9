use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::*;

const PROJECT: &str = "-app";

fn frame(file: &str, entries: &[Value]) -> TranscriptMirror {
    let line = json!({"filePath": format!("/home/me/.claude/projects/{PROJECT}/{file}"), "entries": entries});
    serde_json::from_value(line).unwrap()
}

fn key(session: &str) -> SessionKey {
    SessionKey::new(PROJECT, session)
}

fn queue(eager: bool) -> MirrorQueue {
    MirrorQueue::new(MirrorLimits {
        eager,
        ..MirrorLimits::default()
    })
}

/// Store every append the queue hands out at `now`, as a store that works would; the appends
/// made, in order.
fn store_all(queue: &mut MirrorQueue, now: Instant) -> Vec<(SessionKey, Vec<Value>)> {
    let mut stored = Vec::new();
    while let Some(append) = queue.poll_append(now) {
        stored.push((append.key.clone(), append.entries.to_vec()));
        queue.append_done(now, append.id, AppendOutcome::Stored);
    }
    stored
}

/// Fail every append the queue hands out, waiting out each retry: the tries made.
fn fail_all(queue: &mut MirrorQueue, mut now: Instant) -> (usize, Instant) {
    let mut tries = 0;
    loop {
        while let Some(append) = queue.poll_append(now) {
            tries += 1;
            queue.append_done(
                now,
                append.id,
                AppendOutcome::Failed("database unavailable".into()),
            );
        }
        match queue.poll_timeout() {
            Some(at) => {
                now = now.max(at);
                queue.handle_timeout(now);
            }
            None => return (tries, now),
        }
    }
}

#[test]
fn a_batch_waits_for_the_flush_then_goes_one_append_per_file_in_order() {
    let now = Instant::now();
    let mut q = queue(false);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    let sub = key("s1").with_subpath("subagents/agent-7");
    q.enqueue(
        Ok(sub.clone()),
        frame("s1/subagents/agent-7.jsonl", &[json!({"uuid": "x"})]),
    );
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "b"})]));
    assert!(
        q.poll_append(now).is_none(),
        "batched: not before the flush"
    );
    assert!(!q.is_idle());

    q.flush();
    let stored = store_all(&mut q, now);
    assert_eq!(
        stored,
        [
            (key("s1"), vec![json!({"uuid": "a"}), json!({"uuid": "b"})]),
            (sub, vec![json!({"uuid": "x"})]),
        ]
    );
    assert!(q.is_idle());
    assert!(q.take_failure().is_none());
}

#[test]
fn one_append_at_a_time() {
    let now = Instant::now();
    let mut q = queue(true);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"n": 1})]));
    let first = q.poll_append(now).unwrap();
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"n": 2})]));
    assert!(q.poll_append(now).is_none(), "the first is under way");
    q.append_done(now, first.id, AppendOutcome::Stored);
    let second = q.poll_append(now).unwrap();
    assert_eq!(*second.entries, vec![json!({"n": 2})]);
}

#[test]
fn past_the_entry_limit_a_batch_goes_on_its_own() {
    let now = Instant::now();
    let mut q = queue(false);
    let limit = MirrorLimits::default().max_pending_entries;
    let entries: Vec<Value> = (0..limit).map(|n| json!({ "n": n })).collect();
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &entries));
    assert!(q.poll_append(now).is_none(), "at the limit: not yet");
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"n": limit})]));
    assert_eq!(store_all(&mut q, now)[0].1.len(), limit + 1);
}

#[test]
fn a_failed_append_is_tried_again_after_200_then_800_ms() {
    let start = Instant::now();
    let mut q = queue(true);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    let failed = AppendOutcome::Failed("down".into());
    let first = q.poll_append(start).unwrap();
    q.append_done(start, first.id, failed.clone());
    assert_eq!(q.poll_timeout(), Some(start + Duration::from_millis(200)));
    assert!(q.poll_append(start + Duration::from_millis(199)).is_none());
    let at = start + Duration::from_millis(200);
    let second = q.poll_append(at).unwrap();
    assert_eq!(second.id, first.id, "one append, over its tries");
    q.append_done(at, second.id, failed.clone());
    assert_eq!(q.poll_timeout(), Some(at + Duration::from_millis(800)));
    let at = at + Duration::from_millis(800);
    let third = q.poll_append(at).unwrap();
    q.append_done(at, third.id, AppendOutcome::Stored);
    assert!(q.is_idle());
    assert!(q.take_failure().is_none(), "the third try stored it");
}

#[test]
fn an_append_past_its_time_limit_is_given_up_and_not_tried_again() {
    let start = Instant::now();
    let mut q = queue(true);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    let append = q.poll_append(start).unwrap();
    let limit = start + Duration::from_secs(60);
    assert_eq!(q.poll_timeout(), Some(limit));
    q.handle_timeout(limit - Duration::from_millis(1));
    assert!(q.awaits(append.id));
    q.handle_timeout(limit);
    assert!(!q.awaits(append.id));
    assert!(q.poll_append(limit).is_none(), "not tried again");
    assert_eq!(
        q.take_failure().unwrap(),
        MirrorFailure {
            key: Some(key("s1")),
            error: "the session store's append did not finish within 1 min; 1 line kept, to be tried again with the next turn".into(),
        }
    );
    // Its outcome, when it comes after all, changes nothing.
    q.append_done(limit, append.id, AppendOutcome::Stored);
    assert!(q.is_idle());
    q.flush();
    assert_eq!(store_all(&mut q, limit).len(), 1, "kept for the next flush");
}

#[test]
fn a_refused_batch_is_reported_kept_and_stored_ahead_of_the_next_turn() {
    let now = Instant::now();
    let mut q = queue(false);
    q.enqueue(
        Ok(key("s1")),
        frame("s1.jsonl", &[json!({"uuid": "first"})]),
    );
    q.flush();
    let (tries, now) = fail_all(&mut q, now);
    assert_eq!(tries, 3);
    assert_eq!(
        q.take_failure().unwrap(),
        MirrorFailure {
            key: Some(key("s1")),
            error: "database unavailable; 1 line kept, to be tried again with the next turn".into(),
        }
    );
    assert!(q.is_idle(), "kept lines do not hold a result back");

    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "next"})]));
    q.flush();
    assert_eq!(
        store_all(&mut q, now),
        [(
            key("s1"),
            vec![json!({"uuid": "first"}), json!({"uuid": "next"})]
        )]
    );
}

#[test]
fn kept_lines_are_tried_once_per_flush_not_in_a_loop() {
    let now = Instant::now();
    let mut q = queue(false);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    q.flush();
    let (tries, now) = fail_all(&mut q, now);
    assert_eq!(tries, 3);
    assert_eq!(fail_all(&mut q, now).0, 0, "no flush, no try");
    q.flush();
    assert_eq!(fail_all(&mut q, now).0, 3);
    assert_eq!(q.take_failure().unwrap().key, Some(key("s1")));
    assert_eq!(q.take_failure().unwrap().key, Some(key("s1")));
    assert!(q.take_failure().is_none());
}

#[test]
fn the_end_of_the_session_tries_kept_lines_one_last_time() {
    let now = Instant::now();
    let mut q = queue(false);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    q.flush();
    let (_, now) = fail_all(&mut q, now);
    q.take_failure().unwrap();
    q.finish();
    q.finish();
    let (tries, now) = fail_all(&mut q, now);
    assert_eq!(tries, 3, "one last time, with its retries");
    assert_eq!(
        q.take_failure().unwrap().error,
        "database unavailable; 1 line not stored (the session has ended)"
    );
    // What comes after the end still goes at once.
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "late"})]));
    assert_eq!(store_all(&mut q, now).len(), 1);
    assert!(q.take_failure().is_none());
}

#[test]
fn kept_lines_are_bounded() {
    let mut now = Instant::now();
    let mut q = queue(false);
    let limits = MirrorLimits::default();
    let big: Vec<Value> = (0..limits.max_pending_entries)
        .map(|i| json!({"uuid": i}))
        .collect();
    for _ in 0..limits.saturation {
        q.enqueue(Ok(key("s1")), frame("s1.jsonl", &big));
        q.flush();
        now = fail_all(&mut q, now).1;
        assert!(q
            .take_failure()
            .unwrap()
            .error
            .ends_with("to be tried again with the next turn"));
    }
    q.enqueue(
        Ok(key("s1")),
        frame("s1.jsonl", &[json!({"uuid": "one more"})]),
    );
    q.flush();
    fail_all(&mut q, now);
    let kept = limits.saturation * limits.max_pending_entries;
    assert_eq!(
        q.take_failure().unwrap().error,
        format!(
            "database unavailable; {} lines dropped (at most {kept} lines or 4 MiB are kept for a store that is down)",
            kept + 1
        )
    );
}

#[test]
fn lines_without_a_key_are_reported_and_dropped() {
    let now = Instant::now();
    let mut q = queue(false);
    q.enqueue(
        Err("the CLI wrote /elsewhere/s1.jsonl outside the projects folder".into()),
        frame("s1.jsonl", &[json!({})]),
    );
    q.enqueue(Ok(key("s2")), frame("s2.jsonl", &[json!({"uuid": "b"})]));
    q.flush();
    assert_eq!(
        store_all(&mut q, now),
        [(key("s2"), vec![json!({"uuid": "b"})])]
    );
    assert_eq!(
        q.take_failure().unwrap(),
        MirrorFailure {
            key: None,
            error: "the CLI wrote /elsewhere/s1.jsonl outside the projects folder".into(),
        }
    );
    assert!(q.is_idle());
}

#[test]
fn a_fence_stops_everything_at_once() {
    let now = Instant::now();
    let mut q = queue(false);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    q.enqueue(Ok(key("s2")), frame("s2.jsonl", &[json!({"uuid": "b"})]));
    q.flush();
    let append = q.poll_append(now).unwrap();
    q.append_done(now, append.id, AppendOutcome::Fenced("taken over".into()));
    assert_eq!(q.fenced(), Some("taken over"));
    assert!(
        q.poll_append(now).is_none(),
        "the rest would be refused too"
    );
    assert!(q.take_failure().is_none(), "a fence is not a store failure");
    assert!(q.is_idle());
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "c"})]));
    q.finish();
    assert!(q.poll_append(now).is_none(), "nothing more from this host");
}

#[test]
fn the_queue_is_saturated_while_a_batch_is_under_way_and_much_waits_behind_it() {
    let now = Instant::now();
    let mut q = queue(true);
    let limits = MirrorLimits::default();
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"n": 0})]));
    let append = q.poll_append(now).unwrap();
    let many: Vec<Value> = (0..=limits.saturation * limits.max_pending_entries)
        .map(|n| json!({ "n": n }))
        .collect();
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &many));
    assert!(q.is_saturated());
    q.append_done(now, append.id, AppendOutcome::Stored);
    assert!(!q.is_saturated(), "the next batch takes what waited");
    q.poll_append(now).unwrap();
    assert!(!q.is_saturated());
}

#[test]
fn a_queue_that_keeps_trying_holds_on_until_the_store_is_back() {
    let start = Instant::now();
    let mut q = MirrorQueue::new(MirrorLimits {
        keep_trying_for: Some(Duration::from_secs(60)),
        append_timeout: Duration::from_secs(5),
        ..MirrorLimits::default()
    });
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    q.flush();
    // Ten tries fail (the database restarts), over about seven seconds.
    let mut now = start;
    for _ in 0..10 {
        let append = q.poll_append(now).unwrap();
        q.append_done(now, append.id, AppendOutcome::Failed("restarting".into()));
        now = q.poll_timeout().unwrap();
    }
    assert_eq!(now - start, Duration::from_millis(200 + 800 * 9));
    assert!(!q.is_idle(), "the result still waits");
    assert!(q.take_failure().is_none(), "nothing given up");
    // One past its time limit is tried again, not given up.
    let stuck = q.poll_append(now).unwrap();
    now += Duration::from_secs(5);
    q.handle_timeout(now);
    assert!(!q.awaits(stuck.id));
    let again = q.poll_append(now).unwrap();
    q.append_done(now, again.id, AppendOutcome::Stored);
    assert!(q.is_idle());
    assert!(q.take_failure().is_none());

    // A minute after its first try, an append is given up as any other.
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "b"})]));
    q.flush();
    let first = now;
    let (tries, now) = fail_all(&mut q, now);
    assert_eq!(tries, 2 + 60_000 / 800);
    assert!(now - first >= Duration::from_secs(60));
    assert!(q
        .take_failure()
        .unwrap()
        .error
        .ends_with("to be tried again with the next turn"));

    // Once the session has ended, the tries are counted again.
    q.finish();
    assert_eq!(fail_all(&mut q, now).0, 3);
    assert!(q
        .take_failure()
        .unwrap()
        .error
        .ends_with("not stored (the session has ended)"));
}

/// The lines an error reports as lost for good ("; 3 lines dropped", "; 1 line not stored"),
/// none when they are kept.
fn lost_in(error: &str) -> usize {
    let Some((_, outcome)) = error.rsplit_once("; ") else {
        return 0;
    };
    let count: usize = outcome.split(' ').next().unwrap().parse().unwrap();
    if outcome.contains(" kept,") {
        0
    } else {
        count
    }
}

/// Random schedules of frames, flushes, outcomes (stored, failed, fenced, late) and time, on
/// small limits: one append at a time; each file's lines stored in the order they came, none
/// twice; with `keep_trying`, nothing given up before the end; and once the session ends and
/// the store works, every line stored or reported lost, and nothing left.
#[test]
fn random_schedules_lose_no_line_and_keep_the_order() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound
    };
    for _ in 0..500 {
        // Keeping on for an hour: longer than any schedule here.
        let keep_trying = next(2) == 0;
        let no_key_for_s3 = next(3) == 0;
        let mut q = MirrorQueue::new(MirrorLimits {
            eager: next(3) == 0,
            max_pending_entries: 4,
            max_pending_bytes: 1 << 20,
            saturation: 2,
            retry_after: vec![Duration::from_millis(200), Duration::from_millis(800)],
            append_timeout: Duration::from_secs(5),
            keep_trying_for: keep_trying.then_some(Duration::from_secs(3600)),
        });
        let mut now = Instant::now();
        let mut sent = 0usize;
        let mut unkeyed = 0usize;
        let mut stored: Vec<(String, u64)> = Vec::new();
        let mut lost = 0usize;
        let mut awaited: Option<Append> = None;
        let mut fenced = false;
        let mut fenced_pending = 0usize;
        let steps = 20 + next(60);
        for step in 0..steps + 200 {
            let ending = step >= steps;
            if ending {
                q.finish();
                // The clock runs on to the queue's next wait.
                if let Some(at) = q.poll_timeout() {
                    now = now.max(at);
                }
            }
            match if ending { 9 } else { next(10) } {
                0..=2 => {
                    let file = ["s1", "s2", "s3"][next(3) as usize];
                    let entries: Vec<Value> = (0..1 + next(3))
                        .map(|_| {
                            sent += 1;
                            json!({ "n": sent })
                        })
                        .collect();
                    // A file outside the projects folder has no key, in some runs.
                    let key = if file == "s3" && no_key_for_s3 {
                        unkeyed += entries.len();
                        Err(format!("{file} has no key"))
                    } else {
                        Ok(key(file))
                    };
                    if fenced {
                        fenced_pending += entries.len();
                    }
                    q.enqueue(key, frame(&format!("{file}.jsonl"), &entries));
                }
                3 => q.flush(),
                4 => now += Duration::from_millis(100 * next(30)),
                _ => {}
            }
            if let Some(at) = q.poll_timeout().filter(|at| *at <= now) {
                q.handle_timeout(at.max(now));
            }
            if let Some(append) = q.poll_append(now) {
                assert!(
                    awaited
                        .as_ref()
                        .is_none_or(|a| !q.awaits(a.id) || a.id == append.id),
                    "two appends at once"
                );
                awaited = Some(append);
            }
            let Some(append) = awaited.clone() else {
                continue;
            };
            if !q.awaits(append.id) {
                awaited = None;
                continue;
            }
            let outcome = match if ending { 0 } else { next(8) } {
                0..=3 => AppendOutcome::Stored,
                4..=5 => AppendOutcome::Failed("down".into()),
                6 if next(20) == 0 => AppendOutcome::Fenced("taken".into()),
                _ => continue, // still running: time may pass it by
            };
            if outcome == AppendOutcome::Stored {
                let file = append.key.session_id.clone();
                for entry in append.entries.iter() {
                    stored.push((file.clone(), entry["n"].as_u64().unwrap()));
                }
            }
            if matches!(outcome, AppendOutcome::Fenced(_)) {
                fenced = true;
            }
            q.append_done(now, append.id, outcome);
            awaited = None;
            while let Some(failure) = q.take_failure() {
                assert!(
                    !keep_trying || q.finishing || failure.key.is_none(),
                    "given up while keeping on: {failure:?}"
                );
                lost += lost_in(&failure.error);
            }
        }
        while let Some(failure) = q.take_failure() {
            lost += lost_in(&failure.error);
        }
        // In order, once each.
        for file in ["s1", "s2", "s3"] {
            let ns: Vec<u64> = stored
                .iter()
                .filter(|(f, _)| f == file)
                .map(|(_, n)| *n)
                .collect();
            assert!(ns.windows(2).all(|w| w[0] < w[1]), "{file}: {ns:?}");
        }
        if fenced {
            assert!(q.is_idle() || q.fenced().is_some());
            continue;
        }
        assert!(q.is_idle(), "left at the end: {q:?}");
        assert_eq!(
            stored.len() + lost + unkeyed,
            sent,
            "every line stored or reported (keep_trying {keep_trying}, fenced {fenced_pending})"
        );
    }
}

#[test]
fn newer_lines_of_a_file_with_kept_lines_wait_behind_them() {
    let now = Instant::now();
    let mut q = queue(true);
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "a"})]));
    let (tries, now) = fail_all(&mut q, now);
    assert_eq!(tries, 3);
    q.take_failure().unwrap();
    // Eager, but `a` is kept: `b` does not overtake it, and another file goes at once.
    q.enqueue(Ok(key("s1")), frame("s1.jsonl", &[json!({"uuid": "b"})]));
    q.enqueue(Ok(key("s2")), frame("s2.jsonl", &[json!({"uuid": "c"})]));
    assert_eq!(
        store_all(&mut q, now),
        [(key("s2"), vec![json!({"uuid": "c"})])]
    );
    q.flush();
    assert_eq!(
        store_all(&mut q, now),
        [(key("s1"), vec![json!({"uuid": "a"}), json!({"uuid": "b"})])]
    );
}
