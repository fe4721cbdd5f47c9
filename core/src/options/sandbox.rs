//! Sandbox settings for Bash, and how they are merged into the `--settings` JSON.

use serde_json::{Map, Value};

/// Sandboxing of the Bash tool, merged into the settings' `sandbox` block and sent with
/// `--settings`. Settings given as a file path cannot be merged (the SDK reads no file), so a
/// sandbox with such settings is refused.
///
/// ```
/// # use claude_agent_tokio::options::{SandboxNetwork, SandboxSettings};
/// let sandbox = SandboxSettings::new()
///     .enabled(true)
///     .excluded_commands(["docker"])
///     .network(SandboxNetwork::new().allow_local_binding(true));
/// # let _ = sandbox;
/// ```
///
/// The other settings, and the settings they end up in (sent in `initialize`, or as
/// `--settings <json>` with [`AgentConfig::settings_delivery`](crate::options::AgentConfig::settings_delivery)):
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, Delivery, HostDeclarations, SandboxSettings};
///
/// let sandbox = SandboxSettings::new()
///     .enabled(true)
///     .auto_allow_bash_if_sandboxed(true)
///     .allow_unsandboxed_commands(false)
///     .enable_weaker_nested_sandbox(true) // inside a container
///     .set("ignoreViolations", serde_json::json!({"*": ["/tmp"]}));
/// let mut options = AgentConfig::default();
/// options.sandbox = Some(sandbox);
/// options.settings_delivery = Delivery::Argv;
/// let args = options.launch_spec("claude".into(), &HostDeclarations::NONE)?.args;
/// assert_eq!(
///     args.last().unwrap(),
///     r#"{"sandbox":{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":true,"enableWeakerNestedSandbox":true,"enabled":true,"failIfUnavailable":true,"ignoreViolations":{"*":["/tmp"]}}}"#
/// );
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxSettings {
    block: Map<String, Value>,
}

impl SandboxSettings {
    /// No sandbox settings yet.
    pub fn new() -> Self {
        SandboxSettings::default()
    }

    /// Turn the sandbox on or off (`enabled`). When on, `failIfUnavailable: true` is added unless
    /// set otherwise, so a machine without sandbox support fails instead of running unsandboxed.
    pub fn enabled(self, enabled: bool) -> Self {
        self.set("enabled", Value::Bool(enabled))
    }

    /// Run sandboxed Bash commands without asking (`autoAllowBashIfSandboxed`).
    pub fn auto_allow_bash_if_sandboxed(self, allow: bool) -> Self {
        self.set("autoAllowBashIfSandboxed", Value::Bool(allow))
    }

    /// Commands that run outside the sandbox (`excludedCommands`).
    pub fn excluded_commands<I, S>(self, commands: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.set("excludedCommands", strings(commands))
    }

    /// Let the model ask to run a command unsandboxed (`allowUnsandboxedCommands`).
    pub fn allow_unsandboxed_commands(self, allow: bool) -> Self {
        self.set("allowUnsandboxedCommands", Value::Bool(allow))
    }

    /// Use a weaker sandbox that works inside containers (`enableWeakerNestedSandbox`).
    pub fn enable_weaker_nested_sandbox(self, enable: bool) -> Self {
        self.set("enableWeakerNestedSandbox", Value::Bool(enable))
    }

    /// Network rules (`network`).
    pub fn network(self, network: SandboxNetwork) -> Self {
        self.set("network", Value::Object(network.block))
    }

    /// Any other key of the sandbox block, as JSON.
    pub fn set(mut self, key: impl Into<String>, value: Value) -> Self {
        self.block.insert(key.into(), value);
        self
    }
}

/// Network rules of a [`SandboxSettings`].
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations, SandboxNetwork, SandboxSettings};
/// use claude_agent_tokio::session::InputMode;
///
/// let network = SandboxNetwork::new()
///     .allow_unix_sockets(["/var/run/docker.sock"])
///     .allow_all_unix_sockets(false)
///     .allow_local_binding(true)
///     .http_proxy_port(3128)
///     .socks_proxy_port(1080)
///     .set("allowedDomains", serde_json::json!(["crates.io", "static.crates.io"]));
/// let mut options = AgentConfig::default();
/// options.sandbox = Some(SandboxSettings::new().enabled(true).network(network));
/// let config = options.session_config(InputMode::Streaming, &HostDeclarations::NONE)?;
/// let settings = config.initialize_fields.unwrap();
/// assert!(settings.as_str().contains(r#""network":{"allowAllUnixSockets":false,"allowLocalBinding":true,"allowUnixSockets":["/var/run/docker.sock"],"allowedDomains":["crates.io","static.crates.io"],"httpProxyPort":3128,"socksProxyPort":1080}"#));
/// # Ok::<(), claude_agent_tokio::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxNetwork {
    block: Map<String, Value>,
}

