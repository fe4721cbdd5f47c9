//! Content blocks of assistant and user messages, read in one pass with a hand-written tag dispatch.
//!
//! serde's internally tagged enums buffer every field into an intermediate tree (slow) and cannot hold
//! raw JSON, so [`ContentBlock`] reads its `type` key itself and hands the rest of the map straight
//! to the variant's struct. When `type` is not the first key (the CLI's `tool_result` blocks start with
//! `tool_use_id`), the keys before it are kept as raw JSON and replayed first.

use crate::Json;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// One block of a message's `content` (Anthropic Messages API content blocks).
///
/// Rarely read parts (tool inputs, search results, sources) stay raw JSON. A block type this crate does
/// not know is kept whole as [`ContentBlock::Unknown`].
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let blocks: Vec<ContentBlock> = serde_json::from_str(
///     r#"[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]"#,
/// ).unwrap();
/// let ContentBlock::ToolUse(tool) = &blocks[1] else { panic!() };
/// assert_eq!((tool.name.as_str(), tool.input.as_str()), ("Bash", r#"{"command":"ls"}"#));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `text`.
    Text(TextBlock),
    /// `thinking`.
    Thinking(ThinkingBlock),
    /// `redacted_thinking`.
    RedactedThinking(RedactedThinkingBlock),
    /// `tool_use`: a client tool call.
    ToolUse(ToolUseBlock),
    /// `tool_result`: the result of a client tool call.
    ToolResult(ToolResultBlock),
    /// `server_tool_use`: a call of a server-side tool (web search, code execution, …).
    ServerToolUse(ToolUseBlock),
    /// `web_search_tool_result`.
    WebSearchToolResult(ServerToolResultBlock),
    /// `web_fetch_tool_result`.
    WebFetchToolResult(ServerToolResultBlock),
    /// `code_execution_tool_result`.
    CodeExecutionToolResult(ServerToolResultBlock),
    /// `bash_code_execution_tool_result`.
    BashCodeExecutionToolResult(ServerToolResultBlock),
    /// `text_editor_code_execution_tool_result`.
    TextEditorCodeExecutionToolResult(ServerToolResultBlock),
    /// `tool_search_tool_result`.
    ToolSearchToolResult(ServerToolResultBlock),
    /// `advisor_tool_result`.
    AdvisorToolResult(ServerToolResultBlock),
    /// `mcp_tool_use`: a call of a tool on a remote MCP server (MCP connector).
    McpToolUse(McpToolUseBlock),
    /// `mcp_tool_result`.
    McpToolResult(McpToolResultBlock),
    /// `container_upload`.
    ContainerUpload(ContainerUploadBlock),
    /// `image`.
    Image(ImageBlock),
    /// `document`.
    Document(DocumentBlock),
    /// `tool_reference`: a tool made available by a tool search, inside a `tool_result`.
    ToolReference(ToolReferenceBlock),
    /// `search_result`: a source the model can cite, inside a `tool_result` (a fetched page, …).
    SearchResult(SearchResultBlock),
    /// `fallback`: the rest of this reply comes from another model.
    Fallback(FallbackBlock),
    /// A block type this crate does not model: the whole block as JSON.
    Unknown(Json),
}

/// A `text` block.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(r#"{"type":"text","text":"echo: hello there"}"#).unwrap();
/// let ContentBlock::Text(text) = block else { panic!("not text") };
/// assert_eq!(text.text, "echo: hello there");
/// assert!(text.citations.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TextBlock {
    /// The text.
    #[serde(default)]
    pub text: String,
    /// Citations, if any, as raw JSON.
    #[serde(default)]
    pub citations: Option<Json>,
}

/// A `thinking` block.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"thinking","thinking":"The user asks for 2 + 2, which is 4.","signature":"EqQBCkYIBxgCKkBq"}"#,
/// )
/// .unwrap();
/// let ContentBlock::Thinking(thinking) = block else { panic!("not thinking") };
/// assert!(thinking.thinking.ends_with("which is 4."));
/// assert_eq!(thinking.signature, "EqQBCkYIBxgCKkBq");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ThinkingBlock {
    /// The model's thinking text.
    #[serde(default)]
    pub thinking: String,
    /// The signature that lets the thinking be sent back to the API.
    #[serde(default)]
    pub signature: String,
}

