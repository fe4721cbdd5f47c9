//! What the driver does with each of the session's events other than a message: notices for the
//! stream, callbacks started and cancelled, answers to the handles' requests, the session's own
//! end, and what the trace and the fleet are told.

use std::time::Instant;

use futures_io::{AsyncRead, AsyncWrite};

use super::Driver;
use crate::cost::BudgetReport;
use crate::error::Error;
use crate::message::NoticeKind;
use crate::persistence::mirror::mirror_error;
use crate::process::runtime::{ChildProcess, Runtime};
use crate::session::{EndReason, Event};
use crate::task::trace::Subtype;

impl<R, C, I, O, E> Driver<R, C, I, O, E>
where
    R: Runtime,
    C: ChildProcess,
    I: AsyncWrite + Unpin,
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    pub(super) fn handle_event(&mut self, event: Event, now: Instant) {
        match event {
            Event::Stalled(stall) => {
                self.trace.stalled(&stall);
                self.handles.notice(NoticeKind::Stalled(stall));
            }
            Event::Budget(report) => self.budget_notice(*report),
            Event::Ready => self.handles.ready(self.session.server_info()),
            // The session closed itself: stop the CLI as after a close.
            Event::Closing(reason) => {
                match &reason {
                    EndReason::Stalled(stall) => self.trace.stalled(stall),
                    EndReason::OverBudget(report) => self.trace.budget(report),
                    // Nothing more goes to the store from this host (`poll_fleet`).
                    EndReason::PlaceLost => {}
                    EndReason::InitializeFailed(failure) => {
                        let error = Error::from_failure(failure.clone());
                        self.handles.initialize_failed(error);
                    }
                    // A reason newer than this layer: the shutdown below is all it asks for.
                    _ => {}
                }
                self.begin_shutdown(now, false);
            }
            Event::UnfinishedTurn(cost) => {
                if let Some(place) = &self.place {
                    place.charge_unwaited(&cost);
                }
            }
            // The result waits in the session until a shared ledger has the charge
            // (`poll_fleet`); this process's ledger has it at once.
            Event::Charge(cost) => {
                let waits = self.place.as_mut().is_some_and(|place| place.charge(&cost));
                if !waits {
                    self.session.turn_charged();
                }
            }
            Event::InterruptNotApplied(why) => {
                self.trace.interrupt_not_applied(why);
                self.handles.notice(NoticeKind::InterruptNotApplied(why));
            }
            Event::Message(message) => self.handles.queue(Ok(message)),
            Event::LineError(error) => {
                self.trace.line_error(&error);
                self.handles.notice(NoticeKind::UnreadableLine(error));
            }
            Event::Mirror(frame) => {
                // Without a store, nobody asked for them.
                if let Some(mirror) = self.mirror.as_mut() {
                    mirror.enqueue(*frame);
                }
            }
            Event::StoreFailed(failure) => {
                let message = mirror_error(failure.key.as_ref(), &failure.error);
                self.handles.queue(Ok(message));
            }
            Event::CliVersion(check) => {
                self.trace.cli_version(&check);
                self.handles.link().set_version_check(check);
            }
            Event::Inbound(request) => {
                self.trace.cli_request(&request, now);
                self.dispatcher.start(*request);
            }
            Event::Cancelled(id) => {
                let running = self.dispatcher.cancel(id);
                self.trace.withdrawn(id, running);
            }
            Event::Expired(id) => {
                let running = self.dispatcher.cancel(id);
                self.trace.expired(id, running, now);
            }
            Event::OwnRequestSent { id, request } => {
                self.trace.request_sent(id, Subtype::own(request), now);
            }
            Event::RequestDone { id, outcome } => {
                self.trace.request_done(id, &outcome, now);
                self.handles.replies.request_done(id, outcome);
            }
            Event::Claimed(outcome) => {
                self.trace.claimed(&outcome, now);
                self.handles.replies.claimed(outcome);
            }
            // Start-up progress; the session keeps the last one.
            Event::StartupMark(mark) => self.trace.startup_mark(&mark, now),
            Event::Finished(termination) => {
                self.handles.finished(termination);
                // Callbacks still running have nobody to answer any more.
                self.dispatcher.cancel_all();
            }
            // An event newer than this layer: it has nothing to act on.
            _ => {}
        }
    }

    /// A budget nearly spent: a notice.
    pub(super) fn budget_notice(&mut self, report: BudgetReport) {
        self.trace.budget(&report);
        self.handles.notice(NoticeKind::Budget(report));
    }
}
