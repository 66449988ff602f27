//! The fleet's facts, from the journal's typed results: adapter, PSID, firmware, link types,
//! driver and OFED versions per host; a value that differs from the most common one among
//! the hosts of the same group is highlighted.
//!
//! Sources, latest result first: `mlxfwmanager::query` and `flint::query` (adapter, PSID,
//! firmware; `mlxfwmanager::update`'s `to` after an update), `ib::devinfo` (`board_id` is the
//! PSID, `fw_ver`, the ports' link layers), `mlxconfig::query` (`LINK_TYPE_P1`, `_P2`),
//! `ib::status` (link layers), `esxcli::vib_list` and `esxcli::vib_install` (the `nmlx`
//! driver VIBs), `ofed::info` and `ofed::install`.

use std::collections::BTreeMap;

use cairn_stdlib::esxcli::{Vib, VibChange};
use cairn_stdlib::flint::FlashImage;
use cairn_stdlib::ib::ibstatus::IbStatusPort;
use cairn_stdlib::ib::ibv_devinfo::IbvDevice;
use cairn_stdlib::mlxconfig::DeviceQuery;
use cairn_stdlib::mlxfwmanager::{FirmwareQuery, FirmwareUpdate};
use cairn_stdlib::ofed::{InstalledOfed, OfedChange};
use serde_json::Value;

use crate::host_model::{Action, HostModel};
use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::unread::Unread;

/// The columns, in order.
pub(crate) const COLUMNS: [&str; 6] = [
    "adapter",
    "PSID",
    "firmware",
    "link types",
    "driver",
    "OFED",
];

/// One adapter (or RDMA device) as the results describe it.
#[derive(Debug, Clone, Default)]
struct Adapter {
    name: Option<String>,
    psid: Option<String>,
    firmware: Option<String>,
}

/// What one query said of an adapter; what it did not say leaves what an earlier one said.
struct Seen {
    part: Option<String>,
    kind: Option<String>,
    psid: Option<String>,
    firmware: Option<String>,
}

impl Seen {
    /// The adapter `key` names (its PCI device name, else the device the query was asked
    /// for) with what was seen.
    fn update(self, adapters: &mut BTreeMap<String, Adapter>, key: Option<String>) {
        let key = key.unwrap_or_default();
        let adapter = adapters.entry(key.clone()).or_default();
        adapter.name = match (self.part, self.kind) {
            (Some(part), Some(kind)) => Some(format!("{kind} {part} ({key})")),
            (Some(one), None) | (None, Some(one)) => Some(format!("{one} ({key})")),
            (None, None) => adapter.name.take(),
        };
        adapter.psid = self.psid.or(adapter.psid.take());
        adapter.firmware = self.firmware.or(adapter.firmware.take());
    }
}

/// A host's facts: one text per column, empty when nothing in the journal tells; a result of
/// another shape than its builtin's type is noted in `unread`, not skipped silently.
pub(crate) fn host_facts(host: &HostModel, unread: &mut Unread) -> [String; 6] {
    let mut facts = Facts::default();
    for action in host.actions.iter().filter(|a| a.ok) {
        facts.read(&host.name, action, unread);
    }
    facts.columns()
}

/// What a host's results told so far, latest last.
#[derive(Default)]
struct Facts {
    adapters: BTreeMap<String, Adapter>,
    drivers: BTreeMap<String, String>,
    link_types: BTreeMap<String, String>,
    ofed: String,
}

