//! The SDK's hooks as the fake CLI calls them: which of the callbacks registered in `initialize`
//! an event reaches, and hook inputs shaped like the real CLI's.

use serde_json::{json, Value};

use super::{canned, ToolUse};

/// The working directory the canned messages report.
const CWD: &str = "/tmp/fake-claude";

/// The `prompt_id` every hook input carries.
const PROMPT_ID: &str = "00000000-0000-4000-8000-0000000000bb";

/// The input of a hook for `event`: the fields the real CLI puts in every hook input (session,
/// transcript path, cwd, prompt id, permission mode and, except for `UserPromptSubmit`, the
/// effort), `hook_event_name`, `tool_name` when given, then `fields` (which win).
///
/// Panics if `fields` is neither an object nor `null`.
pub(crate) fn input(event: &str, tool_name: Option<&str>, fields: Value) -> Value {
    let mut input = json!({
        "session_id": canned::SESSION_ID,
        "transcript_path":
            format!("/home/user/.claude/projects/-tmp-fake-claude/{}.jsonl", canned::SESSION_ID),
        "cwd": CWD,
        "prompt_id": PROMPT_ID,
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if event != "UserPromptSubmit" {
        input["effort"] = json!({"level": "medium"});
    }
    if let Some(name) = tool_name {
        input["tool_name"] = json!(name);
    }
    match fields {
        Value::Null => {}
        Value::Object(fields) => {
            let base = input.as_object_mut().expect("built as an object");
            base.extend(fields);
        }
        other => panic!("hook fields must be a JSON object, not {other}"),
    }
    input
}

/// The fields of a `PreToolUse` input for `tool_use`, beside the common ones of [`input`].
pub(crate) fn pre_tool_use_fields(tool_use: &ToolUse) -> Value {
    json!({"tool_input": tool_use.input, "tool_use_id": tool_use.id})
}

/// The fields of a `PostToolUse` input for `tool_use`, which returned `tool_response`.
pub(crate) fn post_tool_use_fields(tool_use: &ToolUse, tool_response: Value) -> Value {
    json!({"tool_input": tool_use.input, "tool_response": tool_response, "tool_use_id": tool_use.id})
}

/// The fields of a `Stop` input at the end of a turn whose last text was `last_assistant_message`.
pub(crate) fn stop_fields(last_assistant_message: &str) -> Value {
    json!({"stop_hook_active": false, "last_assistant_message": last_assistant_message,
           "background_tasks": [], "session_crons": []})
}

/// The callbacks an event reaches.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Callbacks {
    /// Callback ids, in registration order.
    pub(crate) ids: Vec<String>,
    /// Matchers this fake cannot evaluate (regular expressions beyond its subset); their callbacks
    /// are not in `ids`.
    pub(crate) unsupported: Vec<String>,
}

/// The callback ids registered in `hooks` (the `initialize` request's `request.hooks`:
/// `{event: [{matcher, hookCallbackIds, timeout?}, …]}`) for `event` whose matcher accepts
/// `query`; with no `query`, every callback of the event.
pub(crate) fn callbacks(hooks: &Value, event: &str, query: Option<&str>) -> Callbacks {
    let mut found = Callbacks::default();
    let Some(matchers) = hooks.get(event).and_then(Value::as_array) else {
        return found;
    };
    for entry in matchers {
        let matcher = entry.get("matcher").and_then(Value::as_str);
        let accepted = match query {
            None => Some(true),
            Some(query) => matcher_accepts(matcher, query),
        };
        match accepted {
            Some(true) => {}
            Some(false) => continue,
            None => {
                found
                    .unsupported
                    .push(matcher.unwrap_or_default().to_owned());
                continue;
            }
        }
        let ids = entry.get("hookCallbackIds").and_then(Value::as_array);
        found.ids.extend(
            ids.into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned),
        );
    }
    found
}

