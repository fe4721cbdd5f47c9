//! The fake CLI against the real CLI's recordings (in `core/tests/transcripts/`): it replays each
//! of them for an SDK that pipelines and for one that waits, and the lines it makes up are shaped
//! like the recorded ones. (An integration test because it reads files outside this package.)

use std::collections::VecDeque;

use claude_agent_testkit::fake_cli::{Condition, FakeCli, FakeResult, Script, ToolUse};
use serde_json::{json, Value};

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
}

fn transcripts() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/transcripts")
}

fn initialize(id: &str) -> Value {
    json!({"type":"control_request","request_id":id,"request":{"subtype":"initialize","hooks":null}})
}

fn user(text: &str) -> Value {
    json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":""})
}

fn initialize_with_hooks(hooks: Value) -> Value {
    json!({"type":"control_request","request_id":"sdk-init","request":{"subtype":"initialize","hooks":hooks}})
}

fn answer(id: &str, body: Value) -> Value {
    json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":body}})
}

#[test]
fn a_permission_denial_in_a_result_is_the_recorded_one() {
    let denied = ToolUse::new(
        "toolu_fake_1_1",
        "Bash",
        json!({"command":"ls -la /","description":"run"}),
    );
    let script =
        Script::new().emit_result_with(FakeResult::success("refused").permission_denial(&denied));
    let out = Sdk::new(script).lines();
    let recorded_result = recorded_msg("permission_deny.jsonl", |_, m| m["type"] == "result");
    assert_eq!(
        out[0]["permission_denials"],
        recorded_result["permission_denials"]
    );
}

/// Replays a fixture against its own recorded `in` lines, sent by a simulated SDK that uses
/// different request ids, and checks the fake prints the recorded `out` lines.
fn replay_fixture(name: &str, wait_for_initialize_answer: bool) {
    let path = transcripts().join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sdk_id = |id: &Value| Value::String(format!("sdk-{}", id.as_str().unwrap()));
    let mut to_send: VecDeque<Value> = VecDeque::new();
    let mut expected: Vec<Value> = Vec::new();
    let mut sdk_ids = Vec::new();
    for entry in &entries {
        let mut msg = entry["msg"].clone();
        if entry["dir"] == "in" {
            if msg["type"] == "control_request" {
                sdk_ids.push(msg["request_id"].clone());
                msg["request_id"] = sdk_id(&msg["request_id"]);
            }
            to_send.push_back(msg);
        } else {
            if msg["type"] == "control_response" && sdk_ids.contains(&msg["response"]["request_id"])
            {
                msg["response"]["request_id"] = sdk_id(&msg["response"]["request_id"]);
            }
            expected.push(msg);
        }
    }

    let mut sdk = Sdk::new(Script::from_transcript(&text).unwrap());
    let mut got: Vec<Value> = Vec::new();
    let mut initialized = false;
    for _ in 0..10_000 {
        got.extend(sdk.lines());
        initialized |= got.iter().any(|m| {
            m["type"] == "control_response" && m["response"]["request_id"] == sdk_id(&sdk_ids[0])
        });
        if to_send.is_empty() {
            break;
        }
        // Like a real SDK, answer the fake's requests as soon as they arrive, in any order.
        let answerable = to_send.iter().position(|m| {
            m["type"] == "control_response"
                && got.iter().any(|g| {
                    g["type"] == "control_request" && g["request_id"] == m["response"]["request_id"]
                })
        });
        if let Some(index) = answerable {
            let answer = to_send.remove(index).unwrap();
            sdk.send(answer);
            continue;
        }
        // Everything else in recorded order (a waiting SDK holds it until initialize is answered).
        let next = to_send.iter().position(|m| m["type"] != "control_response");
        let ready = next.is_some_and(|i| {
            !wait_for_initialize_answer
                || initialized
                || to_send[i]["request"]["subtype"] == "initialize"
        });
        assert!(
            ready,
            "{name}: deadlock; SDK holds {to_send:?}, fake waits for {:?}",
            sdk.cli.waiting_for()
        );
        let line = to_send.remove(next.unwrap()).unwrap();
        sdk.send(line);
    }
    got.extend(sdk.lines());
    assert!(to_send.is_empty());
    sdk.cli.handle_stdin_eof();
    assert_eq!(got.len(), expected.len(), "{name}");
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "{name}: out line {i}");
    }
    let failed = expected
        .iter()
        .rev()
        .find(|m| m["type"] == "result")
        .map(|m| m["is_error"] == true);
    assert_eq!(
        sdk.cli.poll_exit(),
        Some(i32::from(failed == Some(true))),
        "{name}"
    );
}

