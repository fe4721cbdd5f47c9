//! A checked host around a [`Session`]: drains every output after each step and panics (the
//! fuzzer's crash signal) as soon as an invariant of the session breaks.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use claude_agent_core::control::{ControlRequest, InboundId, InboundKind, RequestId};
use claude_agent_core::cost::{BudgetLevel, BudgetReport, Spent, TurnCost};
use claude_agent_core::message::{Message, UserInput};
use claude_agent_core::session::{
    Event, ExitStatusInfo, RespondError, Session, SessionConfig, Signal, Transmit,
};
use serde_json::value::RawValue;

use crate::commands::{InboundTag, ReplyKind};
use crate::store::StoreHost;

/// The host side of a fuzzed session, with the bookkeeping its invariants need.
pub struct Driver {
    /// The session under test.
    pub session: Session,
    /// The virtual clock.
    pub now: Instant,
    max_line_bytes: usize,
    max_queued_events: usize,
    /// Every id of ours (initialize first) and how many `RequestDone` events it got.
    requests: BTreeMap<RequestId, u32>,
    /// The ids of the requests the session sent for itself, and how many `RequestDone` events
    /// each got.
    own: BTreeMap<RequestId, u32>,
    /// Ids of ours in the order they were issued (for answers that target one of them).
    issued: Vec<RequestId>,
    /// Inbound requests not yet answered nor withdrawn, in arrival order.
    open: Vec<(InboundId, InboundTag)>,
    /// Requests handed out and unanswered at once, at most.
    max_inbound_in_flight: usize,
    close_stdin_seen: bool,
    /// The signals asked for, in order.
    signals: Vec<Signal>,
    pipes_released: bool,
    finished_seen: bool,
    /// An `UnfinishedTurn` was reported.
    unfinished_seen: bool,
    /// `Ready` was reported.
    ready_seen: bool,
    /// `Closing` was reported.
    closing_seen: bool,
    /// The host lost the session's place in its fleet.
    place_lost: bool,
    /// The host closed the session ([`Driver::close`]).
    closed_by_host: bool,
    /// The host's session store, fed the transcript frames.
    store: StoreHost,
    /// Results wait for the store ([`SessionConfig::results_after_store`]).
    results_after_store: bool,
    /// Results wait for their turn's charge ([`SessionConfig::results_after_charge`]).
    results_after_charge: bool,
    /// A turn's cost handed out ([`Event::Charge`]) that the host's ledger has not taken yet.
    charge_due: Option<TurnCost>,
    /// A charge just made: its result is the next event.
    charge_made: Option<TurnCost>,
    /// Every turn's cost the host was told of, as its ledger would add them up: the charges,
    /// the unfinished turns, and (without a ledger to charge first) the results' costs.
    told: Spent,
    /// Events handed out.
    delivered: u64,
    eof: bool,
    exited: bool,
    /// Every event, rendered, for comparisons between runs.
    pub events: Vec<String>,
    /// Every line written to stdin (and the close), for comparisons between runs.
    pub written: Vec<String>,
    /// Whether `events` and `written` are filled (it costs time).
    keep_log: bool,
}

impl Driver {
    /// A session made from `config` at a fixed start time.
    pub fn new(config: SessionConfig, keep_log: bool) -> Driver {
        let now = Instant::now();
        let max_line_bytes = config.limits.max_line_bytes;
        let max_queued_events = config.limits.max_queued_events;
        let max_inbound_in_flight = config.limits.max_inbound_in_flight.max(1);
        let results_after_store = config.results_after_store;
        let results_after_charge = config.results_after_charge;
        let session = Session::new(config, now);
        let init = session.initialize_id();
        let mut driver = Driver {
            session,
            now,
            max_line_bytes,
            max_queued_events,
            max_inbound_in_flight,
            requests: BTreeMap::from([(init, 0)]),
            issued: vec![init],
            own: BTreeMap::new(),
            open: Vec::new(),
            close_stdin_seen: false,
            signals: Vec::new(),
            pipes_released: false,
            finished_seen: false,
            unfinished_seen: false,
            ready_seen: false,
            closing_seen: false,
            place_lost: false,
            closed_by_host: false,
            store: StoreHost::new(),
            results_after_store,
            results_after_charge,
            charge_due: None,
            charge_made: None,
            told: Spent::default(),
            delivered: 0,
            eof: false,
            exited: false,
            events: Vec::new(),
            written: Vec::new(),
            keep_log,
        };
        // The store is in step before the first event, as the runtime crates' driver has it.
        driver.pump_store();
        driver.drain();
        driver
    }