/// A `redacted_thinking` block.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock =
///     serde_json::from_str(r#"{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}"#).unwrap();
/// assert!(matches!(block, ContentBlock::RedactedThinking(r) if r.data.starts_with("EmwK")));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct RedactedThinkingBlock {
    /// Encrypted thinking.
    #[serde(default)]
    pub data: String,
}

/// A `tool_use` or `server_tool_use` block.
///
/// A host reads a call's input into a type of its own:
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// #[derive(serde::Deserialize)]
/// struct BashInput {
///     command: String,
/// }
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"tool_use","id":"toolu_fake_2_1","name":"Bash","input":{"command":"echo hi-from-bash","description":"run"}}"#,
/// )
/// .unwrap();
/// let ContentBlock::ToolUse(call) = block else { panic!("not a tool call") };
/// assert_eq!((call.id.as_str(), call.name.as_str()), ("toolu_fake_2_1", "Bash"));
/// let input: BashInput = serde_json::from_str(call.input.as_str()).unwrap();
/// assert_eq!(input.command, "echo hi-from-bash");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ToolUseBlock {
    /// The tool-use id that the result refers to.
    #[serde(default)]
    pub id: String,
    /// The tool name (`Bash`, `mcp__server__tool`, `web_search`, …).
    #[serde(default)]
    pub name: String,
    /// The tool input, as raw JSON (usually an object).
    pub input: Json,
    /// Who called the tool (programmatic tool calling), as raw JSON.
    #[serde(default)]
    pub caller: Option<Json>,
}

impl ToolUseBlock {
    /// The call, typed when it is a built-in tool this crate knows
    /// ([`BuiltinTool`](crate::tools::BuiltinTool)); `name` and `input` as sent otherwise.
    ///
    /// ```
    /// use claude_agent_tokio::message::ToolUseBlock;
    /// use claude_agent_tokio::tools::BuiltinTool;
    ///
    /// let call: ToolUseBlock = serde_json::from_str(
    ///     r#"{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/srv/app/a.txt"}}"#,
    /// ).unwrap();
    /// assert!(matches!(call.builtin(), BuiltinTool::Read(read) if read.file_path == "/srv/app/a.txt"));
    /// ```
    pub fn builtin(&self) -> crate::tools::BuiltinTool {
        crate::tools::BuiltinTool::parse(&self.name, &self.input)
    }
}

/// A `tool_result` block.
///
/// ```
/// use claude_agent_tokio::message::{ContentBlock, MessageContent};
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"tool_use_id":"toolu_fake_6_0","type":"tool_result","content":[{"type":"text","text":"42"}]}"#,
/// )
/// .unwrap();
/// let ContentBlock::ToolResult(result) = block else { panic!("not a tool result") };
/// assert_eq!(result.tool_use_id, "toolu_fake_6_0");
/// assert_eq!(result.is_error, None);
/// let Some(MessageContent::Blocks(blocks)) = &result.content else { panic!("no blocks") };
/// assert!(matches!(&blocks[0], ContentBlock::Text(t) if t.text == "42"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ToolResultBlock {
    /// The id of the `tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The result: a string or content blocks.
    #[serde(default)]
    pub content: Option<MessageContent>,
    /// Whether the tool failed.
    #[serde(default)]
    pub is_error: Option<bool>,
}

/// The result block of a server-side tool (`web_search_tool_result`, `code_execution_tool_result`, …).
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","url":"https://www.rust-lang.org/","title":"Rust Programming Language","encrypted_content":"EqgfCioIARgB","page_age":null}]}"#,
/// )
/// .unwrap();
/// let ContentBlock::WebSearchToolResult(result) = block else { panic!("not a web search result") };
/// assert_eq!(result.tool_use_id, "srvtoolu_01");
/// let hits: serde_json::Value = serde_json::from_str(result.content.unwrap().as_str()).unwrap();
/// assert_eq!(hits[0]["url"], "https://www.rust-lang.org/");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ServerToolResultBlock {
    /// The id of the `server_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The result, as raw JSON (its shape depends on the tool).
    #[serde(default)]
    pub content: Option<Json>,
}

