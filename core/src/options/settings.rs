//! The `--settings` value: the user's settings (a file or JSON) with the sandbox merged in.

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::error::OptionsError;
use super::sandbox::{merge_into_settings, SandboxSettings};
use crate::option_types::ordered_map::to_json;
use crate::option_types::redact::SecretJson;

/// The user's settings, as [`AgentConfig::settings`](super::AgentConfig::settings) holds them:
/// a file the CLI reads, or JSON this program writes. `Debug` blanks the values of inline
/// settings' `env` and `headers` objects, which commonly carry API keys.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, Settings};
///
/// let mut config = AgentConfig::default();
/// config.settings = Some(Settings::File("/etc/claude/settings.json".into()));
/// let spec = config.launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// assert!(spec.args.contains(&"/etc/claude/settings.json".to_owned()));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Settings {
    /// A settings file, passed on by path (the CLI reads it).
    File(PathBuf),
    /// Inline settings.
    Json(Value),
}

/// The path of a file; inline settings with the values of their `env` and `headers` blanked.
impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Settings::File(path) => f.debug_tuple("File").field(path).finish(),
            Settings::Json(value) => f
                .debug_tuple("Json")
                .field(&SecretJson(value.clone()))
                .finish(),
        }
    }
}

/// The `--settings` value, if any. Without a sandbox the settings pass unchanged; with one, they
/// must be inline JSON (an object), and the sandbox is deep-merged into their `sandbox` block.
pub(crate) fn settings_arg(
    settings: Option<&Settings>,
    sandbox: Option<&SandboxSettings>,
) -> Result<Option<String>, OptionsError> {
    let Some(sandbox) = sandbox else {
        return Ok(settings.map(|settings| match settings {
            Settings::File(path) => path.display().to_string(),
            Settings::Json(value) => to_json(value),
        }));
    };
    let mut object = match settings {
        None => Map::new(),
        Some(Settings::Json(value)) => as_object(value.clone())?,
        Some(Settings::File(path)) => {
            return Err(OptionsError::SettingsFileWithSandbox { path: path.clone() });
        }
    };
    merge_into_settings(&mut object, sandbox);
    Ok(Some(to_json(&object)))
}

/// The inline settings (with the sandbox merged in) as the object `initialize` carries, if the
/// settings are inline or only a sandbox is set; `None` for a settings file or no settings.
pub(crate) fn inline_settings(
    settings: Option<&Settings>,
    sandbox: Option<&SandboxSettings>,
) -> Result<Option<Map<String, Value>>, OptionsError> {
    let mut object = match settings {
        Some(Settings::File(_)) => return Ok(None),
        None if sandbox.is_none() => return Ok(None),
        None => Map::new(),
        Some(Settings::Json(value)) => as_object(value.clone())?,
    };
    if let Some(sandbox) = sandbox {
        merge_into_settings(&mut object, sandbox);
    }
    Ok(Some(object))
}

fn as_object(value: Value) -> Result<Map<String, Value>, OptionsError> {
    match value {
        Value::Object(object) => Ok(object),
        other => Err(OptionsError::InvalidSettingsJson {
            reason: format!("got {other}, not an object"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn without_sandbox_settings_pass_verbatim() {
        let path = Settings::File("./settings.json".into());
        assert_eq!(
            settings_arg(Some(&path), None),
            Ok(Some("./settings.json".into()))
        );
        let json = Settings::Json(json!({"model": "opus"}));
        assert_eq!(
            settings_arg(Some(&json), None),
            Ok(Some(r#"{"model":"opus"}"#.into()))
        );
        assert_eq!(settings_arg(None, None), Ok(None));
    }

    #[test]
    fn sandbox_is_merged_into_inline_settings() {
        let inline = Settings::Json(json!({"sandbox":{"excludedCommands":["git"]}}));
        let sandbox = SandboxSettings::new().excluded_commands(["docker"]);
        assert_eq!(
            settings_arg(Some(&inline), Some(&sandbox)),
            Ok(Some(
                r#"{"sandbox":{"excludedCommands":["git","docker"]}}"#.into()
            ))
        );
    }

    #[test]
    fn inline_settings_are_an_object_with_the_sandbox_merged_in() {
        let sandbox = SandboxSettings::new().excluded_commands(["docker"]);
        let inline = Settings::Json(json!({"env": {"A": "1"}}));
        assert_eq!(
            inline_settings(Some(&inline), Some(&sandbox)).map(|o| o.map(Value::Object)),
            Ok(Some(
                json!({"env": {"A": "1"}, "sandbox": {"excludedCommands": ["docker"]}})
            ))
        );
        assert_eq!(
            inline_settings(None, Some(&sandbox)).map(|o| o.map(Value::Object)),
            Ok(Some(json!({"sandbox": {"excludedCommands": ["docker"]}})))
        );
        let path = Settings::File("/etc/claude.json".into());
        assert_eq!(inline_settings(Some(&path), None), Ok(None));
        assert_eq!(inline_settings(None, None), Ok(None));
        assert!(matches!(
            inline_settings(Some(&Settings::Json(json!("x"))), None),
            Err(OptionsError::InvalidSettingsJson { .. })
        ));
    }

    #[test]
    fn sandbox_with_a_file_or_settings_that_are_no_object_is_refused() {
        let sandbox = SandboxSettings::new().enabled(true);
        let path = Settings::File("/etc/claude.json".into());
        assert_eq!(
            settings_arg(Some(&path), Some(&sandbox)),
            Err(OptionsError::SettingsFileWithSandbox {
                path: "/etc/claude.json".into()
            })
        );
        let list = Settings::Json(json!([1]));
        assert_eq!(
            settings_arg(Some(&list), Some(&sandbox)),
            Err(OptionsError::InvalidSettingsJson {
                reason: "got [1], not an object".into()
            })
        );
    }
}
