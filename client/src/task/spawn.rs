//! Starting a session: build its command line and session configuration, reach the CLI (the
//! options' transport, or the runtime's local process), and put the driver on the runtime. A session resumed from a
//! session store is loaded first, in the driver's task, before the CLI starts.

use std::io;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use futures_lite::FutureExt;

use crate::callbacks::dispatch::Dispatcher;
use crate::callbacks::handlers::SessionRef;
use crate::error::Error;
use crate::history::History;
use crate::message::UserInput;
use crate::options::{Fork, HostDeclarations, LaunchSpec, Options, SessionStart};
use crate::persistence::config_dir::{self, ConfigDir};
use crate::persistence::mirror::{self, Mirror};
use crate::persistence::parking_dir::ParkingDir;
use crate::persistence::recorder::Recorder;
use crate::persistence::session_folders::SessionFolders;
use crate::persistence::store_resume;
use crate::process::runtime::{BoxFuture, Runtime};
use crate::process::transport::{BoxedRead, BoxedWrite, Connection, ConnectionProcess, Transport};
use crate::session::{InputMode, Session, SessionConfig};
use crate::task::driver::{Driver, DriverParts, Endpoints};
use crate::task::handles_side::HandlesSide;
use crate::task::message_queue::{Link, PromptKind, Reply, Shared, COMMAND_CAPACITY};
use crate::task::session_end::{panic_message, SessionEnd, SessionTask};
use crate::task::trace::Trace;
use crate::{Finding, Seat};

/// What the session's first input is.
pub(crate) enum Start {
    /// `query` with a prompt.
    Prompt(PromptKind),
    /// `connect_with`: tell `reply` when `initialize` is answered.
    Connect(Reply<Result<(), Error>>),
}

impl Start {
    /// Report a session that could not start: to `connect`, or as the stream's only item. The
    /// session's task then ends, and with it the session ([`SessionEnd`]).
    fn fail(self, channels: &Channels, error: Error) {
        match self {
            Start::Connect(reply) => {
                let _ = reply.try_send(Err(error));
            }
            Start::Prompt(_) => {
                // A fresh queue has room, and nobody waits on the driver's side.
                let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
                let _ = channels.link.push(&mut cx, Err(error));
            }
        }
    }
}

/// The driver's side of a session's channels, made before its driver. It holds the handles'
/// shared state weakly: once every handle is dropped, a session still waiting to start sees it.
struct Channels {
    shared: Weak<Shared>,
    link: Arc<Link>,
    commands: async_channel::Receiver<crate::task::message_queue::Command>,
}

impl Channels {
    /// The channels, the session's end (owned by its task), and the handles' shared state.
    fn new() -> (Channels, SessionEnd, Arc<Shared>) {
        let (commands_tx, commands) = async_channel::bounded(COMMAND_CAPACITY);
        let (done, done_rx) = async_channel::bounded(1);
        let link = Link::new();
        let shared = Arc::new(Shared {
            commands: commands_tx,
            link: link.clone(),
            done: done_rx,
        });
        let end = SessionEnd::new(commands.clone(), link.clone(), done);
        let channels = Channels {
            shared: Arc::downgrade(&shared),
            link,
            commands,
        };
        (channels, end, shared)
    }
}

/// Start the CLI for `options` (through the options' transport, or the runtime's local
/// process) and put its driver on `runtime`. A spare's `parking` folder goes with the driver,
/// which removes it once the CLI is gone.
pub(crate) fn spawn_session<R: Runtime>(
    runtime: &R,
    options: &Options,
    start: Start,
    parking: Option<ParkingDir>,
) -> Arc<Shared> {
    let (channels, end, shared) = Channels::new();
    #[cfg(feature = "otel")]
    let options = &crate::task::otel::with_current_trace(options);
    let task = start_in_task(runtime.clone(), options.clone(), start, channels, parking);
    runtime.spawn_task(Box::pin(SessionTask::new(task, end)));
    shared
}

