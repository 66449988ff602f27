//! The walk from the `mst status` parse tree to [`MstStatus`].

use std::collections::BTreeMap;

use pest::Parser;
use pest::iterators::Pair;

use super::types::{MstDevice, MstModule, MstStatus, PciDevice};
use crate::ParseError;

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
                for row in section
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::pci_device)
                {
                    status.pci_devices.push(pci_device(text, row)?);
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

fn pci_device(text: &str, row: Pair<'_, Rule>) -> Result<PciDevice, ParseError> {
    let mut device = PciDevice {
        device_type: String::new(),
        mst: String::new(),
        pci: String::new(),
        rdma: None,
        net: None,
        numa: None,
    };
    for cell in row.into_inner() {
        let value = cell.as_str().to_owned();
        match cell.as_rule() {
            Rule::device_type => device.device_type = value,
            Rule::mst => device.mst = value,
            Rule::pci => device.pci = value,
            Rule::rdma => device.rdma = Some(value),
            Rule::net => device.net = Some(value),
            Rule::numa => device.numa = Some(crate::grammar::number(TOOL, text, &cell)?),
            _ => {}
        }
    }
    Ok(device)
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
                device_type(1, 17), mst(19, 33), pci(35, 42), net(45, 55)
            ])]
        };
    }

    #[test]
    fn numa_is_told_from_rdma_by_its_digits() {
        parses_to! {
            parser: MstParser,
            input: "NA  NA  37:00.4  mlx5_5  0\n",
            rule: Rule::pci_device,
            tokens: [pci_device(0, 27, [
                device_type(0, 2), mst(4, 6), pci(8, 15), rdma(17, 23), numa(25, 26)
            ])]
        };
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
        let expected =
            super::parse_status(fixture.split_once('\n').map_or(fixture, |(_, rest)| rest));
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
