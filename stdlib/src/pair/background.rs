//! The shell scripts a background server is started and collected with, shared by the pair
//! machinery that runs them and the simulated process table that recognizes them.

/// The `sh -c` script cairn starts a background command with: a server an interrupted start left
/// (its pid in `$PIDFILE`, written by the host's shell itself) is stopped first, then the new
/// one's pid is written there, so no crash of the controller can leave one unaccounted for.
pub(crate) const BACKGROUND_SCRIPT: &str = "[ -f \"$PIDFILE\" ] && kill \"$(cat \"$PIDFILE\")\" 2>/dev/null; \"$@\" >\"$LOG\" 2>&1 </dev/null & echo $! >\"$PIDFILE\"; echo $!";
/// The `sh -c` script cairn stops a background command and reads its output with.
pub(crate) const COLLECT_SCRIPT: &str = "kill \"$1\" 2>/dev/null; cat \"$2\"; rm -f \"$2\" \"$3\"";

/// `env LOG=PATH PIDFILE=PATH [PEER=HOST] sh -c SCRIPT sh ARGV...`: starts a server in the
/// background and prints its pid. `PEER` names the client that will connect: the script does
/// not read it, but it stays in the process's environment (a person's `ps e` shows whom a
/// server waits for), and the simulated fabric reads it to know a round's flows.
pub(crate) fn background(
    log: &str,
    pidfile: &str,
    peer: Option<&str>,
    argv: &[String],
) -> Vec<String> {
    let mut command: Vec<String> = vec![
        "env".into(),
        format!("LOG={log}"),
        format!("PIDFILE={pidfile}"),
    ];
    command.extend(peer.map(|p| format!("PEER={p}")));
    command.extend([
        "sh".into(),
        "-c".into(),
        BACKGROUND_SCRIPT.into(),
        "sh".into(),
    ]);
    command.extend(argv.iter().cloned());
    command
}

/// `sh -c 'kill "$1" 2>/dev/null; cat "$2"; rm -f "$2" "$3"' sh PID LOG PIDFILE`: stops a
/// background server (if it has not ended), prints what it wrote and forgets its pidfile.
pub(crate) fn collect(pid: &str, log: &str, pidfile: &str) -> Vec<String> {
    ["sh", "-c", COLLECT_SCRIPT, "sh", pid, log, pidfile]
        .map(str::to_owned)
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::{BACKGROUND_SCRIPT, COLLECT_SCRIPT, background, collect};

    #[test]
    fn the_scripts_are_what_the_command_lines_run() {
        let start = background(
            "/tmp/l",
            "/tmp/p",
            None,
            &["ib_send_bw".into(), "-a".into()],
        );
        let peer = background("/tmp/l", "/tmp/p", Some("n2"), &["ib_send_bw".into()]);
        assert_eq!(peer[3], "PEER=n2");
        assert_eq!(peer[6], BACKGROUND_SCRIPT);
        assert_eq!(start[..3], ["env", "LOG=/tmp/l", "PIDFILE=/tmp/p"]);
        assert_eq!(start[5], BACKGROUND_SCRIPT);
        assert_eq!(start[start.len() - 2..], ["ib_send_bw", "-a"]);
        let stop = collect("42", "/tmp/l", "/tmp/p");
        assert_eq!(stop[2], COLLECT_SCRIPT);
        assert_eq!(stop[4..], ["42", "/tmp/l", "/tmp/p"]);
    }
}
