//! [`doctor`]: what in this environment would keep the CLI from starting, found without a model
//! call, each with its fix.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::Error;
use crate::message::{ApiError, StartupFailureReason};
use crate::options::{HostDeclarations, LaunchSpec, Options};
use crate::permission::PermissionMode;
use crate::session::CliVersion;

/// Variables that give the CLI credentials of their own (an API key, a token, a cloud
/// provider's login).
const CREDENTIAL_VARS: [&str; 6] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
];

/// What [`doctor`] found: the CLI it would start, its version, and what stands in the way.
///
/// ```no_run
/// use claude_agent_tokio::cli::doctor;
/// use claude_agent_tokio::options::Options;
///
/// let diagnosis = doctor(&Options::new());
/// for finding in &diagnosis.findings {
///     eprintln!("{finding}\n  fix: {}", finding.fix());
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnosis {
    /// The CLI a session with these options starts, when one was found.
    pub cli: Option<PathBuf>,
    /// The version it reports (`claude --version`).
    pub version: Option<CliVersion>,
    /// What would keep a session from starting or working; empty when nothing was found.
    pub findings: Vec<Finding>,
}

impl Diagnosis {
    /// Whether nothing was found.
    ///
    /// ```no_run
    /// # use claude_agent_tokio::cli::doctor;
    /// # use claude_agent_tokio::options::Options;
    /// assert!(doctor(&Options::new()).is_ok(), "fix the environment first");
    /// ```
    pub fn is_ok(&self) -> bool {
        self.findings.is_empty()
    }
}

/// One thing [`doctor`] found, with what to do about it ([`Finding::fix`]).
///
/// ```
/// use claude_agent_tokio::cli::Finding;
///
/// let finding = Finding::NoCredentials;
/// assert!(finding.fix().contains("ANTHROPIC_API_KEY"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finding {
    /// No CLI was found where sessions look for one.
    CliNotFound,
    /// The CLI's file is there but may not be executed (no execute permission, or a file
    /// system mounted `noexec`).
    CliNotExecutable {
        /// The executable.
        program: PathBuf,
    },
    /// The CLI is a script whose interpreter (its `#!` line: `node` for the npm package) is not
    /// there.
    CliInterpreterMissing {
        /// The executable.
        program: PathBuf,
        /// What its `#!` line names (`/usr/bin/env node`, …).
        interpreter: String,
    },
    /// The CLI was found but `--version` did not run.
    CliDoesNotRun {
        /// The executable.
        program: PathBuf,
        /// What went wrong (the OS error, or the exit status and output).
        error: String,
    },
    /// The CLI is older than this SDK supports.
    CliTooOld {
        /// Its version.
        version: CliVersion,
    },
    /// The CLI gave no version that reads as `major.minor.patch`: it may not be Claude Code.
    CliVersionUnreadable {
        /// What `--version` printed.
        output: String,
    },
    /// The working directory does not exist, or is not a directory.
    WorkingDirectoryMissing {
        /// The directory.
        path: PathBuf,
    },
    /// `bypassPermissions` while running as root: the CLI refuses to start
    /// ("cannot be used with root/sudo privileges") unless `IS_SANDBOX=1`.
    RootWithBypassPermissions,
    /// `CLAUDECODE` is set for the CLI: it takes itself for a session nested in Claude Code.
    NestedSession,
    /// `NODE_OPTIONS` is set for the CLI, which changes (or debugs) its JavaScript runtime.
    NodeOptions {
        /// The value.
        value: String,
    },
    /// Neither a credential variable nor a stored login was found: every model call would
    /// fail with an authentication error.
    NoCredentials,
}

