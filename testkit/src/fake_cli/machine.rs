//! The fake CLI as a sans-IO state machine: bytes from the SDK in, bytes for stdout/stderr out,
//! plus the sleeps and the exit it asks for.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

use super::canned;
use super::hooks;
use super::script::{Answer, Matcher, Script, Step};

/// How many bytes one [`FakeCli::poll_stdout`] chunk of a flood holds, at most (one line more
/// when a single line is longer).
const FLOOD_CHUNK_BYTES: usize = 64 * 1024;

/// Output waiting to be taken by [`FakeCli::poll_stdout`].
#[derive(Debug)]
enum Output {
    Bytes(Vec<u8>),
    /// `line` (with its `\n`) `remaining` more times, produced lazily.
    Repeat {
        line: Vec<u8>,
        remaining: usize,
    },
}

/// Steps being run: the script's own, or the chosen arm of a [`Step::Branch`].
#[derive(Debug)]
struct Frame {
    steps: Vec<Step>,
    /// Index of the next step to run.
    next: usize,
}

impl Frame {
    fn remaining(&self) -> &[Step] {
        &self.steps[self.next.min(self.steps.len())..]
    }
}

/// What running a step came to.
enum Progress {
    /// Done; go on with the next step.
    Done,
    /// It must wait for input.
    Wait,
    /// Done; run these steps (a branch's arm), then the next one.
    Enter(Vec<Step>),
}

/// The CLI side of the stream-json protocol, driven by a [`Script`], with no I/O of its own.
///
/// Feed it what the SDK writes ([`handle_stdin`](Self::handle_stdin),
/// [`handle_stdin_eof`](Self::handle_stdin_eof)); take what it prints
/// ([`poll_stdout`](Self::poll_stdout), [`poll_stderr`](Self::poll_stderr)); honour
/// [`poll_sleep`](Self::poll_sleep) (then call [`handle_wake`](Self::handle_wake)) and
/// [`poll_exit`](Self::poll_exit). Call the `poll_*` methods after every `handle_*` call and after
/// [`new`](Self::new).
///
/// Automatic answers: an SDK `control_request` is answered at once from
/// [`Script::auto_answers`] (or [`Script::default_answer`]) unless a remaining step still waits
/// for a request of that subtype ([`Step::AnswerInitialize`] or an [`Step::Expect`] with
/// [`Matcher::ControlRequest`]) that no already received request satisfies. For a
/// [`Step::Branch`] not yet decided, the arm that waits for more such requests counts; once it is
/// decided, requests held for the other arm only are answered automatically. `mcp_status`
/// without an automatic answer of its own is answered as the real CLI would once connected:
/// every in-process server the SDK declared in `initialize`, with status `connected`. Like the
/// real CLI, a line from the SDK that is not JSON makes it print an error on stderr and exit 1.
///
/// ```
/// use claude_agent_testkit::fake_cli::{FakeCli, Script};
/// let mut cli = FakeCli::new(Script::single_turn("hi"));
/// cli.handle_stdin(br#"{"type":"control_request","request_id":"r1","request":{"subtype":"initialize"}}
/// {"type":"user","message":{"role":"user","content":"hello"}}
/// "#);
/// let mut out = Vec::new();
/// while let Some(chunk) = cli.poll_stdout() {
///     out.extend(chunk);
/// }
/// let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
/// assert_eq!(lines.len(), 4); // initialize response, system/init, assistant, result
/// assert_eq!(cli.poll_exit(), None); // waits for stdin to close
/// cli.handle_stdin_eof();
/// assert_eq!(cli.poll_exit(), Some(0));
/// ```
#[derive(Debug)]
pub struct FakeCli {
    /// The script, for its automatic answers (its steps are in `frames`).
    script: Script,
    /// The steps being run: the script's at the bottom, the arms of branches being run above.
    frames: Vec<Frame>,
    /// Bytes of an SDK line not yet ended by `\n`.
    partial: Vec<u8>,
    /// SDK lines not consumed by a step or an automatic answer, in arrival order.
    inbox: Vec<Value>,
    /// Every JSON line the SDK wrote, in order.
    received: Vec<Value>,
    /// Bound name → (actual request id, subtype) of SDK requests matched by `Expect { bind }`.
    bindings: HashMap<String, (String, String)>,
    /// The control requests the fake CLI has written (their `request` objects), by id.
    sent_requests: HashMap<String, Value>,
    /// The SDK's answers to those requests that steps took from the inbox, by request id.
    answers: HashMap<String, Value>,
    /// `request.hooks` of the SDK's latest `initialize` request (`Null` if it registered none);
    /// `None` until one arrives.
    registered_hooks: Option<Value>,
    /// The ids of the `hook_callback` requests a running [`Step::CallHooks`] sent and still
    /// waits for the answers to; `None` when no such step has sent its requests.
    hook_answers_pending: Option<Vec<String>>,
    stdout: VecDeque<Output>,
    stderr: VecDeque<Vec<u8>>,
    stdin_closed: bool,
    /// A sleep not yet handed out by `poll_sleep`.
    sleep_request: Option<Duration>,
    /// Between a `Sleep` step and `handle_wake`.
    sleeping: bool,
    exit_code: Option<i32>,
    hung: bool,
    /// Past a [`Step::IgnoreSigterm`].
    survives_sigterm: bool,
    /// Past a [`Step::CloseStdout`]: stdout ends once what was queued before is read.
    closing_stdout: bool,
    /// Stdout has ended: nothing more is queued on it.
    stdout_closed: bool,
    /// Where the session's transcripts are, for [`Step::Mirror`].
    transcripts: PathBuf,
}

