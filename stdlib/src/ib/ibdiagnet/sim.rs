//! The simulated `ibdiagnet`: scans the fabric the host's IB port sees (every guest whose port
//! is up on its leaf switch or on a leaf under the same spine, the leaves, the spine), writes
//! `ibdiagnet2.db_csv` into its output directory (`-o`, default `/var/tmp/ibdiagnet2`) and
//! prints a short summary.
//!
//! The file has the sections a fabric check reads, with the header rows the sources in
//! `mod.rs` publish: NODES, PORTS and LINKS in full; SM_INFO and PM_INFO with the columns those
//! sources name (the real tool writes more, and the reader takes columns by name). The summary
//! on stdout is the simulator's own wording: no real transcript is published to copy.
//!
//! What the inventory injects: `link_width=1X` on a host trains both ends of its cable at 1X;
//! `symbol_errors=N` puts N in its port's SymbolErrorCounter; `opensm=master` adds a master
//! subnet manager on that host beside the switch's (`standby`: a standby one).

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use super::options::DEFAULT_OUTPUT;
use crate::ib::switch::switch_of;
use crate::machine::guest::{GuestHw, LinkLayer, not_found, out};
use crate::machine::ports::{fabric_members, own_ports};

/// The NODES header.
const NODES_HEADER: &str = "NodeDesc,NumPorts,NodeType,ClassVersion,BaseVersion,SystemImageGUID,NodeGUID,PortGUID,DeviceID,PartitionCap,revision,VendorID,LocalPortNum";

/// The PORTS header.
const PORTS_HEADER: &[&str] = &[
    "NodeGuid",
    "PortGuid",
    "PortNum",
    "MKey",
    "GIDPrfx",
    "MSMLID",
    "LID",
    "CapMsk",
    "M_KeyLeasePeriod",
    "DiagCode",
    "LinkWidthActv",
    "LinkWidthSup",
    "LinkWidthEn",
    "LocalPortNum",
    "LinkSpeedEn",
    "LinkSpeedActv",
    "LMC",
    "MKeyProtBits",
    "LinkDownDefState",
    "PortPhyState",
    "PortState",
    "LinkSpeedSup",
    "VLArbHighCap",
    "VLHighLimit",
    "InitType",
    "VLCap",
    "MSMSL",
    "NMTU",
    "FilterRawOutb",
    "FilterRawInb",
    "PartEnfOutb",
    "PartEnfInb",
    "OpVLs",
    "HoQLife",
    "VLStallCnt",
    "MTUCap",
    "InitTypeReply",
    "VLArbLowCap",
    "PKeyViolations",
    "MKeyViolations",
    "SubnTmo",
    "MulticastPKeyTrapSuppressionEnabled",
    "ClientReregister",
    "GUIDCap",
    "QKeyViolations",
    "MaxCreditHint",
    "OverrunErrs",
    "LocalPhyError",
    "RespTimeValue",
    "LinkRoundTripLatency",
    "OOOSLMask",
    "CapMsk2",
    "FECActv",
    "RetransActv",
];

/// The PM_INFO counters written, in the PortCounters attribute's order.
const PM_COUNTERS: &[&str] = &[
    "SymbolErrorCounter",
    "LinkErrorRecoveryCounter",
    "LinkDownedCounter",
    "PortRcvErrors",
    "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",
    "PortXmitConstraintErrors",
    "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors",
    "VL15Dropped",
    "PortXmitWait",
];

/// One node of the scanned fabric.
struct FabricNode {
    guid: String,
    description: String,
    /// NodeType: 1 CA, 2 switch.
    kind: u8,
    port_count: u32,
    device_id: &'static str,
    /// Port 0's LID for a switch, port 1's for a CA.
    lid: u32,
}

/// One port: node GUID, port number, lanes, speed name, symbol errors.
struct FabricPort {
    node: String,
    port: u32,
    lid: u32,
    lanes: u32,
    speed: &'static str,
    symbol_errors: u64,
}

