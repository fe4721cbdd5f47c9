//! Checks shared by [`AgentConfig::launch_spec`] and [`AgentConfig::session_config`]: options that
//! contradict each other or that the CLI cannot receive.

use super::error::OptionsError;
use super::settings::{inline_settings, settings_arg};
use super::{skills, AgentConfig, AgentDefinition, HostDeclarations};
use crate::option_types::types::Thinking;

impl AgentConfig {
    /// The checks [`AgentConfig::launch_spec`] and [`AgentConfig::session_config`] start with, without
    /// building either: options that contradict each other (or `host`) or that the CLI cannot
    /// receive are refused with an [`OptionsError`] that names what to change. (`launch_spec`
    /// also refuses NUL bytes in arguments and environment values.) An application checks its own options with the declarations of its callbacks
    /// (`Options::get_host_declarations` of `claude-agent-client`), e.g. at start-up, before
    /// any session.
    ///
    /// ```
    /// use claude_agent_tokio::options::{HostDeclarations, AgentConfig, OptionsError};
    ///
    /// let mut config = AgentConfig::default();
    /// config.model = Some("opus".into());
    /// config.fallback_model = Some("opus".into());
    /// assert!(matches!(
    ///     config.validate(&HostDeclarations::NONE),
    ///     Err(OptionsError::FallbackModelSameAsModel { .. })
    /// ));
    /// config.fallback_model = None;
    /// assert!(config.validate(&HostDeclarations::NONE).is_ok());
    /// ```
    pub fn validate(&self, host: &HostDeclarations) -> Result<(), OptionsError> {
        if let (true, Some(tool)) = (host.can_use_tool, &self.permission_prompt_tool_name) {
            return Err(OptionsError::CanUseToolWithPromptTool { tool: tool.clone() });
        }
        if host.session_mirror && self.enable_file_checkpointing {
            return Err(OptionsError::SessionStoreWithFileCheckpointing);
        }
        if host.session_mirror && self.no_session_persistence {
            return Err(OptionsError::SessionStoreWithoutPersistence);
        }
        if let (Some(model), Some(fallback)) = (&self.model, &self.fallback_model) {
            if model == fallback {
                return Err(OptionsError::FallbackModelSameAsModel {
                    model: model.clone(),
                });
            }
        }
        self.check_positive()?;
        if let Some(dollars) = self.max_budget_usd {
            if !dollars.is_finite() || dollars < 0.0 {
                return Err(OptionsError::InvalidBudget { value: dollars });
            }
        }
        if let Some(plugin) = self.plugins.iter().find(|plugin| plugin.kind != "local") {
            return Err(OptionsError::UnsupportedPluginType {
                kind: plugin.kind.clone(),
                path: plugin.path.display().to_string(),
            });
        }
        if let Some(plugin) = self
            .plugins
            .iter()
            .find(|plugin| plugin.path.to_str().is_none())
        {
            return Err(OptionsError::NonUtf8Path {
                option: "plugins",
                path: plugin.path.display().to_string(),
            });
        }
        skills::check(self.skills.as_ref())?;
        settings_arg(self.settings.as_ref(), self.sandbox.as_ref())?;
        if self.settings_in_initialize() {
            inline_settings(self.settings.as_ref(), self.sandbox.as_ref())?;
        }
        self.check_mcp_server_names(host)?;
        if let Some((flag, _)) = self
            .extra_args
            .iter()
            .find(|(flag, _)| !is_valid_flag_name(flag))
        {
            return Err(OptionsError::InvalidExtraArgFlag { flag: flag.clone() });
        }
        if let Some((key, _)) = self
            .env
            .iter()
            .find(|(key, _)| key.is_empty() || key.contains(['=', '\0']))
        {
            return Err(OptionsError::InvalidEnvName { key: key.clone() });
        }
        if let Some(hook) = host.hooks.iter().find(|hook| hook.callbacks == 0) {
            return Err(OptionsError::HookWithoutCallbacks {
                event: hook.event.as_str().to_owned(),
                matcher: hook.matcher.clone(),
            });
        }
        if self.thinking_display.is_some() && self.thinking == Some(Thinking::Disabled) {
            return Err(OptionsError::ThinkingDisplayWhileDisabled);
        }
        if let Some((agent, tokens)) = self.agents.iter().find_map(|(name, agent)| {
            agent
                .auto_compact_window
                .filter(|tokens| *tokens < AgentDefinition::MIN_AUTO_COMPACT_WINDOW)
                .map(|tokens| (name, tokens))
        }) {
            return Err(OptionsError::AgentAutoCompactWindow {
                agent: agent.clone(),
                tokens,
            });
        }
        if let Some((name, _)) = self
            .extra_initialize_fields
            .iter()
            .find(|(name, _)| name == "subtype" || name == "hooks")
        {
            return Err(OptionsError::ReservedInitializeField { name: name.clone() });
        }
        Ok(())
    }

