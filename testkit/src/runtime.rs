//! [`TestRuntime`]: run SDK sessions with no async runtime, on one thread, in virtual time.
//!
//! A test of an app's multi-turn client code, start to end, in a plain `#[test]`:
//!
//! ```
//! use claude_agent_tokio::{runtime::connect_with, Client};
//! use claude_agent_tokio::message::Message;
//! use claude_agent_tokio::Options;
//! use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
//! use futures_lite::StreamExt;
//!
//! let script = Script::new()
//!     .answer_initialize()
//!     .expect_user()
//!     .emit_result("7")
//!     .expect_user()
//!     .emit_result("14");
//! let fake = FakeTransport::new(script);
//! let runtime = TestRuntime::new();
//! let answers = runtime.block_on(async {
//!     let client = connect_with(runtime.clone(), Options::new().transport(fake.clone())).await.unwrap();
//!     let mut answers = Vec::new();
//!     for question in ["Pick a number.", "Double it."] {
//!         client.send(question).await.unwrap();
//!         let mut turn = client.receive_response();
//!         while let Some(message) = turn.next().await {
//!             if let Message::Result(result) = message.unwrap() {
//!                 answers.push(result.result.unwrap_or_default());
//!             }
//!         }
//!     }
//!     client.close().await;
//!     answers
//! });
//! assert_eq!(answers, ["7", "14"]);
//! assert_eq!(fake.user_texts(), ["Pick a number.", "Double it."]);
//! ```

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use claude_agent_client::{BoxFuture, Runtime};

/// How long [`TestRuntime::block_on`] waits in real time, with every task idle and no timer
/// set, for a wake-up from another thread before it decides the test is stuck.
const STUCK_AFTER: Duration = Duration::from_secs(10);

/// A [`Runtime`] for tests: a single-threaded executor with a virtual clock, and no processes.
///
/// [`TestRuntime::block_on`] runs a future and every task the SDK spawns on the calling thread.
/// Time stands still while anything can run; when every task waits, the clock jumps to the
/// next timer. A session's 30 s control timeout therefore fires after 30 s of virtual time and
/// a few microseconds of real time, and tests are deterministic.
///
/// It starts no processes (it has no [`local_process`](Runtime::local_process)): sessions run on
/// it need a transport (`Options::transport(FakeTransport::new(script))`); without one, starting
/// a session fails with an error that says so.
///
/// ```
/// use claude_agent_tokio::{runtime::query_with, Error};
/// use claude_agent_tokio::Options;
/// use claude_agent_testkit::runtime::TestRuntime;
///
/// let runtime = TestRuntime::new();
/// let options = Options::new().cli_path("/usr/local/bin/claude");
/// let mut messages = query_with(runtime.clone(), "hi", options);
/// let first = runtime.block_on(messages.next());
/// assert!(matches!(&first, Some(Err(Error::Spawn { source, .. })) if source.to_string().contains("Options::transport")));
/// assert!(runtime.block_on(messages.next()).is_none());
/// // The session never started: its client's requests fail at once.
/// let interrupted = runtime.block_on(messages.client().interrupt());
/// assert!(matches!(interrupted, Err(Error::Closed)));
/// ```
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::{runtime::query_with, Error};
/// use claude_agent_tokio::Options;
/// use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
/// use futures_lite::StreamExt;
///
/// // A CLI that never answers `initialize`: the session gives up after its 30 s time-out.
/// let fake = FakeTransport::new(Script::new().hang());
/// let options = Options::new().transport(fake).initialize_timeout(Duration::from_secs(30));
/// let runtime = TestRuntime::new();
/// let started = std::time::Instant::now();
/// let items: Vec<_> = runtime.block_on(query_with(runtime.clone(), "hi", options).collect());
/// assert!(matches!(items[0], Err(Error::ControlTimeout(_))));
/// assert!(runtime.elapsed() >= Duration::from_secs(30));
/// assert!(started.elapsed() < Duration::from_secs(1));
/// ```
#[derive(Clone)]
pub struct TestRuntime {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
}

