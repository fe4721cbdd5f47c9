use serde_json::{json, Value};

use super::respond;
use crate::stub_api::reply::{Block, ReplyKind};
use crate::stub_api::{RecordedRequest, Reply};

fn tool(name: &str, properties: Value, required: &[&str]) -> Value {
    json!({"name": name, "input_schema": {"type": "object", "properties": properties, "required": required}})
}

fn bash() -> Value {
    tool("Bash", json!({"command": {"type": "string"}}), &["command"])
}

fn write() -> Value {
    tool(
        "Write",
        json!({"file_path": {"type": "string"}, "content": {"type": "string"}}),
        &["file_path", "content"],
    )
}

fn operands(name: &str) -> Value {
    tool(
        name,
        json!({"a": {"type": "number"}, "b": {"type": "number"}}),
        &["a", "b"],
    )
}

/// A conversation as the CLI sends it, grown one exchange at a time.
struct Chat {
    tools: Vec<Value>,
    system: Value,
    messages: Vec<Value>,
    calls: usize,
}

impl Chat {
    fn new(tools: Vec<Value>) -> Self {
        Chat {
            tools,
            system: json!([{"type": "text", "text": "You are a Claude agent."}]),
            messages: Vec::new(),
            calls: 0,
        }
    }

    /// A system message of the CLI (environment, deferred tools, agent types).
    fn note(mut self, text: &str) -> Self {
        self.messages
            .push(json!({"role": "system", "content": [{"type": "text", "text": text}]}));
        self
    }

    fn user(&mut self, text: &str) -> Reply {
        self.messages.push(json!({"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>\nbe good\n</system-reminder>"},
            {"type": "text", "text": text}]}));
        self.reply()
    }

    fn reply(&self) -> Reply {
        let body = json!({"system": self.system, "tools": self.tools, "messages": self.messages});
        respond(&RecordedRequest::new(
            "POST",
            "/v1/messages",
            vec![],
            body.to_string().into_bytes(),
        ))
    }

    /// Puts `reply` in the conversation; a tool call gets `result`.
    fn answer(&mut self, reply: &Reply, result: &str, is_error: bool) -> Reply {
        let ReplyKind::Message { blocks, .. } = &reply.kind else {
            panic!("{reply:?}")
        };
        let mut content = Vec::new();
        let mut results = Vec::new();
        for block in blocks {
            match block {
                Block::Text(text) => content.push(json!({"type": "text", "text": text})),
                Block::ToolUse { name, input } => {
                    self.calls += 1;
                    let id = format!("t{}", self.calls);
                    content
                        .push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
                    results.push(json!({"type": "tool_result", "tool_use_id": id, "content": result, "is_error": is_error}));
                }
            }
        }
        self.messages
            .push(json!({"role": "assistant", "content": content}));
        if results.is_empty() {
            return reply.clone();
        }
        self.messages
            .push(json!({"role": "user", "content": results}));
        self.reply()
    }
}

fn call(name: &str, input: Value) -> Reply {
    Reply::tool_use(name, input)
}

fn run(command: &str) -> Reply {
    call(
        "Bash",
        json!({"command": command, "description": format!("Run {command}")}),
    )
}

#[test]
fn shell_commands_run_in_order_then_a_summary() {
    let mut chat = Chat::new(vec![bash()]);
    let first = chat.user("Run `echo hello` in the shell, then clean up with `rm -rf build`.");
    assert_eq!(first, run("echo hello"));
    let second = chat.answer(&first, "hello", false);
    assert_eq!(second, run("rm -rf build"));
    let done = chat.answer(&second, "rm is not allowed here", true);
    assert_eq!(
        done,
        Reply::text("done: `echo hello` → hello; `rm -rf build` failed: rm is not allowed here")
    );
    // Backticks alone are not shell commands.
    let mut chat = Chat::new(vec![bash()]);
    assert_eq!(
        chat.user("Review `a - b`."),
        Reply::text("echo: Review `a - b`.")
    );
}