impl Finding {
    /// What to do about it, in a sentence.
    ///
    /// ```
    /// use claude_agent_tokio::cli::Finding;
    ///
    /// assert!(Finding::NestedSession.fix().contains("CLAUDECODE"));
    /// ```
    pub fn fix(&self) -> String {
        match self {
            Finding::CliNotFound => format!(
                "install it (npm install -g @anthropic-ai/claude-code), or point `cli_path` or {} at it",
                super::discovery::CLI_PATH_ENV
            ),
            Finding::CliNotExecutable { program } => format!(
                "make it executable (chmod +x {}), or point `cli_path` at the real `claude`",
                program.display()
            ),
            Finding::CliInterpreterMissing { interpreter, .. } => format!(
                "install what its #! line names ({interpreter}: Node.js for the npm package), or put it on the PATH the CLI gets"
            ),
            Finding::CliDoesNotRun { .. } => {
                "check that it is the real `claude` and that the `node` its #! line names is on PATH".to_owned()
            }
            Finding::CliTooOld { .. } => format!(
                "update it to {} or later (npm install -g @anthropic-ai/claude-code)",
                CliVersion::MINIMUM
            ),
            Finding::CliVersionUnreadable { .. } => {
                "point `cli_path` at the Claude Code CLI".to_owned()
            }
            Finding::WorkingDirectoryMissing { .. } => {
                "create the directory, or fix `Options::cwd`".to_owned()
            }
            Finding::RootWithBypassPermissions => {
                "run as another user (`Options::user`), use another permission mode, or inside a sandbox set IS_SANDBOX=1".to_owned()
            }
            Finding::NestedSession => {
                "do not set CLAUDECODE in the options' environment (the SDK keeps the inherited one out)".to_owned()
            }
            Finding::NodeOptions { .. } => {
                "do not set NODE_OPTIONS in the options' environment (the SDK keeps the inherited one out)".to_owned()
            }
            Finding::NoCredentials => {
                "set ANTHROPIC_API_KEY (in the environment or `Options::env`), or log in once with `claude /login`".to_owned()
            }
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::CliNotFound => f.write_str("the Claude Code CLI was not found"),
            Finding::CliNotExecutable { program } => {
                write!(f, "{} is not executable", program.display())
            }
            Finding::CliInterpreterMissing {
                program,
                interpreter,
            } => write!(
                f,
                "{} needs {interpreter:?} (its #! line), which is not there",
                program.display()
            ),
            Finding::CliDoesNotRun { program, error } => {
                write!(f, "{} does not run: {error}", program.display())
            }
            Finding::CliTooOld { version } => write!(
                f,
                "Claude Code {version} is older than this SDK supports ({})",
                CliVersion::MINIMUM
            ),
            Finding::CliVersionUnreadable { output } => {
                write!(f, "the CLI's version is unreadable: {output:?}")
            }
            Finding::WorkingDirectoryMissing { path } => {
                write!(f, "the working directory {} does not exist", path.display())
            }
            Finding::RootWithBypassPermissions => f.write_str(
                "bypassPermissions as root: the CLI refuses to start without IS_SANDBOX=1",
            ),
            Finding::NestedSession => {
                f.write_str("CLAUDECODE is set: the CLI would take itself for a nested session")
            }
            Finding::NodeOptions { value } => {
                write!(f, "NODE_OPTIONS is set for the CLI ({value:?})")
            }
            Finding::NoCredentials => {
                f.write_str("no API key, token or stored login was found for the CLI")
            }
        }
    }
}

