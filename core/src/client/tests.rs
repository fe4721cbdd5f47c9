//! The client layer on an in-memory runtime: no async runtime, no process, one thread. The "CLI"
//! is the testkit's sans-IO [`FakeCli`]; the driver and the consumer are polled together with
//! `futures_lite::future::block_on`, which shows the layer needs nothing from tokio.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use claude_agent_testkit::fake_cli::{FakeCli, Script};
use futures_io::{AsyncRead, AsyncWrite};
use futures_lite::{future, StreamExt};

use super::*;
use crate::hooks::{HookEvent, HookInput, HookOutput, PreToolUseInput, StopInput};
use crate::message::Message;
use crate::options::{LaunchSpec, Options};
use crate::permission::PermissionResult;
use crate::session::ExitStatusInfo;

/// The fake CLI and whoever waits on it.
struct Wire {
    cli: FakeCli,
    /// stdout bytes taken from the fake but not yet read.
    pending: Vec<u8>,
    killed: bool,
    wakers: Vec<Waker>,
}

impl Wire {
    fn wake_all(&mut self) {
        self.wakers.drain(..).for_each(Waker::wake);
    }

    fn exit(&self) -> Option<ExitStatusInfo> {
        match (self.killed, self.cli.poll_exit()) {
            (true, _) => Some(ExitStatusInfo::signal(9)),
            (false, code) => code.map(ExitStatusInfo::code),
        }
    }
}

/// A [`Runtime`] whose child is a [`FakeCli`] in memory and whose tasks are kept for the test
/// to poll.
#[derive(Clone)]
struct Memory {
    wire: Arc<Mutex<Wire>>,
    tasks: Arc<Mutex<Vec<BoxFuture<'static, ()>>>>,
}

impl Memory {
    fn new(script: Script) -> Self {
        let wire = Wire {
            cli: FakeCli::new(script),
            pending: Vec::new(),
            killed: false,
            wakers: Vec::new(),
        };
        Memory {
            wire: Arc::new(Mutex::new(wire)),
            tasks: Arc::default(),
        }
    }

    /// Run the spawned driver and `consumer` together on this thread.
    fn run<T>(&self, consumer: impl std::future::Future<Output = T>) -> T {
        let driver = self
            .tasks
            .lock()
            .unwrap()
            .pop()
            .expect("the driver was spawned");
        future::block_on(future::zip(driver, consumer)).1
    }

    fn received(&self) -> Vec<serde_json::Value> {
        self.wire.lock().unwrap().cli.received().to_vec()
    }
}

struct Pipe {
    wire: Arc<Mutex<Wire>>,
    stderr: bool,
}

impl AsyncRead for Pipe {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut wire = self.wire.lock().unwrap();
        // Sleeps in a script pass at once: this runtime has no clock of its own.
        while wire.cli.poll_sleep().is_some() {
            wire.cli.handle_wake();
        }
        if wire.pending.is_empty() {
            let next = if self.stderr {
                wire.cli.poll_stderr()
            } else {
                wire.cli.poll_stdout()
            };
            wire.pending = next.unwrap_or_default();
        }
        if !wire.pending.is_empty() {
            let n = wire.pending.len().min(buf.len());
            buf[..n].copy_from_slice(&wire.pending[..n]);
            wire.pending.drain(..n);
            return Poll::Ready(Ok(n));
        }
        if wire.exit().is_some() {
            return Poll::Ready(Ok(0));
        }
        wire.wakers.push(cx.waker().clone());
        Poll::Pending
    }
}

impl AsyncWrite for Pipe {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut wire = self.wire.lock().unwrap();
        wire.cli.handle_stdin(buf);
        wire.wake_all();
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut wire = self.wire.lock().unwrap();
        wire.cli.handle_stdin_eof();
        wire.wake_all();
        Poll::Ready(Ok(()))
    }
}

struct Child(Arc<Mutex<Wire>>);

