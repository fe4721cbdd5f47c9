//! [`MessageId`]: the uuid a user message is kept under.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The uuid a user message went out with, which the CLI keeps it under: what `Client::send`
/// returns and `Client::rewind_files` takes.
///
/// It reads as a `&str` ([`as_str`](MessageId::as_str), `AsRef<str>`, `Display`), compares with
/// one, converts into a `String`, and serializes as the string itself.
///
/// ```
/// use claude_agent_tokio::message::{MessageId, UserInput};
///
/// let id = MessageId::new("7d6c1e2a-3b4f-4c5d-8e9f-0a1b2c3d4e5f");
/// assert_eq!(id, "7d6c1e2a-3b4f-4c5d-8e9f-0a1b2c3d4e5f");
/// assert_eq!(id.to_string(), id.as_str());
/// // Sent again under the same id:
/// let input = UserInput::text("Retry that.").with_uuid(id.clone());
/// assert_eq!(input.uuid.as_deref(), Some(id.as_str()));
/// let text: String = id.into();
/// assert_eq!(text.len(), 36);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageId(String);

impl MessageId {
    /// The id `id` (a uuid the CLI printed, or one of your own).
    ///
    /// ```
    /// use claude_agent_tokio::message::MessageId;
    /// assert_eq!(MessageId::new("u-1").as_str(), "u-1");
    /// ```
    pub fn new(id: impl Into<String>) -> Self {
        MessageId(id.into())
    }

    /// The id as text.
    ///
    /// ```
    /// use claude_agent_tokio::message::MessageId;
    /// assert!(MessageId::new("u-1").as_str().starts_with("u-"));
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for MessageId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for MessageId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for MessageId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl From<MessageId> for String {
    fn from(id: MessageId) -> String {
        id.0
    }
}

impl From<&MessageId> for String {
    fn from(id: &MessageId) -> String {
        id.0.clone()
    }
}
