//! Stepping the fake CLI with an in-test SDK side: write lines in, read lines out, no process.

use std::time::Duration;

use serde_json::{json, Value};

use super::{canned, Answer, Condition, FakeCli, FakeResult, Script, Step, ToolUse};

/// The SDK side of a test: writes JSON lines, reads what the fake printed.
struct Sdk {
    cli: FakeCli,
}

impl Sdk {
    fn new(script: Script) -> Self {
        Self {
            cli: FakeCli::new(script),
        }
    }

    fn send(&mut self, v: Value) {
        self.cli.handle_stdin(format!("{v}\n").as_bytes());
    }

    fn raw_out(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(chunk) = self.cli.poll_stdout() {
            assert!(chunk.ends_with(b"\n"), "chunks hold whole lines");
            out.extend(chunk);
        }
        out
    }

    fn lines(&mut self) -> Vec<Value> {
        self.raw_out()
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    fn stderr(&mut self) -> String {
        let mut s = String::new();
        while let Some(chunk) = self.cli.poll_stderr() {
            s.push_str(&String::from_utf8_lossy(&chunk));
        }
        s
    }
}

fn initialize(id: &str) -> Value {
    json!({"type":"control_request","request_id":id,"request":{"subtype":"initialize","hooks":null}})
}

fn user(text: &str) -> Value {
    json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":""})
}

fn request(id: &str, subtype: &str) -> Value {
    json!({"type":"control_request","request_id":id,"request":{"subtype":subtype}})
}

fn allow(id: &str) -> Value {
    json!({"type":"control_response","response":{"subtype":"success","request_id":id,
           "response":{"behavior":"allow","updatedInput":{}}}})
}

#[test]
fn single_turn_answers_initialize_with_the_sdk_id_then_plays_the_turn() {
    let mut sdk = Sdk::new(Script::single_turn("hi there"));
    assert!(sdk.lines().is_empty(), "nothing before initialize");
    sdk.send(initialize("init-7"));
    let out = sdk.lines();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["type"], "control_response");
    assert_eq!(out[0]["response"]["request_id"], "init-7");
    assert_eq!(out[0]["response"]["subtype"], "success");
    assert!(out[0]["response"]["response"]["models"].is_array());
    assert_eq!(
        sdk.cli.waiting_for().as_deref(),
        Some("an SDK line matching User")
    );
    sdk.send(user("hello"));
    let out = sdk.lines();
    let kinds: Vec<&str> = out.iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["system", "assistant", "result"]);
    assert_eq!(out[1]["message"]["content"][0]["text"], "hi there");
    assert_eq!(out[2]["result"], "hi there");
    assert_ne!(out[0]["uuid"], out[1]["uuid"]);
    assert_eq!(sdk.cli.poll_exit(), None);
    sdk.cli.handle_stdin_eof();
    assert_eq!(sdk.cli.poll_exit(), Some(0));
    assert_eq!(sdk.cli.received().len(), 2);
}

#[test]
fn input_in_any_chunking_is_the_same() {
    let bytes = format!("{}\n{}\n", initialize("a"), user("x"));
    for size in [1, 7, 4096] {
        let mut sdk = Sdk::new(Script::single_turn("ok"));
        for chunk in bytes.as_bytes().chunks(size) {
            sdk.cli.handle_stdin(chunk);
        }
        assert_eq!(sdk.lines().len(), 4, "chunk size {size}");
    }
}

#[test]
fn can_use_tool_waits_for_the_answer_to_its_own_id() {
    let script = Script::new()
        .can_use_tool("perm-1", "Bash", json!({"command":"ls"}))
        .emit_assistant_text("ran")
        .exit(0);
    let mut sdk = Sdk::new(script);
    let out = sdk.lines();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["type"], "control_request");
    assert_eq!(out[0]["request_id"], "perm-1");
    assert_eq!(out[0]["request"]["subtype"], "can_use_tool");
    assert_eq!(out[0]["request"]["tool_name"], "Bash");
    sdk.send(allow("someone-else"));
    assert!(
        sdk.lines().is_empty(),
        "an answer to another id does not count"
    );
    sdk.send(allow("perm-1"));
    let out = sdk.lines();
    assert_eq!(out[0]["message"]["content"][0]["text"], "ran");
    assert_eq!(sdk.cli.poll_exit(), Some(0));
}

