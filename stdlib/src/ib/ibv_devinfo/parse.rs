//! Walks the `ibv_devinfo` parse tree into [`IbvDevinfo`].

use std::collections::BTreeMap;

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{IbvDevice, IbvDevinfo, IbvPort};
use crate::ParseError;
use crate::grammar::Misfit;

const TOOL: &str = "ibv-devinfo";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/ibv_devinfo/ibv_devinfo.pest"]
pub(super) struct IbvDevinfoParser;

/// Parses `ibv_devinfo` output.
pub(super) fn parse(text: &str) -> Result<IbvDevinfo, ParseError> {
    let pairs = IbvDevinfoParser::parse(Rule::ibv_devinfo, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut result = IbvDevinfo {
        devices: Vec::new(),
        error: None,
    };
    for pair in pairs {
        match pair.as_rule() {
            Rule::hca_block => result.devices.push(device(text, pair)?),
            Rule::error_line => {
                let messages: Vec<&str> = pair.into_inner().map(|p| p.as_str()).collect();
                result.error = Some(messages.join("\n"));
            }
            _ => {}
        }
    }
    Ok(result)
}

/// A `key: value` field, its value pair, and the span to blame.
struct Field<'a> {
    key: &'a str,
    value: Pair<'a, Rule>,
}

/// The fields of a block, and its lines that are entries of their own.
struct Fields<'a> {
    /// `key: value` lines, each with the lines under it (a `-v` flag list).
    fields: Vec<(Field<'a>, Vec<&'a str>)>,
    /// Lines without a colon at a field's depth (older MLNX_OFED `-v`): `log atomic arg sizes
    /// (mask)<TAB>0x8`, `ooo_rc_caps  = 0x0`, `Multi-Packet RQ supported`.
    lines: Vec<(String, String)>,
}

/// Collects the fields of a block. A line without a colon continues the previous field only
/// when it is indented deeper than that field's key (a flag list); otherwise it is its own
/// entry, never glued onto the previous value.
fn fields<'a>(pairs: impl Iterator<Item = Pair<'a, Rule>>) -> Fields<'a> {
    let mut out = Fields {
        fields: Vec::new(),
        lines: Vec::new(),
    };
    let mut field_indent = None;
    for pair in pairs {
        match pair.as_rule() {
            Rule::field => {
                let indent = indent_of(&pair);
                let mut inner = pair.into_inner();
                if let (Some(key), Some(value)) = (inner.next(), inner.next()) {
                    field_indent = Some(indent);
                    out.fields.push((
                        Field {
                            key: key.as_str(),
                            value,
                        },
                        Vec::new(),
                    ));
                }
            }
            Rule::continuation if !pair.as_str().is_empty() => {
                let deeper = field_indent.is_some_and(|field| indent_of(&pair) > field);
                match out.fields.last_mut() {
                    Some((_, more)) if deeper => more.push(pair.as_str()),
                    _ => out.lines.push(own_entry(pair.as_str())),
                }
            }
            _ => {}
        }
    }
    out
}

/// The column where `pair` starts on its line, tabs to the next multiple of 8.
fn indent_of(pair: &Pair<'_, Rule>) -> usize {
    let span = pair.as_span();
    let before = span.get_input().get(..span.start()).unwrap_or_default();
    let line = before.rfind('\n').map_or(before, |i| &before[i + 1..]);
    line.chars().fold(
        0,
        |col, c| if c == '\t' { col / 8 * 8 + 8 } else { col + 1 },
    )
}

/// A line without a colon as a key and a value: `key = value`, `key<TAB or 2+ blanks>value`,
/// or free text as a key with an empty value.
fn own_entry(line: &str) -> (String, String) {
    if let Some((key, value)) = line.split_once('=') {
        return (key.trim().to_owned(), value.trim().to_owned());
    }
    let gap = line
        .char_indices()
        .filter(|&(i, c)| c == '\t' || (c == ' ' && line[i + 1..].starts_with(' ')))
        .map(|(i, _)| i)
        .next_back();
    match gap {
        Some(at) => {
            let key = line[..at].trim_end_matches([' ', '\t']);
            (key.to_owned(), line[at..].trim().to_owned())
        }
        None => (line.to_owned(), String::new()),
    }
}

