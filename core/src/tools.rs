//! The CLI's built-in tools, typed: what the model asked of them ([`BuiltinTool`]) and what they
//! returned ([`BuiltinOutput`]).
//!
//! Permission requests and hook inputs carry a tool call as a name and raw JSON; their
//! `builtin()` methods give the call as a [`BuiltinTool`], and a `PostToolUse` input's
//! `builtin_output()` gives the result as a [`BuiltinOutput`]. A tool this crate does not type
//! (an MCP tool, a newer built-in), or a call whose JSON does not fit its tool's type, comes as
//! `Other` with the JSON as sent, so nothing is lost. The types follow what CLI 2.1.331 sends,
//! checked against recordings of each tool.
//!
//! ```
//! use claude_agent_tokio::permission::{PermissionRequest, PermissionResult};
//! use claude_agent_tokio::tools::BuiltinTool;
//!
//! fn decide(request: &PermissionRequest) -> PermissionResult {
//!     match request.builtin() {
//!         BuiltinTool::Bash(bash) if bash.command.starts_with("rm ") => {
//!             PermissionResult::deny("no deleting")
//!         }
//!         BuiltinTool::Write(write) if !write.file_path.starts_with("/srv/app/") => {
//!             PermissionResult::deny("write inside /srv/app only")
//!         }
//!         _ => PermissionResult::allow(),
//!     }
//! }
//!
//! let request: PermissionRequest = serde_json::from_str(
//!     r#"{"tool_name":"Bash","input":{"command":"rm -rf /"},"tool_use_id":"toolu_1"}"#,
//! ).unwrap();
//! assert_eq!(decide(&request), PermissionResult::deny("no deleting"));
//! ```

mod input;
mod output;

#[cfg(test)]
mod tests;

pub use input::{
    AgentInput, AskUserQuestionInput, BashInput, EditInput, NotebookEditInput, Question,
    QuestionOption, ReadInput, WebFetchInput, WebSearchInput, WriteInput,
};
pub use output::{
    AskUserQuestionOutput, BashOutput, EditOutput, NotebookEditOutput, NotebookFile, NotebookRead,
    PatchHunk, ReadOutput, TextFile, TextRead, WebSearchOutput, WriteOutput,
};

use crate::unknown_name::{wire_name_traits, UnknownName};
use crate::Json;

/// A call of a built-in tool, by the tool's name, with its typed input.
///
/// ```
/// use claude_agent_tokio::tools::BuiltinTool;
/// use claude_agent_tokio::Json;
///
/// let input: Json = r#"{"file_path":"/srv/app/a.txt","content":"hi"}"#.parse().unwrap();
/// let BuiltinTool::Write(write) = BuiltinTool::parse("Write", &input) else { panic!("not Write") };
/// assert_eq!(write.file_path, "/srv/app/a.txt");
///
/// let mcp: Json = r#"{"a":1}"#.parse().unwrap();
/// let other = BuiltinTool::parse("mcp__calc__add", &mcp);
/// assert_eq!(other.name(), "mcp__calc__add");
/// assert!(matches!(other, BuiltinTool::Other { .. }));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuiltinTool {
    /// `Agent` (`Task` in older CLIs).
    Agent(AgentInput),
    /// `AskUserQuestion`.
    AskUserQuestion(AskUserQuestionInput),
    /// `Bash`.
    Bash(BashInput),
    /// `Edit`.
    Edit(EditInput),
    /// `NotebookEdit`.
    NotebookEdit(NotebookEditInput),
    /// `Read`.
    Read(ReadInput),
    /// `WebFetch`.
    WebFetch(WebFetchInput),
    /// `WebSearch`.
    WebSearch(WebSearchInput),
    /// `Write`.
    Write(WriteInput),
    /// Any other tool, or a call whose input does not fit its tool's type, as sent.
    Other {
        /// The tool's name.
        name: String,
        /// Its input.
        input: Json,
    },
}

