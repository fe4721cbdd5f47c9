//! What connects the user's handles ([`crate::Query`], [`crate::Client`]) to the driver: a bounded
//! command channel one way, a bounded message queue the other way.
//!
//! The message queue hands each item to exactly one consumer. When it is full the driver stops
//! taking events from the session, the session stops wanting stdout, and the CLI blocks on its
//! pipe: back-pressure all the way, nothing dropped.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::callbacks::mcp_servers::McpServerSet;
use crate::control::{ClaimInfo, ClaimOptions, ControlRequest, InitializeResponse, ResponseBody};
use crate::error::ClaimError;
use crate::error::Error;
use crate::error::FleetError;
use crate::fleet::SharedPlace;
use crate::message::{Message, UserInput};
use crate::session::{EndReason, VersionCheck};

/// One item of a message stream.
pub(crate) type Item = Result<Message, Error>;

/// A reply slot: a one-shot channel back to the handle that sent a command.
pub(crate) type Reply<T> = async_channel::Sender<T>;

/// A prompt as the driver takes it: one text, the last message, or a stream of user messages
/// written as it yields.
pub(crate) enum PromptKind {
    Text(String),
    Stream(futures_lite::stream::Boxed<UserInput>),
}

/// What a handle asks the driver to do.
pub(crate) enum Command {
    /// Write a user message.
    Send(UserInput, Reply<Result<(), Error>>),
    /// Send a control request and report its outcome.
    Request(ControlRequest, Reply<Result<ResponseBody, Error>>),
    /// Replace the added and in-process MCP servers, and report the outcome.
    SetMcpServers(McpServerSet, Reply<Result<ResponseBody, Error>>),
    /// The first prompt of a warm session: a text ends the input after it, a stream is written
    /// as it yields.
    Prompt(PromptKind),
    /// Claim a parked CLI, write the prompt (if any) behind the claim, and report the claim's
    /// outcome.
    Claim(
        Box<ClaimOptions>,
        Option<PromptKind>,
        Reply<Result<Box<ClaimInfo>, ClaimError>>,
    ),
    /// No more user messages.
    EndInput,
    /// Shut the CLI down now.
    Close,
}

/// Commands queued before a sender has to wait.
pub(crate) const COMMAND_CAPACITY: usize = 64;
/// Messages queued for the user before the driver stops reading.
pub(crate) const MESSAGE_CAPACITY: usize = 256;

/// The shared state behind every handle of one session. Dropping the last handle drops this,
/// which closes the command channel: the driver sees that and shuts the CLI down.
pub(crate) struct Shared {
    pub(crate) commands: async_channel::Sender<Command>,
    pub(crate) link: Arc<Link>,
    /// Closed (never sent to) by the driver when it ends.
    pub(crate) done: async_channel::Receiver<()>,
}

impl Shared {
    /// The handles of a session that has ended, or never ran: commands are refused
    /// ([`crate::Error::Closed`]) and the message stream is over. What a callback's context
    /// gives when its session is gone, or when a test built the context itself.
    pub(crate) fn ended() -> Arc<Shared> {
        let (commands, _) = async_channel::bounded(1);
        let (_, done) = async_channel::bounded(1);
        let link = Link::new();
        link.finish();
        Arc::new(Shared {
            commands,
            link,
            done,
        })
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.link.close_receivers();
    }
}

/// The message queue and the session facts handles may read.
pub(crate) struct Link {
    state: Mutex<LinkState>,
}

struct LinkState {
    items: VecDeque<Item>,
    /// Consumers waiting for an item.
    consumers: Vec<Waker>,
    /// The driver, waiting for room.
    driver: Option<Waker>,
    /// Nobody will read any more: drop what the driver pushes.
    receivers_gone: bool,
    /// A handle asked to close the session: what it awaits before its driver runs is given
    /// up, and the driver does not wait for the application to read what is left.
    close_asked: bool,
    /// The driver has ended: no more items after the queued ones.
    driver_done: bool,
    /// The session's task panicked with this message: after the queued items, the stream's
    /// last item says so.
    panic: Option<String>,
    /// Why the session closed itself (a budget spent, its fleet place lost, a stall), for the
    /// calls made once it is gone.
    closed_itself: Option<EndReason>,
    server_info: Option<Arc<InitializeResponse>>,
    version_check: Option<VersionCheck>,
    /// The CLI's pid while it runs on this machine.
    process_id: Option<u32>,
    /// The session's place in a fleet many hosts share, asked before each message is handed
    /// to the application.
    place: Option<Arc<dyn SharedPlace>>,
    /// A message was withheld because the place was lost, and no error has said so since: the
    /// stream ends with the loss.
    loss_untold: bool,
}

