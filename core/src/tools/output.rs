//! What the built-in tools return, as the CLI passes it on in `PostToolUse` hook inputs
//! (`tool_response`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{NotebookCellType, NotebookEditMode, Question, WriteKind};
use crate::Json;

/// What `Bash` returned.
///
/// ```
/// use claude_agent_tokio::tools::BashOutput;
///
/// let output: BashOutput = serde_json::from_str(
///     r#"{"stdout":"hi","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}"#,
/// ).unwrap();
/// assert_eq!(output.stdout, "hi");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct BashOutput {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Whether the command was interrupted.
    #[serde(default)]
    pub interrupted: bool,
    /// Whether `stdout` holds image data.
    #[serde(default, rename = "isImage")]
    pub is_image: bool,
    /// The background task's id, when the command runs in the background.
    #[serde(default, rename = "backgroundTaskId")]
    pub background_task_id: Option<String>,
    /// The timeout the command hit before it was moved to the background, in milliseconds.
    #[serde(default, rename = "timedOutAfterMs")]
    pub timed_out_after_ms: Option<u64>,
    /// What a special exit code means, when the CLI knows.
    #[serde(default, rename = "returnCodeInterpretation")]
    pub return_code_interpretation: Option<String>,
    /// Where the whole output was saved when it was too large to pass on.
    #[serde(default, rename = "persistedOutputPath")]
    pub persisted_output_path: Option<String>,
}

/// What `Read` returned: the file's kind and content.
///
/// ```
/// use claude_agent_tokio::tools::ReadOutput;
///
/// let output: ReadOutput = serde_json::from_str(
///     r#"{"type":"text","file":{"filePath":"/srv/a.txt","content":"hi\n","numLines":2,"startLine":1,"totalLines":2}}"#,
/// ).unwrap();
/// let ReadOutput::Text(text) = output else { panic!("not text") };
/// assert_eq!(text.file.content, "hi\n");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReadOutput {
    /// A text file (or a range of its lines).
    Text(TextRead),
    /// A Jupyter notebook.
    Notebook(NotebookRead),
    /// An image, a PDF or a kind this crate does not type, as sent.
    Other(Json),
}

impl<'de> Deserialize<'de> for ReadOutput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// The `type` tag alone, read without building the rest.
        #[derive(Deserialize)]
        struct Kind<'a> {
            #[serde(rename = "type", borrow, default)]
            kind: Option<std::borrow::Cow<'a, str>>,
        }
        let raw = Json::deserialize(deserializer)?;
        let kind: Kind<'_> =
            serde_json::from_str(raw.as_str()).map_err(serde::de::Error::custom)?;
        let typed = match kind.kind.as_deref() {
            Some("text") => raw.parse().map(ReadOutput::Text),
            Some("notebook") => raw.parse().map(ReadOutput::Notebook),
            _ => return Ok(ReadOutput::Other(raw)),
        };
        typed.map_err(serde::de::Error::custom)
    }
}

/// A text file [`Read`](ReadOutput::Text).
///
/// ```
/// use claude_agent_tokio::tools::TextRead;
///
/// let read: TextRead = serde_json::from_str(
///     r#"{"file":{"filePath":"/srv/a.txt","content":"hi\n","numLines":2,"startLine":1,"totalLines":2}}"#,
/// ).unwrap();
/// assert_eq!(read.file.total_lines, 2);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TextRead {
    /// The lines read.
    pub file: TextFile,
}

/// The lines of a [`TextRead`].
///
/// ```
/// use claude_agent_tokio::tools::TextFile;
///
/// let file: TextFile = serde_json::from_str(
///     r#"{"filePath":"/srv/a.txt","content":"hi\n","numLines":2,"startLine":1,"totalLines":2}"#,
/// ).unwrap();
/// assert_eq!(file.start_line, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TextFile {
    /// The file's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The lines read.
    pub content: String,
    /// How many lines were read.
    #[serde(rename = "numLines")]
    pub num_lines: u64,
    /// The first line read, from 1.
    #[serde(rename = "startLine")]
    pub start_line: u64,
    /// How many lines the file has.
    #[serde(rename = "totalLines")]
    pub total_lines: u64,
}

/// A notebook [`Read`](ReadOutput::Notebook).
///
/// ```
/// use claude_agent_tokio::tools::NotebookRead;
///
/// let read: NotebookRead = serde_json::from_str(
///     r#"{"file":{"filePath":"/srv/n.ipynb","cells":[{"cellType":"code","source":"print(1)","cell_id":"c1"}]}}"#,
/// ).unwrap();
/// assert_eq!(read.file.cells.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct NotebookRead {
    /// The notebook read.
    pub file: NotebookFile,
}

/// The notebook of a [`NotebookRead`].
///
/// ```
/// use claude_agent_tokio::tools::NotebookFile;
///
/// let file: NotebookFile = serde_json::from_str(r#"{"filePath":"/srv/n.ipynb","cells":[]}"#).unwrap();
/// assert_eq!(file.file_path, "/srv/n.ipynb");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct NotebookFile {
    /// The notebook's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// Its cells, as raw JSON (source, type, id, outputs).
    pub cells: Vec<Json>,
}

