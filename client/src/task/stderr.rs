//! The CLI's stderr: split into lines for the user's `on_stderr` callback, with a bounded tail kept
//! for error reports. The CLI reports a bad option there, and exits, before it prints any JSON.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::callbacks::handlers::StderrFn;
use crate::task::trace;

/// Bytes of stderr kept for [`crate::Error::Process`].
pub(crate) const TAIL_BYTES: usize = 8 * 1024;
/// A partial line longer than this is passed on as it is.
const MAX_LINE: usize = 64 * 1024;

pub(crate) struct StderrSink {
    callback: Option<StderrFn>,
    partial: Vec<u8>,
    tail: VecDeque<u8>,
}

impl StderrSink {
    pub(crate) fn new(callback: Option<StderrFn>) -> Self {
        StderrSink {
            callback,
            partial: Vec::new(),
            tail: VecDeque::with_capacity(TAIL_BYTES),
        }
    }

    /// Take a chunk read from stderr.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.tail.len() + chunk.len() > TAIL_BYTES {
            let keep_from_chunk = chunk.len().min(TAIL_BYTES);
            let drop = (self.tail.len() + keep_from_chunk).saturating_sub(TAIL_BYTES);
            self.tail.drain(..drop);
            self.tail.extend(&chunk[chunk.len() - keep_from_chunk..]);
        } else {
            self.tail.extend(chunk);
        }
        if self.callback.is_none() && !trace::stderr_wanted() {
            return;
        }
        let mut rest = chunk;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..nl]);
            self.flush_line();
            rest = &rest[nl + 1..];
        }
        self.partial.extend_from_slice(rest);
        if self.partial.len() > MAX_LINE {
            self.flush_line();
        }
    }

    /// stderr ended: pass on the last partial line.
    pub(crate) fn finish(&mut self) {
        self.flush_line();
    }

    fn flush_line(&mut self) {
        let text = String::from_utf8_lossy(&self.partial);
        let line = text.trim_end();
        if !line.is_empty() {
            trace::stderr_line(line);
            if let Some(callback) = &self.callback {
                // A panicking stderr callback must not take the session down; the line is dropped.
                let _ = catch_unwind(AssertUnwindSafe(|| callback(line)));
            }
        }
        self.partial.clear();
    }

    /// The last [`TAIL_BYTES`] of stderr, starting at a line boundary when one is in there.
    pub(crate) fn tail(&self) -> String {
        let bytes: Vec<u8> = self.tail.iter().copied().collect();
        let start = if self.tail.len() >= TAIL_BYTES {
            bytes
                .iter()
                .position(|&b| b == b'\n')
                .map_or(0, |nl| nl + 1)
        } else {
            0
        };
        String::from_utf8_lossy(&bytes[start..])
            .trim_end()
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn lines_reach_the_callback_trimmed_and_without_blanks() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = seen.clone();
        let mut sink = StderrSink::new(Some(Arc::new(move |line: &str| {
            sink_seen.lock().unwrap().push(line.to_owned())
        })));
        sink.push(b"first li");
        sink.push(b"ne  \n\nsecond\r\nthi");
        sink.push(b"rd");
        sink.finish();
        assert_eq!(*seen.lock().unwrap(), vec!["first line", "second", "third"]);
        assert_eq!(sink.tail(), "first line  \n\nsecond\r\nthird");
    }

    #[test]
    fn tail_keeps_the_last_bytes_from_a_line_start() {
        let mut sink = StderrSink::new(None);
        for i in 0..2000 {
            sink.push(format!("line {i}\n").as_bytes());
        }
        let tail = sink.tail();
        assert!(tail.len() <= TAIL_BYTES);
        assert!(tail.ends_with("line 1999"));
        assert!(
            tail.starts_with("line "),
            "tail starts mid-line: {:?}",
            &tail[..20]
        );
    }
}
