//! A stub of the Anthropic Messages API on `127.0.0.1`, for running the real Claude Code CLI
//! against scripted model replies (`ANTHROPIC_BASE_URL=<base_url>`).
//!
//! It answers `POST /v1/messages` with a streamed (SSE) or plain JSON message or an Anthropic
//! error, `POST /v1/messages/count_tokens` with `{"input_tokens":N}`, and anything else with
//! `200 {}`. It records every request for assertions. Plain `std` HTTP/1.1: one thread accepts,
//! one thread serves each keep-alive connection; everything stops when the [`StubApi`] is dropped.
//!
//! Which reply a Messages call gets:
//! * a **side request** (no tools offered: title generation, quota probes, summaries) → `ok`;
//! * a **main-conversation** request → the next queued reply ([`StubApi::push_reply`]), else the
//!   first matching [`Rule`], else `echo: <last user text>`.
//!
//! Two rule sets are ready-made: the [`conventions`] the project's recordings were made with
//! (`BASH:<cmd>`, `TOOL:<name>:<json>`), and the [`intents`], which understand prompts written
//! for a real model (the SDK's examples run against them).
//!
//! ```
//! use claude_agent_testkit::stub_api::{Reply, Rule, StubApi};
//! let stub = StubApi::start();
//! stub.add_rule(Rule::when_last_user_contains("hello").reply(Reply::text("hi")));
//! assert!(stub.base_url().starts_with("http://127.0.0.1:"));
//! assert!(stub.requests().is_empty());
//! ```

mod http;
mod intents;
mod recorded;
mod render;
mod reply;
mod rule;

pub use intents::intents;
pub use recorded::RecordedRequest;
pub use reply::Reply;
pub use rule::{conventions, Rule, RuleBuilder};

use std::collections::VecDeque;
use std::io::{self, BufReader, BufWriter, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use render::{render, request_id, split_delay, sse_frame, CallContext, Rendered};

/// A running stub Messages API server. Stops (and closes its connections) when dropped.
///
/// Its use: the real CLI, pointed at it, in an end-to-end test of an app.
///
/// ```
/// use claude_agent_tokio::{runtime::query_with, runtime::Runtime};
/// use claude_agent_tokio::Options;
/// use claude_agent_testkit::real_cli::RealCli;
/// use claude_agent_testkit::stub_api::{Reply, StubApi};
/// use futures_lite::StreamExt;
///
/// async fn end_to_end<R: Runtime>(runtime: R) {
///     let stub = StubApi::start_with_conventions();
///     stub.push_reply(Reply::text("The answer is 4."));
///     let options = Options::new()
///         .cli_path(RealCli::locate().unwrap().path())
///         .env("ANTHROPIC_BASE_URL", stub.base_url())
///         .env("ANTHROPIC_API_KEY", "sk-ant-dummy");
///     let items: Vec<_> = query_with(runtime, "What is 2 + 2?", options).collect().await;
///     assert!(items.iter().all(Result::is_ok));
///     // What the CLI asked the model:
///     let asked = &stub.main_requests()[0];
///     assert_eq!(asked.last_user_text().as_deref(), Some("What is 2 + 2?"));
///     println!("{} requests in all", stub.requests().len());
/// }
/// ```
///
/// What it answers, seen from a plain HTTP client:
///
/// ```
/// use std::io::{BufRead, BufReader, Read, Write};
/// use std::net::TcpStream;
/// use std::time::Duration;
/// use claude_agent_testkit::stub_api::{Reply, StubApi};
///
/// let stub = StubApi::start();
/// stub.push_reply(Reply::text("Hello from the stub"));
///
/// // A main-conversation call, as the CLI makes it (it offers tools), without streaming:
/// let body = r#"{"model":"claude-opus-5-5","max_tokens":1024,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hello"}]}"#;
/// let mut http = BufReader::new(TcpStream::connect(stub.addr()).unwrap());
/// write!(
///     http.get_mut(),
///     "POST /v1/messages HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
///     stub.addr(),
///     body.len()
/// )
/// .unwrap();
/// let mut status = String::new();
/// http.read_line(&mut status).unwrap();
/// assert!(status.starts_with("HTTP/1.1 200"));
/// let mut length = 0;
/// loop {
///     let mut header = String::new();
///     http.read_line(&mut header).unwrap();
///     if header == "\r\n" {
///         break;
///     }
///     if let Some(value) = header.to_ascii_lowercase().strip_prefix("content-length:") {
///         length = value.trim().parse().unwrap();
///     }
/// }
/// let mut reply = vec![0; length];
/// http.read_exact(&mut reply).unwrap();
/// let reply: serde_json::Value = serde_json::from_slice(&reply).unwrap();
/// assert_eq!(reply["content"][0]["text"], "Hello from the stub");
///
/// assert!(stub.wait_for_requests(1, Duration::from_secs(5)));
/// let request = &stub.main_requests()[0];
/// assert_eq!((request.route(), request.model()), ("/v1/messages", Some("claude-opus-5-5")));
/// ```
#[derive(Debug)]
pub struct StubApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    stopping: AtomicBool,
    /// Clones of open connections, shut down on drop so their threads end.
    connections: Mutex<Vec<TcpStream>>,
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Reply>,
    rules: Vec<Rule>,
    requests: Vec<RecordedRequest>,
    messages_calls: u64,
}

