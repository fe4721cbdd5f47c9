//! Inputs of the workspace events: `ConfigChange`, `WorktreeCreate`, `WorktreeRemove`,
//! `InstructionsLoaded`, `CwdChanged`, `FileChanged` and `DirectoryAdded`.

use serde::Deserialize;

use super::HookBase;

/// `ConfigChange`: a settings file or skill changed.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct ConfigChangeInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// `user_settings`, `project_settings`, `local_settings`, `policy_settings` or `skills`.
    pub source: String,
    /// The file that changed.
    #[serde(default)]
    pub file_path: Option<String>,
}

/// `WorktreeCreate`: a git worktree is to be created; the hook answers with its path.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct WorktreeCreateInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The worktree's name.
    pub name: String,
}

/// `WorktreeRemove`: a git worktree is to be removed.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct WorktreeRemoveInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The worktree's path.
    pub worktree_path: String,
}

/// `InstructionsLoaded`: an instructions file was loaded.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct InstructionsLoadedInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The file.
    pub file_path: String,
    /// `User`, `Project`, `Local` or `Managed`.
    pub memory_type: String,
    /// `session_start`, `nested_traversal`, `path_glob_match`, `include` or `compact`.
    pub load_reason: String,
    /// The globs that matched.
    #[serde(default)]
    pub globs: Option<Vec<String>>,
    /// The file whose access triggered the load.
    #[serde(default)]
    pub trigger_file_path: Option<String>,
    /// The file that included this one.
    #[serde(default)]
    pub parent_file_path: Option<String>,
}

/// `CwdChanged`: the working directory changed.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct CwdChangedInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// Before.
    pub old_cwd: String,
    /// After.
    pub new_cwd: String,
}

/// `FileChanged`: a watched file changed.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct FileChangedInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The file.
    pub file_path: String,
    /// `change`, `add` or `unlink`.
    pub event: String,
}

/// `DirectoryAdded`: a working directory was added.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct DirectoryAddedInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The directory.
    pub directory: String,
    /// `slash_command` or `register_repo_root`.
    pub source: String,
}
