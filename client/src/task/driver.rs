//! The one future that runs a session: it moves bytes between the CLI's pipes and the
//! [`Session`], runs the user's callbacks, serves the handles' commands, and sleeps until the
//! next deadline. The session decides; each consumer of its events (the handles, the store's
//! mirror, the fleet's place, the trace) is a type of its own.
//!
//! It reads the time through its [`Clock`], the runtime's ([`Runtime::now`]), so a runtime with
//! a virtual clock runs it in virtual time.
//!
//! Each pass of [`Driver::poll`] does, in order: the fleet's news, commands from the handles,
//! the streaming prompt, stdout (only while the session wants it), running callbacks, session
//! events, the store, stdin, stderr (always), the child's exit, and the deadlines. It loops
//! while anything made progress (with a budget, then it yields), and returns `Pending` with
//! every source registered.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use futures_io::{AsyncRead, AsyncWrite};

use crate::callbacks::dispatch::Dispatcher;
use crate::persistence::mirror::Mirror;
use crate::persistence::recorder::Recorder;
use crate::persistence::session_folders::SessionFolders;
use crate::process::runtime::{BoxFuture, ChildProcess, Runtime};
use crate::session::{Event, Session};
use crate::task::clock::Clock;
use crate::task::handles_side::HandlesSide;
use crate::task::place::{News, Place};
use crate::task::trace::Trace;
use crate::Seat;

pub(crate) use super::cli::Endpoints;
use super::cli::{Cli, Read};

mod events;

/// Passes of the main loop before the driver yields to the executor.
const PASS_BUDGET: usize = 64;

/// Everything the driver was started with.
pub(crate) struct DriverParts<R, C, I, O, E> {
    pub(crate) runtime: R,
    pub(crate) session: Session,
    pub(crate) endpoints: Endpoints<C, I, O, E>,
    pub(crate) dispatcher: Dispatcher,
    pub(crate) stderr: Option<crate::callbacks::handlers::StderrFn>,
    pub(crate) handles: HandlesSide,
    pub(crate) recorder: Option<Recorder>,
    pub(crate) trace: Trace,
    pub(crate) folders: SessionFolders,
    pub(crate) seat: Option<Seat>,
    pub(crate) mirror: Option<Mirror>,
}

pub(crate) struct Driver<R: Runtime, C: ChildProcess, I, O, E> {
    clock: Clock<R>,
    session: Session,
    /// The CLI: its process, pipes and recording.
    cli: Cli<C, I, O, E>,
    /// The handles: their commands, the message queue, the calls waiting on the session.
    handles: HandlesSide,
    /// The user's callbacks: started for the CLI's requests, and running.
    dispatcher: Dispatcher,
    /// `Options::session_store`: the transcript lines on their way to the store.
    mirror: Option<Mirror>,
    /// The session's place in its fleet: given back when the driver ends, once the CLI is gone.
    place: Option<Place>,
    trace: Trace,
    /// Removed before the stream ends, once the CLI is gone.
    folders: SessionFolders,
}