#[test]
fn files_are_listed_then_written_in_the_working_directory() {
    let env = "# Environment\n - Primary working directory: /work\n";
    let mut chat = Chat::new(vec![bash(), write()]).note(env);
    let list = chat.user("List the files here, then create notes.txt.");
    assert_eq!(list, run("ls"));
    let create = chat.answer(&list, "a.rs\nb.rs", false);
    assert_eq!(
        create,
        call(
            "Write",
            json!({"file_path": "/work/notes.txt", "content": "a.rs\nb.rs"})
        )
    );
    let done = chat.answer(&create, "denied: read only", true);
    assert_eq!(
        done,
        Reply::text("done: `ls` → a.rs (+1 more lines); Write notes.txt failed: denied: read only")
    );

    let glob = tool("Glob", json!({"pattern": {"type": "string"}}), &["pattern"]);
    let mut chat = Chat::new(vec![glob]);
    assert_eq!(
        chat.user("How many Rust files are in this directory?"),
        call("Glob", json!({"pattern": "**/*.rs"}))
    );
}

#[test]
fn arithmetic_loads_the_calculator_then_calls_it_per_operation() {
    let deferred = "The following deferred tools are now available via ToolSearch. Load them:\n\
                    mcp__calc__add\nmcp__calc__divide\n\nMore.";
    let search = tool(
        "ToolSearch",
        json!({"query": {"type": "string"}}),
        &["query"],
    );
    let mut chat = Chat::new(vec![search]).note(deferred);
    let load = chat.user("Use the calculator: what is (12 + 30) / 7?");
    assert_eq!(
        load,
        call(
            "ToolSearch",
            json!({"query": "select:mcp__calc__add,mcp__calc__divide", "max_results": 2})
        )
    );
    // The CLI now sends the loaded tools' schemas, and a note beside the result.
    chat.tools
        .extend([operands("mcp__calc__add"), operands("mcp__calc__divide")]);
    chat.answer(&load, "", false);
    let result = chat.messages.last_mut().unwrap()["content"]
        .as_array_mut()
        .unwrap();
    result.push(json!({"type": "text", "text": "Tool loaded."}));
    let add = chat.reply();
    assert_eq!(add, call("mcp__calc__add", json!({"a": 12, "b": 30})));
    let divide = chat.answer(&add, "42", false);
    assert_eq!(divide, call("mcp__calc__divide", json!({"a": 42, "b": 7})));
    let done = chat.answer(&divide, "6", false);
    assert_eq!(done, Reply::text("done: (12 + 30) / 7 = 6"));
}

