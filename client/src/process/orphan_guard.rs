//! [`OrphanGuard`]: the CLI's whole process tree killed on demand, or by a small watcher process
//! when the process that started it dies first.
//!
//! Why a process group is not enough: the CLI runs each Bash tool in a session (and so a process
//! group) of its own, so `SIGKILL` to the CLI's group leaves the tools running. The CLI kills them
//! itself when it gets `SIGTERM`, but not when it is killed, and not when its host is. So a kill
//! here takes the whole tree: every descendant of the CLI, every process in a group led by one of
//! them, and every process that carries the guard's marker in its environment (Linux: found
//! through `/proc/<pid>/environ`), which also finds tools the CLI left behind when it exited (a
//! CLI that sees its stdin closed by a dying host may exit before the watcher gets to it).
//!
//! Why a separate process: when the host is killed (`SIGKILL`, a crash, `std::process::exit` with
//! a session running) no code of the host runs any more. The watcher is a `/bin/sh` holding one end
//! of a socket pair whose other end only the host holds (close-on-exec, so neither the CLI nor any
//! other child inherits it). When the host dies, the kernel closes its end; the watcher reads end
//! of file and kills every tree it guards.
//!
//! One watcher serves every session of the host (it is started with the first guard, and again
//! if it ever dies). It reads lines: `arm <guard> <group> <marker>` (guard this tree), `exit
//! <guard>` (the CLI was reaped: stand down) and `kill <guard>` (kill the tree now; it answers
//! `done <guard> <pids>`, killing in the background so that other sessions are not held up).

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long [`OrphanGuard::kill_tree`] waits for the watcher to say it is done.
const KILL_CONFIRMED_WITHIN: Duration = Duration::from_secs(3);
/// How long a host that reaps orphans waits for the killed tools to become its children.
const ADOPTION_WITHIN: Duration = Duration::from_secs(1);

/// The environment variable that marks the CLI and everything it starts.
const MARKER_ENV: &str = "CLAUDE_AGENT_SDK_TREE";

/// The variable that carries [`WATCHER`] to the shell, which `eval`s it: so `ps` shows a short
/// command line (`sh -c eval "$CLAUDE_AGENT_SDK_WATCHER" claude-agent-watcher <host pid>`).
const WATCHER_ENV: &str = "CLAUDE_AGENT_SDK_WATCHER";