/// A decimal field, as `phys_port_cnt` or `sm_lid`.
fn decimal(text: &str, at: &Pair<'_, Rule>) -> Result<u32, ParseError> {
    crate::grammar::read_radix(TOOL, text, at, 10, Misfit::NotANumber)
}

/// A hexadecimal field, as `port_lmc` (`0x00`).
fn hex(text: &str, at: &Pair<'_, Rule>) -> Result<u32, ParseError> {
    crate::grammar::read_radix(TOOL, text, at, 16, Misfit::NotANumber)
}

fn joined(value: &str, more: &[&str]) -> String {
    let mut all: Vec<&str> = Vec::new();
    if !value.is_empty() {
        all.push(value);
    }
    all.extend(more.iter().copied());
    all.join(" ")
}

fn device(text: &str, block: Pair<'_, Rule>) -> Result<IbvDevice, ParseError> {
    let mut device = IbvDevice {
        hca_id: String::new(),
        transport: None,
        transport_code: None,
        fw_ver: None,
        node_guid: None,
        sys_image_guid: None,
        vendor_id: None,
        vendor_part_id: None,
        hw_ver: None,
        board_id: None,
        phys_port_cnt: None,
        extra: BTreeMap::new(),
        ports: Vec::new(),
    };
    let mut device_fields = Vec::new();
    for pair in block.into_inner() {
        match pair.as_rule() {
            Rule::hca_line => {
                device.hca_id = pair
                    .into_inner()
                    .next()
                    .map_or_else(String::new, |p| p.as_str().to_owned());
            }
            Rule::port_block => device.ports.push(port(text, pair)?),
            _ => device_fields.push(pair),
        }
    }
    let block_fields = fields(device_fields.into_iter());
    device.extra.extend(block_fields.lines);
    for (field, more) in block_fields.fields {
        let value = field.value.as_str();
        match field.key {
            "transport" => {
                let (name, code) = named_code(text, &field.value)?;
                device.transport = Some(name);
                device.transport_code = code;
            }
            "fw_ver" => device.fw_ver = Some(value.to_owned()),
            "node_guid" => device.node_guid = Some(value.to_owned()),
            "sys_image_guid" => device.sys_image_guid = Some(value.to_owned()),
            "vendor_id" => device.vendor_id = Some(value.to_owned()),
            "vendor_part_id" => device.vendor_part_id = Some(decimal(text, &field.value)?),
            "hw_ver" => device.hw_ver = Some(value.to_owned()),
            "board_id" => device.board_id = Some(value.to_owned()),
            "phys_port_cnt" => device.phys_port_cnt = Some(decimal(text, &field.value)?),
            key => {
                device.extra.insert(key.to_owned(), joined(value, &more));
            }
        }
    }
    Ok(device)
}

fn port(text: &str, block: Pair<'_, Rule>) -> Result<IbvPort, ParseError> {
    let mut port = IbvPort {
        port: 0,
        state: None,
        state_code: None,
        max_mtu_bytes: None,
        max_mtu_code: None,
        active_mtu_bytes: None,
        active_mtu_code: None,
        sm_lid: None,
        port_lid: None,
        port_lmc: None,
        link_layer: None,
        extra: BTreeMap::new(),
    };
    let mut port_fields = Vec::new();
    for pair in block.into_inner() {
        if pair.as_rule() == Rule::port_line {
            if let Some(number_pair) = pair.into_inner().next() {
                port.port = decimal(text, &number_pair)?;
            }
        } else {
            port_fields.push(pair);
        }
    }
    let block_fields = fields(port_fields.into_iter());
    port.extra.extend(block_fields.lines);
    for (field, more) in block_fields.fields {
        let value = field.value.as_str();
        match field.key {
            "state" => {
                let (name, code) = named_code(text, &field.value)?;
                (port.state, port.state_code) = (Some(name), code);
            }
            "max_mtu" => {
                let (bytes, code) = mtu(text, &field.value)?;
                (port.max_mtu_bytes, port.max_mtu_code) = (bytes, code);
            }
            "active_mtu" => {
                let (bytes, code) = mtu(text, &field.value)?;
                (port.active_mtu_bytes, port.active_mtu_code) = (bytes, code);
            }
            "sm_lid" => port.sm_lid = Some(decimal(text, &field.value)?),
            "port_lid" => port.port_lid = Some(decimal(text, &field.value)?),
            "port_lmc" => port.port_lmc = Some(hex(text, &field.value)?),
            "link_layer" => port.link_layer = Some(value.to_owned()),
            key => {
                port.extra.insert(key.to_owned(), joined(value, &more));
            }
        }
    }
    Ok(port)
}

