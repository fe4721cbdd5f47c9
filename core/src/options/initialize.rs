//! What the session needs up front: [`Options::session_config`] builds the `initialize` fields
//! (TypeScript `buildInitializeRequest` names, PROTOCOL-REFERENCE §3.4), the hook and in-process
//! MCP declarations, timeouts and limits.

use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;

use super::agent::AgentDefinition;
use super::error::OptionsError;
use super::ordered_map::{to_json, OrderedMap};
use super::types::{OutputFormat, Skills, SystemPrompt};
use super::Options;
use crate::session::{HookMatcherConfig, InputMode, SessionConfig};

/// Variable holding the run-end ceiling in milliseconds (PROTOCOL-REFERENCE §4.3).
const CEILING_VAR: &str = "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS";
/// The ceiling when the variable is unset or not a number.
const DEFAULT_CEILING_MS: u64 = 600_000;
/// Largest ceiling honoured (a JavaScript timer's limit, as the CLI uses).
const MAX_CEILING_MS: u64 = (1 << 31) - 1;

/// The `initialize` fields other than `subtype` and `hooks`, in `buildInitializeRequest` order.
/// Unset fields are left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeFields<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    sdk_mcp_servers: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    json_schema: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_prompt: Option<[&'a str; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    append_system_prompt: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exclude_dynamic_sections: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agents: Option<OrderedMap<'a, AgentDefinition>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skills: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_suggestions: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    forward_subagent_text: Option<bool>,
}

impl Options {
    /// What the session needs up front: the `initialize` fields (only keys that are set; with no
    /// system prompt option, `systemPrompt: [""]`), the declared hooks (in `hook_N` id order, see
    /// [`Options::declare_hook`]), in-process MCP servers, whether the host answers `can_use_tool`
    /// and `elicitation`, timeouts and limits.
    ///
    /// The run-end ceiling comes from `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` in [`Options::env`],
    /// else in this process's environment: milliseconds, 0 for none, at most 2³¹−1, default 600 s.
    ///
    /// ```
    /// # use claude_agent_core::{options::Options, session::InputMode};
    /// let config = Options::new().title("Nightly triage").session_config(InputMode::Streaming)?;
    /// let fields = config.initialize_fields.expect("a title and the default system prompt are set");
    /// assert_eq!(fields.get(), r#"{"systemPrompt":[""],"title":"Nightly triage"}"#);
    /// # Ok::<(), claude_agent_core::options::OptionsError>(())
    /// ```
    pub fn session_config(&self, input: InputMode) -> Result<SessionConfig, OptionsError> {
        self.validate()?;
        let mut config = SessionConfig::new(input);
        config.initialize_fields = self.initialize_fields();
        config.hooks = hook_matcher_order(&self.hooks).into_iter().map(|i| self.hooks[i].clone()).collect();
        config.mcp_servers = self.sdk_mcp_servers.clone();
        config.can_use_tool = self.can_use_tool;
        config.elicitation = self.elicitation;
        if let Some(timeout) = self.initialize_timeout {
            config.timeouts.initialize = timeout;
        }
        if let Some(timeout) = self.control_timeout {
            config.timeouts.control_request = timeout;
        }
        let ceiling = match self.env.0.iter().find(|(name, _)| name == CEILING_VAR) {
            Some((_, value)) => Some(value.clone()),
            None => std::env::var(CEILING_VAR).ok(),
        };
        config.timeouts.run_end_ceiling = run_end_ceiling(ceiling.as_deref());
        if let Some(bytes) = self.max_buffer_size {
            config.limits.max_line_bytes = bytes;
        }
        Ok(config)
    }

    fn initialize_fields(&self) -> Option<Box<RawValue>> {
        let (system_prompt, append, exclude_dynamic_sections) = match &self.system_prompt {
            None => (Some([""]), None, None),
            Some(SystemPrompt::Text(text)) => (Some([text.as_str()]), None, None),
            Some(SystemPrompt::Preset { append, exclude_dynamic_sections }) => {
                (None, append.as_deref(), *exclude_dynamic_sections)
            }
            Some(SystemPrompt::File(_)) => (None, None, None),
        };
        let fields = InitializeFields {
            sdk_mcp_servers: (!self.sdk_mcp_servers.is_empty())
                .then(|| self.sdk_mcp_servers.iter().map(|server| server.name.as_str()).collect()),
            json_schema: self.output_format.as_ref().map(|OutputFormat::JsonSchema(schema)| schema),
            system_prompt,
            append_system_prompt: append,
            exclude_dynamic_sections,
            agents: (!self.agents.is_empty()).then(|| OrderedMap(&self.agents)),
            title: self.title.as_deref(),
            skills: match &self.skills {
                Some(Skills::List(names)) => Some(names),
                _ => None,
            },
            prompt_suggestions: self.prompt_suggestions,
            forward_subagent_text: self.forward_subagent_text.then_some(true),
        };
        let json = to_json(&fields);
        (json != "{}").then(|| RawValue::from_string(json).expect("serde_json output is valid JSON"))
    }
}

/// For each hook matcher in `hook_N` id order, the index of its declaration: grouped by event
/// (events in order of first declaration), matchers of one event in declaration order.
pub(crate) fn hook_matcher_order(hooks: &[HookMatcherConfig]) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::with_capacity(hooks.len());
    for (index, hook) in hooks.iter().enumerate() {
        if order.iter().any(|&i| hooks[i].event == hook.event) {
            continue;
        }
        order.extend((index..hooks.len()).filter(|&i| hooks[i].event == hook.event));
    }
    order
}

/// The run-end ceiling for a `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` value: milliseconds, `0`
/// for none, capped at 2³¹−1 ms; unset or not a whole number gives the 600 s default.
pub(crate) fn run_end_ceiling(value: Option<&str>) -> Option<Duration> {
    let ms = value.and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(DEFAULT_CEILING_MS);
    (ms != 0).then(|| Duration::from_millis(ms.min(MAX_CEILING_MS)))
}
