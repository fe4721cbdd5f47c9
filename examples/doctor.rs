//! Check this environment before starting sessions: the CLI a session would start and its
//! version, and each thing that would keep it from starting or working (a CLI too old, a
//! missing working directory, `bypassPermissions` as root, `CLAUDECODE` or `NODE_OPTIONS` set
//! for it, no credentials), with its fix. Starts no model call; exits with status 1 when
//! something was found.
//!
//! Run: `cargo run --example doctor [working directory]`, or offline with the real CLI and a
//! stub model: `scripts/quick-start doctor`.

use claude_agent_tokio::cli::doctor;
use claude_agent_tokio::Options;

fn main() {
    let mut options = Options::new();
    if let Some(cwd) = std::env::args().nth(1) {
        options = options.cwd(cwd);
    }
    let diagnosis = doctor(&options);
    match (&diagnosis.cli, &diagnosis.version) {
        (Some(cli), Some(version)) => println!("Claude Code {version} at {}", cli.display()),
        (Some(cli), None) => println!("Claude Code at {}", cli.display()),
        (None, _) => println!("no Claude Code CLI found"),
    }
    if diagnosis.is_ok() {
        println!("nothing stands in the way of a session");
        return;
    }
    for finding in &diagnosis.findings {
        println!("problem: {finding}");
        println!("    fix: {}", finding.fix());
    }
    std::process::exit(1);
}
