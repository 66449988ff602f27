//! The simulated `mlnx_qos`, `cma_roce_tos` and the `tee` that writes the ECN sysfs switches,
//! over the host's QoS settings (`crate::machine::qos`, runtime state: lost at a reboot or a
//! driver reload).
//!
//! `mlnx_qos` is mlnx-tools' `python/mlnx_qos` (github.com/Mellanox/mlnx-tools, commit 8fbfd9c):
//! its options (`-i`, `--trust`, `--pfc`/`-f`, `--dscp2prio set,DSCP,PRIO` repeated, `--tsa`/`-s`,
//! `--tcbw`/`-t`, `--prio_tc`/`-p`), applied in the script's order (pfc, dscp2prio, trust, ETS),
//! its checks and their messages (`pfc list must have 8 items`, `Bad value for PFC: ...`, `trust
//! and dscp2prio commands cannot be used at the same time.`), then `pretty_print` of what the
//! port has, in the DCB application table's form of the DSCP map (the netlink path, a kernel
//! without the `qos/trust` sysfs file). An interface without DCB (the management port, one the
//! host lacks) fails both reads: `Priority trust state is not supported on your system`, then
//! `ETS features are not supported on your system`, exit 1. An ETS share sum the kernel refuses
//! (`mlx5e_dbcnl_validate_ets`) is `set_ieee_ets`'s `OSError`, printed: `[Errno 22] Invalid
//! argument`. `cma_roce_tos` is mlnx-tools' `sbin/cma_roce_tos`: `-d DEV -p PORT [-t TOS]`
//! prints the port's default ToS after setting it. All need OFED installed (mlnx-tools comes
//! with it), and `cma_roce_tos` its `rdma_cm` loaded.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::guest::{GuestHw, not_found, out};
use crate::machine::interfaces::own_interfaces;
use crate::machine::ofed::OfedState;
use crate::machine::qos::{self, PortQos, QOS_SLOT, QosState, Tsa};

/// `mlnx_qos`, `cma_roce_tos` and `tee`.
pub(crate) struct QosSim;

impl SimTool for QosSim {
    fn commands(&self) -> &[&'static str] {
        &["mlnx_qos", "cma_roce_tos", "tee"]
    }

    fn name(&self) -> &'static str {
        QOS_SLOT
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let fresh = QosState {
            traffic_seen: qos::traffic_runs(host),
            ..QosState::default()
        };
        qos::save(host, fresh);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        if program == "tee" {
            return tee(host, &args);
        }
        let ofed: OfedState = host
            .tool_state("ofed")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        if ofed.installed.is_none() {
            return not_found(program);
        }
        if program == "cma_roce_tos" {
            return cma_roce_tos(host, &args, ofed.loaded);
        }
        mlnx_qos(host, &args)
    }
}

/// What `mlnx_qos` was asked.
#[derive(Default)]
struct QosArgs<'a> {
    interface: Option<&'a str>,
    trust: Option<&'a str>,
    pfc: Option<&'a str>,
    dscp2prio: Vec<&'a str>,
    tsa: Option<&'a str>,
    tcbw: Option<&'a str>,
    prio_tc: Option<&'a str>,
    /// `-a`: every traffic class, also those without a priority.
    all: bool,
}

/// optparse's refusal of an option it does not know (`print_usage` and `error`, exit 2).
fn optparse_error(message: &str) -> ExecOutput {
    out(
        2,
        "",
        format!("Usage: mlnx_qos -i <interface> [options]\n\nmlnx_qos: error: {message}\n"),
    )
}