impl Link {
    pub(crate) fn new() -> Arc<Link> {
        Arc::new(Link {
            state: Mutex::new(LinkState {
                items: VecDeque::with_capacity(MESSAGE_CAPACITY),
                consumers: Vec::new(),
                driver: None,
                receivers_gone: false,
                close_asked: false,
                driver_done: false,
                panic: None,
                closed_itself: None,
                server_info: None,
                version_check: None,
                process_id: None,
                place: None,
                loss_untold: false,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, LinkState> {
        // Nothing panics while the lock is held, but a poisoned queue is still a usable queue.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Driver side: queue `item`, or give it back when the queue is full (the driver is woken
    /// when there is room again).
    pub(crate) fn push(&self, cx: &mut Context<'_>, item: Item) -> Option<Item> {
        let mut state = self.lock();
        if state.receivers_gone {
            return None;
        }
        if state.items.len() >= MESSAGE_CAPACITY {
            set_waker(&mut state.driver, cx.waker());
            return Some(item);
        }
        state.items.push_back(item);
        let consumers = std::mem::take(&mut state.consumers);
        drop(state);
        consumers.into_iter().for_each(Waker::wake);
        None
    }

    /// Task side: the session's task panicked with `message` (it ends just after).
    pub(crate) fn panicked(&self, message: String) {
        self.lock().panic = Some(message);
    }

    /// Driver side: the session closed itself, for `reason`.
    pub(crate) fn closed_itself(&self, reason: EndReason) {
        self.lock().closed_itself = Some(reason);
    }

    /// Handle side: why the session closed itself, if it did.
    pub(crate) fn closed_itself_because(&self) -> Option<EndReason> {
        self.lock().closed_itself.clone()
    }

    /// Handle side: the message the session's task panicked with, if it did.
    pub(crate) fn panic_message(&self) -> Option<String> {
        self.lock().panic.clone()
    }

    /// Task side: the session has ended (only [`SessionEnd`](super::session_end::SessionEnd) calls
    /// this, once the command channel is closed).
    pub(crate) fn finish(&self) {
        let mut state = self.lock();
        state.driver_done = true;
        let consumers = std::mem::take(&mut state.consumers);
        drop(state);
        consumers.into_iter().for_each(Waker::wake);
    }

    /// Driver side: remember what the CLI said in answer to `initialize`.
    pub(crate) fn set_server_info(&self, info: InitializeResponse) {
        self.lock().server_info = Some(Arc::new(info));
    }

    /// Handle side: the CLI's answer to `initialize`, once it came.
    pub(crate) fn server_info(&self) -> Option<Arc<InitializeResponse>> {
        self.lock().server_info.clone()
    }

    /// Driver side: the CLI's pid while it runs (`None` once it has exited, or for a CLI
    /// reached through a transport without one).
    pub(crate) fn set_process_id(&self, pid: Option<u32>) {
        self.lock().process_id = pid;
    }

    /// Handle side: the CLI's pid while it runs.
    pub(crate) fn process_id(&self) -> Option<u32> {
        self.lock().process_id
    }

    /// Driver side: remember the check of the CLI's version.
    pub(crate) fn set_version_check(&self, check: VersionCheck) {
        self.lock().version_check = Some(check);
    }

    /// Handle side: the check of the CLI's version, once made.
    pub(crate) fn version_check(&self) -> Option<VersionCheck> {
        self.lock().version_check
    }

    /// Driver side: the session holds `place` in a fleet many hosts share. Once it is lost, no
    /// message still queued reaches the application: one handed over before the host froze
    /// is not read after another host took the session over.
    pub(crate) fn watch_place(&self, place: Arc<dyn SharedPlace>) {
        self.lock().place = Some(place);
    }

    /// Consumer side: the next item; `None` when the driver has ended and the queue is empty.
    pub(crate) fn poll_pop(&self, cx: &mut Context<'_>) -> Poll<Option<Item>> {
        loop {
            let mut state = self.lock();
            match state.items.pop_front() {
                Some(item) => {
                    // Wake the driver once there is a good amount of room, not on every pop.
                    let wake = (state.items.len() <= MESSAGE_CAPACITY / 2)
                        .then(|| state.driver.take())
                        .flatten();
                    // The place's own lock is never held while the queue's is taken.
                    let withheld = match (&state.place, &item) {
                        (Some(place), Ok(_)) => place.is_lost(),
                        (Some(_), Err(_)) => {
                            state.loss_untold = false;
                            false
                        }
                        (None, _) => false,
                    };
                    state.loss_untold |= withheld;
                    drop(state);
                    if let Some(driver) = wake {
                        driver.wake();
                    }
                    if withheld {
                        continue;
                    }
                    return Poll::Ready(Some(item));
                }
                None if state.driver_done => {
                    return match state.panic.take() {
                        Some(message) => Poll::Ready(Some(Err(Error::Panicked(message)))),
                        None if std::mem::take(&mut state.loss_untold) => {
                            Poll::Ready(Some(Err(Error::Fleet(FleetError::PlaceLost))))
                        }
                        None => Poll::Ready(None),
                    };
                }
                None => {
                    if !state.consumers.iter().any(|w| w.will_wake(cx.waker())) {
                        state.consumers.push(cx.waker().clone());
                    }
                    return Poll::Pending;
                }
            }
        }
    }

    /// Driver side, before the driver runs: `Ready` once every handle is gone or one asked to
    /// close the session, else `Pending` with the waker kept (either wakes it).
    pub(crate) fn poll_abandoned(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.lock();
        if state.receivers_gone || state.close_asked {
            return Poll::Ready(());
        }
        set_waker(&mut state.driver, cx.waker());
        Poll::Pending
    }

    /// Handle side: the application closes the session. A session still waiting (for its
    /// fleet's place, or its store) starts nothing; a running one stops without waiting for
    /// the application to read what is queued.
    pub(crate) fn ask_close(&self) {
        let mut state = self.lock();
        state.close_asked = true;
        let driver = state.driver.take();
        drop(state);
        if let Some(driver) = driver {
            driver.wake();
        }
    }

    /// Driver side: whether a handle asked to close the session.
    pub(crate) fn close_asked(&self) -> bool {
        self.lock().close_asked
    }

    /// `work` while somebody still holds a handle of the session: its output, or `None` once
    /// every handle is gone (then `work` is dropped, and what it holds with it), for what a
    /// session awaits before its driver runs (a fleet's place, a session loaded from a store).
    pub(crate) fn while_wanted<F: Future + Unpin>(&self, work: F) -> WhileWanted<'_, F> {
        WhileWanted { work, link: self }
    }

    /// Every handle is gone: drop queued items and let the driver go on without a reader.
    fn close_receivers(&self) {
        let mut state = self.lock();
        state.receivers_gone = true;
        state.items.clear();
        let driver = state.driver.take();
        drop(state);
        if let Some(driver) = driver {
            driver.wake();
        }
    }
}

/// [`Link::while_wanted`]'s future.
pub(crate) struct WhileWanted<'a, F> {
    work: F,
    link: &'a Link,
}

impl<F: Future + Unpin> Future for WhileWanted<'_, F> {
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<F::Output>> {
        if let Poll::Ready(output) = Pin::new(&mut self.work).poll(cx) {
            return Poll::Ready(Some(output));
        }
        self.link.poll_abandoned(cx).map(|()| None)
    }
}

fn set_waker(slot: &mut Option<Waker>, waker: &Waker) {
    match slot {
        Some(current) if current.will_wake(waker) => {}
        _ => *slot = Some(waker.clone()),
    }
}
