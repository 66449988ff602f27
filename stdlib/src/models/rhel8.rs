//! The simulated Linux guest (`sim:rhel8`): a RHEL 8 virtual machine with the ConnectX ports an
//! ESXi host passed through to it, cabled to an InfiniBand switch (with a subnet manager) and an
//! Ethernet switch, and the vendor tools' models.
//!
//! The guest's hardware is [`crate::machine::guest`]; each tool derives it from the host's
//! options and keeps only what changes in its own state.
//! Two guests on the same switch see each other: a perftest or sockperf client reads its peer's
//! state read-only from the sibling state directory (`<state>/sim/<peer>/state.json`).

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{BootMarker, SimContext, SimModel, SimTool};

use crate::machine::guest::{GUEST_OPTIONS, GuestHw, out};
use crate::machine::processes::{Process, ProcessTable, program_of};
use crate::pair::background::{BACKGROUND_SCRIPT, COLLECT_SCRIPT};

/// The `rhel8` model: the guest's hardware and process table, then the guest rows of the table
/// of tools, then the everyday commands an author looks around with.
pub(crate) fn rhel8() -> SimModel {
    let model = SimModel::new("rhel8", BootMarker::ProcBootId)
        .with_tool(GuestHardware)
        .with_tool(Processes);
    crate::tools::TOOLS
        .iter()
        .filter(|tool| tool.host.on_guest())
        .fold(model, |model, tool| (tool.simulate)(model))
        .with_tool(super::linux_commands::LinuxCommands)
}

/// The guest's hardware tool: `lspci`, the guest's options, `/etc/os-release`, and the hardware
/// summary in its state (which peers read).
pub(crate) struct GuestHardware;

impl SimTool for GuestHardware {
    fn commands(&self) -> &[&'static str] {
        &["lspci", "uname"]
    }

    fn unreachable(&self, host: &SimContext<'_>) -> Option<String> {
        crate::machine::host_vms::guest_down(host)
    }

    fn boots_now(&self, host: &mut SimContext<'_>) -> bool {
        crate::machine::host_vms::guest_boots(host)
    }

    fn name(&self) -> &'static str {
        "guest"
    }

    fn options(&self) -> &[&'static str] {
        GUEST_OPTIONS
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        let number = |what: &str| {
            value
                .parse::<u64>()
                .map(|_| ())
                .map_err(|_| what.to_owned())
        };
        match key {
            "ports" if value == "none" => Ok(()),
            "ports" if value.split(',').all(|p| matches!(p.trim(), "ib" | "eth")) => Ok(()),
            "ports" => Err("`ib` and `eth` separated by commas, or `none`".into()),
            "rate" => number("a speed in Gb/s: 25, 40, 56, 100, 200 or 400"),
            "link_width" => crate::machine::guest::parse_width(value)
                .map(|_| ())
                .ok_or_else(|| "a link width: `1X`, `2X` or `4X`".to_owned()),
            "roce_mtu" | "switch_mtu" => number("an MTU in bytes"),
            "node" | "seed" | "symbol_errors" | "symbol_errors_per_s" | "link_downs" => {
                number("a whole number")
            }
            "effective_ber" => crate::grammar::ber(value)
                .map(|_| ())
                .ok_or_else(|| "a BER as mlxlink prints it: `3E-9`".to_owned()),
            "opensm" if matches!(value, "master" | "standby") => Ok(()),
            "opensm" => Err("`master` or `standby`".into()),
            "leaf_uplinks" => match value.parse::<u32>() {
                Ok(n) if n > 0 => Ok(()),
                _ => Err("a number of uplinks, 1 or more".into()),
            },
            _ => Ok(()),
        }
    }

    fn init(&self, host: &mut SimContext<'_>) {
        let hw = GuestHw::of(host);
        let release = if hw.distro == "centos" {
            "NAME=\"CentOS Linux\"\nVERSION=\"8\"\nID=\"centos\"\nID_LIKE=\"rhel fedora\"\nVERSION_ID=\"8\"\nPRETTY_NAME=\"CentOS Linux 8\"\n"
        } else {
            "NAME=\"Red Hat Enterprise Linux\"\nVERSION=\"8.1 (Ootpa)\"\nID=\"rhel\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"8.1\"\nPRETTY_NAME=\"Red Hat Enterprise Linux 8.1 (Ootpa)\"\n"
        };
        host.write_file("/etc/os-release", release);
        let _ = host.save_state(&hw);
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let hw = GuestHw::of(host);
        let _ = host.save_state(&hw);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let hw = GuestHw::of(host);
        let _ = host.save_state(&hw);
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        if program == "uname" {
            return out(0, "4.18.0-147.el8.x86_64\n", "");
        }
        super::lspci::print(
            &hw,
            argv,
            "00:00.0 Host bridge: Intel Corporation 440BX/ZX/DX - 82443BX/ZX/DX Host bridge (rev 01)\n\
             03:00.0 Ethernet controller: VMware VMXNET3 Ethernet Controller (rev 01)\n",
        )
    }
}

