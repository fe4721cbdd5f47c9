//! `Options::transport` with connections made by hand: a bare stdin/stdout pair with no process
//! and no stderr, and a transport that cannot connect.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use claude_agent_client::options::{LaunchSpec, Options};
use claude_agent_client::{connect_with, query_with, Connection, Error};
use claude_agent_core::message::Message;
use claude_agent_testkit::runtime::TestRuntime;
use futures_io::AsyncRead;
use futures_lite::StreamExt;

const INIT_ANSWER: &str = r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_0","response":{}}}"#;
const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"result":"hi","session_id":"s","uuid":"u","duration_ms":1,"duration_api_ms":1,"num_turns":1,"total_cost_usd":0.5,"usage":{"input_tokens":1,"output_tokens":1}}"#;

/// Hands out `bytes`, then waits for ever: a CLI that is still there but says nothing more.
struct ThenSilent(Vec<u8>);

impl AsyncRead for ThenSilent {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        if self.0.is_empty() {
            return Poll::Pending;
        }
        let n = self.0.len().min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0.drain(..n);
        Poll::Ready(Ok(n))
    }
}

#[test]
fn a_connection_without_a_process_ends_cleanly_when_its_stdout_ends() {
    let stdout = format!("{INIT_ANSWER}\n{RESULT}\n");
    let written = Arc::new(Mutex::new(Vec::new()));
    let sink = written.clone();
    let options = Options::new().transport(move |_spec: LaunchSpec| {
        let stdin = futures_lite::io::AssertAsync::new(SharedVec(sink.clone()));
        let stdout = futures_lite::io::Cursor::new(stdout.clone().into_bytes());
        async { Ok(Connection::new(stdin, stdout)) }
    });
    let runtime = TestRuntime::new();
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hello", options).collect());
    assert!(
        matches!(items.as_slice(), [Ok(Message::Result(_))]),
        "{items:?}"
    );
    let written = String::from_utf8(written.lock().unwrap().clone()).unwrap();
    assert!(written.contains(r#""subtype":"initialize""#), "{written}");
    assert!(written.contains(r#""content":"hello""#), "{written}");
}

/// Hands out `bytes`, then fails every read: a pipe that broke.
struct ThenBroken(Vec<u8>);

impl AsyncRead for ThenBroken {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        if self.0.is_empty() {
            return Poll::Ready(Err(io::Error::other("the socket broke")));
        }
        let n = self.0.len().min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0.drain(..n);
        Poll::Ready(Ok(n))
    }
}

/// A read error is not the end of stdout: the session is not reported as one that ended
/// well (the official SDKs raise the error), but with the error, as the stream's last item.
#[test]
fn a_broken_stdout_is_reported_not_taken_for_its_end() {
    let options = Options::new().transport(|_spec: LaunchSpec| async {
        let stdout = ThenBroken(format!("{INIT_ANSWER}\n").into_bytes());
        Ok(Connection::new(futures_lite::io::sink(), stdout))
    });
    let runtime = TestRuntime::new();
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hello", options).collect());
    let [Err(Error::StdoutFailed(error))] = items.as_slice() else {
        panic!("{items:?}")
    };
    assert!(error.contains("the socket broke"), "{error}");
}

#[test]
fn closing_a_session_over_a_bare_connection_does_not_wait_for_the_other_side_for_ever() {
    let options = Options::new().transport(|_spec: LaunchSpec| async {
        let stdout = ThenSilent(format!("{INIT_ANSWER}\n").into_bytes());
        Ok(Connection::new(futures_lite::io::sink(), stdout))
    });
    let runtime = TestRuntime::new();
    runtime.block_on(async {
        let client = connect_with(runtime.clone(), options).await.unwrap();
        client.close().await;
    });
    // stdin closed, then the grace period the CLI gets to exit, then the SDK hangs up.
    assert!(runtime.elapsed() >= Duration::from_secs(2), "{runtime:?}");
    assert!(runtime.elapsed() < Duration::from_secs(10), "{runtime:?}");
}

#[test]
fn a_transport_that_cannot_connect_fails_the_start_with_its_error() {
    let options = Options::new().transport(|_spec: LaunchSpec| async {
        Err(io::Error::new(
            io::ErrorKind::ConnectionRefused,
            "no CLI behind the socket",
        ))
    });
    let runtime = TestRuntime::new();
    let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hello", options).collect());
    let [Err(Error::Connect(source))] = items.as_slice() else {
        panic!("{items:?}")
    };
    assert_eq!(source.kind(), io::ErrorKind::ConnectionRefused);
    let text = items[0].as_ref().unwrap_err().to_string();
    assert!(text.contains("no CLI behind the socket"), "{text}");
}

/// A `std::io::Write` into a shared buffer.
struct SharedVec(Arc<Mutex<Vec<u8>>>);

impl io::Write for SharedVec {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The connection is awaited on the session's runtime: a transport still dialling leaves the
/// executor free for other work (here, the task that lets it finish), and the session starts
/// once it has connected.
#[test]
fn a_transport_connects_asynchronously_without_blocking_the_executor() {
    use std::sync::atomic::{AtomicBool, Ordering};

    let reachable = Arc::new(AtomicBool::new(false));
    let dialled = reachable.clone();
    let options = Options::new().transport(move |_spec: LaunchSpec| {
        let dialled = dialled.clone();
        async move {
            while !dialled.load(Ordering::SeqCst) {
                futures_lite::future::yield_now().await;
            }
            let stdout = format!("{INIT_ANSWER}\n{RESULT}\n").into_bytes();
            Ok(Connection::new(
                futures_lite::io::sink(),
                futures_lite::io::Cursor::new(stdout),
            ))
        }
    });
    let runtime = TestRuntime::new();
    let (items, ()) = runtime.block_on(futures_lite::future::zip(
        query_with(runtime.clone(), "hello", options).collect::<Vec<_>>(),
        async {
            for _ in 0..10 {
                futures_lite::future::yield_now().await;
            }
            reachable.store(true, Ordering::SeqCst);
        },
    ));
    assert!(
        matches!(items.as_slice(), [Ok(Message::Result(_))]),
        "{items:?}"
    );
}
