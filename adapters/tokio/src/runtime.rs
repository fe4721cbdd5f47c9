//! [`Runtime`] for tokio: `tokio::process` children in their own process group, `tokio::time`
//! timers, `tokio::spawn` for the driver.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::process::Stdio;
use std::task::{Context, Poll};
use std::time::Instant;

use claude_agent_core::client::{BoxFuture, ChildParts, ChildProcess, Runtime, Signal};
use claude_agent_core::options::LaunchSpec;
use claude_agent_core::session::ExitStatusInfo;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::pipe::Pipe;

/// The tokio runtime the current task runs on. Zero-sized: it finds the runtime with
/// `tokio::runtime::Handle::current()` when it spawns.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioRuntime;

impl Runtime for TokioRuntime {
    type Child = TokioChild;
    type Stdin = Pipe<ChildStdin>;
    type Stdout = Pipe<ChildStdout>;
    type Stderr = Pipe<ChildStderr>;
    type Sleep = tokio::time::Sleep;

    fn spawn_child(&self, spec: &LaunchSpec) -> io::Result<ChildParts<Self>> {
        tokio::runtime::Handle::try_current().map_err(io::Error::other)?;
        let mut command = Command::new(&spec.program);
        command.args(&spec.args);
        for key in &spec.env_remove {
            command.env_remove(key);
        }
        command.envs(spec.env.iter().map(|(k, v)| (k, v)));
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // The last resort if everything else is dropped without a shutdown: SIGKILL the child.
        command.kill_on_drop(true);
        // Its own process group, so a shutdown reaches the tools it started too.
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn()?;
        let missing = || io::Error::other("a piped stdio handle was not created");
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        Ok(ChildParts::new(
            TokioChild { inner: child },
            Pipe(stdin),
            Pipe(stdout),
            Pipe(stderr),
        ))
    }

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        tokio::time::sleep_until(deadline.into())
    }

    /// tokio's clock: paused time (`#[tokio::test(start_paused = true)]`,
    /// `tokio::time::pause`) applies to every deadline of the session.
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn spawn_task(&self, task: BoxFuture<'static, ()>) {
        tokio::spawn(task);
    }
}

/// A CLI process started by [`TokioRuntime`].
#[derive(Debug)]
pub struct TokioChild {
    inner: Child,
}

impl ChildProcess for TokioChild {
    fn id(&self) -> Option<u32> {
        self.inner.id()
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatusInfo>> {
        // `Child::wait` keeps its state in the child, so a fresh future per poll is cancel-safe.
        let wait = pin!(self.inner.wait());
        wait.poll(cx).map_ok(exit_status_info)
    }

    fn signal(&mut self, signal: Signal) -> io::Result<()> {
        // `id()` is `None` once the child was reaped, so a recycled pid is never signalled.
        let Some(pid) = self.inner.id() else {
            return Ok(());
        };
        signal_group(pid, signal, &mut self.inner)
    }
}

#[cfg(unix)]
fn signal_group(pid: u32, signal: Signal, _child: &mut Child) -> io::Result<()> {
    let signo = match signal {
        Signal::Terminate => libc::SIGTERM,
        _ => libc::SIGKILL,
    };
    let group = -(i32::try_from(pid).map_err(io::Error::other)?);
    // SAFETY: kill(2) has no memory-safety preconditions; a negative pid names a process group.
    if unsafe { libc::kill(group, signo) } == -1 {
        let error = io::Error::last_os_error();
        // ESRCH: the group is already gone.
        if error.raw_os_error() != Some(libc::ESRCH) {
            return Err(error);
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn signal_group(_pid: u32, _signal: Signal, child: &mut Child) -> io::Result<()> {
    // No process groups or SIGTERM here: terminate the process itself.
    child.start_kill()
}

fn exit_status_info(status: std::process::ExitStatus) -> ExitStatusInfo {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitStatusInfo::signal(signal);
        }
    }
    ExitStatusInfo::code(status.code().unwrap_or(-1))
}