impl BuiltinTool {
    /// The call of the tool `name` with `input`, typed when this crate knows the tool and the
    /// input fits its type, else [`BuiltinTool::Other`].
    ///
    /// ```
    /// use claude_agent_tokio::tools::BuiltinTool;
    /// use claude_agent_tokio::Json;
    ///
    /// let input: Json = r#"{"command":"cargo test"}"#.parse().unwrap();
    /// assert!(matches!(BuiltinTool::parse("Bash", &input), BuiltinTool::Bash(b) if b.command == "cargo test"));
    /// // A Bash call without a command does not fit: kept as sent.
    /// let odd: Json = r#"{"cmd":"ls"}"#.parse().unwrap();
    /// assert!(matches!(BuiltinTool::parse("Bash", &odd), BuiltinTool::Other { .. }));
    /// ```
    pub fn parse(name: &str, input: &Json) -> BuiltinTool {
        let typed = match name {
            "Agent" | "Task" => input.parse().map(BuiltinTool::Agent),
            "AskUserQuestion" => input.parse().map(BuiltinTool::AskUserQuestion),
            "Bash" => input.parse().map(BuiltinTool::Bash),
            "Edit" => input.parse().map(BuiltinTool::Edit),
            "NotebookEdit" => input.parse().map(BuiltinTool::NotebookEdit),
            "Read" => input.parse().map(BuiltinTool::Read),
            "WebFetch" => input.parse().map(BuiltinTool::WebFetch),
            "WebSearch" => input.parse().map(BuiltinTool::WebSearch),
            "Write" => input.parse().map(BuiltinTool::Write),
            _ => return BuiltinTool::other(name, input),
        };
        typed.unwrap_or_else(|_| BuiltinTool::other(name, input))
    }

    fn other(name: &str, input: &Json) -> BuiltinTool {
        BuiltinTool::Other {
            name: name.to_owned(),
            input: input.clone(),
        }
    }

    /// The tool's name, as the CLI calls it.
    ///
    /// ```
    /// use claude_agent_tokio::tools::BuiltinTool;
    /// use claude_agent_tokio::Json;
    ///
    /// let input: Json = r#"{"description":"d","prompt":"p"}"#.parse().unwrap();
    /// assert_eq!(BuiltinTool::parse("Task", &input).name(), "Agent");
    /// ```
    pub fn name(&self) -> &str {
        match self {
            BuiltinTool::Agent(_) => "Agent",
            BuiltinTool::AskUserQuestion(_) => "AskUserQuestion",
            BuiltinTool::Bash(_) => "Bash",
            BuiltinTool::Edit(_) => "Edit",
            BuiltinTool::NotebookEdit(_) => "NotebookEdit",
            BuiltinTool::Read(_) => "Read",
            BuiltinTool::WebFetch(_) => "WebFetch",
            BuiltinTool::WebSearch(_) => "WebSearch",
            BuiltinTool::Write(_) => "Write",
            BuiltinTool::Other { name, .. } => name,
        }
    }
}

/// What a built-in tool returned, by the tool's name.
///
/// ```
/// use claude_agent_tokio::tools::BuiltinOutput;
/// use claude_agent_tokio::Json;
///
/// let response: Json = r#"{"stdout":"hi","stderr":"","interrupted":false}"#.parse().unwrap();
/// let BuiltinOutput::Bash(bash) = BuiltinOutput::parse("Bash", &response) else { panic!("not Bash") };
/// assert_eq!(bash.stdout, "hi");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuiltinOutput {
    /// `AskUserQuestion`.
    AskUserQuestion(AskUserQuestionOutput),
    /// `Bash`.
    Bash(BashOutput),
    /// `Edit`.
    Edit(EditOutput),
    /// `NotebookEdit`.
    NotebookEdit(NotebookEditOutput),
    /// `Read`.
    Read(ReadOutput),
    /// `WebSearch`.
    WebSearch(WebSearchOutput),
    /// `Write`.
    Write(WriteOutput),
    /// Any other tool's result (`Agent` and `WebFetch` among them), or one that
    /// does not fit its tool's type, as sent.
    Other {
        /// The tool's name.
        name: String,
        /// What it returned.
        response: Json,
    },
}

