//! Reading a line's top-level `type` and `subtype` (and a control request's id and subtype)
//! without parsing the whole line.

use serde::Deserialize;
use serde_json::value::RawValue;

/// The `type` and `subtype` of a line, borrowed from it.
///
/// ```
/// use claude_agent_tokio::message::peek_tags;
///
/// let tags = peek_tags(r#"{"type":"system","subtype":"init","cwd":"/tmp"}"#).unwrap();
/// assert_eq!((tags.ty, tags.subtype), ("system", Some("init")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tags<'a> {
    /// Top-level `type`.
    ///
    /// In the rare case the value contains a JSON escape (`\u0061`), this is the escaped text as written,
    /// which matches no known type, so the line is then kept as an unknown message.
    pub ty: &'a str,
    /// Top-level `subtype`, if any (same escape rule as `ty`).
    ///
    /// Only looked up for types that carry one: for the known types without a subtype (`assistant`,
    /// `user`, `stream_event`, the control frames, …) this is `None` without scanning the line.
    pub subtype: Option<&'a str>,
}

/// Read the `type` and `subtype` of one JSON line.
///
/// Real CLI lines start with `{"type":"…","subtype":"…"`, which is read textually (whitespace is
/// allowed). Other layouts, such as `result` lines whose `type` comes last, fall back to one serde scan
/// that skips every other field. The rest of the line is not validated here: [`Message::parse_tagged`]
/// does that.
///
/// Returns an error when the line is not a JSON object with a string `type`.
///
/// ```
/// use claude_agent_tokio::message::peek_tags;
///
/// // A `result` line prints its `type` last; the tags are found all the same.
/// let tags = peek_tags(r#"{"duration_ms":180,"subtype":"success","is_error":false,"type":"result"}"#).unwrap();
/// assert_eq!((tags.ty, tags.subtype), ("result", Some("success")));
///
/// let tags = peek_tags(r#"{"type":"control_request","request_id":"req_1","request":{"subtype":"interrupt"}}"#).unwrap();
/// assert_eq!((tags.ty, tags.subtype), ("control_request", None));
///
/// assert!(peek_tags("Error: not JSON").is_err());
/// ```
///
/// [`Message::parse_tagged`]: crate::message::Message::parse_tagged
pub fn peek_tags(line: &str) -> Result<Tags<'_>, serde_json::Error> {
    match textual(line) {
        Some(tags) => Ok(tags),
        None => scanned(line),
    }
}

/// Types that never carry a top-level `subtype`, so the fast path need not look further.
fn has_no_subtype(ty: &str) -> bool {
    matches!(
        ty,
        "assistant"
            | "user"
            | "stream_event"
            | "control_request"
            | "control_response"
            | "control_cancel_request"
            | "keep_alive"
            | "rate_limit_event"
            | "tool_progress"
            | "tool_use_summary"
            | "auth_status"
            | "prompt_suggestion"
            | "conversation_reset"
    )
}

/// The fast path: `{"type":"…"` then optionally `,"subtype":"…"`. `None` means "use the scan".
fn textual(line: &str) -> Option<Tags<'_>> {
    let mut cur = Cursor { s: line, at: 0 };
    cur.punct(b'{')?;
    cur.literal("\"type\"")?;
    cur.punct(b':')?;
    let ty = cur.plain_string()?;
    if has_no_subtype(ty) {
        return Some(Tags { ty, subtype: None });
    }
    cur.punct(b',')?;
    cur.literal("\"subtype\"")?;
    cur.punct(b':')?;
    let subtype = cur.plain_string()?;
    Some(Tags {
        ty,
        subtype: Some(subtype),
    })
}

/// The head of a control request from the CLI, read textually: its id, its body's `subtype`, and
/// the body's text.
///
/// The CLI writes `{"type":"control_request","request_id":"…","request":{"subtype":"…",…}}`,
/// keys in that order, so the request's kind and id are known without a parse, and the body can be
/// read by its own type in one pass. Everything outside the body is checked here: when the body
/// then parses, the whole line is valid JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RequestHead<'a> {
    pub(crate) request_id: &'a str,
    pub(crate) subtype: &'a str,
    pub(crate) body: &'a str,
}

impl<'a> RequestHead<'a> {
    /// The head of `line`, or `None` when the line is not written as above (keys in another
    /// order, an escape in the id or the subtype): such a line is read the slow way.
    pub(crate) fn peek(line: &'a str) -> Option<RequestHead<'a>> {
        let mut cur = Cursor { s: line, at: 0 };
        cur.punct(b'{')?;
        cur.literal("\"type\"")?;
        cur.punct(b':')?;
        cur.literal("\"control_request\"")?;
        cur.punct(b',')?;
        cur.literal("\"request_id\"")?;
        cur.punct(b':')?;
        let request_id = cur.plain_string()?;
        cur.punct(b',')?;
        cur.literal("\"request\"")?;
        cur.punct(b':')?;
        let body = line
            .get(cur.at..)?
            .trim_end_matches([' ', '\t', '\n', '\r'])
            .strip_suffix('}')?;
        let mut inner = Cursor { s: body, at: 0 };
        inner.punct(b'{')?;
        inner.literal("\"subtype\"")?;
        inner.punct(b':')?;
        let subtype = inner.plain_string()?;
        Some(RequestHead {
            request_id,
            subtype,
            body,
        })
    }
}

struct Cursor<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        let bytes = self.s.as_bytes();
        while matches!(bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn punct(&mut self, c: u8) -> Option<()> {
        self.skip_ws();
        (self.s.as_bytes().get(self.at) == Some(&c)).then(|| self.at += 1)
    }

    fn literal(&mut self, lit: &str) -> Option<()> {
        self.skip_ws();
        self.s
            .get(self.at..)?
            .starts_with(lit)
            .then(|| self.at += lit.len())
    }

    /// A string without escapes; `None` on anything else (the scan then decides).
    fn plain_string(&mut self) -> Option<&'a str> {
        self.punct(b'"')?;
        let rest = self.s.get(self.at..)?;
        let end = rest
            .bytes()
            .position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest.as_bytes()[end] != b'"' {
            return None;
        }
        self.at += end + 1;
        rest.get(..end)
    }
}

