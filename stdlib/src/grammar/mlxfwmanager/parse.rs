//! The walk from the `mlxfwmanager` parse tree to [`Mlxfwmanager`].

use std::collections::BTreeMap;

use pest::Parser;
use pest::iterators::Pair;

use super::types::{
    ComponentVersion, DeviceUpdate, FwDevice, Mlxfwmanager, PortAddress, ReleaseNote, UpdateStep,
};
use crate::ParseError;
use crate::grammar::Misfit;

const TOOL: &str = "mlxfwmanager";

/// The pest parser of `mlxfwmanager.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "src/grammar/mlxfwmanager/mlxfwmanager.pest"]
struct MlxfwmanagerParser;

/// Parses `mlxfwmanager` or `mlxup` output.
pub(super) fn parse(text: &str) -> Result<Mlxfwmanager, ParseError> {
    let pairs = MlxfwmanagerParser::parse(Rule::mlxfwmanager, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = Mlxfwmanager {
        devices: Vec::new(),
        release_notes: Vec::new(),
        devices_requiring_update: None,
        all_up_to_date: false,
        answer: None,
        updates: Vec::new(),
        error: None,
        restart_needed: false,
        log_file: None,
        other: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        info: Vec::new(),
    };
    let mut walk = Walk {
        text,
        lines: crate::grammar::transcript::LineCounter::new(text),
        run: Vec::new(),
        found_any: false,
    };
    for pair in pairs {
        match pair.as_rule() {
            // A loop's next output: its `Device #1` is another device.
            Rule::querying_line => out.updates.append(&mut walk.run),
            Rule::device => out.devices.push(device(text, pair)?),
            Rule::release_notes => {
                for note in pair.into_inner() {
                    out.release_notes.push(release_note(text, note)?);
                }
            }
            Rule::summary => {
                for line in pair.into_inner() {
                    walk.summary_line(line, &mut out)?;
                }
            }
            Rule::message => walk.message(pair, &mut out),
            _ => {}
        }
    }
    out.updates.append(&mut walk.run);
    out.all_up_to_date &= !walk.found_any;
    Ok(out)
}

/// What the walk keeps while it reads the output.
struct Walk<'t> {
    text: &'t str,
    lines: crate::grammar::transcript::LineCounter<'t>,
    /// The updates of the output being read (a loop prints several outputs).
    run: Vec<DeviceUpdate>,
    /// A `Found N device(s) requiring firmware update` with N > 0 was printed.
    found_any: bool,
}

/// One `Device #N:` block. `mlxconfig` prints `Device #N:` blocks too; a block is
/// mlxfwmanager's only with a field of its own (`Device Type`, `PSID`, `Part Number`, `PCI
/// Device Name`) or its `Versions:` table, else the output is refused at its title.
fn device(text: &str, pair: Pair<'_, Rule>) -> Result<FwDevice, ParseError> {
    let title = pair.as_span();
    let mut device = FwDevice {
        number: 0,
        device_type: None,
        part_number: None,
        description: None,
        psid: None,
        pci_device_name: None,
        base_guid: None,
        base_mac: None,
        ports: Vec::new(),
        versions: Vec::new(),
        status: None,
        elided: false,
        other: BTreeMap::new(),
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::device_number => {
                device.number = crate::grammar::read::<u32>(TOOL, text, &part, Misfit::OutOfRange)?
            }
            Rule::elision => device.elided = true,
            Rule::description => {
                let parts: Vec<&str> = part.into_inner().map(|p| p.as_str()).collect();
                device.description = Some(parts.join(" "));
            }
            Rule::versions => {
                for row in part.into_inner() {
                    device.versions.push(version_row(row));
                }
            }
            Rule::field => field(text, part, &mut device)?,
            _ => {}
        }
    }
    let own = device.device_type.is_some()
        || device.psid.is_some()
        || device.part_number.is_some()
        || device.pci_device_name.is_some()
        || !device.versions.is_empty();
    if !own {
        let line = title.as_str().lines().next().unwrap_or_default();
        return Err(ParseError::at(
            TOOL,
            text,
            title.start(),
            line.len(),
            "expected an mlxfwmanager device block (`Device Type:`, `PSID:`, `Versions:`...)",
        ));
    }
    Ok(device)
}

