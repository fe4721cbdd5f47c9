//! Admission: at most `limit` sessions of a fleet have a CLI at once, and with a memory limit,
//! a session starts only while the running CLIs hold less than it; the others wait in a fair
//! queue, one queue per key, the keys served in turn, each key's sessions in the order they
//! came.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// The queue the fleet's clones share.
pub(crate) struct Admission {
    state: Mutex<Queue>,
}

/// A limit on what the fleet's CLIs hold in memory, and how to read what they hold now.
pub(crate) struct MemoryLimit {
    pub(crate) max: u64,
    pub(crate) resident: Box<dyn Fn() -> u64 + Send + Sync>,
}

struct Queue {
    limit: usize,
    memory: Option<MemoryLimit>,
    /// Places given whose CLI has not started yet (counted only with a memory limit: what a
    /// starting CLI will hold is not known, so the next waits for it).
    starting: usize,
    /// Sessions holding a place (a [`Permit`], or a grant not yet taken by its waiter).
    running: usize,
    /// Waiting tickets, per key, in arrival order.
    waiting: HashMap<String, VecDeque<u64>>,
    /// Keys with waiting tickets, in the order they are served next.
    turn: VecDeque<String>,
    /// Wakers of the waiting tickets.
    wakers: HashMap<u64, Waker>,
    /// Tickets given a place, not yet taken by their waiter.
    granted: Vec<u64>,
    next_ticket: u64,
}

impl Queue {
    /// Whether one more session may start now.
    fn room(&self) -> bool {
        if self.running >= self.limit {
            return false;
        }
        match &self.memory {
            None => true,
            Some(_) if self.starting > 0 => false,
            Some(_) if self.running == 0 => true,
            Some(memory) => (memory.resident)() < memory.max,
        }
    }

    /// Count a place given.
    fn take_place(&mut self) {
        self.running += 1;
        if self.memory.is_some() {
            self.starting += 1;
        }
    }

    /// Give free places to the waiters, one key after the other.
    fn grant(&mut self) {
        while self.room() {
            let Some(key) = self.turn.pop_front() else {
                return;
            };
            let Some(tickets) = self.waiting.get_mut(&key) else {
                continue;
            };
            let Some(ticket) = tickets.pop_front() else {
                self.waiting.remove(&key);
                continue;
            };
            if tickets.is_empty() {
                self.waiting.remove(&key);
            } else {
                self.turn.push_back(key);
            }
            self.take_place();
            self.granted.push(ticket);
            if let Some(waker) = self.wakers.remove(&ticket) {
                waker.wake();
            }
        }
    }

    fn waiting_count(&self) -> usize {
        self.waiting.values().map(VecDeque::len).sum()
    }
}