/// An `mcp_tool_use` block.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"mcp_tool_use","id":"mcptoolu_014Q35RayjACSWkSj4X2yov1","name":"echo","server_name":"example-mcp","input":{"param1":"value1"}}"#,
/// )
/// .unwrap();
/// let ContentBlock::McpToolUse(call) = block else { panic!("not an MCP tool call") };
/// assert_eq!((call.server_name.as_str(), call.name.as_str()), ("example-mcp", "echo"));
/// assert_eq!(call.input.as_str(), r#"{"param1":"value1"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct McpToolUseBlock {
    /// The tool-use id.
    #[serde(default)]
    pub id: String,
    /// The tool name.
    #[serde(default)]
    pub name: String,
    /// The MCP server that has the tool.
    #[serde(default)]
    pub server_name: String,
    /// The tool input, as raw JSON.
    pub input: Json,
}

/// An `mcp_tool_result` block.
///
/// ```
/// use claude_agent_tokio::message::{ContentBlock, MessageContent};
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"mcp_tool_result","tool_use_id":"mcptoolu_014Q35RayjACSWkSj4X2yov1","is_error":false,"content":[{"type":"text","text":"Hello"}]}"#,
/// )
/// .unwrap();
/// let ContentBlock::McpToolResult(result) = block else { panic!("not an MCP tool result") };
/// assert_eq!(result.is_error, Some(false));
/// assert!(matches!(result.content, Some(MessageContent::Blocks(ref b)) if b.len() == 1));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct McpToolResultBlock {
    /// The id of the `mcp_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The result: a string or content blocks.
    #[serde(default)]
    pub content: Option<MessageContent>,
    /// Whether the tool failed.
    #[serde(default)]
    pub is_error: Option<bool>,
}

/// A `container_upload` block.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock =
///     serde_json::from_str(r#"{"type":"container_upload","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}"#).unwrap();
/// assert!(matches!(block, ContentBlock::ContainerUpload(u) if u.file_id == "file_011CNha8iCJcU1wXNR6q4V8w"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ContainerUploadBlock {
    /// The uploaded file's id.
    #[serde(default)]
    pub file_id: String,
}

/// An `image` block.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}"#,
/// )
/// .unwrap();
/// let ContentBlock::Image(image) = block else { panic!("not an image") };
/// let source: serde_json::Value = serde_json::from_str(image.source.as_str()).unwrap();
/// assert_eq!(source["media_type"], "image/png");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ImageBlock {
    /// The image source (`base64`, `url` or `file`), as raw JSON.
    pub source: Json,
}

/// A `document` block.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"document","source":{"type":"text","media_type":"text/plain","data":"The grass is green."},"title":"Notes","citations":{"enabled":true}}"#,
/// )
/// .unwrap();
/// let ContentBlock::Document(document) = block else { panic!("not a document") };
/// assert_eq!(document.title.as_deref(), Some("Notes"));
/// assert_eq!(document.context, None);
/// assert!(document.source.as_str().contains("The grass is green."));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct DocumentBlock {
    /// The document source, as raw JSON.
    pub source: Json,
    /// The document title.
    #[serde(default)]
    pub title: Option<String>,
    /// Context about the document.
    #[serde(default)]
    pub context: Option<String>,
    /// Citation settings, as raw JSON.
    #[serde(default)]
    pub citations: Option<Json>,
}

/// A `tool_reference` block: the name of a tool that a tool search found.
///
/// The CLI's `ToolSearch` tool answers with one such block per tool it loads, inside its
/// `tool_result`; the model can call those tools from then on.
///
/// ```
/// use claude_agent_tokio::message::{ContentBlock, MessageContent};
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"tool_reference","tool_name":"WebFetch"}]}"#,
/// ).unwrap();
/// let ContentBlock::ToolResult(result) = block else { panic!() };
/// let Some(MessageContent::Blocks(found)) = result.content else { panic!() };
/// assert!(matches!(&found[0], ContentBlock::ToolReference(t) if t.tool_name == "WebFetch"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ToolReferenceBlock {
    /// The tool's name.
    #[serde(default)]
    pub tool_name: String,
}