/// What needs awaiting before the driver can start, in the session's own task: the session
/// loaded from the store (its temporary configuration directory then lives as long as the
/// driver), the transport's connection. Then the driver runs in the same task.
fn start_in_task<R: Runtime>(
    runtime: R,
    options: Options,
    start: Start,
    channels: Channels,
    parking: Option<ParkingDir>,
) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        // A fleet's place comes first: nothing (a store read, a CLI) starts before it.
        let seat = match options.handlers().fleet.clone() {
            None => None,
            Some(member) => match member.seat(&channels.link).await {
                Ok(Some(seat)) => Some(seat),
                // Every handle was dropped while it waited: nothing to start, nobody to tell.
                Ok(None) => return,
                Err(error) => return start.fail(&channels, error),
            },
        };
        let ahead = Ahead { parking, seat };
        if !store_resume::wanted(&options) {
            return connect_then_launch(runtime, options, start, channels, None, ahead).await;
        }
        let loaded = match launch_spec(&options, &options.handlers().declarations()) {
            Ok(spec) => {
                let load = Box::pin(store_resume::materialize(&runtime, &options, &spec));
                match channels.link.while_wanted(load).await {
                    Some(loaded) => loaded.map_err(Error::from),
                    // Every handle was dropped while the store was read: the read and the
                    // folder it was filling (credentials copied in) are dropped with it, now.
                    None => return,
                }
            }
            Err(error) => Err(error),
        };
        let (options, dir): (Options, Option<ConfigDir>) = match loaded {
            Ok(Some(resumed)) => (resumed.apply(options), Some(resumed.dir)),
            // Nothing in the store: a resume goes to the CLI as it is; a continue fails, or
            // with `or_new` starts a fresh session (the store, not this disk, holds the
            // conversations).
            Ok(None) if must_continue(&options.config().session_start) => {
                let cwd = options
                    .config()
                    .cwd
                    .as_deref()
                    .map(Path::to_path_buf)
                    .or_else(|| std::env::current_dir().ok())
                    .unwrap_or_default();
                return start.fail(&channels, Error::NothingToContinue { cwd });
            }
            Ok(None) => {
                let start = without_continue(options.config().session_start.clone());
                (options.session_start(start), None)
            }
            Err(error) => return start.fail(&channels, error),
        };
        connect_then_launch(runtime, options, start, channels, dir, ahead).await
    })
}

/// What a session holds before its CLI starts, handed to its driver: a spare's parking folder
/// (removed once the CLI is gone) and its place in a fleet (given back then).
struct Ahead {
    parking: Option<ParkingDir>,
    seat: Option<Seat>,
}

