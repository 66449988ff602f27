//! Walks the `ibnodes` parse tree into [`IbNodes`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{IbNode, IbNodes};
use crate::ParseError;
use crate::grammar::named_number;
use crate::grammar::transcript::LineCounter;
use crate::ib::diag::{DiagKind, DiagLines};

const TOOL: &str = "ibnodes";

/// The program whose fatal line the scripts pass through.
const DISCOVERY: &str = "ibnetdiscover";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/ibnodes/ibnodes.pest"]
#[grammar = "src/ib/diag.pest"]
struct IbNodesParser;

/// Parses `ibnodes`, `ibhosts` or `ibswitches` output.
pub(super) fn parse(text: &str) -> Result<IbNodes, ParseError> {
    let root = IbNodesParser::parse(Rule::ibnodes, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = IbNodes {
        nodes: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    let mut diag = DiagLines::default();
    let mut lines = LineCounter::new(text);
    let mut own = false;
    for pair in root {
        let line = lines.line_of(pair.as_span().start());
        match pair.as_rule() {
            Rule::node_line => {
                own = true;
                out.nodes.push(node(text, pair)?);
            }
            Rule::ibwarn_line | Rule::source_line => {
                diag.file(DiagKind::Warning, pair.as_str(), line)
            }
            Rule::ibpanic_line => diag.file(DiagKind::Panic, pair.as_str(), line),
            Rule::iberror_line => {
                let program = pair.clone().into_inner().next().map(|p| p.as_str());
                own |= diag.file_iberror(pair.as_str(), program, DISCOVERY, line);
            }
            _ => {}
        }
    }
    (out.warnings, out.error) = diag.claimed(
        own,
        TOOL,
        text,
        "expected node lines, `Ca : 0x... ports N \"NAME\"`",
    )?;
    Ok(out)
}

fn node(text: &str, pair: Pair<'_, Rule>) -> Result<IbNode, ParseError> {
    let mut node = IbNode {
        kind: String::new(),
        guid: String::new(),
        ports: 0,
        name: String::new(),
        port0: None,
        lid: None,
        lmc: None,
    };
    for part in pair.into_inner().flatten() {
        match part.as_rule() {
            Rule::node_type => node.kind = part.as_str().to_lowercase(),
            Rule::node_guid => node.guid = part.as_str().to_owned(),
            Rule::port_count => node.ports = named_number(TOOL, text, &part, "port count")?,
            Rule::node_name => node.name = part.as_str().to_owned(),
            Rule::port0_kind => node.port0 = Some(part.as_str().to_owned()),
            Rule::lid => node.lid = Some(named_number(TOOL, text, &part, "LID")?),
            Rule::lmc => node.lmc = Some(named_number(TOOL, text, &part, "LMC")?),
            _ => {}
        }
    }
    Ok(node)
}
