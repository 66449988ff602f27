//! A throwaway PostgreSQL server for the tests and the benchmark: its own data folder, a Unix
//! socket in that folder and no TCP port, stopped by its PID when dropped.
//!
//! `initdb` refuses to run as root, so as root the server is created and started as the
//! `postgres` user (`runuser`), in a folder that user owns. Where no server binaries exist,
//! [`ScratchServer::start_or_skip`] says so loudly on standard error (past the test harness's
//! capture) and gives `None`: a skipped test is never a silent pass.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::StoreUrl;

/// The variable naming a folder of PostgreSQL server binaries (`initdb`, `pg_ctl`), for a
/// machine where they are not under `/usr/lib/postgresql/VERSION/bin` (Debian's layout).
pub const PG_BIN_VAR: &str = "CAIRN_PG_BIN";

/// A running scratch server.
#[derive(Debug)]
pub struct ScratchServer {
    bin: PathBuf,
    dir: PathBuf,
    pid: u32,
    /// `runuser -u postgres --` when running as root.
    as_postgres: bool,
    databases: AtomicU32,
}

impl ScratchServer {
    /// Starts a server, or prints `SKIP <what>: ...` and gives `None` where PostgreSQL is not
    /// installed. Any other failure (the binaries exist but the server does not start) panics
    /// with the server's log: that is a failure, not a skip.
    pub fn start_or_skip(what: &str) -> Option<Self> {
        let Some(bin) = find_bin() else {
            let _ = writeln!(
                std::io::stderr(),
                "\n*** SKIP {what}: no PostgreSQL server binaries (initdb, pg_ctl) under \
                 /usr/lib/postgresql/*/bin or ${PG_BIN_VAR}; install Debian's `postgresql` \
                 to run this test ***\n"
            );
            return None;
        };
        match Self::start(&bin) {
            Ok(server) => Some(server),
            Err(error) => panic!("cannot start a scratch PostgreSQL for {what}: {error}"),
        }
    }

    /// Starts a server from the binaries in `bin`.
    pub fn start(bin: &Path) -> Result<Self, String> {
        static SERIAL: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "cairn-pg-{}-{}-{nanos:x}",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir).map_err(|error| format!("{}: {error}", dir.display()))?;
        let as_postgres = rustix::process::geteuid().is_root();
        if as_postgres {
            let (uid, gid) = postgres_user()?;
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|error| format!("chown {}: {error}", dir.display()))?;
        }
        let mut server = Self {
            bin: bin.to_owned(),
            dir,
            pid: 0,
            as_postgres,
            databases: AtomicU32::new(0),
        };
        let data = server.data();
        server.run(
            "initdb",
            &[
                "-D",
                &data,
                "--auth=trust",
                "--username=postgres",
                "--encoding=UTF8",
                "--no-sync",
            ],
        )?;
        server.pg_ctl(&["start"])?;
        server.pid = server.read_pid()?;
        Ok(server)
    }

    /// The URL of a new, empty database of this server (one per test).
    pub fn new_database(&self) -> StoreUrl {
        let name = format!("cairn_{}", self.databases.fetch_add(1, Ordering::Relaxed));
        let admin = self.url_of("postgres");
        let mut client = admin
            .config()
            .connect(postgres::NoTls)
            .unwrap_or_else(|error| panic!("cannot connect to the scratch server: {error}"));
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|error| panic!("cannot create database {name}: {error}"));
        self.url_of(&name)
    }

    /// The URL of database `name` through this server's socket folder.
    pub fn url_of(&self, name: &str) -> StoreUrl {
        let text = format!("postgresql://postgres@/{name}?host={}", self.dir.display());
        StoreUrl::parse(&text).unwrap_or_else(|error| panic!("{error}"))
    }

    /// The folder holding the server's Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The postmaster's PID.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// `pg_ctl restart -m immediate`: every backend is killed without a checkpoint, and the
    /// server recovers from its WAL, as after a crash.
    pub fn restart_immediate(&mut self) -> Result<(), String> {
        self.pg_ctl(&["restart", "-m", "immediate"])?;
        self.pid = self.read_pid()?;
        Ok(())
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    fn pg_ctl(&self, args: &[&str]) -> Result<(), String> {
        let data = self.data();
        let log = self.dir.join("server.log").display().to_string();
        // A Unix socket in our folder and no TCP listener at all.
        let options = format!("-k {} -c listen_addresses=''", self.dir.display());
        let mut all = vec!["-D", &data, "-l", &log, "-w", "-t", "60", "-o", &options];
        all.extend_from_slice(args);
        self.run("pg_ctl", &all).map_err(|error| {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            format!("{error}\nserver log:\n{log}")
        })
    }

    fn run(&self, tool: &str, args: &[&str]) -> Result<(), String> {
        let program = self.bin.join(tool);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        };
        let output = command
            .args(args)
            .current_dir(&self.dir)
            .output()
            .map_err(|error| format!("cannot run {}: {error}", program.display()))?;
        if !output.status.success() {
            return Err(format!(
                "{tool} {args:?} failed ({}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Ok(())
    }

    /// The first line of `postmaster.pid` is the postmaster's PID
    /// (<https://www.postgresql.org/docs/15/storage-file-layout.html>).
    fn read_pid(&self) -> Result<u32, String> {
        let path = self.dir.join("data").join("postmaster.pid");
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        text.lines()
            .next()
            .and_then(|line| line.trim().parse().ok())
            .ok_or_else(|| format!("{} has no PID on its first line", path.display()))
    }
}

impl Drop for ScratchServer {
    fn drop(&mut self) {
        // SIGQUIT is PostgreSQL's immediate shutdown; the postmaster takes its backends along.
        if let Some(pid) = i32::try_from(self.pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::QUIT);
            let deadline = Instant::now() + Duration::from_secs(20);
            while Path::new(&format!("/proc/{}", self.pid)).exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `CAIRN_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin` holding `initdb`.
fn find_bin() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os(PG_BIN_VAR).filter(|bin| !bin.is_empty()) {
        let bin = PathBuf::from(bin);
        return bin.join("initdb").is_file().then_some(bin);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// The `postgres` user's uid and gid, from `/etc/passwd`.
fn postgres_user() -> Result<(u32, u32), String> {
    let passwd = std::fs::read_to_string("/etc/passwd").map_err(|error| error.to_string())?;
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.first() == Some(&"postgres") && fields.len() > 3)
                .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
                .flatten()
        })
        .ok_or_else(|| "running as root, and there is no `postgres` user to run initdb as".into())
}
