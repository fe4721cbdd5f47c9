//! Inputs of the workspace events: `ConfigChange`, `WorktreeCreate`, `WorktreeRemove`,
//! `InstructionsLoaded`, `CwdChanged`, `FileChanged` and `DirectoryAdded`.

use serde::Deserialize;

use super::HookBase;

/// `ConfigChange`: a settings file or skill changed.
///
/// ```
/// use claude_agent_tokio::hooks::{ConfigChangeInput, HookOutput};
///
/// /// Stop when the managed settings change under the session.
/// fn stop_on_policy_change(input: &ConfigChangeInput) -> HookOutput {
///     if input.source == "policy_settings" {
///         return HookOutput::stop("Managed settings changed; restart the session.");
///     }
///     HookOutput::default()
/// }
///
/// let input: ConfigChangeInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"ConfigChange","source":"project_settings","file_path":"/tmp/ws/.claude/settings.json"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.file_path.as_deref(), Some("/tmp/ws/.claude/settings.json"));
/// assert_eq!(stop_on_policy_change(&input), HookOutput::default()); // project settings: go on
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, HookSpecificOutput, WorktreeCreateInput, WorktreeCreateOutput};
///
/// /// Put worktrees under `/tmp/worktrees`.
/// fn create_worktree(input: &WorktreeCreateInput) -> HookOutput {
///     let path = format!("/tmp/worktrees/{}", input.name);
///     // … run `git worktree add` for `path` here …
///     HookOutput::default()
///         .with_hook_specific_output(HookSpecificOutput::WorktreeCreate(WorktreeCreateOutput { worktree_path: path }))
/// }
///
/// let input: WorktreeCreateInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"WorktreeCreate","name":"fix-flaky-test"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.name, "fix-flaky-test");
/// assert_eq!(
///     create_worktree(&input).to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"WorktreeCreate","worktreePath":"/tmp/worktrees/fix-flaky-test"}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct WorktreeCreateInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The worktree's name.
    pub name: String,
}

/// `WorktreeRemove`: a git worktree is to be removed.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, WorktreeRemoveInput};
///
/// fn log_removal(input: &WorktreeRemoveInput) -> HookOutput {
///     eprintln!("removing {}", input.worktree_path);
///     HookOutput::default()
/// }
///
/// let input: WorktreeRemoveInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"WorktreeRemove","worktree_path":"/tmp/worktrees/fix-flaky-test"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.worktree_path, "/tmp/worktrees/fix-flaky-test");
/// assert_eq!(log_removal(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct WorktreeRemoveInput {
    /// The common fields.
    #[serde(flatten)]
    pub base: HookBase,
    /// The worktree's path.
    pub worktree_path: String,
}

/// `InstructionsLoaded`: an instructions file was loaded.
///
/// ```
/// use claude_agent_tokio::hooks::{HookOutput, InstructionsLoadedInput};
///
/// fn log_instructions(input: &InstructionsLoadedInput) -> HookOutput {
///     eprintln!("loaded {} ({}, {})", input.file_path, input.memory_type, input.load_reason);
///     HookOutput::default()
/// }
///
/// let input: InstructionsLoadedInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"InstructionsLoaded","file_path":"/tmp/ws/CLAUDE.md","memory_type":"Project",
///     "load_reason":"session_start"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.memory_type.as_str(), input.load_reason.as_str()), ("Project", "session_start"));
/// assert_eq!(input.globs, None);
/// assert_eq!(log_instructions(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
///
/// ```
/// use claude_agent_tokio::hooks::{CwdChangedInput, HookOutput, HookSpecificOutput, WatchPathsOutput};
///
/// /// Watch the new directory's manifest (changes to it fire `FileChanged`).
/// fn watch_manifest(input: &CwdChangedInput) -> HookOutput {
///     let watch = WatchPathsOutput { watch_paths: Some(vec![format!("{}/Cargo.toml", input.new_cwd)]) };
///     HookOutput::default().with_hook_specific_output(HookSpecificOutput::CwdChanged(watch))
/// }
///
/// let input: CwdChangedInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"CwdChanged","old_cwd":"/tmp/ws","new_cwd":"/tmp/ws/core"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.old_cwd.as_str(), input.new_cwd.as_str()), ("/tmp/ws", "/tmp/ws/core"));
/// assert_eq!(
///     watch_manifest(&input).to_wire_json(),
///     r#"{"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":["/tmp/ws/core/Cargo.toml"]}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
///
/// ```
/// use claude_agent_tokio::hooks::{FileChangedInput, HookOutput};
///
/// /// Tell the user about changes made outside the session.
/// fn note_change(input: &FileChangedInput) -> HookOutput {
///     let note = format!("{} was {}d outside the session.", input.file_path, input.event);
///     HookOutput::default().with_system_message(note)
/// }
///
/// let input: FileChangedInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"FileChanged","file_path":"/tmp/ws/Cargo.toml","event":"change"}"#,
/// )
/// .unwrap();
/// assert_eq!((input.file_path.as_str(), input.event.as_str()), ("/tmp/ws/Cargo.toml", "change"));
/// assert_eq!(
///     note_change(&input).system_message.as_deref(),
///     Some("/tmp/ws/Cargo.toml was changed outside the session.")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
///
/// ```
/// use claude_agent_tokio::hooks::{DirectoryAddedInput, HookOutput};
///
/// fn log_directory(input: &DirectoryAddedInput) -> HookOutput {
///     eprintln!("now also working in {} (via {})", input.directory, input.source);
///     HookOutput::default()
/// }
///
/// let input: DirectoryAddedInput = serde_json::from_str(
///     r#"{"session_id":"739ce4ca-b59b-45ac-8b21-272330895f34","cwd":"/tmp/ws","permission_mode":"default",
///     "transcript_path":"/home/user/.claude/projects/-tmp-ws/739ce4ca-b59b-45ac-8b21-272330895f34.jsonl",
///     "hook_event_name":"DirectoryAdded","directory":"/tmp/shared-lib","source":"slash_command"}"#,
/// )
/// .unwrap();
/// assert_eq!(input.directory, "/tmp/shared-lib");
/// assert_eq!(log_directory(&input), HookOutput::default());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
