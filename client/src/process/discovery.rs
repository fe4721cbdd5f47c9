//! Finding the `claude` executable: where to look is the options' ([`AgentConfig::cli_location`](crate::options::AgentConfig::cli_location),
//! from the process's environment); which place holds an executable is looked up here.
//!
//! Order: the path set in the options, then `CLAUDE_AGENT_CLI_PATH`, then a CLI shipped beside
//! the program (`_bundled/claude`, then `claude`, in the directory of the current executable),
//! then `PATH`, then the places npm, yarn and the native installer put it.

use std::path::{Path, PathBuf};

use crate::error::{Error, INSTALL_HINT};
pub use crate::options::CLI_PATH_ENV;
use crate::options::{CliLocation, CliSearch};

/// Find the CLI executable, or say everywhere it was looked for.
///
/// `explicit` (from the options) and `CLAUDE_AGENT_CLI_PATH` are used as given: a missing file
/// there shows up when it is started. Then a CLI shipped with the program is used: an executable
/// `_bundled/claude` (`_bundled\claude.exe` on Windows) in the directory of the current
/// executable, as the Python SDK bundles one in its package, or `claude` in that directory
/// itself (never the current executable, should it be named `claude`). Then `PATH`, then the
/// places npm, yarn and the native installer put it
/// ([`AgentConfig::cli_location`](crate::options::AgentConfig::cli_location) lists them).
///
/// ```
/// # use claude_agent_tokio::cli::find_cli;
/// let path = find_cli(Some("/opt/claude/bin/claude".as_ref())).unwrap();
/// assert_eq!(path, std::path::Path::new("/opt/claude/bin/claude"));
/// ```
pub fn find_cli(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    let search = CliSearch {
        cli_path_env: std::env::var_os(CLI_PATH_ENV),
        program: std::env::current_exe().ok(),
        path_var: std::env::var_os("PATH"),
        home: home_dir(),
    };
    match search.locate(explicit) {
        CliLocation::Named(path) => Ok(path),
        CliLocation::Candidates(places) => first_executable(places, search.program.as_deref()),
        // A kind of answer newer than this layer: no place it knows to look.
        _ => first_executable(Vec::new(), None),
    }
}

/// The first of `places` that is an executable file other than `program`, or every place
/// looked at.
fn first_executable(mut places: Vec<PathBuf>, program: Option<&Path>) -> Result<PathBuf, Error> {
    let found = places
        .iter()
        .position(|place| is_executable(place) && !is_same_file(place, program));
    if let Some(at) = found {
        return Ok(places.swap_remove(at));
    }
    Err(Error::CliNotFound {
        searched: places,
        hint: INSTALL_HINT,
    })
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
    use std::ffi::OsString;

    use super::*;

    /// Look beside `program`, then through `path_var`, then in the well-known places under `home`.
    fn search(
        program: Option<&Path>,
        path_var: Option<OsString>,
        home: Option<PathBuf>,
    ) -> Result<PathBuf, Error> {
        let search = CliSearch {
            cli_path_env: None,
            program: program.map(Path::to_path_buf),
            path_var,
            home,
        };
        match search.locate(None) {
            CliLocation::Candidates(places) => first_executable(places, program),
            other => panic!("no search without a named path: {other:?}"),
        }
    }

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
