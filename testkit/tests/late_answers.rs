//! A control request the SDK gave up on (it timed out, or the session was closed) may still be
//! answered by a CLI that was only slow. That late answer is not an error of the session: it must
//! not show up in the message stream, where a loop doing `let message = item?;` would stop on it.
//!
//! The fake CLI below answers each request only when the SDK's next line comes, which the test
//! sends after the SDK's (tiny) control time-out has fired, so the answer really arrives late.

use std::time::Duration;

use claude_agent_client::Options;
use claude_agent_client::{connect_with, Client, Error};
use claude_agent_core::control::ContextUsageDetail;
use claude_agent_core::message::Message;
use claude_agent_testkit::fake_cli::{Answer, Script};
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::FakeTransport;
use futures_lite::StreamExt;
use serde_json::json;

const TIMEOUT: Duration = Duration::from_millis(1);

fn options(fake: &FakeTransport) -> Options {
    Options::new()
        .transport(fake.clone())
        .control_timeout(TIMEOUT)
}

/// Every item up to the next result, stopping at the first error the way user code does.
async fn turn(client: &Client) -> Result<Vec<Message>, Error> {
    let mut messages = Vec::new();
    let mut reply = client.receive_response();
    while let Some(item) = reply.next().await {
        messages.push(item?);
    }
    Ok(messages)
}

#[test]
fn a_late_answer_to_a_timed_out_request_does_not_reach_the_next_turn() {
    let script = Script::new()
        .answer_initialize()
        .expect_request_as("get_context_usage", "usage")
        .expect_user()
        .respond("usage", Answer::success(json!({"totalTokens": 1})))
        .emit_assistant_text("still here")
        .emit_result("done");
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let (usage, turn) = runtime
        .block_on(async {
            let client = connect_with(runtime.clone(), options(&fake)).await?;
            let usage = client.context_usage(ContextUsageDetail::Full).await;
            // Only now does the CLI see a line from us, and answer `get_context_usage`.
            client.send("next").await?;
            let turn = turn(&client).await;
            client.close().await;
            Ok::<_, Error>((usage, turn))
        })
        .unwrap();
    assert!(
        matches!(usage, Err(Error::ControlTimeout(t)) if t == TIMEOUT),
        "{usage:?}"
    );
    let messages = turn.expect("the late answer is not an error of the turn");
    assert!(matches!(
        &messages[..],
        [Message::Assistant(_), Message::Result(_)]
    ));
}

#[test]
fn a_late_answer_to_an_interrupt_mid_turn_leaves_the_turn_whole() {
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .emit_assistant_text("working")
        .expect_request_as("interrupt", "stop")
        .expect_user()
        .respond("stop", Answer::success(json!({"still_queued": []})))
        .emit_assistant_text("stopping")
        .emit_result("interrupted");
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let (interrupted, messages) = runtime
        .block_on(async {
            let client = connect_with(runtime.clone(), options(&fake)).await?;
            client.send("start").await?;
            let mut reply = client.receive_response();
            let mut messages = vec![reply.next().await.expect("a first message")?];
            let interrupted = client.interrupt().await;
            client.send("are you there?").await?;
            while let Some(item) = reply.next().await {
                messages.push(item?);
            }
            client.close().await;
            Ok::<_, Error>((interrupted, messages))
        })
        .unwrap();
    assert!(
        matches!(interrupted, Err(Error::ControlTimeout(_))),
        "{interrupted:?}"
    );
    assert!(matches!(
        &messages[..],
        [
            Message::Assistant(_),
            Message::Assistant(_),
            Message::Result(_)
        ]
    ));
}

#[test]
fn a_late_answer_after_close_is_not_an_item_of_the_stream() {
    let script = Script::new()
        .answer_initialize()
        .expect_request_as("mcp_status", "status")
        .expect_eof()
        .respond("status", Answer::success(json!({"mcpServers": []})))
        .exit(0);
    let fake = FakeTransport::new(script);
    let runtime = TestRuntime::new();
    let (status, items) = runtime.block_on(async {
        let client = connect_with(runtime.clone(), Options::new().transport(fake.clone()))
            .await
            .unwrap();
        let messages = client.receive_messages();
        let (status, ()) = futures_lite::future::zip(client.mcp_status(), client.close()).await;
        (status, messages.collect::<Vec<_>>().await)
    });
    assert!(matches!(status, Err(Error::Closed)), "{status:?}");
    assert!(items.is_empty(), "{items:?}");
}
