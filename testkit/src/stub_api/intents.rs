//! The intent rule: plays the model's part for natural prompts, with the tools the CLI offers.
//! What it understands is documented on [`intents`].

mod arithmetic;
mod conversation;
mod schema;

use serde_json::{json, Value};

use super::{RecordedRequest, Reply, Rule};
use arithmetic::Expression;
use conversation::{Conversation, Done, Event};

const TOOL_SEARCH: &str = "ToolSearch";
const STRUCTURED_OUTPUT: &str = "StructuredOutput";
/// Words that make backticked text in a prompt shell commands.
const SHELL_WORDS: [&str; 5] = ["shell", "bash", "terminal", "command", "commands"];
const READ_WORDS: [&str; 6] = ["read", "show", "open", "summarise", "summarize", "cat"];
const WRITE_WORDS: [&str; 3] = ["create", "write", "save"];
/// How many words after "read" / "create" a file name may come.
const FILE_REACH: usize = 6;
/// `<language> files` → the extension of their names.
const LANGUAGES: [(&str, &str); 10] = [
    ("rust", "rs"),
    ("python", "py"),
    ("markdown", "md"),
    ("toml", "toml"),
    ("json", "json"),
    ("yaml", "yaml"),
    ("javascript", "js"),
    ("typescript", "ts"),
    ("go", "go"),
    ("text", "txt"),
];
const IDENTITY_PHRASES: [&str; 4] = [
    "who are you",
    "what are you",
    "your instructions",
    "system prompt",
];
const RECAP_PHRASES: [&str; 9] = [
    "so far",
    "earlier",
    "before",
    "previous",
    "did i ",
    "did you",
    "have i ",
    "have you",
    "what was my",
];
/// How much of one tool result a summary repeats.
const RESULT_CHARS: usize = 100;

/// The intent rule set: it reads what a prompt written for a real model asks for, and plays the
/// model's part with the tools the request offers, one tool call per reply, so that hooks,
/// permission prompts, in-process MCP tools, subagents and structured output really run in the
/// CLI. The `stub-api` binary (and so `scripts/quick-start`) answers with it.
///
/// It is one rule that answers every main-conversation request, so rules added after it never
/// apply; add your own before it.
///
/// **The prompt** is the last thing the user typed: the text of the last user turn (without the
/// CLI's `<system-reminder>` blocks and its `[Request interrupted by user…]` line), or a message
/// the user sent while the CLI was working, which the CLI hands on within the running turn.
///
/// **Tasks.** The prompt asks for these, done in the order they appear in it; each needs its
/// tool to be offered in the request:
///
/// | the prompt has | the model calls |
/// |---|---|
/// | `BASH:<cmd>` or `TOOL:<name>:<json>` (the [`conventions`](super::conventions)), as the whole prompt | `Bash` with `cmd`; `name` with that input |
/// | one of the words *shell*, *bash*, *terminal*, *command*, and text in backticks | `Bash` with each backticked command |
/// | *list … files*, or *`<language>` files* (Rust, Python, Markdown, TOML, JSON, YAML, JavaScript, TypeScript, Go, text) | `Glob` with `*` or `**/*.rs`…; without `Glob`, `Bash` with `ls` or `find . -name '*.rs'` |
/// | *read*, *show*, *open*, *summarise* or *cat*, then a file name (`notes.txt`) | `Read` of that file in the working directory |
/// | *create*, *write* or *save*, then a file name | `Write` of that file, holding the last tool result of the turn (or nothing) |
/// | an arithmetic expression (`(12 + 30) / 7`), and an MCP server named with a tool for each of its operations (`add`, `subtract`, `multiply`, `divide`, or `sum`, `minus`, `times`, `div`…) | one call per operation, innermost first, each result an operand of the next |
/// | the name of an MCP tool (`to_celsius`), or of an MCP server with one tool | that tool, its numeric arguments taken from the numbers in the prompt and its string arguments from the backticked or double-quoted text, in order |
/// | *`<type>` agent* or *`<type>` subagent*, `<type>` one of the agent types the request lists | `Agent` with that `subagent_type`, in the foreground, handing it the rest of the prompt (*Ask the reviewer agent to look at X* → *Look at X*) |
///
/// A server is named by a word that is its name or starts with it (*calculator* names `calc`).
/// An MCP tool the CLI lists by name only (a deferred tool) is first loaded with `ToolSearch`
/// (`select:<name>`), as a model does. A subagent's request lists no agent types, so a subagent
/// never starts another.
///
/// When the tasks are done, the reply is `done: ` and a summary of each, such as
/// ``done: `echo hello` → hello; Write notes.txt failed: denied``, `(12 + 30) / 7 = 6` or
/// `reviewer agent reported: …`. When the request offers the `StructuredOutput` tool (the
/// session has a JSON Schema), the reply is instead a call of it, with a value that conforms to
/// its schema: for each property its `const`, first `enum` value, `default` or first `examples`
/// value, else the property's name for a string, 0 (or the `minimum`) for a number, `false`,
/// one item for an array.
///
/// **A prompt with no task** is answered with a text:
///
/// * *who are you*, *what are you*, *your instructions*, *system prompt*:
///   `I follow my system prompt, which ends: "<its last paragraph>"`;
/// * *so far*, *earlier*, *before*, *previous*, *did I*, *did you*, *have I*, *have you*, *what
///   was my*, when there were earlier prompts: a recap,
///   `` So far you said "…", "…"; I ran `…`; my last answer was "…". ``;
/// * anything else: `echo: <prompt>`.
///
/// ```
/// use claude_agent_testkit::stub_api::{intents, StubApi};
///
/// // What `StubApi::start_with_intents()` does:
/// let stub = StubApi::start();
/// for rule in intents() {
///     stub.add_rule(rule);
/// }
/// // Run the CLI with ANTHROPIC_BASE_URL=<stub.base_url()> and the prompt
/// // "Run `echo hello` in the shell.": the model calls Bash with `echo hello`, then says
/// // "done: `echo hello` → hello".
/// # let _ = stub;
/// ```
pub fn intents() -> Vec<Rule> {
    vec![Rule::any().reply_with(respond)]
}

