//! Walks the `ibqueryerrors` parse tree into [`IbQueryErrors`].

use std::collections::BTreeMap;

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{ErrorNode, ErrorPort, IbQueryErrors, Summary};
use crate::ParseError;
use crate::grammar::transcript::LineCounter;
use crate::ib::diag::{DiagKind, DiagLines};
use crate::ib::link;

const TOOL: &str = "ibqueryerrors";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/ibqueryerrors/ibqueryerrors.pest"]
#[grammar = "src/ib/link.pest"]
#[grammar = "src/ib/diag.pest"]
struct IbQueryErrorsParser;

/// Parses `ibqueryerrors` output.
pub(super) fn parse(text: &str) -> Result<IbQueryErrors, ParseError> {
    let root = IbQueryErrorsParser::parse(Rule::ibqueryerrors, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = IbQueryErrors {
        nodes: Vec::new(),
        summary: None,
        warnings: Vec::new(),
        error: None,
    };
    let mut diag = DiagLines::default();
    let mut lines = LineCounter::new(text);
    let mut own = false;
    for pair in root {
        let rule = pair.as_rule();
        let start = pair.as_span().start();
        match rule {
            Rule::node_line => {
                own = true;
                out.nodes.push(node(pair));
            }
            Rule::port_line => {
                let Some(node) = out.nodes.last_mut() else {
                    return Err(misplaced(text, &pair, "a port line before its node's line"));
                };
                node.ports.push(port(text, pair)?);
            }
            Rule::link_line => {
                let Some(port) = out.nodes.last_mut().and_then(|n| n.ports.last_mut()) else {
                    return Err(misplaced(
                        text,
                        &pair,
                        "a `Link info:` line before its port",
                    ));
                };
                if let Some(inner) = pair.into_inner().next() {
                    port.link = Some(link::read(TOOL, text, inner, link::link_parts!(Rule))?);
                }
            }
            Rule::summary_line => {
                own = true;
                let mut summary = Summary::default();
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::nodes_checked => summary.nodes_checked = count(text, &part)?,
                        Rule::bad_nodes => summary.bad_nodes = count(text, &part)?,
                        _ => {}
                    }
                }
                out.summary = Some(summary);
            }
            Rule::ports_line | Rule::thresholds_line | Rule::pma_line | Rule::suppressed_line => {
                let Some(summary) = out.summary.as_mut() else {
                    return Err(misplaced(
                        text,
                        &pair,
                        "a summary line before `## Summary:`",
                    ));
                };
                summary_line(text, pair, summary)?;
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
        "expected ibqueryerrors's `Errors for` or `## Summary:` lines",
    )?;
    Ok(out)
}

fn misplaced(text: &str, pair: &Pair<'_, Rule>, what: &str) -> ParseError {
    let span = pair.as_span();
    let line = span.as_str().trim_end_matches(['\n', '\r']);
    let lead = line.len() - line.trim_start().len();
    ParseError::at(
        TOOL,
        text,
        span.start() + lead,
        line.trim().len(),
        what.to_owned(),
    )
}

fn count(text: &str, pair: &Pair<'_, Rule>) -> Result<u64, ParseError> {
    crate::grammar::number(TOOL, text, pair)
}

fn node(pair: Pair<'_, Rule>) -> ErrorNode {
    let mut node = ErrorNode {
        kind: String::new(),
        guid: None,
        name: String::new(),
        ports: Vec::new(),
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::node_kind => {
                node.kind = match part.as_str() {
                    "Errors for" => "errors",
                    _ => "data_counters",
                }
                .to_owned()
            }
            Rule::node_guid => node.guid = Some(part.as_str().to_owned()),
            Rule::node_name => node.name = part.as_str().to_owned(),
            _ => {}
        }
    }
    node
}

fn port(text: &str, pair: Pair<'_, Rule>) -> Result<ErrorPort, ParseError> {
    let mut port = ErrorPort {
        guid: String::new(),
        port: None,
        all_ports: false,
        counters: BTreeMap::new(),
        scaled: BTreeMap::new(),
        link: None,
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::port_guid => port.guid = part.as_str().to_owned(),
            Rule::all_ports => port.all_ports = true,
            Rule::port_number => {
                port.port = Some(crate::grammar::named_number(
                    TOOL,
                    text,
                    &part,
                    "port number",
                )?)
            }
            Rule::counter => {
                let (name, value, scaled) = counter(text, part)?;
                if let Some(scaled) = scaled {
                    port.scaled.insert(name.clone(), scaled);
                }
                port.counters.insert(name, value);
            }
            _ => {}
        }
    }
    Ok(port)
}

fn counter(text: &str, pair: Pair<'_, Rule>) -> Result<(String, u64, Option<String>), ParseError> {
    let (mut name, mut value, mut scaled) = (String::new(), 0, None);
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::counter_name => name = part.as_str().to_owned(),
            Rule::counter_value => value = count(text, &part)?,
            Rule::scaled => scaled = Some(part.as_str().trim().to_owned()),
            _ => {}
        }
    }
    Ok((name, value, scaled))
}

fn summary_line(text: &str, pair: Pair<'_, Rule>, summary: &mut Summary) -> Result<(), ParseError> {
    match pair.as_rule() {
        Rule::ports_line => {
            for part in pair.into_inner() {
                match part.as_rule() {
                    Rule::ports_checked => summary.ports_checked = Some(count(text, &part)?),
                    Rule::bad_ports => summary.bad_ports = Some(count(text, &part)?),
                    _ => {}
                }
            }
        }
        Rule::thresholds_line => {
            let mut thresholds = Some(BTreeMap::new());
            for part in pair.into_inner() {
                match part.as_rule() {
                    Rule::no_thresholds => thresholds = None,
                    Rule::threshold => {
                        let (name, value, _) = counter(text, part)?;
                        if let Some(t) = thresholds.as_mut() {
                            t.insert(name, value);
                        }
                    }
                    _ => {}
                }
            }
            summary.thresholds = thresholds;
        }
        Rule::pma_line => {
            for part in pair
                .into_inner()
                .filter(|p| p.as_rule() == Rule::pma_failures)
            {
                summary.pma_query_failures = count(text, &part)?;
            }
        }
        _ => {
            let names = pair
                .into_inner()
                .filter(|p| p.as_rule() == Rule::counter_name);
            summary.suppressed = Some(names.map(|p| p.as_str().to_owned()).collect());
        }
    }
    Ok(())
}
