//! Finding the `claude` executable.
//!
//! Order: the path set in the options, then `CLAUDE_AGENT_CLI_PATH`, then a CLI shipped beside
//! the program (`_bundled/claude`, then `claude`, in the directory of the current executable),
//! then `PATH`, then the places npm, yarn and the native installer put it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::client::error::{Error, INSTALL_HINT};

/// Environment variable naming the CLI executable; used when the options name none.
pub const CLI_PATH_ENV: &str = "CLAUDE_AGENT_CLI_PATH";

#[cfg(windows)]
const EXE: &str = "claude.exe";
#[cfg(not(windows))]
const EXE: &str = "claude";

/// Find the CLI executable, or say everywhere it was looked for.
///
/// `explicit` (from the options) and `CLAUDE_AGENT_CLI_PATH` are used as given: a missing file
/// there shows up when it is started. Then a CLI shipped with the program is used: an executable
/// `_bundled/claude` (`_bundled\claude.exe` on Windows) in the directory of the current
/// executable, as the Python SDK bundles one in its package, or `claude` in that directory
/// itself (never the current executable, should it be named `claude`). Then `PATH`, then the
/// places npm, yarn and the native installer put it.
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
    let program = std::env::current_exe().ok();
    search(program.as_deref(), std::env::var_os("PATH"), home_dir())
}

/// Look beside `program` (the current executable), then through `path_var`, then in the
/// well-known install locations under `home`.
fn search(
    program: Option<&Path>,
    path_var: Option<OsString>,
    home: Option<PathBuf>,
) -> Result<PathBuf, Error> {
    let mut searched = Vec::new();
    let on_path = path_var
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(EXE));
    let candidates = bundled(program)
        .into_iter()
        .chain(on_path)
        .chain(well_known(home.as_deref()));
    for candidate in candidates {
        // A directory listed twice on PATH, or a well-known place also on PATH: look once.
        if searched.contains(&candidate) {
            continue;
        }
        if is_executable(&candidate) && !is_same_file(&candidate, program) {
            return Ok(candidate);
        }
        searched.push(candidate);
    }
    Err(Error::CliNotFound {
        searched,
        hint: INSTALL_HINT,
    })
}

/// A CLI shipped with the program: `_bundled/claude`, then `claude`, in its directory.
fn bundled(program: Option<&Path>) -> Vec<PathBuf> {
    let Some(dir) = program.and_then(Path::parent) else {
        return Vec::new();
    };
    vec![dir.join("_bundled").join(EXE), dir.join(EXE)]
}

/// Whether `candidate` is the program itself (a program named `claude` must not start itself).
fn is_same_file(candidate: &Path, program: Option<&Path>) -> bool {
    let Some(program) = program else {
        return false;
    };
    match (candidate.canonicalize(), program.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => candidate == program,
    }
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
        let found = search(None, Some(dir.clone().into_os_string()), None).unwrap();
        assert_eq!(found, exe);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_cli_shipped_beside_the_program_comes_before_path() {
        let root = std::env::temp_dir().join(format!("claude-bundled-{}", std::process::id()));
        let (app, on_path) = (root.join("app"), root.join("bin"));
        let program = app.join("my-agent");
        for exe in [&program, &app.join("claude"), &on_path.join("claude")] {
            executable(exe);
        }
        let path_var = Some(on_path.clone().into_os_string());
        // `claude` beside the program, before PATH.
        let found = search(Some(&program), path_var.clone(), None).unwrap();
        assert_eq!(found, app.join("claude"));
        // `_bundled/claude` before that.
        executable(&app.join("_bundled/claude"));
        let found = search(Some(&program), path_var.clone(), None).unwrap();
        assert_eq!(found, app.join("_bundled/claude"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_program_named_claude_does_not_find_itself() {
        let root = std::env::temp_dir().join(format!("claude-itself-{}", std::process::id()));
        let (program, on_path) = (root.join("app/claude"), root.join("bin/claude"));
        executable(&program);
        executable(&on_path);
        let path_var = Some(root.join("bin").into_os_string());
        let found = search(Some(&program), path_var, None).unwrap();
        assert_eq!(found, on_path);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn lists_every_place_it_looked() {
        if Path::new("/usr/local/bin/claude").exists() {
            return; // a real install would be found; nothing to assert here
        }
        let home = PathBuf::from("/nonexistent-home");
        let program = Path::new("/nonexistent-app/my-agent");
        let err = search(
            Some(program),
            Some(OsString::from("/nonexistent-a:/nonexistent-b")),
            Some(home),
        )
        .unwrap_err();
        let Error::CliNotFound { searched, hint } = err else {
            panic!("expected CliNotFound, got {err:?}")
        };
        assert_eq!(hint, INSTALL_HINT);
        assert_eq!(
            searched[..4],
            [
                PathBuf::from("/nonexistent-app/_bundled/claude"),
                PathBuf::from("/nonexistent-app/claude"),
                PathBuf::from("/nonexistent-a/claude"),
                PathBuf::from("/nonexistent-b/claude"),
            ]
        );
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
        let err = search(
            None,
            Some(path_var),
            Some(PathBuf::from("/nonexistent-home")),
        )
        .unwrap_err();
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