/// Whether a hook matcher accepts `query` (a tool name), as the CLI decides: no matcher, `""` and
/// `"*"` accept everything; a matcher of only ASCII letters, digits, `_` and `|` is a
/// `|`-separated list of exact names; anything else is a JavaScript regular expression, searched
/// for anywhere in the name. `None` when it is a regular expression outside [`Regex`]'s subset.
pub(crate) fn matcher_accepts(matcher: Option<&str>, query: &str) -> Option<bool> {
    let matcher = match matcher {
        None | Some("" | "*") => return Some(true),
        Some(m) => m,
    };
    if matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
    {
        return Some(matcher.split('|').any(|name| name == query));
    }
    Regex::parse(matcher).map(|regex| regex.is_match(query))
}

/// The subset of JavaScript regular expressions the fake evaluates: alternatives (`|`), `^` at
/// the start and `$` at the end of an alternative, `.`, literal characters (`\` escapes a
/// punctuation character), and `*`, `+`, `?` after one of those (a further `?`, making it lazy,
/// changes nothing for a yes/no match). Groups, classes, braces and escapes such as `\d` are not
/// in it.
#[derive(Debug)]
pub(crate) struct Regex {
    alternatives: Vec<Alternative>,
}

#[derive(Debug, Default)]
struct Alternative {
    at_start: bool,
    at_end: bool,
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, Copy)]
struct Piece {
    /// `None` for `.`.
    literal: Option<char>,
    min: usize,
    /// `false` for at most one.
    many: bool,
}

impl Piece {
    fn accepts(self, c: char) -> bool {
        self.literal.map_or(c != '\n', |l| l == c)
    }
}

impl Regex {
    /// The pattern, or `None` when it is outside the subset.
    pub(crate) fn parse(pattern: &str) -> Option<Regex> {
        let mut alternatives = vec![Alternative::default()];
        let mut chars = pattern.chars().peekable();
        let mut quantified = false;
        while let Some(c) = chars.next() {
            let alt = alternatives.last_mut().expect("never empty");
            match c {
                '|' => {
                    alternatives.push(Alternative::default());
                    quantified = false;
                    continue;
                }
                '^' if alt.pieces.is_empty() && !alt.at_start => alt.at_start = true,
                '$' if matches!(chars.peek(), None | Some('|')) => alt.at_end = true,
                '*' | '+' | '?' => {
                    if quantified && c == '?' {
                        continue; // lazy: the same yes/no answer
                    }
                    let last = alt.pieces.last_mut().filter(|_| !quantified)?;
                    (last.min, last.many) = match c {
                        '*' => (0, true),
                        '+' => (1, true),
                        _ => (0, false),
                    };
                    quantified = true;
                    continue;
                }
                '.' => alt.pieces.push(Piece {
                    literal: None,
                    min: 1,
                    many: false,
                }),
                '\\' => {
                    let escaped = chars.next().filter(|e| e.is_ascii_punctuation())?;
                    alt.pieces.push(Piece {
                        literal: Some(escaped),
                        min: 1,
                        many: false,
                    });
                }
                '^' | '$' | '(' | ')' | '[' | ']' | '{' | '}' => return None,
                literal => alt.pieces.push(Piece {
                    literal: Some(literal),
                    min: 1,
                    many: false,
                }),
            }
            quantified = false;
        }
        Some(Regex { alternatives })
    }

    /// Whether the pattern occurs in `text` (JavaScript's `RegExp.prototype.test`).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        self.alternatives.iter().any(|alt| {
            let starts = if alt.at_start { 0..=0 } else { 0..=text.len() };
            starts
                .into_iter()
                .any(|at| matches_here(&alt.pieces, &text[at..], alt.at_end))
        })
    }
}

