//! The simulated GPU server's own tools (`sim:gpu-metal`): `nvidia-smi topo -m` from the server's
//! layout ([`crate::machine::gpu_server`]), printed as the driver prints it (tabs between cells,
//! ` X ` for itself, two tabs before `GPU NUMA ID`, no affinity cells on a NIC's row, the
//! `Legend:` and `NIC Legend:` sections and a blank line at the end: the `nvidia-smi-topo`
//! fixtures), and `setpci -s BDF ECAP_ACS+6.w[=VALUE]` reading or writing a bridge's ACS control
//! register (pciutils' setpci: a read prints the value as four hex digits; the NCCL
//! troubleshooting guide's command). At every boot the peer-memory modules load again as the
//! fault options say and ACS is on again where `acs_on` puts it.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::gpu_server::{
    self, ACS_ON, GpuServerState, NV_PEER_MEM_LOADED, PEERMEM_MISSING, layout, link,
};
use crate::machine::guest::out;
use crate::machine::staged_faults;

/// `nvidia-smi` and `setpci` on the GPU server.
pub(crate) struct GpuSim;

/// The legend, as the driver prints it (the `nvidia-smi-topo` fixtures).
const LEGEND: &str = "Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
";

impl GpuSim {
    fn boot(host: &mut SimContext<'_>) {
        let state = GpuServerState::at_boot(host);
        state.publish(host);
        let _ = host.save_state(&state);
    }
}

impl SimTool for GpuSim {
    fn commands(&self) -> &[&'static str] {
        &["nvidia-smi", "setpci"]
    }

    fn options(&self) -> &[&'static str] {
        &[ACS_ON, NV_PEER_MEM_LOADED, PEERMEM_MISSING]
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        if key == ACS_ON {
            gpu_server::check_acs_on(value)
        } else {
            staged_faults::check_flag(value)
        }
    }

    fn init(&self, host: &mut SimContext<'_>) {
        Self::boot(host);
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        Self::boot(host);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        match (program, args.as_slice()) {
            ("nvidia-smi", ["topo", "-m" | "--matrix"]) => out(0, topo_matrix(), ""),
            ("setpci", ["-s", address, register]) => setpci(host, address, register),
            _ => out(
                127,
                "",
                format!(
                    "cairn sim: `{}` is not simulated (it answers `nvidia-smi topo -m` and `setpci -s BDF ECAP_ACS+6.w[=VALUE]`)\n",
                    argv.join(" ")
                ),
            ),
        }
    }
}

/// `nvidia-smi topo -m`.
pub(crate) fn topo_matrix() -> String {
    let layout = layout();
    let devices: Vec<&gpu_server::Device> = layout.gpus.iter().chain(&layout.nics).collect();
    let mut text = String::new();
    for device in &devices {
        text.push('\t');
        text.push_str(&device.name);
    }
    text.push_str("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
    for row in &devices {
        text.push_str(&row.name);
        for column in &devices {
            text.push('\t');
            text.push_str(&link(row, column));
        }
        if row.kind == gpu_server::Kind::Gpu {
            text.push_str(&format!(
                "\t{}\t{}\t\tN/A",
                gpu_server::cpus_of(row.numa),
                row.numa
            ));
        }
        text.push('\n');
    }
    text.push('\n');
    text.push_str(LEGEND);
    text.push_str("\nNIC Legend:\n\n");
    for nic in &layout.nics {
        let rdma = nic.rdma.as_deref().unwrap_or_default();
        text.push_str(&format!("  {}: {rdma}\n", nic.name));
    }
    text.push('\n');
    text
}

/// `setpci -s BDF ECAP_ACS+6.w` (or `+0x6`), with `=VALUE` to write it.
fn setpci(host: &mut SimContext<'_>, address: &str, register: &str) -> ExecOutput {
    let (name, value) = match register.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (register, None),
    };
    if !matches!(name, "ECAP_ACS+6.w" | "ECAP_ACS+0x6.w") {
        return out(
            127,
            "",
            format!("cairn sim: `setpci {register}` is not simulated (it answers ECAP_ACS+6.w)\n"),
        );
    }
    let address = address.trim_start_matches("0000:");
    if !layout().bridges.iter().any(|b| b.address == address) {
        return out(
            0,
            "",
            format!("setpci: Warning: No devices selected for \"{register}\".\n"),
        );
    }
    let mut state: GpuServerState = host.load_state().unwrap_or_default();
    let Some(value) = value else {
        return out(0, format!("{:04x}\n", state.acs_of(address)), "");
    };
    let Ok(written) = u16::from_str_radix(value.trim_start_matches("0x"), 16) else {
        return out(
            127,
            "",
            format!(
                "cairn sim: `setpci` with the value `{value}` is not simulated (it writes hex words such as 0000)\n"
            ),
        );
    };
    state.acs.insert(address.to_owned(), written);
    let _ = host.save_state(&state);
    out(0, "", "")
}

#[cfg(test)]
mod tests {
    use super::topo_matrix;

    /// The printed matrix reads back with the parser, the tool's tabs and all: every GPU row has
    /// its three affinity cells, every NIC row none, and the NIC legend names every NIC.
    #[test]
    fn the_printed_matrix_parses_with_the_nvidia_smi_topo_parser() {
        let text = topo_matrix();
        let topo = crate::gpu::parse_topo(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(topo.columns.len(), 18);
        assert_eq!(
            topo.affinity_columns,
            ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"]
        );
        let gpu7 = &topo.devices[7];
        assert_eq!(gpu7.cpu_affinity.as_deref(), Some("56-111,168-223"));
        assert_eq!(gpu7.numa_affinity.as_deref(), Some("1"));
        assert_eq!(gpu7.gpu_numa_id, None);
        assert_eq!(gpu7.links[0], "NV18");
        assert_eq!(gpu7.links[17], "PIX");
        let nic4 = &topo.devices[12];
        assert_eq!(nic4.rdma_device.as_deref(), Some("mlx5_4"));
        assert_eq!(nic4.links[13], "PIX");
        assert_eq!(nic4.cpu_affinity, None);
        assert_eq!(topo.legend.len(), 7);
        assert!(text.starts_with("\tGPU0\tGPU1\t") && text.ends_with("mlx5_9\n\n"));
        assert!(text.contains("\nGPU0\t X \tNV18\t"));
    }
}
