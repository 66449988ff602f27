//! Walks the `rdma link` parse tree (`rdma_link.pest`) into [`RdmaLink`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{RdmaLink, RdmaPort};
use crate::ParseError;
use crate::grammar::{ToolError, named_number};

const TOOL: &str = "rdma-link";
/// What an output that is not `rdma link`'s is told.
const EXPECTED: &str = "expected `rdma link` output: one `link DEV/PORT ...` line per port, or \
                        the tool's error";

#[derive(pest_derive::Parser)]
#[grammar = "src/net/rdma/rdma_link.pest"]
struct RdmaLinkParser;

/// Parses `rdma link [show]` output.
pub(super) fn parse(text: &str) -> Result<RdmaLink, ParseError> {
    let root = RdmaLinkParser::parse(Rule::rdma_link, text).map_err(|error| {
        let error = ParseError::from_pest(TOOL, text, &error);
        // Refused at its start (pest names only the whole output): say what the tool prints.
        if error.message == "expected rdma link" {
            ParseError::at(TOOL, text, error.span.offset(), error.span.len(), EXPECTED)
        } else {
            error
        }
    })?;
    let mut result = RdmaLink {
        links: Vec::new(),
        error: None,
    };
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::link_line => result.links.push(link_line(text, pair)?),
            Rule::caps_line => {
                let flags = pair.into_inner().next().map(caps);
                // The grammar puts a port line before any capabilities line.
                if let Some(port) = result.links.last_mut() {
                    port.caps = flags;
                }
            }
            Rule::error if result.error.is_none() => {
                let kind = match pair.as_str() {
                    s if s.starts_with("Wrong device") => "device",
                    s if s.starts_with("Unknown") => "usage",
                    s if s.starts_with("This tool doesn't support switches") => "switch",
                    _ => "netlink",
                };
                result.error = Some(ToolError::at_span(kind, text, pair.as_span()));
            }
            _ => {}
        }
    }
    Ok(result)
}

fn link_line(text: &str, line: Pair<'_, Rule>) -> Result<RdmaPort, ParseError> {
    let mut port = RdmaPort {
        ifindex: None,
        device: String::new(),
        port: 0,
        subnet_prefix: None,
        lid: None,
        sm_lid: None,
        lmc: None,
        state: None,
        physical_state: None,
        netdev: None,
        netdev_index: None,
        caps: None,
    };
    for field in line.into_inner() {
        let value = field.as_str().to_owned();
        match field.as_rule() {
            Rule::ifindex => {
                port.ifindex = Some(named_number(TOOL, text, &field, "device index")?);
            }
            Rule::device => port.device = value,
            Rule::port => port.port = named_number(TOOL, text, &field, "port number")?,
            Rule::subnet_prefix => port.subnet_prefix = Some(value),
            Rule::lid => port.lid = Some(named_number(TOOL, text, &field, "lid")?),
            Rule::sm_lid => port.sm_lid = Some(named_number(TOOL, text, &field, "sm_lid")?),
            Rule::lmc => port.lmc = Some(named_number(TOOL, text, &field, "lmc")?),
            Rule::state => port.state = Some(value),
            Rule::physical_state => port.physical_state = Some(value),
            Rule::netdev => port.netdev = Some(value),
            Rule::netdev_index => {
                port.netdev_index = Some(named_number(TOOL, text, &field, "netdev_index")?);
            }
            // `rdma -o -d`: the capabilities after a `\` on the port's own line.
            Rule::caps => port.caps = Some(caps(field)),
            _ => {}
        }
    }
    Ok(port)
}

/// The flags of a `caps: <...>`, in printed order.
fn caps(caps: Pair<'_, Rule>) -> Vec<String> {
    caps.into_inner()
        .map(|cap| cap.as_str().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse;

    const CX6DX: &str =
        include_str!("../../../../tests/fixtures/rdma-link/3fs-pr-283-cx6dx-roce-two-ports.txt");

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let expected = parse(crate::test_support::output_of(CX6DX));
        assert!(expected.is_ok());
        for text in crate::test_support::variants(CX6DX) {
            assert_eq!(
                parse(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }

    /// iproute2 4.14 to 5.4 printed `%u/%u: %s/%u: ` (the device's index, the port, then the
    /// name and the port: `rdma/link.c`, `link_parse_cb`, before commit b0a688a5), each
    /// attribute followed by a blank.
    #[test]
    fn the_old_head_carries_the_device_index() {
        let out = "1/1: mlx5_0/1: subnet_prefix fe80:0000:0000:0000 lid 3 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP \n\
                   2/1: mlx5_1/1: state DOWN physical_state DISABLED netdev ens1f1 \n";
        let links = parse(out).unwrap_or_else(|e| panic!("{e}")).links;
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].ifindex, Some(1));
        assert_eq!(links[0].device, "mlx5_0");
        assert_eq!(links[0].lid, Some(3));
        assert_eq!(links[1].ifindex, Some(2));
        assert_eq!(links[1].netdev.as_deref(), Some("ens1f1"));
        assert_eq!(links[1].state.as_deref(), Some("DOWN"));
    }

    /// `rdma -d link` adds `netdev_index N` and the capabilities on the next line; `rdma -d -o
    /// link` puts them after a `\` on the port's line (`_SL_`, `link_print_caps`).
    #[test]
    fn details_add_the_netdev_index_and_the_capabilities() {
        let two_lines = "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0 netdev_index 4 \n    caps: <CM, OTHER_LOCAL_CHANGES>\n";
        let one_line = "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0 netdev_index 4 \\    caps: <CM, OTHER_LOCAL_CHANGES>\n";
        for out in [two_lines, one_line] {
            let links = parse(out).unwrap_or_else(|e| panic!("{e}")).links;
            assert_eq!(links.len(), 1, "{out:?}");
            assert_eq!(links[0].netdev_index, Some(4));
            assert_eq!(
                links[0].caps.as_deref(),
                Some(&["CM".to_owned(), "OTHER_LOCAL_CHANGES".to_owned()][..])
            );
        }
    }

    /// `rd_exec_link` says `Wrong device name` for a device or port that does not exist
    /// (`rdma link show mlx5_9/1`): data, not a refusal.
    #[test]
    fn the_tools_errors_are_data() {
        let result = parse("Wrong device name\n").unwrap_or_else(|e| panic!("{e}"));
        let error = result.error.unwrap_or_else(|| panic!("no error"));
        assert_eq!((error.kind.as_str(), error.line), ("device", 1));
        assert!(result.links.is_empty());
    }

    #[test]
    fn other_text_is_refused() {
        for text in [
            "",
            "hello world\n",
            // ibdev2netdev, an attribute rdma does not print, attributes out of order,
            // capabilities without their port.
            "mlx5_0 port 1 ==> ens1f0 (Up)\n",
            "link mlx5_0/1 state ACTIVE physical_state LINK_UP speed 100G\n",
            "link mlx5_0/1 physical_state LINK_UP state ACTIVE\n",
            "    caps: <CM>\n",
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }
}
