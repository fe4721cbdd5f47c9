//! The real Claude Code CLI for end-to-end tests: where it is installed and the environment it
//! runs with, defined once so the e2e tests of every adapter agree.
//!
//! Tests name the CLI with `$CLAUDE_AGENT_E2E_CLI` ([`RealCli::locate`]) or a path
//! ([`RealCli::at`]), and point it at a [`StubApi`] on `127.0.0.1` with a dummy key, a temporary `HOME` and all
//! non-essential traffic (telemetry, error reports, update checks) turned off, so it reaches
//! nothing but the stub.
//!
//! ```no_run
//! use claude_agent_testkit::{real_cli::RealCli, stub_api::StubApi};
//! let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
//! let stub = StubApi::start_with_conventions();
//! let home = std::env::temp_dir().join("claude-e2e-home");
//! let mut cmd = cli.command(&stub, &home);
//! cmd.current_dir(&home);
//! # let _ = cmd;
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use claude_agent_core::session::CliVersion;

use crate::stub_api::StubApi;

/// Environment variable that names a `claude` executable to use instead of the repo's install.
pub const CLI_PATH_ENV: &str = "CLAUDE_AGENT_E2E_CLI";

/// The CLI version the tests are pinned to (what `scripts/install-claude-cli` installs unless
/// `CLAUDE_CLI_VERSION` names another).
pub const PINNED_VERSION: &str = "2.1.332";

/// The arguments that put the CLI in SDK mode: stream-json in and out.
pub const STREAM_JSON_ARGS: [&str; 5] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
];

/// Why the real CLI could not be found.
///
/// ```
/// use claude_agent_testkit::real_cli::{LocateError, RealCli};
///
/// // An end-to-end test that runs only where the real CLI is installed:
/// let cli = match RealCli::locate() {
///     Ok(cli) => cli,
///     Err(LocateError::NotSet) => {
///         eprintln!("skipped: CLAUDE_AGENT_E2E_CLI is not set");
///         return;
///     }
///     Err(error) => panic!("{error}"),
/// };
/// # let _ = cli;
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocateError {
    /// `CLAUDE_AGENT_E2E_CLI` is not set.
    #[error(
        "{CLI_PATH_ENV} is not set: point it at a claude {PINNED_VERSION} executable \
         (`npm install --prefix DIR @anthropic-ai/claude-code@{PINNED_VERSION}` puts one in \
         DIR/node_modules/.bin/claude)"
    )]
    NotSet,
    /// The path given does not exist.
    #[error("no Claude Code CLI at {}", .0.display())]
    Missing(PathBuf),
}

/// A located real `claude` executable.
///
/// ```no_run
/// use std::process::Stdio;
/// use claude_agent_testkit::{real_cli::RealCli, stub_api::StubApi};
///
/// let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
/// let stub = StubApi::start_with_conventions();
/// let home = std::env::temp_dir().join("claude-e2e-home");
/// std::fs::create_dir_all(&home).unwrap();
/// let child = cli
///     .command(&stub, &home)
///     .arg("--max-turns=1")
///     .current_dir(&home)
///     .stdin(Stdio::piped())
///     .stdout(Stdio::piped())
///     .spawn()
///     .unwrap();
/// println!("{} is pid {}", cli.path().display(), child.id());
/// ```
#[derive(Debug, Clone)]
pub struct RealCli {
    path: PathBuf,
}

impl RealCli {
    /// The CLI named by `$CLAUDE_AGENT_E2E_CLI`. The error says how to get one.
    ///
    /// ```no_run
    /// let cli = claude_agent_testkit::real_cli::RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    /// println!("testing against {}", cli.path().display());
    /// ```
    pub fn locate() -> Result<Self, LocateError> {
        match std::env::var_os(CLI_PATH_ENV).filter(|p| !p.is_empty()) {
            Some(path) => Self::at(path),
            None => Err(LocateError::NotSet),
        }
    }

    /// The CLI at `path`.
    ///
    /// ```
    /// use claude_agent_testkit::real_cli::{LocateError, RealCli};
    /// assert!(matches!(RealCli::at("/no/such/claude"), Err(LocateError::Missing(_))));
    /// ```
    pub fn at(path: impl Into<PathBuf>) -> Result<Self, LocateError> {
        let path = path.into();
        if path.exists() {
            Ok(Self { path })
        } else {
            Err(LocateError::Missing(path))
        }
    }