/// The scanned fabric.
#[derive(Default)]
struct Fabric {
    nodes: Vec<FabricNode>,
    ports: Vec<FabricPort>,
    links: Vec<(String, u32, String, u32)>,
    /// NodeGUID, port, SmState, priority.
    managers: Vec<(String, u32, u8, u8)>,
}

fn width_bits(lanes: u32) -> u32 {
    match lanes {
        1 => 1,
        2 => 16,
        8 => 4,
        12 => 8,
        _ => 2,
    }
}

/// LinkSpeedActv's encoding: extended speeds in the high byte.
fn speed_code(speed: &str) -> u32 {
    match speed {
        "SDR" => 1,
        "DDR" => 2,
        "QDR" => 4,
        "FDR" => 1 << 8,
        "HDR" => 4 << 8,
        "NDR" => 8 << 8,
        _ => 2 << 8,
    }
}

/// A guest up on the fabric: its hardware, device, port GUID and LID.
type Member = (GuestHw, String, String, u32);

/// The fabric as `hw`'s port sees it; `None` without an active IB port.
fn scan(host: &SimContext<'_>, hw: &GuestHw) -> Option<Fabric> {
    let mine = own_ports(host)
        .into_iter()
        .find(|p| p.hw.link_layer == LinkLayer::InfiniBand && p.active)?;
    // Every guest up on the fabric, by node number.
    let mut members: Vec<Member> = fabric_members(host, hw, &mine)
        .into_iter()
        .map(|m| (m.hw, m.device, m.guid, m.lid))
        .collect();
    members.sort_by(|a, b| (a.0.node, &a.0.host).cmp(&(b.0.node, &b.0.host)));
    let mut fabric = Fabric::default();
    // The leaves, in name order, each with its members.
    let mut leaves: BTreeMap<String, Vec<&Member>> = BTreeMap::new();
    for m in &members {
        leaves.entry(m.0.ib_switch.clone()).or_default().push(m);
    }
    let spine_guid = hw
        .ib_spine
        .as_ref()
        .map(|name| fabric.add_spine(hw, name, leaves.len()));
    for (index, on_leaf) in leaves.values().enumerate() {
        fabric.add_leaf(index, on_leaf, spine_guid.as_ref());
    }
    if let Some(spine_guid) = &spine_guid
        && hw.subnet_manager
    {
        fabric.managers.push((spine_guid.clone(), 0, 3, 15));
    }
    for member in &members {
        fabric.add_adapter(member);
    }
    // Switch ports first, then the adapters', as a scan from the switches lists them.
    fabric.ports.sort_by_key(|p| {
        let ca = fabric.nodes.iter().any(|n| n.guid == p.node && n.kind == 1);
        (ca, p.node.clone(), p.port)
    });
    Some(fabric)
}

impl Fabric {
    /// The spine `name` the host's leaf is uplinked to: LID 1, with a port for each of the
    /// `leaves` at least. Returns its GUID.
    fn add_spine(&mut self, hw: &GuestHw, name: &str, leaves: usize) -> String {
        let mut as_spine = hw.clone();
        as_spine.ib_switch = name.to_owned();
        let (guid, desc, devid, count) = switch_of(&as_spine);
        self.nodes.push(FabricNode {
            guid: guid.clone(),
            description: desc,
            kind: 2,
            port_count: count.max(u32::try_from(leaves).unwrap_or(u32::MAX)),
            device_id: devid,
            lid: 1,
        });
        guid
    }

