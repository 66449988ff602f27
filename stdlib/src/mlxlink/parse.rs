//! Walks the `mlxlink` parse tree into [`Mlxlink`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{
    Counters, Field, Mlxlink, Operational, Section, SpeedMask, Supported, ToolInformation,
    Troubleshooting,
};
use crate::ParseError;

const TOOL: &str = "mlxlink";

/// The section every mlxlink port query prints first, which makes an output mlxlink's.
const OPERATIONAL: &str = "Operational Info";

#[derive(pest_derive::Parser)]
#[grammar = "src/mlxlink/mlxlink.pest"]
struct MlxlinkParser;

/// One field's label and value, with the value's pair for its span.
struct Read<'i> {
    label: &'i str,
    value: Option<Pair<'i, Rule>>,
}

impl Read<'_> {
    fn text(&self) -> Option<String> {
        self.value.as_ref().map(|v| v.as_str().to_owned())
    }
}

/// Parses `mlxlink` text output.
pub(super) fn parse(text: &str) -> Result<Mlxlink, ParseError> {
    let root = MlxlinkParser::parse(Rule::mlxlink, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut operational: Option<Operational> = None;
    let mut out = Mlxlink {
        operational: Operational::default(),
        supported: None,
        troubleshooting: None,
        tool: None,
        counters: None,
        sections: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        notes: Vec::new(),
    };
    for pair in root {
        match pair.as_rule() {
            Rule::mft_line => file_message(pair, &mut out),
            Rule::section => {
                let mut inner = pair.into_inner();
                let Some(title) = inner.next() else { continue };
                let mut fields = Vec::new();
                for item in inner {
                    match item.as_rule() {
                        Rule::field_line => {
                            let mut parts = item.into_inner();
                            let label = parts.next().map(|l| l.as_str()).unwrap_or_default();
                            fields.push(Read {
                                label,
                                value: parts.next(),
                            });
                        }
                        Rule::mft_line => file_message(item, &mut out),
                        _ => {}
                    }
                }
                if title.as_str() == OPERATIONAL && operational.is_some() {
                    return Err(ParseError::at(
                        TOOL,
                        text,
                        title.as_span().start(),
                        title.as_str().len(),
                        "a second `Operational Info` section: one mlxlink output per capture",
                    ));
                }
                match title.as_str() {
                    OPERATIONAL => operational = Some(read_operational(&fields)),
                    "Supported Info" => out.supported = Some(read_supported(text, &fields)?),
                    "Troubleshooting Info" => {
                        out.troubleshooting = Some(read_troubleshooting(text, &fields)?)
                    }
                    "Tool Information" => out.tool = Some(read_tool(&fields)),
                    "Physical Counters and BER Info" => {
                        out.counters = Some(read_counters(text, &fields)?)
                    }
                    _ => {}
                }
                out.sections.push(Section {
                    title: title.as_str().to_owned(),
                    fields: fields
                        .iter()
                        .map(|f| Field {
                            label: f.label.to_owned(),
                            value: f.text().unwrap_or_default(),
                        })
                        .collect(),
                });
            }
            _ => {}
        }
    }
    out.operational = operational.ok_or_else(|| {
        ParseError::at(
            TOOL,
            text,
            0,
            0,
            "expected mlxlink's `Operational Info` section",
        )
    })?;
    Ok(out)
}

/// Files a `-E-`, `-W-` or `-I-` line's text by its mark (read from the mark's own pair, so a
/// colour switch before it does not hide it).
fn file_message(line: Pair<'_, Rule>, out: &mut Mlxlink) {
    let (mut mark, mut message) = ("", String::new());
    for part in line.into_inner() {
        match part.as_rule() {
            Rule::mft_mark => mark = part.as_str(),
            Rule::message => message = part.as_str().to_owned(),
            _ => {}
        }
    }
    match mark {
        "-E-" => out.errors.push(message),
        "-W-" => out.warnings.push(message),
        _ => out.notes.push(message),
    }
}

fn read_operational(fields: &[Read<'_>]) -> Operational {
    let mut op = Operational::default();
    for field in fields {
        let slot = match field.label {
            "State" => &mut op.state,
            "Physical state" => &mut op.physical_state,
            "Speed" => &mut op.speed,
            "Width" => &mut op.width,
            "FEC" => &mut op.fec,
            "Loopback Mode" => &mut op.loopback_mode,
            "Auto Negotiation" => &mut op.auto_negotiation,
            _ => continue,
        };
        *slot = field.text();
    }
    op
}

fn read_supported(text: &str, fields: &[Read<'_>]) -> Result<Supported, ParseError> {
    let mut supported = Supported::default();
    for field in fields {
        let (name, extended) = match field.label.strip_suffix("(Ext.)") {
            Some(name) => (name.trim_end(), true),
            None => (field.label, false),
        };
        let slot = match name {
            "Enabled Link Speed" => &mut supported.enabled_link_speed,
            "Supported Cable Speed" => &mut supported.supported_cable_speed,
            _ => continue,
        };
        supported.extended |= extended;
        *slot = match &field.value {
            Some(value) => Some(speed_mask(text, value)?),
            None => None,
        };
    }
    Ok(supported)
}

/// `0x000007f2 (100G_2X,100G_4X,...)`: the mask, then the speeds it names in parentheses.
fn speed_mask(text: &str, value: &Pair<'_, Rule>) -> Result<SpeedMask, ParseError> {
    let raw = value.as_str();
    let parsed = raw.split_once('(').and_then(|(mask, rest)| {
        let mask = mask.trim_end();
        let hex = mask.strip_prefix("0x")?;
        let speeds = rest.trim_end().strip_suffix(')')?;
        (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit())).then(|| SpeedMask {
            mask: mask.to_owned(),
            speeds: speeds
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        })
    });
    parsed.ok_or_else(|| {
        ParseError::at(
            TOOL,
            text,
            value.as_span().start(),
            raw.len(),
            "expected a speed mask and its speeds, `0x0000003f (EDR,FDR,...)`",
        )
    })
}

fn read_troubleshooting(text: &str, fields: &[Read<'_>]) -> Result<Troubleshooting, ParseError> {
    let mut t = Troubleshooting::default();
    for field in fields {
        match field.label {
            "Status Opcode" => {
                t.status_opcode = match &field.value {
                    Some(v) => Some(crate::grammar::named_number(
                        TOOL,
                        text,
                        v,
                        "status opcode",
                    )?),
                    None => None,
                }
            }
            "Group Opcode" => t.group_opcode = field.text(),
            "Recommendation" => t.recommendation = field.text(),
            _ => {}
        }
    }
    Ok(t)
}

fn read_tool(fields: &[Read<'_>]) -> ToolInformation {
    let mut tool = ToolInformation::default();
    for field in fields {
        let slot = match field.label {
            "Firmware Version" => &mut tool.firmware_version,
            "amBER Version" => &mut tool.amber_version,
            "MFT Version" => &mut tool.mft_version,
            _ => continue,
        };
        *slot = field.text();
    }
    tool
}

fn read_counters(text: &str, fields: &[Read<'_>]) -> Result<Counters, ParseError> {
    let mut c = Counters::default();
    for field in fields {
        let Some(value) = &field.value else { continue };
        let count = |what| crate::grammar::named_number::<u64>(TOOL, text, value, what);
        match field.label {
            "Time Since Last Clear [Min]" => {
                c.time_since_last_clear_min =
                    Some(crate::grammar::named_number(TOOL, text, value, "minutes")?)
            }
            "Symbol Errors" => c.symbol_errors = Some(count("symbol errors")?),
            "Symbol BER" => c.symbol_ber = field.text(),
            "Effective Physical Errors" => {
                c.effective_physical_errors = Some(count("effective physical errors")?)
            }
            "Effective Physical BER" => c.effective_physical_ber = field.text(),
            "Raw Physical Errors Per Lane" => {
                c.raw_physical_errors_per_lane = per_lane(text, value)?
            }
            "Raw Physical BER" => c.raw_physical_ber = field.text(),
            "Link Down Counter" => c.link_down_counter = Some(count("link down counter")?),
            "Link Error Recovery Counter" => {
                c.link_error_recovery_counter = Some(count("link error recovery counter")?)
            }
            _ => {}
        }
    }
    Ok(c)
}

/// `3183333,242074`: one count per lane, each read at its own span.
fn per_lane(text: &str, value: &Pair<'_, Rule>) -> Result<Vec<u64>, ParseError> {
    let span = value.as_span();
    let mut start = span.start();
    let mut lanes = Vec::new();
    for part in value.as_str().split(',') {
        let trimmed = part.trim();
        let offset = start + (part.len() - part.trim_start().len());
        let at = pest::Span::new(text, offset, offset + trimmed.len());
        if let Some(at) = at {
            lanes.push(crate::grammar::named_number(
                TOOL,
                text,
                &at,
                "lane error count",
            )?);
        }
        start += part.len() + 1;
    }
    Ok(lanes)
}
