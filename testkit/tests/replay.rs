//! A session recorded against the real Claude Code CLI 2.1.330 with `Options::record_to`,
//! replayed with the same app through `FakeTransport::replay`: no process, no network, and the
//! check that the SDK still writes what it wrote to the real CLI.
//!
//! `recordings/permission_and_hook.jsonl` comes from the end-to-end scenario `record_and_replay`
//! (`conformance/src/e2e/`); to record it again, run that scenario with
//! `E2E_KEEP_RECORDING=$PWD/testkit/tests/recordings/permission_and_hook.jsonl`.

use claude_agent_client::query_with;
use claude_agent_client::Options;
use claude_agent_core::hooks::{HookOutput, PreToolUseInput};
use claude_agent_core::message::Message;
use claude_agent_core::permission::PermissionResult;
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::{FakeTransport, ReplayMismatch};
use futures_lite::StreamExt;

const RECORDING: &str = include_str!("recordings/permission_and_hook.jsonl");
const PROMPT: &str = "BASH:touch never-made && ls";

/// The app that was recorded: Bash refused by the policy, a PreToolUse hook that lets tools
/// through to it.
fn recorded_app(bash: PermissionResult) -> Options {
    Options::new()
        .on_hook("Bash", |_input: PreToolUseInput, _ctx| async {
            HookOutput::proceed()
        })
        .on_permission_request(move |request, _ctx| {
            let bash = bash.clone();
            async move {
                match request.tool_name.as_str() {
                    "Bash" => bash,
                    _ => PermissionResult::allow(),
                }
            }
        })
}

fn replay(app: Options) -> (FakeTransport, Vec<Message>) {
    let fake = FakeTransport::replay(RECORDING).unwrap();
    let runtime = TestRuntime::new();
    let stream = query_with(runtime.clone(), PROMPT, app.transport(fake.clone()));
    let items: Vec<_> = runtime.block_on(stream.collect());
    let messages = items.into_iter().map(Result::unwrap).collect();
    (fake, messages)
}

#[test]
fn the_recorded_app_replays_and_writes_what_it_wrote_to_the_real_cli() {
    let (fake, messages) = replay(recorded_app(PermissionResult::deny(
        "this app does not run commands",
    )));
    fake.verify().unwrap_or_else(|e| panic!("{e}"));
    let Some(Message::Result(result)) = messages.last() else {
        panic!("{messages:#?}")
    };
    assert_eq!(
        result.result.as_deref(),
        Some("done: this app does not run commands")
    );
    let answered: Vec<String> = fake.answers().into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        answered.len(),
        2,
        "the hook callback and the permission prompt"
    );
}

#[test]
fn an_app_that_answers_differently_is_caught() {
    let (fake, _) = replay(recorded_app(PermissionResult::allow()));
    let mismatch = fake.verify().unwrap_err();
    let ReplayMismatch::Differs {
        kind,
        recorded,
        written,
        ..
    } = &mismatch
    else {
        panic!("{mismatch}")
    };
    assert_eq!(*kind, "control response");
    assert_eq!(recorded["response"]["response"]["behavior"], "deny");
    assert_eq!(written["response"]["response"]["behavior"], "allow");
}

#[test]
fn an_app_without_the_hook_is_caught_by_its_initialize_request() {
    let app = Options::new().on_permission_request(|_request, _ctx| async {
        PermissionResult::deny("this app does not run commands")
    });
    let fake = FakeTransport::replay(RECORDING).unwrap();
    let runtime = TestRuntime::new();
    let options = app
        .transport(fake.clone())
        .initialize_timeout(std::time::Duration::from_secs(5));
    let _ = runtime.block_on(query_with(runtime.clone(), PROMPT, options).collect::<Vec<_>>());
    assert!(
        matches!(
            fake.verify(),
            Err(ReplayMismatch::Differs {
                kind: "control request",
                index: 0,
                ..
            })
        ),
        "{:?}",
        fake.verify()
    );
}
