//! Finding (or building) the `fake-claude` executable from tests of other crates, which cannot
//! use `env!("CARGO_BIN_EXE_fake-claude")`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Environment variable naming a `fake-claude` executable to use as is.
pub const FAKE_CLAUDE_BIN_ENV: &str = "FAKE_CLAUDE_BIN";

/// Why the `fake-claude` executable is not available.
///
/// ```no_run
/// use claude_agent_testkit::fake_cli::{fake_claude_binary, FakeBinaryError};
///
/// match fake_claude_binary() {
///     Ok(path) => println!("fake CLI at {}", path.display()),
///     Err(FakeBinaryError::EnvPathMissing(path)) => panic!("FAKE_CLAUDE_BIN points at {path}, which does not exist"),
///     Err(error) => panic!("{error}"),
/// }
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FakeBinaryError {
    /// `FAKE_CLAUDE_BIN` names a missing file.
    #[error("{FAKE_CLAUDE_BIN_ENV}={0} does not exist")]
    EnvPathMissing(String),
    /// `cargo build` of the binary failed.
    #[error("building fake-claude failed: {0}")]
    Build(String),
}

fn exe_name() -> String {
    format!("fake-claude{}", std::env::consts::EXE_SUFFIX)
}

/// The path of the `fake-claude` executable, building it once per process if needed.
///
/// In order: `$FAKE_CLAUDE_BIN`; the binary next to the running test's own target directory
/// (present when the workspace's tests were built together); else
/// `cargo build -p claude-agent-testkit --bin fake-claude` into `<target>/fake-claude-build`
/// (a separate directory, because the outer `cargo test` may still hold the main one's lock).
///
/// ```no_run
/// let fake = claude_agent_testkit::fake_cli::fake_claude_binary().unwrap();
/// let mut cmd = std::process::Command::new(fake);
/// cmd.env("FAKE_CLAUDE_TRANSCRIPT", "tests/recordings/hello.jsonl");
/// ```
pub fn fake_claude_binary() -> Result<PathBuf, FakeBinaryError> {
    static FOUND: OnceLock<Result<PathBuf, FakeBinaryError>> = OnceLock::new();
    FOUND.get_or_init(locate_or_build).clone()
}

fn locate_or_build() -> Result<PathBuf, FakeBinaryError> {
    if let Some(path) = std::env::var_os(FAKE_CLAUDE_BIN_ENV).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.exists() {
            Ok(path)
        } else {
            Err(FakeBinaryError::EnvPathMissing(path.display().to_string()))
        };
    }
    // A test runs as <target>/<profile>/deps/<name>-<hash>: look in <target>/<profile>.
    let profile_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(Path::to_path_buf));
    if let Some(candidate) = profile_dir.as_ref().map(|d| d.join(exe_name())) {
        if candidate.exists() {
            return Ok(candidate);
        }
    }
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = profile_dir
        .as_ref()
        .and_then(|d| d.parent())
        .map_or_else(|| manifest_dir.join("../target"), Path::to_path_buf)
        .join("fake-claude-build");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--bin",
            "fake-claude",
            "--manifest-path",
        ])
        .arg(manifest_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .output()
        .map_err(|e| FakeBinaryError::Build(e.to_string()))?;
    if !output.status.success() {
        return Err(FakeBinaryError::Build(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    let built = target_dir.join("debug").join(exe_name());
    if built.exists() {
        Ok(built)
    } else {
        Err(FakeBinaryError::Build(format!(
            "cargo succeeded but {} is missing",
            built.display()
        )))
    }
}
