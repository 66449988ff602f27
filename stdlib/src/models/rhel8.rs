//! The simulated Linux guest (`sim:rhel8`): a RHEL 8 virtual machine with the ConnectX ports an
//! ESXi host passed through to it, cabled to an InfiniBand switch (with a subnet manager) and an
//! Ethernet switch, and the vendor tools' models.
//!
//! The guest's hardware comes from its `sim:rhel8?...` options (see [`GUEST_OPTIONS`]); each
//! tool derives it with [`GuestHw::from_options`] and keeps only what changes in its own state.
//! Two guests on the same switch see each other: a perftest or sockperf client reads its peer's
//! state read-only from the sibling state directory (`<state>/sim/<peer>/state.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{BootMarker, SimContext, SimModel, SimTool};
use serde_json::Value;

/// The `rhel8` model.
pub(crate) fn rhel8() -> SimModel {
    SimModel::new("rhel8", BootMarker::ProcBootId)
        .with_tool(GuestHardware)
        .with_tool(Processes)
        .with_tool(crate::ofed::sim::OfedSim)
        .with_tool(crate::net::sim::IpSim)
        .with_tool(crate::net::sim::Ibdev2netdevSim)
        .with_tool(crate::ib::sim::IbSim)
        .with_tool(crate::perftest::sim::PerftestSim)
        .with_tool(crate::sockperf::sim::SockperfSim)
}

/// The options of a `sim:rhel8` address.
///
/// | option | default | meaning |
/// |---|---|---|
/// | `ports` | `ib,eth` | link layer of each passed-through port, `mlx5_0` first (`ib`, `eth`; `none`) |
/// | `rate` | `100` | port speed in Gb/s: 100 (4X EDR), 200 (2X NDR, NDR200), 56 (4X FDR), 25 |
/// | `ib_switch` | `ib-sw01` | the InfiniBand switch the IB port is cabled to |
/// | `eth_switch` | `eth-sw01` | the Ethernet switch the RoCE port is cabled to |
/// | `subnet_manager` | `true` | the IB switch runs a subnet manager |
/// | `switch_mtu` | `9216` | the Ethernet switch's MTU |
/// | `pfc` | `true` | PFC enabled on the Ethernet switch |
/// | `roce_ifname` | `ens224f1` | the RoCE port's interface name |
/// | `roce_mtu` | `1500` | the RoCE interface's MTU at boot |
/// | `distro` | `rhel` | `rhel` (needs `kernel-modules-extra`) or `centos` (needs `tk`) |
/// | `ofed` | | OFED version already installed (absent by default) |
/// | `node` | trailing digits of the name | the node number: LIDs, addresses |
/// | `seed` | `1` | seed of the measurement noise |
/// | `esxi` | | the ESXi host the VM runs on: its ports then come from there, not from `ports` |
/// | `vcenter` | `vcenter` | the management host whose vCenter holds the VM |
/// | `vm` | the host's name | the VM's name in vCenter |
pub(crate) const GUEST_OPTIONS: &[&str] = &[
    "distro",
    "esxi",
    "eth_switch",
    "ib_switch",
    "node",
    "ofed",
    "pfc",
    "ports",
    "rate",
    "roce_ifname",
    "roce_mtu",
    "seed",
    "subnet_manager",
    "switch_mtu",
    "vcenter",
    "vm",
];

/// A port's link layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum LinkLayer {
    /// InfiniBand.
    InfiniBand,
    /// Ethernet (RoCE).
    Ethernet,
}

impl LinkLayer {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::InfiniBand => "InfiniBand",
            Self::Ethernet => "Ethernet",
        }
    }
}

/// One passed-through ConnectX port, as the guest sees it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct PortHw {
    /// `mlx5_0`.
    pub(crate) device: String,
    pub(crate) link_layer: LinkLayer,
    /// PCI address in the guest, `0000:0b:00.0`.
    pub(crate) pci: String,
    /// `ib0` or `ens224f1`.
    pub(crate) netdev: String,
    /// Port GUID (IB) as 16 hex digits.
    pub(crate) guid: String,
    /// MAC (Ethernet) `0c:42:a1:..`.
    pub(crate) mac: String,
    /// The adapter as `lspci` names it.
    #[serde(default)]
    pub(crate) model: String,
}

