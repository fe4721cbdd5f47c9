//! `Debug` output that hides secrets: values of variables and headers whose name looks secret.

use std::fmt;

/// Name fragments (compared case-insensitively) that mark a value as secret.
const SECRET_WORDS: [&str; 7] = [
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "AUTH",
    "COOKIE",
    "CREDENTIAL",
];

/// Whether the value of a variable or header called `name` must not be printed.
pub(crate) fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|word| upper.contains(word))
}

/// Formats name/value pairs as a map, printing `<redacted>` for secret values.
pub(crate) struct RedactedPairs<'a>(pub(crate) &'a [(String, String)]);

impl fmt::Debug for RedactedPairs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (name, value) in self.0 {
            if is_secret_name(name) {
                map.entry(name, &format_args!("<redacted>"));
            } else {
                map.entry(name, value);
            }
        }
        map.finish()
    }
}

/// Name/value pairs (environment variables, HTTP headers) in insertion order, unique by name,
/// whose `Debug` hides secret values.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Pairs(pub(crate) Vec<(String, String)>);

impl Pairs {
    /// Set `name` to `value`, replacing an earlier value in place.
    pub(crate) fn set(&mut self, name: String, value: String) {
        super::ordered_map::upsert(&mut self.0, name, value);
    }
}

impl fmt::Debug for Pairs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        RedactedPairs(&self.0).fmt(f)
    }
}

/// Inline JSON settings whose `Debug` blanks the values of every `env` and `headers` object,
/// as a recording does: settings commonly carry API keys in `env`.
#[derive(Clone, PartialEq)]
pub(crate) struct SecretJson(pub(crate) serde_json::Value);

impl fmt::Debug for SecretJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = self.0.clone();
        crate::redact::redact_secrets(&mut shown);
        write!(f, "{shown}")
    }
}

/// Command-line arguments whose `Debug` blanks the secrets of inline settings: the value of
/// `--settings` or `--managed-settings` when it is JSON, as [`SecretJson`] shows it.
pub(crate) struct RedactedArgs<'a>(pub(crate) &'a [String]);

/// The flags whose value can be inline settings.
const SETTINGS_FLAGS: [&str; 2] = ["--settings", "--managed-settings"];

impl fmt::Debug for RedactedArgs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        let mut after_settings_flag = false;
        for arg in self.0 {
            let (flag, value) = match arg.split_once('=') {
                Some((flag, value)) if SETTINGS_FLAGS.contains(&flag) => (Some(flag), value),
                _ if after_settings_flag => (None, arg.as_str()),
                _ => (None, ""),
            };
            after_settings_flag = SETTINGS_FLAGS.contains(&arg.as_str());
            match serde_json::from_str::<serde_json::Value>(value) {
                Ok(json) if json.is_object() => {
                    let shown = format!("{:?}", SecretJson(json));
                    match flag {
                        Some(flag) => list.entry(&format_args!("{flag}={shown}")),
                        None => list.entry(&format_args!("{shown}")),
                    };
                }
                _ => {
                    list.entry(arg);
                }
            }
        }
        list.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_matched_case_insensitively() {
        assert!(is_secret_name("ANTHROPIC_API_KEY"));
        assert!(is_secret_name("github_token"));
        assert!(is_secret_name("Db_Password"));
        assert!(is_secret_name("Authorization"));
        assert!(!is_secret_name("PATH"));
        assert!(!is_secret_name("CLAUDE_CODE_ENTRYPOINT"));
    }

    #[test]
    fn debug_hides_secret_values_only() {
        let mut pairs = Pairs::default();
        pairs.set("ANTHROPIC_API_KEY".into(), "sk-ant-very-secret".into());
        pairs.set("HOME".into(), "/home/me".into());
        let text = format!("{pairs:?}");
        assert!(!text.contains("sk-ant-very-secret"), "{text}");
        assert_eq!(
            text,
            r#"{"ANTHROPIC_API_KEY": <redacted>, "HOME": "/home/me"}"#
        );
    }

    #[test]
    fn inline_settings_keep_their_secrets_out_of_debug() {
        let options = crate::options::AgentConfig {
            settings: Some(crate::options::Settings::Json(serde_json::json!({
                "env": {"ANTHROPIC_API_KEY": "sk-ant-settings"},
                "model": "opus"
            }))),
            managed_settings: Some(serde_json::json!({
                "env": {"PROXY_PASSWORD": "hunter2"},
                "permissions": {"deny": ["WebFetch"]}
            })),
            ..crate::options::AgentConfig::default()
        };
        // By default they stay off the command line: they travel in `initialize`.
        let host = crate::options::HostDeclarations::default();
        let argv = options
            .launch_spec("claude".into(), &host)
            .unwrap()
            .args
            .join(" ");
        assert!(
            !argv.contains("sk-ant-settings") && !argv.contains("hunter2"),
            "{argv}"
        );
        let fields = options
            .session_config(crate::session::InputMode::Streaming, &host)
            .unwrap()
            .initialize_fields
            .unwrap();
        let fields = fields.as_str();
        assert!(
            fields.contains("sk-ant-settings") && fields.contains("hunter2"),
            "{fields}"
        );
        // On the command line, where asked for...
        let options = crate::options::AgentConfig {
            settings_delivery: crate::options::Delivery::Argv,
            ..options
        };
        let spec = options.launch_spec("claude".into(), &host).unwrap();
        let argv = spec.args.join(" ");
        assert!(
            argv.contains("sk-ant-settings") && argv.contains("hunter2"),
            "{argv}"
        );
        // ...but neither options nor the launch spec prints them.
        for shown in [format!("{options:?}"), format!("{spec:?}")] {
            assert!(!shown.contains("sk-ant-settings"), "{shown}");
            assert!(!shown.contains("hunter2"), "{shown}");
            assert!(shown.contains(r#""model":"opus""#), "{shown}");
            assert!(shown.contains("WebFetch"), "{shown}");
            assert!(shown.contains(crate::redact::REDACTED), "{shown}");
        }
    }

    #[test]
    fn args_other_than_inline_settings_show_as_they_are() {
        let args = [
            "--settings",
            "./team.json",
            "--model",
            "opus",
            "--settings={\"x\":1}",
        ]
        .map(String::from);
        assert_eq!(
            format!("{:?}", RedactedArgs(&args)),
            r#"["--settings", "./team.json", "--model", "opus", --settings={"x":1}]"#
        );
    }

    #[test]
    fn set_replaces_in_place() {
        let mut pairs = Pairs::default();
        pairs.set("A".into(), "1".into());
        pairs.set("B".into(), "2".into());
        pairs.set("A".into(), "3".into());
        assert_eq!(
            pairs.0,
            vec![("A".into(), "3".into()), ("B".into(), "2".into())]
        );
    }
}