    /// The leaf at `index` in name order with its members' ports and cables; with a spine, its
    /// uplink (the port after its last, and after the switch model's own) on the spine's port
    /// `index + 1`; without one, its own subnet manager if it runs one.
    fn add_leaf(&mut self, index: usize, on_leaf: &[&Member], spine_guid: Option<&String>) {
        let Some(first) = on_leaf.first() else {
            return;
        };
        let leaf_hw = &first.0;
        let (guid, desc, devid, count) = switch_of(leaf_hw);
        let highest = on_leaf.iter().map(|m| m.0.node).max().unwrap_or(0);
        let uplink = count.max(highest) + 1;
        let lid = 2 + u32::try_from(index).unwrap_or(0);
        let (lanes, speed) = leaf_hw.nominal();
        self.nodes.push(FabricNode {
            guid: guid.clone(),
            description: desc,
            kind: 2,
            port_count: if spine_guid.is_some() {
                uplink
            } else {
                count.max(highest)
            },
            device_id: devid,
            lid,
        });
        for (mhw, _, port_guid, _) in on_leaf {
            let (_, speed) = mhw.nominal();
            self.ports.push(FabricPort {
                node: guid.clone(),
                port: mhw.node,
                lid,
                lanes: mhw.lanes(),
                speed,
                symbol_errors: 0,
            });
            self.links
                .push((port_guid.clone(), 1, guid.clone(), mhw.node));
        }
        if let Some(spine_guid) = spine_guid {
            let spine_port = u32::try_from(index).unwrap_or(0) + 1;
            for (node, port, lid) in [(&guid, uplink, lid), (spine_guid, spine_port, 1)] {
                self.ports.push(FabricPort {
                    node: node.clone(),
                    port,
                    lid,
                    lanes,
                    speed,
                    symbol_errors: 0,
                });
            }
            self.links
                .push((guid.clone(), uplink, spine_guid.clone(), spine_port));
        }
        if leaf_hw.subnet_manager && spine_guid.is_none() {
            self.managers.push((guid, 0, 3, 15));
        }
    }

    /// A guest's adapter: its node, its port (with the symbol errors the inventory injects)
    /// and the subnet manager it runs, if any.
    fn add_adapter(&mut self, (mhw, device, port_guid, lid): &Member) {
        let (_, speed) = mhw.nominal();
        self.nodes.push(FabricNode {
            guid: port_guid.clone(),
            description: format!("{} {device}", mhw.host),
            kind: 1,
            port_count: 1,
            device_id: "0x1017",
            lid: *lid,
        });
        self.ports.push(FabricPort {
            node: port_guid.clone(),
            port: 1,
            lid: *lid,
            lanes: mhw.lanes(),
            speed,
            symbol_errors: mhw.symbol_errors,
        });
        match mhw.opensm.as_deref() {
            Some("master") => self.managers.push((port_guid.clone(), 1, 3, 0)),
            Some("standby") => self.managers.push((port_guid.clone(), 1, 2, 0)),
            _ => {}
        }
    }
}

