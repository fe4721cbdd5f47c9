//! Where the CLI keeps transcripts: the config directory, its `projects/` folder, and the name
//! of a project's folder, made from the working directory the CLI ran in.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The longest folder name kept as is; longer names are cut here and get a hash suffix.
const MAX_FOLDER_NAME: usize = 200;

/// The folder name the CLI uses for a working directory: every UTF-16 code unit that is not an
/// ASCII letter or digit becomes `-` (the CLI is JavaScript, whose strings are UTF-16: a
/// character outside the Basic Multilingual Plane, an emoji say, is two units and so `--`); a
/// name longer than 200 characters is cut to 200 and followed by `-` and a hash of the whole
/// path. The path is taken as it is, not normalised: *observed* (CLI 2.1.332), a decomposed `é`
/// (`e` and U+0301) names the folder with two `-`, where a composed one has one.
pub(crate) fn project_folder_name(cwd: &str) -> String {
    let mut sanitized = String::with_capacity(cwd.len());
    for c in cwd.chars() {
        if c.is_ascii_alphanumeric() {
            sanitized.push(c);
        } else {
            sanitized.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    if sanitized.len() <= MAX_FOLDER_NAME {
        return sanitized;
    }
    format!("{}-{}", &sanitized[..MAX_FOLDER_NAME], path_hash(cwd))
}

/// The 32-bit string hash the CLI's JavaScript computes (`h = h * 31 + unit`, over UTF-16
/// code units, wrapping), as the absolute value in base 36.
fn path_hash(s: &str) -> String {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h
            .wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit));
    }
    let mut n = h.unsigned_abs();
    if n == 0 {
        return "0".to_owned();
    }
    let mut digits = Vec::new();
    while n > 0 {
        digits.push(char::from_digit(n % 36, 36).expect("a base-36 digit"));
        n /= 36;
    }
    digits.iter().rev().collect()
}

/// The canonical form of a directory (symlinks resolved), or the path as given when it cannot be
/// resolved.
pub(crate) fn canonical(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// The project folder of `cwd` under `projects`, if it exists: the exact name, or for a long
/// path the first folder with the same 200-character prefix (CLI 2.1.330 computes the suffix as
/// this crate does, but a folder written by another tool may carry another hash).
pub(crate) fn find_project_dir(projects: &Path, cwd: &Path) -> Option<PathBuf> {
    let name = project_folder_name(&cwd.to_string_lossy());
    let exact = projects.join(&name);
    if exact.is_dir() {
        return Some(exact);
    }
    if name.len() <= MAX_FOLDER_NAME {
        return None;
    }
    std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .find(|entry| {
            folder_matches(&entry.file_name().to_string_lossy(), &name) && entry.path().is_dir()
        })
        .map(|entry| entry.path())
}

/// Does the folder `name` hold the sessions of the directory whose folder name is `folder`?
/// Exactly, or for a long path, by the 200-character prefix before the hash.
pub(crate) fn folder_matches(name: &str, folder: &str) -> bool {
    // Folder names are ASCII: every other character became `-`.
    name == folder
        || (folder.len() > MAX_FOLDER_NAME
            && name.len() > MAX_FOLDER_NAME
            && name.as_bytes()[..=MAX_FOLDER_NAME] == folder.as_bytes()[..=MAX_FOLDER_NAME])
}

/// The working trees of the git repository that holds `dir` (`git worktree list --porcelain`),
/// or none when git is missing or `dir` is not in a repository.
pub(crate) fn worktrees(dir: &Path) -> Vec<PathBuf> {
    let output = Command::new("git")
        .args(["worktree", "list", "--porcelain"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| line.strip_prefix("worktree "))
            .map(PathBuf::from)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names() {
        assert_eq!(project_folder_name("/tmp/rt/work"), "-tmp-rt-work");
        assert_eq!(
            project_folder_name("/home/me/my_app.v2"),
            "-home-me-my-app-v2"
        );
        let long = format!("/{}", "a".repeat(250));
        let name = project_folder_name(&long);
        assert!(name.starts_with(&format!("-{}", "a".repeat(199))));
        assert_eq!(name.as_bytes()[200], b'-');
        assert_eq!(
            name,
            format!(
                "{}-{}",
                &project_folder_name(&long)[..200],
                path_hash(&long)
            )
        );
        assert!(folder_matches(&name, &name));
        assert!(folder_matches(
            &format!("{}-otherhash", &name[..200]),
            &name
        ));
        assert!(!folder_matches("-tmp-rt-work-2", "-tmp-rt-work"));
    }

    /// The CLI's names, computed by its own rule in JavaScript (`p.replace(/[^a-zA-Z0-9]/g,
    /// "-")`, then the cut and the hash): one `-` per UTF-16 unit, so two for an emoji.
    #[test]
    fn folder_names_count_utf16_units_as_javascript_does() {
        assert_eq!(project_folder_name("/tmp/café-😀-x"), "-tmp-caf-----x");
        assert_eq!(project_folder_name("/srv/项目/测试"), "-srv------");
        // A combining mark is a character of its own.
        assert_eq!(project_folder_name("/tmp/e\u{301}t\u{e9}"), "-tmp-e-t-");
        let emoji = format!("/w/{}/x", "😀".repeat(120));
        assert_eq!(
            project_folder_name(&emoji),
            format!("-w-{}-3v8dgo", "-".repeat(197))
        );
        // The cut at 200 falls after the emoji's two units.
        let across = format!("/w/{}😀b", "a".repeat(195));
        assert_eq!(
            project_folder_name(&across),
            format!("-w-{}---ht4fy3", "a".repeat(195))
        );
    }

    #[test]
    fn hash_is_the_javascript_one() {
        // (h << 5) - h + c over "abc", with 32-bit wrap: 96354 → "22ci".
        assert_eq!(path_hash("abc"), "22ci");
        assert_eq!(path_hash(""), "0");
    }
}
