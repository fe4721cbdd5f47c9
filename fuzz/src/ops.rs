//! The `ops` target's language: a host's and a CLI's actions interleaved at will, and an encoder
//! that writes an op sequence as the bytes `arbitrary` decodes back into it (for seed corpora).

use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use claude_agent_core::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, Spent};
use claude_agent_core::session::ExitStatusInfo;

use crate::commands::{user_input, ReplyKind, RequestKind};
use crate::configs;
use crate::driver::Driver;
use crate::frames::{self, Frame};

/// One step of a fuzzed session.
///
/// Decoded from a `u32` tag scaled over [`OP_SLOTS`] fixed slots (not over the number of
/// variants, as `#[derive(Arbitrary)]` would), so that a new variant takes a free slot and every
/// saved input keeps its meaning. A free slot ends the sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Raw bytes from the CLI's stdout.
    Stdout(Vec<u8>),
    /// One well-formed line from the CLI's stdout.
    StdoutLine(Frame),
    /// `send_user` with message number `n`.
    SendUser(u8),
    /// `request`.
    Request(RequestKind),
    /// `respond` to open inbound request number `index` (modulo the number open).
    Respond(u8, ReplyKind),
    /// `end_input`.
    EndInput,
    /// stdout reached end of file.
    Eof,
    /// The CLI exited: a code, or a signal when negative.
    Exit(i8),
    /// Time passes, in units of 10 ms.
    Timeout(u16),
    /// `close`.
    Close,
    /// `place_lost`: the host lost the session's place in a shared fleet.
    PlaceLost,
    /// `budget_report` on a key's budget: exceeded, or else nearly spent.
    BudgetReport {
        /// Exceeded ([`BudgetLevel::Exceeded`]), or else nearly spent ([`BudgetLevel::Warning`]).
        exceeded: bool,
    },
    /// The session store answers the append it is working on: `% 3` picks stored, failed, or
    /// fenced (another host holds the session).
    StoreAnswer(u8),
    /// The host is busy: after the next op it takes the session's events but does not keep its
    /// store in step (`Session::sync_store`) until the op after.
    StoreLate,
    /// The host's ledger has the turn's cost it was handed (`Event::Charge`): `turn_charged`.
    Charged,
    /// The host gives the session up before its CLI exited: `abandon`.
    Abandon,
}

/// Number of slots an [`Op`]'s tag is scaled over: its variants' and the free ones'.
const OP_SLOTS: usize = 16;

impl<'a> Arbitrary<'a> for Op {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Op> {
        let tag = u64::from(u32::arbitrary(u)?);
        let slot = (tag * OP_SLOTS as u64) >> 32;
        Ok(match slot {
            0 => Op::Stdout(u.arbitrary()?),
            1 => Op::StdoutLine(u.arbitrary()?),
            2 => Op::SendUser(u.arbitrary()?),
            3 => Op::Request(u.arbitrary()?),
            4 => Op::Respond(u.arbitrary()?, u.arbitrary()?),
            5 => Op::EndInput,
            6 => Op::Eof,
            7 => Op::Exit(u.arbitrary()?),
            8 => Op::Timeout(u.arbitrary()?),
            9 => Op::Close,
            10 => Op::PlaceLost,
            11 => Op::BudgetReport {
                exceeded: u.arbitrary()?,
            },
            12 => Op::StoreAnswer(u.arbitrary()?),
            13 => Op::StoreLate,
            14 => Op::Charged,
            15 => Op::Abandon,
            _ => return Err(arbitrary::Error::IncorrectFormat),
        })
    }
}

/// A report on the budget of the key `fuzz` (the figures do not matter to the session).
fn budget_report(exceeded: bool) -> BudgetReport {
    BudgetReport {
        scope: BudgetScope::Key("fuzz".into()),
        level: if exceeded {
            BudgetLevel::Exceeded
        } else {
            BudgetLevel::Warning
        },
        budget: Budget::usd(1.0),
        spent: Spent::default(),
    }
}

