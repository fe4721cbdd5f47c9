//! `ToolResult`: what an in-process tool returns, as an MCP `CallToolResult`.

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::json::split_tag;
use crate::Json;

/// The result of a tool call. Serializes as an MCP `CallToolResult`; tool failures are results
/// with `isError`, never JSON-RPC errors.
///
/// ```
/// # use claude_agent_tokio::mcp::ToolResult;
/// assert_eq!(serde_json::to_string(&ToolResult::text("42")).unwrap(), r#"{"content":[{"type":"text","text":"42"}]}"#);
/// assert_eq!(
///     serde_json::to_string(&ToolResult::error("bad input")).unwrap(),
///     r#"{"content":[{"type":"text","text":"bad input"}],"isError":true}"#
/// );
/// ```
///
/// Results compare by value (`structured_content` and [`ToolContent::Raw`] blocks by their exact
/// JSON text), so a test can check what a tool returned:
///
/// ```
/// # use claude_agent_tokio::mcp::ToolResult;
/// assert_eq!(ToolResult::text("42"), ToolResult::text("42"));
/// assert_ne!(ToolResult::text("42"), ToolResult::error("42"));
/// assert_ne!(ToolResult::text("42"), ToolResult::text("42").with_text("more"));
/// ```
///
/// Several blocks, and structured output for a tool with an output schema:
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::{ToolContent, ToolResult};
/// let chart = ToolResult::new(vec![ToolContent::text("Revenue by month:")])
///     .with_image("iVBORw0KGgo=", "image/png")
///     .with_structured_content(serde_json::json!({"months": 12, "total": 48200}));
/// assert_eq!(
///     serde_json::to_string(&chart).unwrap(),
///     r#"{"content":[{"type":"text","text":"Revenue by month:"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"structuredContent":{"months":12,"total":48200}}"#
/// );
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct ToolResult {
    /// Content blocks, in order.
    pub content: Vec<ToolContent>,
    /// Whether the tool failed (written only when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Structured output matching the tool's output schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Json>,
}

impl ToolResult {
    /// A successful result with these content blocks.
    pub fn new(content: Vec<ToolContent>) -> Self {
        ToolResult {
            content,
            is_error: false,
            structured_content: None,
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult::new(vec![ToolContent::text(text)])
    }

    /// A failed result with one text block saying why.
    pub fn error(message: impl Into<String>) -> Self {
        ToolResult {
            is_error: true,
            ..ToolResult::text(message)
        }
    }

    /// Adds a text block.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.content.push(ToolContent::text(text));
        self
    }

    /// Adds an image block (`data` is base64).
    pub fn with_image(mut self, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.content.push(ToolContent::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        });
        self
    }

    /// Sets the structured output.
    pub fn with_structured_content(mut self, content: impl Into<Json>) -> Self {
        self.structured_content = Some(content.into());
        self
    }
}

/// One content block of a [`ToolResult`]. Blocks compare by value, [`ToolContent::Raw`] ones by
/// their exact JSON text.
///
/// ```
/// # use claude_agent_tokio::Json;
/// # use claude_agent_tokio::mcp::ToolContent;
/// assert_eq!(ToolContent::text("a"), ToolContent::text("a"));
/// let raw = |json: &str| ToolContent::Raw(json.parse::<Json>().unwrap());
/// assert_ne!(raw(r#"{"type":"text","text":"a"}"#), ToolContent::text("a"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolContent {
    /// `{"type":"text","text"}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{"type":"image","data","mimeType"}`.
    Image {
        /// Base64 image data.
        data: String,
        /// E.g. `image/png`.
        mime_type: String,
    },
    /// `{"type":"resource_link","uri","name","description"?,"mimeType"?}`.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is.
        description: Option<String>,
        /// Its type.
        mime_type: Option<String>,
    },
    /// An embedded text resource: `{"type":"resource","resource":{"uri","text","mimeType"?}}`.
    Resource {
        /// The resource's URI.
        uri: String,
        /// Its text.
        text: String,
        /// Its type.
        mime_type: Option<String>,
    },
    /// Any other block, written as is.
    Raw(Json),
}

