//! The simulated guest's interfaces: `ip` (`-j addr`, `addr`, `link set ... mtu`, `addr add`,
//! `addr del`) and `ibdev2netdev`.
//!
//! The interfaces are `machine::interfaces` (the RDMA ports and sockperf read them too); this
//! prints them and records what `ip` sets. MTU and addresses set with `ip` last until the next
//! reboot or driver reload, as on a real guest.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};
use serde_json::{Value, json};

use crate::machine::guest::{GuestHw, not_found, out};
use crate::machine::interfaces::{Iface, LinkSettings, NetState, own_interfaces};

fn ip_json(list: &[Iface], with_addrs: bool) -> String {
    let records: Vec<Value> = list
        .iter()
        .map(|i| {
            let mut record = json!({
                "ifindex": i.index,
                "ifname": i.name,
                "flags": if i.name == "lo" { json!(["LOOPBACK", "UP", "LOWER_UP"]) } else { json!(["BROADCAST", "MULTICAST", "UP", "LOWER_UP"]) },
                "mtu": i.mtu,
                "qdisc": if i.name == "lo" { "noqueue" } else { "mq" },
                "operstate": if i.name == "lo" { "UNKNOWN" } else { "UP" },
                "group": "default",
                "txqlen": if i.link_type == "infiniband" { 256 } else { 1000 },
                "link_type": i.link_type,
                "address": i.address,
                "broadcast": i.broadcast,
            });
            if with_addrs {
                record["addr_info"] = i
                    .addrs
                    .iter()
                    .map(|(ip, prefix)| {
                        json!({
                            "family": "inet", "local": ip, "prefixlen": prefix,
                            "scope": if i.name == "lo" { "host" } else { "global" },
                            "label": i.name,
                            "valid_life_time": 4_294_967_295_u64, "preferred_life_time": 4_294_967_295_u64
                        })
                    })
                    .collect();
            }
            record
        })
        .collect();
    Value::Array(records).to_string() + "\n"
}

/// `ip -br link`: one line per interface.
fn ip_brief_link(list: &[Iface]) -> String {
    let mut text = String::new();
    for i in list {
        let (state, flags) = if i.name == "lo" {
            ("UNKNOWN", "LOOPBACK,UP,LOWER_UP")
        } else {
            ("UP", "BROADCAST,MULTICAST,UP,LOWER_UP")
        };
        text.push_str(&format!(
            "{:<16} {:<14} {} <{flags}>\n",
            i.name, state, i.address
        ));
    }
    text
}

/// `ip addr show`, or `ip link show` (`with_addrs` false): iproute2 prints the link mode
/// (`mode DEFAULT`) for `ip link` only, and the addresses for `ip addr` only.
fn ip_text(list: &[Iface], with_addrs: bool) -> String {
    let mut text = String::new();
    for i in list {
        let flags = if i.name == "lo" {
            "LOOPBACK,UP,LOWER_UP"
        } else {
            "BROADCAST,MULTICAST,UP,LOWER_UP"
        };
        let (qdisc, state) = if i.name == "lo" {
            ("noqueue", "UNKNOWN")
        } else {
            ("mq", "UP")
        };
        let qlen = if i.link_type == "infiniband" {
            256
        } else {
            1000
        };
        let mode = if with_addrs { "" } else { "mode DEFAULT " };
        text.push_str(&format!(
            "{}: {}: <{flags}> mtu {} qdisc {qdisc} state {state} {mode}group default qlen {qlen}\n    link/{} {} brd {}\n",
            i.index, i.name, i.mtu, i.link_type, i.address, i.broadcast
        ));
        for (ip, prefix) in i.addrs.iter().filter(|_| with_addrs) {
            let scope = if i.name == "lo" { "host" } else { "global" };
            text.push_str(&format!(
                "    inet {ip}/{prefix} scope {scope} {}\n       valid_lft forever preferred_lft forever\n",
                i.name
            ));
        }
    }
    text
}

/// `ip`.
pub(crate) struct IpSim;