/// Checks what would keep a session with `options` from starting or working, without starting
/// one: that the CLI is found, runs (`claude --version`, the only process started) and is a
/// version this SDK supports; that the working directory exists; that the CLI would not refuse
/// `bypassPermissions` as root; that `CLAUDECODE` and `NODE_OPTIONS` are not set for it; and
/// that it has credentials (a credential variable, or a stored login in its configuration
/// folder; a login kept in the macOS keychain is not seen, so that check is skipped there).
///
/// It blocks while `--version` runs (well under a second): call it before starting sessions,
/// or from a blocking task.
///
/// ```no_run
/// use claude_agent_tokio::cli::doctor;
/// use claude_agent_tokio::options::Options;
///
/// let diagnosis = doctor(&Options::new().cwd("/srv/app"));
/// if let Some(version) = diagnosis.version {
///     println!("Claude Code {version}");
/// }
/// for finding in &diagnosis.findings {
///     eprintln!("{finding}: {}", finding.fix());
/// }
/// ```
pub fn doctor(options: &Options) -> Diagnosis {
    let mut findings = Vec::new();
    let program = super::discovery::find_cli(options.config().cli_path.as_deref()).ok();
    let spec = options
        .config()
        .launch_spec(
            program.clone().unwrap_or_else(|| PathBuf::from("claude")),
            &HostDeclarations::NONE,
        )
        .ok();
    let child_var = |name: &str| spec.as_ref().and_then(|spec| child_var(spec, name));
    let mut version = None;
    let mut cli = program;
    match &cli {
        None => findings.push(Finding::CliNotFound),
        Some(program) => match cli_version(program, spec.as_ref()) {
            Ok(Some(found)) => {
                version = Some(found);
                if !found.is_supported() {
                    findings.push(Finding::CliTooOld { version: found });
                }
            }
            Ok(None) => {}
            Err(finding) => {
                // A path given (`cli_path`, `CLAUDE_AGENT_CLI_PATH`) that is not there.
                if finding == Finding::CliNotFound {
                    cli = None;
                }
                findings.push(finding);
            }
        },
    }
    if let Some(cwd) = options.config().cwd.as_deref() {
        if !cwd.is_dir() {
            findings.push(Finding::WorkingDirectoryMissing {
                path: cwd.to_path_buf(),
            });
        }
    }
    let bypass =
        options.config().permission_mode.as_ref() == Some(&PermissionMode::BypassPermissions);
    if bypass
        && options.config().user.as_deref().is_none()
        && running_as_root()
        && child_var("IS_SANDBOX").as_deref() != Some("1")
    {
        findings.push(Finding::RootWithBypassPermissions);
    }
    if child_var("CLAUDECODE").is_some() {
        findings.push(Finding::NestedSession);
    }
    if let Some(value) = child_var("NODE_OPTIONS") {
        findings.push(Finding::NodeOptions { value });
    }
    if !cfg!(target_os = "macos")
        && !CREDENTIAL_VARS
            .iter()
            .any(|name| child_var(name).is_some_and(|v| !v.is_empty()))
        && !stored_login(&child_var)
    {
        findings.push(Finding::NoCredentials);
    }
    Diagnosis {
        cli,
        version,
        findings,
    }
}

/// The value the CLI would see for `name`: set by the options, or inherited unless removed.
fn child_var(spec: &LaunchSpec, name: &str) -> Option<String> {
    if let Some((_, value)) = spec.env.iter().rev().find(|(n, _)| n == name) {
        return Some(value.clone());
    }
    if spec.env_remove.iter().any(|n| n == name) {
        return None;
    }
    if let Some(only) = &spec.inherit_only {
        if !only.iter().any(|n| n == name) {
            return None;
        }
    }
    std::env::var(name).ok()
}

/// `claude --version`, with the environment the session would give it.
fn cli_version(program: &Path, spec: Option<&LaunchSpec>) -> Result<Option<CliVersion>, Finding> {
    let mut command = Command::new(program);
    command
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped());
    if let Some(spec) = spec {
        if spec.inherit_only.is_some() {
            command.env_clear();
            for name in spec.inherit_only.iter().flatten() {
                if let Some(value) = std::env::var_os(name) {
                    command.env(name, value);
                }
            }
        }
        for name in &spec.env_remove {
            command.env_remove(name);
        }
        command.envs(spec.env.iter().map(|(n, v)| (n, v)));
    }
    let output = command
        .output()
        .map_err(|error| not_started(program, None, &error))?;
    let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Finding::CliDoesNotRun {
            program: program.to_path_buf(),
            error: format!("{}: {}", output.status, stderr.trim()),
        });
    }
    match CliVersion::parse(&stdout) {
        Some(version) => Ok(Some(version)),
        None => Err(Finding::CliVersionUnreadable { output: stdout }),
    }
}

