//! A fleet of three host processes on one cluster: each a process of its own (this test
//! binary again, running `host_process`), with its own `Fleet` on a `PostgresFleetLedger`,
//! its own stub API and the real CLI; in the tests that run sessions on three hosts, one
//! host runs them on smol.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use claude_agent_core::cost::Budget;
use claude_agent_fleet_postgres::{FleetHost, PostgresFleetLedger};
use claude_agent_tokio::{Error, Fleet, FleetError, FleetLimits};
use serde_json::json;

use super::host_process::{self, say, Host};
use super::*;

/// The test a host process runs.
const HOST_TEST: &str = "fleet_hosts::host_process";

/// Runs only as a host process started by the tests below, with its spec.
#[test]
#[ignore = "a host process of the fleet tests, which start it with its spec"]
fn host_process() {
    tokio_rt().block_on(host(host_process::spec()));
}

async fn host(spec: Value) {
    let text = |name: &str| spec[name].as_str().unwrap().to_owned();
    let limits = FleetLimits {
        max_sessions: spec["max_sessions"].as_u64().map(|n| n as usize),
        budget_per_key: spec["budget_tokens"].as_u64().map(Budget::tokens),
        ..FleetLimits::default()
    };
    let mut host = FleetHost::new(text("fleet"), text("host"), limits);
    host.lease = Duration::from_millis(spec["lease_ms"].as_u64().unwrap());
    let ledger = PostgresFleetLedger::connect(&text("config"), host)
        .await
        .expect("joined the fleet");
    let fleet = Fleet::shared(Arc::new(ledger.clone())).expect("valid limits");
    // Each append checks the host's lease: a host frozen past it stores nothing more.
    let store = PostgresSessionStore::connect(&text("config"))
        .await
        .unwrap()
        .with_schema("fleet_sessions")
        .fenced_by(ledger.fence());
    let stub = StubApi::start_with_conventions();
    let home = TestDir::new("fleet-home").unwrap();
    let work = PathBuf::from(text("work"));
    let options = Options::new()
        .cli_path(text("cli"))
        .cwd(&work)
        .envs(real_cli_env(&stub, home.path()))
        .allowed_tools(["Bash"])
        .session_store(Arc::new(store));
    match text("mode").as_str() {
        "run" => {
            run_sessions(&spec, &fleet, &options).await;
            ledger.flush().await.expect("every charge stored");
        }
        "midturn" => {
            let client = claude_agent_tokio::connect(options.fleet(fleet.member("k")))
                .await
                .unwrap();
            client.send("remember PINEAPPLE").await.unwrap();
            let first: Vec<Message> = client
                .receive_response()
                .map(Result::unwrap)
                .collect()
                .await;
            client.send(text("second_prompt")).await.unwrap();
            // Once the CLI runs the tool, the turn is under way: the test kills or freezes
            // this host.
            while stub.main_requests().len() < 2 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            say("MIDTURN", json!(session_of(&first)));
            // Everything until the session ends: a host frozen past its lease loses it.
            let rest: Vec<Result<Message, Error>> = client.receive_messages().collect().await;
            let mirror_errors = rest
                .iter()
                .filter(|m| matches!(m, Ok(Message::System(SystemMessage::MirrorError(_)))))
                .count();
            let error = rest.iter().find_map(|item| item.as_ref().err());
            say(
                "OUTCOME",
                json!({
                    "place_lost": matches!(error, Some(Error::Fleet(FleetError::PlaceLost))),
                    "error": error.map(|e| e.to_string()),
                    "mirror_errors": mirror_errors,
                }),
            );
        }
        "takeover" => {
            let started = Instant::now();
            let orphan = loop {
                let orphans = ledger.orphans().await.unwrap();
                if let Some(orphan) = orphans.into_iter().find(|o| o.session_id.is_some()) {
                    break orphan;
                }
                assert!(started.elapsed() < Duration::from_secs(60), "no orphan");
                tokio::time::sleep(Duration::from_millis(50)).await;
            };
            say(
                "ORPHAN",
                json!({"session_id": orphan.session_id, "cut_off_turn": orphan.cut_off_turn}),
            );
            assert!(ledger.take_over(&orphan).await.unwrap(), "taken over");
            assert!(!ledger.take_over(&orphan).await.unwrap(), "taken once");
            let session_id = orphan.session_id.clone().unwrap();
            let resumed: Vec<Message> = claude_agent_tokio::query(
                "which fruit?",
                options
                    .session_start(SessionStart::resume(session_id.clone()))
                    .fleet(fleet.member(orphan.key.clone())),
            )
            .map(Result::unwrap)
            .collect()
            .await;
            let body = stub.main_requests().pop().unwrap().body.to_string();
            say(
                "RESUMED",
                json!({
                    "session_id": session_of(&resumed),
                    "texts": texts(&resumed),
                    "remembers": body.contains("echo: remember PINEAPPLE"),
                }),
            );
        }
        other => panic!("no mode {other}"),
    }
}

