//! Walks the `ibstat` parse tree into [`IbStat`].

use pest::Parser as _;
use pest::iterators::Pair;

use super::types::{IbStat, IbStatCa, IbStatPort};
use crate::ParseError;

const TOOL: &str = "ibstat";

#[derive(pest_derive::Parser)]
#[grammar = "src/ib/ibstat/ibstat.pest"]
pub(super) struct IbStatParser;

/// Parses `ibstat` or `ibstat -s` output.
pub(super) fn parse(text: &str) -> Result<IbStat, ParseError> {
    let pairs = IbStatParser::parse(Rule::ibstat, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut result = IbStat {
        cas: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    for pair in pairs {
        match pair.as_rule() {
            Rule::ca_block | Rule::single_port => result.cas.push(ca(text, pair)?),
            Rule::ibwarn => result.warnings.push(rest(&pair)),
            Rule::ibpanic => result.error = Some(rest(&pair)),
            _ => {}
        }
    }
    Ok(result)
}

fn ca(text: &str, block: Pair<'_, Rule>) -> Result<IbStatCa, ParseError> {
    let mut ca = IbStatCa {
        name: String::new(),
        node_type: String::new(),
        ca_type: None,
        number_of_ports: None,
        firmware_version: None,
        hardware_version: None,
        node_guid: None,
        system_image_guid: None,
        ports: Vec::new(),
    };
    for pair in block.into_inner() {
        match pair.as_rule() {
            Rule::ca_header => {
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::node_type => ca.node_type = part.as_str().to_owned(),
                        Rule::ca_name => ca.name = part.as_str().to_owned(),
                        _ => {}
                    }
                }
            }
            Rule::node_type => ca.node_type = pair.as_str().to_owned(),
            Rule::ca_name => ca.name = pair.as_str().to_owned(),
            Rule::ca_type => ca.ca_type = non_empty(rest(&pair)),
            Rule::number_of_ports => ca.number_of_ports = Some(first_number(text, &pair)?),
            Rule::firmware_version => ca.firmware_version = non_empty(rest(&pair)),
            Rule::hardware_version => ca.hardware_version = non_empty(rest(&pair)),
            Rule::node_guid => ca.node_guid = non_empty(rest(&pair)),
            Rule::system_image_guid => ca.system_image_guid = non_empty(rest(&pair)),
            Rule::port_block => ca.ports.push(port(text, pair)?),
            _ => {}
        }
    }
    Ok(ca)
}

fn port(text: &str, block: Pair<'_, Rule>) -> Result<IbStatPort, ParseError> {
    let mut port = IbStatPort {
        port: 0,
        state: None,
        physical_state: None,
        rate_gbps: None,
        fdr10: false,
        effective_speed_gbps: None,
        base_lid: None,
        lmc: None,
        sm_lid: None,
        capability_mask: None,
        port_guid: None,
        link_layer: None,
    };
    for pair in block.into_inner() {
        match pair.as_rule() {
            Rule::integer => {
                port.port = crate::grammar::named_number(TOOL, text, &pair, "port number")?
            }
            Rule::state => port.state = non_empty(rest(&pair)),
            Rule::physical_state => port.physical_state = non_empty(rest(&pair)),
            Rule::rate => {
                port.fdr10 = pair
                    .clone()
                    .into_inner()
                    .any(|p| p.as_rule() == Rule::fdr10);
                port.rate_gbps = Some(first_number(text, &pair)?);
            }
            Rule::effective_speed => port.effective_speed_gbps = Some(first_number(text, &pair)?),
            Rule::base_lid => port.base_lid = Some(first_number(text, &pair)?),
            Rule::lmc => port.lmc = Some(first_number(text, &pair)?),
            Rule::sm_lid => port.sm_lid = Some(first_number(text, &pair)?),
            Rule::capability_mask => port.capability_mask = non_empty(rest(&pair)),
            Rule::port_guid => port.port_guid = non_empty(rest(&pair)),
            Rule::link_layer => port.link_layer = non_empty(rest(&pair)),
            _ => {}
        }
    }
    Ok(port)
}

/// The `rest` text of a field (its value), or the field's own text.
fn rest(pair: &Pair<'_, Rule>) -> String {
    pair.clone()
        .into_inner()
        .find(|p| p.as_rule() == Rule::rest)
        .map_or_else(String::new, |p| p.as_str().to_owned())
}

fn non_empty(value: String) -> Option<String> {
    if value.is_empty() { None } else { Some(value) }
}

/// The first number inside a field.
fn first_number<T: std::str::FromStr>(text: &str, field: &Pair<'_, Rule>) -> Result<T, ParseError> {
    match field
        .clone()
        .into_inner()
        .find(|p| matches!(p.as_rule(), Rule::integer | Rule::decimal))
    {
        Some(value) => crate::grammar::named_number(TOOL, text, &value, "value"),
        None => {
            let span = field.as_span();
            Err(ParseError::at(
                TOOL,
                text,
                span.start(),
                span.end() - span.start(),
                "expected a number",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn single_port_form() {
        let out = "CA: 'mlx5_0'\nPort 1:\nState: Active\nRate: 40 (FDR10)\nBase lid: 3\n";
        let stat = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stat.cas[0].name, "mlx5_0");
        assert_eq!(stat.cas[0].ports[0].rate_gbps, Some(40.0));
        assert!(stat.cas[0].ports[0].fdr10);
    }

    #[test]
    fn empty_ca_type_is_null() {
        let out = "CA 'hfi1_0'\n    CA type: \n    Number of ports: 1\n";
        let stat = parse(out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stat.cas[0].ca_type, None);
        assert_eq!(stat.cas[0].number_of_ports, Some(1));
    }

    #[test]
    fn panic_only_is_not_ibstat_output() {
        assert!(parse("ibpanic: [1] main: stat of IB device 'mlx5_8' failed\n").is_err());
        assert!(parse("hca_id:\tmlx5_0\n").is_err());
    }
}
