//! A lab of real OpenSSH servers on 127.0.0.1, each serving one simulated host through
//! `cairn-simhost` (sshd's `ForceCommand`), with its own port, host key and state directory.
//!
//! The client side lives in the lab's own `HOME`: `~/.ssh/config` names every host (HostName,
//! Port, User, IdentityFile), `~/.ssh/known_hosts` starts empty. Servers are stopped by PID,
//! with the session processes they forked, when the lab is dropped.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cairn_tests::{Lab, Run, binary};

/// The OpenSSH server the lab runs.
pub(crate) const SSHD: &str = "/usr/sbin/sshd";

/// Whether the lab can run; prints why not when it cannot.
pub(crate) fn available(test: &str) -> bool {
    if Path::new(SSHD).exists() {
        return true;
    }
    eprintln!("SKIPPED {test}: {SSHD} is absent (apt-get install openssh-server)");
    false
}

/// One sshd serving one simulated host (or, `simulated: false`, this machine itself).
struct LabHost {
    child: Option<Child>,
    dir: PathBuf,
    /// More `NAME=VALUE` words for the sessions' environment (sshd's `SetEnv`).
    env: String,
    /// Lines added to the host's block in `~/.ssh/config` (`ProxyJump node01`).
    extra_config: String,
    /// The client's key for this host (default: the lab key).
    identity: Option<PathBuf>,
    name: String,
    port: u16,
    simulated: bool,
}

/// N sshd servers and a `HOME` for the cairn that reaches them.
pub(crate) struct SshLab {
    hosts: Vec<LabHost>,
    pub(crate) lab: Lab,
    sim_options: String,
}

impl SshLab {
    /// Starts `count` servers for hosts `node01`..., whose simulated hosts take `sim_options`
    /// (`reboot_secs=1`: real time, as each command is a new process).
    pub(crate) fn start(count: usize, sim_options: &str) -> Self {
        let lab = Lab::new();
        if !Path::new("/run/sshd").exists() {
            // sshd's privilege separation directory, which Debian's package makes at boot.
            let _ = std::fs::create_dir_all("/run/sshd");
        }
        let ssh_dir = lab.path().join("home/.ssh");
        std::fs::create_dir_all(&ssh_dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        keygen(&ssh_dir.join("lab_key"));
        let public = std::fs::read_to_string(ssh_dir.join("lab_key.pub"))
            .unwrap_or_else(|e| panic!("public key: {e}"));
        lab.write("authorized_keys", &public);
        let mut this = Self {
            hosts: Vec::new(),
            lab,
            sim_options: sim_options.to_owned(),
        };
        for n in 1..=count {
            let name = format!("node{n:02}");
            let dir = this.lab.path().join("sshd").join(&name);
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
            keygen(&dir.join("host_key"));
            this.hosts.push(LabHost {
                child: None,
                dir,
                env: String::new(),
                extra_config: String::new(),
                identity: None,
                name,
                port: 0,
                simulated: true,
            });
            this.launch(n - 1);
        }
        this.write_ssh_config();
        this
    }

    /// Adds a server without `ForceCommand`: commands run for real on this machine, as root.
    pub(crate) fn add_real_host(&mut self, name: &str) {
        self.add_real_host_with_env(name, "");
    }

    /// Adds a server without `ForceCommand` whose sessions also get `env` (`NAME=VALUE ...`,
    /// sshd's `SetEnv`): `CAIRN_FENCE_SYSTEM=VMkernel` makes the fence take it for ESXi.
    pub(crate) fn add_real_host_with_env(&mut self, name: &str, env: &str) {
        let dir = self.lab.path().join("sshd").join(name);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        keygen(&dir.join("host_key"));
        self.hosts.push(LabHost {
            child: None,
            dir,
            env: env.to_owned(),
            extra_config: String::new(),
            identity: None,
            name: name.to_owned(),
            port: 0,
            simulated: false,
        });
        self.launch(self.hosts.len() - 1);
        self.write_ssh_config();
    }

    /// Adds `lines` to host `name`'s block in `~/.ssh/config`.
    pub(crate) fn configure(&mut self, name: &str, lines: &str) {
        if let Some(host) = self.hosts.iter_mut().find(|h| h.name == name) {
            host.extra_config.push_str(lines);
        }
        self.write_ssh_config();
    }

    /// Makes a new client key protected by `passphrase`, authorizes it on every server, and has
    /// `~/.ssh/config` offer it (alone) for host `name`; returns its path.
    pub(crate) fn use_locked_key(&mut self, name: &str, passphrase: &str) -> PathBuf {
        let key = self.lab.path().join("home/.ssh/locked_key");
        if !key.exists() {
            let status = Command::new("ssh-keygen")
                .args([
                    "-q",
                    "-t",
                    "ed25519",
                    "-N",
                    passphrase,
                    "-C",
                    "cairn-lab",
                    "-f",
                ])
                .arg(&key)
                .stdin(Stdio::null())
                .status()
                .unwrap_or_else(|e| panic!("ssh-keygen: {e}"));
            assert!(status.success(), "ssh-keygen failed");
            let public = std::fs::read_to_string(key.with_extension("pub"))
                .unwrap_or_else(|e| panic!("public key: {e}"));
            let authorized = std::fs::read_to_string(self.lab.path().join("authorized_keys"))
                .unwrap_or_default();
            self.lab
                .write("authorized_keys", &format!("{authorized}{public}"));
        }
        if let Some(host) = self.hosts.iter_mut().find(|h| h.name == name) {
            host.identity = Some(key.clone());
        }
        self.write_ssh_config();
        key
    }

    /// The sshd ports, in host order.
    pub(crate) fn ports(&self) -> Vec<u16> {
        self.hosts.iter().map(|h| h.port).collect()
    }

    /// The host names, in order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.hosts.iter().map(|h| h.name.clone()).collect()
    }