/// Each session of the spec, at once or one after the other, on tokio or (`"runtime":
/// "smol"`) on smol: its outcome said.
async fn run_sessions(spec: &Value, fleet: &Fleet, options: &Options) {
    let sessions = spec["sessions"].as_array().unwrap();
    let on_smol = spec["runtime"] == "smol";
    let run = |session: &Value| {
        let key = session["key"].as_str().unwrap().to_owned();
        let prompt = session["prompt"].as_str().unwrap().to_owned();
        let options = options.clone().fleet(fleet.member(key.clone()));
        async move {
            let items: Vec<Result<Message, Error>> = if on_smol {
                // The session's task on smol; this host's ledger still runs on tokio.
                tokio::task::spawn_blocking(move || {
                    smol::block_on(claude_agent_smol::query(prompt, options).collect())
                })
                .await
                .unwrap()
            } else {
                claude_agent_tokio::query(prompt, options).collect().await
            };
            let error = items.iter().find_map(|item| item.as_ref().err());
            let over_budget = matches!(error, Some(Error::OverBudget(_)));
            say(
                "OUTCOME",
                json!({
                    "key": key,
                    "ok": error.is_none(),
                    "messages": items.iter().filter(|item| item.is_ok()).count(),
                    "over_budget": over_budget,
                    "error": error.map(|e| e.to_string()),
                }),
            );
        }
    };
    if spec["one_by_one"].as_bool() == Some(true) {
        for session in sessions {
            run(session).await;
        }
    } else {
        let mut tasks = Vec::new();
        for session in sessions {
            tasks.push(tokio::spawn(run(session)));
        }
        for task in tasks {
            task.await.unwrap();
        }
    }
    say("DONE", json!(fleet.spent_by_key().len()));
}

fn spec(cluster: &Cluster, work: &TestDir, fleet: &str, host: &str, more: Value) -> Value {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    let mut spec = json!({
        "config": cluster.config(),
        "fleet": fleet,
        "host": host,
        "cli": cli.path(),
        "work": work.path(),
        "lease_ms": 2000,
        "mode": "run",
        "second_prompt": "BASH:sleep 60",
    });
    for (name, value) in more.as_object().unwrap() {
        spec[name] = value.clone();
    }
    spec
}

/// The CLIs the host processes run now: their children, from `/proc`.
fn clis_of(hosts: &[u32]) -> usize {
    let mut count = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The parent's pid is the second field after the command's closing parenthesis.
        let after = &stat[stat.rfind(')').map_or(0, |at| at + 1)..];
        let parent: Option<u32> = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if parent.is_some_and(|parent| hosts.contains(&parent)) {
            count += 1;
        }
    }
    count
}

/// Places held under a live lease in `fleet`, by the database.
async fn places_held(db: &tokio_postgres::Client, fleet: &str) -> i64 {
    count(
        db,
        "SELECT count(*) FROM claude_agent.fleet_places p
         JOIN claude_agent.fleet_hosts h
             ON h.fleet = p.fleet AND h.host = p.host AND h.epoch = p.epoch
         WHERE p.fleet = $1 AND h.lease_until > clock_timestamp()",
        fleet,
    )
    .await
}

