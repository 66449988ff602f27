//! The walk from the `mst status` parse tree to [`MstStatus`].

use std::collections::BTreeMap;

use pest::Parser;
use pest::iterators::Pair;

use super::types::{MstDevice, MstModule, MstStatus, PciDevice};
use crate::ParseError;
use crate::grammar::column_cursor::ColumnCursor;

const TOOL: &str = "mst-status";

/// The pest parser of `mst.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "src/mst/mst.pest"]
struct MstParser;

/// Parses `mst status [-v|-vv]` output.
pub(super) fn parse_status(text: &str) -> Result<MstStatus, ParseError> {
    let sections = MstParser::parse(Rule::mst_status, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut status = MstStatus {
        mst_modules: Vec::new(),
        mst_devices: Vec::new(),
        pci_devices: Vec::new(),
    };
    let mut columns = ColumnCursor::new(text);
    for section in sections {
        match section.as_rule() {
            Rule::mst_modules => {
                status.mst_modules.extend(section.into_inner().map(module));
            }
            Rule::mst_devices => {
                for device in section.into_inner() {
                    status.mst_devices.push(mst_device(text, device)?);
                }
            }
            Rule::pci_devices => {
                let mut titles = Vec::new();
                for part in section.into_inner() {
                    match part.as_rule() {
                        Rule::column_titles => titles = column_titles(part, &mut columns),
                        Rule::pci_device => {
                            status
                                .pci_devices
                                .push(pci_device(text, part, &titles, &mut columns)?)
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(status)
}

fn module(line: Pair<'_, Rule>) -> MstModule {
    let mut name = String::new();
    let mut loaded = false;
    for part in line.into_inner() {
        match part.as_rule() {
            Rule::module_name => name = part.as_str().to_owned(),
            Rule::module_state => {
                loaded = part
                    .into_inner()
                    .next()
                    .is_some_and(|s| s.as_rule() == Rule::loaded);
            }
            _ => {}
        }
    }
    MstModule { name, loaded }
}

fn mst_device(text: &str, entry: Pair<'_, Rule>) -> Result<MstDevice, ParseError> {
    let mut device = MstDevice {
        mst: String::new(),
        access: None,
        domain_bus_dev_fn: None,
        addr_reg: None,
        data_reg: None,
        cr_bar_gw_offset: None,
        bar: None,
        size: None,
        other: BTreeMap::new(),
        chip_revision: None,
    };
    for part in entry.into_inner() {
        match part.as_rule() {
            Rule::device_path => device.mst = part.as_str().to_owned(),
            Rule::access => device.access = Some(part.as_str().to_owned()),
            Rule::chip_revision => device.chip_revision = Some(part.as_str().to_owned()),
            Rule::attribute => attribute(text, part, &mut device)?,
            _ => {}
        }
    }
    Ok(device)
}

fn attribute(text: &str, pair: Pair<'_, Rule>, device: &mut MstDevice) -> Result<(), ParseError> {
    let mut inner = pair.into_inner();
    let (Some(key), Some(value)) = (inner.next(), inner.next()) else {
        return Ok(());
    };
    let raw = value.as_str().to_owned();
    match key.as_str() {
        "domain:bus:dev.fn" => device.domain_bus_dev_fn = Some(raw),
        "addr.reg" => device.addr_reg = Some(crate::grammar::number(TOOL, text, &value)?),
        "data.reg" => device.data_reg = Some(crate::grammar::number(TOOL, text, &value)?),
        "cr_bar.gw_offset" => {
            device.cr_bar_gw_offset = Some(crate::grammar::number(TOOL, text, &value)?)
        }
        "bar" => device.bar = Some(raw),
        "size" => device.size = Some(raw),
        other => {
            device.other.insert(other.to_owned(), raw);
        }
    }
    Ok(())
}

/// A column title after `PCI` and the column where it starts.
struct Title<'i> {
    name: &'i str,
    column: usize,
}

/// The titles after `DEVICE_TYPE MST PCI`, with their columns.
fn column_titles<'i>(line: Pair<'i, Rule>, columns: &mut ColumnCursor<'_>) -> Vec<Title<'i>> {
    line.into_inner()
        .skip(2)
        .map(|title| Title {
            name: title.as_str(),
            column: columns.column(title.as_span().start()),
        })
        .collect()
}

/// One row of the table. The first three cells are `DEVICE_TYPE MST PCI`; each cell after
/// them belongs to the last title starting at or before it (cells are printed left-aligned
/// under their titles, and an empty cell is blanks). Under `RDMA`, `NET` and `NUMA` a cell is
/// also told by its form, since ESXi prints the NET cell under RDMA when RDMA is empty:
/// `net-…` is NET, a number is NUMA, anything else RDMA. A cell under any other title is kept
/// in `other` by that title.
fn pci_device(
    text: &str,
    row: Pair<'_, Rule>,
    titles: &[Title<'_>],
    columns: &mut ColumnCursor<'_>,
) -> Result<PciDevice, ParseError> {
    let mut device = PciDevice {
        device_type: String::new(),
        mst: String::new(),
        pci: String::new(),
        rdma: None,
        net: None,
        numa: None,
        other: BTreeMap::new(),
    };
    for cell in row.into_inner() {
        let value = cell.as_str().to_owned();
        match cell.as_rule() {
            Rule::device_type => device.device_type = value,
            Rule::mst => device.mst = value,
            Rule::pci => device.pci = value,
            Rule::cell => {
                let column = columns.column(cell.as_span().start());
                let title = titles
                    .iter()
                    .rev()
                    .find(|t| t.column <= column)
                    .or(titles.first())
                    .map(|t| t.name);
                match title {
                    Some(name)
                        if !matches!(name, "RDMA" | "NET" | "NUMA")
                            && !value.starts_with("net-") =>
                    {
                        let kept = device.other.entry(name.to_owned()).or_default();
                        if !kept.is_empty() {
                            kept.push(' ');
                        }
                        kept.push_str(&value);
                    }
                    _ if value.starts_with("net-") => device.net = Some(value),
                    _ if is_number(&value) => {
                        device.numa = Some(crate::grammar::number(TOOL, text, &cell)?)
                    }
                    _ => device.rdma = Some(value),
                }
            }
            _ => {}
        }
    }
    Ok(device)
}

/// `0`, `-1`: a NUMA node.
fn is_number(cell: &str) -> bool {
    let digits = cell.strip_prefix('-').unwrap_or(cell);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use pest::{consumes_to, fails_with, parses_to};

    use super::{MstParser, Rule};

    #[test]
    fn esxi_row_with_net_right_after_pci() {
        parses_to! {
            parser: MstParser,
            input: " ConnectX3(rev:1)  mt4099_pci_cr0  01:00.0   net-vmnic0\n",
            rule: Rule::pci_device,
            tokens: [pci_device(0, 56, [
                device_type(1, 17), mst(19, 33), pci(35, 42), cell(45, 55)
            ])]
        };
    }

    #[test]
    fn numa_is_told_from_rdma_by_its_digits() {
        let text = "PCI devices:\n------------\nDEVICE_TYPE  MST  PCI      RDMA    NET  NUMA\nNA  NA  37:00.4  mlx5_5  0\n";
        let status = super::parse_status(text).unwrap_or_else(|e| panic!("{e}"));
        let row = &status.pci_devices[0];
        assert_eq!((row.rdma.as_deref(), row.numa), (Some("mlx5_5"), Some(0)));
    }

    /// MFT 4.34's `VFIO` column (the published DGX Spark table), with a cell under it: the
    /// cell is kept by its title, and NUMA still reads `-1`. The same table from a version
    /// with one more column of its own reads the same known cells.
    #[test]
    fn a_column_the_parser_does_not_know_is_kept_by_its_title() {
        let fixture = include_str!(
            "../../../tests/fixtures/mst-status/dgx-spark-mft434-vfio-column-aerial.txt"
        );
        let fixture = crate::test_support::output_of(fixture);
        let row = "ConnectX7(rev:0)                    /dev/mst/mt4129_pciconf0      0000:01:00.0    rocep1s0f0      net-aerial00                            -1";
        assert!(fixture.contains(row));
        let with_vfio = fixture.replace(row, &format!("{row}    vfio-pci"));
        let last_row = |text: &str| {
            let status = super::parse_status(text).unwrap_or_else(|e| panic!("{e}"));
            status
                .pci_devices
                .last()
                .cloned()
                .unwrap_or_else(|| panic!("no rows"))
        };
        let last = last_row(&with_vfio);
        assert_eq!(last.other.get("VFIO").map(String::as_str), Some("vfio-pci"));
        assert_eq!(
            (last.rdma.as_deref(), last.net.as_deref(), last.numa),
            (Some("rocep1s0f0"), Some("net-aerial00"), Some(-1))
        );
        let wider = with_vfio
            .replace("NUMA  VFIO", "NUMA  VFIO        STATE")
            .replace("-1    vfio-pci", "-1    vfio-pci    bound");
        let last = last_row(&wider);
        assert_eq!(last.other.get("STATE").map(String::as_str), Some("bound"));
        assert_eq!(last.other.get("VFIO").map(String::as_str), Some("vfio-pci"));
        assert_eq!(last.numa, Some(-1));
    }

    #[test]
    fn a_row_needs_a_pci_address_in_the_third_column() {
        fails_with! {
            parser: MstParser,
            input: "ConnectX5(rev:0) mt4119_pciconf0 nonsense",
            rule: Rule::pci_device,
            positives: vec![Rule::pci],
            negatives: vec![],
            pos: 33
        };
    }

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let fixture = include_str!(
            "../../../tests/fixtures/mst-status/esxi7-cx4lx-cx5-status-vv-vmware-guide.txt"
        );
        let expected = super::parse_status(crate::test_support::output_of(fixture));
        assert!(expected.is_ok());
        for text in crate::test_support::variants(fixture) {
            assert_eq!(
                super::parse_status(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }
}
