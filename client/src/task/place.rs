//! The session's place in its fleet, as the driver keeps it: what the fleet says (a budget report
//! of the session's key, or that a shared ledger took the place away), and what the fleet is
//! told (the session's id, whether a turn runs, each turn's cost). With a shared ledger a turn's
//! result waits here until its charge is in the ledger.

use std::task::{Context, Poll};

use crate::cost::{BudgetReport, TurnCost};
use crate::message::{Message, SystemMessage};
use crate::{ChargeFuture, Seat};

/// News from the fleet, for the session.
pub(super) enum News {
    /// A shared ledger took the session's place away: another host may hold the session.
    Lost,
    /// A budget report of the session's key.
    Report(BudgetReport),
}

/// A running session's place in its fleet: given back when dropped (the driver drops it once
/// the CLI is gone).
pub(super) struct Place {
    seat: Seat,
    /// Whether the fleet was last told the session is in a turn.
    in_turn: bool,
    /// A turn's result that waits for its charge to be in the fleet's shared ledger.
    charging: Option<(ChargeFuture, Message)>,
    /// A result was dropped because the place was lost while it waited for its charge.
    result_withheld: bool,
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
            result_withheld: false,
            lost: false,
        }
    }

    /// The fleet's next news; a lost place comes first, and is the last.
    pub(super) fn poll_news(&mut self, cx: &mut Context<'_>) -> Poll<News> {
        if self.lost {
            return Poll::Pending;
        }
        if self.seat.poll_lost(cx).is_ready() {
            return Poll::Ready(News::Lost);
        }
        self.seat.poll_report(cx).map(News::Report)
    }

    /// Whether the place is lost (checked again right before a result is handed over, since a
    /// host frozen past its lease wakes with results in hand).
    pub(super) fn poll_lost(&mut self, cx: &mut Context<'_>) -> bool {
        self.seat.poll_lost(cx).is_ready()
    }

    /// The place is gone (the ledger or the store took it): a result waiting for its charge is
    /// dropped, and remembered.
    pub(super) fn lost(&mut self) {
        self.lost = true;
        self.result_withheld |= self.charging.take().is_some();
    }

    /// Whether a result was dropped because the place was lost: a session that had finished
    /// cleanly ends with the lost place instead, not as if all had been handed on.
    pub(super) fn result_withheld(&self) -> bool {
        self.result_withheld
    }

    /// Tell the fleet whether the session is in a turn, when that changed.
    pub(super) fn tell_turn(&mut self, running: bool) {
        if running != self.in_turn {
            self.in_turn = running;
            self.seat.turn_running(running);
        }
    }

    /// A message on its way to the application: the fleet learns the session's id from it, and
    /// a result's cost is charged to the key. The message comes back when it can go on now;
    /// `None` when it waits for its charge ([`Place::poll_charged`]).
    pub(super) fn pass(&mut self, message: Message) -> Option<Message> {
        match &message {
            Message::Result(result) => {
                self.seat.session_id(result.session_id());
                if let Some(charge) = self.seat.turn(result) {
                    self.charging = Some((charge, message));
                    return None;
                }
            }
            Message::System(SystemMessage::Init(init)) => self.seat.session_id(init.session_id()),
            _ => {}
        }
        Some(message)
    }

    /// Ready once no result waits for its charge (`false`), or the one that waits is charged
    /// (`true`: [`Place::take_charged`] hands it over).
    pub(super) fn poll_charged(&mut self, cx: &mut Context<'_>) -> Poll<bool> {
        match &mut self.charging {
            Some((charge, _)) => charge.as_mut().poll(cx).map(|()| true),
            None => Poll::Ready(false),
        }
    }

    /// The result whose charge is made ([`Place::poll_charged`]), if one waited.
    pub(super) fn take_charged(&mut self) -> Option<Message> {
        self.charging.take().map(|(_, message)| message)
    }

    /// The session ended in a turn: its cost goes to the key all the same, in the ledger's
    /// hands (nothing waits for it).
    pub(super) fn unfinished_turn(&self, cost: &TurnCost) {
        drop(self.seat.charge(cost));
    }
}