impl Facts {
    /// Takes what `action` tells, its result read as its builtin's type.
    fn read(&mut self, host: &str, action: &Action, unread: &mut Unread) {
        let device = action.args.get("device").and_then(Value::as_str);
        match action.builtin.as_str() {
            "mlxfwmanager::query" => {
                if let Some(query) = unread.read_whole(host, action) {
                    self.firmware_query(query, device);
                }
            }
            "flint::query" => {
                if let Some(FlashImage::Found(image)) = unread.read_whole(host, action) {
                    let seen = Seen {
                        part: image.part_number.clone(),
                        kind: None,
                        psid: image.psid.clone(),
                        firmware: image.fw_version.clone(),
                    };
                    seen.update(&mut self.adapters, device.map(str::to_owned));
                }
            }
            "mlxfwmanager::update" => {
                if let Some(update) = unread.read_whole::<FirmwareUpdate>(host, action) {
                    let to = update.versions.and_then(|v| v.to);
                    if let (Some(device), Some(to)) = (device, to) {
                        self.adapters.entry(device.to_owned()).or_default().firmware = Some(to);
                    }
                }
            }
            "ib::devinfo" => {
                if let Some(devices) = unread.read_whole(host, action) {
                    self.devices(devices);
                }
            }
            "ib::status" => {
                if let Some(ports) = unread.read_whole::<Vec<IbStatusPort>>(host, action) {
                    for port in ports {
                        if let Some(layer) = port.link_layer {
                            let at = format!("{}:{}", port.device, port.port);
                            self.link_types.insert(at, layer);
                        }
                    }
                }
            }
            "mlxconfig::query" => {
                if let Some(query) = unread.read_whole(host, action) {
                    self.configured_link_types(&query, device.unwrap_or_default());
                }
            }
            "esxcli::vib_list" => {
                if let Some(vibs) = unread.read_whole::<Vec<Vib>>(host, action) {
                    for vib in vibs.into_iter().filter(|v| v.name.starts_with("nmlx")) {
                        self.drivers.insert(vib.name, vib.version);
                    }
                }
            }
            "esxcli::vib_install" => {
                if let Some(change) = unread.read_whole(host, action) {
                    self.installed_vibs(change);
                }
            }
            "ofed::info" => {
                if let Some(info) = unread.read_whole::<InstalledOfed>(host, action)
                    && let Some(version) = info.version
                {
                    self.ofed = match info.distribution {
                        Some(distribution) => format!("{distribution}-{version}"),
                        None => version,
                    };
                }
            }
            "ofed::install" => {
                if let Some(installed) = unread.read_whole::<OfedChange>(host, action) {
                    self.ofed = installed.version;
                }
            }
            _ => {}
        }
    }

    /// `mlxfwmanager::query`'s adapter, found or predicted (check mode).
    fn firmware_query(&mut self, query: FirmwareQuery, device: Option<&str>) {
        let (key, seen) = match &query {
            FirmwareQuery::Found(found) => (
                found.device.pci_device_name.clone(),
                Seen {
                    part: found.device.part_number.clone(),
                    kind: found.device.device_type.clone(),
                    psid: found.device.psid.clone(),
                    firmware: found.fw.clone(),
                },
            ),
            FirmwareQuery::Predicted(predicted) => (
                None,
                Seen {
                    part: Some(predicted.part_number.clone()),
                    kind: None,
                    psid: Some(predicted.psid.clone()),
                    firmware: Some(predicted.fw.clone()),
                },
            ),
        };
        let key = key.or_else(|| device.map(str::to_owned));
        seen.update(&mut self.adapters, key);
    }

    /// `ib::devinfo`'s RDMA devices and their ports' link layers.
    fn devices(&mut self, devices: Vec<IbvDevice>) {
        for device in devices {
            let adapter = self.adapters.entry(device.hca_id.clone()).or_default();
            adapter.name = Some(device.hca_id.clone());
            adapter.psid = device.board_id;
            adapter.firmware = device.fw_ver;
            for port in device.ports {
                if let Some(layer) = port.link_layer {
                    let at = format!("{}:{}", device.hca_id, port.port);
                    self.link_types.insert(at, layer);
                }
            }
        }
    }

    /// `mlxconfig::query`'s `LINK_TYPE_P1`, `_P2` of `device`.
    fn configured_link_types(&mut self, query: &DeviceQuery, device: &str) {
        for config in &query.device.configurations {
            if let Some(port) = config.name.strip_prefix("LINK_TYPE_") {
                let value = config
                    .current
                    .as_ref()
                    .map(|c| c.label.clone().unwrap_or_else(|| c.text.clone()))
                    .unwrap_or_default();
                self.link_types.insert(format!("{device} {port}"), value);
            }
        }
    }

    /// The `nmlx` driver VIBs `esxcli::vib_install` installed or found installed.
    fn installed_vibs(&mut self, change: VibChange) {
        // An outcome assumed done has no record: it names no VIB.
        let Some(record) = change.record else {
            return;
        };
        for id in record.vibs_installed.iter().chain(&record.vibs_skipped) {
            if let Some((name, version)) = vib_id(id)
                && name.starts_with("nmlx")
            {
                self.drivers.insert(name.to_owned(), version.to_owned());
            }
        }
    }

    /// The columns' texts, each value once, in order.
    fn columns(self) -> [String; 6] {
        let join = |values: Vec<String>| {
            let mut seen: Vec<String> = Vec::new();
            for value in values.into_iter().filter(|v| !v.is_empty()) {
                if !seen.contains(&value) {
                    seen.push(value);
                }
            }
            seen.join(", ")
        };
        let adapters = &self.adapters;
        [
            join(adapters.values().filter_map(|a| a.name.clone()).collect()),
            join(adapters.values().filter_map(|a| a.psid.clone()).collect()),
            join(
                adapters
                    .values()
                    .filter_map(|a| a.firmware.clone())
                    .collect(),
            ),
            join(
                self.link_types
                    .iter()
                    .map(|(at, layer)| format!("{at} {layer}"))
                    .collect(),
            ),
            join(
                self.drivers
                    .iter()
                    .map(|(name, v)| format!("{name} {v}"))
                    .collect(),
            ),
            self.ofed,
        ]
    }
}

