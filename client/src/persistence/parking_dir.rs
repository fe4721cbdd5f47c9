//! The folder a spare is parked in until it is claimed: private, empty, and removed with
//! anything written there once the CLI is gone.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::{give_to, temp_folder};

/// Where a spare is parked until claimed unless the options name a directory: an empty folder
/// of its own under the temp directory, so that no project settings apply before the claim.
/// The session's driver owns it and removes it (with anything written there) once the CLI is
/// gone: after the claimed session, a close, a drop or a refusal.
pub(crate) struct ParkingDir(PathBuf);

impl ParkingDir {
    /// Make a new, private, empty folder: `user`'s, when the CLI runs as that user.
    pub(crate) fn create(user: Option<&str>) -> Result<Self, Error> {
        let path = temp_folder("spare");
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        if let Err(source) = builder.create(&path) {
            return Err(Error::WorkingDirectory { path, source });
        }
        let dir = ParkingDir(path);
        if let Some(user) = user {
            if let Err(source) = give_to(&dir.0, user) {
                return Err(Error::WorkingDirectory {
                    path: dir.0.clone(),
                    source,
                });
            }
        }
        Ok(dir)
    }

    /// The folder's path.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ParkingDir {
    fn drop(&mut self) {
        // Nothing to report to: a folder that cannot be removed stays in the temp directory.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