/// The slow path: a serde pass over the whole line that keeps only `type` and `subtype`.
fn scanned(line: &str) -> Result<Tags<'_>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Scan<'a> {
        #[serde(rename = "type", borrow)]
        ty: &'a RawValue,
        #[serde(default, borrow)]
        subtype: Option<&'a RawValue>,
    }
    let scan: Scan<'_> = serde_json::from_str(line)?;
    let ty = string_text(scan.ty).ok_or_else(|| not_a_string("type"))?;
    let subtype = match scan.subtype {
        None => None,
        Some(raw) if raw.get() == "null" => None,
        Some(raw) => Some(string_text(raw).ok_or_else(|| not_a_string("subtype"))?),
    };
    Ok(Tags { ty, subtype })
}

/// The text between the quotes of a JSON string (escapes left as written).
fn string_text(raw: &RawValue) -> Option<&str> {
    raw.get().strip_prefix('"')?.strip_suffix('"')
}

fn not_a_string(field: &str) -> serde_json::Error {
    <serde_json::Error as serde::de::Error>::custom(format_args!("`{field}` is not a string"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(line: &str) -> (&str, Option<&str>) {
        let t = peek_tags(line).unwrap();
        (t.ty, t.subtype)
    }

    #[test]
    fn compact_and_spaced_lines() {
        assert_eq!(
            tags(r#"{"type":"system","subtype":"init","cwd":"/"}"#),
            ("system", Some("init"))
        );
        assert_eq!(
            tags(r#"{"type": "system", "subtype": "status", "status": null}"#),
            ("system", Some("status"))
        );
        assert_eq!(
            tags("{\n  \"type\" : \"assistant\",\n  \"message\": {}\n}"),
            ("assistant", None)
        );
        assert_eq!(tags(r#"  {"type":"keep_alive"}  "#), ("keep_alive", None));
    }

    #[test]
    fn type_after_other_fields_uses_the_scan() {
        let line =
            r#"{"duration_ms":1,"subtype":"success","usage":{"type":"nested"},"type":"result"}"#;
        assert_eq!(tags(line), ("result", Some("success")));
    }

    #[test]
    fn subtype_not_next_uses_the_scan() {
        let line = r#"{"type":"system","uuid":"u","subtype":"hook_started"}"#;
        assert_eq!(tags(line), ("system", Some("hook_started")));
        assert_eq!(tags(r#"{"type":"system","uuid":"u"}"#), ("system", None));
        assert_eq!(
            tags(r#"{"type":"system","subtype":null}"#),
            ("system", None)
        );
        assert_eq!(tags(r#"{"type":"brand_new","x":1}"#), ("brand_new", None));
    }

    #[test]
    fn escaped_values_are_left_as_written() {
        assert_eq!(
            tags(r#"{"type":"sys\u0074em","subtype":"init"}"#),
            (r"sys\u0074em", Some("init"))
        );
        assert_eq!(tags(r#"{"type":"a\"b"}"#), (r#"a\"b"#, None));
    }

    #[test]
    fn garbage_is_an_error() {
        for line in [
            "",
            "not json",
            "[1,2]",
            r#"{"type":3}"#,
            r#"{"subtype":"x"}"#,
            r#"{"type":"x","subtype":7}"#,
            "{\"type\":\"sys",
        ] {
            assert!(peek_tags(line).is_err(), "{line:?} should be an error");
        }
    }

    #[test]
    fn a_request_written_as_the_cli_writes_it_has_its_head_read() {
        let line = r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash"}}"#;
        let head = RequestHead::peek(line).unwrap();
        assert_eq!(
            (head.request_id, head.subtype, head.body),
            (
                "r1",
                "can_use_tool",
                r#"{"subtype":"can_use_tool","tool_name":"Bash"}"#
            )
        );
        let spaced = "{ \"type\" : \"control_request\", \"request_id\": \"r1\", \"request\": {\"subtype\": \"x\"} }\r\n";
        let head = RequestHead::peek(spaced).unwrap();
        assert_eq!((head.subtype, head.body), ("x", r#" {"subtype": "x"} "#));
    }

    #[test]
    fn a_request_written_otherwise_is_left_to_the_full_parse() {
        for line in [
            r#"{"request_id":"r1","type":"control_request","request":{"subtype":"x"}}"#,
            r#"{"type":"control_request","request":{"subtype":"x"},"request_id":"r1"}"#,
            r#"{"type":"control_request","request_id":"r\u0031","request":{"subtype":"x"}}"#,
            r#"{"type":"control_request","request_id":"r1","request":{"tool_name":"x","subtype":"x"}}"#,
            r#"{"type":"control_request","request_id":7,"request":{"subtype":"x"}}"#,
            r#"{"type":"control_response","request_id":"r1","request":{"subtype":"x"}}"#,
        ] {
            assert_eq!(RequestHead::peek(line), None, "{line}");
        }
        // A line cut short leaves a body that is not JSON, which its own parse refuses.
        let cut = r#"{"type":"control_request","request_id":"r1","request":{"subtype":"x"}"#;
        let body = RequestHead::peek(cut).unwrap().body;
        assert!(serde_json::from_str::<serde::de::IgnoredAny>(body).is_err());
    }
}
