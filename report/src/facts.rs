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

use serde_json::Value;

use crate::host_model::HostModel;
use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

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

/// A host's facts: one text per column, empty when nothing in the journal tells.
pub(crate) fn host_facts(host: &HostModel) -> [String; 6] {
    let mut adapters: BTreeMap<String, Adapter> = BTreeMap::new();
    let mut link_types: BTreeMap<String, String> = BTreeMap::new();
    let mut drivers: BTreeMap<String, String> = BTreeMap::new();
    let mut ofed = String::new();
    for action in host.actions.iter().filter(|a| a.ok) {
        let r = &action.result;
        let arg = |key: &str| action.args.get(key).and_then(Value::as_str);
        match action.builtin.as_str() {
            "mlxfwmanager::query" | "flint::query" => {
                let key = text(r, "pci_device_name")
                    .or_else(|| arg("device").map(str::to_owned))
                    .unwrap_or_default();
                let adapter = adapters.entry(key.clone()).or_default();
                let part = text(r, "part_number");
                let kind = text(r, "device_type");
                adapter.name = match (part, kind) {
                    (Some(part), Some(kind)) => Some(format!("{kind} {part} ({key})")),
                    (Some(one), None) | (None, Some(one)) => Some(format!("{one} ({key})")),
                    (None, None) => adapter.name.take(),
                };
                adapter.psid = text(r, "psid").or(adapter.psid.take());
                adapter.firmware = text(r, "fw")
                    .or_else(|| text(r, "fw_version"))
                    .or(adapter.firmware.take());
            }
            "mlxfwmanager::update" => {
                if let (Some(device), Some(to)) = (arg("device"), text(r, "to")) {
                    adapters.entry(device.to_owned()).or_default().firmware = Some(to);
                }
            }
            "ib::devinfo" => {
                for device in r.as_array().into_iter().flatten() {
                    let Some(hca) = text(device, "hca_id") else {
                        continue;
                    };
                    let adapter = adapters.entry(hca.clone()).or_default();
                    adapter.name = Some(hca.clone());
                    adapter.psid = text(device, "board_id");
                    adapter.firmware = text(device, "fw_ver");
                    for port in device
                        .get("ports")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if let Some(layer) = text(port, "link_layer") {
                            let number = port.get("port").and_then(Value::as_u64).unwrap_or(1);
                            link_types.insert(format!("{hca}:{number}"), layer);
                        }
                    }
                }
            }
            "ib::status" => {
                for port in r.as_array().into_iter().flatten() {
                    if let (Some(device), Some(layer)) =
                        (text(port, "device"), text(port, "link_layer"))
                    {
                        let number = port.get("port").and_then(Value::as_u64).unwrap_or(1);
                        link_types.insert(format!("{device}:{number}"), layer);
                    }
                }
            }
            "mlxconfig::query" => {
                let device = arg("device").unwrap_or_default();
                for config in r
                    .get("configurations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let name = text(config, "name").unwrap_or_default();
                    if let Some(port) = name.strip_prefix("LINK_TYPE_") {
                        let current = config.get("current");
                        let value = current
                            .and_then(|c| text(c, "label"))
                            .or_else(|| current.and_then(|c| text(c, "text")))
                            .unwrap_or_default();
                        link_types.insert(format!("{device} {port}"), value);
                    }
                }
            }
            "esxcli::vib_list" => {
                for vib in r.as_array().into_iter().flatten() {
                    if let (Some(name), Some(version)) = (text(vib, "name"), text(vib, "version"))
                        && name.starts_with("nmlx")
                    {
                        drivers.insert(name, version);
                    }
                }
            }
            "esxcli::vib_install" => {
                for key in ["vibs_installed", "vibs_skipped"] {
                    for id in r.get(key).and_then(Value::as_array).into_iter().flatten() {
                        if let Some((name, version)) = id.as_str().and_then(vib_id)
                            && name.starts_with("nmlx")
                        {
                            drivers.insert(name.to_owned(), version.to_owned());
                        }
                    }
                }
            }
            "ofed::info" | "ofed::install" => {
                if let Some(version) = text(r, "version") {
                    ofed = match text(r, "distribution") {
                        Some(distribution) => format!("{distribution}-{version}"),
                        None => version,
                    };
                }
            }
            _ => {}
        }
    }
    let join = |values: Vec<String>| {
        let mut seen: Vec<String> = Vec::new();
        for value in values.into_iter().filter(|v| !v.is_empty()) {
            if !seen.contains(&value) {
                seen.push(value);
            }
        }
        seen.join(", ")
    };
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
            link_types
                .iter()
                .map(|(at, layer)| format!("{at} {layer}"))
                .collect(),
        ),
        join(
            drivers
                .iter()
                .map(|(name, v)| format!("{name} {v}"))
                .collect(),
        ),
        ofed,
    ]
}

/// A VIB ID (`MEL_bootbank_mft_4.18.1.14-0`, as `esxcli software vib install` prints it under
/// `VIBs Installed:`; shared/fixtures/esxcli/vib-install-mft-esxi7.txt) as name and version:
/// vendor, bootbank, name and version are joined by underscores.
fn vib_id(id: &str) -> Option<(&str, &str)> {
    let mut parts = id.splitn(4, '_');
    let (_vendor, _bank) = (parts.next()?, parts.next()?);
    Some((parts.next()?, parts.next()?))
}

fn text(value: &Value, key: &str) -> Option<String> {
    match value.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
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
        for host in &model.hosts {
            let facts = host_facts(host);
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
            return Ok(None);
        }
        let mut html = String::from("<table class=\"facts\"><thead><tr><th>host</th>");
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