impl<R, C, I, O, E> Driver<R, C, I, O, E>
where
    R: Runtime,
    C: ChildProcess,
    I: AsyncWrite + Unpin,
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    pub(crate) fn new(parts: DriverParts<R, C, I, O, E>) -> Self {
        let endpoints = parts.endpoints;
        parts.handles.link().set_process_id(endpoints.child.id());
        let mut session = parts.session;
        let mut mirror = parts.mirror;
        if let Some(mirror) = &mut mirror {
            // Before the first event: from here the session's end waits for the store.
            mirror.sync(&mut session, parts.runtime.now());
        }
        Driver {
            clock: Clock::new(parts.runtime),
            session,
            cli: Cli::new(endpoints, parts.stderr, parts.recorder),
            handles: parts.handles,
            dispatcher: parts.dispatcher,
            mirror,
            place: parts.seat.map(Place::new),
            trace: parts.trace,
            folders: parts.folders,
        }
    }

    /// The driver as the runtime's task, run in the session's span.
    pub(crate) fn into_task(self) -> BoxFuture<'static, ()>
    where
        I: Send + 'static,
        O: Send + 'static,
        E: Send + 'static,
    {
        self.trace.task_span().run(self)
    }

    /// One pass over every source. Returns whether anything happened.
    fn pass(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        // The fleet first: a place lost while the host was frozen is known before anything
        // read meanwhile is handed on.
        let mut progress = self.poll_fleet(cx, now);
        let (session, trace) = (&mut self.session, &mut self.trace);
        progress |= self
            .handles
            .poll_commands(cx, now, session, trace, &mut self.dispatcher);
        // No more user messages while stdin is backed up.
        if !self.cli.stdin_backed_up() {
            progress |= self.handles.poll_input(cx, now, session, trace);
        }
        // stdout before callbacks and stdin: a permission prompt read now is answered and its
        // reply written in this same pass.
        progress |= self.poll_stdout(cx, now);
        progress |= self.poll_callbacks(cx, now);
        progress |= self.drain_events(cx, now);
        progress |= self.poll_mirror(cx, now);
        progress |= self.cli.poll_stdin(cx, &mut self.session, &mut self.trace);
        progress |= self.cli.poll_stderr(cx);
        progress |= self.poll_exit(cx, now);
        progress |= self.poll_deadlines(cx, now);
        if let Some(place) = &mut self.place {
            place.tell_turn(self.session.turn_running());
        }
        progress
    }

    /// The fleet's news (a budget report of the session's key, a turn's charge made, the place
    /// lost) goes to the session, which decides: a lost place withholds what comes after,
    /// whatever else ended the session. It is acted on even while the application is behind on
    /// its messages: the CLI stops at once, whatever is queued.
    fn poll_fleet(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        if self.handles.has_ended() {
            return false;
        }
        let Some(place) = &mut self.place else {
            return false;
        };
        match place.poll_news(cx, now, &mut self.session) {
            Poll::Pending => false,
            Poll::Ready(News::Told) => true,
            // The place is another host's: the store lets go of what it holds, and the CLI
            // takes no more user messages.
            Poll::Ready(News::Lost) => {
                if let Some(mirror) = &mut self.mirror {
                    mirror.sync(&mut self.session, now);
                }
                self.handles.stop_input();
                true
            }
        }
    }

    /// Keep the store and the session in step (the session decides: [`Session::sync_store`]),
    /// and drive the append under way. A store that fenced this host off has lost the
    /// session's place: a result waiting for its charge in the fleet is dropped too.
    fn poll_mirror(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let Some(mirror) = self.mirror.as_mut() else {
            return false;
        };
        let mut progress = mirror.sync(&mut self.session, now);
        progress |= mirror.poll(cx, now);
        progress |= mirror.sync(&mut self.session, now);
        if mirror.fenced().is_some() {
            if let Some(place) = &mut self.place {
                place.lost();
            }
        }
        progress
    }

    fn poll_callbacks(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let session = &mut self.session;
        let trace = &mut self.trace;
        let mut progress = false;
        self.dispatcher.poll(cx, |id, reply, panicked| {
            progress = true;
            trace.answer(id, &reply, panicked, now);
            // The CLI may have cancelled it meanwhile, or stdin may be closed: nothing to do then.
            let _ = session.respond(now, id, reply);
        });
        progress
    }

    /// Take events from the session while there is somewhere to put them.
    fn drain_events(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let mut progress = false;
        loop {
            if !self.handles.is_clear() {
                if self.handles.poll_room(cx).is_pending() {
                    return progress;
                }
                progress = true;
            }
            if let Some(notice) = self.cli.recording().take_notice() {
                self.handles.queue(Ok(notice));
                progress = true;
                continue;
            }
            if self.handles.has_ended() {
                return progress;
            }
            let Some(event) = self.session.poll_event() else {
                return progress;
            };
            progress = true;
            match event {
                // The hot path: straight into the queue, one move.
                Event::Message(message) => {
                    self.trace.message(&message);
                    if let Some(place) = &self.place {
                        place.saw(&message);
                    }
                    if !self.handles.hand_over(cx, Ok(message)) {
                        return progress;
                    }
                }
                other => self.handle_event(other, now),
            }
        }
    }

    fn poll_stdout(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let mut progress = false;
        // Read only while the session has room, and while our own outbox is clear.
        while self.handles.is_clear() && !self.handles.has_ended() && self.session.wants_read() {
            match self.cli.read_stdout(cx) {
                Read::Pending => return progress,
                Read::Bytes(bytes) => {
                    self.session.handle_stdout(now, bytes);
                    progress = true;
                    self.drain_events(cx, now);
                }
                Read::Closed => {
                    self.session.handle_stdout_eof(now);
                    return true;
                }
                Read::Failed(error) => {
                    self.session.handle_stdout_error(now, error.to_string());
                    self.drain_events(cx, now);
                    return true;
                }
            }
        }
        progress
    }

    fn poll_exit(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let Some(status) = self.cli.poll_exit(cx, &self.session) else {
            return false;
        };
        self.trace.exit(&status);
        self.handles.link().set_process_id(None);
        self.session.handle_exit(now, status);
        true
    }

    /// The session's deadline (its own, its callbacks' time limits, and the steps of stopping
    /// the CLI), and the store mirror's (its retries and time limits).
    fn poll_deadlines(&mut self, cx: &mut Context<'_>, now: Instant) -> bool {
        let mut progress = false;
        if self.session.poll_timeout().is_some_and(|t| t <= now) {
            self.session.handle_timeout(now);
            progress = true;
        }
        if let Some(mirror) = &mut self.mirror {
            if mirror.poll_timeout().is_some_and(|t| t <= now) {
                mirror.handle_timeout(now);
                progress = true;
            }
        }
        if self.session.stopping() {
            // A CLI being stopped takes no more user messages.
            self.handles.stop_input();
        }
        let mirror = self.mirror.as_ref().and_then(Mirror::poll_timeout);
        progress
            || self
                .clock
                .wake_at(cx, now, [self.session.poll_timeout(), mirror])
    }

    /// Once the session has finished and stderr has been read to its end: tell the handles (the
    /// final error, if the session ended with one). Returns whether the driver is done.
    fn finish(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.handles.has_ended() || self.cli.stderr_open() || !self.handles.is_clear() {
            return false;
        }
        // The recording's lines so far are written, and a failure reaches the stream, before the
        // session's end does.
        if !self.cli.recording().flush() {
            return false;
        }
        let cli = &self.cli;
        if !self.handles.report_end(cx, || cli.stderr_tail()) || !self.cli.exited() {
            return false;
        }
        // The end has been reported: a failure to finish the file (the few lines since the flush
        // above) can only be dropped.
        self.cli.recording().finish();
        true
    }
}

