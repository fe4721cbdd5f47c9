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
