//! The fake CLI as a [`Transport`]: test an agent app through its ordinary `query` /
//! `connect` calls, with no process.
//!
//! [`FakeTransport`] plugs into [`Options::transport`]: each session the app starts talks to an
//! in-memory [`FakeCli`] running a [`Script`] (or replaying a recording), on whatever runtime
//! the app uses — tokio, smol, async-std, or [`TestRuntime`](crate::runtime::TestRuntime) with no
//! async runtime at all. Afterwards the test reads what the SDK wrote ([`FakeTransport::written`])
//! and what it would have launched ([`FakeTransport::launch`]).
//!
//! The fake keeps no clock: a script's sleeps end at once. Time-outs are tested with a script
//! that stops answering ([`Script::hang`]) and a paused clock (tokio's `start_paused`, or
//! [`TestRuntime`](crate::runtime::TestRuntime)).
//!
//! ```
//! use claude_agent_tokio::runtime::query_with;
//! use claude_agent_tokio::message::Message;
//! use claude_agent_tokio::Options;
//! use claude_agent_testkit::fake_cli::Script;
//! use claude_agent_testkit::runtime::TestRuntime;
//! use claude_agent_testkit::transport::FakeTransport;
//! use futures_lite::StreamExt;
//!
//! let fake = FakeTransport::new(Script::single_turn("4"));
//! let runtime = TestRuntime::new();
//! let options = Options::new().transport(fake.clone());
//! let messages: Vec<_> = runtime.block_on(query_with(runtime.clone(), "What is 2 + 2?", options).collect());
//! assert!(matches!(messages.last(), Some(Ok(Message::Result(_)))));
//! assert_eq!(fake.user_texts(), ["What is 2 + 2?"]);
//! assert!(fake.launch().unwrap().args.contains(&"stream-json".to_owned()));
//! ```
//!
//! [`Options::transport`]: claude_agent_client::Options::transport

mod answer;
mod pipes;
mod replay;
mod written;

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use claude_agent_client::Signal;
use claude_agent_client::{BoxFuture, Connection, Transport};
use claude_agent_core::options::LaunchSpec;
use serde_json::Value;

use crate::fake_cli::{projects_dir, transcript_folder, FakeCli, Script, TranscriptError};
pub use answer::SdkAnswer;
use pipes::{lock, SharedWire, Wire};
pub use replay::ReplayMismatch;
pub use written::SdkLine;

/// An in-memory fake Claude Code CLI to hand to `Options::transport`. Cheap to clone: clones
/// share the same connections, so keep one to inspect after the app has run.
///
/// Every session the app starts gets a fresh [`FakeCli`]: the first runs the script given to
/// [`FakeTransport::new`], later ones the scripts added with [`FakeTransport::then`] in turn,
/// and once those are used up the last script again.
///
/// ```
/// use claude_agent_tokio::Options;
/// use claude_agent_testkit::fake_cli::Script;
/// use claude_agent_testkit::transport::FakeTransport;
///
/// let fake = FakeTransport::new(Script::single_turn("first")).then(Script::single_turn("second"));
/// let options = Options::new().transport(fake.clone());
/// // … run the app with `options`, then inspect `fake`.
/// assert_eq!(fake.connections(), 0);
/// # let _ = options;
/// ```
#[derive(Clone)]
pub struct FakeTransport {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    /// Scripts for the next connections; the last one stays for every later connection.
    scripts: VecDeque<Script>,
    /// For a replay: the lines the recorded SDK wrote.
    recorded_stdin: Option<Vec<Value>>,
    connections: Vec<SharedWire>,
}

impl FakeTransport {
    /// A fake CLI that runs `script` for every session.
    pub fn new(script: Script) -> FakeTransport {
        FakeTransport {
            inner: Arc::new(Mutex::new(Inner {
                scripts: VecDeque::from([script]),
                recorded_stdin: None,
                connections: Vec::new(),
            })),
        }
    }

    /// The next session (after those of the scripts given so far) runs `script`.
    #[must_use]
    pub fn then(self, script: Script) -> FakeTransport {
        self.lock().scripts.push_back(script);
        self
    }

