//! The same session lifecycle on both paths: each scenario runs once through the client layer
//! (the [`TestRuntime`]'s virtual clock, the in-memory [`FakeTransport`]) and once through a host
//! of the core alone (a loop of std code over a [`Session`] and a sans-IO [`FakeCli`], its own
//! virtual clock), and both must see the same signals, the same answers written to the CLI and
//! the same time taken. What the session decides (graces, signals, callback time limits, how many
//! callbacks run at once, when the transcript goes to a store that is down, when a fleet's ledger
//! has a turn's charge, and when the result and the end may go on) is then the core's, not the
//! client's.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use claude_agent_client::mcp::{tool, SdkMcpServer};
use claude_agent_client::store::{SessionKey, SessionStore, StoreError, StoreFuture};
use claude_agent_client::{
    connect_with, query_with, AdmitFuture, ChargeFuture, Fleet, FleetLimits, Options, Runtime,
    SharedLedger, SharedPlace, Signal,
};
use claude_agent_core::control::{InboundId, InboundKind, InboundRequest, Reply};
use claude_agent_core::cost::{BudgetReport, Spent, TurnCost};
use claude_agent_core::mcp::{McpServerSpec, ToolResult, ToolSpec};
use claude_agent_core::message::{Message, SystemMessage, UserInput};
use claude_agent_core::permission::PermissionResult;
use claude_agent_core::session::{
    AppendOutcome, Event, ExitStatusInfo, InputMode, MirrorLimits, MirrorQueue, Session,
    SessionConfig, Signal as SessionSignal, Termination, Transmit,
};
use claude_agent_core::Json;
use claude_agent_testkit::fake_cli::{FakeCli, Script, ToolUse};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::FakeTransport;
use futures_lite::StreamExt;
use serde_json::{json, Value};

/// What one path saw.
#[derive(Debug)]
struct Seen {
    /// Signals sent to the CLI, in order.
    signals: Vec<Signal>,
    /// The control responses written to the CLI, by request id. (Answers finished at the same
    /// moment are written in the order the host happened to finish them: not compared.)
    answers: Vec<(String, Value)>,
    /// Virtual time from the start to the session's end.
    took: Duration,
    /// Most callbacks running at once.
    most_running: usize,
    /// Each append the store was asked for: when, how many entries, and whether it stored them.
    appends: Vec<(Duration, usize, bool)>,
    /// The results and store failures the application read, in order.
    read: Vec<&'static str>,
    /// When each charge went to the fleet's shared ledger.
    charges: Vec<Duration>,
}

/// How the host ends the session.
#[derive(Clone, Copy)]
enum Ending {
    /// `connect`, then `close` once it is ready.
    CloseWhenReady,
    /// A one-prompt query, read to its end.
    Query,
}

/// How the host answers the CLI's requests.
#[derive(Clone, Copy)]
enum Answering {
    /// It answers nothing (and registers no callback).
    Nothing,
    /// Every permission prompt is allowed after a second.
    AllowAfterASecond,
    /// The in-process `slow.wait` tool, limited to 2 s, never finishes.
    ToolThatNeverFinishes,
}

