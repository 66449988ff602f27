//! `/etc/init.d/openibd restart` (MLNX_OFED's driver service): each step's outcome, so a
//! runbook knows the driver stack came back (`ok`) or which module failed to load.
//! The grammar is `openibd.pest`.

use pest::Parser as _;
use serde::Serialize;

use crate::ParseError;

const TOOL: &str = "openibd";

#[derive(pest_derive::Parser)]
#[grammar = "src/ofed/openibd/openibd.pest"]
struct OpenibdParser;

/// What `openibd restart` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Openibd {
    /// The steps, in order.
    pub steps: Vec<OpenibdStep>,
    /// True when every step printed `OK`.
    pub ok: bool,
    /// Other lines, as printed (`Please run ... sysinfo-snapshot.py`).
    pub messages: Vec<String>,
}

/// One `Label: [ STATUS ]` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenibdStep {
    /// `Loading HCA driver and Access Layer`.
    pub name: String,
    /// `OK` or `FAILED`, as printed.
    pub status: String,
}

/// Parses `openibd restart|start|stop` output.
pub fn parse(text: &str) -> Result<Openibd, ParseError> {
    let pairs = OpenibdParser::parse(Rule::openibd, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = Openibd {
        steps: Vec::new(),
        ok: true,
        messages: Vec::new(),
    };
    for pair in pairs {
        match pair.as_rule() {
            Rule::step => {
                let (mut name, mut status) = (String::new(), String::new());
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::step_name => name = part.as_str().trim().to_owned(),
                        Rule::step_status => status = part.as_str().to_owned(),
                        _ => {}
                    }
                }
                out.ok &= status == "OK";
                out.steps.push(OpenibdStep { name, status });
            }
            Rule::message => out
                .messages
                .extend(pair.into_inner().map(|p| p.as_str().to_owned())),
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn escape_aligned_statuses_and_a_failed_step() {
        let text = "Unloading HCA driver:\u{1b}[60G[  OK  ]\nLoading HCA driver and Access Layer:[60G[FAILED]\n";
        let out = parse(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.steps.len(), 2);
        assert_eq!(out.steps[1].status, "FAILED");
        assert!(!out.ok);
        assert!(parse("").is_err());
        assert!(parse("Usage: openibd {start|stop}\n").is_err());
    }
}