struct State {
    start: Instant,
    now: Instant,
    /// Spawned tasks by id; `None` while one is being polled.
    tasks: BTreeMap<u64, Option<BoxFuture<'static, ()>>>,
    next_task: u64,
    /// Tasks woken since they were last polled.
    ready: VecDeque<u64>,
    /// Sleeping timers by (deadline, id).
    timers: BTreeMap<(Instant, u64), Waker>,
    next_timer: u64,
    /// Who runs the tasks (the thread inside `block_on`, or the executor polling a [`Run`]), to
    /// tell on a wake from elsewhere.
    runner: Option<Notify>,
}

impl Default for TestRuntime {
    fn default() -> Self {
        TestRuntime::new()
    }
}

impl TestRuntime {
    /// A runtime whose clock starts now and only moves when every task waits on a timer.
    pub fn new() -> TestRuntime {
        let now = Instant::now();
        TestRuntime {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    start: now,
                    now,
                    tasks: BTreeMap::new(),
                    next_task: 0,
                    ready: VecDeque::new(),
                    timers: BTreeMap::new(),
                    next_timer: 0,
                    runner: None,
                }),
            }),
        }
    }

    /// Virtual time passed since the runtime was made.
    pub fn elapsed(&self) -> Duration {
        let state = self.state();
        state.now - state.start
    }

    /// Move the clock forward by `by` now, firing the timers that fall due.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent_tokio::runtime::Runtime;
    /// use claude_agent_testkit::runtime::TestRuntime;
    ///
    /// let runtime = TestRuntime::new();
    /// let start = runtime.now();
    /// runtime.advance(Duration::from_secs(90));
    /// assert_eq!(runtime.now() - start, Duration::from_secs(90));
    /// assert_eq!(runtime.elapsed(), Duration::from_secs(90));
    /// ```
    pub fn advance(&self, by: Duration) {
        let due = {
            let mut state = self.state();
            state.now += by;
            state.take_due_timers()
        };
        due.into_iter().for_each(Waker::wake);
    }

    /// Run `future` to completion, together with every task spawned on this runtime, on the
    /// calling thread.
    ///
    /// # Panics
    ///
    /// If nothing can make progress for good: every task waits, no timer is set, and no other
    /// thread wakes anything for 10 s. The test would never finish; the panic says so.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let mut future = pin!(future);
        let main = MainWaker::new(Notify::Thread(thread::current()));
        self.state().runner = Some(Notify::Thread(thread::current()));
        loop {
            if let Poll::Ready(output) = self.drive(future.as_mut(), &main) {
                self.state().runner = None;
                return output;
            }
            // Idle with no timer: only another thread can wake us.
            self.wait_for_other_threads(&main);
        }
    }

    /// `future`, run together with every task spawned on this runtime, as a future for any
    /// executor: `futures_lite::future::block_on(runtime.run(…))`, or inside another runtime's
    /// test. Virtual time moves as with [`TestRuntime::block_on`], but a future that can never
    /// finish just stays pending (use `block_on` for the panic that says so).
    ///
    /// ```
    /// use claude_agent_tokio::runtime::query_with;
    /// use claude_agent_tokio::Options;
    /// use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
    /// use futures_lite::StreamExt;
    ///
    /// let runtime = TestRuntime::new();
    /// let options = Options::new().transport(FakeTransport::new(Script::single_turn("hi")));
    /// let messages = query_with(runtime.clone(), "hello", options).collect::<Vec<_>>();
    /// let messages = futures_lite::future::block_on(runtime.run(messages));
    /// assert_eq!(messages.len(), 3);
    /// ```
    pub fn run<F: Future>(&self, future: F) -> Run<F> {
        Run {
            runtime: self.clone(),
            future: Box::pin(future),
            main: None,
        }
    }

    /// Poll `future` and the tasks until the future is done, or until everything waits and no
    /// timer is set (`Pending`).
    fn drive<F: Future + ?Sized>(
        &self,
        mut future: Pin<&mut F>,
        main: &Arc<MainWaker>,
    ) -> Poll<F::Output> {
        let main_waker = Waker::from(main.clone());
        loop {
            if main.woken.swap(false, Ordering::AcqRel) {
                if let Poll::Ready(output) =
                    future.as_mut().poll(&mut Context::from_waker(&main_waker))
                {
                    return Poll::Ready(output);
                }
            }
            if self.run_ready_tasks() || main.woken.load(Ordering::Acquire) {
                continue;
            }
            // Everything waits: jump to the next timer. (Woken outside the lock: a waker takes it.)
            let due = self.state().advance_to_next_timer();
            if due.is_empty() {
                return Poll::Pending;
            }
            due.into_iter().for_each(Waker::wake);
        }
    }

    /// Park until another thread wakes a task or sets a timer.
    fn wait_for_other_threads(&self, main: &MainWaker) {
        let give_up = Instant::now() + STUCK_AFTER;
        loop {
            let now = Instant::now();
            assert!(
                now < give_up,
                "TestRuntime::block_on: every task is waiting, no timer is set and nothing woke \
                 for {STUCK_AFTER:?}: the future can never finish (a fake CLI waiting for input \
                 the app never sends? `FakeTransport::waiting_for` tells)"
            );
            thread::park_timeout(give_up - now);
            let state = self.state();
            if main.woken.load(Ordering::Acquire)
                || !state.ready.is_empty()
                || !state.timers.is_empty()
            {
                return;
            }
        }
    }

    /// Poll each task woken so far once. Returns whether any was polled.
    fn run_ready_tasks(&self) -> bool {
        let ready: Vec<u64> = self.state().ready.drain(..).collect();
        for &id in &ready {
            let Some(mut task) = self.state().tasks.get_mut(&id).and_then(Option::take) else {
                continue;
            };
            let waker = Waker::from(Arc::new(TaskWaker {
                id,
                runtime: Arc::downgrade(&self.shared),
            }));
            let done = task
                .as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_ready();
            let mut state = self.state();
            if done {
                state.tasks.remove(&id);
            } else if let Some(slot) = state.tasks.get_mut(&id) {
                *slot = Some(task);
            }
        }
        !ready.is_empty()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.lock()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// Jump to the earliest timer; returns the wakers of the timers due then (none if no timer
    /// is set).
    fn advance_to_next_timer(&mut self) -> Vec<Waker> {
        let Some(&(deadline, _)) = self.timers.keys().next() else {
            return Vec::new();
        };
        self.now = self.now.max(deadline);
        self.take_due_timers()
    }

    /// Removes the timers due by now and returns their wakers, to wake once the lock is released.
    fn take_due_timers(&mut self) -> Vec<Waker> {
        let mut due = Vec::new();
        while let Some(entry) = self.timers.first_entry() {
            if entry.key().0 > self.now {
                break;
            }
            due.push(entry.remove());
        }
        due
    }

    fn wake_task(&mut self, id: u64) {
        if self.tasks.contains_key(&id) && !self.ready.contains(&id) {
            self.ready.push_back(id);
            if let Some(runner) = &self.runner {
                runner.notify();
            }
        }
    }
}

