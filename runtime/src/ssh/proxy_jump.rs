//! `ProxyJump`: OpenSSH's own `ssh -W host:port` through the jump hosts (as `ssh -J` does), its
//! standard input and output bridged to one end of a socket pair; the session talks SSH over the
//! other end. The `ssh` command reads the same `~/.ssh/config` and known_hosts file as cairn
//! (OpenSSH looks for them in the password database's home, not in `$HOME`, so they are named).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{SshOptions, SshTarget};

/// The `ssh -W` behind one session: what it said on standard error, for a failed handshake.
pub(crate) struct ProxyJump {
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_done: Arc<Mutex<bool>>,
}

impl ProxyJump {
    /// Starts `ssh -W` to `target` through its jump hosts; the stream to hand to the session.
    pub(crate) fn start(
        target: &SshTarget,
        options: &SshOptions,
    ) -> Result<(UnixStream, Self), String> {
        let Some((last, before)) = target.proxy_jump.split_last() else {
            return Err("no jump host".into());
        };
        let (ours, theirs) =
            UnixStream::pair().map_err(|e| format!("cannot make a socket pair: {e}"))?;
        let mut command = Command::new("ssh");
        command.args(["-o", "BatchMode=yes"]);
        if options.ssh_config.exists() {
            command.arg("-F").arg(&options.ssh_config);
        }
        command
            .arg("-o")
            .arg(format!(
                "UserKnownHostsFile={}",
                options.known_hosts.display()
            ))
            .arg("-o")
            .arg(format!(
                "ConnectTimeout={}",
                target.connect_timeout.as_secs().max(1)
            ))
            .arg("-W")
            .arg(format!("{}:{}", target.host_name, target.port));
        if !before.is_empty() {
            command.arg("-J").arg(before.join(","));
        }
        let mut child = command
            .arg("--")
            .arg(format!("ssh://{last}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `ssh -W` for ProxyJump {last}: {e}"))?;
        let (Some(mut to_child), Some(mut from_child), Some(mut errors)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("`ssh -W` has no pipes".into());
        };
        let mut reader = theirs
            .try_clone()
            .map_err(|e| format!("cannot clone a socket: {e}"))?;
        let mut writer = theirs;
        std::thread::spawn(move || pump(&mut reader, &mut to_child));
        std::thread::spawn(move || {
            pump(&mut from_child, &mut writer);
            let _ = writer.shutdown(std::net::Shutdown::Both);
            let _ = child.kill();
            let _ = child.wait();
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stderr_done = Arc::new(Mutex::new(false));
        let (text, done) = (Arc::clone(&stderr), Arc::clone(&stderr_done));
        std::thread::spawn(move || {
            let mut buffer = [0_u8; 1024];
            while let Ok(n) = errors.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let mut text = text
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                // Keep the start of it: OpenSSH says what went wrong in a line or two.
                if text.len() < 4096 {
                    text.extend_from_slice(buffer.get(..n).unwrap_or_default());
                }
            }
            *done
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        });
        Ok((
            ours,
            Self {
                stderr,
                stderr_done,
            },
        ))
    }

    /// What `ssh -W` said (waiting a moment for it to finish saying it), as `; ssh -W: ...`, or
    /// nothing.
    pub(crate) fn failure(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        while !*self
            .stderr_done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        let text = self
            .stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let text = String::from_utf8_lossy(&text);
        let said: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if said.is_empty() {
            String::new()
        } else {
            format!("; the ProxyJump `ssh -W` said: {}", said.join(" / "))
        }
    }
}

/// Copies `from` to `to` until the end or an error, with plain reads and writes: `std::io::copy`
/// would `splice` a socket into a pipe, and on some kernels the bytes then reach the reader of
/// the pipe only when the socket closes (seen here as a handshake that timed out).
fn pump(from: &mut impl Read, to: &mut impl Write) {
    let mut buffer = vec![0_u8; 32 * 1024];
    loop {
        match from.read(&mut buffer) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let Some(chunk) = buffer.get(..n) else {
                    return;
                };
                if to.write_all(chunk).and_then(|()| to.flush()).is_err() {
                    return;
                }
            }
        }
    }
}
