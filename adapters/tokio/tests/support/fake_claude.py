#!/usr/bin/env python3
"""A scripted stand-in for the claude CLI, speaking stream-json on stdin/stdout.

The scenario comes from the FAKE_SCENARIO environment variable. Every scenario answers
`initialize`; what happens on a user message depends on the scenario. Each turn ends with a
`result` whose `result` text reports what the fake saw, so tests can assert on it.
"""
import json
import os
import signal
import sys
import time

SCENARIO = os.environ.get("FAKE_SCENARIO", "text")
SEEN_WHILE_WAITING = []
SESSION = "00000000-0000-4000-8000-000000000001"


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


LOG = os.environ.get("FAKE_LOG")


BACKLOG = []


def read():
    """The next message: one put aside while waiting for a response, else the next stdin line."""
    if BACKLOG:
        return BACKLOG.pop(0)
    return read_stdin()


def read_stdin():
    line = sys.stdin.readline()
    if LOG:
        with open(LOG, "a") as f:
            f.write(line or "<EOF>\n")
    if not line:
        return None
    return json.loads(line)


def result(text, is_error=False, subtype="success"):
    out({"type": "result", "subtype": subtype, "is_error": is_error, "duration_ms": 1,
         "duration_api_ms": 1, "num_turns": 1, "result": text, "session_id": SESSION,
         "total_cost_usd": 0.25, "usage": {"input_tokens": 1, "output_tokens": 1}})


def assistant(text):
    out({"type": "assistant", "message": {"id": "msg_1", "type": "message", "role": "assistant",
         "model": "claude-test", "content": [{"type": "text", "text": text}],
         "stop_reason": None, "stop_sequence": None,
         "usage": {"input_tokens": 1, "output_tokens": 1}},
         "parent_tool_use_id": None, "session_id": SESSION, "uuid": "u-1"})


def ask(request_id, request):
    """Send a control request and wait for its response; returns (response, other lines seen)."""
    out({"type": "control_request", "request_id": request_id, "request": request})
    while True:
        msg = read_stdin()
        if msg is None:
            return None
        if msg.get("type") == "control_response" and msg["response"].get("request_id") == request_id:
            return msg["response"]
        if msg.get("type") == "control_request":
            answer_control(msg)
            SEEN_WHILE_WAITING.append(msg["request"].get("subtype"))
        elif msg.get("type") == "user":
            BACKLOG.append(msg)


def user_text(msg):
    content = msg["message"]["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def answer_control(msg):
    req = msg["request"]
    sub = req.get("subtype")
    rid = msg["request_id"]
    if sub == "initialize":
        body = {"commands": [{"name": "help", "description": "Help"}], "models": [], "agents": [],
                "account": {"email": "test@example.com"}, "output_style": "default",
                "available_output_styles": ["default"], "pid": os.getpid(),
                "claude_code_version": "2.1.330"}
        if SCENARIO == "mcp":
            # Like the real CLI: talk to the in-process server before answering initialize.
            init = ask("mcp-init", {"subtype": "mcp_message", "server_name": "calc",
                                    "message": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                           "clientInfo": {"name": "claude", "version": "1"}}}})
            if init is None:
                sys.exit(0)
    elif sub == "interrupt":
        body = {"still_queued": []}
    elif sub == "mcp_status":
        body = {"mcpServers": [{"name": "calc", "status": "connected"}]}
    elif sub == "get_context_usage":
        body = {"totalTokens": 1200, "maxTokens": 200000, "percentage": 0.6, "model": "claude-test", "categories": []}
    elif sub == "set_model" and req.get("model") == "bogus":
        out({"type": "control_response", "response": {"subtype": "error", "request_id": rid,
                                                      "error": "unknown model bogus"}})
        return
    elif sub == "set_permission_mode":
        body = {}
    else:
        body = {}
    out({"type": "control_response", "response": {"subtype": "success", "request_id": rid, "response": body}})