/// The guest's hardware and cabling, from its options.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct GuestHw {
    pub(crate) host: String,
    pub(crate) node: u32,
    pub(crate) ports: Vec<PortHw>,
    pub(crate) rate_gbps: u32,
    pub(crate) ib_switch: String,
    pub(crate) eth_switch: String,
    pub(crate) subnet_manager: bool,
    pub(crate) switch_mtu: u32,
    pub(crate) pfc: bool,
    pub(crate) roce_ifname: String,
    pub(crate) roce_mtu: u32,
    pub(crate) distro: String,
    pub(crate) ofed: Option<String>,
    pub(crate) seed: u64,
    /// The IB port's LID once the subnet manager assigned it.
    pub(crate) lid: u32,
    /// The management address (`ens192`), which perftest and sockperf exchange data over.
    pub(crate) mgmt_ip: String,
}

impl GuestHw {
    /// The hardware of the host `ctx` runs on: with `esxi=HOST`, the ports its ESXi host passes
    /// through to its VM now (see [`crate::machine::passthrough`]).
    pub(crate) fn of(ctx: &SimContext<'_>) -> Self {
        let mut hw = Self::from_options(ctx.host_name(), ctx.options());
        if let Some(esxi) = ctx.option("esxi") {
            let vcenter = ctx.option("vcenter").unwrap_or("vcenter");
            let vm = ctx.option("vm").unwrap_or(ctx.host_name());
            let passed = crate::machine::passthrough::passed_through(ctx, esxi, vcenter, vm);
            if let (None, Some(first)) = (ctx.option("rate"), passed.first()) {
                hw.rate_gbps = u32::try_from(first.speed_gbps).unwrap_or(100);
            }
            hw.ports = passed
                .iter()
                .enumerate()
                .map(|(index, port)| {
                    port_hw(
                        &hw.host,
                        &hw.roce_ifname,
                        index,
                        port.link_layer,
                        &port.model,
                    )
                })
                .collect();
        }
        hw
    }

    /// The hardware described by a host's name and options (bad values were refused when the
    /// host opened; defaults stand in for any that slip through).
    pub(crate) fn from_options(host: &str, options: &BTreeMap<String, String>) -> Self {
        let get = |key: &str| options.get(key).map(String::as_str);
        let flag = |key: &str, default: bool| match get(key) {
            Some("false" | "0" | "no" | "off") => false,
            Some(_) => true,
            None => default,
        };
        let trailing: String = host
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let node = get("node")
            .and_then(|n| n.parse().ok())
            .or_else(|| trailing.parse().ok())
            .unwrap_or_else(|| u32::try_from(hash(&[host]) % 200).unwrap_or(0) + 1)
            .min(4000);
        let roce_ifname = get("roce_ifname").unwrap_or("ens224f1").to_owned();
        let ports = get("ports").unwrap_or("ib,eth");
        let ports: Vec<PortHw> = if ports == "none" {
            Vec::new()
        } else {
            ports
                .split(',')
                .enumerate()
                .map(|(index, kind)| {
                    let link_layer = if kind.trim() == "eth" {
                        LinkLayer::Ethernet
                    } else {
                        LinkLayer::InfiniBand
                    };
                    port_hw(host, &roce_ifname, index, link_layer, CONNECTX5)
                })
                .collect()
        };
        Self {
            host: host.to_owned(),
            node,
            ports,
            rate_gbps: get("rate").and_then(|r| r.parse().ok()).unwrap_or(100),
            ib_switch: get("ib_switch").unwrap_or("ib-sw01").to_owned(),
            eth_switch: get("eth_switch").unwrap_or("eth-sw01").to_owned(),
            subnet_manager: flag("subnet_manager", true),
            switch_mtu: get("switch_mtu")
                .and_then(|m| m.parse().ok())
                .unwrap_or(9216),
            pfc: flag("pfc", true),
            roce_ifname,
            roce_mtu: get("roce_mtu").and_then(|m| m.parse().ok()).unwrap_or(1500),
            distro: get("distro").unwrap_or("rhel").to_owned(),
            ofed: get("ofed").map(str::to_owned),
            seed: get("seed").and_then(|s| s.parse().ok()).unwrap_or(1),
            lid: 0x12 + node,
            mgmt_ip: format!("10.10.{}.{}", node / 250, node % 250 + 2),
        }
    }

    /// `4X EDR` for the configured rate.
    pub(crate) fn rate_text(&self) -> &'static str {
        match self.rate_gbps {
            400 => "4X NDR",
            200 => "2X NDR",
            56 => "4X FDR",
            40 => "4X QDR",
            25 => "1X EDR",
            _ => "4X EDR",
        }
    }
}

/// `lspci`'s name of the ConnectX-5, the adapter a guest has without `esxi=`.
const CONNECTX5: &str = "Mellanox Technologies MT27800 Family [ConnectX-5]";

