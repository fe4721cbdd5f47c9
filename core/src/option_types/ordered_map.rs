//! Serializing name/value lists as JSON objects that keep their insertion order.
//!
//! `serde_json::Map` sorts its keys (the crate is built without `preserve_order`); the CLI does not
//! care, but keeping the user's order makes the argv and the `initialize` payload predictable.

use serde::ser::{Serialize, SerializeMap, Serializer};

/// A borrowed list of `(name, value)` pairs serialized as a JSON object, in list order.
pub(crate) struct OrderedMap<'a, V>(pub(crate) &'a [(String, V)]);

impl<V: Serialize> Serialize for OrderedMap<'_, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Set `name` to `value` in an ordered list, replacing an earlier entry in place.
pub(crate) fn upsert<V>(list: &mut Vec<(String, V)>, name: String, value: V) {
    match list.iter_mut().find(|(n, _)| *n == name) {
        Some(entry) => entry.1 = value,
        None => list.push((name, value)),
    }
}

/// JSON text of a value made of strings, numbers, booleans, lists and `serde_json::Value`s.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    // Every type passed here has string keys and no fallible `Serialize` impl, so serde_json cannot fail.
    serde_json::to_string(value).expect("options serialize to JSON without error")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_insertion_order() {
        let list = vec![("z".to_string(), 1), ("a".to_string(), 2)];
        assert_eq!(to_json(&OrderedMap(&list)), r#"{"z":1,"a":2}"#);
    }

    #[test]
    fn upsert_replaces_in_place() {
        let mut list = vec![("z".to_string(), 1), ("a".to_string(), 2)];
        upsert(&mut list, "z".into(), 3);
        upsert(&mut list, "b".into(), 4);
        assert_eq!(to_json(&OrderedMap(&list)), r#"{"z":3,"a":2,"b":4}"#);
    }
}
