//! What the session needs up front: [`AgentConfig::session_config`] builds the `initialize` fields
//! (with the names and in the order the TypeScript SDK sends them), the hook and in-process MCP
//! declarations, timeouts and limits.

use std::ffi::OsString;
use std::time::Duration;

use serde::Serialize;

use super::error::OptionsError;
use super::settings::inline_settings;
use super::{AgentConfig, HostDeclarations};
use crate::option_types::agent::AgentDefinition;
use crate::option_types::mcp_config::McpServerConfig;
use crate::option_types::ordered_map::{to_json, OrderedMap};
use crate::option_types::types::{OutputFormat, Skills, SystemPrompt};
use crate::session::{InputMode, SessionConfig, SettingsDelivered, SKIP_VERSION_CHECK_ENV};
use crate::Json;

/// Variable holding the run-end ceiling in milliseconds: how long, after a result, the session
/// waits for a busy CLI to go idle before it closes stdin anyway.
const CEILING_VAR: &str = "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS";
/// How long the official Python SDK waits for `initialize`, in milliseconds (at least 60 s).
const STREAM_CLOSE_TIMEOUT_VAR: &str = "CLAUDE_CODE_STREAM_CLOSE_TIMEOUT";
/// The ceiling when the variable is unset or not a number.
const DEFAULT_CEILING_MS: u64 = 600_000;
/// Largest ceiling honoured (a JavaScript timer's limit, as the CLI uses).
const MAX_CEILING_MS: u64 = (1 << 31) - 1;

/// The `initialize` fields other than `subtype` and `hooks`, in the TypeScript SDK's order.
/// Unset fields are left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeFields<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    sdk_mcp_servers: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    json_schema: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_prompt: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    append_system_prompt: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan_mode_instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_prompt_snapshot: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_aliases: Option<OrderedMap<'a, String>>,
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
    agent_progress_summaries: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    forward_subagent_text: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    supported_dialog_kinds: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_task_stop_affordance: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plugins: Option<Vec<PluginEntry<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mcp_servers: Option<OrderedMap<'a, McpServerConfig>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    managed_settings: Option<&'a serde_json::Value>,
}

/// One plugin as `initialize` lists it: the same `{"type","path"}` the TypeScript SDK's
/// `plugins` option takes.
#[derive(Serialize)]
struct PluginEntry<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    path: &'a str,
}

/// The empty system prompt sent when none is set.
const EMPTY_PROMPT: &[String] = &[String::new()];

impl AgentConfig {
    /// What the session needs up front: the `initialize` fields (only keys that are set; with no
    /// system prompt option, `systemPrompt: [""]`; external MCP servers and plugins unless their
    /// [`Delivery`](super::Delivery) is `Argv`), timeouts and limits; and from `host`, the hooks
    /// (in `hook_N` id order, see [`HostDeclarations::hooks`]), the in-process MCP servers, and
    /// whether the host answers `can_use_tool`, `elicitation` and `request_user_dialog`.
    ///
    /// The run-end ceiling comes from `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` in [`AgentConfig::env`],
    /// else in this process's environment: milliseconds, 0 for none, at most 2³¹−1, default 600 s.
    /// The CLI's version is checked unless `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` is set (not
    /// empty) in this process's environment.
    ///
    /// ```
    /// # use claude_agent_tokio::options::HostDeclarations;
    /// # use claude_agent_tokio::{options::AgentConfig, session::InputMode};
    /// let mut config = AgentConfig::default();
    /// config.title = Some("Nightly triage".into());
    /// let session = config.session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// let fields = session.initialize_fields.expect("a title and the default system prompt are set");
    /// assert_eq!(fields.as_str(), r#"{"systemPrompt":[""],"title":"Nightly triage"}"#);
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn session_config(
        &self,
        input: InputMode,
        host: &HostDeclarations,
    ) -> Result<SessionConfig, OptionsError> {
        self.validate(host)?;
        let mut config = SessionConfig::new(input);
        config.initialize_fields = self.initialize_fields(host);
        config.hooks = host
            .hook_matcher_order()
            .into_iter()
            .map(|i| host.hooks[i].clone())
            .collect();
        config.mcp_servers = host.sdk_mcp_servers.clone();
        config.delivers_mcp_servers = self.mcp_servers_in_initialize();
        config.delivers_settings = SettingsDelivered {
            settings: self.settings_in_initialize(),
            managed_settings: self.managed_settings_in_initialize(),
        };
        config.can_use_tool = host.can_use_tool;
        config.elicitation = host.elicitation;
        config.user_dialog = host.user_dialog_kinds.is_some();
        config.await_claim = self
            .extra_args
            .iter()
            .any(|(flag, _)| flag == super::AWAIT_CLAIM);
        if let Some(timeout) = self.initialize_timeout {
            config.timeouts.initialize = timeout;
        }
        if let Some(timeout) = self.control_timeout {
            config.timeouts.control_request = timeout;
        }
        config.verbatim_prompts = self.verbatim_prompts;
        config.stall = self.stall_watch.clone();
        config.prices = self.prices.clone();
        config.budget = self.budget;
        config.cost_carried_over = matches!(
            self.session_start,
            super::SessionStart::Resume(_) | super::SessionStart::Continue { .. }
        );
        config.timeouts.run_end_ceiling = run_end_ceiling(self.ceiling_var());
        if let Some(bytes) = self.max_buffer_size {
            config.limits.max_line_bytes = bytes;
        }
        Ok(config)
    }

