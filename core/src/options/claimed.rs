//! [`AgentConfig::claimed`]: the options of a cold start that does what a claim of a spare does.

use serde_json::Value;

use super::error::OptionsError;
use super::settings::Settings;
use super::{AgentConfig, Thinking};
use crate::control::ClaimOptions;
use crate::option_types::ordered_map::upsert;

/// The flag (as [`AgentConfig::extra_args`] takes it, without dashes) that parks a CLI started
/// for later until a `claim` request gives it its session: what a spare is started with.
/// [`AgentConfig::claimed`] drops it.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, AWAIT_CLAIM};
///
/// let mut spare = AgentConfig::default();
/// spare.extra_args.push((AWAIT_CLAIM.to_owned(), None));
/// let spec = spare.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(spec.args.contains(&"--await-claim".to_owned()));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
pub const AWAIT_CLAIM: &str = "await-claim";

impl AgentConfig {
    /// These options (a spare's, fixed when it started) with the per-session options of `claim`
    /// on top: what starts the same session cold, when no spare is at hand or a claim was
    /// refused. The working directory, added directories, model, permission mode, thinking
    /// budget, system prompt addition, title, subagents and claimable variables are set as
    /// options; a settings overlay is merged into the inline settings (a settings *file* gives
    /// [`OptionsError::SettingsFileWithOverlay`]); `--await-claim` is dropped.
    ///
    /// ```
    /// use claude_agent_tokio::control::ClaimOptions;
    /// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, Settings};
    /// use claude_agent_tokio::session::InputMode;
    ///
    /// let mut host = AgentConfig::default();
    /// host.settings = Some(Settings::Json(serde_json::json!({"cleanupPeriodDays": 7})));
    /// let claim = ClaimOptions::new("/srv/app").model("claude-sonnet-5").settings(serde_json::json!({"effortLevel": "high"}))?;
    /// let cold = host.claimed(&claim)?;
    /// let spec = cold.launch_spec("claude".into(), &HostDeclarations::NONE)?;
    /// assert_eq!(spec.cwd.as_deref(), Some(std::path::Path::new("/srv/app")));
    /// assert!(spec.args.contains(&"--model=claude-sonnet-5".to_owned()));
    /// // The overlay is merged into the inline settings, which travel in `initialize`.
    /// let config = cold.session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
    /// let fields = config.initialize_fields.unwrap();
    /// assert!(fields.as_str().contains(r#""settings":{"cleanupPeriodDays":7,"effortLevel":"high"}"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claimed(&self, claim: &ClaimOptions) -> Result<AgentConfig, OptionsError> {
        let mut options = self.clone();
        options.extra_args.retain(|(flag, _)| flag != AWAIT_CLAIM);
        options.cwd = Some(claim.cwd.clone());
        for (var, value) in &claim.env {
            let name = var.name().to_owned();
            options.env_removed.retain(|removed| *removed != name);
            upsert(&mut options.env, name, value.clone());
        }
        options.add_dirs.extend(
            claim
                .additional_directories
                .iter()
                .map(|dir| claim.cwd.join(dir)),
        );
        if let Some(model) = &claim.model {
            options.model = Some(model.clone());
        }
        if let Some(mode) = &claim.permission_mode {
            options.permission_mode = Some(mode.clone());
        }
        if let Some(tokens) = claim.max_thinking_tokens {
            options.thinking = tokens.map(|tokens| match tokens {
                0 => Thinking::Disabled,
                tokens => Thinking::Enabled {
                    budget_tokens: Some(u32::try_from(tokens).unwrap_or(u32::MAX)),
                },
            });
        }
        if let Some(overlay) = &claim.settings {
            let mut merged = match &options.settings {
                None => serde_json::Map::new(),
                Some(Settings::Json(Value::Object(object))) => object.clone(),
                Some(Settings::File(path)) => {
                    return Err(OptionsError::SettingsFileWithOverlay { path: path.clone() })
                }
                Some(Settings::Json(other)) => {
                    return Err(OptionsError::InvalidSettingsJson {
                        reason: format!("got {other}, not an object"),
                    })
                }
            };
            merged.extend(overlay.clone());
            options.settings = Some(Settings::Json(Value::Object(merged)));
        }
        if let Some(append) = &claim.append_system_prompt {
            upsert(
                &mut options.extra_initialize_fields,
                "appendSystemPrompt".to_owned(),
                Value::from(append.clone()),
            );
        }
        if let Some(title) = &claim.title {
            options.title = Some(title.clone());
        }
        for (name, agent) in &claim.agents {
            upsert(&mut options.agents, name.clone(), agent.clone());
        }
        Ok(options)
    }
}