/// The guest's view of its `index`th passed-through port: `mlx5_<index>`, a PCI slot of its
/// own, `ib0` or the RoCE interface, identifiers derived from the host's name.
fn port_hw(
    host: &str,
    roce_ifname: &str,
    index: usize,
    link_layer: LinkLayer,
    model: &str,
) -> PortHw {
    let h = hash(&[host, "guid"]).to_be_bytes();
    let last = h[2].wrapping_add(u8::try_from(index % 200).unwrap_or(0));
    PortHw {
        device: format!("mlx5_{index}"),
        link_layer,
        pci: format!("0000:{:02x}:00.0", 0x0b + index),
        netdev: match link_layer {
            LinkLayer::InfiniBand if index == 0 => "ib0".to_owned(),
            LinkLayer::InfiniBand => format!("ib{index}"),
            LinkLayer::Ethernet if index == 1 => roce_ifname.to_owned(),
            LinkLayer::Ethernet => format!("ens{}f{index}", 224 + index),
        },
        guid: format!("0c42a10300{:02x}{:02x}{last:02x}", h[0], h[1]),
        mac: format!("0c:42:a1:{:02x}:{:02x}:{last:02x}", h[0], h[1]),
        model: model.to_owned(),
    }
}

/// FNV-1a over the parts, for deterministic identifiers and noise.
pub(crate) fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A deterministic number in `[0, 1)` from the parts.
pub(crate) fn unit(parts: &[&str]) -> f64 {
    let mut z = hash(parts).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    #[allow(clippy::cast_precision_loss)] // 53 bits kept on purpose
    let value = (z >> 11) as f64 / (1u64 << 53) as f64;
    value
}

/// Where the simulated hosts' state directories are: the parent of this host's own directory.
pub(crate) fn sim_root(ctx: &SimContext<'_>) -> Option<PathBuf> {
    ctx.sim_root().map(Path::to_path_buf)
}

/// Another simulated host's tool states, read-only, by host name; `None` when there is no such
/// host (an unreachable peer) or it is rebooting.
pub(crate) fn peer_tools(
    ctx: &SimContext<'_>,
    peer: &str,
) -> Option<serde_json::Map<String, Value>> {
    if peer.is_empty() || peer.contains('/') || peer.starts_with('.') {
        return None;
    }
    let root = sim_root(ctx)?;
    let text = std::fs::read_to_string(root.join(peer).join("state.json")).ok()?;
    let state: Value = serde_json::from_str(&text).ok()?;
    if state.get("down_until_millis").is_some_and(|d| !d.is_null()) {
        return None;
    }
    state.get("tools")?.as_object().cloned()
}

/// Every other simulated host's name under the same root.
pub(crate) fn sibling_hosts(ctx: &SimContext<'_>) -> Vec<String> {
    let Some(root) = sim_root(ctx) else {
        return Vec::new();
    };
    let mut names: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("state.json").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    names
}

/// An answer.
pub(crate) fn out(code: i64, stdout: impl Into<String>, stderr: impl Into<String>) -> ExecOutput {
    ExecOutput {
        code,
        stderr: stderr.into(),
        stdout: stdout.into(),
    }
}

/// What bash prints for a program that is not installed.
pub(crate) fn not_found(program: &str) -> ExecOutput {
    out(127, "", format!("bash: {program}: command not found\n"))
}

/// The guest's hardware tool: `lspci`, the guest's options, `/etc/os-release`, and the hardware
/// summary in its state (which peers read).
pub(crate) struct GuestHardware;

impl SimTool for GuestHardware {
    fn commands(&self) -> &[&'static str] {
        &["lspci", "uname"]
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
            "roce_mtu" | "switch_mtu" => number("an MTU in bytes"),
            "node" | "seed" => number("a whole number"),
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
        let mut text = String::from(
            "00:00.0 Host bridge: Intel Corporation 440BX/ZX/DX - 82443BX/ZX/DX Host bridge (rev 01)\n\
             03:00.0 Ethernet controller: VMware VMXNET3 Ethernet Controller (rev 01)\n",
        );
        for port in &hw.ports {
            let class = match port.link_layer {
                LinkLayer::InfiniBand => "Infiniband controller",
                LinkLayer::Ethernet => "Ethernet controller",
            };
            let address = port.pci.trim_start_matches("0000:");
            let model = if port.model.is_empty() {
                CONNECTX5
            } else {
                &port.model
            };
            text.push_str(&format!("{address} {class}: {model}\n"));
        }
        out(0, text, "")
    }
}