/// Background processes started by cairn's `env LOG=.. PIDFILE=.. sh -c SCRIPT sh CMD...` (which
/// first stops the process an earlier start left in PIDFILE), their collection by
/// `sh -c 'kill "$1"; cat "$2"; rm -f "$2" "$3"' sh PID LOG PIDFILE`, and `kill`.
///
/// The state is the process table: pid → `{argv, log, started_millis}`. A server's output is
/// computed when it is collected, by the tool that owns the program (perftest, sockperf).
pub(crate) struct Processes;

impl SimTool for Processes {
    fn commands(&self) -> &[&'static str] {
        &["sh", "env", "kill"]
    }

    fn name(&self) -> &'static str {
        "processes"
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let _ = host.save_state(&ProcessTable::default());
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let mut table: ProcessTable = host.load_state().unwrap_or_default();
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        let args = argv.get(1..).unwrap_or_default();
        match program {
            "kill" => {
                let mut code = 0;
                let mut stderr = String::new();
                for pid in args.iter().filter(|a| !a.starts_with('-')) {
                    if table.running.remove(pid).is_none() {
                        code = 1;
                        stderr.push_str(&format!("sh: kill: ({pid}) - No such process\n"));
                    }
                }
                let _ = host.save_state(&table);
                out(code, "", stderr)
            }
            "env" => {
                // `env LOG=PATH sh -c SCRIPT sh CMD...`
                let Some((assignment, rest)) = args.split_first() else {
                    return out(0, "", "");
                };
                let Some(log) = assignment.strip_prefix("LOG=") else {
                    // `env VAR=VALUE... sockperf ...` (libvma preloaded).
                    let vars: Vec<&String> = args.iter().take_while(|a| a.contains('=')).collect();
                    let command = args.get(vars.len()..).unwrap_or_default();
                    let program = command
                        .first()
                        .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
                    if program == "sockperf" {
                        let vars: Vec<(String, String)> = vars
                            .iter()
                            .filter_map(|v| v.split_once('='))
                            .map(|(k, v)| (k.to_owned(), v.to_owned()))
                            .collect();
                        return crate::sockperf::sim::run(host, &vars, command);
                    }
                    return out(
                        127,
                        "",
                        format!("env: '{program}': No such file or directory\n"),
                    );
                };
                // `PEER=HOST` after `PIDFILE=` is optional.
                let (peer, rest) = match rest {
                    [pidfile, peer, more @ ..] if peer.starts_with("PEER=") => (
                        peer.strip_prefix("PEER=").map(str::to_owned),
                        [std::slice::from_ref(pidfile), more].concat(),
                    ),
                    _ => (None, rest.to_vec()),
                };
                match rest.as_slice() {
                    [pidfile, sh, flag, script, _zero, command @ ..]
                        if sh == "sh" && flag == "-c" && script == BACKGROUND_SCRIPT =>
                    {
                        let Some(pidfile) = pidfile.strip_prefix("PIDFILE=") else {
                            return out(2, "", "sh: PIDFILE is not set\n");
                        };
                        start(host, &mut table, log, pidfile, peer, command)
                    }
                    _ => out(2, "", "sh: unsupported command line in the simulator\n"),
                }
            }
            _ => match args {
                [flag, script, _zero, pid, log, pidfile]
                    if flag == "-c" && script == COLLECT_SCRIPT =>
                {
                    host.remove_file(pidfile);
                    let process = table.running.remove(pid.as_str());
                    let _ = host.save_state(&table);
                    let text = match process {
                        Some(process) => collect(host, pid, &process),
                        None => host.file(log).unwrap_or_default().to_owned(),
                    };
                    host.remove_file(log);
                    out(0, text, "")
                }
                _ => out(2, "", "sh: unsupported command line in the simulator\n"),
            },
        }
    }
}