/// Locks a mutex even if a connection thread panicked while holding it (the data stays usable:
/// every critical section leaves it consistent).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl StubApi {
    /// Starts a stub on `127.0.0.1` with a random free port and no rules (every main request is
    /// echoed).
    ///
    /// # Panics
    /// If no loopback port can be bound (see [`StubApi::try_start`] to handle that).
    pub fn start() -> Self {
        Self::try_start().unwrap_or_else(|e| panic!("stub API: cannot bind 127.0.0.1:0: {e}"))
    }

    /// Starts a stub with the [`conventions`] rule set, as the recordings were made:
    /// `BASH:<cmd>` → Bash tool call, `TOOL:<name>:<json>` → that tool call, after a tool result
    /// → `done: <result>`, else `echo: <text>`.
    ///
    /// ```
    /// use claude_agent_testkit::stub_api::StubApi;
    ///
    /// // Prompts such as "BASH:cargo --version" make the fake model call the Bash tool; after the
    /// // result it answers "done: <output>", as the repository's recordings were made.
    /// let stub = StubApi::start_with_conventions();
    /// assert!(stub.base_url().starts_with("http://127.0.0.1:"));
    /// ```
    pub fn start_with_conventions() -> Self {
        let stub = Self::start();
        for rule in conventions() {
            stub.add_rule(rule);
        }
        stub
    }

    /// Starts a stub with the [`intents`] rule set: it plays the model's part for natural
    /// prompts ("Run `echo hi` in the shell", "Use the calculator: what is 2 + 3?", "Ask the
    /// reviewer agent to…") with the tools the CLI offers, so hooks, permission prompts,
    /// in-process tools, subagents and structured output run for real. The `stub-api` binary
    /// serves this.
    ///
    /// ```
    /// use claude_agent_testkit::stub_api::StubApi;
    /// let stub = StubApi::start_with_intents();
    /// assert!(stub.base_url().starts_with("http://127.0.0.1:"));
    /// ```
    pub fn start_with_intents() -> Self {
        let stub = Self::start();
        for rule in intents() {
            stub.add_rule(rule);
        }
        stub
    }

    /// Like [`StubApi::start`], returning the bind error instead of panicking.
    ///
    /// ```
    /// use claude_agent_testkit::stub_api::StubApi;
    ///
    /// let stub = match StubApi::try_start() {
    ///     Ok(stub) => stub,
    ///     Err(error) => {
    ///         eprintln!("skipped: no loopback port ({error})");
    ///         return;
    ///     }
    /// };
    /// assert!(stub.addr().ip().is_loopback());
    /// ```
    pub fn try_start() -> io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::Builder::new()
                .name("stub-api-accept".into())
                .spawn(move || accept_loop(&listener, &shared))?
        };
        Ok(Self {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queues a reply for the next main-conversation request (FIFO; queued replies go before rules).
    pub fn push_reply(&self, reply: Reply) {
        lock(&self.shared.state).queue.push_back(reply);
    }

    /// Adds a rule after the existing ones (the first matching rule answers).
    pub fn add_rule(&self, rule: Rule) {
        lock(&self.shared.state).rules.push(rule);
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.state).requests.clone()
    }

    /// The main-conversation Messages calls received so far (side requests left out).
    pub fn main_requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.state)
            .requests
            .iter()
            .filter(|r| r.is_main_conversation())
            .cloned()
            .collect()
    }

    /// Waits until at least `n` requests have been received, up to `timeout`; returns whether they
    /// arrived.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if lock(&self.shared.state).requests.len() >= n {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for StubApi {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept() so the acceptor sees the flag.
        drop(TcpStream::connect(self.addr));
        for conn in lock(&self.shared.connections).drain(..) {
            // Ending connections makes their blocked reads return; errors mean it already closed.
            drop(conn.shutdown(Shutdown::Both));
        }
        if let Some(acceptor) = self.acceptor.take() {
            drop(acceptor.join());
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        if let Ok(clone) = stream.try_clone() {
            lock(&shared.connections).push(clone);
        }
        let shared = Arc::clone(shared);
        let spawned = thread::Builder::new()
            .name("stub-api-conn".into())
            .spawn(move || {
                // A broken connection only ends that connection.
                drop(serve_connection(stream, &shared));
            });
        // Out of threads: the connection is dropped, the client sees it closed.
        drop(spawned);
    }
}