    /// Whether the session closed itself ([`Event::Closing`]).
    pub fn closed_itself(&self) -> bool {
        self.closing_seen
    }

    /// Ids of ours issued so far, initialize first.
    pub fn issued(&self) -> &[RequestId] {
        &self.issued
    }

    /// Inbound requests waiting for an answer, oldest first.
    pub fn open_inbound(&self) -> &[(InboundId, InboundTag)] {
        &self.open
    }

    /// Bytes from the CLI's stdout.
    pub fn stdout(&mut self, bytes: &[u8]) {
        self.session.handle_stdout(self.now, bytes);
        self.drain();
    }

    /// The CLI's stdout ended.
    pub fn eof(&mut self) {
        self.session.handle_stdout_eof(self.now);
        self.eof = true;
        self.drain();
    }

    /// The CLI exited.
    pub fn exit(&mut self, status: ExitStatusInfo) {
        self.session.handle_exit(self.now, status);
        self.exited = true;
        self.drain();
    }

    /// Let `by` pass, then hand the session and the store's queue the time (also when nothing
    /// is due); meanwhile the store stores every append it is handed, and the ledger takes the
    /// charge it was handed.
    pub fn advance(&mut self, by: Duration) {
        self.now += by;
        self.session.handle_timeout(self.now);
        self.store.handle_timeout(self.now);
        self.drain();
        self.store_catches_up();
        self.charged();
        self.pump_store();
        for deadline in [self.session.poll_timeout(), self.store.poll_timeout()]
            .into_iter()
            .flatten()
        {
            assert!(
                deadline > self.now,
                "handle_timeout left an overdue deadline"
            );
        }
    }

    /// The host's side of the store after a step, as the runtime crates do it: the queue and
    /// the session kept in step until neither moves. A store that fenced the host off has lost
    /// the session's place.
    pub fn pump_store(&mut self) {
        loop {
            let changed = self.store.sync(&mut self.session, self.now);
            if self.store.fenced() && !self.place_lost {
                self.place_lost = true;
                self.charge_due = None;
                self.drain();
                self.check_closing_after_loss();
                continue;
            }
            if !changed {
                return;
            }
            let before = self.delivered;
            self.drain();
            if self.delivered == before {
                return;
            }
        }
    }

    /// The store answers the append it is working on (`outcome % 3`: stored, failed,
    /// fenced).
    pub fn store_answer(&mut self, outcome: u8) {
        self.store.answer(self.now, outcome);
        self.pump_store();
    }

    /// The store stores every append it is handed, until it has none.
    fn store_catches_up(&mut self) {
        self.pump_store();
        while self.store.busy() {
            self.store_answer(0);
        }
    }

    /// The host closes the session.
    pub fn close(&mut self) {
        self.session.close(self.now);
        self.closed_by_host = true;
        self.drain();
    }

    /// The host lost the session's place in its fleet: the session closes (unless the host
    /// closed it, or it is closing already: it keeps that reason), and none of the CLI's
    /// messages reaches the application from now on.
    pub fn place_lost(&mut self) {
        self.session.place_lost(self.now);
        self.place_lost = true;
        // A result waiting for its charge is dropped.
        self.charge_due = None;
        self.drain();
        self.check_closing_after_loss();
    }

