//! Matching a URI against a URI template with `{name}` and `{+name}` expressions.

use std::collections::BTreeMap;

/// One piece of a template.
enum Piece<'a> {
    Literal(&'a str),
    /// A variable; `reserved` (`{+name}`) may hold `/`, `?` and `#`.
    Variable {
        name: &'a str,
        reserved: bool,
    },
}

/// The pieces of `template`, or `None` when a `{` is not closed or an expression is empty.
fn pieces(template: &str) -> Option<Vec<Piece<'_>>> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            pieces.push(Piece::Literal(&rest[..open]));
        }
        let close = open + rest[open..].find('}')?;
        let expression = &rest[open + 1..close];
        let (name, reserved) = match expression.strip_prefix('+') {
            Some(name) => (name, true),
            None => (expression, false),
        };
        if name.is_empty() {
            return None;
        }
        pieces.push(Piece::Variable { name, reserved });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Literal(rest));
    }
    Some(pieces)
}

/// The variables of `template` in `uri`, if `uri` fits it. A variable takes the shortest text
/// up to the literal after it (the rest of the URI for the last one); a simple one takes at
/// least one character and no `/`, `?` or `#`.
pub(super) fn fit(template: &str, uri: &str) -> Option<BTreeMap<String, String>> {
    let pieces = pieces(template)?;
    let mut variables = BTreeMap::new();
    let mut rest = uri;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Literal(literal) => rest = rest.strip_prefix(literal)?,
            Piece::Variable { name, reserved } => {
                let end = match pieces.get(i + 1) {
                    Some(Piece::Literal(next)) => rest.find(next)?,
                    // Two variables in a row cannot be told apart: the first takes nothing.
                    Some(Piece::Variable { .. }) => 0,
                    None => rest.len(),
                };
                let value = &rest[..end];
                if value.is_empty() || (!reserved && value.contains(['/', '?', '#'])) {
                    return None;
                }
                variables.insert((*name).to_owned(), value.to_owned());
                rest = &rest[end..];
            }
        }
    }
    rest.is_empty().then_some(variables)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        fit(template, uri).map(|v| v.into_iter().collect())
    }

    fn pairs(list: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn variables_take_the_text_between_literals() {
        assert_eq!(
            vars("logs://{day}", "logs://2026-01-31"),
            pairs(&[("day", "2026-01-31")])
        );
        assert_eq!(
            vars("db://{table}/rows/{id}.json", "db://users/rows/42.json"),
            pairs(&[("id", "42"), ("table", "users")])
        );
        assert_eq!(
            vars("file:///{+path}", "file:///a/b/c.txt"),
            pairs(&[("path", "a/b/c.txt")])
        );
        assert_eq!(vars("docs://readme", "docs://readme"), pairs(&[]));
    }

    #[test]
    fn a_uri_that_does_not_fit_gives_nothing() {
        assert_eq!(vars("logs://{day}", "logs://a/b"), None);
        assert_eq!(vars("logs://{day}", "logs://"), None);
        assert_eq!(vars("logs://{day}", "files://x"), None);
        assert_eq!(vars("db://{table}/rows", "db://users/rows/1"), None);
        assert_eq!(vars("docs://readme", "docs://readme2"), None);
        assert_eq!(vars("bad://{day", "bad://x"), None);
        assert_eq!(vars("bad://{}", "bad://x"), None);
    }
}