/// The transcript folder of a fake CLI made with [`FakeCli::new`].
const DEFAULT_TRANSCRIPTS: &str = "/home/fake/.claude/projects/-work";

impl FakeCli {
    /// Starts the script: steps that need no input (e.g. leading `Emit`s) run at once. Its
    /// [`Step::Mirror`] frames name transcripts in `/home/fake/.claude/projects/-work`.
    pub fn new(script: Script) -> Self {
        Self::with_transcript_folder(script, DEFAULT_TRANSCRIPTS)
    }

    /// Starts the script as [`new`](Self::new) does, for a CLI that keeps its transcripts in
    /// `folder` (see [`transcript_folder`](super::transcript_folder)): the `transcript_mirror`
    /// frames of [`Step::Mirror`] name files there, as a session store expects of a CLI
    /// started in that configuration folder.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    /// use serde_json::{json, Value};
    ///
    /// let script = Script::new().mirror("8f0c4bd2-5d2e-4c1a-9a57-3f1e2d4c5b6a", vec![json!({"type": "user", "uuid": "u1"})]);
    /// let mut cli = FakeCli::with_transcript_folder(script, "/home/me/.claude/projects/-home-me-app");
    /// let frame: Value = serde_json::from_slice(&cli.poll_stdout().unwrap()).unwrap();
    /// assert_eq!(frame["filePath"], "/home/me/.claude/projects/-home-me-app/8f0c4bd2-5d2e-4c1a-9a57-3f1e2d4c5b6a.jsonl");
    /// ```
    pub fn with_transcript_folder(mut script: Script, folder: impl Into<PathBuf>) -> Self {
        let steps = std::mem::take(&mut script.steps);
        let mut cli = Self {
            script,
            frames: vec![Frame { steps, next: 0 }],
            partial: Vec::new(),
            inbox: Vec::new(),
            received: Vec::new(),
            bindings: HashMap::new(),
            sent_requests: HashMap::new(),
            answers: HashMap::new(),
            registered_hooks: None,
            hook_answers_pending: None,
            stdout: VecDeque::new(),
            stderr: VecDeque::new(),
            stdin_closed: false,
            sleep_request: None,
            sleeping: false,
            exit_code: None,
            hung: false,
            survives_sigterm: false,
            closing_stdout: false,
            stdout_closed: false,
            transcripts: folder.into(),
        };
        cli.advance();
        cli
    }