/// A VIB ID (`MEL_bootbank_mft_4.18.1.14-0`, as `esxcli software vib install` prints it under
/// `VIBs Installed:`; shared/fixtures/esxcli/vib-install-mft-esxi7.txt) as name and version:
/// vendor, bootbank, name and version are joined by underscores.
fn vib_id(id: &str) -> Option<(&str, &str)> {
    let mut parts = id.splitn(4, '_');
    let (_vendor, _bank) = (parts.next()?, parts.next()?);
    Some((parts.next()?, parts.next()?))
}

/// A host's name and facts.
type Row<'a> = (&'a str, [String; 6]);

/// The section.
pub(crate) struct FactsSection;

impl Section for FactsSection {
    fn id(&self) -> &'static str {
        "facts"
    }

    fn title(&self) -> &'static str {
        "Fleet facts"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        // Rows grouped by the hosts' groups, in the order groups first appear.
        let mut groups: Vec<(String, Vec<Row<'_>>)> = Vec::new();
        let mut unread = Unread::of("the fleet's facts");
        for host in &model.hosts {
            let facts = host_facts(host, &mut unread);
            if facts.iter().all(String::is_empty) {
                continue;
            }
            let group = host.groups.join(", ");
            match groups.iter_mut().find(|(name, _)| *name == group) {
                Some((_, rows)) => rows.push((&host.name, facts)),
                None => groups.push((group, vec![(&host.name, facts)])),
            }
        }
        if groups.is_empty() {
            return Ok((!unread.is_empty()).then(|| unread.html()));
        }
        let mut html = unread.html();
        html.push_str("<table class=\"facts\"><thead><tr><th>host</th>");
        for column in COLUMNS {
            html.push_str(&format!("<th>{column}</th>"));
        }
        html.push_str("</tr></thead><tbody>");
        for (group, rows) in &groups {
            html.push_str(&format!(
                "<tr class=\"group\"><th colspan=\"{}\">group {}</th></tr>",
                COLUMNS.len() + 1,
                escape(if group.is_empty() { "(none)" } else { group })
            ));
            let usual: Vec<Option<&str>> = (0..COLUMNS.len())
                .map(|column| most_common(rows.iter().map(|(_, facts)| facts[column].as_str())))
                .collect();
            for (name, facts) in rows {
                html.push_str(&format!(
                    "<tr data-host=\"{}\"><td>{}</td>",
                    escape(name),
                    escape(name)
                ));
                for (column, value) in facts.iter().enumerate() {
                    let differs = !value.is_empty()
                        && usual[column].is_some_and(|usual| usual != value.as_str());
                    html.push_str(&format!(
                        "<td{}>{}</td>",
                        if differs {
                            " class=\"differs\" title=\"differs from the other hosts of the group\""
                        } else {
                            ""
                        },
                        if value.is_empty() {
                            "—".to_owned()
                        } else {
                            escape(value)
                        }
                    ));
                }
                html.push_str("</tr>");
            }
        }
        html.push_str("</tbody></table>");
        Ok(Some(html))
    }
}

/// The value most hosts have (ignoring unknowns), if at least two hosts know one.
fn most_common<'a>(values: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut known = 0;
    for value in values.filter(|v| !v.is_empty()) {
        known += 1;
        match counts.iter_mut().find(|(v, _)| *v == value) {
            Some((_, n)) => *n += 1,
            None => counts.push((value, 1)),
        }
    }
    if known < 2 {
        return None;
    }
    counts
        .iter()
        .max_by_key(|(_, n)| *n)
        .map(|(value, _)| *value)
}

#[cfg(test)]
mod tests {
    use cairn_runtime::RunFolders;
    use cairn_stdlib::ib::ibstatus::IbStatusPort;
    use serde_json::json;

    use crate::run_model::RunModel;
    use crate::section::Section;
    use crate::test_journals::{Act, new_run, write_journal};

    fn port(device: &str, layer: &str) -> serde_json::Value {
        let port = IbStatusPort {
            device: device.into(),
            port: 1,
            default_gid: None,
            base_lid: Some(20),
            sm_lid: Some(1),
            state: Some("ACTIVE".into()),
            state_code: Some(4),
            phys_state: Some("LinkUp".into()),
            phys_state_code: Some(5),
            rate_gbps: Some(100.0),
            rate_text: Some("4X EDR".into()),
            width: Some("4X".into()),
            speed: Some("EDR".into()),
            link_layer: Some(layer.into()),
        };
        json!([port])
    }

