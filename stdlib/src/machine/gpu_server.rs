//! The simulated GPU server (layer 1): a `sim:gpu-metal` host is an eight-GPU server of the
//! H100 class laid out as NVIDIA's DGX H100 is: two NUMA nodes of four GPUs each, every GPU
//! sharing a PCIe switch with one single-port ConnectX-7 (NDR / 400GbE), and a dual-port
//! BlueField-3 on a root port of its own on NUMA node 0. What the GPU tools print reads it here
//! (`nvidia-smi topo -m`, `lspci`'s bridges and their ACS, `setpci`), and perftest reads whether
//! a GPU buffer can be registered (GPUDirect RDMA).
//!
//! State that a boot resets: which peer-memory modules are loaded (`nvidia_peermem` unless
//! `peermem_missing`, `nv_peer_mem` with `nv_peer_mem_loaded`), shown as the sysfs files NCCL
//! looks for (`net_ib.cc`'s `ncclIbGdrSupport`: `/sys/kernel/mm/memory_peers/nv_mem/version`,
//! `.../nv_mem_nc/version`, `/sys/module/nvidia_peermem/version`); and each bridge's ACS
//! control register, on at boot for the switches `acs_on` names (the kernel enables ACS again at
//! every boot: a `setpci` write does not last).

use cairn_runtime::sim::SimContext;
use serde::{Deserialize, Serialize};

use crate::machine::staged_faults;

/// The mark the `gpu-metal` model sets when the host is created.
pub(crate) const GPU_SERVER_MARK: &str = "gpu_server";

/// The fault options.
pub(crate) const PEERMEM_MISSING: &str = "peermem_missing";
pub(crate) const NV_PEER_MEM_LOADED: &str = "nv_peer_mem_loaded";
pub(crate) const ACS_ON: &str = "acs_on";

/// The driver version `nvidia_peermem` (built with the driver) reports.
pub(crate) const DRIVER_VERSION: &str = "535.129.03";
/// The last release of the older `nv_peer_mem` (Mellanox's nv_peer_memory, `DRV_VERSION`).
pub(crate) const NV_PEER_MEM_VERSION: &str = "1.3-0";

/// The sysfs files that say a peer-memory module is loaded and registered.
pub(crate) const NVIDIA_PEERMEM_FILE: &str = "/sys/module/nvidia_peermem/version";
pub(crate) const NV_PEER_MEM_FILE: &str = "/sys/module/nv_peer_mem/version";
pub(crate) const NV_MEM_CLIENT_FILE: &str = "/sys/kernel/mm/memory_peers/nv_mem/version";

/// The ACS control value the kernel sets on a switch port (`SrcValid+ ReqRedir+ CmpltRedir+
/// UpstreamFwd+`, as lspci decodes it).
pub(crate) const ACS_ENABLED: u16 = 0x001d;

/// The GPUs' PCI buses, in `nvidia-smi` order (DGX H100's).
const GPU_BUSES: [u8; 8] = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb];
/// The BlueField-3's bus (NUMA node 0, its own root port).
const BF3_BUS: u8 = 0x6c;

/// Whether the host is the GPU server.
pub(crate) fn is_gpu_server(ctx: &SimContext<'_>) -> bool {
    ctx.is_marked(GPU_SERVER_MARK)
}

/// What a PCI function of the server is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Gpu,
    ConnectX7,
    BlueField3,
}

/// One GPU or NIC function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Device {
    pub(crate) kind: Kind,
    /// `GPU0`, `NIC3`.
    pub(crate) name: String,
    /// The RDMA device of a NIC (`mlx5_3`).
    pub(crate) rdma: Option<String>,
    /// `18:00.0`.
    pub(crate) address: String,
    pub(crate) numa: u32,
    /// The PCIe switch it sits behind (a GPU and its ConnectX-7 share one); `None` on a root port.
    pub(crate) switch: Option<usize>,
}

/// A PCI bridge: a root port, or a switch's upstream or downstream port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bridge {
    /// `17:00.0`.
    pub(crate) address: String,
    pub(crate) primary: u8,
    pub(crate) secondary: u8,
    pub(crate) subordinate: u8,
    /// `Root Port`, `Upstream Port`, `Downstream Port`.
    pub(crate) port_type: &'static str,
    /// The switch it belongs to (none for a root port).
    pub(crate) switch: Option<usize>,
    pub(crate) numa: u32,
}

