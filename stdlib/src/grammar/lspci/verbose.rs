//! Reads `lspci -vv` / `-vvv` blocks line by line into [`LspciVerbose`]: each function's line
//! (read by the `lspci` grammar), then its indented details, of which it reads `Subsystem:`,
//! `NUMA node:`, the `Express` capability's `LnkCap:` and `LnkSta:`, the `Vital Product Data`
//! capability (pciutils `ls-vpd.c`: `Product Name:`, `Read-only fields:` / `Read/write
//! fields:`, one `[KW] name: value` a line, `End`), `Kernel driver in use:` and `Kernel
//! modules:`, every `Capabilities:` title, a bridge's `Bus: primary=.., secondary=..,
//! subordinate=..` (`lspci.c`, `show_htype1`) and the ACS capability's `ACSCtl:` flags
//! (`ls-ecaps.c`, `cap_acs`). The other indented lines (about sixty per
//! function) are capability details it does not read. `-x`'s config-space dump (`00: b3 15 ...`)
//! is skipped; any other unindented line is a message.
//!
//! What makes an output `lspci -vv`'s own: a function line at the start of a line (not
//! indented) followed by indented details; plain `lspci` lines without details, or lines
//! quoted indented inside another tool's output, are refused.

use super::verbose_types::{BridgeBuses, LspciVerbose, PciFunction, PcieLink, Vpd, VpdField};
use crate::ParseError;
use crate::grammar::transcript::{Line, lines};

const TOOL: &str = "lspci-vv";

/// Where in a function's block the walker is.
#[derive(Clone, Copy, PartialEq)]
enum Block {
    Details,
    /// Inside the VPD capability, whose title line was indented by `indent` bytes;
    /// `read_only` under `Read-only fields:`.
    Vpd {
        read_only: bool,
        indent: usize,
    },
}

/// Parses `lspci -vv` output.
pub(super) fn parse_verbose(text: &str) -> Result<LspciVerbose, ParseError> {
    let mut out = LspciVerbose {
        devices: Vec::new(),
        messages: Vec::new(),
    };
    let mut block = Block::Details;
    let mut details = false;
    for line in lines(text).filter(|l| !l.is_blank()) {
        let indented = line.raw.starts_with([' ', '\t']);
        match out.devices.last_mut() {
            Some(function) if indented => {
                block = detail(function, block, text, &line)?;
                details = true;
            }
            _ if !indented && is_function_line(line.text) => {
                out.devices.push(function(text, &line)?);
                block = Block::Details;
            }
            _ if is_config_dump(line.text) => {}
            _ => out.messages.push(line.message()),
        }
    }
    if !details {
        let at = text.len() - text.trim_start().len();
        return Err(ParseError::at(
            TOOL,
            text,
            at,
            0,
            "expected a PCI function line (`0b:00.0 Infiniband controller: ...`) with its indented details",
        ));
    }
    Ok(out)
}

/// `0b:00.0 ...` or `0000:0b:00.0 ...`.
fn is_function_line(text: &str) -> bool {
    let address = text.split_whitespace().next().unwrap_or_default();
    let short = address.rsplit(':').take(2).count() == 2
        && address
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
    short && address.contains('.')
}

/// `00: b3 15 03 10 06 04 10 00 00 00 07 02 08 00 00 00` (`lspci -x`).
fn is_config_dump(text: &str) -> bool {
    text.split_once(": ").is_some_and(|(offset, bytes)| {
        offset.bytes().all(|b| b.is_ascii_hexdigit())
            && bytes
                .split(' ')
                .all(|byte| byte.len() == 2 && byte.bytes().all(|b| b.is_ascii_hexdigit()))
    })
}

/// The function's line, read by the `lspci` grammar.
fn function(text: &str, line: &Line<'_>) -> Result<PciFunction, ParseError> {
    let device = super::parse::parse(line.text)
        .ok()
        .and_then(|parsed| parsed.devices.into_iter().next());
    let Some(device) = device else {
        return Err(ParseError::at(
            TOOL,
            text,
            line.offset,
            line.raw.len(),
            "expected `ADDRESS CLASS: DEVICE` on a function's line",
        ));
    };
    Ok(PciFunction {
        device,
        line: line.number,
        subsystem: None,
        numa_node: None,
        link_capability: None,
        link_status: None,
        vpd: None,
        driver: None,
        modules: Vec::new(),
        capabilities: Vec::new(),
        bridge_buses: None,
        acs_control: None,
    })
}

