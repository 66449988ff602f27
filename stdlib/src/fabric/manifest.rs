//! The expected-hardware manifest: a TOML file with one table per host class (how many RDMA
//! devices, their part number, PSID and firmware, each port's link layer, width and rate, the
//! OFED/DOCA version), and the typed difference between it and what a host's `ibstatus`,
//! `ibstat`, `ibv_devinfo`, `lspci -vv` and `ofed_info -s` report, one line a difference
//! (`compute-042: mlx5_1 rate 50 Gb/s (2X HDR), expected 100 (4X EDR)`).
//!
//! ```toml
//! [compute]
//! hcas = 1                 # RDMA devices (ibstat's CAs)
//! part_number = "MCX556A-ECAT"  # lspci -vv's [PN] Part number, per Mellanox function
//! psid = "MT_0000000008"   # ibv_devinfo's board_id
//! firmware = "16.32.1010"  # ibstat's Firmware version
//! ofed = "23.10-1.1.9.0"   # ofed_info -s (MLNX_OFED_LINUX-... or DOCA's OFED-internal-...)
//! [[compute.port]]
//! device = "mlx5_0"
//! link_layer = "InfiniBand"
//! rate_gbps = 100
//! rate_text = "4X EDR"     # ibstatus's width and speed
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::link_thresholds::LinkThresholds;
use crate::ib::ibstat::{IbStat, IbStatCa};
use crate::ib::ibstatus::IbStatusPort;
use crate::ib::ibv_devinfo::IbvDevice;

/// What one host class is expected to have; every key may be left out (not checked).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct HostClass {
    pub(crate) hcas: Option<u32>,
    pub(crate) part_number: Option<String>,
    pub(crate) psid: Option<String>,
    pub(crate) firmware: Option<String>,
    pub(crate) ofed: Option<String>,
    #[serde(default)]
    pub(crate) port: Vec<PortSpec>,
}

/// One expected port (port 1 of `device`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct PortSpec {
    pub(crate) device: String,
    pub(crate) link_layer: Option<String>,
    pub(crate) rate_gbps: Option<f64>,
    pub(crate) rate_text: Option<String>,
}

/// One difference between a host and its class.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Difference {
    /// The RDMA device, or `None` for the host as a whole (the number of devices).
    #[serde(deserialize_with = "crate::action::present")]
    pub device: Option<String>,
    /// `hcas`, `part_number`, `psid`, `firmware`, `ofed`, `link_layer`, `rate`, `present`.
    pub field: String,
    /// What the host has.
    pub found: String,
    /// What its class of the manifest says.
    pub expected: String,
    /// The difference in words: `compute-042: mlx5_1 rate 50 Gb/s (2X HDR), expected 100`.
    pub message: String,
}

/// The class `class` of the manifest text: a TOML error, an unknown key or an unknown class
/// (with the closest name) is refused. The `[links]` table is the fabric's, not a class.
pub(crate) fn load(text: &str, class: &str) -> Result<HostClass, String> {
    let mut table = table(text)?;
    table.remove("links");
    let classes: BTreeMap<String, HostClass> = toml::Value::Table(table)
        .try_into()
        .map_err(|e| format!("manifest: {}", did_you_mean(e.to_string().trim_end())))?;
    classes.get(class).cloned().ok_or_else(|| {
        let hint = cairn_runtime::inventory::closest(class, classes.keys().map(String::as_str))
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        let known: Vec<&str> = classes.keys().map(String::as_str).collect();
        format!("manifest: no host class `{class}` (it has {known:?}){hint}")
    })
}

/// The manifest's `[links]` table: refused when absent, with a key it does not know (the
/// closest named) or a value out of range.
pub(crate) fn load_links(text: &str) -> Result<LinkThresholds, String> {
    let mut table = table(text)?;
    let links = table
        .remove("links")
        .ok_or_else(|| "manifest: no [links] table (width, speed, effective_ber_max, symbol_errors_max, link_downs_max)".to_owned())?;
    let links: LinkThresholds = links.try_into().map_err(|e| {
        format!(
            "manifest: [links]: {}",
            did_you_mean(e.to_string().trim_end())
        )
    })?;
    links.checked().map_err(|e| format!("manifest: {e}"))
}

/// The manifest as a TOML table.
fn table(text: &str) -> Result<toml::Table, String> {
    toml::from_str(text).map_err(|e| format!("manifest: {}", e.to_string().trim_end()))
}

/// A TOML error about an unknown key (serde's ``unknown field `firmwear`, expected one of
/// `hcas`, ...``) with the closest expected key added; any other error as it is.
fn did_you_mean(message: &str) -> String {
    let backticked = |text: &str| -> Vec<String> {
        text.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    let Some((unknown, expected)) = message
        .split_once("unknown field `")
        .and_then(|(_, rest)| rest.split_once('`'))
    else {
        return message.to_owned();
    };
    let known = backticked(expected.lines().next().unwrap_or_default());
    match cairn_runtime::inventory::closest(unknown, known.iter().map(String::as_str)) {
        Some(name) => format!("{message}\ndid you mean `{name}`?"),
        None => message.to_owned(),
    }
}

/// What the host reported beside its RDMA devices: the part numbers in its functions' VPD and
/// its OFED/DOCA version (`None`: `ofed_info` is not installed).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HostFacts {
    /// (PCI address, part number) of each Mellanox function with VPD.
    pub(crate) part_numbers: Vec<(String, String)>,
    pub(crate) ofed: Option<String>,
}

