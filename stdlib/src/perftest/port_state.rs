//! perftest's refusal to run on a port that is not ACTIVE, and the typed error it becomes.
//!
//! perftest checks the port before any connection: `check_link` calls `set_link_layer`
//! (linux-rdma/perftest, `src/perftest_parameters.c`), which queries the port and, unless its
//! state is `IBV_PORT_ACTIVE`, prints ` Port number %d state is %s` with the state's name from
//! `portStates[] = {"Nop","Down","Init","Armed","","Active Defer"}`, then `check_link` prints
//! ` Couldn't set the link layer` and the test's `main` (`send_bw.c`, `send_lat.c`, ...)
//! ` Couldn't get context for the device`, all on stderr, and exits 1.

use cairn_runtime::{ActionError, ExecOutput};

/// perftest's name of a port state, as `portStates[]` spells it.
pub(crate) fn state_name(active: bool, infiniband: bool) -> &'static str {
    // A simulated port that is not active is an IB port waiting for the subnet manager (INIT)
    // or a port without link (DOWN).
    match (active, infiniband) {
        (true, _) => "Active",
        (false, true) => "Init",
        (false, false) => "Down",
    }
}

/// What perftest prints, and its exit status, when port `port` is in state `state`.
pub(crate) fn refusal(port: u32, state: &str) -> ExecOutput {
    ExecOutput {
        code: 1,
        stdout: String::new(),
        stderr: format!(
            " Port number {port} state is {state}\n Couldn't set the link layer\n Couldn't get context for the device\n"
        ),
    }
}

/// The port number and state of a ` Port number N state is STATE` line in `text`.
pub(crate) fn detect(text: &str) -> Option<(u32, String)> {
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("Port number ")?;
        let (port, state) = rest.split_once(" state is ")?;
        Some((port.trim().parse().ok()?, state.trim().to_owned()))
    })
}

/// The error a test gets when perftest refused a port on `host`: it says which, and the help
/// says to wait for it.
pub(crate) fn not_active_error(
    program: &str,
    host: &str,
    device: &str,
    port: u32,
    state: &str,
) -> ActionError {
    ActionError::Hinted {
        message: format!(
            "{program} on {host}: port {port} of {device} is {state}, not ACTIVE (perftest: ` Port number {port} state is {state}`)"
        ),
        help: format!(
            "wait for the port before the test: `ib::wait_active(\"{device}\", {port}, 60);` (an InfiniBand port stays INIT until the subnet manager's sweep)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_reads_back() {
        let out = refusal(1, state_name(false, true));
        assert_eq!(detect(&out.stderr), Some((1, "Init".to_owned())));
        assert!(out.stderr.contains(" Couldn't set the link layer\n"));
        assert_eq!(detect("Couldn't connect to x:18515\n"), None);
    }
}
