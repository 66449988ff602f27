//! The simulated `show_gids`: the GID table of the guest's RDMA ports, as mlnx-tools' script
//! prints it (`sbin/show_gids` in Mellanox/mlnx-tools: a tab-separated row per GID read from
//! `/sys/class/infiniband/DEV/ports/PORT/gids/`, its type and netdev from `gid_attrs/`, the
//! IPv4 cell only for an IPv4-mapped GID, then `n_gids_found=N`).
//!
//! The table is what the kernel builds: an InfiniBand port has its link-local GID (type
//! `IB/RoCE v1`, so `v1`, and no netdev); a RoCE port has its link-local GID from its MAC as
//! RoCE v1 and v2 (indexes 0 and 1), then each IPv4 address of its interface as an
//! IPv4-mapped GID, v1 and v2 (2 and 3 for the first address, 4 and 5 for a second). The
//! script comes with OFED: not installed, the shell does not find it.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::guest::LinkLayer;
use crate::machine::guest::{not_found, out};
use crate::machine::interfaces::own_interfaces;
use crate::machine::ofed::OfedState;
use crate::machine::ports::own_ports;

/// The script's two title rows, as it echoes them.
const TITLE: &str = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n\
                     ---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n";

pub(crate) struct ShowGidsSim;

impl SimTool for ShowGidsSim {
    fn commands(&self) -> &[&'static str] {
        &["show_gids"]
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let ofed: OfedState = host
            .tool_state("ofed")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        if ofed.installed.is_none() {
            return not_found("show_gids");
        }
        let ports = own_ports(host);
        let interfaces = own_interfaces(host);
        let asked = argv.get(1);
        let mut text = TITLE.to_owned();
        let mut stderr = String::new();
        let mut count = 0;
        if let Some(device) = asked
            && !ports.iter().any(|p| &p.hw.device == device)
        {
            stderr = format!(
                "ls: cannot access '/sys/class/infiniband/{device}/ports/': No such file or directory\n"
            );
        }
        for port in ports
            .iter()
            .filter(|p| asked.is_none_or(|d| &p.hw.device == d))
        {
            let device = &port.hw.device;
            let rows = match port.hw.link_layer {
                LinkLayer::InfiniBand => vec![(port.gid.clone(), None, "v1", "")],
                LinkLayer::Ethernet => {
                    let netdev = port.hw.netdev.as_str();
                    let mut rows = vec![
                        (port.gid.clone(), None, "v1", netdev),
                        (port.gid.clone(), None, "v2", netdev),
                    ];
                    let addresses = interfaces
                        .iter()
                        .filter(|i| i.name == netdev)
                        .flat_map(|i| i.addrs.iter().map(|(address, _)| address));
                    for address in addresses {
                        if let Some(mapped) = ipv4_mapped(address) {
                            let ipv4 = Some(address.clone());
                            rows.push((mapped.clone(), ipv4.clone(), "v1", netdev));
                            rows.push((mapped, ipv4, "v2", netdev));
                        }
                    }
                    rows
                }
            };
            for (index, (gid, ipv4, ver, netdev)) in rows.into_iter().enumerate() {
                let ipv4 = ipv4.map_or_else(|| "\t\t".to_owned(), |a| format!("{a}  \t"));
                text.push_str(&format!(
                    "{device}\t1\t{index}\t{gid}\t{ipv4}{ver}\t{netdev}\n"
                ));
                count += 1;
            }
        }
        text.push_str(&format!("n_gids_found={count}\n"));
        out(0, text, stderr)
    }
}

/// The IPv4-mapped GID of `address` as sysfs prints it (`::ffff:192.168.211.242` is
/// `0000:0000:0000:0000:0000:ffff:c0a8:d3f2`); `None` for what is not a dotted quad.
fn ipv4_mapped(address: &str) -> Option<String> {
    let ip: std::net::Ipv4Addr = address.split('/').next()?.parse().ok()?;
    let [a, b, c, d] = ip.octets();
    Some(format!(
        "0000:0000:0000:0000:0000:ffff:{a:02x}{b:02x}:{c:02x}{d:02x}"
    ))
}

#[cfg(test)]
mod tests {
    use crate::grammar::show_gids::{PortGid, parse, port_gid};
    use crate::test_support::{rhel8_guest, sim_exec as run};

    #[test]
    fn the_simulated_table_parses_and_names_the_roce_v2_ipv4_gid() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let missing = rhel8_guest("compute-01", dir.path(), &[]);
        assert_eq!(run(&missing, &["show_gids"]).code, 127);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = rhel8_guest("compute-02", dir.path(), &[("ofed", "5.4-3.0.3.0")]);
        for argv in [
            &["ip", "addr", "add", "10.0.1.2/24", "dev", "ens224f1"][..],
            &["ip", "addr", "add", "10.0.9.2/24", "dev", "ens224f1"][..],
            &["ip", "addr", "add", "10.0.0.2/24", "dev", "ib0"][..],
        ] {
            assert_eq!(run(&host, argv).code, 0, "{argv:?}");
        }
        let printed = run(&host, &["show_gids"]);
        assert_eq!(printed.code, 0, "{}", printed.stderr);
        let table = parse(&printed.stdout).unwrap_or_else(|e| panic!("{e}\n{}", printed.stdout));
        assert_eq!(table.n_gids_found, Some(7), "{}", printed.stdout);
        assert_eq!(
            port_gid(&table, "mlx5_0", 1, None, None),
            Ok(PortGid::InfiniBand)
        );
        assert_eq!(
            port_gid(&table, "mlx5_1", 1, Some("10.0.1.2"), None),
            Ok(PortGid::RoceV2 {
                index: 3,
                ipv4: "10.0.1.2".into()
            })
        );
        assert!(port_gid(&table, "mlx5_1", 1, None, None).is_err());
        let second = port_gid(&table, "mlx5_1", 1, Some("10.0.9.2"), None);
        assert!(
            matches!(second, Ok(PortGid::RoceV2 { index: 5, .. })),
            "{second:?}"
        );
        let one = run(&host, &["show_gids", "mlx5_1"]);
        let one = parse(&one.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert!(one.gids.iter().all(|g| g.device == "mlx5_1"));
        let unknown = run(&host, &["show_gids", "mlx5_9"]);
        assert_eq!(
            (unknown.code, unknown.stdout.ends_with("n_gids_found=0\n")),
            (0, true)
        );
        assert!(
            unknown
                .stderr
                .contains("cannot access '/sys/class/infiniband/mlx5_9/ports/'")
        );
    }
}