/// What `Write` returned.
///
/// ```
/// use claude_agent_tokio::tools::{WriteKind, WriteOutput};
///
/// let output: WriteOutput = serde_json::from_str(
///     r#"{"type":"create","filePath":"/srv/a.txt","content":"hi\n","structuredPatch":[],"originalFile":null}"#,
/// ).unwrap();
/// assert_eq!(output.kind, WriteKind::Create);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct WriteOutput {
    /// Whether the file was created or overwritten.
    #[serde(rename = "type")]
    pub kind: WriteKind,
    /// The file's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// What was written.
    pub content: String,
    /// The change, as diff hunks (empty for a new file).
    #[serde(default, rename = "structuredPatch")]
    pub structured_patch: Vec<PatchHunk>,
    /// The content before (`None` for a new file, or one too large to keep).
    #[serde(default, rename = "originalFile")]
    pub original_file: Option<String>,
    /// Whether the user changed the content before allowing it.
    #[serde(default, rename = "userModified")]
    pub user_modified: Option<bool>,
}

/// What `Edit` returned.
///
/// ```
/// use claude_agent_tokio::tools::EditOutput;
///
/// let output: EditOutput = serde_json::from_str(
///     r#"{"filePath":"/srv/a.txt","oldString":"world","newString":"there","originalFile":"hello\nworld\n",
///         "structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[" hello","-world","+there"]}],
///         "userModified":false,"replaceAll":false}"#,
/// ).unwrap();
/// assert_eq!(output.structured_patch[0].lines, [" hello", "-world", "+there"]);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct EditOutput {
    /// The file's path.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The text replaced.
    #[serde(rename = "oldString")]
    pub old_string: String,
    /// The text put in its place.
    #[serde(rename = "newString")]
    pub new_string: String,
    /// The content before.
    #[serde(default, rename = "originalFile")]
    pub original_file: Option<String>,
    /// The change, as diff hunks.
    #[serde(default, rename = "structuredPatch")]
    pub structured_patch: Vec<PatchHunk>,
    /// Whether the user changed the edit before allowing it.
    #[serde(default, rename = "userModified")]
    pub user_modified: bool,
    /// Whether every occurrence was replaced.
    #[serde(default, rename = "replaceAll")]
    pub replace_all: bool,
}

/// One hunk of a unified diff: `lines` start with `' '`, `'-'` or `'+'`.
///
/// ```
/// use claude_agent_tokio::tools::PatchHunk;
///
/// let hunk: PatchHunk = serde_json::from_str(
///     r#"{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}"#,
/// ).unwrap();
/// assert_eq!(hunk.old_start, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct PatchHunk {
    /// The first line of the hunk in the old file, from 1.
    #[serde(rename = "oldStart")]
    pub old_start: u64,
    /// How many old lines it covers.
    #[serde(rename = "oldLines")]
    pub old_lines: u64,
    /// The first line of the hunk in the new file, from 1.
    #[serde(rename = "newStart")]
    pub new_start: u64,
    /// How many new lines it covers.
    #[serde(rename = "newLines")]
    pub new_lines: u64,
    /// The hunk's lines.
    pub lines: Vec<String>,
}

/// What `NotebookEdit` returned.
///
/// ```
/// use claude_agent_tokio::tools::NotebookEditOutput;
///
/// let output: NotebookEditOutput = serde_json::from_str(
///     r#"{"new_source":"print(2)","old_source":"print(1)","cell_type":"code","language":"python",
///         "edit_mode":"replace","cell_id":"c1","error":"","notebook_path":"/srv/n.ipynb",
///         "original_file":"{}","updated_file":"{}"}"#,
/// ).unwrap();
/// assert_eq!(output.old_source.as_deref(), Some("print(1)"));
/// assert_eq!(output.error, None);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct NotebookEditOutput {
    /// The notebook's path.
    pub notebook_path: String,
    /// The cell changed.
    #[serde(default)]
    pub cell_id: Option<String>,
    /// The cell's source now.
    pub new_source: String,
    /// The cell's source before (replace and delete).
    #[serde(default)]
    pub old_source: Option<String>,
    /// The cell's type.
    pub cell_type: NotebookCellType,
    /// What was done to the cell.
    pub edit_mode: NotebookEditMode,
    /// The notebook's language.
    #[serde(default)]
    pub language: String,
    /// Why the edit failed (`None` when it did not; the CLI sends an empty string).
    #[serde(default, deserialize_with = "non_empty")]
    pub error: Option<String>,
    /// The notebook before.
    #[serde(default)]
    pub original_file: String,
    /// The notebook after.
    #[serde(default)]
    pub updated_file: String,
}

/// What `AskUserQuestion` returned: the questions and the answers given.
///
/// ```
/// use claude_agent_tokio::tools::AskUserQuestionOutput;
///
/// let output: AskUserQuestionOutput = serde_json::from_str(
///     r#"{"questions":[{"question":"Which one?","header":"Pick","options":[{"label":"A","description":"first"}]}],
///         "answers":{"Which one?":"A"}}"#,
/// ).unwrap();
/// assert_eq!(output.answers["Which one?"], "A");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct AskUserQuestionOutput {
    /// The questions asked.
    pub questions: Vec<Question>,
    /// The answers, by question text.
    #[serde(default)]
    pub answers: BTreeMap<String, String>,
}

/// What `WebSearch` returned.
///
/// ```
/// use claude_agent_tokio::tools::WebSearchOutput;
///
/// let output: WebSearchOutput = serde_json::from_str(
///     r#"{"durationSeconds":0.5,"query":"rust async","results":[],"searchCount":0}"#,
/// ).unwrap();
/// assert_eq!(output.query, "rust async");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct WebSearchOutput {
    /// The query run.
    pub query: String,
    /// The hits and the model's commentary, as raw JSON.
    #[serde(default)]
    pub results: Vec<Json>,
    /// How long the search took, in seconds.
    #[serde(default, rename = "durationSeconds")]
    pub duration_seconds: f64,
}

/// An optional string the CLI sends as `""` when it has none.
fn non_empty<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.filter(|s| !s.is_empty()))
}
