//! The simulated guest's RDMA ports and the InfiniBand fabric: `ibstatus`, `ibstat`,
//! `ibv_devinfo`, `ibnetdiscover`, and the fabric's link health: `iblinkinfo`,
//! `ibqueryerrors`, `perfquery -x`.
//!
//! The ports and their states are `machine::ports` (perftest and sockperf read them too); this
//! prints them. `ibnetdiscover` is `crate::ib::ibnetdiscover::sim`.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::guest::{GuestHw, LinkLayer, not_found, out};
use crate::machine::ofed::OfedState;
use crate::machine::ports::{PortView, own_ports};

/// The IB MTU code (`4096 (5)`).
pub(crate) fn mtu_code(mtu: u32) -> u32 {
    match mtu {
        4096 => 5,
        2048 => 4,
        1024 => 3,
        512 => 2,
        _ => 1,
    }
}

fn ibstatus(ports: &[PortView], filter: Option<&str>, hw: &GuestHw) -> ExecOutput {
    let (device, port) = match filter {
        Some(f) => match f.split_once(':') {
            Some((d, p)) => (Some(d), p.parse::<u32>().ok()),
            None => (Some(f), None),
        },
        None => (None, None),
    };
    let selected: Vec<&PortView> = ports
        .iter()
        .filter(|p| device.is_none_or(|d| d == p.hw.device) && port.is_none_or(|n| n == 1))
        .collect();
    if selected.is_empty() {
        let name = device.unwrap_or("mlx5_0");
        return out(
            1,
            "",
            format!(
                "Fatal error:  device '{name}': sys files not found (/sys/class/infiniband/{name}/ports)\n"
            ),
        );
    }
    let mut text = String::new();
    for p in selected {
        let (state, phys) = if p.active {
            ("4: ACTIVE", "5: LinkUp")
        } else {
            ("2: INIT", "5: LinkUp")
        };
        text.push_str(&format!(
            "Infiniband device '{}' port 1 status: \n    default gid:     {} \n    base lid:    0x{:x} \n    sm lid:      0x{:x} \n    state:       {state} \n    phys state:  {phys} \n    rate:        {} Gb/sec ({}) \n    link_layer:  {} \n\n",
            p.hw.device,
            p.gid,
            p.lid,
            p.sm_lid,
            p.rate_gbps,
            if p.hw.link_layer == LinkLayer::InfiniBand {
                hw.rate_text()
            } else {
                hw.nominal_rate_text()
            },
            p.hw.link_layer.name()
        ));
    }
    out(0, text, "")
}

fn ibstat(ports: &[PortView], device: Option<&str>, firmware: &str) -> ExecOutput {
    let mut text = String::new();
    for p in ports
        .iter()
        .filter(|p| device.is_none_or(|d| d == p.hw.device))
    {
        let g = &p.hw.guid;
        let guid = match p.hw.link_layer {
            LinkLayer::InfiniBand => format!("0x{g}"),
            LinkLayer::Ethernet => format!("0x{}", p.gid.replace(':', "").get(16..).unwrap_or(g)),
        };
        text.push_str(&format!(
            "CA '{}'\n\tCA type: MT4119\n\tNumber of ports: 1\n\tFirmware version: {firmware}\n\tHardware version: 0\n\tNode GUID: {guid}\n\tSystem image GUID: {guid}\n\tPort 1:\n\t\tState: {}\n\t\tPhysical state: LinkUp\n\t\tRate: {}\n\t\tBase lid: {}\n\t\tLMC: 0\n\t\tSM lid: {}\n\t\tCapability mask: {}\n\t\tPort GUID: {guid}\n\t\tLink layer: {}\n",
            p.hw.device,
            if p.active { "Active" } else { "Initializing" },
            p.rate_gbps,
            p.lid,
            p.sm_lid,
            if p.hw.link_layer == LinkLayer::InfiniBand { "0x2659e848" } else { "0x00010000" },
            p.hw.link_layer.name()
        ));
    }
    if text.is_empty() {
        let name = device.unwrap_or("mlx5_0");
        return out(
            255,
            "",
            format!(
                "ibpanic: [1234] main: stat of IB device '{name}' failed: No such file or directory\n"
            ),
        );
    }
    out(0, text, "")
}

