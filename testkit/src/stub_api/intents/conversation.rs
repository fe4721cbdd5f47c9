//! What the intents read from one Messages request: the conversation as a list of events, and
//! what the CLI told the model about its tools, agents, working directory and system prompt.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::stub_api::RecordedRequest;

/// How the CLI passes on a message the user sent while it was working (a `system` message in the
/// running turn), followed by the message.
const MID_TURN_HEADER: &str = "The user sent a new message while you were working:\n";
/// The explanation the CLI puts after such a message.
const MID_TURN_FOOTER: &str = "\n\nThis is how Claude Code surfaces";
/// The lines the CLI adds to the next user turn after an interrupt.
const INTERRUPTED: [&str; 2] = [
    "[Request interrupted by user for tool use]",
    "[Request interrupted by user]",
];
/// Text blocks the CLI adds to user turns for the model.
const SYSTEM_REMINDER: &str = "<system-reminder>";
/// The list of tools offered by name only, to be loaded with `ToolSearch`.
const DEFERRED_HEADER: &str = "The following deferred tools are now available via ToolSearch";
/// The list of agent types the main agent may start (subagents do not get it).
const AGENTS_HEADER: &str = "Available agent types for the Agent tool:";
const CWD_PREFIX: &str = "Primary working directory: ";

/// One step of the conversation, in order.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Event {
    /// Something the user typed (a user turn, or a message sent mid-turn).
    Prompt(String),
    /// A text of the assistant.
    Said(String),
    /// A tool call of the assistant.
    Call {
        id: String,
        name: String,
        input: Value,
    },
    /// The result of a tool call.
    Result {
        id: String,
        text: String,
        is_error: bool,
    },
}

/// A tool call made since the current prompt, with its result once there is one.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Done {
    pub(super) name: String,
    pub(super) input: Value,
    pub(super) result: String,
    pub(super) is_error: bool,
}

/// A Messages request, read.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    pub(super) events: Vec<Event>,
    /// Tools offered with their input schema, by name.
    pub(super) tools: BTreeMap<String, Value>,
    /// Tools offered by name only (load them with `ToolSearch`).
    pub(super) deferred: Vec<String>,
    /// Agent types the `Agent` tool may start.
    pub(super) agent_types: Vec<String>,
    /// The working directory the CLI runs in.
    pub(super) cwd: Option<String>,
    /// The last paragraph of the system prompt.
    pub(super) system_tail: Option<String>,
}

impl Conversation {
    pub(super) fn read(req: &RecordedRequest) -> Self {
        let mut conv = Conversation::default();
        if let Some(tools) = req.body.get("tools").and_then(Value::as_array) {
            for tool in tools {
                if let (Some(name), Some(schema)) = (
                    tool.get("name").and_then(Value::as_str),
                    tool.get("input_schema"),
                ) {
                    conv.tools.insert(name.to_owned(), schema.clone());
                }
            }
        }
        let system: Vec<&str> = match req.body.get("system") {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect(),
            _ => Vec::new(),
        };
        conv.system_tail = system
            .last()
            .and_then(|text| {
                text.split("\n\n")
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .last()
            })
            .map(str::to_owned);
        for text in &system {
            conv.read_notes(text);
        }
        for message in req.messages() {
            conv.read_message(message);
        }
        conv
    }

    /// The last prompt, and the tool calls made since, each with its result (calls still
    /// without a result are left out).
    pub(super) fn current(&self) -> Option<(&str, Vec<Done>)> {
        let at = self
            .events
            .iter()
            .rposition(|e| matches!(e, Event::Prompt(_)))?;
        let Event::Prompt(prompt) = &self.events[at] else {
            return None;
        };
        let mut done = Vec::new();
        for event in &self.events[at + 1..] {
            if let Event::Call { id, name, input } = event {
                let result = self.events[at + 1..].iter().find_map(|e| match e {
                    Event::Result {
                        id: of,
                        text,
                        is_error,
                    } if of == id => Some((text.clone(), *is_error)),
                    _ => None,
                });
                if let Some((result, is_error)) = result {
                    done.push(Done {
                        name: name.clone(),
                        input: input.clone(),
                        result,
                        is_error,
                    });
                }
            }
        }
        Some((prompt, done))
    }

    /// Whether the request offers this tool (with its schema, or by name only).
    pub(super) fn offers(&self, name: &str) -> bool {
        self.tools.contains_key(name) || self.deferred.iter().any(|d| d == name)
    }