/// The server's PCIe layout: its GPUs and NICs in PCI order, and the bridges above them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) gpus: Vec<Device>,
    /// The NICs in PCI order: `NIC0` is `mlx5_0`.
    pub(crate) nics: Vec<Device>,
    pub(crate) bridges: Vec<Bridge>,
}

/// `0-55,112-167`: the CPUs of a NUMA node (two 56-core sockets, two threads a core).
pub(crate) fn cpus_of(numa: u32) -> String {
    let first = numa * 56;
    format!("{first}-{},{}-{}", first + 55, first + 112, first + 167)
}

fn address(bus: u8, device: u8, function: u8) -> String {
    format!("{bus:02x}:{device:02x}.{function}")
}

/// The fixed layout: switch `k` has its upstream port on bus `B-2` (behind root port `B-3:01.0`)
/// and its downstream ports at `B-1:00.0` (to GPU `k` on bus `B`) and `B-1:01.0` (to its
/// ConnectX-7 on bus `B+1`).
pub(crate) fn layout() -> Layout {
    let mut gpus = Vec::new();
    let mut nics: Vec<(u8, u8, Kind, u32, Option<usize>)> = Vec::new();
    let mut bridges = Vec::new();
    for (k, bus) in GPU_BUSES.iter().copied().enumerate() {
        let numa = u32::from(bus >= 0x80);
        let bridge = |address, primary, secondary, subordinate, port_type, switch| Bridge {
            address,
            primary,
            secondary,
            subordinate,
            port_type,
            switch,
            numa,
        };
        let (root, upstream, internal) = (bus - 3, bus - 2, bus - 1);
        bridges.push(bridge(
            self::address(root, 1, 0),
            root,
            upstream,
            bus + 1,
            "Root Port",
            None,
        ));
        bridges.push(bridge(
            self::address(upstream, 0, 0),
            upstream,
            internal,
            bus + 1,
            "Upstream Port",
            Some(k),
        ));
        bridges.push(bridge(
            self::address(internal, 0, 0),
            internal,
            bus,
            bus,
            "Downstream Port",
            Some(k),
        ));
        bridges.push(bridge(
            self::address(internal, 1, 0),
            internal,
            bus + 1,
            bus + 1,
            "Downstream Port",
            Some(k),
        ));
        gpus.push(Device {
            kind: Kind::Gpu,
            name: format!("GPU{k}"),
            rdma: None,
            address: address(bus, 0, 0),
            numa,
            switch: Some(k),
        });
        nics.push((bus + 1, 0, Kind::ConnectX7, numa, Some(k)));
    }
    bridges.push(Bridge {
        address: address(BF3_BUS - 1, 1, 0),
        primary: BF3_BUS - 1,
        secondary: BF3_BUS,
        subordinate: BF3_BUS,
        port_type: "Root Port",
        switch: None,
        numa: 0,
    });
    for function in 0..2 {
        nics.push((BF3_BUS, function, Kind::BlueField3, 0, None));
    }
    nics.sort_by_key(|n| (n.0, n.1));
    bridges.sort_by(|a, b| a.address.cmp(&b.address));
    let nics = nics
        .into_iter()
        .enumerate()
        .map(|(index, (bus, function, kind, numa, switch))| Device {
            kind,
            name: format!("NIC{index}"),
            rdma: Some(format!("mlx5_{index}")),
            address: address(bus, 0, function),
            numa,
            switch,
        })
        .collect();
    Layout {
        gpus,
        nics,
        bridges,
    }
}

/// How `a` reaches `b`, as `nvidia-smi topo -m` says it: `X` itself, `NV18` between GPUs (the
/// H100 SXM's eighteen NVLinks through the NVSwitches), `PIX` behind one switch or on one card,
/// `NODE` within a NUMA node, `SYS` across the sockets.
pub(crate) fn link(a: &Device, b: &Device) -> String {
    let link = if a.name == b.name {
        " X "
    } else if a.kind == Kind::Gpu && b.kind == Kind::Gpu {
        "NV18"
    } else if a.switch.is_some() && a.switch == b.switch
        || a.kind == Kind::BlueField3 && b.kind == Kind::BlueField3
    {
        "PIX"
    } else if a.numa == b.numa {
        "NODE"
    } else {
        "SYS"
    };
    link.to_owned()
}

/// The switches `acs_on` names by their GPU (`0,5`, or `all`).
pub(crate) fn acs_on_switches(ctx: &SimContext<'_>) -> Vec<usize> {
    match ctx.option(ACS_ON) {
        None => Vec::new(),
        Some("all") => (0..GPU_BUSES.len()).collect(),
        Some(list) => list
            .split(',')
            .filter_map(|n| n.trim().parse().ok())
            .collect(),
    }
}

