//! Tool inputs made from a JSON Schema: a value that conforms to it (for `StructuredOutput`), and
//! arguments filled from what a prompt says.

use serde_json::{json, Map, Value};

/// How deep nested schemas are followed before giving up with `null`.
const MAX_DEPTH: usize = 8;

/// A value that conforms to `schema`: for each property, its `const`, first `enum` value,
/// `default` or first `examples` value, else an empty string (the property's name when it has
/// one), 0 (or its `minimum`), `false`, one item, or an object of all its properties.
pub(super) fn example_value(schema: &Value) -> Value {
    value_of(schema, schema, "", 0)
}

fn value_of(schema: &Value, root: &Value, name: &str, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let schema = resolve(schema, root);
    if let Some(given) = given_value(schema) {
        return given;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|alternatives| {
                alternatives
                    .iter()
                    .find(|a| type_of(resolve(a, root)) != Some("null"))
            })
        {
            return value_of(first, root, name, depth + 1);
        }
    }
    match type_of(schema) {
        Some("object") => object_of(schema, root, depth),
        None if schema.get("properties").is_some() => object_of(schema, root, depth),
        Some("array") => match schema.get("items") {
            Some(items) => json!([value_of(items, root, name, depth + 1)]),
            None => json!([]),
        },
        Some("integer" | "number") => schema.get("minimum").cloned().unwrap_or(json!(0)),
        Some("boolean") => json!(false),
        Some("null") => Value::Null,
        _ => json!(name),
    }
}

fn object_of(schema: &Value, root: &Value, depth: usize) -> Value {
    let mut object = Map::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            object.insert(name.clone(), value_of(property, root, name, depth + 1));
        }
    }
    Value::Object(object)
}

/// A value the schema itself gives: `const`, the first of `enum`, `default`, the first of
/// `examples`.
fn given_value(schema: &Value) -> Option<Value> {
    let first = |key| schema.get(key).and_then(Value::as_array)?.first().cloned();
    schema
        .get("const")
        .cloned()
        .or_else(|| first("enum"))
        .or_else(|| schema.get("default").cloned())
        .or_else(|| first("examples"))
}

/// The schema a local `$ref` (`#/$defs/Name`) points at, or the schema itself.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(path) => path
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(schema),
        None => schema,
    }
}

/// The schema's `type`, the first that is not `null` when it is a list.
fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or(Some("null")),
        _ => None,
    }
}

/// Arguments for a tool with this input schema from what a prompt gives: `numbers` go to its
/// numeric properties and `texts` to its string properties, each in order (required properties
/// first); required properties left over get [`example_value`]s.
pub(super) fn arguments(schema: &Value, numbers: &[f64], texts: &[String]) -> Value {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return json!({});
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<&str> = required.clone();
    names.extend(
        properties
            .keys()
            .map(String::as_str)
            .filter(|n| !required.contains(n)),
    );
    let (mut numbers, mut texts) = (numbers.iter(), texts.iter());
    let mut args = Map::new();
    for name in names {
        let Some(property) = properties.get(name) else {
            continue;
        };
        let property = resolve(property, schema);
        let given = match type_of(property) {
            Some("integer") => numbers.next().map(|n| json!(*n as i64)),
            Some("number") => numbers.next().map(|n| number(*n)),
            Some("string") => texts.next().map(|t| json!(t)),
            _ => None,
        };
        match given {
            Some(value) => {
                args.insert(name.to_owned(), value);
            }
            None if required.contains(&name) => {
                args.insert(name.to_owned(), value_of(property, schema, name, 1));
            }
            None => {}
        }
    }
    Value::Object(args)
}

/// A number as JSON: an integer when it is whole.
pub(super) fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_values_use_what_the_schema_gives() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "examples": ["Tokyo"]},
                "kind": {"enum": ["capital", "town"]},
                "people": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "note": {"type": ["string", "null"]},
                "where": {"$ref": "#/$defs/Place"}
            },
            "$defs": {"Place": {"type": "object", "properties": {"lat": {"type": "number", "minimum": -90}}}}
        });
        assert_eq!(
            example_value(&schema),
            json!({"city": "Tokyo", "kind": "capital", "people": 0, "tags": ["tags"],
                   "note": "note", "where": {"lat": -90}})
        );
    }

    #[test]
    fn arguments_take_numbers_and_texts_in_order() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "integer"}, "label": {"type": "string"}},
            "required": ["b", "a"]
        });
        assert_eq!(
            arguments(&schema, &[3.0, 1.5], &["x".into()]),
            json!({"b": 3, "a": 1.5, "label": "x"})
        );
        assert_eq!(arguments(&schema, &[], &[]), json!({"a": 0, "b": 0}));
    }
}
