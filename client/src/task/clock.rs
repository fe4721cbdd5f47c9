//! The runtime's clock as the driver reads it: the time now, and one sleep until the next
//! deadline. A runtime with a virtual clock runs the session in virtual time.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use crate::process::runtime::Runtime;

/// The runtime, and the sleep under way.
pub(super) struct Clock<R: Runtime> {
    runtime: R,
    sleep: Option<(Instant, Pin<Box<R::Sleep>>)>,
}

impl<R: Runtime> Clock<R> {
    pub(super) fn new(runtime: R) -> Self {
        Clock {
            runtime,
            sleep: None,
        }
    }

    /// The runtime's time now.
    pub(super) fn now(&self) -> Instant {
        self.runtime.now()
    }

    /// Sleep until the earliest of `deadlines`, waking `cx` then. Returns `true` when that
    /// deadline has passed already (the caller acts on it now).
    pub(super) fn wake_at(
        &mut self,
        cx: &mut Context<'_>,
        now: Instant,
        deadlines: impl IntoIterator<Item = Option<Instant>>,
    ) -> bool {
        let Some(deadline) = deadlines.into_iter().flatten().min() else {
            self.sleep = None;
            return false;
        };
        if deadline <= now {
            return true;
        }
        if !matches!(&self.sleep, Some((at, _)) if *at == deadline) {
            self.sleep = Some((deadline, Box::pin(self.runtime.sleep_until(deadline))));
        }
        match self
            .sleep
            .as_mut()
            .map(|(_, sleep)| sleep.as_mut().poll(cx))
        {
            Some(Poll::Ready(())) => {
                self.sleep = None;
                true
            }
            _ => false,
        }
    }
}
