//! [`UnknownName`]: a name from the CLI that this crate does not know, kept as sent.

use std::fmt;

/// A name the CLI sent that this crate does not know (a newer permission mode, hook event,
/// session state or claim refusal reason), kept as it came. It is the content of the `Other`
/// variant of those enums, and only the crate makes one: a known name always becomes its own
/// variant, so `Other` never stands for a value that also has a variant of its own, and two
/// values that name the same thing always compare equal.
///
/// ```
/// use claude_agent_tokio::permission::PermissionMode;
///
/// let newer = PermissionMode::from_name("yolo");
/// match &newer {
///     PermissionMode::Other(name) => assert_eq!(name.as_str(), "yolo"),
///     known => panic!("{known} is known"),
/// }
/// // A known name is never `Other`:
/// assert_eq!(PermissionMode::from_name("plan"), PermissionMode::Plan);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnknownName(String);

impl UnknownName {
    /// For the enums' `from_name`, after every known name was tried.
    pub(crate) fn new(name: impl Into<String>) -> Self {
        UnknownName(name.into())
    }

    /// The name as the CLI sent it.
    ///
    /// ```
    /// use claude_agent_tokio::hooks::HookEvent;
    ///
    /// if let HookEvent::Other(name) = HookEvent::from_name("TeaTime") {
    ///     assert_eq!(name.as_str(), "TeaTime");
    /// }
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `Display`, `Serialize` and `Deserialize` of an enum that travels as its wire name, through
/// its `as_str` and `from_name` (a name it does not know becomes its `Other`).
macro_rules! wire_name_traits {
    ($ty:ident) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
                Ok($ty::from_name(&name))
            }
        }
    };
}
pub(crate) use wire_name_traits;