/// Whether `pieces` match a prefix of `text` (all of it when `to_end`), backtracking.
fn matches_here(pieces: &[Piece], text: &[char], to_end: bool) -> bool {
    let Some((piece, rest)) = pieces.split_first() else {
        return !to_end || text.is_empty();
    };
    let limit = if piece.many { text.len() } else { 1 };
    let available = text
        .iter()
        .take(limit)
        .take_while(|&&c| piece.accepts(c))
        .count();
    (piece.min..=available)
        .rev()
        .any(|taken| matches_here(rest, &text[taken..], to_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_follow_the_cli_rules() {
        let cases: &[(Option<&str>, &str, Option<bool>)] = &[
            (None, "Bash", Some(true)),
            (Some(""), "Bash", Some(true)),
            (Some("*"), "Bash", Some(true)),
            (Some("Bash"), "Bash", Some(true)),
            (Some("Bash"), "BashOutput", Some(false)),
            (Some("Write|Edit"), "Edit", Some(true)),
            (Some("Write|Edit"), "NotebookEdit", Some(false)),
            (Some("mcp__calc__.*"), "mcp__calc__add", Some(true)),
            (Some("mcp__calc__.*"), "mcp__other__add", Some(false)),
            (Some("^Bash$"), "Bash", Some(true)),
            (Some("^Bash$"), "BashOutput", Some(false)),
            (Some("Bash$"), "MyBash", Some(true)),
            (Some("^Write|Edit$"), "NotebookEdit", Some(true)),
            (Some("^Write|Edit$"), "Editor", Some(false)),
            (Some("Ba.h"), "xBaxhx", Some(true)),
            (Some("^Bas?h+$"), "Bahhh", Some(true)),
            (Some("^Bas?h+$"), "Bassh", Some(false)),
            (Some("^.*?Edit$"), "NotebookEdit", Some(true)),
            (Some(r"^mcp__a\.b__x$"), "mcp__a.b__x", Some(true)),
            (Some(r"^mcp__a\.b__x$"), "mcp__aXb__x", Some(false)),
            (Some("[BW]ash"), "Bash", None),
            (Some("(Write|Edit)"), "Edit", None),
            (Some(r"\d"), "1", None),
            (Some("*Bash"), "Bash", None),
        ];
        for (matcher, query, expected) in cases {
            assert_eq!(
                matcher_accepts(*matcher, query),
                *expected,
                "{matcher:?} on {query}"
            );
        }
    }

    #[test]
    fn callbacks_of_an_event_in_registration_order() {
        let hooks = json!({
            "PreToolUse": [
                {"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 30},
                {"matcher": "Read", "hookCallbackIds": ["hook_2"]},
                {"matcher": null, "hookCallbackIds": ["hook_3"]},
                {"matcher": "[x]", "hookCallbackIds": ["hook_4"]},
            ],
            "Stop": [{"matcher": null, "hookCallbackIds": ["hook_5"]}],
        });
        let found = callbacks(&hooks, "PreToolUse", Some("Bash"));
        assert_eq!(found.ids, ["hook_0", "hook_1", "hook_3"]);
        assert_eq!(found.unsupported, ["[x]"]);
        let all = callbacks(&hooks, "PreToolUse", None);
        assert_eq!(all.ids, ["hook_0", "hook_1", "hook_2", "hook_3", "hook_4"]);
        assert!(all.unsupported.is_empty());
        assert_eq!(callbacks(&hooks, "Stop", Some("x")).ids, ["hook_5"]);
        assert_eq!(callbacks(&hooks, "PostToolUse", None), Callbacks::default());
        assert_eq!(callbacks(&Value::Null, "Stop", None), Callbacks::default());
    }

    #[test]
    fn input_fields_win_over_the_base() {
        let v = input(
            "PreToolUse",
            Some("Bash"),
            json!({"cwd": "/elsewhere", "tool_use_id": "t"}),
        );
        assert_eq!(v["cwd"], "/elsewhere");
        assert_eq!(v["tool_name"], "Bash");
        assert_eq!(v["tool_use_id"], "t");
        assert_eq!(v["effort"], json!({"level": "medium"}));
        assert!(input("UserPromptSubmit", None, Value::Null)
            .get("effort")
            .is_none());
    }
}