    /// Two hosts' `ib::status`, one journaled with `link_layer` renamed `layer`: the section
    /// shows the host it could read and says which result it could not, instead of a host
    /// with no link type.
    #[test]
    fn a_result_of_another_shape_is_named_in_the_section_not_skipped() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = RunFolders::new(dir.path());
        let hosts = vec!["vm001".to_owned(), "vm002".to_owned()];
        let id = new_run(&store, &hosts);
        let mut renamed = port("mlx5_0", "InfiniBand");
        let layer = renamed[0]["link_layer"].take();
        renamed[0]["layer"] = layer;
        if let Some(map) = renamed[0].as_object_mut() {
            map.remove("link_layer");
        }
        for (host, result) in [("vm001", port("mlx5_0", "InfiniBand")), ("vm002", renamed)] {
            let actions = [Act::query("ib::status", json!({}), result)];
            write_journal(&store, &id, (host, &hosts), "guests", 37, &actions);
        }
        let model = RunModel::load(&store, Some(&id)).unwrap_or_else(|e| panic!("{e}"));

        let html = super::FactsSection
            .render(&model)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_default();
        assert!(html.contains("mlx5_0:1 InfiniBand"), "{html}");
        assert!(
            html.contains(
                "1 result of the fleet&#39;s facts could not be read: a field `[0].layer` its type does not have (vm002 action 1, book.rhai:11)"
            ),
            "{html}"
        );
        assert!(!html.contains("data-host=\"vm002\""), "{html}");
    }

    /// `ofed::info`, `ofed::install` and `esxcli::vib_install` read as the stdlib's types: a
    /// guest's OFED, an installed `nmlx` VIB (an outcome assumed done names none), and an
    /// `ofed::info` journaled with `version` renamed named in the section instead of read as
    /// "not installed".
    #[test]
    fn ofed_and_vib_installs_read_as_their_types_and_a_renamed_field_is_named() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = RunFolders::new(dir.path());
        let hosts = vec!["g1".to_owned(), "g2".to_owned(), "esx01".to_owned()];
        let id = new_run(&store, &hosts);
        let info = json!({ "installed": true, "distribution": "MLNX_OFED_LINUX", "flavour": "mlnx_ofed", "version": "5.4-3.0.3.0" });
        let renamed = json!({ "installed": true, "distribution": "MLNX_OFED_LINUX", "flavour": "mlnx_ofed", "ofed_version": "5.4-3.0.3.0" });
        let install =
            json!({ "version": "23.10-1.1.9.0", "changed": true, "firmware": "not_attempted" });
        let vib = json!({ "changed": true, "message": "done", "reboot_required": true, "vibs_installed": ["MEL_bootbank_nmlx5-core_4.23.0.36-1OEM.800.1.0.20613240"], "vibs_removed": [], "vibs_skipped": [] });
        let assumed = json!({ "changed": true, "reboot_required": true });
        let tarball = json!({ "tarball": "/nfs/MLNX_OFED_LINUX-23.10-1.1.9.0-rhel8.1-x86_64.tgz" });
        let source = json!({ "source": "/n/nmlx5.zip", "force": false });
        let journals = [
            (
                "g1",
                vec![
                    Act::query("ofed::info", json!({}), info),
                    Act::query("ofed::install", tarball, install),
                ],
            ),
            ("g2", vec![Act::query("ofed::info", json!({}), renamed)]),
            (
                "esx01",
                vec![
                    Act::query("esxcli::vib_install", source.clone(), vib),
                    Act::query("esxcli::vib_install", source, assumed),
                ],
            ),
        ];
        for (host, actions) in &journals {
            write_journal(&store, &id, (host, &hosts), "guests", 37, actions);
        }
        let model = RunModel::load(&store, Some(&id)).unwrap_or_else(|e| panic!("{e}"));

        let html = super::FactsSection
            .render(&model)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("the section shows nothing"));
        assert!(html.contains("<td>23.10-1.1.9.0</td>"), "{html}");
        assert!(
            html.contains("<td>nmlx5-core 4.23.0.36-1OEM.800.1.0.20613240</td>"),
            "{html}"
        );
        assert!(
            html.contains(
                "1 result of the fleet&#39;s facts could not be read: missing field `version` (g2 action 1, book.rhai:11)"
            ),
            "{html}"
        );
        assert!(!html.contains("data-host=\"g2\""), "{html}");
    }
}
