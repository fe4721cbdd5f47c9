//! The CLI as a local process, set up once for every runtime: [`LocalCommand`].
//!
//! A runtime's [local process](crate::Runtime::local_process) turns the session's
//! [`LaunchSpec`] into a `std::process::Command` here, converts it to its own command type
//! (tokio's and async-process's both convert from the standard one), pipes the three stdio
//! handles and spawns it. What every runtime must get right the same way lives here: the
//! environment changes, running as `Options::user`, a process group of its own, the watcher
//! that takes the tree down with the host, signals to the group and reading the exit status.

use std::io;
use std::process::Command;

use crate::options::LaunchSpec;
#[cfg(unix)]
use crate::process::orphan_guard::OrphanGuard;
use crate::process::runtime::Signal;

/// A session's CLI ready to be spawned: the command with every setting of the [`LaunchSpec`],
/// and on Unix the started [`OrphanGuard`] that must be armed with the child's pid.
///
/// The command runs `program` with `args`, the environment changes, the working directory and,
/// on Unix, the user of `Options::user` and a process group of its own (so that a shutdown's
/// signals reach what the CLI starts in that group; the guard reaches the rest). Stdio is left
/// to the runtime, which pipes all three on its own command type.
///
/// ```no_run
/// use std::process::Stdio;
/// use claude_agent_client::LocalCommand;
/// use claude_agent_client::options::{HostDeclarations, Options};
///
/// # fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let spec = Options::new().config().launch_spec("claude".into(), &HostDeclarations::NONE)?;
/// let local = LocalCommand::new(&spec)?;
/// let (mut command, mut guard) = (local.command, local.guard);
/// command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
/// let child = command.spawn()?;
/// guard.arm(child.id())?; // from now on the CLI's tree dies with this process
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct LocalCommand {
    /// The CLI's command line, environment, folder, user and process group.
    pub command: Command,
    /// The watcher that kills the CLI's tree if this process dies first. It is started before
    /// the CLI, and the command carries its marker variable, so that it covers the CLI from the
    /// moment it exists once [armed](OrphanGuard::arm) with its pid.
    #[cfg(unix)]
    pub guard: OrphanGuard,
}

impl LocalCommand {
    /// Set up the command for `spec` and start its watcher.
    ///
    /// Fails when `spec.user` names no user (or, off Unix, names one at all), or when the
    /// watcher cannot be started.
    pub fn new(spec: &LaunchSpec) -> io::Result<Self> {
        let mut command = Command::new(&spec.program);
        command.args(&spec.args);
        if let Some(names) = &spec.inherit_only {
            command.env_clear();
            for name in names {
                if let Some(value) = std::env::var_os(name) {
                    command.env(name, value);
                }
            }
        }
        for key in &spec.env_remove {
            command.env_remove(key);
        }
        command.envs(spec.env.iter().map(|(k, v)| (k, v)));
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        if let Some(user) = &spec.user {
            run_as(&mut command, user)?;
        }
        #[cfg(unix)]
        {
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
            let guard = OrphanGuard::start()?;
            let (name, value) = guard.env();
            command.env(name, value);
            Ok(LocalCommand { command, guard })
        }
        #[cfg(not(unix))]
        Ok(LocalCommand { command })
    }
}

impl Signal {
    /// Send this signal to the process group `pgid` (a CLI started from a [`LocalCommand`] leads
    /// a group whose id is its pid). A group that is already gone is not an error.
    ///
    /// ```no_run
    /// use claude_agent_client::Signal;
    /// # fn stop(pid: u32) -> std::io::Result<()> {
    /// Signal::Terminate.send_to_group(pid)?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(unix)]
    pub fn send_to_group(self, pgid: u32) -> io::Result<()> {
        use nix::errno::Errno;
        use nix::sys::signal::{killpg, Signal as Signo};
        use nix::unistd::Pid;

        let signo = match self {
            Signal::Terminate => Signo::SIGTERM,
            Signal::Kill => Signo::SIGKILL,
        };
        let group = Pid::from_raw(i32::try_from(pgid).map_err(io::Error::other)?);
        match killpg(group, signo) {
            // ESRCH: the group is already gone.
            Ok(()) | Err(Errno::ESRCH) => Ok(()),
            Err(errno) => Err(errno.into()),
        }
    }
}

/// Start the child as `user` (`Options::user`): its uid, and its primary group or the one named.
#[cfg(unix)]
fn run_as(command: &mut Command, user: &str) -> io::Result<()> {
    use std::os::unix::process::CommandExt;

    let (uid, gid) = user_ids(user)?;
    command.uid(uid).gid(gid);
    Ok(())
}

