//! The simulated `mst` (NMST/MFT on ESXi): exists once the MFT and NMST VIBs were installed and
//! the host rebooted; `mst status` lists the adapters' ports only after `mst start`, in the
//! layout of the reference guide (`DEVICE_TYPE MST PCI`).

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};
use serde::{Deserialize, Serialize};

use crate::machine::esxi::{error, not_found, ok, tools_loaded};
use crate::machine::host_hardware::ports;

/// The `mst` tool model.
pub(crate) struct Mst;

#[derive(Debug, Default, Serialize, Deserialize)]
struct MstState {
    started: bool,
}

impl SimTool for Mst {
    fn commands(&self) -> &[&'static str] {
        &["mst", "/opt/mellanox/bin/mst"]
    }

    fn name(&self) -> &'static str {
        "mst"
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        if !tools_loaded(host) {
            return not_found(argv.first().map_or("mst", String::as_str));
        }
        let mut state: MstState = host.load_state().unwrap_or_default();
        let output = match argv.get(1).map(String::as_str) {
            Some("start") => {
                state.started = true;
                ok("Module mst is loaded\n".into())
            }
            Some("restart") => {
                state.started = true;
                ok("Module mst is unloaded\nModule mst is loaded\n".into())
            }
            Some("stop") => {
                state.started = false;
                ok("Module mst is unloaded\n".into())
            }
            Some("status") if crate::machine::metal::is_metal(host) => {
                ok(linux_status(host, state.started))
            }
            Some("status") => ok(status(host, state.started)),
            _ => error(
                1,
                "Usage: mst {start|stop|restart|status [-v|-vv]}\n".into(),
            ),
        };
        let _ = host.save_state(&state);
        output
    }
}

/// `mst status -vv` as ESXi prints it: the guide's columns and blanks.
fn status(host: &SimContext<'_>, started: bool) -> String {
    let mut out = String::from("PCI devices:\n------------\n");
    out.push_str(&format!(
        "{:<24}{:<30}{:<10}\n",
        "DEVICE_TYPE", "MST", "PCI"
    ));
    if started {
        for (adapter, function) in ports(host) {
            let mst = if function == 0 {
                adapter.mst()
            } else {
                format!("{}.{function}", adapter.mst())
            };
            let device_type = format!("{}(rev:0)", adapter.kind.device_type);
            out.push_str(&format!(
                "{device_type:<24}{mst:<30}{}  \n",
                adapter.pci(function)
            ));
        }
    }
    out
}

/// `mst status -v` as MFT on Linux prints it: the modules, then the PCI devices with their
/// RDMA device and interface; the MST column is `NA` until `mst start` loads the modules
/// (`../shared/fixtures/mst/linux-container-status-v-cx7-vfs.txt` and
/// `linux-cx4-status-proxmox.txt`; mft documentation, "mst status -v").
fn linux_status(host: &SimContext<'_>, started: bool) -> String {
    let loaded = if started { "loaded" } else { "is not loaded" };
    let mut out = format!(
        "MST modules:\n------------\n    MST PCI module is not loaded\n    MST PCI configuration module {loaded}\nPCI devices:\n------------\n"
    );
    let hw = crate::machine::guest::GuestHw::of(host);
    let rows: Vec<[String; 5]> = ports(host)
        .into_iter()
        .enumerate()
        .map(|(index, (adapter, function))| {
            let mst = match (started, function) {
                (false, _) => "NA".to_owned(),
                (true, 0) => format!("/dev/mst/{}", adapter.mst()),
                (true, f) => format!("/dev/mst/{}.{f}", adapter.mst()),
            };
            let port = hw.ports.get(index);
            [
                format!("{}(rev:0)", adapter.kind.device_type),
                mst,
                adapter.pci(function),
                port.map_or_else(String::new, |p| p.device.clone()),
                port.map_or_else(String::new, |p| format!("net-{}", p.netdev)),
            ]
        })
        .collect();
    let mst_width = rows.iter().map(|r| r[1].len()).max().unwrap_or(2).max(3) + 6;
    out.push_str(&format!(
        "{:<24}{:<mst_width$}{:<10}{:<16}{:<40}NUMA  \n",
        "DEVICE_TYPE", "MST", "PCI", "RDMA", "NET"
    ));
    for [kind, mst, pci, rdma, net] in rows {
        out.push_str(&format!(
            "{kind:<24}{mst:<mst_width$}{pci:<10}{rdma:<16}{net:<40}0     \n\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::esxi::{MFT_MARK, NMST_MARK};
    use cairn_runtime::sim::{BootMarker, SimModel, SimTransport};
    use cairn_runtime::{ExecRequest, Transport};
    use std::collections::BTreeMap;

    fn host(dir: &std::path::Path) -> SimTransport {
        let model = SimModel::new("t", BootMarker::VmkSummary)
            .with_tool(Mst)
            .with_tool(Marker);
        let options = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
        SimTransport::new("esx01", dir, std::sync::Arc::new(model), options)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    struct Marker;
    impl SimTool for Marker {
        fn commands(&self) -> &[&'static str] {
            &["load-tools"]
        }
        fn run(&self, host: &mut SimContext<'_>, _: &[String]) -> ExecOutput {
            host.mark(MFT_MARK);
            host.mark(NMST_MARK);
            ok(String::new())
        }
    }

    fn exec(host: &mut SimTransport, argv: &[&str]) -> ExecOutput {
        host.exec(&ExecRequest::new(argv.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn prints_the_guides_table_after_start_and_it_parses() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut host = host(dir.path());
        assert_eq!(exec(&mut host, &["mst", "status", "-vv"]).code, 127);
        exec(&mut host, &["load-tools"]);
        let before = exec(&mut host, &["mst", "status", "-vv"]);
        let parsed = crate::mst::parse_status(&before.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert!(parsed.pci_devices.is_empty());
        exec(&mut host, &["mst", "start"]);
        let after = exec(&mut host, &["mst", "status", "-vv"]);
        let guide = include_str!(
            "../../../tests/fixtures/mst-status/esxi7-cx4lx-cx5-status-vv-vmware-guide.txt"
        );
        let guide: String = guide.lines().skip(1).map(|l| format!("{l}\n")).collect();
        assert_eq!(after.stdout, guide);
        let parsed = crate::mst::parse_status(&after.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.pci_devices.len(), 4);
    }
}