/// Open the session's connection (the options' transport, or the runtime's local process),
/// then start the session and run its driver.
async fn connect_then_launch<R: Runtime>(
    runtime: R,
    options: Options,
    start: Start,
    channels: Channels,
    resumed_into: Option<ConfigDir>,
    ahead: Ahead,
) {
    // Everything that can be refused (the options, the recording's file) is, before connecting.
    let mut planned = match plan(&options) {
        Ok(planned) => planned,
        Err(error) => return start.fail(&channels, error),
    };
    // A resume from this machine's history: the CLI finds the session only in its working
    // directory's, so one that ran elsewhere is named (or, if asked, resumed there).
    let mut options = options;
    if options.handlers().transport.is_none() && resumed_into.is_none() {
        match resume_folder(&options, &planned.spec) {
            Ok(None) => {}
            Ok(Some(folder)) => {
                options = options.cwd(folder);
                planned = match plan(&options) {
                    Ok(planned) => planned,
                    Err(error) => return start.fail(&channels, error),
                };
            }
            Err(error) => return start.fail(&channels, error),
        }
    }
    // A configuration folder of the session's own: made from the user's as the CLI would find
    // it, then the CLI is pointed at it. A session resumed from a store has one already.
    let mut own_config = resumed_into;
    if options.config().isolated_config
        && options.handlers().transport.is_none()
        && own_config.is_none()
    {
        let dir = match config_dir::isolate(&planned.spec) {
            Ok(dir) => dir,
            Err(failed) => {
                let error = Error::ConfigFolder {
                    path: failed.path,
                    source: failed.source,
                };
                return start.fail(&channels, error);
            }
        };
        options = options.env("CLAUDE_CONFIG_DIR", dir.path().display().to_string());
        planned = match plan(&options) {
            Ok(planned) => planned,
            Err(error) => return start.fail(&channels, error),
        };
        own_config = Some(dir);
    }
    // With a fleet's memory limit, the CLI starts once there is memory for it.
    let mut ahead = ahead;
    if let Some(seat) = &mut ahead.seat {
        if !seat.launch(&channels.link).await {
            // Every handle was dropped while it waited: nothing to start, nobody to tell.
            return;
        }
    }
    let spec = &planned.spec;
    let through_transport = options.handlers().transport.is_some();
    let connected = match &options.handlers().transport {
        Some(transport) => connect_through(&*transport.0, spec.clone())
            .await
            .map_err(Error::Connect),
        None => match runtime.local_process() {
            Some(local) => local.connect(spec.clone()).await,
            None => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "this runtime starts no processes: give the options a transport \
                 (Options::transport)",
            )),
        }
        .map_err(|source| spawn_error(spec.program.clone(), spec.cwd.as_deref(), source)),
    };
    let connection = match connected {
        Ok(connection) => connection,
        Err(error) => return start.fail(&channels, error),
    };
    let (child, stdin, stdout, stderr) = connection.into_parts();
    let trace = Trace::start(spec, &child, through_transport, &options);
    let mut common = planned.into_common(trace);
    common.folders = SessionFolders::new(own_config, ahead.parking);
    common.seat = ahead.seat;
    let endpoints = Endpoints {
        child,
        stdin,
        stdout,
        stderr,
    };
    start_driver(&runtime, &options, endpoints, start, channels, common).await
}

/// The user's transport's connection for `spec`; a transport that panics (when called, or in its
/// future) fails the start with the panic's message, as an error of the transport's.
async fn connect_through(transport: &dyn Transport, spec: LaunchSpec) -> io::Result<Connection> {
    let panicked = |payload: Box<dyn std::any::Any + Send>| {
        io::Error::other(format!(
            "the transport panicked: {}",
            panic_message(&*payload)
        ))
    };
    let connecting =
        std::panic::catch_unwind(AssertUnwindSafe(|| transport.connect(spec))).map_err(panicked)?;
    AssertUnwindSafe(connecting)
        .catch_unwind()
        .await
        .unwrap_or_else(|payload| Err(panicked(payload)))
}

/// A continue that must find a conversation (`or_new` not set).
fn must_continue(start: &SessionStart) -> bool {
    matches!(start, SessionStart::Continue { or_new: false, .. })
}

/// `start` with nothing to continue: a new session (with the fork's id, if it named one).
/// Other starts are unchanged.
fn without_continue(start: SessionStart) -> SessionStart {
    match start {
        SessionStart::Continue {
            fork:
                Some(Fork {
                    session_id: Some(id),
                    ..
                }),
            ..
        } => SessionStart::NewWithId(id),
        SessionStart::Continue { .. } => SessionStart::New,
        other => other,
    }
}