/// The db_csv text of a scanned fabric.
fn db_csv(fabric: &Fabric) -> String {
    let mut text = String::from("START_NODES\n");
    text.push_str(NODES_HEADER);
    text.push('\n');
    for n in &fabric.nodes {
        text.push_str(&format!(
            "\"{}\",{},{},1,1,0x{g},0x{g},0x{g},{},0xffff,0,0x2c9,{}\n",
            n.description,
            n.port_count,
            n.kind,
            n.device_id,
            if n.kind == 2 { 0 } else { 1 },
            g = n.guid
        ));
    }
    text.push_str("END_NODES\n\n\nSTART_PORTS\n");
    text.push_str(&PORTS_HEADER.join(","));
    text.push('\n');
    let lid_of = |guid: &str| {
        fabric
            .nodes
            .iter()
            .find(|n| n.guid == guid)
            .map_or(0, |n| n.lid)
    };
    let sm_lid = fabric
        .managers
        .iter()
        .find(|m| m.2 == 3)
        .map_or(0, |m| lid_of(&m.0));
    for p in &fabric.ports {
        let values: Vec<String> = PORTS_HEADER
            .iter()
            .map(|column| match *column {
                "NodeGuid" | "PortGuid" => format!("0x{}", p.node),
                "PortNum" | "LocalPortNum" => p.port.to_string(),
                "MKey" => "0x0000000000000000".into(),
                "GIDPrfx" => "0xfe80000000000000".into(),
                "MSMLID" => sm_lid.to_string(),
                "LID" => p.lid.to_string(),
                "M_KeyLeasePeriod" => "15".into(),
                "LinkWidthActv" => width_bits(p.lanes).to_string(),
                "LinkWidthSup" | "LinkWidthEn" => "19".into(),
                "LinkSpeedActv" => speed_code(p.speed).to_string(),
                "LinkSpeedEn" | "LinkSpeedSup" => (speed_code(p.speed) | 0x7).to_string(),
                "PortPhyState" => "5".into(),
                "PortState" => "4".into(),
                "NMTU" | "MTUCap" => "5".into(),
                "VLCap" | "OpVLs" => "4".into(),
                "OOOSLMask" | "CapMsk2" | "FECActv" | "RetransActv" => "N/A".into(),
                _ => "0".into(),
            })
            .collect();
        text.push_str(&values.join(","));
        text.push('\n');
    }
    text.push_str("END_PORTS\n\n\nSTART_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n");
    for (g1, p1, g2, p2) in &fabric.links {
        text.push_str(&format!("0x{g1},{p1},0x{g2},{p2}\n"));
    }
    text.push_str("END_LINKS\n\n\nSTART_SM_INFO\nNodeGUID,PortGUID,PortNumber,SmState,Priority\n");
    for (guid, port, state, priority) in &fabric.managers {
        text.push_str(&format!("0x{guid},0x{guid},{port},{state},{priority}\n"));
    }
    text.push_str("END_SM_INFO\n\n\nSTART_PM_INFO\nNodeGUID,PortGUID,PortNumber,");
    text.push_str(&PM_COUNTERS.join(","));
    text.push('\n');
    for p in &fabric.ports {
        text.push_str(&format!("0x{g},0x{g},{}", p.port, g = p.node));
        for counter in PM_COUNTERS {
            let value = if *counter == "SymbolErrorCounter" {
                p.symbol_errors
            } else {
                0
            };
            text.push_str(&format!(",{value}"));
        }
        text.push('\n');
    }
    text.push_str("END_PM_INFO\n");
    text
}

/// `ibdiagnet [-o DIR] [-i DEV] [--lw W] [--ls S]`.
pub(crate) struct IbdiagnetSim;

impl SimTool for IbdiagnetSim {
    fn commands(&self) -> &[&'static str] {
        &["ibdiagnet"]
    }

    fn name(&self) -> &'static str {
        "ibdiagnet"
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let loaded = host.tool_state("ofed").is_some_and(|o| o["loaded"] == true);
        if !loaded {
            return not_found("ibdiagnet");
        }
        let mut output = DEFAULT_OUTPUT.to_owned();
        let mut args = argv.iter().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-o" | "--output_path" | "-i" | "--device" | "--lw" | "--ls" => {
                    let Some(value) = args.next() else {
                        return out(
                            1,
                            "",
                            format!("cairn sim: ibdiagnet: {arg} needs a value\n"),
                        );
                    };
                    if matches!(arg.as_str(), "-o" | "--output_path") {
                        output.clone_from(value);
                    }
                }
                other => {
                    return out(
                        1,
                        "",
                        format!(
                            "cairn sim: ibdiagnet: option {other} is not simulated (it takes -o, -i, --lw, --ls)\n"
                        ),
                    );
                }
            }
        }
        let hw = GuestHw::of(host);
        let Some(fabric) = scan(host, &hw) else {
            return out(
                1,
                "",
                "cairn sim: ibdiagnet: no active InfiniBand port on this host to scan the fabric from\n",
            );
        };
        let switches = fabric.nodes.iter().filter(|n| n.kind == 2).count();
        let cas = fabric.nodes.len() - switches;
        let path = format!("{}/ibdiagnet2.db_csv", output.trim_end_matches('/'));
        host.write_file(path.clone(), db_csv(&fabric));
        out(
            0,
            format!(
                "Discovery\n-I- Discovering ... {} nodes ({switches} Switches & {cas} CA-s) discovered.\n\
                 -I- Links: {}; subnet managers: {}\n-I- Database file: {path}\n",
                fabric.nodes.len(),
                fabric.links.len(),
                fabric.managers.len()
            ),
            "",
        )
    }
}