    /// The host gives the session up (`abandon`): it finishes at once, with nothing more for
    /// the application and no answer from the host (a charge that comes out is booked, not
    /// answered); every turn it counted still comes out, checked at the end.
    pub fn abandon(&mut self) {
        self.session.abandon(self.now);
        // stdout is over and the CLI killed, as far as the session knows; nothing it printed
        // reaches anyone any more, as after a lost place.
        self.eof = true;
        self.exited = true;
        self.place_lost = true;
        self.charge_due = None;
        self.drain();
        assert!(self.finished_seen, "an abandoned session did not finish");
        assert!(
            !self.holds_events(),
            "an abandoned session still holds events"
        );
    }

    /// Once the place is lost the session closes, unless the host closed it or it had ended.
    fn check_closing_after_loss(&self) {
        assert!(
            self.closing_seen || self.closed_by_host || self.finished_seen,
            "the place was lost and the session is not closing"
        );
    }

    /// The host's report on a key's budget: exceeded, the session closes (keeping an earlier
    /// reason); nearly spent, it goes on.
    pub fn budget_report(&mut self, report: BudgetReport) {
        let exceeded = report.level == BudgetLevel::Exceeded;
        let closing_before = self.closing_seen;
        self.session.budget_report(self.now, report);
        self.drain();
        if !exceeded {
            assert_eq!(
                self.closing_seen, closing_before,
                "a budget warning closed the session"
            );
        }
    }

    /// The host's ledger takes the turn's cost it was handed, if one is due: its result goes on.
    pub fn charged(&mut self) {
        if let Some(cost) = self.charge_due.take() {
            self.charge_made = Some(cost);
            self.session.turn_charged();
            self.drain();
            assert!(self.charge_made.is_none(), "no result after its charge");
        }
    }

    /// Remember an id `Session::request` returned.
    pub fn issued_request(&mut self, id: RequestId) {
        assert!(
            !self.own.contains_key(&id) && self.requests.insert(id, 0).is_none(),
            "request id {id} handed out twice"
        );
        self.issued.push(id);
    }

    /// Answer the open inbound request number `index % open` with a reply of `kind`; a reply
    /// that does not fit is followed by one that does. Nothing happens if none is open.
    pub fn respond(&mut self, index: usize, kind: ReplyKind) {
        let Some(&(id, tag)) = self.open.get(index % self.open.len().max(1)) else {
            return;
        };
        for kind in [kind, ReplyKind::Fitting] {
            match self.session.respond(self.now, id, kind.reply(tag)) {
                Ok(()) | Err(RespondError::InputClosed) => {
                    self.answered(id);
                    break;
                }
                Err(RespondError::WrongKind { .. }) => {
                    assert_ne!(kind, ReplyKind::Fitting, "a fitting reply was refused");
                }
                // Its `Cancelled` or `Expired` is held behind a result that waits for the store
                // or a charge.
                Err(RespondError::Cancelled | RespondError::Expired) if self.holds_events() => {
                    break
                }
                Err(e) => panic!("respond to open request {id} failed: {e}"),
            }
        }
        self.drain();
    }

    /// Forget an inbound request that was answered or withdrawn.
    fn answered(&mut self, id: InboundId) {
        self.open.retain(|(open, _)| *open != id);
    }

    /// Take every transmit and event, checking each; then the state invariants.
    pub fn drain(&mut self) {
        while let Some(transmit) = self.session.poll_transmit() {
            self.check_transmit(transmit);
        }
        // Back-pressure: reading is wanted exactly while stdout is open and the queue has room.
        let wanted = self.session.wants_read();
        let mut queued = 0;
        while let Some(event) = self.session.poll_event() {
            queued += 1;
            self.check_event(event);
        }
        // Events held behind a result that waits for the store or a charge count too, and so do
        // those held behind a request while the host has as many as it may.
        let held = self.holds_events() || self.open.len() >= self.max_inbound_in_flight;
        assert!(
            wanted == (!self.eof && queued < self.max_queued_events) || (held && !wanted),
            "wants_read with {queued} events queued (limit {})",
            self.max_queued_events
        );
        // Once every withdrawal is told (none held behind the store), no more requests are
        // handed out and unanswered than the limit.
        assert!(
            self.open.len() <= self.max_inbound_in_flight || self.holds_events(),
            "{} requests handed out and unanswered; the limit is {}",
            self.open.len(),
            self.max_inbound_in_flight
        );
        self.check_state();
    }

