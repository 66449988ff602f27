//! Walks the `ibv_rc_pingpong` parse tree into [`RcPingpong`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{CompletionCycles, QpAddress, RcPingpong};
use crate::ParseError;
use crate::grammar::transcript::LineCounter;
use crate::grammar::{Message, Misfit, ToolError, named_number, read, read_radix};

const TOOL: &str = "ibv_rc_pingpong";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/rc_pingpong/rc_pingpong.pest"]
struct RcPingpongParser;

/// Parses `ibv_rc_pingpong` output.
pub(super) fn parse(text: &str) -> Result<RcPingpong, ParseError> {
    let root = RcPingpongParser::parse(Rule::rc_pingpong, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut out = RcPingpong {
        local: None,
        remote: None,
        bytes: None,
        elapsed_sec: None,
        bandwidth_mbit_per_sec: None,
        iters: None,
        usec_per_iter: None,
        completion_cycles: None,
        invalid_pages: Vec::new(),
        completed: false,
        error: None,
        messages: Vec::new(),
    };
    let mut lines = LineCounter::new(text);
    // Whether a line only this tool prints was seen, and whether any line was not its own.
    let (mut own, mut stranger) = (false, false);
    for pair in root {
        let rule = pair.as_rule();
        if rule == Rule::EOI {
            continue;
        }
        let line = lines.line_of(pair.as_span().start());
        match rule {
            Rule::address_line => {
                own = true;
                address(text, pair, &mut out)?;
            }
            Rule::bytes_line | Rule::iters_line | Rule::cycles_line | Rule::invalid_line => {
                own = true;
                result_line(text, pair, &mut out)?;
            }
            Rule::error_line => {
                let words = pair.as_str().trim();
                match out.error {
                    None => {
                        out.error = Some(ToolError {
                            kind: error_kind(words).to_owned(),
                            message: words.to_owned(),
                            line,
                        })
                    }
                    Some(_) => out.messages.push(Message {
                        line,
                        text: words.to_owned(),
                    }),
                }
            }
            _ => {
                stranger = true;
                out.messages.push(Message {
                    line,
                    text: pair.as_str().trim().to_owned(),
                });
            }
        }
    }
    // An output of the tool's error lines alone is its failure; any other needs a line only
    // this tool prints.
    let errors_alone = out.error.is_some() && !stranger;
    if !own && !errors_alone {
        return Err(ParseError::at(
            TOOL,
            text,
            0,
            0,
            "expected ibv_rc_pingpong's `local address:  LID 0x..., QPN 0x..., PSN 0x...` line",
        ));
    }
    Ok(out)
}

/// A line of the run's results: bytes and bandwidth, iterations and time per exchange, `-t`'s
/// completion cycles, `-c`'s unchecked pages.
fn result_line(text: &str, pair: Pair<'_, Rule>, out: &mut RcPingpong) -> Result<(), ParseError> {
    let rule = pair.as_rule();
    out.completed |= rule == Rule::iters_line;
    let mut cycles_kind = "";
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::bytes => out.bytes = Some(named_number(TOOL, text, &part, "bytes")?),
            Rule::seconds => out.elapsed_sec = Some(decimal(text, &part)?),
            Rule::mbit => out.bandwidth_mbit_per_sec = Some(decimal(text, &part)?),
            Rule::iters => out.iters = Some(named_number(TOOL, text, &part, "iterations")?),
            Rule::usec => out.usec_per_iter = Some(decimal(text, &part)?),
            Rule::page => out
                .invalid_pages
                .push(named_number(TOOL, text, &part, "page")?),
            Rule::cycles_kind => cycles_kind = part.as_str(),
            Rule::cycles => {
                let value = Some(decimal(text, &part)?);
                let cycles = out
                    .completion_cycles
                    .get_or_insert_with(CompletionCycles::default);
                match cycles_kind {
                    "Max" => cycles.max = value,
                    "Min" => cycles.min = value,
                    _ => cycles.average = value,
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn decimal(text: &str, part: &Pair<'_, Rule>) -> Result<f64, ParseError> {
    read(TOOL, text, part, Misfit::NotANumber)
}

fn address(text: &str, pair: Pair<'_, Rule>, out: &mut RcPingpong) -> Result<(), ParseError> {
    let mut address = QpAddress {
        lid: 0,
        qpn: String::new(),
        psn: String::new(),
        gid: None,
    };
    let mut remote = false;
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::side => remote = part.as_str() == "remote",
            Rule::lid => address.lid = read_radix(TOOL, text, &part, 16, Misfit::Named("LID"))?,
            Rule::qpn => address.qpn = part.as_str().to_owned(),
            Rule::psn => address.psn = part.as_str().to_owned(),
            Rule::gid => address.gid = Some(part.as_str().to_owned()),
            _ => {}
        }
    }
    if remote {
        out.remote = Some(address);
    } else {
        out.local = Some(address);
    }
    Ok(())
}

/// A word for what failed, from the tool's own wording.
fn error_kind(words: &str) -> &'static str {
    const KINDS: &[(&str, &str)] = &[
        ("Failed to modify QP", "qp_state"),
        ("Failed status", "completion"),
        ("Couldn't connect", "connect"),
        ("Couldn't listen", "connect"),
        ("Couldn't read", "connect"),
        ("Couldn't send", "connect"),
        ("client read/write", "connect"),
        ("server read", "connect"),
        ("accept() failed", "connect"),
        ("IB device ", "device"),
        ("No IB devices found", "device"),
        ("Couldn't get context", "device"),
        ("Failed to get IB devices list", "device"),
        ("poll CQ failed", "completion"),
        ("parse WC failed", "completion"),
        ("Completion for unknown wr_id", "completion"),
    ];
    KINDS
        .iter()
        .find(|(start, _)| words.starts_with(start))
        .map_or("tool", |(_, kind)| kind)
}