impl BuiltinOutput {
    /// The result `response` of the tool `name`, typed when this crate knows the tool and the
    /// result fits its type, else [`BuiltinOutput::Other`].
    ///
    /// ```
    /// use claude_agent_tokio::tools::BuiltinOutput;
    /// use claude_agent_tokio::Json;
    ///
    /// let response: Json = r#"{"isAsync":true,"status":"async_launched"}"#.parse().unwrap();
    /// assert!(matches!(BuiltinOutput::parse("Agent", &response), BuiltinOutput::Other { .. }));
    /// ```
    pub fn parse(name: &str, response: &Json) -> BuiltinOutput {
        let typed = match name {
            "AskUserQuestion" => response.parse().map(BuiltinOutput::AskUserQuestion),
            "Bash" => response.parse().map(BuiltinOutput::Bash),
            "Edit" => response.parse().map(BuiltinOutput::Edit),
            "NotebookEdit" => response.parse().map(BuiltinOutput::NotebookEdit),
            "Read" => response.parse().map(BuiltinOutput::Read),
            "WebSearch" => response.parse().map(BuiltinOutput::WebSearch),
            "Write" => response.parse().map(BuiltinOutput::Write),
            _ => return BuiltinOutput::other(name, response),
        };
        typed.unwrap_or_else(|_| BuiltinOutput::other(name, response))
    }

    fn other(name: &str, response: &Json) -> BuiltinOutput {
        BuiltinOutput::Other {
            name: name.to_owned(),
            response: response.clone(),
        }
    }
}

/// Declares a string enum that keeps names it does not know as `Other`.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A name this crate does not know, as sent.
            Other(UnknownName),
        }

        impl $name {
            /// The value named `name`; an unknown name becomes `Other`.
            pub fn from_name(name: &str) -> Self {
                match name {
                    $($wire => $name::$variant,)+
                    other => $name::Other(UnknownName::new(other)),
                }
            }

            /// The wire name.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)+
                    $name::Other(name) => name.as_str(),
                }
            }
        }

        wire_name_traits!($name);
    };
}

wire_enum! {
    /// The type of a notebook cell.
    ///
    /// ```
    /// use claude_agent_tokio::tools::NotebookCellType;
    ///
    /// assert_eq!(NotebookCellType::from_name("markdown"), NotebookCellType::Markdown);
    /// assert_eq!(NotebookCellType::Code.as_str(), "code");
    /// ```
    NotebookCellType {
        /// `code`.
        Code = "code",
        /// `markdown`.
        Markdown = "markdown",
    }
}

wire_enum! {
    /// What a `NotebookEdit` does to its cell.
    ///
    /// ```
    /// use claude_agent_tokio::tools::NotebookEditMode;
    ///
    /// assert_eq!(NotebookEditMode::from_name("insert"), NotebookEditMode::Insert);
    /// assert_eq!(NotebookEditMode::Delete.as_str(), "delete");
    /// ```
    NotebookEditMode {
        /// `replace`: the cell's source is replaced.
        Replace = "replace",
        /// `insert`: a new cell is inserted.
        Insert = "insert",
        /// `delete`: the cell is deleted.
        Delete = "delete",
    }
}

wire_enum! {
    /// Whether a `Write` created its file or overwrote it.
    ///
    /// ```
    /// use claude_agent_tokio::tools::WriteKind;
    ///
    /// assert_eq!(WriteKind::from_name("update"), WriteKind::Update);
    /// assert_eq!(WriteKind::Create.as_str(), "create");
    /// ```
    WriteKind {
        /// `create`: a new file.
        Create = "create",
        /// `update`: an existing file, overwritten.
        Update = "update",
    }
}
