//! What the driver does with each of the session's events other than a message: the trace is
//! told first, then the one part each event is for acts on it: the callbacks, the store's
//! mirror, the fleet's place, or the handles.

use std::time::Instant;

use futures_io::{AsyncRead, AsyncWrite};

use super::Driver;
use crate::process::runtime::{ChildProcess, Runtime};
use crate::session::Event;

impl<R, C, I, O, E> Driver<R, C, I, O, E>
where
    R: Runtime,
    C: ChildProcess,
    I: AsyncWrite + Unpin,
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    pub(super) fn handle_event(&mut self, event: Event, now: Instant) {
        self.trace.event(&event, now);
        match event {
            Event::Inbound(request) => self.dispatcher.start(*request),
            Event::Cancelled(id) => {
                let running = self.dispatcher.cancel(id);
                self.trace.withdrawn(id, running);
            }
            Event::Expired(id) => {
                let running = self.dispatcher.cancel(id);
                self.trace.expired(id, running, now);
            }
            // Without a store, nobody asked for them.
            Event::Mirror(frame) => {
                if let Some(mirror) = self.mirror.as_mut() {
                    mirror.enqueue(*frame);
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
            Event::UnfinishedTurn(cost) => {
                if let Some(place) = &self.place {
                    place.charge_unwaited(&cost);
                }
            }
            other => {
                if let Event::Finished(_) = other {
                    // Callbacks still running have nobody to answer any more.
                    self.dispatcher.cancel_all();
                }
                self.handles.event(other, self.session.server_info());
            }
        }
    }
}
