//! Reading a turn's structured output as a Rust type: [`ResultMessage::structured`].

use serde::de::DeserializeOwned;

use super::ResultMessage;
use crate::Json;

/// Why [`ResultMessage::structured`] gave no value: each failure of a structured-output turn
/// told apart.
///
/// ```
/// use claude_agent_tokio::message::{Message, StructuredOutputError};
///
/// #[derive(serde::Deserialize)]
/// struct Answer {
///     answer: i64,
/// }
///
/// // A turn that ended with text but no structured output.
/// let line = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"4","session_id":"s"}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// assert!(matches!(result.structured::<Answer>(), Err(StructuredOutputError::Missing)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StructuredOutputError {
    /// The turn failed (for instance `error_max_structured_output_retries`: the model did not
    /// produce output that matched the schema in the tries the CLI allows).
    #[error("the turn failed ({subtype}): {message}")]
    ErrorResult {
        /// The result's subtype.
        subtype: String,
        /// Its errors, or its text.
        message: String,
    },
    /// The turn succeeded without structured output: the options named no output format, or
    /// the CLI ended the turn without one.
    #[error(
        "the result has no structured output: give the options an output format \
         (Options::output_type or json_schema)"
    )]
    Missing,
    /// The model put its answer under an `output` key (`{"output": …}`) instead of giving the
    /// object itself; `output` holds what it put there, which may well be the value wanted.
    #[error("the structured output is wrapped in {{\"output\": …}}: {output}")]
    Wrapped {
        /// The value under `output`.
        output: Json,
    },
    /// The structured output is not a value of the type asked for.
    #[error("the structured output does not fit the type: {source}; it was {json}")]
    DoesNotFit {
        /// The structured output.
        json: Json,
        /// Why it does not fit.
        source: serde_json::Error,
    },
}

impl ResultMessage {
    /// The turn's structured output as a `T`: the value the model gave for the options' output
    /// format (`Options::output_type` or
    /// [`AgentConfig::output_format`](crate::options::AgentConfig::output_format)), with each way it can
    /// be missing told apart ([`StructuredOutputError`]).
    ///
    /// ```
    /// use claude_agent_tokio::message::Message;
    ///
    /// #[derive(serde::Deserialize, Debug, PartialEq)]
    /// struct Verdict {
    ///     risk: String,
    ///     summary: String,
    /// }
    ///
    /// let line = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"","structured_output":{"risk":"low","summary":"typo fix"},"session_id":"s"}"#;
    /// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
    /// let verdict: Verdict = result.structured()?;
    /// assert_eq!(verdict, Verdict { risk: "low".into(), summary: "typo fix".into() });
    /// # Ok::<(), claude_agent_tokio::message::StructuredOutputError>(())
    /// ```
    pub fn structured<T: DeserializeOwned>(&self) -> Result<T, StructuredOutputError> {
        if self.is_error {
            let message = if self.errors.is_empty() {
                self.result.clone().unwrap_or_default()
            } else {
                self.errors.join("; ")
            };
            return Err(StructuredOutputError::ErrorResult {
                subtype: self.subtype.clone(),
                message,
            });
        }
        let json = self
            .structured_output
            .as_ref()
            .filter(|json| json.as_str() != "null")
            .ok_or(StructuredOutputError::Missing)?;
        json.parse::<T>().map_err(|source| {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Wrapper {
                output: Json,
            }
            match json.parse::<Wrapper>() {
                Ok(Wrapper { output }) => StructuredOutputError::Wrapped { output },
                Err(_) => StructuredOutputError::DoesNotFit {
                    json: json.clone(),
                    source,
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Answer {
        answer: i64,
    }

    fn result(fields: &str) -> Box<ResultMessage> {
        let line = format!(r#"{{"type":"result","num_turns":1,"session_id":"s",{fields}}}"#);
        match Message::parse(&line).unwrap() {
            Message::Result(result) => result,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_failure_is_told_apart() {
        let ok = result(r#""subtype":"success","is_error":false,"structured_output":{"answer":4}"#);
        assert_eq!(ok.structured::<Answer>().unwrap(), Answer { answer: 4 });

        let failed = result(
            r#""subtype":"error_max_structured_output_retries","is_error":true,"errors":["Failed to provide valid structured output after 5 attempts"]"#,
        );
        assert!(matches!(
            failed.structured::<Answer>(),
            Err(StructuredOutputError::ErrorResult { subtype, .. }) if subtype == "error_max_structured_output_retries"
        ));

        let missing = result(r#""subtype":"success","is_error":false,"structured_output":null"#);
        assert!(matches!(
            missing.structured::<Answer>(),
            Err(StructuredOutputError::Missing)
        ));

        let wrapped = result(
            r#""subtype":"success","is_error":false,"structured_output":{"output":{"answer":4}}"#,
        );
        let Err(StructuredOutputError::Wrapped { output }) = wrapped.structured::<Answer>() else {
            panic!("not wrapped");
        };
        assert_eq!(output.parse::<Answer>().unwrap(), Answer { answer: 4 });

        let wrong =
            result(r#""subtype":"success","is_error":false,"structured_output":{"answer":"four"}"#);
        assert!(matches!(
            wrong.structured::<Answer>(),
            Err(StructuredOutputError::DoesNotFit { .. })
        ));
    }
}