/// One indented line of a function's block; returns where the next one is.
fn detail(
    function: &mut PciFunction,
    block: Block,
    text: &str,
    line: &Line<'_>,
) -> Result<Block, ParseError> {
    let (label, value) = line
        .text
        .split_once(':')
        .map_or((line.text, ""), |(l, v)| (l, v.trim()));
    if let Some(title) = line.text.strip_prefix("Capabilities: ") {
        function.capabilities.push(title.to_owned());
        if title.ends_with("Vital Product Data") {
            function.vpd = Some(Vpd {
                product_name: None,
                part_number: None,
                serial_number: None,
                fields: Vec::new(),
                readable: true,
            });
            return Ok(Block::Vpd {
                read_only: true,
                indent: indent_of(line),
            });
        }
        return Ok(Block::Details);
    }
    if let (Block::Vpd { read_only, indent }, Some(vpd)) = (block, function.vpd.as_mut())
        && indent_of(line) > indent
    {
        return vpd_line(vpd, read_only, indent, text, line);
    }
    match label {
        "Subsystem" => function.subsystem = Some(value.to_owned()),
        "NUMA node" => function.numa_node = value.parse().ok(),
        "LnkCap" => function.link_capability = Some(link(value)),
        "LnkSta" => function.link_status = Some(link(value)),
        "Kernel driver in use" => function.driver = Some(value.to_owned()),
        "Bus" => function.bridge_buses = bridge_buses(value),
        "ACSCtl" => {
            let on = value.split_whitespace().filter_map(|f| f.strip_suffix('+'));
            function.acs_control = Some(on.map(str::to_owned).collect());
        }
        "Kernel modules" => {
            function.modules = value.split(',').map(|m| m.trim().to_owned()).collect();
        }
        _ => {}
    }
    Ok(Block::Details)
}

/// A line inside the VPD capability. A `[KW]` line that is not `[KW] name: value` is refused:
/// its value would be misread.
fn vpd_line(
    vpd: &mut Vpd,
    read_only: bool,
    indent: usize,
    text: &str,
    line: &Line<'_>,
) -> Result<Block, ParseError> {
    let here = line.text;
    if here == "End" {
        return Ok(Block::Details);
    }
    if here == "Not readable" {
        vpd.readable = false;
    } else if here == "Read-only fields:" || here == "Read/write fields:" {
        return Ok(Block::Vpd {
            read_only: here.starts_with("Read-only"),
            indent,
        });
    } else if let Some(name) = here.strip_prefix("Product Name:") {
        vpd.product_name = Some(name.trim().to_owned());
    } else if let Some(rest) = here.strip_prefix('[') {
        let field = rest.split_once("] ").and_then(|(keyword, rest)| {
            let (name, value) = rest.split_once(':')?;
            Some(VpdField {
                keyword: keyword.to_owned(),
                name: name.to_owned(),
                value: value.trim().to_owned(),
                read_only,
            })
        });
        let Some(field) = field else {
            return Err(ParseError::at(
                TOOL,
                text,
                line.offset,
                line.raw.len(),
                "expected a VPD field `[KW] name: value`",
            ));
        };
        match field.keyword.as_str() {
            "PN" => vpd.part_number = Some(field.value.clone()),
            "SN" => vpd.serial_number = Some(field.value.clone()),
            _ => {}
        }
        vpd.fields.push(field);
    }
    Ok(Block::Vpd { read_only, indent })
}

/// The bytes of blanks before the line's text (a tab counts as one: lspci indents with tabs or,
/// in copies, with spaces, never both at one depth of one block).
fn indent_of(line: &Line<'_>) -> usize {
    line.raw.len() - line.text.len()
}

/// `primary=16, secondary=17, subordinate=1c, sec-latency=0`.
fn bridge_buses(value: &str) -> Option<BridgeBuses> {
    let field = |name: &str| {
        value.split(',').map(str::trim).find_map(|part| {
            let number = part.strip_prefix(name)?.strip_prefix('=')?;
            u8::from_str_radix(number, 16).ok()
        })
    };
    Some(BridgeBuses {
        primary: field("primary")?,
        secondary: field("secondary")?,
        subordinate: field("subordinate")?,
    })
}

