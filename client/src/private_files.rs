//! Files and folders the SDK writes for its user (recordings, a file store's transcripts): only
//! the owner can read them, and none is opened through a symbolic link, so another local user
//! can neither read a session nor plant a link where the SDK will write one.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Mode of the files (read and write for the owner only).
#[cfg(unix)]
const FILE_MODE: u32 = 0o600;
/// Mode of the folders (the owner only).
#[cfg(unix)]
const DIR_MODE: u32 = 0o700;

/// `path` opened for appending, created owner-only if it does not exist. Refused (`ELOOP`) when
/// `path` is a symbolic link; an existing file readable by others is made owner-only.
pub(crate) fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    open_private(options, path)
}

/// `path` written anew with `bytes`, owner-only, never through a symbolic link.
pub(crate) fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.create(true).write(true).truncate(true);
    io::Write::write_all(&mut open_private(options, path)?, bytes)
}

/// `dir` and the folders above it that do not exist yet, each created owner-only (existing
/// folders are left as they are).
pub(crate) fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)
}

/// `path` opened with `options`, owner-only and never through a symbolic link. A regular file or
/// a character device (`/dev/null`) is taken; a FIFO is refused at once (opened without
/// blocking, so a FIFO with no reader cannot hold the open for ever, and one with a reader
/// cannot block a write later), as are a block device and a socket.
fn open_private(mut options: OpenOptions, path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options
            .mode(FILE_MODE)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        let file = options.open(path).map_err(|error| {
            if error.raw_os_error() == Some(libc::ENXIO) {
                // A FIFO nobody reads.
                not_a_file(path)
            } else {
                error
            }
        })?;
        let metadata = file.metadata()?;
        if !metadata.is_file()
            && !std::os::unix::fs::FileTypeExt::is_char_device(&metadata.file_type())
        {
            return Err(not_a_file(path));
        }
        // A device is shared by every user: its mode is not ours to change.
        if metadata.is_file() && metadata.permissions().mode() & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    options.open(path)
}

/// The error for a path that is there but is no regular file.
#[cfg(unix)]
fn not_a_file(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a FIFO, a block device or a socket: give the path of a file",
            path.display()
        ),
    )
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::{symlink, OpenOptionsExt, PermissionsExt};

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "claude-agent-private-files-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        dir
    }

    #[test]
    fn files_and_folders_are_the_owners_only() {
        let dir = scratch("modes");
        let nested = dir.join("a/b");
        create_dir_all(&nested).unwrap();
        assert_eq!(mode(&dir.join("a")), 0o700);
        assert_eq!(mode(&nested), 0o700);
        let appended = nested.join("session.jsonl");
        io::Write::write_all(&mut open_append(&appended).unwrap(), b"{}\n").unwrap();
        assert_eq!(mode(&appended), 0o600);
        let written = nested.join("summary.json");
        write(&written, b"{}").unwrap();
        assert_eq!(mode(&written), 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_existing_file_readable_by_others_is_made_the_owners_only() {
        let dir = scratch("existing");
        let path = dir.join("session.jsonl");
        std::fs::write(&path, "{}\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        open_append(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_symbolic_link_is_not_followed() {
        let dir = scratch("link");
        let target = dir.join("elsewhere");
        std::fs::write(&target, "").unwrap();
        let planted = dir.join("session.jsonl");
        symlink(&target, &planted).unwrap();
        let refused = open_append(&planted).unwrap_err();
        assert_eq!(refused.raw_os_error(), Some(libc::ELOOP), "{refused}");
        assert!(write(&planted, b"secret").is_err());
        let dangling = dir.join("dangling.jsonl");
        symlink(dir.join("not-yet"), &dangling).unwrap();
        assert!(open_append(&dangling).is_err());
        assert!(!dir.join("not-yet").exists());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A FIFO, with or without a reader, is refused at once (before, opening one with no reader
    /// blocked for ever); a character device is a file to write to.
    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = scratch("fifo");
        let fifo = dir.join("session.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let refused = open_append(&fifo).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::InvalidInput, "{refused}");
        let reader = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        assert!(write(&fifo, b"x").is_err(), "a FIFO with a reader");
        drop(reader);
        let null = Path::new("/dev/null");
        let before = std::fs::metadata(null).unwrap().permissions().mode();
        assert!(open_append(null).is_ok());
        assert_eq!(
            std::fs::metadata(null).unwrap().permissions().mode(),
            before,
            "a device's mode is left alone"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