    fn check_transmit(&mut self, transmit: Transmit) {
        // Once the CLI exited, only its pipes are left to let go of, once.
        if self.exited {
            assert_eq!(
                transmit,
                Transmit::ReleasePipes,
                "{transmit:?} after the CLI exited"
            );
            assert!(!self.pipes_released, "ReleasePipes twice");
            self.pipes_released = true;
            // The session took stdout as ended, if it had not ended: the host stops reading it.
            self.eof = true;
            self.log("release pipes".into());
            return;
        }
        if let Transmit::Signal(signal) = transmit {
            // Stopping the CLI: stdin closed first, then SIGTERM, then SIGKILL, each once.
            assert!(self.close_stdin_seen, "{signal:?} before CloseStdin");
            assert!(
                self.session.stopping(),
                "{signal:?} while the session is not stopping"
            );
            let expected = [Signal::Terminate, Signal::Kill];
            assert_eq!(
                Some(&signal),
                expected.get(self.signals.len()),
                "{signal:?} after {:?}",
                self.signals
            );
            self.signals.push(signal);
            self.log(format!("{signal:?}"));
            return;
        }
        assert!(!self.close_stdin_seen, "{transmit:?} after CloseStdin");
        match transmit {
            Transmit::Write(bytes) => {
                assert!(!bytes.is_empty(), "an empty write");
                assert_eq!(
                    bytes.last(),
                    Some(&b'\n'),
                    "a write that is not whole lines"
                );
                for line in bytes[..bytes.len() - 1].split(|b| *b == b'\n') {
                    if let Err(e) = serde_json::from_slice::<Box<RawValue>>(line) {
                        panic!(
                            "a written line is not JSON ({e}): {}",
                            String::from_utf8_lossy(line)
                        );
                    }
                    if self.keep_log {
                        self.written
                            .push(String::from_utf8_lossy(line).into_owned());
                    }
                }
            }
            Transmit::CloseStdin => {
                self.close_stdin_seen = true;
                self.log("close stdin".into());
            }
            other => panic!("unknown transmit {other:?}"),
        }
    }

    fn log(&mut self, what: String) {
        if self.keep_log {
            self.written.push(what);
        }
    }

    /// Whether the session holds events behind a result: for the store, or for a charge.
    fn holds_events(&self) -> bool {
        self.session.waits_for_store() || self.charge_due.is_some()
    }