    /// The names of every offered tool.
    pub(super) fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools
            .keys()
            .map(String::as_str)
            .chain(self.deferred.iter().map(String::as_str))
    }

    fn read_message(&mut self, message: &Value) {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let blocks: Vec<Value> = match message.get("content") {
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            Some(Value::Array(blocks)) => blocks.clone(),
            _ => Vec::new(),
        };
        let mut typed = Vec::new();
        for block in &blocks {
            let text = block.get("text").and_then(Value::as_str);
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = text.unwrap_or_default();
                    self.read_notes(text);
                    match role {
                        "user" if !text.trim_start().starts_with(SYSTEM_REMINDER) => {
                            typed.push(text);
                        }
                        "assistant" => self.events.push(Event::Said(text.to_owned())),
                        "system" => {
                            if let Some(sent) = mid_turn_message(text) {
                                self.events.push(Event::Prompt(sent));
                            }
                        }
                        _ => {}
                    }
                }
                Some("tool_use") => self.events.push(Event::Call {
                    id: str_field(block, "id"),
                    name: str_field(block, "name"),
                    input: block.get("input").cloned().unwrap_or(Value::Null),
                }),
                Some("tool_result") => self.events.push(Event::Result {
                    id: str_field(block, "tool_use_id"),
                    text: result_text(block.get("content")),
                    is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
                }),
                _ => {}
            }
        }
        // Text beside tool results is the CLI's (e.g. `Tool loaded.`), except after an interrupt,
        // when the next prompt comes with the aborted tool's result.
        let with_results = blocks
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"));
        let interrupted = typed.iter().any(|t| INTERRUPTED.contains(&t.trim()));
        let prompt = without_interrupt_notes(&typed.join("\n"));
        if !prompt.is_empty() && (!with_results || interrupted) {
            self.events.push(Event::Prompt(prompt));
        }
    }

    /// Picks up the deferred tools, agent types and working directory from a text of the CLI.
    fn read_notes(&mut self, text: &str) {
        if let Some(list) = list_after(text, DEFERRED_HEADER) {
            for name in list {
                if !self.deferred.contains(&name) {
                    self.deferred.push(name);
                }
            }
        }
        if let Some(list) = list_after(text, AGENTS_HEADER) {
            for line in list {
                let name = line
                    .trim_start_matches("- ")
                    .split(':')
                    .next()
                    .unwrap_or("");
                if !name.is_empty() && !self.agent_types.iter().any(|a| a == name) {
                    self.agent_types.push(name.to_owned());
                }
            }
        }
        if let Some(line) = text
            .lines()
            .find_map(|l| l.trim_start_matches(" - ").strip_prefix(CWD_PREFIX))
        {
            self.cwd = Some(line.trim().to_owned());
        }
    }
}

/// The lines after the line holding `header`, up to the first blank line.
fn list_after(text: &str, header: &str) -> Option<Vec<String>> {
    let start = text.find(header)?;
    let rest = &text[start..];
    let rest = &rest[rest.find('\n')? + 1..];
    Some(
        rest.lines()
            .take_while(|l| !l.trim().is_empty())
            .map(|l| l.trim().to_owned())
            .collect(),
    )
}

/// The last message the user sent mid-turn, in a system text of the CLI.
fn mid_turn_message(text: &str) -> Option<String> {
    let start = text.rfind(MID_TURN_HEADER)? + MID_TURN_HEADER.len();
    let rest = &text[start..];
    let end = rest.find(MID_TURN_FOOTER).unwrap_or(rest.len());
    Some(rest[..end].trim().to_owned()).filter(|m| !m.is_empty())
}

fn without_interrupt_notes(text: &str) -> String {
    text.lines()
        .filter(|line| !INTERRUPTED.contains(&line.trim()))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

fn str_field(block: &Value, name: &str) -> String {
    block
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The text of a tool result: a string, or the `text` parts of its blocks.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: Value) -> Conversation {
        Conversation::read(&RecordedRequest::new(
            "POST",
            "/v1/messages",
            vec![],
            body.to_string().into_bytes(),
        ))
    }

    #[test]
    fn reads_prompts_calls_results_and_notes() {
        let conv = read(json!({
            "system": [{"type": "text", "text": "You are an agent."}, {"type": "text", "text": "Be brief.\n\nAnswer in French."}],
            "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder>\nnote</system-reminder>"},
                    {"type": "text", "text": "Run `ls` in the shell."}]},
                {"role": "system", "content": [{"type": "text", "text":
                    "# Environment\n - Primary working directory: /w\n\nThe following deferred tools are now available via ToolSearch. Load them:\nWebFetch\nmcp__calc__add\n\nAvailable agent types for the Agent tool:\n- reviewer: Reviews code (Tools: *)\n- Plan: Plans\n\nToday."}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "running"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a.rs"}]}]},
                {"role": "system", "content": [{"type": "text", "text":
                    "The user sent a new message while you were working:\nalso this\n\nThis is how Claude Code surfaces messages."}]}
            ]
        }));
        assert_eq!(conv.system_tail.as_deref(), Some("Answer in French."));
        assert_eq!(conv.cwd.as_deref(), Some("/w"));
        assert_eq!(conv.deferred, ["WebFetch", "mcp__calc__add"]);
        assert_eq!(conv.agent_types, ["reviewer", "Plan"]);
        assert!(conv.offers("Bash") && conv.offers("mcp__calc__add") && !conv.offers("Read"));
        assert_eq!(
            conv.events[0],
            Event::Prompt("Run `ls` in the shell.".into())
        );
        let (prompt, done) = conv.current().unwrap();
        assert_eq!(prompt, "also this");
        assert!(done.is_empty());
    }

    #[test]
    fn current_pairs_calls_with_results_and_drops_interrupt_notes() {
        let conv = read(json!({"messages": [
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t0", "content": "aborted", "is_error": true},
                {"type": "text", "text": "[Request interrupted by user for tool use]"},
                {"type": "text", "text": "Try again."}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "no", "is_error": true}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]}
        ]}));
        let (prompt, done) = conv.current().unwrap();
        assert_eq!(prompt, "Try again.");
        assert_eq!(done.len(), 1);
        assert_eq!(
            (
                done[0].name.as_str(),
                done[0].result.as_str(),
                done[0].is_error
            ),
            ("Bash", "no", true)
        );
    }
}