    /// A fake CLI that replays a recording (`{"dir":"in"|"out","msg":…}` lines, as
    /// `Options::record_to` writes them): it prints the recorded CLI lines, each once the SDK
    /// has written what came before it, and answers nothing of its own. After the app has run,
    /// [`FakeTransport::verify`] checks that the SDK wrote what the recorded one did.
    ///
    /// ```
    /// use claude_agent_testkit::transport::FakeTransport;
    ///
    /// let recording = r#"{"dir":"in","msg":{"type":"control_request","request_id":"req_0","request":{"subtype":"initialize"}}}
    /// {"dir":"out","msg":{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}}"#;
    /// let fake = FakeTransport::replay(recording).unwrap();
    /// assert!(fake.verify().is_err()); // nothing has connected yet
    /// ```
    pub fn replay(recording: &str) -> Result<FakeTransport, TranscriptError> {
        let script = Script::from_transcript(recording)?;
        let recorded_stdin = recording
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|entry| entry["dir"] == "in")
            .map(|mut entry| entry["msg"].take())
            .collect();
        let fake = FakeTransport::new(script);
        fake.lock().recorded_stdin = Some(recorded_stdin);
        Ok(fake)
    }

    /// Whether the latest session wrote what the recording of [`FakeTransport::replay`] says
    /// was written (see [`ReplayMismatch`] for how lines are compared). For a fake made with
    /// [`FakeTransport::new`] there is nothing recorded to compare with, and this is `Ok`.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_tokio::permission::PermissionResult;
    /// use claude_agent_testkit::{runtime::TestRuntime, transport::FakeTransport};
    /// use futures_lite::StreamExt;
    ///
    /// // The app, as it was when the session was recorded (`Options::record_to`).
    /// fn app() -> Options {
    ///     Options::new().on_permission_request(|request, _ctx| async move {
    ///         match request.tool_name.as_str() {
    ///             "Bash" => PermissionResult::deny("this app does not run commands"),
    ///             _ => PermissionResult::allow(),
    ///         }
    ///     })
    /// }
    ///
    /// // The recording (shortened): what the app wrote, and what the CLI printed.
    /// let recording = [
    ///     r#"{"dir":"in","msg":{"type":"control_request","request_id":"req_0","request":{"subtype":"initialize","hooks":null,"systemPrompt":[""]}}}"#,
    ///     r#"{"dir":"in","msg":{"type":"user","message":{"role":"user","content":"BASH:ls"},"parent_tool_use_id":null,"session_id":""}}"#,
    ///     r#"{"dir":"out","msg":{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}}"#,
    ///     r#"{"dir":"out","msg":{"type":"control_request","request_id":"0f340601-0e16-4764-92e4-fc1465c611a6","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}}"#,
    ///     r#"{"dir":"in","msg":{"type":"control_response","response":{"subtype":"success","request_id":"0f340601-0e16-4764-92e4-fc1465c611a6","response":{"behavior":"deny","message":"this app does not run commands"}}}}"#,
    ///     r#"{"dir":"out","msg":{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"done: this app does not run commands","session_id":"s"}}"#,
    /// ]
    /// .join("\n");
    ///
    /// let fake = FakeTransport::replay(&recording).unwrap();
    /// let runtime = TestRuntime::new();
    /// let options = app().transport(fake.clone());
    /// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "BASH:ls", options).collect());
    /// assert!(items.iter().all(Result::is_ok));
    /// fake.verify().unwrap_or_else(|mismatch| panic!("the app changed what it writes: {mismatch}"));
    ///
    /// // An app that now allows the command is caught:
    /// let fake = FakeTransport::replay(&recording).unwrap();
    /// let allowing = Options::new().on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    /// let _ = runtime.block_on(query_with(runtime.clone(), "BASH:ls", allowing.transport(fake.clone())).collect::<Vec<_>>());
    /// assert!(fake.verify().is_err());
    /// ```
    pub fn verify(&self) -> Result<(), ReplayMismatch> {
        let inner = self.lock();
        let Some(wire) = inner.connections.last() else {
            return Err(ReplayMismatch::NotConnected);
        };
        match &inner.recorded_stdin {
            Some(recorded) => replay::compare(recorded, lock(wire).cli.received()),
            None => Ok(()),
        }
    }

    /// Every signal the latest session sent the fake, in order. The fake dies of the first
    /// one, unless its script says it lives through `SIGTERM` ([`Script::ignore_sigterm`]).
    ///
    /// ```
    /// # use claude_agent_tokio::runtime::query_with;
    /// # use claude_agent_tokio::Options;
    /// # use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
    /// # use futures_lite::StreamExt;
    /// let fake = FakeTransport::new(Script::single_turn("ok"));
    /// # let runtime = TestRuntime::new();
    /// # runtime.block_on(query_with(runtime.clone(), "hi", Options::new().transport(fake.clone())).collect::<Vec<_>>());
    /// assert!(fake.signals().is_empty(), "it exited at the end of its input");
    /// ```
    pub fn signals(&self) -> Vec<Signal> {
        self.with_latest(|wire| wire.signals.clone())
            .unwrap_or_default()
    }

    /// How many sessions have connected.
    pub fn connections(&self) -> usize {
        self.lock().connections.len()
    }

    /// What the latest session would have launched: program, arguments, environment changes,
    /// working directory. `None` before any session connected.
    ///
    /// ```
    /// # use claude_agent_tokio::runtime::query_with;
    /// # use claude_agent_tokio::Options;
    /// # use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
    /// # use futures_lite::StreamExt;
    /// let fake = FakeTransport::new(Script::single_turn("ok"));
    /// let options = Options::new().transport(fake.clone()).model("claude-sonnet-4-5").cwd("/srv");
    /// # let runtime = TestRuntime::new();
    /// # runtime.block_on(query_with(runtime.clone(), "hi", options).collect::<Vec<_>>());
    /// let launch = fake.launch().unwrap();
    /// assert!(launch.args.contains(&"--model=claude-sonnet-4-5".to_owned()));
    /// assert_eq!(launch.cwd.as_deref(), Some(std::path::Path::new("/srv")));
    /// ```
    pub fn launch(&self) -> Option<LaunchSpec> {
        self.with_latest(|wire| wire.launch.clone())
    }

    /// Every line the latest session wrote to the CLI, typed. Empty before any session.
    ///
    /// ```
    /// # use claude_agent_tokio::runtime::query_with;
    /// # use claude_agent_tokio::Options;
    /// # use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
    /// # use futures_lite::StreamExt;
    /// use claude_agent_testkit::transport::SdkLine;
    ///
    /// let fake = FakeTransport::new(Script::single_turn("ok"));
    /// # let runtime = TestRuntime::new();
    /// # let options = Options::new().transport(fake.clone());
    /// # runtime.block_on(query_with(runtime.clone(), "hi", options).collect::<Vec<_>>());
    /// let written = fake.written();
    /// assert!(matches!(&written[0], SdkLine::ControlRequest { subtype, .. } if subtype == "initialize"));
    /// assert_eq!(written[1].user_text().as_deref(), Some("hi"));
    /// ```
    pub fn written(&self) -> Vec<SdkLine> {
        self.written_json()
            .into_iter()
            .map(SdkLine::from_json)
            .collect()
    }

    /// Every line the latest session wrote to the CLI, as JSON.
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::options::{Options, SystemPrompt};
    /// use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
    /// use futures_lite::StreamExt;
    ///
    /// let fake = FakeTransport::new(Script::single_turn("ok"));
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(fake.clone()).system_prompt(SystemPrompt::from("You are terse."));
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
    /// let initialize = &fake.written_json()[0];
    /// assert_eq!(initialize["request"]["systemPrompt"], serde_json::json!(["You are terse."]));
    /// ```
    pub fn written_json(&self) -> Vec<Value> {
        self.with_latest(|wire| wire.cli.received().to_vec())
            .unwrap_or_default()
    }

    /// The text of every user message the latest session sent, in order.
    ///
    /// ```
    /// use claude_agent_tokio::{runtime::query_with, Prompt};
    /// use claude_agent_tokio::message::UserInput;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
    /// use futures_lite::StreamExt;
    ///
    /// let script = Script::new().answer_initialize().expect_user().emit_result("1").expect_user().emit_result("2");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// let prompt = Prompt::stream(futures_lite::stream::iter(["Pick a number.", "Double it."].map(UserInput::text)));
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), prompt, Options::new().transport(fake.clone())).collect());
    /// assert_eq!(fake.user_texts(), ["Pick a number.", "Double it."]);
    /// ```
    pub fn user_texts(&self) -> Vec<String> {
        self.written()
            .iter()
            .filter_map(SdkLine::user_text)
            .collect()
    }

    /// The SDK's answers to the CLI's control requests in the latest session, in order, with
    /// their request ids, each read as the type its callback returned ([`SdkAnswer`]). The wire
    /// JSON of every answer stays in [`FakeTransport::written`].
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_tokio::permission::PermissionResult;
    /// use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime};
    /// use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
    /// use futures_lite::StreamExt;
    /// use serde_json::json;
    ///
    /// let script = Script::new()
    ///     .answer_initialize()
    ///     .expect_user()
    ///     .can_use_tool("p1", "Bash", json!({"command": "rm -rf target"}))
    ///     .emit_result("ok");
    /// let fake = FakeTransport::new(script);
    /// let options = Options::new()
    ///     .transport(fake.clone())
    ///     .on_permission_request(|_request, _ctx| async { PermissionResult::deny("no deleting") });
    /// let runtime = TestRuntime::new();
    /// let _items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "clean up", options).collect());
    /// assert_eq!(
    ///     fake.answers(),
    ///     [("p1".to_owned(), SdkAnswer::Permission(PermissionResult::deny("no deleting")))]
    /// );
    /// ```
    pub fn answers(&self) -> Vec<(String, SdkAnswer)> {
        self.with_latest(|wire| {
            let cli = &wire.cli;
            cli.received()
                .iter()
                .cloned()
                .filter_map(|line| match SdkLine::from_json(line) {
                    SdkLine::ControlResponse {
                        request_id,
                        outcome,
                        ..
                    } => {
                        let answer = SdkAnswer::read(cli.sent_request(&request_id), outcome);
                        Some((request_id, answer))
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
    }

    /// What the latest session's fake CLI is waiting for, if it is blocked on the SDK: useful
    /// in the message of a test that hangs or fails.
    ///
    /// ```
    /// use claude_agent_tokio::{runtime::connect_with, Client};
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
    /// use futures_lite::StreamExt;
    ///
    /// let script = Script::new().answer_initialize().expect_user().emit_result("7").expect_user().emit_result("14");
    /// let fake = FakeTransport::new(script);
    /// let runtime = TestRuntime::new();
    /// runtime.block_on(async {
    ///     let client = connect_with(runtime.clone(), Options::new().transport(fake.clone())).await.unwrap();
    ///     client.send("Pick a number.").await.unwrap();
    ///     let _turn: Vec<_> = client.receive_response().collect().await;
    ///     // The app stops after one turn, but the script expects a second prompt:
    ///     let waiting = fake.waiting_for().unwrap();
    ///     println!("the fake CLI still waits for {waiting}");
    ///     client.close().await;
    /// });
    /// ```
    pub fn waiting_for(&self) -> Option<String> {
        self.with_latest(|wire| wire.cli.waiting_for()).flatten()
    }

    fn with_latest<T>(&self, read: impl FnOnce(&Wire) -> T) -> Option<T> {
        let inner = self.lock();
        let wire = inner.connections.last()?;
        let wire = lock(wire);
        Some(read(&wire))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Transport for FakeTransport {
    /// Connects at once: the next script's fake CLI, in memory.
    fn connect(&self, spec: LaunchSpec) -> BoxFuture<'static, io::Result<Connection>> {
        let mut inner = self.lock();
        let script = match inner.scripts.len() {
            0 | 1 => inner.scripts.front().cloned().unwrap_or_default(),
            _ => inner.scripts.pop_front().unwrap_or_default(),
        };
        let cli = match transcripts_of(&spec) {
            Some(folder) => FakeCli::with_transcript_folder(script, folder),
            None => FakeCli::new(script),
        };
        let (wire, connection) = Wire::connect(cli, spec);
        inner.connections.push(wire);
        Box::pin(std::future::ready(Ok(connection)))
    }

    /// The fake stands for a CLI on this machine: a session resumed from a store is written
    /// to a local folder for it, as for a real local CLI.
    fn reads_local_files(&self) -> bool {
        true
    }
}

/// The transcript folder of a CLI launched as `spec` says, as the real CLI would find it from
/// its environment and working folder.
fn transcripts_of(spec: &LaunchSpec) -> Option<std::path::PathBuf> {
    let var = |name: &str| {
        if let Some((_, value)) = spec.env.iter().rev().find(|(key, _)| key == name) {
            return Some(value.clone());
        }
        let inherited = !spec.env_remove.iter().any(|key| key == name)
            && spec
                .inherit_only
                .as_ref()
                .is_none_or(|names| names.iter().any(|key| key == name));
        inherited.then(|| std::env::var(name).ok()).flatten()
    };
    let cwd = match &spec.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().ok()?,
    };
    Some(transcript_folder(&projects_dir(var)?, &cwd))
}

impl std::fmt::Debug for FakeTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("FakeTransport")
            .field("connections", &inner.connections.len())
            .field("replay", &inner.recorded_stdin.is_some())
            .finish_non_exhaustive()
    }
}
