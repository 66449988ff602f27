//! Walks the `ibstatus` parse tree into [`IbStatus`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{IbStatus, IbStatusPort};
use crate::ParseError;

const TOOL: &str = "ibstatus";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/ibstatus/ibstatus.pest"]
struct IbStatusParser;

/// Parses `ibstatus` output.
pub(super) fn parse(text: &str) -> Result<IbStatus, ParseError> {
    let root = IbStatusParser::parse(Rule::ibstatus, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut status = IbStatus {
        ports: Vec::new(),
        error: None,
    };
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::port_block => status.ports.push(port_block(text, pair)?),
            Rule::fatal_error_line => {
                status.error = pair
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::message)
                    .map(|p| p.as_str().to_owned());
            }
            _ => {}
        }
    }
    Ok(status)
}

fn port_block(text: &str, block: Pair<'_, Rule>) -> Result<IbStatusPort, ParseError> {
    let mut port = IbStatusPort {
        device: String::new(),
        port: 0,
        default_gid: None,
        base_lid: None,
        sm_lid: None,
        state: None,
        state_code: None,
        phys_state: None,
        phys_state_code: None,
        rate_gbps: None,
        rate_text: None,
        width: None,
        speed: None,
        link_layer: None,
    };
    for field in block.into_inner() {
        let rule = field.as_rule();
        match rule {
            Rule::port_header => {
                for part in field.into_inner() {
                    match part.as_rule() {
                        Rule::device => port.device = part.as_str().to_owned(),
                        Rule::port => {
                            port.port =
                                crate::grammar::named_number(TOOL, text, &part, "port number")?
                        }
                        _ => {}
                    }
                }
            }
            Rule::default_gid_field => {
                port.default_gid = value(&field, Rule::gid).map(|p| p.as_str().to_owned());
            }
            Rule::base_lid_field | Rule::sm_lid_field => {
                let lid = match value(&field, Rule::lid) {
                    Some(lid) => Some(parse_lid(text, &lid)?),
                    None => None,
                };
                if rule == Rule::base_lid_field {
                    port.base_lid = lid;
                } else {
                    port.sm_lid = lid;
                }
            }
            Rule::state_field | Rule::phys_state_field => {
                let (mut code, mut name) = (None, None);
                for part in field.into_inner().flat_map(Pair::into_inner) {
                    match part.as_rule() {
                        Rule::state_number => {
                            code = Some(crate::grammar::named_number(
                                TOOL,
                                text,
                                &part,
                                "state number",
                            )?)
                        }
                        Rule::state_name => name = Some(part.as_str().to_owned()),
                        _ => {}
                    }
                }
                if rule == Rule::state_field {
                    (port.state, port.state_code) = (name, code);
                } else {
                    (port.phys_state, port.phys_state_code) = (name, code);
                }
            }
            Rule::rate_field => {
                if let Some(rate) = value(&field, Rule::rate) {
                    let text_start = rate.as_str().find('(');
                    port.rate_text = text_start.and_then(|start| {
                        let inner = rate.as_str().get(start + 1..)?;
                        Some(inner.trim_end().trim_end_matches(')').trim().to_owned())
                    });
                    for part in rate.into_inner() {
                        match part.as_rule() {
                            Rule::rate_gbps => {
                                port.rate_gbps =
                                    Some(crate::grammar::named_number(TOOL, text, &part, "rate")?)
                            }
                            Rule::link_width => port.width = Some(part.as_str().to_owned()),
                            Rule::link_speed => port.speed = Some(part.as_str().to_owned()),
                            _ => {}
                        }
                    }
                }
            }
            Rule::link_layer_field => {
                port.link_layer = value(&field, Rule::link_layer).map(|p| p.as_str().to_owned());
            }
            _ => {}
        }
    }
    Ok(port)
}

/// The inner pair of `field` with `rule`, or `None` when the field says `unknown`.
fn value<'a>(field: &Pair<'a, Rule>, rule: Rule) -> Option<Pair<'a, Rule>> {
    field.clone().into_inner().find(|p| p.as_rule() == rule)
}

/// `0x14` (hex, as sysfs prints it) or a decimal LID.
fn parse_lid(text: &str, pair: &Pair<'_, Rule>) -> Result<u32, ParseError> {
    let raw = pair.as_str();
    let parsed = match raw.strip_prefix("0x").or_else(|| raw.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => raw.parse().ok(),
    };
    parsed.ok_or_else(|| {
        let span = pair.as_span();
        ParseError::at(
            TOOL,
            text,
            span.start(),
            raw.len(),
            format!("LID `{raw}` is out of range"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn unknown_values_are_null() {
        let out = "Infiniband device 'mlx5_8' port 1 status:\n\tdefault gid:\t unknown\n\tbase lid:\t unknown\n\tlink_layer:\t Ethernet\n";
        let status = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(status.ports.len(), 1);
        assert_eq!(status.ports[0].default_gid, None);
        assert_eq!(status.ports[0].base_lid, None);
    }

    #[test]
    fn rate_without_speed_name() {
        let out = "Infiniband device 'mthca0' port 1 status:\r\n\trate:\t\t 10 Gb/sec (4X)\r\n";
        let status = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(status.ports[0].rate_gbps, Some(10.0));
        assert_eq!(status.ports[0].width.as_deref(), Some("4X"));
        assert_eq!(status.ports[0].speed, None);
    }

    #[test]
    fn fatal_error_is_kept() {
        let status = parse("Fatal error:  No devices\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(status.error.as_deref(), Some("No devices"));
    }

    #[test]
    fn other_output_is_refused() {
        assert!(parse("CA 'mlx5_0'\n\tCA type: MT4119\n").is_err());
        assert!(parse("").is_err());
    }
}