fn field(text: &str, pair: Pair<'_, Rule>, device: &mut FwDevice) -> Result<(), ParseError> {
    let mut inner = pair.into_inner();
    let Some(label) = inner.next() else {
        return Ok(());
    };
    let value = inner.next().map(|v| v.as_str().to_owned());
    let name = label.as_str().trim_end();
    match name {
        "Device Type" => device.device_type = value,
        "Part Number" => device.part_number = value,
        "PSID" => device.psid = value,
        "PCI Device Name" => device.pci_device_name = value,
        "Base GUID" => device.base_guid = value,
        "Base MAC" => device.base_mac = value,
        "Status" => device.status = value,
        _ => match port_label(name) {
            Some((port, kind)) => {
                let port: u32 = port.parse().map_err(|_| {
                    let span = label.as_span();
                    ParseError::at(
                        TOOL,
                        text,
                        span.start(),
                        name.len(),
                        "port number out of range",
                    )
                })?;
                let index = match device.ports.iter().position(|p| p.port == port) {
                    Some(index) => index,
                    None => {
                        device.ports.push(PortAddress {
                            port,
                            guid: None,
                            mac: None,
                        });
                        device.ports.len() - 1
                    }
                };
                if let Some(entry) = device.ports.get_mut(index) {
                    if kind == "GUID" {
                        entry.guid = value;
                    } else {
                        entry.mac = value;
                    }
                }
            }
            None => {
                device
                    .other
                    .insert(name.to_owned(), value.unwrap_or_default());
            }
        },
    }
    Ok(())
}

/// `Port1 GUID` → `("1", "GUID")`; `None` for any other label.
fn port_label(label: &str) -> Option<(&str, &str)> {
    let (port, kind) = label.strip_prefix("Port")?.split_once(' ')?;
    let is_number = !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit());
    (is_number && (kind == "GUID" || kind == "MAC")).then_some((port, kind))
}

fn version_row(row: Pair<'_, Rule>) -> ComponentVersion {
    let mut component = String::new();
    let mut versions = Vec::new();
    for cell in row.into_inner() {
        match cell.as_rule() {
            Rule::component => component = cell.as_str().to_owned(),
            Rule::version => versions.push(Some(cell.as_str()).filter(|v| *v != "N/A")),
            _ => {}
        }
    }
    let mut versions = versions.into_iter();
    ComponentVersion {
        component,
        current: versions.next().flatten().map(str::to_owned),
        available: versions.next().flatten().map(str::to_owned),
    }
}

fn release_note(text: &str, pair: Pair<'_, Rule>) -> Result<ReleaseNote, ParseError> {
    let mut note = ReleaseNote {
        number: 0,
        device_type: String::new(),
        version: String::new(),
        url: String::new(),
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::note_number => {
                note.number = crate::grammar::read::<u32>(TOOL, text, &part, Misfit::OutOfRange)?
            }
            Rule::note_device => note.device_type = part.as_str().to_owned(),
            Rule::note_version => note.version = part.as_str().to_owned(),
            Rule::note_url => note.url = part.as_str().to_owned(),
            _ => {}
        }
    }
    Ok(note)
}

