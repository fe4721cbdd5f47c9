//! Inputs of the session lifecycle events: `SessionStart`, `SessionEnd`, `Setup`, `Stop`,
//! `StopFailure`, `PreCompact`, `PostCompact`, `PreModelSwitch` and `PostModelSwitch`.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::HookBase;

/// `SessionStart`: a session starts, resumes, is cleared, compacted or forked.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct SessionStartInput {
    /// The common fields (`agent_type` is set when the session runs as an agent).
    #[serde(flatten)]
    pub base: HookBase,
    /// `startup`, `resume`, `clear`, `compact` or `fork`.
    pub source: String,
    /// The model in use.
    #[serde(default)]
    pub model: Option<String>,
    /// The session's title.
    #[serde(default)]
    pub session_title: Option<String>,
    /// Seconds since the last response (on resume).
    #[serde(default)]
    pub seconds_since_last_response: Option<f64>,
    /// Tokens in the context.
    #[serde(default)]
    pub context_tokens: Option<u64>,
    /// Whether the prompt cache has probably expired.
    #[serde(default)]
    pub prompt_cache_likely_expired: Option<bool>,
    /// Estimated cost of rewriting the cache, in US dollars.
    #[serde(default)]
    pub estimated_cache_write_usd: Option<f64>,
}

/// `SessionEnd`: a session ends.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct SessionEndInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `clear`, `resume`, `logout`, `prompt_input_exit` or `other`.
    pub reason: String,
}

/// `Setup`: repository setup.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct SetupInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `init` or `maintenance`.
    pub trigger: String,
}

/// `Stop`: the agent is about to stop.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct StopInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// Whether a stop hook already made the agent continue once.
    pub stop_hook_active: bool,
    /// The last assistant text.
    #[serde(default)]
    pub last_assistant_message: Option<String>,
    /// Background tasks still known (`[{id, type, status, description, …}]`), as raw JSON.
    #[serde(default)]
    pub background_tasks: Option<Box<RawValue>>,
    /// Scheduled prompts (`[{id, schedule, recurring, prompt}]`), as raw JSON.
    #[serde(default)]
    pub session_crons: Option<Box<RawValue>>,
}

/// `StopFailure`: a turn ended with an API error.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct StopFailureInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The error (an `SDKAssistantMessageError`), as raw JSON.
    pub error: Box<RawValue>,
    /// More about the error, as raw JSON.
    #[serde(default)]
    pub error_details: Option<Box<RawValue>>,
    /// The last assistant text.
    #[serde(default)]
    pub last_assistant_message: Option<String>,
}

/// `PreCompact`: before the conversation is compacted.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PreCompactInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `manual` or `auto`.
    pub trigger: String,
    /// The instructions given to `/compact`.
    #[serde(default)]
    pub custom_instructions: Option<String>,
}

/// `PostCompact`: after the conversation was compacted.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct PostCompactInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `manual` or `auto`.
    pub trigger: String,
    /// The summary that replaced the conversation.
    pub compact_summary: String,
}

twin_inputs! {
    /// `PreModelSwitch`: the model is about to be switched.
    ///
    /// ```
    /// # use claude_agent_core::hooks::{EventInput, HookInput, PreModelSwitchInput};
    /// let input: HookInput = serde_json::from_str(
    ///     r#"{"hook_event_name":"PreModelSwitch","session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "from_model":"a","to_model":"b","source":"sdk","context_tokens":1200,
    ///         "prompt_cache_warm":true,"cache_ttl":"5m","estimated_cache_write_usd":0.01,"pricing":"catalog"}"#,
    /// )
    /// .unwrap();
    /// let input = PreModelSwitchInput::from_hook_input(input).unwrap();
    /// assert_eq!(input.to_model, "b");
    /// ```
    PreModelSwitchInput,
    /// `PostModelSwitch`: the model was switched.
    ///
    /// ```
    /// # use claude_agent_core::hooks::{EventInput, HookInput, PostModelSwitchInput};
    /// let input: HookInput = serde_json::from_str(
    ///     r#"{"hook_event_name":"PostModelSwitch","session_id":"s","transcript_path":"/t","cwd":"/w",
    ///         "from_model":"a","to_model":"b","source":"sdk","context_tokens":1200,
    ///         "prompt_cache_warm":true,"cache_ttl":"5m","estimated_cache_write_usd":0.01,"pricing":"catalog"}"#,
    /// )
    /// .unwrap();
    /// let input = PostModelSwitchInput::from_hook_input(input).unwrap();
    /// assert_eq!(input.context_tokens, 1200);
    /// ```
    PostModelSwitchInput,
    {
        /// The common fields.
        #[serde(flatten)]
        pub base: HookBase,
        /// The model before.
        pub from_model: String,
        /// The model after.
        pub to_model: String,
        /// The name the switch asked for.
        #[serde(default)]
        pub requested_model: Option<String>,
        /// `command`, `picker`, `sdk` (and after the switch also `auto`, `resume`).
        pub source: String,
        /// Tokens in the context.
        pub context_tokens: u64,
        /// Whether the prompt cache is warm.
        pub prompt_cache_warm: bool,
        /// `5m` or `1h`.
        pub cache_ttl: String,
        /// Estimated cost of rewriting the cache, in US dollars.
        pub estimated_cache_write_usd: f64,
        /// Where the price comes from: `configured`, `catalog` or `default`.
        pub pricing: String,
    }
}
