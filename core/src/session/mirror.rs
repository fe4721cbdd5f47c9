//! `transcript_mirror` frames: the transcript lines the CLI wrote, printed again for a session
//! store (only when it runs with `--session-mirror`).

use crate::Json;
use serde::Deserialize;

/// Lines the CLI appended to a transcript file, for the host to copy into a session store
/// ([`Event::Mirror`](super::Event::Mirror)). The CLI prints them only when started with
/// `--session-mirror`; they are never part of the message stream.
///
/// ```
/// use std::time::Instant;
/// use claude_agent_tokio::session::{Event, InputMode, Session, SessionConfig};
///
/// let now = Instant::now();
/// let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
/// session.handle_stdout(now, br#"{"type":"transcript_mirror","filePath":"/home/me/.claude/projects/-home-me-app/s1.jsonl","entries":[{"type":"user","uuid":"u1"}]}
/// "#);
/// let Some(Event::Mirror(mirror)) = session.poll_event() else { panic!("no mirror event") };
/// assert!(mirror.file_path.ends_with("s1.jsonl"));
/// assert_eq!(mirror.entries[0].as_str(), r#"{"type":"user","uuid":"u1"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TranscriptMirror {
    /// The transcript file the CLI wrote the entries to (an absolute path under its
    /// configuration directory's `projects/`).
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The entries, one transcript line each, exactly as the CLI printed them.
    pub entries: Vec<Json>,
}