    /// Takes bytes the SDK wrote to stdin (any chunking).
    pub fn handle_stdin(&mut self, bytes: &[u8]) {
        if self.exit_code.is_some() {
            return;
        }
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            self.take_line(&line[..end]);
            if self.exit_code.is_some() {
                return;
            }
        }
        self.advance();
    }

    /// The SDK closed stdin. A last line without `\n` still counts.
    pub fn handle_stdin_eof(&mut self) {
        if self.exit_code.is_some() || self.stdin_closed {
            return;
        }
        let rest = std::mem::take(&mut self.partial);
        self.take_line(&rest);
        self.stdin_closed = true;
        self.advance();
    }

    /// The sleep handed out by [`poll_sleep`](Self::poll_sleep) is over.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    ///
    /// let mut cli = FakeCli::new(Script::new().sleep(Duration::from_secs(2)).emit_result("after the pause"));
    /// if let Some(pause) = cli.poll_sleep() {
    ///     // A driver with a clock sleeps `pause` here (reading stdin meanwhile), then:
    ///     assert_eq!(pause, Duration::from_secs(2));
    ///     cli.handle_wake();
    /// }
    /// assert!(cli.poll_stdout().is_some());
    /// ```
    pub fn handle_wake(&mut self) {
        if self.sleeping {
            self.sleeping = false;
            self.advance();
        }
    }

    /// The next chunk for stdout (whole lines, each ending in `\n`).
    #[must_use]
    pub fn poll_stdout(&mut self) -> Option<Vec<u8>> {
        let Some(output) = self.stdout.pop_front() else {
            self.stdout_closed |= self.closing_stdout;
            return None;
        };
        match output {
            Output::Bytes(bytes) => Some(bytes),
            Output::Repeat { line, remaining } => {
                let copies = (FLOOD_CHUNK_BYTES / line.len().max(1)).clamp(1, remaining);
                let chunk = line.repeat(copies);
                if remaining > copies {
                    self.stdout.push_front(Output::Repeat {
                        line,
                        remaining: remaining - copies,
                    });
                }
                Some(chunk)
            }
        }
    }

    /// The next chunk for stderr.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    ///
    /// let mut cli = FakeCli::new(Script::new().stderr("[DEBUG] loading settings\n").exit(1));
    /// assert_eq!(cli.poll_stderr().as_deref(), Some(&b"[DEBUG] loading settings\n"[..]));
    /// assert_eq!(cli.poll_exit(), Some(1)); // once stderr is drained
    /// ```
    #[must_use]
    pub fn poll_stderr(&mut self) -> Option<Vec<u8>> {
        self.stderr.pop_front()
    }

    /// A pause the script asks for (once per `Sleep` step). Keep feeding stdin meanwhile; call
    /// [`handle_wake`](Self::handle_wake) when it is over.
    #[must_use]
    pub fn poll_sleep(&mut self) -> Option<Duration> {
        self.sleep_request.take()
    }

    /// Whether the fake lives through `SIGTERM` ([`Script::ignore_sigterm`]); a host that
    /// drives it sends it signals itself.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    ///
    /// assert!(!FakeCli::new(Script::new().hang()).survives_sigterm());
    /// assert!(FakeCli::new(Script::new().ignore_sigterm().hang()).survives_sigterm());
    /// ```
    #[must_use]
    pub fn survives_sigterm(&self) -> bool {
        self.survives_sigterm
    }

    /// Whether stdout has ended while the fake runs on ([`Script::close_stdout`]): true once
    /// [`poll_stdout`](Self::poll_stdout) has handed out what was printed before.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    ///
    /// let mut cli = FakeCli::new(Script::new().emit_assistant_text("last words").close_stdout().hang());
    /// assert!(cli.poll_stdout().is_some() && !cli.stdout_closed());
    /// assert!(cli.poll_stdout().is_none() && cli.stdout_closed());
    /// assert_eq!(cli.poll_exit(), None, "it runs on");
    /// ```
    #[must_use]
    pub fn stdout_closed(&self) -> bool {
        self.stdout_closed
    }

    /// The exit code, once the fake CLI wants to exit and its stdout and stderr are drained.
    #[must_use]
    pub fn poll_exit(&self) -> Option<i32> {
        if self.stdout.is_empty() && self.stderr.is_empty() {
            self.exit_code
        } else {
            None
        }
    }

    /// Every JSON line the SDK wrote so far, in order.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    ///
    /// let mut cli = FakeCli::new(Script::single_turn("hi"));
    /// cli.handle_stdin(b"{\"type\":\"control_request\",\"request_id\":\"req_0\",\"request\":{\"subtype\":\"initialize\",\"hooks\":null}}\n");
    /// cli.handle_stdin(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hello\"},\"parent_tool_use_id\":null,\"session_id\":\"\"}\n");
    /// let received = cli.received();
    /// assert_eq!(received[0]["request"]["subtype"], "initialize");
    /// assert_eq!(received[1]["message"]["content"], "hello");
    /// ```
    pub fn received(&self) -> &[Value] {
        &self.received
    }

    /// The `request` object of the control request the fake CLI wrote under `request_id`
    /// (a permission prompt, a hook callback, an MCP message, …), once it has written it.
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script};
    /// use serde_json::json;
    ///
    /// let script = Script::new().can_use_tool("p1", "Bash", json!({"command": "ls"}));
    /// let mut cli = FakeCli::new(script);
    /// while cli.poll_stdout().is_some() {}
    /// let request = cli.sent_request("p1").expect("written");
    /// assert_eq!(request["subtype"], "can_use_tool");
    /// assert_eq!(request["input"]["command"], "ls");
    /// assert!(cli.sent_request("p2").is_none());
    /// ```
    pub fn sent_request(&self, request_id: &str) -> Option<&Value> {
        self.sent_requests.get(request_id)
    }

    /// What the script is waiting for, if it is blocked on the SDK (for failure messages).
    ///
    /// ```
    /// use claude_agent_testkit::fake_cli::{FakeCli, Script, ToolUse};
    /// use serde_json::json;
    ///
    /// let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    /// let script = Script::new().can_use_tool_then("p1", &ls, |s| s, |s| s);
    /// let cli = FakeCli::new(script);
    /// assert_eq!(cli.waiting_for().as_deref(),
    ///     Some("the SDK's answer to request \"p1\" (for a branch)"));
    /// ```
    pub fn waiting_for(&self) -> Option<String> {
        if self.exit_code.is_some() || self.hung {
            return None;
        }
        if self.sleeping {
            return Some("the end of a sleep".to_owned());
        }
        match self.current_step() {
            None => Some("stdin to close (script finished)".to_owned()),
            Some(Step::AnswerInitialize { .. }) => Some("an initialize request".to_owned()),
            Some(Step::Expect { matcher, .. }) => Some(format!("an SDK line matching {matcher:?}")),
            Some(Step::ExpectEof) => Some("stdin to close".to_owned()),
            Some(Step::Branch { request_id, .. }) => Some(format!(
                "the SDK's answer to request {request_id:?} (for a branch)"
            )),
            Some(Step::CallHooks { event, .. }) => Some(match &self.hook_answers_pending {
                None => format!("an initialize request (to call the {event} hooks it registers)"),
                Some(ids) => format!("the SDK's answers to {event} hook callbacks {ids:?}"),
            }),
            Some(_) => None,
        }
    }

    /// The step to run next: the first one left in the innermost frame that has one.
    fn current_step(&self) -> Option<&Step> {
        self.frames
            .iter()
            .rev()
            .find_map(|frame| frame.remaining().first())
    }

    fn push_line(&mut self, mut line: Vec<u8>) {
        if self.closing_stdout {
            return;
        }
        line.push(b'\n');
        self.stdout.push_back(Output::Bytes(line));
    }

    fn push_json(&mut self, value: &Value) {
        self.push_line(value.to_string().into_bytes());
    }

    /// One complete SDK line (without `\n`).
    fn take_line(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(_) => {
                // What the real CLI 2.1.330 does with a line it cannot parse.
                let msg = format!(
                    "Error parsing streaming input line (type=unknown, {} chars): SyntaxError\n",
                    String::from_utf8_lossy(line).chars().count()
                );
                self.stderr.push_back(msg.into_bytes());
                self.exit_code = Some(1);
                return;
            }
        };
        if value.get("type").and_then(Value::as_str) == Some("control_request")
            && value.pointer("/request/subtype").and_then(Value::as_str) == Some("initialize")
        {
            let hooks = value.pointer("/request/hooks").cloned();
            self.registered_hooks = Some(hooks.unwrap_or(Value::Null));
        }
        self.received.push(value.clone());
        if !self.hung && !self.try_auto_answer(&value) {
            self.inbox.push(value);
        }
    }

    /// Answers an SDK control request automatically if the script allows; returns whether it did.
    fn try_auto_answer(&mut self, line: &Value) -> bool {
        if line.get("type").and_then(Value::as_str) != Some("control_request") {
            return false;
        }
        let subtype = line
            .pointer("/request/subtype")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let matcher = Matcher::ControlRequest {
            subtype: subtype.to_owned(),
        };
        let queued = self.inbox.iter().filter(|l| matcher.matches(l)).count();
        if self.steps_waiting_for(subtype) > queued {
            return false;
        }
        self.answer_automatically(line, subtype)
    }

    /// Writes the automatic answer to an SDK control request, if the script has one; returns
    /// whether it did.
    fn answer_automatically(&mut self, line: &Value, subtype: &str) -> bool {
        let answer = match self.script.auto_answers.get(subtype) {
            Some(answer) => answer.clone(),
            // Like the real CLI, the fake always knows its MCP servers.
            None if subtype == "mcp_status" => self.mcp_status(),
            None => match &self.script.default_answer {
                Some(answer) => answer.clone(),
                None => return false,
            },
        };
        let request_id = request_id_of(line);
        let reply = answer.to_line(&request_id, subtype);
        self.push_json(&reply);
        true
    }

    /// The answer to `mcp_status`: every in-process server the SDK declared in `initialize`,
    /// connected.
    fn mcp_status(&self) -> Answer {
        let declared = self
            .received
            .iter()
            .find(|line| {
                line.pointer("/request/subtype").and_then(Value::as_str) == Some("initialize")
            })
            .and_then(|init| init.pointer("/request/sdkMcpServers"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let servers: Vec<Value> = declared
            .iter()
            .filter_map(Value::as_str)
            .map(|name| serde_json::json!({"name": name, "status": "connected"}))
            .collect();
        Answer::success(serde_json::json!({ "mcpServers": servers }))
    }

    /// Answers automatically the SDK requests held for steps that will no longer run (after a
    /// branch chose its arm): of each subtype, the earliest as many as steps still wait for stay.
    fn answer_held_requests(&mut self) {
        let mut kept: HashMap<String, usize> = HashMap::new();
        let mut index = 0;
        while index < self.inbox.len() {
            let line = &self.inbox[index];
            if line.get("type").and_then(Value::as_str) == Some("control_request") {
                let subtype = line
                    .pointer("/request/subtype")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let waiting = self.steps_waiting_for(&subtype);
                let seen = kept.entry(subtype.clone()).or_default();
                if *seen >= waiting {
                    let line = line.clone();
                    if self.answer_automatically(&line, &subtype) {
                        self.inbox.remove(index);
                        continue;
                    }
                }
                *seen += 1;
            }
            index += 1;
        }
    }

    /// How many remaining steps wait for an SDK control request of `subtype` (of an undecided
    /// branch, the arm that waits for more).
    fn steps_waiting_for(&self, subtype: &str) -> usize {
        self.frames
            .iter()
            .map(|frame| count_waiting(frame.remaining(), subtype))
            .sum()
    }

    /// Removes and returns the first inbox line matching; an answer to a request of the fake CLI
    /// is also kept in `answers`.
    fn take_from_inbox(&mut self, matcher: &Matcher) -> Option<Value> {
        let index = self.inbox.iter().position(|l| matcher.matches(l))?;
        let line = self.inbox.remove(index);
        if line.get("type").and_then(Value::as_str) == Some("control_response") {
            if let Some(id) = line.pointer("/response/request_id").and_then(Value::as_str) {
                self.answers.insert(id.to_owned(), line.clone());
            }
        }
        Some(line)
    }

    /// The SDK's answer to the fake CLI's request `request_id`, if it has arrived.
    fn answer_to(&mut self, request_id: &str) -> Option<&Value> {
        self.take_from_inbox(&Matcher::ControlResponse {
            request_id: request_id.to_owned(),
        });
        self.answers.get(request_id)
    }

    /// Runs steps until one must wait (or the script exits, hangs or sleeps).
    fn advance(&mut self) {
        while self.exit_code.is_none() && !self.hung && !self.sleeping {
            let frame = self.frames.last().expect("the script's frame stays");
            let Some(step) = frame.remaining().first().cloned() else {
                if self.frames.len() > 1 {
                    self.frames.pop();
                    continue;
                }
                if self.stdin_closed {
                    self.exit_code = Some(0);
                }
                return;
            };
            match self.run_step(step) {
                Progress::Done => self.step_done(),
                Progress::Enter(steps) => {
                    self.step_done();
                    self.frames.push(Frame { steps, next: 0 });
                    self.answer_held_requests();
                }
                Progress::Wait => {
                    if self.stdin_closed && self.exit_code.is_none() {
                        let what = self.waiting_for().unwrap_or_default();
                        self.stderr.push_back(
                            format!("fake-claude: stdin closed while waiting for {what}\n")
                                .into_bytes(),
                        );
                        self.exit_code = Some(1);
                    }
                    return;
                }
            }
        }
    }

    fn step_done(&mut self) {
        self.frames
            .last_mut()
            .expect("the script's frame stays")
            .next += 1;
    }

    /// Runs one step.
    fn run_step(&mut self, step: Step) -> Progress {
        match step {
            Step::AnswerInitialize { response } => {
                let matcher = Matcher::ControlRequest {
                    subtype: "initialize".to_owned(),
                };
                let Some(line) = self.take_from_inbox(&matcher) else {
                    return Progress::Wait;
                };
                let body = response.unwrap_or_else(|| canned_initialize_answer(&line));
                let reply = Answer::success(body).to_line(&request_id_of(&line), "initialize");
                self.push_json(&reply);
            }
            Step::Expect { matcher, bind } => {
                let Some(line) = self.take_from_inbox(&matcher) else {
                    return Progress::Wait;
                };
                if let Some(name) = bind {
                    let subtype = line
                        .pointer("/request/subtype")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    self.bindings.insert(name, (request_id_of(&line), subtype));
                }
            }
            Step::ExpectEof if !self.stdin_closed => return Progress::Wait,
            Step::ExpectEof => {}
            Step::Emit { line } => {
                let line = self.rewrite_bound_id(line);
                self.note_emitted_request(&line);
                self.push_line(line.into_bytes());
            }
            Step::SendRequest {
                request_id,
                request,
            } => self.send_request(request_id, request),
            Step::Cancel { request_id } => self.push_json(&json!({
                "type": "control_cancel_request", "request_id": request_id,
            })),
            Step::Respond { to, answer } => {
                let (id, subtype) = self
                    .bindings
                    .get(&to)
                    .cloned()
                    .unwrap_or_else(|| (to, String::new()));
                let reply = answer.to_line(&id, &subtype);
                self.push_json(&reply);
            }
            Step::Flood { line, count } => {
                if count > 0 && !self.closing_stdout {
                    let mut line = line.into_bytes();
                    line.push(b'\n');
                    self.stdout.push_back(Output::Repeat {
                        line,
                        remaining: count,
                    });
                }
            }
            Step::LongLine { bytes } => self.push_line(long_line(bytes)),
            Step::Mirror {
                session_id,
                entries,
            } => {
                let file = self.transcripts.join(format!("{session_id}.jsonl"));
                self.push_json(&json!({
                    "type": "transcript_mirror",
                    "filePath": file.to_string_lossy(),
                    "entries": entries,
                }));
            }
            Step::Stderr { text } => self.stderr.push_back(text.into_bytes()),
            Step::Sleep { ms } => {
                self.sleep_request = Some(Duration::from_millis(ms));
                self.sleeping = true;
            }
            Step::Exit { code } => self.exit_code = Some(code),
            Step::Hang => self.hung = true,
            Step::IgnoreSigterm => self.survives_sigterm = true,
            Step::CloseStdout => self.closing_stdout = true,
            Step::Branch {
                request_id,
                when,
                then,
                otherwise,
            } => {
                if let Some(answer) = self.answer_to(&request_id) {
                    return Progress::Enter(if when.holds(answer) { then } else { otherwise });
                }
                if !self.sent_requests.contains_key(&request_id) {
                    self.stderr.push_back(
                        format!(
                            "fake-claude: the script branches on the answer to request \
                             {request_id:?}, which it has not sent\n"
                        )
                        .into_bytes(),
                    );
                    self.exit_code = Some(1);
                }
                return Progress::Wait;
            }
            Step::CallHooks {
                request_id,
                event,
                match_query,
                input,
                tool_use_id,
            } => {
                let mut pending = match self.hook_answers_pending.take() {
                    Some(pending) => pending,
                    None => {
                        let Some(hooks) = &self.registered_hooks else {
                            return Progress::Wait;
                        };
                        let found = hooks::callbacks(hooks, &event, match_query.as_deref());
                        for matcher in found.unsupported {
                            self.stderr.push_back(
                                format!(
                                    "fake-claude: not calling the {event} hooks with matcher \
                                     {matcher:?}: a regular expression this fake does not \
                                     evaluate\n"
                                )
                                .into_bytes(),
                            );
                        }
                        let mut ids = Vec::new();
                        for (index, callback_id) in found.ids.into_iter().enumerate() {
                            let id = match index {
                                0 => request_id.clone(),
                                _ => format!("{request_id}-{}", index + 1),
                            };
                            self.send_request(
                                id.clone(),
                                json!({"subtype": "hook_callback", "callback_id": callback_id,
                                       "input": input, "tool_use_id": tool_use_id}),
                            );
                            ids.push(id);
                        }
                        ids
                    }
                };
                pending.retain(|id| self.answer_to(id).is_none());
                if !pending.is_empty() {
                    self.hook_answers_pending = Some(pending);
                    return Progress::Wait;
                }
            }
        }
        Progress::Done
    }

    /// Writes a `control_request` of the fake CLI.
    fn send_request(&mut self, request_id: String, request: Value) {
        self.push_json(&json!({
            "type": "control_request", "request_id": request_id, "request": request,
        }));
        self.sent_requests.insert(request_id, request);
    }

    /// Notes the id of an emitted line that is a `control_request`, for [`Step::Branch`].
    fn note_emitted_request(&mut self, line: &str) {
        if !line.contains("control_request") {
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return;
        };
        if value.get("type").and_then(Value::as_str) == Some("control_request") {
            let request = value.get("request").cloned().unwrap_or_default();
            self.sent_requests.insert(request_id_of(&value), request);
        }
    }

    /// In an emitted `control_response` whose `request_id` is a bound name, puts the SDK's actual
    /// id in its place, changing nothing else of the line.
    fn rewrite_bound_id(&self, line: String) -> String {
        if self.bindings.is_empty() || !line.contains("control_response") {
            return line;
        }
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            return line;
        };
        if value.get("type").and_then(Value::as_str) != Some("control_response") {
            return line;
        }
        let Some(recorded) = value
            .pointer("/response/request_id")
            .and_then(Value::as_str)
        else {
            return line;
        };
        let Some((actual, _)) = self.bindings.get(recorded) else {
            return line;
        };
        replace_request_id(&line, recorded, actual)
    }
}

