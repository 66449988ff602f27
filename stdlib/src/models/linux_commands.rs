//! The everyday commands a runbook author runs on the simulated Linux guest to look around:
//! `ip -br link`, `cat /sys/class/net/IF/mtu` (and `operstate`, and a RoCE port's ECN switches
//! `ecn/roce_np/enable/N` and `ecn/roce_rp/enable/N`), `systemctl is-active UNIT`.
//! (`uname -r` is the guest hardware tool's.) Everything else no tool claims is answered by the
//! simulator's generic commands, which say plainly that it is not simulated.
//!
//! Formats: `ip -br link` (printed by the `net` simulator) prints, per interface, the name padded to 16 columns, the operational
//! state padded to 14, the link address and the flags in angle brackets (iproute2's brief
//! output, `print_linkinfo` with `-brief`); sysfs' `mtu` and `operstate` hold one value and a
//! newline; `systemctl is-active` prints `active` (exit 0) or `inactive` (exit 3, as systemd
//! does for a unit that is not running).

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::guest::out;
use crate::machine::interfaces::{Iface, own_interfaces};

/// `systemctl`, `cat` of the interfaces' sysfs files, `ip -br link`.
pub(crate) struct LinuxCommands;

impl SimTool for LinuxCommands {
    fn commands(&self) -> &[&'static str] {
        &["systemctl", "cat"]
    }

    fn name(&self) -> &'static str {
        "linux"
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        match program {
            "systemctl" => systemctl(host, &args),
            _ => cat(host, &args),
        }
    }
}

/// The units a guest runs, and whether they are active now.
fn unit_active(host: &SimContext<'_>, unit: &str) -> Option<bool> {
    let unit = unit.strip_suffix(".service").unwrap_or(unit);
    let ofed = host.tool_state("ofed");
    let loaded = ofed.is_some_and(|o| o["loaded"] == true);
    match unit {
        "sshd" | "NetworkManager" | "chronyd" | "firewalld" => Some(true),
        // Installed with OFED; openibd runs once its drivers load (at the next boot).
        "openibd" => ofed
            .is_some_and(|o| !o["installed"].is_null())
            .then_some(loaded),
        // The guest runs no subnet manager (the switch does) unless `opensm=` says it does;
        // opensmd is installed with OFED.
        "opensmd" | "opensm" => ofed
            .is_some_and(|o| !o["installed"].is_null())
            .then_some(host.option("opensm").is_some()),
        _ => None,
    }
}

fn systemctl(host: &SimContext<'_>, args: &[&str]) -> ExecOutput {
    match args {
        ["is-active", units @ ..] if !units.is_empty() => {
            let mut text = String::new();
            let mut all = true;
            for unit in units.iter().filter(|u| !u.starts_with('-')) {
                match unit_active(host, unit) {
                    Some(true) => text.push_str("active\n"),
                    Some(false) | None => {
                        all = false;
                        text.push_str("inactive\n");
                    }
                }
            }
            out(if all { 0 } else { 3 }, text, "")
        }
        [verb, ..] => out(
            127,
            "",
            format!(
                "cairn sim: `systemctl {verb}` is not simulated on this guest (it answers `systemctl is-active UNIT`)\n"
            ),
        ),
        [] => out(
            127,
            "",
            "cairn sim: `systemctl` with no verb is not simulated (it answers `systemctl is-active UNIT`)\n",
        ),
    }
}

/// `cat FILE...`: sysfs files of the interfaces, else the virtual file system.
fn cat(host: &SimContext<'_>, args: &[&str]) -> ExecOutput {
    if args.is_empty() {
        return out(0, host.stdin().unwrap_or_default(), "");
    }
    let interfaces = own_interfaces(host);
    let qos = crate::machine::qos::load(host);
    let (mut stdout, mut stderr, mut code) = (String::new(), String::new(), 0);
    for path in args {
        let contents = sysfs(&interfaces, path)
            .or_else(|| ecn_switch(&interfaces, &qos, path))
            .or_else(|| host.file(path).map(str::to_owned));
        match contents {
            Some(contents) => stdout.push_str(&contents),
            None => {
                stderr.push_str(&format!("cat: {path}: No such file or directory\n"));
                code = 1;
            }
        }
    }
    out(code, stdout, stderr)
}

/// `/sys/class/net/IF/mtu` and `/sys/class/net/IF/operstate`.
fn sysfs(interfaces: &[Iface], path: &str) -> Option<String> {
    let rest = path.strip_prefix("/sys/class/net/")?;
    let (name, file) = rest.split_once('/')?;
    let iface = interfaces.iter().find(|i| i.name == name)?;
    match file {
        "mtu" => Some(format!("{}\n", iface.mtu)),
        "operstate" => Some(
            if iface.name == "lo" {
                "unknown\n"
            } else {
                "up\n"
            }
            .to_owned(),
        ),
        "address" => Some(format!("{}\n", iface.address)),
        _ => None,
    }
}

/// `/sys/class/net/IF/ecn/roce_np/enable/N` (and `roce_rp`) of a RoCE port: `1` or `0`.
fn ecn_switch(
    interfaces: &[Iface],
    qos: &crate::machine::qos::QosState,
    path: &str,
) -> Option<String> {
    let (ifname, np, prio) = crate::machine::qos::ecn_file(path)?;
    interfaces
        .iter()
        .any(|i| i.name == ifname && i.link_type == "ether" && i.rdma.is_some())
        .then(|| {
            format!(
                "{}\n",
                u8::from(crate::machine::qos::ecn(qos, ifname, np, prio))
            )
        })
}

#[cfg(test)]
mod tests {

    use crate::test_support::sim_exec as run;

    #[test]
    fn the_everyday_commands_answer_and_the_others_say_they_are_not_simulated() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = crate::test_support::rhel8_guest("compute-02", dir.path(), &[]);
        assert_eq!(
            run(&host, &["uname", "-r"]).stdout,
            "4.18.0-147.el8.x86_64\n"
        );
        assert_eq!(
            run(&host, &["cat", "/sys/class/net/ens224f1/mtu"]).stdout,
            "1500\n"
        );
        run(&host, &["ip", "link", "set", "ens224f1", "mtu", "9000"]);
        assert_eq!(
            run(&host, &["cat", "/sys/class/net/ens224f1/mtu"]).stdout,
            "9000\n"
        );
        assert_eq!(run(&host, &["cat", "/sys/class/net/ib9/mtu"]).code, 1);
        let brief = run(&host, &["ip", "-br", "link"]).stdout;
        assert!(
            brief
                .lines()
                .any(|l| l.starts_with("ens224f1 ") && l.contains(" UP ")),
            "{brief}"
        );
        let sshd = run(&host, &["systemctl", "is-active", "sshd"]);
        assert_eq!((sshd.code, sshd.stdout.as_str()), (0, "active\n"));
        let openibd = run(&host, &["systemctl", "is-active", "openibd"]);
        assert_eq!((openibd.code, openibd.stdout.as_str()), (3, "inactive\n"));
        let other = run(&host, &["lldptool", "-t", "-i", "ens224f1"]);
        assert_eq!(other.code, 127);
        assert!(
            other.stderr.contains("`lldptool` is not simulated"),
            "{}",
            other.stderr
        );
    }
}
