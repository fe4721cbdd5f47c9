//! Rarely read fields kept as positions in the message's original line instead of owned copies.
//!
//! Every typed message keeps its whole line ([`super::raw::RawLine`]), and the parse reads the
//! very allocation the message keeps ([`super::raw::parse_line`]). So a field the CLI always sends
//! but hosts rarely read (`uuid`, `timestamp`, a tool's structured output, a stream event's
//! JSON, …) need not be copied out of it: the parse records where the field's text is, and an
//! accessor finds it again in the stored line. This saves one allocation and one copy per such
//! field and line, and needs no state beside the parse: a position is the text's address, read
//! back only against the line it must lie in.

use serde::de::{Deserializer, Error, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The text of one field: where it is in the message's line, or an owned copy when it is not a
/// plain slice of the input (a string with JSON escapes).
#[derive(Clone)]
pub(crate) enum LineText {
    /// `len` bytes at address `at`: a slice of the input the field was read from, which for a
    /// parsed message is the line it keeps.
    Span { at: usize, len: usize },
    /// The text itself.
    Owned(Box<str>),
}

impl LineText {
    /// `text`, borrowed from the input being parsed.
    fn borrowed(text: &str) -> LineText {
        LineText::Span {
            at: text.as_ptr() as usize,
            len: text.len(),
        }
    }

    /// The text, given the line the message was parsed from; `""` if it is not in that line
    /// (a value read from other input, which only a message's parse reads a whole line from).
    pub(crate) fn get<'a>(&'a self, line: &'a str) -> &'a str {
        match self {
            LineText::Span { at, len } => {
                let start = at.wrapping_sub(line.as_ptr() as usize);
                start
                    .checked_add(*len)
                    .and_then(|end| line.get(start..end))
                    .unwrap_or("")
            }
            LineText::Owned(text) => text,
        }
    }
}

/// Always equal: a field's text is compared through the line that holds it. Two messages are
/// equal when their lines are (each message compares its line, `RawLine`), and the same line
/// parses to the same fields; a position alone says nothing about the text.
impl PartialEq for LineText {
    fn eq(&self, _: &LineText) -> bool {
        true
    }
}

/// Without its line a position prints as its length; a message prints it as its text
/// ([`InLine`]).
impl fmt::Debug for LineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineText::Span { len, .. } => write!(f, "<{len} bytes of the line>"),
            LineText::Owned(text) => fmt::Debug::fmt(text, f),
        }
    }
}

/// A field of a message beside the message's line, for its `Debug`: a field kept as a position
/// in the line ([`PrintInLine`]) prints as its text, any other field as itself
/// ([`PrintPlain`]). `(&InLine(&field, line)).printed()` picks the one that fits.
pub(crate) struct InLine<'a, T>(pub(crate) &'a T, pub(crate) &'a str);

/// A field that prints itself with the help of its message's line.
pub(crate) trait PrintInLine {
    fn printed(&self) -> &dyn fmt::Debug;
}

/// Any other field: printed as it is.
pub(crate) trait PrintPlain {
    fn printed(&self) -> &dyn fmt::Debug;
}

impl<T: fmt::Debug> PrintPlain for &InLine<'_, T> {
    fn printed(&self) -> &dyn fmt::Debug {
        self.0
    }
}

impl PrintInLine for InLine<'_, Option<LineText>> {
    fn printed(&self) -> &dyn fmt::Debug {
        self
    }
}

impl PrintInLine for InLine<'_, LineText> {
    fn printed(&self) -> &dyn fmt::Debug {
        self
    }
}

impl fmt::Debug for InLine<'_, LineText> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0.get(self.1), f)
    }
}

impl fmt::Debug for InLine<'_, Option<LineText>> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0.as_ref().map(|text| text.get(self.1)), f)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Option<LineText>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or null")
    }

    fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(LineText::borrowed(v)))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
        // Unescaped into a scratch buffer: not a slice of the line.
        Ok(Some(LineText::Owned(v.into())))
    }

    fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

/// An optional string field (absent or `null` gives `None`; use with `#[serde(default)]`).
pub(crate) fn optional_str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<LineText>, D::Error> {
    d.deserialize_option(StrVisitor)
}

/// An optional field of any JSON value, kept as its JSON text (`null` gives `None`).
///
/// Needs a deserializer that can lend slices of its input (`serde_json::from_str`/`from_slice`).
pub(crate) fn optional_json<'de, D: Deserializer<'de>>(d: D) -> Result<Option<LineText>, D::Error> {
    let raw: Option<&'de RawValue> = serde::Deserialize::deserialize(d)?;
    Ok(raw.map(|raw| LineText::borrowed(raw.get())))
}

/// A required field of any JSON value, kept as its JSON text.
pub(crate) fn json<'de, D: Deserializer<'de>>(d: D) -> Result<LineText, D::Error> {
    let raw: &'de RawValue = serde::Deserialize::deserialize(d)?;
    Ok(LineText::borrowed(raw.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default, deserialize_with = "optional_str")]
        s: Option<LineText>,
        #[serde(default, deserialize_with = "optional_json")]
        j: Option<LineText>,
    }

    #[test]
    fn positions_in_the_line_copies_of_escaped_text() {
        let line = r#"{"s":"plain","j":{"a":[1,"x"]}}"#;
        let p: Probe = serde_json::from_str(line).unwrap();
        assert!(matches!(p.s, Some(LineText::Span { len: 5, .. })));
        assert_eq!(p.s.as_ref().unwrap().get(line), "plain");
        assert_eq!(p.j.as_ref().unwrap().get(line), r#"{"a":[1,"x"]}"#);

        let line = r#"{"s":"a\"b","j":null}"#;
        let p: Probe = serde_json::from_str(line).unwrap();
        assert!(matches!(&p.s, Some(LineText::Owned(s)) if &**s == "a\"b"));
        assert!(p.j.is_none());
        let p: Probe = serde_json::from_str(r#"{"s":null}"#).unwrap();
        assert!(p.s.is_none() && p.j.is_none());
        assert!(serde_json::from_str::<Probe>(r#"{"s":3}"#).is_err());
    }

    #[test]
    fn a_position_reads_nothing_from_another_line() {
        let line = String::from(r#"{"s":"plain"}"#);
        let p: Probe = serde_json::from_str(&line).unwrap();
        let span = p.s.unwrap();
        let same_text = line.clone();
        assert_eq!(span.get(&same_text), "", "the same text elsewhere");
        assert_eq!(span.get(&line[..8]), "", "a line that ends before it");
        assert_eq!(span.get(""), "");
        assert_eq!(span.get(&line), "plain");
    }

    #[test]
    fn a_message_prints_a_position_as_its_text() {
        let line = r#"{"s":"plain"}"#;
        let p: Probe = serde_json::from_str(line).unwrap();
        assert_eq!(format!("{:?}", p.s), "Some(<5 bytes of the line>)");
        assert_eq!(
            format!("{:?}", InLine(&p.s, line).printed()),
            r#"Some("plain")"#
        );
        let count = 3_u32;
        assert_eq!(format!("{:?}", (&InLine(&count, line)).printed()), "3");
    }
}
