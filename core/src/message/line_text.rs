//! Rarely read fields kept as positions in the message's original line instead of owned copies.
//!
//! Every typed message stores its whole line ([`super::raw::RawLine`]), so a field the CLI always
//! sends but hosts rarely read (`uuid`, `timestamp`, a tool's structured output, a stream event's
//! JSON, …) need not be copied out of it: the parse records where its text is, and an accessor
//! method slices the stored line. This saves one allocation and one copy per such field and line.

use serde::de::{Deserializer, Error, Visitor};
use serde_json::value::RawValue;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::sync::Arc;

thread_local! {
    /// A copy of the line of the message being printed with `{:?}`, so that its fields kept as
    /// positions print their text; `None` outside of [`debug_with_line`].
    static DEBUG_LINE: RefCell<Option<Box<str>>> = const { RefCell::new(None) };

    /// Start address and length of the line [`super::raw::parse_line`] is parsing on this thread;
    /// `(0, 0)` outside of it. Lets a field record its offset in the line while serde reads it.
    static LINE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };

    /// The copy of that line the parsed message will keep, when [`with_line`] registered
    /// one: a field may then hold it and a range instead of a copy of its own text.
    static SHARED: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
}

/// Run `parse` with `line` registered as the line that field positions refer to, and `shared`
/// (the same text in the allocation the message keeps, if any) for fields that hold the line
/// themselves ([`shared_range`]).
pub(crate) fn with_line<T>(line: &str, shared: Option<Arc<str>>, parse: impl FnOnce() -> T) -> T {
    /// Restores the previous registration even if `parse` unwinds, so no later parse can take a
    /// stale address for a position.
    struct Restore((usize, usize), Option<Arc<str>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LINE.set(self.0);
            let previous = self.1.take();
            SHARED.with(|registered| *registered.borrow_mut() = previous);
        }
    }
    let previous_shared = SHARED.with(|registered| registered.replace(shared));
    let _restore = Restore(
        LINE.replace((line.as_ptr() as usize, line.len())),
        previous_shared,
    );
    parse()
}

/// Where `text`, borrowed from the line being parsed, sits in the shared copy of that line: the
/// copy and the byte range. `None` when no shared copy is registered or `text` is not in the line.
pub(crate) fn shared_range(text: &str) -> Option<(Arc<str>, u32, u32)> {
    let (start, len) = match LineText::locate_in_line(text)? {
        LineText::Span { start, len } => (start, len),
        LineText::Owned(_) => return None,
    };
    let shared = SHARED.with(|registered| registered.borrow().clone())?;
    Some((shared, start, len))
}

/// Run `print` (a `Debug` implementation) with `line` registered as the line that field
/// positions refer to, so they print as their text instead of as `line[start..+len]`.
pub(crate) fn debug_with_line(line: &str, print: impl FnOnce() -> fmt::Result) -> fmt::Result {
    /// Restores the previous registration, also if `print` unwinds.
    struct Restore(Option<Box<str>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            DEBUG_LINE.with(|registered| *registered.borrow_mut() = previous);
        }
    }
    let previous = DEBUG_LINE.with(|registered| registered.borrow_mut().replace(line.into()));
    let _restore = Restore(previous);
    print()
}

/// The text of one field: where it is in the message's line, or an owned copy when it is not a
/// plain slice of it (a string with JSON escapes, or a value read outside [`with_line`]).
#[derive(Clone, PartialEq)]
pub(crate) enum LineText {
    /// Byte range `start..start + len` of the original line.
    Span { start: u32, len: u32 },
    /// The text itself.
    Owned(Box<str>),
}

impl LineText {
    /// Where `text`, borrowed from the input, sits in the line being parsed; a copy if it is not in it.
    fn locate(text: &str) -> LineText {
        Self::locate_in_line(text).unwrap_or_else(|| LineText::Owned(text.into()))
    }

