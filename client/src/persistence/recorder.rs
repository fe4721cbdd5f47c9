//! [`Options::record_to`]: every line of a session, both ways, appended to a recording file.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::message::{Message, Notice, NoticeKind};
use crate::options::Options;
use crate::recording::redact_secrets;

/// A session's recording as its driver keeps it: the bytes of both pipes go to the
/// [`Recorder`] while writing works. The first failure stops the recording, and its notice
/// waits for the message stream.
pub(crate) struct Recording {
    recorder: Option<Recorder>,
    stopped: Option<Message>,
}

impl Recording {
    /// The recording of `Options::record_to`, if asked for.
    pub(crate) fn new(recorder: Option<Recorder>) -> Self {
        Recording {
            recorder,
            stopped: None,
        }
    }

    /// Bytes that went to the CLI's stdin.
    #[inline]
    pub(crate) fn stdin(&mut self, bytes: &[u8]) {
        self.write(|recorder| recorder.stdin(bytes));
    }

    /// Bytes read from the CLI's stdout.
    #[inline]
    pub(crate) fn stdout(&mut self, bytes: &[u8]) {
        self.write(|recorder| recorder.stdout(bytes));
    }

    /// Write out the recorded lines: false once recording stopped (its notice waits).
    #[inline]
    pub(crate) fn flush(&mut self) -> bool {
        self.write(Recorder::flush);
        self.stopped.is_none()
    }

    /// The notice of a recording that stopped, once.
    #[inline]
    pub(crate) fn take_notice(&mut self) -> Option<Message> {
        self.stopped.take()
    }

    /// Close the recording; a failure now (the lines since the last flush) can only be dropped.
    pub(crate) fn finish(&mut self) {
        if let Some(mut recorder) = self.recorder.take() {
            let _ = recorder.finish();
        }
    }

    /// Feed the recorder with `write`; on failure, stop recording and keep its notice.
    fn write(&mut self, write: impl FnOnce(&mut Recorder) -> io::Result<()>) {
        let Some(active) = self.recorder.as_mut() else {
            return;
        };
        if let Err(error) = write(active) {
            let path = active.path().to_path_buf();
            self.recorder = None;
            let kind = NoticeKind::RecordingStopped {
                path,
                error: Arc::new(error),
            };
            self.stopped = Some(Message::Notice(Box::new(Notice::new(kind))));
        }
    }
}

/// Appends the lines the SDK writes and reads, as `{"dir":"in"|"out","msg":…}` lines.
pub(crate) struct Recorder {
    path: PathBuf,
    file: BufWriter<File>,
    /// The longest line recorded (the session's own limit): a longer one is recorded as a note
    /// of its length, and never held in memory whole.
    max_line: usize,
    /// Bytes written to stdin since its last `\n`.
    stdin_partial: Partial,
    /// Bytes read from stdout since its last `\n`.
    stdout_partial: Partial,
    /// Lines written since the last flush.
    dirty: bool,
}

/// The part of a line read so far.
#[derive(Default)]
struct Partial {
    bytes: Vec<u8>,
    /// Bytes of this line already dropped because it is over `max_line`.
    dropped: usize,
}

impl Recorder {
    /// Open `path` for appending, creating it owner-only if needed (never through a link).
    pub(crate) fn open(path: &Path, max_line: usize) -> io::Result<Recorder> {
        let file = crate::private_files::open_append(path)?;
        Ok(Recorder {
            path: path.to_path_buf(),
            file: BufWriter::new(file),
            max_line,
            stdin_partial: Partial::default(),
            stdout_partial: Partial::default(),
            dirty: false,
        })
    }

    /// The file it writes.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes that went to the CLI's stdin.
    pub(crate) fn stdin(&mut self, bytes: &[u8]) -> io::Result<()> {
        let partial = std::mem::take(&mut self.stdin_partial);
        self.stdin_partial = self.lines("in", partial, bytes)?;
        Ok(())
    }

    /// Bytes read from the CLI's stdout.
    pub(crate) fn stdout(&mut self, bytes: &[u8]) -> io::Result<()> {
        let partial = std::mem::take(&mut self.stdout_partial);
        self.stdout_partial = self.lines("out", partial, bytes)?;
        Ok(())
    }

