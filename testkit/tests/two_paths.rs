//! The same session lifecycle on both paths: each scenario runs once through the client layer
//! (the [`TestRuntime`]'s virtual clock, the in-memory [`FakeTransport`]) and once through a host
//! of the core alone (a loop of std code over a [`Session`] and a sans-IO [`FakeCli`], its own
//! virtual clock), and both must see the same signals, the same answers written to the CLI and
//! the same time taken. What the session decides (graces, signals, callback time limits, how many
//! callbacks run at once) is then the core's, not the client's.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_agent_client::mcp::{tool, SdkMcpServer};
use claude_agent_client::{connect_with, query_with, Options, Runtime, Signal};
use claude_agent_core::control::{InboundId, InboundKind, InboundRequest, Reply};
use claude_agent_core::mcp::{McpServerSpec, ToolResult, ToolSpec};
use claude_agent_core::message::UserInput;
use claude_agent_core::permission::PermissionResult;
use claude_agent_core::session::{
    Event, ExitStatusInfo, InputMode, Session, SessionConfig, Signal as SessionSignal, Termination,
    Transmit,
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
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "graceful close",
            script: || Script::new().answer_initialize().expect_eof().exit(0),
            ending: Ending::CloseWhenReady,
            answering: Answering::Nothing,
            fails: false,
        },
        Scenario {
            name: "a CLI that ignores the end of stdin",
            script: || Script::new().answer_initialize().hang(),
            ending: Ending::CloseWhenReady,
            answering: Answering::Nothing,
            fails: false,
        },
        Scenario {
            name: "a CLI that ignores SIGTERM",
            script: || Script::new().answer_initialize().ignore_sigterm().hang(),
            ending: Ending::CloseWhenReady,
            answering: Answering::Nothing,
            fails: false,
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
        },
        Scenario {
            name: "stdout closed before initialize",
            script: || Script::new().close_stdout().hang(),
            ending: Ending::Query,
            answering: Answering::Nothing,
            fails: true,
        },
    ]
}

fn prompt(i: usize) -> Value {
    json!({"subtype": "can_use_tool", "tool_name": "Bash",
        "input": {"command": format!("echo {i}")}, "tool_use_id": format!("toolu_{i}")})
}

const TOOL_LIMIT: Duration = Duration::from_secs(2);

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
        }
    }
    Seen {
        signals: fake.signals(),
        answers: answers(&fake.written_json()),
        took: runtime.now() - started,
        most_running: *most.lock().unwrap(),
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
        let now = Instant::now();
        CoreHost {
            session: Session::new(config, now),
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
            ]
            .into_iter()
            .flatten()
            .min()
            .expect("a session waiting on nothing would wait for ever");
            self.now = self.now.max(next);
            self.session.handle_timeout(self.now);
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
                _ => {}
            }
        }
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
        assert!(
            client.answers == core.answers,
            "{}: the answers differ",
            scenario.name
        );
        table.push(format!(
            "{:<40} {:>6.1} s  {:<20} {:>4} answers  {:>3} at once",
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
}