fn ibv_devinfo(ports: &[PortView], device: Option<&str>, firmware: &str) -> ExecOutput {
    let mut text = String::new();
    for p in ports
        .iter()
        .filter(|p| device.is_none_or(|d| d == p.hw.device))
    {
        let g = &p.hw.guid;
        let guid = format!(
            "{}:{}:{}:{}",
            g.get(0..4).unwrap_or(""),
            g.get(4..8).unwrap_or(""),
            g.get(8..12).unwrap_or(""),
            g.get(12..16).unwrap_or("")
        );
        text.push_str(&format!(
            "hca_id:\t{}\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t{firmware}\n\tnode_guid:\t\t\t{guid}\n\tsys_image_guid:\t\t\t{guid}\n\tvendor_id:\t\t\t0x02c9\n\tvendor_part_id:\t\t\t4119\n\thw_ver:\t\t\t\t0x0\n\tboard_id:\t\t\tMT_0000000008\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\t{}\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t{} ({})\n\t\t\tsm_lid:\t\t\t{}\n\t\t\tport_lid:\t\t{}\n\t\t\tport_lmc:\t\t0x00\n\t\t\tlink_layer:\t\t{}\n\n",
            p.hw.device,
            if p.active { "PORT_ACTIVE (4)" } else { "PORT_INIT (2)" },
            p.active_mtu,
            mtu_code(p.active_mtu),
            p.sm_lid,
            p.lid,
            p.hw.link_layer.name()
        ));
    }
    if text.is_empty() {
        return out(
            1,
            "",
            "Failed to get IB devices list: Function not implemented\n",
        );
    }
    out(0, text, "")
}

/// `ibstatus`, `ibstat`, `ibv_devinfo`, `ibnetdiscover`, `iblinkinfo`, `ibqueryerrors`,
/// `perfquery`.
pub(crate) struct IbSim;

impl SimTool for IbSim {
    fn commands(&self) -> &[&'static str] {
        &[
            "ibstatus",
            "ibstat",
            "ibv_devinfo",
            "ibnetdiscover",
            "iblinkinfo",
            "ibqueryerrors",
            "perfquery",
        ]
    }

    fn name(&self) -> &'static str {
        "ib"
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let program = argv.first().map_or("", String::as_str);
        let loaded = host.tool_state("ofed").is_some_and(|o| o["loaded"] == true);
        if !loaded {
            return not_found(program);
        }
        let hw = GuestHw::of(host);
        let ports = own_ports(host);
        // The adapter's firmware now: `guest_fw`, or what the OFED installer burned since.
        let ofed: OfedState = host
            .tool_state("ofed")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        let firmware = crate::machine::ofed::adapter_firmware(host, &ofed);
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let named = |flag: &str| {
            args.iter()
                .position(|a| *a == flag)
                .and_then(|i| args.get(i + 1))
                .copied()
        };
        match program.rsplit('/').next().unwrap_or(program) {
            "ibstatus" => ibstatus(&ports, args.first().copied(), &hw),
            "ibstat" => ibstat(
                &ports,
                args.iter().find(|a| !a.starts_with('-')).copied(),
                &firmware,
            ),
            "ibv_devinfo" => {
                ibv_devinfo(&ports, named("-d").or_else(|| named("--ib-dev")), &firmware)
            }
            "iblinkinfo" => crate::ib::iblinkinfo::sim::run(host, &ports, &hw),
            "ibqueryerrors" => crate::ib::ibqueryerrors::sim::run(host, &ports, &hw),
            "perfquery" => crate::ib::perfquery::sim::run(host, &ports, &hw, &args),
            _ => crate::ib::ibnetdiscover::sim::run(host, &ports, &hw),
        }
    }
}