/// `Port #8, Speed 8GT/s, Width x8, ASPM L0s, ...` / `Speed 32GT/s (ok), Width x16 (ok)`.
fn link(value: &str) -> PcieLink {
    let mut link = PcieLink {
        port: None,
        speed: None,
        lanes: None,
        downgraded: false,
    };
    for part in value.split(',').map(str::trim) {
        link.downgraded |= part.contains("(downgraded)");
        let word = part.split_whitespace().nth(1);
        if let Some(port) = part.strip_prefix("Port #") {
            link.port = port.parse().ok();
        } else if part.starts_with("Speed ") {
            link.speed = word.map(str::to_owned);
        } else if part.starts_with("Width ") {
            link.lanes = word.and_then(|w| w.trim_start_matches('x').parse().ok());
        }
    }
    link
}

#[cfg(test)]
mod tests {
    use super::parse_verbose;

    #[test]
    fn a_function_block_with_a_downgraded_link_and_unreadable_vpd() {
        let text = "pcilib: sysfs_read_vpd: read failed: Input/output error\n\
0000:3b:00.0 Ethernet controller: Mellanox Technologies MT27800 Family [ConnectX-5]\n\
\tSubsystem: Mellanox Technologies Device 0008\n\
\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n\
\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM not supported\n\
\t\tLnkSta:\tSpeed 8GT/s (ok), Width x8 (downgraded)\n\
\tCapabilities: [48] Vital Product Data\n\t\tNot readable\n\
\tKernel driver in use: mlx5_core\n\tKernel modules: mlx5_core\n";
        let out = parse_verbose(text).unwrap_or_else(|e| panic!("{e}"));
        let function = &out.devices[0];
        assert_eq!(function.device.domain.as_deref(), Some("0000"));
        assert_eq!(
            function.link_capability.as_ref().and_then(|l| l.lanes),
            Some(16)
        );
        assert!(function.link_status.as_ref().is_some_and(|l| l.downgraded));
        assert_eq!(function.vpd.as_ref().map(|v| v.readable), Some(false));
        assert_eq!(function.driver.as_deref(), Some("mlx5_core"));
        assert_eq!((out.messages.len(), out.messages[0].line), (1, 1));
    }

    /// An H100 server's PCIe switch (gpud's published `lspci -vvv`): each bridge's buses and
    /// its ACS control flags, off here; one turned on reads as the flags that are on.
    #[test]
    fn a_bridges_buses_and_acs_control_are_read() {
        let fixture =
            include_str!("../../../../tests/fixtures/lspci-vv/h100-pex890xx-switch-acs-vvv.txt");
        let text = crate::test_support::output_of(fixture);
        let out = parse_verbose(text).unwrap_or_else(|e| panic!("{e}"));
        let port = out
            .devices
            .iter()
            .find(|d| d.device.address == "17:01.0")
            .unwrap_or_else(|| panic!("no 17:01.0"));
        let buses = port
            .bridge_buses
            .map(|b| (b.primary, b.secondary, b.subordinate));
        assert_eq!(buses, Some((0x17, 0x19, 0x19)));
        assert_eq!(port.acs_control.as_deref(), Some(&[][..]));
        let gpu = out.devices.iter().find(|d| d.device.address == "19:00.0");
        assert_eq!(
            gpu.map(|g| (g.bridge_buses, g.acs_control.clone())),
            Some((None, None))
        );
        let on = text.replacen(
            "ACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd-",
            "ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+",
            1,
        );
        let out = parse_verbose(&on).unwrap_or_else(|e| panic!("{e}"));
        let first = out.devices.iter().find_map(|d| d.acs_control.clone());
        assert_eq!(
            first.unwrap_or_default(),
            ["SrcValid", "ReqRedir", "CmpltRedir", "UpstreamFwd"]
        );
    }

    #[test]
    fn a_vpd_field_without_its_form_is_refused() {
        let text = "0b:00.0 Infiniband controller: Mellanox Technologies MT27800 Family [ConnectX-5]\n\
\tCapabilities: [48] Vital Product Data\n\t\tRead-only fields:\n\t\t\t[PN Part number MCX556A-ECAT\n\t\tEnd\n";
        assert!(parse_verbose(text).is_err());
        assert!(parse_verbose("MLNX_OFED_LINUX-5.4-3.0.3.0:\n").is_err());
    }
}
