//! The SDK's folders under the temp directory (a spare's parking folder, a session's own
//! configuration), marked with the process that made them, and the sweep that removes those of
//! processes that died without removing them (killed with `SIGKILL`, out of memory).
//!
//! A session's configuration folder holds an OAuth access token and a copy of the user's CLI
//! configuration: left behind by a host that crashed, it would stay readable by that user's
//! processes until the temp directory is cleaned. Each time the SDK makes such a folder, it
//! first removes the ones whose maker is no longer running.
//!
//! Whether the maker runs is not told by its pid: hosts in containers that share a temp
//! directory have pids of their own namespaces, so another host's live process could look dead
//! (or a recycled pid alive). Each process holds a lock on a file of its own in the temp
//! directory (`claude-agent-alive-<token>.lock`, locked for as long as it runs: the kernel lets
//! go of it when the process ends, however it ends), and names its folders after that token. A
//! folder whose token's lock can be taken, or has no lock file, is a dead maker's.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::uuid::new_uuid;

/// A new folder path `<temp>/claude-agent-<kind>-<token>-<uuid>` for this process (`token`:
/// its lock's, [`Liveness`]), after the folders of `kind` left by dead processes were removed.
/// Not created.
pub(crate) fn temp_folder(kind: &str) -> PathBuf {
    let temp = std::env::temp_dir();
    sweep(&temp, kind);
    temp.join(format!(
        "claude-agent-{kind}-{}-{}",
        liveness(&temp).token,
        new_uuid()
    ))
}

/// This process's mark: a token, and the lock held on its file while the process runs.
struct Liveness {
    token: String,
    /// Held, never read: the kernel releases the lock when the process ends.
    _lock: Option<Lock>,
}

#[cfg(unix)]
type Lock = nix::fcntl::Flock<File>;
#[cfg(not(unix))]
type Lock = File;

/// This process's [`Liveness`], made (and its lock taken) the first time a folder is named.
fn liveness(temp: &Path) -> &'static Liveness {
    static LIVENESS: OnceLock<Liveness> = OnceLock::new();
    LIVENESS.get_or_init(|| {
        let token = new_uuid().replace('-', "");
        let lock = hold_lock(&lock_path(temp, &token));
        Liveness { token, _lock: lock }
    })
}

/// The lock file of the process whose token is `token`.
fn lock_path(temp: &Path, token: &str) -> PathBuf {
    temp.join(format!("claude-agent-alive-{token}.lock"))
}

/// Create `path` (new, owner-only, not through a link) and hold an exclusive lock on it: made
/// under another name and locked first, so that no sweep ever sees it unlocked. `None` if that
/// fails (a temp directory that takes no files): another host's sweep may then take this
/// process's folders for a dead maker's.
#[cfg(unix)]
fn hold_lock(path: &Path) -> Option<Lock> {
    use nix::fcntl::{Flock, FlockArg};
    use std::os::unix::fs::OpenOptionsExt;

    let making = path.with_extension("making");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&making)
        .ok()?;
    let lock = Flock::lock(file, FlockArg::LockExclusive).ok();
    if lock.is_none() || std::fs::rename(&making, path).is_err() {
        let _ = std::fs::remove_file(&making);
        return None;
    }
    lock
}

#[cfg(not(unix))]
fn hold_lock(path: &Path) -> Option<Lock> {
    std::fs::File::create(path).ok()
}