fn respond(req: &RecordedRequest) -> Reply {
    let conv = Conversation::read(req);
    let Some((prompt, done)) = conv.current() else {
        return Reply::text("echo: ");
    };
    let history: Vec<&Done> = done
        .iter()
        .filter(|d| d.name != TOOL_SEARCH && d.name != STRUCTURED_OUTPUT)
        .collect();
    let mut next = 0;
    let mut last_result: Option<&str> = None;
    let mut summaries = Vec::new();
    for task in tasks(prompt, &conv) {
        let start = next;
        loop {
            match task.next(&conv, &history[start..next], last_result) {
                Next::Call(..) if next < history.len() => {
                    last_result = Some(&history[next].result);
                    next += 1;
                }
                Next::Call(name, input) => return Reply::tool_use(name, input),
                Next::Load(names) if can_load(&conv, &done, &names) => {
                    let query = format!("select:{}", names.join(","));
                    return Reply::tool_use(
                        TOOL_SEARCH,
                        json!({"query": query, "max_results": names.len()}),
                    );
                }
                Next::Load(_) | Next::Finished => break,
            }
        }
        summaries.push(task.summary(&history[start..next]));
    }
    if let Some(schema) = conv.tools.get(STRUCTURED_OUTPUT) {
        return Reply::tool_use(STRUCTURED_OUTPUT, schema::example_value(schema));
    }
    if !summaries.is_empty() {
        return Reply::text(format!("done: {}", summaries.join("; ")));
    }
    Reply::text(answer(prompt, &conv))
}

/// Whether `ToolSearch` can load these tools: it is offered and was not asked for them yet.
fn can_load(conv: &Conversation, done: &[Done], names: &[String]) -> bool {
    let asked = |name: &String| {
        done.iter().any(|d| {
            d.name == TOOL_SEARCH
                && d.input["query"]
                    .as_str()
                    .is_some_and(|q| q.split([':', ',']).any(|n| n == name))
        })
    };
    conv.tools.contains_key(TOOL_SEARCH) && !names.iter().all(asked)
}