impl<'de> Deserialize<'de> for ToolContent {
    /// Reads the block `type` names; any other block (or one that does not fit its type) gives
    /// [`ToolContent::Raw`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Text {
            text: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Image {
            data: String,
            mime_type: String,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct ResourceLink {
            uri: String,
            name: String,
            description: Option<String>,
            mime_type: Option<String>,
        }
        #[derive(Deserialize)]
        struct Resource {
            resource: Embedded,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Embedded {
            uri: String,
            text: String,
            mime_type: Option<String>,
        }
        let (kind, json) = split_tag(deserializer, "type")?;
        let typed = match kind.as_deref() {
            Some("text") => json
                .parse()
                .map(|Text { text }| ToolContent::Text { text })
                .ok(),
            Some("image") => json
                .parse()
                .map(|Image { data, mime_type }| ToolContent::Image { data, mime_type })
                .ok(),
            Some("resource_link") => json
                .parse()
                .map(|link: ResourceLink| ToolContent::ResourceLink {
                    uri: link.uri,
                    name: link.name,
                    description: link.description,
                    mime_type: link.mime_type,
                })
                .ok(),
            Some("resource") => json
                .parse()
                .map(|Resource { resource }| ToolContent::Resource {
                    uri: resource.uri,
                    text: resource.text,
                    mime_type: resource.mime_type,
                })
                .ok(),
            _ => None,
        };
        Ok(typed.unwrap_or(ToolContent::Raw(json)))
    }
}

impl ToolContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolContent::Text { text: text.into() }
    }

    /// Whether the block is of one of MCP's content types (`text`, `image`, `audio`,
    /// `resource_link`, `resource`), which the CLI takes and renders for the model (a binary
    /// resource or audio saved to a file it names). The CLI refuses a whole result that holds
    /// any other block, so those are left out of what it is sent
    /// ([`ToolCall::response`](super::ToolCall::response)).
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// # use claude_agent_tokio::mcp::ToolContent;
    /// let raw = |json: &str| ToolContent::Raw(json.parse::<Json>().unwrap());
    /// assert!(ToolContent::text("a").is_mcp_content());
    /// assert!(raw(r#"{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}"#).is_mcp_content());
    /// assert!(!raw(r#"{"type":"chart","series":[1,2]}"#).is_mcp_content());
    /// ```
    pub fn is_mcp_content(&self) -> bool {
        #[derive(Deserialize)]
        struct Tag<'a> {
            #[serde(rename = "type", borrow, default)]
            kind: Option<std::borrow::Cow<'a, str>>,
        }
        match self {
            ToolContent::Raw(raw) => serde_json::from_str::<Tag<'_>>(raw.as_str())
                .ok()
                .and_then(|tag| tag.kind)
                .is_some_and(|kind| MCP_CONTENT_TYPES.contains(&&*kind)),
            _ => true,
        }
    }
}

/// The content block types of MCP's `CallToolResult`.
const MCP_CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource_link", "resource"];

/// `{"uri","text","mimeType"?}` of an embedded resource.
struct EmbeddedText<'a> {
    uri: &'a str,
    text: &'a str,
    mime_type: Option<&'a str>,
}

impl Serialize for EmbeddedText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("uri", self.uri)?;
        map.serialize_entry("text", self.text)?;
        if let Some(mime) = self.mime_type {
            map.serialize_entry("mimeType", mime)?;
        }
        map.end()
    }
}

