//! Where the CLI is looked for: a function of what the host knows of its environment, which
//! the host passes in ([`CliSearch`]); checking which candidate is an executable file is the
//! host's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::AgentConfig;

/// Environment variable naming the CLI executable; used when the options name none.
pub const CLI_PATH_ENV: &str = "CLAUDE_AGENT_CLI_PATH";

#[cfg(windows)]
const EXE: &str = "claude.exe";
#[cfg(not(windows))]
const EXE: &str = "claude";

/// What the host knows of its environment that decides where the CLI is looked for. Plain
/// data: the client layer fills it from the process ([`CliSearch::default`] knows nothing);
/// a test writes it out.
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, CliLocation, CliSearch};
///
/// let search = CliSearch {
///     path_var: Some("/usr/bin:/opt/tools/bin".into()),
///     ..CliSearch::default()
/// };
/// let CliLocation::Candidates(places) = AgentConfig::default().cli_location(&search) else { panic!() };
/// assert_eq!(places[..2], ["/usr/bin/claude".into(), "/opt/tools/bin/claude".into()] as [std::path::PathBuf; 2]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliSearch {
    /// The value of [`CLI_PATH_ENV`], if set.
    pub cli_path_env: Option<OsString>,
    /// The running program (`std::env::current_exe`): a CLI shipped beside it comes first, and
    /// the program itself is never taken for the CLI.
    pub program: Option<PathBuf>,
    /// The value of `PATH`.
    pub path_var: Option<OsString>,
    /// The user's home folder (`HOME`; `USERPROFILE` on Windows), for the places npm, yarn
    /// and the native installer put the CLI.
    pub home: Option<PathBuf>,
}

/// Where the CLI is ([`AgentConfig::cli_location`]).
///
/// ```
/// use claude_agent_tokio::options::{AgentConfig, CliLocation, CliSearch};
///
/// let mut config = AgentConfig::default();
/// config.cli_path = Some("/opt/claude/bin/claude".into());
/// let named = config.cli_location(&CliSearch::default());
/// assert_eq!(named, CliLocation::Named("/opt/claude/bin/claude".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CliLocation {
    /// Named by [`AgentConfig::cli_path`] or [`CLI_PATH_ENV`]: used as it is (a missing file shows
    /// when it is started).
    Named(PathBuf),
    /// To look for: the first of these places, in order, that holds an executable file other
    /// than the program itself. Each place is listed once.
    Candidates(Vec<PathBuf>),
}

impl AgentConfig {
    /// Where the CLI is, for what the host knows of its environment: [`AgentConfig::cli_path`], then
    /// [`CLI_PATH_ENV`], both used as given; else, to look for in order, a CLI shipped with the
    /// program (`_bundled/claude`, then `claude`, in the program's folder, as the Python SDK
    /// bundles one), each folder of `PATH`, then the places npm, yarn and the native installer
    /// put it (`~/.npm-global/bin`, `/usr/local/bin`, `~/.local/bin`, `~/node_modules/.bin`,
    /// `~/.yarn/bin`, `~/.claude/local`).
    ///
    /// ```
    /// use std::path::PathBuf;
    /// use claude_agent_tokio::options::{AgentConfig, CliLocation, CliSearch};
    ///
    /// let search = CliSearch {
    ///     program: Some("/srv/agent/my-agent".into()),
    ///     home: Some("/home/ada".into()),
    ///     ..CliSearch::default()
    /// };
    /// let CliLocation::Candidates(places) = AgentConfig::default().cli_location(&search) else { panic!() };
    /// assert_eq!(places[0], PathBuf::from("/srv/agent/_bundled/claude"));
    /// assert!(places.contains(&PathBuf::from("/home/ada/.local/bin/claude")));
    ///
    /// // The variable names one: no search.
    /// let named = CliSearch { cli_path_env: Some("/opt/claude".into()), ..search };
    /// assert_eq!(AgentConfig::default().cli_location(&named), CliLocation::Named("/opt/claude".into()));
    /// ```
    pub fn cli_location(&self, search: &CliSearch) -> CliLocation {
        search.locate(self.cli_path.as_deref())
    }
}