/// The answer to a prompt with no task.
fn answer(prompt: &str, conv: &Conversation) -> String {
    let lower = prompt.to_lowercase();
    if IDENTITY_PHRASES.iter().any(|p| lower.contains(p)) {
        if let Some(tail) = &conv.system_tail {
            return format!("I follow my system prompt, which ends: \"{tail}\"");
        }
    }
    if RECAP_PHRASES.iter().any(|p| lower.contains(p)) {
        if let Some(recap) = recap(conv) {
            return recap;
        }
    }
    format!("echo: {prompt}")
}

/// What happened before the current prompt, or `None` if nothing did.
fn recap(conv: &Conversation) -> Option<String> {
    let current = conv
        .events
        .iter()
        .rposition(|e| matches!(e, Event::Prompt(_)))?;
    let earlier = &conv.events[..current];
    let said: Vec<String> = earlier
        .iter()
        .filter_map(|e| match e {
            Event::Prompt(p) => Some(format!("\"{p}\"")),
            _ => None,
        })
        .collect();
    if said.is_empty() {
        return None;
    }
    let mut parts = vec![format!("So far you said {}", said.join(", "))];
    let ran: Vec<String> = earlier
        .iter()
        .filter_map(|e| match e {
            Event::Call { name, input, .. } if name != TOOL_SEARCH => Some(
                input["command"]
                    .as_str()
                    .map_or_else(|| name.clone(), |c| format!("`{c}`")),
            ),
            _ => None,
        })
        .collect();
    if !ran.is_empty() {
        parts.push(format!("I ran {}", ran.join(", ")));
    }
    if let Some(Event::Said(last)) = earlier.iter().rfind(|e| matches!(e, Event::Said(_))) {
        parts.push(format!("my last answer was \"{last}\""));
    }
    Some(format!("{}.", parts.join("; ")))
}

/// One thing the prompt asks for.
#[derive(Debug, Clone, PartialEq)]
enum Task {
    /// One call with a fixed input.
    Call {
        name: String,
        input: Value,
        label: String,
    },
    /// `Write` a file with the last tool result.
    Write { path: String, file: String },
    /// An MCP tool, with arguments from the prompt.
    Mcp {
        tool: String,
        numbers: Vec<f64>,
        texts: Vec<String>,
    },
    /// An expression worked out with calculator tools, one per operation.
    Arithmetic {
        expression: Expression,
        tools: Vec<String>,
    },
    /// A subagent of this type, given a task.
    Agent {
        tool: String,
        kind: String,
        task: String,
    },
}

/// What a task does next.
enum Next {
    Call(String, Value),
    /// Load these deferred tools first.
    Load(Vec<String>),
    Finished,
}

impl Task {
    /// The next call, given the calls this task made so far (with their results) and the last
    /// tool result of the turn.
    fn next(&self, conv: &Conversation, mine: &[&Done], last_result: Option<&str>) -> Next {
        let first = mine.is_empty();
        match self {
            Task::Call { name, input, .. } if first => Next::Call(name.clone(), input.clone()),
            Task::Write { path, .. } if first => Next::Call(
                "Write".into(),
                json!({"file_path": path, "content": last_result.unwrap_or_default()}),
            ),
            Task::Mcp {
                tool,
                numbers,
                texts,
            } if first => match conv.tools.get(tool) {
                Some(schema) => Next::Call(tool.clone(), schema::arguments(schema, numbers, texts)),
                None => Next::Load(vec![tool.clone()]),
            },
            Task::Arithmetic { expression, tools } => {
                let Some(step) = expression.steps.get(mine.len()) else {
                    return Next::Finished;
                };
                let Some(values) = step_values(mine) else {
                    return Next::Finished;
                };
                let unloaded: Vec<String> = tools
                    .iter()
                    .filter(|t| !conv.tools.contains_key(*t))
                    .cloned()
                    .collect();
                if !unloaded.is_empty() {
                    return Next::Load(unloaded);
                }
                let operand = |o| match o {
                    arithmetic::Operand::Number(n) => n,
                    arithmetic::Operand::Step(i) => values[i],
                };
                let tool = &tools[mine.len()];
                let args =
                    schema::arguments(&conv.tools[tool], &[operand(step.a), operand(step.b)], &[]);
                Next::Call(tool.clone(), args)
            }
            Task::Agent { tool, kind, task } if first => {
                let description: Vec<&str> = task
                    .split_whitespace()
                    .take_while(|w| !w.contains('`'))
                    .take(4)
                    .collect();
                let description = description.join(" ");
                let description = description.trim_end_matches([':', ',', '.']);
                Next::Call(
                    tool.clone(),
                    json!({
                        "subagent_type": kind,
                        "description": description,
                        "prompt": task,
                        "run_in_background": false,
                    }),
                )
            }
            _ => Next::Finished,
        }
    }