    fn check_positive(&self) -> Result<(), OptionsError> {
        if self.budget.is_some_and(|budget| !budget.is_usable()) {
            return Err(OptionsError::UnusableBudget);
        }
        let zero = [
            ("max_turns", self.max_turns == Some(0)),
            ("task_budget", self.task_budget == Some(0)),
            ("max_buffer_size", self.max_buffer_size == Some(0)),
            (
                "control_timeout",
                self.control_timeout.is_some_and(|t| t.is_zero()),
            ),
            (
                "stall_watch",
                self.stall_watch.as_ref().is_some_and(|w| {
                    w.after.is_zero() || w.while_tool_runs.is_some_and(|t| t.is_zero())
                }),
            ),
            (
                "initialize_timeout",
                self.initialize_timeout.is_some_and(|t| t.is_zero()),
            ),
        ];
        match zero.iter().find(|(_, is_zero)| *is_zero) {
            Some((option, _)) => Err(OptionsError::MustBePositive { option }),
            None => Ok(()),
        }
    }

    fn check_mcp_server_names(&self, host: &HostDeclarations) -> Result<(), OptionsError> {
        let sdk = host
            .sdk_mcp_servers
            .iter()
            .map(|server| server.name.as_str());
        let external = self.mcp_servers.iter().map(|(name, _)| name.as_str());
        let mut seen = std::collections::HashSet::new();
        match sdk.chain(external).find(|name| !seen.insert(*name)) {
            Some(name) => Err(OptionsError::DuplicateMcpServerName {
                name: name.to_owned(),
            }),
            None => Ok(()),
        }
    }
}

