//! The fleet under random faults. Three host processes (this test binary again, running
//! `fault_host`; one runs its sessions on smol) share one cluster, each through a proxy of
//! its own, and run sessions on the fake CLI: turns of a fixed cost under a fleet limit and a
//! per-key budget, apps that stop reading for a while, sessions of dead hosts taken over and
//! resumed from the session store. Meanwhile a schedule drawn from a seed kills hosts
//! (`kill -9`; each comes back under a new name), freezes them (`SIGSTOP`, within or past the
//! lease), restarts the database, and stalls or cuts a host's connections. Afterwards
//! [`check`] holds what the hosts said, what the fake CLIs printed and what the database
//! keeps to the fleet's invariants.
//!
//! The tests run fixed seeds. `CLAUDE_AGENT_FLEET_SEEDS` runs others by hand, in the first
//! test: a list of seeds and `random:N` (N drawn from the clock), such as `7,random:20`. Each
//! seed's schedule is printed; a seed that fails goes in `REGRESSIONS` with what it found.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use claude_agent_core::cost::{Budget, BudgetLevel, Spent};
use claude_agent_core::cost::{Tokens, TurnCost};
use claude_agent_fleet_postgres::{FleetHost, LedgerError, PostgresFleetLedger};
use claude_agent_testkit::fake_cli::{canned, fake_claude_binary, FakeResult, Script};
use claude_agent_tokio::{AdmitError, Client, Error, Fleet, FleetLimits, SharedLedger};
use futures_lite::future;
use serde_json::json;
use smol::Timer;
use tokio_postgres::types::ToSql;

use super::host_process::{self, say, Host};
use super::proxy::Proxy;
use super::*;

/// The test a host process runs.
const HOST_TEST: &str = "fleet_faults::fault_host";

/// How long a host's dropped sessions may take to end, their CLIs gone and their places given
/// back: the SDK's own shutdown bounds (close, terminate, kill) and a margin.
const SETTLE: Duration = Duration::from_secs(15);

/// What every turn costs, in USD.
const TURN_USD: f64 = 0.10;

/// The shape of one run: the same for every seed.
#[derive(Clone, Copy)]
struct Shape {
    lease: Duration,
    max_sessions: u32,
    budget_usd: f64,
    /// Sessions each host runs at once (at most; they wait for places).
    slots: u32,
    /// Faults come within this window, and are all undone at its end.
    faults_for: Duration,
    /// Then the hosts run on unharmed this long before they stop.
    heal_for: Duration,
}

const SHAPE: Shape = Shape {
    lease: Duration::from_millis(1500),
    max_sessions: 3,
    budget_usd: 1.0,
    slots: 2,
    faults_for: Duration::from_secs(12),
    heal_for: Duration::from_secs(6),
};

/// Seeds that once found a fault, with what they found; the tests run them and the fixed ones.
const REGRESSIONS: &[(u64, &str)] = &[
    (
        16_421_333_744_137_077_294,
        "a lease lost while the queue of a database restart went in, and a place kept when its \
         waiter left as it was given; later, on a loaded machine, a result that went out before \
         its turn was stored, the store's three tries outlasted by a database restart",
    ),
    (
        1_362_855_054_271_523_742,
        "a host frozen past its lease woke with a result in hand and delivered it after another \
         host had taken the session over and run two turns",
    ),
];

// Two tests, each on a cluster of its own, so that they run side by side: most of their time
// is waiting.

#[test]
fn the_fleet_keeps_its_invariants_under_random_faults() {
    run_seeds(&seeds_or(&[1], 0));
}

#[test]
fn the_fleet_keeps_its_invariants_under_other_random_faults() {
    run_seeds(&seeds_or(&[2], 1));
}

/// The seeds `CLAUDE_AGENT_FLEET_SEEDS` names (run by the first test only), else `fixed` and
/// every other regression seed from the `half`-th (the two tests share them out, to run side
/// by side).
fn seeds_or(fixed: &[u64], half: usize) -> Vec<u64> {
    let Ok(named) = std::env::var("CLAUDE_AGENT_FLEET_SEEDS") else {
        let regressions = REGRESSIONS.iter().skip(half).step_by(2);
        return fixed
            .iter()
            .copied()
            .chain(regressions.map(|(seed, _)| *seed))
            .collect();
    };
    if half != 0 {
        return Vec::new();
    }
    let mut rng = fastrand::Rng::with_seed(unix_ms());
    let mut seeds = Vec::new();
    for item in named.split(',').map(str::trim) {
        match item.strip_prefix("random:") {
            Some(count) => {
                let count: usize = count.parse().expect("random:N");
                seeds.extend((0..count).map(|_| rng.u64(..)));
            }
            None => seeds.push(item.parse().expect("seeds, or random:N")),
        }
    }
    seeds
}

/// Each seed's run and check, one after another; every seed that broke an invariant, said.
fn run_seeds(seeds: &[u64]) {
    let mut failed = Vec::new();
    for &seed in seeds {
        let cluster = Cluster::start();
        let work = TestDir::new("fleet-faults").unwrap();
        let schedule = Schedule::draw(seed, SHAPE);
        eprintln!("seed {seed}: {schedule:?}");
        let run = run(&cluster, &work, seed, &schedule);
        match check(&cluster, &run) {
            Ok(()) => eprintln!("seed {seed}: {}", run.summary()),
            Err(broken) => {
                eprintln!(
                    "seed {seed} broke the fleet's invariants:\n{}\nschedule: {schedule:?}\nhosts said:\n{}",
                    broken.join("\n"),
                    run.lines.join("\n")
                );
                failed.push(format!("seed {seed}: {}", broken.join("; ")));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} schedules broke the fleet's invariants:\n{}",
        failed.len(),
        seeds.len(),
        failed.join("\n")
    );
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

// ---- The schedule ----

/// One thing done to the fleet.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Act {
    /// `kill -9` the host's process.
    Kill(usize),
    /// Start the host again, under a new name.
    Restart(usize),
    /// `SIGSTOP` the host.
    Freeze(usize),
    /// `SIGCONT` it.
    Thaw(usize),
    /// Stop the database server (every connection closes).
    StopDatabase,
    StartDatabase,
    /// The host's connections stop moving bytes.
    Stall(usize),
    Unstall(usize),
    /// Every connection of the host closes.
    Cut(usize),
}

/// The acts of one run, each at its time from the start.
struct Schedule {
    acts: Vec<(Duration, Act)>,
}

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let acts: Vec<String> = self
            .acts
            .iter()
            .map(|(at, act)| format!("{}ms {act:?}", at.as_millis()))
            .collect();
        write!(f, "[{}]", acts.join(", "))
    }
}

