//! `ibstat -l` (the channel adapter names) and `ibstat -p` (every port's GUID): one value per
//! line, for a runbook that only needs the names or the GUIDs (an `opensm -g GUID` per port).

use pest::Parser as _;
use serde::Serialize;

use super::parse::{IbStatParser, Rule};
use crate::ParseError;

/// What `ibstat -l` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbStatList {
    /// The channel adapter names, in output order (`mlx4_0`).
    pub cas: Vec<String>,
    /// `ibwarn:`/`ibpanic:` lines, as printed.
    pub diagnostics: Vec<String>,
}

/// What `ibstat -p` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbStatPortGuids {
    /// The port GUIDs as printed (`0xec0d9a03000c8981`), in output order.
    pub port_guids: Vec<String>,
    /// `ibwarn:`/`ibpanic:` lines, as printed.
    pub diagnostics: Vec<String>,
}

/// The values of `rule`'s lines in `text`, and its diagnostic lines.
fn lines(
    tool: &'static str,
    rule: Rule,
    value: Rule,
    what: &str,
    text: &str,
) -> Result<(Vec<String>, Vec<String>), ParseError> {
    let pairs = IbStatParser::parse(rule, text).map_err(|error| {
        let mut error = ParseError::from_pest(tool, text, &error);
        // Text after a value on its line: say what a line holds rather than `expected EOI`.
        if error.message == "expected EOI" {
            error.message = format!("expected one {what} per line");
        }
        error
    })?;
    let (mut values, mut diagnostics) = (Vec::new(), Vec::new());
    for pair in pairs {
        match pair.as_rule() {
            r if r == value => values.push(pair.as_str().to_owned()),
            Rule::ibwarn | Rule::ibpanic => diagnostics.push(pair.as_str().to_owned()),
            _ => {}
        }
    }
    Ok((values, diagnostics))
}

pub(super) fn parse_list(text: &str) -> Result<IbStatList, ParseError> {
    let (cas, diagnostics) = lines(
        "ibstat-list",
        Rule::ibstat_list,
        Rule::listed_ca,
        "channel adapter name",
        text,
    )?;
    Ok(IbStatList { cas, diagnostics })
}

pub(super) fn parse_ports(text: &str) -> Result<IbStatPortGuids, ParseError> {
    let (port_guids, diagnostics) = lines(
        "ibstat-ports",
        Rule::ibstat_ports,
        Rule::listed_port_guid,
        "port GUID (`0x` and 16 hex digits)",
        text,
    )?;
    Ok(IbStatPortGuids {
        port_guids,
        diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::{parse_list, parse_ports};

    #[test]
    fn full_ibstat_output_and_short_guids_are_refused() {
        assert!(parse_list("CA 'mlx4_0'\n\tCA type: MT4099\n").is_err());
        assert!(parse_ports("0xec0d9a03000c898\n").is_err());
        assert!(parse_ports("0xec0d9a03000c8981x\n").is_err());
        let ports = parse_ports("0xec0d9a03000c8981\r\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ports.port_guids, ["0xec0d9a03000c8981"]);
        assert!(parse_list("").is_err() && parse_ports("\n").is_err());
    }

    #[test]
    fn other_tools_one_word_lines_are_not_names() {
        // `ofed_info -s`, `ibstat -p`, and a name that is one.
        assert!(parse_list("MLNX_OFED_LINUX-23.07-0.5.1.2:\n").is_err());
        assert!(parse_list("0xec0d9a03000c8981\n").is_err());
        let list = parse_list("mlx5_bond_0\nibp12s0\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(list.cas, ["mlx5_bond_0", "ibp12s0"]);
    }
}