/// A connection to the test's cluster, run on the caller's runtime.
async fn connect(config: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// The database's clock now, as text.
async fn database_now(config: &str) -> String {
    let client = connect(config).await;
    let row = client
        .query_one("SELECT clock_timestamp()::text", &[])
        .await
        .unwrap();
    row.get(0)
}

/// Seconds from `at` (the database's clock, as [`database_now`] gave it) to the end of the
/// lease `host` of `fleet` holds or last held.
async fn lease_end_after(config: &str, fleet: &str, host: &str, at: &str) -> f64 {
    let client = connect(config).await;
    let row = client
        .query_one(
            "SELECT EXTRACT(EPOCH FROM lease_until - $3::text::timestamptz)::float8
             FROM claude_agent.fleet_hosts WHERE fleet = $1 AND host = $2",
            &[&fleet, &host, &at],
        )
        .await
        .unwrap();
    row.get(0)
}

/// Sessions waiting for a place in `fleet`, by the database.
async fn waiters_of(db: &tokio_postgres::Client, fleet: &str) -> i64 {
    count(
        db,
        "SELECT count(*) FROM claude_agent.fleet_waiters WHERE fleet = $1",
        fleet,
    )
    .await
}

/// The count `sql` reads for `fleet`: 0 before any host has made the tables.
async fn count(db: &tokio_postgres::Client, sql: &str, fleet: &str) -> i64 {
    match db.query_one(sql, &[&fleet]).await {
        Ok(row) => row.get(0),
        Err(error) if error.code() == Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE) => 0,
        Err(error) => panic!("{error}"),
    }
}

// Three tests, each on a cluster of its own, so that they run side by side: most of their
// time is waiting (for leases to run out, for tools that sleep).

#[test]
fn many_hosts_keep_one_limit_and_one_budget() {
    let cluster = Cluster::start();
    let work = TestDir::new("fleet-work").unwrap();
    never_more_than_the_limit(&cluster, &work);
    a_budget_holds_across_hosts(&cluster, &work);
}

#[test]
fn a_dead_or_frozen_hosts_sessions_are_taken_over() {
    let cluster = Cluster::start();
    let work = TestDir::new("fleet-work").unwrap();
    a_killed_hosts_session_is_taken_over(&cluster, &work);
    a_frozen_host_stores_nothing_once_taken_over(&cluster, &work);
}

#[test]
fn waiters_and_places_outlive_database_faults() {
    let cluster = Cluster::start();
    let work = TestDir::new("fleet-work").unwrap();
    a_dropped_connection_loses_no_waiter(&cluster, &work);
    a_database_restart_loses_and_doubles_nothing(&cluster, &work);
}

/// Nine sessions on three hosts under a limit of two: never more than two CLIs at once, by
/// the database and by `/proc`, and every session finishes.
fn never_more_than_the_limit(cluster: &Cluster, work: &TestDir) {
    let sessions: Vec<Value> = (0..3)
        .map(|n| json!({"key": format!("tenant-{n}"), "prompt": "BASH:sleep 1 && echo slept"}))
        .collect();
    let hosts: Vec<Host> = [("a", "tokio"), ("b", "tokio"), ("c", "smol")]
        .into_iter()
        .map(|(name, runtime)| {
            Host::start(
                HOST_TEST,
                &spec(
                    cluster,
                    work,
                    "limit",
                    name,
                    json!({
                        "max_sessions": 2,
                        "sessions": sessions,
                        "runtime": runtime,
                    }),
                ),
            )
        })
        .collect();
    let pids: Vec<u32> = hosts.iter().map(|host| host.child.id()).collect();
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let sampling = sampling.clone();
        let config = cluster.config();
        std::thread::spawn(move || {
            let runtime = tokio_rt();
            // One connection for every sample: a new one each time would load the machine
            // the hosts run on.
            let db = runtime.block_on(connect(&config));
            let (mut most_places, mut most_clis, mut samples) = (0, 0, 0);
            while sampling.load(Ordering::SeqCst) {
                most_places = most_places.max(runtime.block_on(places_held(&db, "limit")));
                most_clis = most_clis.max(clis_of(&pids));
                samples += 1;
                std::thread::sleep(Duration::from_millis(25));
            }
            (most_places, most_clis, samples)
        })
    };
    let outcomes: Vec<Value> = hosts.into_iter().flat_map(Host::finish).collect();
    sampling.store(false, Ordering::SeqCst);
    let (most_places, most_clis, samples) = sampler.join().unwrap();
    assert_eq!(outcomes.len(), 9, "{outcomes:?}");
    assert!(outcomes.iter().all(|o| o["ok"] == true), "{outcomes:#?}");
    assert!(samples > 20, "{samples} samples");
    assert_eq!(
        most_places, 2,
        "the database held at most the limit, and reached it"
    );
    assert!((1..=2).contains(&most_clis), "{most_clis} CLIs at once");
}