/// How the one running the tasks is told that something woke.
#[derive(Clone)]
enum Notify {
    /// The thread parked in `block_on`.
    Thread(Thread),
    /// The executor polling a [`Run`].
    Waker(Waker),
}

impl Notify {
    fn notify(&self) {
        match self {
            Notify::Thread(thread) => thread.unpark(),
            Notify::Waker(waker) => waker.wake_by_ref(),
        }
    }
}

/// The waker of the future `block_on` or [`Run`] drives.
struct MainWaker {
    woken: AtomicBool,
    notify: Mutex<Notify>,
}

impl MainWaker {
    fn new(notify: Notify) -> Arc<MainWaker> {
        Arc::new(MainWaker {
            woken: AtomicBool::new(true),
            notify: Mutex::new(notify),
        })
    }
}

impl Wake for MainWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.notify
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .notify();
    }
}

/// A future and the tasks of a [`TestRuntime`], run by whichever executor polls it
/// ([`TestRuntime::run`]).
///
/// ```
/// use claude_agent_tokio::runtime::query_with;
/// use claude_agent_tokio::Options;
/// use claude_agent_testkit::{fake_cli::Script, runtime::TestRuntime, transport::FakeTransport};
/// use futures_lite::StreamExt;
///
/// // Inside another executor (here futures-lite's; `#[tokio::test]` works the same way):
/// let runtime = TestRuntime::new();
/// let options = Options::new().transport(FakeTransport::new(Script::single_turn("hi")));
/// let run = runtime.run(query_with(runtime.clone(), "hello", options).collect::<Vec<_>>());
/// let items = futures_lite::future::block_on(run);
/// assert!(items.iter().all(Result::is_ok));
/// ```
pub struct Run<F: Future> {
    runtime: TestRuntime,
    future: Pin<Box<F>>,
    main: Option<Arc<MainWaker>>,
}