/// The watcher. `/bin/sh` runs it with the socket as stdin and stdout; it keeps the socket as
/// fd 3, starts the watch in the background and exits at once, so the watch is reparented to
/// init (or the nearest subreaper), which reaps it, and nothing in the host has to wait for it.
/// The shell says the watch's pid before it exits, so that a host that is PID 1 or a subreaper
/// (where the watch, and the tools it kills, end up as its children) can reap them.
///
/// The watch keeps the guarded trees as `guard:group:marker` words. `table` prints `pid ppid
/// pgid` for every process: from `/proc` (Linux: each `stat` read whole, since a process name
/// may hold a newline, and split with globbing off), else from `ps` (macOS, the BSDs); `marked`
/// prints the pids whose environment holds one of the markers (Linux only). `killtrees` takes
/// `group marker` pairs: it stops the groups first, so that nothing in them can start anything
/// more; then, round after round until a round finds nothing new, it adds and stops every
/// process that is marked, whose parent is in the trees, or whose group is led by a process of
/// the trees; then it kills those groups and processes, and prints the pids. A group is only
/// ever killed if its leader is a guarded CLI or another process of its tree. A `kill` runs in
/// a background subshell; at end of file (the host is gone) every tree is killed at once.
const WATCHER: &str = r#"exec 3<&0 </dev/null >/dev/null
(
  trees=" "
  table() {
    if [ -r /proc/self/stat ]; then
      for f in /proc/[0-9]*/stat; do
        s=
        while IFS= read -r l || [ -n "$l" ]; do s="$s$l "; done < "$f" || continue
        r=${s##*) }
        set -f
        set -- $r
        set +f
        echo "${s%% *} $2 $3"
      done 2>/dev/null
    else
      ps -A -o pid= -o ppid= -o pgid=
    fi
  }
  killtrees() {
    pids=" "
    groups=" "
    marks=
    while [ $# -ge 2 ]; do
      kill -s STOP -- "-$1" 2>/dev/null
      pids="$pids$1 "
      groups="$groups$1 "
      marks="$marks -e $2"
      shift 2
    done
    more=1
    while [ -n "$more" ]; do
      more=
      t=$(table)
      m=" "
      if [ -r /proc/self/environ ]; then
        for f in $(grep -l -s -a -z -x -F $marks /proc/[0-9]*/environ); do
          f=${f#/proc/}
          m="$m${f%/environ} "
        done
      fi
      while read -r p pp pg; do
        case $pids in *" $p "*) continue ;; esac
        ours=
        case $pids in *" $pp "*) ours=1 ;; esac
        case $groups in *" $pg "*) ours=1 ;; esac
        case $m in *" $p "*) ours=1 ;; esac
        [ -n "$ours" ] || continue
        kill -s STOP "$p" 2>/dev/null
        pids="$pids$p "
        [ "$p" = "$pg" ] && groups="$groups$p "
        more=1
      done <<END
$t
END
    done
    for x in $groups; do kill -s KILL -- "-$x"; done 2>/dev/null
    for x in $pids; do kill -s KILL "$x"; done 2>/dev/null
    echo "$pids"
  }
  while read -r command id g mark <&3; do
    case $id in ''|*[!0-9]*) continue ;; esac
    case $command in
      arm)
        case $g in ''|*[!0-9]*) continue ;; esac
        [ "$g" -gt 1 ] || continue
        trees="$trees$id:$g:$mark "
        ;;
      exit|kill)
        kept=" "
        found=
        for e in $trees; do
          case $e in
            "$id":*) found=$e ;;
            *) kept="$kept$e " ;;
          esac
        done
        trees=$kept
        if [ "$command" = kill ]; then
          if [ -n "$found" ]; then
            e=${found#*:}
            ( k=$(killtrees "${e%%:*}" "${e#*:}"); echo "done $id$k" >&3 ) &
          else
            echo "done $id" >&3
          fi
        fi
        ;;
    esac
  done
  set --
  for e in $trees; do
    e=${e#*:}
    set -- "$@" "${e%%:*}" "${e#*:}"
  done
  [ $# -gt 0 ] && killtrees "$@" >/dev/null
) &
echo "$!" >&3
"#;

/// The host's one watcher: the socket to it, and the answers to kills. No thread of this
/// process waits on it: a kill reads the watcher's answers itself, one caller at a time, and
/// hands the others theirs.
#[derive(Debug)]
struct Watcher {
    /// Lines to the watcher, one writer at a time.
    socket: Mutex<UnixStream>,
    /// The reading end (the same socket) and the part of a line read so far.
    reader: Mutex<Reader>,
    /// Answers read for kills that wait, and which kills wait.
    answers: Mutex<Answers>,
    /// An answer was read, or the watch ended.
    arrived: Condvar,
    /// The watch's pid.
    pid: u32,
    /// This process is PID 1 or a subreaper, so the watch (and the tools it kills) became its
    /// children: it reaps them, as nothing else would.
    reaper: bool,
    /// The watch has ended (its socket was closed): new guards start another.
    gone: AtomicBool,
}

#[derive(Debug)]
struct Reader {
    socket: UnixStream,
    partial: Vec<u8>,
}

#[derive(Debug, Default)]
struct Answers {
    waiting: HashSet<u64>,
    /// By guard: the pids the watcher killed.
    done: HashMap<u64, String>,
}

/// The watcher of this process, once one was started.
static WATCHER_OF_HOST: Mutex<Option<Arc<Watcher>>> = Mutex::new(None);

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Watcher {
    /// The host's watcher, started now if there is none (or it ended).
    fn of_host() -> io::Result<Arc<Watcher>> {
        let mut slot = lock(&WATCHER_OF_HOST);
        if let Some(watcher) = slot.as_ref().filter(|w| !w.has_ended()) {
            return Ok(watcher.clone());
        }
        let watcher = Watcher::start()?;
        *slot = Some(watcher.clone());
        Ok(watcher)
    }

    /// Start the watcher (`/bin/sh`, in a process group of its own so that signals to this
    /// process's group do not reach it).
    fn start() -> io::Result<Arc<Watcher>> {
        let (ours, theirs) = UnixStream::pair()?;
        let stdin = OwnedFd::from(theirs.try_clone()?);
        let context = |error: io::Error| {
            io::Error::new(
                error.kind(),
                format!("could not start the process-tree watcher (/bin/sh): {error}"),
            )
        };
        // The command (and with it this process's copy of the watcher's end) is dropped at the
        // end of the statement.
        let status = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("eval \"${WATCHER_ENV}\""))
            .arg("claude-agent-watcher")
            .arg(std::process::id().to_string())
            .env(WATCHER_ENV, WATCHER)
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::from(OwnedFd::from(theirs)))
            .stderr(Stdio::null())
            .current_dir("/")
            .process_group(0)
            .status()
            .map_err(context)?;
        if !status.success() {
            return Err(context(io::Error::other(format!(
                "the shell failed: {status}"
            ))));
        }
        // The shell said the watch's pid before it exited.
        ours.set_read_timeout(Some(KILL_CONFIRMED_WITHIN))?;
        let pid = read_line(&ours)
            .map_err(context)?
            .trim()
            .parse()
            .map_err(|_| context(io::Error::other("the watcher did not say its pid")))?;
        let reading = ours.try_clone()?;
        Ok(Arc::new(Watcher {
            socket: Mutex::new(ours),
            reader: Mutex::new(Reader {
                socket: reading,
                partial: Vec::new(),
            }),
            answers: Mutex::new(Answers::default()),
            arrived: Condvar::new(),
            reaper: adopted(pid),
            pid,
            gone: AtomicBool::new(false),
        }))
    }

    /// Whether the watch has ended: known, or seen now as the socket closed by its other end.
    /// Under a host that reaps orphans, an ended watch is reaped.
    fn has_ended(&self) -> bool {
        use nix::errno::Errno;
        use nix::sys::socket::{recv, MsgFlags};
        use std::os::fd::AsRawFd;

        if !self.gone.load(Ordering::Acquire) {
            let socket = lock(&self.socket);
            let mut byte = [0u8];
            let flags = MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT;
            let ended = match recv(socket.as_raw_fd(), &mut byte, flags) {
                Ok(0) => true,
                Ok(_) | Err(Errno::EAGAIN) | Err(Errno::EINTR) => false,
                Err(_) => true,
            };
            if ended {
                self.end();
            }
        }
        self.gone.load(Ordering::Acquire)
    }

    /// The watch has ended: kills waiting for it fail (their callers fall back to a signal).
    fn end(&self) {
        if !self.gone.swap(true, Ordering::AcqRel) {
            if self.reaper {
                reap(self.pid);
            }
            let _answers = lock(&self.answers);
            self.arrived.notify_all();
        }
    }

    fn send(&self, line: &str) -> io::Result<()> {
        let sent = lock(&self.socket).write_all(line.as_bytes());
        if sent.is_err() {
            self.end();
        }
        sent
    }

    /// Ask for `guard`'s tree to be killed and wait for the answer: the pids killed.
    fn kill(&self, guard: u64, within: Duration) -> io::Result<String> {
        lock(&self.answers).waiting.insert(guard);
        let answer = self
            .send(&format!("kill {guard}\n"))
            .and_then(|()| self.await_done(guard, Instant::now() + within));
        let mut answers = lock(&self.answers);
        answers.waiting.remove(&guard);
        answers.done.remove(&guard);
        answer
    }

    /// The watcher's `done` for `guard`: read by this caller while no other reads, else handed
    /// over by the one that does.
    fn await_done(&self, guard: u64, deadline: Instant) -> io::Result<String> {
        let failed = || io::Error::other("the process-tree watcher did not kill in time, or ended");
        loop {
            if let Some(pids) = lock(&self.answers).done.remove(&guard) {
                return Ok(pids);
            }
            let now = Instant::now();
            if self.gone.load(Ordering::Acquire) || now >= deadline {
                return Err(failed());
            }
            match self.reader.try_lock() {
                Ok(mut reader) => self.read_answer(&mut reader, deadline - now),
                Err(_) => {
                    // Another caller reads; it hands this one its answer.
                    let answers = lock(&self.answers);
                    if !answers.done.contains_key(&guard) {
                        let wait = (deadline - now).min(Duration::from_millis(20));
                        let _ = self.arrived.wait_timeout(answers, wait);
                    }
                }
            }
        }
    }

    /// Read the watcher's next line (for at most `within`), keep it for the kill that waits
    /// for it, and wake the waiting callers.
    fn read_answer(&self, reader: &mut Reader, within: Duration) {
        use std::io::Read;

        let Reader { socket, partial } = reader;
        if socket
            .set_read_timeout(Some(within.max(Duration::from_millis(1))))
            .is_err()
        {
            return self.end();
        }
        let mut byte = [0u8];
        loop {
            match socket.read(&mut byte) {
                Ok(0) => return self.end(),
                Ok(_) if byte[0] == b'\n' => break,
                Ok(_) => partial.push(byte[0]),
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                // Nothing yet: the caller looks at its deadline and comes back.
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return;
                }
                Err(_) => return self.end(),
            }
        }
        let line = String::from_utf8_lossy(partial).into_owned();
        partial.clear();
        let Some(rest) = line.strip_prefix("done ") else {
            return;
        };
        let (guard, pids) = rest.split_once(' ').unwrap_or((rest, ""));
        let Ok(guard) = guard.parse::<u64>() else {
            return;
        };
        let mut answers = lock(&self.answers);
        if answers.waiting.contains(&guard) {
            answers.done.insert(guard, pids.to_owned());
            self.arrived.notify_all();
        }
    }
}