#[test]
fn sdk_requests_are_answered_automatically_while_the_script_waits() {
    let script = Script::new()
        .answer_initialize()
        .expect_request_as("set_model", "m")
        .respond("m", Answer::success(json!({"model":"opus"})))
        .auto_answer_like_cli();
    let mut sdk = Sdk::new(script);
    // initialize and set_model are waited for by steps: not auto-answered.
    sdk.send(request("i1", "interrupt"));
    sdk.send(request("b1", "bogus"));
    let out = sdk.lines();
    assert_eq!(out.len(), 2);
    assert_eq!(out[0]["response"]["request_id"], "i1");
    assert_eq!(out[0]["response"]["response"], json!({"still_queued": []}));
    assert_eq!(out[1]["response"]["subtype"], "error");
    assert_eq!(
        out[1]["response"]["error"],
        "Unsupported control request subtype: bogus"
    );
    assert_eq!(out[1]["response"]["error_code"], "unsupported_request");
    sdk.send(request("s1", "set_model"));
    assert!(
        sdk.lines().is_empty(),
        "set_model waits for the script (behind initialize)"
    );
    sdk.send(initialize("init"));
    let out = sdk.lines();
    assert_eq!(out.len(), 2);
    assert_eq!(out[0]["response"]["request_id"], "init");
    assert_eq!(out[1]["response"]["request_id"], "s1");
    assert_eq!(out[1]["response"]["response"], json!({"model":"opus"}));
    // The script's set_model step is used up: the next one is auto-answered.
    sdk.send(request("s2", "set_model"));
    let out = sdk.lines();
    assert_eq!(out[0]["response"]["request_id"], "s2");
    assert_eq!(
        out[0]["response"]["response"],
        json!({"model":"claude-opus-5-5"})
    );
}

#[test]
fn never_answering_initialize_leaves_it_pending() {
    let mut sdk = Sdk::new(Script::new().expect_user());
    sdk.send(initialize("i"));
    assert!(sdk.lines().is_empty());
    assert_eq!(sdk.cli.poll_exit(), None);
}

#[test]
fn exit_before_initialize_with_stderr() {
    let mut sdk = Sdk::new(Script::new().stderr("boom\n").exit(3).answer_initialize());
    assert_eq!(sdk.cli.poll_exit(), None, "stderr not drained yet");
    assert_eq!(sdk.stderr(), "boom\n");
    assert_eq!(sdk.cli.poll_exit(), Some(3));
    sdk.send(initialize("i"));
    assert!(sdk.lines().is_empty(), "an exited CLI answers nothing");
}

#[test]
fn a_non_json_line_from_the_sdk_kills_it_like_the_real_cli() {
    let mut sdk = Sdk::new(Script::single_turn("x"));
    sdk.cli.handle_stdin(b"this is not json\n");
    assert_eq!(
        sdk.stderr(),
        "Error parsing streaming input line (type=unknown, 16 chars): SyntaxError\n"
    );
    assert_eq!(sdk.cli.poll_exit(), Some(1));
}

#[test]
fn eof_while_waiting_exits_1_and_says_why() {
    let mut sdk = Sdk::new(Script::new().answer_initialize());
    sdk.cli.handle_stdin_eof();
    assert!(sdk
        .stderr()
        .contains("stdin closed while waiting for an initialize request"));
    assert_eq!(sdk.cli.poll_exit(), Some(1));
}

#[test]
fn garbage_ansi_long_lines_and_floods() {
    let line = json!({"type":"keep_alive"}).to_string();
    let script = Script::new()
        .emit_garbage()
        .emit_ansi_prefixed(&line)
        .emit_long_line(100_000)
        .flood(&line, 10_000)
        .emit("last")
        .exit(0);
    let mut sdk = Sdk::new(script);
    let mut chunks = 0;
    let mut out = Vec::new();
    while let Some(chunk) = sdk.cli.poll_stdout() {
        chunks += 1;
        out.extend(chunk);
    }
    let lines: Vec<&[u8]> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), 3 + 10_000 + 1);
    assert_eq!(lines[0], b"this is not json {");
    assert!(lines[1].starts_with(b"\x1b[") && lines[1].ends_with(line.as_bytes()));
    assert_eq!(lines[2].len(), 100_000);
    assert!(lines[3..10_003].iter().all(|l| *l == line.as_bytes()));
    assert_eq!(lines[10_003], b"last");
    assert!(
        chunks > 4 && chunks < 100,
        "floods come in batches: {chunks}"
    );
    assert_eq!(sdk.cli.poll_exit(), Some(0));
}