/// One key's budget on three hosts: together they stop at it, and then every host refuses
/// the key's next session.
fn a_budget_holds_across_hosts(cluster: &Cluster, work: &TestDir) {
    let rt = tokio_rt();
    let config = cluster.config();
    // What one turn costs, from the database: one session of a key with no budget.
    let probe = Host::start(
        HOST_TEST,
        &spec(
            cluster,
            work,
            "budget",
            "probe",
            json!({
                "sessions": [{"key": "probe", "prompt": "hello"}],
            }),
        ),
    );
    assert!(probe.finish().iter().all(|o| o["ok"] == true));
    let turn = rt.block_on(tokens_of(&config, "budget", "probe"));
    assert!(turn > 0, "a turn costs tokens");
    // A budget of two and a half turns, and nine turns asked for, three on each host.
    let sessions: Vec<Value> = (0..3)
        .map(|_| json!({"key": "spender", "prompt": "hello"}))
        .collect();
    let hosts: Vec<Host> = [("a", "tokio"), ("b", "smol"), ("c", "tokio")]
        .into_iter()
        .map(|(name, runtime)| {
            Host::start(
                HOST_TEST,
                &spec(
                    cluster,
                    work,
                    "budget",
                    name,
                    json!({
                        "budget_tokens": turn * 5 / 2,
                        "sessions": sessions,
                        "one_by_one": true,
                        "runtime": runtime,
                    }),
                ),
            )
        })
        .collect();
    let by_host: Vec<Vec<Value>> = hosts.into_iter().map(Host::finish).collect();
    let all: Vec<&Value> = by_host.iter().flatten().collect();
    // Every session that did not end well ended over the key's budget: the ones live as it
    // was crossed (the one whose turn crossed it too), and the later ones, refused before
    // their CLI started.
    for outcome in all.iter().filter(|o| o["ok"] != true) {
        assert_eq!(outcome["over_budget"], true, "{outcome}");
    }
    for outcomes in &by_host {
        assert_eq!(outcomes.len(), 3);
        let last = &outcomes[2];
        assert_eq!(
            (&last["over_budget"], &last["messages"]),
            (&json!(true), &json!(0)),
            "every host refuses the key's next session: {outcomes:#?}"
        );
    }
    // Three turns cross a budget of two and a half; turns under way on the other hosts as
    // it was crossed may end too, but no more start.
    let (spent, turns) = rt.block_on(spending_of(&config, "budget", "spender"));
    assert!((3..=5).contains(&turns), "{turns} turns: {all:#?}");
    assert!(
        spent >= turn * 5 / 2 && spent <= turn * turns,
        "{spent} tokens in {turns} turns"
    );
}

/// The tokens `key` has spent, by the database.
async fn tokens_of(config: &str, fleet: &str, key: &str) -> u64 {
    spending_of(config, fleet, key).await.0
}