/// Kills the CLI and every process it started, on demand ([`OrphanGuard::kill_tree`]) or, by a
/// watcher process, when the process holding the guard dies before the CLI was reaped.
///
/// For runtime adapters: start the guard just before spawning the CLI in a process group of its
/// own, with the guard's [`env`](OrphanGuard::env) marker in its environment;
/// [`arm`](OrphanGuard::arm) it with the CLI's pid right after; drop it once the CLI has been
/// reaped (the watcher then stands down); and call [`kill_tree`](OrphanGuard::kill_tree) instead
/// of a bare `SIGKILL` to the group while it has not been. The adapters of this SDK
/// (`claude-agent-tokio`, `claude-agent-smol`, `claude-agent-async-std`) do all this.
///
/// What it costs: one `/bin/sh` for the whole host, asleep in a blocking read (about 1 MB of
/// memory), started with the first guard in a few milliseconds; one socket in this process,
/// whatever the number of sessions, and no thread (a kill reads the watcher's answer itself). A guard itself is a few bytes and two short lines to
/// the watcher. A kill runs in a subshell of the watcher and takes some tens of milliseconds (it
/// reads the process table of the system).
///
/// Where it works: on Linux the process table and the markers come from `/proc`. Elsewhere (macOS,
/// the BSDs) the table comes from `ps` and there are no markers: the tree is what still descends
/// from the CLI when the kill starts, so a tool whose parent has already exited and that left the
/// CLI's group is not reached. Also not reached: a process that both leaves the tree and drops the
/// marker from its environment (`env -i`), and one started in the instant between the CLI being
/// spawned and the guard being armed.
///
/// ```no_run
/// use std::os::unix::process::CommandExt;
/// use claude_agent_client::OrphanGuard;
///
/// let mut guard = OrphanGuard::start()?;
/// let (name, value) = guard.env();
/// let mut cli = std::process::Command::new("claude")
///     .env(name, value)
///     .process_group(0)
///     .spawn()?;
/// guard.arm(cli.id())?;
/// // … if this process is killed now, the watcher kills `claude` and all it started.
/// guard.kill_tree()?; // or, once `cli.wait()` returned: drop(guard)
/// cli.wait()?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct OrphanGuard {
    /// The host's watcher.
    watcher: Arc<Watcher>,
    /// This guard's number, in the lines to the watcher.
    id: u64,
    /// The value of `MARKER_ENV` for this guard's tree, unique to it.
    marker: String,
    /// A process group id was sent: dropping the guard must stand the watcher down.
    armed: bool,
    /// The group sent with `arm`.
    pgid: u32,
}