#[cfg(test)]
mod tests {

    use std::time::Duration;

    /// A 1X cable: the IB port says 25 Gb/s (1X EDR) in ibstatus, ibstat and ibnetdiscover;
    /// the RoCE port of the same guest keeps its 100 Gb/s (4X EDR).
    #[test]
    fn a_port_trained_at_1x_reports_a_quarter_of_its_rate_and_roce_keeps_its_own() {
        let t = crate::test_support::TestHost::guests(
            &[("w-02", "ofed=5.4-3.0.3.0&link_width=1X&guest_fw=16.28.2006")],
            "w-02",
        )
        .build();
        let port = t.eval(r#"ib::wait_active("mlx5_0", 1, 10).state"#);
        assert_eq!(port.to_string(), "ACTIVE");
        let texts = t.eval("ib::status().map(|p| `${p.rate_gbps} ${p.rate_text}`)");
        assert_eq!(texts.to_string(), r#"["25.0 1X EDR", "100.0 4X EDR"]"#);
        let ca =
            t.eval("let c = ib::stat().cas[0]; `${c.ports[0].rate_gbps} ${c.firmware_version}`");
        assert_eq!(ca.to_string(), "25.0 16.28.2006");
        let speed = t.eval("ib::netdiscover().channel_adapters[0].ports[0].speed");
        assert_eq!(speed.to_string(), "EDR");
        let width = t.eval("ib::netdiscover().channel_adapters[0].ports[0].width");
        assert_eq!(width.to_string(), "1x");
    }

    use cairn_runtime::sim::SimHost;

    use crate::test_support::sim_exec as run;

    fn open(root: &std::path::Path, name: &str) -> SimHost {
        crate::test_support::rhel8_guest(name, root.join(name), &[("ofed", "5.4-3.0.3.0")])
    }

    #[test]
    fn ports_come_up_and_the_fabric_lists_both_guests() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let a = open(dir.path(), "ibsim-02");
        let b = open(dir.path(), "ibsim-03");
        let before = run(&a, &["ibstatus"]);
        let parsed = crate::ib::ibstatus::parse(&before.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.ports.len(), 2);
        assert_eq!(parsed.ports[0].state.as_deref(), Some("INIT"));
        let _ = a
            .clock()
            .sleep(Duration::from_secs(3), &cairn_runtime::Cancel::default());
        let _ = b
            .clock()
            .sleep(Duration::from_secs(3), &cairn_runtime::Cancel::default());
        let after = run(&a, &["ibstatus"]);
        let parsed = crate::ib::ibstatus::parse(&after.stdout).unwrap_or_else(|e| panic!("{e}"));
        let ib = &parsed.ports[0];
        assert_eq!(
            (ib.state.as_deref(), ib.base_lid, ib.rate_gbps),
            (Some("ACTIVE"), Some(0x14), Some(100.0))
        );
        assert_eq!(parsed.ports[1].link_layer.as_deref(), Some("Ethernet"));
        let stat = run(&a, &["ibstat"]);
        let stat = crate::ib::ibstat::parse(&stat.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", stat.stdout));
        assert_eq!(stat.cas.len(), 2);
        let dev = run(&a, &["ibv_devinfo"]);
        let dev = crate::ib::ibv_devinfo::parse(&dev.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", dev.stdout));
        assert_eq!(dev.devices.len(), 2);
        let _ = run(&b, &["ibstatus"]);
        let topo = run(&a, &["ibnetdiscover"]);
        let topo = crate::ib::ibnetdiscover::parse(&topo.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", topo.stdout));
        assert_eq!(topo.switches.len(), 1);
        let names: Vec<String> = topo
            .channel_adapters
            .iter()
            .filter_map(|c| c.description.clone())
            .collect();
        assert_eq!(names, vec!["ibsim-02 mlx5_0", "ibsim-03 mlx5_0"]);
    }
}