#[test]
fn every_fixture_replays_for_a_pipelining_sdk_and_a_waiting_sdk() {
    let dir = transcripts();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    assert!(names.len() >= 9, "{names:?}");
    for name in &names {
        replay_fixture(name, false);
        replay_fixture(name, true);
    }
}

#[test]
fn replayed_out_lines_keep_their_recorded_bytes() {
    let path = transcripts().join("hello.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut sdk = Sdk::new(Script::from_transcript(&text).unwrap());
    sdk.send(initialize("req_1"));
    sdk.send(user("hello there"));
    let out = String::from_utf8(sdk.raw_out()).unwrap();
    let recorded_result = text.lines().last().unwrap();
    let result_line = out.lines().last().unwrap();
    assert!(recorded_result.contains(result_line), "byte-exact out line");
    assert!(
        result_line.starts_with(r#"{"duration_api_ms":34,"#),
        "key order kept"
    );
}

/// The recorded messages of a fixture: `(from_sdk, msg)`.
fn recorded(name: &str) -> Vec<(bool, Value)> {
    let path = transcripts().join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let entry: Value = serde_json::from_str(l).unwrap();
            (entry["dir"] == "in", entry["msg"].clone())
        })
        .collect()
}

/// The first recorded message of a fixture that `pick` accepts.
fn recorded_msg(name: &str, pick: impl Fn(bool, &Value) -> bool) -> Value {
    recorded(name)
        .into_iter()
        .find(|(from_sdk, msg)| pick(*from_sdk, msg))
        .unwrap_or_else(|| panic!("{name} has no such message"))
        .1
}

/// The fields that differ between sessions (ids, times) set to fixed values.
fn without_session_details(mut msg: Value) -> Value {
    for key in ["session_id", "uuid", "timestamp"] {
        if msg.get(key).is_some() {
            msg[key] = json!(key);
        }
    }
    if msg.pointer("/message/id").is_some() {
        msg["message"]["id"] = json!("message id");
    }
    msg
}

#[test]
fn tool_use_and_tool_result_lines_are_shaped_like_the_recorded_ones() {
    let recorded_use = recorded_msg("tool_bash.jsonl", |_, m| {
        m.pointer("/message/content/0/type") == Some(&json!("tool_use"))
    });
    let block = &recorded_use["message"]["content"][0];
    let bash = ToolUse::new(
        block["id"].as_str().unwrap(),
        block["name"].as_str().unwrap(),
        block["input"].clone(),
    );
    let recorded_ok = recorded_msg("tool_bash.jsonl", |from_sdk, m| {
        !from_sdk && m["type"] == "user"
    });
    let recorded_denied = recorded_msg("permission_deny.jsonl", |from_sdk, m| {
        !from_sdk && m["type"] == "user"
    });
    let denied_id = recorded_denied["message"]["content"][0]["tool_use_id"]
        .as_str()
        .unwrap();
    let denied = ToolUse::new(denied_id, "Bash", json!({}));

    let script = Script::new()
        .emit_tool_use(&bash)
        .emit_tool_result(&bash, "hi-from-bash")
        .emit_tool_error(&denied, "not allowed by policy");
    let out = Sdk::new(script).lines();

    assert_eq!(
        without_session_details(out[0].clone()),
        without_session_details(recorded_use)
    );

    // The CLI adds tool_result_meta (how the permission was decided), which the fake does not
    // know; a Bash tool's tool_use_result is its own object, the fake's the output text.
    let mut expected_ok = without_session_details(recorded_ok);
    expected_ok
        .as_object_mut()
        .unwrap()
        .remove("tool_result_meta");
    expected_ok["tool_use_result"] = json!("hi-from-bash");
    assert_eq!(without_session_details(out[1].clone()), expected_ok);

    let mut expected_denied = without_session_details(recorded_denied);
    expected_denied
        .as_object_mut()
        .unwrap()
        .remove("tool_result_meta");
    assert_eq!(without_session_details(out[2].clone()), expected_denied);
    assert_eq!(out[2]["tool_use_result"], "Error: not allowed by policy");

    let uuids: std::collections::BTreeSet<&str> =
        out.iter().map(|m| m["uuid"].as_str().unwrap()).collect();
    assert_eq!(uuids.len(), 3);
}