impl Schedule {
    /// Faults one after another, a second or two apart, each undone before the window ends; a
    /// freeze or a stall lasts a third of the lease or more than the whole lease, a database
    /// is down for up to twice the lease.
    fn draw(seed: u64, shape: Shape) -> Schedule {
        let mut rng = fastrand::Rng::with_seed(seed);
        let lease = shape.lease.as_millis() as u64;
        let end = shape.faults_for.as_millis() as u64;
        let mut acts = Vec::new();
        // Until when each host (and the database, index 3) is busy with a fault.
        let mut busy = [0u64; 4];
        let mut at = 800 + rng.u64(..600);
        while at < end - 500 {
            let host = rng.usize(..3);
            let short_or_long = |rng: &mut fastrand::Rng| {
                if rng.bool() {
                    lease / 3
                } else {
                    lease + lease / 2 + rng.u64(..lease / 2)
                }
            };
            let (subject, span, first, last) = match rng.u32(..10) {
                0..=1 => {
                    let back = 300 + rng.u64(..1200);
                    (host, back, Act::Kill(host), Act::Restart(host))
                }
                2..=4 => (
                    host,
                    short_or_long(&mut rng),
                    Act::Freeze(host),
                    Act::Thaw(host),
                ),
                5 => {
                    let down = 200 + rng.u64(..2 * lease);
                    (3, down, Act::StopDatabase, Act::StartDatabase)
                }
                6..=8 => (
                    host,
                    short_or_long(&mut rng),
                    Act::Stall(host),
                    Act::Unstall(host),
                ),
                _ => (host, 0, Act::Cut(host), Act::Cut(host)),
            };
            let span = span.min(end.saturating_sub(at + 100));
            if busy[subject] <= at {
                acts.push((Duration::from_millis(at), first));
                if first != last {
                    acts.push((Duration::from_millis(at + span), last));
                }
                busy[subject] = at + span;
            }
            at += 700 + rng.u64(..1300);
        }
        acts.sort_by_key(|(at, _)| *at);
        Schedule { acts }
    }
}

// ---- A run ----

/// What a run left to check.
struct Run {
    /// Every line every host said, `<host> <WHAT> <json>`.
    lines: Vec<String>,
    /// The hosts by name (`a1`, `a2`, …): killed, or exited by themselves.
    killed: BTreeSet<String>,
    /// The most places held under a live lease at once, as sampled.
    most_places: i64,
    /// The fleet's session limit.
    max_sessions: i64,
    /// When the last fault was undone (ms since the epoch).
    healed_at: u64,
    /// Each killed host and when (ms since the epoch).
    kills: Vec<(String, u64)>,
    /// Each CLI's printed lines, by session tag.
    printed: BTreeMap<String, Vec<Value>>,
    fleet: String,
}

impl Run {
    fn said(&self, what: &str) -> Vec<(String, Value)> {
        self.lines
            .iter()
            .filter_map(|line| {
                let (host, rest) = line.split_once(' ')?;
                let value = rest.strip_prefix(what)?.strip_prefix(' ')?;
                Some((host.to_owned(), serde_json::from_str(value).unwrap()))
            })
            .collect()
    }

    fn summary(&self) -> String {
        let results = self.said("RESULT").len();
        let outcomes = self.said("OUTCOME");
        let mut ended: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, outcome) in &outcomes {
            let why = match outcome["error"].as_str() {
                None => "done",
                Some(e) if e.contains("budget exceeded") => "over budget",
                Some(e) if e.contains("lost the session's place") => "place lost",
                Some(e) if e.contains("lease on the fleet ran out") => "lease ran out",
                Some(e) if e.contains("could not be reached") => "ledger unreachable",
                Some(e) if e.contains("dropped at the end") => "dropped at the end",
                Some(_) => {
                    eprintln!("a session ended otherwise: {outcome}");
                    "other error"
                }
            };
            *ended.entry(why).or_default() += 1;
        }
        // How long a killed host's sessions waited for another host to take them over.
        let takeovers: Vec<u64> = self
            .kills
            .iter()
            .filter_map(|(host, at)| {
                self.said("TAKEN")
                    .iter()
                    .filter(|(_, take)| take["from"] == host.as_str())
                    .filter_map(|(_, take)| take["at"].as_u64())
                    .min()
                    .map(|taken| taken.saturating_sub(*at))
            })
            .collect();
        format!(
            "{} sessions {ended:?}, {results} results delivered, {} takeovers (after a kill: \
             {takeovers:?} ms), {} hosts killed, at most {} places at once",
            outcomes.len(),
            self.said("TAKEN").len(),
            self.killed.len(),
            self.most_places
        )
    }
}

/// The host slots of a run: each one's process now and its proxy.
struct Slot {
    letter: char,
    proxy: Proxy,
    host: Option<Host>,
    incarnation: u32,
    /// Lines of the slot's earlier processes, `<host> <line>`.
    lines: Vec<String>,
}

impl Slot {
    fn name(&self) -> String {
        format!("{}{}", self.letter, self.incarnation)
    }
}

