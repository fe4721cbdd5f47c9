//! The Claude Code CLI's version, and whether this SDK supports it.

use std::fmt;

/// The environment variable that turns the version check off: set to anything but the empty
/// string, the client's sessions do not check the CLI's version (no
/// [`Event::CliVersion`](super::Event::CliVersion), no warning), as with the official SDKs. The
/// core reads no environment: [`AgentConfig::apply_environment`](crate::options::AgentConfig::apply_environment)
/// applies it to a session's configuration from a lookup the host gives.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, HostDeclarations};
/// use claude_agent_tokio::session::{InputMode, SKIP_VERSION_CHECK_ENV};
///
/// // As if the program were started with CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1:
/// let environment = |name: &str| (name == SKIP_VERSION_CHECK_ENV).then(|| "1".into());
/// let options = AgentConfig::default();
/// let mut config = options.session_config(InputMode::Streaming, &HostDeclarations::NONE).unwrap();
/// options.apply_environment(&mut config, environment);
/// assert!(!config.check_cli_version);
/// ```
pub const SKIP_VERSION_CHECK_ENV: &str = "CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK";

/// A Claude Code CLI version, `major.minor.patch`. Versions compare in that order.
///
/// ```
/// use claude_agent_tokio::session::CliVersion;
///
/// let version = CliVersion::parse("2.1.330").unwrap();
/// assert_eq!(version, CliVersion::new(2, 1, 330));
/// assert!(version.is_supported());
/// assert!(CliVersion::parse("2.0.14").unwrap() < CliVersion::MINIMUM);
/// assert_eq!(version.to_string(), "2.1.330");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CliVersion {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The patch version.
    pub patch: u32,
}

impl CliVersion {
    /// The oldest CLI this SDK supports: 2.1.330, the version it is tested against. Older CLIs
    /// lack parts of the protocol the SDK relies on.
    pub const MINIMUM: CliVersion = CliVersion::new(2, 1, 330);

    /// The version `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> CliVersion {
        CliVersion {
            major,
            minor,
            patch,
        }
    }

    /// Reads a version that starts with `major.minor.patch` (what comes after, such as
    /// `-beta.1` or ` (Claude Code)`, is ignored). `None` for anything else.
    ///
    /// ```
    /// # use claude_agent_tokio::session::CliVersion;
    /// assert_eq!(CliVersion::parse("2.1.330 (Claude Code)"), Some(CliVersion::new(2, 1, 330)));
    /// assert_eq!(CliVersion::parse("2.1"), None);
    /// ```
    pub fn parse(text: &str) -> Option<CliVersion> {
        let mut numbers = text.trim_start().splitn(3, '.');
        let major = numbers.next()?.parse().ok()?;
        let minor = numbers.next()?.parse().ok()?;
        let rest = numbers.next()?;
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let patch = rest[..digits].parse().ok()?;
        Some(CliVersion::new(major, minor, patch))
    }

    /// Whether this SDK supports the version: it is [`CliVersion::MINIMUM`] or later.
    pub fn is_supported(self) -> bool {
        self >= CliVersion::MINIMUM
    }
}

impl fmt::Display for CliVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// What a session found out about the CLI's version ([`Event::CliVersion`](super::Event::CliVersion)):
/// the version its `initialize` answer gave (`claude_code_version`), or else its first
/// `system/init` message.
///
/// ```
/// use claude_agent_tokio::session::{CliVersion, VersionCheck};
///
/// fn warn_if_old(check: &VersionCheck) {
///     match check {
///         VersionCheck::TooOld(version) => {
///             eprintln!("Claude Code {version} is older than {}: please update it", CliVersion::MINIMUM)
///         }
///         VersionCheck::Unreported => eprintln!("Claude Code did not say its version: please update it"),
///         _ => {}
///     }
/// }
/// let check = VersionCheck::of(CliVersion::new(2, 1, 330));
/// assert!(check.is_supported());
/// warn_if_old(&check);
/// assert_eq!(VersionCheck::TooOld(CliVersion::new(2, 0, 1)).version(), Some(CliVersion::new(2, 0, 1)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum VersionCheck {
    /// The version is [`CliVersion::MINIMUM`] or later.
    Supported(CliVersion),
    /// The version is older than [`CliVersion::MINIMUM`].
    TooOld(CliVersion),
    /// The CLI gave no version that reads as `major.minor.patch`; CLIs older than 2.0 give none.
    Unreported,
}

impl VersionCheck {
    /// The check of `version`.
    pub fn of(version: CliVersion) -> VersionCheck {
        if version.is_supported() {
            VersionCheck::Supported(version)
        } else {
            VersionCheck::TooOld(version)
        }
    }

    /// The CLI's version, when it gave one.
    pub fn version(&self) -> Option<CliVersion> {
        match self {
            VersionCheck::Supported(version) | VersionCheck::TooOld(version) => Some(*version),
            VersionCheck::Unreported => None,
        }
    }

    /// Whether the SDK supports the CLI (its version is known and recent enough).
    pub fn is_supported(&self) -> bool {
        matches!(self, VersionCheck::Supported(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_and_compare_by_number() {
        assert_eq!(
            CliVersion::parse("2.1.330"),
            Some(CliVersion::new(2, 1, 330))
        );
        assert_eq!(
            CliVersion::parse("10.0.0-beta.2"),
            Some(CliVersion::new(10, 0, 0))
        );
        for bad in [
            "",
            "2",
            "2.1",
            "2.1.",
            "v2.1.330",
            "2.x.1",
            "2.1.-1",
            "99999999999.0.0",
        ] {
            assert_eq!(CliVersion::parse(bad), None, "{bad}");
        }
        assert!(CliVersion::new(2, 1, 330) > CliVersion::new(2, 1, 99));
        assert!(CliVersion::new(2, 2, 0) > CliVersion::new(2, 1, 330));
        assert!(CliVersion::new(3, 0, 0).is_supported());
        assert!(!CliVersion::new(2, 1, 329).is_supported());
        assert_eq!(
            VersionCheck::of(CliVersion::new(2, 1, 329)),
            VersionCheck::TooOld(CliVersion::new(2, 1, 329))
        );
        assert!(VersionCheck::of(CliVersion::MINIMUM).is_supported());
        assert!(!VersionCheck::Unreported.is_supported());
    }
}