/// How many of `steps` wait for an SDK control request of `subtype` (of a branch, the arm that
/// waits for more).
fn count_waiting(steps: &[Step], subtype: &str) -> usize {
    steps
        .iter()
        .map(|step| match step {
            Step::AnswerInitialize { .. } => usize::from(subtype == "initialize"),
            Step::Expect {
                matcher: Matcher::ControlRequest { subtype: s },
                ..
            } => usize::from(s == subtype),
            Step::Branch {
                then, otherwise, ..
            } => count_waiting(then, subtype).max(count_waiting(otherwise, subtype)),
            _ => 0,
        })
        .sum()
}

/// The canned answer to `initialize`, with what the real CLI adds for the request: it says it
/// read the MCP servers and plugins sent in it.
fn canned_initialize_answer(request: &Value) -> Value {
    let mut body = canned::initialize_response();
    for (field, applied) in [
        ("mcpServers", "mcp_servers_applied"),
        ("plugins", "plugins_applied"),
    ] {
        if request.pointer(&format!("/request/{field}")).is_some() {
            body[applied] = Value::Bool(true);
        }
    }
    body
}

/// The `request_id` of a control request line as a string (numbers are stringified).
fn request_id_of(line: &Value) -> String {
    match line.get("request_id") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// Replaces the JSON string `old` where it is the value of a `"request_id"` key.
fn replace_request_id(line: &str, old: &str, new: &str) -> String {
    let old_json = Value::String(old.to_owned()).to_string();
    let new_json = Value::String(new.to_owned()).to_string();
    let mut search_from = 0;
    while let Some(found) = line[search_from..].find(&old_json) {
        let at = search_from + found;
        let before = line[..at].trim_end();
        if let Some(key_part) = before.strip_suffix(':') {
            if key_part.trim_end().ends_with("\"request_id\"") {
                return format!("{}{new_json}{}", &line[..at], &line[at + old_json.len()..]);
            }
        }
        search_from = at + old_json.len();
    }
    line.to_owned()
}

/// A valid JSON line of exactly `bytes` bytes, or `bytes` `x`s when too short for JSON.
fn long_line(bytes: usize) -> Vec<u8> {
    const HEAD: &str = r#"{"type":"fake_padding","pad":""#;
    const TAIL: &str = r#""}"#;
    let overhead = HEAD.len() + TAIL.len();
    if bytes < overhead {
        return vec![b'x'; bytes];
    }
    let mut line = Vec::with_capacity(bytes);
    line.extend_from_slice(HEAD.as_bytes());
    line.resize(bytes - TAIL.len(), b'x');
    line.extend_from_slice(TAIL.as_bytes());
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_line_has_the_exact_length_and_parses() {
        for n in [0, 5, 33, 34, 1000] {
            let line = long_line(n);
            assert_eq!(line.len(), n);
            if n >= 34 {
                let v: Value = serde_json::from_slice(&line).unwrap();
                assert_eq!(v["type"], "fake_padding");
            }
        }
    }

    #[test]
    fn request_id_replacement_touches_only_the_key_value() {
        let line = r#"{"type":"control_response","response":{"subtype":"success","request_id": "req_1","response":{"x":"req_1"}}}"#;
        assert_eq!(
            replace_request_id(line, "req_1", "abc"),
            r#"{"type":"control_response","response":{"subtype":"success","request_id": "abc","response":{"x":"req_1"}}}"#
        );
        assert_eq!(replace_request_id(line, "nope", "abc"), line);
    }
}