/// The folder a resumed session ran in, when the CLI would not find it from `spec`'s working
/// directory: `Ok(Some(folder))` to resume it there ([`Resume::in_its_folder`]), else
/// [`Error::ResumeElsewhere`]. `Ok(None)` when there is nothing to move: not a resume, the
/// session is in the working directory's history, or in none (the CLI then says so itself).
///
/// [`Resume::in_its_folder`]: crate::options::Resume::in_its_folder
fn resume_folder(options: &Options, spec: &LaunchSpec) -> Result<Option<PathBuf>, Error> {
    if spec.user.is_some() {
        // The history is another user's: this process (root, to switch users) does not read
        // their files by path, which could be links to its own or FIFOs that hang the start.
        // Their CLI finds the session, or says it found none.
        return Ok(None);
    }
    if must_continue(&options.config().session_start) {
        return something_to_continue(spec).map(|()| None);
    }
    let SessionStart::Resume(resume) = &options.config().session_start else {
        return Ok(None);
    };
    let Some(config) = mirror::projects_dir(spec).and_then(|p| p.parent().map(Path::to_path_buf))
    else {
        return Ok(None);
    };
    let Some(cwd) = spec.cwd.clone().or_else(|| std::env::current_dir().ok()) else {
        return Ok(None);
    };
    let history = History::at(config);
    if history.session(&resume.session_id, Some(&cwd)).is_ok() {
        return Ok(None);
    }
    let ran_in = history
        .session(&resume.session_id, None)
        .and_then(|session| session.info())
        .ok()
        .and_then(|info| info.cwd);
    match ran_in {
        None => Ok(None),
        Some(folder) if resume.in_its_folder => Ok(Some(folder)),
        Some(ran_in) => Err(Error::ResumeElsewhere {
            session_id: resume.session_id.clone(),
            ran_in,
            cwd,
        }),
    }
}

/// For a continue from this machine's history: [`Error::NothingToContinue`] when the working
/// directory's history has no conversation (the CLI would start a new one without a word).
/// Passes when the history's folder cannot be told.
fn something_to_continue(spec: &LaunchSpec) -> Result<(), Error> {
    let Some(config) = mirror::projects_dir(spec).and_then(|p| p.parent().map(Path::to_path_buf))
    else {
        return Ok(());
    };
    let Some(cwd) = spec.cwd.clone().or_else(|| std::env::current_dir().ok()) else {
        return Ok(());
    };
    let listing = crate::history::ListSessions::in_dir(&cwd).limit(1);
    match History::at(config).list_sessions(&listing) {
        Ok(sessions) if sessions.is_empty() => Err(Error::NothingToContinue { cwd }),
        _ => Ok(()),
    }
}

/// The command line for `options` and what its callbacks declare, with the CLI found (unless a
/// transport reaches it).
fn launch_spec(options: &Options, host: &HostDeclarations) -> Result<LaunchSpec, Error> {
    let program = if options.handlers().transport.is_some() {
        options
            .config()
            .cli_path
            .as_deref()
            .map_or_else(|| PathBuf::from("claude"), Path::to_path_buf)
    } else {
        crate::process::discovery::find_cli(options.config().cli_path.as_deref())?
    };
    Ok(options.config().launch_spec(program, host)?)
}

/// What every start has besides its endpoints.
struct Common {
    config: SessionConfig,
    recorder: Option<Recorder>,
    trace: Trace,
    mirror: Option<Mirror>,
    /// Removed once the CLI is gone.
    folders: SessionFolders,
    /// The session's place in its fleet.
    seat: Option<Seat>,
    /// For each of the session's hook matchers, the index of its callback.
    hook_order: Vec<usize>,
}

/// What a start needs before it reaches the CLI: the session's configuration, its command
/// line, the recording's file (opened), the store's mirror.
struct Planned {
    config: SessionConfig,
    spec: LaunchSpec,
    recorder: Option<Recorder>,
    mirror: Option<Mirror>,
    hook_order: Vec<usize>,
}

impl Planned {
    fn into_common(self, trace: Trace) -> Common {
        Common {
            config: self.config,
            recorder: self.recorder,
            trace,
            mirror: self.mirror,
            folders: SessionFolders::default(),
            seat: None,
            hook_order: self.hook_order,
        }
    }
}