impl SimTool for IpSim {
    fn commands(&self) -> &[&'static str] {
        &["ip"]
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let _ = host.save_state(&NetState::default());
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let mut args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let json_output = args.first().is_some_and(|a| *a == "-j" || *a == "-json");
        if json_output {
            args.remove(0);
        }
        let brief = args.first().is_some_and(|a| *a == "-br" || *a == "-brief");
        if brief {
            args.remove(0);
        }
        let list = own_interfaces(host);
        let select = |list: Vec<Iface>, rest: &[&str]| -> Result<Vec<Iface>, ExecOutput> {
            let dev = rest
                .iter()
                .position(|a| *a == "dev")
                .and_then(|i| rest.get(i + 1))
                .or_else(|| rest.iter().find(|a| **a != "show" && **a != "list"));
            match dev {
                Some(name) => {
                    let found: Vec<Iface> = list.into_iter().filter(|i| i.name == *name).collect();
                    if found.is_empty() {
                        Err(out(1, "", format!("Device \"{name}\" does not exist.\n")))
                    } else {
                        Ok(found)
                    }
                }
                None => Ok(list),
            }
        };
        match args.as_slice() {
            ["link", "set", rest @ ..] => link_set(host, &list, rest),
            ["addr" | "a" | "address", verb @ ("add" | "del"), rest @ ..] => {
                addr_change(host, &list, verb, rest)
            }
            [object, rest @ ..] if matches!(*object, "a" | "addr" | "address" | "link" | "l") => {
                let with_addrs = *object != "link" && *object != "l";
                match select(list, rest) {
                    Ok(list) if brief && !with_addrs => out(0, ip_brief_link(&list), ""),
                    Ok(_) if brief => out(
                        255,
                        "",
                        "cairn sim: `ip -br addr` is not simulated (it answers `ip -br link`)\n",
                    ),
                    Ok(list) if json_output => out(0, ip_json(&list, with_addrs), ""),
                    Ok(list) => out(0, ip_text(&list, with_addrs), ""),
                    Err(e) => e,
                }
            }
            _ => out(255, "", "Object \"...\" is unknown, try \"ip help\".\n"),
        }
    }
}

fn settings_mut<'a>(
    state: &'a mut NetState,
    host_generation: u64,
    name: &str,
) -> &'a mut LinkSettings {
    if state.generation != host_generation {
        state.generation = host_generation;
        state.links.clear();
    }
    state.links.entry(name.to_owned()).or_default()
}