impl Walk<'_> {
    fn summary_line(
        &mut self,
        line: Pair<'_, Rule>,
        out: &mut Mlxfwmanager,
    ) -> Result<(), ParseError> {
        let text = self.text;
        match line.as_rule() {
            Rule::found => {
                if let Some(count) = line.into_inner().next() {
                    let count =
                        crate::grammar::read::<u32>(TOOL, text, &count, Misfit::OutOfRange)?;
                    self.found_any |= count > 0;
                    out.devices_requiring_update = Some(
                        out.devices_requiring_update
                            .unwrap_or(0)
                            .saturating_add(count),
                    );
                }
            }
            Rule::all_up_to_date => out.all_up_to_date = true,
            Rule::perform_prompt => {
                out.answer = line.into_inner().next().map(|a| a.as_str().to_owned())
            }
            Rule::device_update => {
                let mut update = DeviceUpdate {
                    device: 0,
                    steps: Vec::new(),
                    done: false,
                    failure: None,
                };
                for part in line.into_inner() {
                    match part.as_rule() {
                        Rule::device_number => {
                            update.device =
                                crate::grammar::read::<u32>(TOOL, text, &part, Misfit::OutOfRange)?
                        }
                        Rule::update_step => {
                            let mut name = String::new();
                            let mut status = String::new();
                            for piece in part.into_inner() {
                                match piece.as_rule() {
                                    Rule::step_name => name = piece.as_str().to_owned(),
                                    Rule::step_status => status = piece.as_str().to_owned(),
                                    Rule::done_on_step_line => update.done = true,
                                    _ => {}
                                }
                            }
                            add_step(&mut update.steps, UpdateStep { name, status });
                        }
                        Rule::update_failed => update.failure = Some(self.failed(part, out)),
                        Rule::message => self.message(part, out),
                        Rule::done => update.done = true,
                        _ => {}
                    }
                }
                merge_update(&mut self.run, update);
            }
            Rule::update_failed => {
                let reason = self.failed(line, out);
                if let Some(last) = self.run.last_mut() {
                    last.failure.get_or_insert(reason);
                }
            }
            Rule::restart_needed => out.restart_needed = true,
            Rule::log_file => {
                out.log_file = line.into_inner().next().map(|p| p.as_str().to_owned())
            }
            Rule::message => self.message(line, out),
            Rule::summary_other => out
                .other
                .extend(line.into_inner().map(|t| t.as_str().to_owned())),
            _ => {}
        }
        Ok(())
    }

    /// `Fail : REASON`: the reason, and the output's error when it is the first failure.
    fn failed(&mut self, line: Pair<'_, Rule>, out: &mut Mlxfwmanager) -> String {
        let number = self.lines.line_of(line.as_span().start());
        let reason = line
            .into_inner()
            .next()
            .map(|r| r.as_str().to_owned())
            .unwrap_or_default();
        out.error.get_or_insert_with(|| crate::grammar::ToolError {
            kind: "update_failed".into(),
            message: reason.clone(),
            line: number,
        });
        reason
    }

    /// A `-E-`, `-W-` or `-I-` line; the first `-E-` is the output's error unless an update
    /// failed before it.
    fn message(&mut self, pair: Pair<'_, Rule>, out: &mut Mlxfwmanager) {
        let printed = pair.as_str().trim();
        if let Some(words) = printed.strip_prefix("-E-") {
            let number = self.lines.line_of(pair.as_span().start());
            out.error.get_or_insert_with(|| crate::grammar::ToolError {
                kind: "tool".into(),
                message: words.trim().to_owned(),
                line: number,
            });
        }
        crate::grammar::file_message(pair, &mut out.errors, &mut out.warnings, &mut out.info);
    }
}

/// A step redrawn (progress `10%` then `OK`) keeps one entry, with its last status.
fn add_step(steps: &mut Vec<UpdateStep>, step: UpdateStep) {
    match steps.iter_mut().find(|s| s.name == step.name) {
        Some(known) => known.status = step.status,
        None => steps.push(step),
    }
}

/// A device's update header printed again by a progress redraw continues that device's entry:
/// one entry per device, done once any redraw said `Done`.
fn merge_update(updates: &mut Vec<DeviceUpdate>, update: DeviceUpdate) {
    match updates.iter_mut().find(|u| u.device == update.device) {
        Some(known) => {
            for step in update.steps {
                add_step(&mut known.steps, step);
            }
            known.done |= update.done;
        }
        None => updates.push(update),
    }
}

#[cfg(test)]
mod tests {
    use pest::{consumes_to, parses_to};

    use super::{MlxfwmanagerParser, Rule};

