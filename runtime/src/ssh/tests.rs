//! The transport against a real OpenSSH server on 127.0.0.1 running a real shell (skipped, with
//! the reason printed, where `/usr/sbin/sshd` is absent).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{SshOptions, SshTarget, SshTransport};
use crate::{ExecRequest, Transport, TransportError};

const SSHD: &str = "/usr/sbin/sshd";

struct Sshd {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keygen(path: &Path) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .status();
    assert!(status.is_ok_and(|s| s.success()), "ssh-keygen");
}

fn sshd(test: &str) -> Option<Sshd> {
    if !Path::new(SSHD).exists() {
        eprintln!("SKIPPED {test}: {SSHD} is absent");
        return None;
    }
    let _ = std::fs::create_dir_all("/run/sshd");
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path();
    keygen(&path.join("host_key"));
    keygen(&path.join("client_key"));
    let _ = std::fs::copy(path.join("client_key.pub"), path.join("authorized_keys"));
    for _ in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or_else(|e| panic!("{e}"));
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {p}/host_key\nPidFile {p}/sshd.pid\nAuthorizedKeysFile {p}/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nLogLevel ERROR\nSubsystem sftp /usr/lib/openssh/sftp-server\n",
            p = path.display()
        );
        std::fs::write(path.join("sshd_config"), config).unwrap_or_else(|e| panic!("{e}"));
        let mut child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(path.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("sshd: {e}"));
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                break;
            }
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(Sshd { child, dir, port });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("sshd did not start");
}

impl Sshd {
    fn options(&self) -> SshOptions {
        SshOptions {
            accept_new_host_keys: true,
            identity_file: Some(self.dir.path().join("client_key")),
            known_hosts: self.dir.path().join("known_hosts"),
            ssh_config: self.dir.path().join("no_config"),
            ..SshOptions::default()
        }
    }

    fn transport(&self) -> SshTransport {
        let options = self.options();
        let target = SshTarget::resolve("127.0.0.1", Some(self.port), Some("root"), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        SshTransport::new("lab", target, options)
    }
}

fn exec(transport: &mut SshTransport, argv: &[&str]) -> crate::ExecOutput {
    transport
        .exec(&ExecRequest::new(argv.iter().copied()))
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"))
}

#[test]
fn commands_share_one_session_and_arguments_stay_literal() {
    let Some(server) = sshd("commands_share_one_session_and_arguments_stay_literal") else {
        return;
    };
    let mut ssh = server.transport();
    let first = exec(&mut ssh, &["sh", "-c", "echo $PPID"]);
    let second = exec(&mut ssh, &["sh", "-c", "echo $PPID"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        first.stdout, second.stdout,
        "one session serves both channels"
    );
    let hostile = "a; echo pwned $(id) `id` 'q' \"d\"\nline2 * ~ \\";
    let out = exec(&mut ssh, &["printf", "%s", hostile]);
    assert_eq!(out.stdout, hostile);
    let mut with_input = ExecRequest::new(["cat"]);
    with_input.stdin = Some("to stdin\n".into());
    let echoed = ssh.exec(&with_input).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(echoed.stdout, "to stdin\n");
    let both = exec(&mut ssh, &["sh", "-c", "echo err >&2; echo out; exit 3"]);
    assert_eq!(
        (both.code, both.stdout.as_str(), both.stderr.as_str()),
        (3, "out\n", "err\n")
    );
    let killed = exec(&mut ssh, &["sh", "-c", "kill -TERM $$"]);
    assert_eq!(killed.code, 143);
    // More standard error than the channel window holds, before any output: no stall.
    let flood = exec(
        &mut ssh,
        &[
            "sh",
            "-c",
            "head -c 3000000 /dev/zero | tr '\\0' e >&2; echo done",
        ],
    );
    assert_eq!(
        (flood.stdout.as_str(), flood.stderr.len()),
        ("done\n", 3_000_000)
    );
}

#[test]
fn timeouts_drops_and_refusals_are_typed() {
    let Some(server) = sshd("timeouts_drops_and_refusals_are_typed") else {
        return;
    };
    let mut ssh = server.transport();
    let mut slow = ExecRequest::new(["sleep", "5"]);
    slow.timeout = Some(Duration::from_millis(500));
    let started = Instant::now();
    let err = ssh.exec(&slow).err();
    assert!(
        matches!(err, Some(TransportError::TimedOut { .. })),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        exec(&mut ssh, &["true"]).code,
        0,
        "a new session after a timeout"
    );
    // The session's server process dies under the command: the outcome is unknown.
    let err = ssh
        .exec(&ExecRequest::new(["sh", "-c", "kill -9 $PPID; sleep 1"]))
        .err();
    assert!(
        matches!(err, Some(TransportError::Interrupted { .. })),
        "{err:?}"
    );
    assert_eq!(exec(&mut ssh, &["true"]).code, 0, "reconnects");
    ssh.disconnect();
    assert!(!ssh.is_connected());
    let options = server.options();
    let closed = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("{e}"));
    let target = SshTarget::resolve("127.0.0.1", Some(closed), Some("root"), &options)
        .unwrap_or_else(|e| panic!("{e}"));
    let err = SshTransport::new("gone", target, options)
        .exec(&ExecRequest::new(["true"]))
        .err();
    assert!(
        matches!(err, Some(TransportError::Unreachable { .. })),
        "{err:?}"
    );
}

#[test]
fn uploads_skip_a_file_with_the_same_checksum() {
    let Some(server) = sshd("uploads_skip_a_file_with_the_same_checksum") else {
        return;
    };
    let mut ssh = server.transport();
    let local: PathBuf = server.dir.path().join("payload.bin");
    std::fs::write(&local, b"firmware v1").unwrap_or_else(|e| panic!("{e}"));
    let remote = server.dir.path().join("remote/payload.bin");
    let _ = std::fs::create_dir_all(server.dir.path().join("remote"));
    let remote = remote.display().to_string();
    assert!(matches!(ssh.upload(&local, &remote), Ok(true)));
    assert!(
        matches!(ssh.upload(&local, &remote), Ok(false)),
        "same bytes: skipped"
    );
    std::fs::write(&local, b"firmware v2").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(ssh.upload(&local, &remote), Ok(true)));
    assert_eq!(std::fs::read(&remote).ok(), Some(b"firmware v2".to_vec()));
    assert!(ssh.upload(&local, "relative/path").is_err());
}

