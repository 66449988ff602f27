//! Reads ibdiagnet's console output line by line into [`IbdiagnetSummary`]: its stage table
//! (each row at the columns of the table's header), ibdiagnet2's `Fabric Summary` block, the
//! log's path, and every other line as a message.

use super::types::{FabricSummary, IbdiagnetSummary, Stage};
use crate::ParseError;
use crate::grammar::named_number;
use crate::grammar::transcript::{Line, lines};

const TOOL: &str = "ibdiagnet";

/// What the lines read so far make of the next one.
enum State {
    Anything,
    /// After ibdiagnet2's `Summary` title or ibutils' `-I- Stages Status Report:`: its header.
    Header {
        format: &'static str,
    },
    /// Inside a stage table: where its number columns start, in header order.
    Table {
        columns: [(usize, Column); 2],
    },
    /// Inside ibdiagnet2's `Fabric Summary` block.
    Fabric,
}

#[derive(Clone, Copy, PartialEq)]
enum Column {
    Errors,
    Warnings,
}

/// Parses ibdiagnet's console output.
pub(super) fn parse(text: &str) -> Result<IbdiagnetSummary, ParseError> {
    let mut out = IbdiagnetSummary {
        format: String::new(),
        stages: Vec::new(),
        errors: 0,
        warnings: 0,
        fabric: None,
        log_file: None,
        messages: Vec::new(),
    };
    let mut state = State::Anything;
    for line in lines(text) {
        state = match state {
            State::Table { columns } => match stage(text, &line, columns)? {
                Some(stage) => {
                    out.stages.push(stage);
                    State::Table { columns }
                }
                None => anything(&mut out, &line),
            },
            State::Header { format } => match header(&line, format) {
                Some(columns) => {
                    out.format = format.to_owned();
                    State::Table { columns }
                }
                None if line.is_blank() => State::Header { format },
                None => anything(&mut out, &line),
            },
            State::Fabric if line.text.starts_with("---") => State::Anything,
            State::Fabric => {
                fabric_line(text, &mut out, &line)?;
                State::Fabric
            }
            State::Anything => anything(&mut out, &line),
        };
    }
    let counted = out.fabric.as_ref().is_some_and(|f| f.total_nodes.is_some());
    if out.format.is_empty() && !counted {
        return Err(ParseError::at(
            TOOL,
            text,
            0,
            0,
            "expected ibdiagnet's stage table (`-I- Stage  Warnings  Errors  Comment`) or its `Fabric Summary`",
        ));
    }
    if out.format.is_empty() {
        out.format = "ibdiagnet2".to_owned();
    }
    out.errors = out.stages.iter().map(|s| s.errors).sum();
    out.warnings = out.stages.iter().map(|s| s.warnings).sum();
    Ok(out)
}

/// A line outside the table and the fabric block; returns what the next line is.
fn anything(out: &mut IbdiagnetSummary, line: &Line<'_>) -> State {
    let words = line.text;
    // Blank lines and rules (`-----`, `-I-----`) separate the sections: no message.
    let rule = words.strip_prefix("-I").unwrap_or(words);
    if words.is_empty() || (rule.len() >= 3 && rule.bytes().all(|b| b == b'-')) {
        return State::Anything;
    }
    if words == "Summary" {
        return State::Header {
            format: "ibdiagnet2",
        };
    }
    if words == "-I- Stages Status Report:" {
        return State::Header {
            format: "ibdiagnet1",
        };
    }
    if words == "Fabric Summary" {
        out.fabric.get_or_insert_with(FabricSummary::default);
        return State::Fabric;
    }
    let log = words
        .strip_prefix("-I- You can find detailed errors/warnings in:")
        .or_else(|| {
            words
                .strip_prefix("Please see ")
                .and_then(|rest| rest.strip_suffix(" for complete log"))
        });
    match log {
        Some(path) => out.log_file = Some(path.trim().to_owned()),
        None => out.messages.push(line.message()),
    }
    State::Anything
}

