//! `ibv_devinfo -l`: the names of the verbs devices, and how many the tool said it found.

use pest::Parser as _;
use serde::Serialize;

use super::parse::{IbvDevinfoParser, Rule};
use crate::ParseError;

const TOOL: &str = "ibv-devinfo-list";

/// What `ibv_devinfo -l` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbvDeviceList {
    /// N of `N HCAs found:`.
    pub count: Option<u32>,
    /// The device names, in output order (`mlx4_1`, `mlx5_0`).
    pub devices: Vec<String>,
    /// The message printed instead of the list (`Failed to get IB devices list: ...`).
    pub error: Option<String>,
}

/// Parses `ibv_devinfo -l` output. A count that differs from the names listed is an error at
/// the count: the capture was cut.
pub(super) fn parse_list(text: &str) -> Result<IbvDeviceList, ParseError> {
    let pairs = IbvDevinfoParser::parse(Rule::ibv_devinfo_list, text)
        .map_err(|error| ParseError::from_pest(TOOL, text, &error))?;
    let mut list = IbvDeviceList {
        count: None,
        devices: Vec::new(),
        error: None,
    };
    let mut count_span = None;
    for pair in pairs {
        match pair.as_rule() {
            Rule::hca_count_line => {
                if let Some(count) = pair.into_inner().next() {
                    let span = count.as_span();
                    list.count = Some(crate::grammar::named_number(
                        TOOL,
                        text,
                        &span,
                        "HCA count",
                    )?);
                    count_span = Some(span);
                }
            }
            Rule::listed_device => list.devices.push(pair.as_str().to_owned()),
            Rule::error_line => {
                let messages: Vec<&str> = pair.into_inner().map(|p| p.as_str()).collect();
                list.error = Some(messages.join("\n"));
            }
            _ => {}
        }
    }
    if let (Some(count), Some(span)) = (list.count, count_span)
        && count as usize != list.devices.len()
    {
        return Err(ParseError::at(
            TOOL,
            text,
            span.start(),
            span.end() - span.start(),
            format!(
                "the tool found {count} HCA(s) but {} are listed: the output is cut",
                list.devices.len()
            ),
        ));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::parse_list;

    #[test]
    fn one_hca_none_and_a_cut_list() {
        let one = parse_list("1 HCA found:\n\tmlx5_0\n\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (one.count, one.devices),
            (Some(1), vec!["mlx5_0".to_owned()])
        );
        let none = parse_list("0 HCAs found:\n\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((none.count, none.devices.len()), (Some(0), 0));
        let cut = parse_list("2 HCAs found:\n\tmlx4_1\n").err();
        assert!(cut.is_some_and(|e| e.message.contains("output is cut")));
        assert!(parse_list("").is_err());
    }
}