fn run(cluster: &Cluster, work: &TestDir, seed: u64, schedule: &Schedule) -> Run {
    let fleet = format!("faults-{seed}");
    let fake = fake_claude_binary().unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    let ends_at = started + SHAPE.faults_for + SHAPE.heal_for;
    let spec = |slot: &Slot| {
        json!({
            "config": slot.proxy.config(),
            "fleet": fleet,
            "host": slot.name(),
            "runtime": if slot.letter == 'c' { "smol" } else { "tokio" },
            "fake": fake,
            "work": work.path(),
            "lease_ms": SHAPE.lease.as_millis() as u64,
            "max_sessions": SHAPE.max_sessions,
            "budget_usd": SHAPE.budget_usd,
            "slots": SHAPE.slots,
            "seed": seed.wrapping_mul(31).wrapping_add(u64::from(slot.letter)) ^ u64::from(slot.incarnation),
            "run_ms": ends_at.saturating_duration_since(Instant::now()).as_millis() as u64,
        })
    };
    let mut slots: Vec<Slot> = ['a', 'b', 'c']
        .into_iter()
        .map(|letter| Slot {
            letter,
            proxy: Proxy::start(cluster.port),
            host: None,
            incarnation: 1,
            lines: Vec::new(),
        })
        .collect();
    for slot in &mut slots {
        slot.host = Some(Host::start(HOST_TEST, &spec(slot)));
    }
    let mut killed = BTreeSet::new();
    let mut kills = Vec::new();
    let sampling = AtomicBool::new(true);
    let most_places = Mutex::new(0i64);
    let mut healed_at = unix_ms();
    std::thread::scope(|scope| {
        scope.spawn(|| sample_places(&cluster.config(), &fleet, &sampling, &most_places));
        for (at, act) in &schedule.acts {
            std::thread::sleep((started + *at).saturating_duration_since(Instant::now()));
            match *act {
                Act::Kill(n) => {
                    let slot = &mut slots[n];
                    let mut host = slot.host.take().expect("a host to kill");
                    host.child.kill().unwrap();
                    host.child.wait().unwrap();
                    killed.insert(slot.name());
                    kills.push((slot.name(), unix_ms()));
                    let name = slot.name();
                    slot.lines.extend(
                        host.lines()
                            .into_iter()
                            .map(|line| format!("{name} {line}")),
                    );
                    host.done = true;
                }
                Act::Restart(n) => {
                    let slot = &mut slots[n];
                    slot.incarnation += 1;
                    slot.host = Some(Host::start(HOST_TEST, &spec(slot)));
                }
                Act::Freeze(n) | Act::Thaw(n) => {
                    let signal = if matches!(act, Act::Freeze(_)) {
                        "STOP"
                    } else {
                        "CONT"
                    };
                    if let Some(host) = &slots[n].host {
                        let status = Command::new("kill")
                            .args([&format!("-{signal}"), &host.child.id().to_string()])
                            .status()
                            .unwrap();
                        assert!(status.success());
                    }
                }
                Act::StopDatabase => cluster.stop_server(),
                Act::StartDatabase => cluster.start_server(),
                Act::Stall(n) => slots[n].proxy.stall(true),
                Act::Unstall(n) => slots[n].proxy.stall(false),
                Act::Cut(n) => slots[n].proxy.cut(),
            }
            healed_at = unix_ms();
        }
        // Every host ends by itself: its sessions stop at the end of the run, and it leaves.
        for slot in &mut slots {
            let name = slot.name();
            let host = slot.host.take().expect("every host is back");
            let limit = ends_at.saturating_duration_since(Instant::now()) + Duration::from_secs(30);
            let lines = host.finish_within(limit);
            slot.lines
                .extend(lines.into_iter().map(|line| format!("{name} {line}")));
        }
        sampling.store(false, Ordering::SeqCst);
    });
    let printed = std::fs::read_dir(work.path().join("printed"))
        .map(|dir| {
            dir.flatten()
                .map(|file| {
                    let tag = file
                        .file_name()
                        .to_string_lossy()
                        .replace(".jsonl", "")
                        .replace('_', "/");
                    let lines = std::fs::read_to_string(file.path())
                        .unwrap()
                        .lines()
                        .map(|line| serde_json::from_str(line).unwrap())
                        .collect();
                    (tag, lines)
                })
                .collect()
        })
        .unwrap_or_default();
    let most_places = *most_places.lock().unwrap();
    Run {
        lines: slots.into_iter().flat_map(|slot| slot.lines).collect(),
        killed,
        most_places,
        max_sessions: i64::from(SHAPE.max_sessions),
        healed_at,
        kills,
        printed,
        fleet,
    }
}

