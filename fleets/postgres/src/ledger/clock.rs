//! This host's lease as its own monotonic clock sees it: the places go when the lease would
//! have run out, whether or not the database can say so, and whatever statement is in flight.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::{lose_all, View};

/// The part of a lease the host gives its places up before the database would: the host's
/// clock may run slower than the database's, and the host must be the first to stop.
const MARGIN_PART: u32 = 8;

/// When this host's places must be given up: a lease (less a margin) after the last renewal
/// that succeeded, timed from when it was sent (the database's lease starts later).
pub(crate) struct LeaseClock {
    lease: Duration,
    renewed_at: Mutex<Instant>,
    renewed: Notify,
    /// The ledger's task ended: the watch ends too.
    stopped: AtomicBool,
}

impl LeaseClock {
    pub(crate) fn new(lease: Duration, renewed_at: Instant) -> Arc<LeaseClock> {
        Arc::new(LeaseClock {
            lease,
            renewed_at: Mutex::new(renewed_at),
            renewed: Notify::new(),
            stopped: AtomicBool::new(false),
        })
    }

    /// The ledger's task is over: so is the watch.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.renewed.notify_waiters();
    }

    /// A renewal sent at `sent` succeeded.
    pub(crate) fn renewed(&self, sent: Instant) {
        {
            let mut at = self
                .renewed_at
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *at = (*at).max(sent);
        }
        self.renewed.notify_waiters();
    }

    /// When the places go, unless a renewal comes first.
    pub(crate) fn deadline(&self) -> Instant {
        let at = *self
            .renewed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        at + self.lease - self.lease / MARGIN_PART
    }

    /// Whether the places must be given up now.
    pub(crate) fn expired(&self, now: Instant) -> bool {
        now >= self.deadline()
    }
}

/// The watch: at each deadline that passes with no renewal, every place of the host is lost
/// and every waiter told, on a task of its own, so that a statement the database holds up
/// cannot hold it up. Ends with the ledger's task.
pub(crate) async fn watch(clock: Arc<LeaseClock>, view: Weak<Mutex<View>>) {
    loop {
        // Listening before looking: a renewal or a stop in between still wakes the watch.
        let renewed = clock.renewed.notified();
        tokio::pin!(renewed);
        renewed.as_mut().enable();
        if clock.stopped.load(Ordering::SeqCst) {
            return;
        }
        let deadline = clock.deadline();
        if Instant::now() < deadline {
            tokio::select! {
                () = tokio::time::sleep_until(deadline.into()) => {}
                () = &mut renewed => continue,
            }
        }
        let Some(view) = view.upgrade() else {
            return;
        };
        if clock.expired(Instant::now()) {
            lose_all(
                &view,
                "this host's lease on the fleet ran out (its database did not answer in time) \
                 while the session waited",
            );
            drop(view);
            // Nothing more to lose until a renewal gives the host a lease again.
            renewed.await;
        }
    }
}