    /// Write out what is buffered, once per pass of the driver that recorded anything.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        self.dirty = false;
        self.file.flush()
    }

    /// The session is over: record the last lines that had no `\n`, and flush.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        let stdin = std::mem::take(&mut self.stdin_partial);
        self.end_line("in", stdin, &[])?;
        let stdout = std::mem::take(&mut self.stdout_partial);
        self.end_line("out", stdout, &[])?;
        self.flush()
    }

    /// Record each whole line of `partial` + `bytes`; returns what is left after the last `\n`.
    fn lines(&mut self, dir: &str, mut partial: Partial, bytes: &[u8]) -> io::Result<Partial> {
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.end_line(dir, std::mem::take(&mut partial), &rest[..end])?;
            rest = &rest[end + 1..];
        }
        if partial.dropped > 0 || partial.bytes.len() + rest.len() > self.max_line {
            partial.dropped += partial.bytes.len() + rest.len();
            partial.bytes = Vec::new();
        } else {
            partial.bytes.extend_from_slice(rest);
        }
        Ok(partial)
    }

    /// Record the line made of `partial` and `end`, or a note of its length if it is too long.
    fn end_line(&mut self, dir: &str, mut partial: Partial, end: &[u8]) -> io::Result<()> {
        let len = partial.dropped + partial.bytes.len() + end.len();
        if len > self.max_line {
            let note = format!(
                "[not recorded: a line of {len} bytes, over the limit of {} bytes]",
                self.max_line
            );
            return self.line(dir, note.as_bytes());
        }
        if partial.bytes.is_empty() {
            return self.line(dir, end);
        }
        partial.bytes.extend_from_slice(end);
        self.line(dir, &partial.bytes)
    }

    fn line(&mut self, dir: &str, line: &[u8]) -> io::Result<()> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        self.dirty = true;
        write!(self.file, r#"{{"dir":"{dir}","msg":"#)?;
        if let Some(redacted) = redacted(line) {
            self.file.write_all(redacted.as_bytes())?;
        } else if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok() {
            self.file.write_all(line)?;
        } else {
            // Not JSON (the CLI printed something else): kept as a JSON string.
            let text = serde_json::to_string(&String::from_utf8_lossy(line))?;
            self.file.write_all(text.as_bytes())?;
        }
        self.file.write_all(b"}\n")
    }
}

/// The line with the secrets [`redact_secrets`] blanks, if it carries any. Only lines that have
/// an `"env"` or a `"headers"` key are parsed; the others are recorded byte for byte.
fn redacted(line: &[u8]) -> Option<String> {
    let finder = |key: &[u8]| memchr::memmem::find(line, key).is_some();
    if !finder(b"\"env\"") && !finder(b"\"headers\"") {
        return None;
    }
    let mut msg: serde_json::Value = serde_json::from_slice(line).ok()?;
    redact_secrets(&mut msg).then(|| msg.to_string())
}

impl Options {
    /// Append every line of the session to `path`: what the SDK writes to the CLI's stdin as
    /// `{"dir":"in","msg":…}` and what the CLI prints on stdout as `{"dir":"out","msg":…}`, one
    /// per line. A session recorded once against the real CLI replays as a test for ever
    /// (`claude-agent-testkit`'s `FakeTransport::replay`).
    ///
    /// The file is created if needed and appended to; lines are written as they pass and
    /// flushed after every step of the session. A line longer than the session takes
    /// ([`Options::max_buffer_size`], 16 MiB by default) is recorded as a note of its length, so
    /// that recording holds no more in memory than the session. It is readable by its owner only (mode 0600,
    /// also when it existed with a wider mode), and a symbolic link at `path` is refused
    /// ([`Error::Record`]), so another local user can neither read the session nor redirect it. A line that is not JSON is kept as a JSON
    /// string. Secrets stay out of it: the values of every `env` and `headers` object, in
    /// either direction (MCP servers', subagents' servers', a claim's environment, what the CLI
    /// echoes back), are recorded as `"[redacted]"` ([`redact_secrets`]), so a recording can be
    /// kept with a project's tests. If the file cannot be opened the session does not start ([`Error::Record`]); if
    /// writing fails later, recording stops and the message stream gets one [`Error::Record`]
    /// item, and the session goes on.
    ///
    /// [`Error::Record`]: crate::Error::Record
    ///
    /// ```
    /// use claude_agent_tokio::options::Options;
    ///
    /// // A folder of the project's, not a shared one such as /tmp.
    /// let path = std::path::Path::new("tests/recordings/session.jsonl");
    /// let options = Options::new().record_to(path);
    /// assert_eq!(options.get_record_to(), Some(path));
    /// ```
    pub fn record_to(mut self, path: impl Into<PathBuf>) -> Self {
        self.handlers_mut().record_to = Some(path.into());
        self
    }

