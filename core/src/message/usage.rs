//! Token usage as the Messages API reports it, and the CLI's per-model totals.

use serde::Deserialize;
use serde_json::value::RawValue;

/// Token usage of one model call or turn (`usage` of assistant and result messages).
#[derive(Debug, Clone, Default, Deserialize)]
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
    pub server_tool_use: Option<Box<RawValue>>,
    /// Cache writes by lifetime (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`), as raw JSON.
    #[serde(default)]
    pub cache_creation: Option<Box<RawValue>>,
}

/// Cumulative usage of one model in a query (`modelUsage` of a result).
#[derive(Debug, Clone, Default, Deserialize)]
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
