//! The PostgreSQL store against a throwaway PostgreSQL 15 cluster: started in a temporary
//! directory on a free 127.0.0.1 port (as `nobody` when the tests run as root, which `initdb`
//! refuses), and stopped and removed afterwards. Needs the server's binaries in
//! `/usr/lib/postgresql/15/bin` (or `CLAUDE_AGENT_PG_BIN`): the test fails, never skips,
//! without them.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use claude_agent_core::store::{SessionKey, SessionStore};
use claude_agent_store_postgres::PostgresSessionStore;
use claude_agent_testkit::store_conformance::run_session_store_conformance;
use serde_json::{json, Value};

/// A PostgreSQL cluster of its own, removed on drop.
struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// Run the server's programs as this user (`nobody` under root).
    user: Option<&'static str>,
}

impl Cluster {
    fn start() -> Cluster {
        let bin = std::env::var_os("CLAUDE_AGENT_PG_BIN").map_or_else(
            || PathBuf::from("/usr/lib/postgresql/15/bin"),
            PathBuf::from,
        );
        assert!(
            bin.join("initdb").is_file(),
            "PostgreSQL 15 server binaries not found in {} (apt-get install postgresql-15, or set CLAUDE_AGENT_PG_BIN)",
            bin.display()
        );
        let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
        let user = root.then_some("nobody");
        let dir = std::env::temp_dir().join(format!("claude-agent-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if root {
            let uid = id_of("-u");
            let gid = id_of("-g");
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).unwrap();
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = Cluster {
            bin,
            dir,
            port,
            user,
        };
        let data = cluster.dir.join("data");
        cluster.run(
            "initdb",
            &[
                "-D",
                path(&data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            cluster.dir.display()
        );
        let log = cluster.dir.join("log");
        cluster.run(
            "pg_ctl",
            &[
                "-D",
                path(&data),
                "-l",
                path(&log),
                "-o",
                &options,
                "-w",
                "start",
            ],
        );
        cluster
    }

    fn run(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let mut command = match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        let out = command.args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{} failed: {}{}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn config(&self) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres",
            self.port
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        self.run(
            "pg_ctl",
            &["-D", path(&data), "-m", "immediate", "-w", "stop"],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn id_of(flag: &str) -> u32 {
    let out = Command::new("id").args([flag, "nobody"]).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn the_postgres_store() {
    let cluster = Cluster::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let base = PostgresSessionStore::connect(&cluster.config())
            .await
            .unwrap();
        conforms(&base).await;
        schema_on_first_use(&base, &cluster.config()).await;
        concurrent_writers(&cluster.config()).await;
        retried_appends_add_no_duplicates(&base).await;
        times_come_from_the_database(&base).await;
    });
    drop(runtime);
    let dir = cluster.dir.clone();
    drop(cluster);
    assert!(!dir.exists(), "the cluster is removed");
}

async fn conforms(base: &PostgresSessionStore) {
    let mut n = 0;
    let report = run_session_store_conformance(|| {
        n += 1;
        let store = base.clone().with_schema(format!("conformance_{n}"));
        async move { store }
    })
    .await
    .unwrap_or_else(|v| panic!("{v}"));
    assert_eq!((report.checked.len(), report.skipped.len()), (14, 0));
}

async fn schema_on_first_use(base: &PostgresSessionStore, config: &str) {
    let store = base.clone().with_schema("fresh");
    let key = SessionKey::new("p", "s");
    assert_eq!(store.load(&key).await.unwrap(), None);
    store
        .append(&key, &[json!({"type": "user"})])
        .await
        .unwrap();
    let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let tables: Vec<String> = client
        .query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'fresh' ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(tables, ["session_entries", "session_summaries", "sessions"]);
}

/// Two connections (two machines, say) append to one session at once: every line is stored,
/// each writer's in its order, and the summary has folded every batch.
async fn concurrent_writers(config: &str) {
    let a = PostgresSessionStore::connect(config)
        .await
        .unwrap()
        .with_schema("concurrent");
    let b = PostgresSessionStore::connect(config)
        .await
        .unwrap()
        .with_schema("concurrent");
    let key = SessionKey::new("p", "s");
    let mut tasks = Vec::new();
    for (writer, store) in [
        ("a", a.clone()),
        ("b", b.clone()),
        ("c", a.clone()),
        ("d", b),
    ] {
        let key = key.clone();
        tasks.push(tokio::spawn(async move {
            for batch in 0..20 {
                let entries: Vec<Value> = (0..3)
                    .map(|i| {
                        json!({"type": "user", "uuid": format!("{writer}-{batch}-{i}"),
                               "message": {"content": format!("{writer} {batch}")}})
                    })
                    .collect();
                store.append(&key, &entries).await.unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let stored = a.load(&key).await.unwrap().unwrap();
    assert_eq!(stored.len(), 4 * 20 * 3);
    for writer in ["a", "b", "c", "d"] {
        let mine: Vec<&str> = stored
            .iter()
            .filter_map(|e| e["uuid"].as_str())
            .filter(|u| u.starts_with(&format!("{writer}-")))
            .collect();
        let expected: Vec<String> = (0..20)
            .flat_map(|b| (0..3).map(move |i| format!("{writer}-{b}-{i}")))
            .collect();
        assert_eq!(mine, expected, "{writer}'s lines in order");
    }
    let listed = a.list_sessions("p").await.unwrap();
    let summaries = a.list_session_summaries("p").await.unwrap();
    assert_eq!(summaries.len(), 1);
    assert_eq!(summaries[0].mtime, listed[0].mtime);
    assert!(summaries[0].data["first_prompt"].is_string());
}

async fn retried_appends_add_no_duplicates(base: &PostgresSessionStore) {
    let store = base.clone().with_schema("retries");
    let key = SessionKey::new("p", "s");
    let batch = [
        json!({"type": "user", "uuid": "u1"}),
        json!({"type": "last-prompt", "lastPrompt": "x"}),
    ];
    store.append(&key, &batch).await.unwrap();
    store.append(&key, &batch).await.unwrap();
    let stored = store.load(&key).await.unwrap().unwrap();
    // The line with a uuid once; the one without twice (it has no identity to dedupe by).
    assert_eq!(stored.len(), 3, "{stored:?}");
}

async fn times_come_from_the_database(base: &PostgresSessionStore) {
    let store = base.clone().with_schema("clock");
    let key = SessionKey::new("p", "s");
    store.append(&key, &[json!({"type": "x"})]).await.unwrap();
    let first = store.list_sessions("p").await.unwrap()[0].mtime;
    store.append(&key, &[json!({"type": "x"})]).await.unwrap();
    let second = store.list_sessions("p").await.unwrap()[0].mtime;
    assert!(second > first, "{first} then {second}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    // The same machine here, so the two clocks agree to within a minute.
    assert!(now.abs_diff(second) < 60_000, "{now} vs {second}");
}