/// The most places held under a live lease at once, sampled every 20 ms until `sampling` is
/// false. A sample the database cannot answer (it is down) is skipped.
fn sample_places(config: &str, fleet: &str, sampling: &AtomicBool, most: &Mutex<i64>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut client = None;
        while sampling.load(Ordering::SeqCst) {
            if client.is_none() {
                if let Ok((c, connection)) =
                    tokio_postgres::connect(config, tokio_postgres::NoTls).await
                {
                    tokio::spawn(connection);
                    client = Some(c);
                }
            }
            if let Some(c) = &client {
                match c
                    .query_one(
                        "SELECT count(*) FROM claude_agent.fleet_places p
                         JOIN claude_agent.fleet_hosts h
                             ON h.fleet = p.fleet AND h.host = p.host AND h.epoch = p.epoch
                         WHERE p.fleet = $1 AND h.lease_until > clock_timestamp()",
                        &[&fleet],
                    )
                    .await
                {
                    Ok(row) => {
                        let places: i64 = row.get(0);
                        let mut most = most.lock().unwrap();
                        *most = (*most).max(places);
                    }
                    Err(error) if error.code().is_some() => {}
                    Err(_) => client = None,
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
}

// ---- The invariants ----

/// The fleet's invariants over one run; each broken one, said.
///
/// 1. **Limit.** Never more places held under a live lease than the fleet's limit.
/// 2. **Charges.** Every turn is charged at most once and no result reaches an app before its
///    charge is made: per key, the results apps got ≤ the turns charged ≤ the results the
///    CLIs printed; per host, the results its apps got ≤ the charges it made; the charges the
///    database keeps are exactly its keys' turns.
/// 3. **Budget.** No turn of a key starts later than a lease after the charge that crossed the
///    key's budget was made: the hosts hear of it at once, and one cut off from the database
///    stops its sessions within its lease. (What a key spends over its budget is the turns
///    already running then.) The check allows a second lease for a host the machine starved
///    of time.
/// 4. **Stored before delivered.** Every turn whose result an app got is in the session store.
/// 5. **One writer.** In every stored transcript, once a run's entries follow another's, the
///    earlier run's never come again (a frozen host fenced off stores nothing more). A run is
///    one start or takeover of the session by a host: a host that lost a session may take it
///    back later, as a new run.
/// 6. **One runner.** A session runs on one host at a time: once a run that took it over
///    delivered a result of it, no earlier run delivers one again.
/// 7. **No hang.** Every host that was not killed ends by itself, its ledger flushed, within
///    its bounds; and the fleet makes progress once the faults are undone.
/// 8. **Nothing left.** A host that ends holds no place and no waiter, and leaves no CLI.
fn check(cluster: &Cluster, run: &Run) -> Result<(), Vec<String>> {
    let mut broken = Vec::new();
    let rt = tokio_rt();
    let db = rt.block_on(async {
        let (client, connection) =
            tokio_postgres::connect(&cluster.config(), tokio_postgres::NoTls)
                .await
                .unwrap();
        tokio::spawn(connection);
        client
    });
    let query = |sql: &str, params: &[&(dyn ToSql + Sync)]| -> Vec<tokio_postgres::Row> {
        rt.block_on(db.query(sql, params)).unwrap_or_default()
    };

    // 1. Limit.
    if run.most_places > run.max_sessions {
        broken.push(format!(
            "limit: {} places held at once, over the limit of {}",
            run.most_places, run.max_sessions
        ));
    }

    // 2. Charges.
    let starts: BTreeMap<String, Value> = run
        .said("START")
        .into_iter()
        .map(|(_, start)| (start["tag"].as_str().unwrap().to_owned(), start))
        .collect();
    let key_of_tag =
        |tag: &str| -> String { starts[run_of_turn(tag)]["key"].as_str().unwrap().to_owned() };
    let mut delivered: BTreeMap<String, u64> = BTreeMap::new();
    let mut delivered_by_host: BTreeMap<String, u64> = BTreeMap::new();
    for (host, result) in run.said("RESULT") {
        *delivered
            .entry(key_of_tag(result["tag"].as_str().unwrap()))
            .or_default() += 1;
        *delivered_by_host.entry(host).or_default() += 1;
    }
    let mut printed: BTreeMap<String, u64> = BTreeMap::new();
    for (session, lines) in &run.printed {
        let results = lines.iter().filter(|line| line["type"] == "result").count() as u64;
        *printed
            .entry(key_of_tag(&format!("{session}/1")))
            .or_default() += results;
    }
    let charged: BTreeMap<String, (f64, i64)> = query(
        "SELECT key, usd, turns FROM claude_agent.fleet_keys WHERE fleet = $1",
        &[&run.fleet],
    )
    .into_iter()
    .map(|row| (row.get::<_, String>(0), (row.get(1), row.get(2))))
    .collect();
    let keys: BTreeSet<&String> = delivered
        .keys()
        .chain(printed.keys())
        .chain(charged.keys())
        .collect();
    for key in keys {
        let got = delivered.get(key).copied().unwrap_or(0);
        let (usd, _) = charged.get(key).copied().unwrap_or((0.0, 0));
        let costed = (usd / TURN_USD).round() as u64;
        let cli = printed.get(key).copied().unwrap_or(0);
        if !(got <= costed && costed <= cli) {
            broken.push(format!(
                "charges of {key}: apps got {got} results, {costed} turns charged, the CLIs printed {cli}"
            ));
        }
    }
    let charges_by_host: BTreeMap<String, u64> = query(
        "SELECT split_part(charge, '/', 1), count(*) FROM claude_agent.fleet_charges
         WHERE fleet = $1 GROUP BY 1",
        &[&run.fleet],
    )
    .into_iter()
    .map(|row| (row.get::<_, String>(0), row.get::<_, i64>(1) as u64))
    .collect();
    for (host, got) in &delivered_by_host {
        let made = charges_by_host.get(host).copied().unwrap_or(0);
        if *got > made {
            broken.push(format!(
                "charges of host {host}: its apps got {got} results, it made {made} charges"
            ));
        }
    }
    // 2, charge by charge: the charges kept add up to each key's spending.
    let mut charges: BTreeMap<String, Vec<(f64, String)>> = BTreeMap::new();
    for row in query(
        "SELECT key, coalesce(usd, 0), to_char(at, 'YYYY-MM-DD HH24:MI:SS.US')
         FROM claude_agent.fleet_charges WHERE fleet = $1 ORDER BY at, charge",
        &[&run.fleet],
    ) {
        charges
            .entry(row.get(0))
            .or_default()
            .push((row.get(1), row.get(2)));
    }
    for (key, (usd, turns)) in &charged {
        let kept = charges.get(key).map_or(&[][..], Vec::as_slice);
        let sum: f64 = kept.iter().map(|(usd, _)| usd).sum();
        if kept.len() as i64 != *turns || (sum - usd).abs() > 1e-6 {
            broken.push(format!(
                "charges of {key}: {} charges of ${sum:.2} kept, the key counts {turns} turns of ${usd:.2}",
                kept.len()
            ));
        }
    }

    // 3. Budget: no turn of a key starts later than a lease after the charge that crossed its
    // budget (hosts hear of it at once; one cut off from the database stops within its lease).
    let prompts: BTreeMap<String, u64> = run
        .said("PROMPT")
        .into_iter()
        .map(|(_, prompt)| {
            (
                prompt["tag"].as_str().unwrap().to_owned(),
                prompt["at"].as_u64().unwrap(),
            )
        })
        .collect();
    let crossed_at: BTreeMap<String, u64> = charges
        .iter()
        .filter_map(|(key, kept)| {
            let mut spent = 0.0;
            kept.iter().find_map(|(usd, at)| {
                spent += usd;
                (Budget::usd(SHAPE.budget_usd).level(&spent_usd(spent))
                    == Some(BudgetLevel::Exceeded))
                .then(|| (key.clone(), unix_ms_of(&rt, &db, at)))
            })
        })
        .collect();
    // A lease, and as much again for a host the machine starved of time (CI runs it beside
    // other tests).
    let late = 2 * SHAPE.lease.as_millis() as u64;
    for (session, lines) in &run.printed {
        for line in lines.iter().filter(|line| line["type"] == "result") {
            let tag = line["result"].as_str().unwrap();
            let key = key_of_tag(&format!("{session}/1"));
            let (Some(crossed), Some(prompted)) = (crossed_at.get(&key), prompts.get(tag)) else {
                continue;
            };
            if *prompted > crossed + late {
                broken.push(format!(
                    "budget of {key}: turn {tag} started {} ms after the budget was crossed",
                    prompted - crossed
                ));
            }
        }
    }

    let over: Vec<String> = charged
        .iter()
        .filter(|(_, (usd, _))| *usd > SHAPE.budget_usd)
        .map(|(key, (usd, _))| format!("{key} +${:.2}", usd - SHAPE.budget_usd))
        .collect();
    eprintln!(
        "spent over the budget of ${:.2}: {over:?}",
        SHAPE.budget_usd
    );

    let all_turns: i64 = charged.values().map(|(_, turns)| turns).sum();
    let all_charges: u64 = charges_by_host.values().sum();
    if all_turns as u64 != all_charges {
        broken.push(format!(
            "charges: {all_charges} charges kept, but the keys count {all_turns} turns"
        ));
    }

    // 4 and 5. The store.
    let stored = query(
        "SELECT session_id, entry->>'fault_tag' FROM fault_sessions.session_entries
         WHERE entry ? 'fault_tag' ORDER BY seq",
        &[],
    );
    let mut stored_tags = BTreeSet::new();
    let mut writers: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in stored {
        let (session, tag): (String, String) = (row.get(0), row.get(1));
        let run = run_of_turn(&tag).to_owned();
        let seen = writers.entry(session.clone()).or_default();
        if seen.last() != Some(&run) {
            if seen.contains(&run) {
                broken.push(format!(
                    "one writer: {run} wrote to session {session} again after {seen:?}"
                ));
            }
            seen.push(run);
        }
        stored_tags.insert(tag);
    }
    for (_, result) in run.said("RESULT") {
        let tag = result["tag"].as_str().unwrap();
        if !stored_tags.contains(tag) {
            broken.push(format!(
                "stored before delivered: {tag} was delivered, not stored"
            ));
        }
    }

    // 6. One runner: once a host delivered a result of a session taken over, the host it was
    // taken from (or an earlier taker whose lease ran out) never delivers one again.
    let mut results = run.said("RESULT");
    results.sort_by_key(|(_, result)| result["at"].as_u64());
    let mut runners: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, result) in results {
        let run = run_of_turn(result["tag"].as_str().unwrap()).to_owned();
        let session_id = starts[&run]["session_id"].as_str().unwrap().to_owned();
        let seen = runners.entry(session_id.clone()).or_default();
        if seen.last() != Some(&run) {
            if seen.contains(&run) {
                broken.push(format!(
                    "one runner: {run} delivered a result of session {session_id} again after {seen:?}"
                ));
            }
            seen.push(run);
        }
    }

    // 7. No hang, and progress once healed.
    let left: BTreeMap<String, Value> = run.said("LEFT").into_iter().collect();
    let hosts: BTreeSet<String> = run
        .lines
        .iter()
        .filter_map(|l| l.split(' ').next())
        .map(str::to_owned)
        .collect();
    for host in &hosts {
        if !run.killed.contains(host) && !left.contains_key(host) {
            broken.push(format!("no hang: {host} did not end by itself"));
        }
    }
    let after_heal = run.healed_at + 2 * SHAPE.lease.as_millis() as u64;
    if !run
        .said("RESULT")
        .iter()
        .any(|(_, r)| r["at"].as_u64() > Some(after_heal))
    {
        broken.push("progress: no result once the faults were undone".to_owned());
    }

    // 8. Nothing left.
    for (host, left) in &left {
        let held = ["running", "waiting", "places", "waiters", "clis"];
        if held.iter().any(|what| left[what] != 0) || left["flushed"] != true {
            broken.push(format!("nothing left: {host} ended holding {left}"));
        }
    }
    let strays = stray_clis(&run.fleet);
    if strays > 0 {
        broken.push(format!(
            "nothing left: {strays} fake CLIs of the run still run"
        ));
    }
    if broken.is_empty() {
        Ok(())
    } else {
        Err(broken)
    }
}

/// What a key spent, as a budget reads it.
fn spent_usd(usd: f64) -> Spent {
    let mut spent = Spent::default();
    spent.usd = usd;
    spent
}

/// A time the database wrote as text, in ms since the epoch (by the database's reading).
fn unix_ms_of(rt: &tokio::runtime::Runtime, db: &tokio_postgres::Client, at: &str) -> u64 {
    let row = rt
        .block_on(db.query_one(
            "SELECT (extract(epoch FROM $1::text::timestamptz) * 1000)::bigint",
            &[&at],
        ))
        .unwrap();
    row.get::<_, i64>(0) as u64
}

/// Fake CLIs of the fleet still running (any parent): their environment names the fleet.
fn stray_clis(fleet: &str) -> usize {
    let marker = format!("FAULT_FLEET={fleet}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|env| env.windows(marker.len()).any(|w| w == marker.as_bytes()))
        })
        .count()
}

// ---- A host process ----

/// Runs only as a host process started by the tests above, with its spec.
#[test]
#[ignore = "a host process of the fault tests, which start it with its spec"]
fn fault_host() {
    tokio_rt().block_on(host(host_process::spec()));
}

/// Say `what` with the time (ms since the epoch) in it.
fn tell(what: &str, mut value: Value) {
    value["at"] = json!(unix_ms());
    say(what, value);
}

async fn host(spec: Value) {
    let text = |name: &str| spec[name].as_str().unwrap().to_owned();
    let config = text("config");
    let name = text("host");
    let ends_at = Instant::now() + Duration::from_millis(spec["run_ms"].as_u64().unwrap());
    let lease = Duration::from_millis(spec["lease_ms"].as_u64().unwrap());
    let limits = FleetLimits {
        max_sessions: Some(spec["max_sessions"].as_u64().unwrap() as usize),
        budget_per_key: Some(Budget::usd(spec["budget_usd"].as_f64().unwrap())),
        ..FleetLimits::default()
    };
    let mut joining = FleetHost::new(text("fleet"), name.clone(), limits);
    joining.lease = lease;
    // The database may be down or cut off as the host starts: it tries again.
    let ledger = loop {
        match PostgresFleetLedger::connect(&config, joining.clone()).await {
            Ok(ledger) => break ledger,
            Err(_) if Instant::now() < ends_at => tokio::time::sleep(lease / 4).await,
            Err(error) => panic!("{name} never joined: {error}"),
        }
    };
    let store = loop {
        match PostgresSessionStore::connect(&config).await {
            Ok(store) => break store,
            Err(_) if Instant::now() < ends_at => tokio::time::sleep(lease / 4).await,
            Err(error) => panic!("{name} never reached the store: {error}"),
        }
    };
    let store = store
        .with_schema("fault_sessions")
        .fenced_by(ledger.fence());
    let fleet = Fleet::shared(Arc::new(ledger.clone())).expect("valid limits");
    let work = PathBuf::from(text("work"));
    let home = work.join(format!("home-{name}"));
    for folder in ["scripts", "printed"] {
        std::fs::create_dir_all(work.join(folder)).unwrap();
    }
    std::fs::create_dir_all(&home).unwrap();
    let base = Options::new()
        .cli_path(text("fake"))
        .cwd(&work)
        .env("HOME", home.display().to_string())
        .env("FAULT_FLEET", text("fleet"))
        .session_store(Arc::new(store));
    let host = Arc::new(HostState {
        name: name.clone(),
        work,
        fleet,
        ledger: ledger.clone(),
        base,
        on_smol: spec["runtime"] == "smol",
        ends_at,
        lease,
    });
    let seed = spec["seed"].as_u64().unwrap();
    let slots: Vec<_> = (0..spec["slots"].as_u64().unwrap())
        .map(|slot| tokio::spawn(host.clone().slot(slot, seed.wrapping_add(slot))))
        .collect();
    for slot in slots {
        slot.await.unwrap();
    }
    // Dropped sessions shut their CLIs down and give their places back in the background,
    // within the SDK's shutdown bounds.
    let settling = Instant::now();
    while (host.fleet.running() > 0 || host.fleet.waiting() > 0 || clis_of_this_process() > 0)
        && settling.elapsed() < SETTLE
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let flushed = tokio::time::timeout(Duration::from_secs(10), ledger.flush()).await;
    let (places, waiters) = held_by(&config, &text("fleet"), &name).await;
    tell(
        "LEFT",
        json!({
            "settled_ms": settling.elapsed().as_millis() as u64,
            "running": host.fleet.running(),
            "waiting": host.fleet.waiting(),
            "flushed": match flushed {
                Ok(Ok(())) => json!(true),
                Ok(Err(error)) => json!(error.to_string()),
                Err(_) => json!("flush did not end within 10 s"),
            },
            "places": places,
            "waiters": waiters,
            "clis": clis_of_this_process(),
        }),
    );
}

/// What a host holds in the database: places and waiters under its current epoch (the places
/// of an earlier one, lost with its lease, are orphans for any host to take over).
async fn held_by(config: &str, fleet: &str, host: &str) -> (i64, i64) {
    let Ok((client, connection)) = tokio_postgres::connect(config, tokio_postgres::NoTls).await
    else {
        return (-1, -1);
    };
    tokio::spawn(connection);
    let count = |sql: &'static str| {
        let client = &client;
        async move {
            client
                .query_one(sql, &[&fleet, &host])
                .await
                .map_or(-1, |row| row.get::<_, i64>(0))
        }
    };
    (
        count(
            "SELECT count(*) FROM claude_agent.fleet_places p JOIN claude_agent.fleet_hosts h
                 ON h.fleet = p.fleet AND h.host = p.host AND h.epoch = p.epoch
             WHERE p.fleet = $1 AND p.host = $2",
        )
        .await,
        count(
            "SELECT count(*) FROM claude_agent.fleet_waiters w JOIN claude_agent.fleet_hosts h
                 ON h.fleet = w.fleet AND h.host = w.host AND h.epoch = w.epoch
             WHERE w.fleet = $1 AND w.host = $2",
        )
        .await,
    )
}

