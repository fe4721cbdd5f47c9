//! The inputs of the built-in tools, as the model writes them and the CLI passes them on in
//! permission requests and hook inputs.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{NotebookCellType, NotebookEditMode};

/// `Bash`: run a shell command.
///
/// ```
/// use claude_agent_tokio::tools::BashInput;
///
/// let input: BashInput = serde_json::from_str(r#"{"command":"echo hi","description":"Say hi"}"#).unwrap();
/// assert_eq!((input.command.as_str(), input.run_in_background), ("echo hi", None));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct BashInput {
    /// The command.
    pub command: String,
    /// What the command does, in words, for the user.
    #[serde(default)]
    pub description: Option<String>,
    /// How long it may run, in milliseconds.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Whether it runs as a background task.
    #[serde(default)]
    pub run_in_background: Option<bool>,
    /// Whether the model asked to run it outside the sandbox.
    #[serde(default, rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox: Option<bool>,
}

/// `Read`: read a file (text, image, PDF or notebook).
///
/// ```
/// use claude_agent_tokio::tools::ReadInput;
///
/// let input: ReadInput = serde_json::from_str(r#"{"file_path":"/srv/app/README.md","limit":40}"#).unwrap();
/// assert_eq!(input.limit, Some(40));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ReadInput {
    /// The absolute path of the file.
    pub file_path: String,
    /// The line to start at.
    #[serde(default)]
    pub offset: Option<u64>,
    /// How many lines to read.
    #[serde(default)]
    pub limit: Option<u64>,
    /// The pages of a PDF, e.g. `"1-5"`.
    #[serde(default)]
    pub pages: Option<String>,
    /// Whether a file over the usual size limit is read whole.
    #[serde(default)]
    pub allow_large: Option<bool>,
}

/// `Write`: create or overwrite a file.
///
/// ```
/// use claude_agent_tokio::tools::WriteInput;
///
/// let input: WriteInput = serde_json::from_str(r#"{"file_path":"/srv/app/a.txt","content":"hello\n"}"#).unwrap();
/// assert_eq!(input.content, "hello\n");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct WriteInput {
    /// The absolute path of the file.
    pub file_path: String,
    /// The whole new content.
    pub content: String,
}

/// `Edit`: replace a string in a file.
///
/// ```
/// use claude_agent_tokio::tools::EditInput;
///
/// let input: EditInput = serde_json::from_str(
///     r#"{"file_path":"/srv/app/a.txt","old_string":"world","new_string":"there","replace_all":false}"#,
/// ).unwrap();
/// assert_eq!((input.old_string.as_str(), input.new_string.as_str()), ("world", "there"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct EditInput {
    /// The absolute path of the file.
    pub file_path: String,
    /// The text replaced.
    pub old_string: String,
    /// The text put in its place.
    pub new_string: String,
    /// Whether every occurrence is replaced (only the one otherwise).
    #[serde(default)]
    pub replace_all: Option<bool>,
}

/// `NotebookEdit`: replace, insert or delete a cell of a Jupyter notebook.
///
/// ```
/// use claude_agent_tokio::tools::{NotebookEditInput, NotebookEditMode};
///
/// let input: NotebookEditInput = serde_json::from_str(
///     r#"{"notebook_path":"/srv/app/n.ipynb","cell_id":"c1","new_source":"print(2)","edit_mode":"replace"}"#,
/// ).unwrap();
/// assert_eq!(input.edit_mode, Some(NotebookEditMode::Replace));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct NotebookEditInput {
    /// The absolute path of the notebook.
    pub notebook_path: String,
    /// The cell changed (or, when inserting, the one the new cell follows).
    #[serde(default)]
    pub cell_id: Option<String>,
    /// The cell's new source.
    pub new_source: String,
    /// The cell's type.
    #[serde(default)]
    pub cell_type: Option<NotebookCellType>,
    /// What is done to the cell (replace when absent).
    #[serde(default)]
    pub edit_mode: Option<NotebookEditMode>,
}

