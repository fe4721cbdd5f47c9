//! User messages the host writes to the CLI's stdin.

use crate::Json;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// A user message to write to the CLI.
///
/// ```
/// use claude_agent_tokio::message::UserInput;
///
/// let line = UserInput::text("hello there").to_json_line();
/// assert_eq!(
///     line,
///     b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hello there\"},\"parent_tool_use_id\":null,\"session_id\":\"\"}\n"
/// );
/// let with_id = UserInput::text("hi").with_uuid("u-1").with_session_id("default");
/// assert!(String::from_utf8(with_id.to_json_line()).unwrap().contains(r#""session_id":"default","uuid":"u-1""#));
/// ```
///
/// The optional fields, each set by a `with_` method:
///
/// ```
/// use claude_agent_tokio::message::UserInput;
///
/// // Sent while a turn runs: taken up as soon as the current tool call ends.
/// let steer = UserInput::text("Stop after the tests pass.")
///     .with_uuid("7d6c1e2a-3b4f-4c5d-8e9f-0a1b2c3d4e5f")
///     .with_priority("now")
///     .with_client_composed(true);
/// let v: serde_json::Value = serde_json::from_slice(&steer.to_json_line()).unwrap();
/// assert_eq!((v["priority"].as_str(), v["client_composed"].as_bool()), (Some("now"), Some(true)));
///
/// // An answer inside a subagent's conversation.
/// let answer = UserInput::text("Use the staging bucket.").with_parent_tool_use_id("toolu_01");
/// assert_eq!(answer.parent_tool_use_id.as_deref(), Some("toolu_01"));
///
/// // Context for the next turn, which starts none of its own (its result has no turn).
/// let note = UserInput::text("The user switched to the staging account.").with_should_query(false);
/// let v: serde_json::Value = serde_json::from_slice(&note.to_json_line()).unwrap();
/// assert_eq!(v["shouldQuery"], false);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UserInput {
    /// The message content: a string or blocks.
    pub content: UserInputContent,
    /// An id for the message; the CLI echoes it as `user_message_uuid` on the frames that answer it,
    /// and reports what became of the message in [`CommandLifecycle`](super::CommandLifecycle)
    /// frames. `Client::send` gives a message without one a random uuid, and returns it.
    pub uuid: Option<String>,
    /// The session id (default `""`).
    pub session_id: String,
    /// The `tool_use` id of a subagent call this message belongs to (default none).
    pub parent_tool_use_id: Option<String>,
    /// `now`, `next` or `later`: when a message sent during a turn is taken up.
    pub priority: Option<String>,
    /// Marks the message as composed by the host (`client_composed: true`, for verbatim prompts).
    pub client_composed: bool,
    /// Whether the message starts a turn (`true`, the default). When `false` (`shouldQuery`),
    /// the CLI adds it to the transcript without calling the model, and answers at once with a
    /// result of no turn (`num_turns` 0); the next message that starts a turn carries it to the
    /// model.
    pub should_query: bool,
}

/// The content of a [`UserInput`].
///
/// ```
/// use claude_agent_tokio::message::{InputBlock, UserInput, UserInputContent};
///
/// let input = UserInput::blocks(vec![InputBlock::text("What is in this picture?")]);
/// match &input.content {
///     UserInputContent::Text(text) => println!("{text}"),
///     UserInputContent::Blocks(blocks) => assert_eq!(blocks.len(), 1),
///     _ => {}
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum UserInputContent {
    /// A plain string (`"content":"…"`).
    Text(String),
    /// Content blocks (`"content":[…]`).
    Blocks(Vec<InputBlock>),
}