    /// The file [`Options::record_to`] appends the session to.
    pub fn get_record_to(&self) -> Option<&Path> {
        self.handlers().record_to.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_path(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("{name}-{}.jsonl", std::process::id()))
    }

    #[test]
    fn lines_split_across_chunks_are_recorded_whole_and_in_order() {
        let path = temp_path("recorder-chunks");
        let _ = std::fs::remove_file(&path);
        let mut recorder = Recorder::open(&path, 1 << 20).unwrap();
        recorder.stdin(b"{\"type\":\"us").unwrap();
        recorder.stdout(b"{\"a\":1}\n{\"b\"").unwrap();
        recorder.stdin(b"er\"}\r\n\n").unwrap();
        recorder.stdout(b":2}\nnot json\n").unwrap();
        recorder.stdout(b"{\"c\":3}").unwrap();
        recorder.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            text,
            concat!(
                "{\"dir\":\"out\",\"msg\":{\"a\":1}}\n",
                "{\"dir\":\"in\",\"msg\":{\"type\":\"user\"}}\n",
                "{\"dir\":\"out\",\"msg\":{\"b\":2}}\n",
                "{\"dir\":\"out\",\"msg\":\"not json\"}\n",
                "{\"dir\":\"out\",\"msg\":{\"c\":3}}\n",
            )
        );
        crate::recording::Recording::parse(&text).expect("the recording format reads it");
    }

    /// A line over the limit is never held whole (the CLI could print one without end): it is
    /// recorded as a note of its length, and the lines after it as they are.
    #[test]
    fn a_line_over_the_limit_is_recorded_as_a_note_and_never_held_whole() {
        let path = temp_path("recorder-long");
        let _ = std::fs::remove_file(&path);
        let mut recorder = Recorder::open(&path, 8).unwrap();
        for _ in 0..1000 {
            recorder.stdout(b"0123456789").unwrap();
            assert!(recorder.stdout_partial.bytes.capacity() <= 16);
        }
        recorder.stdout(b"xyz\n{}\n").unwrap();
        recorder.stdin(b"{\"a\":1}\n").unwrap();
        recorder.stdout(b"0123456789").unwrap();
        recorder.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            text,
            concat!(
                "{\"dir\":\"out\",\"msg\":\"[not recorded: a line of 10003 bytes, over the limit of 8 bytes]\"}\n",
                "{\"dir\":\"out\",\"msg\":{}}\n",
                "{\"dir\":\"in\",\"msg\":{\"a\":1}}\n",
                "{\"dir\":\"out\",\"msg\":\"[not recorded: a line of 10 bytes, over the limit of 8 bytes]\"}\n",
            )
        );
    }

    /// Every `env` and `headers` object is blanked, whichever way its line went: a claim's
    /// tokens, a subagent's server, what the CLI echoes back in `mcp_status`.
    #[test]
    fn secrets_are_blanked_both_ways_wherever_they_are() {
        let path = temp_path("recorder-secrets");
        let _ = std::fs::remove_file(&path);
        let mut recorder = Recorder::open(&path, 1 << 20).unwrap();
        let claim = r#"{"type":"control_request","request_id":"req_1","request":{"subtype":"claim","cwd":"/srv","env":{"CLAUDE_CODE_OAUTH_TOKEN":"sk-ant-oat-secret"}}}"#;
        let agent = r#"{"type":"control_request","request_id":"req_2","request":{"subtype":"initialize","agents":{"a":{"mcpServers":[{"db":{"command":"db","env":{"PASSWORD":"hunter2"}}}]}}}}"#;
        let status = r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_3","response":{"mcpServers":[{"name":"t","config":{"type":"http","headers":{"Authorization":"Bearer sk-live"}}}]}}}"#;
        recorder
            .stdin(format!("{claim}\n{agent}\n").as_bytes())
            .unwrap();
        recorder.stdout(format!("{status}\n").as_bytes()).unwrap();
        recorder.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        for secret in ["sk-ant-oat-secret", "hunter2", "sk-live"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(
            text.matches(crate::recording::REDACTED).count(),
            3,
            "{text}"
        );
        assert!(
            text.contains("CLAUDE_CODE_OAUTH_TOKEN"),
            "the names are kept"
        );
    }

    #[test]
    fn a_recorder_appends_to_an_existing_file() {
        let path = temp_path("recorder-append");
        std::fs::write(&path, "{\"dir\":\"in\",\"msg\":{}}\n").unwrap();
        let mut recorder = Recorder::open(&path, 1 << 20).unwrap();
        recorder.stdout(b"{}\n").unwrap();
        recorder.flush().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
    }
}
