//! Walks the `sminfo` parse tree into [`SmInfo`].

use pest::Parser as _;

use super::types::SmInfo;
use crate::ParseError;
use crate::grammar::named_number;
use crate::grammar::transcript::LineCounter;
use crate::ib::diag::{DiagKind, DiagLines};

const TOOL: &str = "sminfo";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/sminfo/sminfo.pest"]
#[grammar = "src/ib/diag.pest"]
struct SmInfoParser;

/// Parses `sminfo` output.
pub(super) fn parse(text: &str) -> Result<SmInfo, ParseError> {
    let root = SmInfoParser::parse(Rule::sminfo, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = SmInfo {
        lid: None,
        guid: None,
        activity_count: None,
        priority: None,
        state: None,
        state_name: None,
        master: false,
        warnings: Vec::new(),
        error: None,
    };
    let mut diag = DiagLines::default();
    let mut lines = LineCounter::new(text);
    let mut own = false;
    for pair in root {
        let line = lines.line_of(pair.as_span().start());
        match pair.as_rule() {
            Rule::sminfo_line => {
                own = true;
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::lid => out.lid = Some(named_number(TOOL, text, &part, "LID")?),
                        Rule::guid => out.guid = Some(part.as_str().to_owned()),
                        Rule::activity => {
                            out.activity_count =
                                Some(named_number(TOOL, text, &part, "activity count")?)
                        }
                        Rule::priority => {
                            out.priority = Some(named_number(TOOL, text, &part, "priority")?)
                        }
                        Rule::state => out.state = Some(named_number(TOOL, text, &part, "state")?),
                        Rule::state_name => out.state_name = Some(part.as_str().to_owned()),
                        _ => {}
                    }
                }
                out.master = out.state == Some(3);
            }
            Rule::ibwarn_line | Rule::source_line => {
                diag.file(DiagKind::Warning, pair.as_str(), line)
            }
            Rule::ibpanic_line => diag.file(DiagKind::Panic, pair.as_str(), line),
            Rule::iberror_line => {
                let program = pair.clone().into_inner().next().map(|p| p.as_str());
                own |= diag.file_iberror(pair.as_str(), program, TOOL, line);
            }
            _ => {}
        }
    }
    (out.warnings, out.error) = diag.claimed(
        own,
        TOOL,
        text,
        "expected sminfo's `sminfo: sm lid ...` line",
    )?;
    Ok(out)
}