    /// What the task came to, for the final text.
    fn summary(&self, mine: &[&Done]) -> String {
        let label = match self {
            Task::Call { label, .. } => label.clone(),
            Task::Write { file, .. } => format!("Write {file}"),
            Task::Mcp { tool, .. } => {
                let short = tool.rsplit("__").next().unwrap_or(tool);
                let args = mine
                    .first()
                    .map(|d| d.input.to_string())
                    .unwrap_or_default();
                format!("{short} {args}")
            }
            Task::Arithmetic { expression, tools } => {
                let failed = mine
                    .iter()
                    .position(|d| d.is_error || d.result.trim().parse::<f64>().is_err());
                return match failed {
                    Some(i) => format!(
                        "{}: {} failed: {}",
                        expression.text,
                        tools[i].rsplit("__").next().unwrap_or_default(),
                        first_line(&mine[i].result)
                    ),
                    None if mine.len() == expression.steps.len() => format!(
                        "{} = {}",
                        expression.text,
                        mine.last().map_or("", |d| d.result.trim())
                    ),
                    None => format!("{}: not worked out", expression.text),
                };
            }
            Task::Agent { kind, .. } => {
                return match mine.first() {
                    Some(d) if !d.is_error => {
                        format!("{kind} agent reported: {}", first_line(&report(&d.result)))
                    }
                    Some(d) => format!("{kind} agent failed: {}", first_line(&d.result)),
                    None => format!("{kind} agent did not run"),
                };
            }
        };
        match mine.first() {
            Some(d) if d.is_error => format!("{label} failed: {}", first_line(&d.result)),
            Some(d) => format!("{label} → {}", first_line(&d.result)),
            None => format!("{label} did not run"),
        }
    }
}

/// The values of the operations done so far, or `None` if one failed.
fn step_values(mine: &[&Done]) -> Option<Vec<f64>> {
    mine.iter()
        .map(|d| {
            (!d.is_error)
                .then(|| d.result.trim().parse().ok())
                .flatten()
        })
        .collect()
}

/// A subagent's report, out of the frame the CLI hands it back in (the indented lines after
/// "The report follows:").
fn report(result: &str) -> String {
    const FOLLOWS: &str = "The report follows:";
    match result.find(FOLLOWS) {
        Some(at) => result[at + FOLLOWS.len()..]
            .lines()
            .skip(1)
            .take_while(|line| line.starts_with("  ") || line.is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n"),
        None => result.to_owned(),
    }
}

/// The first non-empty line, shortened, with how many lines follow.
fn first_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return "(nothing)".into();
    };
    let mut line: String = first.chars().take(RESULT_CHARS).collect();
    if first.chars().count() > RESULT_CHARS {
        line.push('…');
    }
    match lines.count() {
        0 => line,
        more => format!("{line} (+{more} more lines)"),
    }
}