/// The tokens `key` has spent and its turns, by the database.
async fn spending_of(config: &str, fleet: &str, key: &str) -> (u64, u64) {
    let client = connect(config).await;
    let row = client
        .query_one(
            "SELECT input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens,
                 turns
             FROM claude_agent.fleet_keys WHERE fleet = $1 AND key = $2",
            &[&fleet, &key],
        )
        .await
        .unwrap();
    let count = |i: usize| u64::try_from(row.get::<_, i64>(i)).unwrap();
    (count(0), count(1))
}

/// A host killed mid-turn: its place is free within the lease, another host takes its
/// session over from the store, and the conversation goes on with what it had.
fn a_killed_hosts_session_is_taken_over(cluster: &Cluster, work: &TestDir) {
    let lease = Duration::from_millis(2000);
    let mut dying = Host::start(
        HOST_TEST,
        &spec(cluster, work, "deaths", "a", json!({"mode": "midturn"})),
    );
    let session_id = dying.wait_for("MIDTURN", Duration::from_secs(90));
    let rt = tokio_rt();
    let db = rt.block_on(connect(&cluster.config()));
    assert_eq!(rt.block_on(places_held(&db, "deaths")), 1);
    dying.child.kill().unwrap();
    let killed_at = rt.block_on(database_now(&cluster.config()));
    let killed = Instant::now();
    dying.child.wait().unwrap();
    // The place is free once the dead host's lease ends. The wait is bounded loosely: on a
    // loaded machine each look at the database may itself take a while.
    while rt.block_on(places_held(&db, "deaths")) > 0 {
        assert!(killed.elapsed() < lease * 3, "the place outlived the lease");
        std::thread::sleep(Duration::from_millis(25));
    }
    // By the database's clock the lease ended at most a lease after the kill (a renewal in
    // flight when the host was killed still lands; a quarter of a lease covers it).
    let ended_after = rt.block_on(lease_end_after(
        &cluster.config(),
        "deaths",
        "a",
        &killed_at,
    ));
    assert!(
        ended_after <= (lease + lease / 4).as_secs_f64(),
        "the dead host's lease ended {ended_after} s after the kill"
    );
    let taker = Host::start(
        HOST_TEST,
        &spec(cluster, work, "deaths", "b", json!({"mode": "takeover"})),
    );
    let orphan = taker.wait_for("ORPHAN", Duration::from_secs(60));
    assert_eq!(orphan["session_id"], session_id);
    assert_eq!(
        orphan["cut_off_turn"], true,
        "the turn under way is reported"
    );
    let resumed = taker.wait_for("RESUMED", Duration::from_secs(90));
    assert_eq!(resumed["session_id"], session_id);
    assert_eq!(resumed["texts"], json!(["echo: which fruit?"]));
    assert_eq!(
        resumed["remembers"], true,
        "the earlier turn reached the model"
    );
    taker.finish();
}

/// A host frozen (`SIGSTOP`) mid-turn past its lease: another host takes its session over
/// and goes on with it; woken, the frozen host stores nothing more of it, and closes it.
fn a_frozen_host_stores_nothing_once_taken_over(cluster: &Cluster, work: &TestDir) {
    let frozen = Host::start(
        HOST_TEST,
        &spec(
            cluster,
            work,
            "freezes",
            "a",
            json!({
                "mode": "midturn",
                "second_prompt": "BASH:sleep 3 && echo late",
            }),
        ),
    );
    let session_id = frozen.wait_for("MIDTURN", Duration::from_secs(90));
    signal(&frozen, "STOP");
    let taker = Host::start(
        HOST_TEST,
        &spec(cluster, work, "freezes", "b", json!({"mode": "takeover"})),
    );
    assert_eq!(
        taker.wait_for("ORPHAN", Duration::from_secs(60))["session_id"],
        session_id
    );
    let resumed = taker.wait_for("RESUMED", Duration::from_secs(90));
    assert_eq!(resumed["remembers"], true);
    taker.finish();
    signal(&frozen, "CONT");
    let woken = frozen.wait_for("OUTCOME", Duration::from_secs(60));
    assert_eq!(woken["place_lost"], true, "{woken}");
    let stored = tokio_rt().block_on(async {
        let store = PostgresSessionStore::connect(&cluster.config())
            .await
            .unwrap()
            .with_schema("fleet_sessions");
        let id = session_id.as_str().unwrap();
        let key = SessionKey::new(project_key_for_directory(Some(work.path())), id);
        stored_texts(&store.load(&key).await.unwrap().unwrap())
    });
    assert!(
        stored.contains(&"assistant: echo: which fruit?".to_owned()),
        "{stored:?}"
    );
    assert!(
        !stored
            .iter()
            .any(|text| text.contains("late") && !text.contains("echo late")),
        "the frozen host stored its turn's end after the takeover: {stored:?}"
    );
    frozen.finish();
}

