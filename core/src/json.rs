//! [`Json`]: a JSON value kept as its text, parsed when it is read.

use std::fmt;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A JSON value as the CLI sent it, or as it will be sent: kept as its text, and parsed into the
/// type you ask for when you read it. Tool inputs, tool results, schemas and the other payloads
/// whose shape the protocol leaves open come as `Json`; so do the parts of a message this SDK
/// does not know yet, so that nothing the CLI sent is lost.
///
/// Values compare by their exact text: `{"a":1}` and `{"a": 1}` differ. `Debug` and `Display`
/// print the text.
///
/// ```
/// use claude_agent_tokio::Json;
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct Bash {
///     command: String,
/// }
///
/// // What a `PreToolUse` hook or a permission prompt gets as the tool's input:
/// let input: Json = r#"{"command":"cargo test","timeout":60000}"#.parse()?;
/// let bash: Bash = input.parse()?;
/// assert_eq!(bash.command, "cargo test");
/// assert_eq!(input.parse::<serde_json::Value>()?["timeout"], 60000);
///
/// // Values of your own, e.g. an updated tool input to send back:
/// let updated = Json::from(serde_json::json!({"command": "cargo test --quiet"}));
/// assert_eq!(updated.as_str(), r#"{"command":"cargo test --quiet"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Json(Box<RawValue>);

impl Json {
    /// Reads the value as a `T`.
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// let ids: Vec<u32> = Json::from(serde_json::json!([1, 2, 3])).parse()?;
    /// assert_eq!(ids, [1, 2, 3]);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    /// The JSON text.
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// assert_eq!(Json::from(serde_json::json!({"a": 1})).as_str(), r#"{"a":1}"#);
    /// ```
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// The JSON of a value of yours: a struct that derives `Serialize`, a map, a
    /// `serde_json::Value`. Fails only where `serde_json` would (a map with non-string keys, a
    /// `Serialize` implementation that reports an error).
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// #[derive(serde::Serialize)]
    /// struct Choice {
    ///     repo: &'static str,
    /// }
    /// let content = Json::from_serialize(&Choice { repo: "octo/demo" })?;
    /// assert_eq!(content.as_str(), r#"{"repo":"octo/demo"}"#);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Json, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(Json)
    }

    /// The value as a `serde_json::Value`, to look into it without a type of your own.
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// let input: Json = r#"{"file_path":"/srv/app/main.rs"}"#.parse()?;
    /// assert_eq!(input.to_value()["file_path"], "/srv/app/main.rs");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn to_value(&self) -> serde_json::Value {
        self.parse()
            .expect("a Json holds valid JSON, which parses as a Value")
    }

    /// The value as `serde_json`'s raw value, for code that works with that type.
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// let json: Json = "[1,2]".parse()?;
    /// assert_eq!(json.as_raw().get(), "[1,2]");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_raw(&self) -> &RawValue {
        &self.0
    }
}

/// A JSON object whose `tag` key tells its kind: the tag (when it is a string) and the whole
/// object, for the kind's own deserializer. Tagged types with `Json` fields read themselves
/// through this, as serde's buffered tagged enums cannot hold raw JSON. The tag is found in one
/// pass that builds nothing but it.
pub(crate) fn split_tag<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
    tag: &str,
) -> Result<(Option<String>, Json), D::Error> {
    let json = Json::deserialize(deserializer)?;
    let mut reader = serde_json::Deserializer::from_str(json.as_str());
    let found = serde::de::DeserializeSeed::deserialize(TagOf(tag), &mut reader)
        .map_err(serde::de::Error::custom)?;
    Ok((found, json))
}

/// Reads the string value of one key of a JSON object, skipping every other value.
struct TagOf<'t>(&'t str);

impl<'de> serde::de::DeserializeSeed<'de> for TagOf<'_> {
    type Value = Option<String>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for TagOf<'_> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object with a string `{}`", self.0)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.0 && found.is_none() {
                // The tag's value alone is read whole, whatever its type.
                let value = map.next_value::<serde_json::Value>()?;
                found = value.as_str().map(str::to_owned);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// One kind of a [`split_tag`] object, read from its text.
pub(crate) fn read_kind<T: DeserializeOwned, E: serde::de::Error>(json: &Json) -> Result<T, E> {
    json.parse().map_err(E::custom)
}

impl FromStr for Json {
    type Err = serde_json::Error;

    /// Checks that `text` is one JSON value and keeps it as it is (whitespace included).
    fn from_str(text: &str) -> Result<Json, serde_json::Error> {
        RawValue::from_string(text.to_owned()).map(Json)
    }
}

impl TryFrom<String> for Json {
    type Error = serde_json::Error;

    /// Checks that `text` is one JSON value and keeps it, without copying it.
    fn try_from(text: String) -> Result<Json, serde_json::Error> {
        RawValue::from_string(text).map(Json)
    }
}

impl From<serde_json::Value> for Json {
    fn from(value: serde_json::Value) -> Json {
        Json::from_serialize(&value).expect("a serde_json::Value always serializes")
    }
}

impl From<Box<RawValue>> for Json {
    fn from(raw: Box<RawValue>) -> Json {
        Json(raw)
    }
}

impl From<Json> for Box<RawValue> {
    fn from(json: Json) -> Box<RawValue> {
        json.0
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Json {}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_text_and_compares_by_it() {
        let spaced: Json = r#"{"a": 1}"#.parse().unwrap();
        assert_eq!(spaced.as_str(), r#"{"a": 1}"#);
        assert_ne!(spaced, Json::from(serde_json::json!({"a": 1})));
        assert_eq!(format!("{spaced:?}"), r#"{"a": 1}"#);
        assert!("{".parse::<Json>().is_err());
        assert!("1 2".parse::<Json>().is_err());
    }

    #[test]
    fn a_tag_is_found_wherever_it_is_and_whatever_else_the_object_holds() {
        let tag = |text: &str| {
            let mut reader = serde_json::Deserializer::from_str(text);
            split_tag(&mut reader, "kind").map(|(tag, json)| (tag, json.as_str().to_owned()))
        };
        let text = r#"{"a":[1,{"kind":"inner"}],"kind":"outer","b":{"c":null}}"#;
        assert_eq!(tag(text).unwrap(), (Some("outer".into()), text.into()));
        assert_eq!(tag(r#"{"kind":7}"#).unwrap().0, None);
        assert_eq!(tag(r#"{"other":1}"#).unwrap().0, None);
        assert!(tag("[1]").is_err());
    }

    #[test]
    fn serializes_as_the_value_it_holds() {
        #[derive(Serialize, Deserialize)]
        struct Holder {
            input: Json,
        }
        let holder: Holder = serde_json::from_str(r#"{"input":{"x":[1, 2]}}"#).unwrap();
        assert_eq!(holder.input.as_str(), r#"{"x":[1, 2]}"#);
        assert_eq!(
            serde_json::to_string(&holder).unwrap(),
            r#"{"input":{"x":[1, 2]}}"#
        );
    }
}
