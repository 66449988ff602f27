//! A proxy in front of a PostgreSQL server's Unix socket that can stop forwarding while it
//! keeps every socket open, as a hung pooler or a half-dead network path does: the store
//! then answers nothing and no connection breaks. It can also stall at a given statement, so
//! that the store goes silent after a connection's login, midway through a command.

use std::io::{Read, Write};
use std::net::Shutdown;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// PostgreSQL's socket file in a socket folder (port 5432).
const SOCKET: &str = ".s.PGSQL.5432";

/// A proxy from a socket folder of its own to the server's; once stalled, it reads and
/// forwards nothing more, and closes nothing until it is dropped (which closes every socket it
/// holds, so that the server's backends end).
pub struct StallingProxy {
    dir: tempfile::TempDir,
    state: Arc<ProxyState>,
}

#[derive(Default)]
struct ProxyState {
    stalled: AtomicBool,
    closed: AtomicBool,
    /// Stall when a client sends a message holding these bytes (a statement's text).
    stall_at: Mutex<Option<Vec<u8>>>,
    /// Every socket the proxy opened or accepted, to shut down when dropped.
    sockets: Mutex<Vec<UnixStream>>,
}

impl StallingProxy {
    /// A proxy to the server whose socket is in `server_dir`.
    pub fn to(server_dir: &Path) -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("proxy dir: {e}"));
        let listener = UnixListener::bind(dir.path().join(SOCKET))
            .unwrap_or_else(|e| panic!("proxy socket: {e}"));
        let state = Arc::new(ProxyState::default());
        let upstream = server_dir.join(SOCKET);
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if shared.closed.load(Ordering::SeqCst) {
                    return;
                }
                // Once stalled, a new client is held too, and never reaches the server.
                let mut sockets = shared.sockets.lock().unwrap_or_else(|e| e.into_inner());
                if shared.stalled.load(Ordering::SeqCst) {
                    sockets.push(client);
                    continue;
                }
                drop(sockets);
                let Ok(server) = UnixStream::connect(&upstream) else {
                    continue;
                };
                for (from, to, from_client) in [(&client, &server, true), (&server, &client, false)]
                {
                    let (from, to) = (from.try_clone(), to.try_clone());
                    if let (Ok(from), Ok(to)) = (from, to) {
                        let shared = Arc::clone(&shared);
                        std::thread::spawn(move || pump(from, to, from_client, &shared));
                    }
                }
                let mut sockets = shared.sockets.lock().unwrap_or_else(|e| e.into_inner());
                sockets.extend([client, server]);
            }
        });
        Self { dir, state }
    }

    /// The proxy's socket folder, for a URL's `?host=`.
    pub fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// From now on, nothing more is forwarded, and nothing is closed.
    pub fn stall(&self) {
        self.state.stalled.store(true, Ordering::SeqCst);
    }

    /// Stalls, as [`StallingProxy::stall`] does, when a client sends a statement holding
    /// `text`; that statement is not forwarded. Connections open and log in until then.
    pub fn stall_at_statement(&self, text: &str) {
        let mut stall_at = self
            .state
            .stall_at
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *stall_at = Some(text.as_bytes().to_vec());
    }
}

impl ProxyState {
    /// Whether `bytes` from a client hold the statement to stall at; stalled from then on.
    fn stalls_at(&self, bytes: &[u8]) -> bool {
        let stall_at = self.stall_at.lock().unwrap_or_else(|e| e.into_inner());
        let Some(text) = stall_at.as_deref().filter(|text| !text.is_empty()) else {
            return false;
        };
        let holds = bytes.windows(text.len()).any(|window| window == text);
        if holds {
            self.stalled.store(true, Ordering::SeqCst);
        }
        holds
    }
}

impl Drop for StallingProxy {
    fn drop(&mut self) {
        self.state.closed.store(true, Ordering::SeqCst);
        let sockets = self.state.sockets.lock().unwrap_or_else(|e| e.into_inner());
        for socket in sockets.iter() {
            let _ = socket.shutdown(Shutdown::Both);
        }
        // Wakes the listener, which then sees the proxy closed.
        let _ = UnixStream::connect(self.dir.path().join(SOCKET));
    }
}

/// Copies `from` to `to` until the proxy stalls; then holds both, reading nothing, until the
/// proxy is dropped.
fn pump(mut from: UnixStream, mut to: UnixStream, from_client: bool, state: &ProxyState) {
    let _ = from.set_read_timeout(Some(Duration::from_millis(20)));
    let mut buffer = [0u8; 16 * 1024];
    while !state.closed.load(Ordering::SeqCst) {
        if state.stalled.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        match from.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                if from_client && state.stalls_at(&buffer[..n]) {
                    continue;
                }
                if to.write_all(&buffer[..n]).is_err() {
                    return;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}