/// The differences in part number and OFED version.
pub(crate) fn diff_facts(host: &str, class: &HostClass, facts: &HostFacts) -> Vec<Difference> {
    let mut out = Vec::new();
    if let Some(expected) = &class.part_number {
        if facts.part_numbers.is_empty() {
            out.push(Difference {
                device: None,
                field: "part_number".into(),
                found: "none".into(),
                expected: expected.clone(),
                message: format!("{host}: no part number in lspci -vv's VPD, expected {expected}"),
            });
        }
        for (address, found) in &facts.part_numbers {
            if found != expected {
                out.push(Difference {
                    device: Some(address.clone()),
                    field: "part_number".into(),
                    found: found.clone(),
                    expected: expected.clone(),
                    message: format!("{host}: {address} part number {found}, expected {expected}"),
                });
            }
        }
    }
    if let Some(expected) = &class.ofed {
        let found = facts.ofed.clone().unwrap_or_else(|| "not installed".into());
        if &found != expected {
            out.push(Difference {
                device: None,
                field: "ofed".into(),
                found: found.clone(),
                expected: expected.clone(),
                message: format!("{host}: OFED {found}, expected {expected}"),
            });
        }
    }
    out
}

/// Numbers without a needless `.0`: `100`, `12.5`.
fn gbps(value: f64) -> String {
    format!("{value}")
}

/// The differences between `host`'s ports and devices and its class.
pub(crate) fn diff(
    host: &str,
    class: &HostClass,
    status: &[IbStatusPort],
    stat: &IbStat,
    devices: &[IbvDevice],
) -> Vec<Difference> {
    let mut found = Differences {
        host,
        out: Vec::new(),
    };
    if let Some(hcas) = class.hcas {
        found.hca_count(hcas, stat);
    }
    for ca in &stat.cas {
        found.device(class, ca, devices);
    }
    for spec in &class.port {
        found.port(spec, status);
    }
    found.out
}

/// The differences found so far on `host`, each line naming it.
struct Differences<'a> {
    host: &'a str,
    out: Vec<Difference>,
}

