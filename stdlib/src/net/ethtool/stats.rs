//! Walks the `ethtool -S` parse tree (`stats.pest`) into [`EthtoolStats`].

use pest::Parser as _;

use super::types::{EthtoolStats, Stat};
use crate::ParseError;
use crate::grammar::{ToolError, number};

const TOOL: &str = "ethtool-stats";
/// What an output that is not `ethtool -S`'s is told.
const EXPECTED: &str = "expected `ethtool -S` output: `NIC statistics:`, indented counter lines \
                        (`     rx_packets: 42`) or ethtool's error";

#[derive(pest_derive::Parser)]
#[grammar = "src/net/ethtool/stats.pest"]
struct StatsParser;

/// Parses `ethtool -S IFACE` output.
pub(super) fn parse(text: &str) -> Result<EthtoolStats, ParseError> {
    let root = StatsParser::parse(Rule::ethtool_stats, text).map_err(|error| {
        let error = ParseError::from_pest(TOOL, text, &error);
        // Refused at its start (pest names only the whole output): say what ethtool prints.
        if error.message == "expected ethtool stats" {
            ParseError::at(TOOL, text, error.span.offset(), error.span.len(), EXPECTED)
        } else {
            error
        }
    })?;
    let mut stats = EthtoolStats {
        group: None,
        stats: Vec::new(),
        elided: false,
        error: None,
    };
    for pair in root.flatten() {
        match pair.as_rule() {
            Rule::group => stats.group = Some(pair.as_str().to_owned()),
            Rule::stat_line => {
                let mut name = String::new();
                let mut value = 0;
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::name => name = part.as_str().trim_end().to_owned(),
                        Rule::value => value = number(TOOL, text, &part)?,
                        _ => {}
                    }
                }
                stats.stats.push(Stat { name, value });
            }
            Rule::elision_line => stats.elided = true,
            Rule::error if stats.error.is_none() => {
                let kind = match pair.as_str() {
                    s if s.starts_with("no stats") => "no_stats",
                    s if s.starts_with("no memory") => "no_memory",
                    s if s.starts_with("Cannot get stats strings") => "stats_strings",
                    s if s.starts_with("Cannot get stats") => "stats",
                    _ => "socket",
                };
                stats.error = Some(ToolError::at_span(kind, text, pair.as_span()));
            }
            _ => {}
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::parse;

    const R8169: &str = include_str!(
        "../../../../tests/fixtures/ethtool-stats/ethq-issue-3-r8169-nic-statistics.txt"
    );

    #[test]
    fn line_ends_and_indentation_do_not_change_the_result() {
        let expected = parse(crate::test_support::output_of(R8169));
        assert!(expected.is_ok());
        for text in crate::test_support::variants(R8169) {
            assert_eq!(
                parse(&text).ok(),
                expected.as_ref().ok().cloned(),
                "{text:?}"
            );
        }
    }

    /// Names holding `: ` are the driver's: be2net's per-queue counters
    /// (github.com/strizhechenko/netutils-linux issue 208, its `ethtool -S`) and bnx2x's
    /// (github.com/isc-projects/ethq issue 6); the value is after the last `: `.
    #[test]
    fn a_name_may_hold_a_colon() {
        let out = "NIC statistics:\n\
                   \x20    roce_drops_crc: 0\n\
                   \x20    rxq0: rx_bytes: 176801830924270\n\
                   \x20    rxq0: rx_pkts: 388868824555\n\
                   \x20    [0]: rx_bytes: 209487403324\n";
        let stats = parse(out).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = stats.stats.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "roce_drops_crc",
                "rxq0: rx_bytes",
                "rxq0: rx_pkts",
                "[0]: rx_bytes"
            ]
        );
        assert_eq!(stats.stats[1].value, 176_801_830_924_270);
    }

    /// `ethtool --phy-statistics` prints the same lines under `PHY statistics:` (`do_gphystats`).
    #[test]
    fn phy_statistics_are_their_group() {
        let stats = parse("PHY statistics:\n     phy_receive_errors: 3\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.group.as_deref(), Some("PHY"));
        assert_eq!(stats.stats[0].value, 3);
    }

    /// The errors of `do_gstats` (ethtool.c: `perror("Cannot get stats strings information")`
    /// when the driver has no string set, `no stats available` when it is empty) are data.
    #[test]
    fn ethtool_errors_are_data() {
        let stats = parse("Cannot get stats strings information: Operation not supported\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let error = stats.error.unwrap_or_else(|| panic!("no error"));
        assert_eq!(error.kind, "stats_strings");
        assert_eq!(
            error.message,
            "Cannot get stats strings information: Operation not supported"
        );
        assert_eq!(error.line, 1);
        assert!(stats.stats.is_empty());
    }

    #[test]
    fn a_counter_beyond_64_bits_is_refused_at_it() {
        let error = parse("NIC statistics:\n     rx_packets: 18446744073709551616\n")
            .err()
            .map(|e| e.message);
        assert_eq!(
            error.as_deref(),
            Some("`18446744073709551616` is not a number in range")
        );
    }

    #[test]
    fn other_text_is_refused() {
        for text in [
            "",
            "hello world\n",
            // Unindented `name: value` lines without the title: `ethtool -i`, not `-S`.
            "driver: mlx5_core\nversion: 5.0-0\n",
            "rx_packets: 1\n",
            // A counter line with a value that is no number.
            "NIC statistics:\n     rx_packets: many\n",
            "NIC statistics:\n     rx_packets: 1\nhello world\n",
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }
}
