//! [`StringList`]: a JSON array of strings kept as raw text and read on demand.

use serde::de::{Deserialize, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A list of strings kept as its raw JSON array and read when asked for.
///
/// Used for the long name lists of `system`/`init` (tools, slash commands, skills, …): the CLI prints
/// them every turn and most hosts never read them, so the parse keeps the array's text, one
/// allocation, instead of one allocation per name. Items that
/// are not strings are skipped. Like the messages, it is read from text it can borrow from
/// (`serde_json::from_str` or `from_slice`).
///
/// ```
/// use claude_agent_tokio::message::StringList;
///
/// let list: StringList = serde_json::from_str(r#"["Bash","Read","Write"]"#).unwrap();
/// assert_eq!(list.len(), 3);
/// assert!(!list.is_empty());
/// assert!(list.contains("Read"));
/// assert_eq!(list.to_vec(), ["Bash", "Read", "Write"]);
/// assert_eq!(list.raw_json(), r#"["Bash","Read","Write"]"#);
/// for tool in list.items() {
///     assert!(!tool.is_empty()); // a `Cow<str>` borrowed from the array text
/// }
/// ```
///
/// On a session's `init` message:
///
/// ```
/// use claude_agent_tokio::message::{Message, SystemMessage};
///
/// let line = r#"{"type":"system","subtype":"init","cwd":"/tmp/ws","session_id":"s","tools":["Task","Bash","Read","mcp__calc__add"],"mcp_servers":[{"name":"calc","status":"connected"}],"model":"claude-opus-5-5","permissionMode":"default","slash_commands":["compact","context"]}"#;
/// let Message::System(SystemMessage::Init(init)) = Message::parse(line).unwrap() else { panic!("not init") };
/// let mcp_tools: Vec<_> = init.tools.items().into_iter().filter(|t| t.starts_with("mcp__")).collect();
/// assert_eq!(mcp_tools, ["mcp__calc__add"]);
/// assert!(init.skills.is_empty()); // absent from the line
/// ```
#[derive(Clone, Default)]
pub struct StringList(Option<Arc<str>>);

/// Lists are equal when their arrays' text is.
impl PartialEq for StringList {
    fn eq(&self, other: &StringList) -> bool {
        self.raw_json() == other.raw_json()
    }
}

impl StringList {
    /// The strings, in order, borrowed from the array text where they have no escapes.
    pub fn items(&self) -> Vec<Cow<'_, str>> {
        if self.0.is_none() {
            return Vec::new();
        }
        // The text was checked to be a JSON array when it was read, so this cannot fail;
        // an empty list is the safe answer if it ever did.
        serde_json::from_str::<Vec<Loose<'_>>>(self.raw_json())
            .map(|items| items.into_iter().filter_map(|item| item.0).collect())
            .unwrap_or_default()
    }

    /// The strings as owned `String`s.
    pub fn to_vec(&self) -> Vec<String> {
        self.items().into_iter().map(Cow::into_owned).collect()
    }

    /// The number of strings.
    pub fn len(&self) -> usize {
        self.items().len()
    }

    /// Whether the list has no strings.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the list holds `item`.
    pub fn contains(&self, item: &str) -> bool {
        self.items().iter().any(|s| s == item)
    }

    /// The array as the CLI printed it (`[]` when the field was absent).
    pub fn raw_json(&self) -> &str {
        self.0.as_deref().unwrap_or("[]")
    }
}

impl fmt::Debug for StringList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.items()).finish()
    }
}

impl<'de> Deserialize<'de> for StringList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?.get();
        if raw == "null" {
            return Ok(StringList(None));
        }
        if !raw.starts_with('[') {
            return Err(D::Error::custom("expected an array of strings"));
        }
        Ok(StringList(Some(Arc::from(raw))))
    }
}

/// An array item: `Some` for a string, `None` for anything else.
struct Loose<'de>(Option<Cow<'de, str>>);

impl<'de> Deserialize<'de> for Loose<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Loose<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Loose<'de>, E> {
        Ok(Loose(Some(Cow::Borrowed(v))))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Loose<'de>, E> {
        Ok(Loose(Some(Cow::Owned(v.to_owned()))))
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Loose<'de>, E> {
        Ok(Loose(None))
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Loose<'de>, E> {
        Ok(Loose(None))
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Loose<'de>, E> {
        Ok(Loose(None))
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Loose<'de>, E> {
        Ok(Loose(None))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Loose<'de>, E> {
        Ok(Loose(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Loose(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Loose(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_non_strings_null_and_errors() {
        let list: StringList =
            serde_json::from_str(r#"["a\"b", "", 3, {"x":[1]}, "\u00e9"]"#).unwrap();
        assert_eq!(list.to_vec(), ["a\"b", "", "é"]);
        assert_eq!(format!("{list:?}"), r#"["a\"b", "", "é"]"#);
        let null: StringList = serde_json::from_str("null").unwrap();
        assert!(null.is_empty());
        assert_eq!(null.raw_json(), "[]");
        assert!(StringList::default().to_vec().is_empty());
        assert!(serde_json::from_str::<StringList>(r#""a""#).is_err());
        assert!(serde_json::from_str::<StringList>("{}").is_err());
    }

    /// The lists of a message each hold their array's text.
    #[test]
    fn lists_of_a_message_hold_their_arrays() {
        use crate::message::{Message, SystemMessage};

        let line = r#"{"type":"system","subtype":"init","session_id":"s","tools":["Bash","Read"],"slash_commands":["compact"],"skills":[]}"#;
        let Message::System(SystemMessage::Init(init)) = Message::parse(line).unwrap() else {
            panic!("not init");
        };
        assert_eq!(init.tools.to_vec(), ["Bash", "Read"]);
        assert_eq!(init.tools.raw_json(), r#"["Bash","Read"]"#);
        assert_eq!(init.slash_commands.raw_json(), r#"["compact"]"#);
        assert!(init.skills.is_empty());
        assert_eq!(init.raw_json(), line);
        let alone: StringList = serde_json::from_str(r#" ["x"] "#).unwrap();
        assert_eq!(alone.raw_json(), r#"["x"]"#);
    }
}