/// Why the operating system would not start `program` in `cwd` (`error`, from the spawn): the
/// one reading of a failed start, for [`doctor`] and for the error a session's start gives
/// ([`Error::finding`](crate::Error::finding)). The OS says only "not found" when the
/// working directory, the program or its script's interpreter is missing, and only
/// "permission denied" for a file that may not be executed, so the files are looked at.
pub(crate) fn not_started(program: &Path, cwd: Option<&Path>, error: &io::Error) -> Finding {
    if let Some(dir) = cwd.filter(|dir| !dir.is_dir()) {
        return Finding::WorkingDirectoryMissing {
            path: dir.to_path_buf(),
        };
    }
    let program_buf = program.to_path_buf();
    if !program.is_file() {
        if error.kind() == io::ErrorKind::NotFound {
            return Finding::CliNotFound;
        }
    } else if error.kind() == io::ErrorKind::NotFound {
        if let Some(interpreter) = interpreter_of(program) {
            return Finding::CliInterpreterMissing {
                program: program_buf,
                interpreter,
            };
        }
    } else if error.kind() == io::ErrorKind::PermissionDenied {
        return Finding::CliNotExecutable {
            program: program_buf,
        };
    }
    Finding::CliDoesNotRun {
        program: program_buf,
        error: error.to_string(),
    }
}

/// What the `#!` line of the script `program` names, if it has one.
fn interpreter_of(program: &Path) -> Option<String> {
    let mut head = [0u8; 256];
    let read = std::io::Read::read(&mut std::fs::File::open(program).ok()?, &mut head).ok()?;
    let line = head[..read].strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    Some(String::from_utf8_lossy(line).trim().to_owned()).filter(|s| !s.is_empty())
}

/// Whether this process runs as root (Linux: `/proc/self/status`; elsewhere not known, so no).
fn running_as_root() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .is_some_and(|effective| effective == "0")
}

/// Whether the CLI's configuration folder holds a stored login (`.credentials.json`).
fn stored_login(child_var: &dyn Fn(&str) -> Option<String>) -> bool {
    let config = child_var("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| child_var("HOME").map(|home| Path::new(&home).join(".claude")));
    config.is_some_and(|dir| dir.join(".credentials.json").is_file())
}

impl Error {
    /// What in the environment made the session fail, when it is one of the causes [`doctor`]
    /// checks, named as `doctor` names it (the same [`Finding`](crate::cli::Finding), so the
    /// same fix): a CLI not found, not executable, missing its interpreter or otherwise not
    /// started, a working directory that is gone, `bypassPermissions` as root (from the CLI's
    /// start-up failure, or its stderr), no credentials (an authentication failure of the API).
    /// `None` for anything else.
    ///
    /// [`doctor`]: crate::cli::doctor
    ///
    /// ```
    /// use claude_agent_tokio::{Error, cli::Finding};
    ///
    /// fn explain(error: &Error) {
    ///     match error.finding() {
    ///         Some(finding) => eprintln!("{finding}: {}", finding.fix()),
    ///         None => eprintln!("{error}"),
    ///     }
    /// }
    /// # let _ = explain;
    /// ```
    pub fn finding(&self) -> Option<Finding> {
        match self {
            Error::CliNotFound { .. } => Some(Finding::CliNotFound),
            Error::Spawn { program, source } => Some(not_started(program, None, source)),
            Error::WorkingDirectory { path, .. } => {
                Some(Finding::WorkingDirectoryMissing { path: path.clone() })
            }
            Error::StartFailed {
                failure,
                stderr_tail,
            } if failure.reason == Some(StartupFailureReason::BypassRoot)
                || stderr_tail.contains("cannot be used with root/sudo privileges") =>
            {
                Some(Finding::RootWithBypassPermissions)
            }
            Error::Result(result) if result.api_error == Some(ApiError::AuthenticationFailed) => {
                Some(Finding::NoCredentials)
            }
            _ => None,
        }
    }
}