fn signal(host: &Host, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &host.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Wait (at most a minute) until `fleet` holds `places` places and `waiters` waiters.
fn wait_for_fleet(config: &str, fleet: &str, places: i64, waiters: i64) {
    let rt = tokio_rt();
    let started = Instant::now();
    loop {
        // A connection of its own each time: the database may have been restarted.
        let now = rt.block_on(async {
            let db = connect(config).await;
            (places_held(&db, fleet).await, waiters_of(&db, fleet).await)
        });
        if now == (places, waiters) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{fleet}: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Every connection to the database but the caller's own is ended (a proxy dropping them).
async fn drop_connections(config: &str) {
    let client = connect(config).await;
    client
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
            &[],
        )
        .await
        .unwrap();
}

/// A session waiting for its place when the host's connection is dropped: it gets the
/// place once the other session ends, and nothing is left held.
fn a_dropped_connection_loses_no_waiter(cluster: &Cluster, work: &TestDir) {
    let config = cluster.config();
    let host = Host::start(
        HOST_TEST,
        &spec(
            cluster,
            work,
            "drops",
            "a",
            json!({
                "max_sessions": 1,
                "sessions": [
                    {"key": "k", "prompt": "BASH:sleep 3 && echo first"},
                    {"key": "k", "prompt": "BASH:sleep 1 && echo second"},
                ],
            }),
        ),
    );
    wait_for_fleet(&config, "drops", 1, 1);
    tokio_rt().block_on(drop_connections(&config));
    let outcomes = host.finish();
    assert_eq!(outcomes.len(), 2);
    assert!(outcomes.iter().all(|o| o["ok"] == true), "{outcomes:#?}");
    wait_for_fleet(&config, "drops", 0, 0);
}

/// The database restarts while two hosts hold every place and sessions wait: every session
/// finishes, each turn is charged once, and no place is left held.
fn a_database_restart_loses_and_doubles_nothing(cluster: &Cluster, work: &TestDir) {
    let config = cluster.config();
    let sessions: Vec<Value> = (0..3)
        .map(|_| json!({"key": "restarts", "prompt": "BASH:sleep 2 && echo ok"}))
        .collect();
    let hosts: Vec<Host> = ["a", "b"]
        .into_iter()
        .map(|name| {
            Host::start(
                HOST_TEST,
                &spec(
                    cluster,
                    work,
                    "restarts",
                    name,
                    json!({
                        "max_sessions": 2,
                        "lease_ms": 10_000,
                        "sessions": sessions,
                    }),
                ),
            )
        })
        .collect();
    wait_for_fleet(&config, "restarts", 2, 4);
    cluster.stop_server();
    std::thread::sleep(Duration::from_millis(500));
    cluster.start_server();
    let outcomes: Vec<Value> = hosts.into_iter().flat_map(Host::finish).collect();
    assert_eq!(outcomes.len(), 6);
    assert!(outcomes.iter().all(|o| o["ok"] == true), "{outcomes:#?}");
    wait_for_fleet(&config, "restarts", 0, 0);
    let (_, turns) = tokio_rt().block_on(spending_of(&config, "restarts", "restarts"));
    assert_eq!(turns, 6, "each turn charged once");
}