/// Reads the command line as optparse does (`--opt VALUE` or `--opt=VALUE`).
fn qos_args<'a>(args: &[&'a str]) -> Result<QosArgs<'a>, ExecOutput> {
    let mut parsed = QosArgs::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value)),
            _ => (*arg, None),
        };
        let slot = match flag {
            "-i" | "--interface" => &mut parsed.interface,
            "--trust" => &mut parsed.trust,
            "-f" | "--pfc" => &mut parsed.pfc,
            "-s" | "--tsa" => &mut parsed.tsa,
            "-t" | "--tcbw" => &mut parsed.tcbw,
            "-p" | "--prio_tc" => &mut parsed.prio_tc,
            "-a" => {
                parsed.all = true;
                continue;
            }
            "--dscp2prio" => {
                let value = inline.or_else(|| rest.next().copied());
                let Some(value) = value else {
                    return Err(optparse_error("--dscp2prio option requires an argument"));
                };
                parsed.dscp2prio.push(value);
                continue;
            }
            other => return Err(optparse_error(&format!("no such option: {other}"))),
        };
        let Some(value) = inline.or_else(|| rest.next().copied()) else {
            return Err(optparse_error(&format!(
                "{flag} option requires an argument"
            )));
        };
        *slot = Some(value);
    }
    Ok(parsed)
}

/// The tool's own failure: its line on stdout, exit 1.
fn fail(text: &str) -> ExecOutput {
    out(1, format!("{text}\n"), "")
}

/// Eight comma-separated integers in `0..=max`, or the tool's refusal (`parse_int`, the
/// list's length check).
fn list_of_eight(text: &str, max: u8, what: &str, name: &str) -> Result<[u8; 8], ExecOutput> {
    let items: Vec<&str> = text.split(',').collect();
    if items.len() > 8 {
        return Err(fail(&format!("Too many items for {what}")));
    }
    let mut values = [0u8; 8];
    for (slot, item) in values.iter_mut().zip(&items) {
        *slot = match item.parse::<i64>() {
            Ok(v) if (0..=i64::from(max)).contains(&v) => u8::try_from(v).unwrap_or(0),
            Ok(v) => {
                return Err(out(
                    1,
                    format!(
                        "Bad value for {what}: {v} is not in the range 0..{max}\nUsage: mlnx_qos -i <interface> [options]\n"
                    ),
                    "",
                ));
            }
            Err(_) => {
                return Err(out(
                    1,
                    format!(
                        "Bad value for {what}: invalid literal for int() with base 10: '{item}'\nUsage: mlnx_qos -i <interface> [options]\n"
                    ),
                    "",
                ));
            }
        };
    }
    if items.len() != 8 {
        return Err(fail(&format!("{name} list must have 8 items")));
    }
    Ok(values)
}

/// `mlnx_qos -i IFACE [...]`.
fn mlnx_qos(host: &mut SimContext<'_>, args: &[&str]) -> ExecOutput {
    let parsed = match qos_args(args) {
        Ok(parsed) => parsed,
        Err(refused) => return refused,
    };
    let Some(ifname) = parsed.interface else {
        return out(
            1,
            "Interface name is required\nUsage: mlnx_qos -i <interface> [options]\n",
            "",
        );
    };
    let has_dcb = own_interfaces(host)
        .iter()
        .any(|i| i.name == ifname && i.link_type == "ether" && i.rdma.is_some());
    if !has_dcb {
        return out(
            1,
            "Priority trust state is not supported on your system\nETS features are not supported on your system\n",
            "",
        );
    }
    let mut state = qos::load(host);
    qos::settle_traffic(host, &mut state);
    let mut port = state.port(ifname);
    if let Err(refused) = apply(&mut port, &parsed) {
        return refused;
    }
    let text = pretty_print(&port, parsed.all);
    *state.port_mut(ifname) = port;
    qos::save(host, state);
    out(0, text, "")
}

/// Applies the settings asked, in the script's order; a refused one stops the tool with what
/// it set before it kept.
fn apply(port: &mut PortQos, asked: &QosArgs<'_>) -> Result<(), ExecOutput> {
    if let Some(pfc) = asked.pfc {
        let values = list_of_eight(pfc, 1, "PFC", "pfc")?;
        port.pfc = values.map(|v| v == 1);
    }
    if !asked.dscp2prio.is_empty() && asked.trust.is_some() {
        return Err(fail(
            "trust and dscp2prio commands cannot be used at the same time.",
        ));
    }
    let mut entries = Vec::new();
    for entry in &asked.dscp2prio {
        let parts: Vec<&str> = entry.split(',').collect();
        let numbers = match parts.as_slice() {
            ["set", dscp, prio] => dscp.parse::<u8>().ok().zip(prio.parse::<u8>().ok()),
            _ => None,
        };
        match numbers {
            Some((dscp, prio)) if dscp <= 63 && prio <= 7 => entries.push((dscp, prio)),
            _ => return Err(fail("Invalid dscp2prio command. Refer to the help.")),
        }
    }
    for (dscp, prio) in entries {
        port.set_dscp(dscp, prio);
    }
    if let Some(trust) = asked.trust {
        if trust != "dscp" && trust != "pcp" {
            return Err(fail("Invalid trust state command. Refer to the help."));
        }
        port.set_trust(trust);
    }
    apply_ets(port, asked)
}