/// Children of this process still running.
fn clis_of_this_process() -> usize {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                return false;
            };
            let after = &stat[stat.rfind(')').map_or(0, |at| at + 1)..];
            // State, then the parent's pid; a zombie is reaped soon, and runs nothing.
            let mut fields = after.split_whitespace();
            let state = fields.next();
            let parent: Option<u32> = fields.next().and_then(|p| p.parse().ok());
            parent == Some(me) && state != Some("Z")
        })
        .count()
}

struct HostState {
    name: String,
    work: PathBuf,
    fleet: Fleet,
    ledger: PostgresFleetLedger,
    base: Options,
    on_smol: bool,
    ends_at: Instant,
    lease: Duration,
}

impl HostState {
    /// Sessions one after another until the end of the run: new ones, or orphans taken over.
    async fn slot(self: Arc<Self>, slot: u64, seed: u64) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut n = 0;
        while Instant::now() < self.ends_at {
            n += 1;
            let tag = format!("{}/{slot}-{n}", self.name);
            let session = self.next_session(&mut rng, &tag).await;
            let plan = Plan {
                tag,
                turns: rng.u32(1..=3),
                pauses: (0..3).map(|_| rng.u64(50..400)).collect(),
                slow_reader: rng.u32(..4) == 0,
                seed: rng.u64(..),
            };
            if self.run_session(session, plan).await {
                // As an app would: not again at once.
                Timer::after(Duration::from_millis(rng.u64(100..400))).await;
            }
        }
    }

    /// An orphan to take over (now and then), else a new session: its id, key, and whether it
    /// is resumed.
    async fn next_session(&self, rng: &mut fastrand::Rng, tag: &str) -> (String, String, bool) {
        if rng.u32(..3) == 0 {
            let orphans = tokio::time::timeout(Duration::from_secs(2), self.ledger.orphans()).await;
            if let Ok(Ok(orphans)) = orphans {
                for orphan in orphans {
                    let Some(session_id) = orphan.session_id.clone() else {
                        continue;
                    };
                    let taken = tokio::time::timeout(
                        Duration::from_secs(2),
                        self.ledger.take_over(&orphan),
                    );
                    if let Ok(Ok(true)) = taken.await {
                        tell(
                            "TAKEN",
                            json!({"place": orphan.place, "session_id": session_id,
                                   "from": orphan.host, "tag": tag}),
                        );
                        return (session_id, orphan.key, true);
                    }
                }
            }
        }
        // Most sessions count under one of three shared keys, whose budgets run out; the rest
        // under a key of their own, so that the fleet always has work it may do.
        let key = if rng.u32(..10) < 7 {
            format!("k{}", rng.u32(..3))
        } else {
            format!("own-{tag}")
        };
        (uuid_of(tag, 0), key, false)
    }

    /// Run one session; whether it ended in an error.
    async fn run_session(
        &self,
        (session_id, key, resumed): (String, String, bool),
        plan: Plan,
    ) -> bool {
        let script = session_script(&session_id, &plan);
        let file = plan.tag.replace('/', "_");
        let script_path = self.work.join("scripts").join(format!("{file}.json"));
        std::fs::write(&script_path, serde_json::to_string(&script).unwrap()).unwrap();
        let mut options = self
            .base
            .clone()
            .env("FAKE_CLAUDE_SCRIPT", script_path.display().to_string())
            .env(
                "FAKE_CLAUDE_STDOUT_COPY",
                self.work
                    .join("printed")
                    .join(format!("{file}.jsonl"))
                    .display()
                    .to_string(),
            )
            .fleet(self.fleet.member(key.clone()));
        if resumed {
            options = options.session_start(SessionStart::resume(session_id.clone()));
        }
        tell(
            "START",
            json!({"tag": plan.tag, "session_id": session_id, "key": key, "resumed": resumed}),
        );
        let tag = plan.tag.clone();
        // A session still running (or waiting for a place) a lease after the end is dropped:
        // dropping it is part of what is checked.
        let stop = Timer::at(self.ends_at + self.lease);
        let dropped = async move {
            stop.await;
            Some("dropped at the end of the run".to_owned())
        };
        let error = if self.on_smol {
            tokio::task::spawn_blocking(move || {
                smol::block_on(future::or(
                    session(claude_agent_smol::connect(options), plan),
                    dropped,
                ))
            })
            .await
            .unwrap()
        } else {
            future::or(session(claude_agent_tokio::connect(options), plan), dropped).await
        };
        let failed = error.is_some();
        tell("OUTCOME", json!({"tag": tag, "key": key, "error": error}));
        failed
    }
}