impl ChildProcess for Child {
    fn id(&self) -> Option<u32> {
        None
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
        let mut wire = self.0.lock().unwrap();
        match wire.exit() {
            Some(status) => Poll::Ready(Ok(status)),
            None => {
                wire.wakers.push(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    fn signal(&mut self, _signal: Signal) -> io::Result<()> {
        let mut wire = self.0.lock().unwrap();
        wire.killed = true;
        wire.wake_all();
        Ok(())
    }
}

impl Runtime for Memory {
    type Child = Child;
    type Stdin = Pipe;
    type Stdout = Pipe;
    type Stderr = Pipe;
    type Sleep = future::Pending<()>;

    fn spawn_child(&self, _spec: &LaunchSpec) -> io::Result<ChildParts<Self>> {
        let pipe = |stderr| Pipe {
            wire: self.wire.clone(),
            stderr,
        };
        Ok(ChildParts::new(
            Child(self.wire.clone()),
            pipe(false),
            pipe(false),
            pipe(true),
        ))
    }

    fn sleep_until(&self, _deadline: Instant) -> Self::Sleep {
        // The scripts here finish long before any deadline of the session.
        future::pending()
    }

    fn spawn_task(&self, task: BoxFuture<'static, ()>) {
        self.tasks.lock().unwrap().push(task);
    }
}

fn options() -> Options {
    Options::new().cli_path("/in-memory/claude")
}

#[test]
fn query_runs_on_an_in_memory_runtime() {
    let runtime = Memory::new(Script::single_turn("hi there"));
    let messages = query_with(runtime.clone(), "hello", options());
    let items: Vec<_> = runtime.run(messages.collect());
    let kinds: Vec<&str> = items
        .iter()
        .map(|item| match item.as_ref().expect("no errors") {
            Message::System(_) => "system",
            Message::Assistant(_) => "assistant",
            Message::Result(_) => "result",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["system", "assistant", "result"]);
    let wrote = runtime.received();
    assert_eq!(wrote[0]["request"]["subtype"], "initialize");
    assert_eq!(wrote[1]["message"]["content"], "hello");
}

#[test]
fn a_permission_prompt_is_answered_by_the_callback_inside_the_driver() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .can_use_tool("p1", "Bash", serde_json::json!({"command": "rm -rf /"}))
        .emit_result("done");
    let runtime = Memory::new(script);
    let options = options().can_use_tool(|request, _ctx| async move {
        assert_eq!(request.tool_name, "Bash");
        PermissionResult::deny("not here")
    });
    let items: Vec<_> = runtime.run(query_with(runtime.clone(), "go", options).collect());
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
    let answer = runtime
        .received()
        .into_iter()
        .find(|line| line["type"] == "control_response")
        .expect("the prompt was answered");
    assert_eq!(answer["response"]["request_id"], "p1");
    assert_eq!(answer["response"]["response"]["behavior"], "deny");
    assert_eq!(answer["response"]["response"]["message"], "not here");
}

/// The session's answer to the fake CLI's request `request_id`.
fn answer_to(runtime: &Memory, request_id: &str) -> serde_json::Value {
    runtime
        .received()
        .into_iter()
        .find(|line| {
            line["type"] == "control_response" && line["response"]["request_id"] == request_id
        })
        .unwrap_or_else(|| panic!("{request_id} was answered"))
}

fn pre_tool_use(command: &str) -> serde_json::Value {
    serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s",
        "transcript_path": "/t", "cwd": "/w", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_1"})
}

#[test]
fn a_typed_hook_gets_its_event_input() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .hook_callback("h1", "hook_0", pre_tool_use("rm -rf /"))
        .hook_callback(
            "h2",
            "hook_1",
            serde_json::json!({"hook_event_name": "Stop",
            "session_id": "s", "transcript_path": "/t", "cwd": "/w", "stop_hook_active": true}),
        )
        .emit_result("done");
    let runtime = Memory::new(script);
    let options = options()
        .on_hook(Some("Bash"), |input: PreToolUseInput, _ctx| async move {
            #[derive(serde::Deserialize)]
            struct Bash {
                command: String,
            }
            assert_eq!(input.tool_use_id, "toolu_1");
            let bash: Bash = input.tool_input_as().unwrap();
            HookOutput::deny_tool(format!("not {}", bash.command))
        })
        .on_hook(None, |input: StopInput, _ctx| async move {
            assert!(input.stop_hook_active);
            HookOutput::proceed()
        });
    let items: Vec<_> = runtime.run(query_with(runtime.clone(), "go", options).collect());
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
    let init = &runtime.received()[0]["request"]["hooks"];
    assert_eq!(init["PreToolUse"][0]["matcher"], "Bash");
    assert!(init["Stop"].is_array(), "{init}");
    let deny = answer_to(&runtime, "h1");
    assert_eq!(deny["response"]["subtype"], "success");
    let specific = &deny["response"]["response"]["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny");
    assert_eq!(specific["permissionDecisionReason"], "not rm -rf /");
    let proceed = answer_to(&runtime, "h2");
    assert_eq!(proceed["response"]["response"]["continue"], true);
}

#[test]
fn an_untyped_hook_gets_the_whole_input_and_the_id_beside_it() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .hook_callback("h1", "hook_0", pre_tool_use("ls"))
        .emit_result("done");
    let runtime = Memory::new(script);
    let options = options().hook(
        HookEvent::PreToolUse,
        None,
        |input, tool_use_id, _ctx| async move {
            assert!(matches!(input, HookInput::PreToolUse(_)), "{input:?}");
            assert_eq!(tool_use_id, None, "the fake CLI sends null");
            HookOutput::allow_tool()
        },
    );
    let items: Vec<_> = runtime.run(query_with(runtime.clone(), "go", options).collect());
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
    let answer = answer_to(&runtime, "h1");
    assert_eq!(
        answer["response"]["response"]["hookSpecificOutput"]["permissionDecision"],
        "allow"
    );
}

#[test]
fn a_typed_hook_given_another_events_input_is_an_error_reply() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .hook_callback("h1", "hook_0", pre_tool_use("ls"))
        .emit_result("done");
    let runtime = Memory::new(script);
    let called = Arc::new(Mutex::new(false));
    let options = options().on_hook(None, {
        let called = called.clone();
        move |_input: StopInput, _ctx| {
            *called.lock().unwrap() = true;
            async { HookOutput::default() }
        }
    });
    let items: Vec<_> = runtime.run(query_with(runtime.clone(), "go", options).collect());
    assert!(
        matches!(items.last(), Some(Ok(Message::Result(_)))),
        "{items:?}"
    );
    assert!(!*called.lock().unwrap(), "the callback was not called");
    let answer = answer_to(&runtime, "h1");
    assert_eq!(answer["response"]["subtype"], "error");
    assert_eq!(
        answer["response"]["error"],
        "malformed hook input: a Stop hook got a PreToolUse input"
    );
}
