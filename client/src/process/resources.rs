//! What a session's CLI holds on the machine: its process and every descendant (tools, MCP
//! servers, subagents' shells), and their resident memory, read from Linux's `/proc`.

use std::collections::HashMap;

/// The processes of a session's CLI and the memory they hold, at the moment it was read
/// (`Client::resources`).
///
/// ```no_run
/// # use claude_agent_tokio::Client;
/// # fn show(client: &Client) {
/// if let Some(tree) = client.resources() {
///     println!("{} processes, {} MiB resident", tree.pids.len(), tree.resident_bytes >> 20);
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProcessTree {
    /// The CLI's pid first, then its descendants (found by parent pid: a process that detached
    /// itself completely, as a daemon does, is no longer counted).
    pub pids: Vec<u32>,
    /// Their resident memory together (`VmRSS`), in bytes.
    pub resident_bytes: u64,
}

/// The tree of `root`; `None` when it is not running, or off Linux.
pub(crate) fn process_tree(root: u32) -> Option<ProcessTree> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    tree_of(root, &children_by_parent())
}

/// What the trees of `roots` hold together, read in one pass over `/proc`; 0 off Linux.
pub(crate) fn resident_of_trees(roots: &[u32]) -> u64 {
    if !cfg!(target_os = "linux") || roots.is_empty() {
        return 0;
    }
    let children = children_by_parent();
    roots
        .iter()
        .filter_map(|&root| tree_of(root, &children))
        .map(|tree| tree.resident_bytes)
        .sum()
}

/// Every process's children, from each one's parent pid.
fn children_by_parent() -> HashMap<u32, Vec<u32>> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for pid in all_pids() {
        if let Some(parent) = parent_of(pid) {
            children.entry(parent).or_default().push(pid);
        }
    }
    children
}

fn tree_of(root: u32, children: &HashMap<u32, Vec<u32>>) -> Option<ProcessTree> {
    let mut tree = ProcessTree {
        pids: vec![root],
        resident_bytes: resident_bytes(root)?,
    };
    let mut next = 0;
    while next < tree.pids.len() {
        let pid = tree.pids[next];
        next += 1;
        for &child in children.get(&pid).into_iter().flatten() {
            if !tree.pids.contains(&child) {
                tree.resident_bytes += resident_bytes(child).unwrap_or(0);
                tree.pids.push(child);
            }
        }
    }
    Some(tree)
}

/// Raise this process's soft limit on open files to its hard limit, and return the limit now
/// in force.
///
/// Each session holds four descriptors in the host (the CLI's stdin, stdout and stderr, and a
/// handle on its exit; the watcher that takes the CLIs down with the host is one socket for all
/// of them), so the common default soft limit of 1,024 caps a host near 250 sessions, well below
/// what its hard limit allows. Call it once at start-up in a server that runs many sessions;
/// nothing in the SDK changes the limit by itself. Unix only.
///
/// ```no_run
/// let limit = claude_agent_tokio::cli::raise_open_file_limit()?;
/// println!("room for about {} sessions", limit / 4);
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(unix)]
pub fn raise_open_file_limit() -> std::io::Result<u64> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource, RLIM_INFINITY};

    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE)?;
    // An unlimited hard limit is not a value the soft one may take everywhere (macOS refuses
    // it): ask for a million then.
    let wanted = if hard == RLIM_INFINITY { 1 << 20 } else { hard };
    if soft >= wanted {
        return Ok(soft);
    }
    setrlimit(Resource::RLIMIT_NOFILE, wanted, hard)?;
    Ok(getrlimit(Resource::RLIMIT_NOFILE)?.0)
}

fn all_pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// The parent pid, from `/proc/<pid>/stat` (the fourth field, after the name in parentheses,
/// which may itself hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Resident memory of a running process (`VmRSS`); `Some(0)` for one that has none (a
/// zombie, a kernel thread), `None` when it is gone.
fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);
    Some(kib * 1024)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_process_tree_has_its_children_and_their_memory() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let me = std::process::id();
        let tree = process_tree(me).expect("this process runs");
        assert_eq!(tree.pids[0], me);
        assert!(tree.pids.contains(&child.id()), "{tree:?}");
        assert!(tree.resident_bytes > 0, "{tree:?}");
        child.kill().unwrap();
        child.wait().unwrap();
        let after = process_tree(me).unwrap();
        assert!(!after.pids.contains(&child.id()));
        assert_eq!(
            process_tree(child.id()),
            None,
            "a reaped process has no tree"
        );
    }

    #[test]
    fn a_name_with_parentheses_does_not_hide_the_parent() {
        // `(sd-pam)`-like names: the parent is read after the last `)`.
        let me = std::process::id();
        let parent = parent_of(me).expect("a parent");
        assert_eq!(parent, std::os::unix::process::parent_id());
    }
}
