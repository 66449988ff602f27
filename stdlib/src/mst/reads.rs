//! What the `mst::` builtins read from a host, as typed values: `status` journals its
//! [`MstPort`]s (`action::query_typed`) and `start` reads them to decide, so a replayed list of
//! another shape is refused naming the record.

use cairn_runtime::{ActionError, HostIo};
use serde::{Deserialize, Serialize};

use super::{PciDevice, command};
use crate::action;
use crate::grammar::esxcli::nic_list;

/// A row of `mst status -vv`'s `PCI devices:` with what a script asks of it read out:
/// `ConnectX5(rev:0)` is `type` `ConnectX5`, `revision` 0, and `port` is the PCI function plus
/// one. Journaled as the row with those three fields added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct MstPort {
    #[serde(flatten)]
    pub(super) device: PciDevice,
    pub(super) r#type: String,
    #[serde(deserialize_with = "action::present")]
    pub(super) revision: Option<i64>,
    #[serde(deserialize_with = "action::present")]
    pub(super) port: Option<i64>,
    /// True in check mode before MFT is installed: predicted from the NIC list.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) predicted: bool,
}

impl MstPort {
    /// The row with its type, revision and port read out.
    pub(super) fn of(device: PciDevice) -> Self {
        let (kind, revision) = match device.device_type.split_once("(rev:") {
            Some((kind, rest)) => (
                kind.to_owned(),
                rest.trim_end_matches(')').parse::<i64>().ok(),
            ),
            None => (device.device_type.clone(), None),
        };
        let port = device
            .pci
            .rsplit('.')
            .next()
            .and_then(|f| f.parse::<i64>().ok())
            .map(|f| f + 1);
        Self {
            device,
            r#type: kind,
            revision,
            port,
            predicted: false,
        }
    }
}

/// `mst status -vv`'s ports; `None` when mst is not installed.
pub(super) fn ports(io: &mut HostIo<'_>) -> Result<Option<Vec<MstPort>>, ActionError> {
    let argv = command::status();
    let Some(output) = action::run_if_installed(io, &argv)? else {
        return Ok(None);
    };
    let parsed = action::parsed(&argv, &output.stdout, super::parse_status)?;
    Ok(Some(
        parsed.pci_devices.into_iter().map(MstPort::of).collect(),
    ))
}

/// mst's names for the ConnectX families esxcli describes: `[ConnectX-5]` → `ConnectX5`, mt4119.
const FAMILIES: &[(&str, &str, u32)] = &[
    ("[ConnectX-4 Lx]", "ConnectX4LX", 4117),
    ("[ConnectX-4]", "ConnectX4", 4115),
    ("[ConnectX-5 Ex]", "ConnectX5EX", 4121),
    ("[ConnectX-5]", "ConnectX5", 4119),
    ("[ConnectX-6 Dx]", "ConnectX6DX", 4125),
    ("[ConnectX-6 Lx]", "ConnectX6LX", 4127),
    ("[ConnectX-6]", "ConnectX6", 4123),
    ("[ConnectX-7]", "ConnectX7", 4129),
];

/// Check mode before MFT is installed: the ports mst would list, from the NIC list and mst's
/// naming (`mt<device id>_pciconf<adapter index>`, `.1` for the second function).
pub(super) fn predicted(io: &mut HostIo<'_>) -> Result<Vec<MstPort>, ActionError> {
    let nics = action::run_parsed(io, nic_list::COMMAND, nic_list::parse)?;
    let mut ports: Vec<(String, &str, u32)> = nics
        .iter()
        .filter_map(|nic| {
            let description = nic.description.as_deref()?;
            let (_, kind, id) = FAMILIES
                .iter()
                .find(|(tag, _, _)| description.contains(tag))?;
            let pci = nic.pci_device.as_deref()?.to_ascii_lowercase();
            let pci = pci.strip_prefix("0000:").unwrap_or(&pci).to_owned();
            Some((pci, *kind, *id))
        })
        .collect();
    ports.sort();
    let mut buses: Vec<&str> = ports.iter().map(|(pci, _, _)| bus(pci)).collect();
    buses.dedup();
    let devices = ports
        .iter()
        .map(|(pci, kind, id)| {
            let index = buses.iter().position(|b| *b == bus(pci)).unwrap_or(0);
            let mst = match pci.rsplit_once('.') {
                Some((_, function)) if function != "0" => {
                    format!("mt{id}_pciconf{index}.{function}")
                }
                _ => format!("mt{id}_pciconf{index}"),
            };
            let device = PciDevice {
                device_type: format!("{kind}(rev:0)"),
                mst,
                pci: pci.clone(),
                rdma: None,
                net: None,
                numa: None,
                other: std::collections::BTreeMap::new(),
            };
            MstPort {
                predicted: true,
                ..MstPort::of(device)
            }
        })
        .collect();
    Ok(devices)
}

/// The bus of a PCI address without its domain: `3b` of `3b:00.1`.
fn bus(pci: &str) -> &str {
    pci.split_once(':').map_or(pci, |(bus, _)| bus)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    #[test]
    fn rows_gain_type_revision_and_port() {
        let row = PciDevice {
            device_type: "ConnectX5(rev:0)".into(),
            mst: "mt4119_pciconf1.1".into(),
            pci: "3b:00.1".into(),
            rdma: None,
            net: None,
            numa: None,
            other: std::collections::BTreeMap::new(),
        };
        let port = MstPort::of(row);
        assert_eq!(port.r#type, "ConnectX5");
        assert_eq!(port.revision, Some(0));
        assert_eq!(port.port, Some(2));
        let journaled = action::json(&port);
        assert_eq!(
            journaled,
            json!({ "device_type": "ConnectX5(rev:0)", "mst": "mt4119_pciconf1.1", "pci": "3b:00.1", "rdma": null, "net": null, "numa": null, "other": {}, "type": "ConnectX5", "revision": 0, "port": 2 })
        );
        let back: MstPort = serde_json::from_value(journaled).expect("reads back");
        assert_eq!(back, port);
    }

    #[test]
    fn a_replayed_status_of_another_shape_is_refused_naming_the_record() {
        let expected = shape_error("mst::status", "mst's ports");
        let row = json!({ "device_type": "ConnectX5(rev:0)", "mst": "mt4119_pciconf1", "pci": "3b:00.0", "rdma": null, "net": null, "numa": null, "type": "ConnectX5", "revision": 0, "port": 1 });
        let mut renamed = row.clone();
        if let Some(map) = renamed.as_object_mut() {
            map.remove("port");
            map.insert("port_number".into(), json!(1));
        }
        for (result, names) in [
            (json!({ "ports": [row] }), "a sequence"),
            (json!([renamed]), "`port`"),
        ] {
            let t = TestHost::esxi("")
                .replaying(journal_of("mst::status", json!({}), result))
                .build();
            let error = t.error("mst::status()");
            assert!(error.contains(&expected), "{error}");
            assert!(error.contains(names), "{error}");
            assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
        }
    }
}