/// One content block of a [`UserInput`].
///
/// ```
/// # use claude_agent_tokio::Json;
/// use claude_agent_tokio::message::{InputBlock, UserInput};
///
/// let document = Json::try_from(
///     r#"{"type":"document","source":{"type":"text","media_type":"text/plain","data":"The grass is green."},"title":"Notes"}"#.to_owned(),
/// )
/// .unwrap();
/// let input = UserInput::blocks(vec![
///     InputBlock::text("Summarise these:"),
///     InputBlock::image_base64("image/png", "iVBORw0KGgo="),
///     InputBlock::raw(document),
/// ]);
/// let v: serde_json::Value = serde_json::from_slice(&input.to_json_line()).unwrap();
/// let content = &v["message"]["content"];
/// assert_eq!(content[0], serde_json::json!({"type": "text", "text": "Summarise these:"}));
/// assert_eq!(content[1]["source"]["type"], "base64");
/// assert_eq!(content[2]["title"], "Notes");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputBlock {
    /// `{"type":"text","text":…}`.
    Text(String),
    /// `{"type":"image","source":{"type":"base64","media_type":…,"data":…}}`.
    ImageBase64 {
        /// The MIME type, e.g. `image/png`.
        media_type: String,
        /// The image bytes, base64-encoded.
        data: String,
    },
    /// `{"type":"image","source":{"type":"url","url":…}}`: an image the API fetches.
    ImageUrl(String),
    /// `{"type":"image","source":{"type":"file","file_id":…}}`: an image uploaded with the
    /// Files API.
    ImageFile(String),
    /// Any other block, written as given.
    Raw(Json),
}

impl InputBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        InputBlock::Text(text.into())
    }

    /// An image block the API fetches from `url`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{InputBlock, UserInput};
    ///
    /// let input = UserInput::blocks(vec![
    ///     InputBlock::text("What is in this diagram?"),
    ///     InputBlock::image_url("https://example.com/architecture.png"),
    /// ]);
    /// let v: serde_json::Value = serde_json::from_slice(&input.to_json_line()).unwrap();
    /// assert_eq!(v["message"]["content"][1]["source"], serde_json::json!({"type": "url", "url": "https://example.com/architecture.png"}));
    /// ```
    pub fn image_url(url: impl Into<String>) -> Self {
        InputBlock::ImageUrl(url.into())
    }

    /// An image block of a file uploaded with the Files API.
    ///
    /// ```
    /// use claude_agent_tokio::message::InputBlock;
    ///
    /// let block = InputBlock::image_file("file_011CNha8iCJcU1wXNR6q4V8w");
    /// let v = serde_json::to_value(&block).unwrap();
    /// assert_eq!(v["source"], serde_json::json!({"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}));
    /// ```
    pub fn image_file(file_id: impl Into<String>) -> Self {
        InputBlock::ImageFile(file_id.into())
    }

    /// A base64 image block.
    pub fn image_base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        InputBlock::ImageBase64 {
            media_type: media_type.into(),
            data: data.into(),
        }
    }

    /// A block given as raw JSON, written unchanged.
    pub fn raw(block: impl Into<Json>) -> Self {
        InputBlock::Raw(block.into())
    }
}

/// A text message, as [`UserInput::text`].
impl From<&str> for UserInput {
    fn from(text: &str) -> Self {
        UserInput::text(text)
    }
}

/// A text message, as [`UserInput::text`].
impl From<String> for UserInput {
    fn from(text: String) -> Self {
        UserInput::text(text)
    }
}

impl UserInput {
    /// A plain-text user message (`"content":"…"`).
    pub fn text(text: impl Into<String>) -> Self {
        Self::with_content(UserInputContent::Text(text.into()))
    }

    /// A user message made of content blocks.
    ///
    /// ```
    /// use claude_agent_tokio::message::{InputBlock, UserInput};
    ///
    /// let msg = UserInput::blocks(vec![InputBlock::text("look"), InputBlock::image_base64("image/png", "iVBO")]);
    /// let v: serde_json::Value = serde_json::from_slice(&msg.to_json_line()).unwrap();
    /// assert_eq!(v["message"]["content"][1]["source"]["media_type"], "image/png");
    /// ```
    pub fn blocks(blocks: Vec<InputBlock>) -> Self {
        Self::with_content(UserInputContent::Blocks(blocks))
    }