/// The table's header: where its Errors and Warnings columns start, in the order printed.
fn header(line: &Line<'_>, format: &str) -> Option<[(usize, Column); 2]> {
    let raw = line.raw;
    let lead = match format {
        "ibdiagnet2" => "-I- Stage",
        _ => "STAGE",
    };
    if !line.text.starts_with(lead) {
        return None;
    }
    let errors = (raw.find("Errors")?, Column::Errors);
    let warnings = (raw.find("Warnings")?, Column::Warnings);
    Some(if errors.0 < warnings.0 {
        [errors, warnings]
    } else {
        [warnings, errors]
    })
}

/// One stage row: its name before the first number column, the two numbers in the header's
/// order, and (ibdiagnet2) a comment after them. `None` when the line is not a row.
fn stage(
    text: &str,
    line: &Line<'_>,
    columns: [(usize, Column); 2],
) -> Result<Option<Stage>, ParseError> {
    let raw = line.raw;
    let first = columns[0].0;
    let (Some(name), Some(rest)) = (raw.get(..first), raw.get(first..)) else {
        return Ok(None);
    };
    let name = name.trim();
    let name = name.strip_prefix("-I-").map_or(name, str::trim_start);
    if name.is_empty() {
        return Ok(None);
    }
    let mut tokens = tokens(rest).into_iter();
    let (Some(a), Some(b)) = (tokens.next(), tokens.next()) else {
        return Ok(None);
    };
    if ![a, b]
        .iter()
        .all(|(_, t)| t.bytes().all(|c| c.is_ascii_digit()))
    {
        return Ok(None);
    }
    let at = line.offset + first;
    let number = |(start, token): (usize, &str), what: &str| -> Result<u64, ParseError> {
        let span = pest::Span::new(text, at + start, at + start + token.len());
        match span {
            Some(span) => named_number(TOOL, text, &span, what),
            None => Ok(0),
        }
    };
    let comment = rest
        .get(b.0 + b.1.len()..)
        .map(str::trim)
        .unwrap_or_default();
    let mut row = Stage {
        name: name.to_owned(),
        errors: 0,
        warnings: 0,
        comment: (!comment.is_empty()).then(|| comment.to_owned()),
    };
    for ((_, column), token) in columns.iter().zip([a, b]) {
        match column {
            Column::Errors => row.errors = number(token, "errors")?,
            Column::Warnings => row.warnings = number(token, "warnings")?,
        }
    }
    Ok(Some(row))
}

/// The words of `s` with their byte offsets.
fn tokens(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(from)) => {
                out.push((from, &s[from..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
        if out.len() == 2 {
            return out;
        }
    }
    if let Some(from) = start {
        out.push((from, &s[from..]));
    }
    out
}

/// A line of the `Fabric Summary` block: `Label : N`, another `Label: value`, or a message.
fn fabric_line(text: &str, out: &mut IbdiagnetSummary, line: &Line<'_>) -> Result<(), ParseError> {
    if line.is_blank() {
        return Ok(());
    }
    let Some((label, value)) = line.raw.split_once(':') else {
        out.messages.push(line.message());
        return Ok(());
    };
    let (label, trimmed) = (label.trim(), value.trim());
    let fabric = out.fabric.get_or_insert_with(FabricSummary::default);
    let slot = match label {
        "Total Nodes" => &mut fabric.total_nodes,
        "IB Switches" => &mut fabric.switches,
        "IB Channel Adapters" => &mut fabric.channel_adapters,
        "IB Aggregation Nodes" => &mut fabric.aggregation_nodes,
        "IB Routers" => &mut fabric.routers,
        _ => {
            fabric.other.insert(label.to_owned(), trimmed.to_owned());
            return Ok(());
        }
    };
    let start =
        line.offset + line.raw.len() - value.len() + (value.len() - value.trim_start().len());
    let span = pest::Span::new(text, start, start + trimmed.len());
    *slot = match span {
        Some(span) => Some(named_number(TOOL, text, &span, label)?),
        None => None,
    };
    Ok(())
}
