//! Starting a session: find the CLI, build its command line and session configuration, spawn
//! it, and put the driver on the runtime.

use std::io;
use std::sync::Arc;
use std::time::Instant;

use super::callbacks::Dispatcher;
use super::driver::{Driver, DriverParts};
use super::error::Error;
use super::handlers::SessionRef;
use super::link::{Link, Reply, Shared, COMMAND_CAPACITY};
use super::prompt::PromptKind;
use super::runtime::Runtime;
use crate::message::UserInput;
use crate::options::Options;
use crate::session::{InputMode, Session};

/// What the session's first input is.
pub(crate) enum Start {
    /// `query` with a prompt.
    Prompt(PromptKind),
    /// `Client::connect`: tell `reply` when `initialize` is answered.
    Connect(Reply<Result<(), Error>>),
}

/// Spawn the CLI for `options` and start its driver on `runtime`.
pub(crate) fn spawn_session<R: Runtime>(
    runtime: &R,
    options: &Options,
    start: Start,
) -> Result<Arc<Shared>, Error> {
    let input_mode = match &start {
        Start::Prompt(PromptKind::Text(_)) => InputMode::SingleTurn,
        _ => InputMode::Streaming,
    };
    let config = options.session_config(input_mode)?;
    let program = super::discovery::find_cli(options.get_cli_path())?;
    let spec = options.launch_spec(program.clone())?;
    let child = runtime
        .spawn_child(&spec)
        .map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => Error::CliNotFound {
                searched: vec![program.clone()],
                hint: super::error::INSTALL_HINT,
            },
            _ => Error::Spawn { program, source },
        })?;

    let now = Instant::now();
    let mut session = Session::new(config, now);
    let (input, init_reply) = match start {
        Start::Prompt(PromptKind::Text(text)) => {
            // A fresh session always takes its first message.
            let _ = session.send_user(now, UserInput::text(text));
            (None, None)
        }
        Start::Prompt(PromptKind::Stream(stream)) => (Some(stream), None),
        Start::Connect(reply) => (None, Some(reply)),
    };

    let (commands_tx, commands_rx) = async_channel::bounded(COMMAND_CAPACITY);
    let (done_tx, done_rx) = async_channel::bounded(1);
    let link = Link::new();
    let shared = Arc::new(Shared {
        commands: commands_tx,
        link: link.clone(),
        done: done_rx,
    });
    let session_ref = SessionRef(Arc::downgrade(&shared));
    let dispatcher = Dispatcher::new(
        options.handlers.clone(),
        &options.hook_matcher_order(),
        session_ref,
    );
    let driver = Driver::new(DriverParts {
        runtime: runtime.clone(),
        session,
        child,
        dispatcher,
        stderr: options.handlers.stderr.clone(),
        commands: commands_rx,
        link,
        done: done_tx,
        input,
        init_reply,
    });
    runtime.spawn_task(Box::pin(driver));
    Ok(shared)
}
