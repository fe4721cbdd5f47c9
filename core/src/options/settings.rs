//! The `--settings` value: the user's settings (a path or JSON) with the sandbox merged in.

use serde_json::{Map, Value};

use super::error::OptionsError;
use super::ordered_map::to_json;
use super::sandbox::{merge_into_settings, SandboxSettings};

/// Settings as the user gave them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Settings {
    /// A path to a settings file, or inline JSON text; passed on as is when there is no sandbox.
    Text(String),
    /// Inline settings.
    Json(Value),
}

/// The `--settings` value, if any. Without a sandbox the settings pass unchanged; with one, they
/// must be inline JSON (an object), and the sandbox is deep-merged into their `sandbox` block.
pub(crate) fn settings_arg(
    settings: Option<&Settings>,
    sandbox: Option<&SandboxSettings>,
) -> Result<Option<String>, OptionsError> {
    let Some(sandbox) = sandbox else {
        return Ok(settings.map(|settings| match settings {
            Settings::Text(text) => text.clone(),
            Settings::Json(value) => to_json(value),
        }));
    };
    let mut object = match settings {
        None => Map::new(),
        Some(Settings::Json(value)) => as_object(value.clone())?,
        Some(Settings::Text(text)) if text.trim_start().starts_with('{') => {
            let value =
                serde_json::from_str(text).map_err(|e| OptionsError::InvalidSettingsJson {
                    reason: e.to_string(),
                })?;
            as_object(value)?
        }
        Some(Settings::Text(path)) => {
            return Err(OptionsError::SettingsFileWithSandbox { path: path.clone() });
        }
    };
    merge_into_settings(&mut object, sandbox);
    Ok(Some(to_json(&object)))
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
        let path = Settings::Text("./settings.json".into());
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
    fn sandbox_is_merged_into_inline_text() {
        let text = Settings::Text(r#" {"sandbox":{"excludedCommands":["git"]}}"#.into());
        let sandbox = SandboxSettings::new().excluded_commands(["docker"]);
        assert_eq!(
            settings_arg(Some(&text), Some(&sandbox)),
            Ok(Some(
                r#"{"sandbox":{"excludedCommands":["git","docker"]}}"#.into()
            ))
        );
    }

    #[test]
    fn sandbox_with_a_path_or_bad_json_is_refused() {
        let sandbox = SandboxSettings::new().enabled(true);
        let path = Settings::Text("/etc/claude.json".into());
        assert_eq!(
            settings_arg(Some(&path), Some(&sandbox)),
            Err(OptionsError::SettingsFileWithSandbox {
                path: "/etc/claude.json".into()
            })
        );
        let broken = Settings::Text("{nope".into());
        assert!(matches!(
            settings_arg(Some(&broken), Some(&sandbox)),
            Err(OptionsError::InvalidSettingsJson { .. })
        ));
        let list = Settings::Json(json!([1]));
        assert_eq!(
            settings_arg(Some(&list), Some(&sandbox)),
            Err(OptionsError::InvalidSettingsJson {
                reason: "got [1], not an object".into()
            })
        );
    }
}