#[test]
fn cancel_and_other_cli_requests() {
    let script = Script::new()
        .send_request(
            "h1",
            json!({"subtype":"hook_callback","callback_id":"hook_0","input":{}}),
        )
        .cancel("h1")
        .mcp_message(
            "m1",
            "calc",
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .elicitation("e1", "calc", "name?")
        .send_request("u1", json!({"subtype":"brand_new_thing"}))
        .expect_response("u1");
    let mut sdk = Sdk::new(script);
    let out = sdk.lines();
    assert_eq!(out.len(), 3);
    assert_eq!(
        out[1],
        json!({"type":"control_cancel_request","request_id":"h1"})
    );
    assert_eq!(out[2]["request"]["subtype"], "mcp_message");
    assert_eq!(out[2]["request"]["server_name"], "calc");
    sdk.send(allow("m1"));
    let out = sdk.lines();
    assert_eq!(out[0]["request"]["subtype"], "elicitation");
    sdk.send(allow("e1"));
    assert_eq!(sdk.lines()[0]["request"]["subtype"], "brand_new_thing");
    sdk.send(json!({"type":"control_response","response":{"subtype":"error","request_id":"u1","error":"no"}}));
    sdk.cli.handle_stdin_eof();
    assert_eq!(sdk.cli.poll_exit(), Some(0));
}

#[test]
fn sleep_is_handed_to_the_driver() {
    let mut sdk = Sdk::new(
        Script::new()
            .emit("a")
            .sleep(Duration::from_millis(250))
            .emit("b"),
    );
    assert_eq!(sdk.raw_out(), b"a\n");
    assert_eq!(sdk.cli.poll_sleep(), Some(Duration::from_millis(250)));
    assert_eq!(sdk.cli.poll_sleep(), None);
    assert!(sdk.raw_out().is_empty());
    sdk.cli.handle_wake();
    assert_eq!(sdk.raw_out(), b"b\n");
}

#[test]
fn hang_ignores_everything() {
    let script = Script::new().hang().auto_answer_others(Answer::ack());
    let mut sdk = Sdk::new(script);
    sdk.send(request("x", "interrupt"));
    sdk.cli.handle_stdin_eof();
    assert!(sdk.lines().is_empty());
    assert_eq!(sdk.cli.poll_exit(), None);
    assert_eq!(sdk.cli.received().len(), 1);
}

#[test]
fn script_json_form_round_trips_and_is_readable() {
    let script = Script::single_turn("x")
        .can_use_tool("p", "Bash", json!({}))
        .flood("{}", 3)
        .auto_answer("interrupt", Answer::ack())
        .auto_answer_others(Answer::Unsupported);
    let text = serde_json::to_string(&script).unwrap();
    let back: Script = serde_json::from_str(&text).unwrap();
    assert_eq!(back.steps, script.steps);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["steps"][0], json!({"step":"answer_initialize"}));
    assert_eq!(
        v["steps"][1],
        json!({"step":"expect","matcher":{"kind":"user"}})
    );
    assert_eq!(v["auto_answers"]["interrupt"], json!({"outcome":"success"}));
    let hand_written: Script =
        serde_json::from_str(r#"{"steps":[{"step":"emit","line":"x"},{"step":"exit","code":4}]}"#)
            .unwrap();
    let mut cli = FakeCli::new(hand_written);
    assert_eq!(cli.poll_stdout(), Some(b"x\n".to_vec()));
    assert_eq!(cli.poll_exit(), Some(4));
}

fn keys(v: &Value) -> std::collections::BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn deny(id: &str, message: &str) -> Value {
    json!({"type":"control_response","response":{"subtype":"success","request_id":id,
           "response":{"behavior":"deny","message":message}}})
}

fn answer_error(id: &str) -> Value {
    json!({"type":"control_response","response":{"subtype":"error","request_id":id,"error":"boom"}})
}

fn answer(id: &str, body: Value) -> Value {
    json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":body}})
}

#[test]
fn a_result_with_figures_sets_them_and_keeps_every_other_field() {
    let script = Script::new().emit_result("plain").emit_result_with(
        FakeResult::success("done")
            .cost_usd(0.25)
            .num_turns(3)
            .usage(120, 40)
            .session_id("s-1")
            .duration_ms(20),
    );
    let out = Sdk::new(script).lines();
    assert_eq!(
        out[0],
        canned::result_success("plain", 1),
        "emit_result is unchanged"
    );
    let r = &out[1];
    assert_eq!(keys(r), keys(&out[0]));
    assert_eq!(
        (
            r["type"].as_str(),
            r["subtype"].as_str(),
            r["is_error"].as_bool()
        ),
        (Some("result"), Some("success"), Some(false))
    );
    assert_eq!(r["result"], "done");
    assert_eq!(r["terminal_reason"], "completed");
    assert_eq!(r["total_cost_usd"], 0.25);
    assert_eq!(r["num_turns"], 3);
    assert_eq!(r["session_id"], "s-1");
    assert_eq!(r["duration_ms"], 20);
    assert_eq!(r["duration_api_ms"], 20, "not longer than the whole turn");
    assert_eq!(
        (&r["usage"]["input_tokens"], &r["usage"]["output_tokens"]),
        (&json!(120), &json!(40))
    );
    for key in ["modelUsage", "model_usage_since_last_result"] {
        let model = &r[key][canned::MODEL];
        assert_eq!(
            (
                &model["inputTokens"],
                &model["outputTokens"],
                &model["costUSD"]
            ),
            (&json!(120), &json!(40), &json!(0.25)),
            "{key}"
        );
    }
    assert_ne!(r["uuid"], out[0]["uuid"]);
}

#[test]
fn error_results_carry_errors_and_no_result_text() {
    let denied = ToolUse::new(
        "toolu_fake_1_1",
        "Bash",
        json!({"command":"ls -la /","description":"run"}),
    );
    let script = Script::new()
        .emit_result_with(FakeResult::error_max_turns(2))
        .emit_result_with(
            FakeResult::error_during_execution()
                .errors(["interrupted"])
                .terminal_reason("aborted_streaming"),
        )
        .emit_result_with(FakeResult::error("error_brand_new"))
        .emit_result_with(FakeResult::api_error(400, "stub says no"))
        .emit_result_with(FakeResult::success("meh").is_error(true))
        .emit_result_with(FakeResult::success("refused").permission_denial(&denied));
    let out = Sdk::new(script).lines();

    let max_turns = &out[0];
    assert_eq!(max_turns["subtype"], "error_max_turns");
    assert_eq!(max_turns["is_error"], true);
    assert_eq!(
        max_turns["errors"],
        json!(["Reached maximum number of turns (2)"])
    );
    assert_eq!(max_turns["terminal_reason"], "max_turns");
    assert_eq!(max_turns["num_turns"], 2);
    assert_eq!(max_turns["stop_reason"], Value::Null);
    for success_only in ["result", "api_error_status", "ttft_ms"] {
        assert!(max_turns.get(success_only).is_none(), "{success_only}");
    }
    assert!(max_turns["usage"].is_object() && max_turns["total_cost_usd"].is_number());

    assert_eq!(out[1]["subtype"], "error_during_execution");
    assert_eq!(out[1]["errors"], json!(["interrupted"]));
    assert_eq!(out[1]["terminal_reason"], "aborted_streaming");

    assert_eq!(out[2]["subtype"], "error_brand_new");
    assert_eq!(out[2]["errors"], json!([]));
    assert!(out[2].get("terminal_reason").is_none());

    let api = &out[3];
    assert_eq!(
        (api["subtype"].as_str(), api["is_error"].as_bool()),
        (Some("success"), Some(true))
    );
    assert_eq!(api["api_error_status"], 400);
    assert_eq!(api["terminal_reason"], "api_error");
    assert_eq!(api["result"], "API Error: 400 stub says no");
    assert!(api.get("errors").is_none());

    assert_eq!(out[4]["is_error"], true);
    assert_eq!(out[4]["subtype"], "success");

    assert_eq!(out[5]["permission_denials"][0]["tool_name"], "Bash");
}

/// A permission flow: the fake asks about `ls`, then plays the arm the SDK's answer chooses.
fn permission_flow() -> Script {
    let ls = ToolUse::new("toolu_1", "Bash", json!({"command": "ls"}));
    Script::new()
        .emit_tool_use(&ls)
        .can_use_tool_then(
            "p1",
            &ls,
            |allowed| allowed.emit_tool_result(&ls, "src").emit_result("listed"),
            |denied| {
                denied
                    .emit_tool_error(&ls, "not allowed")
                    .emit_result_with(FakeResult::error_during_execution())
            },
        )
        .emit_assistant_text("after the branch")
}

#[test]
fn can_use_tool_then_waits_for_the_answer_and_takes_the_arm_it_chooses() {
    for (answer, arm_kinds, arm_texts) in [
        (
            allow("p1"),
            ["user", "result"],
            [
                json!([{"type":"tool_result","tool_use_id":"toolu_1","content":"src","is_error":false}]),
                json!("listed"),
            ],
        ),
        (
            deny("p1", "no"),
            ["user", "result"],
            [
                json!([{"type":"tool_result","tool_use_id":"toolu_1","content":"not allowed","is_error":true}]),
                Value::Null,
            ],
        ),
        (
            answer_error("p1"),
            ["user", "result"],
            [
                json!([{"type":"tool_result","tool_use_id":"toolu_1","content":"not allowed","is_error":true}]),
                Value::Null,
            ],
        ),
    ] {
        let mut sdk = Sdk::new(permission_flow());
        let out = sdk.lines();
        assert_eq!(out.len(), 2);
        assert_eq!(out[1]["type"], "control_request");
        assert_eq!(
            out[1]["request"],
            json!({"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},
                   "tool_use_id":"toolu_1"})
        );
        assert_eq!(
            sdk.cli.waiting_for().as_deref(),
            Some(r#"the SDK's answer to request "p1" (for a branch)"#)
        );
        sdk.send(allow("someone-else"));
        assert!(
            sdk.lines().is_empty(),
            "an answer to another id decides nothing"
        );
        sdk.send(answer.clone());
        let out = sdk.lines();
        let kinds: Vec<&str> = out.iter().map(|m| m["type"].as_str().unwrap()).collect();
        assert_eq!(kinds[..2], arm_kinds, "{answer}");
        assert_eq!(out[0]["message"]["content"], arm_texts[0], "{answer}");
        if arm_texts[1].is_null() {
            assert_eq!(out[1]["subtype"], "error_during_execution", "{answer}");
        } else {
            assert_eq!(out[1]["result"], arm_texts[1], "{answer}");
        }
        assert_eq!(out[2]["message"]["content"][0]["text"], "after the branch");
        assert_eq!(out.len(), 3);
        assert_eq!(
            sdk.cli.waiting_for().as_deref(),
            Some("stdin to close (script finished)")
        );
    }
}

#[test]
fn a_branch_uses_an_answer_that_came_earlier_or_was_already_waited_for() {
    let arms = |s: Script| {
        s.branch(
            "p1",
            Condition::Denied,
            |denied| denied.emit_assistant_text("denied"),
            |other| other.emit_assistant_text("not denied"),
        )
    };
    // Waited for by can_use_tool itself, then branched on.
    let mut sdk = Sdk::new(arms(Script::new().can_use_tool("p1", "Bash", json!({}))));
    sdk.lines();
    sdk.send(deny("p1", "no"));
    assert_eq!(sdk.lines()[0]["message"]["content"][0]["text"], "denied");

    // Answered while the fake waited for something else.
    let mut sdk = Sdk::new(arms(
        Script::new()
            .send_request(
                "p1",
                json!({"subtype":"can_use_tool","tool_name":"Bash","input":{}}),
            )
            .expect_user(),
    ));
    sdk.lines();
    sdk.send(allow("p1"));
    assert!(sdk.lines().is_empty());
    sdk.send(user("go"));
    assert_eq!(
        sdk.lines()[0]["message"]["content"][0]["text"],
        "not denied"
    );

    // Sent as a raw line the script emits.
    let request = json!({"type":"control_request","request_id":"p1",
                         "request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}});
    let mut sdk = Sdk::new(arms(Script::new().emit_json(&request)));
    assert_eq!(sdk.lines(), [request]);
    sdk.send(deny("p1", "no"));
    assert_eq!(sdk.lines()[0]["message"]["content"][0]["text"], "denied");
}

#[test]
fn conditions_test_the_answer() {
    let mcp = answer(
        "m1",
        json!({"mcp_response":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"42"}]}}}),
    );
    let hook = answer(
        "h1",
        json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}),
    );
    let cases = [
        (Condition::Success, &allow("p"), true),
        (Condition::Success, &answer_error("p"), false),
        (Condition::Error, &answer_error("p"), true),
        (Condition::Error, &allow("p"), false),
        (Condition::Allowed, &allow("p"), true),
        (Condition::Allowed, &deny("p", "x"), false),
        (Condition::Allowed, &answer_error("p"), false),
        (Condition::Denied, &deny("p", "x"), true),
        (Condition::Denied, &allow("p"), false),
        (Condition::Denied, &answer_error("p"), false),
        (
            Condition::equals("/mcp_response/result/content/0/text", json!("42")),
            &mcp,
            true,
        ),
        (
            Condition::equals("/mcp_response/result/content/0/text", json!("41")),
            &mcp,
            false,
        ),
        (
            Condition::equals("/hookSpecificOutput/permissionDecision", json!("deny")),
            &hook,
            true,
        ),
        (Condition::equals("/missing", Value::Null), &hook, false),
        (
            Condition::equals("", json!({"behavior":"deny","message":"x"})),
            &deny("p", "x"),
            true,
        ),
    ];
    for (condition, line, expected) in cases {
        assert_eq!(condition.holds(line), expected, "{condition:?} on {line}");
    }
}