def turn(msg):
    text = user_text(msg)
    if SCENARIO in ("text", "echo"):
        assistant("echo: " + text)
        result("echo: " + text)
    elif SCENARIO == "flood":
        # Report progress to FAKE_PROGRESS so a test can see when the pipe stops taking lines.
        total = int(os.environ.get("FAKE_FLOOD", "20000"))
        progress = os.environ["FAKE_PROGRESS"]
        for i in range(total):
            assistant("line %d" % i)
            if i % 100 == 0:
                with open(progress, "w") as f:
                    f.write(str(i))
        result("flooded")
    elif SCENARIO == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        assistant("still here")
        result("ok")
    elif SCENARIO == "elicitation":
        resp = ask("elicit-1", {"subtype": "elicitation", "mcp_server_name": "github",
                                "message": "Which repository?", "mode": "form",
                                "requested_schema": {"type": "object", "properties": {"repo": {"type": "string"}}}})
        result(json.dumps(resp))
    elif SCENARIO == "error_result":
        result("boom", is_error=True, subtype="error_max_turns")
    elif SCENARIO == "permission":
        resp = ask("perm-1", {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"},
                              "permission_suggestions": [], "tool_use_id": "toolu_1"})
        result(json.dumps(resp))
    elif SCENARIO == "hook":
        resp = ask("hook-1", {"subtype": "hook_callback", "callback_id": "hook_0",
                              "input": {"hook_event_name": "PreToolUse", "session_id": SESSION,
                                        "transcript_path": "/tmp/t", "cwd": "/tmp", "tool_name": "Bash",
                                        "tool_input": {"command": "ls"}, "tool_use_id": "toolu_9"},
                              "tool_use_id": "toolu_9"})
        result(json.dumps(resp))
    elif SCENARIO == "mcp":
        resp = ask("mcp-1", {"subtype": "mcp_message", "server_name": "calc",
                             "message": {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                         "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}})
        bad = ask("mcp-2", {"subtype": "mcp_message", "server_name": "calc",
                            "message": {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                                        "params": {"name": "add", "arguments": {"a": "x"}}}})
        result(json.dumps([resp, bad]))
    elif SCENARIO == "cancel":
        out({"type": "control_request", "request_id": "hook-slow",
             "request": {"subtype": "hook_callback", "callback_id": "hook_0",
                         "input": {"hook_event_name": "PreToolUse", "session_id": SESSION,
                                   "transcript_path": "/tmp/t", "cwd": "/tmp", "tool_name": "Bash",
                                   "tool_input": {}, "tool_use_id": "toolu_5"}}})
        time.sleep(0.3)
        out({"type": "control_cancel_request", "request_id": "hook-slow"})
        resp = ask("perm-after", {"subtype": "can_use_tool", "tool_name": "Read", "input": {},
                                  "permission_suggestions": [], "tool_use_id": "toolu_2"})
        # Anything answered for hook-slow would have been skipped by ask(); record it separately.
        result(json.dumps(resp))
    elif SCENARIO == "panic":
        first = ask("perm-1", {"subtype": "can_use_tool", "tool_name": "Explode", "input": {},
                               "permission_suggestions": [], "tool_use_id": "toolu_1"})
        second = ask("perm-2", {"subtype": "can_use_tool", "tool_name": "Read", "input": {},
                                "permission_suggestions": [], "tool_use_id": "toolu_2"})
        result(json.dumps([first, second]))
    elif SCENARIO == "interrupt_hook":
        resp = ask("hook-1", {"subtype": "hook_callback", "callback_id": "hook_0",
                              "input": {"hook_event_name": "PreToolUse", "session_id": SESSION,
                                        "transcript_path": "/tmp/t", "cwd": "/tmp", "tool_name": "Bash",
                                        "tool_input": {}, "tool_use_id": "toolu_6"}})
        result(json.dumps({"response": resp, "seen": SEEN_WHILE_WAITING}))
    else:
        result("unknown scenario " + SCENARIO)


def main():
    if SCENARIO == "die_early":
        sys.stderr.write("error: option '--permission-mode <mode>' argument 'bogus' is invalid. "
                         "Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan.\n")
        sys.exit(1)
    if SCENARIO == "ignore_term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.stderr.write("fake claude started\n")
    sys.stderr.flush()
    while True:
        msg = read()
        if msg is None:
            break
        kind = msg.get("type")
        if kind == "control_request":
            answer_control(msg)
        elif kind == "user":
            turn(msg)
    if SCENARIO in ("hang", "ignore_term"):
        while True:
            time.sleep(1)
    if SCENARIO == "error_result":
        sys.exit(1)


main()
