//! Walks the `perfquery` parse tree into [`PerfQuery`].

use std::collections::BTreeMap;

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{PerfBlock, PerfQuery};
use crate::ParseError;
use crate::grammar::transcript::LineCounter;
use crate::ib::diag::{DiagKind, DiagLines, is_program};

const TOOL: &str = "perfquery";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/perfquery/perfquery.pest"]
#[grammar = "src/ib/diag.pest"]
struct PerfQueryParser;

/// Parses `perfquery` output.
pub(super) fn parse(text: &str) -> Result<PerfQuery, ParseError> {
    let root = PerfQueryParser::parse(Rule::perfquery, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = PerfQuery {
        blocks: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    let mut diag = DiagLines::default();
    let mut lines = LineCounter::new(text);
    let mut own = false;
    for pair in root {
        match pair.as_rule() {
            Rule::block => {
                own = true;
                let mut inner = pair.into_inner();
                let Some(header) = inner.next() else { continue };
                let mut block = header_block(text, header)?;
                for item in inner {
                    if item.as_rule() == Rule::field_line {
                        field(text, &mut block, item)?;
                    } else {
                        own |= file_diag(&mut diag, &mut lines, item);
                    }
                }
                out.blocks.push(block);
            }
            _ => own |= file_diag(&mut diag, &mut lines, pair),
        }
    }
    (out.warnings, out.error) = diag.claimed(
        own,
        TOOL,
        text,
        "expected perfquery's `# Port counters: Lid N port N` block",
    )?;
    Ok(out)
}

/// Files one of `diag.pest`'s lines; true when it is perfquery's own fatal line.
fn file_diag(diag: &mut DiagLines, lines: &mut LineCounter<'_>, pair: Pair<'_, Rule>) -> bool {
    let line = lines.line_of(pair.as_span().start());
    let kind = match pair.as_rule() {
        Rule::ibwarn_line | Rule::source_line => DiagKind::Warning,
        Rule::ibpanic_line => DiagKind::Panic,
        Rule::iberror_line => DiagKind::Exit,
        _ => return false,
    };
    let own = kind == DiagKind::Exit
        && pair
            .clone()
            .into_inner()
            .next()
            .is_some_and(|p| is_program(p.as_str(), TOOL));
    diag.file(kind, pair.as_str(), line);
    own
}

fn header_block(text: &str, header: Pair<'_, Rule>) -> Result<PerfBlock, ParseError> {
    let mut block = PerfBlock {
        title: String::new(),
        extended: false,
        port_id: String::new(),
        lid: None,
        port: 0,
        cap_mask: None,
        cap_mask2: None,
        counters: BTreeMap::new(),
        other: BTreeMap::new(),
    };
    for part in header.into_inner() {
        match part.as_rule() {
            Rule::title => {
                block.title = part.as_str().trim().to_owned();
                block.extended = block.title == "Port extended counters";
            }
            Rule::port_id => {
                block.port_id = part.as_str().to_owned();
                if let Some(lid) = block.port_id.strip_prefix("Lid ") {
                    let at = part.as_span().start() + "Lid ".len();
                    let span = pest::Span::new(text, at, at + lid.len());
                    if let Some(span) = span.filter(|_| lid.bytes().all(|b| b.is_ascii_digit())) {
                        block.lid = Some(crate::grammar::named_number(TOOL, text, &span, "LID")?);
                    }
                }
            }
            Rule::port_number => {
                block.port = crate::grammar::named_number(TOOL, text, &part, "port number")?
            }
            Rule::cap_mask => block.cap_mask = Some(part.as_str().to_owned()),
            Rule::cap_mask2 => block.cap_mask2 = Some(part.as_str().to_owned()),
            _ => {}
        }
    }
    Ok(block)
}

/// A field whose value is a decimal number is a counter, read by the shared reader (a count
/// that does not fit 64 bits is an error at it); any other value is kept as printed.
fn field(text: &str, block: &mut PerfBlock, pair: Pair<'_, Rule>) -> Result<(), ParseError> {
    let mut name = "";
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::field_name => name = part.as_str(),
            Rule::field_value => {
                let value = part.as_str();
                if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
                    let count = crate::grammar::named_number(TOOL, text, &part, name)?;
                    block.counters.insert(name.to_owned(), count);
                } else {
                    block.other.insert(name.to_owned(), value.to_owned());
                }
            }
            _ => {}
        }
    }
    Ok(())
}
