//! Token usage as the Messages API reports it, and the CLI's per-model totals.

use crate::Json;
use serde::Deserialize;

/// Token usage of one model call or turn (`usage` of assistant and result messages).
///
/// ```
/// use claude_agent_tokio::message::Message;
///
/// let line = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"4","session_id":"s","usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":2048,"output_tokens":7,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}}}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// let usage = result.usage.unwrap();
/// let prompt = usage.input_tokens + usage.cache_read_input_tokens.unwrap_or(0) + usage.cache_creation_input_tokens.unwrap_or(0);
/// assert_eq!((prompt, usage.output_tokens), (2060, 7));
/// assert_eq!(usage.service_tier.as_deref(), Some("standard"));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens not read from or written to the cache.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens written to the cache.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// `standard`, `priority` or `batch`.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Server tool calls (`web_search_requests`, `web_fetch_requests`), as raw JSON.
    #[serde(default)]
    pub server_tool_use: Option<Json>,
    /// Cache writes by lifetime (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`), as raw JSON.
    #[serde(default)]
    pub cache_creation: Option<Json>,
}

/// Cumulative usage of one model in a query (`modelUsage` of a result).
///
/// ```
/// use claude_agent_tokio::message::Message;
///
/// let line = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s","modelUsage":{"claude-opus-5-5":{"inputTokens":12,"outputTokens":7,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0.000188,"contextWindow":1000000,"maxOutputTokens":128000,"thinkingTokens":0,"canonicalModel":"claude-opus-5-5","provider":"firstParty"}}}"#;
/// let Message::Result(result) = Message::parse(line).unwrap() else { panic!("not a result") };
/// for (model, usage) in &result.model_usage {
///     println!("{model}: {} in, {} out, ${:.6}", usage.input_tokens, usage.output_tokens, usage.cost_usd);
/// }
/// let opus = &result.model_usage["claude-opus-5-5"];
/// assert_eq!((opus.context_window, opus.provider.as_deref()), (Some(1_000_000), Some("firstParty")));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelUsage {
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Input tokens written to the cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Web searches made.
    #[serde(default)]
    pub web_search_requests: u64,
    /// Cost in US dollars.
    #[serde(default, rename = "costUSD")]
    pub cost_usd: f64,
    /// The model's context window, in tokens.
    #[serde(default)]
    pub context_window: Option<u64>,
    /// The model's output limit, in tokens.
    #[serde(default)]
    pub max_output_tokens: Option<u64>,
    /// Thinking tokens.
    #[serde(default)]
    pub thinking_tokens: Option<u64>,
    /// The canonical model name.
    #[serde(default)]
    pub canonical_model: Option<String>,
    /// The API provider (`firstParty`, `bedrock`, …).
    #[serde(default)]
    pub provider: Option<String>,
}