    /// Apply what the process environment says to a session's configuration, which
    /// [`AgentConfig::session_config`] leaves alone (the core reads no environment variable):
    /// [`SKIP_VERSION_CHECK_ENV`] set to anything but the empty string turns the version check
    /// off, and the CLI's own `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` (how long, after a result,
    /// it waits for background work), unless [`AgentConfig::env`] sets it for the CLI, is the
    /// session's run-end ceiling. `CLAUDE_CODE_STREAM_CLOSE_TIMEOUT` (milliseconds), as the
    /// official Python SDK reads it, lengthens the wait for `initialize` (never below 60 s)
    /// unless [`AgentConfig::initialize_timeout`] is set; a value that is not a whole number of
    /// milliseconds is ignored. `lookup` reads one variable: the client layer passes
    /// [`std::env::var_os`]; a test passes what it likes.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::options::{HostDeclarations, AgentConfig};
    /// use claude_agent_tokio::session::{InputMode, SKIP_VERSION_CHECK_ENV};
    ///
    /// let config = AgentConfig::default();
    /// let mut session = config.session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// config.apply_environment(&mut session, |name| match name {
    ///     SKIP_VERSION_CHECK_ENV => Some("1".into()),
    ///     "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS" => Some("2500".into()),
    ///     _ => None,
    /// });
    /// assert!(!session.check_cli_version);
    /// assert_eq!(session.timeouts.run_end_ceiling, Some(Duration::from_millis(2500)));
    ///
    /// // A host of its own reads the real environment the same way.
    /// config.apply_environment(&mut session, |name| std::env::var_os(name));
    /// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
    /// ```
    pub fn apply_environment(
        &self,
        config: &mut SessionConfig,
        lookup: impl Fn(&str) -> Option<OsString>,
    ) {
        if !version_check_wanted(lookup(SKIP_VERSION_CHECK_ENV)) {
            config.check_cli_version = false;
        }
        if self.ceiling_var().is_none() {
            if let Some(value) = lookup(CEILING_VAR) {
                config.timeouts.run_end_ceiling = run_end_ceiling(value.to_str());
            }
        }
        if self.initialize_timeout.is_none() {
            if let Some(timeout) = lookup(STREAM_CLOSE_TIMEOUT_VAR)
                .as_deref()
                .and_then(|value| stream_close_timeout(value.to_str()))
            {
                config.timeouts.initialize = timeout;
            }
        }
    }

    /// The run-end ceiling variable as [`AgentConfig::env`] sets it for the CLI.
    fn ceiling_var(&self) -> Option<&str> {
        self.env
            .iter()
            .find(|(name, _)| name == CEILING_VAR)
            .map(|(_, value)| value.as_str())
    }