/// A `search_result` block: a source the model can cite, with its text.
///
/// Found inside `tool_result` content, for instance a page the CLI's `WebFetch` tool fetched and
/// marked citable.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"search_result","source":"https://example.com/","title":"https://example.com/","content":[{"type":"text","text":"Example Domain"}],"citations":{"enabled":true}}"#,
/// ).unwrap();
/// let ContentBlock::SearchResult(result) = block else { panic!() };
/// assert_eq!(result.source, "https://example.com/");
/// assert_eq!(result.content[0].text, "Example Domain");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SearchResultBlock {
    /// Where the text comes from (usually a URL).
    #[serde(default)]
    pub source: String,
    /// The title.
    #[serde(default)]
    pub title: String,
    /// The text, as `text` blocks.
    #[serde(default)]
    pub content: Vec<TextBlock>,
    /// Citation settings (`{"enabled": …}`), as raw JSON.
    #[serde(default)]
    pub citations: Option<Json>,
}

/// A `fallback` block: the model named in `from_model` stopped (for instance, it refused), and
/// the blocks after this one come from `to_model`.
///
/// It has an `assistant` message of its own, ahead of the messages of the model that took over.
/// The whole block, with any field the CLI may add, stays in the message's raw line.
///
/// ```
/// use claude_agent_tokio::message::ContentBlock;
///
/// let block: ContentBlock = serde_json::from_str(
///     r#"{"type":"fallback","from":{"model":"claude-opus-4-5"},"to":{"model":"claude-sonnet-4-5"}}"#,
/// ).unwrap();
/// let ContentBlock::Fallback(fallback) = block else { panic!() };
/// assert_eq!((fallback.from_model.as_str(), fallback.to_model.as_str()), ("claude-opus-4-5", "claude-sonnet-4-5"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct FallbackBlock {
    /// The model that stopped (`from.model`).
    #[serde(default, rename = "from", deserialize_with = "model_of")]
    pub from_model: String,
    /// The model that goes on (`to.model`).
    #[serde(default, rename = "to", deserialize_with = "model_of")]
    pub to_model: String,
}

/// The `model` of a `{"model": …}` object.
fn model_of<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    struct Named {
        #[serde(default)]
        model: String,
    }
    Named::deserialize(d).map(|named| named.model)
}

/// A `content` that is either a plain string or a list of blocks (user messages, tool results).
///
/// ```
/// use claude_agent_tokio::message::MessageContent;
///
/// let c: MessageContent = serde_json::from_str(r#""hello""#).unwrap();
/// assert!(matches!(c, MessageContent::Text(ref t) if t == "hello"));
/// let c: MessageContent = serde_json::from_str(r#"[{"type":"text","text":"42"}]"#).unwrap();
/// assert!(matches!(c, MessageContent::Blocks(ref b) if b.len() == 1));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MessageContent {
    /// A plain string.
    Text(String),
    /// Content blocks.
    Blocks(Vec<ContentBlock>),
}

impl Default for MessageContent {
    fn default() -> Self {
        MessageContent::Text(String::new())
    }
}

impl<'de> Deserialize<'de> for MessageContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageContentVisitor)
    }
}

struct MessageContentVisitor;

impl<'de> Visitor<'de> for MessageContentVisitor {
    type Value = MessageContent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an array of content blocks")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<MessageContent, E> {
        Ok(MessageContent::Text(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<MessageContent, E> {
        Ok(MessageContent::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<MessageContent, A::Error> {
        collect_blocks(seq).map(MessageContent::Blocks)
    }
}

/// A list of content blocks, allocated for one block first: the CLI prints one block per
/// `assistant` message, and serde's own `Vec` starts at four.
pub(crate) fn block_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ContentBlock>, D::Error> {
    struct BlocksVisitor;
    impl<'de> Visitor<'de> for BlocksVisitor {
        type Value = Vec<ContentBlock>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array of content blocks")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            collect_blocks(seq)
        }
    }
    d.deserialize_seq(BlocksVisitor)
}

/// The blocks of a JSON array, in a list sized for one block when the length is not known.
fn collect_blocks<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<ContentBlock>, A::Error> {
    let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
    while let Some(block) = seq.next_element()? {
        blocks.push(block);
    }
    Ok(blocks)
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BlockVisitor)
    }
}

/// A map key of a content block: the tag, or any other key (borrowed when the input allows).
enum BlockKey<'de> {
    Type,
    Other(Cow<'de, str>),
}

struct BlockKeySeed;

impl<'de> DeserializeSeed<'de> for BlockKeySeed {
    type Value = BlockKey<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<BlockKey<'de>, D::Error> {
        d.deserialize_str(CowStrVisitor).map(|key| match key {
            Cow::Borrowed("type") => BlockKey::Type,
            Cow::Owned(ref s) if s == "type" => BlockKey::Type,
            other => BlockKey::Other(other),
        })
    }
}

