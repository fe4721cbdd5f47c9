//! The PostgreSQL store against throwaway PostgreSQL 15 clusters: each started in a temporary
//! directory on a free 127.0.0.1 port (as `nobody` when the tests run as root, which `initdb`
//! refuses), and stopped and removed afterwards. Needs the server's binaries in
//! `/usr/lib/postgresql/15/bin` (or `CLAUDE_AGENT_PG_BIN`), the TLS test the `openssl` program
//! (which Debian's PostgreSQL packages depend on), and the session test the real CLI
//! (`scripts/install-claude-cli`, or `CLAUDE_AGENT_E2E_CLI`): the tests fail, never skip,
//! without them.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use claude_agent_client::store::{project_key_for_directory, SessionKey, SessionStore};
use claude_agent_core::message::{ContentBlock, Message, SystemMessage};
use claude_agent_store_postgres::PostgresSessionStore;
use claude_agent_testkit::real_cli::{real_cli_env, RealCli, TestDir};
use claude_agent_testkit::store_conformance::run_session_store_conformance;
use claude_agent_testkit::stub_api::StubApi;
use claude_agent_tokio::options::SessionStart;
use claude_agent_tokio::Options;
use futures_lite::StreamExt;
use serde_json::{json, Value};

/// A PostgreSQL cluster of its own, removed on drop.
struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// Run the server's programs as this user (`nobody` under root).
    user: Option<&'static str>,
    /// More server options (`-c ssl=on …`).
    extra: String,
}

impl Cluster {
    fn start() -> Cluster {
        Cluster::start_with(false).0
    }

    /// A cluster that also takes TLS, with a certificate for `localhost` signed by a CA of its
    /// own; with the CA's certificate (PEM).
    fn start_tls() -> (Cluster, String) {
        let (cluster, ca) = Cluster::start_with(true);
        (cluster, ca.expect("a CA"))
    }