impl OrphanGuard {
    /// A guard from the host's watcher (started now if this is the first). Call it before
    /// spawning the CLI.
    ///
    /// ```no_run
    /// let guard = claude_agent_client::OrphanGuard::start()?;
    /// # drop(guard);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn start() -> io::Result<OrphanGuard> {
        static GUARDS: AtomicU64 = AtomicU64::new(0);
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let id = GUARDS.fetch_add(1, Ordering::Relaxed);
        let marker = format!("{}.{}.{id}", std::process::id(), since_epoch.as_nanos(),);
        Ok(OrphanGuard {
            watcher: Watcher::of_host()?,
            id,
            marker,
            armed: false,
            pgid: 0,
        })
    }

    /// The variable to set in the CLI's environment, as `(name, value)`: everything the CLI starts
    /// inherits it, which is how a tool the CLI left behind is still found (on Linux). The value is
    /// unique to this guard.
    ///
    /// ```no_run
    /// # use std::os::unix::process::CommandExt;
    /// let guard = claude_agent_client::OrphanGuard::start()?;
    /// let (name, value) = guard.env();
    /// let cli = std::process::Command::new("claude").env(name, value).process_group(0).spawn()?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn env(&self) -> (&str, &str) {
        (MARKER_ENV, &self.marker)
    }

    /// Watch the process group `pgid`: the pid of the CLI just spawned as the leader of a group of
    /// its own. Once armed, the tree is killed if this process dies while the guard is alive.
    ///
    /// ```no_run
    /// # use std::os::unix::process::CommandExt;
    /// let mut guard = claude_agent_client::OrphanGuard::start()?;
    /// let cli = std::process::Command::new("claude").process_group(0).spawn()?;
    /// guard.arm(cli.id())?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn arm(&mut self, pgid: u32) -> io::Result<()> {
        if self.armed {
            return Err(io::Error::other("the guard is already armed"));
        }
        let line = format!("arm {} {pgid} {MARKER_ENV}={}\n", self.id, self.marker);
        if self.watcher.send(&line).is_err() {
            // The watch ended since this guard was made: the next one guards the tree.
            self.watcher = Watcher::of_host()?;
            self.watcher.send(&line)?;
        }
        self.armed = true;
        self.pgid = pgid;
        Ok(())
    }

    /// Kill the tree now, blocking the calling thread until it is done (some tens of
    /// milliseconds; at most 3 s). Call it only while the group's leader has not been reaped (its
    /// pid cannot have been reused then). On an error, fall back to `SIGKILL` to the group.
    ///
    /// ```no_run
    /// # use std::os::unix::process::CommandExt;
    /// let mut guard = claude_agent_client::OrphanGuard::start()?;
    /// let mut cli = std::process::Command::new("claude").process_group(0).spawn()?;
    /// guard.arm(cli.id())?;
    /// guard.kill_tree()?;
    /// cli.wait()?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn kill_tree(mut self) -> io::Result<()> {
        if !self.armed {
            return Err(io::Error::other("the guard is not armed: no group to kill"));
        }
        // Whatever happens now, the watcher is told nothing more of this guard.
        self.armed = false;
        let killed = self.watcher.kill(self.id, KILL_CONFIRMED_WITHIN)?;
        // Under a host that is PID 1 or a subreaper, the tools the CLI left become this
        // process's children as their parents die: reap them. The CLI itself is its runtime's
        // to reap.
        if self.watcher.reaper {
            let mut pending: Vec<u32> = killed
                .split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .filter(|&pid| pid != self.pgid)
                .collect();
            let deadline = std::time::Instant::now() + ADOPTION_WITHIN;
            while !pending.is_empty() && std::time::Instant::now() < deadline {
                pending.retain(|&pid| !settled(pid));
                if !pending.is_empty() {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
        Ok(())
    }
}

impl OrphanGuard {
    /// [`kill_tree`](OrphanGuard::kill_tree) on a thread of its own, for callers that must not
    /// block: an async runtime's [`ChildProcess::signal`](crate::ChildProcess::signal)
    /// and `Drop`. Poll the returned [`TreeKill`] before reaping the group's leader, so that
    /// the watcher never signals a group id that may since have been reused; dropping it lets
    /// the kill finish on its own.
    ///
    /// ```no_run
    /// # use std::os::unix::process::CommandExt;
    /// # async fn run() -> std::io::Result<()> {
    /// let mut guard = claude_agent_client::OrphanGuard::start()?;
    /// let mut cli = std::process::Command::new("claude").process_group(0).spawn()?;
    /// guard.arm(cli.id())?;
    /// let mut kill = guard.kill_tree_in_background();
    /// std::future::poll_fn(|cx| kill.poll_done(cx)).await?; // the executor stays free meanwhile
    /// cli.wait()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn kill_tree_in_background(self) -> TreeKill {
        let (done, outcome) = async_channel::bounded(1);
        let spawned = std::thread::Builder::new()
            .name("claude-agent-kill-tree".into())
            .spawn(move || {
                let _ = done.try_send(self.kill_tree());
            });
        match spawned {
            Ok(_) => TreeKill(Box::pin(outcome)),
            Err(error) => {
                // No thread to be had: report it, so that the caller falls back to a signal.
                let (done, outcome) = async_channel::bounded(1);
                let _ = done.try_send(Err(error));
                TreeKill(Box::pin(outcome))
            }
        }
    }
}