/// `--tsa`, `--tcbw`, `--prio_tc`: one ETS setting, which the kernel refuses when the ETS
/// classes' shares do not sum to 100.
fn apply_ets(port: &mut PortQos, asked: &QosArgs<'_>) -> Result<(), ExecOutput> {
    let mut tsa = port.tsa;
    if let Some(list) = asked.tsa {
        let names: Vec<&str> = list.split(',').collect();
        if names.len() > 8 {
            return Err(fail("Too many items for TSA"));
        }
        for (slot, name) in tsa.iter_mut().zip(&names) {
            *slot = match *name {
                "strict" => Tsa::Strict,
                "ets" => Tsa::Ets,
                "vendor" => Tsa::Vendor,
                other => {
                    return Err(out(
                        1,
                        format!(
                            "('Bad TSA value: ', '{other}')\nUsage: mlnx_qos -i <interface> [options]\n"
                        ),
                        "",
                    ));
                }
            };
        }
        if names.len() != 8 {
            return Err(fail("tsa list must have 8 items"));
        }
    }
    let mut tcbw = port.tcbw;
    if let Some(list) = asked.tcbw {
        tcbw = list_of_eight(list, 100, "ETS BW", "tcbw")?;
        if tcbw
            .iter()
            .zip(&tsa)
            .any(|(bw, t)| *bw != 0 && *t != Tsa::Ets)
        {
            return Err(out(
                1,
                "ETS BW for a strict/vendor TC must be 0\nUsage: mlnx_qos -i <interface> [options]\n",
                "",
            ));
        }
    }
    let mut prio_tc = port.prio_tc;
    if let Some(list) = asked.prio_tc {
        prio_tc = list_of_eight(list, 7, "UP => TC mapping", "prio_tc")?;
    }
    if asked.tsa.is_none() && asked.tcbw.is_none() && asked.prio_tc.is_none() {
        return Ok(());
    }
    let ets_sum: u32 = tcbw
        .iter()
        .zip(&tsa)
        .filter(|(_, t)| **t == Tsa::Ets)
        .map(|(bw, _)| u32::from(*bw))
        .sum();
    if tsa.contains(&Tsa::Ets) && ets_sum != 100 {
        return Err(fail("[Errno 22] Invalid argument"));
    }
    (port.tsa, port.tcbw, port.prio_tc) = (tsa, tcbw, prio_tc);
    Ok(())
}

/// `pretty_print`: DCBX mode, trust, the DSCP map, cable length, the PFC table, then each
/// traffic class that has priorities (every one with `-a`), with them.
fn pretty_print(port: &PortQos, all: bool) -> String {
    let mut text = format!(
        "DCBX mode: OS controlled\nPriority trust state: {}\n",
        port.trust()
    );
    if port.trust() == "dscp" {
        text.push_str("dscp2prio mapping:\n");
        for prio in 0..8u8 {
            let values: Vec<String> = port
                .dscp2prio
                .iter()
                .filter(|(_, p)| *p == prio)
                .map(|(dscp, _)| format!("{dscp:02},"))
                .collect();
            // `printAppSelector`: 24 characters (eight values) a line.
            for chunk in values.chunks(8) {
                text.push_str(&format!("\tprio:{prio} dscp:{}\n", chunk.concat()));
            }
        }
    }
    text.push_str("Cable len: 7\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     ");
    for enabled in port.pfc {
        text.push_str(&format!("{}   ", u8::from(enabled)));
    }
    text.push('\n');
    for tc in 0..8u8 {
        let priorities: Vec<usize> = (0..8).filter(|up| port.prio_tc[*up] == tc).collect();
        if priorities.is_empty() && !all {
            continue;
        }
        let index = usize::from(tc);
        let tsa = match port.tsa[index] {
            Tsa::Ets => format!("ets, bw: {}%", port.tcbw[index]),
            Tsa::Strict => "strict".to_owned(),
            Tsa::Vendor => "vendor".to_owned(),
        };
        text.push_str(&format!("tc: {tc} ratelimit: unlimited, tsa: {tsa}\n"));
        for up in priorities {
            text.push_str(&format!("\t priority:  {up}\n"));
        }
    }
    text
}

