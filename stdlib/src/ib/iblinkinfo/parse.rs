//! Walks the `iblinkinfo` parse tree into [`IbLinkInfo`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{IbLinkInfo, LinkNode, LinkPort};
use crate::ParseError;
use crate::grammar::transcript::LineCounter;
use crate::ib::diag::{DiagKind, DiagLines};
use crate::ib::link;

const TOOL: &str = "iblinkinfo";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/iblinkinfo/iblinkinfo.pest"]
#[grammar = "src/ib/link.pest"]
#[grammar = "src/ib/diag.pest"]
struct IbLinkInfoParser;

/// Parses `iblinkinfo` output.
pub(super) fn parse(text: &str) -> Result<IbLinkInfo, ParseError> {
    let root = IbLinkInfoParser::parse(Rule::iblinkinfo, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = IbLinkInfo {
        nodes: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    let mut diag = DiagLines::default();
    let mut lines = LineCounter::new(text);
    let mut own = false;
    // Whether the last node came from a header, so that port lines belong under it.
    let mut under_header = false;
    for pair in root {
        let start = pair.as_span().start();
        match pair.as_rule() {
            Rule::node_header => {
                own = true;
                under_header = true;
                out.nodes.push(header(pair));
            }
            Rule::port_line => {
                own = true;
                let port = port(text, pair)?;
                match out.nodes.last_mut() {
                    Some(node) if under_header => node.ports.push(port),
                    _ => {
                        under_header = true;
                        out.nodes.push(LinkNode {
                            kind: None,
                            guid: None,
                            name: None,
                            ports: vec![port],
                        });
                    }
                }
            }
            Rule::line_mode_line => {
                own = true;
                under_header = false;
                let name = pair
                    .clone()
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::line_node_name)
                    .map(|p| p.as_str().trim().to_owned());
                let port = port(text, pair)?;
                match out.nodes.last_mut() {
                    Some(node) if node.kind.is_none() && node.name == name => node.ports.push(port),
                    _ => out.nodes.push(LinkNode {
                        kind: None,
                        guid: None,
                        name,
                        ports: vec![port],
                    }),
                }
            }
            Rule::ibwarn_line | Rule::source_line => {
                diag.file(DiagKind::Warning, pair.as_str(), lines.line_of(start))
            }
            Rule::ibpanic_line => diag.file(DiagKind::Panic, pair.as_str(), lines.line_of(start)),
            Rule::iberror_line => {
                let program = pair.clone().into_inner().next().map(|p| p.as_str());
                own |= diag.file_iberror(pair.as_str(), program, TOOL, lines.line_of(start));
            }
            _ => {}
        }
    }
    (out.warnings, out.error) = diag.claimed(
        own,
        TOOL,
        text,
        "expected iblinkinfo's node headers or port lines",
    )?;
    Ok(out)
}

fn header(pair: Pair<'_, Rule>) -> LinkNode {
    let mut node = LinkNode {
        kind: None,
        guid: None,
        name: None,
        ports: Vec::new(),
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::node_type => node.kind = Some(part.as_str().to_lowercase()),
            Rule::node_guid => node.guid = Some(part.as_str().to_owned()),
            Rule::node_name => node.name = Some(part.as_str().trim().to_owned()),
            _ => {}
        }
    }
    node
}

/// A port line of either layout: its GUID, if printed, and its link.
fn port(text: &str, pair: Pair<'_, Rule>) -> Result<LinkPort, ParseError> {
    let mut guid = None;
    let mut link = None;
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::port_guid => guid = Some(part.as_str().to_owned()),
            Rule::port_link => link = Some(link::read(TOOL, text, part, link::link_parts!(Rule))?),
            _ => {}
        }
    }
    let link =
        link.ok_or_else(|| ParseError::at(TOOL, text, 0, 0, "a port line without its link"))?;
    Ok(LinkPort { guid, link })
}