/// Every `uuid` and `message.id` of the canned lines a script would print, in all its branches.
fn canned_ids(steps: &[Step], ids: &mut Vec<String>) {
    for step in steps {
        match step {
            Step::Emit { line } => {
                let v: Value = serde_json::from_str(line).unwrap();
                ids.push(v["uuid"].as_str().unwrap().to_owned());
                if let Some(id) = v.pointer("/message/id").and_then(Value::as_str) {
                    ids.push(id.to_owned());
                }
            }
            Step::Branch {
                then, otherwise, ..
            } => {
                canned_ids(then, ids);
                canned_ids(otherwise, ids);
            }
            _ => {}
        }
    }
}

#[test]
fn canned_messages_in_branches_are_numbered_uniquely_across_the_script() {
    let script = Script::new()
        .emit_assistant_text("before")
        .send_request("p1", json!({"subtype":"can_use_tool"}))
        .branch(
            "p1",
            Condition::Allowed,
            |yes| {
                yes.emit_assistant_text("a")
                    .send_request("p2", json!({"subtype":"can_use_tool"}))
                    .branch(
                        "p2",
                        Condition::Allowed,
                        |yes| yes.emit_assistant_text("b").emit_result("b"),
                        |no| no.emit_result("c"),
                    )
                    .emit_assistant_text("d")
            },
            |no| no.emit_assistant_text("e").emit_result("e"),
        )
        .emit_result("end");
    let mut ids = Vec::new();
    canned_ids(&script.steps, &mut ids);
    assert_eq!(ids.len(), 2 + 4 + 1 + 1 + 1 + 1 + 2 + 1 + 1, "{ids:?}");
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
}

