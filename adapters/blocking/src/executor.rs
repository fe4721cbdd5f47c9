//! The thread that runs every session's driver, and waiting for it from the caller's thread.

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::thread::{self, ThreadId};
use std::time::Duration;

use claude_agent_smol::runtime::SmolRuntime;
use smol::stream::{Stream, StreamExt};
use smol::{Executor, Timer};

use crate::TimedOut;

/// The name of the executor thread (at most 15 bytes: Linux keeps no more).
const THREAD_NAME: &str = "claude-agent";

/// The executor of the process's sessions, run by one thread that lives as long as the process.
struct Background {
    executor: Arc<Executor<'static>>,
    thread: ThreadId,
}

static BACKGROUND: OnceLock<Background> = OnceLock::new();

fn background() -> &'static Background {
    BACKGROUND.get_or_init(|| {
        let executor = Arc::new(Executor::new());
        let runs = executor.clone();
        let thread = thread::Builder::new()
            .name(THREAD_NAME.to_owned())
            .spawn(move || smol::block_on(runs.run(smol::future::pending::<()>())))
            .expect("cannot start the claude-agent executor thread");
        Background {
            executor,
            thread: thread.thread().id(),
        }
    })
}

/// The runtime sessions start on: async-process children and async-io timers, with their
/// drivers on the executor thread (started by the first call).
pub(crate) fn runtime() -> SmolRuntime {
    SmolRuntime::with_executor(background().executor.clone())
}

/// Runs `future` to completion on the calling thread.
///
/// # Panics
///
/// On the executor thread (a call from an `Options::on_stderr` callback, which runs there): the
/// future would wait for that thread, which would be waiting for it.
pub(crate) fn wait<F: Future>(future: F) -> F::Output {
    let on_executor = BACKGROUND
        .get()
        .is_some_and(|background| background.thread == thread::current().id());
    assert!(
        !on_executor,
        "a claude-agent-blocking call was made on the SDK's own thread (from an `Options::on_stderr` \
         callback?), where it would wait for itself for ever"
    );
    smol::block_on(future)
}

/// The next item of `stream`, if one comes within `timeout`.
pub(crate) fn next_within<S: Stream + Unpin>(
    stream: &mut S,
    timeout: Duration,
) -> Result<Option<S::Item>, TimedOut> {
    wait(smol::future::or(async { Ok(stream.next().await) }, async {
        Timer::after(timeout).await;
        Err(TimedOut)
    }))
}