    fn start_with(tls: bool) -> (Cluster, Option<String>) {
        let bin = std::env::var_os("CLAUDE_AGENT_PG_BIN").map_or_else(
            || PathBuf::from("/usr/lib/postgresql/15/bin"),
            PathBuf::from,
        );
        assert!(
            bin.join("initdb").is_file(),
            "PostgreSQL 15 server binaries not found in {} (apt-get install postgresql-15, or set CLAUDE_AGENT_PG_BIN)",
            bin.display()
        );
        static CLUSTERS: AtomicUsize = AtomicUsize::new(0);
        let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
        let user = root.then_some("nobody");
        let dir = std::env::temp_dir().join(format!(
            "claude-agent-pg-{}-{}",
            std::process::id(),
            CLUSTERS.fetch_add(1, Ordering::SeqCst)
        ));
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
        let mut cluster = Cluster {
            bin,
            dir,
            port,
            user,
            extra: String::new(),
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
        let ca = tls.then(|| cluster.certify());
        cluster.start_server();
        (cluster, ca)
    }

    /// Write a CA and a server certificate for `localhost` signed by it, set the server up to
    /// use them, and return the CA's certificate. With the `openssl` program, which Debian's
    /// PostgreSQL packages depend on (through `ssl-cert`).
    fn certify(&mut self) -> String {
        let dir = &self.dir;
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .output()
                .expect("the openssl program (Debian: apt-get install openssl)");
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        openssl(
            &[
                &["req", "-x509"][..],
                &ec,
                &[
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.crt",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=claude-agent test CA",
                ],
            ]
            .concat(),
        );
        openssl(
            &[
                &["req"][..],
                &ec,
                &[
                    "-keyout",
                    "server.key",
                    "-out",
                    "server.csr",
                    "-subj",
                    "/CN=localhost",
                ],
            ]
            .concat(),
        );
        std::fs::write(dir.join("server.ext"), "subjectAltName=DNS:localhost\n").unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ]);
        let (cert, key) = (dir.join("server.crt"), dir.join("server.key"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        if self.user.is_some() {
            for file in [&cert, &key] {
                std::os::unix::fs::chown(file, Some(id_of("-u")), Some(id_of("-g"))).unwrap();
            }
        }
        self.extra = format!(
            " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
            cert.display(),
            key.display()
        );
        std::fs::read_to_string(dir.join("ca.crt")).unwrap()
    }

    fn start_server(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off{}",
            self.port,
            self.dir.display(),
            self.extra
        );
        let (data, log) = (self.dir.join("data"), self.dir.join("log"));
        self.run(
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
    }

    /// Stop the server, closing every connection (as a crash or a restart would).
    fn stop_server(&self) {
        let data = self.dir.join("data");
        self.run(
            "pg_ctl",
            &["-D", path(&data), "-m", "immediate", "-w", "stop"],
        );
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
        if data.join("postmaster.pid").exists() {
            self.stop_server();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
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
    let runtime = tokio_rt();
    runtime.block_on(async {
        let base = PostgresSessionStore::connect(&cluster.config())
            .await
            .unwrap();
        conforms(&base).await;
        schema_on_first_use(&base, &cluster.config()).await;
        concurrent_writers(&cluster.config()).await;
        retried_appends_add_no_duplicates(&base).await;
        times_come_from_the_database(&base).await;
        an_abandoned_append_commits_nothing(&base, &cluster.config()).await;
        an_abandoned_append_on_a_users_client_commits_nothing(&cluster.config()).await;
        the_servers_message_is_kept(&base).await;
        reads_never_see_another_tasks_transaction(&base, &cluster.config()).await;
        tables_dropped_under_the_store_are_made_again(&base, &cluster.config()).await;
        a_commit_cut_off_and_tried_again_stores_its_lines_once(&base, &cluster.config()).await;
        connects_again_after_a_restart(&base, &cluster).await;
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
    assert_eq!((report.checked.len(), report.skipped.len()), (16, 0));
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

/// A line of a transcript, named by its uuid.
fn line(uuid: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "message": {"role": "user", "content": uuid}})
}

async fn uuids_of(store: &PostgresSessionStore, key: &SessionKey) -> Vec<Value> {
    store
        .load(key)
        .await
        .unwrap()
        .unwrap()
        .iter()
        .map(|e| e["uuid"].clone())
        .collect()
}

/// Another connection holds the session's row, so that an append waits inside its transaction;
/// the append is given up (a timeout drops it, as the mirror's write limit or a shutdown does).
/// Returns the other connection, still holding the row.
async fn abandon_an_append(
    store: &PostgresSessionStore,
    config: &str,
    schema: &str,
) -> tokio_postgres::Client {
    let key = SessionKey::new("p", "s");
    let (other, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    other.batch_execute("BEGIN").await.unwrap();
    other
        .execute(
            &format!("SELECT 1 FROM {schema}.sessions WHERE project_key = 'p' AND session_id = 's' FOR UPDATE"),
            &[],
        )
        .await
        .unwrap();
    let given_up = tokio::time::timeout(
        Duration::from_millis(300),
        store.append(&key, &[line("abandoned")]),
    )
    .await;
    assert!(given_up.is_err(), "the append waited on the row");
    other
}

/// Append the line `uuid`, which nothing may hold up for long.
async fn append_unblocked(store: &PostgresSessionStore, key: &SessionKey, uuid: &str) {
    tokio::time::timeout(Duration::from_secs(10), store.append(key, &[line(uuid)]))
        .await
        .unwrap_or_else(|_| panic!("the append of {uuid} is held up"))
        .unwrap();
}

/// An append dropped inside its transaction commits nothing: once the other connection lets
/// the row go, another host's append and this store's next one go through (before, the store's
/// connection stayed idle in its transaction, holding the row, and its next commit committed
/// the abandoned line too), and the database holds exactly what was committed.
async fn an_abandoned_append_commits_nothing(base: &PostgresSessionStore, config: &str) {
    let store = base.clone().with_schema("abandoned");
    let key = SessionKey::new("p", "s");
    store.append(&key, &[line("first")]).await.unwrap();
    let other = abandon_an_append(&store, config, "abandoned").await;
    other.batch_execute("COMMIT").await.unwrap();
    let host_b = PostgresSessionStore::connect(config)
        .await
        .unwrap()
        .with_schema("abandoned");
    append_unblocked(&host_b, &key, "from-b").await;
    append_unblocked(&store, &key, "second").await;
    assert_eq!(uuids_of(&store, &key).await, ["first", "from-b", "second"]);
    assert_eq!(uuids_of(&host_b, &key).await, ["first", "from-b", "second"]);
}

/// The same with a client the user connected, which the store cannot replace: it is rolled
/// back instead.
async fn an_abandoned_append_on_a_users_client_commits_nothing(config: &str) {
    let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let store = PostgresSessionStore::from_client(client).with_schema("abandoned_own");
    let key = SessionKey::new("p", "s");
    store.append(&key, &[line("first")]).await.unwrap();
    let other = abandon_an_append(&store, config, "abandoned_own").await;
    other.batch_execute("COMMIT").await.unwrap();
    append_unblocked(&store, &key, "second").await;
    assert_eq!(uuids_of(&store, &key).await, ["first", "second"]);
}

/// A statement the server refuses reports the server's own message, not only "db error".
async fn the_servers_message_is_kept(base: &PostgresSessionStore) {
    let store = base.clone().with_schema("pg_reserved");
    let error = store.load(&SessionKey::new("p", "s")).await.unwrap_err();
    let text = error.to_string();
    assert!(text.contains("the database refused: "), "{text}");
    assert!(text.contains("pg_"), "{text}");
}

/// A connection of the test's own, to change the database under the store.
async fn admin(config: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// A load while another task's append is inside its transaction on the store's one connection
/// waits for it: it never reads lines the append then rolls back. Here each insert takes
/// 300 ms, and the commit fails (a deferred check), so the append is rolled back. Before, the
/// load ran inside the open transaction and returned the line that was never committed.
async fn reads_never_see_another_tasks_transaction(base: &PostgresSessionStore, config: &str) {
    let store = base.clone().with_schema("isolation");
    let key = SessionKey::new("p", "s");
    store.append(&key, &[line("committed")]).await.unwrap();
    admin(config)
        .await
        .batch_execute(
            "CREATE FUNCTION isolation.slow() RETURNS trigger LANGUAGE plpgsql AS
                 $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
             CREATE FUNCTION isolation.refuse() RETURNS trigger LANGUAGE plpgsql AS
                 $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
             CREATE TRIGGER slow AFTER INSERT ON isolation.session_entries
                 FOR EACH STATEMENT EXECUTE FUNCTION isolation.slow();
             CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON isolation.session_entries
                 DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION isolation.refuse();",
        )
        .await
        .unwrap();
    let writer = store.clone();
    let append = tokio::spawn(async move {
        writer
            .append(&SessionKey::new("p", "s"), &[line("rolled back")])
            .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let seen = uuids_of(&store, &key).await;
    assert!(append.await.unwrap().is_err(), "the commit was refused");
    assert_eq!(seen, ["committed"], "a read saw an uncommitted line");
    assert_eq!(uuids_of(&store, &key).await, ["committed"]);
}

/// Tables dropped under a store (a schema dropped by hand, or its creation rolled back) are
/// made again by the next call: before, the store kept taking them for made, and every call
/// failed with "relation does not exist" until the process restarted.
async fn tables_dropped_under_the_store_are_made_again(base: &PostgresSessionStore, config: &str) {
    let store = base.clone().with_schema("dropped");
    let key = SessionKey::new("p", "s");
    store.append(&key, &[line("before")]).await.unwrap();
    admin(config)
        .await
        .batch_execute("DROP SCHEMA dropped CASCADE")
        .await
        .unwrap();
    assert_eq!(store.load(&key).await.unwrap(), None);
    store.append(&key, &[line("after")]).await.unwrap();
    assert_eq!(uuids_of(&store, &key).await, ["after"]);
}

/// An append given up while its `COMMIT` was in flight, which the server then committed, is
/// tried again (as the mirror does): its lines are stored once, those without a uuid too.
/// The commit takes a second here (a deferred trigger sleeps), and the append is dropped in it.
async fn a_commit_cut_off_and_tried_again_stores_its_lines_once(
    base: &PostgresSessionStore,
    config: &str,
) {
    let store = base.clone().with_schema("in_doubt");
    let key = SessionKey::new("p", "s");
    store.append(&key, &[line("first")]).await.unwrap();
    admin(config)
        .await
        .batch_execute(
            "CREATE FUNCTION in_doubt.slow_commit() RETURNS trigger LANGUAGE plpgsql AS
                 $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$;
             CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON in_doubt.session_entries
                 DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION in_doubt.slow_commit();",
        )
        .await
        .unwrap();
    let batch = [
        line("in doubt"),
        json!({"type": "last-prompt", "lastPrompt": "no uuid"}),
    ];
    let cut_off =
        tokio::time::timeout(Duration::from_millis(400), store.append(&key, &batch)).await;
    assert!(cut_off.is_err(), "the append was cut off in its commit");
    // The server finishes the commit on its side.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    store.append(&key, &batch).await.unwrap();
    let stored = store.load(&key).await.unwrap().unwrap();
    assert_eq!(stored.len(), 3, "{stored:?}");
    // A later append of the same lines, not in doubt, is stored as any append is.
    store.append(&key, &batch[1..]).await.unwrap();
    assert_eq!(store.load(&key).await.unwrap().unwrap().len(), 4);
}

/// The server goes away: calls fail with a store error (no hang, no panic); once it is back,
/// the next call connects again and finds everything stored before.
async fn connects_again_after_a_restart(base: &PostgresSessionStore, cluster: &Cluster) {
    let store = base.clone().with_schema("restart");
    let key = SessionKey::new("p", "s");
    let line = |uuid: &str| json!({"type": "user", "uuid": uuid});
    store.append(&key, &[line("before")]).await.unwrap();
    cluster.stop_server();
    let error = store.append(&key, &[line("during")]).await.unwrap_err();
    assert!(
        error.to_string().starts_with("session store failed: "),
        "{error}"
    );
    assert!(store.load(&key).await.is_err());
    cluster.start_server();
    // Connecting again works from an executor that is not tokio (it panicked: tokio's sockets
    // need a tokio reactor), here a plain `block_on` on a thread of its own.
    let elsewhere = store.clone();
    let after = std::thread::spawn(move || {
        futures_lite::future::block_on(
            elsewhere.append(&SessionKey::new("p", "s"), &[line("after")]),
        )
    })
    .join()
    .expect("no panic");
    after.unwrap();
    let uuids: Vec<Value> = store
        .load(&key)
        .await
        .unwrap()
        .unwrap()
        .iter()
        .map(|e| e["uuid"].clone())
        .collect();
    assert_eq!(uuids, ["before", "after"]);
}

/// TLS to a server with a certificate of a private CA: trusted with that CA and the right name,
/// the store's connection is encrypted and works; with the wrong name, or with only the
/// system's roots, it is refused (nothing falls back to plaintext under `sslmode=require`).
#[test]
fn tls_connections_check_the_server() {
    use claude_agent_store_postgres::{ConnectError, TlsRoots};

    let (cluster, ca) = Cluster::start_tls();
    tokio_rt().block_on(async {
        let config = |host: &str, mode: &str| {
            format!(
                "host={host} hostaddr=127.0.0.1 port={} user=postgres dbname=postgres sslmode={mode}",
                cluster.port
            )
        };
        let private_ca = || TlsRoots::Pem(ca.clone().into_bytes());
        let store = PostgresSessionStore::connect_with(&config("localhost", "require"), private_ca())
            .await
            .expect("the CA trusted, the right name");
        let key = SessionKey::new("p", "s");
        store.append(&key, &[line("over-tls")]).await.unwrap();
        assert_eq!(uuids_of(&store, &key).await, ["over-tls"]);
        let (admin, connection) = tokio_postgres::connect(&config("127.0.0.1", "disable"), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        let encrypted: i64 = admin
            .query_one("SELECT count(*) FROM pg_stat_ssl WHERE ssl", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(encrypted, 1, "the store's connection, and only it, is encrypted");

        let wrong_name =
            PostgresSessionStore::connect_with(&config("db.example", "require"), private_ca()).await;
        assert!(matches!(wrong_name, Err(ConnectError::Connect(_))), "{wrong_name:?}");
        // The message says why, not only that the handshake failed.
        let said = wrong_name.unwrap_err().to_string();
        assert!(said.contains("certificate not valid for name"), "{said}");
        let untrusted = PostgresSessionStore::connect(&config("localhost", "require")).await;
        assert!(matches!(untrusted, Err(ConnectError::Connect(_))), "{untrusted:?}");
        let said = untrusted.unwrap_err().to_string();
        assert!(said.contains("UnknownIssuer"), "{said}");
        let no_roots = PostgresSessionStore::connect_with(&config("localhost", "require"), TlsRoots::Pem(b"not a certificate".to_vec())).await;
        assert!(matches!(no_roots, Err(ConnectError::Tls(_))), "{no_roots:?}");
        let plaintext = PostgresSessionStore::connect(&config("127.0.0.1", "disable"))
            .await
            .expect("TLS is not forced on a store that disables it");
        assert_eq!(uuids_of(&plaintext, &key).await, ["over-tls"]);
    });
}

/// The machine A and machine B, with PostgreSQL between them and the real CLI on each:
/// a session is mirrored to the database; the database goes away for one turn (that turn's
/// lines come back as `mirror_error` items, and every message still arrives) and comes back
/// (the next turn stores the missed lines ahead of its own); then another HOME, empty, resumes
/// the session from a new connection alone, the model sees every earlier turn, and the new
/// turn is mirrored back.
#[test]
fn a_session_outlives_its_machine_and_a_database_restart() {
    let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
    let cluster = Cluster::start();
    let stub = StubApi::start_with_conventions();
    let work = TestDir::new("pg-work").unwrap();
    let machine = |home: &TestDir, store: PostgresSessionStore| {
        Options::new()
            .cli_path(cli.path())
            .cwd(work.path())
            .envs(real_cli_env(&stub, home.path()))
            .session_store(Arc::new(store))
    };
    let runtime = tokio_rt();
    runtime.block_on(async {
        let connect = || async {
            PostgresSessionStore::connect(&cluster.config())
                .await
                .unwrap()
                .with_schema("machines")
        };
        let home_a = TestDir::new("pg-home-a").unwrap();
        let client = claude_agent_tokio::connect(machine(&home_a, connect().await))
            .await
            .unwrap();
        let turn = |prompt: &'static str| {
            let client = &client;
            async move {
                client.send(prompt).await.unwrap();
                let messages: Vec<Message> = tokio::time::timeout(
                    Duration::from_secs(60),
                    client.receive_response().map(Result::unwrap).collect(),
                )
                .await
                .expect("the turn ends");
                messages
            }
        };
        let first = turn("remember PINEAPPLE").await;
        let session_id = session_of(&first);
        let key = SessionKey::new(project_key_for_directory(Some(work.path())), &session_id);
        let reader = connect().await;
        assert_eq!(
            stored_texts(&reader.load(&key).await.unwrap().unwrap()),
            [
                "user: remember PINEAPPLE",
                "assistant: echo: remember PINEAPPLE"
            ]
        );

        cluster.stop_server();
        let second = turn("remember MANGO").await;
        let errors: Vec<String> = second
            .iter()
            .filter_map(|m| match m {
                Message::System(SystemMessage::MirrorError(e)) => Some(e.error.clone()),
                _ => None,
            })
            .collect();
        assert!(!errors.is_empty(), "no mirror_error in {second:#?}");
        for error in &errors {
            assert!(
                error.ends_with("kept, to be tried again with the next turn"),
                "{error}"
            );
        }
        assert_eq!(texts(&second), ["echo: remember MANGO"]);

        cluster.start_server();
        let third = turn("remember KIWI").await;
        assert_eq!(texts(&third), ["echo: remember KIWI"]);
        assert!(
            !third
                .iter()
                .any(|m| matches!(m, Message::System(SystemMessage::MirrorError(_)))),
            "{third:#?}"
        );
        client.close().await;
        let remembered = [
            "user: remember PINEAPPLE",
            "assistant: echo: remember PINEAPPLE",
            "user: remember MANGO",
            "assistant: echo: remember MANGO",
            "user: remember KIWI",
            "assistant: echo: remember KIWI",
        ];
        assert_eq!(
            stored_texts(&reader.load(&key).await.unwrap().unwrap()),
            remembered
        );

        let home_b = TestDir::new("pg-home-b").unwrap();
        let resumed: Vec<Message> = claude_agent_tokio::query(
            "which fruits?",
            machine(&home_b, connect().await)
                .session_start(SessionStart::resume(session_id.clone())),
        )
        .map(Result::unwrap)
        .collect()
        .await;
        assert_eq!(texts(&resumed), ["echo: which fruits?"]);
        assert_eq!(session_of(&resumed), session_id);
        let body = stub.main_requests().pop().unwrap().body.to_string();
        for word in ["PINEAPPLE", "MANGO", "KIWI"] {
            assert!(body.contains(&format!("echo: remember {word}")), "{body}");
        }
        let mut all = remembered.to_vec();
        all.extend(["user: which fruits?", "assistant: echo: which fruits?"]);
        assert_eq!(
            stored_texts(&reader.load(&key).await.unwrap().unwrap()),
            all
        );
        assert!(!home_b
            .path()
            .join(".claude/projects")
            .join(&key.project_key)
            .exists());
    });
}

fn session_of(messages: &[Message]) -> String {
    messages
        .iter()
        .find_map(|m| match m {
            Message::Result(r) => Some(r.session_id().to_owned()),
            _ => None,
        })
        .expect("a result")
}

/// The assistant's texts.
fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => Some(&a.message.content),
            _ => None,
        })
        .flatten()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// The text of every `user` and `assistant` entry of a stored transcript, in order.
fn stored_texts(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e["type"] == "user" || e["type"] == "assistant")
        .map(|e| {
            let content = &e["message"]["content"];
            let text = match content.as_str() {
                Some(text) => text.to_owned(),
                None => content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            format!("{}: {text}", e["type"].as_str().unwrap_or(""))
        })
        .collect()
}

mod fleet_ledger {
    //! The fleet ledger's statements, from three "hosts" (connections of their own) on one
    //! cluster, each decision checked where it is made.

    use std::time::Duration;

    use claude_agent_core::cost::{Budget, BudgetLevel, Tokens, TurnCost};
    use claude_agent_store_postgres::fleet_ledger::{self as ledger, HostLease, Renewal};
    use tokio_postgres::{Client, NoTls};

    use super::{tokio_rt, Cluster};

    const SCHEMA: &str = "fleet_test";

    async fn connect(config: &str) -> Client {
        let (client, connection) = tokio_postgres::connect(config, NoTls)
            .await
            .expect("connected");
        tokio::spawn(connection);
        client
    }

    async fn hosts(config: &str, fleet: &str, lease: Duration) -> Vec<(Client, HostLease)> {
        let mut hosts = Vec::new();
        for name in ["a", "b", "c"] {
            let client = connect(config).await;
            let me = ledger::join(&client, SCHEMA, fleet, name, lease)
                .await
                .unwrap();
            hosts.push((client, me));
        }
        hosts
    }

    #[test]
    fn the_fleet_ledger() {
        let cluster = Cluster::start();
        let config = cluster.config();
        tokio_rt().block_on(async {
            let admin = connect(&config).await;
            ledger::create(&admin, SCHEMA).await.unwrap();
            places_never_exceed_the_limit_and_keys_take_turns(&config).await;
            a_host_past_its_lease_is_fenced_and_its_sessions_taken_over(&config).await;
            exactly_one_charge_crosses_each_budget_level(&config).await;
            a_fenced_store_appends_only_under_a_live_lease(&config).await;
            a_session_that_waited_through_its_keys_budget_is_told(&config).await;
            a_charge_made_again_under_its_id_counts_once(&config).await;
            a_limit_other_than_the_live_hosts_keep_is_refused(&config).await;
            a_key_too_long_for_a_notification_crosses_its_budget(&config).await;
            an_append_of_an_earlier_epoch_is_refused_once_the_host_joined_again(&config).await;
            a_charge_held_up_by_a_lock_is_made_later_and_once(&config).await;
            a_frozen_grant_holds_the_others_up_no_longer_than_its_bounds(&config).await;
            schema_names_postgres_would_cut_are_refused(&config).await;
            a_session_that_waited_while_its_key_spent_its_budget_never_starts(&config).await;
        });
    }

    /// The smallest case of a budget overspent by the queue: one host, a limit of 1, a $1
    /// budget and two sessions of the key. The first's turn costs $1.50; the second, which
    /// waited for the place meanwhile, is refused before its CLI starts, so $1.50 is all the
    /// key spends.
    async fn a_session_that_waited_while_its_key_spent_its_budget_never_starts(config: &str) {
        use claude_agent_core::message::Message;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
        use claude_agent_testkit::fake_cli::{FakeResult, Script};
        use claude_agent_testkit::transport::FakeTransport;
        use claude_agent_tokio::{Error, Fleet, FleetLimits, Options};
        use futures_lite::StreamExt;

        let limits = FleetLimits {
            max_sessions: Some(1),
            budget_per_key: Some(Budget::usd(1.0)),
            ..FleetLimits::default()
        };
        let ledger = PostgresFleetLedger::connect(config, FleetHost::new("smallest", "a", limits))
            .await
            .unwrap();
        let fleet = Fleet::shared(std::sync::Arc::new(ledger.clone())).unwrap();
        let turn = |usd: f64| {
            Script::new()
                .answer_initialize()
                .expect_user()
                .sleep(Duration::from_millis(300))
                .emit_result_with(FakeResult::success("done").cost_usd(usd))
        };
        let first = FakeTransport::new(turn(1.5));
        let second = FakeTransport::new(turn(1.5));
        let run = |fake: &FakeTransport| {
            let options = Options::new()
                .transport(fake.clone())
                .fleet(fleet.member("k"));
            claude_agent_tokio::query("go", options).collect::<Vec<_>>()
        };
        let (a, b) = tokio::join!(run(&first), async {
            // The second asks once the first holds the only place.
            tokio::time::sleep(Duration::from_millis(100)).await;
            run(&second).await
        });
        assert!(
            a.iter().any(|m| matches!(m, Ok(Message::Result(_)))),
            "{a:?}"
        );
        assert!(
            matches!(b.as_slice(), [Err(Error::OverBudget(_))]),
            "refused before anything ran: {b:?}"
        );
        assert_eq!(second.connections(), 0, "no CLI was started for it");
        ledger.flush().await.unwrap();
        let spent = ledger.spending().await.unwrap();
        assert_eq!((spent[0].1.turns, spent[0].1.usd), (1, 1.5));
    }

    /// A charge whose commit went unanswered is made again under the same id: it counts once.
    async fn a_charge_made_again_under_its_id_counts_once(config: &str) {
        let mut client = connect(config).await;
        let cost = TurnCost::new(Some(0.25), None, Tokens::default(), 0.0);
        for _ in 0..3 {
            ledger::charge(&mut client, SCHEMA, "ids", "charge-1", "k", &cost, None)
                .await
                .unwrap();
        }
        ledger::charge(&mut client, SCHEMA, "ids", "charge-2", "k", &cost, None)
            .await
            .unwrap();
        let (spent, _) = ledger::spending(&client, SCHEMA, "ids", "k")
            .await
            .unwrap()
            .unwrap();
        assert_eq!((spent.turns, spent.usd), (2, 0.5));
    }

    /// A host that joins with another session limit than the live hosts keep is refused; with
    /// none live, it sets the fleet's limit anew.
    async fn a_limit_other_than_the_live_hosts_keep_is_refused(config: &str) {
        use claude_agent_store_postgres::{ConnectError, FleetHost, PostgresFleetLedger};
        use claude_agent_tokio::FleetLimits;

        let limit = |max| FleetLimits {
            max_sessions: Some(max),
            ..FleetLimits::default()
        };
        let mut first = FleetHost::new("agreed", "a", limit(3));
        first.lease = Duration::from_millis(600);
        let a = PostgresFleetLedger::connect(config, first).await.unwrap();
        let refused = PostgresFleetLedger::connect(config, FleetHost::new("agreed", "b", limit(5)))
            .await
            .unwrap_err();
        assert!(
            matches!(
                refused,
                ConnectError::FleetLimitMismatch {
                    kept: Some(3),
                    given: Some(5),
                    ..
                }
            ),
            "{refused}"
        );
        assert!(
            PostgresFleetLedger::connect(config, FleetHost::new("agreed", "b", limit(3)))
                .await
                .is_ok(),
            "the same limit joins"
        );
        drop(a);
        // Once no host is live, the fleet starts again with the limit of its first host.
        let mut admin = connect(config).await;
        admin
            .execute(
                "UPDATE claude_agent.fleet_hosts SET lease_until = clock_timestamp()
                 WHERE fleet = 'agreed'",
                &[],
            )
            .await
            .unwrap();
        let c = PostgresFleetLedger::connect(config, FleetHost::new("agreed", "c", limit(5))).await;
        assert!(c.is_ok(), "{:?}", c.err());
        let kept: Option<i32> = admin
            .query_one(
                "SELECT max_sessions FROM claude_agent.fleets WHERE fleet = 'agreed'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(kept, Some(5));
        let _ = &mut admin;
    }

    /// A notification's payload holds at most 8000 bytes: a key longer than that still crosses
    /// its budget, tells the host's sessions, and blocks no other charge.
    async fn a_key_too_long_for_a_notification_crosses_its_budget(config: &str) {
        use std::task::{Context, Poll, Waker};

        use claude_agent_client::SharedLedger;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
        use claude_agent_tokio::FleetLimits;

        let limits = FleetLimits {
            budget_per_key: Some(Budget::usd(1.0)),
            ..FleetLimits::default()
        };
        let ledger = PostgresFleetLedger::connect(config, FleetHost::new("long-keys", "a", limits))
            .await
            .unwrap();
        let key = "k".repeat(9000);
        let place = ledger.admit(&key).await.unwrap();
        ledger
            .charge(
                &key,
                &TurnCost::new(Some(1.5), None, Tokens::default(), 0.0),
            )
            .await;
        ledger
            .charge(
                "short",
                &TurnCost::new(Some(0.1), None, Tokens::default(), 0.0),
            )
            .await;
        ledger.flush().await.unwrap();
        let mut cx = Context::from_waker(Waker::noop());
        let told = match place.poll_report(&mut cx) {
            Poll::Ready(report) => Some(report.level),
            Poll::Pending => None,
        };
        assert_eq!(told, Some(BudgetLevel::Exceeded));
        let spending = ledger.spending().await.unwrap();
        let keys: Vec<&str> = spending.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, [key.as_str(), "short"]);
    }

    /// A host whose lease ran out joins again under a new epoch: an append still coming from a
    /// session of the earlier epoch (its mirror flushing late) is refused, though the host's
    /// new lease is live; a session of the new epoch appends.
    async fn an_append_of_an_earlier_epoch_is_refused_once_the_host_joined_again(config: &str) {
        use claude_agent_client::store::{SessionStore, StoreError};
        use claude_agent_client::SharedLedger;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger, PostgresSessionStore};
        use claude_agent_tokio::FleetLimits;

        let mut host = FleetHost::new("epochs", "a", FleetLimits::default());
        host.lease = Duration::from_millis(800);
        let ledger = PostgresFleetLedger::connect(config, host).await.unwrap();
        let store = PostgresSessionStore::connect(config)
            .await
            .unwrap()
            .with_schema("epochs")
            .fenced_by(&ledger);
        let old_place = ledger.admit("k").await.unwrap();
        old_place.session_id("old-session");
        let old = super::SessionKey::new("project", "old-session");
        store.append(&old, &[super::line("o1")]).await.unwrap();
        // The database ends the lease (the host was frozen past it): the next renewal finds it
        // gone, and the host joins again.
        let admin = connect(config).await;
        admin
            .execute(
                "UPDATE claude_agent.fleet_hosts SET lease_until = clock_timestamp()
                 WHERE fleet = 'epochs' AND host = 'a'",
                &[],
            )
            .await
            .unwrap();
        let rejoined = async {
            loop {
                let epoch: i64 = admin
                    .query_one(
                        "SELECT epoch FROM claude_agent.fleet_hosts
                         WHERE fleet = 'epochs' AND host = 'a' AND lease_until > clock_timestamp()",
                        &[],
                    )
                    .await
                    .map(|row| row.get(0))
                    .unwrap_or(0);
                if epoch > 1 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), rejoined)
            .await
            .expect("joined again");
        let refused = store.append(&old, &[super::line("o2")]).await.unwrap_err();
        assert!(matches!(refused, StoreError::Fenced { .. }), "{refused}");
        let new_place = ledger.admit("k").await.unwrap();
        new_place.session_id("new-session");
        let new = super::SessionKey::new("project", "new-session");
        store.append(&new, &[super::line("n1")]).await.unwrap();
        assert_eq!(
            store.load(&old).await.unwrap().unwrap(),
            [super::line("o1")],
            "nothing of the refused append"
        );
        drop(old_place);
    }

    /// A charge the database cannot make now (a lock it waits for past its bound) stays queued
    /// and is made once the lock goes, once; `flush` says so meanwhile.
    async fn a_charge_held_up_by_a_lock_is_made_later_and_once(config: &str) {
        use claude_agent_client::SharedLedger;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
        use claude_agent_tokio::FleetLimits;

        let mut host = FleetHost::new("locked", "a", FleetLimits::default());
        host.lease = Duration::from_secs(2);
        let ledger = PostgresFleetLedger::connect(config, host).await.unwrap();
        let cost = TurnCost::new(Some(0.5), None, Tokens::default(), 0.0);
        ledger.charge("k", &cost).await;
        let mut holder = connect(config).await;
        let tx = holder.transaction().await.unwrap();
        tx.execute(
            "SELECT 1 FROM claude_agent.fleet_keys WHERE fleet = 'locked' AND key = 'k' FOR UPDATE",
            &[],
        )
        .await
        .unwrap();
        // Not awaited: the lock holds it up.
        drop(ledger.charge("k", &cost));
        let held = ledger.flush().await;
        assert!(held.is_err(), "the lock held the charge up");
        tx.commit().await.unwrap();
        ledger.flush().await.unwrap();
        let spending = ledger.spending().await.unwrap();
        assert_eq!(spending[0].1.turns, 2, "made once, not dropped");
    }

    /// A host frozen inside a grant (its transaction open, the fleet's row locked) holds the
    /// others' admissions up no longer than the server's bounds: the frozen transaction ends,
    /// and the waiting session gets its place instead of failing.
    async fn a_frozen_grant_holds_the_others_up_no_longer_than_its_bounds(config: &str) {
        use claude_agent_client::SharedLedger;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
        use claude_agent_tokio::FleetLimits;

        let lease = Duration::from_secs(2);
        let mut host = FleetHost::new("frozen-grant", "b", FleetLimits::default());
        host.lease = lease;
        let ledger = PostgresFleetLedger::connect(config, host).await.unwrap();
        // The frozen host: its connection bound as a ledger's is, its transaction left open.
        let (mut frozen, connection) = tokio_postgres::connect(
            &format!(
                "{config} options='-c idle_in_transaction_session_timeout={}'",
                (lease / 2).as_millis()
            ),
            NoTls,
        )
        .await
        .unwrap();
        tokio::spawn(connection);
        let tx = frozen.transaction().await.unwrap();
        tx.execute(
            "SELECT 1 FROM claude_agent.fleets WHERE fleet = 'frozen-grant' FOR UPDATE",
            &[],
        )
        .await
        .unwrap();
        let started = std::time::Instant::now();
        let place = tokio::time::timeout(lease * 3, ledger.admit("k"))
            .await
            .expect("a place within the bounds")
            .expect("not refused");
        assert!(started.elapsed() >= lease / 2 - Duration::from_millis(100));
        drop(place);
        drop(tx);
    }

    /// PostgreSQL cuts names at 63 bytes: a schema longer than that is refused, by the ledger
    /// at once and by the store at its first use, instead of sharing another's tables.
    async fn schema_names_postgres_would_cut_are_refused(config: &str) {
        use claude_agent_client::store::SessionStore;
        use claude_agent_store_postgres::{
            ConnectError, FleetHost, PostgresFleetLedger, PostgresSessionStore,
        };
        use claude_agent_tokio::FleetLimits;

        let long = "s".repeat(64);
        let mut host = FleetHost::new("names", "a", FleetLimits::default());
        host.schema = long.clone();
        let refused = PostgresFleetLedger::connect(config, host)
            .await
            .unwrap_err();
        assert!(
            matches!(refused, ConnectError::InvalidName { .. }),
            "{refused}"
        );
        let store = PostgresSessionStore::connect(config)
            .await
            .unwrap()
            .with_schema(long);
        let key = super::SessionKey::new("p", "s");
        let refused = store.append(&key, &[super::line("u")]).await.unwrap_err();
        assert!(refused.to_string().contains("63 bytes"), "{refused}");
    }

    /// A session of a key waits for its place while the key's budget is crossed: once its
    /// place comes, it is told too, as the session that was running.
    async fn a_session_that_waited_through_its_keys_budget_is_told(config: &str) {
        use std::task::{Context, Poll, Waker};

        use claude_agent_client::SharedLedger;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
        use claude_agent_tokio::FleetLimits;

        let limits = FleetLimits {
            max_sessions: Some(1),
            budget_per_key: Some(Budget::usd(1.0)),
            ..FleetLimits::default()
        };
        let ledger = PostgresFleetLedger::connect(config, FleetHost::new("waits", "a", limits))
            .await
            .unwrap();
        let running = ledger.admit("k").await.unwrap();
        let mut waiting = ledger.admit("k");
        let mut cx = Context::from_waker(Waker::noop());
        assert!(waiting.as_mut().poll(&mut cx).is_pending());
        let over = TurnCost::new(Some(1.5), None, Tokens::default(), 0.0);
        ledger.charge("k", &over).await;
        let level = |place: &dyn claude_agent_client::SharedPlace| {
            let mut cx = Context::from_waker(Waker::noop());
            match place.poll_report(&mut cx) {
                Poll::Ready(report) => Some(report.level),
                Poll::Pending => None,
            }
        };
        assert_eq!(level(&*running), Some(BudgetLevel::Exceeded));
        drop(running);
        let waited = tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("the place comes")
            .unwrap();
        assert_eq!(
            level(&*waited),
            Some(BudgetLevel::Exceeded),
            "told as its place comes"
        );
    }

    /// A store fenced by a host's ledger appends while the host's lease is live, and refuses
    /// once the database says it ran out (as for a host frozen past it), before the host's
    /// own clock would tell it.
    async fn a_fenced_store_appends_only_under_a_live_lease(config: &str) {
        use claude_agent_client::store::SessionStore;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger, PostgresSessionStore};
        use claude_agent_tokio::FleetLimits;

        let mut host = FleetHost::new("fences", "a", FleetLimits::default());
        host.lease = Duration::from_secs(60);
        let ledger = PostgresFleetLedger::connect(config, host).await.unwrap();
        let store = PostgresSessionStore::connect(config)
            .await
            .unwrap()
            .with_schema("fenced")
            .fenced_by(&ledger);
        let key = super::SessionKey::new("project", "s");
        store.append(&key, &[super::line("u1")]).await.unwrap();
        let admin = connect(config).await;
        admin
            .execute(
                "UPDATE claude_agent.fleet_hosts SET lease_until = clock_timestamp()
                 WHERE fleet = 'fences' AND host = 'a'",
                &[],
            )
            .await
            .unwrap();
        let refused = store.append(&key, &[super::line("u2")]).await.unwrap_err();
        assert!(
            refused.to_string().contains("holds no live lease"),
            "{refused}"
        );
        let stored = store.load(&key).await.unwrap().unwrap();
        assert_eq!(stored, [super::line("u1")], "nothing of the refused append");
    }

    async fn places_never_exceed_the_limit_and_keys_take_turns(config: &str) {
        let fleet = "limits";
        let mut admin = connect(config).await;
        ledger::join_limit(&mut admin, SCHEMA, fleet, "admin", Some(4))
            .await
            .unwrap()
            .unwrap();
        let mut hosts = hosts(config, fleet, Duration::from_secs(60)).await;
        // Host a asks for six places for tenant-1, then b and c two each for tenant-2 and -3.
        for n in 0..6 {
            let (client, me) = &hosts[0];
            ledger::enqueue(client, SCHEMA, me, "tenant-1", &format!("a{n}"))
                .await
                .unwrap();
        }
        for (i, key) in [(1, "tenant-2"), (2, "tenant-3")] {
            for n in 0..2 {
                let (client, me) = &hosts[i];
                ledger::enqueue(client, SCHEMA, me, key, &format!("{key}-{n}"))
                    .await
                    .unwrap();
            }
        }
        // All three grant at once: the fleet's row lock lets one give the places.
        let (h0, rest) = hosts.split_at_mut(1);
        let (h1, h2) = rest.split_at_mut(1);
        let (g0, g1, g2) = tokio::join!(
            ledger::grant(&mut h0[0].0, SCHEMA, fleet),
            ledger::grant(&mut h1[0].0, SCHEMA, fleet),
            ledger::grant(&mut h2[0].0, SCHEMA, fleet),
        );
        let granted: Vec<i64> = [g0.unwrap(), g1.unwrap(), g2.unwrap()].concat();
        assert_eq!(granted.len(), 4, "{granted:?}");
        assert_eq!(ledger::running(&admin, SCHEMA, fleet).await.unwrap(), 4);
        // Keys took turns: every key got a place before tenant-1 got its second.
        let rows = admin
            .query(
                &format!("SELECT key FROM {SCHEMA}.fleet_places WHERE fleet = $1"),
                &[&fleet],
            )
            .await
            .unwrap();
        let mut keys: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
        keys.sort();
        assert_eq!(keys, ["tenant-1", "tenant-1", "tenant-2", "tenant-3"]);
        // A place given back goes to the next waiter; the count stays at the limit.
        let (client, me) = &hosts[1];
        assert!(ledger::release(client, SCHEMA, me, "tenant-2-0")
            .await
            .unwrap());
        let again = ledger::grant(&mut hosts[2].0, SCHEMA, fleet).await.unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(ledger::running(&admin, SCHEMA, fleet).await.unwrap(), 4);
    }

    async fn a_host_past_its_lease_is_fenced_and_its_sessions_taken_over(config: &str) {
        let fleet = "leases";
        let mut admin = connect(config).await;
        ledger::join_limit(&mut admin, SCHEMA, fleet, "admin", Some(2))
            .await
            .unwrap()
            .unwrap();
        let lease = Duration::from_millis(800);
        let mut hosts = hosts(config, fleet, lease).await;
        let ticket = {
            let (client, me) = &hosts[0];
            ledger::enqueue(client, SCHEMA, me, "tenant", "s1")
                .await
                .unwrap()
        };
        assert_eq!(
            ledger::grant(&mut hosts[0].0, SCHEMA, fleet).await.unwrap(),
            [ticket]
        );
        {
            let (client, me) = &hosts[0];
            assert!(ledger::take_grant(client, SCHEMA, me, ticket)
                .await
                .unwrap());
            // Its CLI told its session id.
            ledger::bind(client, SCHEMA, me, "s1", "the-session")
                .await
                .unwrap();
        }
        // a stops renewing (frozen); b renews, and so keeps its lease.
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(
            ledger::renew(&hosts[1].0, SCHEMA, &hosts[1].1, lease)
                .await
                .unwrap(),
            Renewal::Renewed
        );
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(
            ledger::renew(&hosts[1].0, SCHEMA, &hosts[1].1, lease)
                .await
                .unwrap(),
            Renewal::Renewed
        );
        let orphans = ledger::orphans(&admin, SCHEMA, fleet).await.unwrap();
        assert_eq!(orphans.len(), 1);
        assert_eq!(
            (orphans[0].place.as_str(), orphans[0].host.as_str()),
            ("s1", "a")
        );
        assert_eq!(
            ledger::running(&admin, SCHEMA, fleet).await.unwrap(),
            0,
            "an expired lease holds no place"
        );
        // b claims the session (to resume it under a place of its own), under the same key; c,
        // which came second, gets nothing while b's claim holds.
        let (b, b_lease) = &mut hosts[1];
        assert_eq!(
            ledger::take_over(b, SCHEMA, b_lease, "s1")
                .await
                .unwrap()
                .as_deref(),
            Some("tenant")
        );
        let c = ledger::join(&hosts[2].0, SCHEMA, fleet, "c", lease)
            .await
            .unwrap();
        assert_eq!(
            ledger::take_over(&mut hosts[2].0, SCHEMA, &c, "s1")
                .await
                .unwrap(),
            None
        );
        assert!(
            ledger::orphans(&admin, SCHEMA, fleet)
                .await
                .unwrap()
                .is_empty(),
            "a claimed orphan is not listed while its claim holds"
        );
        // a wakes up: its lease cannot be renewed.
        let (a, a_lease) = &hosts[0];
        assert_eq!(
            ledger::renew(a, SCHEMA, a_lease, lease).await.unwrap(),
            Renewal::Expired
        );
        assert!(
            !ledger::release(a, SCHEMA, a_lease, "s1").await.unwrap(),
            "a fenced host frees nothing"
        );
        // Joining again gives a new epoch; the old one stays fenced.
        let again = ledger::join(a, SCHEMA, fleet, "a", lease).await.unwrap();
        assert_eq!(again.epoch, a_lease.epoch + 1);
        assert_eq!(
            ledger::renew(a, SCHEMA, a_lease, lease).await.unwrap(),
            Renewal::Superseded,
            "the old incarnation finds its name taken"
        );
        // b dies before it resumed the session: its claim goes with its lease, and the orphan
        // is listed again, for c.
        tokio::time::sleep(lease + Duration::from_millis(100)).await;
        let listed = ledger::orphans(&admin, SCHEMA, fleet).await.unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        let c = ledger::join(&hosts[2].0, SCHEMA, fleet, "c", lease)
            .await
            .unwrap();
        assert_eq!(
            ledger::take_over(&mut hosts[2].0, SCHEMA, &c, "s1")
                .await
                .unwrap()
                .as_deref(),
            Some("tenant")
        );
        // c's resumed session binds the same session id under a place of its own: the orphan
        // is gone.
        let ticket = ledger::enqueue(&hosts[2].0, SCHEMA, &c, "tenant", "c-place")
            .await
            .unwrap();
        assert_eq!(
            ledger::grant(&mut hosts[2].0, SCHEMA, fleet).await.unwrap(),
            [ticket]
        );
        ledger::bind(&hosts[2].0, SCHEMA, &c, "c-place", "the-session")
            .await
            .unwrap();
        assert!(ledger::orphans(&admin, SCHEMA, fleet)
            .await
            .unwrap()
            .is_empty());
        let places = admin
            .query(
                &format!("SELECT place FROM {SCHEMA}.fleet_places WHERE fleet = $1"),
                &[&fleet],
            )
            .await
            .unwrap();
        let places: Vec<String> = places.iter().map(|row| row.get(0)).collect();
        assert_eq!(places, ["c-place"]);
    }

    /// What admission through the database costs a start, and how many starts a second three
    /// hosts get through one fleet, through `PostgresFleetLedger` as a `Fleet` uses it: each
    /// start asks for a place and waits for it (the key's budget read, a ticket, a grant in a
    /// transaction holding the fleet's row, the grant taken), and its place is given back before
    /// the host's next start. Prints the figures; run it with `cargo test --release -p
    /// claude-agent-store-postgres --test postgres -- --ignored --nocapture admission_cost`.
    #[test]
    #[ignore = "a measurement, not a check: run it by name"]
    fn admission_cost() {
        use claude_agent_client::SharedLedger;
        use claude_agent_core::cost::Budget;
        use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
        use claude_agent_tokio::FleetLimits;

        let cluster = Cluster::start();
        let config = cluster.config();
        tokio_rt().block_on(async {
            let limits = FleetLimits {
                max_sessions: Some(1000),
                budget_per_key: Some(Budget::usd(100.0)),
                ..FleetLimits::default()
            };
            let mut hosts = Vec::new();
            for name in ["a", "b", "c"] {
                let host = FleetHost::new("cost", name, limits);
                hosts.push(PostgresFleetLedger::connect(&config, host).await.unwrap());
            }
            let starts_per_host = 300;
            let started = std::time::Instant::now();
            let mut tasks = Vec::new();
            for ledger in hosts {
                tasks.push(tokio::spawn(async move {
                    let mut each = Vec::with_capacity(starts_per_host);
                    for i in 0..starts_per_host {
                        let begun = std::time::Instant::now();
                        let place = ledger.admit(&format!("tenant-{}", i % 7)).await.unwrap();
                        each.push(begun.elapsed());
                        drop(place);
                    }
                    each
                }));
            }
            let mut all = Vec::new();
            for task in tasks {
                all.extend(task.await.unwrap());
            }
            let elapsed = started.elapsed();
            all.sort();
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            println!(
                "admission of {} starts from 3 hosts: median {:.2} ms, p99 {:.2} ms, max {:.2} ms; {:.0} starts/s (each start also gave its place back)",
                all.len(),
                ms(all[all.len() / 2]),
                ms(all[all.len() * 99 / 100]),
                ms(all[all.len() - 1]),
                all.len() as f64 / elapsed.as_secs_f64()
            );
        });
    }

    async fn exactly_one_charge_crosses_each_budget_level(config: &str) {
        let fleet = "budgets";
        let budget = Some(Budget::usd(1.0));
        let mut clients = Vec::new();
        for _ in 0..3 {
            clients.push(connect(config).await);
        }
        let cost = TurnCost::new(Some(0.05), None, Tokens::default(), 0.0);
        // Three hosts charge 30 turns of $0.05 for one key at once: $1.50 in all.
        let mut crossed = Vec::new();
        let mut tasks = Vec::new();
        for (host, mut client) in clients.into_iter().enumerate() {
            let cost = cost.clone();
            tasks.push(tokio::spawn(async move {
                let mut levels = Vec::new();
                for n in 0..10 {
                    let id = format!("{host}-{n}");
                    let (_, level) =
                        ledger::charge(&mut client, SCHEMA, fleet, &id, "tenant", &cost, budget)
                            .await
                            .unwrap();
                    levels.extend(level);
                }
                levels
            }));
        }
        for task in tasks {
            crossed.extend(task.await.unwrap());
        }
        crossed.sort();
        assert_eq!(crossed, [BudgetLevel::Warning, BudgetLevel::Exceeded]);
        let admin = connect(config).await;
        assert!(ledger::over_budget(&admin, SCHEMA, fleet, "tenant")
            .await
            .unwrap());
        assert!(!ledger::over_budget(&admin, SCHEMA, fleet, "another")
            .await
            .unwrap());
        let row = admin
            .query_one(
                &format!(
                    "SELECT usd, turns FROM {SCHEMA}.fleet_keys WHERE fleet = $1 AND key = $2"
                ),
                &[&fleet, &"tenant"],
            )
            .await
            .unwrap();
        let (usd, turns): (f64, i64) = (row.get(0), row.get(1));
        assert!((usd - 1.5).abs() < 1e-9, "{usd}");
        assert_eq!(turns, 30);
    }
}

mod fleet_hosts {
    //! A fleet of three host processes on one cluster: each a process of its own (this test
    //! binary again, running `host_process`), with its own `Fleet` on a `PostgresFleetLedger`,
    //! its own stub API and the real CLI; in the tests that run sessions on three hosts, one
    //! host runs them on smol.

    use std::io::{BufRead, BufReader};
    use std::process::{Child, Stdio};
    use std::sync::atomic::AtomicBool;
    use std::sync::Mutex;
    use std::time::Instant;

    use claude_agent_core::cost::Budget;
    use claude_agent_store_postgres::{FleetHost, PostgresFleetLedger};
    use claude_agent_tokio::{Error, Fleet, FleetError, FleetLimits};
    use serde_json::json;

    use super::*;

    /// What a host process is asked to do, as JSON in this variable.
    const SPEC: &str = "CLAUDE_AGENT_FLEET_HOST_SPEC";

    /// Runs only as a host process started by the tests below, with its spec in `SPEC`.
    #[test]
    #[ignore = "a host process of the fleet tests, which start it with its spec"]
    fn host_process() {
        let spec: Value = serde_json::from_str(
            &std::env::var(SPEC)
                .expect("started by a fleet test, with its spec in the environment"),
        )
        .expect("a spec");
        tokio_rt().block_on(host(spec));
    }

    /// Say something the test reads, on a line of its own.
    fn say(what: &str, value: Value) {
        println!("{what} {value}");
    }

    async fn host(spec: Value) {
        let text = |name: &str| spec[name].as_str().unwrap().to_owned();
        let limits = FleetLimits {
            max_sessions: spec["max_sessions"].as_u64().map(|n| n as usize),
            budget_per_key: spec["budget_tokens"].as_u64().map(Budget::tokens),
            ..FleetLimits::default()
        };
        let mut host = FleetHost::new(text("fleet"), text("host"), limits);
        host.lease = Duration::from_millis(spec["lease_ms"].as_u64().unwrap());
        let ledger = PostgresFleetLedger::connect(&text("config"), host)
            .await
            .expect("joined the fleet");
        let fleet = Fleet::shared(Arc::new(ledger.clone())).expect("valid limits");
        // Each append checks the host's lease: a host frozen past it stores nothing more.
        let store = PostgresSessionStore::connect(&text("config"))
            .await
            .unwrap()
            .with_schema("fleet_sessions")
            .fenced_by(&ledger);
        let stub = StubApi::start_with_conventions();
        let home = TestDir::new("fleet-home").unwrap();
        let work = PathBuf::from(text("work"));
        let options = Options::new()
            .cli_path(text("cli"))
            .cwd(&work)
            .envs(real_cli_env(&stub, home.path()))
            .allowed_tools(["Bash"])
            .session_store(Arc::new(store));
        match text("mode").as_str() {
            "run" => {
                run_sessions(&spec, &fleet, &options).await;
                ledger.flush().await.expect("every charge stored");
            }
            "midturn" => {
                let client = claude_agent_tokio::connect(options.fleet(fleet.member("k")))
                    .await
                    .unwrap();
                client.send("remember PINEAPPLE").await.unwrap();
                let first: Vec<Message> = client
                    .receive_response()
                    .map(Result::unwrap)
                    .collect()
                    .await;
                client.send(text("second_prompt")).await.unwrap();
                // Once the CLI runs the tool, the turn is under way: the test kills or freezes
                // this host.
                while stub.main_requests().len() < 2 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                say("MIDTURN", json!(session_of(&first)));
                // Everything until the session ends: a host frozen past its lease loses it.
                let rest: Vec<Result<Message, Error>> = client.receive_messages().collect().await;
                let mirror_errors = rest
                    .iter()
                    .filter(|m| matches!(m, Ok(Message::System(SystemMessage::MirrorError(_)))))
                    .count();
                let error = rest.iter().find_map(|item| item.as_ref().err());
                say(
                    "OUTCOME",
                    json!({
                        "place_lost": matches!(error, Some(Error::Fleet(FleetError::PlaceLost))),
                        "error": error.map(|e| e.to_string()),
                        "mirror_errors": mirror_errors,
                    }),
                );
            }
            "takeover" => {
                let started = Instant::now();
                let orphan = loop {
                    let orphans = ledger.orphans().await.unwrap();
                    if let Some(orphan) = orphans.into_iter().find(|o| o.session_id.is_some()) {
                        break orphan;
                    }
                    assert!(started.elapsed() < Duration::from_secs(60), "no orphan");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                };
                say(
                    "ORPHAN",
                    json!({"session_id": orphan.session_id, "cut_off_turn": orphan.cut_off_turn}),
                );
                assert!(ledger.take_over(&orphan).await.unwrap(), "taken over");
                assert!(!ledger.take_over(&orphan).await.unwrap(), "taken once");
                let session_id = orphan.session_id.clone().unwrap();
                let resumed: Vec<Message> = claude_agent_tokio::query(
                    "which fruit?",
                    options
                        .session_start(SessionStart::resume(session_id.clone()))
                        .fleet(fleet.member(orphan.key.clone())),
                )
                .map(Result::unwrap)
                .collect()
                .await;
                let body = stub.main_requests().pop().unwrap().body.to_string();
                say(
                    "RESUMED",
                    json!({
                        "session_id": session_of(&resumed),
                        "texts": texts(&resumed),
                        "remembers": body.contains("echo: remember PINEAPPLE"),
                    }),
                );
            }
            other => panic!("no mode {other}"),
        }
    }

    /// Each session of the spec, at once or one after the other, on tokio or (`"runtime":
    /// "smol"`) on smol: its outcome said.
    async fn run_sessions(spec: &Value, fleet: &Fleet, options: &Options) {
        let sessions = spec["sessions"].as_array().unwrap();
        let on_smol = spec["runtime"] == "smol";
        let run = |session: &Value| {
            let key = session["key"].as_str().unwrap().to_owned();
            let prompt = session["prompt"].as_str().unwrap().to_owned();
            let options = options.clone().fleet(fleet.member(key.clone()));
            async move {
                let items: Vec<Result<Message, Error>> = if on_smol {
                    // The session's task on smol; this host's ledger still runs on tokio.
                    tokio::task::spawn_blocking(move || {
                        smol::block_on(claude_agent_smol::query(prompt, options).collect())
                    })
                    .await
                    .unwrap()
                } else {
                    claude_agent_tokio::query(prompt, options).collect().await
                };
                let error = items.iter().find_map(|item| item.as_ref().err());
                let over_budget = matches!(error, Some(Error::OverBudget(_)));
                say(
                    "OUTCOME",
                    json!({
                        "key": key,
                        "ok": error.is_none(),
                        "messages": items.iter().filter(|item| item.is_ok()).count(),
                        "over_budget": over_budget,
                        "error": error.map(|e| e.to_string()),
                    }),
                );
            }
        };
        if spec["one_by_one"].as_bool() == Some(true) {
            for session in sessions {
                run(session).await;
            }
        } else {
            let mut tasks = Vec::new();
            for session in sessions {
                tasks.push(tokio::spawn(run(session)));
            }
            for task in tasks {
                task.await.unwrap();
            }
        }
        say("DONE", json!(fleet.spent_by_key().len()));
    }

    /// A host process, its lines read as they come.
    struct Host {
        child: Child,
        lines: Arc<Mutex<Vec<String>>>,
        /// It exited (`finish`); otherwise it is killed when dropped, as a failed test unwinds.
        done: bool,
    }

    impl Drop for Host {
        fn drop(&mut self) {
            if !self.done {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
    }

    impl Host {
        fn start(spec: Value) -> Host {
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args([
                    "fleet_hosts::host_process",
                    "--exact",
                    "--ignored",
                    "--nocapture",
                ])
                .env(SPEC, spec.to_string())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let stdout = child.stdout.take().unwrap();
            let lines = Arc::new(Mutex::new(Vec::new()));
            let reading = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    reading.lock().unwrap().push(line);
                }
            });
            Host {
                child,
                lines,
                done: false,
            }
        }

        /// The values said as `what`.
        fn said(&self, what: &str) -> Vec<Value> {
            let prefix = format!("{what} ");
            self.lines
                .lock()
                .unwrap()
                .iter()
                .filter_map(|line| line.strip_prefix(&prefix))
                .map(|value| serde_json::from_str(value).unwrap())
                .collect()
        }

        /// Wait (at most `limit`) until it has said `what`.
        fn wait_for(&self, what: &str, limit: Duration) -> Value {
            let started = Instant::now();
            loop {
                if let Some(value) = self.said(what).pop() {
                    return value;
                }
                assert!(
                    started.elapsed() < limit,
                    "no {what} within {limit:?}: {:?}",
                    self.lines.lock().unwrap()
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }

        fn finish(mut self) -> Vec<Value> {
            let status = self.child.wait().unwrap();
            self.done = true;
            assert!(
                status.success(),
                "{status}: {:?}",
                self.lines.lock().unwrap()
            );
            // The reader has the last lines once the pipe closed.
            std::thread::sleep(Duration::from_millis(50));
            self.said("OUTCOME")
        }
    }

    fn spec(cluster: &Cluster, work: &TestDir, fleet: &str, host: &str, more: Value) -> Value {
        let cli = RealCli::locate().unwrap_or_else(|e| panic!("{e}"));
        let mut spec = json!({
            "config": cluster.config(),
            "fleet": fleet,
            "host": host,
            "cli": cli.path(),
            "work": work.path(),
            "lease_ms": 2000,
            "mode": "run",
            "second_prompt": "BASH:sleep 60",
        });
        for (name, value) in more.as_object().unwrap() {
            spec[name] = value.clone();
        }
        spec
    }

    /// The CLIs the host processes run now: their children, from `/proc`.
    fn clis_of(hosts: &[u32]) -> usize {
        let mut count = 0;
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // The parent's pid is the second field after the command's closing parenthesis.
            let after = &stat[stat.rfind(')').map_or(0, |at| at + 1)..];
            let parent: Option<u32> = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
            if parent.is_some_and(|parent| hosts.contains(&parent)) {
                count += 1;
            }
        }
        count
    }

    /// Places held under a live lease in `fleet`, by the database.
    async fn places_held(config: &str, fleet: &str) -> i64 {
        count(
            config,
            "SELECT count(*) FROM claude_agent.fleet_places p
             JOIN claude_agent.fleet_hosts h
                 ON h.fleet = p.fleet AND h.host = p.host AND h.epoch = p.epoch
             WHERE p.fleet = $1 AND h.lease_until > clock_timestamp()",
            fleet,
        )
        .await
    }

    /// Sessions waiting for a place in `fleet`, by the database.
    async fn waiters_of(config: &str, fleet: &str) -> i64 {
        count(
            config,
            "SELECT count(*) FROM claude_agent.fleet_waiters WHERE fleet = $1",
            fleet,
        )
        .await
    }

    /// The count `sql` reads for `fleet`: 0 before any host has made the tables.
    async fn count(config: &str, sql: &str, fleet: &str) -> i64 {
        let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        match client.query_one(sql, &[&fleet]).await {
            Ok(row) => row.get(0),
            Err(error)
                if error.code() == Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE) =>
            {
                0
            }
            Err(error) => panic!("{error}"),
        }
    }

    // Three tests, each on a cluster of its own, so that they run side by side: most of their
    // time is waiting (for leases to run out, for tools that sleep).

    #[test]
    fn many_hosts_keep_one_limit_and_one_budget() {
        let cluster = Cluster::start();
        let work = TestDir::new("fleet-work").unwrap();
        never_more_than_the_limit(&cluster, &work);
        a_budget_holds_across_hosts(&cluster, &work);
    }

    #[test]
    fn a_dead_or_frozen_hosts_sessions_are_taken_over() {
        let cluster = Cluster::start();
        let work = TestDir::new("fleet-work").unwrap();
        a_killed_hosts_session_is_taken_over(&cluster, &work);
        a_frozen_host_stores_nothing_once_taken_over(&cluster, &work);
    }

    #[test]
    fn waiters_and_places_outlive_database_faults() {
        let cluster = Cluster::start();
        let work = TestDir::new("fleet-work").unwrap();
        a_dropped_connection_loses_no_waiter(&cluster, &work);
        a_database_restart_loses_and_doubles_nothing(&cluster, &work);
    }

    /// Nine sessions on three hosts under a limit of two: never more than two CLIs at once, by
    /// the database and by `/proc`, and every session finishes.
    fn never_more_than_the_limit(cluster: &Cluster, work: &TestDir) {
        let sessions: Vec<Value> = (0..3)
            .map(|n| json!({"key": format!("tenant-{n}"), "prompt": "BASH:sleep 1 && echo slept"}))
            .collect();
        let hosts: Vec<Host> = [("a", "tokio"), ("b", "tokio"), ("c", "smol")]
            .into_iter()
            .map(|(name, runtime)| {
                Host::start(spec(
                    cluster,
                    work,
                    "limit",
                    name,
                    json!({
                        "max_sessions": 2,
                        "sessions": sessions,
                        "runtime": runtime,
                    }),
                ))
            })
            .collect();
        let pids: Vec<u32> = hosts.iter().map(|host| host.child.id()).collect();
        let sampling = Arc::new(AtomicBool::new(true));
        let sampler = {
            let sampling = sampling.clone();
            let config = cluster.config();
            std::thread::spawn(move || {
                let runtime = tokio_rt();
                let (mut most_places, mut most_clis, mut samples) = (0, 0, 0);
                while sampling.load(Ordering::SeqCst) {
                    most_places = most_places.max(runtime.block_on(places_held(&config, "limit")));
                    most_clis = most_clis.max(clis_of(&pids));
                    samples += 1;
                    std::thread::sleep(Duration::from_millis(25));
                }
                (most_places, most_clis, samples)
            })
        };
        let outcomes: Vec<Value> = hosts.into_iter().flat_map(Host::finish).collect();
        sampling.store(false, Ordering::SeqCst);
        let (most_places, most_clis, samples) = sampler.join().unwrap();
        assert_eq!(outcomes.len(), 9, "{outcomes:?}");
        assert!(outcomes.iter().all(|o| o["ok"] == true), "{outcomes:#?}");
        assert!(samples > 20, "{samples} samples");
        assert_eq!(
            most_places, 2,
            "the database held at most the limit, and reached it"
        );
        assert!((1..=2).contains(&most_clis), "{most_clis} CLIs at once");
    }

    /// One key's budget on three hosts: together they stop at it, and then every host refuses
    /// the key's next session.
    fn a_budget_holds_across_hosts(cluster: &Cluster, work: &TestDir) {
        let rt = tokio_rt();
        let config = cluster.config();
        // What one turn costs, from the database: one session of a key with no budget.
        let probe = Host::start(spec(
            cluster,
            work,
            "budget",
            "probe",
            json!({
                "sessions": [{"key": "probe", "prompt": "hello"}],
            }),
        ));
        assert!(probe.finish().iter().all(|o| o["ok"] == true));
        let turn = rt.block_on(tokens_of(&config, "budget", "probe"));
        assert!(turn > 0, "a turn costs tokens");
        // A budget of two and a half turns, and nine turns asked for, three on each host.
        let sessions: Vec<Value> = (0..3)
            .map(|_| json!({"key": "spender", "prompt": "hello"}))
            .collect();
        let hosts: Vec<Host> = [("a", "tokio"), ("b", "smol"), ("c", "tokio")]
            .into_iter()
            .map(|(name, runtime)| {
                Host::start(spec(
                    cluster,
                    work,
                    "budget",
                    name,
                    json!({
                        "budget_tokens": turn * 5 / 2,
                        "sessions": sessions,
                        "one_by_one": true,
                        "runtime": runtime,
                    }),
                ))
            })
            .collect();
        let by_host: Vec<Vec<Value>> = hosts.into_iter().map(Host::finish).collect();
        let all: Vec<&Value> = by_host.iter().flatten().collect();
        // Every session that did not end well ended over the key's budget: the ones live as it
        // was crossed (the one whose turn crossed it too), and the later ones, refused before
        // their CLI started.
        for outcome in all.iter().filter(|o| o["ok"] != true) {
            assert_eq!(outcome["over_budget"], true, "{outcome}");
        }
        for outcomes in &by_host {
            assert_eq!(outcomes.len(), 3);
            let last = &outcomes[2];
            assert_eq!(
                (&last["over_budget"], &last["messages"]),
                (&json!(true), &json!(0)),
                "every host refuses the key's next session: {outcomes:#?}"
            );
        }
        // Three turns cross a budget of two and a half; turns under way on the other hosts as
        // it was crossed may end too, but no more start.
        let (spent, turns) = rt.block_on(spending_of(&config, "budget", "spender"));
        assert!((3..=5).contains(&turns), "{turns} turns: {all:#?}");
        assert!(
            spent >= turn * 5 / 2 && spent <= turn * turns,
            "{spent} tokens in {turns} turns"
        );
    }

    /// The tokens `key` has spent, by the database.
    async fn tokens_of(config: &str, fleet: &str, key: &str) -> u64 {
        spending_of(config, fleet, key).await.0
    }

    /// The tokens `key` has spent and its turns, by the database.
    async fn spending_of(config: &str, fleet: &str, key: &str) -> (u64, u64) {
        let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        let row = client
            .query_one(
                "SELECT input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens,
                     turns
                 FROM claude_agent.fleet_keys WHERE fleet = $1 AND key = $2",
                &[&fleet, &key],
            )
            .await
            .unwrap();
        let count = |i: usize| u64::try_from(row.get::<_, i64>(i)).unwrap();
        (count(0), count(1))
    }

    /// A host killed mid-turn: its place is free within the lease, another host takes its
    /// session over from the store, and the conversation goes on with what it had.
    fn a_killed_hosts_session_is_taken_over(cluster: &Cluster, work: &TestDir) {
        let lease = Duration::from_millis(2000);
        let mut dying = Host::start(spec(
            cluster,
            work,
            "deaths",
            "a",
            json!({"mode": "midturn"}),
        ));
        let session_id = dying.wait_for("MIDTURN", Duration::from_secs(90));
        let rt = tokio_rt();
        assert_eq!(rt.block_on(places_held(&cluster.config(), "deaths")), 1);
        dying.child.kill().unwrap();
        let killed = Instant::now();
        dying.child.wait().unwrap();
        // Within the lease (and a renewal period of the watching host), the place is free.
        while rt.block_on(places_held(&cluster.config(), "deaths")) > 0 {
            assert!(
                killed.elapsed() < lease + lease / 2,
                "the place outlived the lease"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
        let freed_after = killed.elapsed();
        assert!(
            freed_after <= lease + lease / 4,
            "freed after {freed_after:?}"
        );
        let taker = Host::start(spec(
            cluster,
            work,
            "deaths",
            "b",
            json!({"mode": "takeover"}),
        ));
        let orphan = taker.wait_for("ORPHAN", Duration::from_secs(60));
        assert_eq!(orphan["session_id"], session_id);
        assert_eq!(
            orphan["cut_off_turn"], true,
            "the turn under way is reported"
        );
        let resumed = taker.wait_for("RESUMED", Duration::from_secs(90));
        assert_eq!(resumed["session_id"], session_id);
        assert_eq!(resumed["texts"], json!(["echo: which fruit?"]));
        assert_eq!(
            resumed["remembers"], true,
            "the earlier turn reached the model"
        );
        taker.finish();
    }

    /// A host frozen (`SIGSTOP`) mid-turn past its lease: another host takes its session over
    /// and goes on with it; woken, the frozen host stores nothing more of it, and closes it.
    fn a_frozen_host_stores_nothing_once_taken_over(cluster: &Cluster, work: &TestDir) {
        let frozen = Host::start(spec(
            cluster,
            work,
            "freezes",
            "a",
            json!({
                "mode": "midturn",
                "second_prompt": "BASH:sleep 3 && echo late",
            }),
        ));
        let session_id = frozen.wait_for("MIDTURN", Duration::from_secs(90));
        signal(&frozen, "STOP");
        let taker = Host::start(spec(
            cluster,
            work,
            "freezes",
            "b",
            json!({"mode": "takeover"}),
        ));
        assert_eq!(
            taker.wait_for("ORPHAN", Duration::from_secs(60))["session_id"],
            session_id
        );
        let resumed = taker.wait_for("RESUMED", Duration::from_secs(90));
        assert_eq!(resumed["remembers"], true);
        taker.finish();
        signal(&frozen, "CONT");
        let woken = frozen.wait_for("OUTCOME", Duration::from_secs(60));
        assert_eq!(woken["place_lost"], true, "{woken}");
        let stored = tokio_rt().block_on(async {
            let store = PostgresSessionStore::connect(&cluster.config())
                .await
                .unwrap()
                .with_schema("fleet_sessions");
            let id = session_id.as_str().unwrap();
            let key = SessionKey::new(project_key_for_directory(Some(work.path())), id);
            stored_texts(&store.load(&key).await.unwrap().unwrap())
        });
        assert!(
            stored.contains(&"assistant: echo: which fruit?".to_owned()),
            "{stored:?}"
        );
        assert!(
            !stored
                .iter()
                .any(|text| text.contains("late") && !text.contains("echo late")),
            "the frozen host stored its turn's end after the takeover: {stored:?}"
        );
        frozen.finish();
    }

    fn signal(host: &Host, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &host.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Wait (at most a minute) until `fleet` holds `places` places and `waiters` waiters.
    fn wait_for_fleet(config: &str, fleet: &str, places: i64, waiters: i64) {
        let rt = tokio_rt();
        let started = Instant::now();
        loop {
            let now = rt.block_on(async {
                (
                    places_held(config, fleet).await,
                    waiters_of(config, fleet).await,
                )
            });
            if now == (places, waiters) {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{fleet}: {now:?}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Every connection to the database but the caller's own is ended (a proxy dropping them).
    async fn drop_connections(config: &str) {
        let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
                &[],
            )
            .await
            .unwrap();
    }

    /// A session waiting for its place when the host's connection is dropped: it gets the
    /// place once the other session ends, and nothing is left held.
    fn a_dropped_connection_loses_no_waiter(cluster: &Cluster, work: &TestDir) {
        let config = cluster.config();
        let host = Host::start(spec(
            cluster,
            work,
            "drops",
            "a",
            json!({
                "max_sessions": 1,
                "sessions": [
                    {"key": "k", "prompt": "BASH:sleep 3 && echo first"},
                    {"key": "k", "prompt": "BASH:sleep 1 && echo second"},
                ],
            }),
        ));
        wait_for_fleet(&config, "drops", 1, 1);
        tokio_rt().block_on(drop_connections(&config));
        let outcomes = host.finish();
        assert_eq!(outcomes.len(), 2);
        assert!(outcomes.iter().all(|o| o["ok"] == true), "{outcomes:#?}");
        wait_for_fleet(&config, "drops", 0, 0);
    }

    /// The database restarts while two hosts hold every place and sessions wait: every session
    /// finishes, each turn is charged once, and no place is left held.
    fn a_database_restart_loses_and_doubles_nothing(cluster: &Cluster, work: &TestDir) {
        let config = cluster.config();
        let sessions: Vec<Value> = (0..3)
            .map(|_| json!({"key": "restarts", "prompt": "BASH:sleep 2 && echo ok"}))
            .collect();
        let hosts: Vec<Host> = ["a", "b"]
            .into_iter()
            .map(|name| {
                Host::start(spec(
                    cluster,
                    work,
                    "restarts",
                    name,
                    json!({
                        "max_sessions": 2,
                        "lease_ms": 10_000,
                        "sessions": sessions,
                    }),
                ))
            })
            .collect();
        wait_for_fleet(&config, "restarts", 2, 4);
        cluster.stop_server();
        std::thread::sleep(Duration::from_millis(500));
        cluster.start_server();
        let outcomes: Vec<Value> = hosts.into_iter().flat_map(Host::finish).collect();
        assert_eq!(outcomes.len(), 6);
        assert!(outcomes.iter().all(|o| o["ok"] == true), "{outcomes:#?}");
        wait_for_fleet(&config, "restarts", 0, 0);
        let (_, turns) = tokio_rt().block_on(spending_of(&config, "restarts", "restarts"));
        assert_eq!(turns, 6, "each turn charged once");
    }
}