/// A string, borrowed from the input when it has no escapes.
struct CowStrVisitor;

impl<'de> Visitor<'de> for CowStrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

struct TagValue<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for TagValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(CowStrVisitor).map(TagValue)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = ContentBlock;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentBlock, A::Error> {
        let mut before: Vec<(Cow<'de, str>, Json)> = Vec::new();
        loop {
            match map.next_key_seed(BlockKeySeed)? {
                Some(BlockKey::Type) => break,
                Some(BlockKey::Other(key)) => before.push((key, map.next_value()?)),
                None => return rebuild_unknown(before, None, map),
            }
        }
        let TagValue(tag) = map.next_value()?;
        let Some(kind) = BlockKind::of(&tag) else {
            return rebuild_unknown(before, Some(&tag), map);
        };
        if before.is_empty() {
            kind.read(MapAccessDeserializer::new(map))
        } else {
            let replay = Replay {
                before: before.into_iter(),
                pending: None,
                rest: map,
            };
            kind.read(MapAccessDeserializer::new(replay))
        }
    }
}

/// The known block types; [`BlockKind::read`] reads the rest of the block into the matching struct.
#[derive(Clone, Copy)]
enum BlockKind {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse,
    ToolResult,
    ServerToolUse,
    WebSearchToolResult,
    WebFetchToolResult,
    CodeExecutionToolResult,
    BashCodeExecutionToolResult,
    TextEditorCodeExecutionToolResult,
    ToolSearchToolResult,
    AdvisorToolResult,
    McpToolUse,
    McpToolResult,
    ContainerUpload,
    Image,
    Document,
    ToolReference,
    SearchResult,
    Fallback,
}

impl BlockKind {
    fn of(tag: &str) -> Option<BlockKind> {
        Some(match tag {
            "text" => BlockKind::Text,
            "thinking" => BlockKind::Thinking,
            "redacted_thinking" => BlockKind::RedactedThinking,
            "tool_use" => BlockKind::ToolUse,
            "tool_result" => BlockKind::ToolResult,
            "server_tool_use" => BlockKind::ServerToolUse,
            "web_search_tool_result" => BlockKind::WebSearchToolResult,
            "web_fetch_tool_result" => BlockKind::WebFetchToolResult,
            "code_execution_tool_result" => BlockKind::CodeExecutionToolResult,
            "bash_code_execution_tool_result" => BlockKind::BashCodeExecutionToolResult,
            "text_editor_code_execution_tool_result" => {
                BlockKind::TextEditorCodeExecutionToolResult
            }
            "tool_search_tool_result" => BlockKind::ToolSearchToolResult,
            "advisor_tool_result" => BlockKind::AdvisorToolResult,
            "mcp_tool_use" => BlockKind::McpToolUse,
            "mcp_tool_result" => BlockKind::McpToolResult,
            "container_upload" => BlockKind::ContainerUpload,
            "image" => BlockKind::Image,
            "document" => BlockKind::Document,
            "tool_reference" => BlockKind::ToolReference,
            "search_result" => BlockKind::SearchResult,
            "fallback" => BlockKind::Fallback,
            _ => return None,
        })
    }