    fn check_event(&mut self, event: Event) {
        assert!(!self.finished_seen, "{event:?} after Finished");
        // A result that waited for its charge comes as soon as it is made, with that cost; until
        // then only a store's failure may come (everything else waits behind the result).
        if let Some(cost) = self.charge_made.take() {
            assert!(
                matches!(&event, Event::Message(Message::Result(r)) if r.turn_cost.as_ref() == Some(&cost)),
                "{event:?} came first once the charge was made"
            );
        }
        assert!(
            self.charge_due.is_none() || matches!(event, Event::StoreFailed(_)),
            "{event:?} while a result waits for its charge"
        );
        self.delivered += 1;
        if self.keep_log {
            self.events.push(format!("{event:?}"));
        }
        match event {
            Event::OwnRequestSent { id, request } => {
                assert!(
                    !self.requests.contains_key(&id) && self.own.insert(id, 0).is_none(),
                    "{request:?} sent as {id}, an id already handed out"
                );
            }
            Event::RequestDone { id, .. } => {
                let Some(count) = self.requests.get_mut(&id).or(self.own.get_mut(&id)) else {
                    panic!("RequestDone for {id}, which was never issued");
                };
                *count += 1;
                assert_eq!(*count, 1, "a second RequestDone for {id}");
            }
            Event::Inbound(request) => {
                assert!(
                    self.open.iter().all(|(id, _)| *id != request.id),
                    "inbound id {} reused while open",
                    request.id
                );
                let tag = match request.kind {
                    InboundKind::CanUseTool(_) => InboundTag::Permission,
                    InboundKind::HookCallback(_) => InboundTag::Hook,
                    InboundKind::McpToolCall(_) => InboundTag::ToolCall,
                    InboundKind::McpResourceRead(_) => InboundTag::Resource,
                    InboundKind::McpPromptGet(_) => InboundTag::Prompt,
                    InboundKind::Elicitation(_) => InboundTag::Elicitation,
                    InboundKind::UserDialog(_) => InboundTag::UserDialog,
                    _ => InboundTag::Other,
                };
                self.open.push((request.id, tag));
            }
            Event::Cancelled(id) => {
                let before = self.open.len();
                self.answered(id);
                assert_eq!(
                    self.open.len() + 1,
                    before,
                    "Cancelled({id}) for a request that was not open"
                );
            }
            Event::Expired(id) => {
                let tag = self
                    .open
                    .iter()
                    .find(|(open, _)| *open == id)
                    .map(|(_, tag)| *tag);
                assert_eq!(
                    tag,
                    Some(InboundTag::ToolCall),
                    "Expired({id}) for a request that was not an open tool call"
                );
                self.answered(id);
            }
            Event::Finished(_) => {
                assert!(
                    self.eof && self.exited,
                    "Finished before both stdout eof and exit"
                );
                // Unless the place is lost: then nothing more is stored from here.
                assert!(
                    self.place_lost || self.store.is_idle(),
                    "Finished before the store's last tries"
                );
                assert!(self.charge_due.is_none(), "Finished before the charge");
                self.finished_seen = true;
            }
            // Ready once, after `initialize` succeeded.
            Event::Ready => {
                assert!(!self.ready_seen, "a second Ready");
                let init = self.issued[0];
                assert_eq!(
                    self.requests.get(&init),
                    Some(&1),
                    "Ready before initialize's outcome"
                );
                self.ready_seen = true;
            }
            // The session closes itself once (a failed initialize, a stall, a budget), and then
            // takes no more of the host's.
            Event::Closing(reason) => {
                assert!(!self.closing_seen, "a second Closing: {reason}");
                self.closing_seen = true;
            }
            // A turn the session ends in is charged once, just before the end; once the place
            // is lost, so is every turn whose result the CLI prints while it stops.
            Event::UnfinishedTurn(cost) => {
                assert!(!self.finished_seen, "an unfinished turn after Finished");
                self.told.add(&cost);
                assert!(
                    !self.unfinished_seen || self.place_lost,
                    "a second unfinished turn: {cost:?}"
                );
                self.unfinished_seen = true;
            }
            // Nothing the CLI prints reaches the application once the place is lost: another
            // host may be running the session.
            Event::Message(message) if self.place_lost => {
                panic!("a message after the place was lost: {message:?}")
            }
            // A result comes only once its turn's transcript frames are stored, and its turn is
            // charged (checked above), when asked.
            Event::Message(Message::Result(result)) => {
                assert!(
                    !self.results_after_store || self.store.settled(),
                    "a result before the transcript frames ahead of it were stored"
                );
                if !self.results_after_charge {
                    self.told
                        .add(result.turn_cost.as_ref().expect("a result has a cost"));
                }
            }
            // Once per result: the next one comes after this one's result. Once the place is
            // lost a charge still comes (its turn is counted), and its result does not.
            Event::Charge(cost) => {
                assert!(
                    self.results_after_charge,
                    "a charge without a ledger: {cost:?}"
                );
                self.told.add(&cost);
                if !self.place_lost {
                    self.charge_due = Some(*cost);
                }
            }
            Event::Mirror(frame) => self.store.enqueue(*frame),
            Event::StoreFailed(failure) => {
                assert!(
                    !self.place_lost,
                    "a store failure after the place was lost: {failure:?}"
                );
                assert!(!self.finished_seen, "a store failure after Finished");
                self.store.failure_reported();
            }
            // A stall is reported while the session goes on; one that closes it is the
            // `Closing` event's.
            Event::Stalled(stall) => {
                assert!(!self.closing_seen, "{stall:?} after Closing");
            }
            // Any CLI may print a start-up mark; an interrupt may change nothing, and a budget
            // may be crossed.
            Event::Message(_)
            | Event::LineError(_)
            | Event::CliVersion(_)
            | Event::StartupMark(_)
            | Event::InterruptNotApplied(_)
            | Event::Budget(_) => {}
            Event::Claimed(outcome) => panic!("Claimed {outcome:?}, but no claim was sent"),
            other => panic!("unknown event {other:?}"),
        }
    }

