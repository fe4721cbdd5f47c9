//! Lenient readers for numbers the CLI computes in JavaScript: a duration may arrive as `163` or `163.4`.

use serde::de::{Deserializer, Error, Visitor};
use std::fmt;

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
}
