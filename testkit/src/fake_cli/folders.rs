//! Where a fake CLI keeps its transcripts: found from its environment and working folder as
//! the real CLI finds its own, so that a session store takes its `transcript_mirror` frames.

use std::path::{Path, PathBuf};

use claude_agent_client::store::project_key_for_directory;

/// The folder a CLI started in `cwd` keeps its session transcripts in: below `projects_dir`
/// (its configuration folder's `projects`, [`History::projects_dir`]), `cwd` named as the CLI
/// names project folders.
///
/// ```
/// use std::path::Path;
/// use claude_agent_testkit::fake_cli::transcript_folder;
/// use claude_agent_tokio::history::History;
///
/// let history = History::at("/home/me/.claude");
/// let folder = transcript_folder(&history.projects_dir(), Path::new("/nonexistent/my_app"));
/// assert_eq!(folder, Path::new("/home/me/.claude/projects/-nonexistent-my-app"));
/// ```
///
/// [`History::projects_dir`]: claude_agent_client::history::History::projects_dir
pub fn transcript_folder(projects_dir: &Path, cwd: &Path) -> PathBuf {
    projects_dir.join(project_key_for_directory(Some(cwd)))
}

/// The `projects` folder of a CLI whose environment `var` reads: in `$CLAUDE_CONFIG_DIR`, else
/// in `$HOME/.claude`; `None` when neither is set.
pub(crate) fn projects_dir(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|value| !value.is_empty());
    let config = set("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| Path::new(&home).join(".claude")))?;
    Some(config.join("projects"))
}