/// How one session goes.
struct Plan {
    tag: String,
    turns: u32,
    /// How long the CLI takes over each turn, in ms.
    pauses: Vec<u64>,
    /// The app stops reading for a while after each message.
    slow_reader: bool,
    seed: u64,
}

/// A session's turns, each result said as it reaches the app; the error it ended in.
async fn session(
    connecting: impl std::future::Future<Output = Result<Client, Error>>,
    plan: Plan,
) -> Option<String> {
    let mut rng = fastrand::Rng::with_seed(plan.seed);
    let client = match connecting.await {
        Ok(client) => client,
        Err(error) => return Some(error.to_string()),
    };
    for turn in 1..=plan.turns {
        tell("PROMPT", json!({"tag": format!("{}/{turn}", plan.tag)}));
        if let Err(error) = client.send(format!("turn {turn}")).await {
            return Some(error.to_string());
        }
        let mut reply = client.receive_response();
        while let Some(item) = reply.next().await {
            match item {
                Ok(Message::Result(_)) => {
                    tell("RESULT", json!({"tag": format!("{}/{turn}", plan.tag)}));
                }
                Ok(_) => {}
                Err(error) => return Some(error.to_string()),
            }
            if plan.slow_reader {
                Timer::after(Duration::from_millis(rng.u64(100..900))).await;
            }
        }
    }
    client.close().await;
    None
}