#[cfg(not(unix))]
fn run_as(_command: &mut Command, user: &str) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("running the CLI as another user ({user:?}) needs Unix"),
    ))
}

/// The value of the variable `name` in the environment the CLI of `spec` starts with (`None`
/// when it is unset there, or empty): what `spec.env` sets, else what this process has unless
/// `spec.env_remove` or `spec.inherit_only` keeps it out.
pub(crate) fn child_var(spec: &LaunchSpec, name: &str) -> Option<String> {
    let value = match spec.env.iter().find(|(n, _)| n == name) {
        Some((_, value)) => Some(value.clone()),
        None if spec.env_remove.iter().any(|n| n == name) => None,
        None if spec
            .inherit_only
            .as_ref()
            .is_some_and(|names| !names.iter().any(|n| n == name)) =>
        {
            None
        }
        None => std::env::var(name).ok(),
    };
    value.filter(|v| !v.is_empty())
}

/// Give the folder `dir` and everything in it to `user` (`Options::user`): a folder this process
/// made for a CLI that runs as that user (a spare's parking folder, a resumed session's
/// configuration), which the CLI must enter and write. Symbolic links are changed, not followed.
///
/// The walk holds each folder open and reaches what is in it through that handle (never by a
/// path), and gives a folder away only once everything in it is given: until then the folder is
/// still this process's (0700), so the user can change nothing in it under the walk, and a name
/// swapped for a link would be changed itself, not followed.
#[cfg(unix)]
pub(crate) fn give_to(dir: &std::path::Path, user: &str) -> io::Result<()> {
    let (uid, gid) = user_ids(user)?;
    give_tree(dir, uid, gid, &mut |_, _| {})
}

/// Where [`give_tree`] is, for a test that changes the folder under it.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WalkStep {
    /// An entry was listed; nothing is known of it yet.
    Listed,
    /// It was found to be a folder, and is about to be opened.
    FoundFolder,
}

/// [`give_to`]'s walk, with `step` called at each [`WalkStep`] with the entry's path.
#[cfg(unix)]
fn give_tree(
    dir: &std::path::Path,
    uid: u32,
    gid: u32,
    step: &mut dyn FnMut(&std::path::Path, WalkStep),
) -> io::Result<()> {
    use nix::fcntl::{open, OFlag};
    use nix::sys::stat::Mode;
    use nix::unistd::{fchown, Gid, Uid};

    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let top = open(dir, flags, Mode::empty())?;
    let ids = (Uid::from_raw(uid), Gid::from_raw(gid));
    give_contents(&top, dir, ids, step, 0)?;
    fchown(&top, Some(ids.0), Some(ids.1))?;
    Ok(())
}

/// How deep [`give_tree`] goes: the folders it gives are the SDK's own, a few levels deep.
#[cfg(unix)]
const MAX_DEPTH: usize = 32;

/// Give what is in the open folder `folder` (at `path`, for `step` and errors) to `ids`.
#[cfg(unix)]
fn give_contents(
    folder: &std::os::fd::OwnedFd,
    path: &std::path::Path,
    ids: (nix::unistd::Uid, nix::unistd::Gid),
    step: &mut dyn FnMut(&std::path::Path, WalkStep),
    depth: usize,
) -> io::Result<()> {
    use nix::dir::Dir;
    use nix::fcntl::{openat, AtFlags, OFlag};
    use nix::sys::stat::{fstatat, Mode, SFlag};
    use nix::unistd::{fchown, fchownat};

    if depth > MAX_DEPTH {
        return Err(io::Error::other(format!(
            "{}: more than {MAX_DEPTH} folders deep",
            path.display()
        )));
    }
    let listing_flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let mut listing = Dir::openat(folder, ".", listing_flags, Mode::empty())?;
    let mut names: Vec<std::ffi::CString> = Vec::new();
    for entry in listing.iter() {
        let name = entry?.file_name().to_owned();
        if name.as_bytes() != b"." && name.as_bytes() != b".." {
            names.push(name);
        }
    }
    drop(listing);
    for name in names {
        let entry = path
            .join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.as_bytes()));
        step(&entry, WalkStep::Listed);
        let stat = fstatat(folder, name.as_c_str(), AtFlags::AT_SYMLINK_NOFOLLOW)?;
        if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFDIR {
            step(&entry, WalkStep::FoundFolder);
            let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
            let child = openat(folder, name.as_c_str(), flags, Mode::empty())?;
            give_contents(&child, &entry, ids, step, depth + 1)?;
            fchown(&child, Some(ids.0), Some(ids.1))?;
        } else {
            fchownat(
                folder,
                name.as_c_str(),
                Some(ids.0),
                Some(ids.1),
                AtFlags::AT_SYMLINK_NOFOLLOW,
            )?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn give_to(_dir: &std::path::Path, user: &str) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("running the CLI as another user ({user:?}) needs Unix"),
    ))
}