/// `PORT_ACTIVE (4)` or `InfiniBand (0)`: the name and the number in parentheses.
fn named_code(text: &str, value: &Pair<'_, Rule>) -> Result<(String, Option<u32>), ParseError> {
    let raw = value.as_str();
    match raw.rsplit_once('(') {
        Some((name, code)) if code.ends_with(')') => {
            let digits = code.trim_end_matches(')').trim();
            let start = value.as_span().start() + name.len() + 1;
            let code = digits.parse().map_err(|_| {
                ParseError::at(
                    TOOL,
                    text,
                    start,
                    digits.len(),
                    format!("`{digits}` is not a number"),
                )
            })?;
            Ok((name.trim_end().to_owned(), Some(code)))
        }
        _ => Ok((raw.to_owned(), None)),
    }
}

/// `4096 (5)`: the MTU in bytes and its verbs enum.
fn mtu(text: &str, value: &Pair<'_, Rule>) -> Result<(Option<u32>, Option<u32>), ParseError> {
    let (bytes, code) = named_code(text, value)?;
    let parsed = bytes.parse().map_err(|_| {
        ParseError::at(
            TOOL,
            text,
            value.as_span().start(),
            bytes.len(),
            format!("MTU `{bytes}` is not a number"),
        )
    })?;
    Ok((Some(parsed), code))
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// Older MLNX_OFED `-v`: lines without a colon at the fields' depth are entries of their
    /// own (`key<TAB>value`, `key = value`, free text), never glued onto the previous value;
    /// deeper lines still continue the field above them.
    #[test]
    fn colonless_lines_at_field_depth_are_their_own_entries() {
        let real = include_str!(
            "../../../../tests/fixtures/ibv-devinfo/mofed4-cx4lx-v-exp-verbs-colonless-lines.txt"
        );
        let output = real.split_once('\n').map_or("", |(_, rest)| rest);
        let tabbed = output.replace("(mask)             0x8", "(mask)\t\t0x8");
        assert_ne!(tabbed, output);
        for text in [output, tabbed.as_str()] {
            let parsed = parse(text).unwrap_or_else(|e| panic!("{e}"));
            let extra = &parsed.devices[0].extra;
            let get = |key: &str| extra.get(key).map(String::as_str);
            assert_eq!(get("atomic_cap"), Some("ATOMIC_HCA (1)"));
            assert_eq!(get("log atomic arg sizes (mask)"), Some("0x8"));
            assert_eq!(get("ooo_rc_caps"), Some("0x0"));
            assert_eq!(get("max_device_ctx"), Some("1020"));
            assert_eq!(get("Multi-Packet RQ supported"), Some(""));
            assert!(get("device_cap_flags").is_some_and(|f| f.contains("BAD_PKEY_CNTR")));
            assert_eq!(parsed.devices[0].ports[0].port_lid, Some(0));
        }
    }

    #[test]
    fn verbose_lines_become_extra_fields() {
        let out = "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tdevice_cap_flags:\t\t0x00001000\n\t\t\t\t\tRESIZE_MAX_WR\n\t\t\t\t\tBAD_PKEY_CNTR\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:b859:9f03:0022:626e\n";
        let info = parse(out).unwrap_or_else(|e| panic!("{e}"));
        let device = &info.devices[0];
        assert_eq!(
            device.extra.get("device_cap_flags").map(String::as_str),
            Some("0x00001000 RESIZE_MAX_WR BAD_PKEY_CNTR")
        );
        assert_eq!(device.ports[0].state_code, Some(4));
        assert!(device.ports[0].extra.contains_key("GID[  0]"));
    }

    #[test]
    fn no_devices_message() {
        let info = parse("No IB devices found\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(info.devices.is_empty());
        assert_eq!(info.error.as_deref(), Some("No IB devices found"));
    }

    #[test]
    fn other_output_is_refused() {
        assert!(parse("CA 'mlx5_0'\n\tCA type: MT4119\n").is_err());
    }
}