    /// An inventory of every host in group `compute`, reached through `~/.ssh/config`.
    pub(crate) fn inventory(&self) -> String {
        let mut text = String::new();
        for host in &self.hosts {
            text.push_str(&format!(
                "[hosts.{}]\ngroups = [\"compute\"]\n\n",
                host.name
            ));
        }
        text
    }

    /// A `cairn` command in the lab, with the lab's `HOME` and no SSH agent.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = self.lab.command(args);
        command
            .env("HOME", self.lab.path().join("home"))
            .env_remove("SSH_AUTH_SOCK");
        command
    }

    /// Runs `cairn ARGS`.
    pub(crate) fn cairn(&self, args: &[&str]) -> Run {
        Run::from(
            self.command(args)
                .output()
                .unwrap_or_else(|e| panic!("cairn runs: {e}")),
        )
    }

    /// The commands host `name` executed, oldest first, from its simulator log.
    pub(crate) fn sim_commands(&self, name: &str) -> Vec<Vec<String>> {
        std::fs::read_to_string(self.state_dir(name).join("commands.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// How many commands of host `name` started with `prefix`.
    pub(crate) fn sim_count(&self, name: &str, prefix: &[&str]) -> usize {
        self.sim_commands(name)
            .iter()
            .filter(|argv| {
                argv.len() >= prefix.len() && argv.iter().zip(prefix).all(|(a, b)| a == b)
            })
            .count()
    }

    /// Stops host `name`'s sshd and every session it forked, by PID.
    pub(crate) fn stop(&mut self, name: &str) {
        if let Some(host) = self.hosts.iter_mut().find(|h| h.name == name) {
            stop(host);
        }
    }

    /// Gives host `name` a new host key and starts its sshd again on the same port.
    pub(crate) fn rekey(&mut self, name: &str) {
        let Some(index) = self.hosts.iter().position(|h| h.name == name) else {
            panic!("no host {name}");
        };
        if let Some(host) = self.hosts.get_mut(index) {
            stop(host);
            let _ = std::fs::remove_file(host.dir.join("host_key"));
            let _ = std::fs::remove_file(host.dir.join("host_key.pub"));
            keygen(&host.dir.join("host_key"));
        }
        self.launch(index);
    }

    /// The SHA-256 fingerprint of host `name`'s key, as `ssh-keygen -l` prints it.
    pub(crate) fn fingerprint(&self, name: &str) -> String {
        let Some(host) = self.hosts.iter().find(|h| h.name == name) else {
            panic!("no host {name}");
        };
        let output = Command::new("ssh-keygen")
            .args(["-l", "-E", "sha256", "-f"])
            .arg(host.dir.join("host_key.pub"))
            .output()
            .unwrap_or_else(|e| panic!("ssh-keygen -l: {e}"));
        String::from_utf8_lossy(&output.stdout)
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned()
    }

    fn state_dir(&self, name: &str) -> PathBuf {
        self.lab.path().join("simstate").join(name)
    }

    /// Starts sshd for host `index` (on its old port, or a free one), waiting for its banner.
    fn launch(&mut self, index: usize) {
        let simhost = binary("cairn-simhost");
        let authorized = self.lab.path().join("authorized_keys");
        let Some(host) = self.hosts.get(index) else {
            return;
        };
        let state = self.state_dir(&host.name);
        let (name, dir, old_port) = (host.name.clone(), host.dir.clone(), host.port);
        let env = host.env.clone();
        let force_command = if host.simulated {
            format!(
                "ForceCommand {simhost} --state {state} --host {name} --model linux --options '{options}'\n",
                simhost = simhost.display(),
                state = state.display(),
                options = self.sim_options,
            )
        } else {
            String::new()
        };
        // sshd runs every command as `$SHELL -c COMMAND`, and bash then sources `~/.bashrc`
        // (it does when started by sshd): with the login user's real home, whatever that file
        // does would be timed with every command. The sessions get an empty home instead.
        let server_home = dir.join("home");
        std::fs::create_dir_all(&server_home).unwrap_or_else(|e| panic!("mkdir: {e}"));
        for attempt in 0..5 {
            let port = if old_port != 0 && attempt < 3 {
                old_port
            } else {
                free_port()
            };
            let config = format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {key}\nPidFile {dir}/sshd.pid\n\
                 AuthorizedKeysFile {authorized}\nPubkeyAuthentication yes\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
                 PermitRootLogin prohibit-password\nStrictModes no\nPrintMotd no\n\
                 PrintLastLog no\nUseDNS no\nSetEnv {set_env}\n\
                 MaxSessions 1000\nMaxStartups 1000\nLogLevel ERROR\n\
                 Subsystem sftp /usr/lib/openssh/sftp-server\n{force_command}",
                key = dir.join("host_key").display(),
                set_env = format!("HOME={} {env}", server_home.display()).trim_end(),
                dir = dir.display(),
                authorized = authorized.display(),
            );
            let config_path = dir.join("sshd_config");
            std::fs::write(&config_path, config).unwrap_or_else(|e| panic!("sshd_config: {e}"));
            let log = std::fs::File::create(dir.join("sshd.log"))
                .unwrap_or_else(|e| panic!("sshd.log: {e}"));
            let mut child = Command::new(SSHD)
                .arg("-D")
                .arg("-e")
                .arg("-f")
                .arg(&config_path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| panic!("start sshd: {e}"));
            if wait_for_banner(port, &mut child) {
                if let Some(host) = self.hosts.get_mut(index) {
                    host.child = Some(child);
                    host.port = port;
                }
                if old_port != 0 && port != old_port {
                    self.write_ssh_config();
                }
                return;
            }
            let _ = child.kill();
            let _ = child.wait();
            std::thread::sleep(Duration::from_millis(200));
        }
        let log = std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default();
        panic!("sshd for {name} did not start: {log}");
    }

    fn write_ssh_config(&self) {
        let key = self.lab.path().join("home/.ssh/lab_key");
        let mut config = String::new();
        for host in &self.hosts {
            config.push_str(&format!(
                "Host {}\n  HostName 127.0.0.1\n  Port {}\n  User root\n  IdentityFile {}\n{}\n",
                host.name,
                host.port,
                host.identity.as_ref().unwrap_or(&key).display(),
                host.extra_config,
            ));
        }
        self.lab.write("home/.ssh/config", &config);
    }
}

impl Drop for SshLab {
    fn drop(&mut self) {
        for host in &mut self.hosts {
            stop(host);
        }
    }
}

/// Stops one sshd: pause it (no new sessions), kill the sessions it forked, then it, by PID.
fn stop(host: &mut LabHost) {
    let Some(mut child) = host.child.take() else {
        return;
    };
    let pid = child.id();
    signal("STOP", pid);
    for session in descendants(pid) {
        signal("KILL", session);
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn signal(name: &str, pid: u32) {
    let _ = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .stderr(Stdio::null())
        .status();
}

/// Every process below `pid`, from /proc.
fn descendants(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parents.push((child, ppid));
        }
    }
    let mut found = vec![pid];
    let mut index = 0;
    while let Some(&parent) = found.get(index) {
        for (child, ppid) in &parents {
            if *ppid == parent && !found.contains(child) {
                found.push(*child);
            }
        }
        index += 1;
    }
    found.remove(0);
    found
}

fn keygen(path: &Path) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "cairn-lab", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("ssh-keygen: {e}"));
    assert!(status.success(), "ssh-keygen failed");
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|e| panic!("free port: {e}"))
}