    fn initialize_fields(&self, host: &HostDeclarations) -> Option<Json> {
        let (system_prompt, append, exclude_dynamic_sections, snapshot) = match &self.system_prompt
        {
            None => (Some(EMPTY_PROMPT), None, None, None),
            Some(SystemPrompt::Custom { blocks, snapshot }) => {
                (Some(blocks.as_slice()), None, None, *snapshot)
            }
            Some(SystemPrompt::Preset {
                append,
                exclude_dynamic_sections,
                snapshot,
            }) => (
                None,
                append.as_deref(),
                *exclude_dynamic_sections,
                *snapshot,
            ),
            Some(SystemPrompt::File(_)) => (None, None, None, None),
        };
        let json_schema = self.output_format.as_ref().map(OutputFormat::schema_sent);
        let fields = InitializeFields {
            sdk_mcp_servers: (!host.sdk_mcp_servers.is_empty()).then(|| {
                host.sdk_mcp_servers
                    .iter()
                    .map(|server| server.name.as_str())
                    .collect()
            }),
            json_schema: json_schema.as_deref(),
            system_prompt,
            append_system_prompt: append,
            plan_mode_instructions: self.plan_mode_instructions.as_deref(),
            system_prompt_snapshot: snapshot,
            tool_aliases: (!self.tool_aliases.is_empty()).then(|| OrderedMap(&self.tool_aliases)),
            exclude_dynamic_sections,
            agents: (!self.agents.is_empty()).then(|| OrderedMap(&self.agents)),
            title: self.title.as_deref(),
            skills: match &self.skills {
                Some(Skills::List(names)) => Some(names),
                _ => None,
            },
            prompt_suggestions: self.prompt_suggestions,
            agent_progress_summaries: self.agent_progress_summaries,
            forward_subagent_text: self.forward_subagent_text.then_some(true),
            supported_dialog_kinds: host.user_dialog_kinds.as_deref(),
            per_task_stop_affordance: self.per_task_stop_affordance,
            plugins: self.plugins_in_initialize().then(|| {
                self.plugins
                    .iter()
                    .map(|plugin| PluginEntry {
                        kind: &plugin.kind,
                        // `validate` refused paths that are not UTF-8.
                        path: plugin.path.to_str().unwrap_or_default(),
                    })
                    .collect()
            }),
            mcp_servers: self
                .mcp_servers_in_initialize()
                .then(|| OrderedMap(&self.mcp_servers)),
            // `validate` refused inline settings that are not an object.
            settings: self
                .settings_in_initialize()
                .then(|| inline_settings(self.settings.as_ref(), self.sandbox.as_ref()).ok())
                .flatten()
                .flatten(),
            managed_settings: self
                .managed_settings_in_initialize()
                .then_some(self.managed_settings.as_ref())
                .flatten(),
        };
        let json = with_extra_fields(to_json(&fields), &self.extra_initialize_fields);
        (json != "{}").then(|| Json::try_from(json).expect("serde_json output is valid JSON"))
    }
}

/// `object` (a JSON object's text) with each of `extra` set in it: a field it already has takes
/// the new value where it stands, any other is added at the end.
fn with_extra_fields(object: String, extra: &[(String, serde_json::Value)]) -> String {
    if extra.is_empty() {
        return object;
    }
    let mut fields: Vec<(String, Json)> = serde_json::from_str::<OrderedFields>(&object)
        .expect("serde_json output is a JSON object")
        .0;
    for (name, value) in extra {
        let value = Json::from_serialize(value).expect("a JSON value always serializes");
        match fields.iter_mut().find(|(field, _)| field == name) {
            Some(field) => field.1 = value,
            None => fields.push((name.clone(), value)),
        }
    }
    to_json(&OrderedMap(&fields))
}

/// A JSON object's fields in the order they were written.
struct OrderedFields(Vec<(String, Json)>);

impl<'de> serde::Deserialize<'de> for OrderedFields {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;

        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = OrderedFields;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OrderedFields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(OrderedFields(fields))
            }
        }

        deserializer.deserialize_map(Fields)
    }
}

/// How long `initialize` may take for a `CLAUDE_CODE_STREAM_CLOSE_TIMEOUT` value: its
/// milliseconds, but never less than the default 60 s; `None` for a value that is not a whole
/// number.
fn stream_close_timeout(value: Option<&str>) -> Option<Duration> {
    let millis: u64 = value?.trim().parse().ok()?;
    Some(Duration::from_millis(millis).max(Duration::from_secs(60)))
}