fn hooks_initialize() -> Value {
    let mut init = recorded_msg("hooks.jsonl", |from_sdk, m| {
        from_sdk && m["type"] == "control_request"
    });
    init["request_id"] = json!("sdk-init");
    init
}

/// The recorded `hook_callback` request of `hooks.jsonl` for `event`.
fn recorded_hook_request(event: &str) -> Value {
    recorded_msg("hooks.jsonl", |from_sdk, m| {
        !from_sdk && m.pointer("/request/input/hook_event_name") == Some(&json!(event))
    })
}

#[test]
fn hooks_registered_in_initialize_are_called_with_inputs_like_the_cli() {
    let recorded_use = recorded_msg("hooks.jsonl", |_, m| {
        m.pointer("/message/content/0/type") == Some(&json!("tool_use"))
    });
    let block = &recorded_use["message"]["content"][0];
    let bash = ToolUse::new(
        block["id"].as_str().unwrap(),
        "Bash",
        block["input"].clone(),
    );
    let recorded_post = recorded_hook_request("PostToolUse");
    let tool_response = recorded_post["request"]["input"]["tool_response"].clone();
    let script = Script::new()
        .answer_initialize()
        .expect_user()
        .user_prompt_submit_hook("h0", "BASH:echo hooked")
        .emit_tool_use(&bash)
        .pre_tool_use_hook("h1", &bash)
        .post_tool_use_hook("h2", &bash, tool_response)
        .emit_assistant_text("done: hooked")
        .stop_hook("h3", "done: hooked")
        .emit_result("done: hooked");
    let mut sdk = Sdk::new(script);
    sdk.send(hooks_initialize());
    sdk.send(user("BASH:echo hooked"));
    for (event, id, expected_kinds) in [
        (
            "UserPromptSubmit",
            "h0",
            vec!["control_response", "control_request"],
        ),
        ("PreToolUse", "h1", vec!["assistant", "control_request"]),
        ("PostToolUse", "h2", vec!["control_request"]),
        ("Stop", "h3", vec!["assistant", "control_request"]),
    ] {
        let out = sdk.lines();
        let kinds: Vec<&str> = out.iter().map(|m| m["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, expected_kinds, "{event}");
        let sent = out.last().unwrap();
        let recorded = recorded_hook_request(event);
        assert_eq!(sent["request_id"], id);
        assert_eq!(sent["request"]["subtype"], "hook_callback");
        assert_eq!(
            sent["request"]["callback_id"], recorded["request"]["callback_id"],
            "{event}"
        );
        // The recording's session details, and the PostToolUse duration, are its own.
        let mut expected = recorded["request"]["input"].clone();
        for key in ["session_id", "transcript_path", "cwd", "prompt_id"] {
            expected[key] = sent["request"]["input"][key].clone();
        }
        expected.as_object_mut().unwrap().remove("duration_ms");
        assert_eq!(sent["request"]["input"], expected, "{event}");
        assert_eq!(
            sent["request"]["input"]["session_id"],
            "00000000-0000-4000-8000-0000000000aa"
        );
        let tool_use_id = sent["request"]["tool_use_id"].as_str().unwrap();
        if event.contains("ToolUse") {
            assert_eq!(tool_use_id, bash.id);
        } else {
            assert_eq!(
                tool_use_id.len(),
                36,
                "a UUID, as the CLI sends: {tool_use_id}"
            );
        }
        assert_eq!(
            sdk.cli.waiting_for(),
            Some(format!(
                "the SDK's answers to {event} hook callbacks [{id:?}]"
            ))
        );
        sdk.send(answer(id, json!({"continue": true})));
    }
    let out = sdk.lines();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["type"], "result");
}

#[test]
fn a_branch_on_a_hook_answer() {
    let rm = ToolUse::new("toolu_1", "Bash", json!({"command":"rm -rf build"}));
    let script = || {
        Script::new()
            .answer_initialize()
            .pre_tool_use_hook("h1", &rm)
            .branch(
                "h1",
                Condition::equals("/hookSpecificOutput/permissionDecision", json!("deny")),
                |blocked| blocked.emit_tool_error(&rm, "PreToolUse:Bash hook error: no"),
                |ran| ran.emit_tool_result(&rm, ""),
            )
    };
    let recorded_answer = recorded_msg("hook_deny.jsonl", |from_sdk, m| {
        from_sdk && m["type"] == "control_response"
    });
    for (body, is_error) in [
        (recorded_answer["response"]["response"].clone(), true),
        (json!({"continue": true}), false),
    ] {
        let mut sdk = Sdk::new(script());
        sdk.send(initialize_with_hooks(
            json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]}),
        ));
        assert_eq!(sdk.lines().len(), 2);
        sdk.send(answer("h1", body));
        let out = sdk.lines();
        assert_eq!(out[0]["message"]["content"][0]["is_error"], is_error);
    }
}