#[test]
fn a_named_tool_gets_numbers_from_the_prompt_and_its_result_is_saved() {
    let degrees = tool(
        "mcp__units__to_celsius",
        json!({"degrees": {"type": "number"}}),
        &["degrees"],
    );
    let mut chat = Chat::new(vec![degrees, write()]);
    let convert = chat
        .user("What is 451 °F in Celsius? Use the units tool, then save the answer to notes.txt.");
    assert_eq!(
        convert,
        call("mcp__units__to_celsius", json!({"degrees": 451}))
    );
    let save = chat.answer(&convert, "232.8", false);
    assert_eq!(
        save,
        call(
            "Write",
            json!({"file_path": "notes.txt", "content": "232.8"})
        )
    );
    let done = chat.answer(&save, "File created", false);
    assert_eq!(
        done,
        Reply::text(r#"done: to_celsius {"degrees":451} → 232.8; Write notes.txt → File created"#)
    );
}

#[test]
fn a_listed_agent_type_is_started_and_a_subagent_starts_none() {
    let agents = "Available agent types for the Agent tool:\n- code-reviewer: Reviews code (Tools: Read)\n\nWhen…";
    let agent = tool(
        "Agent",
        json!({"prompt": {"type": "string"}}),
        &["description", "prompt"],
    );
    let prompt = "Ask the code-reviewer agent to look at `fn add(a: i32, b: i32) -> i32 { a - b }`";
    let mut chat = Chat::new(vec![agent.clone(), bash()]).note(agents);
    let start = chat.user(prompt);
    assert_eq!(
        start,
        call(
            "Agent",
            json!({"subagent_type": "code-reviewer", "description": "Look at",
                   "prompt": "Look at `fn add(a: i32, b: i32) -> i32 { a - b }`",
                   "run_in_background": false})
        )
    );
    let handed_back = "[Subagent hand-back] It is model output. The report follows:\n  \
                       Bug: a - b.\nagentId: x\n<usage>1</usage>";
    assert_eq!(
        chat.answer(&start, handed_back, false),
        Reply::text("done: code-reviewer agent reported: Bug: a - b.")
    );
    // The subagent's own request lists no agent types.
    let mut sub = Chat::new(vec![agent, bash()]);
    assert_eq!(sub.user(prompt), Reply::text(format!("echo: {prompt}")));
}

#[test]
fn structured_output_conforms_to_the_schema() {
    let output = json!({"name": "StructuredOutput", "input_schema": {
        "type": "object",
        "properties": {"capital": {"type": "string", "examples": ["Tokyo"]}, "population": {"type": "number"}},
        "required": ["capital"]}});
    let mut chat = Chat::new(vec![bash(), output]);
    assert_eq!(
        chat.user("Tell me about the capital of Japan."),
        call(
            "StructuredOutput",
            json!({"capital": "Tokyo", "population": 0})
        )
    );
}

#[test]
fn answers_about_the_system_prompt_and_the_conversation() {
    let mut chat = Chat::new(vec![bash()]);
    chat.system = json!([{"type": "text", "text": "SDK"}, {"type": "text", "text": "Be brief.\n\nYou are a pirate."}]);
    assert_eq!(
        chat.user("Who are you, in one sentence?"),
        Reply::text("I follow my system prompt, which ends: \"You are a pirate.\"")
    );

    let mut chat = Chat::new(vec![bash()]);
    assert_eq!(
        chat.user("What did I say before?"),
        Reply::text("echo: What did I say before?")
    );
    let pick = chat.user("Pick a random animal.");
    chat.answer(&pick, "", false);
    let ran = chat.user("Run `echo hi` in the shell.");
    chat.answer(&ran, "hi", false);
    let done = chat.reply();
    chat.answer(&done, "", false);
    assert_eq!(
        chat.user("What have you done so far?"),
        Reply::text(
            "So far you said \"What did I say before?\", \"Pick a random animal.\", \
             \"Run `echo hi` in the shell.\"; I ran `echo hi`; my last answer was \"done: `echo hi` → hi\"."
        )
    );
}

#[test]
fn a_message_sent_mid_turn_and_a_turn_after_an_interrupt_are_prompts() {
    let mut chat = Chat::new(vec![bash()]);
    let sleep = chat.user("Run `sleep 30` in the shell.");
    chat.messages.push(json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "s", "name": "Bash", "input": {"command": "sleep 30"}}]}));
    chat.messages.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "s", "content": "done"}]}));
    chat.messages.push(json!({"role": "system", "content": [{"type": "text", "text":
        "The user sent a new message while you were working:\nAlso run `echo more` in the shell.\n\nThis is how Claude Code surfaces it."}]}));
    assert_eq!(sleep, run("sleep 30"));
    assert_eq!(chat.reply(), run("echo more"));

    let mut chat = Chat::new(vec![bash()]);
    chat.messages.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "s", "content": "Interrupted", "is_error": true},
        {"type": "text", "text": "[Request interrupted by user for tool use]"},
        {"type": "text", "text": "Are you still there?"}]}));
    assert_eq!(chat.reply(), Reply::text("echo: Are you still there?"));
}

#[test]
fn the_conventions_still_work() {
    let mut chat = Chat::new(vec![bash()]);
    let first = chat.user("BASH:echo hi");
    assert_eq!(first, run("echo hi"));
    assert_eq!(
        chat.answer(&first, "hi", false),
        Reply::text("done: `echo hi` → hi")
    );
    let mut chat = Chat::new(vec![bash()]);
    assert_eq!(
        chat.user(r#"TOOL:mcp__calc__add:{"a": 2, "b": 40}"#),
        call("mcp__calc__add", json!({"a": 2, "b": 40}))
    );
}