fn plan(options: &Options) -> Result<Planned, Error> {
    let host = options.handlers().declarations();
    // A text prompt is sent as the last message (`Session::send_last`), cold or warm.
    let mut config = options
        .config()
        .session_config(InputMode::Streaming, &host)?;
    options
        .config()
        .apply_environment(&mut config, |name| std::env::var_os(name));
    // A fleet's key is charged for each turn before its result goes on, and for a turn the
    // session ends in, from its model calls.
    config.count_model_calls = options.handlers().fleet.is_some();
    config.results_after_charge = options.handlers().fleet.is_some();
    // A result goes to the user once its turn is in the store.
    config.results_after_store = options.handlers().session_store.is_some();
    let recorder = options
        .get_record_to()
        .map(|path| {
            Recorder::open(path, config.limits.max_line_bytes).map_err(|source| Error::Record {
                path: path.to_path_buf(),
                source,
            })
        })
        .transpose()?;
    let spec = launch_spec(options, &host)?;
    // In a shared fleet the next host resumes the session from the store: a result waits for
    // its turn's lines through an outage of the store (up to a minute).
    let shared_fleet = options
        .handlers()
        .fleet
        .as_ref()
        .is_some_and(|member| member.fleet().is_shared());
    let mirror = options.handlers().session_store.clone().map(|store| {
        Mirror::new(
            store,
            mirror::projects_dir(&spec),
            options.handlers().store_flush,
            shared_fleet,
        )
    });
    Ok(Planned {
        config,
        spec,
        recorder,
        mirror,
        hook_order: host.hook_matcher_order(),
    })
}

/// What a failed start of `program` in `cwd` means, read as [`doctor`](crate::cli::doctor)
/// reads it.
fn spawn_error(program: PathBuf, cwd: Option<&Path>, source: io::Error) -> Error {
    match crate::process::preflight::not_started(&program, cwd, &source) {
        Finding::WorkingDirectoryMissing { path } => Error::WorkingDirectory { path, source },
        Finding::CliNotFound => Error::CliNotFound {
            searched: vec![program],
            hint: crate::error::INSTALL_HINT,
        },
        // The program is there but could not be run (not executable, a missing interpreter, …).
        _ => Error::Spawn { program, source },
    }
}

/// Make the session and its driver over `endpoints`: the future to run on `runtime`.
fn start_driver<R: Runtime>(
    runtime: &R,
    options: &Options,
    endpoints: Endpoints<ConnectionProcess, BoxedWrite, BoxedRead, BoxedRead>,
    start: Start,
    channels: Channels,
    common: Common,
) -> BoxFuture<'static, ()> {
    let Common {
        config,
        recorder,
        mut trace,
        mirror,
        folders,
        seat,
        hook_order,
    } = common;
    let now = runtime.now();
    let mut config = config;
    // `connect` returns once the in-process servers are connected.
    config.ready_after_servers = matches!(start, Start::Connect(_));
    let mut session = Session::new(config, now);
    trace.initialize_sent(session.initialize_id(), now);
    let (input, init_reply) = match start {
        Start::Prompt(PromptKind::Text(text)) => {
            // A fresh session always takes its first message.
            let _ = session.send_last(now, UserInput::text(text));
            trace.turn_started();
            (None, None)
        }
        Start::Prompt(PromptKind::Stream(stream)) => (Some(stream), None),
        Start::Connect(reply) => (None, Some(reply)),
    };
    let session_ref = SessionRef(channels.shared);
    let dispatcher = Dispatcher::new(options.handlers().clone(), &hook_order, session_ref);
    let driver = Driver::new(DriverParts {
        runtime: runtime.clone(),
        session,
        endpoints,
        dispatcher,
        stderr: options.handlers().stderr.clone(),
        handles: HandlesSide::new(channels.commands, channels.link, input, init_reply),
        recorder,
        trace,
        mirror,
        folders,
        seat,
    });
    driver.into_task()
}
