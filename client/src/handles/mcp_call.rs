//! The CLI's answer to `mcp_call`, as the [`ToolResult`] `Client::mcp_call` returns.

use serde::Deserialize;

use crate::mcp::{ToolContent, ToolResult};
use crate::Json;

/// The CLI's answer to `mcp_call`: content as blocks, or (as a model would get it) as one text.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct McpCallAnswer {
    #[serde(default)]
    content: Option<Json>,
    #[serde(default)]
    is_error: bool,
    #[serde(default)]
    structured_content: Option<Json>,
}

impl From<McpCallAnswer> for ToolResult {
    fn from(answer: McpCallAnswer) -> ToolResult {
        let content = match answer.content {
            Some(json) => match json.parse::<String>() {
                Ok(text) => vec![ToolContent::text(text)],
                // Blocks, each typed where it can be; anything else kept as one raw block.
                Err(_) => json
                    .parse::<Vec<ToolContent>>()
                    .unwrap_or_else(|_| vec![ToolContent::Raw(json)]),
            },
            None => Vec::new(),
        };
        let mut result = ToolResult::new(content);
        result.is_error = answer.is_error;
        result.structured_content = answer.structured_content;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(json: &str) -> ToolResult {
        serde_json::from_str::<McpCallAnswer>(json).unwrap().into()
    }

    /// The answers CLI 2.1.331 gave: a plain call (content as the model would get it), a soft
    /// error, and a result not for the model (the server's blocks).
    #[test]
    fn answers_of_every_kind_become_tool_results() {
        let plain =
            answer(r#"{"content":"{\"echoed\":\"hi\"}","structuredContent":{"echoed":"hi"}}"#);
        assert_eq!(plain.content, [ToolContent::text(r#"{"echoed":"hi"}"#)]);
        assert_eq!(
            plain.structured_content.unwrap().as_str(),
            r#"{"echoed":"hi"}"#
        );
        let soft = answer(r#"{"content":[{"type":"text","text":"it failed"}],"isError":true}"#);
        assert_eq!(soft, ToolResult::error("it failed"));
        let raw = answer(
            r#"{"content":[{"type":"text","text":"echo: raw"}],"structuredContent":{"echoed":"raw"}}"#,
        );
        assert_eq!(raw.content, [ToolContent::text("echo: raw")]);
        assert!(!raw.is_error);
    }
}