fn start(
    host: &mut SimContext<'_>,
    table: &mut ProcessTable,
    log: &str,
    pidfile: &str,
    peer: Option<String>,
    command: &[String],
) -> ExecOutput {
    if let Some(left) = host.remove_file(pidfile) {
        table.running.remove(left.trim());
    }
    let program = program_of(command);
    let known = crate::perftest::programs::is_perftest(program) || program == "sockperf";
    let started = host.now_millis();
    table.next_pid = table.next_pid.max(4200) + 17;
    let pid = table.next_pid.to_string();
    if known && host.tool_state("ofed").is_some_and(|s| s["loaded"] == true) {
        table.running.insert(
            pid.clone(),
            Process {
                argv: command.to_vec(),
                log: log.to_owned(),
                started_millis: started,
                peer,
            },
        );
        host.write_file(log, "");
    } else {
        host.write_file(log, format!("sh: {program}: command not found\n"));
    }
    host.write_file(pidfile, format!("{pid}\n"));
    let _ = host.save_state(table);
    out(0, format!("{pid}\n"), "")
}

/// The output a stopped server left in its log.
fn collect(host: &mut SimContext<'_>, pid: &str, process: &Process) -> String {
    let program = program_of(&process.argv);
    if program == "sockperf" {
        crate::sockperf::sim::server_output(host, pid, process)
    } else {
        crate::perftest::sim::server_output(host, pid, process)
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    use crate::test_support::sim_exec as run;

    #[test]
    fn the_passed_through_ports_show_in_lspci_and_the_hardware_follows_the_options() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = crate::test_support::rhel8_guest(
            "hw-02",
            dir.path().join("hw-02"),
            &[("ports", "ib,eth")],
        );
        let lspci = run(&host, &["lspci"]);
        let parsed = crate::lspci::parse(&lspci.stdout).unwrap_or_else(|e| panic!("{e}"));
        let mellanox: Vec<_> = parsed
            .devices
            .iter()
            .filter(|d| d.vendor.as_deref() == Some("Mellanox Technologies"))
            .collect();
        assert_eq!(mellanox.len(), 2);
        assert_eq!(mellanox[0].model.as_deref(), Some("ConnectX-5"));
        assert!(
            host.file("/etc/os-release")
                .ok()
                .flatten()
                .is_some_and(|f| f.contains("ID=\"rhel\""))
        );
        let hw = GuestHw::from_options("compute-02", |_| None);
        assert_eq!(
            (hw.node, hw.lid, hw.rate_text()),
            (2, 0x14, "4X EDR".to_owned())
        );
        assert_eq!(hw.ports[1].netdev, "ens224f1");
        let ndr = GuestHw::from_options("n", |key| match key {
            "rate" => Some("200"),
            "ports" => Some("none"),
            _ => None,
        });
        assert_eq!((ndr.rate_text(), ndr.ports.len()), ("2X NDR".to_owned(), 0));
        // A degraded cable: the port trains at 1X, a quarter of 4X EDR, half of 2X NDR.
        let degraded = |rate: &str| {
            GuestHw::from_options("n", |key| match key {
                "rate" => Some(rate),
                "link_width" => Some("1X"),
                _ => None,
            })
        };
        let edr = degraded("100");
        assert_eq!((edr.rate_text(), edr.ib_rate_gbps()), ("1X EDR".into(), 25));
        // The RoCE port's rate is not the IB cable's.
        assert_eq!(edr.nominal_rate_text(), "4X EDR");
        let ndr = degraded("200");
        assert_eq!(
            (ndr.rate_text(), ndr.ib_rate_gbps()),
            ("1X NDR".into(), 100)
        );
        assert_eq!(hw.ib_rate_gbps(), 100);
        assert!(
            crate::machine::guest::unit(&["a"]) < 1.0 && crate::machine::guest::unit(&["a"]) >= 0.0
        );
        assert_eq!(
            crate::machine::guest::unit(&["a"]),
            crate::machine::guest::unit(&["a"])
        );
        assert_eq!(
            program_of(&["env".into(), "A=b".into(), "/usr/bin/sockperf".into()]),
            "sockperf"
        );
    }

    #[test]
    fn unknown_background_commands_are_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = crate::test_support::rhel8_guest("bg-01", dir.path().join("bg-01"), &[]);
        assert_eq!(run(&host, &["sh", "-c", "rm -rf /"]).code, 2);
        assert_eq!(run(&host, &["kill", "99"]).code, 1);
        // Without OFED, a background perftest server is "not found" in its log.
        let pid = run(
            &host,
            &[
                "env",
                "LOG=/tmp/x",
                "PIDFILE=/tmp/x.pid",
                "sh",
                "-c",
                BACKGROUND_SCRIPT,
                "sh",
                "ib_send_bw",
            ],
        );
        let pid = pid.stdout.trim().to_owned();
        let log = run(
            &host,
            &[
                "sh",
                "-c",
                COLLECT_SCRIPT,
                "sh",
                &pid,
                "/tmp/x",
                "/tmp/x.pid",
            ],
        );
        assert_eq!(log.stdout, "sh: ib_send_bw: command not found\n");
    }
}
