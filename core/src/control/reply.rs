use serde::{Deserialize, Deserializer, Serialize};

use crate::hooks::HookOutput;
use crate::json::{read_kind, split_tag};
use crate::mcp::{ElicitationResult, PromptResult, ResourceResult, ToolResult};
use crate::permission::PermissionResult;
use crate::Json;

/// The host's answer to an [`super::InboundRequest`].
///
/// ```
/// # use claude_agent_tokio::control::Reply;
/// let reply = Reply::error("no such thing");
/// assert!(matches!(reply, Reply::Error { .. }));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// Answer to a permission prompt.
    Permission(PermissionResult),
    /// Output of a hook callback.
    Hook(HookOutput),
    /// Result of an in-process MCP tool call (tool failures go in here too, with `is_error`).
    ToolResult(ToolResult),
    /// Contents of an in-process MCP server's resource.
    Resource(ResourceResult),
    /// Messages of an in-process MCP server's prompt.
    Prompt(PromptResult),
    /// Answer to an elicitation.
    Elicitation(ElicitationResult),
    /// Answer to a dialog.
    UserDialog(UserDialogResult),
    /// Refuse the request: the CLI receives a control error with this text.
    Error {
        /// Error text.
        message: String,
        /// Optional `snake_case` error code.
        code: Option<String>,
    },
    /// A success body written as is (must be a JSON object).
    Raw(Json),
}

impl Reply {
    /// An error reply with no code.
    pub fn error(message: impl Into<String>) -> Self {
        Reply::Error {
            message: message.into(),
            code: None,
        }
    }
}

/// The answer to a [`super::UserDialogRequest`]: what the user chose, or that they dismissed
/// it (then the CLI takes the dialog's default). Answers compare by value, a result by its exact
/// JSON text.
///
/// ```
/// # use claude_agent_tokio::control::UserDialogResult;
/// let retry = UserDialogResult::completed(serde_json::json!({"choice": "retry"}));
/// assert_eq!(serde_json::to_string(&retry).unwrap(), r#"{"behavior":"completed","result":{"choice":"retry"}}"#);
/// assert_eq!(
///     serde_json::to_string(&UserDialogResult::cancelled()).unwrap(),
///     r#"{"behavior":"cancelled"}"#
/// );
/// ```
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "behavior", rename_all = "lowercase")]
#[non_exhaustive]
pub enum UserDialogResult {
    /// The user answered (`{"behavior":"completed","result":…}`).
    Completed {
        /// The answer, shaped as the dialog's kind defines; left out when `None`.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Json>,
    },
    /// The user dismissed the dialog (`{"behavior":"cancelled"}`); the CLI takes its default.
    Cancelled,
}

impl<'de> Deserialize<'de> for UserDialogResult {
    /// Reads the variant `behavior` names (`completed` or `cancelled`).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Completed {
            result: Option<Json>,
        }
        let (behavior, json) = split_tag(deserializer, "behavior")?;
        match behavior.as_deref() {
            Some("completed") => {
                let Completed { result } = read_kind(&json)?;
                Ok(UserDialogResult::Completed { result })
            }
            Some("cancelled") => Ok(UserDialogResult::Cancelled),
            _ => Err(serde::de::Error::custom(
                "a dialog answer's `behavior` is `completed` or `cancelled`",
            )),
        }
    }
}

impl UserDialogResult {
    /// The user answered with `result`.
    ///
    /// ```
    /// # use claude_agent_tokio::Json;
    /// # use claude_agent_tokio::control::UserDialogResult;
    /// let choice = Json::from_serialize(&serde_json::json!({"choice": "edit"})).unwrap();
    /// let answer = UserDialogResult::completed(choice);
    /// assert!(matches!(answer, UserDialogResult::Completed { result: Some(_) }));
    /// ```
    pub fn completed(result: impl Into<Json>) -> Self {
        UserDialogResult::Completed {
            result: Some(result.into()),
        }
    }

    /// The user dismissed the dialog.
    ///
    /// ```
    /// # use claude_agent_tokio::control::UserDialogResult;
    /// assert_eq!(UserDialogResult::cancelled(), UserDialogResult::Cancelled);
    /// ```
    pub fn cancelled() -> Self {
        UserDialogResult::Cancelled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::ElicitationAction;

    fn raw(json: &str) -> Json {
        Json::try_from(json.to_owned()).unwrap()
    }

    #[test]
    fn elicitation_results_compare_by_action_and_content_text() {
        let accept = |json: &str| ElicitationResult::accept(raw(json));
        assert_eq!(accept(r#"{"a":1}"#), accept(r#"{"a":1}"#));
        assert_ne!(accept(r#"{"a":1}"#), accept(r#"{"a": 1}"#));
        assert_ne!(accept(r#"{"a":1}"#), ElicitationResult::decline());
        assert_eq!(ElicitationResult::decline(), ElicitationResult::decline());
        let cancel = ElicitationResult {
            action: ElicitationAction::Cancel,
            content: None,
        };
        assert_ne!(cancel, ElicitationResult::decline());
    }

    /// The bodies the TypeScript SDK 0.3.330 writes for the same answers of its `onUserDialog`
    /// (captured from its stdin).
    #[test]
    fn dialog_answers_are_written_as_the_typescript_sdk_writes_them() {
        let json = |result: &UserDialogResult| serde_json::to_string(result).unwrap();
        assert_eq!(
            json(&UserDialogResult::completed(raw(r#"{"choice":"retry"}"#))),
            r#"{"behavior":"completed","result":{"choice":"retry"}}"#
        );
        assert_eq!(
            json(&UserDialogResult::cancelled()),
            r#"{"behavior":"cancelled"}"#
        );
        assert_eq!(
            json(&UserDialogResult::Completed { result: None }),
            r#"{"behavior":"completed"}"#
        );
        assert_eq!(
            UserDialogResult::completed(raw("1")),
            UserDialogResult::completed(raw("1"))
        );
        assert_ne!(
            UserDialogResult::completed(raw("1")),
            UserDialogResult::cancelled()
        );
    }

    #[test]
    fn dialog_and_elicitation_answers_read_back_from_their_json() {
        for answer in [
            UserDialogResult::completed(raw(r#"{"choice":"retry"}"#)),
            UserDialogResult::cancelled(),
        ] {
            let wire = serde_json::to_string(&answer).unwrap();
            assert_eq!(
                serde_json::from_str::<UserDialogResult>(&wire).unwrap(),
                answer
            );
        }
        for answer in [
            ElicitationResult::accept(raw(r#"{"repo":"octo/demo"}"#)),
            ElicitationResult::decline(),
        ] {
            let wire = serde_json::to_string(&answer).unwrap();
            assert_eq!(
                serde_json::from_str::<ElicitationResult>(&wire).unwrap(),
                answer
            );
        }
    }
}
