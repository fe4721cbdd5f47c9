//! Temporary configuration folders for the CLI (`CLAUDE_CONFIG_DIR`): one a session resumed
//! from a store is loaded into, or one of its own for a session that must not share the user's
//! (`Options::isolated_config`). Each is private (0700, files 0600), named after this process,
//! removed when its session ends, and swept if a crashed host left it behind.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::client::{child_var, give_to, temp_folder};
use crate::options::LaunchSpec;

/// Settings that only misbehave in a redirected configuration folder without the user's plugin
/// cache: plugins would be installed again into its empty one on every start.
const STRIPPED_SETTINGS: [&str; 2] = ["enabledPlugins", "extraKnownMarketplaces"];

/// What an isolated folder shares with the user's by a link: what sessions read, or write one
/// file each (transcripts), never the files every CLI rewrites (`.claude.json`, credentials).
const SHARED: [&str; 8] = [
    "projects",
    "plugins",
    "skills",
    "agents",
    "commands",
    "output-styles",
    "rules",
    "CLAUDE.md",
];

/// A file or folder of a temporary configuration folder could not be written.
#[derive(Debug)]
pub(crate) struct WriteFailed {
    pub(crate) path: PathBuf,
    pub(crate) source: io::Error,
}

/// What becomes of the user's plugin declarations in a copy of their settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plugins {
    /// Left out: the folder has no plugin cache.
    Stripped,
    /// Kept: the folder links to the user's plugin cache.
    Linked,
}

/// A temporary configuration folder, removed on drop.
#[derive(Debug)]
pub(crate) struct ConfigDir {
    path: PathBuf,
}

