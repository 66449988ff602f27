//! Running a client/server pair on two hosts from one action: start the server in the
//! background, run the client, and always stop the server and collect its output.
//!
//! Used by perftest and sockperf. The controller reaches the hosts through the run
//! (`RunShared::exec_on`); a host's own instance through its `HostIo::exec_on`. Two tests that
//! share a host run in turn: the run holds both hosts of a test (`RunShared::hold_pair`).
//!
//! `background.rs` has the scripts a background server is started and collected with.

pub(crate) mod background;

use std::sync::{Arc, Barrier};
use std::time::Duration;

use cairn_runtime::{
    ActionCall, ActionError, ExecOutput, ExecRequest, HostIo, Reconcile, RunShared,
};

use background as command;

/// Both sides' output.
#[derive(Debug, Clone)]
pub(crate) struct PairOutput {
    /// The server's output, collected after the client ended.
    pub(crate) server: ExecOutput,
    /// The client's output.
    pub(crate) client: ExecOutput,
}

/// One pair to run.
pub(crate) struct Pair<'a> {
    pub(crate) server: &'a str,
    pub(crate) client: &'a str,
    pub(crate) server_argv: Vec<String>,
    pub(crate) client_argv: Vec<String>,
    /// The server's log file.
    pub(crate) log: String,
    /// Where the server host's shell writes the server's pid, named after the run and the
    /// port ([`pidfile`]): the next start of a server there stops one an interrupted test left.
    pub(crate) pidfile: String,
    /// The client's time limit.
    pub(crate) timeout: Duration,
}

/// Runs a command on `name`: through `io` when it is the action's own host, else through the
/// run's transport of that host.
pub(crate) fn exec_on(
    io: Option<&mut HostIo<'_>>,
    shared: &RunShared,
    name: &str,
    request: &ExecRequest,
) -> Result<ExecOutput, ActionError> {
    match io {
        Some(io) => io.exec_on(name, request),
        None => shared.exec_on(name, request),
    }
}

/// Runs the pair. The server is stopped and its output collected whatever the client did.
pub(crate) fn run(
    io: Option<&mut HostIo<'_>>,
    shared: &Arc<RunShared>,
    pair: &Pair<'_>,
) -> Result<PairOutput, ActionError> {
    run_in_round(io, shared, pair, None)
}

/// A round's two meeting points, which every pair of the round passes whatever happens to it
/// (an early error passes both as it returns): every server is listening before any client
/// starts, and every client has ended before any server is stopped. The round's pairs are then
/// all running at once, as ClusterKit's synchronized rounds are.
struct RoundSync<'a> {
    barrier: Option<&'a Barrier>,
    left: u8,
}

impl RoundSync<'_> {
    fn pass(&mut self) {
        if self.left > 0 {
            self.left -= 1;
            if let Some(barrier) = self.barrier {
                barrier.wait();
            }
        }
    }
}

impl Drop for RoundSync<'_> {
    fn drop(&mut self) {
        while self.left > 0 {
            self.pass();
        }
    }
}

/// [`run`] as one pair of a round whose pairs share `round` (one party a pair).
pub(crate) fn run_in_round(
    mut io: Option<&mut HostIo<'_>>,
    shared: &Arc<RunShared>,
    pair: &Pair<'_>,
    round: Option<&Barrier>,
) -> Result<PairOutput, ActionError> {
    let mut sync = RoundSync {
        barrier: round,
        left: 2,
    };
    if pair.server == pair.client {
        return Err(ActionError::Failed(format!(
            "the server and the client are both `{}`: a test needs two hosts",
            pair.server
        )));
    }
    for name in [pair.server, pair.client] {
        if !shared.reaches(name) && io.as_ref().is_none_or(|io| io.host() != name) {
            return Err(ActionError::NotAHost(name.to_owned()));
        }
    }
    // Another test on either host would share its port (and its leftover cleanup would stop
    // this test's server): tests that share a host run in turn.
    let _hold = shared.hold_pair(pair.server, pair.client)?;
    let start = ExecRequest::new(command::background(
        &pair.log,
        &pair.pidfile,
        Some(pair.client),
        &pair.server_argv,
    ));
    let started = exec_on(io.as_deref_mut(), shared, pair.server, &start)?;
    let pid = started.stdout.trim().to_owned();
    if started.code != 0 || pid.is_empty() || !pid.chars().all(|c| c.is_ascii_digit()) {
        return Err(ActionError::CommandFailed {
            code: started.code,
            command: format!(
                "{} (in the background on {})",
                pair.server_argv.join(" "),
                pair.server
            ),
            stderr: started.stderr,
        });
    }
    if let Some(io) = io.as_deref_mut() {
        // A resume after a crash from here on stops this server before running the test again.
        io.record_progress(serde_json::json!({
            "server": pair.server, "pid": pid, "log": pair.log, "pidfile": pair.pidfile
        }))?;
    }
    // Give the server a moment to listen, on its own clock.
    let clock = match io.as_deref() {
        Some(io) => io.clock_of(pair.server)?,
        None => shared.clock_of(pair.server)?,
    };
    clock.sleep(Duration::from_secs(1), shared.cancel())?;
    sync.pass();
    let mut request = ExecRequest::new(pair.client_argv.iter().cloned());
    request.timeout = Some(pair.timeout);
    let client = exec_on(io.as_deref_mut(), shared, pair.client, &request);
    sync.pass();
    let collect = ExecRequest::new(command::collect(&pid, &pair.log, &pair.pidfile));
    let server = exec_on(io, shared, pair.server, &collect);
    let client = client?;
    let server = server?;
    Ok(PairOutput { server, client })
}

/// The pidfile of this run's server on `port`: `/tmp/cairn-RUN-portPORT.pid`. Two servers of one
/// run on one host and port cannot both listen, so one found there is a leftover to stop.
pub(crate) fn pidfile(run: &str, port: i64) -> String {
    let run: String = run
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("/tmp/cairn-{run}-port{port}.pid")
}

/// The action of a test of `builtin` between `server` and `client` with `options`, its
/// journaled arguments; a resume probes it with [`stop_stale`].
pub(crate) fn action_call(
    builtin: String,
    server: &str,
    client: &str,
    options: &impl serde::Serialize,
    shared: &Arc<RunShared>,
) -> ActionCall<'static> {
    let shared = shared.clone();
    ActionCall {
        args: serde_json::json!({ "server": server, "client": client, "options": options }),
        assumed: serde_json::Value::Null,
        builtin,
        reconcile: Reconcile::Probe(Box::new(move |io, progress| {
            stop_stale(io, &shared, progress)
        })),
    }
}

/// A probe for a test whose outcome was not recorded: stops the servers it had started (their
/// pids are in its progress records), then lets the test run again.
pub(crate) fn stop_stale(
    io: &mut HostIo<'_>,
    shared: &RunShared,
    progress: &[serde_json::Value],
) -> Result<Option<cairn_runtime::Outcome>, ActionError> {
    for step in progress {
        let (Some(server), Some(pid), Some(log)) = (
            step.get("server").and_then(serde_json::Value::as_str),
            step.get("pid").and_then(serde_json::Value::as_str),
            step.get("log").and_then(serde_json::Value::as_str),
        ) else {
            continue;
        };
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        // Journals from before pidfiles have none: removing "" is harmless.
        let pidfile = step
            .get("pidfile")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        let collect = ExecRequest::new(command::collect(pid, log, pidfile));
        exec_on(Some(&mut *io), shared, server, &collect)?;
    }
    Ok(None)
}
