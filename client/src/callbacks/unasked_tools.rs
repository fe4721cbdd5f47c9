//! [`UnaskedTools`]: the tool calls a permission callback is never asked about.

use crate::options::{Options, Skills};
use crate::permission::PermissionMode;

/// The tool calls that the options' permission callback ([`Options::on_permission_request`])
/// will never be asked about, because the options approve them before the CLI asks: what
/// [`Options::tools_never_asked`] reports, and a session warns about through `tracing`. Allow
/// rules of settings files can do the same, but the options do not show them.
///
/// To see every call, use a `PreToolUse` hook, or leave the tools out of `allowed_tools` (or
/// give them a pattern, such as `Bash(git status:*)`).
///
/// ```
/// use claude_agent_tokio::UnaskedTools;
/// use claude_agent_tokio::options::Options;
/// use claude_agent_tokio::permission::PermissionResult;
///
/// let options = Options::new()
///     .allowed_tools(["Read", "Bash(git status:*)"])
///     .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
/// assert_eq!(options.tools_never_asked(), Some(UnaskedTools::Tools(vec!["Read".into()])));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnaskedTools {
    /// The permission mode is `bypassPermissions`: every call is approved (but those an
    /// explicit deny rule refuses) before the callback could be asked.
    All,
    /// These tools are approved whole, each named once: by an `allowed_tools` rule with no
    /// pattern (`Read`), or with an empty or `*` one (`Read()`, `Read(*)`), or, for `Skill`, by
    /// [`Skills::All`](crate::options::Skills::All).
    Tools(Vec<String>),
}

impl Options {
    /// The tool calls the permission callback will never be asked about, when there is a
    /// callback and the options approve some calls before it ([`UnaskedTools`]); `None`
    /// otherwise.
    ///
    /// ```
    /// use claude_agent_tokio::UnaskedTools;
    /// use claude_agent_tokio::options::Options;
    /// use claude_agent_tokio::permission::{PermissionMode, PermissionResult};
    ///
    /// let callback = |_request, _ctx| async { PermissionResult::allow() };
    /// let bypass = Options::new().permission_mode(PermissionMode::BypassPermissions).on_permission_request(callback);
    /// assert_eq!(bypass.tools_never_asked(), Some(UnaskedTools::All));
    /// assert_eq!(Options::new().allowed_tools(["Read"]).tools_never_asked(), None); // no callback
    /// ```
    pub fn tools_never_asked(&self) -> Option<UnaskedTools> {
        self.handlers().can_use_tool.as_ref()?;
        if self.config().permission_mode.as_ref() == Some(&PermissionMode::BypassPermissions) {
            return Some(UnaskedTools::All);
        }
        // `Skills::All` adds a bare `Skill` rule at launch; named skills add `Skill(<name>)`
        // rules, which approve only those skills.
        let skill = matches!(self.config().skills, Some(Skills::All)).then_some("Skill");
        let mut bare: Vec<String> = Vec::new();
        for tool in self
            .config()
            .allowed_tools
            .iter()
            .filter_map(|rule| whole_tool(rule))
            .chain(skill)
        {
            if !bare.iter().any(|known| known == tool) {
                bare.push(tool.to_owned());
            }
        }
        (!bare.is_empty()).then_some(UnaskedTools::Tools(bare))
    }
}

/// The tool an `allowed_tools` rule approves whole, as the CLI parses rules: a name with no
/// pattern, or with an empty or `*` one. `None` for a rule that approves only some calls
/// (`Bash(git status:*)`), and for a blank or malformed one, which approves nothing.
fn whole_tool(rule: &str) -> Option<&str> {
    if rule.trim().is_empty() {
        return None;
    }
    let Some(open) = rule.find('(') else {
        return Some(rule);
    };
    let pattern = rule
        .strip_suffix(')')
        .filter(|_| open > 0)?
        .get(open + 1..)?;
    matches!(pattern, "" | "*").then_some(&rule[..open])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::PermissionResult;

    fn never_asked(options: Options) -> Option<UnaskedTools> {
        options
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() })
            .tools_never_asked()
    }

    /// The official SDKs' reading of the rules: an empty or `*` pattern approves the whole
    /// tool, a blank rule approves nothing, and each tool is named once.
    #[test]
    fn whole_tool_rules_are_the_ones_with_no_pattern_or_a_wildcard_one() {
        let options = Options::new().allowed_tools([
            "Read(*)",
            "Write()",
            "mcp__s__t(*)",
            "   ",
            "",
            "Bash(git:*)",
            "(x)",
            "Glob(*",
            "Read",
        ]);
        assert_eq!(
            never_asked(options),
            Some(UnaskedTools::Tools(vec![
                "Read".into(),
                "Write".into(),
                "mcp__s__t".into()
            ]))
        );
        assert_eq!(
            never_asked(Options::new().allowed_tools(["  ", "Bash(ls:*)"])),
            None
        );
    }

    /// `Skills::All` approves the `Skill` tool at launch; named skills approve only those.
    #[test]
    fn all_skills_approve_the_skill_tool() {
        assert_eq!(
            never_asked(Options::new().skills(Skills::All)),
            Some(UnaskedTools::Tools(vec!["Skill".into()]))
        );
        assert_eq!(
            never_asked(Options::new().allowed_tools(["Skill"]).skills(Skills::All)),
            Some(UnaskedTools::Tools(vec!["Skill".into()]))
        );
        let named = Options::new().skills(Skills::list(["pdf"]));
        assert_eq!(never_asked(named), None);
    }
}