fn exit_status(code: i8) -> ExitStatusInfo {
    if code < 0 {
        ExitStatusInfo::signal(-i32::from(code))
    } else {
        ExitStatusInfo::code(i32::from(code))
    }
}

/// Run `ops` on a session with configuration `config`, checking every invariant after each step,
/// then end the session (eof and exit 0, if they did not happen).
pub fn run(config: u8, ops: &[Op]) {
    play(config, ops, false);
}

/// [`run`], and the host that ran it: with `keep_log`, what came out of the session.
pub fn play(config: u8, ops: &[Op], keep_log: bool) -> Driver {
    let mut driver = Driver::new(configs::config(config), keep_log);
    // Whether the host skips keeping its store in step after the op at hand.
    let mut store_late = false;
    for op in ops {
        let now = driver.now;
        let skip_store = std::mem::take(&mut store_late);
        match op {
            Op::Stdout(bytes) => driver.stdout(bytes),
            Op::StdoutLine(frame) => {
                let mut line = frames::render(*frame, driver.issued());
                line.push('\n');
                driver.stdout(line.as_bytes());
            }
            Op::SendUser(n) => {
                // Refusals (input ended, closed) are legitimate; the checks are on what is written.
                let sent = driver.session.send_user(now, user_input(*n));
                assert!(
                    !(driver.closed_itself() && sent.is_ok()),
                    "a user message taken after the session closed itself"
                );
                driver.drain();
            }
            Op::Request(kind) => {
                if let Ok(id) = kind.issue(&mut driver.session, now) {
                    driver.issued_request(id);
                }
                driver.drain();
            }
            Op::Respond(index, kind) => driver.respond(usize::from(*index), *kind),
            Op::EndInput => {
                driver.session.end_input(now);
                driver.drain();
            }
            Op::Eof => driver.eof(),
            Op::Exit(code) => driver.exit(exit_status(*code)),
            Op::Timeout(units) => driver.advance(Duration::from_millis(u64::from(*units) * 10)),
            Op::Close => driver.close(),
            Op::PlaceLost => driver.place_lost(),
            Op::BudgetReport { exceeded } => driver.budget_report(budget_report(*exceeded)),
            Op::StoreAnswer(outcome) => driver.store_answer(*outcome),
            Op::StoreLate => store_late = true,
            Op::Charged => driver.charged(),
            Op::Abandon => driver.abandon(),
        }
        if !skip_store {
            driver.pump_store();
        }
    }
    driver.finish(ExitStatusInfo::code(0));
    driver
}

/// Writes values the way `arbitrary` 1.x reads them: integers little-endian, `bool` as one byte,
/// an enum as a `u32` tag scaled over its variants, then the variant's fields in order, a `Vec`
/// as a `true` byte before each element and a `false` byte after the last.
#[derive(Debug, Default)]
pub struct Encoder(Vec<u8>);

impl Encoder {
    /// An empty encoding.
    pub fn new() -> Self {
        Encoder::default()
    }