impl ConfigDir {
    /// A new private folder `<temp>/claude-agent-<kind>-<pid>-<uuid>`.
    pub(crate) fn create(kind: &str) -> Result<ConfigDir, WriteFailed> {
        let path = temp_folder(kind);
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&path).map_err(write_error(&path))?;
        Ok(ConfigDir { path })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ConfigDir {
    fn drop(&mut self) {
        // Best effort: a file the CLI still holds open (Windows) may keep it a little longer.
        // The links in an isolated folder are removed, never followed.
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// The user's configuration as the CLI of `spec` would find it.
struct UserConfig {
    /// `CLAUDE_CONFIG_DIR`, else `~/.claude`.
    folder: PathBuf,
    custom: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl UserConfig {
    fn of(spec: &LaunchSpec) -> Option<UserConfig> {
        let var = |name: &str| child_var(spec, name);
        let custom = var("CLAUDE_CONFIG_DIR").map(PathBuf::from);
        let home = var("HOME")
            .or_else(|| var("USERPROFILE"))
            .map(PathBuf::from);
        let folder = custom
            .clone()
            .or_else(|| home.as_ref().map(|h| h.join(".claude")))?;
        Some(UserConfig {
            folder,
            custom,
            home,
        })
    }
}

/// A configuration folder of its own for the session of `spec`: the user's credentials (the
/// access token, not the refresh token), `.claude.json` (with only this project) and settings
/// copied; transcripts, plugins, skills, agents, commands, output styles, rules and the user's
/// `CLAUDE.md` linked, so that the session's history lands where the user's does. Given to
/// `spec.user` when the CLI runs as another user.
pub(crate) fn isolate(spec: &LaunchSpec) -> Result<ConfigDir, WriteFailed> {
    let dir = ConfigDir::create("config")?;
    copy_user_config(dir.path(), spec, Plugins::Linked)?;
    if let Some(user) = UserConfig::of(spec) {
        // The transcripts go to the user's folder: make it if the CLI never ran there.
        let projects = user.folder.join("projects");
        if !projects.exists() {
            let mut builder = fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(&projects).map_err(write_error(&projects))?;
        }
        for name in SHARED {
            let target = user.folder.join(name);
            if fs::symlink_metadata(&target).is_err() {
                continue;
            }
            let link = dir.path().join(name);
            link_to(&target, &link).map_err(write_error(&link))?;
        }
    }
    if let Some(user) = &spec.user {
        give_to(dir.path(), user).map_err(write_error(dir.path()))?;
    }
    Ok(dir)
}

#[cfg(unix)]
fn link_to(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn link_to(target: &Path, link: &Path) -> io::Result<()> {
    if target.is_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}

#[cfg(not(any(unix, windows)))]
fn link_to(_target: &Path, _link: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no symbolic links here",
    ))
}

/// Copy what the CLI needs from the user's configuration into `dir`: the credentials (without
/// the OAuth refresh token, which a copy must not use up: the user's own CLI would then hold a
/// spent one), `.claude.json` with only the session's project, and the user settings (which may
/// name an `apiKeyHelper`), with their plugin declarations as `plugins` says.
pub(crate) fn copy_user_config(
    dir: &Path,
    spec: &LaunchSpec,
    plugins: Plugins,
) -> Result<(), WriteFailed> {
    let UserConfig {
        folder: source,
        custom,
        home,
    } = match UserConfig::of(spec) {
        Some(config) => config,
        None => return Ok(()),
    };
    if let Some(credentials) = read_regular(&source.join(".credentials.json")) {
        write_private(
            &dir.join(".credentials.json"),
            &without_refresh_token(credentials),
        )?;
    }
    let claude_json = match (&custom, &home) {
        (Some(custom), _) => Some(custom.join(".claude.json")),
        (None, Some(home)) => Some(home.join(".claude.json")),
        (None, None) => None,
    };
    if let Some(bytes) = claude_json.as_deref().and_then(read_regular) {
        write_private(
            &dir.join(".claude.json"),
            // Without a `cwd` the CLI runs in this process's folder.
            &only_this_project(
                bytes,
                spec.cwd
                    .clone()
                    .or_else(|| std::env::current_dir().ok())
                    .as_deref(),
            ),
        )?;
    }
    for name in ["settings.json", "cowork_settings.json"] {
        if let Some(bytes) = read_regular(&source.join(name)) {
            let bytes = match plugins {
                Plugins::Stripped => stripped_settings(bytes),
                Plugins::Linked => bytes,
            };
            write_private(&dir.join(name), &bytes)?;
        }
    }
    Ok(())
}

/// The file's bytes if it is a regular file that can be read (anything else is left out: these
/// copies are a convenience, and a FIFO must not hang the resume).
fn read_regular(path: &Path) -> Option<Vec<u8>> {
    fs::metadata(path)
        .ok()
        .filter(fs::Metadata::is_file)
        .and_then(|_| fs::read(path).ok())
}

fn without_refresh_token(bytes: Vec<u8>) -> Vec<u8> {
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return bytes;
    };
    let removed = value
        .get_mut("claudeAiOauth")
        .and_then(Value::as_object_mut)
        .and_then(|oauth| oauth.remove("refreshToken"))
        .is_some();
    if removed {
        value.to_string().into_bytes()
    } else {
        bytes
    }
}

/// The user's `.claude.json` with, of its per-project entries (`projects`: each folder's
/// permissions, MCP servers and their `env`), only the session's folder's: the others are not
/// the resumed session's business, and the copy outlives a host that crashes. What is not a
/// JSON object is copied as it is.
fn only_this_project(bytes: Vec<u8>, cwd: Option<&Path>) -> Vec<u8> {
    let Ok(Value::Object(mut config)) = serde_json::from_slice::<Value>(&bytes) else {
        return bytes;
    };
    let Some(Value::Object(projects)) = config.get_mut("projects") else {
        return bytes;
    };
    let cwd = cwd.map(|cwd| {
        let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        (cwd.to_path_buf(), real)
    });
    projects.retain(|folder, _| {
        cwd.as_ref().is_some_and(|(given, real)| {
            Path::new(folder) == given.as_path() || Path::new(folder) == real.as_path()
        })
    });
    Value::Object(config).to_string().into_bytes()
}

fn stripped_settings(bytes: Vec<u8>) -> Vec<u8> {
    let text = String::from_utf8_lossy(&bytes);
    let Ok(Value::Object(mut settings)) =
        serde_json::from_str::<Value>(text.trim_start_matches('\u{feff}'))
    else {
        return bytes;
    };
    let mut changed = false;
    for key in STRIPPED_SETTINGS {
        changed |= settings.remove(key).is_some();
    }
    if let Some(env) = settings.get_mut("env").and_then(Value::as_object_mut) {
        changed |= env.remove("CLAUDE_CONFIG_DIR").is_some();
    }
    if changed {
        Value::Object(settings).to_string().into_bytes()
    } else {
        bytes
    }
}

/// Write `bytes` to `path` (creating its folders), readable by this user only.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<(), WriteFailed> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(write_error(parent))?;
    }
    let mut open = fs::OpenOptions::new();
    open.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    open.open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(write_error(path))
}