/// `WebFetch`: fetch a URL and have a model read it with a prompt.
///
/// ```
/// use claude_agent_tokio::tools::WebFetchInput;
///
/// let input: WebFetchInput = serde_json::from_str(
///     r#"{"url":"https://docs.rs/serde","prompt":"What is the latest version?"}"#,
/// ).unwrap();
/// assert_eq!(input.url, "https://docs.rs/serde");
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct WebFetchInput {
    /// The URL.
    pub url: String,
    /// What to ask of the page.
    pub prompt: String,
    /// Where in the page's text to go on reading (from an earlier result).
    #[serde(default)]
    pub offset: Option<u64>,
}

/// `WebSearch`: search the web.
///
/// ```
/// use claude_agent_tokio::tools::WebSearchInput;
///
/// let input: WebSearchInput = serde_json::from_str(
///     r#"{"query":"tokio 2 release","allowed_domains":["tokio.rs"]}"#,
/// ).unwrap();
/// assert_eq!(input.allowed_domains, ["tokio.rs"]);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct WebSearchInput {
    /// The query.
    pub query: String,
    /// Only results from these domains.
    #[serde(default)]
    pub allowed_domains: Vec<String>,
    /// No results from these domains.
    #[serde(default)]
    pub blocked_domains: Vec<String>,
}

/// `Agent` (`Task` in older CLIs): start a subagent.
///
/// ```
/// use claude_agent_tokio::tools::AgentInput;
///
/// let input: AgentInput = serde_json::from_str(
///     r#"{"description":"greet","prompt":"say hi","subagent_type":"general-purpose"}"#,
/// ).unwrap();
/// assert_eq!(input.subagent_type.as_deref(), Some("general-purpose"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct AgentInput {
    /// A few words on the task.
    pub description: String,
    /// The task.
    pub prompt: String,
    /// The kind of agent (an agent definition's name).
    #[serde(default)]
    pub subagent_type: Option<String>,
    /// A model for the agent (`sonnet`, `opus`, `haiku`, …).
    #[serde(default)]
    pub model: Option<String>,
    /// A reasoning effort for the agent (`low` … `max`).
    #[serde(default)]
    pub effort: Option<String>,
    /// Whether the agent runs in the background (the CLI's default).
    #[serde(default)]
    pub run_in_background: Option<bool>,
    /// A name that makes the agent addressable while it runs.
    #[serde(default)]
    pub name: Option<String>,
    /// Where it runs: `worktree` (a git worktree of its own) or `remote`.
    #[serde(default)]
    pub isolation: Option<String>,
}

/// `AskUserQuestion`: the model asks the user to choose. A `can_use_tool` callback answers it:
/// allow with an updated input whose `answers` maps each question to the label chosen.
///
/// ```
/// use claude_agent_tokio::tools::AskUserQuestionInput;
///
/// let input: AskUserQuestionInput = serde_json::from_str(
///     r#"{"questions":[{"question":"Which one?","header":"Pick","multiSelect":false,
///         "options":[{"label":"A","description":"first"},{"label":"B","description":"second"}]}]}"#,
/// ).unwrap();
/// assert_eq!(input.questions[0].options[1].label, "B");
/// assert!(input.answers.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct AskUserQuestionInput {
    /// The questions (one to four).
    pub questions: Vec<Question>,
    /// The answers given, by question text (filled in once answered).
    #[serde(default)]
    pub answers: BTreeMap<String, String>,
}

/// One question of an [`AskUserQuestionInput`].
///
/// ```
/// use claude_agent_tokio::tools::Question;
///
/// let question: Question = serde_json::from_str(
///     r#"{"question":"Which one?","header":"Pick","options":[{"label":"A","description":"first"}]}"#,
/// ).unwrap();
/// assert!(!question.multi_select);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Question {
    /// The question.
    pub question: String,
    /// A short label for it.
    #[serde(default)]
    pub header: String,
    /// The choices.
    pub options: Vec<QuestionOption>,
    /// Whether several choices may be taken.
    #[serde(default, rename = "multiSelect")]
    pub multi_select: bool,
}

/// One choice of a [`Question`].
///
/// ```
/// use claude_agent_tokio::tools::QuestionOption;
///
/// let option: QuestionOption = serde_json::from_str(r#"{"label":"A","description":"first"}"#).unwrap();
/// assert_eq!(option.preview, None);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct QuestionOption {
    /// What the user sees and picks.
    pub label: String,
    /// What the choice means.
    #[serde(default)]
    pub description: String,
    /// Content shown while the choice has the focus.
    #[serde(default)]
    pub preview: Option<String>,
}