impl Serialize for ToolContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = match self {
            ToolContent::Raw(raw) => return raw.serialize(serializer),
            _ => serializer.serialize_map(None)?,
        };
        match self {
            ToolContent::Text { text } => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            ToolContent::Image { data, mime_type } => {
                map.serialize_entry("type", "image")?;
                map.serialize_entry("data", data)?;
                map.serialize_entry("mimeType", mime_type)?;
            }
            ToolContent::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => {
                map.serialize_entry("type", "resource_link")?;
                map.serialize_entry("uri", uri)?;
                map.serialize_entry("name", name)?;
                if let Some(description) = description {
                    map.serialize_entry("description", description)?;
                }
                if let Some(mime) = mime_type {
                    map.serialize_entry("mimeType", mime)?;
                }
            }
            ToolContent::Resource {
                uri,
                text,
                mime_type,
            } => {
                map.serialize_entry("type", "resource")?;
                let resource = EmbeddedText {
                    uri,
                    text,
                    mime_type: mime_type.as_deref(),
                };
                map.serialize_entry("resource", &resource)?;
            }
            ToolContent::Raw(_) => {}
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn json(result: &ToolResult) -> Value {
        serde_json::from_str(&serde_json::to_string(result).unwrap()).unwrap()
    }

    #[test]
    fn every_content_kind_has_the_mcp_shape() {
        let result = ToolResult::new(vec![
            ToolContent::ResourceLink {
                uri: "file:///a".into(),
                name: "a".into(),
                description: Some("the a".into()),
                mime_type: None,
            },
            ToolContent::Resource {
                uri: "file:///b".into(),
                text: "bee".into(),
                mime_type: Some("text/plain".into()),
            },
            ToolContent::Raw(
                r#"{"type":"audio","data":"AA==","mimeType":"audio/wav"}"#
                    .parse::<Json>()
                    .unwrap(),
            ),
        ])
        .with_text("t")
        .with_image("iVBO", "image/png")
        .with_structured_content(r#"{"sum":42}"#.parse::<Json>().unwrap());
        let expected: Value = serde_json::from_str(
            r#"{"content":[
                {"type":"resource_link","uri":"file:///a","name":"a","description":"the a"},
                {"type":"resource","resource":{"uri":"file:///b","text":"bee","mimeType":"text/plain"}},
                {"type":"audio","data":"AA==","mimeType":"audio/wav"},
                {"type":"text","text":"t"},
                {"type":"image","data":"iVBO","mimeType":"image/png"}],
               "structuredContent":{"sum":42}}"#,
        )
        .unwrap();
        assert_eq!(json(&result), expected);
    }

    #[test]
    fn results_and_blocks_compare_by_value() {
        let raw = |json: &str| Json::try_from(json.to_owned()).unwrap();
        let blocks = vec![
            ToolContent::text("t"),
            ToolContent::text("u"),
            ToolContent::Image {
                data: "iVBO".into(),
                mime_type: "image/png".into(),
            },
            ToolContent::Image {
                data: "iVBO".into(),
                mime_type: "image/gif".into(),
            },
            ToolContent::ResourceLink {
                uri: "file:///a".into(),
                name: "a".into(),
                description: None,
                mime_type: None,
            },
            ToolContent::ResourceLink {
                uri: "file:///a".into(),
                name: "a".into(),
                description: Some("the a".into()),
                mime_type: None,
            },
            ToolContent::Resource {
                uri: "file:///b".into(),
                text: "bee".into(),
                mime_type: None,
            },
            ToolContent::Resource {
                uri: "file:///b".into(),
                text: "bee".into(),
                mime_type: Some("text/plain".into()),
            },
            ToolContent::Raw(raw(r#"{"type":"audio"}"#)),
            ToolContent::Raw(raw(r#"{"type": "audio"}"#)),
        ];
        for (i, a) in blocks.iter().enumerate() {
            for (j, b) in blocks.iter().enumerate() {
                assert_eq!(a == b, i == j, "{a:?} == {b:?}");
            }
        }

        let structured = |json: &str| ToolResult::text("t").with_structured_content(raw(json));
        assert_eq!(structured(r#"{"sum":42}"#), structured(r#"{"sum":42}"#));
        assert_ne!(structured(r#"{"sum":42}"#), structured(r#"{"sum":41}"#));
        assert_ne!(structured(r#"{"sum":42}"#), ToolResult::text("t"));
        assert_ne!(ToolResult::text("t"), ToolResult::error("t"));
        assert_ne!(ToolResult::text("t"), ToolResult::text("t").with_text("t"));
        assert_eq!(ToolResult::default(), ToolResult::new(vec![]));
    }

    #[test]
    fn error_sets_is_error() {
        let result = ToolResult::error("boom");
        assert!(result.is_error);
        assert_eq!(json(&result)["isError"], true);
        assert_eq!(
            json(&ToolResult::default()),
            serde_json::json!({"content": []})
        );
    }

    #[test]
    fn results_read_back_from_their_json() {
        let result = ToolResult::new(vec![
            ToolContent::text("Revenue:"),
            ToolContent::Image {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
            },
            ToolContent::ResourceLink {
                uri: "file:///r.csv".into(),
                name: "r.csv".into(),
                description: None,
                mime_type: Some("text/csv".into()),
            },
            ToolContent::Resource {
                uri: "memo://1".into(),
                text: "note".into(),
                mime_type: None,
            },
            ToolContent::Raw(r#"{"type":"audio","data":"AA=="}"#.parse().unwrap()),
        ])
        .with_structured_content(serde_json::json!({"total": 48200}));
        let wire = serde_json::to_string(&result).unwrap();
        assert_eq!(serde_json::from_str::<ToolResult>(&wire).unwrap(), result);
        let failed = ToolResult::error("boom");
        let wire = serde_json::to_string(&failed).unwrap();
        assert_eq!(serde_json::from_str::<ToolResult>(&wire).unwrap(), failed);
    }
}
