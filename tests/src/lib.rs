//! Test support for driving the built `cairn` binary in a temporary folder.
//!
//! `cargo build --workspace` must have built the binaries first; the README's test command
//! does (it also turns on the `fault-injection` feature the crash tests need; a lone
//! `cargo build -p cairn` needs `--features fault-injection`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub mod cairn_call;
pub mod stalling_proxy;

pub use cairn_call::{CairnCall, RUN_BOOK, run_book_args};

/// The built binary called `name`, beside this test executable's `deps` folder.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is not built: run `cargo build --workspace` first",
        path.display()
    );
    path
}

/// A folder to run cairn in, with its runbooks, inventories and state.
pub struct Lab {
    dir: tempfile::TempDir,
}

/// What one `cairn` invocation left behind.
#[derive(Debug)]
pub struct Run {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard error.
    pub stderr: String,
    /// Standard output.
    pub stdout: String,
}

impl Run {
    /// What a finished process printed, and its exit code (-1 when a signal ended it).
    pub fn from(output: Output) -> Self {
        Self {
            code: output.status.code().unwrap_or(-1),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        }
    }
}

impl Default for Lab {
    fn default() -> Self {
        Self::new()
    }
}

impl Lab {
    /// An empty lab.
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}")),
        }
    }

    /// The lab folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file in the lab, returning its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir: {e}"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {name}: {e}"));
        path
    }

    /// A new lab holding everything `self` holds (runbooks, state, simulated hosts), so many
    /// trials can start from one set-up.
    pub fn copy(&self) -> Self {
        let lab = Self::new();
        copy_dir(self.path(), lab.path());
        lab
    }

    /// Copies the shipped runbooks' modules (`runbooks/lib/`) into the lab's `lib/`, where a
    /// runbook written in the lab imports them from.
    pub fn copy_lib(&self) {
        self.copy_tree("runbooks/lib", "lib");
    }

    /// A lab holding the shipped runbooks as the repository has them (`runbooks/*.rhai`,
    /// `runbooks/lib/`, `runbooks/labs/`), so that commands run as a user types them.
    pub fn shipped() -> Self {
        let lab = Self::new();
        for dir in ["runbooks", "runbooks/lib", "runbooks/labs"] {
            lab.copy_tree(dir, dir);
        }
        lab
    }

    /// Copies the files (not the folders) of the repository's folder `from` to `to` in the lab.
    fn copy_tree(&self, from: &str, to: &str) {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(from);
        let entries =
            std::fs::read_dir(&source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
            if path.is_file() {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                self.write(&format!("{to}/{name}"), &text);
            }
        }
    }

    /// The builtins whose actions changed `host` in its newest journal, in order.
    pub fn changes(&self, host: &str) -> Vec<String> {
        let journal = self.journal(host);
        let intents = records(&journal, "intent");
        records(&journal, "outcome")
            .iter()
            .filter(|o| o["data"]["changed"] == true)
            .filter_map(|o| {
                intents
                    .iter()
                    .find(|i| i["data"]["seq"] == o["data"]["seq"])
                    .and_then(|i| i["data"]["builtin"].as_str())
                    .map(str::to_owned)
            })
            .collect()
    }

    /// A `cairn` command run in the lab.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(binary("cairn"));
        command.args(args);
        self.in_lab(&mut command);
        command
    }

    /// A `cairn` command run in the lab under `sh -c SCRIPT` (`ulimit ...`), the script ending
    /// with `exec cairn ARGS`.
    pub fn command_under_shell(&self, script: &str, args: &[&str]) -> Command {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("{script}; exec \"$0\" \"$@\""))
            .arg(binary("cairn"))
            .args(args);
        self.in_lab(&mut command);
        command
    }

    /// Runs `command` in the lab, with only the lab's state, config and leases.
    fn in_lab(&self, command: &mut Command) {
        command
            .current_dir(self.path())
            .env_remove("CAIRN_STATE_DIR")
            .env_remove("CAIRN_SIM_DIR")
            // The user's own config file (`~/.config/cairn/config.toml`) stays out of tests.
            .env("XDG_CONFIG_HOME", self.path().join(".config"))
            // Each lab its own lease folder: labs run in parallel, and `local` is one machine.
            .env("CAIRN_LEASE_DIR", self.path().join(".leases"));
    }

    /// Runs `cairn ARGS` in the lab.
    pub fn cairn(&self, args: &[&str]) -> Run {
        self.call(args).run()
    }

    /// Runs `cairn ARGS` with extra environment variables.
    pub fn cairn_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.call(args).envs(env).run()
    }

    /// The run ids, oldest first.
    pub fn runs(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(self.path().join(".cairn/runs"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .collect();
        ids.sort();
        ids
    }

    /// The records of `host`'s journal in the newest run.
    pub fn journal(&self, host: &str) -> Vec<Value> {
        let Some(id) = self.runs().pop() else {
            return Vec::new();
        };
        let path = self
            .path()
            .join(".cairn/runs")
            .join(id)
            .join(format!("{host}.jsonl"));
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The commands a simulated host executed, oldest first.
    pub fn sim_commands(&self, host: &str) -> Vec<Vec<String>> {
        let path = self
            .path()
            .join(".cairn/sim")
            .join(host)
            .join("commands.log");
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// How many times a simulated host executed a command starting with `prefix`.
    pub fn sim_count(&self, host: &str, prefix: &[&str]) -> usize {
        self.sim_commands(host)
            .iter()
            .filter(|argv| {
                argv.len() >= prefix.len() && argv.iter().zip(prefix).all(|(a, b)| a == b)
            })
            .count()
    }

    /// The simulated host's persistent state, as JSON.
    pub fn sim_state(&self, host: &str) -> Value {
        let path = self.path().join(".cairn/sim").join(host).join("state.json");
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    }
}

/// Records of `kind` in a journal.
pub fn records<'a>(journal: &'a [Value], kind: &str) -> Vec<&'a Value> {
    journal.iter().filter(|r| r["type"] == kind).collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target)
                .unwrap_or_else(|e| panic!("copy {}: {e}", path.display()));
        }
    }
}