impl Admission {
    /// A queue for at most `limit` sessions at once, and with `memory`, only while the
    /// running CLIs hold less than its maximum.
    pub(crate) fn new(limit: Option<usize>, memory: Option<MemoryLimit>) -> Arc<Admission> {
        Arc::new(Admission {
            state: Mutex::new(Queue {
                limit: limit.unwrap_or(usize::MAX),
                memory,
                starting: 0,
                running: 0,
                waiting: HashMap::new(),
                turn: VecDeque::new(),
                wakers: HashMap::new(),
                granted: Vec::new(),
                next_ticket: 0,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while the lock is held; a poisoned queue is still a usable queue.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for a session of `key`: ready at once while fewer than the limit run and nobody
    /// waits, else once the queue comes to it. Dropping the future leaves the queue.
    pub(crate) fn enter(self: &Arc<Self>, key: &str) -> Entry {
        Entry {
            admission: self.clone(),
            key: key.to_owned(),
            ticket: None,
            done: false,
        }
    }

    /// Sessions holding a place.
    pub(crate) fn running(&self) -> usize {
        self.lock().running
    }

    /// Sessions waiting for one.
    pub(crate) fn waiting(&self) -> usize {
        self.lock().waiting_count()
    }
}

/// Waiting for a place ([`Admission::enter`]).
pub(crate) struct Entry {
    admission: Arc<Admission>,
    key: String,
    ticket: Option<u64>,
    done: bool,
}

impl Future for Entry {
    type Output = Permit;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let this = &mut *self;
        let mut queue = this.admission.lock();
        let ticket = match this.ticket {
            Some(ticket) => ticket,
            None if queue.turn.is_empty() && queue.room() => {
                queue.take_place();
                let starting = queue.memory.is_some();
                drop(queue);
                return Poll::Ready(this.admitted(starting));
            }
            None => {
                let ticket = queue.next_ticket;
                queue.next_ticket += 1;
                this.ticket = Some(ticket);
                if !queue.waiting.contains_key(&this.key) {
                    queue.turn.push_back(this.key.clone());
                }
                queue
                    .waiting
                    .entry(this.key.clone())
                    .or_default()
                    .push_back(ticket);
                queue.grant();
                ticket
            }
        };
        if let Some(at) = queue.granted.iter().position(|&t| t == ticket) {
            queue.granted.swap_remove(at);
            let starting = queue.memory.is_some();
            drop(queue);
            return Poll::Ready(this.admitted(starting));
        }
        queue.wakers.insert(ticket, cx.waker().clone());
        Poll::Pending
    }
}

impl Entry {
    /// The place taken (its CLI `starting`, when the queue counts starting CLIs).
    fn admitted(&mut self, starting: bool) -> Permit {
        self.done = true;
        Permit {
            admission: self.admission.clone(),
            starting,
        }
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        let Some(ticket) = self.ticket.filter(|_| !self.done) else {
            return;
        };
        let mut queue = self.admission.lock();
        queue.wakers.remove(&ticket);
        if let Some(at) = queue.granted.iter().position(|&t| t == ticket) {
            // Given a place it never took: the place goes to the next waiter.
            queue.granted.swap_remove(at);
            queue.running -= 1;
            if queue.memory.is_some() {
                queue.starting -= 1;
            }
        } else if let Some(tickets) = queue.waiting.get_mut(&self.key) {
            tickets.retain(|&t| t != ticket);
            if tickets.is_empty() {
                queue.waiting.remove(&self.key);
                queue.turn.retain(|key| *key != self.key);
            }
        }
        queue.grant();
    }
}

/// A session's place in the fleet: given back when dropped, which the session's task does
/// once its CLI is gone.
pub(crate) struct Permit {
    admission: Arc<Admission>,
    /// Its CLI has not started yet, and the queue counts it so.
    starting: bool,
}

impl Permit {
    /// The session's CLI has started: what it holds now counts, and the next may start.
    pub(crate) fn started(&mut self) {
        if std::mem::take(&mut self.starting) {
            let mut queue = self.admission.lock();
            queue.starting -= 1;
            queue.grant();
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut queue = self.admission.lock();
        queue.running -= 1;
        if self.starting {
            queue.starting -= 1;
        }
        queue.grant();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    fn poll(entry: &mut Entry) -> Option<Permit> {
        let mut cx = Context::from_waker(Waker::noop());
        match Pin::new(entry).poll(&mut cx) {
            Poll::Ready(permit) => Some(permit),
            Poll::Pending => None,
        }
    }

    #[test]
    fn places_up_to_the_limit_then_a_queue_in_order() {
        let admission = Admission::new(Some(2), None);
        let first = poll(&mut admission.enter("a")).expect("a place");
        let _second = poll(&mut admission.enter("a")).expect("a place");
        let mut third = admission.enter("a");
        let mut fourth = admission.enter("a");
        assert!(poll(&mut third).is_none() && poll(&mut fourth).is_none());
        assert_eq!((admission.running(), admission.waiting()), (2, 2));
        drop(first);
        assert!(poll(&mut fourth).is_none(), "the earlier waiter goes first");
        let _third = poll(&mut third).expect("a place");
        assert_eq!((admission.running(), admission.waiting()), (2, 1));
    }

    #[test]
    fn keys_are_served_in_turn() {
        let admission = Admission::new(Some(1), None);
        let held = poll(&mut admission.enter("busy")).expect("a place");
        let mut busy: Vec<Entry> = (0..3).map(|_| admission.enter("busy")).collect();
        for entry in &mut busy {
            assert!(poll(entry).is_none());
        }
        let mut quiet = admission.enter("quiet");
        assert!(poll(&mut quiet).is_none());
        drop(held);
        let next = poll(&mut busy[0]).expect("the first key's first waiter");
        drop(next);
        assert!(poll(&mut busy[1]).is_none(), "the other key's turn");
        assert!(poll(&mut quiet).is_some());
    }

    #[test]
    fn with_a_memory_limit_one_starts_at_a_time_and_only_while_there_is_room() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let held = Arc::new(AtomicU64::new(0));
        let reading = held.clone();
        let memory = MemoryLimit {
            max: 1_000,
            resident: Box::new(move || reading.load(Ordering::Relaxed)),
        };
        let admission = Admission::new(None, Some(memory));
        let mut first = poll(&mut admission.enter("a")).expect("nothing runs: a place");
        let mut second = admission.enter("a");
        assert!(
            poll(&mut second).is_none(),
            "the first CLI is still starting"
        );
        held.store(600, Ordering::Relaxed);
        first.started();
        let mut second = poll(&mut second).expect("600 of 1,000 held: room");
        let mut third = admission.enter("a");
        assert!(poll(&mut third).is_none(), "the second is starting");
        held.store(1_200, Ordering::Relaxed);
        second.started();
        assert!(poll(&mut third).is_none(), "1,200 held: no room");
        drop(first);
        held.store(600, Ordering::Relaxed);
        drop(second);
        assert!(poll(&mut third).is_some(), "a place freed, and room again");
    }

    #[test]
    fn a_waiter_that_leaves_gives_its_turn_away() {
        let admission = Admission::new(Some(1), None);
        let held = poll(&mut admission.enter("a")).expect("a place");
        let mut leaving = admission.enter("a");
        let mut staying = admission.enter("b");
        assert!(poll(&mut leaving).is_none() && poll(&mut staying).is_none());
        drop(held);
        // `leaving` was given the place but never took it.
        drop(leaving);
        let _staying = poll(&mut staying).expect("a place");
        assert_eq!((admission.running(), admission.waiting()), (1, 0));
    }
}
