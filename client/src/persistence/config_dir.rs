//! Temporary configuration folders for the CLI (`CLAUDE_CONFIG_DIR`): one a session resumed
//! from a store is loaded into, or one of its own for a session that must not share the user's
//! (`Options::isolated_config`). Each is private (0700, files 0600), named after this process,
//! removed when its session ends, and swept if a crashed host left it behind.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::options::LaunchSpec;
use crate::persistence::user_files::{self, Owner};
use crate::{child_var, give_to, temp_folder, user_ids};

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
    /// A new private folder `<temp>/claude-agent-<kind>-<token>-<uuid>` (`<token>`: this process's mark).
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

/// The user's configuration as the CLI of `spec` would find it: its folder
/// (`CLAUDE_CONFIG_DIR`, else `~/.claude`) and its `.claude.json`, each as the folder the host
/// named (taken as it is) and the names below it (read without trust: [`user_files`]).
struct UserConfig {
    /// The folder the host named: `HOME`, or the parent of `CLAUDE_CONFIG_DIR`.
    base: PathBuf,
    /// The configuration folder below `base`: `.claude`, or `CLAUDE_CONFIG_DIR`'s name.
    below: Vec<String>,
    /// Where `.claude.json` is below `base`: in the configuration folder given by
    /// `CLAUDE_CONFIG_DIR`, else right in `HOME`.
    claude_json_below: Vec<String>,
    /// Whose files they are.
    owner: Owner,
}

impl UserConfig {
    fn of(spec: &LaunchSpec) -> Result<Option<UserConfig>, io::Error> {
        let owner = match &spec.user {
            None => Owner::Own,
            Some(user) => {
                let (uid, gid) = user_ids(user)?;
                Owner::User { uid, gid }
            }
        };
        let var = |name: &str| child_var(spec, name);
        if let Some(custom) = var("CLAUDE_CONFIG_DIR").map(PathBuf::from) {
            let (base, below) = match (custom.parent(), custom.file_name()) {
                (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => (
                    parent.to_path_buf(),
                    vec![name.to_string_lossy().into_owned()],
                ),
                _ => (custom.clone(), Vec::new()),
            };
            return Ok(Some(UserConfig {
                base,
                claude_json_below: below.clone(),
                below,
                owner,
            }));
        }
        let Some(home) = var("HOME").or_else(|| var("USERPROFILE")) else {
            return Ok(None);
        };
        // Another user's configuration is read from, and made in, a home that is theirs: not
        // this process's (inherited when the host set none) nor a folder of a service, where a
        // `.claude` made for them would hand them what their host's own CLI runs.
        if let Owner::User { uid, .. } = owner {
            user_files::home_is_theirs(Path::new(&home), uid)?;
        }
        Ok(Some(UserConfig {
            base: PathBuf::from(home),
            below: vec![".claude".to_owned()],
            claude_json_below: Vec::new(),
            owner,
        }))
    }

    /// The configuration folder's path.
    fn folder(&self) -> PathBuf {
        let mut folder = self.base.clone();
        folder.extend(&self.below);
        folder
    }

    /// A file of the configuration folder, read without trust.
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        let below: Vec<&str> = self.below.iter().map(String::as_str).collect();
        user_files::read(&self.base, &below, name, self.owner)
    }

