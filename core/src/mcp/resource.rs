//! `ResourceResult`: what reading an in-process server's resource gives, as an MCP
//! `ReadResourceResult`.

use serde::Serialize;

/// The contents of a resource the CLI read (`resources/read`). Serializes as an MCP
/// `ReadResourceResult`: `{"contents":[…]}`.
///
/// ```
/// # use claude_agent_tokio::mcp::{ResourceContents, ResourceResult};
/// let readme = ResourceResult::text("docs://readme", "Usage: …");
/// assert_eq!(
///     serde_json::to_string(&readme).unwrap(),
///     r#"{"contents":[{"uri":"docs://readme","text":"Usage: …"}]}"#
/// );
/// let logo = ResourceResult::new(vec![
///     ResourceContents::text("docs://logo", "A cat.").with_mime_type("text/plain"),
///     ResourceContents::blob("docs://logo.png", "iVBORw0KGgo=").with_mime_type("image/png"),
/// ]);
/// assert_eq!(logo.contents.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ResourceResult {
    /// The contents, one or more.
    pub contents: Vec<ResourceContents>,
}

impl ResourceResult {
    /// A result with these contents.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ResourceResult { contents }
    }

    /// A result with one text content.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceResult::new(vec![ResourceContents::text(uri, text)])
    }
}

/// One content of a [`ResourceResult`].
///
/// ```
/// # use claude_agent_tokio::mcp::ResourceContents;
/// let csv = ResourceContents::text("db://orders.csv", "id,total\n1,250").with_mime_type("text/csv");
/// assert_eq!(
///     serde_json::to_string(&csv).unwrap(),
///     r#"{"uri":"db://orders.csv","mimeType":"text/csv","text":"id,total\n1,250"}"#
/// );
/// let png = ResourceContents::blob("img://logo", "iVBORw0KGgo=").with_mime_type("image/png");
/// assert!(serde_json::to_string(&png).unwrap().contains(r#""blob":"iVBORw0KGgo=""#));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ResourceContents {
    /// `{"uri","mimeType"?,"text"}`.
    Text {
        /// The URI of what this is.
        uri: String,
        /// Its type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// `{"uri","mimeType"?,"blob"}`: binary data, base64.
    Blob {
        /// The URI of what this is.
        uri: String,
        /// Its type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The data, base64.
        blob: String,
    },
}

impl ResourceContents {
    /// Text content.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
        }
    }

    /// Binary content, base64.
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: None,
            blob: base64.into(),
        }
    }

    /// Sets the type.
    pub fn with_mime_type(mut self, mime: impl Into<String>) -> Self {
        match &mut self {
            ResourceContents::Text { mime_type, .. } | ResourceContents::Blob { mime_type, .. } => {
                *mime_type = Some(mime.into())
            }
        }
        self
    }
}