impl SandboxNetwork {
    /// No network rules yet.
    pub fn new() -> Self {
        SandboxNetwork::default()
    }

    /// Unix socket paths sandboxed commands may connect to (`allowUnixSockets`).
    pub fn allow_unix_sockets<I, S>(self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.set("allowUnixSockets", strings(paths))
    }

    /// Allow every Unix socket (`allowAllUnixSockets`).
    pub fn allow_all_unix_sockets(self, allow: bool) -> Self {
        self.set("allowAllUnixSockets", Value::Bool(allow))
    }

    /// Allow binding to localhost ports (`allowLocalBinding`).
    pub fn allow_local_binding(self, allow: bool) -> Self {
        self.set("allowLocalBinding", Value::Bool(allow))
    }

    /// Use your own HTTP proxy on this port (`httpProxyPort`).
    pub fn http_proxy_port(self, port: u16) -> Self {
        self.set("httpProxyPort", Value::from(port))
    }

    /// Use your own SOCKS proxy on this port (`socksProxyPort`).
    pub fn socks_proxy_port(self, port: u16) -> Self {
        self.set("socksProxyPort", Value::from(port))
    }

    /// Any other key of the network block, as JSON.
    pub fn set(mut self, key: impl Into<String>, value: Value) -> Self {
        self.block.insert(key.into(), value);
        self
    }
}

fn strings<I, S>(items: I) -> Value
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    Value::Array(items.into_iter().map(|s| Value::String(s.into())).collect())
}

/// Deep-merge `sandbox` into `settings["sandbox"]`: objects merge key by key, lists are unioned
/// (existing items first), anything else is replaced by the sandbox value. When the result has
/// `enabled: true` and no `failIfUnavailable`, `failIfUnavailable: true` is added (as the
/// TypeScript SDK does).
pub(crate) fn merge_into_settings(settings: &mut Map<String, Value>, sandbox: &SandboxSettings) {
    let block = settings
        .entry("sandbox")
        .or_insert_with(|| Value::Object(Map::new()));
    merge(block, &Value::Object(sandbox.block.clone()));
    if let Value::Object(block) = block {
        if block.get("enabled") == Some(&Value::Bool(true))
            && !block.contains_key("failIfUnavailable")
        {
            block.insert("failIfUnavailable".into(), Value::Bool(true));
        }
    }
}

fn merge(target: &mut Value, source: &Value) {
    match (target, source) {
        (Value::Object(target), Value::Object(source)) => {
            for (key, value) in source {
                match target.get_mut(key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(target), Value::Array(source)) => {
            for item in source {
                if !target.contains(item) {
                    target.push(item.clone());
                }
            }
        }
        (target, source) => *target = source.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merged(settings: Value, sandbox: &SandboxSettings) -> Value {
        let Value::Object(mut settings) = settings else {
            panic!("test settings must be an object")
        };
        merge_into_settings(&mut settings, sandbox);
        Value::Object(settings)
    }

    #[test]
    fn sandbox_alone_becomes_the_block() {
        let sandbox = SandboxSettings::new()
            .enabled(true)
            .network(SandboxNetwork::new().http_proxy_port(8080));
        assert_eq!(
            merged(json!({}), &sandbox),
            json!({"sandbox": {"enabled": true, "failIfUnavailable": true, "network": {"httpProxyPort": 8080}}})
        );
    }

    #[test]
    fn deep_merge_unions_lists_and_replaces_scalars() {
        let settings = json!({
            "model": "opus",
            "sandbox": {"enabled": false, "excludedCommands": ["git"], "network": {"allowLocalBinding": false}}
        });
        let sandbox = SandboxSettings::new()
            .enabled(true)
            .excluded_commands(["docker", "git"])
            .network(
                SandboxNetwork::new()
                    .allow_local_binding(true)
                    .allow_unix_sockets(["/s"]),
            )
            .set("failIfUnavailable", json!(false));
        assert_eq!(
            merged(settings, &sandbox),
            json!({
                "model": "opus",
                "sandbox": {
                    "enabled": true,
                    "failIfUnavailable": false,
                    "excludedCommands": ["git", "docker"],
                    "network": {"allowLocalBinding": true, "allowUnixSockets": ["/s"]}
                }
            })
        );
    }

    #[test]
    fn non_object_sandbox_block_is_replaced() {
        let sandbox = SandboxSettings::new().auto_allow_bash_if_sandboxed(true);
        assert_eq!(
            merged(json!({"sandbox": true}), &sandbox),
            json!({"sandbox": {"autoAllowBashIfSandboxed": true}})
        );
    }
}
