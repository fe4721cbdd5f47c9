//! Parse throughput of CLI stdout lines: the typed parse against serde_json's validating pass and `Value`.
//!
//! ```text
//! cargo run --release -q -p claude-agent-core --example parse_bench -- core/tests/corpus.jsonl [REPEAT]
//! ```
//!
//! The file's lines are repeated until they make at least 50 MB (or REPEAT times), then three ways of
//! parsing every line are timed, taking turns, best of 5 runs each:
//! (a) typed: the whole stream fed through `Session::handle_stdout` in 64 KiB chunks (framing, typed
//! parse, run-end bookkeeping, event queue), draining `Event::Message`s as they come;
//! (b) `serde::de::IgnoredAny` per line, pre-split from that same stream (validation only, the ceiling);
//! (c) `serde_json::Value` per line, likewise (for reference).
//! Then, untimed, each way once more with the allocator counting: allocations and bytes asked
//! for per line.
//! The last line is `typed_mb_s=… ignored_any_mb_s=… ratio=…` (ratio = typed / ignored_any).

use claude_agent_core::session::{Event, InputMode, Session, SessionConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The system allocator, counting while `COUNTING` is set (off during the timed runs, where the
/// check is one relaxed load per allocation).
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
            BYTES.fetch_add(layout.size() as u64, Relaxed);
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
            BYTES.fetch_add(new_size as u64, Relaxed);
        }
        // SAFETY: `ptr` came from `System` with this layout; the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations (a `realloc` counts as one) and bytes asked for while `run` runs.
fn count_allocations(run: impl FnOnce() -> usize) -> (u64, u64) {
    ALLOCATIONS.store(0, Relaxed);
    BYTES.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    black_box(run());
    COUNTING.store(false, Relaxed);
    (ALLOCATIONS.load(Relaxed), BYTES.load(Relaxed))
}

const TARGET_BYTES: usize = 50 * 1024 * 1024;
const RUNS: usize = 5;

/// Size of the stdout reads the session is fed.
const CHUNK: usize = 64 * 1024;

/// Feed the whole stream through a session; returns the number of messages that came out.
fn through_session(stream: &[u8]) -> usize {
    let now = Instant::now();
    let mut session = Session::new(SessionConfig::new(InputMode::Streaming), now);
    let mut messages = 0;
    for chunk in stream.chunks(CHUNK) {
        session.handle_stdout(now, chunk);
        while let Some(event) = session.poll_event() {
            if let Event::Message(m) = event {
                black_box(&m);
                messages += 1;
            }
        }
    }
    messages
}

fn ignored_any(line: &str) -> bool {
    black_box(serde_json::from_str::<serde::de::IgnoredAny>(line)).is_ok()
}

fn value(line: &str) -> bool {
    black_box(serde_json::from_str::<serde_json::Value>(line)).is_ok()
}

/// How one way of parsing fared: its best wall time so far and how many lines gave a result.
struct Pass {
    name: &'static str,
    best: Duration,
    ok: usize,
}

impl Pass {
    fn new(name: &'static str) -> Pass {
        Pass {
            name,
            best: Duration::MAX,
            ok: 0,
        }
    }

    fn time(&mut self, run: impl FnOnce() -> usize) {
        let start = Instant::now();
        self.ok = run();
        self.best = self.best.min(start.elapsed());
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: parse_bench FILE [REPEAT]")?;
    let repeat: Option<usize> = args.next().map(|r| r.parse()).transpose()?;
    let text = std::fs::read_to_string(&path)?;
    let base: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let base_bytes: usize = base.iter().map(|l| l.len() + 1).sum();
    if base_bytes == 0 {
        return Err("the file has no lines".into());
    }
    let repeat = repeat.unwrap_or(TARGET_BYTES.div_ceil(base_bytes));
    let bytes = base_bytes * repeat;
    let mut stream = String::with_capacity(bytes);
    for _ in 0..repeat {
        for line in &base {
            stream.push_str(line);
            stream.push('\n');
        }
    }
    // The per-line passes read the very bytes the session is fed, so all three fetch the whole
    // stream from memory instead of the per-line ones rereading the file's few kilobytes from cache.
    let lines: Vec<&str> = stream.lines().collect();
    println!(
        "{path}: {} lines x {repeat} = {} lines, {:.1} MB",
        base.len(),
        lines.len(),
        bytes as f64 / 1e6
    );
    let stream = stream.as_bytes();
    // The three ways take turns, so a slow spell of the machine does not fall on one of them only.
    let mut passes = [
        Pass::new("typed"),
        Pass::new("ignored_any"),
        Pass::new("value"),
    ];
    for _ in 0..RUNS {
        passes[0].time(|| through_session(stream));
        passes[1].time(|| lines.iter().filter(|line| ignored_any(line)).count());
        passes[2].time(|| lines.iter().filter(|line| value(line)).count());
    }

    let mut mb_s = Vec::new();
    for pass in &passes {
        let secs = pass.best.as_secs_f64();
        let rate = bytes as f64 / 1e6 / secs;
        println!(
            "{:>12}: {rate:8.1} MB/s {:>12.0} msg/s  ({} of {} lines parsed, best of {RUNS}: {:.3} s)",
            pass.name,
            lines.len() as f64 / secs,
            pass.ok,
            lines.len(),
            secs
        );
        mb_s.push(rate);
    }
    let counts = [
        count_allocations(|| through_session(stream)),
        count_allocations(|| lines.iter().filter(|line| ignored_any(line)).count()),
        count_allocations(|| lines.iter().filter(|line| value(line)).count()),
    ];
    for (pass, (allocations, bytes)) in passes.iter().zip(counts) {
        let per_line = |n: u64| n as f64 / lines.len() as f64;
        println!(
            "{:>12}: {:6.2} allocations and {:7.0} bytes asked for per line",
            pass.name,
            per_line(allocations),
            per_line(bytes)
        );
    }
    println!(
        "typed_mb_s={:.1} ignored_any_mb_s={:.1} ratio={:.2}",
        mb_s[0],
        mb_s[1],
        mb_s[0] / mb_s[1]
    );
    Ok(())
}