impl Differences<'_> {
    /// One difference; its line is `host: [device ]what`.
    fn add(
        &mut self,
        device: Option<&str>,
        field: &str,
        found: String,
        expected: String,
        what: String,
    ) {
        let prefix = device.map_or_else(String::new, |d| format!("{d} "));
        self.out.push(Difference {
            device: device.map(str::to_owned),
            field: field.to_owned(),
            found,
            expected,
            message: format!("{}: {prefix}{what}", self.host),
        });
    }

    /// How many RDMA devices ibstat lists, against `hcas`.
    fn hca_count(&mut self, hcas: u32, stat: &IbStat) {
        let found = u32::try_from(stat.cas.len()).unwrap_or(u32::MAX);
        if found != hcas {
            self.add(
                None,
                "hcas",
                found.to_string(),
                hcas.to_string(),
                format!("{found} HCA(s), expected {hcas}"),
            );
        }
    }

    /// One device's firmware (ibstat's) and PSID (ibv_devinfo's board id), where the class
    /// names them.
    fn device(&mut self, class: &HostClass, ca: &IbStatCa, devices: &[IbvDevice]) {
        let name = Some(ca.name.as_str());
        if let Some(expected) = &class.firmware {
            let found = ca.firmware_version.clone().unwrap_or_default();
            if &found != expected {
                self.add(
                    name,
                    "firmware",
                    found.clone(),
                    expected.clone(),
                    format!("firmware {found}, expected {expected}"),
                );
            }
        }
        if let Some(expected) = &class.psid {
            let found = devices
                .iter()
                .find(|d| d.hca_id == ca.name)
                .and_then(|d| d.board_id.clone())
                .unwrap_or_default();
            if &found != expected {
                self.add(
                    name,
                    "psid",
                    found.clone(),
                    expected.clone(),
                    format!("PSID {found}, expected {expected}"),
                );
            }
        }
    }

    /// One expected port against ibstatus: there at all, its link layer, and its rate and
    /// width as one difference (either off shows both, the unnamed one as found).
    fn port(&mut self, spec: &PortSpec, status: &[IbStatusPort]) {
        let device = Some(spec.device.as_str());
        let Some(port) = status.iter().find(|p| p.device == spec.device) else {
            self.add(
                device,
                "present",
                "absent".into(),
                "present".into(),
                "absent, expected".to_owned(),
            );
            return;
        };
        if let Some(expected) = &spec.link_layer {
            let found = port.link_layer.clone().unwrap_or_default();
            if &found != expected {
                self.add(
                    device,
                    "link_layer",
                    found.clone(),
                    expected.clone(),
                    format!("link layer {found}, expected {expected}"),
                );
            }
        }
        let found_rate = port.rate_gbps.unwrap_or(0.0);
        let found_text = port.rate_text.clone().unwrap_or_default();
        let rate_off = spec
            .rate_gbps
            .is_some_and(|r| (r - found_rate).abs() > f64::EPSILON);
        let text_off = spec.rate_text.as_ref().is_some_and(|t| t != &found_text);
        if rate_off || text_off {
            let expected_rate = spec.rate_gbps.map_or(found_rate, |r| r);
            let expected_text = spec.rate_text.clone().unwrap_or_else(|| found_text.clone());
            self.add(
                device,
                "rate",
                format!("{} ({found_text})", gbps(found_rate)),
                format!("{} ({expected_text})", gbps(expected_rate)),
                format!(
                    "rate {} Gb/s ({found_text}), expected {} ({expected_text})",
                    gbps(found_rate),
                    gbps(expected_rate)
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"
[compute]
hcas = 1
firmware = "16.32.1010"
[[compute.port]]
device = "mlx5_1"
link_layer = "InfiniBand"
rate_gbps = 100
rate_text = "4X EDR"
"#;

    fn port(device: &str, rate: f64, text: &str) -> IbStatusPort {
        IbStatusPort {
            device: device.into(),
            rate_gbps: Some(rate),
            rate_text: Some(text.into()),
            link_layer: Some("InfiniBand".into()),
            port: 1,
            default_gid: None,
            base_lid: None,
            sm_lid: None,
            state: None,
            state_code: None,
            phys_state: None,
            phys_state_code: None,
            width: None,
            speed: None,
        }
    }

    #[test]
    fn a_slow_port_is_one_line_as_the_issue_words_it() {
        let class = load(MANIFEST, "compute").unwrap_or_else(|e| panic!("{e}"));
        let stat = IbStat {
            cas: Vec::new(),
            warnings: Vec::new(),
            error: None,
        };
        let diffs = diff(
            "compute-042",
            &class,
            &[port("mlx5_1", 50.0, "2X HDR")],
            &stat,
            &[],
        );
        let messages: Vec<&str> = diffs.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "compute-042: 0 HCA(s), expected 1",
                "compute-042: mlx5_1 rate 50 Gb/s (2X HDR), expected 100 (4X EDR)"
            ]
        );
        let same = diff("c", &class, &[port("mlx5_1", 100.0, "4X EDR")], &stat, &[]);
        assert_eq!(same.len(), 1, "{same:?}");
    }

    #[test]
    fn unknown_keys_and_classes_are_refused_with_the_closest_name() {
        let typo = MANIFEST.replace("firmware =", "firmwear =");
        let error = load(&typo, "compute").err().unwrap_or_default();
        assert!(error.contains("unknown field `firmwear`"), "{error}");
        assert!(error.contains("did you mean `firmware`?"), "{error}");
        let typo = MANIFEST.replace("hcas =", "part_numbr = \"X\"\nhcas =");
        let error = load(&typo, "compute").err().unwrap_or_default();
        assert!(error.contains("did you mean `part_number`?"), "{error}");
        let typo = MANIFEST.replace("hcas =", "ofed_version = \"1\"\nhcas =");
        let error = load(&typo, "compute").err().unwrap_or_default();
        assert!(error.contains("unknown field `ofed_version`"), "{error}");
        let error = load(MANIFEST, "comptue").err().unwrap_or_default();
        assert!(error.contains("did you mean `compute`?"), "{error}");
    }

    #[test]
    fn a_different_part_number_or_ofed_version_is_one_line_each() {
        let text = MANIFEST.replace(
            "hcas = 1",
            "hcas = 1\npart_number = \"MCX556A-ECAT\"\nofed = \"23.10-1.1.9.0\"",
        );
        let class = load(&text, "compute").unwrap_or_else(|e| panic!("{e}"));
        let same = HostFacts {
            part_numbers: vec![("0b:00.0".into(), "MCX556A-ECAT".into())],
            ofed: Some("23.10-1.1.9.0".into()),
        };
        assert!(diff_facts("n1", &class, &same).is_empty());
        let other = HostFacts {
            part_numbers: vec![("0b:00.0".into(), "MCX555A-ECAT".into())],
            ofed: Some("5.8-1.0.1.1".into()),
        };
        let messages: Vec<String> = diff_facts("n2", &class, &other)
            .into_iter()
            .map(|d| d.message)
            .collect();
        assert_eq!(
            messages,
            [
                "n2: 0b:00.0 part number MCX555A-ECAT, expected MCX556A-ECAT",
                "n2: OFED 5.8-1.0.1.1, expected 23.10-1.1.9.0"
            ]
        );
        let none = diff_facts("n3", &class, &HostFacts::default());
        assert_eq!(none.len(), 2, "{none:?}");
        assert!(
            none[1]
                .message
                .ends_with("OFED not installed, expected 23.10-1.1.9.0")
        );
    }
}
