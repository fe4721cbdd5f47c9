//! [`SessionKey`]: which transcript of which session of which project, at the crate root (and
//! as `store::SessionKey` in the client layer); `message`'s `mirror_error` carries one.

use std::fmt;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};

/// Names one transcript in a store: a project, a session, and for a subagent's transcript a
/// subpath (`subagents/agent-<id>`, `/`-separated on every platform).
///
/// It serializes as `{"project_key":…,"session_id":…,"subpath":…}` (no `subpath` for a main
/// transcript), the shape of the key in a `mirror_error` message.
///
/// ```
/// use claude_agent_tokio::store::SessionKey;
///
/// let main = SessionKey::new("-home-me-app", "13dbd64f-f8d4-4686-ab4c-e5b537e0a952");
/// let agent = main.clone().with_subpath("subagents/agent-a1");
/// assert!(main.is_main() && !agent.is_main());
/// assert_eq!(agent.to_string(), "-home-me-app/13dbd64f-f8d4-4686-ab4c-e5b537e0a952/subagents/agent-a1");
/// assert_eq!(
///     serde_json::to_value(&main).unwrap(),
///     serde_json::json!({"project_key": "-home-me-app", "session_id": "13dbd64f-f8d4-4686-ab4c-e5b537e0a952"}),
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionKey {
    /// The project: by default the folder name the CLI gives the working directory
    /// (`store::project_key_for_directory` in the client layer).
    #[serde(alias = "projectKey")]
    pub project_key: String,
    /// The session id.
    #[serde(alias = "sessionId")]
    pub session_id: String,
    /// For a subagent's transcript, its path under the session; `None` for the main transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
}

impl SessionKey {
    /// The key of a session's main transcript.
    ///
    /// ```
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// assert_eq!(SessionKey::new("proj", "sess").subpath, None);
    /// ```
    pub fn new(project_key: impl Into<String>, session_id: impl Into<String>) -> SessionKey {
        SessionKey {
            project_key: project_key.into(),
            session_id: session_id.into(),
            subpath: None,
        }
    }

    /// This key with a subpath: a subagent's transcript of the same session.
    ///
    /// ```
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// let key = SessionKey::new("proj", "sess").with_subpath("subagents/agent-1");
    /// assert_eq!(key.subpath.as_deref(), Some("subagents/agent-1"));
    /// ```
    pub fn with_subpath(mut self, subpath: impl Into<String>) -> SessionKey {
        self.subpath = Some(subpath.into());
        self
    }

    /// Whether this is a main transcript (no subpath).
    ///
    /// ```
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// assert!(SessionKey::new("proj", "sess").is_main());
    /// ```
    pub fn is_main(&self) -> bool {
        self.subpath.is_none()
    }

    /// The key of the transcript file `path` the CLI wrote under `projects_dir`
    /// (`<config>/projects`): `<project>/<session>.jsonl` is a main transcript,
    /// `<project>/<session>/<subpath>.jsonl` a subagent's. `None` for any other path.
    ///
    /// ```
    /// use std::path::Path;
    /// use claude_agent_tokio::store::SessionKey;
    ///
    /// let projects = Path::new("/home/me/.claude/projects");
    /// let key = SessionKey::from_transcript_path(
    ///     Path::new("/home/me/.claude/projects/-home-me-app/s1/subagents/agent-7.jsonl"),
    ///     projects,
    /// );
    /// assert_eq!(key, Some(SessionKey::new("-home-me-app", "s1").with_subpath("subagents/agent-7")));
    /// assert_eq!(SessionKey::from_transcript_path(Path::new("/tmp/x.jsonl"), projects), None);
    /// ```
    pub fn from_transcript_path(path: &Path, projects_dir: &Path) -> Option<SessionKey> {
        let rest = path.strip_prefix(projects_dir).ok()?;
        let mut parts = Vec::new();
        for component in rest.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_str()?),
                _ => return None,
            }
        }
        match parts.as_slice() {
            [project, file] => Some(SessionKey::new(
                *project,
                file.strip_suffix(".jsonl").filter(|s| !s.is_empty())?,
            )),
            [project, session, sub @ ..] if sub.len() >= 2 => {
                let (last, dirs) = sub.split_last()?;
                let last = last.strip_suffix(".jsonl").unwrap_or(last);
                let mut subpath = dirs.join("/");
                subpath.push('/');
                subpath.push_str(last);
                Some(SessionKey::new(*project, *session).with_subpath(subpath))
            }
            _ => None,
        }
    }
}

impl fmt::Display for SessionKey {
    /// `project/session`, or `project/session/subpath`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.project_key, self.session_id)?;
        if let Some(subpath) = &self.subpath {
            write!(f, "/{subpath}")?;
        }
        Ok(())
    }
}