    /// The user's `.claude.json`, read without trust.
    fn read_claude_json(&self) -> Option<Vec<u8>> {
        let below: Vec<&str> = self.claude_json_below.iter().map(String::as_str).collect();
        user_files::read(&self.base, &below, ".claude.json", self.owner)
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
    let user = UserConfig::of(spec).map_err(write_error(dir.path()))?;
    if let Some(user) = user {
        // The transcripts go to the user's folder: make it if the CLI never ran there (the
        // user's own, never through a link when the CLI runs as another user).
        let folder = user.folder();
        let mut projects: Vec<&str> = user.below.iter().map(String::as_str).collect();
        projects.push("projects");
        user_files::make_folder(&user.base, &projects, user.owner)
            .map_err(write_error(&folder.join("projects")))?;
        for name in SHARED {
            let target = folder.join(name);
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

/// Copy what the CLI needs from the user's configuration into `dir`: the credentials (only the
/// fields of the account's login a session uses: never a refresh token, which a copy must not use
/// up, the user's own CLI then holding a spent one; nor the logins of MCP servers or plugins'
/// secrets), `.claude.json` with only the session's project, and the user settings (which may
/// name an `apiKeyHelper`), with their plugin declarations as `plugins` says. Only what parses
/// as a JSON object is copied; the files are read as [`user_files`] says.
pub(crate) fn copy_user_config(
    dir: &Path,
    spec: &LaunchSpec,
    plugins: Plugins,
) -> Result<(), WriteFailed> {
    let Some(user) = UserConfig::of(spec).map_err(write_error(dir))? else {
        return Ok(());
    };
    if let Some(credentials) = user.read(".credentials.json").and_then(login_only) {
        write_private(&dir.join(".credentials.json"), &credentials)?;
    }
    if let Some(bytes) = user.read_claude_json() {
        // Without a `cwd` the CLI runs in this process's folder.
        let cwd = spec.cwd.clone().or_else(|| std::env::current_dir().ok());
        let copy = only_this_project(&bytes, cwd.as_deref()).unwrap_or(bytes);
        write_private(&dir.join(".claude.json"), &copy)?;
    }
    for name in ["settings.json", "cowork_settings.json"] {
        let Some(bytes) = user.read(name) else {
            continue;
        };
        let copy = match plugins {
            Plugins::Stripped => stripped_settings(&bytes).unwrap_or(bytes),
            Plugins::Linked => bytes,
        };
        write_private(&dir.join(name), &copy)?;
    }
    Ok(())
}

/// The fields of the account's login (`claudeAiOauth`) a session uses: its access token and
/// what the CLI reads beside it.
const LOGIN_FIELDS: [&str; 8] = [
    "accessToken",
    "expiresAt",
    "scopes",
    "subscriptionType",
    "rateLimitTier",
    "clientId",
    "accountUuid",
    "organizationUuid",
];

/// `bytes` as a JSON object (a byte order mark before it allowed), or `None`.
fn json_object(bytes: &[u8]) -> Option<serde_json::Map<String, Value>> {
    let text = std::str::from_utf8(bytes).ok()?;
    match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
        Ok(Value::Object(object)) => Some(object),
        _ => None,
    }
}

/// The credentials file reduced to the account's login, with only [`LOGIN_FIELDS`]; `None`
/// when it does not parse or holds no login.
fn login_only(bytes: Vec<u8>) -> Option<Vec<u8>> {
    let mut credentials = json_object(&bytes)?;
    let Some(Value::Object(login)) = credentials.remove("claudeAiOauth") else {
        return None;
    };
    let kept: serde_json::Map<String, Value> = login
        .into_iter()
        .filter(|(field, _)| LOGIN_FIELDS.contains(&field.as_str()))
        .collect();
    let copy = serde_json::json!({ "claudeAiOauth": kept });
    Some(copy.to_string().into_bytes())
}

/// The user's `.claude.json` with, of its per-project entries (`projects`: each folder's
/// permissions, MCP servers and their `env`), only the session's folder's: the others are not
/// the session's business, and the copy outlives a host that crashes. `None` when it is not a
/// JSON object this crate can read, which is then copied as it is, as the CLI reads it.
fn only_this_project(bytes: &[u8], cwd: Option<&Path>) -> Option<Vec<u8>> {
    let mut config = json_object(bytes)?;
    if let Some(Value::Object(projects)) = config.get_mut("projects") {
        let cwd = cwd.map(|cwd| {
            let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
            (cwd.to_path_buf(), real)
        });
        projects.retain(|folder, _| {
            cwd.as_ref().is_some_and(|(given, real)| {
                Path::new(folder) == given.as_path() || Path::new(folder) == real.as_path()
            })
        });
    }
    Some(Value::Object(config).to_string().into_bytes())
}

/// Settings without the plugin declarations and the configuration folder's variable, which
/// only misbehave in a folder without the user's plugin cache: `None` when there is nothing to
/// take out, or the settings are not a JSON object this crate can read (a number no float
/// holds, say), so that they are copied byte for byte, as the CLI would read them.
fn stripped_settings(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut settings = json_object(bytes)?;
    let mut removed = false;
    for key in STRIPPED_SETTINGS {
        removed |= settings.remove(key).is_some();
    }
    if let Some(env) = settings.get_mut("env").and_then(Value::as_object_mut) {
        removed |= env.remove("CLAUDE_CONFIG_DIR").is_some();
    }
    removed.then(|| Value::Object(settings).to_string().into_bytes())
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
        let copy = only_this_project(&bytes, Some(Path::new("/srv/app"))).unwrap();
        let copied: Value = serde_json::from_slice(&copy).unwrap();
        assert_eq!(copied["userID"], "u");
        assert_eq!(copied["mcpServers"], config["mcpServers"]);
        assert_eq!(
            copied["projects"],
            serde_json::json!({"/srv/app": {"allowedTools": ["Bash"]}})
        );
        let none: Value =
            serde_json::from_slice(&only_this_project(&bytes, None).unwrap()).unwrap();
        assert_eq!(none["projects"], serde_json::json!({}));
        assert_eq!(only_this_project(b"not json", None), None);
    }

    /// Only the account login's known fields are copied: no refresh token, no other login (an
    /// MCP server's, with its own refresh token), and nothing from a file that does not parse.
    #[test]
    fn only_the_logins_known_fields_are_copied() {
        let credentials = br#"{"claudeAiOauth":{"accessToken":"a","refreshToken":"r","refreshTokenExpiresAt":1,"expiresAt":2,"scopes":["user:inference"],"profile":{"email":"e"}},"mcpOAuth":{"srv":{"accessToken":"m","refreshToken":"mr"}}}"#.to_vec();
        let copied: Value = serde_json::from_slice(&login_only(credentials).unwrap()).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"claudeAiOauth": {"accessToken": "a", "expiresAt": 2, "scopes": ["user:inference"]}})
        );
        assert_eq!(login_only(b"refreshToken: r".to_vec()), None);
        assert_eq!(login_only(br#"{"mcpOAuth":{}}"#.to_vec()), None);
    }

    #[test]
    fn plugin_declarations_and_the_config_dir_are_stripped_from_settings() {
        let settings = br#"{"apiKeyHelper":"/bin/key","enabledPlugins":{"x":true},"env":{"CLAUDE_CONFIG_DIR":"/c","A":"1"}}"#;
        let copied: Value = serde_json::from_slice(&stripped_settings(settings).unwrap()).unwrap();
        assert_eq!(
            copied,
            serde_json::json!({"apiKeyHelper": "/bin/key", "env": {"A": "1"}})
        );
        assert_eq!(json_object(b"\xef\xbb\xbf{}"), Some(serde_json::Map::new()));
    }

    /// The official SDKs copy settings byte for byte unless they take something out of them,
    /// and keep a `.claude.json` they cannot read: here a number no float holds, a list and
    /// text that is not JSON are all copied as they are, not dropped.
    #[test]
    fn settings_and_claude_json_this_crate_cannot_read_are_copied_as_they_are() {
        let home = std::env::temp_dir().join(format!("claude-copy-{}", crate::uuid::new_uuid()));
        let user = home.join(".claude");
        fs::create_dir_all(&user).unwrap();
        let settings = br#"{ "b": 1,  "a": 1e999 }"#;
        let cowork = b"{\"model\": \"opus\"}\n";
        fs::write(user.join("settings.json"), settings).unwrap();
        fs::write(user.join("cowork_settings.json"), cowork).unwrap();
        fs::write(home.join(".claude.json"), b"[1]").unwrap();
        let mut spec = LaunchSpec::new("claude");
        spec.env = vec![("HOME".into(), home.display().to_string())];
        for plugins in [Plugins::Stripped, Plugins::Linked] {
            let copy = home.join(format!("copy-{plugins:?}"));
            copy_user_config(&copy, &spec, plugins).unwrap();
            assert_eq!(fs::read(copy.join("settings.json")).unwrap(), settings);
            assert_eq!(fs::read(copy.join("cowork_settings.json")).unwrap(), cowork);
            assert_eq!(fs::read(copy.join(".claude.json")).unwrap(), b"[1]");
        }
        fs::remove_dir_all(&home).unwrap();
    }

    /// With the CLI run as another user, root reads that user's files as theirs: a link to a
    /// root-only file, a hard link to one, a FIFO, an oversized file and a `.claude` that is a
    /// link give nothing, at once; the user's own regular files are copied. Needs root (to make
    /// files of another user's); skipped without.
    #[cfg(unix)]
    #[test]
    fn another_users_links_fifos_and_huge_files_are_left_out() {
        use std::os::unix::fs::{symlink, MetadataExt};

        if fs::metadata("/proc/self").map(|m| m.uid()).ok() != Some(0) {
            eprintln!("skipped: making another user's files needs root");
            return;
        }
        let (uid, gid) = (4_000_000_011_u32, 4_000_000_012_u32);
        let base =
            std::env::temp_dir().join(format!("claude-agent-hostile-{}", crate::uuid::new_uuid()));
        let home = base.join("home");
        let config = home.join(".claude");
        fs::create_dir_all(&config).unwrap();
        let secret = base.join("root-only");
        fs::write(&secret, r#"{"apiKeyHelper":"root's secret"}"#).unwrap();
        symlink(&secret, config.join("settings.json")).unwrap();
        fs::hard_link(&secret, home.join(".claude.json")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(config.join(".credentials.json"))
            .status()
            .unwrap();
        assert!(made.success());
        let huge = fs::File::create(config.join("cowork_settings.json")).unwrap();
        huge.set_len(user_files::MAX_CONFIG_FILE + 1).unwrap();
        drop(huge);
        for path in [
            &home,
            &config,
            &config.join("cowork_settings.json"),
            &config.join(".credentials.json"),
        ] {
            std::os::unix::fs::lchown(path, Some(uid), Some(gid)).unwrap();
        }
        std::os::unix::fs::lchown(config.join("settings.json"), Some(uid), Some(gid)).unwrap();
        let spec = crate::options::Options::new()
            .user(format!("{uid}:{gid}"))
            .env("HOME", home.display().to_string())
            .config()
            .launch_spec("claude".into(), &crate::options::HostDeclarations::NONE)
            .unwrap();
        let dir = base.join("copy");
        fs::create_dir(&dir).unwrap();
        let started = std::time::Instant::now();
        copy_user_config(&dir, &spec, Plugins::Linked).unwrap();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "blocked on the FIFO"
        );
        let copied: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(copied.is_empty(), "copied {copied:?}");

        // The user's own files are copied.
        for name in ["settings.json", "cowork_settings.json", ".credentials.json"] {
            fs::remove_file(config.join(name)).unwrap();
        }
        fs::remove_file(home.join(".claude.json")).unwrap();
        fs::write(config.join("settings.json"), r#"{"model":"opus"}"#).unwrap();
        fs::write(home.join(".claude.json"), r#"{"projects":{}}"#).unwrap();
        for path in [config.join("settings.json"), home.join(".claude.json")] {
            std::os::unix::fs::lchown(&path, Some(uid), Some(gid)).unwrap();
        }
        copy_user_config(&dir, &spec, Plugins::Linked).unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("settings.json")).unwrap(),
            r#"{"model":"opus"}"#
        );
        assert!(dir.join(".claude.json").is_file());

        // A `.claude` that is a link (to root's own configuration) is not entered.
        fs::remove_dir_all(&config).unwrap();
        let roots = base.join("roots-config");
        fs::create_dir(&roots).unwrap();
        fs::write(roots.join("settings.json"), r#"{"apiKeyHelper":"root's"}"#).unwrap();
        symlink(&roots, &config).unwrap();
        std::os::unix::fs::lchown(&config, Some(uid), Some(gid)).unwrap();
        fs::remove_file(dir.join("settings.json")).unwrap();
        copy_user_config(&dir, &spec, Plugins::Linked).unwrap();
        assert!(!dir.join("settings.json").exists());
        fs::remove_dir_all(&base).unwrap();
    }

    /// With the CLI run as another user, a HOME that is not theirs (this process's, inherited
    /// when the host set none, or a service's folder) is neither read nor written: no `.claude`
    /// is made in it for them, and the session is refused with the reason.
    #[test]
    #[cfg(unix)]
    fn another_users_configuration_needs_a_home_of_theirs() {
        use std::os::unix::fs::MetadataExt;

        if fs::metadata("/proc/self").map(|m| m.uid()).ok() != Some(0) {
            eprintln!("skipped: running as another user needs root");
            return;
        }
        let (uid, gid) = (4_000_000_021_u32, 4_000_000_022_u32);
        let home = std::env::temp_dir().join(format!(
            "claude-agent-roots-home-{}",
            crate::uuid::new_uuid()
        ));
        fs::create_dir(&home).unwrap();
        let spec = crate::options::Options::new()
            .user(format!("{uid}:{gid}"))
            .env("HOME", home.display().to_string())
            .config()
            .launch_spec("claude".into(), &crate::options::HostDeclarations::NONE)
            .unwrap();
        let refused = isolate(&spec).expect_err("root's home is not the user's");
        assert!(
            refused.source.to_string().contains("not to the CLI's user"),
            "{}",
            refused.source
        );
        assert!(
            !home.join(".claude").exists(),
            "nothing made in root's home"
        );
        let copy = home.join("copy");
        fs::create_dir(&copy).unwrap();
        assert!(copy_user_config(&copy, &spec, Plugins::Linked).is_err());
        // Once it is theirs, it is used.
        std::os::unix::fs::chown(&home, Some(uid), Some(gid)).unwrap();
        let dir = isolate(&spec).unwrap();
        let made = fs::metadata(home.join(".claude")).unwrap();
        assert_eq!(made.uid(), uid);
        drop(dir);
        fs::remove_dir_all(&home).unwrap();
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
            .config()
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
        assert!(credentials.contains("accessToken"), "{credentials}");
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