/// An `extra_args` key that becomes exactly one `--key` flag.
fn is_valid_flag_name(flag: &str) -> bool {
    !flag.is_empty()
        && !flag.starts_with('-')
        && !flag.contains(|c: char| c == '=' || c.is_whitespace() || c == '\0')
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{
        McpServerConfig, PluginConfig, SandboxSettings, Settings, Skills, ThinkingDisplay,
    };
    use super::*;
    use crate::hooks::HookEvent;
    use crate::mcp::McpServerSpec;
    use crate::session::{HookMatcherConfig, InputMode};

    fn sdk_server(name: &str) -> McpServerSpec {
        McpServerSpec::new(name, "1.0.0")
    }

    /// Both entry points refuse the options with the same error.
    fn refused(options: AgentConfig) -> OptionsError {
        refused_with(options, &HostDeclarations::default())
    }

    fn refused_with(options: AgentConfig, host: &HostDeclarations) -> OptionsError {
        let launch = options
            .launch_spec("claude".into(), host)
            .expect_err("launch_spec must refuse");
        let session = options
            .session_config(InputMode::Streaming, host)
            .expect_err("session_config must refuse");
        assert_eq!(launch.to_string(), session.to_string());
        launch
    }

    #[test]
    fn an_agent_compaction_window_below_the_cli_minimum() {
        let small = AgentDefinition::new("d", "p").auto_compact_window(99_999);
        let err = refused(AgentConfig {
            agents: vec![("scanner".into(), small)],
            ..AgentConfig::default()
        });
        assert_eq!(
            err,
            OptionsError::AgentAutoCompactWindow {
                agent: "scanner".into(),
                tokens: 99_999
            }
        );
        let enough = AgentDefinition::new("d", "p")
            .auto_compact_window(AgentDefinition::MIN_AUTO_COMPACT_WINDOW);
        assert!(AgentConfig {
            agents: vec![("scanner".into(), enough)],
            ..AgentConfig::default()
        }
        .launch_spec("claude".into(), &HostDeclarations::default())
        .is_ok());
    }

    /// The official SDKs refuse a session store with file checkpointing (checkpoints are not
    /// mirrored) or with persistence off (nothing to mirror).
    #[test]
    fn a_session_store_with_checkpoints_or_without_persistence() {
        let store = HostDeclarations {
            session_mirror: true,
            ..HostDeclarations::default()
        };
        let checkpoints = AgentConfig {
            enable_file_checkpointing: true,
            ..AgentConfig::default()
        };
        assert_eq!(
            refused_with(checkpoints.clone(), &store),
            OptionsError::SessionStoreWithFileCheckpointing
        );
        let unpersisted = AgentConfig {
            no_session_persistence: true,
            ..AgentConfig::default()
        };
        assert_eq!(
            refused_with(unpersisted.clone(), &store),
            OptionsError::SessionStoreWithoutPersistence
        );
        let no_store = HostDeclarations::default();
        assert!(checkpoints.validate(&no_store).is_ok());
        assert!(unpersisted.validate(&no_store).is_ok());
    }

    #[test]
    fn can_use_tool_with_prompt_tool() {
        let err = refused_with(
            AgentConfig {
                permission_prompt_tool_name: Some("mcp__p__ask".into()),
                ..AgentConfig::default()
            },
            &HostDeclarations::default().with(|host| host.can_use_tool = true),
        );
        assert_eq!(
            err,
            OptionsError::CanUseToolWithPromptTool {
                tool: "mcp__p__ask".into()
            }
        );
        assert!(err.to_string().contains("remove one of them"), "{err}");
    }

    #[test]
    fn fallback_equal_to_model() {
        let err = refused(AgentConfig {
            model: Some("opus".into()),
            fallback_model: Some("opus".into()),
            ..AgentConfig::default()
        });
        assert_eq!(
            err,
            OptionsError::FallbackModelSameAsModel {
                model: "opus".into()
            }
        );
        assert!(AgentConfig {
            model: Some("opus".into()),
            fallback_model: Some("sonnet".into()),
            ..AgentConfig::default()
        }
        .launch_spec("c".into(), &HostDeclarations::default())
        .is_ok());
    }

    #[test]
    fn settings_file_with_sandbox() {
        let err = refused(AgentConfig {
            settings: Some(Settings::File("./s.json".into())),
            sandbox: Some(SandboxSettings::new().enabled(true)),
            ..AgentConfig::default()
        });
        assert_eq!(
            err,
            OptionsError::SettingsFileWithSandbox {
                path: "./s.json".into()
            }
        );
        assert!(err.to_string().contains("settings_json"), "{err}");
    }

    #[test]
    fn invalid_settings_json_with_sandbox() {
        let err = AgentConfig {
            settings: Some(Settings::Json(serde_json::json!(["not", "an", "object"]))),
            sandbox: Some(SandboxSettings::new()),
            ..AgentConfig::default()
        }
        .launch_spec("c".into(), &HostDeclarations::default())
        .expect_err("broken JSON");
        assert!(
            matches!(err, OptionsError::InvalidSettingsJson { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn invalid_skill_name() {
        let err = refused(AgentConfig {
            skills: Some(Skills::list(["ok", "bad,name"])),
            ..AgentConfig::default()
        });
        assert_eq!(
            err,
            OptionsError::InvalidSkillName {
                name: "bad,name".into(),
                reason: "it contains '(', ')' or ','"
            }
        );
    }

    #[test]
    fn duplicate_mcp_server_names() {
        let twice = HostDeclarations::default()
            .with(|host| host.sdk_mcp_servers = vec![sdk_server("calc"), sdk_server("calc")]);
        assert_eq!(
            refused_with(AgentConfig::default(), &twice),
            OptionsError::DuplicateMcpServerName {
                name: "calc".into()
            }
        );
        let clash = AgentConfig {
            mcp_servers: vec![("fs".into(), McpServerConfig::sse("u"))],
            ..AgentConfig::default()
        };
        let fs =
            HostDeclarations::default().with(|host| host.sdk_mcp_servers.push(sdk_server("fs")));
        assert_eq!(
            refused_with(clash, &fs),
            OptionsError::DuplicateMcpServerName { name: "fs".into() }
        );
    }

    #[test]
    fn non_local_plugin() {
        let err = refused(AgentConfig {
            plugins: vec![PluginConfig::local("/ok"), PluginConfig::new("npm", "/p")],
            ..AgentConfig::default()
        });
        assert_eq!(
            err,
            OptionsError::UnsupportedPluginType {
                kind: "npm".into(),
                path: "/p".into()
            }
        );
    }

    #[test]
    fn zero_values() {
        let cases = [
            (
                AgentConfig {
                    max_turns: Some(0),
                    ..AgentConfig::default()
                },
                "max_turns",
            ),
            (
                AgentConfig {
                    task_budget: Some(0),
                    ..AgentConfig::default()
                },
                "task_budget",
            ),
            (
                AgentConfig {
                    max_buffer_size: Some(0),
                    ..AgentConfig::default()
                },
                "max_buffer_size",
            ),
            (
                AgentConfig {
                    control_timeout: Some(Duration::ZERO),
                    ..AgentConfig::default()
                },
                "control_timeout",
            ),
            (
                AgentConfig {
                    initialize_timeout: Some(Duration::ZERO),
                    ..AgentConfig::default()
                },
                "initialize_timeout",
            ),
        ];
        for (options, option) in cases {
            assert_eq!(refused(options), OptionsError::MustBePositive { option });
        }
    }

    #[test]
    fn bad_budget() {
        let budget = |dollars: f64| AgentConfig {
            max_budget_usd: Some(dollars),
            ..AgentConfig::default()
        };
        for value in [-1.0, f64::INFINITY] {
            assert_eq!(
                refused(budget(value)),
                OptionsError::InvalidBudget { value }
            );
        }
        assert!(matches!(
            refused(budget(f64::NAN)),
            OptionsError::InvalidBudget { .. }
        ));
    }

    #[test]
    fn bad_extra_arg_flags() {
        for flag in ["", "--model", "a=b", "a b"] {
            let err = refused(AgentConfig {
                extra_args: vec![(flag.into(), None)],
                ..AgentConfig::default()
            });
            assert_eq!(err, OptionsError::InvalidExtraArgFlag { flag: flag.into() });
        }
    }

    #[test]
    fn bad_env_names() {
        for key in ["", "A=B", "A\0"] {
            assert_eq!(
                refused(AgentConfig {
                    env: vec![(key.into(), "v".into())],
                    ..AgentConfig::default()
                }),
                OptionsError::InvalidEnvName { key: key.into() }
            );
        }
    }

    #[test]
    fn hook_without_callbacks() {
        let no_callbacks = HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 0);
        let err = refused_with(
            AgentConfig::default(),
            &HostDeclarations::default().with(|host| host.hooks.push(no_callbacks)),
        );
        assert_eq!(
            err,
            OptionsError::HookWithoutCallbacks {
                event: "PreToolUse".into(),
                matcher: Some("Bash".into())
            }
        );
    }

    #[test]
    fn thinking_display_while_disabled() {
        let err = refused(AgentConfig {
            thinking: Some(Thinking::Disabled),
            thinking_display: Some(ThinkingDisplay::Summarized),
            ..AgentConfig::default()
        });
        assert_eq!(err, OptionsError::ThinkingDisplayWhileDisabled);
    }
}