impl CliSearch {
    /// Where the CLI is: `named` if given, else what [`AgentConfig::cli_location`] finds.
    ///
    /// ```
    /// use claude_agent_tokio::options::{CliLocation, CliSearch};
    ///
    /// let search = CliSearch { path_var: Some("/usr/bin".into()), ..CliSearch::default() };
    /// assert_eq!(search.locate(Some("/opt/claude".as_ref())), CliLocation::Named("/opt/claude".into()));
    /// assert!(matches!(search.locate(None), CliLocation::Candidates(_)));
    /// ```
    pub fn locate(&self, named: Option<&Path>) -> CliLocation {
        cli_location(named, self)
    }
}

/// [`CliSearch::locate`].
fn cli_location(named: Option<&Path>, search: &CliSearch) -> CliLocation {
    if let Some(path) = named {
        return CliLocation::Named(path.to_path_buf());
    }
    if let Some(path) = search.cli_path_env.as_ref().filter(|p| !p.is_empty()) {
        return CliLocation::Named(PathBuf::from(path));
    }
    // `split_paths` only splits the `PATH` value the host handed in: no environment is read.
    let on_path = search
        .path_var
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(EXE));
    let mut places: Vec<PathBuf> = Vec::new();
    for place in bundled(search.program.as_deref())
        .into_iter()
        .chain(on_path)
        .chain(well_known(search.home.as_deref()))
    {
        // A folder listed twice on PATH, or a well-known place also on PATH: once.
        if !places.contains(&place) {
            places.push(place);
        }
    }
    CliLocation::Candidates(places)
}

/// A CLI shipped with the program: `_bundled/claude`, then `claude`, in its folder.
fn bundled(program: Option<&Path>) -> Vec<PathBuf> {
    let Some(dir) = program.and_then(Path::parent) else {
        return Vec::new();
    };
    vec![dir.join("_bundled").join(EXE), dir.join(EXE)]
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn candidates(search: &CliSearch) -> Vec<PathBuf> {
        match cli_location(None, search) {
            CliLocation::Candidates(places) => places,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_options_then_the_variable_name_the_cli_and_an_empty_variable_does_not() {
        let search = CliSearch {
            cli_path_env: Some("/from/env".into()),
            ..CliSearch::default()
        };
        assert_eq!(
            cli_location(Some(Path::new("/from/options")), &search),
            CliLocation::Named("/from/options".into())
        );
        assert_eq!(
            cli_location(None, &search),
            CliLocation::Named("/from/env".into())
        );
        let empty = CliSearch {
            cli_path_env: Some(OsString::new()),
            ..CliSearch::default()
        };
        assert!(matches!(
            cli_location(None, &empty),
            CliLocation::Candidates(_)
        ));
    }

    #[test]
    fn beside_the_program_then_path_then_the_installers_places_each_once() {
        let search = CliSearch {
            program: Some("/app/my-agent".into()),
            path_var: Some("/a:/a:/home/ada/.local/bin".into()),
            home: Some("/home/ada".into()),
            ..CliSearch::default()
        };
        let places = candidates(&search);
        assert_eq!(
            places[..4],
            [
                PathBuf::from("/app/_bundled/claude"),
                PathBuf::from("/app/claude"),
                PathBuf::from("/a/claude"),
                PathBuf::from("/home/ada/.local/bin/claude"),
            ]
        );
        let mut unique = places.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), places.len(), "{places:?}");
        assert!(places.contains(&PathBuf::from("/usr/local/bin/claude")));
        assert_eq!(
            places.last(),
            Some(&PathBuf::from("/home/ada/.claude/local/claude"))
        );
    }
}
