//! Control requests of ours that the session stopped waiting for.

use std::collections::VecDeque;

use crate::control::RequestId;

/// How many given-up request ids are remembered.
///
/// A late answer comes from a CLI that was slow, not lost, so it follows its time-out (or the
/// close) closely: only the most recent ids matter. The largest burst is a close or an exit,
/// which gives up every pending request at once, at most [`super::Limits::max_pending_requests`]
/// (256 by default); 1024 covers four such bursts. At 8 bytes an id that is 8 KiB at most, and
/// the ring grows only as requests are given up.
pub(super) const REMEMBERED_GIVEN_UP: usize = 1024;

/// The ids of the most recent requests that timed out or failed because the session closed, so
/// that their late answers are dropped instead of being reported as unknown.
#[derive(Debug, Default)]
pub(super) struct GivenUp {
    /// Oldest first; at most [`REMEMBERED_GIVEN_UP`] ids.
    ids: VecDeque<RequestId>,
}

impl GivenUp {
    pub(super) fn insert(&mut self, id: RequestId) {
        if self.ids.len() == REMEMBERED_GIVEN_UP {
            self.ids.pop_front();
        }
        self.ids.push_back(id);
    }

    /// How many ids are remembered.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether `id` was given up, forgetting it: a second answer to it is a CLI error again.
    pub(super) fn take(&mut self, id: RequestId) -> bool {
        match self.ids.iter().position(|given_up| *given_up == id) {
            Some(index) => {
                self.ids.remove(index);
                true
            }
            None => false,
        }
    }
}
