//! Many sessions on one host against real `fake-claude` processes: a fleet's session limit is
//! never exceeded however many sessions are asked for, every session finishes, and a session
//! dropped while it waits for its place starts nothing.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent_testkit::fake_cli::Script;

use crate::fake::Fake;
use crate::{kinds, within};
use claude_agent_client::{connect_with, query_with, Fleet, FleetLimits};

use crate::Harness;
use futures_lite::StreamExt;

const LIMIT: Duration = Duration::from_secs(60);

/// Samples, on a thread of its own, how many CLIs of `fake` run at once, until dropped.
struct AliveCounter {
    most: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl AliveCounter {
    fn start(fake: &Fake) -> AliveCounter {
        let marker = fake.marker();
        let (most, stop) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let thread = {
            let (most, stop) = (most.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let alive = super::fake::marked_processes(&marker).len();
                    most.fetch_max(alive, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
        };
        AliveCounter {
            most,
            stop,
            thread: Some(thread),
        }
    }

    fn most(&self) -> usize {
        self.most.load(Ordering::Relaxed)
    }
}

impl Drop for AliveCounter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

pub fn forty_sessions_with_a_limit_of_four_never_run_more_than_four_clis<H: Harness>() {
    let turn = Duration::from_millis(150);
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_system_init()
        .sleep(turn)
        .emit_assistant_text("ok")
        .emit_result("ok");
    let fake = Fake::builder(script).build();
    let fleet = Fleet::new(FleetLimits {
        max_sessions: Some(4),
        ..FleetLimits::default()
    })
    .expect("valid limits");
    let counter = AliveCounter::start(&fake);
    let started = Instant::now();
    H::block_on(async {
        let queries: Vec<_> = (0..40)
            .map(|n| {
                let key = format!("tenant-{}", n % 3);
                query_with(H::runtime(), "hi", fake.options().fleet(fleet.member(key)))
            })
            .collect();
        let mut most_running = 0;
        for query in queries {
            most_running = most_running.max(fleet.running());
            let items = within(LIMIT, query.collect::<Vec<_>>()).await;
            assert_eq!(kinds(&items), ["system/init", "assistant", "result"]);
        }
        assert!(most_running <= 4, "{most_running} places held");
        // The last places are given back once their CLIs have exited.
        let deadline = Instant::now() + Duration::from_secs(10);
        while fleet.running() > 0 && Instant::now() < deadline {
            H::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!((fleet.running(), fleet.waiting()), (0, 0));
    });
    let took = started.elapsed();
    let most = counter.most();
    eprintln!("40 sessions, at most {most} CLIs at once, in {took:?}");
    assert!(most <= 4, "{most} CLIs ran at once");
    assert!(
        most >= 2,
        "the sessions overlapped ({most} at most): the counter works"
    );
    // Ten rounds of four, each at least one turn long.
    assert!(
        took >= turn * 10,
        "{took:?}: the sessions did not wait their turn"
    );
}

pub fn a_session_dropped_while_it_waits_starts_nothing<H: Harness>() {
    let fake = Fake::builder(
        Script::new()
            .answer_initialize()
            .expect_user()
            .emit_system_init()
            .emit_assistant_text("ok")
            .emit_result("ok"),
    )
    .build();
    let fleet = Fleet::new(FleetLimits {
        max_sessions: Some(1),
        ..FleetLimits::default()
    })
    .expect("valid limits");
    H::block_on(async {
        let first = within(
            LIMIT,
            connect_with(H::runtime(), fake.options().fleet(fleet.member("a"))),
        )
        .await
        .expect("the first session has the place");
        let waiting = query_with(H::runtime(), "hi", fake.options().fleet(fleet.member("b")));
        let deadline = Instant::now() + Duration::from_secs(10);
        while fleet.waiting() == 0 && Instant::now() < deadline {
            H::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!((fleet.running(), fleet.waiting()), (1, 1));
        drop(waiting);
        let deadline = Instant::now() + Duration::from_secs(10);
        while fleet.waiting() > 0 && Instant::now() < deadline {
            H::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(fleet.waiting(), 0, "the dropped query left the queue");
        assert_eq!(
            fake.processes().len(),
            1,
            "only the first session's CLI started"
        );
        within(LIMIT, first.close()).await;
        // The place is free again: the next session runs.
        let items = within(
            LIMIT,
            query_with(H::runtime(), "hi", fake.options().fleet(fleet.member("c")))
                .collect::<Vec<_>>(),
        )
        .await;
        assert_eq!(kinds(&items), ["system/init", "assistant", "result"]);
    });
}

pub fn a_clients_resources_are_its_clis_process_tree<H: Harness>() {
    let fake = Fake::builder(Script::new().answer_initialize().expect_eof())
        .with_tools()
        .build();
    H::block_on(async {
        let client = within(LIMIT, connect_with(H::runtime(), fake.options()))
            .await
            .expect("connected");
        assert!(fake.wait_for_tools(Duration::from_secs(10)), "tools asleep");
        let tree = client.resources().expect("a local CLI on Linux");
        let mut expected = fake.processes();
        expected.sort_unstable();
        let mut found = tree.pids.clone();
        found.sort_unstable();
        assert_eq!(found, expected, "the CLI and its two tools");
        assert_eq!(tree.pids[0], fake.pid());
        assert!(tree.resident_bytes > 0, "{tree:?}");
        within(LIMIT, client.close()).await;
        assert_eq!(client.resources(), None, "nothing once the CLI has exited");
    });
}

pub fn a_memory_limit_starts_a_session_only_while_the_running_clis_leave_room<H: Harness>() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_system_init()
        .sleep(Duration::from_millis(50))
        .emit_assistant_text("ok")
        .emit_result("ok");
    let fake = Fake::builder(script).build();
    // Any running CLI holds more than a byte: one at a time.
    let fleet = Fleet::new(FleetLimits {
        max_resident_bytes: Some(1),
        ..FleetLimits::default()
    })
    .expect("valid limits");
    let counter = AliveCounter::start(&fake);
    // What the fleet reads of its CLIs' memory, sampled meanwhile.
    let (held, stop) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let sampler = {
        let (fleet, held, stop) = (fleet.clone(), held.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                held.fetch_max(fleet.resident_bytes() as usize, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    H::block_on(async {
        let queries: Vec<_> = (0..8)
            .map(|n| {
                query_with(
                    H::runtime(),
                    "hi",
                    fake.options().fleet(fleet.member(format!("k{}", n % 2))),
                )
            })
            .collect();
        for query in queries {
            let items = within(LIMIT, query.collect::<Vec<_>>()).await;
            assert_eq!(kinds(&items), ["system/init", "assistant", "result"]);
        }
    });
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    assert!(
        held.load(Ordering::Relaxed) > 0,
        "the running CLIs' memory was read"
    );
    let most = counter.most();
    assert_eq!(most, 1, "{most} CLIs ran at once");
}