/// The tasks of a prompt, in the order they appear in it.
fn tasks(prompt: &str, conv: &Conversation) -> Vec<Task> {
    let trimmed = prompt.trim();
    if let Some(command) = trimmed.strip_prefix("BASH:") {
        return vec![bash(command)];
    }
    if let Some((name, input)) = trimmed
        .strip_prefix("TOOL:")
        .and_then(|spec| spec.split_once(':'))
    {
        return serde_json::from_str(input)
            .map(|input| {
                vec![Task::Call {
                    name: name.to_owned(),
                    input,
                    label: name.to_owned(),
                }]
            })
            .unwrap_or_default();
    }
    // Positions stay valid: ASCII lowercasing keeps every byte offset.
    let lower = prompt.to_ascii_lowercase();
    let quoted = backticked(prompt);
    let plain = blank_out(&lower, &quoted);
    let words = words(&plain);
    let mut found: Vec<(usize, Task)> = Vec::new();

    if conv.offers("Bash") && words.iter().any(|(_, w)| SHELL_WORDS.contains(w)) {
        found.extend(quoted.iter().map(|(at, command)| (*at, bash(command))));
    }
    found.extend(file_listing(&words, conv));
    for (i, (at, word)) in words.iter().enumerate() {
        let Some(&(file_at, file)) = words[i + 1..]
            .iter()
            .take(FILE_REACH)
            .find(|(_, w)| is_file_name(w))
        else {
            continue;
        };
        // As written: the words are read from a lowercased copy.
        let file = &prompt[file_at..file_at + file.len()];
        let path = in_cwd(conv, file);
        if READ_WORDS.contains(word) && conv.offers("Read") {
            let task = Task::Call {
                name: "Read".into(),
                input: json!({"file_path": path}),
                label: format!("Read {file}"),
            };
            found.push((*at, task));
        } else if WRITE_WORDS.contains(word) && conv.offers("Write") {
            let file = file.to_owned();
            found.push((*at, Task::Write { path, file }));
        }
    }
    found.extend(mcp_tasks(prompt, &lower, &words, &quoted, conv));
    if let Some(tool) = ["Agent", "Task"].into_iter().find(|t| conv.offers(t)) {
        for kind in &conv.agent_types {
            let name = kind.to_ascii_lowercase();
            let mention = [" agent", " subagent"].iter().find_map(|suffix| {
                let mention = format!("{name}{suffix}");
                lower.find(&mention).map(|at| (at, at + mention.len()))
            });
            if let Some((at, end)) = mention {
                let task = Task::Agent {
                    tool: tool.to_owned(),
                    kind: kind.clone(),
                    task: agent_task(prompt, end),
                };
                found.push((at, task));
            }
        }
    }
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, task)| task).collect()
}

/// What to hand a subagent: the prompt after "… agent to", or the whole prompt.
fn agent_task(prompt: &str, after_mention: usize) -> String {
    let rest = prompt[after_mention..].trim_start();
    let rest = rest.strip_prefix("to ").unwrap_or(rest).trim();
    let mut chars = rest.chars();
    match chars.next() {
        Some(first) if rest.len() > 1 => first.to_uppercase().chain(chars).collect(),
        _ => prompt.to_owned(),
    }
}

fn bash(command: &str) -> Task {
    let command = command.trim();
    Task::Call {
        name: "Bash".into(),
        input: json!({"command": command, "description": format!("Run {command}")}),
        label: format!("`{command}`"),
    }
}

/// `list … files` and `<language> files`.
fn file_listing(words: &[(usize, &str)], conv: &Conversation) -> Option<(usize, Task)> {
    let i = words.iter().position(|(_, w)| *w == "files")?;
    let (at, pattern) = match i.checked_sub(1).map(|p| words[p]) {
        Some((at, language)) if LANGUAGES.iter().any(|(l, _)| *l == language) => {
            let ext = LANGUAGES.iter().find(|(l, _)| *l == language)?.1;
            (at, format!("**/*.{ext}"))
        }
        _ => {
            let list = words[i.saturating_sub(4)..i]
                .iter()
                .find(|(_, w)| *w == "list")?;
            (list.0, "*".to_owned())
        }
    };
    let task = if conv.offers("Glob") {
        Task::Call {
            name: "Glob".into(),
            input: json!({"pattern": pattern}),
            label: format!("Glob `{pattern}`"),
        }
    } else if conv.offers("Bash") {
        let command = match pattern.strip_prefix("**/") {
            Some(name) => format!("find . -name '{name}'"),
            None => "ls".to_owned(),
        };
        bash(&command)
    } else {
        return None;
    };
    Some((at, task))
}

