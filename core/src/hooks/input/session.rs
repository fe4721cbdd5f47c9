//! Inputs of the session lifecycle events: `SessionStart`, `SessionEnd`, `Setup`, `Stop`,
//! `StopFailure`, `PreCompact`, `PostCompact`, `PreModelSwitch` and `PostModelSwitch`.

use serde::Deserialize;

use super::HookBase;
use crate::Json;

/// `SessionStart`: a session starts, resumes, is cleared, compacted or forked.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, SessionStartInput, SessionStartOutput};
///
/// /// Brief the agent when a session starts, and again after compaction.
/// fn brief(input: &SessionStartInput) -> HookOutput {
///     let context = match input.source.as_str() {
///         "startup" => "Open issues: #12 (docs), #15 (flaky test).",
///         "compact" => "Remember: the release branch is frozen.",
///         _ => return HookOutput::default(),
///     };
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::SessionStart(SessionStartOutput {
///         additional_context: Some(context.into()),
///         watch_paths: Some(vec!["/tmp/ws/Cargo.toml".into()]),
///         ..Default::default()
///     }))
/// }
///
/// let input: SessionStartInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"SessionStart","source":"startup","model":"claude-opus-5-5"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.source.as_str(), input.model.as_deref()), ("startup", Some("claude-opus-5-5")));
/// assert!(brief(&input).to_wire_json().contains(r#""additionalContext":"Open issues: #12 (docs), #15 (flaky test).""#));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, SessionEndInput};
///
/// /// Log where the finished session's transcript is.
/// fn log_end(input: &SessionEndInput) -> HookOutput {
///     eprintln!("session {} ended ({}); transcript at {}", input.base.session_id, input.reason, input.base.transcript_path);
///     HookOutput::default()
/// }
///
/// let input: SessionEndInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"SessionEnd","reason":"other"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.reason, "other");
/// assert_eq!(log_end(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SessionEndInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `clear`, `resume`, `logout`, `prompt_input_exit` or `other`.
    pub reason: String,
}

/// `Setup`: repository setup.
///
/// ```
/// use claude_agent_tokio::hooks::{EventInput, HookOutput, SetupInput};
///
/// /// On a first setup, tell the agent how to prepare the repository.
/// fn first_build(input: &SetupInput) -> HookOutput {
///     if input.trigger == "init" {
///         HookOutput::default().with_additional_context(SetupInput::EVENT, "Run `cargo build` once before editing.")
///     } else {
///         HookOutput::default()
///     }
/// }
///
/// let input: SetupInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"Setup","trigger":"init"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.trigger, "init");
/// assert_eq!(
///     first_build(&input),
///     HookOutput::default().with_additional_context(SetupInput::EVENT, "Run `cargo build` once before editing.")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SetupInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `init` or `maintenance`.
    pub trigger: String,
}

/// `Stop`: the agent is about to stop.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, StopInput};
///
/// /// Keep the agent going until it reports the tests.
/// fn tests_first(input: &StopInput) -> HookOutput {
///     // Once per turn: after one "go on", `stop_hook_active` is set and the agent may stop.
///     let said = input.last_assistant_message.as_deref().unwrap_or_default();
///     if input.stop_hook_active || said.contains("tests pass") {
///         HookOutput::default()
///     } else {
///         HookOutput::block("Run the tests and report the result before you stop.")
///     }
/// }
///
/// // What the CLI sends (from a recorded session):
/// let input: StopInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done: hooked",
///     "background_tasks":[],"session_crons":[]}"#,
/// )
/// .unwrap();
/// assert_eq!(input.last_assistant_message.as_deref(), Some("done: hooked"));
/// assert_eq!(input.background_tasks.as_ref().map(|t| t.as_str()), Some("[]"));
/// assert_eq!(tests_first(&input), HookOutput::block("Run the tests and report the result before you stop."));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    pub background_tasks: Option<Json>,
    /// Scheduled prompts (`[{id, schedule, recurring, prompt}]`), as raw JSON.
    #[serde(default)]
    pub session_crons: Option<Json>,
}

/// `StopFailure`: a turn ended with an API error.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, StopFailureInput};
///
/// /// Tell the user when the turn hit the rate limit.
/// fn report_rate_limit(input: &StopFailureInput) -> HookOutput {
///     if input.error.as_str() == r#""rate_limit""# {
///         return HookOutput::default().with_system_message("Rate limited; try again later.");
///     }
///     HookOutput::default()
/// }
///
/// let input: StopFailureInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"StopFailure","error":"rate_limit","last_assistant_message":"Reading the test files…"}"#,
/// )
/// .unwrap();
/// let error: String = serde_json::from_str(input.error.as_str()).unwrap();
/// assert_eq!(error, "rate_limit");
/// assert_eq!(report_rate_limit(&input).system_message.as_deref(), Some("Rate limited; try again later."));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct StopFailureInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The error (an `SDKAssistantMessageError`), as raw JSON.
    pub error: Json,
    /// More about the error, as raw JSON.
    #[serde(default)]
    pub error_details: Option<Json>,
    /// The last assistant text.
    #[serde(default)]
    pub last_assistant_message: Option<String>,
}

/// `PreCompact`: before the conversation is compacted.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, PreCompactInput};
///
/// /// Keep a copy of the whole conversation before it is summarised.
/// fn keep_transcript(input: &PreCompactInput) -> HookOutput {
///     let _ = std::fs::copy(&input.base.transcript_path, "/tmp/ws/.transcripts/before-compact.jsonl");
///     HookOutput::default()
/// }
///
/// let input: PreCompactInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"Keep the list of failing tests."}"#,
/// )
/// .unwrap();
/// assert_eq!(input.trigger, "manual");
/// assert_eq!(input.custom_instructions.as_deref(), Some("Keep the list of failing tests."));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, PostCompactInput};
///
/// /// Log how long the summary that replaced the conversation is.
/// fn log_compaction(input: &PostCompactInput) -> HookOutput {
///     eprintln!("compacted ({}): {} chars of summary", input.trigger, input.compact_summary.len());
///     HookOutput::default()
/// }
///
/// let input: PostCompactInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"PostCompact","trigger":"auto","compact_summary":"The user is fixing the flaky test in tests/io.rs; …"}"#,
/// )
/// .unwrap();
/// assert!(input.compact_summary.starts_with("The user is fixing"));
/// assert_eq!(log_compaction(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// # use claude_agent_tokio::hooks::{EventInput, HookInput, PreModelSwitchInput};
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
    /// # use claude_agent_tokio::hooks::{EventInput, HookInput, PostModelSwitchInput};
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
