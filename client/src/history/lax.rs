//! Readers for the fields of a transcript entry that the chain looks at, each of which takes any
//! JSON value: a field of another shape than expected reads as absent (or false), so one odd
//! field never drops its entry from the conversation, and the entry's line keeps it as written.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// A string, or `None` for any other value.
pub(super) fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    d.deserialize_any(Lax::<Option<String>>::new(|value| match value {
        Seen::Str(s) => Some(s.to_owned()),
        _ => None,
    }))
}

/// A flag read as the official SDKs read it: `false`, `null`, `0`, `""`, `[]` and `{}` are
/// false, any other value true.
pub(super) fn truthy<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    d.deserialize_any(Lax::<bool>::new(|value| match value {
        Seen::Bool(b) => b,
        Seen::Number(zero) => !zero,
        Seen::Str(s) => !s.is_empty(),
        Seen::Container(empty) => !empty,
        Seen::Null => false,
    }))
}

/// An object read as `T` (whose own fields must read any value), or `None` for any other value.
pub(super) fn object<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_any(Object(PhantomData))
}

/// A list read item by item as [`object`]s, or empty for any other value.
pub(super) fn objects<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_any(Objects(PhantomData))
}

/// `T` read from its own copy of the value, or `None` when it does not fit: for rare fields
/// whose shape has required parts.
pub(super) fn fitting<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let raw = Box::<RawValue>::deserialize(d)?;
    Ok(serde_json::from_str(raw.get()).ok())
}

/// What a value was, as far as these readers care.
enum Seen<'a> {
    Null,
    Bool(bool),
    /// A number; `true` when it is zero.
    Number(bool),
    Str(&'a str),
    /// A list or an object; `true` when it is empty.
    Container(bool),
}

/// A visitor of any value, mapped to `T` by `read`; containers are skipped whole.
struct Lax<T> {
    read: fn(Seen<'_>) -> T,
}

impl<T> Lax<T> {
    fn new(read: fn(Seen<'_>) -> T) -> Self {
        Lax { read }
    }
}

impl<'de, T> Visitor<'de> for Lax<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: Error>(self) -> Result<T, E> {
        Ok((self.read)(Seen::Null))
    }

    fn visit_none<E: Error>(self) -> Result<T, E> {
        Ok((self.read)(Seen::Null))
    }

    fn visit_bool<E: Error>(self, v: bool) -> Result<T, E> {
        Ok((self.read)(Seen::Bool(v)))
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<T, E> {
        Ok((self.read)(Seen::Number(v == 0)))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<T, E> {
        Ok((self.read)(Seen::Number(v == 0)))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<T, E> {
        Ok((self.read)(Seen::Number(v == 0.0)))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<T, E> {
        Ok((self.read)(Seen::Str(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut empty = true;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            empty = false;
        }
        Ok((self.read)(Seen::Container(empty)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut empty = true;
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            empty = false;
        }
        Ok((self.read)(Seen::Container(empty)))
    }
}

struct Object<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Some)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<T>, A::Error> {
        Lax::new(|_| None).visit_seq(seq)
    }

    fn visit_unit<E: Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_i64<E: Error>(self, _: i64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_u64<E: Error>(self, _: u64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_f64<E: Error>(self, _: f64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_str<E: Error>(self, _: &str) -> Result<Option<T>, E> {
        Ok(None)
    }
}

/// One item of [`objects`].
struct Item<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Item<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Object(PhantomData)).map(Item)
    }
}

struct Objects<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Objects<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(Item(item)) = seq.next_element::<Item<T>>()? {
            items.extend(item);
        }
        Ok(items)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vec<T>, A::Error> {
        Lax::new(|_| Vec::new()).visit_map(map)
    }

    fn visit_unit<E: Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_i64<E: Error>(self, _: i64) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_u64<E: Error>(self, _: u64) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_f64<E: Error>(self, _: f64) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_str<E: Error>(self, _: &str) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default, deserialize_with = "string")]
        s: Option<String>,
        #[serde(default, deserialize_with = "truthy")]
        t: bool,
    }

    #[test]
    fn any_value_reads_without_failing() {
        for (json, s, t) in [
            (r#"{"s":"a","t":true}"#, Some("a"), true),
            (r#"{"s":7,"t":null}"#, None, false),
            (r#"{"s":[1e999],"t":0}"#, None, false),
            (r#"{"s":{"a":1},"t":"x"}"#, None, true),
            (r#"{"s":null,"t":[]}"#, None, false),
            (r#"{"t":{"k":1}}"#, None, true),
            (r#"{"t":""}"#, None, false),
            (r#"{"t":2.5}"#, None, true),
        ] {
            let probe: Probe = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!((probe.s.as_deref(), probe.t), (s, t), "{json}");
        }
    }
}