/// The user id and group id for `user`: a user name or a numeric user id, optionally followed by
/// `:` and a numeric group id. Without a group, the user's primary group from the system's user
/// database (so NSS sources such as LDAP count too). A numeric user id the database does not know
/// needs its group named: started with none, the CLI would keep this process's group (root's,
/// usually) and read what that group may read.
#[cfg(unix)]
pub(crate) fn user_ids(user: &str) -> io::Result<(u32, u32)> {
    use nix::unistd::{Uid, User};

    let (name, group) = match user.split_once(':') {
        Some((name, group)) => {
            let gid = group.parse().map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{user:?}: the group after `:` must be a numeric group id"),
                )
            })?;
            (name, Some(gid))
        }
        None => (user, None),
    };
    let uid: Option<u32> = name.parse().ok();
    let entry = match uid {
        Some(uid) => User::from_uid(Uid::from_raw(uid)),
        None if name.contains('\0') => Ok(None),
        None => User::from_name(name),
    }
    .map_err(io::Error::from)?;
    match (entry, uid, group) {
        (Some(entry), _, group) => Ok((entry.uid.as_raw(), group.unwrap_or(entry.gid.as_raw()))),
        (None, Some(uid), Some(gid)) => Ok((uid, gid)),
        (None, Some(uid), None) => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "user id {uid} is not in the user database, so its group is unknown: name the \
                 group too (\"{uid}:GID\"), or add the user"
            ),
        )),
        (None, None, _) => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no user {name:?}"),
        )),
    }
}

