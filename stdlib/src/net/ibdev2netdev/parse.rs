//! Walks the `ibdev2netdev` parse tree into [`Ibdev2Netdev`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{DeviceMapping, Ibdev2Netdev};
use crate::ParseError;

const TOOL: &str = "ibdev2netdev";

#[derive(pest_derive::Parser)]
#[grammar = "src/net/ibdev2netdev/ibdev2netdev.pest"]
struct Ibdev2NetdevParser;

/// Parses `ibdev2netdev` or `ibdev2netdev -v` output.
pub(super) fn parse(text: &str) -> Result<Ibdev2Netdev, ParseError> {
    let pairs = Ibdev2NetdevParser::parse(Rule::ibdev2netdev, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut mappings = Vec::new();
    for line in pairs
        .flatten()
        .filter(|p| p.as_rule() == Rule::mapping_line)
    {
        mappings.push(mapping(text, line)?);
    }
    Ok(Ibdev2Netdev { mappings })
}

fn mapping(text: &str, line: Pair<'_, Rule>) -> Result<DeviceMapping, ParseError> {
    let mut mapping = DeviceMapping {
        pci_address: None,
        rdma_device: String::new(),
        port: 0,
        netdev: String::new(),
        link_state: None,
        device_id: None,
        part_number: None,
        description: None,
        firmware: None,
        port_state: None,
    };
    for pair in line.into_inner().flat_map(Pair::into_inner) {
        let value = pair.as_str().to_owned();
        match pair.as_rule() {
            Rule::pci_address => mapping.pci_address = Some(value),
            Rule::rdma_device => mapping.rdma_device = value,
            Rule::port => {
                mapping.port = value.parse().map_err(|_| {
                    let span = pair.as_span();
                    ParseError::at(
                        TOOL,
                        text,
                        span.start(),
                        value.len(),
                        format!("port `{value}` is out of range"),
                    )
                })?;
            }
            Rule::netdev => mapping.netdev = value,
            Rule::link_state => {
                mapping.link_state = pair.into_inner().next().map(|p| p.as_str().to_owned())
            }
            Rule::device_id => mapping.device_id = Some(value),
            Rule::part_number => {
                mapping.part_number = if value == "NA" { None } else { Some(value) }
            }
            Rule::description => mapping.description = Some(value),
            Rule::firmware => mapping.firmware = Some(value),
            Rule::port_state => mapping.port_state = Some(value),
            _ => {}
        }
    }
    Ok(mapping)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn verbose_description_with_commas_and_parentheses() {
        let out = "0000:01:00.0 mlx5_0 (MT4123 - MCX653105A-HDAT) ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56 fw 20.28.1002 port 1 (ACTIVE) ==> p5p1 (Up)\n";
        let map = parse(out).unwrap_or_else(|e| panic!("{e}"));
        let m = &map.mappings[0];
        assert_eq!(
            m.description.as_deref(),
            Some("ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56")
        );
        assert_eq!(m.firmware.as_deref(), Some("20.28.1002"));
        assert_eq!(m.netdev, "p5p1");
    }

    #[test]
    fn verbose_without_pci_address_and_padded_description() {
        let out = "mlx4_0 (mt26428 - MT1037X01146) KESTREL        QDR             fw 2.9.1000 port 1 (ACTIVE) ==> ib0 (Up)\n";
        let map = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(map.mappings[0].pci_address, None);
        assert_eq!(
            map.mappings[0].description.as_deref(),
            Some("KESTREL        QDR")
        );
    }

    #[test]
    fn old_style_and_empty_output() {
        let map = parse("mlx4_0 port 1 <===> ib0\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(map.mappings[0].link_state, None);
        assert!(parse("").is_err());
        assert!(parse("hca_id:\tmlx5_0\n").is_err());
    }
}