    fn read<'de, D: Deserializer<'de>>(self, d: D) -> Result<ContentBlock, D::Error> {
        Ok(match self {
            BlockKind::Text => ContentBlock::Text(Deserialize::deserialize(d)?),
            BlockKind::Thinking => ContentBlock::Thinking(Deserialize::deserialize(d)?),
            BlockKind::RedactedThinking => {
                ContentBlock::RedactedThinking(Deserialize::deserialize(d)?)
            }
            BlockKind::ToolUse => ContentBlock::ToolUse(Deserialize::deserialize(d)?),
            BlockKind::ToolResult => ContentBlock::ToolResult(Deserialize::deserialize(d)?),
            BlockKind::ServerToolUse => ContentBlock::ServerToolUse(Deserialize::deserialize(d)?),
            BlockKind::WebSearchToolResult => {
                ContentBlock::WebSearchToolResult(Deserialize::deserialize(d)?)
            }
            BlockKind::WebFetchToolResult => {
                ContentBlock::WebFetchToolResult(Deserialize::deserialize(d)?)
            }
            BlockKind::CodeExecutionToolResult => {
                ContentBlock::CodeExecutionToolResult(Deserialize::deserialize(d)?)
            }
            BlockKind::BashCodeExecutionToolResult => {
                ContentBlock::BashCodeExecutionToolResult(Deserialize::deserialize(d)?)
            }
            BlockKind::TextEditorCodeExecutionToolResult => {
                ContentBlock::TextEditorCodeExecutionToolResult(Deserialize::deserialize(d)?)
            }
            BlockKind::ToolSearchToolResult => {
                ContentBlock::ToolSearchToolResult(Deserialize::deserialize(d)?)
            }
            BlockKind::AdvisorToolResult => {
                ContentBlock::AdvisorToolResult(Deserialize::deserialize(d)?)
            }
            BlockKind::McpToolUse => ContentBlock::McpToolUse(Deserialize::deserialize(d)?),
            BlockKind::McpToolResult => ContentBlock::McpToolResult(Deserialize::deserialize(d)?),
            BlockKind::ContainerUpload => {
                ContentBlock::ContainerUpload(Deserialize::deserialize(d)?)
            }
            BlockKind::Image => ContentBlock::Image(Deserialize::deserialize(d)?),
            BlockKind::Document => ContentBlock::Document(Deserialize::deserialize(d)?),
            BlockKind::ToolReference => ContentBlock::ToolReference(Deserialize::deserialize(d)?),
            BlockKind::SearchResult => ContentBlock::SearchResult(Deserialize::deserialize(d)?),
            BlockKind::Fallback => ContentBlock::Fallback(Deserialize::deserialize(d)?),
        })
    }
}

/// A map that first replays the pairs read before `type`, then continues with the rest of the block.
struct Replay<'de, A> {
    before: std::vec::IntoIter<(Cow<'de, str>, Json)>,
    pending: Option<Json>,
    rest: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some((key, value)) = self.before.next() else {
            return self.rest.next_key_seed(seed);
        };
        self.pending = Some(value);
        match key {
            Cow::Borrowed(k) => seed.deserialize(BorrowedStrDeserializer::new(k)),
            Cow::Owned(k) => seed.deserialize(StringDeserializer::new(k)),
        }
        .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.pending.take() {
            // An owned reader works for any lifetime `'de`; these values are short (ids, flags).
            Some(raw) => {
                let mut de = serde_json::Deserializer::from_reader(raw.as_str().as_bytes());
                seed.deserialize(&mut de).map_err(A::Error::custom)
            }
            None => self.rest.next_value_seed(seed),
        }
    }
}

