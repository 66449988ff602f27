//! The commands every simulated host answers, whatever its model: `hostname`, `echo`, `true`,
//! `false`, `sleep`, `cat`, `journalctl --list-boots` and `reboot`.

use std::fmt::Write as _;
use std::time::Duration;

use super::{BootMarker, SimContext, SimTool};
use crate::ExecOutput;

/// The generic commands, as a tool consulted after the model's own tools.
pub(crate) struct GenericCommands;

impl SimTool for GenericCommands {
    fn commands(&self) -> &[&'static str] {
        &[
            "cat",
            "echo",
            "false",
            "hostname",
            "journalctl",
            "reboot",
            "sleep",
            "true",
        ]
    }

    fn name(&self) -> &'static str {
        "generic"
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let (program, args) = argv
            .split_first()
            .map_or(("", &[][..]), |(p, a)| (p.as_str(), a));
        match super::sim_model::base_name(program) {
            "cat" => cat(host, args),
            "echo" => echo(args),
            "false" => output(1, "", ""),
            "hostname" => output(0, &format!("{}\n", host.host_name()), ""),
            "journalctl" if host.boot_marker() == BootMarker::ProcBootId => journalctl(host, args),
            "reboot" => {
                host.request_reboot();
                output(0, "", "")
            }
            "sleep" => sleep(host, args),
            "true" => output(0, "", ""),
            _ => not_simulated(program),
        }
    }
}

/// A program no tool of the model answers: bash's words, then plainly that the simulator does
/// not model it (a runbook author should not mistake it for a missing package).
fn not_simulated(program: &str) -> ExecOutput {
    output(
        127,
        "",
        &format!(
            "bash: {program}: command not found (cairn sim: `{program}` is not simulated on this host; see docs/simulator.md for the commands it answers)\n"
        ),
    )
}

fn output(code: i64, stdout: &str, stderr: &str) -> ExecOutput {
    ExecOutput {
        code,
        stderr: stderr.into(),
        stdout: stdout.into(),
    }
}

fn cat(host: &SimContext<'_>, args: &[String]) -> ExecOutput {
    if args.is_empty() {
        return output(0, host.stdin().unwrap_or_default(), "");
    }
    let (mut stdout, mut stderr, mut code) = (String::new(), String::new(), 0);
    for path in args {
        match host.file(path) {
            Some(contents) => stdout.push_str(contents),
            None => {
                let _ = writeln!(stderr, "cat: {path}: No such file or directory");
                code = 1;
            }
        }
    }
    output(code, &stdout, &stderr)
}

fn echo(args: &[String]) -> ExecOutput {
    let (newline, words) = match args.split_first() {
        Some((flag, rest)) if flag == "-n" => (false, rest),
        _ => (true, args),
    };
    let mut text = words.join(" ");
    if newline {
        text.push('\n');
    }
    output(0, &text, "")
}

/// `journalctl --list-boots` in the classic systemd layout: a right-aligned index (0 for the
/// current boot), the boot id in hex, and the first and last entry of the boot.
fn journalctl(host: &SimContext<'_>, args: &[String]) -> ExecOutput {
    if args.iter().map(String::as_str).ne(["--list-boots"]) {
        return output(
            1,
            "",
            "journalctl: only `journalctl --list-boots` is simulated\n",
        );
    }
    let boots = host.boots();
    let width = boots.len().saturating_sub(1).to_string().len() + 1;
    let mut text = String::new();
    for (position, boot) in boots.iter().enumerate() {
        let index = boots.len() - 1 - position;
        let index = if index == 0 {
            " 0".to_owned()
        } else {
            format!("-{index}")
        };
        let _ = writeln!(
            text,
            "{index:>width$} {} {}—{}",
            boot.id_hex(),
            super::sim_time::systemd_timestamp(boot.started_millis),
            super::sim_time::systemd_timestamp(boot.last_seen_millis),
        );
    }
    output(0, &text, "")
}

fn sleep(host: &mut SimContext<'_>, args: &[String]) -> ExecOutput {
    if args.is_empty() {
        return output(
            1,
            "",
            "sleep: missing operand\nTry 'sleep --help' for more information.\n",
        );
    }
    let mut total = Duration::ZERO;
    for arg in args {
        let Some(duration) = interval(arg) else {
            return output(1, "", &format!("sleep: invalid time interval '{arg}'\n"));
        };
        total = total.saturating_add(duration);
    }
    host.sleep(total);
    output(0, "", "")
}

/// `2`, `0.5`, `3s`, `2m`, `1h`, `1d`, as GNU `sleep` reads them.
fn interval(text: &str) -> Option<Duration> {
    let (number, unit) = match text.char_indices().last() {
        Some((at, 's')) => (text.get(..at)?, 1.0),
        Some((at, 'm')) => (text.get(..at)?, 60.0),
        Some((at, 'h')) => (text.get(..at)?, 3600.0),
        Some((at, 'd')) => (text.get(..at)?, 86_400.0),
        _ => (text, 1.0),
    };
    if !number.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let seconds = number.parse::<f64>().ok()? * unit;
    Duration::try_from_secs_f64(seconds).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_intervals_like_gnu_sleep() {
        assert_eq!(interval("2"), Some(Duration::from_secs(2)));
        assert_eq!(interval("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(interval("2m"), Some(Duration::from_secs(120)));
        assert_eq!(interval("1d"), Some(Duration::from_secs(86_400)));
        for bad in ["", "x", "-1", "inf", "NaN", "1e999", "s"] {
            assert_eq!(interval(bad), None, "{bad}");
        }
    }
}