    fn with_content(content: UserInputContent) -> Self {
        UserInput {
            content,
            uuid: None,
            session_id: String::new(),
            parent_tool_use_id: None,
            priority: None,
            client_composed: false,
            should_query: true,
        }
    }

    /// Set the message id (echoed back as `user_message_uuid`; the CLI then also reports the
    /// message's fate in [`CommandLifecycle`](super::CommandLifecycle) frames).
    pub fn with_uuid(mut self, uuid: impl Into<String>) -> Self {
        self.uuid = Some(uuid.into());
        self
    }

    /// Set the session id.
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = session_id.into();
        self
    }

    /// Set the parent `tool_use` id.
    pub fn with_parent_tool_use_id(mut self, id: impl Into<String>) -> Self {
        self.parent_tool_use_id = Some(id.into());
        self
    }

    /// Set the priority (`now`, `next` or `later`).
    pub fn with_priority(mut self, priority: impl Into<String>) -> Self {
        self.priority = Some(priority.into());
        self
    }

    /// Set or clear `client_composed`.
    pub fn with_client_composed(mut self, client_composed: bool) -> Self {
        self.client_composed = client_composed;
        self
    }

    /// Set whether the message starts a turn (see [`UserInput::should_query`]).
    pub fn with_should_query(mut self, should_query: bool) -> Self {
        self.should_query = should_query;
        self
    }

    /// The `\n`-terminated compact JSON line for stdin.
    ///
    /// Keys come in the order `type, message, parent_tool_use_id, session_id`, then the optional
    /// `uuid, priority, client_composed, shouldQuery`.
    pub fn to_json_line(&self) -> Vec<u8> {
        let mut line = serde_json::to_vec(self).expect(
            "a UserInput has only string keys and valid raw JSON, so serializing cannot fail",
        );
        line.push(b'\n');
        line
    }
}

impl Serialize for UserInput {
    /// Writes the stdin wire form (see [`UserInput::to_json_line`]).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "user")?;
        map.serialize_entry("message", &Body(&self.content))?;
        map.serialize_entry("parent_tool_use_id", &self.parent_tool_use_id)?;
        map.serialize_entry("session_id", &self.session_id)?;
        if let Some(uuid) = &self.uuid {
            map.serialize_entry("uuid", uuid)?;
        }
        if let Some(priority) = &self.priority {
            map.serialize_entry("priority", priority)?;
        }
        if self.client_composed {
            map.serialize_entry("client_composed", &true)?;
        }
        if !self.should_query {
            map.serialize_entry("shouldQuery", &false)?;
        }
        map.end()
    }
}

/// `{"role":"user","content":…}`.
struct Body<'a>(&'a UserInputContent);

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", "user")?;
        match self.0 {
            UserInputContent::Text(text) => map.serialize_entry("content", text)?,
            UserInputContent::Blocks(blocks) => map.serialize_entry("content", blocks)?,
        }
        map.end()
    }
}

impl Serialize for InputBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            InputBlock::Text(text) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
                map.end()
            }
            InputBlock::ImageBase64 { media_type, data } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "image")?;
                map.serialize_entry("source", &Base64Source::new(media_type, data))?;
                map.end()
            }
            InputBlock::ImageUrl(url) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "image")?;
                map.serialize_entry("source", &UrlSource { ty: "url", url })?;
                map.end()
            }
            InputBlock::ImageFile(file_id) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "image")?;
                map.serialize_entry(
                    "source",
                    &FileSource {
                        ty: "file",
                        file_id,
                    },
                )?;
                map.end()
            }
            InputBlock::Raw(raw) => raw.serialize(serializer),
        }
    }
}

#[derive(Serialize)]
struct Base64Source<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    media_type: &'a str,
    data: &'a str,
}

impl<'a> Base64Source<'a> {
    fn new(media_type: &'a str, data: &'a str) -> Self {
        Base64Source {
            ty: "base64",
            media_type,
            data,
        }
    }
}

#[derive(Serialize)]
struct UrlSource<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    url: &'a str,
}

#[derive(Serialize)]
struct FileSource<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    file_id: &'a str,
}