/// The JSON text of a block of unknown type, rebuilt from its pairs in their original order.
fn rebuild_unknown<'de, A: MapAccess<'de>>(
    before: Vec<(Cow<'de, str>, Json)>,
    tag: Option<&str>,
    mut rest: A,
) -> Result<ContentBlock, A::Error> {
    let mut out = String::from("{");
    let push_key = |out: &mut String, key: &str| -> Result<(), A::Error> {
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key).map_err(A::Error::custom)?);
        out.push(':');
        Ok(())
    };
    for (key, value) in &before {
        push_key(&mut out, key)?;
        out.push_str(value.as_str());
    }
    if let Some(tag) = tag {
        push_key(&mut out, "type")?;
        out.push_str(&serde_json::to_string(tag).map_err(A::Error::custom)?);
    }
    while let Some(key) = rest.next_key_seed(BlockKeySeed)? {
        let key = match key {
            BlockKey::Type => Cow::Borrowed("type"),
            BlockKey::Other(key) => key,
        };
        push_key(&mut out, &key)?;
        out.push_str(rest.next_value::<Json>()?.as_str());
    }
    out.push('}');
    Json::try_from(out)
        .map(ContentBlock::Unknown)
        .map_err(A::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(json: &str) -> ContentBlock {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn tag_first() {
        let ContentBlock::Text(t) = block(r#"{"type":"text","text":"running"}"#) else {
            panic!()
        };
        assert_eq!(t.text, "running");
        let ContentBlock::Thinking(t) =
            block(r#"{"type":"thinking","thinking":"hm","signature":"sig"}"#)
        else {
            panic!()
        };
        assert_eq!((t.thinking.as_str(), t.signature.as_str()), ("hm", "sig"));
        let ContentBlock::ServerToolUse(t) = block(
            r#"{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"q"}}"#,
        ) else {
            panic!()
        };
        assert_eq!(
            (t.id.as_str(), t.input.as_str()),
            ("s1", r#"{"query":"q"}"#)
        );
        let ContentBlock::WebSearchToolResult(r) = block(
            r#"{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"type":"web_search_result"}]}"#,
        ) else {
            panic!()
        };
        assert_eq!(
            r.content.unwrap().as_str(),
            r#"[{"type":"web_search_result"}]"#
        );
    }

    #[test]
    fn tag_after_other_keys_is_replayed() {
        let json = r#"{"tool_use_id":"toolu_1","is_error":true,"type":"tool_result","content":[{"type":"text","text":"42"}]}"#;
        let ContentBlock::ToolResult(r) = block(json) else {
            panic!()
        };
        assert_eq!(r.tool_use_id, "toolu_1");
        assert_eq!(r.is_error, Some(true));
        let Some(MessageContent::Blocks(inner)) = r.content else {
            panic!()
        };
        assert!(matches!(&inner[0], ContentBlock::Text(t) if t.text == "42"));
        // A replayed key with an escape, and a raw value among the replayed ones.
        let json = r#"{"inp\u0075t":{"a":[1,2]},"id":"x","type":"tool_use","name":"N"}"#;
        let ContentBlock::ToolUse(t) = block(json) else {
            panic!()
        };
        assert_eq!(
            (t.id.as_str(), t.name.as_str(), t.input.as_str()),
            ("x", "N", r#"{"a":[1,2]}"#)
        );
    }

    #[test]
    fn unknown_blocks_are_kept_whole() {
        for json in [
            r#"{"type":"hologram","beam":{"x":[1,2,{"y":null}]},"label":"z"}"#,
            r#"{"id":"q","type":"hologram","n":1}"#,
            r#"{"id":"q","n":1}"#,
            r#"{}"#,
        ] {
            let ContentBlock::Unknown(raw) = block(json) else {
                panic!("{json} should be unknown")
            };
            assert_eq!(raw.as_str(), json);
        }
    }

    #[test]
    fn wrong_field_types_are_errors() {
        assert!(serde_json::from_str::<ContentBlock>(r#"{"type":"text","text":5}"#).is_err());
        assert!(
            serde_json::from_str::<ContentBlock>(r#"{"type":"tool_use","id":"x","name":"n"}"#)
                .is_err()
        );
        assert!(serde_json::from_str::<ContentBlock>(r#"{"type":7}"#).is_err());
        assert!(serde_json::from_str::<ContentBlock>(r#"["text"]"#).is_err());
        assert!(serde_json::from_str::<MessageContent>("12").is_err());
    }

    #[test]
    fn block_lists_hold_what_they_read_and_start_small() {
        #[derive(serde::Deserialize)]
        struct Body {
            #[serde(deserialize_with = "block_list")]
            content: Vec<ContentBlock>,
        }
        let one: Body =
            serde_json::from_str(r#"{"content":[{"type":"text","text":"a"}]}"#).unwrap();
        assert_eq!(one.content.len(), 1);
        assert_eq!(one.content.capacity(), 1, "one block, one slot");
        let three: Body =
            serde_json::from_str(r#"{"content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"b","signature":"s"},{"type":"x"}]}"#)
                .unwrap();
        assert!(matches!(
            &three.content[..],
            [
                ContentBlock::Text(_),
                ContentBlock::Thinking(_),
                ContentBlock::Unknown(_)
            ]
        ));
        assert!(serde_json::from_str::<Body>(r#"{"content":"text"}"#).is_err());
    }
}
