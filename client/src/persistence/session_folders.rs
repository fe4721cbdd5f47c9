//! The folders the SDK made for one session: its own configuration folder and a spare's parking
//! folder. Its driver owns them and removes them (with anything written there) once the CLI is
//! gone.

use crate::persistence::config_dir::ConfigDir;
use crate::persistence::parking_dir::ParkingDir;

/// A session's temporary folders, held only to be removed: each goes when this is dropped.
#[derive(Default)]
pub(crate) struct SessionFolders {
    /// The session's configuration folder (resumed from a store, or `Options::isolated_config`).
    _config: Option<ConfigDir>,
    /// A spare's parking folder.
    _parking: Option<ParkingDir>,
}

impl SessionFolders {
    pub(crate) fn new(config: Option<ConfigDir>, parking: Option<ParkingDir>) -> Self {
        SessionFolders {
            _config: config,
            _parking: parking,
        }
    }
}