#[test]
fn a_branch_on_a_request_never_sent_is_reported_and_exits_1() {
    let script = Script::new().branch("nope", Condition::Success, |s| s, |s| s);
    let mut sdk = Sdk::new(script);
    assert_eq!(
        sdk.stderr(),
        "fake-claude: the script branches on the answer to request \"nope\", which it has not sent\n"
    );
    assert_eq!(sdk.cli.poll_exit(), Some(1));
}

#[test]
fn requests_held_for_the_arm_not_taken_are_answered_automatically() {
    let script = |_: ()| {
        Script::new()
            .send_request("p1", json!({"subtype":"can_use_tool"}))
            .branch(
                "p1",
                Condition::Allowed,
                |yes| {
                    yes.expect_request_as("set_model", "m")
                        .respond("m", Answer::success(json!({"model":"scripted"})))
                },
                |no| no,
            )
            .auto_answer_like_cli()
    };
    for (decision, model) in [
        (allow("p1"), "scripted"),
        (deny("p1", "no"), "claude-opus-5-5"),
    ] {
        let mut sdk = Sdk::new(script(()));
        sdk.lines();
        sdk.send(request("s1", "set_model"));
        sdk.send(request("i1", "interrupt"));
        let out = sdk.lines();
        assert_eq!(out.len(), 1, "set_model is held while one arm may want it");
        assert_eq!(out[0]["response"]["request_id"], "i1");
        sdk.send(decision);
        let out = sdk.lines();
        assert_eq!(out.len(), 1, "{model}");
        assert_eq!(out[0]["response"]["request_id"], "s1");
        assert_eq!(out[0]["response"]["response"]["model"], model);
    }
}

