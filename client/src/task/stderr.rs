//! The CLI's stderr: read to its end, split into lines for the user's `on_stderr` callback, with
//! a bounded tail kept for error reports. The CLI reports a bad option there, and exits, before
//! it prints any JSON.

use std::collections::VecDeque;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::AsyncRead;

use crate::callbacks::handlers::StderrFn;
use crate::task::trace;

/// Bytes of stderr kept for [`crate::Error::Process`].
pub(crate) const TAIL_BYTES: usize = 8 * 1024;
/// A partial line longer than this is passed on as it is.
const MAX_LINE: usize = 64 * 1024;

/// The pipe, read to its end into the sink.
pub(crate) struct Stderr<E> {
    /// `None` once it ended, or was let go.
    pipe: Option<E>,
    sink: StderrSink,
}

impl<E: AsyncRead + Unpin> Stderr<E> {
    /// `pipe` is `None` for a transport that gives no stderr.
    pub(crate) fn new(pipe: Option<E>, callback: Option<StderrFn>) -> Self {
        Stderr {
            pipe,
            sink: StderrSink::new(callback),
        }
    }

    /// Read what is there, through `buf`. Returns whether anything happened.
    pub(crate) fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> bool {
        let mut progress = false;
        while let Some(pipe) = self.pipe.as_mut() {
            match Pin::new(pipe).poll_read(cx, buf) {
                Poll::Pending => return progress,
                Poll::Ready(Ok(n)) if n > 0 => {
                    self.sink.push(&buf[..n]);
                    progress = true;
                }
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(_) => {
                    self.close();
                    return true;
                }
            }
        }
        progress
    }

    /// Stop reading: the pipe ended, or something the CLI started holds it after the CLI
    /// exited.
    pub(crate) fn close(&mut self) {
        if self.pipe.take().is_some() {
            self.sink.finish();
        }
    }
}

impl<E> Stderr<E> {
    /// Whether stderr is still being read.
    pub(crate) fn is_open(&self) -> bool {
        self.pipe.is_some()
    }

    /// The last lines the CLI wrote to stderr.
    pub(crate) fn tail(&self) -> String {
        self.sink.tail()
    }
}

/// stderr's lines, to the callback and the trace, and its tail.
struct StderrSink {
    callback: Option<StderrFn>,
    partial: Vec<u8>,
    tail: VecDeque<u8>,
}

impl StderrSink {
    fn new(callback: Option<StderrFn>) -> Self {
        StderrSink {
            callback,
            partial: Vec::new(),
            tail: VecDeque::with_capacity(TAIL_BYTES),
        }
    }

    /// Take a chunk read from stderr.
    fn push(&mut self, chunk: &[u8]) {
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
    fn finish(&mut self) {
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
    fn tail(&self) -> String {
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