#[cfg(not(unix))]
pub(crate) fn user_ids(user: &str) -> io::Result<(u32, u32)> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("running the CLI as another user ({user:?}) needs Unix"),
    ))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn root_is_found_by_name_and_by_id() {
        assert_eq!(user_ids("root").unwrap(), (0, 0));
        assert_eq!(user_ids("0").unwrap(), (0, 0));
    }

    #[test]
    fn a_group_can_be_named() {
        assert_eq!(user_ids("root:5").unwrap(), (0, 5));
        assert_eq!(
            user_ids("4000000001:4000000002").unwrap(),
            (4_000_000_001, 4_000_000_002)
        );
        let error = user_ids("root:wheel").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    /// An unknown numeric id with no group is refused: before, it ran with this process's group
    /// (root's, gid 0).
    #[test]
    fn an_unknown_numeric_id_needs_its_group() {
        let error = user_ids("4000000001").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert!(error.to_string().contains("\"4000000001:GID\""), "{error}");
    }

    #[test]
    fn an_unknown_user_is_not_found() {
        let error = user_ids("no-such-user-of-claude-agent").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            user_ids("a\0b").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn the_command_carries_the_spec_and_the_watchers_marker() {
        let mut spec = LaunchSpec::new("/bin/echo");
        spec.args = vec!["--print".into()];
        spec.env = vec![("A".into(), "1".into())];
        spec.env_remove = vec!["B".into()];
        spec.cwd = Some("/".into());
        let local = LocalCommand::new(&spec).unwrap();
        assert_eq!(local.command.get_program(), "/bin/echo");
        assert_eq!(local.command.get_args().collect::<Vec<_>>(), ["--print"]);
        assert_eq!(local.command.get_current_dir(), Some("/".as_ref()));
        let envs: Vec<_> = local.command.get_envs().collect();
        assert!(
            envs.contains(&("A".as_ref(), Some("1".as_ref()))),
            "{envs:?}"
        );
        assert!(envs.contains(&("B".as_ref(), None)), "{envs:?}");
        let (marker, value) = local.guard.env();
        assert!(
            envs.contains(&(marker.as_ref(), Some(value.as_ref()))),
            "{envs:?}"
        );
    }

    /// With `inherit_only`, the child sees the named variables of this process and what the
    /// spec sets, nothing else of this process's environment.
    #[test]
    fn only_the_named_variables_are_inherited() {
        let run = |inherit_only: Option<Vec<String>>| {
            let mut spec = LaunchSpec::new("/usr/bin/env");
            spec.env = vec![("SET_BY_SPEC".into(), "1".into())];
            spec.inherit_only = inherit_only;
            let output = LocalCommand::new(&spec).unwrap().command.output().unwrap();
            String::from_utf8(output.stdout).unwrap()
        };
        // Cargo sets CARGO_MANIFEST_DIR in the environment of every test it runs.
        let everything = run(None);
        assert!(everything.contains("CARGO_MANIFEST_DIR="), "{everything}");
        let only = run(Some(vec!["PATH".into(), "NOT_SET_ANYWHERE_4711".into()]));
        let names: Vec<&str> = only
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(n, _)| n)
            .collect();
        assert!(
            names.contains(&"PATH") && names.contains(&"SET_BY_SPEC"),
            "{only}"
        );
        assert!(
            names.contains(&"CLAUDE_AGENT_SDK_TREE"),
            "the watcher's marker: {only}"
        );
        assert!(!names.contains(&"CARGO_MANIFEST_DIR"), "{only}");
        assert!(!names.contains(&"NOT_SET_ANYWHERE_4711"), "{only}");
    }

    #[test]
    fn an_unknown_user_fails_before_anything_starts() {
        let mut spec = LaunchSpec::new("/bin/echo");
        spec.user = Some("no-such-user-of-claude-agent".into());
        let error = LocalCommand::new(&spec).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }

    /// A folder made for a CLI that runs as another user is that user's, all through (run as
    /// root, the only user that can give a file away; as another user the call is refused).
    #[test]
    fn a_folder_is_given_to_the_user_all_through() {
        use std::os::unix::fs::MetadataExt;

        let dir = std::env::temp_dir().join(format!("claude-agent-give-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("projects/p")).unwrap();
        std::fs::write(dir.join("projects/p/s.jsonl"), "{}").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.join("link")).unwrap();
        let root = std::fs::metadata(&dir).unwrap().uid() == 0;
        let given = give_to(&dir, "4000000001:4000000002");
        if root {
            given.unwrap();
            for path in ["", "projects", "projects/p", "projects/p/s.jsonl", "link"] {
                let meta = std::fs::symlink_metadata(dir.join(path)).unwrap();
                assert_eq!(
                    (meta.uid(), meta.gid()),
                    (4_000_000_001, 4_000_000_002),
                    "{path}"
                );
            }
            assert_eq!(
                std::fs::metadata("/etc/passwd").unwrap().uid(),
                0,
                "not followed"
            );
        } else {
            assert_eq!(given.unwrap_err().kind(), io::ErrorKind::PermissionDenied);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The walk driven step by step, with `projects` swapped for a link to a folder outside at
    /// each step an attacker could pick: nothing outside changes owner (before, a swap between
    /// the walk's look at `projects` and its listing of it gave away what the link named).
    #[test]
    fn a_folder_swapped_for_a_link_mid_walk_gives_nothing_outside_away() {
        use std::os::unix::fs::MetadataExt;

        let root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
        if !root {
            eprintln!("skipped: giving files to another user needs root");
            return;
        }
        for swap_at in [WalkStep::Listed, WalkStep::FoundFolder] {
            let base = std::env::temp_dir().join(format!(
                "claude-agent-give-swap-{}-{swap_at:?}",
                std::process::id()
            ));
            let dir = base.join("given");
            let outside = base.join("outside");
            std::fs::create_dir_all(dir.join("projects/p")).unwrap();
            std::fs::write(dir.join("projects/p/s.jsonl"), "{}").unwrap();
            std::fs::create_dir_all(outside.join("secret")).unwrap();
            std::fs::write(outside.join("secret/key"), "k").unwrap();
            let projects = dir.join("projects");
            let mut swapped = false;
            let walked = give_tree(&dir, 4_000_000_001, 4_000_000_002, &mut |path, step| {
                if path == projects && step == swap_at && !swapped {
                    swapped = true;
                    std::fs::rename(&projects, base.join("moved")).unwrap();
                    std::os::unix::fs::symlink(&outside, &projects).unwrap();
                }
            });
            assert!(swapped, "{swap_at:?}");
            for path in ["", "secret", "secret/key"] {
                let meta = std::fs::symlink_metadata(outside.join(path)).unwrap();
                assert_eq!(meta.uid(), 0, "{swap_at:?}: outside/{path} was given away");
            }
            match swap_at {
                // The link itself was given: changed, not followed.
                WalkStep::Listed => {
                    walked.unwrap();
                    let link = std::fs::symlink_metadata(&projects).unwrap();
                    assert!(link.file_type().is_symlink());
                    assert_eq!(link.uid(), 4_000_000_001);
                }
                // A folder seen, then a link where it was: refused, not followed.
                _ => assert!(walked.is_err(), "{swap_at:?}"),
            }
            std::fs::remove_dir_all(&base).unwrap();
        }
    }

    #[test]
    fn a_signal_to_a_group_that_is_gone_is_no_error() {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        Signal::Terminate.send_to_group(pid).unwrap();
    }
}
