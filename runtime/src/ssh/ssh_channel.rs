//! One command on an open SSH session: a channel, its input, its output read in slices before
//! its deadline (standard error drained meanwhile), and its exit code or signal.

use std::io::{ErrorKind, Read, Write};
use std::time::{Duration, Instant};

use ssh2::{Channel, Session};

use super::ssh_connect::millis;
use crate::{ExecOutput, ExecRequest};

/// How long one blocking read waits before the command's deadline is looked at again and
/// standard error is drained (so a command that fills it cannot stall).
const READ_SLICE: Duration = Duration::from_millis(200);

/// Why one command on an open session did not give an answer.
pub(super) enum Failure {
    /// The command was not sent: the session is stale; a new one may run it.
    NotStarted(String),
    /// The command was sent and the connection failed: its outcome is unknown.
    Interrupted,
    /// The deadline passed.
    TimedOut,
    /// The operator stopped it (the REPL's Ctrl-C); dropping the session closes its channel.
    Stopped,
}

/// Runs `line` on the open session.
pub(super) fn run(
    session: &Session,
    line: &str,
    request: &ExecRequest,
    idle: Duration,
    keepalive: Duration,
) -> Result<ExecOutput, Failure> {
    let deadline = request.timeout.map(|limit| Instant::now() + limit);
    let remaining = || deadline.map(|d| d.saturating_duration_since(Instant::now()));
    session.set_timeout(millis(remaining().unwrap_or(Duration::from_secs(60))));
    if idle >= keepalive {
        // A session idle for long may have died quietly (a reboot); find out before sending.
        session
            .keepalive_send()
            .map_err(|e| Failure::NotStarted(e.to_string()))?;
    }
    let mut channel = session
        .channel_session()
        .map_err(|e| Failure::NotStarted(e.to_string()))?;
    channel.exec(line).map_err(|_| Failure::Interrupted)?;
    if let Some(input) = &request.stdin {
        channel
            .write_all(input.as_bytes())
            .map_err(|_| Failure::Interrupted)?;
    }
    channel.send_eof().map_err(|_| Failure::Interrupted)?;
    let (stdout, stderr) = read_all(session, &mut channel, deadline, request.interrupt.as_ref())?;
    session.set_timeout(millis(remaining().unwrap_or(Duration::from_secs(60))));
    channel.wait_close().map_err(|e| classify(&e.into()))?;
    let signal = channel.exit_signal().ok().and_then(|s| s.exit_signal);
    let code = match signal {
        Some(name) => 128 + signal_number(&name),
        None => i64::from(channel.exit_status().map_err(|_| Failure::Interrupted)?),
    };
    Ok(ExecOutput {
        code,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
    })
}

/// Reads standard output to its end, draining standard error whenever output is idle, then
/// standard error to its end; all before `deadline`.
fn read_all(
    session: &Session,
    channel: &mut Channel,
    deadline: Option<Instant>,
    interrupt: Option<&crate::Cancel>,
) -> Result<(Vec<u8>, Vec<u8>), Failure> {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut buffer = vec![0_u8; 32 * 1024];
    let slice = |limit: Duration| {
        let left = deadline.map_or(limit, |d| d.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            return Err(Failure::TimedOut);
        }
        session.set_timeout(millis(left.min(limit)));
        Ok(())
    };
    loop {
        if interrupt.is_some_and(crate::Cancel::is_cancelled) {
            return Err(Failure::Stopped);
        }
        slice(READ_SLICE)?;
        match channel.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => stdout.extend_from_slice(buffer.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == ErrorKind::TimedOut || e.kind() == ErrorKind::WouldBlock => {
                session.set_timeout(1);
                let mut errors = channel.stderr();
                while let Ok(n) = errors.read(&mut buffer) {
                    if n == 0 {
                        break;
                    }
                    stderr.extend_from_slice(buffer.get(..n).unwrap_or_default());
                }
            }
            Err(e) => return Err(classify(&e)),
        }
    }
    let mut errors = channel.stderr();
    loop {
        if interrupt.is_some_and(crate::Cancel::is_cancelled) {
            return Err(Failure::Stopped);
        }
        slice(READ_SLICE)?;
        match errors.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => stderr.extend_from_slice(buffer.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == ErrorKind::TimedOut || e.kind() == ErrorKind::WouldBlock => {}
            Err(e) => return Err(classify(&e)),
        }
    }
    Ok((stdout, stderr))
}

fn classify(error: &std::io::Error) -> Failure {
    if error.kind() == ErrorKind::TimedOut {
        Failure::TimedOut
    } else {
        Failure::Interrupted
    }
}

/// The number of a signal named as SSH names them (`KILL`, `TERM`, ...).
fn signal_number(name: &str) -> i64 {
    match name.trim_start_matches("SIG") {
        "HUP" => 1,
        "INT" => 2,
        "QUIT" => 3,
        "ILL" => 4,
        "ABRT" => 6,
        "FPE" => 8,
        "KILL" => 9,
        "USR1" => 10,
        "SEGV" => 11,
        "USR2" => 12,
        "PIPE" => 13,
        "ALRM" => 14,
        _ => 15,
    }
}