struct Scenario {
    name: &'static str,
    script: fn() -> Script,
    ending: Ending,
    answering: Answering,
    /// The session ends with an error (for a query: its last item).
    fails: bool,
    /// The session mirrors its transcript to a store whose first this many appends fail.
    store_down_for: Option<usize>,
    /// The session is one of a fleet whose hosts share a ledger, which takes this long to make
    /// each charge.
    ledger_takes: Option<Duration>,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "graceful close",
            script: || Script::new().answer_initialize().expect_eof().exit(0),
            ending: Ending::CloseWhenReady,
            answering: Answering::Nothing,
            fails: false,
            store_down_for: None,
            ledger_takes: None,
        },
        Scenario {
            name: "a CLI that ignores the end of stdin",
            script: || Script::new().answer_initialize().hang(),
            ending: Ending::CloseWhenReady,
            answering: Answering::Nothing,
            fails: false,
            store_down_for: None,
            ledger_takes: None,
        },
        Scenario {
            name: "a CLI that ignores SIGTERM",
            script: || Script::new().answer_initialize().ignore_sigterm().hang(),
            ending: Ending::CloseWhenReady,
            answering: Answering::Nothing,
            fails: false,
            store_down_for: None,
            ledger_takes: None,
        },
        Scenario {
            name: "a callback past its time limit",
            script: || {
                let wait = ToolUse::mcp("toolu_1", "slow", "wait", json!({}));
                Script::new()
                    .answer_initialize()
                    .expect_user()
                    .emit_tool_use(&wait)
                    .call_tool("m1", &wait)
                    .emit_result("gave up waiting")
                    .expect_eof()
                    .exit(0)
            },
            ending: Ending::Query,
            answering: Answering::ToolThatNeverFinishes,
            fails: false,
            store_down_for: None,
            ledger_takes: None,
        },
        Scenario {
            name: "300 callbacks at once",
            script: || {
                let mut script = Script::new().answer_initialize().expect_user();
                for i in 0..300 {
                    script = script.send_request(&format!("p{i}"), prompt(i));
                }
                for i in 0..300 {
                    script = script.expect_response(&format!("p{i}"));
                }
                script.emit_result("all asked").expect_eof().exit(0)
            },
            ending: Ending::Query,
            answering: Answering::AllowAfterASecond,
            fails: false,
            store_down_for: None,
            ledger_takes: None,
        },
        Scenario {
            name: "stdout closed before initialize",
            script: || Script::new().close_stdout().hang(),
            ending: Ending::Query,
            answering: Answering::Nothing,
            fails: true,
            store_down_for: None,
            ledger_takes: None,
        },
        Scenario {
            name: "a store down for one append",
            script: mirrored_turn,
            ending: Ending::Query,
            answering: Answering::Nothing,
            fails: false,
            store_down_for: Some(1),
            ledger_takes: None,
        },
        Scenario {
            name: "a ledger that takes 300 ms to charge",
            script: || {
                Script::new()
                    .answer_initialize()
                    .expect_user()
                    .emit_result("charged")
                    .expect_eof()
                    .exit(0)
            },
            ending: Ending::Query,
            answering: Answering::Nothing,
            fails: false,
            store_down_for: None,
            ledger_takes: Some(LEDGER_TAKES),
        },
        Scenario {
            name: "a store down for one append, then the ledger",
            script: mirrored_turn,
            ending: Ending::Query,
            answering: Answering::Nothing,
            fails: false,
            store_down_for: Some(1),
            ledger_takes: Some(LEDGER_TAKES),
        },
        Scenario {
            name: "a store down for a turn",
            script: mirrored_turn,
            ending: Ending::Query,
            answering: Answering::Nothing,
            fails: false,
            store_down_for: Some(3),
            ledger_takes: None,
        },
    ]
}

const CONFIG: &str = "/fake-home/.claude";
const SESSION: &str = "13dbd64f-f8d4-4686-ab4c-e5b537e0a952";

/// One turn whose two transcript lines the CLI mirrors before its result.
fn mirrored_turn() -> Script {
    let frame = json!({
        "type": "transcript_mirror",
        "filePath": format!("{CONFIG}/projects/-work/{SESSION}.jsonl"),
        "entries": [{"type": "user", "uuid": "u1"}, {"type": "assistant", "uuid": "a1"}],
    });
    Script::new()
        .answer_initialize()
        .expect_user()
        .emit(frame.to_string())
        .emit_result("stored")
        .expect_eof()
        .exit(0)
}

fn prompt(i: usize) -> Value {
    json!({"subtype": "can_use_tool", "tool_name": "Bash",
        "input": {"command": format!("echo {i}")}, "tool_use_id": format!("toolu_{i}")})
}

const TOOL_LIMIT: Duration = Duration::from_secs(2);

