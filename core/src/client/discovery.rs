//! Finding the `claude` executable.
//!
//! Order: the path set in the options, then `CLAUDE_AGENT_CLI_PATH`, then `PATH`, then the places
//! npm, yarn and the native installer put it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::error::{Error, INSTALL_HINT};

/// Environment variable naming the CLI executable; used when the options name none.
pub const CLI_PATH_ENV: &str = "CLAUDE_AGENT_CLI_PATH";

#[cfg(windows)]
const EXE: &str = "claude.exe";
#[cfg(not(windows))]
const EXE: &str = "claude";

/// Find the CLI executable, or say everywhere it was looked for.
///
/// `explicit` (from the options) and `CLAUDE_AGENT_CLI_PATH` are used as given: a missing file
/// there shows up when it is started.
///
/// ```
/// # use claude_agent_core::client::find_cli;
/// let path = find_cli(Some("/opt/claude/bin/claude".as_ref())).unwrap();
/// assert_eq!(path, std::path::Path::new("/opt/claude/bin/claude"));
/// ```
pub fn find_cli(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os(CLI_PATH_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    search(std::env::var_os("PATH"), home_dir())
}

/// Look through `path_var` and then the well-known install locations under `home`.
fn search(path_var: Option<OsString>, home: Option<PathBuf>) -> Result<PathBuf, Error> {
    let mut searched = Vec::new();
    let on_path = path_var
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(EXE));
    for candidate in on_path.chain(well_known(home.as_deref())) {
        // A directory listed twice on PATH, or a well-known place also on PATH: look once.
        if searched.contains(&candidate) {
            continue;
        }
        if is_executable(&candidate) {
            return Ok(candidate);
        }
        searched.push(candidate);
    }
    Err(Error::CliNotFound {
        searched,
        hint: INSTALL_HINT,
    })
}

fn well_known(home: Option<&Path>) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if cfg!(windows) {
        if let Some(home) = home {
            paths.push(home.join(".local/bin").join(EXE));
        }
        return paths;
    }
    if let Some(home) = home {
        paths.push(home.join(".npm-global/bin/claude"));
    }
    paths.push(PathBuf::from("/usr/local/bin/claude"));
    if let Some(home) = home {
        for rel in [
            ".local/bin/claude",
            "node_modules/.bin/claude",
            ".yarn/bin/claude",
            ".claude/local/claude",
        ] {
            paths.push(home.join(rel));
        }
    }
    paths
}

fn home_dir() -> Option<PathBuf> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var_os(var)
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn finds_an_executable_on_path_before_well_known_places() {
        let dir = std::env::temp_dir().join(format!("claude-discovery-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("claude");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let found = search(Some(dir.clone().into_os_string()), None).unwrap();
        assert_eq!(found, exe);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lists_every_place_it_looked() {
        if Path::new("/usr/local/bin/claude").exists() {
            return; // a real install would be found; nothing to assert here
        }
        let home = PathBuf::from("/nonexistent-home");
        let err = search(
            Some(OsString::from("/nonexistent-a:/nonexistent-b")),
            Some(home),
        )
        .unwrap_err();
        let Error::CliNotFound { searched, hint } = err else {
            panic!("expected CliNotFound, got {err:?}")
        };
        assert_eq!(hint, INSTALL_HINT);
        assert_eq!(searched[0], PathBuf::from("/nonexistent-a/claude"));
        assert_eq!(searched[1], PathBuf::from("/nonexistent-b/claude"));
        assert!(searched.contains(&PathBuf::from("/nonexistent-home/.claude/local/claude")));
        assert!(searched.contains(&PathBuf::from("/usr/local/bin/claude")));
    }

    #[test]
    fn lists_each_place_once() {
        if Path::new("/usr/local/bin/claude").exists() {
            return; // a real install would be found; nothing to assert here
        }
        // A directory twice on PATH, and a well-known place that is also on PATH.
        let path_var = std::env::join_paths([
            "/nonexistent-a",
            "/nonexistent-a",
            "/nonexistent-home/.local/bin",
        ])
        .unwrap();
        let err = search(Some(path_var), Some(PathBuf::from("/nonexistent-home"))).unwrap_err();
        let Error::CliNotFound { searched, .. } = err else {
            panic!("expected CliNotFound, got {err:?}")
        };
        let mut unique = searched.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), searched.len(), "{searched:?}");
        assert_eq!(searched[0], PathBuf::from("/nonexistent-a/claude"));
        assert_eq!(
            searched[1],
            PathBuf::from("/nonexistent-home/.local/bin/claude")
        );
    }
}
