//! Lenient readers for fields the CLI writes loosely: numbers it computes in JavaScript (a
//! duration may arrive as `163` or `163.4`), and fields whose shape varies between its
//! versions. A field that does not fit is read as empty; the message is never lost over it, and
//! its line keeps the field as sent.

use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;
use std::marker::PhantomData;

struct WholeNumber;

impl Visitor<'_> for WholeNumber {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative number")
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v).map_err(|_| E::custom(format_args!("negative number {v}")))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<u64, E> {
        if v.is_finite() && v >= 0.0 {
            // Truncation is intended: sub-unit precision of a JS timer is noise.
            Ok(v as u64)
        } else {
            Err(E::custom(format_args!("not a non-negative number: {v}")))
        }
    }
}

/// A non-negative number, truncated to an integer; for fields the CLI may send as a float.
pub(crate) fn whole<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    d.deserialize_u64(WholeNumber)
}

struct OptionalWholeNumber;

impl<'de> Visitor<'de> for OptionalWholeNumber {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative number or null")
    }

    fn visit_none<E: Error>(self) -> Result<Option<u64>, E> {
        Ok(None)
    }

    fn visit_unit<E: Error>(self) -> Result<Option<u64>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
        whole(d).map(Some)
    }
}

/// Like [`whole`], for a field that may be `null` or absent (use with `#[serde(default)]`).
pub(crate) fn optional_whole<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    d.deserialize_option(OptionalWholeNumber)
}

/// A `result`'s `errors`: a list of strings, or one string (older CLIs). Entries that are not
/// strings or are blank are dropped, the others trimmed, and the CLI's internal
/// `[ede_diagnostic]` entries left out; any other value is no errors.
pub(crate) fn result_errors<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let entries = match any_value(d)? {
        Some(Value::String(one)) => vec![Value::String(one)],
        Some(Value::Array(entries)) => entries,
        _ => Vec::new(),
    };
    Ok(entries
        .into_iter()
        .filter_map(|entry| match entry {
            Value::String(text) => Some(text.trim().to_owned()),
            _ => None,
        })
        .filter(|text| !text.is_empty() && !text.starts_with("[ede_diagnostic]"))
        .collect())
}

/// The field read as `T`, or `T::default()` when it does not fit: for the fields of rare
/// messages whose shape a CLI version may change.
pub(crate) fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let raw = Box::<RawValue>::deserialize(d)?;
    Ok(serde_json::from_str(raw.get()).unwrap_or_default())
}

/// An object read as `T`, or `T::default()` for any other JSON value: for a field that should be
/// an object, such as a task's `patch`.
pub(crate) fn object_or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    d.deserialize_any(ObjectOrDefault(PhantomData))
}

struct ObjectOrDefault<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for ObjectOrDefault<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }

    fn visit_str<E: Error>(self, _: &str) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_i64<E: Error>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_u64<E: Error>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_f64<E: Error>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_unit<E: Error>(self) -> Result<T, E> {
        Ok(T::default())
    }
}

/// Any JSON value, or `None` for one `serde_json::Value` cannot hold (a number out of range).
fn any_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    let raw = Box::<RawValue>::deserialize(d)?;
    Ok(serde_json::from_str(raw.get()).ok())
}

/// An HTTP status: a number, or a string of digits (`"500"`); anything else is `None`.
pub(crate) fn http_status<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    d.deserialize_any(HttpStatus)
}

struct HttpStatus;

impl<'de> Visitor<'de> for HttpStatus {
    type Value = Option<u16>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an HTTP status")
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<Option<u16>, E> {
        Ok(u16::try_from(v).ok())
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<Option<u16>, E> {
        Ok(u16::try_from(v).ok())
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<Option<u16>, E> {
        let whole = v.is_finite() && v.fract() == 0.0 && (0.0..=f64::from(u16::MAX)).contains(&v);
        // The range and fraction are checked: the cast is exact.
        Ok(whole.then_some(v as u16))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<Option<u16>, E> {
        Ok(v.trim().parse().ok())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<u16>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<u16>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_unit<E: Error>(self) -> Result<Option<u16>, E> {
        Ok(None)
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<Option<u16>, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(deserialize_with = "whole")]
        a: u64,
        #[serde(default, deserialize_with = "optional_whole")]
        b: Option<u64>,
    }

    #[test]
    fn integers_floats_null_and_missing() {
        let p: Probe = serde_json::from_str(r#"{"a":163.9,"b":null}"#).unwrap();
        assert_eq!((p.a, p.b), (163, None));
        let p: Probe = serde_json::from_str(r#"{"a":7,"b":2.0}"#).unwrap();
        assert_eq!((p.a, p.b), (7, Some(2)));
        let p: Probe = serde_json::from_str(r#"{"a":0}"#).unwrap();
        assert_eq!(p.b, None);
        assert!(serde_json::from_str::<Probe>(r#"{"a":-1}"#).is_err());
        assert!(serde_json::from_str::<Probe>(r#"{"a":"1"}"#).is_err());
    }

    #[derive(serde::Deserialize)]
    struct Failed {
        #[serde(default, deserialize_with = "result_errors")]
        errors: Vec<String>,
        #[serde(default, deserialize_with = "http_status")]
        status: Option<u16>,
    }

    fn failed(json: &str) -> (Vec<String>, Option<u16>) {
        let f: Failed = serde_json::from_str(json).unwrap();
        (f.errors, f.status)
    }

    #[test]
    fn errors_of_any_shape_are_read_as_their_clean_strings() {
        assert_eq!(failed(r#"{"errors":"boom"}"#).0, ["boom"]);
        assert_eq!(
            failed(r#"{"errors":["  a ", "", "   ", 7, null, {"x":[1]}, ["b"], "[ede_diagnostic] x", "c"]}"#).0,
            ["a", "c"]
        );
        for other in ["null", "3", "true", r#"{"a":"b"}"#, "\"  \""] {
            assert!(
                failed(&format!(r#"{{"errors":{other}}}"#)).0.is_empty(),
                "{other}"
            );
        }
    }

    #[test]
    fn an_http_status_is_a_number_or_a_string_of_digits() {
        assert_eq!(failed(r#"{"status":500}"#).1, Some(500));
        assert_eq!(failed(r#"{"status":"500"}"#).1, Some(500));
        assert_eq!(failed(r#"{"status":529.0}"#).1, Some(529));
        for other in [
            r#""five hundred""#,
            "-1",
            "70000",
            "1.5",
            "null",
            "[500]",
            r#"{"code":500}"#,
            "true",
        ] {
            assert_eq!(
                failed(&format!(r#"{{"status":{other}}}"#)).1,
                None,
                "{other}"
            );
        }
    }
}