/// Checks `acs_on`'s value.
pub(crate) fn check_acs_on(value: &str) -> Result<(), String> {
    let valid = value == "all"
        || value.split(',').all(|n| {
            n.trim()
                .parse::<usize>()
                .is_ok_and(|gpu| gpu < GPU_BUSES.len())
        });
    if valid {
        Ok(())
    } else {
        Err("`all` or GPU indices 0 to 7 whose PCIe switch has ACS on (`0,5`)".into())
    }
}

/// What a boot leaves: the modules loaded and each bridge's ACS control register.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GpuServerState {
    pub(crate) nvidia_peermem: bool,
    pub(crate) nv_peer_mem: bool,
    /// `17:00.0` → its ACS control register (absent: 0).
    pub(crate) acs: std::collections::BTreeMap<String, u16>,
}

impl GpuServerState {
    /// The state a boot leaves, from the fault options.
    pub(crate) fn at_boot(ctx: &SimContext<'_>) -> Self {
        let switches = acs_on_switches(ctx);
        let acs = layout()
            .bridges
            .into_iter()
            .filter(|b| b.port_type == "Downstream Port")
            .filter(|b| b.switch.is_some_and(|s| switches.contains(&s)))
            .map(|b| (b.address, ACS_ENABLED))
            .collect();
        Self {
            nvidia_peermem: !staged_faults::flag(ctx, PEERMEM_MISSING),
            nv_peer_mem: staged_faults::flag(ctx, NV_PEER_MEM_LOADED),
            acs,
        }
    }

    /// The bridge's ACS control register.
    pub(crate) fn acs_of(&self, address: &str) -> u16 {
        self.acs.get(address).copied().unwrap_or(0)
    }

    /// Writes the sysfs files NCCL reads for the modules loaded now: the module's own version
    /// file, and the peer-memory client `nv_mem` the first loaded module registered
    /// (`nv_peer_mem` loads from its own service before the driver's module).
    pub(crate) fn publish(&self, ctx: &mut SimContext<'_>) {
        let files = [
            (
                NVIDIA_PEERMEM_FILE,
                self.nvidia_peermem.then_some(DRIVER_VERSION),
            ),
            (
                NV_PEER_MEM_FILE,
                self.nv_peer_mem.then_some(NV_PEER_MEM_VERSION),
            ),
            (
                NV_MEM_CLIENT_FILE,
                if self.nv_peer_mem {
                    Some(NV_PEER_MEM_VERSION)
                } else {
                    self.nvidia_peermem.then_some(DRIVER_VERSION)
                },
            ),
        ];
        for (path, version) in files {
            match version {
                Some(version) => ctx.write_file(path, format!("{version}\n")),
                None => {
                    ctx.remove_file(path);
                }
            }
        }
    }
}

/// The slot the GPU server's state is kept in (the `nvidia-smi` simulator's).
pub(crate) const GPU_SLOT: &str = "nvidia-smi";

/// Whether a GPU buffer can be registered for RDMA on the host now: a GPU server with
/// `nvidia_peermem` loaded (`None` on a host that is not a GPU server).
pub(crate) fn gdr_available(ctx: &SimContext<'_>) -> Option<bool> {
    if !is_gpu_server(ctx) {
        return None;
    }
    let loaded = ctx
        .tool_state(GPU_SLOT)
        .and_then(|slot| GpuServerState::deserialize(slot).ok())
        .is_some_and(|state| state.nvidia_peermem);
    Some(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_gpu_shares_a_switch_with_one_connectx7_and_the_bluefield_is_on_numa0() {
        let layout = layout();
        assert_eq!(layout.gpus.len(), 8);
        assert_eq!(layout.nics.len(), 10);
        let gpu4 = &layout.gpus[4];
        let pix: Vec<&str> = layout
            .nics
            .iter()
            .filter(|n| link(gpu4, n) == "PIX")
            .map(|n| n.name.as_str())
            .collect();
        assert_eq!(pix, ["NIC6"]);
        let bf3 = &layout.nics[4];
        assert_eq!(
            (bf3.kind, bf3.address.as_str()),
            (Kind::BlueField3, "6c:00.0")
        );
        assert_eq!(link(&layout.gpus[0], bf3), "NODE");
        assert_eq!(link(gpu4, bf3), "SYS");
        assert_eq!(cpus_of(1), "56-111,168-223");
        assert!(check_acs_on("0,7").is_ok() && check_acs_on("8").is_err());
    }
}