fn write_error(path: &Path) -> impl FnOnce(io::Error) -> WriteFailed + '_ {
    move |source| WriteFailed {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_the_projects_only_the_sessions_folder_is_copied() {
        let config = serde_json::json!({
            "userID": "u",
            "mcpServers": {"user-scope": {"command": "srv"}},
            "projects": {
                "/srv/app": {"allowedTools": ["Bash"]},
                "/srv/other": {"mcpServers": {"db": {"env": {"TOKEN": "other-secret"}}}}
            }
        });
        let bytes = serde_json::to_vec(&config).unwrap();
        let copied: Value = serde_json::from_slice(&only_this_project(
            bytes.clone(),
            Some(Path::new("/srv/app")),
        ))
        .unwrap();
        assert_eq!(copied["userID"], "u");
        assert_eq!(copied["mcpServers"], config["mcpServers"]);
        assert_eq!(
            copied["projects"],
            serde_json::json!({"/srv/app": {"allowedTools": ["Bash"]}})
        );
        let none: Value = serde_json::from_slice(&only_this_project(bytes, None)).unwrap();
        assert_eq!(none["projects"], serde_json::json!({}));
        assert_eq!(only_this_project(b"not json".to_vec(), None), b"not json");
    }

    #[test]
    fn the_refresh_token_stays_behind() {
        let credentials = br#"{"claudeAiOauth":{"accessToken":"a","refreshToken":"r"}}"#.to_vec();
        let copied: Value = serde_json::from_slice(&without_refresh_token(credentials)).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"claudeAiOauth": {"accessToken": "a"}})
        );
        assert_eq!(without_refresh_token(b"not json".to_vec()), b"not json");
    }

    #[test]
    fn plugin_declarations_and_the_config_dir_are_stripped_from_settings() {
        let settings = br#"{"apiKeyHelper":"/bin/key","enabledPlugins":{"x":true},"env":{"CLAUDE_CONFIG_DIR":"/c","A":"1"}}"#.to_vec();
        let copied: Value = serde_json::from_slice(&stripped_settings(settings)).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"apiKeyHelper": "/bin/key", "env": {"A": "1"}})
        );
        let untouched = br#"{"model":"opus"}"#.to_vec();
        assert_eq!(stripped_settings(untouched.clone()), untouched);
    }

    #[test]
    fn an_isolated_folder_copies_what_clis_rewrite_and_links_what_they_share() {
        let home =
            std::env::temp_dir().join(format!("claude-agent-isolate-{}", crate::uuid::new_uuid()));
        let config = home.join(".claude");
        fs::create_dir_all(config.join("skills")).unwrap();
        fs::write(
            home.join(".claude.json"),
            r#"{"projects":{"/elsewhere":{}},"numStartups":3}"#,
        )
        .unwrap();
        fs::write(
            config.join(".credentials.json"),
            r#"{"claudeAiOauth":{"accessToken":"a","refreshToken":"r"}}"#,
        )
        .unwrap();
        fs::write(
            config.join("settings.json"),
            r#"{"enabledPlugins":{"p":true}}"#,
        )
        .unwrap();
        let spec = crate::options::Options::new()
            .env("HOME", home.display().to_string())
            .launch_spec("claude".into(), &crate::options::HostDeclarations::NONE)
            .unwrap();
        let dir = isolate(&spec).unwrap();
        let path = dir.path().to_path_buf();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o700
            );
        }
        let copied: Value =
            serde_json::from_slice(&fs::read(path.join(".claude.json")).unwrap()).unwrap();
        assert_eq!(copied["numStartups"], 3);
        assert_eq!(copied["projects"], serde_json::json!({}));
        assert!(fs::symlink_metadata(path.join(".claude.json"))
            .unwrap()
            .is_file());
        let credentials = fs::read_to_string(path.join(".credentials.json")).unwrap();
        assert!(!credentials.contains("refreshToken"), "{credentials}");
        let settings = fs::read_to_string(path.join("settings.json")).unwrap();
        assert!(
            settings.contains("enabledPlugins"),
            "plugins are linked, so kept"
        );
        for shared in ["projects", "skills"] {
            let link = path.join(shared);
            assert!(
                fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink(),
                "{shared}"
            );
            assert_eq!(fs::read_link(&link).unwrap(), config.join(shared));
        }
        assert!(
            !path.join("agents").exists(),
            "nothing linked to what is not there"
        );
        drop(dir);
        assert!(!path.exists());
        assert!(config.join("skills").is_dir(), "the links' targets stay");
        fs::remove_dir_all(&home).unwrap();
    }
}
