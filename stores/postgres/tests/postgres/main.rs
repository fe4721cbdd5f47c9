//! The PostgreSQL store against throwaway PostgreSQL 15 clusters: each started in a temporary
//! directory on a free 127.0.0.1 port (as `nobody` when the tests run as root, which `initdb`
//! refuses), and stopped and removed afterwards. Needs the server's binaries in
//! `/usr/lib/postgresql/15/bin` (or `CLAUDE_AGENT_PG_BIN`), the TLS test the `openssl` program
//! (which Debian's PostgreSQL packages depend on), and the session test the real CLI
//! (`scripts/install-claude-cli`, or `CLAUDE_AGENT_E2E_CLI`): the tests fail, never skip,
//! without them.

use std::sync::Arc;
use std::time::Duration;

use claude_agent_client::store::{project_key_for_directory, SessionKey, SessionStore};
use claude_agent_core::message::{Message, SystemMessage};
use claude_agent_store_postgres::PostgresSessionStore;
use claude_agent_testkit::real_cli::{real_cli_env, RealCli, TestDir};
use claude_agent_testkit::store_conformance::run_session_store_conformance;
use claude_agent_testkit::stub_api::StubApi;
use claude_agent_tokio::options::SessionStart;
use claude_agent_tokio::Options;
use futures_lite::StreamExt;
use serde_json::{json, Value};

mod cluster;
mod transcripts;

use cluster::{tokio_rt, Cluster};
use transcripts::{line, session_of, stored_texts, texts};

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