/// Remove the folders of `kind` in `temp` whose maker is no longer running, then the lock files
/// of makers gone. Best effort: a folder that cannot be read or removed stays.
fn sweep(temp: &Path, kind: &str) {
    let own = liveness(temp);
    let prefix = format!("claude-agent-{kind}-");
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        // A dead maker's lock file goes too, whether or not it left folders.
        if let Some(token) = name
            .to_str()
            .and_then(|name| name.strip_prefix("claude-agent-alive-"))
            .and_then(|rest| rest.strip_suffix(".lock"))
        {
            if token != own.token {
                maker_is_gone(temp, token);
            }
            continue;
        }
        let Some(token) = name
            .to_str()
            .and_then(|name| name.strip_prefix(&prefix))
            .and_then(|rest| rest.split_once('-'))
            .map(|(token, _)| token)
            .filter(|token| token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit()))
        else {
            continue;
        };
        if token == own.token || !maker_is_gone(temp, token) {
            continue;
        }
        let path = entry.path();
        // A folder, not a link to one: nothing is ever removed through a link.
        if std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_dir()) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Whether the process with `token` no longer runs: its lock file can be locked (the kernel let
/// go of its lock when it ended), or is not there. A lock file taken here is removed.
#[cfg(unix)]
fn maker_is_gone(temp: &Path, token: &str) -> bool {
    use nix::fcntl::{Flock, FlockArg};
    use std::os::unix::fs::OpenOptionsExt;

    let path = lock_path(temp, token);
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path);
    let file = match opened {
        Ok(file) => file,
        Err(error) => return error.kind() == std::io::ErrorKind::NotFound,
    };
    if !file.metadata().is_ok_and(|meta| meta.is_file()) {
        return false;
    }
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(_taken) => {
            let _ = std::fs::remove_file(&path);
            true
        }
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn maker_is_gone(_temp: &Path, _token: &str) -> bool {
    // No cheap check: keep everything.
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A folder is kept while its maker holds its lock, whatever the maker's pid says (another
    /// pid namespace's process looks dead to `kill`), and swept once the lock is let go.
    #[test]
    fn folders_of_dead_makers_are_swept_and_the_others_kept() {
        use nix::fcntl::{Flock, FlockArg};

        let temp = std::env::temp_dir().join(format!("claude-agent-sweep-{}", new_uuid()));
        std::fs::create_dir(&temp).unwrap();
        let token = |n: u8| format!("{n:032x}");
        // A live maker of another namespace: its lock is held (here, by this test).
        let (alive, dead, unmarked) = (token(1), token(2), token(3));
        let held = std::fs::File::create(lock_path(&temp, &alive)).unwrap();
        let held = Flock::lock(held, FlockArg::LockExclusive).unwrap();
        // A dead maker's lock file, no longer locked.
        std::fs::File::create(lock_path(&temp, &dead)).unwrap();
        let folder = |token: &str| temp.join(format!("claude-agent-config-{token}-{}", new_uuid()));
        let (of_alive, of_dead, of_unmarked) = (folder(&alive), folder(&dead), folder(&unmarked));
        let ours = folder(&liveness(&temp).token);
        for dir in [&of_alive, &of_dead, &of_unmarked, &ours] {
            std::fs::create_dir(dir).unwrap();
            std::fs::write(dir.join(".credentials.json"), "{}").unwrap();
        }
        // A link named like a dead maker's folder is not followed.
        let target = temp.join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), "").unwrap();
        let link = folder(&dead);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        // Another kind is left alone.
        let spare_of_dead = temp.join(format!("claude-agent-spare-{dead}-x"));
        std::fs::create_dir(&spare_of_dead).unwrap();

        sweep(&temp, "config");

        assert!(of_alive.exists(), "a maker holding its lock runs");
        assert!(ours.exists());
        assert!(
            !of_dead.exists() && !of_unmarked.exists(),
            "dead makers' folders go"
        );
        assert!(!lock_path(&temp, &dead).exists(), "and their lock files");
        assert!(lock_path(&temp, &alive).exists());
        assert!(
            target.join("keep").exists(),
            "nothing removed through a link"
        );
        assert!(spare_of_dead.exists());
        drop(held);
        sweep(&temp, "config");
        assert!(!of_alive.exists(), "swept once its maker let go");
        assert!(!lock_path(&temp, &alive).exists());
        std::fs::remove_dir_all(&temp).unwrap();
    }

    #[test]
    fn a_new_folder_is_named_after_this_process() {
        let path = temp_folder("spare");
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let token = &liveness(&std::env::temp_dir()).token;
        assert!(
            name.starts_with(&format!("claude-agent-spare-{token}-")),
            "{name}"
        );
        assert!(lock_path(&std::env::temp_dir(), token).exists());
    }
}
