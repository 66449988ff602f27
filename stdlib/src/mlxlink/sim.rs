//! The simulated `mlxlink -d DEV [-c]` on a Linux host whose OFED drivers are loaded: the
//! port's Operational, Supported and Troubleshooting sections and with `-c` its Physical
//! Counters and BER Info, in the text layout of mstflint's `MlxlinkCmdPrint` (a title over a
//! rule of dashes, labels padded to 32 columns) as the goldens under `tests/fixtures/mlxlink/`
//! show it; the counters' labels in the order mstflint's `MlxlinkCommander::prepareBerInfo`
//! sets them. The counters and the BER are the port's cable faults
//! (`machine::link_counters`); a clean link's BER is `15E-255`, mlxlink's zero.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::guest::{GuestHw, LinkLayer, not_found, out};
use crate::machine::link_counters::{LinkCounters, NO_ERRORS_BER, link_counters, up_millis};
use crate::machine::ports::{PortView, own_ports};

/// `mlxlink`.
pub(crate) struct MlxlinkSim;

impl SimTool for MlxlinkSim {
    fn commands(&self) -> &[&'static str] {
        &["mlxlink"]
    }

    fn name(&self) -> &'static str {
        "mlxlink"
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let loaded = host.tool_state("ofed").is_some_and(|o| o["loaded"] == true);
        if !loaded {
            return not_found("mlxlink");
        }
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let device = args
            .iter()
            .position(|a| *a == "-d")
            .and_then(|i| args.get(i + 1))
            .copied()
            .unwrap_or("");
        let ports = own_ports(host);
        let Some(port) = ports.iter().find(|p| p.hw.device == device) else {
            return out(1, "", format!("(cairn sim: no device {device:?})\n"));
        };
        let hw = GuestHw::of(host);
        let mut text = operational(&hw, port);
        if args.contains(&"-c") {
            text.push_str(&counters(host, &hw, port));
        }
        out(0, text, "")
    }
}

/// A `label : value` line.
fn field(label: &str, value: &str) -> String {
    format!("{label:<32}: {value}\n")
}

/// A section's title and rule.
fn title(name: &str) -> String {
    format!("\n{name}\n{}\n", "-".repeat(name.len()))
}

/// The sections every query prints.
fn operational(hw: &GuestHw, port: &PortView) -> String {
    let ib = port.hw.link_layer == LinkLayer::InfiniBand;
    let (_, speed) = hw.nominal();
    let (lanes, speed_text, phys, fec) = if ib {
        let fec = if matches!(speed, "HDR" | "NDR") {
            "RS-FEC - (544,514) + PLR"
        } else {
            "No FEC"
        };
        (hw.lanes(), format!("IB-{speed}"), "LinkUp", fec)
    } else {
        let (lanes, _) = hw.nominal();
        let fec = "Standard RS-FEC - RS(528,514)";
        (
            lanes,
            format!("{}G", hw.rate_gbps),
            "ETH_AN_FSM_ENABLE",
            fec,
        )
    };
    let mut text = title("Operational Info");
    text.push_str(&field("State", "Active"));
    text.push_str(&field("Physical state", phys));
    text.push_str(&field("Speed", &speed_text));
    text.push_str(&field("Width", &format!("{lanes}x")));
    text.push_str(&field("FEC", fec));
    text.push_str(&field("Loopback Mode", "No Loopback"));
    text.push_str(&field("Auto Negotiation", "ON"));
    text.push_str(&title("Troubleshooting Info"));
    text.push_str(&field("Status Opcode", "0"));
    text.push_str(&field("Group Opcode", "N/A"));
    text.push_str(&field("Recommendation", "No issue was observed"));
    text
}

/// `-c`'s section.
fn counters(host: &SimContext<'_>, hw: &GuestHw, port: &PortView) -> String {
    let ib = port.hw.link_layer == LinkLayer::InfiniBand;
    let c = link_counters(hw, up_millis(host.tool_state("ofed")), host.now_millis());
    // The cable faults are the IB port's; a RoCE port's link is clean.
    let (c, lanes) = if ib {
        (c, hw.lanes())
    } else {
        let clean = LinkCounters {
            effective_ber: NO_ERRORS_BER.to_owned(),
            up_secs: c.up_secs,
            ..LinkCounters::default()
        };
        (clean, hw.nominal().0)
    };
    let mut text = title("Physical Counters and BER Info");
    text.push_str(&field(
        "Time Since Last Clear [Min]",
        &format!("{:.1}", c.up_secs as f64 / 60.0),
    ));
    if ib {
        text.push_str(&field("Symbol Errors", &c.symbol_errors.to_string()));
        text.push_str(&field("Symbol BER", &c.effective_ber));
    }
    text.push_str(&field(
        "Effective Physical Errors",
        &c.effective_errors.to_string(),
    ));
    text.push_str(&field("Effective Physical BER", &c.effective_ber));
    // The errors FEC did not correct are all on the first lane.
    let mut per_lane = vec!["0".to_owned(); usize::try_from(lanes).unwrap_or(1).max(1)];
    per_lane[0] = c.effective_errors.to_string();
    let per_lane = per_lane.join(",");
    text.push_str(&field("Raw Physical Errors Per Lane", &per_lane));
    text.push_str(&field("Raw Physical BER", &c.effective_ber));
    text.push_str(&field("Link Down Counter", &c.link_downs.to_string()));
    text.push_str(&field("Link Error Recovery Counter", "0"));
    text
}