/// How long the shared ledger of the fleet scenarios takes to make a charge.
const LEDGER_TAKES: Duration = Duration::from_millis(300);

fn empty_object() -> Json {
    Json::from_serialize(&json!({"type": "object"})).expect("a JSON value")
}

/// The control responses among the lines written to the CLI, by request id.
fn answers(lines: &[Value]) -> Vec<(String, Value)> {
    let mut answers: Vec<(String, Value)> = lines
        .iter()
        .filter(|line| line["type"] == "control_response")
        .map(|line| {
            let response = &line["response"];
            let id = response["request_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            (id, response.clone())
        })
        .collect();
    answers.sort_by(|a, b| a.0.cmp(&b.0));
    answers
}

// ---- the client layer ------------------------------------------------------------------------

fn through_the_client(scenario: &Scenario) -> Seen {
    let runtime = TestRuntime::new();
    let fake = FakeTransport::new((scenario.script)());
    let (running, most) = (Arc::new(Mutex::new(0usize)), Arc::new(Mutex::new(0usize)));
    let mut options = Options::new().transport(fake.clone());
    match scenario.answering {
        Answering::Nothing => {}
        Answering::AllowAfterASecond => {
            let (runtime, running, most) = (runtime.clone(), running.clone(), most.clone());
            options = options.on_permission_request(move |_request, _ctx| {
                let (runtime, running, most) = (runtime.clone(), running.clone(), most.clone());
                async move {
                    let now = {
                        let mut running = running.lock().unwrap();
                        *running += 1;
                        let mut most = most.lock().unwrap();
                        *most = (*most).max(*running);
                        runtime.now()
                    };
                    runtime.sleep_until(now + Duration::from_secs(1)).await;
                    *running.lock().unwrap() -= 1;
                    PermissionResult::allow()
                }
            });
        }
        Answering::ToolThatNeverFinishes => {
            let wait = tool("wait", "Waits for ever", json!({"type": "object"}), {
                let (running, most) = (running.clone(), most.clone());
                move |_args: Value| {
                    *running.lock().unwrap() += 1;
                    *most.lock().unwrap() = 1;
                    futures_lite::future::pending::<Result<ToolResult, String>>()
                }
            })
            .timeout(TOOL_LIMIT);
            options = options.sdk_mcp_server(SdkMcpServer::new("slow", "1.0.0").tool(wait));
        }
    }
    let started = runtime.now();
    let appends = Arc::new(Mutex::new(Vec::new()));
    if let Some(failing) = scenario.store_down_for {
        let store = DownAtFirst {
            runtime: runtime.clone(),
            started,
            failing: Mutex::new(failing),
            appends: appends.clone(),
        };
        options = options
            .env("CLAUDE_CONFIG_DIR", CONFIG)
            .session_store(store);
    }
    let charges = Arc::new(Mutex::new(Vec::new()));
    if let Some(takes) = scenario.ledger_takes {
        let ledger = SlowLedger {
            runtime: runtime.clone(),
            started,
            takes,
            charges: charges.clone(),
        };
        let fleet = Fleet::shared(Arc::new(ledger)).expect("a fleet");
        options = options.fleet(fleet.member("k"));
    }
    let mut read = Vec::new();
    match scenario.ending {
        Ending::CloseWhenReady => runtime.block_on(async {
            let client = connect_with(runtime.clone(), options)
                .await
                .expect("connected");
            client.close().await;
        }),
        Ending::Query => {
            let items: Vec<_> =
                runtime.block_on(query_with(runtime.clone(), "go", options).collect());
            let (last, before) = items.split_last().expect("an item at least");
            assert!(before.iter().all(Result::is_ok), "{items:?}");
            assert_eq!(last.is_err(), scenario.fails, "{items:?}");
            for item in &items {
                match item {
                    Ok(Message::Result(_)) => read.push("result"),
                    Ok(Message::System(SystemMessage::MirrorError(_))) => read.push("store failed"),
                    _ => {}
                }
            }
        }
    }
    let appends = appends.lock().unwrap().clone();
    let charges = charges.lock().unwrap().clone();
    Seen {
        signals: fake.signals(),
        answers: answers(&fake.written_json()),
        took: runtime.now() - started,
        most_running: *most.lock().unwrap(),
        appends,
        read,
        charges,
    }
}

/// A fleet's ledger shared with other hosts (in a database, say) that takes a while to make
/// each charge, and records when each was asked for. It gives every session a place at once.
struct SlowLedger {
    runtime: TestRuntime,
    started: Instant,
    takes: Duration,
    charges: Arc<Mutex<Vec<Duration>>>,
}

/// A place of the [`SlowLedger`]: never lost, no budget.
struct OpenPlace;

impl SharedPlace for OpenPlace {
    fn session_id(&self, _session_id: &str) {}
    fn turn_running(&self, _running: bool) {}
    fn poll_report(&self, _cx: &mut Context<'_>) -> Poll<BudgetReport> {
        Poll::Pending
    }
    fn poll_lost(&self, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}

impl SharedLedger for SlowLedger {
    fn limits(&self) -> FleetLimits {
        FleetLimits::default()
    }
    fn admit(&self, _key: &str) -> AdmitFuture {
        Box::pin(async { Ok(Box::new(OpenPlace) as Box<dyn SharedPlace>) })
    }
    fn charge(&self, _key: &str, _cost: &TurnCost) -> ChargeFuture {
        let now = self.runtime.now();
        self.charges.lock().unwrap().push(now - self.started);
        Box::pin(self.runtime.sleep_until(now + self.takes))
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

/// A session store whose first appends fail, as one that is down, and which records every
/// append it is asked for: when (virtual time from the start), how many entries, and whether
/// it stored them.
struct DownAtFirst {
    runtime: TestRuntime,
    started: Instant,
    failing: Mutex<usize>,
    appends: Arc<Mutex<Vec<(Duration, usize, bool)>>>,
}

impl SessionStore for DownAtFirst {
    fn append<'a>(&'a self, _key: &'a SessionKey, entries: &'a [Value]) -> StoreFuture<'a, ()> {
        let mut failing = self.failing.lock().unwrap();
        let stored = *failing == 0;
        *failing = failing.saturating_sub(1);
        let at = self.runtime.now() - self.started;
        self.appends
            .lock()
            .unwrap()
            .push((at, entries.len(), stored));
        Box::pin(async move {
            if stored {
                Ok(())
            } else {
                Err(StoreError::backend("the store is down"))
            }
        })
    }

    fn load<'a>(&'a self, _key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Value>>> {
        Box::pin(async { Ok(None) })
    }
}

// ---- a host of the core alone ----------------------------------------------------------------

/// A host of the core alone: std code over a [`Session`] and a sans-IO [`FakeCli`], with its own
/// virtual clock. It answers the CLI's requests as `answering` says; everything else (when to
/// signal, when a tool's time is up, how many requests it gets at once) the session tells it.
struct CoreHost {
    session: Session,
    cli: FakeCli,
    now: Instant,
    /// The CLI's exit, once it exited; reported to the session once.
    exited: Option<ExitStatusInfo>,
    reported_exit: bool,
    /// The end of stdout has been reported to the session.
    reported_eof: bool,
    /// How the session ended.
    termination: Option<Termination>,
    signals: Vec<Signal>,
    answering: Answering,
    /// Answers due at a time: `(when, request)`.
    due: Vec<(Instant, InboundId)>,
    running: usize,
    most_running: usize,
    /// The session store's queue, and how many more appends fail, when the session has one.
    store: Option<(MirrorQueue, usize)>,
    appends: Vec<(Duration, usize, bool)>,
    read: Vec<&'static str>,
    /// How long the fleet's shared ledger takes to make a charge, when the session has one.
    ledger_takes: Option<Duration>,
    /// The charge under way: when the ledger has it.
    charging: Option<Instant>,
    charges: Vec<Duration>,
    started: Instant,
}

impl CoreHost {
    fn new(scenario: &Scenario) -> CoreHost {
        let mut config = SessionConfig::new(InputMode::Streaming);
        match scenario.answering {
            Answering::Nothing => {}
            Answering::AllowAfterASecond => config.can_use_tool = true,
            Answering::ToolThatNeverFinishes => {
                let mut wait = ToolSpec::new("wait", "Waits for ever", empty_object());
                wait.timeout = Some(TOOL_LIMIT);
                config.mcp_servers = vec![McpServerSpec::new("slow", "1.0.0").tool(wait)];
            }
        }
        config.results_after_store = scenario.store_down_for.is_some();
        config.results_after_charge = scenario.ledger_takes.is_some();
        // A session of a fleet whose hosts share a ledger keeps trying its store a minute.
        let mut limits = MirrorLimits::default();
        limits.keep_trying_for = scenario.ledger_takes.map(|_| Duration::from_secs(60));
        let store = scenario
            .store_down_for
            .map(|failing| (MirrorQueue::new(limits), failing));
        let now = Instant::now();
        let mut session = Session::new(config, now);
        let mut store = store;
        if let Some((queue, _)) = &mut store {
            // In step before the first event.
            session.sync_store(now, queue);
        }
        CoreHost {
            session,
            cli: FakeCli::new((scenario.script)()),
            now,
            exited: None,
            reported_exit: false,
            reported_eof: false,
            termination: None,
            signals: Vec::new(),
            answering: scenario.answering,
            due: Vec::new(),
            running: 0,
            most_running: 0,
            store,
            appends: Vec::new(),
            read: Vec::new(),
            ledger_takes: scenario.ledger_takes,
            charging: None,
            charges: Vec::new(),
            started: now,
        }
    }

    /// Run until the session is finished; returns what was seen, and whether it ended in an
    /// error.
    fn run(mut self, ending: Ending) -> (Seen, bool) {
        let started = self.now;
        if let Ending::Query = ending {
            self.session
                .send_last(self.now, UserInput::text("go"))
                .expect("sent");
        }
        loop {
            if self.step(ending) {
                continue;
            }
            if self.session.is_finished() {
                break;
            }
            // Nothing to do now: on to the next deadline, the session's or an answer's.
            let next = [
                self.session.poll_timeout(),
                self.due.iter().map(|(at, _)| *at).min(),
                self.charging,
                self.store
                    .as_ref()
                    .and_then(|(queue, _)| queue.poll_timeout()),
            ]
            .into_iter()
            .flatten()
            .min()
            .expect("a session waiting on nothing would wait for ever");
            self.now = self.now.max(next);
            self.session.handle_timeout(self.now);
            if let Some((queue, _)) = &mut self.store {
                queue.handle_timeout(self.now);
            }
        }
        let failed = !matches!(
            self.termination,
            Some(Termination::Completed | Termination::ClosedByHost)
        );
        let seen = Seen {
            signals: self.signals,
            answers: answers(self.cli.received()),
            took: self.now - started,
            most_running: self.most_running,
            appends: self.appends,
            read: self.read,
            charges: self.charges,
        };
        (seen, failed)
    }

    /// Everything that can happen without time passing; returns whether anything did.
    fn step(&mut self, ending: Ending) -> bool {
        let mut progress = false;
        while let Some(transmit) = self.session.poll_transmit() {
            progress = true;
            match transmit {
                Transmit::Write(bytes) if self.exited.is_none() => self.cli.handle_stdin(&bytes),
                Transmit::CloseStdin => self.cli.handle_stdin_eof(),
                Transmit::Signal(signal) => {
                    let (signal, number) = match signal {
                        SessionSignal::Terminate => (Signal::Terminate, 15),
                        _ => (Signal::Kill, 9),
                    };
                    self.signals.push(signal);
                    let ignored = signal == Signal::Terminate && self.cli.survives_sigterm();
                    if self.exited.is_none() && !ignored {
                        self.exited = Some(ExitStatusInfo::signal(number));
                    }
                }
                _ => {}
            }
        }
        if self.exited.is_none() {
            while let Some(bytes) = self.cli.poll_stdout() {
                self.session.handle_stdout(self.now, &bytes);
                progress = true;
            }
            while self.cli.poll_stderr().is_some() {}
            if let Some(code) = self.cli.poll_exit() {
                self.exited = Some(ExitStatusInfo::code(code));
            }
        }
        if !self.reported_eof && (self.exited.is_some() || self.cli.stdout_closed()) {
            self.reported_eof = true;
            self.session.handle_stdout_eof(self.now);
            progress = true;
        }
        if let (Some(status), false) = (self.exited, self.reported_exit) {
            self.reported_exit = true;
            self.session.handle_exit(self.now, status);
            progress = true;
        }
        while let Some(event) = self.session.poll_event() {
            progress = true;
            match event {
                Event::Ready => {
                    if let Ending::CloseWhenReady = ending {
                        self.session.close(self.now);
                    }
                }
                Event::Inbound(request) => self.start(*request),
                Event::Cancelled(id) | Event::Expired(id) => {
                    self.due.retain(|(_, due)| *due != id);
                    self.running -= 1;
                }
                Event::Finished(termination) => self.termination = Some(termination),
                Event::Mirror(frame) => {
                    let (queue, _) = self.store.as_mut().expect("frames only with a store");
                    queue.enqueue(Ok(SessionKey::new("-work", SESSION)), *frame);
                }
                Event::Message(Message::Result(_)) => self.read.push("result"),
                Event::StoreFailed(_) => self.read.push("store failed"),
                Event::Charge(_) => {
                    let takes = self.ledger_takes.expect("charges only with a ledger");
                    self.charges.push(self.now - self.started);
                    self.charging = Some(self.now + takes);
                }
                _ => {}
            }
        }
        if self.charging.is_some_and(|at| at <= self.now) {
            self.charging = None;
            self.session.turn_charged();
            progress = true;
        }
        progress |= self.store_step();
        let now = self.now;
        let (ready, waiting): (Vec<_>, Vec<_>) = self.due.drain(..).partition(|(at, _)| *at <= now);
        self.due = waiting;
        for (_, id) in ready {
            self.running -= 1;
            let answer = Reply::Permission(PermissionResult::allow());
            let _ = self.session.respond(now, id, answer);
            progress = true;
        }
        progress
    }

    /// The store's side: the queue kept in step with the session, and each append it hands out
    /// made at once (the first ones fail). Returns whether anything happened.
    fn store_step(&mut self) -> bool {
        let Some((queue, failing)) = &mut self.store else {
            return false;
        };
        let mut progress = self.session.sync_store(self.now, queue);
        while let Some(append) = queue.poll_append(self.now) {
            let stored = *failing == 0;
            *failing = failing.saturating_sub(1);
            let at = self.now - self.started;
            self.appends.push((at, append.entries.len(), stored));
            let outcome = if stored {
                AppendOutcome::Stored
            } else {
                AppendOutcome::Failed("the store is down".into())
            };
            queue.append_done(self.now, append.id, outcome);
            self.session.sync_store(self.now, queue);
            progress = true;
        }
        progress
    }

    fn start(&mut self, request: InboundRequest) {
        self.running += 1;
        self.most_running = self.most_running.max(self.running);
        match (self.answering, &request.kind) {
            (Answering::AllowAfterASecond, InboundKind::CanUseTool(_)) => {
                self.due
                    .push((self.now + Duration::from_secs(1), request.id));
            }
            // The tool never finishes: the session answers for it when its time is up.
            (Answering::ToolThatNeverFinishes, InboundKind::McpToolCall(_)) => {}
            (_, kind) => panic!("unexpected request {kind:?}"),
        }
    }
}

#[test]
fn every_scenario_runs_the_same_through_the_client_and_through_the_core_alone() {
    let mut table = Vec::new();
    for scenario in scenarios() {
        let client = through_the_client(&scenario);
        let (core, failed) = CoreHost::new(&scenario).run(scenario.ending);
        assert_eq!(failed, scenario.fails, "{}", scenario.name);
        assert_eq!(
            (&client.signals, client.took, client.most_running),
            (&core.signals, core.took, core.most_running),
            "{}",
            scenario.name
        );
        assert_eq!(
            (&client.appends, &client.read, &client.charges),
            (&core.appends, &core.read, &core.charges),
            "{}",
            scenario.name
        );
        assert!(
            client.answers == core.answers,
            "{}: the answers differ",
            scenario.name
        );
        table.push(format!(
            "{:<46} {:>6.1} s  {:<20} {:>4} answers  {:>3} at once",
            scenario.name,
            core.took.as_secs_f64(),
            format!("{:?}", core.signals),
            core.answers.len(),
            core.most_running
        ));
    }
    // What each scenario came to, for the record (`--nocapture`).
    println!("{}", table.join("\n"));

    let by_name = |name: &str| {
        let scenario = scenarios().into_iter().find(|s| s.name == name).unwrap();
        CoreHost::new(&scenario).run(scenario.ending).0
    };
    let close = by_name("graceful close");
    assert_eq!((close.took, &close.signals[..]), (Duration::ZERO, &[][..]));
    let ignores_eof = by_name("a CLI that ignores the end of stdin");
    assert_eq!(ignores_eof.signals, [Signal::Terminate]);
    assert_eq!(ignores_eof.took, Duration::from_secs(5));
    let ignores_term = by_name("a CLI that ignores SIGTERM");
    assert_eq!(ignores_term.signals, [Signal::Terminate, Signal::Kill]);
    assert_eq!(ignores_term.took, Duration::from_secs(10));
    let late = by_name("a callback past its time limit");
    assert_eq!(late.took, TOOL_LIMIT);
    let text = late.answers[0].1["response"]["mcp_response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        text,
        "The tool wait of server slow did not finish within 2 s and was stopped."
    );
    // 5 s to exit after stdout ended, then stdin closed and 5 s more, then SIGTERM.
    let silent = by_name("stdout closed before initialize");
    assert_eq!(silent.signals, [Signal::Terminate]);
    assert_eq!(silent.took, Duration::from_secs(10));
    let many = by_name("300 callbacks at once");
    assert_eq!((many.answers.len(), many.most_running), (300, 256));
    assert_eq!(many.took, Duration::from_secs(2));
    // Tried again 200 ms later, stored, and then the result.
    let once = by_name("a store down for one append");
    let ms = Duration::from_millis;
    assert_eq!(once.appends, [(ms(0), 2, false), (ms(200), 2, true)]);
    assert_eq!(once.read, ["result"]);
    // Three tries (200 ms and 800 ms apart), reported ahead of the result; the lines are kept
    // and stored with the last tries at the end.
    let turn = by_name("a store down for a turn");
    assert_eq!(
        turn.appends,
        [
            (ms(0), 2, false),
            (ms(200), 2, false),
            (ms(1000), 2, false),
            (ms(1000), 2, true)
        ]
    );
    assert_eq!(turn.read, ["store failed", "result"]);
    // The result goes on once the ledger has its turn's charge, and the end after it.
    let charged = by_name("a ledger that takes 300 ms to charge");
    assert_eq!(
        (&charged.charges[..], charged.took),
        (&[ms(0)][..], ms(300))
    );
    assert_eq!(charged.read, ["result"]);
    // The turn is stored first (tried again 200 ms later), then charged.
    let both = by_name("a store down for one append, then the ledger");
    assert_eq!(both.appends, [(ms(0), 2, false), (ms(200), 2, true)]);
    assert_eq!((&both.charges[..], both.took), (&[ms(200)][..], ms(500)));
}