/// Serves one connection, then closes it: the socket itself, since the acceptor keeps a clone of
/// the stream (to end it when the stub is dropped), and forgets that clone.
fn serve_connection(stream: TcpStream, shared: &Shared) -> io::Result<()> {
    let peer = stream.peer_addr();
    let served = serve_requests(&stream, shared);
    if let Ok(peer) = peer {
        lock(&shared.connections).retain(|kept| kept.peer_addr().ok() != Some(peer));
    }
    drop(stream.shutdown(Shutdown::Both));
    served
}

fn serve_requests(stream: &TcpStream, shared: &Shared) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = BufWriter::new(stream.try_clone()?);
    while let Some(req) = http::read_request(&mut reader)? {
        if shared.stopping.load(Ordering::SeqCst) {
            return Ok(());
        }
        let close = req.wants_close();
        let recorded = RecordedRequest::new(&req.method, &req.path, req.headers, req.body);
        answer(&recorded, shared, &mut writer)?;
        if close {
            return Ok(());
        }
    }
    Ok(())
}

/// Records the request, picks the reply under the lock, then writes it without holding the lock.
fn answer(req: &RecordedRequest, shared: &Shared, out: &mut impl Write) -> io::Result<()> {
    let (reply, call) = {
        let mut state = lock(&shared.state);
        state.requests.push(req.clone());
        if !req.is_messages_call() {
            drop(state);
            if req.method == "HEAD" {
                // The CLI probes `HEAD /api/hello` when non-essential traffic is allowed.
                return http::write_response(out, 200, &[], b"");
            }
            let body = if req.method == "POST" && req.route() == "/v1/messages/count_tokens" {
                json!({"input_tokens": estimate_input_tokens(req)})
            } else {
                json!({})
            };
            return write_json(out, 200, &body, true, "req_stub_0");
        }
        state.messages_calls += 1;
        let call = state.messages_calls;
        (choose_reply(&mut state, req), call)
    };
    let (delay, reply) = split_delay(&reply);
    if !delay.is_zero() {
        thread::sleep(delay);
    }
    let ctx = CallContext {
        call,
        model: req.model().unwrap_or("claude-stub").to_owned(),
        input_tokens: estimate_input_tokens(req),
    };
    match render(reply, &ctx, req.wants_stream()) {
        Rendered::Json {
            status,
            body,
            retry,
        } => write_json(out, status, &body, retry, &request_id(call)),
        Rendered::Sse(events) => {
            let headers = [
                (
                    "content-type",
                    "text/event-stream; charset=utf-8".to_owned(),
                ),
                ("cache-control", "no-cache".to_owned()),
                ("request-id", request_id(call)),
            ];
            let mut body = http::ChunkedResponse::start(out, 200, &headers)?;
            for (event, data) in &events {
                body.chunk(sse_frame(event, data).as_bytes())?;
            }
            body.finish()
        }
    }
}

fn choose_reply(state: &mut State, req: &RecordedRequest) -> Reply {
    if !req.is_main_conversation() {
        return rule::side_reply(req);
    }
    if let Some(reply) = state.queue.pop_front() {
        return reply;
    }
    let Some(index) = state.rules.iter().position(|r| r.matches(req)) else {
        return rule::echo(req);
    };
    let reply = state.rules[index].respond(req);
    if state.rules[index].is_once() {
        state.rules.remove(index);
    }
    reply
}

/// A rough, deterministic token count: a quarter of the last user text's bytes, plus ten.
fn estimate_input_tokens(req: &RecordedRequest) -> u64 {
    10 + (req.last_user_text().map_or(0, |t| t.len()) / 4) as u64
}

fn write_json(
    out: &mut impl Write,
    status: u16,
    body: &Value,
    retry: bool,
    request_id: &str,
) -> io::Result<()> {
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("request-id", request_id.to_owned()),
    ];
    if !retry {
        headers.push(("x-should-retry", "false".to_owned()));
    }
    http::write_response(out, status, &headers, body.to_string().as_bytes())
}