/// The recorded `initialize` request of `hooks.jsonl`, with another request id.
fn initialize_with_hooks(hooks: Value) -> Value {
    json!({"type":"control_request","request_id":"init","request":{"subtype":"initialize","hooks":hooks}})
}

#[test]
fn a_hook_step_calls_the_matching_callbacks_and_waits_for_all_their_answers() {
    let bash = ToolUse::new("toolu_1", "Bash", json!({"command":"ls"}));
    let add = ToolUse::mcp("toolu_2", "calc", "add", json!({"a":1}));
    let write = ToolUse::new("toolu_3", "Write", json!({"file_path":"x"}));
    let script = Script::new()
        .answer_initialize()
        .pre_tool_use_hook("h1", &bash)
        .pre_tool_use_hook("h2", &add)
        .pre_tool_use_hook("h3", &write)
        .emit_assistant_text("end");
    let mut sdk = Sdk::new(script);
    sdk.send(initialize_with_hooks(json!({
        "PreToolUse": [
            {"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 30},
            {"matcher": "Read", "hookCallbackIds": ["hook_2"]},
            {"matcher": "mcp__calc__.*", "hookCallbackIds": ["hook_3"]},
            {"matcher": null, "hookCallbackIds": ["hook_4"]},
        ],
        "PostToolUse": [{"matcher": null, "hookCallbackIds": ["hook_5"]}],
    })));
    let called = |out: &[Value]| -> Vec<(String, String)> {
        out.iter()
            .filter(|m| m["type"] == "control_request")
            .map(|m| {
                (
                    m["request_id"].as_str().unwrap().to_owned(),
                    m["request"]["callback_id"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    };
    let out = sdk.lines();
    assert_eq!(
        called(&out),
        pairs(&[("h1", "hook_0"), ("h1-2", "hook_1"), ("h1-3", "hook_4")])
    );
    sdk.send(answer("h1-3", json!({})));
    sdk.send(answer("h1", json!({})));
    assert!(sdk.lines().is_empty(), "one answer is missing");
    assert_eq!(
        sdk.cli.waiting_for().as_deref(),
        Some(r#"the SDK's answers to PreToolUse hook callbacks ["h1-2"]"#)
    );
    sdk.send(answer("h1-2", json!({})));
    assert_eq!(
        called(&sdk.lines()),
        pairs(&[("h2", "hook_3"), ("h2-2", "hook_4")])
    );
    sdk.send(answer("h2", json!({})));
    sdk.send(answer("h2-2", json!({})));
    assert_eq!(called(&sdk.lines()), pairs(&[("h3", "hook_4")]));
    sdk.send(answer("h3", json!({})));
    assert_eq!(sdk.lines()[0]["message"]["content"][0]["text"], "end");
}

#[test]
fn with_no_matching_hook_registered_a_hook_step_sends_nothing() {
    let bash = ToolUse::new("toolu_1", "Bash", json!({}));
    for hooks in [
        Value::Null,
        json!({"Stop": [{"matcher": null, "hookCallbackIds": ["hook_0"]}]}),
        json!({"PreToolUse": [{"matcher": "Read|Write", "hookCallbackIds": ["hook_0"]}]}),
    ] {
        let script = Script::new()
            .answer_initialize()
            .pre_tool_use_hook("h1", &bash)
            .emit_assistant_text("next");
        let mut sdk = Sdk::new(script);
        sdk.send(initialize_with_hooks(hooks.clone()));
        let out = sdk.lines();
        assert_eq!(out.len(), 2, "{hooks}");
        assert_eq!(out[1]["type"], "assistant", "{hooks}");
        assert_eq!(sdk.stderr(), "");
    }
}

#[test]
fn a_hook_step_waits_for_initialize_to_learn_the_hooks() {
    let script = Script::new()
        .stop_hook("h1", "bye")
        .emit_assistant_text("after");
    let mut sdk = Sdk::new(script);
    assert!(sdk.lines().is_empty());
    assert_eq!(
        sdk.cli.waiting_for().as_deref(),
        Some("an initialize request (to call the Stop hooks it registers)")
    );
    sdk.send(initialize_with_hooks(
        json!({"Stop": [{"matcher": null, "hookCallbackIds": ["hook_9"]}]}),
    ));
    let out = sdk.lines();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["request"]["callback_id"], "hook_9");
    assert_eq!(out[0]["request"]["input"]["last_assistant_message"], "bye");
}

#[test]
fn a_matcher_beyond_the_supported_regex_subset_is_reported_not_called() {
    let bash = ToolUse::new("toolu_1", "Bash", json!({}));
    let script = Script::new()
        .answer_initialize()
        .pre_tool_use_hook("h1", &bash)
        .emit_assistant_text("next");
    let mut sdk = Sdk::new(script);
    sdk.send(initialize_with_hooks(json!({"PreToolUse": [
        {"matcher": "(Bash|Read)", "hookCallbackIds": ["hook_0"]},
        {"matcher": "^Ba", "hookCallbackIds": ["hook_1"]},
    ]})));
    let out = sdk.lines();
    assert_eq!(out[1]["request"]["callback_id"], "hook_1");
    assert_eq!(out.len(), 2);
    assert_eq!(
        sdk.stderr(),
        "fake-claude: not calling the PreToolUse hooks with matcher \"(Bash|Read)\": a regular \
         expression this fake does not evaluate\n"
    );
}

#[test]
#[should_panic(expected = "call_tool needs an MCP tool named mcp__<server>__<tool>, not \"Bash\"")]
fn call_tool_of_a_tool_that_is_not_mcp_panics() {
    let _ = Script::new().call_tool("m1", &ToolUse::new("t", "Bash", json!({})));
}

#[test]
fn new_steps_round_trip_through_json_and_run_the_same() {
    let ls = ToolUse::new("toolu_1", "Bash", json!({"command":"ls"}));
    let add = ToolUse::mcp("toolu_2", "calc", "add", json!({"a":2,"b":40}));
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .user_prompt_submit_hook("h0", "hi")
        .emit_tool_use(&ls)
        .pre_tool_use_hook("h1", &ls)
        .can_use_tool_then(
            "p1",
            &ls,
            |yes| {
                yes.emit_tool_result(&ls, "src").post_tool_use_hook(
                    "h2",
                    &ls,
                    json!({"stdout":"src"}),
                )
            },
            |no| {
                no.emit_tool_error(&ls, "no")
                    .emit_result_with(FakeResult::error_during_execution())
            },
        )
        .call_tool("m1", &add)
        .branch(
            "m1",
            Condition::equals("/mcp_response/result/isError", json!(true)),
            |failed| failed.emit_result_with(FakeResult::error("error_during_execution")),
            |ok| {
                ok.stop_hook("h3", "42")
                    .emit_result_with(FakeResult::success("42").cost_usd(0.5))
            },
        )
        .hook(
            "h4",
            "Notification",
            None,
            json!({"message": "hi", "notification_type": "idle"}),
        );
    let text = serde_json::to_string(&script).unwrap();
    let back: Script = serde_json::from_str(&text).unwrap();
    assert_eq!(back, script);

    let v: Value = serde_json::from_str(&text).unwrap();
    let branch = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "branch")
        .unwrap();
    assert_eq!(branch["request_id"], "p1");
    assert_eq!(branch["when"], json!({"kind": "allowed"}));
    assert_eq!(branch["then"][0]["step"], "emit");
    assert_eq!(branch["then"][1]["step"], "call_hooks");
    assert_eq!(branch["otherwise"].as_array().unwrap().len(), 2);
    let equals = &v["steps"].as_array().unwrap().iter().rev().nth(1).unwrap()["when"];
    assert_eq!(
        *equals,
        json!({"kind": "equals", "pointer": "/mcp_response/result/isError", "value": true})
    );
    let hook = v["steps"].as_array().unwrap().last().unwrap();
    assert_eq!(hook["step"], "call_hooks");
    assert_eq!(hook["event"], "Notification");
    assert!(hook.get("match_query").is_none());
    assert_eq!(hook["input"]["notification_type"], "idle");
    let pre = &v["steps"][4];
    assert_eq!(
        (
            pre["step"].as_str(),
            pre["match_query"].as_str(),
            pre["tool_use_id"].as_str()
        ),
        (Some("call_hooks"), Some("Bash"), Some("toolu_1"))
    );

    // The same SDK lines get the same answers from both.
    let run = |script: Script| {
        let mut sdk = Sdk::new(script);
        sdk.send(initialize_with_hooks(json!({
            "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}],
            "PostToolUse": [{"matcher": null, "hookCallbackIds": ["hook_1"]}],
            "Stop": [{"matcher": null, "hookCallbackIds": ["hook_2"]}],
            "Notification": [{"matcher": null, "hookCallbackIds": ["hook_3"]}],
        })));
        sdk.send(user("hi"));
        for id in ["h1", "p1", "h2", "m1", "h3", "h4"] {
            if id == "p1" {
                sdk.send(allow(id));
            } else if id == "m1" {
                sdk.send(answer(
                    id,
                    json!({"mcp_response": {"result": {"isError": false}}}),
                ));
            } else {
                sdk.send(answer(id, json!({})));
            }
        }
        sdk.cli.handle_stdin_eof();
        (sdk.lines(), sdk.cli.poll_exit())
    };
    let (original, exit) = run(script);
    assert_eq!(exit, Some(0));
    let kinds: Vec<String> = original
        .iter()
        .map(|m| {
            format!(
                "{}/{}",
                m["type"].as_str().unwrap(),
                m["request_id"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "control_response/",
            "assistant/",
            "control_request/h1",
            "control_request/p1",
            "user/",
            "control_request/h2",
            "control_request/m1",
            "control_request/h3",
            "result/",
            "control_request/h4",
        ]
    );
    assert_eq!(run(back), (original, exit));
}