    /// The bytes written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    fn tag(&mut self, index: usize, count: usize) {
        // `arbitrary` picks variant `(tag * count) >> 32`; the smallest tag for `index` is the ceiling.
        let index = u64::try_from(index).expect("usize fits in u64");
        let count = u64::try_from(count).expect("usize fits in u64");
        let tag = u32::try_from((index << 32).div_ceil(count)).expect("index < count");
        self.0.extend_from_slice(&tag.to_le_bytes());
    }

    fn u8(&mut self, n: u8) {
        self.0.push(n);
    }

    fn bool(&mut self, b: bool) {
        self.0.push(u8::from(b));
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0.extend_from_slice(&[1, *b]);
        }
        self.0.push(0);
    }

    fn request_kind(&mut self, kind: RequestKind) {
        let index = RequestKind::ALL.iter().position(|k| *k == kind);
        self.tag(index.expect("ALL lists every kind"), RequestKind::ALL.len());
    }

    fn reply_kind(&mut self, kind: ReplyKind) {
        let index = ReplyKind::ALL.iter().position(|k| *k == kind);
        self.tag(index.expect("ALL lists every kind"), ReplyKind::ALL.len());
    }

    fn frame(&mut self, frame: Frame) {
        let count = Frame::COUNT;
        match frame {
            Frame::Result { is_error, subtype } => {
                self.tag(0, count);
                self.bool(is_error);
                self.u8(subtype);
            }
            Frame::Assistant { subagent } => {
                self.tag(1, count);
                self.bool(subagent);
            }
            Frame::StreamEvent => self.tag(2, count),
            Frame::SystemInit => self.tag(3, count),
            Frame::SessionState {
                state,
                sdk_host_only,
            } => {
                self.tag(4, count);
                self.u8(state);
                self.bool(sdk_host_only);
            }
            Frame::Task { task, step } => {
                self.tag(5, count);
                self.u8(task);
                self.u8(step);
            }
            Frame::CanUseTool { id } => {
                self.tag(6, count);
                self.u8(id);
            }
            Frame::HookCallback { id, callback } => {
                self.tag(7, count);
                self.u8(id);
                self.u8(callback);
            }
            Frame::McpMessage {
                id,
                method,
                known_server,
            } => {
                self.tag(8, count);
                self.u8(id);
                self.u8(method);
                self.bool(known_server);
            }
            Frame::Elicitation { id } => {
                self.tag(9, count);
                self.u8(id);
            }
            Frame::UserDialog { id, about_tool } => {
                self.tag(10, count);
                self.u8(id);
                self.bool(about_tool);
            }
            Frame::UnknownRequest { id } => {
                self.tag(11, count);
                self.u8(id);
            }
            Frame::ControlResponse {
                ours,
                success,
                with_pending,
            } => {
                self.tag(12, count);
                self.u8(ours);
                self.bool(success);
                self.bool(with_pending);
            }
            Frame::Cancel { id } => {
                self.tag(13, count);
                self.u8(id);
            }
            Frame::KeepAlive => self.tag(14, count),
            Frame::UnknownType => self.tag(15, count),
            Frame::Malformed { which } => {
                self.tag(16, count);
                self.u8(which);
            }
        }
    }

    /// Append one op.
    pub fn op(&mut self, op: &Op) {
        match op {
            Op::Stdout(bytes) => {
                self.tag(0, OP_SLOTS);
                self.bytes(bytes);
            }
            Op::StdoutLine(frame) => {
                self.tag(1, OP_SLOTS);
                self.frame(*frame);
            }
            Op::SendUser(n) => {
                self.tag(2, OP_SLOTS);
                self.u8(*n);
            }
            Op::Request(kind) => {
                self.tag(3, OP_SLOTS);
                self.request_kind(*kind);
            }
            Op::Respond(index, kind) => {
                self.tag(4, OP_SLOTS);
                self.u8(*index);
                self.reply_kind(*kind);
            }
            Op::EndInput => self.tag(5, OP_SLOTS),
            Op::Eof => self.tag(6, OP_SLOTS),
            Op::Exit(code) => {
                self.tag(7, OP_SLOTS);
                self.0.extend_from_slice(&code.to_le_bytes());
            }
            Op::Timeout(units) => {
                self.tag(8, OP_SLOTS);
                self.0.extend_from_slice(&units.to_le_bytes());
            }
            Op::Close => self.tag(9, OP_SLOTS),
            Op::PlaceLost => self.tag(10, OP_SLOTS),
            Op::BudgetReport { exceeded } => {
                self.tag(11, OP_SLOTS);
                self.bool(*exceeded);
            }
            Op::StoreAnswer(outcome) => {
                self.tag(12, OP_SLOTS);
                self.u8(*outcome);
            }
            Op::StoreLate => self.tag(13, OP_SLOTS),
            Op::Charged => self.tag(14, OP_SLOTS),
            Op::Abandon => self.tag(15, OP_SLOTS),
        }
    }
}

/// The `ops` input for configuration `config` and `ops`.
pub fn encode(config: u8, ops: &[Op]) -> Vec<u8> {
    let mut encoder = Encoder::new();
    encoder.u8(config);
    for op in ops {
        encoder.op(op);
    }
    encoder.into_bytes()
}
