//! The end of a session as its handles see it, written in one place.
//!
//! A session's task ends in many ways: its driver finishes, its start fails (the CLI not found,
//! a fleet's refusal, a store that cannot be read, a transport that fails or panics), a handle
//! is dropped while the session waits for a fleet's place, the driver panics, or the runtime
//! drops the task. Whatever the way, the handles must learn it: no command may stay queued with
//! nobody to answer it, and no stream may stay open. So the end is not written on each path:
//! [`SessionTask`] owns the session's [`SessionEnd`] from the moment the task is spawned, and
//! ends it when its inner future completes, panics or is dropped.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::process::runtime::BoxFuture;
use crate::task::message_queue::{Command, Link};

/// What ends a session for its handles, in this order: the command channel is closed and
/// emptied (every queued command's reply is dropped, so its caller gets `Error::Closed`, and a
/// later send fails at once), the message stream is finished, and `close()` callers are
/// released.
pub(crate) struct SessionEnd {
    commands: async_channel::Receiver<Command>,
    link: Arc<Link>,
    /// Never sent to: dropping it releases `close()` callers.
    done: Option<async_channel::Sender<()>>,
}

impl SessionEnd {
    /// The end of the session whose handles read `link` and send to `commands`, and whose
    /// `close()` callers wait on `done`'s receiver.
    pub(crate) fn new(
        commands: async_channel::Receiver<Command>,
        link: Arc<Link>,
        done: async_channel::Sender<()>,
    ) -> SessionEnd {
        SessionEnd {
            commands,
            link,
            done: Some(done),
        }
    }

    fn end(&mut self) {
        self.commands.close();
        while self.commands.try_recv().is_ok() {}
        self.link.finish();
        self.done = None;
    }
}

impl Drop for SessionEnd {
    fn drop(&mut self) {
        self.end();
    }
}

/// A session's task: its start and its driver (`inner`), then its [`SessionEnd`]. A panic in
/// `inner` is caught: whatever it held (the CLI is killed with the driver) is dropped, and the
/// stream's last item is [`Error::Panicked`](crate::Error::Panicked).
pub(crate) struct SessionTask {
    /// Dropped before `end`, so the session's folders are gone and its CLI is killed before the
    /// handles see the end.
    inner: Option<BoxFuture<'static, ()>>,
    end: SessionEnd,
}

impl SessionTask {
    /// `inner`, ended by `end`.
    pub(crate) fn new(inner: BoxFuture<'static, ()>, end: SessionEnd) -> SessionTask {
        SessionTask {
            inner: Some(inner),
            end,
        }
    }
}

// Nothing is structurally pinned: the inner future is boxed, and the end's receiver is never
// polled.
impl Unpin for SessionTask {}

impl Future for SessionTask {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(());
        };
        match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(())) => {}
            Err(payload) => this.end.link.panicked(panic_message(&*payload)),
        }
        this.inner = None;
        this.end.end();
        Poll::Ready(())
    }
}

/// The text a panic was raised with.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with no message".to_owned()
    }
}
