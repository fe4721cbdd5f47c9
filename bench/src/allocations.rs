//! Allocations counted while the benchmark runs, when `BENCH_COUNT_ALLOCATIONS=1` is set: the
//! system allocator, counting each allocation (a `realloc` counts as one). With the variable
//! unset, the cost is one relaxed load per allocation, so the timed figures are unchanged.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The variable that turns counting on.
pub(crate) const COUNT_ALLOCATIONS_ENV: &str = "BENCH_COUNT_ALLOCATIONS";

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: `ptr` came from `System` with this layout; the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn count(size: usize) {
    if COUNTING.load(Relaxed) {
        ALLOCATIONS.fetch_add(1, Relaxed);
        BYTES.fetch_add(size as u64, Relaxed);
    }
}

/// Start counting, if the environment asks for it.
pub(crate) fn start() {
    if std::env::var_os(COUNT_ALLOCATIONS_ENV).is_some_and(|v| v == "1") {
        COUNTING.store(true, Relaxed);
    }
}

/// Print what was counted since [`start`], per `unit` (`count` of them), if counting is on.
pub(crate) fn report(count: u64, unit: &str) {
    if !COUNTING.swap(false, Relaxed) || count == 0 {
        return;
    }
    let (allocations, bytes) = (ALLOCATIONS.load(Relaxed), BYTES.load(Relaxed));
    println!(
        "allocations: {allocations} ({:.2} per {unit}), {bytes} bytes asked for ({:.0} per {unit})",
        allocations as f64 / count as f64,
        bytes as f64 / count as f64
    );
}
