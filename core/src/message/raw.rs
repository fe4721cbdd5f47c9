//! The original line kept inside every typed message, so that fields this crate does not model are never lost.

use super::line_text::with_line;
use serde::de::DeserializeOwned;
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
///
/// `DeserializeOwned`, but fields read with [`super::line_text::optional_json`] need the text to be
/// borrowable, as it is in [`parse_line`].
pub(crate) trait WholeLine: DeserializeOwned {
    fn set_raw(&mut self, raw: RawLine);
}

/// Parse `line` into a boxed `T` and keep the line itself inside it.
///
/// Boxed because messages are queued and handed through several layers: moving a pointer is
/// cheaper than moving a struct of a few hundred bytes each time.
pub(crate) fn parse_line<T: WholeLine>(line: &str) -> Result<Box<T>, serde_json::Error> {
    let shared: Arc<str> = Arc::from(line);
    #[cfg(test)]
    let parsed = with_line(line, Some(shared.clone()), || unread::parse(line));
    #[cfg(not(test))]
    let parsed = with_line(line, Some(shared.clone()), || serde_json::from_str(line));
    let mut msg: Box<T> = Box::new(parsed?);
    msg.set_raw(RawLine(Some(shared)));
    Ok(msg)
}

/// Declares a message struct that carries its original line: the struct as written plus
/// `session_id`, `uuid` and `raw` fields, `#[non_exhaustive]`, `Clone`, `PartialEq` and
/// `Deserialize`;
/// `raw_json()`, `uuid()`, `session_id()`, `Serialize` (writes the original line) and
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
        #[non_exhaustive]
        pub struct $name {
            $($(#[$fmeta])* $vis $field: $ty,)*
            #[serde(default, deserialize_with = "crate::message::line_text::optional_str")]
            session_id: Option<$crate::message::line_text::LineText>,
            #[serde(default, deserialize_with = "crate::message::line_text::optional_str")]
            uuid: Option<$crate::message::line_text::LineText>,
            #[serde(skip)]
            raw: $crate::message::raw::RawLine,
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                $crate::message::line_text::debug_with_line(self.raw.as_str(), || {
                    f.debug_struct(stringify!($name))
                        $(.field(stringify!($field), &self.$field))*
                        .field("session_id", &self.session_id)
                        .field("uuid", &self.uuid)
                        .field("raw", &self.raw)
                        .finish()
                })
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

        impl $crate::message::raw::WholeLine for $name {
            fn set_raw(&mut self, raw: $crate::message::raw::RawLine) {
                self.raw = raw;
            }
        }
    };
}
pub(crate) use message_struct;

/// In this crate's tests: the fields of a line that the typed message does not read, collected
/// while [`unread::collect`] runs (the release corpus test reports them).
#[cfg(test)]
pub(crate) mod unread {
    use std::cell::RefCell;

    use serde::de::DeserializeOwned;

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

    pub(super) fn parse<T: DeserializeOwned>(line: &str) -> Result<T, serde_json::Error> {
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