    /// A redraw that prints the device's update header again, after a blank line, keeps one
    /// update entry for the device, with each step once and its true done state.
    #[test]
    fn a_redrawn_update_header_continues_the_same_device() {
        let real = include_str!(
            "../../../../tests/fixtures/mlxfwmanager/mlnx-fw-updater-dgx-spark-cx7-redraw-aerial.txt"
        );
        let redrawn = real.replace(
            "FSMST_INITIALIZE -   OK\n",
            "FSMST_INITIALIZE -   10%\n\nDevice #1: Updating FW ...\n\nFSMST_INITIALIZE -   OK\n",
        );
        assert_ne!(redrawn, real);
        for text in [real.to_owned(), redrawn, real.replace('\n', "\r\n")] {
            let parsed = super::super::parse(&text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(parsed.updates.len(), 1, "{:?}", parsed.updates);
            let update = &parsed.updates[0];
            assert!(update.done, "{update:?}");
            let steps: Vec<(&str, &str)> = update
                .steps
                .iter()
                .map(|s| (s.name.as_str(), s.status.as_str()))
                .collect();
            assert_eq!(
                steps,
                [
                    ("FSMST_INITIALIZE", "OK"),
                    ("Writing Boot image component", "OK")
                ]
            );
            assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
        }
    }

    /// An admin's loop over devices: the published failed update, then the published
    /// successful one, each starting again at `Device #1`: both devices, one update entry each
    /// (not merged as one `Device #1`), and the failure as the output's error.
    #[test]
    fn a_loop_over_devices_keeps_each_update() {
        let failed = include_str!(
            "../../../../tests/fixtures/mlxfwmanager/sonic-cx6dx-update-fail-digest.txt"
        );
        let updated = include_str!(
            "../../../../tests/fixtures/mlxfwmanager/mlnx-fw-updater-dgx-spark-cx7-redraw-aerial.txt"
        );
        let body = crate::test_support::output_of;
        let looped = format!(
            "Querying Mellanox devices firmware ...\n\n{}\n{}",
            body(failed),
            updated
        );
        let parsed = super::super::parse(&looped).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.devices.len(), 2);
        assert_eq!(parsed.updates.len(), 2, "{:?}", parsed.updates);
        assert!(!parsed.updates[0].done && parsed.updates[1].done);
        assert_eq!(parsed.devices_requiring_update, Some(2));
        let error = parsed.error.unwrap_or_else(|| panic!("no error"));
        assert_eq!((error.kind.as_str(), error.line), ("update_failed", 26));
    }

    /// `mlxconfig`'s `Device #1:` block is not mlxfwmanager's.
    #[test]
    fn an_mlxconfig_block_is_refused() {
        let text = "Device #1:\n----------\n\nDevice type:    ConnectX3\nDevice:         /dev/mst/mt4099_pciconf0\n\nConfigurations:                              Next Boot\n-E- Failed to query device current configuration\n";
        assert!(super::super::parse(text).is_err());
    }

    #[test]
    fn a_component_name_may_have_spaces() {
        parses_to! {
            parser: MlxfwmanagerParser,
            input: "     UEFI Virtio blk   22.4.0010      N/A\n",
            rule: Rule::version_row,
            tokens: [version_row(0, 42, [component(5, 20), version(23, 32), version(38, 41)])]
        };
    }

    #[test]
    fn a_status_line_is_no_version_row() {
        let parsed = <MlxfwmanagerParser as pest::Parser<Rule>>::parse(
            Rule::version_row,
            "  Status:           Update required\n",
        );
        assert!(parsed.is_err());
    }

    #[test]
    fn a_wrapped_description_continues_on_the_next_line() {
        parses_to! {
            parser: MlxfwmanagerParser,
            input: "  Description:      ConnectX-5 VPI;  \ndual-port QSFP28; ROHS R6 \n  PSID:  MT_1\n",
            rule: Rule::description,
            tokens: [description(0, 65, [description_text(20, 35), description_text(38, 63)])]
        };
    }

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let fixture = include_str!(
            "../../../../tests/fixtures/mlxfwmanager/esxi7-cx5-d-wrapped-description-vmware-guide.txt"
        );
        let expected = super::parse(crate::test_support::output_of(fixture));
        assert!(expected.is_ok());
        for text in crate::test_support::variants(fixture) {
            assert_eq!(
                super::parse(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }
}