/// Calls of in-process (MCP) tools: arithmetic with a calculator server, and tools named.
fn mcp_tasks(
    prompt: &str,
    lower: &str,
    words: &[(usize, &str)],
    quoted: &[(usize, String)],
    conv: &Conversation,
) -> Vec<(usize, Task)> {
    // (server, short name, full name) of every MCP tool offered.
    let mut tools: Vec<(&str, &str, &str)> = conv
        .tool_names()
        .filter_map(|full| {
            let (server, short) = full.strip_prefix("mcp__")?.split_once("__")?;
            Some((server, short, full))
        })
        .collect();
    tools.sort_unstable();
    tools.dedup();
    let named = |server: &str| {
        let server = server.to_ascii_lowercase();
        words
            .iter()
            .find(|(_, w)| *w == server || (server.len() >= 3 && w.starts_with(&server)))
            .map(|(at, _)| *at)
    };
    let mut found = Vec::new();
    let mut servers: Vec<&str> = tools.iter().map(|(s, _, _)| *s).collect();
    servers.dedup();
    let expression = arithmetic::find(prompt);
    let mut calculators = Vec::new();
    if let Some(expression) = &expression {
        for server in &servers {
            let Some(at) = named(server) else { continue };
            let per_step: Option<Vec<String>> = expression
                .steps
                .iter()
                .map(|step| {
                    tools
                        .iter()
                        .find(|(s, short, _)| {
                            s == server && arithmetic::tool_names(step.op).contains(short)
                        })
                        .map(|(_, _, full)| (*full).to_owned())
                })
                .collect();
            if let Some(per_step) = per_step {
                let task = Task::Arithmetic {
                    expression: expression.clone(),
                    tools: per_step,
                };
                found.push((at.min(expression.at), task));
                calculators.push(*server);
                break;
            }
        }
    }
    let numbers: Vec<f64> = words.iter().filter_map(|(_, w)| w.parse().ok()).collect();
    let texts: Vec<String> = quoted
        .iter()
        .map(|(_, t)| t.clone())
        .chain(double_quoted(prompt))
        .collect();
    for (server, short, full) in &tools {
        if calculators.contains(server) {
            continue;
        }
        let short_lower = short.to_ascii_lowercase();
        let by_name = [short_lower.clone(), short_lower.replace('_', " ")]
            .iter()
            .find_map(|n| find_word(lower, n));
        let only_tool = tools.iter().filter(|(s, _, _)| s == server).count() == 1;
        let at = by_name.or_else(|| only_tool.then(|| named(server)).flatten());
        if let Some(at) = at {
            let task = Task::Mcp {
                tool: (*full).to_owned(),
                numbers: numbers.clone(),
                texts: texts.clone(),
            };
            found.push((at, task));
        }
    }
    found
}

/// Backticked spans: (where, text inside).
fn backticked(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        let inner = &rest[open + 1..open + 1 + len];
        if !inner.trim().is_empty() {
            spans.push((offset + open, inner.to_owned()));
        }
        offset += open + len + 2;
        rest = &rest[open + len + 2..];
    }
    spans
}

fn double_quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// `text` with the backticked spans turned into spaces (same byte offsets).
fn blank_out(text: &str, spans: &[(usize, String)]) -> String {
    let mut out = text.to_owned();
    for (at, inner) in spans {
        let end = at + inner.len() + 2;
        out.replace_range(*at..end, &" ".repeat(end - at));
    }
    out
}

/// The words of a text and where they start: runs of letters, digits and `_-./~`, without
/// sentence punctuation at their ends.
fn words(text: &str) -> Vec<(usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || "_-./~".contains(c);
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (is_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let word = &text[s..i];
                let trimmed = word
                    .trim_start_matches(['.', '-'])
                    .trim_end_matches(['.', '-']);
                if !trimmed.is_empty() {
                    let lead = word.len() - word.trim_start_matches(['.', '-']).len();
                    words.push((s + lead, trimmed));
                }
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// Where `word` stands as a whole word in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        boundary(text[..at].chars().next_back()) && boundary(text[at + word.len()..].chars().next())
    })
}

/// `notes.txt`, `src/main.rs`: a name, a dot, and an extension that starts with a letter.
fn is_file_name(word: &str) -> bool {
    let Some((stem, ext)) = word.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && (1..=6).contains(&ext.len())
        && ext.starts_with(|c: char| c.is_ascii_alphabetic())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
}

fn in_cwd(conv: &Conversation, file: &str) -> String {
    match &conv.cwd {
        Some(cwd) if !file.starts_with('/') => format!("{}/{file}", cwd.trim_end_matches('/')),
        _ => file.to_owned(),
    }
}

#[cfg(test)]
mod tests;
