//! A TCP proxy on 127.0.0.1 in front of the cluster, for one host's connections: it passes
//! bytes, stalls them (the connections stay open and nothing moves, as on a network that
//! drops packets), or cuts every connection at once.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

pub struct Proxy {
    port: u16,
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Told when a stall ends.
    moving: Condvar,
    closing: AtomicBool,
}

#[derive(Default)]
struct State {
    stalled: bool,
    /// Both ends of every connection open now, to cut them.
    open: Vec<TcpStream>,
}

impl Proxy {
    /// A proxy to `upstream` (a port on 127.0.0.1), passing bytes.
    pub fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            moving: Condvar::new(),
            closing: AtomicBool::new(false),
        });
        let accepting = shared.clone();
        std::thread::spawn(move || accept(&listener, upstream, &accepting));
        Proxy { port, shared }
    }

    /// The connection configuration of the cluster through this proxy.
    pub fn config(&self) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres",
            self.port
        )
    }

    /// Stop moving bytes (`true`), or move them again.
    pub fn stall(&self, stalled: bool) {
        self.shared.state.lock().unwrap().stalled = stalled;
        self.shared.moving.notify_all();
    }

    /// Close every connection open now, both ends.
    pub fn cut(&self) {
        let open = std::mem::take(&mut self.shared.state.lock().unwrap().open);
        for stream in open {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        self.stall(false);
        self.cut();
    }
}

fn accept(listener: &TcpListener, upstream: u16, shared: &Arc<Shared>) {
    while !shared.closing.load(Ordering::SeqCst) {
        let client = match listener.accept() {
            Ok((client, _)) => client,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(_) => continue,
        };
        client.set_nonblocking(false).unwrap();
        // The server down: the client sees its connection closed, as it would.
        let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
            continue;
        };
        // Each write goes out at once, as between the client and the server directly.
        for stream in [&client, &server] {
            let _ = stream.set_nodelay(true);
        }
        {
            let mut state = shared.state.lock().unwrap();
            for stream in [&client, &server] {
                state.open.push(stream.try_clone().unwrap());
            }
        }
        for (from, to) in [
            (client.try_clone().unwrap(), server.try_clone().unwrap()),
            (server, client),
        ] {
            let shared = shared.clone();
            std::thread::spawn(move || pump(from, to, &shared));
        }
    }
}

/// Bytes from `from` to `to` until either end closes; a stall holds what was read.
fn pump(mut from: TcpStream, mut to: TcpStream, shared: &Shared) {
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut state = shared.state.lock().unwrap();
        while state.stalled && !shared.closing.load(Ordering::SeqCst) {
            state = shared.moving.wait(state).unwrap();
        }
        drop(state);
        if to.write_all(&buffer[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
    let _ = from.shutdown(Shutdown::Read);
}