/// The run of the session that a turn's tag (`<host>/<slot>-<n>/<turn>`) names: `<host>/<slot>-<n>`,
/// one start or takeover of the session by a host.
fn run_of_turn(tag: &str) -> &str {
    tag.rsplit_once('/').map_or(tag, |(run, _)| run)
}

/// The fake CLI's script for a session: each turn mirrors two transcript entries (tagged
/// `<host>/<slot>-<n>/<turn>`), then says its result, costing `TURN_USD`.
fn session_script(session_id: &str, plan: &Plan) -> Script {
    let mut init = canned::system_init(1);
    init["session_id"] = json!(session_id);
    let mut script = Script::new().answer_initialize().emit_json(&init);
    for turn in 1..=plan.turns {
        let tag = format!("{}/{turn}", plan.tag);
        let entry = |kind: &str, n: u32| {
            json!({"type": kind, "uuid": uuid_of(&plan.tag, turn * 2 + n), "sessionId": session_id,
                   "fault_tag": tag})
        };
        let mut reply = canned::assistant_text(&format!("reply {tag}"), u64::from(turn) + 1);
        reply["session_id"] = json!(session_id);
        script = script
            .expect_user()
            .sleep(Duration::from_millis(plan.pauses[(turn - 1) as usize]))
            .mirror(session_id, vec![entry("user", 0), entry("assistant", 1)])
            .emit_json(&reply)
            .emit_result_with(
                FakeResult::success(&tag)
                    .session_id(session_id)
                    .cost_usd(TURN_USD * f64::from(turn)),
            );
    }
    script.expect_eof().exit(0)
}

/// A UUID of its own for each tag and number.
fn uuid_of(tag: &str, n: u32) -> String {
    // FNV-1a: the same tag gives the same id in every process.
    let hash = tag.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        hash >> 32,
        (hash >> 16) & 0xffff,
        hash & 0xfff,
        n & 0xfff,
        (hash ^ u64::from(n)) & 0xffff_ffff_ffff
    )
}

// ---- Faults found by the schedules, each alone ----

/// A host on a fleet of its own, joined through `config`, with `max_sessions` and a budget of
/// its key `k` of `budget_usd`.
async fn lone_host(
    config: &str,
    fleet: &str,
    name: &str,
    max_sessions: usize,
    budget_usd: Option<f64>,
) -> PostgresFleetLedger {
    let limits = FleetLimits {
        max_sessions: Some(max_sessions),
        budget_per_key: budget_usd.map(Budget::usd),
        ..FleetLimits::default()
    };
    let mut joining = FleetHost::new(fleet, name, limits);
    joining.lease = SHAPE.lease;
    PostgresFleetLedger::connect(config, joining).await.unwrap()
}

/// Whether `place` is lost now.
async fn lost(place: &dyn claude_agent_tokio::SharedPlace) -> bool {
    future::poll_fn(|cx| std::task::Poll::Ready(place.poll_lost(cx).is_ready())).await
}

