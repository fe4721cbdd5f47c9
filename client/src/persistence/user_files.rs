//! Reading the user's configuration (credentials, settings, `.claude.json`) to copy it into a
//! temporary configuration folder, as the CLI's user would have it.
//!
//! When the CLI runs as another user (`Options::user`), this process (often root) reads files
//! that user controls, and hands the copies to that user. So nothing is taken on trust: below the
//! folder the host named (`HOME`, or `CLAUDE_CONFIG_DIR`'s parent), every folder and file is
//! opened relative to the folder above it, without following a symbolic link, and must belong
//! to that user; only a regular file of a bounded size is read, opened without blocking (a FIFO
//! cannot hold the start). A link to `/etc/shadow`, a hard link to a file of root's, a FIFO or
//! a huge sparse file give nothing. Without `Options::user` the files are the user's own: links
//! are followed (a `~/.claude` kept among dotfiles), the other checks stay.

use std::io;
use std::path::Path;

/// The most bytes read of one configuration file (a `.claude.json` with many projects is the
/// largest, well under this).
pub(crate) const MAX_CONFIG_FILE: u64 = 16 << 20;

/// Whose files these are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// This process's user: links are followed.
    Own,
    /// Another user's (`Options::user`): no link is followed, and everything must be theirs.
    User {
        /// Their user id.
        uid: u32,
        /// The group the CLI runs with.
        gid: u32,
    },
}

/// `name` in the folder `base`/`below…`, read as [`Owner`] says (see the module's docs); `None`
/// when it is not there, not a regular file, not the owner's, too large, or unreadable.
pub(crate) fn read(base: &Path, below: &[&str], name: &str, owner: Owner) -> Option<Vec<u8>> {
    imp::read(base, below, name, owner).ok().flatten()
}

/// `Ok` when the folder `home` belongs to the user `uid`; otherwise an error that says whose
/// home it is not.
pub(crate) fn home_is_theirs(home: &Path, uid: u32) -> io::Result<()> {
    imp::home_is_theirs(home, uid)
}

/// Make the folder `base`/`below…` (and those between) if missing, each the owner's and
/// private (0700), never through a link when the owner is another user.
pub(crate) fn make_folder(base: &Path, below: &[&str], owner: Owner) -> io::Result<()> {
    imp::make_folder(base, below, owner)
}

#[cfg(unix)]
mod imp {
    use std::fs::File;
    use std::io::{self, Read};
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use nix::errno::Errno;
    use nix::fcntl::{open, openat, OFlag};
    use nix::sys::stat::{fstat, mkdirat, FileStat, Mode, SFlag};
    use nix::unistd::{fchown, Gid, Uid};

    use super::{Owner, MAX_CONFIG_FILE};

    fn folder_flags(owner: Owner) -> OFlag {
        let nofollow = match owner {
            Owner::Own => OFlag::empty(),
            Owner::User { .. } => OFlag::O_NOFOLLOW,
        };
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC | nofollow
    }

    /// Whether `stat` belongs to `owner` (always, for this process's own files).
    fn owned(stat: &FileStat, owner: Owner) -> bool {
        match owner {
            Owner::Own => true,
            Owner::User { uid, .. } => stat.st_uid == uid,
        }
    }

    fn not_theirs() -> io::Error {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            "not the CLI's user's: left out",
        )
    }

    /// The folder `base`/`below…`, each step below `base` opened relative to the one above.
    fn open_folder(base: &Path, below: &[&str], owner: Owner) -> io::Result<OwnedFd> {
        let mut folder = open(base, folder_flags(Owner::Own), Mode::empty())?;
        for name in below {
            let next = openat(&folder, *name, folder_flags(owner), Mode::empty())?;
            if !owned(&fstat(&next)?, owner) {
                return Err(not_theirs());
            }
            folder = next;
        }
        Ok(folder)
    }

    pub(super) fn read(
        base: &Path,
        below: &[&str],
        name: &str,
        owner: Owner,
    ) -> io::Result<Option<Vec<u8>>> {
        let folder = open_folder(base, below, owner)?;
        let nofollow = match owner {
            Owner::Own => OFlag::empty(),
            Owner::User { .. } => OFlag::O_NOFOLLOW,
        };
        let flags =
            OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_NOCTTY | OFlag::O_CLOEXEC | nofollow;
        let fd = match openat(&folder, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::ENOENT) => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        let stat = fstat(&fd)?;
        let regular = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG;
        let size = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
        if !regular || !owned(&stat, owner) || size > MAX_CONFIG_FILE {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        File::from(fd)
            .take(MAX_CONFIG_FILE + 1)
            .read_to_end(&mut bytes)?;
        Ok((bytes.len() as u64 <= MAX_CONFIG_FILE).then_some(bytes))
    }

    pub(super) fn home_is_theirs(home: &Path, uid: u32) -> io::Result<()> {
        let folder = open(home, folder_flags(Owner::Own), Mode::empty())?;
        let owner = fstat(&folder)?.st_uid;
        if owner == uid {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "HOME {} belongs to user {owner}, not to the CLI's user {uid}: set HOME to their \
                 home folder (nothing of it is read or made for them)",
                home.display()
            ),
        ))
    }

    pub(super) fn make_folder(base: &Path, below: &[&str], owner: Owner) -> io::Result<()> {
        let mut folder = open(base, folder_flags(Owner::Own), Mode::empty())?;
        for name in below {
            match mkdirat(&folder, *name, Mode::S_IRWXU) {
                Ok(()) => {
                    let made = openat(&folder, *name, folder_flags(owner), Mode::empty())?;
                    if let Owner::User { uid, gid } = owner {
                        fchown(&made, Some(Uid::from_raw(uid)), Some(Gid::from_raw(gid)))?;
                    }
                    folder = made;
                }
                Err(Errno::EEXIST) => {
                    let next = openat(&folder, *name, folder_flags(owner), Mode::empty())?;
                    if !owned(&fstat(&next)?, owner) {
                        return Err(not_theirs());
                    }
                    folder = next;
                }
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    }
}

#[cfg(not(unix))]
mod imp {
    use std::io::{self, Read};
    use std::path::Path;

    use super::{Owner, MAX_CONFIG_FILE};

    pub(super) fn read(
        base: &Path,
        below: &[&str],
        name: &str,
        _owner: Owner,
    ) -> io::Result<Option<Vec<u8>>> {
        let mut path = base.to_path_buf();
        path.extend(below);
        path.push(name);
        let Ok(file) = std::fs::File::open(&path) else {
            return Ok(None);
        };
        let metadata = file.metadata()?;
        if !metadata.is_file() || metadata.len() > MAX_CONFIG_FILE {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        file.take(MAX_CONFIG_FILE + 1).read_to_end(&mut bytes)?;
        Ok((bytes.len() as u64 <= MAX_CONFIG_FILE).then_some(bytes))
    }

    pub(super) fn home_is_theirs(_home: &Path, _uid: u32) -> io::Result<()> {
        Ok(())
    }

    pub(super) fn make_folder(base: &Path, below: &[&str], _owner: Owner) -> io::Result<()> {
        let mut path = base.to_path_buf();
        path.extend(below);
        std::fs::create_dir_all(path)
    }
}