/// The run-end ceiling for a `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` value: milliseconds, `0`
/// for none, capped at 2³¹−1 ms; unset or not a whole number gives the 600 s default.
pub(crate) fn run_end_ceiling(value: Option<&str>) -> Option<Duration> {
    let ms = value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_CEILING_MS);
    (ms != 0).then(|| Duration::from_millis(ms.min(MAX_CEILING_MS)))
}

/// Whether sessions check the CLI's version, for a `SKIP_VERSION_CHECK_ENV` value: unless it is
/// set to anything but the empty string.
fn version_check_wanted(value: Option<OsString>) -> bool {
    value.is_none_or(|value| value.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{AgentDefinition, Delivery, OptionsError, Skills};
    use super::*;
    use crate::hooks::HookEvent;
    use crate::mcp::McpServerSpec;
    use crate::session::HookMatcherConfig;

    fn sdk_server(name: &str) -> McpServerSpec {
        McpServerSpec::new(name, "1.0.0")
    }

    fn config(options: &AgentConfig) -> SessionConfig {
        config_with(options, &HostDeclarations::default())
    }

    fn config_with(options: &AgentConfig, host: &HostDeclarations) -> SessionConfig {
        options
            .session_config(InputMode::Streaming, host)
            .expect("test options are valid")
    }

    fn fields(options: AgentConfig) -> Option<String> {
        fields_with(options, &HostDeclarations::default())
    }

    fn fields_with(options: AgentConfig, host: &HostDeclarations) -> Option<String> {
        config_with(&options, host)
            .initialize_fields
            .map(|raw| raw.as_str().to_owned())
    }

    #[test]
    fn default_sends_an_empty_system_prompt() {
        assert_eq!(
            fields(AgentConfig::default()).as_deref(),
            Some(r#"{"systemPrompt":[""]}"#)
        );
    }

    /// Managed settings reach the CLI as given, keys newer than this SDK included (CLI 2.1.331
    /// reads `downloadsMirrorUrl` from its policy tier).
    #[test]
    fn managed_settings_travel_whole() {
        let policy = serde_json::json!({
            "downloadsMirrorUrl": "https://claude.fedstart.com/claude-downloads",
            "permissions": {"deny": ["WebFetch"]},
        });
        let sent = fields(AgentConfig {
            managed_settings: Some(policy.clone()),
            ..AgentConfig::default()
        })
        .unwrap();
        let sent: serde_json::Value = serde_json::from_str(&sent).unwrap();
        assert_eq!(sent["managedSettings"], policy);
    }

    #[test]
    fn system_prompt_variants() {
        let prompt = |prompt: SystemPrompt| AgentConfig {
            system_prompt: Some(prompt),
            ..AgentConfig::default()
        };
        assert_eq!(
            fields(prompt("Be terse.".into())).as_deref(),
            Some(r#"{"systemPrompt":["Be terse."]}"#)
        );
        assert_eq!(
            fields(prompt(SystemPrompt::preset_with_append("Also: French."))).as_deref(),
            Some(r#"{"appendSystemPrompt":"Also: French."}"#)
        );
        let exclude = SystemPrompt::Preset {
            append: None,
            exclude_dynamic_sections: Some(true),
            snapshot: None,
        };
        assert_eq!(
            fields(prompt(exclude)).as_deref(),
            Some(r#"{"excludeDynamicSections":true}"#)
        );
        assert_eq!(fields(prompt(SystemPrompt::preset())), None);
        assert_eq!(fields(prompt(SystemPrompt::File("/p".into()))), None);
    }

    /// The `initialize` requests the TypeScript SDK 0.3.330 writes for the same options
    /// (captured from its stdin), without their `subtype`.
    #[test]
    fn newer_initialize_fields_are_written_as_the_typescript_sdk_writes_them() {
        let options = AgentConfig {
            system_prompt: Some(
                SystemPrompt::blocks(["static", SystemPrompt::DYNAMIC_BOUNDARY, "dynamic"])
                    .with_snapshot(false),
            ),
            plan_mode_instructions: Some("Plan carefully.".into()),
            tool_aliases: vec![("Bash".into(), "mcp__ws__bash".into())],
            agent_progress_summaries: Some(true),
            per_task_stop_affordance: Some(true),
            ..AgentConfig::default()
        };
        let host = HostDeclarations::default()
            .with(|host| host.user_dialog_kinds = Some(vec!["refusal_fallback_prompt".into()]));
        assert_eq!(
            fields_with(options, &host).as_deref(),
            Some(concat!(
                r#"{"systemPrompt":["static","__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__","dynamic"],"#,
                r#""planModeInstructions":"Plan carefully.","systemPromptSnapshot":false,"#,
                r#""toolAliases":{"Bash":"mcp__ws__bash"},"agentProgressSummaries":true,"#,
                r#""supportedDialogKinds":["refusal_fallback_prompt"],"perTaskStopAffordance":true}"#
            ))
        );
        let preset = AgentConfig {
            system_prompt: Some(
                SystemPrompt::preset_with_append("Always explain your reasoning.")
                    .with_snapshot(true),
            ),
            ..AgentConfig::default()
        };
        assert_eq!(
            fields(preset).as_deref(),
            Some(
                r#"{"appendSystemPrompt":"Always explain your reasoning.","systemPromptSnapshot":true}"#
            )
        );
        let file = AgentConfig {
            system_prompt: Some(SystemPrompt::File("/p".into()).with_snapshot(true)),
            ..AgentConfig::default()
        };
        assert_eq!(fields(file), None);
    }

    #[test]
    fn extra_fields_replace_in_place_or_follow_in_call_order() {
        let options = AgentConfig {
            title: Some("from options".into()),
            extra_initialize_fields: vec![
                ("rapidFollowupPreempt".into(), json!(true)),
                ("title".into(), json!("from the escape hatch")),
                (
                    "workspaceTrust".into(),
                    json!({"accepted": true, "directory": "/w"}),
                ),
                ("rapidFollowupPreempt".into(), json!(false)),
            ],
            ..AgentConfig::default()
        };
        assert_eq!(
            fields(options).as_deref(),
            Some(concat!(
                r#"{"systemPrompt":[""],"title":"from the escape hatch","rapidFollowupPreempt":false,"#,
                r#""workspaceTrust":{"accepted":true,"directory":"/w"}}"#
            ))
        );
        let preset_only = AgentConfig {
            system_prompt: Some(SystemPrompt::preset()),
            extra_initialize_fields: vec![("keepsBypassHeld".into(), json!(true))],
            ..AgentConfig::default()
        };
        assert_eq!(
            fields(preset_only).as_deref(),
            Some(r#"{"keepsBypassHeld":true}"#)
        );
        for reserved in ["subtype", "hooks"] {
            let options = AgentConfig {
                extra_initialize_fields: vec![(reserved.into(), json!(null))],
                ..AgentConfig::default()
            };
            assert_eq!(
                options
                    .session_config(InputMode::Streaming, &HostDeclarations::default())
                    .map(|_| ()),
                Err(OptionsError::ReservedInitializeField {
                    name: reserved.into()
                })
            );
        }
    }

    #[test]
    fn a_dialog_callback_makes_the_cli_a_caller_back() {
        let host = HostDeclarations::default().with(|host| host.user_dialog_kinds = Some(vec![]));
        let config = config_with(&AgentConfig::default(), &host);
        assert!(config.user_dialog && config.has_bidirectional_needs());
        assert_eq!(
            config
                .initialize_fields
                .map(|raw| raw.as_str().to_owned())
                .as_deref(),
            Some(r#"{"systemPrompt":[""],"supportedDialogKinds":[]}"#)
        );
        assert!(!self::config(&AgentConfig::default()).user_dialog);
    }

    #[test]
    fn agents_keep_their_order() {
        let options = AgentConfig {
            system_prompt: Some(SystemPrompt::preset()),
            agents: vec![
                ("zed".into(), AgentDefinition::new("z", "pz").model("haiku")),
                ("abe".into(), AgentDefinition::new("a", "pa")),
            ],
            ..AgentConfig::default()
        };
        assert_eq!(
            fields(options).as_deref(),
            Some(
                r#"{"agents":{"zed":{"description":"z","prompt":"pz","model":"haiku"},"abe":{"description":"a","prompt":"pa"}}}"#
            )
        );
    }

    #[test]
    fn sdk_servers_are_announced_by_name() {
        let host = HostDeclarations::default()
            .with(|host| host.sdk_mcp_servers = vec![sdk_server("calc"), sdk_server("db")]);
        let config = config_with(&AgentConfig::default(), &host);
        assert_eq!(
            config.initialize_fields.as_ref().map(|raw| raw.as_str()),
            Some(r#"{"sdkMcpServers":["calc","db"],"systemPrompt":[""]}"#)
        );
        let names: Vec<&str> = config.mcp_servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["calc", "db"]);
        assert!(config.has_bidirectional_needs());
    }

    #[test]
    fn every_initialize_key_in_order() {
        let options = AgentConfig {
            forward_subagent_text: true,
            prompt_suggestions: Some(false),
            skills: Some(Skills::list(["pdf", "xlsx"])),
            title: Some("T".into()),
            agents: vec![("a".into(), AgentDefinition::new("d", "p"))],
            system_prompt: Some(SystemPrompt::Preset {
                append: Some("A".into()),
                exclude_dynamic_sections: Some(false),
                snapshot: None,
            }),
            output_format: Some(OutputFormat::JsonSchema(json!({"type": "object"}))),
            mcp_servers: vec![(
                "fs".into(),
                crate::options::McpServerConfig::stdio("srv", ["/w"]),
            )],
            plugins: vec![crate::options::PluginConfig::local("/p")],
            ..AgentConfig::default()
        };
        let host = HostDeclarations::default()
            .with(|host| host.sdk_mcp_servers = vec![sdk_server("calc")]);
        assert_eq!(
            fields_with(options, &host).as_deref(),
            Some(concat!(
                r#"{"sdkMcpServers":["calc"],"jsonSchema":{"type":"object"},"appendSystemPrompt":"A","#,
                r#""excludeDynamicSections":false,"agents":{"a":{"description":"d","prompt":"p"}},"title":"T","#,
                r#""skills":["pdf","xlsx"],"promptSuggestions":false,"forwardSubagentText":true,"#,
                r#""plugins":[{"type":"local","path":"/p"}],"mcpServers":{"fs":{"type":"stdio","command":"srv","args":["/w"]}}}"#
            ))
        );
        assert_eq!(
            fields(AgentConfig {
                skills: Some(Skills::All),
                forward_subagent_text: false,
                ..AgentConfig::default()
            })
            .as_deref(),
            Some(r#"{"systemPrompt":[""]}"#)
        );
    }

    /// The `request` of the first stdin line, as the session writes it for `options`.
    fn initialize_request(options: &AgentConfig, host: &HostDeclarations) -> String {
        let config = config_with(options, host);
        let mut session = crate::session::Session::new(config, std::time::Instant::now());
        let Some(crate::session::Transmit::Write(line)) = session.poll_transmit() else {
            panic!("initialize is written first")
        };
        let line = String::from_utf8(line).expect("UTF-8");
        line.strip_prefix(r#"{"type":"control_request","request_id":"req_0","request":"#)
            .and_then(|rest| rest.strip_suffix("}\n"))
            .expect("a control request envelope")
            .to_owned()
    }

    /// The `request` of the `initialize` the TypeScript SDK 0.3.330 wrote for the same options
    /// (`mcpServersDelivery` and `pluginDelivery` `'initialize'`, one Bash hook with `timeout: 5`
    /// and `onFailure: 'block'`), byte for byte.
    #[test]
    fn servers_plugins_and_a_fail_closed_hook_as_the_typescript_sdk_writes_them() {
        use crate::hooks::HookFailurePolicy;
        use crate::options::{McpRemoteServer, McpServerConfig, McpStdioServer, PluginConfig};

        let mut guard = HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 1);
        guard.timeout_secs = Some(5.0);
        guard.on_failure = Some(HookFailurePolicy::Block);
        let options = AgentConfig {
            mcp_servers: vec![
                (
                    "ext".into(),
                    McpServerConfig::Stdio(
                        McpStdioServer::new("/bin/mcp")
                            .args(["-v"])
                            .env("TOKEN", "s3cret"),
                    ),
                ),
                (
                    "web".into(),
                    McpServerConfig::Http(
                        McpRemoteServer::new("https://x/mcp")
                            .header("Authorization", "Bearer s3cret"),
                    ),
                ),
            ],
            plugins: vec![PluginConfig::local("/opt/p")],
            ..AgentConfig::default()
        };
        let host = HostDeclarations::default().with(|host| host.hooks.push(guard));
        assert_eq!(
            initialize_request(&options, &host),
            concat!(
                r#"{"subtype":"initialize","hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"],"timeout":5,"onFailure":"block"}]},"#,
                r#""systemPrompt":[""],"plugins":[{"type":"local","path":"/opt/p"}],"#,
                r#""mcpServers":{"ext":{"type":"stdio","command":"/bin/mcp","args":["-v"],"env":{"TOKEN":"s3cret"}},"#,
                r#""web":{"type":"http","url":"https://x/mcp","headers":{"Authorization":"Bearer s3cret"}}}}"#
            )
        );
        assert!(config(&options).delivers_mcp_servers);

        // On the command line instead, `initialize` carries neither.
        let argv = AgentConfig {
            mcp_servers_delivery: Delivery::Argv,
            plugin_delivery: Delivery::Argv,
            ..options
        };
        assert_eq!(
            initialize_request(&argv, &host),
            concat!(
                r#"{"subtype":"initialize","hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"],"timeout":5,"onFailure":"block"}]},"#,
                r#""systemPrompt":[""]}"#
            )
        );
        assert!(!config(&argv).delivers_mcp_servers);
    }

    #[test]
    fn hooks_are_grouped_event_then_matcher() {
        let stop = HookEvent::Stop;
        let host = HostDeclarations::default().with(|host| {
            host.hooks = vec![
                HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 2),
                HookMatcherConfig::new(stop.clone(), None, 1),
                HookMatcherConfig::new(HookEvent::PreToolUse, Some("Write".into()), 1),
                HookMatcherConfig::new(stop, Some("x".into()), 1),
            ]
        });
        assert_eq!(host.hook_matcher_order(), [0, 2, 1, 3]);
        let config = config_with(&AgentConfig::default(), &host);
        // Ids in SessionConfig::hooks order: hook_0..hook_1 Bash, hook_2 Write, hook_3 Stop, hook_4 Stop/x.
        let mut next = 0;
        let ids: Vec<(String, Option<String>, Vec<String>)> = config
            .hooks
            .iter()
            .map(|hook| {
                let ids = (next..next + hook.callbacks)
                    .map(|n| format!("hook_{n}"))
                    .collect();
                next += hook.callbacks;
                (hook.event.as_str().to_owned(), hook.matcher.clone(), ids)
            })
            .collect();
        assert_eq!(
            ids,
            [
                (
                    "PreToolUse".to_string(),
                    Some("Bash".to_string()),
                    vec!["hook_0".to_string(), "hook_1".to_string()]
                ),
                (
                    "PreToolUse".to_string(),
                    Some("Write".to_string()),
                    vec!["hook_2".to_string()]
                ),
                ("Stop".to_string(), None, vec!["hook_3".to_string()]),
                (
                    "Stop".to_string(),
                    Some("x".to_string()),
                    vec!["hook_4".to_string()]
                ),
            ]
        );
        assert_eq!(host.hooks[1].event.as_str(), "Stop");
    }

    #[test]
    fn callbacks_timeouts_and_limits() {
        let options = AgentConfig {
            control_timeout: Some(Duration::from_secs(5)),
            initialize_timeout: Some(Duration::from_secs(90)),
            max_buffer_size: Some(4096),
            env: vec![(CEILING_VAR.into(), "2500".into())],
            ..AgentConfig::default()
        };
        let host = HostDeclarations::default().with(|host| {
            host.can_use_tool = true;
            host.elicitation = true;
        });
        let config = config_with(&options, &host);
        assert!(config.can_use_tool && config.elicitation);
        assert_eq!(config.input, InputMode::Streaming);
        assert_eq!(config.timeouts.control_request, Duration::from_secs(5));
        assert_eq!(config.timeouts.initialize, Duration::from_secs(90));
        assert_eq!(
            config.timeouts.run_end_ceiling,
            Some(Duration::from_millis(2500))
        );
        assert_eq!(config.limits.max_line_bytes, 4096);
        let none = AgentConfig {
            env: vec![(CEILING_VAR.into(), "0".into())],
            ..AgentConfig::default()
        }
        .session_config(InputMode::SingleTurn, &HostDeclarations::default());
        assert_eq!(none.map(|c| c.timeouts.run_end_ceiling), Ok(None));
        let plain = AgentConfig::default()
            .session_config(InputMode::SingleTurn, &HostDeclarations::default())
            .expect("valid");
        assert!(!plain.can_use_tool && !plain.elicitation && plain.hooks.is_empty());
        assert_eq!(
            plain.limits.max_line_bytes,
            SessionConfig::new(InputMode::SingleTurn)
                .limits
                .max_line_bytes
        );
    }

    #[test]
    fn the_environment_is_applied_from_the_lookup_given_and_options_env_wins() {
        let options = AgentConfig::default();
        let mut config = config_with(&options, &HostDeclarations::NONE);
        assert!(config.check_cli_version);
        assert_eq!(
            config.timeouts.run_end_ceiling,
            Some(Duration::from_secs(600)),
            "nothing read: the default"
        );
        let environment = |name: &str| match name {
            SKIP_VERSION_CHECK_ENV => Some(OsString::new()),
            CEILING_VAR => Some("2500".into()),
            _ => None,
        };
        options.apply_environment(&mut config, environment);
        assert!(config.check_cli_version, "set but empty: still checked");
        assert_eq!(
            config.timeouts.run_end_ceiling,
            Some(Duration::from_millis(2500))
        );

        // What the options give the CLI is what it runs with.
        let options = AgentConfig {
            env: vec![(CEILING_VAR.into(), "0".into())],
            ..AgentConfig::default()
        };
        let mut config = config_with(&options, &HostDeclarations::NONE);
        options.apply_environment(&mut config, environment);
        assert_eq!(config.timeouts.run_end_ceiling, None);
    }

    #[test]
    fn the_stream_close_timeout_lengthens_the_wait_for_initialize() {
        let initialize_after = |options: &AgentConfig, value: &str| {
            let mut config = config_with(options, &HostDeclarations::NONE);
            options.apply_environment(&mut config, |name| {
                (name == STREAM_CLOSE_TIMEOUT_VAR).then(|| value.into())
            });
            config.timeouts.initialize
        };
        let plain = AgentConfig::default();
        assert_eq!(initialize_after(&plain, "120000"), Duration::from_secs(120));
        assert_eq!(initialize_after(&plain, "30000"), Duration::from_secs(60));
        assert_eq!(initialize_after(&plain, "soon"), Duration::from_secs(60));
        let chosen = AgentConfig {
            initialize_timeout: Some(Duration::from_secs(90)),
            ..AgentConfig::default()
        };
        assert_eq!(initialize_after(&chosen, "120000"), Duration::from_secs(90));
    }

    #[test]
    fn verbatim_prompts_reach_the_session() {
        let options = AgentConfig {
            verbatim_prompts: true,
            ..AgentConfig::default()
        };
        assert!(config_with(&options, &HostDeclarations::NONE).verbatim_prompts);
    }

    #[test]
    fn run_end_ceiling_rules() {
        assert_eq!(run_end_ceiling(None), Some(Duration::from_secs(600)));
        assert_eq!(run_end_ceiling(Some("0")), None);
        assert_eq!(
            run_end_ceiling(Some(" 1500 ")),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            run_end_ceiling(Some("99999999999")),
            Some(Duration::from_millis(2_147_483_647))
        );
        assert_eq!(
            run_end_ceiling(Some("soon")),
            Some(Duration::from_secs(600))
        );
        assert_eq!(run_end_ceiling(Some("-5")), Some(Duration::from_secs(600)));
    }

    #[test]
    fn the_version_check_is_skipped_when_the_variable_is_set() {
        assert!(!version_check_wanted(Some("1".into())));
        assert!(version_check_wanted(Some("".into())));
        assert!(version_check_wanted(None));
    }
}