impl<F: Future> Future for Run<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let notify = Notify::Waker(cx.waker().clone());
        let main = match &self.main {
            Some(main) => {
                *main.notify.lock().unwrap_or_else(PoisonError::into_inner) = notify.clone();
                main.clone()
            }
            None => {
                let main = MainWaker::new(notify.clone());
                self.main = Some(main.clone());
                main
            }
        };
        self.runtime.state().runner = Some(notify);
        let this = &mut *self;
        let output = this.runtime.drive(this.future.as_mut(), &main);
        if output.is_ready() {
            this.runtime.state().runner = None;
        }
        output
    }
}

impl<F: Future> std::fmt::Debug for Run<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("runtime", &self.runtime)
            .finish_non_exhaustive()
    }
}

struct TaskWaker {
    id: u64,
    runtime: std::sync::Weak<Shared>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if let Some(runtime) = self.runtime.upgrade() {
            runtime.lock().wake_task(self.id);
        }
    }
}

/// A timer of a [`TestRuntime`]: ready once the virtual clock reaches its deadline.
///
/// ```
/// use std::time::Duration;
/// use claude_agent_tokio::runtime::Runtime;
/// use claude_agent_testkit::runtime::TestRuntime;
///
/// let runtime = TestRuntime::new();
/// let an_hour = runtime.sleep_until(runtime.now() + Duration::from_secs(3600));
/// let started = std::time::Instant::now();
/// runtime.block_on(an_hour); // nothing else runs, so the clock jumps to the deadline
/// assert_eq!(runtime.elapsed(), Duration::from_secs(3600));
/// assert!(started.elapsed() < Duration::from_secs(1));
/// ```
pub struct TestSleep {
    runtime: Arc<Shared>,
    deadline: Instant,
    /// Its key in the timer list while registered.
    key: Option<(Instant, u64)>,
}

impl Future for TestSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let runtime = self.runtime.clone();
        let mut state = runtime.lock();
        if let Some(key) = self.key.take() {
            state.timers.remove(&key);
        }
        if state.now >= self.deadline {
            return Poll::Ready(());
        }
        let key = (self.deadline, state.next_timer);
        state.next_timer += 1;
        state.timers.insert(key, cx.waker().clone());
        self.key = Some(key);
        Poll::Pending
    }
}

impl Drop for TestSleep {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.runtime.lock().timers.remove(&key);
        }
    }
}

impl Runtime for TestRuntime {
    type Sleep = TestSleep;

    fn sleep_until(&self, deadline: Instant) -> TestSleep {
        TestSleep {
            runtime: self.shared.clone(),
            deadline,
            key: None,
        }
    }

    fn spawn_task(&self, task: BoxFuture<'static, ()>) {
        let mut state = self.state();
        let id = state.next_task;
        state.next_task += 1;
        state.tasks.insert(id, Some(task));
        state.wake_task(id);
    }

    fn now(&self) -> Instant {
        self.state().now
    }
}

impl std::fmt::Debug for TestRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state();
        f.debug_struct("TestRuntime")
            .field("elapsed", &(state.now - state.start))
            .field("tasks", &state.tasks.len())
            .field("timers", &state.timers.len())
            .finish()
    }
}

impl std::fmt::Debug for TestSleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestSleep")
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}