/// `cma_roce_tos -d DEV [-p PORT] [-t TOS]`: sets the port's default ToS, prints it.
fn cma_roce_tos(host: &mut SimContext<'_>, args: &[&str], rdma_cm: bool) -> ExecOutput {
    let (mut device, mut port, mut tos) = ("mlx5_0", "1", None);
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().copied().unwrap_or_default();
        match *flag {
            "-d" => device = value,
            "-p" => port = value,
            "-t" => tos = Some(value),
            _ => {}
        }
    }
    if !rdma_cm {
        return fail("Module rdma_cm is not loaded or does not support configfs");
    }
    let hw = GuestHw::of(host);
    if !hw.ports.iter().any(|p| p.device == device) {
        return out(
            1,
            format!("Failed to create configuration for {device}\n"),
            format!("mkdir: cannot create directory '{device}': No such device\n"),
        );
    }
    if port != "1" {
        return fail(&format!("Device {device} port {port} does not exist"));
    }
    let mut state = qos::load(host);
    qos::settle_traffic(host, &mut state);
    let key = format!("{device}/{port}");
    if let Some(tos) = tos {
        // configfs' store takes a byte (`kstrtou8`); the script does not check `echo`'s
        // failure and prints the value unchanged.
        let Ok(value) = tos.parse::<u8>() else {
            let now = state.roce_tos.get(&key).copied().unwrap_or(0);
            return out(
                0,
                format!("{now}\n"),
                "/usr/sbin/cma_roce_tos: line 110: echo: write error: Invalid argument\n",
            );
        };
        state.roce_tos.insert(key.clone(), value);
    }
    let now = state.roce_tos.get(&key).copied().unwrap_or(0);
    qos::save(host, state);
    out(0, format!("{now}\n"), "")
}

/// `tee FILE...`: stdin to each file and to stdout; an ECN switch of a RoCE port takes `0` or
/// `1` (the driver's store refuses anything else), other files are the virtual file system's.
fn tee(host: &mut SimContext<'_>, args: &[&str]) -> ExecOutput {
    let input = host.stdin().unwrap_or_default().to_owned();
    let ports: Vec<String> = own_interfaces(host)
        .into_iter()
        .filter(|i| i.link_type == "ether" && i.rdma.is_some())
        .map(|i| i.name)
        .collect();
    let mut state = qos::load(host);
    let (mut stderr, mut code) = (String::new(), 0);
    for path in args.iter().filter(|a| !a.starts_with('-')) {
        if !path.starts_with("/sys/") {
            host.write_file(*path, input.clone());
            continue;
        }
        let Some((ifname, np, prio)) =
            qos::ecn_file(path).filter(|(ifname, _, _)| ports.iter().any(|p| p == ifname))
        else {
            stderr.push_str(&format!("tee: {path}: No such file or directory\n"));
            code = 1;
            continue;
        };
        let enable = match input.trim() {
            "0" => false,
            "1" => true,
            _ => {
                stderr.push_str(&format!("tee: {path}: Invalid argument\n"));
                code = 1;
                continue;
            }
        };
        let port = state.port_mut(ifname);
        let switches = if np {
            &mut port.ecn_np
        } else {
            &mut port.ecn_rp
        };
        switches[prio] = enable;
    }
    qos::save(host, state);
    out(code, input, stderr)
}

#[cfg(test)]
mod tests;