    fn check_state(&self) {
        // Everything queued was just taken, so only a partial stdout line may be held.
        assert!(
            self.session.buffered_bytes() <= self.max_line_bytes,
            "{} bytes buffered with a line limit of {}",
            self.session.buffered_bytes(),
            self.max_line_bytes
        );
        let undone = self.requests.values().filter(|n| **n == 0).count();
        assert_eq!(self.session.is_finished(), self.finished_seen);
        // Behind a result that waits for the store or a charge, events are held: the host
        // learns of requests, answers and the end only once they are done. So are they behind
        // a request held back while the host has as many as it may take.
        let held_back = self.open.len() >= self.max_inbound_in_flight
            && self.session.pending_inbound() > self.open.len();
        if !self.holds_events() && !held_back {
            assert_eq!(
                self.session.pending_inbound(),
                self.open.len(),
                "the session and the host disagree on open inbound requests"
            );
            assert_eq!(
                self.session.pending_requests(),
                undone,
                "pending requests do not match the ids without an outcome"
            );
            if self.eof && self.exited {
                assert!(self.finished_seen, "eof and exit but no Finished");
            }
        }
        if self.finished_seen {
            assert_eq!(undone, 0, "finished with requests still pending");
            assert!(
                self.own.values().all(|done| *done == 1),
                "finished with the session's own requests pending: {:?}",
                self.own
            );
            assert!(self.open.is_empty(), "finished with inbound requests open");
        }
        assert_eq!(
            self.session.wants_read(),
            !self.eof,
            "wants_read with an empty queue"
        );
    }

    /// End the session (eof and exit, whichever is missing) and check the end state.
    pub fn finish(&mut self, exit: ExitStatusInfo) {
        if !self.eof {
            self.eof();
        }
        if !self.exited {
            self.exit(exit);
        }
        // The store catches up, through the queue's tries again, and the ledger takes each
        // charge; what waited for them (the end too) comes out, and the queue is left with
        // nothing.
        self.store_catches_up();
        while let Some(deadline) = self.store.poll_timeout() {
            self.advance(deadline.saturating_duration_since(self.now));
        }
        while self.charge_due.is_some() {
            self.advance(Duration::ZERO);
            while let Some(deadline) = self.store.poll_timeout() {
                self.advance(deadline.saturating_duration_since(self.now));
            }
        }
        assert!(
            !self.holds_events(),
            "the store and the ledger caught up, and a result still waits"
        );
        self.store.check_done(self.place_lost);
        assert!(self.finished_seen);
        // Every turn the session counted was told to the host once: as a charge, as an
        // unfinished turn, or on its result. None is lost, none counted twice.
        let spent = self.session.spent();
        assert_eq!(
            (self.told.turns, self.told.tokens),
            (spent.turns, spent.tokens),
            "the turns told to the host and the turns the session counted differ"
        );
        // Nothing more may come out, whatever the host does now.
        self.session
            .handle_stdout(self.now, b"{\"type\":\"keep_alive\"}\n");
        self.session
            .handle_timeout(self.now + Duration::from_secs(3600));
        let request = self.session.request(self.now, ControlRequest::Interrupt);
        assert!(request.is_err(), "a request was accepted after Finished");
        let send = self.session.send_user(self.now, UserInput::text("late"));
        assert!(send.is_err(), "a user message was accepted after Finished");
        self.session.end_input(self.now);
        self.session.close(self.now);
        self.drain();
    }
}
