//! The simulated guest's hardware (layer 1): the ConnectX ports a `sim:rhel8` guest has from
//! its options, their identifiers, and reading a peer's state. Every guest tool's printer reads
//! it; none owns it. Where a host's ports come from instead (its ESXi host's passthrough, a
//! bare-metal host's own adapters) is composed above this file, in [`GuestHw::of`]
//! (`host_hardware.rs`).

use std::path::{Path, PathBuf};

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{STATE_FILE, SimContext};
use serde_json::Value;

/// The options of a `sim:rhel8` address.
///
/// | option | default | meaning |
/// |---|---|---|
/// | `ports` | `ib,eth` | link layer of each passed-through port, `mlx5_0` first (`ib`, `eth`; `none`) |
/// | `rate` | `100` | port speed in Gb/s: 100 (4X EDR), 200 (2X NDR, NDR200), 56 (4X FDR), 25 |
/// | `link_width` | the rate's (`4X`; `2X` at 200) | the lanes the IB port trained at, `1X`, `2X` or `4X`: a degraded cable trains at `1X`, a quarter of a 4X link's rate |
/// | `ib_switch` | `ib-sw01` | the InfiniBand (leaf) switch the IB port is cabled to |
/// | `ib_spine` | | the spine the leaf switch uplinks to: hosts on different leaves with the same spine reach each other |
/// | `leaf_uplinks` | (non-blocking) | the leaf's uplinks to the spine, in ports of the host's rate: concurrent cross-leaf tests beyond them share them |
/// | `eth_switch` | `eth-sw01` | the Ethernet switch the RoCE port is cabled to |
/// | `subnet_manager` | `true` | the IB switch runs a subnet manager (on a two-level fabric, the spine runs the one master) |
/// | `opensm` | | this host also runs opensm: `master` (a second master subnet manager, the fault `ibdiagnet` reports) or `standby` |
/// | `symbol_errors` | `0` | symbol errors the host's IB port counted (`SymbolErrorCounter`): a bad cable |
/// | `symbol_errors_per_s` | `0` | symbol errors the IB port adds each second it is up: a cable that goes on failing during a test |
/// | `link_downs` | `0` | times the IB port's link went down (`LinkDownedCounter`): a flapping cable |
/// | `effective_ber` | (none: no error) | the IB cable's effective physical BER after FEC as `mlxlink -c` prints it, `3E-9`: a bad cable |
/// | `switch_mtu` | `9216` | the Ethernet switch's MTU |
/// | `pfc` | `true` | PFC enabled on the Ethernet switch |
/// | `roce_ifname` | `ens224f1` | the RoCE port's interface name |
/// | `roce_mtu` | `1500` | the RoCE interface's MTU at boot |
/// | `distro` | `rhel` | `rhel` (needs `kernel-modules-extra`) or `centos` (needs `tk`) |
/// | `ofed` | | OFED version already installed (absent by default) |
/// | `part_number` | `MCX556A-ECAT` | the adapter's part number in its PCI VPD (`lspci -vv`'s `[PN] Part number:`) |
/// | `node` | trailing digits of the name | the node number: LIDs, addresses |
/// | `seed` | `1` | seed of the measurement noise |
/// | `esxi` | | the ESXi host the VM runs on: its ports then come from there, not from `ports` |
/// | `vcenter` | `vcenter` | the management host whose vCenter holds the VM |
/// | `vm` | the host's name | the VM's name in vCenter |
pub(crate) const GUEST_OPTIONS: &[&str] = &[
    "distro",
    "effective_ber",
    "esxi",
    "eth_switch",
    "ib_spine",
    "ib_switch",
    "leaf_uplinks",
    "link_downs",
    "link_width",
    "node",
    "ofed",
    "opensm",
    "part_number",
    "pfc",
    "ports",
    "rate",
    "roce_ifname",
    "roce_mtu",
    "seed",
    "subnet_manager",
    "switch_mtu",
    "symbol_errors",
    "symbol_errors_per_s",
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
    /// On a bare-metal host, the adapter's mst device whose `LINK_TYPE_P<function + 1>` sets
    /// the port's link layer (empty in a guest).
    #[serde(default)]
    pub(crate) mst: String,
    #[serde(default)]
    pub(crate) function: u32,
    #[serde(default)]
    pub(crate) vpi: bool,
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
    /// The lanes the IB port trained at (`link_width`), `None` for the rate's own width.
    #[serde(default)]
    pub(crate) link_width: Option<u32>,
    /// The spine the IB leaf switch uplinks to, if any.
    #[serde(default)]
    pub(crate) ib_spine: Option<String>,
    /// `opensm=master|standby`: a subnet manager on this host too.
    #[serde(default)]
    pub(crate) opensm: Option<String>,
    /// `symbol_errors=N`: what the IB port's SymbolErrorCounter holds.
    #[serde(default)]
    pub(crate) symbol_errors: u64,
    /// The uplinks of the leaf switch to the spine (`leaf_uplinks`), `None` for as many as
    /// the leaf has hosts (a non-blocking fat tree).
    #[serde(default)]
    pub(crate) leaf_uplinks: Option<u32>,
    /// The adapter's part number, as its VPD holds it (`part_number`).
    #[serde(default = "default_part_number")]
    pub(crate) part_number: String,
    /// The faults of the IB cable the link health tools report (`symbol_errors_per_s`,
    /// `link_downs`, `effective_ber`).
    #[serde(default)]
    pub(crate) cable: CableFaults,
}