/// Background processes started by cairn's `env LOG=.. PIDFILE=.. sh -c SCRIPT sh CMD...` (which
/// first stops the process an earlier start left in PIDFILE), their collection by
/// `sh -c 'kill "$1"; cat "$2"; rm -f "$2" "$3"' sh PID LOG PIDFILE`, and `kill`.
///
/// The state is the process table: pid → `{argv, log, started_millis}`. A server's output is
/// computed when it is collected, by the tool that owns the program (perftest, sockperf).
pub(crate) struct Processes;

/// The `sh -c` script cairn starts a background command with: a server an interrupted start left
/// (its pid in `$PIDFILE`, written by the host's shell itself) is stopped first, then the new
/// one's pid is written there, so no crash of the controller can leave one unaccounted for.
pub(crate) const BACKGROUND_SCRIPT: &str = "[ -f \"$PIDFILE\" ] && kill \"$(cat \"$PIDFILE\")\" 2>/dev/null; \"$@\" >\"$LOG\" 2>&1 </dev/null & echo $! >\"$PIDFILE\"; echo $!";
/// The `sh -c` script cairn stops a background command and reads its output with.
pub(crate) const COLLECT_SCRIPT: &str = "kill \"$1\" 2>/dev/null; cat \"$2\"; rm -f \"$2\" \"$3\"";

/// A background process in the simulated process table.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Process {
    pub(crate) argv: Vec<String>,
    pub(crate) log: String,
    pub(crate) started_millis: u64,
}

/// The process table.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ProcessTable {
    pub(crate) next_pid: u64,
    pub(crate) running: BTreeMap<String, Process>,
}

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
                match rest {
                    [pidfile, sh, flag, script, _zero, command @ ..]
                        if sh == "sh" && flag == "-c" && script == BACKGROUND_SCRIPT =>
                    {
                        let Some(pidfile) = pidfile.strip_prefix("PIDFILE=") else {
                            return out(2, "", "sh: PIDFILE is not set\n");
                        };
                        start(host, &mut table, log, pidfile, command)
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
    command: &[String],
) -> ExecOutput {
    if let Some(left) = host.remove_file(pidfile) {
        table.running.remove(left.trim());
    }
    let program = program_of(command);
    let known = crate::perftest::sim::is_perftest(program) || program == "sockperf";
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

/// The program of a command line, past `env VAR=VALUE...`.
pub(crate) fn program_of(argv: &[String]) -> &str {
    let skip = if argv
        .first()
        .is_some_and(|p| p == "env" || p.ends_with("/env"))
    {
        1 + argv.iter().skip(1).take_while(|a| a.contains('=')).count()
    } else {
        0
    };
    argv.get(skip)
        .map_or("", |p| p.rsplit('/').next().unwrap_or(p))
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
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use cairn_runtime::ExecRequest;
    use cairn_runtime::sim::SimHost;

    use super::*;

    fn run(host: &SimHost, argv: &[&str]) -> ExecOutput {
        host.exec(&ExecRequest::new(argv.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_passed_through_ports_show_in_lspci_and_the_hardware_follows_the_options() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let options = BTreeMap::from([
            ("clock".to_owned(), "virtual".to_owned()),
            ("ports".to_owned(), "ib,eth".to_owned()),
        ]);
        let host = SimHost::open(
            "hw-02",
            dir.path().join("hw-02"),
            Arc::new(rhel8()),
            options,
        )
        .unwrap_or_else(|e| panic!("{e}"));
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
        let hw = GuestHw::from_options("compute-02", &BTreeMap::new());
        assert_eq!((hw.node, hw.lid, hw.rate_text()), (2, 0x14, "4X EDR"));
        assert_eq!(hw.ports[1].netdev, "ens224f1");
        let ndr = GuestHw::from_options(
            "n",
            &BTreeMap::from([
                ("rate".to_owned(), "200".to_owned()),
                ("ports".to_owned(), "none".to_owned()),
            ]),
        );
        assert_eq!((ndr.rate_text(), ndr.ports.len()), ("2X NDR", 0));
        assert!(unit(&["a"]) < 1.0 && unit(&["a"]) >= 0.0);
        assert_eq!(unit(&["a"]), unit(&["a"]));
        assert_eq!(
            program_of(&["env".into(), "A=b".into(), "/usr/bin/sockperf".into()]),
            "sockperf"
        );
    }

    #[test]
    fn unknown_background_commands_are_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let options = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
        let host = SimHost::open(
            "bg-01",
            dir.path().join("bg-01"),
            Arc::new(rhel8()),
            options,
        )
        .unwrap_or_else(|e| panic!("{e}"));
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
