//! The original line kept inside every typed message, so that fields this crate does not model are never lost.

use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::sync::Arc;

/// The exact text of one CLI line, stored in every typed message.
///
/// Kept as text (not [`RawValue`]) because the typed parse has already checked it is JSON: building a
/// `RawValue` would validate it a second time and halve the parse speed. Shared, so that fields
/// kept as ranges of the line (a [`StringList`](super::StringList)) need no copy of their own,
/// and a cloned message shares its line. `None` only before the parse set it.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct RawLine(Option<Arc<str>>);

impl RawLine {
    pub(crate) fn as_str(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }
}

impl std::fmt::Debug for RawLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The typed fields already show the content; printing the whole line again would double it.
        write!(f, "RawLine({} bytes)", self.as_str().len())
    }
}

impl Serialize for RawLine {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(self.as_str()).map_err(S::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// A typed message that carries its original line.
pub(crate) trait WholeLine: Sized {
    /// The message's fields read from `line`, without the line itself. Fields kept as
    /// positions ([`super::line_text::LineText`]) point into `line`, which must be the text the
    /// message then keeps.
    fn fields_of(line: &str) -> Result<Self, serde_json::Error>;

    fn set_raw(&mut self, raw: RawLine);
}

/// Parse `line` into a boxed `T` and keep the line itself inside it.
///
/// Boxed because messages are queued and handed through several layers: moving a pointer is
/// cheaper than moving a struct of a few hundred bytes each time.
pub(crate) fn parse_line<T: WholeLine>(line: &str) -> Result<Box<T>, serde_json::Error> {
    // Read from the copy the message keeps, so that positions recorded during the parse are in it.
    let shared: Arc<str> = Arc::from(line);
    let mut msg: Box<T> = Box::new(T::fields_of(&shared)?);
    msg.set_raw(RawLine(Some(shared)));
    Ok(msg)
}

/// A message's whole text as `Deserialize` reads it, parsed again as a line
/// ([`parse_line`]), so that a message read any way keeps its line.
#[derive(serde::Deserialize)]
pub(crate) struct WholeText(pub(crate) Box<RawValue>);

/// Read a message's fields from `line` with serde_json (in this crate's tests, also noting the
/// fields no typed message read: [`unread`]).
pub(crate) fn read_fields<'de, T: serde::Deserialize<'de>>(
    line: &'de str,
) -> Result<T, serde_json::Error> {
    #[cfg(test)]
    return unread::parse(line);
    #[cfg(not(test))]
    serde_json::from_str(line)
}

/// Declares a message struct that carries its original line: the struct as written plus
/// `session_id`, `uuid` and `raw` fields, `#[non_exhaustive]`, `Clone` and `PartialEq`;
/// `raw_json()`, `uuid()`, `session_id()`, `Serialize` (writes the original line),
/// `Deserialize` (reads a whole message, as [`parse_line`] does, so the value keeps its line) and
/// [`WholeLine`]; and a `Debug` that prints fields kept as positions in the line as their text.
/// The struct must not derive anything itself.
macro_rules! message_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$fmeta:meta])* $vis:vis $field:ident : $ty:ty),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, serde::Deserialize)]
        #[serde(try_from = "crate::message::raw::WholeText")]
        #[non_exhaustive]
        pub struct $name {
            $($(#[$fmeta])* $vis $field: $ty,)*
            session_id: Option<$crate::message::line_text::LineText>,
            uuid: Option<$crate::message::line_text::LineText>,
            raw: $crate::message::raw::RawLine,
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                use $crate::message::line_text::{InLine, PrintInLine as _, PrintPlain as _};
                let line = self.raw.as_str();
                f.debug_struct(stringify!($name))
                    $(.field(stringify!($field), (&InLine(&self.$field, line)).printed()))*
                    .field("session_id", (&InLine(&self.session_id, line)).printed())
                    .field("uuid", (&InLine(&self.uuid, line)).printed())
                    .field("raw", &self.raw)
                    .finish()
            }
        }

        impl $name {
            /// The exact line the CLI printed for this message, including every field this crate does not model.
            pub fn raw_json(&self) -> &str {
                self.raw.as_str()
            }

            /// This message's id (`uuid`).
            pub fn uuid(&self) -> Option<&str> {
                self.line_text(&self.uuid)
            }

            /// The session id (`session_id`; empty if the CLI left it out).
            pub fn session_id(&self) -> &str {
                self.line_text(&self.session_id).unwrap_or("")
            }

            /// The text of a field kept as a position in the line.
            fn line_text<'a>(
                &'a self,
                field: &'a Option<$crate::message::line_text::LineText>,
            ) -> Option<&'a str> {
                field.as_ref().map(|text| text.get(self.raw.as_str()))
            }
        }

        impl serde::Serialize for $name {
            /// Writes the original line unchanged.
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.raw.serialize(serializer)
            }
        }

        impl TryFrom<$crate::message::raw::WholeText> for $name {
            type Error = serde_json::Error;

            /// How `Deserialize` reads a message: the whole object's text, kept, as a parsed
            /// message keeps it.
            fn try_from(text: $crate::message::raw::WholeText) -> Result<Self, Self::Error> {
                $crate::message::raw::parse_line::<$name>(text.0.get()).map(|message| *message)
            }
        }

        const _: () = {
            /// The fields as the line spells them; the message is made from these and its line.
            #[derive(serde::Deserialize)]
            struct Fields {
                $($(#[$fmeta])* $field: $ty,)*
                #[serde(default, deserialize_with = "crate::message::line_text::optional_str")]
                session_id: Option<$crate::message::line_text::LineText>,
                #[serde(default, deserialize_with = "crate::message::line_text::optional_str")]
                uuid: Option<$crate::message::line_text::LineText>,
            }

            impl $crate::message::raw::WholeLine for $name {
                fn fields_of(line: &str) -> Result<Self, serde_json::Error> {
                    let fields: Fields = $crate::message::raw::read_fields(line)?;
                    Ok($name {
                        $($field: fields.$field,)*
                        session_id: fields.session_id,
                        uuid: fields.uuid,
                        raw: $crate::message::raw::RawLine::default(),
                    })
                }

                fn set_raw(&mut self, raw: $crate::message::raw::RawLine) {
                    self.raw = raw;
                }
            }
        };
    };
}
pub(crate) use message_struct;