fn generation(host: &SimContext<'_>) -> u64 {
    host.tool_state("ofed")
        .and_then(|o| o.get("generation"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

fn link_set(host: &mut SimContext<'_>, list: &[Iface], rest: &[&str]) -> ExecOutput {
    let rest: Vec<&str> = rest.iter().copied().filter(|a| *a != "dev").collect();
    let Some((name, options)) = rest.split_first() else {
        return out(
            1,
            "",
            "Not enough information: \"dev\" argument is required.\n",
        );
    };
    let Some(iface) = list.iter().find(|i| i.name == *name) else {
        return out(1, "", format!("Cannot find device \"{name}\"\n"));
    };
    let mtu = options
        .iter()
        .position(|a| *a == "mtu")
        .and_then(|i| options.get(i + 1));
    if let Some(mtu) = mtu {
        let Ok(mtu) = mtu.parse::<u32>() else {
            return out(
                255,
                "",
                format!("Error: argument \"{mtu}\" is wrong: Invalid \"mtu\" value\n\n"),
            );
        };
        if mtu > iface.max_mtu {
            return out(2, "", "Error: mtu greater than device maximum.\n");
        }
        if mtu < 68 {
            return out(2, "", "Error: mtu less than device minimum.\n");
        }
        let g = generation(host);
        let mut state: NetState = host.load_state().unwrap_or_default();
        settings_mut(&mut state, g, name).mtu = Some(mtu);
        let _ = host.save_state(&state);
    }
    out(0, "", "")
}

fn addr_change(host: &mut SimContext<'_>, list: &[Iface], verb: &str, rest: &[&str]) -> ExecOutput {
    let Some(cidr) = rest.first() else {
        return out(
            1,
            "",
            "Not enough information: \"dev\" argument is required.\n",
        );
    };
    let Some(name) = rest
        .iter()
        .position(|a| *a == "dev")
        .and_then(|i| rest.get(i + 1))
    else {
        return out(
            1,
            "",
            "Not enough information: \"dev\" argument is required.\n",
        );
    };
    let Some(iface) = list.iter().find(|i| i.name == *name) else {
        return out(1, "", format!("Cannot find device \"{name}\"\n"));
    };
    let (ip, prefix) = cidr.split_once('/').unwrap_or((cidr, "32"));
    let valid = ip.split('.').count() == 4
        && ip.split('.').all(|o| o.parse::<u8>().is_ok())
        && prefix.parse::<u8>().is_ok_and(|p| p <= 32);
    if !valid {
        return out(
            1,
            "",
            format!("Error: any valid prefix is expected rather than \"{cidr}\".\n"),
        );
    }
    let cidr = format!("{ip}/{prefix}");
    let exists = iface
        .addrs
        .iter()
        .any(|(a, p)| *a == ip && p.to_string() == prefix);
    let g = generation(host);
    let mut state: NetState = host.load_state().unwrap_or_default();
    let current: Vec<String> = iface
        .addrs
        .iter()
        .map(|(a, p)| format!("{a}/{p}"))
        .collect();
    let settings = settings_mut(&mut state, g, name);
    settings.addrs = current;
    let answer = match (verb, exists) {
        ("add", true) => out(2, "", "RTNETLINK answers: File exists\n"),
        ("add", false) => {
            settings.addrs.push(cidr);
            out(0, "", "")
        }
        (_, true) => {
            settings.addrs.retain(|a| *a != cidr);
            out(0, "", "")
        }
        (_, false) => out(
            2,
            "",
            "RTNETLINK answers: Cannot assign requested address\n",
        ),
    };
    let _ = host.save_state(&state);
    answer
}

/// `ibdev2netdev` (mlnx-tools, part of OFED).
pub(crate) struct Ibdev2netdevSim;

impl SimTool for Ibdev2netdevSim {
    fn commands(&self) -> &[&'static str] {
        &["ibdev2netdev"]
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let loaded = host.tool_state("ofed").is_some_and(|o| o["loaded"] == true);
        if !loaded {
            return not_found(argv.first().map_or("ibdev2netdev", String::as_str));
        }
        let hw = GuestHw::of(host);
        let verbose = argv.iter().any(|a| a == "-v");
        let text: String = hw
            .ports
            .iter()
            .map(|p| {
                if verbose {
                    format!(
                        "{} {} (MT4119 - MT1823X04353) CX556A - ConnectX-5 QSFP28 fw 16.32.1010 port 1 (ACTIVE) ==> {} (Up)\n",
                        p.pci, p.device, p.netdev
                    )
                } else {
                    format!("{} port 1 ==> {} (Up)\n", p.device, p.netdev)
                }
            })
            .collect();
        out(0, text, "")
    }
}

#[cfg(test)]
mod tests {

    use crate::test_support::{rhel8_guest, sim_exec as run};

    #[test]
    fn mtu_and_addresses_parse_and_last_until_reboot() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = rhel8_guest("compute-02", dir.path(), &[("ofed", "5.4-3.0.3.0")]);
        assert_eq!(
            run(&host, &["ip", "link", "set", "ens224f1", "mtu", "9000"]).code,
            0
        );
        assert_eq!(
            run(
                &host,
                &["ip", "addr", "add", "192.168.5.2/24", "dev", "ens224f1"]
            )
            .code,
            0
        );
        let again = run(
            &host,
            &["ip", "addr", "add", "192.168.5.2/24", "dev", "ens224f1"],
        );
        assert_eq!(again.stderr, "RTNETLINK answers: File exists\n");
        assert_eq!(
            run(&host, &["ip", "link", "set", "ib0", "mtu", "9000"]).code,
            2
        );
        let shown = run(&host, &["ip", "-j", "addr", "show"]);
        let parsed = crate::net::ip::parse_json(&shown.stdout).unwrap_or_else(|e| panic!("{e}"));
        let roce = parsed.interfaces.iter().find(|i| i.ifname == "ens224f1");
        assert_eq!(roce.and_then(|i| i.mtu), Some(9000));
        assert_eq!(roce.map(|i| i.addr_info.len()), Some(1));
        assert!(
            parsed
                .interfaces
                .iter()
                .any(|i| i.ifname == "ib0" && i.mtu == Some(4092))
        );
        let text = run(&host, &["ip", "addr", "show"]);
        let parsed_text =
            crate::net::ip::parse_text(&text.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed_text.interfaces.len(), parsed.interfaces.len());
        let map = run(&host, &["ibdev2netdev"]);
        let mapping =
            crate::net::ibdev2netdev::parse(&map.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mapping.mappings.len(), 2);
        assert_eq!(run(&host, &["reboot"]).code, 0);
        std::thread::sleep(std::time::Duration::ZERO);
    }
}
