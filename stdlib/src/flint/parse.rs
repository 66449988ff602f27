//! The walk from the `flint query` parse tree to [`FlintQuery`].

use std::collections::BTreeMap;
use std::str::FromStr;

use pest::Parser;
use pest::iterators::Pair;

use super::types::{FlintQuery, PortIds, RomInfo, Uid};
use crate::ParseError;
use crate::grammar::column_cursor::ColumnCursor;

const TOOL: &str = "flint-query";

/// The pest parser of `flint.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "src/flint/flint.pest"]
struct FlintParser;

/// Parses `flint -d DEV query [full]` output.
pub(super) fn parse_query(text: &str) -> Result<FlintQuery, ParseError> {
    let pairs = FlintParser::parse(Rule::flint_query, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut whole = FlintQuery::default();
    for pair in pairs {
        match pair.as_rule() {
            Rule::query_fields => {
                let mut query = FlintQuery::default();
                for part in pair.into_inner() {
                    walk(text, part, &mut query)?;
                }
                whole.devices.push(query);
            }
            _ => walk(text, pair, &mut whole)?,
        }
    }
    let mut devices = std::mem::take(&mut whole.devices);
    if let Some(first) = devices.first() {
        let (errors, notices) = (whole.errors, whole.notices);
        whole = first.clone();
        whole.errors = errors;
        whole.notices = notices;
        for device in &devices {
            whole.errors.extend(device.errors.iter().cloned());
            whole.notices.extend(device.notices.iter().cloned());
        }
    }
    whole.devices = std::mem::take(&mut devices);
    Ok(whole)
}

/// Fills `query` from one line or block of its device's query.
fn walk(text: &str, pair: Pair<'_, Rule>, query: &mut FlintQuery) -> Result<(), ParseError> {
    match pair.as_rule() {
        Rule::image_type => {
            query.image_type = pair.into_inner().next().map(|v| v.as_str().to_owned())
        }
        Rule::field => field(text, pair, query)?,
        Rule::rom_info => {
            for entry in pair.into_inner() {
                query.rom_info.push(rom_entry(entry));
            }
        }
        Rule::uid_table => {
            for row in pair.into_inner() {
                uid_row(text, row, query)?;
            }
        }
        Rule::port_table => port_table(text, pair, query)?,
        Rule::message => {
            let kind = pair
                .as_str()
                .trim_start()
                .get(..3)
                .unwrap_or_default()
                .to_owned();
            let line = pair
                .into_inner()
                .next()
                .map(|t| t.as_str().to_owned())
                .unwrap_or_default();
            if kind == "-E-" {
                query.errors.push(line);
            } else {
                query.notices.push(format!("{kind} {line}"));
            }
        }
        _ => {}
    }
    Ok(())
}

fn field(text: &str, pair: Pair<'_, Rule>, query: &mut FlintQuery) -> Result<(), ParseError> {
    let mut inner = pair.into_inner();
    let Some(label) = inner.next() else {
        return Ok(());
    };
    let value_pair = inner.next();
    let value = value_pair.as_ref().map(|v| v.as_str().to_owned());
    match label.as_str().trim_end() {
        "FW Version" => query.fw_version = value,
        "FW Version(Running)" => query.fw_version_running = value,
        "FW Release Date" => query.fw_release_date = value,
        "MIC Version" => query.mic_version = value,
        "Config Sectors" => query.config_sectors = number(text, value_pair.as_ref())?,
        "Product Version" => query.product_version = value,
        "Part Number" => query.part_number = value,
        "Description" => query.description = value,
        "Device ID" => query.device_id = number(text, value_pair.as_ref())?,
        "VSD" => query.vsd = value,
        "Image VSD" => query.image_vsd = value,
        "Device VSD" => query.device_vsd = value,
        "PSID" => query.psid = value,
        "Security Attributes" => query.security_attributes = value,
        "Default Update Method" => query.default_update_method = value,
        "Life cycle" => query.life_cycle = value,
        "Secure Boot Capable" => query.secure_boot_capable = value,
        "EFUSE Security Ver" => query.efuse_security_ver = number(text, value_pair.as_ref())?,
        "Image Security Ver" => query.image_security_ver = number(text, value_pair.as_ref())?,
        "Security Ver Program" => query.security_ver_program = value,
        other => {
            query
                .other
                .insert(other.to_owned(), value.unwrap_or_default());
        }
    }
    Ok(())
}

fn rom_entry(entry: Pair<'_, Rule>) -> RomInfo {
    let mut rom = RomInfo {
        r#type: String::new(),
        version: None,
        cpu: None,
        other: BTreeMap::new(),
    };
    for attribute in entry.into_inner() {
        let mut inner = attribute.into_inner();
        let key = inner.next().map(|k| k.as_str()).unwrap_or_default();
        let value = inner
            .next()
            .map(|v| v.as_str().to_owned())
            .unwrap_or_default();
        match key {
            "type" => rom.r#type = value,
            "version" => rom.version = Some(value),
            "cpu" => rom.cpu = Some(value),
            other => {
                rom.other.insert(other.to_owned(), value);
            }
        }
    }
    rom
}

fn uid_row(text: &str, row: Pair<'_, Rule>, query: &mut FlintQuery) -> Result<(), ParseError> {
    let mut label = "";
    let mut uid = Uid {
        uid: String::new(),
        guids_number: None,
    };
    for part in row.into_inner() {
        match part.as_rule() {
            Rule::uid_label => label = part.as_str(),
            Rule::uid => uid.uid = part.as_str().to_owned(),
            Rule::guids_number => uid.guids_number = number(text, Some(&part))?,
            _ => {}
        }
    }
    match label {
        "Base GUID" => query.base_guid = Some(uid),
        "Base MAC" => query.base_mac = Some(uid),
        other => {
            query.other_uids.insert(other.to_owned(), uid);
        }
    }
    Ok(())
}

/// The FS2 table: each cell goes to the column whose title it sits under.
fn port_table(text: &str, table: Pair<'_, Rule>, query: &mut FlintQuery) -> Result<(), ParseError> {
    let mut cursor = ColumnCursor::new(text);
    let mut columns: Vec<(usize, Pair<'_, Rule>)> = Vec::new();
    for part in table.into_inner() {
        match part.as_rule() {
            Rule::port_column => columns.push((cursor.column(part.as_span().start()), part)),
            Rule::port_row => {
                let mut ids = PortIds::default();
                let mut label = "";
                for cell in part.into_inner() {
                    match cell.as_rule() {
                        Rule::port_row_label => label = cell.as_str(),
                        Rule::port_value => {
                            let at = cursor.column(cell.as_span().start());
                            let title = columns.iter().rev().find(|(start, _)| *start <= at);
                            let slot = match title.map(|(_, t)| t.as_str()) {
                                Some("Node") => &mut ids.node,
                                Some("Port1") => &mut ids.port1,
                                Some("Port2") => &mut ids.port2,
                                Some("Sys image") => &mut ids.sys_image,
                                _ => {
                                    let span = cell.as_span();
                                    return Err(ParseError::at(
                                        TOOL,
                                        text,
                                        span.start(),
                                        span.as_str().len(),
                                        "this value is under no known column (Node, Port1, Port2, Sys image)",
                                    ));
                                }
                            };
                            *slot = Some(cell.as_str().to_owned());
                        }
                        _ => {}
                    }
                }
                if label == "GUIDs" {
                    query.guids = Some(ids);
                } else {
                    query.macs = Some(ids);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The number in `pair`, or an error that points at it.
fn number<T: FromStr>(text: &str, pair: Option<&Pair<'_, Rule>>) -> Result<Option<T>, ParseError> {
    pair.map(|pair| crate::grammar::read(TOOL, text, pair, crate::grammar::Misfit::NotANumber))
        .transpose()
}

#[cfg(test)]
mod tests {
    use pest::{consumes_to, parses_to};

    /// An admin's loop over devices: three published queries printed one after the other yield
    /// three devices, with the first one's fields at the top.
    #[test]
    #[cfg_attr(not(shared_corpus), ignore = "skipped: ../shared/fixtures absent")]
    fn a_loop_over_devices_yields_every_query() {
        let corpus = |name: &str| crate::test_support::shared_fixture("flint", name);
        let bf2 = corpus("bf2-dpu-fs4-query-secure");
        let cx7 = corpus("cx7-fs4-query-secure-fw");
        let body = |t: &str| crate::test_support::output_of(t).to_owned();
        let looped = format!("{}\n{}\n{}", body(&bf2), body(&cx7), body(&bf2));
        let query = super::parse_query(&looped).unwrap_or_else(|e| panic!("{e}"));
        let alone = super::parse_query(&body(&bf2)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(query.devices.len(), 3);
        assert_eq!(query.fw_version, alone.fw_version);
        assert_eq!(
            query.devices[1].psid,
            super::parse_query(&body(&cx7)).ok().and_then(|q| q.psid)
        );
        assert!(query.devices.iter().all(|d| d.devices.is_empty()));
    }

    use super::{FlintParser, Rule};

    #[test]
    fn a_rom_type_may_have_spaces() {
        parses_to! {
            parser: FlintParser,
            input: "type=UEFI Virtio net version=21.4.10 cpu=AMD64,AARCH64",
            rule: Rule::rom_entry,
            tokens: [rom_entry(0, 54, [
                rom_attribute(0, 20, [rom_key(0, 4), rom_value(5, 20)]),
                rom_attribute(21, 36, [rom_key(21, 28), rom_value(29, 36)]),
                rom_attribute(37, 54, [rom_key(37, 40), rom_value(41, 54)])
            ])]
        };
    }

    #[test]
    fn sys_image_is_one_column_title() {
        parses_to! {
            parser: FlintParser,
            input: "Sys image",
            rule: Rule::port_column,
            tokens: [port_column(0, 9)]
        };
    }

    /// Not a captured output: the FS2 layout with the MACs right-aligned under Port1 and Port2.
    const FS2: &str = "Image type:            FS2\n\
                       Description:           Node             Port1            Port2            Sys image\n\
                       GUIDs:                 0000000000000001 0000000000000002 0000000000000003 0000000000000004\n\
                       MACs:                                       000000000002     000000000003\n\
                       PSID:                  MT_0000000000\n";

    #[test]
    fn fs2_cells_go_to_the_column_they_sit_under() {
        let query = super::parse_query(FS2).ok();
        let macs = query
            .as_ref()
            .and_then(|q| q.macs.clone())
            .unwrap_or_default();
        assert_eq!(
            (macs.node, macs.port1.as_deref(), macs.port2.as_deref()),
            (None, Some("000000000002"), Some("000000000003"))
        );
        let guids = query.and_then(|q| q.guids).unwrap_or_default();
        assert_eq!(guids.sys_image.as_deref(), Some("0000000000000004"));
    }

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let expected = super::parse_query(FS2).ok();
        assert!(expected.is_some());
        let variants = [
            FS2.replace('\n', "\r\n"),
            FS2.trim_end().to_owned(),
            FS2.lines()
                .map(|line| format!(" {line}\n"))
                .collect::<String>(),
        ];
        for text in variants {
            assert_eq!(super::parse_query(&text).ok(), expected, "{text:?}");
        }
    }
}