/// A tree kill running on a thread of its own ([`OrphanGuard::kill_tree_in_background`]).
///
/// ```no_run
/// # use std::os::unix::process::CommandExt;
/// use claude_agent_client::{OrphanGuard, TreeKill};
/// # async fn run() -> std::io::Result<()> {
/// let mut guard = OrphanGuard::start()?;
/// let cli = std::process::Command::new("claude").process_group(0).spawn()?;
/// guard.arm(cli.id())?;
/// let mut kill: TreeKill = guard.kill_tree_in_background();
/// std::future::poll_fn(|cx| kill.poll_done(cx)).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TreeKill(std::pin::Pin<Box<async_channel::Receiver<io::Result<()>>>>);

impl TreeKill {
    /// Ready with what [`OrphanGuard::kill_tree`] returned once the kill is done; the task is
    /// woken then.
    ///
    /// ```no_run
    /// # async fn run(mut kill: claude_agent_client::TreeKill) {
    /// if let Err(error) = std::future::poll_fn(|cx| kill.poll_done(cx)).await {
    ///     eprintln!("the watcher could not kill the tree ({error}): signal the group instead");
    /// }
    /// # }
    /// ```
    pub fn poll_done(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        use futures_lite::Stream;
        match self.0.as_mut().poll_next(cx) {
            std::task::Poll::Ready(Some(outcome)) => std::task::Poll::Ready(outcome),
            std::task::Poll::Ready(None) => std::task::Poll::Ready(Err(io::Error::other(
                "the thread killing the process tree ended without a word",
            ))),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

/// What a runtime's child handle keeps to take its CLI's whole tree down without blocking: the
/// armed [`OrphanGuard`], then the kill in progress.
///
/// [`kill`](TreeKiller::kill) starts the kill on a thread of its own and returns at once;
/// [`poll_settled`](TreeKiller::poll_settled), polled before the CLI is reaped, waits for it (so
/// that the watcher never signals a group id that may since have been reused) and falls back to
/// `SIGKILL` to the group if the watcher failed; [`reaped`](TreeKiller::reaped) stands the
/// watcher down once the CLI was reaped.
///
/// ```no_run
/// use std::os::unix::process::CommandExt;
/// use claude_agent_client::{OrphanGuard, TreeKiller};
/// # async fn run() -> std::io::Result<()> {
/// let mut guard = OrphanGuard::start()?;
/// let mut cli = std::process::Command::new("claude").process_group(0).spawn()?;
/// guard.arm(cli.id())?;
/// let mut tree = TreeKiller::new(guard);
/// tree.kill(cli.id())?; // returns at once
/// std::future::poll_fn(|cx| tree.poll_settled(cx, cli.id())).await;
/// cli.wait()?;
/// tree.reaped();
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default)]
pub struct TreeKiller {
    guard: Option<OrphanGuard>,
    killing: Option<TreeKill>,
}

impl TreeKiller {
    /// Keep `guard`, armed with the CLI's pid, until a kill or the CLI's reaping.
    ///
    /// ```no_run
    /// # use claude_agent_client::{OrphanGuard, TreeKiller};
    /// let guard = OrphanGuard::start()?;
    /// let tree = TreeKiller::new(guard);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(guard: OrphanGuard) -> Self {
        TreeKiller {
            guard: Some(guard),
            killing: None,
        }
    }

