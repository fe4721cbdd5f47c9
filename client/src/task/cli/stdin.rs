//! The CLI's stdin: the session's bytes queued a chunk at a time, written (and recorded as
//! written), then the pipe closed when the session asks.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::AsyncWrite;

use super::READ_CHUNK;
use crate::persistence::recorder::Recording;

/// The pipe and what waits to go through it.
pub(super) struct Stdin<I> {
    /// `None` once closed, or broken (the CLI is gone: its exit tells why).
    pipe: Option<I>,
    queued: Vec<u8>,
    /// How much of `queued` is written.
    written: usize,
    /// The session closed stdin: close the pipe once `queued` is written.
    close: bool,
}

impl<I: AsyncWrite + Unpin> Stdin<I> {
    pub(super) fn new(pipe: I) -> Self {
        Stdin {
            pipe: Some(pipe),
            queued: Vec::new(),
            written: 0,
            close: false,
        }
    }

    /// Whether more than a read's worth waits to be written.
    pub(super) fn backed_up(&self) -> bool {
        self.queued.len() - self.written > READ_CHUNK
    }

    /// Whether the session's next bytes are taken now: only once everything queued is written,
    /// and up to a chunk at a time.
    pub(super) fn has_room(&mut self) -> bool {
        if self.written == self.queued.len() {
            self.queued.clear();
            self.written = 0;
        }
        self.written == 0 && self.queued.len() <= READ_CHUNK
    }

    /// Queue the session's bytes.
    pub(super) fn push(&mut self, bytes: Vec<u8>) {
        if self.queued.is_empty() {
            self.queued = bytes;
        } else {
            self.queued.extend_from_slice(&bytes);
        }
    }

    /// The session closed stdin.
    pub(super) fn close_when_written(&mut self) {
        self.close = true;
    }

    /// Write what is queued, recorded as it goes. `Ready(true)` once all of it is written
    /// (dropped, when the pipe is gone), `Ready(false)` when nothing was queued: then the pipe
    /// is closed if the session asked. `progress` is set by any write.
    pub(super) fn poll_write(
        &mut self,
        cx: &mut Context<'_>,
        recording: &mut Recording,
        progress: &mut bool,
    ) -> Poll<bool> {
        if self.queued.is_empty() {
            *progress |= self.poll_close(cx);
            return Poll::Ready(false);
        }
        while self.written < self.queued.len() {
            let Some(pipe) = self.pipe.as_mut() else {
                // What the session still writes goes nowhere.
                self.written = self.queued.len();
                break;
            };
            match Pin::new(pipe).poll_write(cx, &self.queued[self.written..]) {
                Poll::Ready(Ok(n)) if n > 0 => {
                    recording.stdin(&self.queued[self.written..self.written + n]);
                    self.written += n;
                    *progress = true;
                }
                // A zero write or an error (EPIPE: the CLI is gone); its exit will tell why.
                Poll::Ready(_) => {
                    self.pipe = None;
                    *progress = true;
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        *progress = true;
        Poll::Ready(true)
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.close {
            return false;
        }
        let Some(pipe) = self.pipe.as_mut() else {
            return false;
        };
        match Pin::new(pipe).poll_close(cx) {
            Poll::Pending => false,
            Poll::Ready(_) => {
                self.pipe = None;
                true
            }
        }
    }
}
