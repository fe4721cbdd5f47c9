//! The `initialize` request body and the `hook_N` callback-id table: ids are given out event by
//! event (in order of first declaration), then matcher by matcher, then callback by callback, the
//! numbering both official SDKs use. And what the answer must confirm before the first user
//! message is written.

use serde::Serialize;

use super::config::SessionConfig;
use super::HookRef;
use crate::control::InitializeResponse;
use crate::hooks::HookFailurePolicy;

#[derive(Serialize)]
struct MatcherEntry<'a> {
    matcher: Option<&'a str>,
    #[serde(rename = "hookCallbackIds")]
    hook_callback_ids: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout: Option<serde_json::Number>,
    #[serde(rename = "onFailure", skip_serializing_if = "Option::is_none")]
    on_failure: Option<&'static str>,
}

/// The `hooks` object: events in first-declared order, each matcher's keys in the TypeScript
/// SDK's order, so that the request is the same bytes it writes.
struct Events<'a>(Vec<(&'a str, Vec<MatcherEntry<'a>>)>);

impl Serialize for Events<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(event, entries)| (event, entries)))
    }
}

/// The `request` object of `initialize`, and the hook each `hook_N` id stands for (index N).
pub(crate) fn initialize_body(config: &SessionConfig) -> (String, Vec<HookRef>) {
    let mut refs = Vec::new();
    // Events in first-declared order, matchers in declared order within each event.
    let mut by_event: Vec<(&str, Vec<MatcherEntry<'_>>)> = Vec::new();
    for (matcher_index, m) in config.hooks.iter().enumerate() {
        let ids = (0..m.callbacks)
            .map(|hook_index| {
                refs.push(HookRef {
                    event: m.event.clone(),
                    matcher_index,
                    hook_index,
                });
                format!("hook_{}", refs.len() - 1)
            })
            .collect();
        let entry = MatcherEntry {
            matcher: m.matcher.as_deref(),
            hook_callback_ids: ids,
            timeout: m.timeout_secs.and_then(seconds),
            on_failure: m.on_failure.map(|p| match p {
                HookFailurePolicy::Continue => "continue",
                HookFailurePolicy::Block => "block",
            }),
        };
        let name = m.event.as_str();
        match by_event.iter_mut().find(|(e, _)| *e == name) {
            Some((_, entries)) => entries.push(entry),
            None => by_event.push((name, vec![entry])),
        }
    }
    let mut body = String::from(r#"{"subtype":"initialize","hooks":"#);
    if by_event.is_empty() {
        body.push_str("null");
    } else {
        let hooks =
            serde_json::to_string(&Events(by_event)).expect("hook matchers always serialize");
        body.push_str(&hooks);
    }
    if let Some(fields) = &config.initialize_fields {
        // Splice the other fields of the object in after "hooks".
        let inner = fields.as_str().trim();
        let inner = inner
            .strip_prefix('{')
            .and_then(|s| s.strip_suffix('}'))
            .unwrap_or("")
            .trim();
        if !inner.is_empty() {
            body.push(',');
            body.push_str(inner);
        }
    }
    body.push('}');
    (body, refs)
}

/// Whether the user messages wait for the answer to `initialize`: the session depends on
/// something the CLI must confirm there ([`unconfirmed`]).
pub(crate) fn needs_confirmation(config: &SessionConfig) -> bool {
    config.delivers_mcp_servers || config.delivers_settings.any() || has_fail_closed_hooks(config)
}

fn has_fail_closed_hooks(config: &SessionConfig) -> bool {
    config
        .hooks
        .iter()
        .any(|hook| hook.on_failure == Some(HookFailurePolicy::Block))
}

/// Why the CLI's answer to `initialize` does not let the session go on, if it does not: a
/// fail-closed hook the CLI would not fail closed, or MCP servers or settings sent in
/// `initialize` that it did not take. The checks and their order are the TypeScript SDK's.
pub(crate) fn unconfirmed(config: &SessionConfig, info: &InitializeResponse) -> Option<String> {
    if has_fail_closed_hooks(config) {
        if info.hook_on_failure_supported != Some(true) {
            return Some(
                "the Claude Code CLI did not confirm that it honours fail-closed hooks (its answer \
                 to `initialize` has no `hook_on_failure_supported: true`), so a failing hook \
                 would not block; no prompt was sent: update Claude Code, or drop `fail_closed` \
                 from the hook"
                    .into(),
            );
        }
        if info.hooks_applied == Some(false) {
            return Some(
                "the Claude Code CLI did not register the hooks (`hooks_applied: false`), so a \
                 fail-closed hook would never run; no prompt was sent: start a new session"
                    .into(),
            );
        }
    }
    if config.delivers_mcp_servers {
        match info.mcp_servers_applied {
            Some(true) => {}
            Some(false) => {
                return Some(
                    "the Claude Code CLI did not load the MCP servers sent in `initialize` \
                     (`mcp_servers_applied: false`): it reads them only when started with \
                     `--await-initialize`; no prompt was sent"
                        .into(),
                )
            }
            None => {
                return Some(
                    "the Claude Code CLI cannot read MCP servers from `initialize` (its answer \
                     has no `mcp_servers_applied`); no prompt was sent: update Claude Code, or \
                     set `Options::mcp_servers_delivery(Delivery::Argv)`, which puts the \
                     servers' env and headers on its command line"
                        .into(),
                )
            }
        }
    }
    let settings = [
        (
            config.delivers_settings.managed_settings,
            info.managed_settings_applied,
            "managed settings",
            "managed_settings_applied",
        ),
        (
            config.delivers_settings.settings,
            info.settings_applied,
            "settings",
            "settings_applied",
        ),
    ];
    for (sent, applied, what, field) in settings {
        if sent && applied != Some(true) {
            return Some(format!(
                "the Claude Code CLI did not take the {what} sent in `initialize` (its answer has \
                 {}); no prompt was sent: update Claude Code, or set \
                 `Options::settings_delivery(Delivery::Argv)`, which puts them on its command line",
                match applied {
                    Some(_) => format!("`{field}: false`"),
                    None => format!("no `{field}`"),
                }
            ));
        }
    }
    None
}

/// Whole seconds are written as integers (`30`, not `30.0`), as the official SDKs do.
fn seconds(secs: f64) -> Option<serde_json::Number> {
    if secs.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&secs) {
        Some((secs as u64).into())
    } else {
        serde_json::Number::from_f64(secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::HookEvent;
    use crate::session::{HookMatcherConfig, InputMode};

    #[test]
    fn no_hooks_gives_null_like_the_recordings() {
        let config = SessionConfig::new(InputMode::SingleTurn);
        let (body, refs) = initialize_body(&config);
        assert_eq!(body, r#"{"subtype":"initialize","hooks":null}"#);
        assert!(refs.is_empty());
    }

    /// Both official SDKs write `onFailure` as set, `continue` included, and only `block`
    /// waits for the CLI to confirm it.
    #[test]
    fn a_fail_open_hook_says_so_and_needs_no_confirmation() {
        use crate::hooks::HookMatcher;
        let mut config = SessionConfig::new(InputMode::SingleTurn);
        config.hooks.push(HookMatcherConfig::for_matcher(
            HookEvent::PreToolUse,
            HookMatcher::new("Bash").fail_open(),
        ));
        let (body, _) = initialize_body(&config);
        assert!(body.contains(r#""onFailure":"continue""#), "{body}");
        assert!(!needs_confirmation(&config));
    }

    #[test]
    fn hook_ids_are_given_out_in_declaration_order_and_grouped_by_event() {
        let mut config = SessionConfig::new(InputMode::SingleTurn);
        let mut pre = HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 1);
        pre.timeout_secs = Some(30.0);
        config.hooks.push(pre);
        config
            .hooks
            .push(HookMatcherConfig::new(HookEvent::Stop, None, 2));
        config
            .hooks
            .push(HookMatcherConfig::new(HookEvent::PreToolUse, None, 1));
        config.initialize_fields =
            Some(r#"{"sdkMcpServers":["calc"]}"#.parse::<crate::Json>().unwrap());
        let (body, refs) = initialize_body(&config);
        assert_eq!(
            body,
            concat!(
                r#"{"subtype":"initialize","hooks":{"#,
                r#""PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"],"timeout":30},{"matcher":null,"hookCallbackIds":["hook_3"]}],"#,
                r#""Stop":[{"matcher":null,"hookCallbackIds":["hook_1","hook_2"]}]},"#,
                r#""sdkMcpServers":["calc"]}"#
            )
        );
        assert_eq!(refs.len(), 4);
        assert_eq!((refs[2].matcher_index, refs[2].hook_index), (1, 1));
        assert_eq!((refs[3].matcher_index, refs[3].hook_index), (2, 0));
    }
}