#[test]
fn a_password_is_asked_once_per_variable_name_or_account() {
    use super::PasswordPrompt;
    use super::ssh_connect::password_request;
    let target = |host: &str| SshTarget {
        alias: host.into(),
        connect_timeout: Duration::from_secs(1),
        host_name: host.into(),
        identity_files: Vec::new(),
        keepalive: Duration::from_secs(30),
        port: 22,
        proxy_jump: Vec::new(),
        user: "root".into(),
    };
    let mut options = SshOptions::default();
    assert_eq!(
        password_request(&target("a"), &options),
        None,
        "no password login"
    );
    options.password_prompt = Some(PasswordPrompt::PerHost);
    let per_host = |host: &str, options: &SshOptions| {
        password_request(&target(host), options).map(|r| (r.key, r.variable))
    };
    assert_ne!(per_host("a", &options), per_host("b", &options));
    options.password_prompt = Some(PasswordPrompt::Shared("esx-root".into()));
    assert_eq!(per_host("a", &options), per_host("b", &options));
    options.password_env = Some("ESX_PASSWORD".into());
    let Some(request) = password_request(&target("a"), &options) else {
        panic!("a password login");
    };
    assert_eq!(request.variable.as_deref(), Some("ESX_PASSWORD"));
    assert!(
        request.prompt.contains("$ESX_PASSWORD is not set"),
        "{}",
        request.prompt
    );
    assert_eq!(per_host("a", &options), per_host("b", &options));
}

#[test]
fn host_vars_choose_the_password_and_passphrase_sources() {
    use super::PasswordPrompt;
    use serde_json::json;
    let vars = |pairs: serde_json::Value| -> std::collections::BTreeMap<String, serde_json::Value> {
        serde_json::from_value(pairs).unwrap_or_else(|e| panic!("{e}"))
    };
    let Ok(options) = SshOptions::for_host(
        &vars(json!({
            "password_prompt": "esx-root",
            "identity_passphrase_env": "LAB_PASSPHRASE",
        })),
        None,
    ) else {
        panic!("valid vars");
    };
    assert_eq!(
        options.password_prompt,
        Some(PasswordPrompt::Shared("esx-root".into()))
    );
    assert_eq!(
        options.identity_passphrase_env.as_deref(),
        Some("LAB_PASSPHRASE")
    );
    let Ok(per_host) = SshOptions::for_host(&vars(json!({"password_prompt": true})), None) else {
        panic!("valid vars");
    };
    assert_eq!(per_host.password_prompt, Some(PasswordPrompt::PerHost));
    for bad in [
        json!({"password_prompt": 3}),
        json!({"password_prompt": ""}),
        json!({"identity_passphrase_env": false}),
    ] {
        assert!(
            SshOptions::for_host(&vars(bad.clone()), None).is_err(),
            "{bad}"
        );
    }
}
