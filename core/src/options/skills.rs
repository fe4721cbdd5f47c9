//! Skills: checking names and turning them into `allowedTools` entries.
//!
//! The CLI reads `Skill(<name>)` entries with its tool-rule parser, so a name with `(`, `,`, `*`,
//! surrounding whitespace and the like would be read as something else; such names are refused.

use super::error::OptionsError;
use crate::option_types::types::Skills;

/// Why the CLI would misread `name` as a skill name, if it would.
fn skill_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("it is empty")
    } else if name.trim() != name {
        Some("it has leading or trailing whitespace")
    } else if name.contains(['(', ')', ',']) {
        Some("it contains '(', ')' or ','")
    } else if name.chars().any(|c| c.is_control() || c == '\u{feff}') {
        Some("it contains a control character or U+FEFF")
    } else if name.contains('*') {
        Some("it contains '*' (wildcards are not skill names)")
    } else if name.starts_with('/') {
        Some("it starts with '/'")
    } else if name.contains("\\\\") || name.ends_with('\\') {
        Some("it contains '\\\\' or ends with '\\'")
    } else {
        None
    }
}

/// Check every name of a skills list.
pub(crate) fn check(skills: Option<&Skills>) -> Result<(), OptionsError> {
    let Some(Skills::List(names)) = skills else {
        return Ok(());
    };
    match names
        .iter()
        .find_map(|name| skill_name_problem(name).map(|reason| (name, reason)))
    {
        Some((name, reason)) => Err(OptionsError::InvalidSkillName {
            name: name.clone(),
            reason,
        }),
        None => Ok(()),
    }
}

/// The allowed tools with the skills added: `Skill` for all skills, `Skill(<name>)` per listed
/// skill, skipping entries already present.
pub(crate) fn allowed_tools_with_skills(
    allowed: &[String],
    skills: Option<&Skills>,
) -> Vec<String> {
    let mut tools = allowed.to_vec();
    let extra: Vec<String> = match skills {
        None => Vec::new(),
        Some(Skills::All) => vec!["Skill".into()],
        Some(Skills::List(names)) => names.iter().map(|name| format!("Skill({name})")).collect(),
    };
    for tool in extra {
        if !tools.contains(&tool) {
            tools.push(tool);
        }
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_names_pass() {
        for name in ["pdf", "my-skill", "team:review", "a b"] {
            assert_eq!(skill_name_problem(name), None, "{name}");
        }
    }

    #[test]
    fn each_rule_rejects() {
        let cases = [
            ("", "it is empty"),
            (" pdf", "it has leading or trailing whitespace"),
            ("pdf\n", "it has leading or trailing whitespace"),
            ("a(b", "it contains '(', ')' or ','"),
            ("a,b", "it contains '(', ')' or ','"),
            ("a\u{7}b", "it contains a control character or U+FEFF"),
            ("\u{feff}pdf", "it contains a control character or U+FEFF"),
            ("pdf:*", "it contains '*' (wildcards are not skill names)"),
            ("pdf *", "it contains '*' (wildcards are not skill names)"),
            ("/pdf", "it starts with '/'"),
            ("a\\\\b", "it contains '\\\\' or ends with '\\'"),
            ("pdf\\", "it contains '\\\\' or ends with '\\'"),
        ];
        for (name, reason) in cases {
            assert_eq!(skill_name_problem(name), Some(reason), "{name:?}");
        }
    }

    #[test]
    fn check_reports_the_first_bad_name() {
        let skills = Skills::list(["ok", "/bad"]);
        assert_eq!(
            check(Some(&skills)),
            Err(OptionsError::InvalidSkillName {
                name: "/bad".into(),
                reason: "it starts with '/'"
            })
        );
        assert_eq!(check(Some(&Skills::All)), Ok(()));
    }

    #[test]
    fn skills_extend_allowed_tools_without_duplicates() {
        let allowed = vec!["Read".to_string(), "Skill(pdf)".to_string()];
        assert_eq!(
            allowed_tools_with_skills(&allowed, Some(&Skills::list(["pdf", "xlsx", "xlsx"]))),
            ["Read", "Skill(pdf)", "Skill(xlsx)"]
        );
        assert_eq!(
            allowed_tools_with_skills(&[], Some(&Skills::All)),
            ["Skill"]
        );
        assert_eq!(allowed_tools_with_skills(&allowed, None), allowed);
    }
}