/// A host whose connections stalled for longer than its lease (a partition that drops packets,
/// then heals), while its sessions came and went by the thousand, loses its places and then
/// comes back at once: what it queued meanwhile is one statement, not a backlog that outlasts
/// its patience every time it tries (once, the host never came back).
#[test]
fn a_host_whose_connections_stalled_past_its_lease_comes_back() {
    let cluster = Cluster::start();
    let proxy = Proxy::start(cluster.port);
    tokio_rt().block_on(async {
        let ledger = lone_host(&proxy.config(), "stalled", "h", 2, None).await;
        let shared: &dyn SharedLedger = &ledger;
        let held = shared.admit("k").await.unwrap();
        proxy.stall(true);
        // The host gives its place up on its own clock, a margin before the database's lease
        // (renewed at most a lease before the stall) ends, whatever statement hangs meanwhile.
        let stalled = Instant::now();
        while !lost(&*held).await {
            assert!(
                stalled.elapsed() < SHAPE.lease,
                "the place outlived the lease"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        eprintln!(
            "a lease of {:?}: the place given up {:?} into the stall",
            SHAPE.lease,
            stalled.elapsed()
        );
        tokio::time::sleep(SHAPE.lease).await;
        drop(held);
        // Sessions that asked for a place and gave up, each a place to give back.
        for _ in 0..3000 {
            drop(shared.admit("k"));
        }
        proxy.stall(false);
        let healed = Instant::now();
        let again = loop {
            match tokio::time::timeout(SHAPE.lease, shared.admit("k")).await {
                Ok(Ok(place)) => break place,
                Ok(Err(error)) => eprintln!("{:?} {error}", healed.elapsed()),
                Err(_) => eprintln!("{:?} no answer", healed.elapsed()),
            }
            assert!(healed.elapsed() < SHAPE.lease * 3, "no place again");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert!(!lost(&*again).await);
        drop(again);
        ledger.flush().await.unwrap();
    });
}

/// A database restart shorter than half a lease costs no place: the host connects again as
/// soon as the database answers (not a quarter lease later), renews in time, and its waiting
/// session keeps its turn. While the database is down, a session asking for a place is told
/// so at once.
#[test]
fn a_database_restart_shorter_than_half_a_lease_costs_no_place() {
    let cluster = Cluster::start();
    tokio_rt().block_on(async {
        let lease = Duration::from_secs(4);
        let limits = FleetLimits {
            max_sessions: Some(1),
            ..FleetLimits::default()
        };
        let mut joining = FleetHost::new("restart", "h", limits);
        joining.lease = lease;
        let ledger = PostgresFleetLedger::connect(&cluster.config(), joining)
            .await
            .unwrap();
        let shared: &dyn SharedLedger = &ledger;
        let held = shared.admit("k").await.unwrap();
        let mut waiting = shared.admit("k");
        assert!(
            future::poll_once(&mut waiting).await.is_none(),
            "the limit is 1"
        );
        // The ledger's task handles commands in order: once this is done, the waiting
        // session's ticket is in the database (a ticket the database could not take would
        // be refused as out of reach, which is not what this test is about).
        ledger.flush().await.unwrap();
        let down = Instant::now();
        cluster.stop_server();
        let asked = Instant::now();
        let refused = shared.admit("other").await;
        let told_in = asked.elapsed();
        assert!(
            matches!(refused, Err(AdmitError::Unreachable(_))),
            "refused: {:?}",
            refused.err()
        );
        assert!(told_in < Duration::from_millis(500), "told in {told_in:?}");
        tokio::time::sleep(Duration::from_millis(1200).saturating_sub(down.elapsed())).await;
        cluster.start_server();
        let down_for = down.elapsed();
        assert!(down_for < lease / 2, "the restart took {down_for:?}");
        tokio::time::sleep(lease).await;
        assert!(
            !lost(&*held).await,
            "a restart of {down_for:?} cost the place"
        );
        drop(held);
        match tokio::time::timeout(lease, waiting).await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => panic!("the waiting session lost its turn: {error}"),
            Err(_) => panic!("the waiting session had no place {lease:?} after it was free"),
        }
        eprintln!(
            "the database down for {down_for:?}: no place lost; a request for a place told in \
             {told_in:?} that it is out of reach"
        );
    });
}

/// Charges queued while the database was out of reach (thousands of them, committed one by
/// one once it is back) never keep the host from renewing its lease: the place it holds
/// meanwhile is not lost, and every charge counts once.
#[test]
fn a_long_queue_of_charges_keeps_the_lease() {
    let cluster = Cluster::start();
    let proxy = Proxy::start(cluster.port);
    tokio_rt().block_on(async {
        let ledger = lone_host(&proxy.config(), "charges", "h", 2, None).await;
        let shared: &dyn SharedLedger = &ledger;
        let held = shared.admit("k").await.unwrap();
        // Long enough for the host to give its connection up, short of its lease.
        proxy.stall(true);
        tokio::time::sleep(SHAPE.lease / 2 + SHAPE.lease / 8).await;
        let cost = TurnCost::new(Some(0.01), None, Tokens::default(), 0.01);
        let charges: Vec<_> = (0..2000).map(|_| shared.charge("k", &cost)).collect();
        proxy.stall(false);
        let started = Instant::now();
        for charge in charges {
            charge.await;
        }
        eprintln!("2000 charges committed in {:?}", started.elapsed());
        assert!(
            !lost(&*held).await,
            "the lease was renewed while the charges went in"
        );
        ledger.flush().await.unwrap();
        let spent = ledger.spending().await.unwrap();
        assert_eq!(spent[0].1.turns, 2000, "each charge once");
        drop(held);
    });
}

/// Sessions that give their place up while another host gives it to them (a race between a
/// grant and a leave) leave no place behind: a place given to a waiter that is going is
/// deleted with it.
#[test]
fn a_place_given_as_its_waiter_leaves_is_not_kept() {
    let cluster = Cluster::start();
    tokio_rt().block_on(async {
        let mut hosts = Vec::new();
        for name in ["a", "b", "c"] {
            hosts.push(lone_host(&cluster.config(), "race", name, 2, None).await);
        }
        let mut tasks = Vec::new();
        for (n, host) in hosts.iter().enumerate() {
            let host = host.clone();
            tasks.push(tokio::spawn(async move {
                let mut rng = fastrand::Rng::with_seed(n as u64);
                for _ in 0..300 {
                    let shared: &dyn SharedLedger = &host;
                    let asked = shared.admit("k");
                    // Given up at any moment: before the grant, during it, or after.
                    let patience = Duration::from_micros(rng.u64(0..4000));
                    if let Ok(Ok(place)) = tokio::time::timeout(patience, asked).await {
                        drop(place);
                    }
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        for host in &hosts {
            host.flush().await.unwrap();
        }
        let (client, connection) =
            tokio_postgres::connect(&cluster.config(), tokio_postgres::NoTls)
                .await
                .unwrap();
        tokio::spawn(connection);
        let places: i64 = client
            .query_one(
                "SELECT count(*) FROM claude_agent.fleet_places WHERE fleet = 'race'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(places, 0, "every place given back");
    });
}

/// A second process joining under a host's name (a restart before the old one died, a copy
/// deployed twice) takes the name: the first stops for good, instead of the two joining in
/// turn for ever and dropping every session at each renewal.
#[test]
fn a_second_process_under_a_hosts_name_stops_the_first() {
    let cluster = Cluster::start();
    tokio_rt().block_on(async {
        let first = lone_host(&cluster.config(), "twice", "h", 2, None).await;
        let held = SharedLedger::admit(&first, "k").await.unwrap();
        let second = lone_host(&cluster.config(), "twice", "h", 2, None).await;
        tokio::time::sleep(SHAPE.lease * 3).await;
        assert!(lost(&*held).await, "the first gave its place up");
        assert_eq!(first.orphans().await, Err(LedgerError::Superseded));
        let refused = SharedLedger::admit(&first, "k").await.err();
        assert!(
            matches!(&refused, Some(AdmitError::Unreachable(why)) if why.contains("under this host's name")),
            "{refused:?}"
        );
        // The name stayed with the second: its epoch is the one it joined under.
        let place = SharedLedger::admit(&second, "k").await.unwrap();
        assert!(!lost(&*place).await);
        let (client, connection) = tokio_postgres::connect(&cluster.config(), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        let epoch: i64 = client
            .query_one(
                "SELECT epoch FROM claude_agent.fleet_hosts WHERE fleet = 'twice' AND host = 'h'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(epoch, 2, "joined twice, no more");
    });
}