    /// Start killing the tree of the group `pgid` (the CLI's pid) and return at once; without
    /// a guard (already used), send `SIGKILL` to the group.
    ///
    /// ```no_run
    /// # fn stop(tree: &mut claude_agent_client::TreeKiller, pid: u32) -> std::io::Result<()> {
    /// tree.kill(pid)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn kill(&mut self, pgid: u32) -> io::Result<()> {
        match self.guard.take() {
            Some(guard) => {
                self.killing = Some(guard.kill_tree_in_background());
                Ok(())
            }
            None => crate::Signal::Kill.send_to_group(pgid),
        }
    }

    /// Ready once no kill is in progress. A kill the watcher could not do falls back to
    /// `SIGKILL` to the group `pgid`.
    ///
    /// ```no_run
    /// # async fn settle(tree: &mut claude_agent_client::TreeKiller, pid: u32) {
    /// std::future::poll_fn(|cx| tree.poll_settled(cx, pid)).await;
    /// # }
    /// ```
    pub fn poll_settled(
        &mut self,
        cx: &mut std::task::Context<'_>,
        pgid: u32,
    ) -> std::task::Poll<()> {
        if let Some(kill) = &mut self.killing {
            let outcome = std::task::ready!(kill.poll_done(cx));
            self.killing = None;
            if outcome.is_err() {
                let _ = crate::Signal::Kill.send_to_group(pgid);
            }
        }
        std::task::Poll::Ready(())
    }

    /// The CLI was reaped: the watcher stands down, so that it never signals a group id that
    /// may since have been reused.
    ///
    /// ```no_run
    /// # fn done(tree: &mut claude_agent_client::TreeKiller) {
    /// tree.reaped();
    /// # }
    /// ```
    pub fn reaped(&mut self) {
        self.guard = None;
    }
}

impl Drop for OrphanGuard {
    fn drop(&mut self) {
        if self.armed {
            // The group's leader was reaped (or the guard is given up): stand the watcher down,
            // so that it never signals a group id that may since have been reused. A watcher that
            // is already gone makes this fail with EPIPE, which changes nothing (SIGPIPE is
            // ignored in Rust programs, as the CLI's own pipes already require).
            let _ = self.watcher.send(&format!("exit {}\n", self.id));
        }
    }
}

/// Whether `watcher`, whose starting shell has exited, became this process's child: this
/// process is PID 1 or a subreaper (a container's init, a service manager), where orphans go.
fn adopted(watcher: u32) -> bool {
    if std::process::id() == 1 {
        return true;
    }
    // Linux: the parent's pid is the fourth field of /proc/PID/stat, after the name in parens.
    std::fs::read_to_string(format!("/proc/{watcher}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
            == Some(std::process::id())
    })
}

