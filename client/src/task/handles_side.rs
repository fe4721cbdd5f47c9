//! The handles as the driver sees them: their commands (run against the session in
//! `commands`), a streaming prompt, the message queue (with the one item it had no room for),
//! the calls that wait on the session, the session's events that are theirs, and the session's
//! end as the handles are told it.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_lite::stream::Boxed;
use futures_lite::Stream;

use crate::control::InitializeResponse;
use crate::error::Error;
use crate::message::{Message, Notice, NoticeKind, UserInput};
use crate::persistence::mirror::mirror_error;
use crate::session::{EndReason, Event, Termination};
use crate::task::message_queue::{Command, Item, Link, Reply};
use crate::task::replies::Replies;

mod commands;

/// The driver's side of the session's handles.
pub(crate) struct HandlesSide {
    /// `None` once every handle is gone.
    commands: Option<Pin<Box<async_channel::Receiver<Command>>>>,
    link: Arc<Link>,
    /// The streaming prompt, while the CLI takes user messages.
    input: Option<Boxed<UserInput>>,
    /// The calls waiting on the session.
    replies: Replies,
    /// An item the message queue had no room for; nothing else is taken from the session until
    /// it is delivered.
    undelivered: Option<Item>,
    /// How the session ended, once it has.
    termination: Option<Termination>,
    /// The last item (the session's final error, if any) has been queued.
    reported: bool,
}

impl HandlesSide {
    pub(crate) fn new(
        commands: async_channel::Receiver<Command>,
        link: Arc<Link>,
        input: Option<Boxed<UserInput>>,
        connect: Option<Reply<Result<(), Error>>>,
    ) -> Self {
        HandlesSide {
            commands: Some(Box::pin(commands)),
            link,
            input,
            replies: Replies::new(connect),
            undelivered: None,
            termination: None,
            reported: false,
        }
    }

    /// What the handles read without waiting on the driver: the process id, the CLI's answer to
    /// `initialize`, its version.
    #[inline]
    pub(crate) fn link(&self) -> &Link {
        &self.link
    }

    /// The handles' next command. `Ready(None)` once, when every handle is gone.
    #[inline]
    fn poll_command(&mut self, cx: &mut Context<'_>) -> Poll<Option<Command>> {
        let Some(commands) = self.commands.as_mut() else {
            return Poll::Pending;
        };
        let next = commands.as_mut().poll_next(cx);
        if let Poll::Ready(None) = next {
            self.commands = None;
        }
        next
    }

    /// The CLI takes no more user messages: the streaming prompt is dropped unread.
    pub(crate) fn stop_input(&mut self) {
        self.input = None;
    }

    /// Hand `item` to the application: `false` when its queue is full (the item waits, and
    /// nothing more is read meanwhile). Once the application has closed the session, an item
    /// there is no room for is dropped: the session stops without waiting for a reader that may
    /// never come.
    #[inline]
    pub(crate) fn hand_over(&mut self, cx: &mut Context<'_>, item: Item) -> bool {
        match self.link.push(cx, item) {
            None => true,
            Some(_) if self.link.close_asked() => true,
            Some(item) => {
                self.undelivered = Some(item);
                false
            }
        }
    }

    /// Deliver the item that waits for room: `Pending` while the queue is still full.
    #[inline]
    pub(crate) fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(item) = self.undelivered.take() {
            if !self.hand_over(cx, item) {
                return Poll::Pending;
            }
        }
        Poll::Ready(())
    }

    /// Whether nothing waits for room in the queue.
    #[inline]
    pub(crate) fn is_clear(&self) -> bool {
        self.undelivered.is_none()
    }

    /// Queue `item` behind nothing: it goes at the next [`HandlesSide::poll_room`].
    pub(crate) fn queue(&mut self, item: Item) {
        debug_assert!(self.undelivered.is_none());
        self.undelivered = Some(item);
    }

    /// Queue a notice of the SDK's own.
    fn notice(&mut self, kind: NoticeKind) {
        self.queue(Ok(Message::Notice(Box::new(Notice::new(kind)))));
    }

    /// What the session's `event` says to the handles: a message or a notice for the stream, an
    /// answer to a waiting call, the session ready, closing or finished. `server_info` is the
    /// CLI's answer to `initialize`, for [`Event::Ready`].
    pub(crate) fn event(&mut self, event: Event, server_info: Option<&InitializeResponse>) {
        match event {
            Event::Message(message) => self.queue(Ok(message)),
            Event::Stalled(stall) => self.notice(NoticeKind::Stalled(stall)),
            Event::Budget(report) => self.notice(NoticeKind::Budget(*report)),
            Event::InterruptNotApplied(why) => self.notice(NoticeKind::InterruptNotApplied(why)),
            Event::LineError(error) => self.notice(NoticeKind::UnreadableLine(error)),
            Event::StoreFailed(failure) => {
                self.queue(Ok(mirror_error(failure.key.as_ref(), &failure.error)));
            }
            Event::CliVersion(check) => self.link.set_version_check(check),
            Event::RequestDone { id, outcome } => self.replies.request_done(id, outcome),
            Event::Claimed(outcome) => self.replies.claimed(outcome),
            Event::Ready => self.ready(server_info),
            // The session closed itself, and stops the CLI: it takes no more user messages.
            Event::Closing(reason) => {
                if let EndReason::InitializeFailed(failure) = reason {
                    self.initialize_failed(Error::from_failure(failure));
                }
                self.stop_input();
            }
            Event::Finished(termination) => self.finished(termination),
            // Not the handles' (or newer than this layer).
            _ => {}
        }
    }

    /// The session is ready: what the CLI said in answer to `initialize` is the handles' to
    /// read, and `connect` returns.
    fn ready(&mut self, server_info: Option<&InitializeResponse>) {
        if let Some(info) = server_info {
            self.link.set_server_info(info.clone());
        }
        self.replies.ready();
    }

    /// The CLI refused `initialize`: `connect` or the stream learns it at once, not once the CLI
    /// is gone (a hung one only after its grace). It is the session's end report.
    fn initialize_failed(&mut self, error: Error) {
        if let Some(error) = self.replies.connect_failed(Some(error)) {
            self.queue(Err(error));
        }
        self.reported = true;
    }

    /// The session has finished: nothing more comes from it.
    fn finished(&mut self, termination: Termination) {
        if let Termination::Ended(reason) = &termination {
            self.link.closed_itself(reason.clone());
        }
        self.termination = Some(termination);
    }

    /// Whether the session has finished.
    #[inline]
    pub(crate) fn has_ended(&self) -> bool {
        self.termination.is_some()
    }

    /// Tell the session's end: `connect` returns its error, or the stream ends with it, and
    /// every call still waiting fails. `stderr_tail` is what the CLI last wrote to stderr, for
    /// an error of the process. Returns `false` while the error waits for room in the queue.
    pub(crate) fn report_end(
        &mut self,
        cx: &mut Context<'_>,
        stderr_tail: impl FnOnce() -> String,
    ) -> bool {
        let Some(termination) = &self.termination else {
            return false;
        };
        if !self.reported {
            self.reported = true;
            let error = Error::of_termination(termination, stderr_tail);
            match self.replies.connect_failed(error) {
                None => {}
                // Told if there is room: the application that closed the session may not read.
                Some(error) if self.link.close_asked() => drop(self.link.push(cx, Err(error))),
                Some(error) => {
                    self.queue(Err(error));
                    return false;
                }
            }
        }
        self.replies.session_ended();
        true
    }
}
