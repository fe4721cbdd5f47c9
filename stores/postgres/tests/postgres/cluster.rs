//! A throwaway PostgreSQL 15 cluster for a test: its own directory and 127.0.0.1 port, its
//! server run as `nobody` under root; stopped and removed on drop.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A PostgreSQL cluster of its own, removed on drop.
pub struct Cluster {
    bin: PathBuf,
    pub dir: PathBuf,
    pub port: u16,
    /// Run the server's programs as this user (`nobody` under root).
    user: Option<&'static str>,
    /// More server options (`-c ssl=on …`).
    extra: String,
}

impl Cluster {
    pub fn start() -> Cluster {
        Cluster::start_with(false).0
    }

    /// A cluster that also takes TLS, with a certificate for `localhost` signed by a CA of its
    /// own; with the CA's certificate (PEM). Only the store's tests start one; the fleet's share
    /// this file.
    #[allow(dead_code)]
    pub fn start_tls() -> (Cluster, String) {
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

    pub fn start_server(&self) {
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
    pub fn stop_server(&self) {
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

    pub fn config(&self) -> String {
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

pub fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

pub fn path(p: &Path) -> &str {
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