    /// Where `text` sits in the line being parsed, if it is in it.
    fn locate_in_line(text: &str) -> Option<LineText> {
        let (base, line_len) = LINE.get();
        let at = (text.as_ptr() as usize).wrapping_sub(base);
        (base != 0 && at <= line_len && text.len() <= line_len - at)
            .then(|| {
                Some(LineText::Span {
                    start: u32::try_from(at).ok()?,
                    len: u32::try_from(text.len()).ok()?,
                })
            })
            .flatten()
    }

    /// The text, given the line the message was parsed from.
    pub(crate) fn get<'a>(&'a self, line: &'a str) -> &'a str {
        match self {
            // A span was taken from this very line, so the range is in bounds and on char boundaries;
            // `""` would only show if a message's line were ever replaced, which nothing does.
            LineText::Span { start, len } => line
                .get(*start as usize..*start as usize + *len as usize)
                .unwrap_or(""),
            LineText::Owned(text) => text,
        }
    }
}

impl fmt::Debug for LineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineText::Span { start, len } => {
                let (start, end) = (*start as usize, *start as usize + *len as usize);
                // Copied out so that no borrow of the registration is held while printing.
                let text = DEBUG_LINE.with(|registered| {
                    let registered = registered.borrow();
                    registered.as_deref()?.get(start..end).map(str::to_owned)
                });
                match text {
                    Some(text) => fmt::Debug::fmt(&text, f),
                    None => write!(f, "line[{start}..+{len}]"),
                }
            }
            LineText::Owned(text) => fmt::Debug::fmt(text, f),
        }
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Option<LineText>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or null")
    }

    fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(LineText::locate(v)))
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
    Ok(raw.map(|raw| LineText::locate(raw.get())))
}

/// A required field of any JSON value, kept as its JSON text.
pub(crate) fn json<'de, D: Deserializer<'de>>(d: D) -> Result<LineText, D::Error> {
    let raw: &'de RawValue = serde::Deserialize::deserialize(d)?;
    Ok(LineText::locate(raw.get()))
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
    fn spans_inside_the_line_copies_otherwise() {
        let line = r#"{"s":"plain","j":{"a":[1,"x"]}}"#;
        let p: Probe = with_line(line, None, || serde_json::from_str(line)).unwrap();
        assert!(matches!(p.s, Some(LineText::Span { start: 6, len: 5 })));
        assert_eq!(p.s.as_ref().unwrap().get(line), "plain");
        assert_eq!(p.j.as_ref().unwrap().get(line), r#"{"a":[1,"x"]}"#);

        let line = r#"{"s":"a\"b","j":null}"#;
        let p: Probe = with_line(line, None, || serde_json::from_str(line)).unwrap();
        assert!(matches!(&p.s, Some(LineText::Owned(s)) if &**s == "a\"b"));
        assert!(p.j.is_none());

        // Outside `with_line`: copies, still right.
        let p: Probe = serde_json::from_str(r#"{"s":"x","j":[2]}"#).unwrap();
        assert_eq!(p.s.unwrap().get(""), "x");
        assert_eq!(p.j.unwrap().get(""), "[2]");
        let p: Probe = serde_json::from_str(r#"{"s":null}"#).unwrap();
        assert!(p.s.is_none() && p.j.is_none());
        assert!(serde_json::from_str::<Probe>(r#"{"s":3}"#).is_err());
    }

    #[test]
    fn debug_shows_a_position_as_text_only_while_its_line_is_registered() {
        let line = r#"{"s":"plain"}"#;
        let p: Probe = with_line(line, None, || serde_json::from_str(line)).unwrap();
        let span = p.s.unwrap();
        assert_eq!(format!("{span:?}"), "line[6..+5]");
        let printed = debug_with_line(line, || {
            assert_eq!(format!("{span:?}"), r#""plain""#);
            debug_with_line("{}", || {
                assert_eq!(format!("{span:?}"), "line[6..+5]", "outside that line");
                Ok(())
            })?;
            assert_eq!(
                format!("{span:?}"),
                r#""plain""#,
                "restored after the inner one"
            );
            Ok(())
        });
        assert!(printed.is_ok());
        assert_eq!(format!("{span:?}"), "line[6..+5]");
    }
}