impl<R: Runtime, C: ChildProcess, I, O, E> Driver<R, C, I, O, E> {
    /// Write out the recorded lines before the driver waits; a failure goes to the stream.
    fn flush_recording(&mut self, cx: &mut Context<'_>) {
        if !self.cli.recording().flush() {
            // Come back to deliver it.
            cx.waker().wake_by_ref();
        }
    }
}

// No field is structurally pinned: the sleep and the command receiver are boxed, and the pipes
// and the child are moved only by `&mut`.
impl<R: Runtime, C: ChildProcess, I, O, E> Unpin for Driver<R, C, I, O, E> {}

impl<R, C, I, O, E> Future for Driver<R, C, I, O, E>
where
    R: Runtime,
    C: ChildProcess,
    I: AsyncWrite + Unpin,
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        for _ in 0..PASS_BUDGET {
            let now = this.clock.now();
            let progress = this.pass(cx, now);
            if this.finish(cx) {
                return Poll::Ready(());
            }
            if !progress {
                this.flush_recording(cx);
                return Poll::Pending;
            }
        }
        // Still busy: let other tasks run, and come back at once.
        this.flush_recording(cx);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl<R: Runtime, C: ChildProcess, I, O, E> Drop for Driver<R, C, I, O, E> {
    fn drop(&mut self) {
        // The session's end (the command channel closed, the stream finished) comes after this,
        // from the task that owns the driver (`SessionEnd`).
        if !self.cli.exited() {
            // Dropped before the CLI was reaped (the runtime is shutting down, or the driver
            // task was cancelled): kill it and everything it started; the adapter's child
            // handle reaps it.
            let reason = "the session was dropped before the CLI exited";
            self.cli.kill(reason, &mut self.trace);
            // The session ends here, and nothing of it reaches anyone any more. Every turn it
            // holds (one it was in, one whose result it held) is charged to the fleet's key all
            // the same.
            self.session.abandon(self.clock.now());
            while let Some(event) = self.session.poll_event() {
                if let (Event::UnfinishedTurn(cost) | Event::Charge(cost), Some(place)) =
                    (event, &self.place)
                {
                    place.charge_unwaited(&cost);
                    self.session.turn_charged();
                }
            }
        }
        // Nothing of the session is left behind once its stream has ended.
        drop(std::mem::take(&mut self.folders));
    }
}
