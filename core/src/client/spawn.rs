//! Starting a session: build its command line and session configuration, spawn the CLI (or
//! open the options' transport), and put the driver on the runtime.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_io::{AsyncRead, AsyncWrite};

use super::callbacks::Dispatcher;
use super::driver::{Driver, DriverParts, Endpoints};
use super::error::Error;
use super::handlers::SessionRef;
use super::link::{Link, Reply, Shared, COMMAND_CAPACITY};
use super::prompt::PromptKind;
use super::recorder::Recorder;
use super::runtime::{ChildProcess, Runtime};
use super::spare::ParkingDir;
use super::trace::Trace;
use crate::message::UserInput;
use crate::options::Options;
use crate::session::{InputMode, Session, SessionConfig};

/// What the session's first input is.
pub(crate) enum Start {
    /// `query` with a prompt.
    Prompt(PromptKind),
    /// `Client::connect`: tell `reply` when `initialize` is answered.
    Connect(Reply<Result<(), Error>>),
}

/// Start the CLI for `options` (spawned on `runtime`, or reached through the options'
/// transport) and put its driver on `runtime`. A spare's `parking` folder goes with the driver,
/// which removes it once the CLI is gone.
pub(crate) fn spawn_session<R: Runtime>(
    runtime: &R,
    options: &Options,
    start: Start,
    parking: Option<ParkingDir>,
) -> Result<Arc<Shared>, Error> {
    let input_mode = match &start {
        Start::Prompt(PromptKind::Text(_)) => InputMode::SingleTurn,
        _ => InputMode::Streaming,
    };
    let config = options.session_config(input_mode)?;
    let recorder = options
        .get_record_to()
        .map(|path| {
            Recorder::open(path).map_err(|source| Error::Record {
                path: path.to_path_buf(),
                source,
            })
        })
        .transpose()?;
    if let Some(transport) = &options.transport {
        let program = options
            .get_cli_path()
            .map_or_else(|| PathBuf::from("claude"), Path::to_path_buf);
        let spec = options.launch_spec(program)?;
        let connection = transport.0.connect(&spec).map_err(Error::Connect)?;
        let (child, stdin, stdout, stderr) = connection.into_parts();
        let trace = Trace::start(&spec, &child, true, options);
        let endpoints = Endpoints {
            child,
            stdin,
            stdout,
            stderr,
        };
        let parts = Extras {
            start,
            recorder,
            trace,
            parking,
        };
        return Ok(start_driver(runtime, options, config, endpoints, parts));
    }
    let program = super::discovery::find_cli(options.get_cli_path())?;
    let spec = options.launch_spec(program.clone())?;
    let child = runtime
        .spawn_child(&spec)
        .map_err(|source| spawn_error(program, spec.cwd.as_deref(), source))?;
    let trace = Trace::start(&spec, &child.child, false, options);
    let endpoints = Endpoints {
        child: child.child,
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: Some(child.stderr),
    };
    let parts = Extras {
        start,
        recorder,
        trace,
        parking,
    };
    Ok(start_driver(runtime, options, config, endpoints, parts))
}

/// What a driver starts with besides the options and the CLI's endpoints.
struct Extras {
    start: Start,
    recorder: Option<Recorder>,
    trace: Trace,
    parking: Option<ParkingDir>,
}

/// What a failed start of `program` in `cwd` means. The operating system says only "not found"
/// when either the working directory or the program is missing, so look which one it is.
fn spawn_error(program: PathBuf, cwd: Option<&Path>, source: io::Error) -> Error {
    if let Some(dir) = cwd.filter(|dir| !dir.is_dir()) {
        return Error::WorkingDirectory {
            path: dir.to_path_buf(),
            source,
        };
    }
    if source.kind() == io::ErrorKind::NotFound && !program.is_file() {
        return Error::CliNotFound {
            searched: vec![program],
            hint: super::error::INSTALL_HINT,
        };
    }
    // The program is there but could not be run (not executable, a missing interpreter, …).
    Error::Spawn { program, source }
}

/// Make the session and its driver over `endpoints`, and run the driver on `runtime`.
fn start_driver<R, C, I, O, E>(
    runtime: &R,
    options: &Options,
    config: SessionConfig,
    endpoints: Endpoints<C, I, O, E>,
    extras: Extras,
) -> Arc<Shared>
where
    R: Runtime,
    C: ChildProcess,
    I: AsyncWrite + Unpin + Send + 'static,
    O: AsyncRead + Unpin + Send + 'static,
    E: AsyncRead + Unpin + Send + 'static,
{
    let Extras {
        start,
        recorder,
        mut trace,
        parking,
    } = extras;
    let now = runtime.now();
    let mut session = Session::new(config, now);
    trace.initialize_sent(session.initialize_id(), now);
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
        endpoints,
        dispatcher,
        stderr: options.handlers.stderr.clone(),
        commands: commands_rx,
        link,
        done: done_tx,
        input,
        init_reply,
        recorder,
        trace,
        parking,
    });
    runtime.spawn_task(driver.into_task());
    shared
}
