//! The machine cairn runs on, as a host: commands run as child processes, no shell.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Clock, ExecOutput, ExecRequest, Transport, TransportError};

/// Runs commands on this machine.
#[derive(Debug, Default)]
pub struct LocalTransport;

impl Transport for LocalTransport {
    fn exec(&mut self, request: &ExecRequest) -> Result<ExecOutput, TransportError> {
        let command_line = request.argv.join(" ");
        let io = |context: &str, source| TransportError::Io {
            context: format!("{context} `{command_line}`"),
            source,
        };
        let Some((program, args)) = request.argv.split_first() else {
            return Err(io(
                "cannot run",
                std::io::Error::other("empty argument list"),
            ));
        };
        if let Some(index) = request.argv.iter().position(|arg| arg.contains('\0')) {
            // The OS takes arguments as C strings, which end at the first NUL: the command
            // would run with a shorter argument than the runbook gave, so it does not run.
            let which = if index == 0 {
                "the program's name".to_owned()
            } else {
                format!("argument {index}")
            };
            return Err(TransportError::Io {
                context: format!(
                    "cannot start `{}`: {which} holds a NUL byte, which no command-line argument can carry",
                    command_line.replace('\0', "\\0")
                ),
                source: std::io::Error::from(std::io::ErrorKind::InvalidInput),
            });
        }
        let mut child = Command::new(program)
            .args(args)
            .stdin(if request.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| io("cannot start", e))?;
        if let (Some(input), Some(mut stdin)) = (&request.stdin, child.stdin.take()) {
            stdin
                .write_all(input.as_bytes())
                .map_err(|e| io("cannot write input to", e))?;
        }
        let stdout = child.stdout.take().map(read_in_background);
        let stderr = child.stderr.take().map(read_in_background);
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| io("cannot wait for", e))? {
                break status;
            }
            if request
                .interrupt
                .as_ref()
                .is_some_and(crate::Cancel::is_cancelled)
            {
                let _ = child.kill();
                let _ = child.wait();
                return Err(TransportError::Stopped {
                    command: command_line,
                    host: "local".into(),
                });
            }
            if let Some(limit) = request.timeout.filter(|limit| started.elapsed() > *limit) {
                let _ = child.kill();
                let _ = child.wait();
                return Err(TransportError::TimedOut {
                    command: command_line,
                    host: "local".into(),
                    seconds: limit.as_secs(),
                });
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let code = status
            .code()
            .map_or_else(|| 128 + signal_of(&status), i64::from);
        let collect = |reader: Option<std::thread::JoinHandle<Vec<u8>>>| {
            reader
                .and_then(|handle| handle.join().ok())
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_default()
        };
        Ok(ExecOutput {
            code,
            stdout: collect(stdout),
            stderr: collect(stderr),
        })
    }

    fn clock(&self) -> Clock {
        Clock::Real
    }

    fn describe(&self) -> String {
        "local".into()
    }
}

fn read_in_background<R: Read + Send + 'static>(mut reader: R) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = reader.read_to_end(&mut bytes);
        bytes
    })
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> i64 {
    use std::os::unix::process::ExitStatusExt;
    status.signal().map_or(0, i64::from)
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> i64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_arguments_arrive_as_one_literal_argument() {
        let hostile = "a; echo pwned $(id) 'q' \"d\"\nline2";
        let out = LocalTransport
            .exec(&ExecRequest::new(["printf", "%s", hostile]))
            .expect("printf runs");
        assert_eq!(out.code, 0);
        assert_eq!(out.stdout, hostile);
    }

    #[test]
    fn non_zero_exit_is_reported_not_an_error() {
        let out = LocalTransport
            .exec(&ExecRequest::new(["false"]))
            .expect("false runs");
        assert_eq!(out.code, 1);
    }

    #[test]
    fn an_argument_with_a_nul_is_refused_with_the_reason_and_nothing_runs() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let made = dir.path().join("made");
        let path = made.display().to_string();
        let err = LocalTransport
            .exec(&ExecRequest::new(["touch", &format!("{path}\0x")]))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("argument 1 holds a NUL byte"), "{err}");
        assert!(err.contains(&format!("`touch {path}\\0x`")), "{err}");
        assert!(!made.exists(), "touch ran with a cut argument");
    }

    #[test]
    fn a_missing_program_is_an_io_error() {
        let err = LocalTransport
            .exec(&ExecRequest::new(["/nonexistent/cairn-x"]))
            .unwrap_err();
        assert!(matches!(err, TransportError::Io { .. }), "{err}");
    }
}
