//! The three fuzz targets. Each takes raw fuzzer bytes and panics when the session breaks an
//! invariant; `fuzz_targets/*.rs` and `tests/seeds.rs` call them alike.

use arbitrary::{Arbitrary, Unstructured};
use claude_agent_core::session::ExitStatusInfo;

use crate::commands::ReplyKind;
use crate::configs;
use crate::driver::Driver;
use crate::ops::{self, Op};
use crate::xorshift::XorShift;

/// `framer`: the first byte picks a configuration (high nibble) and a number of cut points (low
/// nibble), each given by the next two bytes; the rest is stdout. Feeding the stdout cut at those
/// points must give exactly the events and writes of feeding it in one piece.
pub fn framer(data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let config = head >> 4;
    let cut_bytes = usize::from(head & 0x0f) * 2;
    let (cuts, body) = rest.split_at(cut_bytes.min(rest.len()));
    let mut cuts: Vec<usize> = cuts
        .chunks(2)
        .map(|c| {
            let n = usize::from(c[0]) | usize::from(c.get(1).copied().unwrap_or(0)) << 8;
            n % (body.len() + 1)
        })
        .collect();
    cuts.sort_unstable();
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for cut in cuts {
        pieces.push(&body[start..cut]);
        start = cut;
    }
    pieces.push(&body[start..]);

    let whole = feed(config, &[body]);
    let chunked = feed(config, &pieces);
    assert_eq!(whole.0, chunked.0, "events depend on the chunking");
    assert_eq!(whole.1, chunked.1, "writes depend on the chunking");
}

/// Events and written lines of a session fed `pieces`, then eof and exit.
fn feed(config: u8, pieces: &[&[u8]]) -> (Vec<String>, Vec<String>) {
    let mut driver = Driver::new(configs::config(config), true);
    for piece in pieces {
        driver.stdout(piece);
    }
    driver.finish(ExitStatusInfo::code(0));
    (driver.events, driver.written)
}

/// `stdout`: byte 0 picks the configuration, byte 1 seeds the choice of replies and the exit
/// status, byte 2 where the stdout is cut in two; the rest is stdout. Every inbound request is
/// answered as soon as it appears; then stdout ends and the CLI exits.
pub fn stdout(data: &[u8]) {
    let [config, seed, cut, body @ ..] = data else {
        return;
    };
    let mut replies = XorShift::new(u64::from(*seed));
    let mut driver = Driver::new(configs::config(*config), false);
    let cut = body.len() * usize::from(*cut) / 256;
    for piece in [&body[..cut], &body[cut..]] {
        driver.stdout(piece);
        while !driver.open_inbound().is_empty() {
            let kind = ReplyKind::ALL[replies.below(ReplyKind::ALL.len())];
            driver.respond(0, kind);
        }
    }
    let code = if seed & 1 == 0 { 0 } else { 1 };
    driver.finish(ExitStatusInfo::code(code));
}

/// Longest op sequence taken from one input.
const MAX_OPS: usize = 512;

/// `ops`: byte 0 picks the configuration; the rest decodes (with `arbitrary`) into a sequence of
/// [`Op`]s, run in order with every invariant checked after each; then the session is ended.
pub fn ops(data: &[u8]) {
    let Some((&config, rest)) = data.split_first() else {
        return;
    };
    let mut u = Unstructured::new(rest);
    let mut sequence = Vec::new();
    while !u.is_empty() && sequence.len() < MAX_OPS {
        match Op::arbitrary(&mut u) {
            Ok(op) => sequence.push(op),
            Err(_) => break,
        }
    }
    ops::run(config, &sequence);
}
