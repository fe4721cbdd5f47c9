//! The session's place in its fleet, as the driver keeps it: what the fleet says (a budget report
//! of the session's key, a charge made, or that a shared ledger took the place away), told to
//! the session, and what the fleet is told (the session's id, whether a turn runs, each turn's
//! cost). A shared ledger's charge is awaited here; the session holds the turn's result until
//! then.

use std::task::{Context, Poll};
use std::time::Instant;

use crate::cost::TurnCost;
use crate::message::{Message, SystemMessage};
use crate::session::Session;
use crate::{ChargeFuture, Seat};

/// The fleet's news, once the session has been told it.
pub(super) enum News {
    /// A shared ledger took the session's place away (another host may hold the session): the
    /// session drops what it holds for the store and for a charge, and stops its CLI.
    Lost,
    /// A budget report of the session's key (a warning comes back as `Event::Budget`, an
    /// exceeded budget as `Event::Closing`), or a turn's charge made in the shared ledger (its
    /// result goes on).
    Told,
}

/// A running session's place in its fleet: given back when dropped (the driver drops it once
/// the CLI is gone).
pub(super) struct Place {
    seat: Seat,
    /// Whether the fleet was last told the session is in a turn.
    in_turn: bool,
    /// A turn's charge on its way into the fleet's shared ledger.
    charging: Option<ChargeFuture>,
    /// The place is lost: no more news of it.
    lost: bool,
}

impl Place {
    /// The place of a session whose CLI has started.
    pub(super) fn new(mut seat: Seat) -> Self {
        seat.started();
        Place {
            seat,
            in_turn: false,
            charging: None,
            lost: false,
        }
    }

    /// Tell the session the fleet's next news. A lost place comes first (a host frozen past its
    /// lease wakes with a charge made, and must not hand on its result), and is the last.
    pub(super) fn poll_news(
        &mut self,
        cx: &mut Context<'_>,
        now: Instant,
        session: &mut Session,
    ) -> Poll<News> {
        if self.lost {
            return Poll::Pending;
        }
        if self.seat.poll_lost(cx).is_ready() {
            self.lost();
            session.place_lost(now);
            return Poll::Ready(News::Lost);
        }
        if let Some(charge) = &mut self.charging {
            if charge.as_mut().poll(cx).is_ready() {
                self.charging = None;
                session.turn_charged();
                return Poll::Ready(News::Told);
            }
        }
        self.seat.poll_report(cx).map(|report| {
            session.budget_report(now, report);
            News::Told
        })
    }

    /// The place is gone (the ledger or the store took it): no more news of it. A charge on
    /// its way is the ledger's to finish.
    pub(super) fn lost(&mut self) {
        self.lost = true;
        self.charging = None;
    }

    /// Tell the fleet whether the session is in a turn, when that changed.
    pub(super) fn tell_turn(&mut self, running: bool) {
        if running != self.in_turn {
            self.in_turn = running;
            self.seat.turn_running(running);
        }
    }

    /// A message on its way to the application: the fleet learns the session's id from it.
    pub(super) fn saw(&self, message: &Message) {
        match message {
            Message::Result(result) => self.seat.session_id(result.session_id()),
            Message::System(SystemMessage::Init(init)) => self.seat.session_id(init.session_id()),
            _ => {}
        }
    }

    /// A turn's cost goes to the key: `true` while a shared ledger makes the charge
    /// ([`News::Charged`] says when it is made), `false` once it is made.
    pub(super) fn charge(&mut self, cost: &TurnCost) -> bool {
        self.charging = self.seat.charge(cost);
        self.charging.is_some()
    }

    /// A turn the session ended in, or whose charge nobody waits for any more: its cost goes
    /// to the key, in the ledger's hands.
    pub(super) fn charge_unwaited(&self, cost: &TurnCost) {
        drop(self.seat.charge(cost));
    }
}
