//! What the driver does with each of the session's events other than a message: notices for the
//! stream, callbacks started and cancelled, answers to the handles' requests, the session's own
//! end, and what the trace and the fleet are told.

use std::time::Instant;

use futures_io::{AsyncRead, AsyncWrite};

use super::Driver;
use crate::cost::BudgetReport;
use crate::error::Error;
use crate::message::{Message, Notice, NoticeKind};
use crate::persistence::mirror::mirror_error;
use crate::process::runtime::{ChildProcess, Runtime};
use crate::session::{EndReason, Event, Termination};
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
                let notice = Notice::new(NoticeKind::Stalled(stall));
                self.undelivered = Some(Ok(Message::Notice(Box::new(notice))));
            }
            Event::Budget(report) => self.budget_notice(*report),
            Event::Ready => self.session_ready(),
            // The session closed itself: stop the CLI as after a close.
            Event::Closing(reason) => {
                match &reason {
                    EndReason::Stalled(stall) => self.trace.stalled(stall),
                    EndReason::OverBudget(report) => self.trace.budget(report),
                    // Nothing more goes to the store from this host (`poll_fleet`).
                    EndReason::PlaceLost => {}
                    // `connect` and a stream learn it at once, not once the CLI is gone (a
                    // hung one only after its grace): it is the session's end report.
                    EndReason::InitializeFailed(failure) => {
                        let error = Error::from_failure(failure.clone());
                        if let Some(error) = self.replies.connect_failed(Some(error)) {
                            self.undelivered = Some(Err(error));
                        }
                        self.reported = true;
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
                let notice = Notice::new(NoticeKind::InterruptNotApplied(why));
                self.undelivered = Some(Ok(Message::Notice(Box::new(notice))));
            }
            Event::Message(message) => self.undelivered = Some(Ok(message)),
            Event::LineError(error) => {
                self.trace.line_error(&error);
                let notice = Notice::new(NoticeKind::UnreadableLine(error));
                self.undelivered = Some(Ok(Message::Notice(Box::new(notice))));
            }
            Event::Mirror(frame) => {
                // Without a store, nobody asked for them.
                if let Some(mirror) = self.mirror.as_mut() {
                    mirror.enqueue(*frame);
                }
            }
            Event::StoreFailed(failure) => {
                let message = mirror_error(failure.key.as_ref(), &failure.error);
                self.undelivered = Some(Ok(message));
            }
            Event::CliVersion(check) => {
                self.trace.cli_version(&check);
                self.link.set_version_check(check);
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
                self.replies.request_done(id, outcome);
            }
            Event::Claimed(outcome) => {
                self.trace.claimed(&outcome, now);
                self.replies.claimed(outcome);
            }
            // Start-up progress; the session keeps the last one.
            Event::StartupMark(mark) => self.trace.startup_mark(&mark, now),
            Event::Finished(termination) => {
                if let Termination::Ended(reason) = &termination {
                    self.link.closed_itself(reason.clone());
                }
                self.termination = Some(termination);
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
        let notice = Notice::new(NoticeKind::Budget(report));
        self.undelivered = Some(Ok(Message::Notice(Box::new(notice))));
    }
}