/// Whether the killed process `pid` needs nothing more of a host that reaps orphans: reaped
/// here (it was, or has become, this process's child), or gone. A process still there and not a
/// child yet is waiting for its parent to die.
fn settled(pid: u32) -> bool {
    use nix::errno::Errno;
    use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
    use nix::unistd::Pid;

    let Ok(raw) = i32::try_from(pid) else {
        return true;
    };
    match waitpid(Pid::from_raw(raw), Some(WaitPidFlag::WNOHANG)) {
        // Killed, so it ends at once.
        Ok(WaitStatus::StillAlive) => {
            let _ = waitpid(Pid::from_raw(raw), None);
            true
        }
        Err(Errno::ECHILD) => !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        _ => true,
    }
}

/// Reap the child `pid` of this process (call it only for one: an orphan this process adopted):
/// at once if it has ended, else once it ends, on a thread of its own.
fn reap(pid: u32) {
    use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
    use nix::unistd::Pid;

    let Ok(pid) = i32::try_from(pid).map(Pid::from_raw) else {
        return;
    };
    // Anything but "still running" is done: reaped now, or not a child after all.
    if let Ok(WaitStatus::StillAlive) = waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
        let _ = std::thread::Builder::new()
            .name("claude-agent-reap".into())
            .spawn(move || waitpid(pid, None));
    }
}