/// In this crate's tests: the fields of a line that the typed message does not read, collected
/// while [`unread::collect`] runs (the release corpus test reports them).
#[cfg(test)]
pub(crate) mod unread {
    use std::cell::RefCell;

    thread_local! {
        static FOUND: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
    }

    /// Runs `parse` and returns what it returned with the paths of the fields no typed message
    /// read.
    pub(crate) fn collect<T>(parse: impl FnOnce() -> T) -> (T, Vec<String>) {
        FOUND.with(|found| *found.borrow_mut() = Some(Vec::new()));
        let parsed = parse();
        let found = FOUND
            .with(|found| found.borrow_mut().take())
            .unwrap_or_default();
        (parsed, found)
    }

    pub(super) fn parse<'de, T: serde::Deserialize<'de>>(
        line: &'de str,
    ) -> Result<T, serde_json::Error> {
        if FOUND.with(|found| found.borrow().is_none()) {
            return serde_json::from_str(line);
        }
        let mut deserializer = serde_json::Deserializer::from_str(line);
        let parsed = serde_ignored::deserialize(&mut deserializer, |path| {
            FOUND.with(|found| {
                if let Some(found) = found.borrow_mut().as_mut() {
                    found.push(path.to_string());
                }
            });
        })?;
        deserializer.end()?;
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use crate::message::{AssistantMessage, Message, ResultMessage};

    const REPLY: &str = r#"{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"s-1","uuid":"u-1","timestamp":"2026-11-29T04:00:00Z","unmodelled":{"kept":true}}"#;

    /// Deserialized any way, a message keeps its line: it reads its fields kept as positions,
    /// and serializes back to the line.
    #[test]
    fn a_deserialized_message_keeps_its_line() {
        let from_str: AssistantMessage = serde_json::from_str(REPLY).unwrap();
        let from_value: AssistantMessage =
            serde_json::from_value(serde_json::from_str(REPLY).unwrap()).unwrap();
        for reply in [&from_str, &from_value] {
            assert_eq!(reply.uuid(), Some("u-1"));
            assert_eq!(reply.session_id(), "s-1");
            assert_eq!(reply.message_id(), Some("msg_1"));
            let back: serde_json::Value = serde_json::to_value(reply).unwrap();
            assert_eq!(back["unmodelled"]["kept"], true);
        }
        assert_eq!(from_str.raw_json(), REPLY);
        assert_eq!(serde_json::to_string(&from_str).unwrap(), REPLY);
        let Message::Assistant(parsed) = Message::parse(REPLY).unwrap() else {
            panic!("not assistant")
        };
        assert_eq!(*parsed, from_str, "the same line, the same message");
        let other = REPLY.replace("u-1", "u-2");
        assert_ne!(
            serde_json::from_str::<AssistantMessage>(&other).unwrap(),
            from_str
        );
        assert!(
            serde_json::from_str::<ResultMessage>(r#"{"type":"result","num_turns":"x"}"#).is_err()
        );
    }

    /// `{:?}` prints the fields kept as positions as their text, nested ones too.
    #[test]
    fn debug_prints_positions_as_text() {
        let reply: AssistantMessage = serde_json::from_str(REPLY).unwrap();
        let printed = format!("{reply:?}");
        for text in [
            r#"uuid: Some("u-1")"#,
            r#"session_id: Some("s-1")"#,
            r#"timestamp: Some("2026-11-29T04:00:00Z")"#,
            r#"id: Some("msg_1")"#,
            r#"model: Some("claude-opus-5")"#,
        ] {
            assert!(printed.contains(text), "{text} not in {printed}");
        }
    }
}
