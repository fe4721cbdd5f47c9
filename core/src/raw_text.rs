//! Equality of fields kept as raw JSON. [`RawValue`] has no `PartialEq`, so the types holding one
//! compare it by its exact text: `{"a":1}` and `{"a": 1}` differ.

use serde_json::value::RawValue;

/// Whether both are absent, or both present with the same text.
pub(crate) fn same_text(a: &Option<Box<RawValue>>, b: &Option<Box<RawValue>>) -> bool {
    a.as_deref().map(RawValue::get) == b.as_deref().map(RawValue::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Option<Box<RawValue>> {
        Some(RawValue::from_string(json.to_owned()).unwrap())
    }

    #[test]
    fn compares_presence_and_exact_text() {
        assert!(same_text(&None, &None));
        assert!(same_text(&raw(r#"{"a":1}"#), &raw(r#"{"a":1}"#)));
        assert!(!same_text(&raw(r#"{"a":1}"#), &raw(r#"{"a": 1}"#)));
        assert!(!same_text(&raw("1"), &None));
    }
}
