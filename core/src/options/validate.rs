//! Checks shared by [`Options::launch_spec`] and [`Options::session_config`]: options that
//! contradict each other or that the CLI cannot receive.

use super::error::OptionsError;
use super::types::Thinking;
use super::{skills, Options};

impl Options {
    /// Refuse contradictory or unusable options, naming what to change.
    pub(crate) fn validate(&self) -> Result<(), OptionsError> {
        if let (true, Some(tool)) = (self.can_use_tool, &self.permission_prompt_tool_name) {
            return Err(OptionsError::CanUseToolWithPromptTool { tool: tool.clone() });
        }
        if let (Some(model), Some(fallback)) = (&self.model, &self.fallback_model) {
            if model == fallback {
                return Err(OptionsError::FallbackModelSameAsModel { model: model.clone() });
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
        skills::check(self.skills.as_ref())?;
        self.check_mcp_server_names()?;
        if let Some((flag, _)) = self.extra_args.iter().find(|(flag, _)| !is_valid_flag_name(flag)) {
            return Err(OptionsError::InvalidExtraArgFlag { flag: flag.clone() });
        }
        if let Some((key, _)) = self.env.0.iter().find(|(key, _)| key.is_empty() || key.contains(['=', '\0'])) {
            return Err(OptionsError::InvalidEnvName { key: key.clone() });
        }
        if let Some(hook) = self.hooks.iter().find(|hook| hook.callbacks == 0) {
            return Err(OptionsError::HookWithoutCallbacks {
                event: hook.event.as_str().to_owned(),
                matcher: hook.matcher.clone(),
            });
        }
        if self.thinking_display.is_some() && self.effective_thinking() == Some(Thinking::Disabled) {
            return Err(OptionsError::ThinkingDisplayWhileDisabled);
        }
        Ok(())
    }

    /// Thinking as configured: [`Options::thinking`], else derived from `max_thinking_tokens`
    /// (0 → disabled, N → enabled with budget N).
    pub(crate) fn effective_thinking(&self) -> Option<Thinking> {
        self.thinking.or(match self.max_thinking_tokens {
            None => None,
            Some(0) => Some(Thinking::Disabled),
            Some(tokens) => Some(Thinking::Enabled { budget_tokens: Some(tokens) }),
        })
    }

    fn check_positive(&self) -> Result<(), OptionsError> {
        let zero = [
            ("max_turns", self.max_turns == Some(0)),
            ("task_budget", self.task_budget == Some(0)),
            ("max_buffer_size", self.max_buffer_size == Some(0)),
            ("control_timeout", self.control_timeout.is_some_and(|t| t.is_zero())),
            ("initialize_timeout", self.initialize_timeout.is_some_and(|t| t.is_zero())),
        ];
        match zero.iter().find(|(_, is_zero)| *is_zero) {
            Some((option, _)) => Err(OptionsError::MustBePositive { option }),
            None => Ok(()),
        }
    }

    fn check_mcp_server_names(&self) -> Result<(), OptionsError> {
        let sdk = self.sdk_mcp_servers.iter().map(|server| server.name.as_str());
        let external = self.mcp_servers.iter().map(|(name, _)| name.as_str());
        let mut seen = std::collections::HashSet::new();
        match sdk.chain(external).find(|name| !seen.insert(*name)) {
            Some(name) => Err(OptionsError::DuplicateMcpServerName { name: name.to_owned() }),
            None => Ok(()),
        }
    }
}

/// An `extra_args` key that becomes exactly one `--key` flag.
fn is_valid_flag_name(flag: &str) -> bool {
    !flag.is_empty() && !flag.starts_with('-') && !flag.contains(|c: char| c == '=' || c.is_whitespace() || c == '\0')
}