#[test]
fn call_tool_sends_a_tools_call_like_the_cli_and_waits_for_the_answer() {
    let recorded_call = recorded_msg("sdk_mcp.jsonl", |from_sdk, m| {
        !from_sdk && m.pointer("/request/message/method") == Some(&json!("tools/call"))
    });
    let recorded_answer = recorded_msg("sdk_mcp.jsonl", |from_sdk, m| {
        from_sdk && m.pointer("/response/request_id") == Some(&recorded_call["request_id"])
    });
    let message = &recorded_call["request"]["message"];
    let add = ToolUse::mcp(
        message["params"]["_meta"]["claudecode/toolUseId"]
            .as_str()
            .unwrap(),
        "calc",
        "add",
        message["params"]["arguments"].clone(),
    );
    let script = Script::new().call_tool("m1", &add).branch(
        "m1",
        Condition::equals("/mcp_response/result/content/0/text", json!("42")),
        |right| right.emit_tool_result(&add, "42"),
        |wrong| wrong.emit_tool_error(&add, "wrong"),
    );
    let mut sdk = Sdk::new(script);
    let out = sdk.lines();
    assert_eq!(out.len(), 1);
    let sent = &out[0];
    assert_eq!(sent["request_id"], "m1");
    assert_eq!(sent["request"]["subtype"], "mcp_message");
    assert_eq!(sent["request"]["server_name"], "calc");
    let id = sent["request"]["message"]["id"].clone();
    assert!(id.is_u64());
    assert_eq!(
        sent["request"]["message"]["params"]["_meta"]["progressToken"],
        id
    );
    let mut expected = message.clone();
    expected["id"] = id.clone();
    expected["params"]["_meta"]["progressToken"] = id;
    assert_eq!(sent["request"]["message"], expected);
    assert_eq!(
        sdk.cli.waiting_for().as_deref(),
        Some(r#"an SDK line matching ControlResponse { request_id: "m1" }"#)
    );
    let mut reply = recorded_answer.clone();
    reply["response"]["request_id"] = json!("m1");
    sdk.send(reply);
    let out = sdk.lines();
    assert_eq!(out[0]["message"]["content"][0]["content"], "42");
    assert_eq!(out[0]["message"]["content"][0]["is_error"], false);
}