/// Waits until sshd on `port` sends its `SSH-2.0` banner; false if it exited or never did.
///
/// The banner must come from `child` itself: labs start side by side, and a free port picked
/// by one may be taken by another lab's sshd before this one binds it; its banner would then
/// send this lab's hosts to the other lab's (seen as a command run twice on one host).
fn wait_for_banner(port: u16, child: &mut Child) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return false;
        }
        if !listens_on(child.id(), port) {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut line = String::new();
            if BufReader::new(stream).read_line(&mut line).is_ok() && line.starts_with("SSH-") {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Whether process `pid` holds the socket listening on 127.0.0.1:`port` (from
/// `/proc/net/tcp`, whose listening rows are state `0A`, and the process's descriptors).
fn listens_on(pid: u32, port: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    let local = format!("0100007F:{port:04X}");
    let inodes: Vec<String> = table
        .lines()
        .skip(1)
        .filter_map(|row| {
            let fields: Vec<&str> = row.split_whitespace().collect();
            let listening = fields.get(1) == Some(&local.as_str()) && fields.get(3) == Some(&"0A");
            listening.then(|| fields.get(9).map(|inode| format!("socket:[{inode}]")))?
        })
        .collect();
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|target| {
            inodes
                .iter()
                .any(|inode| target.as_os_str() == inode.as_str())
        })
}