    /// The executable's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The version the executable reports (`claude --version`): what a test of the CLI under
    /// test expects, whichever version that is.
    ///
    /// ```no_run
    /// use claude_agent_tokio::session::CliVersion;
    /// use claude_agent_testkit::real_cli::RealCli;
    ///
    /// let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    /// let version = cli.version().unwrap();
    /// assert!(version >= CliVersion::MINIMUM, "claude {version} is not supported");
    /// ```
    pub fn version(&self) -> std::io::Result<CliVersion> {
        let output = Command::new(&self.path).arg("--version").output()?;
        let text = String::from_utf8_lossy(&output.stdout);
        CliVersion::parse(&text).ok_or_else(|| {
            std::io::Error::other(format!(
                "`{} --version` printed no version: {text:?}",
                self.path.display()
            ))
        })
    }

    /// A command for the CLI in stream-json mode ([`STREAM_JSON_ARGS`]) with a cleared
    /// environment replaced by [`real_cli_env`]. Add flags, set the working directory and
    /// the stdio pipes before spawning.
    pub fn command(&self, stub: &StubApi, home: &Path) -> Command {
        let mut cmd = Command::new(&self.path);
        cmd.args(STREAM_JSON_ARGS)
            .env_clear()
            .envs(real_cli_env(stub, home));
        cmd
    }
}

/// The whole environment for the real CLI in a test (use it after `env_clear()`):
/// the stub as `ANTHROPIC_BASE_URL`, a dummy `ANTHROPIC_API_KEY`, `home` as `HOME`, every
/// non-essential traffic switch off, proxies bypassed for loopback, and the host's `PATH`,
/// `SHELL` and `LANG` (the Bash tool needs them). Nothing else of the host leaks in (e.g.
/// `CLAUDECODE` or `ANTHROPIC_*` of a surrounding session).
///
/// ```
/// use claude_agent_testkit::{real_cli::real_cli_env, stub_api::StubApi};
/// let stub = StubApi::start();
/// let env = real_cli_env(&stub, std::path::Path::new("/tmp/h"));
/// assert!(env.contains(&("ANTHROPIC_BASE_URL".into(), stub.base_url())));
/// assert!(env.contains(&("HOME".into(), "/tmp/h".into())));
/// ```
pub fn real_cli_env(stub: &StubApi, home: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = [
        ("ANTHROPIC_BASE_URL", stub.base_url()),
        ("ANTHROPIC_API_KEY", "sk-ant-dummy".to_owned()),
        ("HOME", home.display().to_string()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
        ("DISABLE_TELEMETRY", "1".to_owned()),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ("DISABLE_ERROR_REPORTING", "1".to_owned()),
        ("NO_PROXY", "127.0.0.1,localhost".to_owned()),
        ("no_proxy", "127.0.0.1,localhost".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    for (name, fallback) in [
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("SHELL", "/bin/bash"),
        ("LANG", "C.UTF-8"),
    ] {
        let value = std::env::var(name).unwrap_or_else(|_| fallback.to_owned());
        env.push((name.to_owned(), value));
    }
    env
}

/// A fresh empty directory under the system temp dir, removed (with its contents) on drop: a
/// throwaway `HOME` or working directory for one CLI run.
///
/// ```
/// use claude_agent_testkit::real_cli::TestDir;
/// let dir = TestDir::new("doc").unwrap();
/// assert!(dir.path().is_dir());
/// let path = dir.path().to_path_buf();
/// drop(dir);
/// assert!(!path.exists());
/// ```
#[derive(Debug)]
pub struct TestDir {
    path: PathBuf,
}

impl TestDir {
    /// Creates `<tmp>/claude-agent-testkit-<label>-<pid>-<n>`.
    pub fn new(label: &str) -> std::io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "claude-agent-testkit-{label}-{}-{n}",
            std::process::id()
        ));
        // A leftover from a crashed run with the same pid is stale.
        if path.exists() {
            std::fs::remove_dir_all(&path)?;
        }
        std::fs::create_dir_all(&path)?;
        Ok(Self { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        // Best effort: a file still held open elsewhere must not fail the test.
        drop(std::fs::remove_dir_all(&self.path));
    }
}
