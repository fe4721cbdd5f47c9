//! The stub Messages API over real sockets, with a plain `TcpStream` client: SSE framing, JSON
//! messages, errors, reply selection, keep-alive and request recording.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use claude_agent_testkit::stub_api::{Reply, Rule, StubApi};
use serde_json::{json, Value};

/// One HTTP/1.1 connection to the stub.
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }

    /// The `(event, data)` pairs of an SSE body, checking the framing line by line.
    fn sse(&self) -> Vec<(String, Value)> {
        assert!(self.body.ends_with("\n\n"), "events end with a blank line");
        self.body
            .trim_end()
            .split("\n\n")
            .map(|frame| {
                let lines: Vec<&str> = frame.lines().collect();
                assert_eq!(lines.len(), 2, "frame {frame:?}");
                let event = lines[0].strip_prefix("event: ").expect("event: line");
                let data = lines[1].strip_prefix("data: ").expect("data: line");
                let data: Value = serde_json::from_str(data).unwrap();
                assert_eq!(data["type"], event, "data.type repeats the event name");
                (event.to_owned(), data)
            })
            .collect()
    }
}

impl Client {
    fn connect(stub: &StubApi) -> Self {
        let stream = TcpStream::connect(stub.addr()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        Self {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        }
    }

    fn request(&mut self, method: &str, path: &str, body: &Value) -> Response {
        let body = body.to_string();
        write!(
            self.writer,
            "{method} {path} HTTP/1.1\r\nHost: stub\r\nx-api-key: sk-ant-dummy\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        self.read_response()
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        assert!(line.ends_with("\r\n"), "CRLF line: {line:?}");
        line.truncate(line.len() - 2);
        line
    }

    fn read_response(&mut self) -> Response {
        let status_line = self.line();
        let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        assert!(status_line.starts_with("HTTP/1.1 "));
        let mut headers = Vec::new();
        loop {
            let line = self.line();
            if line.is_empty() {
                break;
            }
            let (k, v) = line.split_once(": ").unwrap();
            headers.push((k.to_owned(), v.to_owned()));
        }
        let find = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let mut body = Vec::new();
        if find("transfer-encoding").as_deref() == Some("chunked") {
            loop {
                let size = usize::from_str_radix(&self.line(), 16).unwrap();
                if size == 0 {
                    assert_eq!(self.line(), "");
                    break;
                }
                let start = body.len();
                body.resize(start + size, 0);
                self.reader.read_exact(&mut body[start..]).unwrap();
                assert_eq!(self.line(), "");
            }
        } else {
            let len: usize = find("content-length").unwrap().parse().unwrap();
            body.resize(len, 0);
            self.reader.read_exact(&mut body).unwrap();
        }
        Response {
            status,
            headers,
            body: String::from_utf8(body).unwrap(),
        }
    }
}

/// A main-conversation request body (it offers tools, like the CLI's main loop).
fn main_body(user_text: &str, stream: bool) -> Value {
    json!({"model":"claude-test","max_tokens":100,"stream":stream,
           "tools":[{"name":"Bash","input_schema":{"type":"object"}}],
           "messages":[{"role":"user","content":[
               {"type":"text","text":"<system-reminder>\nignore me\n</system-reminder>"},
               {"type":"text","text":user_text}]}]})
}

#[test]
fn streamed_text_reply_is_framed_like_the_real_api() {
    let stub = StubApi::start();
    let mut client = Client::connect(&stub);
    let resp = client.request("POST", "/v1/messages?beta=true", &main_body("hello", true));
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.header("content-type"),
        Some("text/event-stream; charset=utf-8")
    );
    let events = resp.sse();
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(names[0], "message_start");
    assert_eq!(names[1], "content_block_start");
    assert_eq!(
        &names[names.len() - 3..],
        ["content_block_stop", "message_delta", "message_stop"]
    );
    assert!(names.contains(&"ping"));
    let start = &events[0].1["message"];
    assert_eq!(start["model"], "claude-test");
    assert_eq!(start["role"], "assistant");
    assert_eq!(start["content"], json!([]));
    let text: String = events
        .iter()
        .filter(|(e, _)| e == "content_block_delta")
        .map(|(_, d)| {
            assert_eq!(d["delta"]["type"], "text_delta");
            d["delta"]["text"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        text, "echo: hello",
        "default reply echoes the user text, not the reminder"
    );
    let delta = &events[events.len() - 2].1;
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert!(delta["usage"]["output_tokens"].as_u64().unwrap() > 0);
}

#[test]
fn streamed_tool_use_splits_the_input_json() {
    let stub = StubApi::start_with_conventions();
    let mut client = Client::connect(&stub);
    let events = client
        .request(
            "POST",
            "/v1/messages",
            &main_body("BASH:echo hi-from-bash", true),
        )
        .sse();
    let tool_start = events
        .iter()
        .find(|(_, d)| d["content_block"]["type"] == "tool_use")
        .expect("a tool_use block");
    assert_eq!(tool_start.1["index"], 1, "after the leading text block");
    assert_eq!(tool_start.1["content_block"]["name"], "Bash");
    assert_eq!(tool_start.1["content_block"]["input"], json!({}));
    let parts: Vec<&str> = events
        .iter()
        .filter(|(_, d)| d["delta"]["type"] == "input_json_delta")
        .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert!(parts.len() >= 3, "split in several chunks: {parts:?}");
    let input: Value = serde_json::from_str(&parts.concat()).unwrap();
    assert_eq!(
        input,
        json!({"command":"echo hi-from-bash","description":"run"})
    );
    assert_eq!(
        events[events.len() - 2].1["delta"]["stop_reason"],
        "tool_use"
    );
}

#[test]
fn non_streaming_json_message_and_tool_result_convention() {
    let stub = StubApi::start_with_conventions();
    let mut client = Client::connect(&stub);
    let body = json!({"model":"m","tools":[{"name":"Bash"}],"messages":[
        {"role":"user","content":"BASH:echo x"},
        {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]});
    let resp = client.request("POST", "/v1/messages", &body);
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    let msg = resp.json();
    assert_eq!(msg["type"], "message");
    assert_eq!(msg["content"], json!([{"type":"text","text":"done: x"}]));
    assert_eq!(msg["stop_reason"], "end_turn");
    assert!(msg["id"].as_str().unwrap().starts_with("msg_stub_"));
}

#[test]
fn error_reply_has_status_body_and_no_retry_hint() {
    let stub = StubApi::start();
    stub.push_reply(Reply::error(400, "invalid_request_error", "bad things"));
    stub.push_reply(Reply::error(529, "overloaded_error", "busy").retryable());
    let mut client = Client::connect(&stub);
    let resp = client.request("POST", "/v1/messages", &main_body("x", true));
    assert_eq!(resp.status, 400);
    assert_eq!(resp.header("x-should-retry"), Some("false"));
    assert_eq!(
        resp.json(),
        json!({"type":"error","error":{"type":"invalid_request_error","message":"bad things"},
               "request_id":"req_stub_1"})
    );
    let resp = client.request("POST", "/v1/messages", &main_body("x", true));
    assert_eq!(resp.status, 529);
    assert_eq!(resp.header("x-should-retry"), None);
}

#[test]
fn queue_then_rules_then_echo_and_side_requests_apart() {
    let stub = StubApi::start();
    stub.add_rule(Rule::when_last_user_contains("hello").reply(Reply::text("hi")));
    stub.add_rule(Rule::any().reply(Reply::text("only once")).once());
    stub.push_reply(Reply::text("queued"));
    let mut client = Client::connect(&stub);
    let ask = |client: &mut Client, text: &str| {
        client
            .request("POST", "/v1/messages", &main_body(text, false))
            .json()["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(ask(&mut client, "hello"), "queued");
    assert_eq!(ask(&mut client, "hello"), "hi");
    assert_eq!(ask(&mut client, "other"), "only once");
    assert_eq!(ask(&mut client, "other"), "echo: other");
    // A side request (no tools) takes neither queued replies nor rules.
    stub.push_reply(Reply::text("for the main loop"));
    let side = json!({"model":"haiku","messages":[{"role":"user","content":"hello"}]});
    let resp = client.request("POST", "/v1/messages", &side).json();
    assert_eq!(resp["content"][0]["text"], "ok");
    assert_eq!(ask(&mut client, "x"), "for the main loop");
}

#[test]
fn count_tokens_other_paths_and_recording() {
    let stub = StubApi::start();
    let mut client = Client::connect(&stub);
    let resp = client.request(
        "POST",
        "/v1/messages/count_tokens",
        &main_body("abcd", false),
    );
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json(), json!({"input_tokens": 11}));
    let resp = client.request("GET", "/v1/whatever", &json!({}));
    assert_eq!((resp.status, resp.json()), (200, json!({})));
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/messages/count_tokens");
    assert_eq!(requests[0].header("X-API-KEY"), Some("sk-ant-dummy"));
    assert_eq!(requests[0].body["model"], "claude-test");
    assert_eq!(requests[0].last_user_text().as_deref(), Some("abcd"));
    assert_eq!(requests[1].route(), "/v1/whatever");
    assert!(stub.main_requests().is_empty(), "no Messages call yet");
}

#[test]
fn delayed_reply_and_parallel_connections() {
    let stub = StubApi::start();
    stub.push_reply(Reply::delay(
        Duration::from_millis(300),
        Reply::text("slow"),
    ));
    let addr = stub.addr();
    let slow = std::thread::spawn(move || {
        let stream = TcpStream::connect(addr).unwrap();
        let mut client = Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        };
        let started = Instant::now();
        let resp = client.request("POST", "/v1/messages", &main_body("a", false));
        (started.elapsed(), resp.json()["content"][0]["text"].clone())
    });
    assert!(stub.wait_for_requests(1, Duration::from_secs(5)));
    // A second connection is served while the first waits.
    let started = Instant::now();
    let fast = Client::connect(&stub).request("POST", "/v1/messages", &main_body("b", false));
    assert!(started.elapsed() < Duration::from_millis(250));
    assert_eq!(fast.json()["content"][0]["text"], "echo: b");
    let (elapsed, text) = slow.join().unwrap();
    assert!(elapsed >= Duration::from_millis(300));
    assert_eq!(text, "slow");
}

#[test]
fn drop_closes_open_connections() {
    let stub = StubApi::start();
    let mut client = Client::connect(&stub);
    client.request("GET", "/", &json!({}));
    let addr = stub.addr();
    drop(stub);
    let mut buf = [0u8; 1];
    assert_eq!(
        client.reader.read(&mut buf).unwrap_or(0),
        0,
        "connection closed"
    );
    assert!(TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err());
}

#[test]
fn connection_close_ends_the_connection_after_the_answer() {
    let stub = StubApi::start();
    let mut stream = TcpStream::connect(stub.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
        .write_all(b"GET /v1/models HTTP/1.1\r\nHost: stub\r\nConnection: close\r\n\r\n")
        .unwrap();
    // Reading to the end returns once the answer is written: the stub closes its side.
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("the stub closed the connection after its answer");
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
}
