//! The SDK's folders under the temp directory (a spare's parking folder, a resumed session's
//! configuration), named after the process that made them, and the sweep that removes those
//! of processes that died without removing them (killed with `SIGKILL`, out of memory).
//!
//! A resumed session's folder holds an OAuth access token and a copy of the user's CLI
//! configuration: left behind by a host that crashed, it would stay readable by that user's
//! processes until the temp directory is cleaned. Each time the SDK makes such a folder, it
//! first removes the ones whose maker is no longer running.

use std::path::{Path, PathBuf};

use crate::uuid::new_uuid;

/// A new folder path `<temp>/claude-agent-<kind>-<pid>-<uuid>` for this process, after the
/// folders of `kind` left by dead processes were removed. Not created.
pub(crate) fn temp_folder(kind: &str) -> PathBuf {
    let temp = std::env::temp_dir();
    sweep(&temp, kind);
    temp.join(format!(
        "claude-agent-{kind}-{}-{}",
        std::process::id(),
        new_uuid()
    ))
}

/// Remove the folders of `kind` in `temp` whose maker is no longer running. Best effort: a
/// folder that cannot be read or removed stays.
fn sweep(temp: &Path, kind: &str) {
    let prefix = format!("claude-agent-{kind}-");
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(&prefix))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || is_running(pid) {
            continue;
        }
        let path = entry.path();
        // A folder, not a link to one: nothing is ever removed through a link.
        if std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_dir()) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Whether a process `pid` exists (a zombie counts: its parent has not reaped it yet).
#[cfg(unix)]
fn is_running(pid: u32) -> bool {
    use nix::errno::Errno;
    use nix::sys::signal::kill;
    use nix::unistd::Pid;

    let Ok(pid) = i32::try_from(pid) else {
        return true;
    };
    // Signal 0 checks only; EPERM means it exists, under another user.
    !matches!(kill(Pid::from_raw(pid), None), Err(Errno::ESRCH))
}

#[cfg(not(unix))]
fn is_running(_pid: u32) -> bool {
    // No cheap check: keep everything.
    true
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn folders_of_dead_makers_are_swept_and_the_others_kept() {
        let temp = std::env::temp_dir().join(format!("claude-agent-sweep-{}", new_uuid()));
        std::fs::create_dir(&temp).unwrap();
        let dead = {
            let mut child = std::process::Command::new("true").spawn().unwrap();
            child.wait().unwrap();
            child.id()
        };
        let mut alive = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let folder = |pid: u32| temp.join(format!("claude-agent-resume-{pid}-{}", new_uuid()));
        let of_dead = folder(dead);
        let of_alive = folder(alive.id());
        let ours = folder(std::process::id());
        for dir in [&of_dead, &of_alive, &ours] {
            std::fs::create_dir(dir).unwrap();
            std::fs::write(dir.join(".credentials.json"), "{}").unwrap();
        }
        // A link named like a dead maker's folder is not followed.
        let target = temp.join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), "").unwrap();
        let link = folder(dead);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        // Another kind is left alone.
        let spare_of_dead = temp.join(format!("claude-agent-spare-{dead}-x"));
        std::fs::create_dir(&spare_of_dead).unwrap();

        sweep(&temp, "resume");

        assert!(!of_dead.exists(), "the dead maker's folder is removed");
        assert!(of_alive.exists() && ours.exists());
        assert!(
            target.join("keep").exists(),
            "nothing removed through a link"
        );
        assert!(spare_of_dead.exists());
        alive.kill().unwrap();
        alive.wait().unwrap();
        std::fs::remove_dir_all(&temp).unwrap();
    }

    #[test]
    fn a_new_folder_is_named_after_this_process() {
        let path = temp_folder("spare");
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let prefix = format!("claude-agent-spare-{}-", std::process::id());
        assert!(name.starts_with(&prefix), "{name}");
    }
}