/// A bad IB cable, as the link health tools see it (`machine::link_counters`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct CableFaults {
    /// Symbol errors added each second the port is up.
    pub(crate) symbol_errors_per_s: u64,
    /// What `LinkDownedCounter` holds.
    pub(crate) link_downs: u64,
    /// The effective physical BER as mlxlink prints it (`3E-9`); `None`: no error.
    pub(crate) effective_ber: Option<String>,
}

/// A dual-port ConnectX-5 VPI card's part number (its VPD `[PN]`).
pub(crate) const DEFAULT_PART_NUMBER: &str = "MCX556A-ECAT";

fn default_part_number() -> String {
    DEFAULT_PART_NUMBER.to_owned()
}

/// `1X`, `2X`, `4X` as a lane count.
pub(crate) fn parse_width(text: &str) -> Option<u32> {
    match text.trim() {
        "1X" | "1x" => Some(1),
        "2X" | "2x" => Some(2),
        "4X" | "4x" => Some(4),
        _ => None,
    }
}

impl GuestHw {
    /// The hardware described by a host's name and options, read through `get` (a host's
    /// [`SimContext::option`], which notes what its state is made from; bad values were refused
    /// when the host opened; defaults stand in for any that slip through).
    pub(crate) fn from_options<'a>(host: &str, get: impl Fn(&str) -> Option<&'a str>) -> Self {
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
            link_width: get("link_width").and_then(parse_width),
            ib_spine: get("ib_spine").map(str::to_owned),
            opensm: get("opensm").map(str::to_owned),
            symbol_errors: get("symbol_errors")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
            part_number: get("part_number").unwrap_or(DEFAULT_PART_NUMBER).to_owned(),
            leaf_uplinks: get("leaf_uplinks").and_then(|n| n.parse().ok()),
            cable: CableFaults {
                symbol_errors_per_s: get("symbol_errors_per_s")
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0),
                link_downs: get("link_downs").and_then(|n| n.parse().ok()).unwrap_or(0),
                effective_ber: get("effective_ber").map(str::to_owned),
            },
        }
    }

    /// The configured rate's lanes and their speed name: 100 Gb/s is 4 lanes of EDR.
    pub(crate) fn nominal(&self) -> (u32, &'static str) {
        match self.rate_gbps {
            400 => (4, "NDR"),
            200 => (2, "NDR"),
            56 => (4, "FDR"),
            40 => (4, "QDR"),
            25 => (1, "EDR"),
            _ => (4, "EDR"),
        }
    }

    /// The lanes the IB port trained at: `link_width`, else the rate's own.
    pub(crate) fn lanes(&self) -> u32 {
        self.link_width.unwrap_or(self.nominal().0)
    }

    /// The IB port's active rate in Gb/s: each lane's speed times the lanes it trained at (a
    /// 4X EDR port trained at 1X runs at 25 Gb/s, as `ibstat` then says). Linux computes the
    /// sysfs `rate` that `ibstatus` prints the same way: the lane rate (EDR 25, NDR 100) times
    /// the active width, printed `"%d Gb/sec (%dX%s)"` (drivers/infiniband/core/sysfs.c,
    /// `rate_show`).
    pub(crate) fn ib_rate_gbps(&self) -> u32 {
        match self.link_width {
            None => self.rate_gbps,
            Some(width) => self.rate_gbps * width / self.nominal().0.max(1),
        }
    }

    /// `4X EDR` for the IB port's width and speed, as `ibstatus` prints it in parentheses.
    pub(crate) fn rate_text(&self) -> String {
        format!("{}X {}", self.lanes(), self.nominal().1)
    }

    /// `4X EDR` for the configured rate's own width (a RoCE port: `link_width` is the IB
    /// cable's).
    pub(crate) fn nominal_rate_text(&self) -> String {
        let (lanes, speed) = self.nominal();
        format!("{lanes}X {speed}")
    }
}

/// Whether two guests' IB ports reach each other: cabled to the same leaf switch, or to leaves
/// that uplink to the same spine (`ib_spine`).
pub(crate) fn ib_reachable(a: &GuestHw, b: &GuestHw) -> bool {
    a.ib_switch == b.ib_switch || (a.ib_spine.is_some() && a.ib_spine == b.ib_spine)
}

/// `lspci`'s name of the ConnectX-5, the adapter a guest has without `esxi=`.
pub(crate) const CONNECTX5: &str = "Mellanox Technologies MT27800 Family [ConnectX-5]";

/// The guest's view of its `index`th passed-through port: `mlx5_<index>`, a PCI slot of its
/// own, `ib0` or the RoCE interface, identifiers derived from the host's name.
pub(crate) fn port_hw(
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
        mst: String::new(),
        function: 0,
        vpi: false,
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
    let text = cairn_runtime::sim::read_state(&root.join(peer).join(STATE_FILE)).ok()?;
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
        .filter(|e| e.path().join(STATE_FILE).is_file())
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