/// One line from the watcher, read a byte at a time so that nothing after it is taken. A read
/// interrupted by a signal is tried again.
fn read_line(mut socket: &UnixStream) -> io::Result<String> {
    use std::io::Read;

    let mut line = Vec::new();
    let mut byte = [0u8];
    loop {
        match socket.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    String::from_utf8(line).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::process::Child;
    use std::time::Instant;

    /// A shell leading a group of its own that starts a sleep in its group and one in a session
    /// of its own (which prints its pid), then waits.
    fn tree() -> (Child, u32) {
        let mut leader = Command::new("/bin/sh")
            .arg("-c")
            .arg("sleep 60 & setsid sh -c 'echo $$; exec sleep 60' & wait")
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(leader.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (leader, line.trim().parse().unwrap())
    }

    fn running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'))
        })
    }

    fn gone_within(pid: u32, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while running(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        !running(pid)
    }

    #[test]
    fn kill_tree_reaches_a_process_in_a_session_of_its_own() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let mut guard = OrphanGuard::start().unwrap();
        let (mut leader, escaped) = tree();
        guard.arm(leader.id()).unwrap();
        assert!(running(escaped));
        guard.kill_tree().unwrap();
        assert!(
            gone_within(escaped, Duration::from_secs(2)),
            "pid {escaped}"
        );
        leader.wait().unwrap();
    }

    /// A process whose name holds a newline and globs (`x` newline `) * *`), between the CLI
    /// and a tool in a session of its own: the tool is still found through it and killed
    /// (before, the watcher read only the name's first line, lost that process's parent and
    /// group, and the tool escaped).
    #[test]
    fn a_process_named_with_a_newline_does_not_hide_its_children() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let dir = std::env::temp_dir().join(format!("claude-agent-newline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let odd = dir.join("x\n) * *");
        std::fs::copy("/bin/sh", &odd).unwrap();
        let mut guard = OrphanGuard::start().unwrap();
        let mut leader = Command::new("/bin/sh")
            .arg("-c")
            .arg("\"$ODD\" -c 'setsid sh -c \"echo \\$\\$; exec sleep 60\" & wait' & wait")
            .env("ODD", &odd)
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(leader.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let escaped: u32 = line.trim().parse().unwrap();
        guard.arm(leader.id()).unwrap();
        guard.kill_tree().unwrap();
        assert!(
            gone_within(escaped, Duration::from_secs(2)),
            "pid {escaped} escaped"
        );
        leader.wait().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_dropped_guard_stands_down() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let mut guard = OrphanGuard::start().unwrap();
        let (mut leader, escaped) = tree();
        guard.arm(leader.id()).unwrap();
        drop(guard);
        std::thread::sleep(Duration::from_millis(300));
        assert!(running(escaped), "the watcher killed pid {escaped}");
        let _ = Command::new("kill")
            .args(["-KILL", &escaped.to_string()])
            .status();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", leader.id())])
            .status();
        leader.wait().unwrap();
    }

    fn signal(pid: u32, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} {pid}");
    }

    /// The kill runs on a thread of its own: asking for it returns while the watcher cannot act
    /// (stopped here; busy or slow in life, up to 3 s), and the caller learns when it is done.
    #[test]
    fn a_kill_in_the_background_leaves_the_caller_free() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let mut guard = OrphanGuard::start().unwrap();
        let watcher = guard.watcher.pid;
        let (mut leader, escaped) = tree();
        guard.arm(leader.id()).unwrap();
        signal(watcher, "STOP");
        let mut kill = guard.kill_tree_in_background();
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(kill.poll_done(&mut cx).is_pending());
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            kill.poll_done(&mut cx).is_pending(),
            "the watcher is stopped"
        );
        assert!(running(escaped));
        signal(watcher, "CONT");
        futures_lite::future::block_on(std::future::poll_fn(|cx| kill.poll_done(cx))).unwrap();
        assert!(
            gone_within(escaped, Duration::from_secs(2)),
            "pid {escaped}"
        );
        leader.wait().unwrap();
    }

    /// Whether no process `pid` exists at all: gone and reaped (a zombie still has an entry).
    fn reaped_within(pid: u32, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let exists = || std::path::Path::new(&format!("/proc/{pid}")).exists();
        while exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        !exists()
    }

    /// A host that is a subreaper (a container's init, a service manager) adopts the watcher
    /// and the tools it kills: they are reaped, not left as zombies. Runs itself again in a
    /// process of its own that is a subreaper.
    #[test]
    fn a_subreaper_host_is_left_no_zombie() {
        const AS_SUBREAPER: &str = "CLAUDE_AGENT_TEST_SUBREAPER";
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        if std::env::var_os(AS_SUBREAPER).is_none() {
            let status = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "client::process::orphan_guard::tests::a_subreaper_host_is_left_no_zombie",
                    "--test-threads=1",
                    "--nocapture",
                ])
                .env(AS_SUBREAPER, "1")
                .status()
                .unwrap();
            assert!(status.success(), "the subreaper run failed: {status}");
            return;
        }
        nix::sys::prctl::set_child_subreaper(true).unwrap();
        let mut guard = OrphanGuard::start().unwrap();
        assert!(
            guard.watcher.reaper,
            "the watcher became this process's child"
        );
        let watcher = guard.watcher.pid;
        let (mut leader, escaped) = tree();
        guard.arm(leader.id()).unwrap();
        guard.kill_tree().unwrap();
        leader.wait().unwrap();
        assert!(
            reaped_within(escaped, Duration::from_secs(2)),
            "the tool {escaped} is left as a zombie"
        );
        // The watcher serves the host's later sessions; should it die, the next guard starts a
        // new one, and the dead one is reaped.
        assert!(std::path::Path::new(&format!("/proc/{watcher}")).exists());
        signal(watcher, "KILL");
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut next = OrphanGuard::start().unwrap();
        while next.watcher.pid == watcher && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            next = OrphanGuard::start().unwrap();
        }
        assert_ne!(next.watcher.pid, watcher);
        assert!(
            reaped_within(watcher, Duration::from_secs(2)),
            "the watcher {watcher} is left as a zombie"
        );
    }

    /// Kills asked at once from several threads each get their own answer: one reads the
    /// watcher's lines and hands the others theirs.
    #[test]
    fn kills_at_once_each_get_their_answer() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let kills: Vec<_> = (0..4)
            .map(|_| {
                let mut guard = OrphanGuard::start().unwrap();
                let (leader, tool) = tree();
                guard.arm(leader.id()).unwrap();
                (guard, leader, tool)
            })
            .collect();
        let threads: Vec<_> = kills
            .into_iter()
            .map(|(guard, mut leader, tool)| {
                std::thread::spawn(move || {
                    guard.kill_tree().unwrap();
                    leader.wait().unwrap();
                    tool
                })
            })
            .collect();
        for thread in threads {
            let tool = thread.join().unwrap();
            assert!(gone_within(tool, Duration::from_secs(2)), "pid {tool}");
        }
    }

    /// Every session of the host is guarded by one watcher, and each guard's kill takes only
    /// its own tree.
    #[test]
    fn one_watcher_guards_every_session_and_kills_only_what_it_is_asked() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let (mut first_guard, mut second_guard) =
            (OrphanGuard::start().unwrap(), OrphanGuard::start().unwrap());
        assert_eq!(first_guard.watcher.pid, second_guard.watcher.pid);
        let (mut first, first_tool) = tree();
        let (mut second, second_tool) = tree();
        first_guard.arm(first.id()).unwrap();
        second_guard.arm(second.id()).unwrap();
        first_guard.kill_tree().unwrap();
        assert!(gone_within(first_tool, Duration::from_secs(2)));
        first.wait().unwrap();
        assert!(running(second_tool), "the other session's tool was killed");
        second_guard.kill_tree().unwrap();
        assert!(gone_within(second_tool, Duration::from_secs(2)));
        second.wait().unwrap();
    }
}
