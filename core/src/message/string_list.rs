//! [`StringList`]: a JSON array of strings kept as raw text and read on demand.

use crate::Json;
use serde::de::{Deserialize, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A list of strings kept as its raw JSON array and read when asked for.
///
/// Used for the long name lists of `system`/`init` (tools, slash commands, skills, …): the CLI prints
/// them every turn and most hosts never read them, so the parse only copies the array text (one
/// allocation) instead of one allocation per name. Items that are not strings are skipped.
///
/// ```
/// use claude_agent_core::message::StringList;
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
/// use claude_agent_core::message::{Message, SystemMessage};
///
/// let line = r#"{"type":"system","subtype":"init","cwd":"/tmp/ws","session_id":"s","tools":["Task","Bash","Read","mcp__calc__add"],"mcp_servers":[{"name":"calc","status":"connected"}],"model":"claude-opus-5-5","permissionMode":"default","slash_commands":["compact","context"]}"#;
/// let Message::System(SystemMessage::Init(init)) = Message::parse(line).unwrap() else { panic!("not init") };
/// let mcp_tools: Vec<_> = init.tools.items().into_iter().filter(|t| t.starts_with("mcp__")).collect();
/// assert_eq!(mcp_tools, ["mcp__calc__add"]);
/// assert!(init.skills.is_empty()); // absent from the line
/// ```
#[derive(Clone)]
pub struct StringList(Option<Json>);

impl Default for StringList {
    /// An empty list.
    fn default() -> Self {
        StringList(None)
    }
}

impl StringList {
    /// The strings, in order, borrowed from the array text where they have no escapes.
    pub fn items(&self) -> Vec<Cow<'_, str>> {
        let Some(raw) = &self.0 else {
            return Vec::new();
        };
        // The text was checked to be a JSON array when it was read, so this cannot fail;
        // an empty list is the safe answer if it ever did.
        serde_json::from_str::<Vec<Loose<'_>>>(raw.as_str())
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
        self.0.as_ref().map_or("[]", |raw| raw.as_str())
    }
}

impl fmt::Debug for StringList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.items()).finish()
    }
}

impl<'de> Deserialize<'de> for StringList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        if raw.get() == "null" {
            return Ok(StringList(None));
        }
        if !raw.get().starts_with('[') {
            return Err(D::Error::custom("expected an array of strings"));
        }
        Ok(StringList(Some(Json::from(raw))))
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
}