/// Builds `cairn` and `cairn-simhost` (the SSH lab's simulated host) in the calling bench's
/// profile, so a bench's numbers are never a stale or debug binary's.
pub fn build_cairn_for_bench() {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let profile_dir = exe.parent().and_then(Path::parent);
    let target_dir = profile_dir.and_then(Path::parent);
    let (Some(profile_dir), Some(target_dir)) = (profile_dir, target_dir) else {
        panic!("{} is not in a target folder", exe.display());
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--quiet", "-p", "cairn", "--bins", "--target-dir"])
        .arg(target_dir);
    if profile_dir.file_name().is_none_or(|name| name != "debug") {
        command.arg("--release");
    }
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("cargo build: {e}"));
    assert!(status.success(), "cargo build of cairn failed");
}

/// A file made immutable (`chattr +i`: not even root can open it for writing), made mutable
/// again when dropped.
pub struct Immutable(PathBuf);

impl Immutable {
    /// Makes `path` immutable, or says why not (not root, a file system without the flag).
    pub fn set(path: &Path) -> Result<Self, String> {
        let out = std::process::Command::new("chattr")
            .arg("+i")
            .arg(path)
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(Self(path.to_owned()))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

/// Every file under `dir`, recursively: what a test greps for a secret that must not be there.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// A number in [0, 1) drawn from `seed` and `key` (FNV-1a, then splitmix64): a bench's seed
/// always gives the same lab and the same fault times.
pub fn seeded_unit(seed: u64, key: &str) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in key.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Sends signal `name` (`TERM`, `KILL`, ...) to the process `pid`, which a test started.
pub fn send_signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(sent, "kill -{name} {pid}");
}

/// Starts `command` in the background with its output piped, for a test that acts on it while
/// it runs (a signal, a second run against its hosts).
pub fn spawn_piped(mut command: Command) -> Child {
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

/// Waits until `done`, failing with `what` after `limit`.
pub fn wait_until(what: &str, limit: Duration, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
